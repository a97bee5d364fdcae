// Benchmark of stenc_sort (in-place bitonic) against CUB DeviceMergeSort and DeviceRadixSort,
// measured in the same run on the same data: u32 keys, u64 keys and u32 key-value pairs,
// n = 2^16 .. 2^28. Prints key=value lines, then a table.
// Usage: bench_sort [max_log2 (28)] [--sizes 16,20,...] [--counts 1000000,...]
//        [--tune | --tune-only]
//        [--tune-sizes 20,24,...] [--tune-narrow] [--tune-cluster]
//        (--tune-only: the policy sweep without the main table; --tune-narrow: only the sweep
//        of narrow-register tiles, 8 elements per thread, against wide ones at small n;
//        --tune-cluster: only the sweep of first-pass cluster sizes, none and 2^1..2^3)
//        [--policy t,c,threads,cluster[,first_tile]]: the main table's stenc rows with that
//        policy, no peers
//        (--counts: further sizes of the main table, any n, after the powers of two)
//        [--u32-only]: the main table's u32-keys rows only
//        [--ab-tile-merge]: beside each main row, the same sort with the bitonic first pass
//        (no merge sort of whole tiles: stsort_set_tile_merge(0))
//        [--ab-fixed-passes]: beside each main row, the same sort with the general kernel
//        for every later pass (stsort_set_fixed_passes(0))
//        [--ab-policy t,c,threads,cluster[,first_tile][:...]]: beside each main row, the
//        same sort with each of these policies (u32 keys and the other kinds unless --u32-only)
//        [--ab-split]: beside each main row, the same sort never split and split wherever it
//        can (stsort_set_split(0) and (2); the main row follows the default rule)
//        [--ab-replay]: beside each main row, the same sort launched directly on every call
//        (stsort_set_replay(0); the main row runs a graph captured on its second call from then on)
//        [--profile]: one sort per size and kind between cudaProfilerStart/Stop (for ncu
//        --profile-from-start off), after one unprofiled warm-up; CUB merge sort beside it
#include <cub/cub.cuh>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
#include "progress.h"
#include "sort_internal.h" // stsort_set_overlap_launches
#include "stenc/sort.h"

namespace {

cudaStream_t g_stream;
bool g_profile = false; // --profile

template <class F> float median_ms(F f, int reps) {
    return (float)bench_median_ms(g_stream, f, reps);
}

template <class K> __global__ void fill_random(K *x, size_t n, unsigned long long seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        x[i] = (K)(z ^ (z >> 31));
    }
}
__global__ void fill_index(unsigned *x, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = (unsigned)i;
}
// Mismatches against the reference keys, and (pairs) keys that left their value (an index).
template <class K>
__global__ void check_sorted(const K *got, const K *want, const K *orig, const unsigned *vals,
                             size_t n, unsigned long long *bad) {
    unsigned long long local = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (got[i] != want[i]) local++;
        if (vals && (vals[i] >= n || orig[vals[i]] != got[i])) local++;
    }
    if (local) atomicAdd(bad, local);
}

// The chapter's count (eq. 3): one pass for the first 9 phases, then per phase i > 9
// ceil((i - 9) / 4) passes of 4 register steps and one shared-memory pass.
int chapter_passes(int k) {
    int p = 1;
    for (int i = 10; i <= k; i++)
        p += 1 + (i - 9 + 3) / 4;
    return p;
}

struct Row {
    const char *key, *values;
    size_t n;
    int lg; // ceil(log2(n))
    double ours, merge, radix, graph;
    int passes, formula;
    size_t merge_extra, radix_extra;
    double host_us; // median time to queue one sort on the host
};

template <class K, bool PAIRS>
Row bench_one(stenc_ctx *ctx, const char *key_name, size_t n, const stenc_sort_policy *policy,
              bool peers) {
    int lg = 0;
    while (((size_t)1 << lg) < n)
        lg++;
    const int reps = lg <= 22 ? 15 : lg <= 25 ? 7 : 3;
    const stenc_type kt = sizeof(K) == 4 ? STENC_U32 : STENC_U64;
    K *src, *work, *ref_out;
    unsigned *vsrc = nullptr, *vwork = nullptr, *vref = nullptr;
    BENCH_CUDA_CHECK(cudaMalloc(&src, n * sizeof(K)));
    BENCH_CUDA_CHECK(cudaMalloc(&work, n * sizeof(K)));
    BENCH_CUDA_CHECK(cudaMalloc(&ref_out, n * sizeof(K)));
    if (PAIRS) {
        BENCH_CUDA_CHECK(cudaMalloc(&vsrc, n * 4));
        BENCH_CUDA_CHECK(cudaMalloc(&vwork, n * 4));
        BENCH_CUDA_CHECK(cudaMalloc(&vref, n * 4));
        fill_index<<<1024, 256, 0, g_stream>>>(vsrc, n);
    }
    fill_random<K><<<1024, 256, 0, g_stream>>>(src, n, 12345 + lg);
    BENCH_CUDA_CHECK(cudaGetLastError());

    auto copy_in = [&] {
        BENCH_CUDA_CHECK(
            cudaMemcpyAsync(work, src, n * sizeof(K), cudaMemcpyDeviceToDevice, g_stream));
        if (PAIRS)
            BENCH_CUDA_CHECK(
                cudaMemcpyAsync(vwork, vsrc, n * 4, cudaMemcpyDeviceToDevice, g_stream));
    };
    auto sort_work = [&] {
        BENCH_STENC_CHECK(stenc_sort_segments_ex(ctx, kt, work, STENC_U32, PAIRS ? vwork : nullptr,
                                                 n, 1, STENC_SORT_ASCENDING, policy));
    };
    auto ours = [&] {
        copy_in();
        sort_work();
    };
    // CUB merge sort of work (and vwork) in place; with tmp == nullptr, the size query.
    auto merge_sort = [&](void *tmp, size_t &bytes) {
        if (PAIRS)
            BENCH_CUDA_CHECK(cub::DeviceMergeSort::SortPairs(tmp, bytes, work, vwork, (long long)n,
                                                             cuda::std::less<K>(), g_stream));
        else
            BENCH_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(tmp, bytes, work, (long long)n,
                                                            cuda::std::less<K>(), g_stream));
    };
    if (g_profile) {
        ours(); // warm-up, unprofiled
        size_t merge_bytes = 0;
        merge_sort(nullptr, merge_bytes);
        void *tmp = nullptr;
        BENCH_CUDA_CHECK(cudaMalloc(&tmp, merge_bytes + 16));
        copy_in();
        BENCH_CUDA_CHECK(cudaStreamSynchronize(g_stream));
        BENCH_CUDA_CHECK(cudaProfilerStart());
        ours();
        copy_in();
        merge_sort(tmp, merge_bytes);
        BENCH_CUDA_CHECK(cudaStreamSynchronize(g_stream));
        BENCH_CUDA_CHECK(cudaProfilerStop());
        BENCH_CUDA_CHECK(cudaFree(tmp));
    }
    float ms_copy = median_ms(copy_in, reps);
    float ms_ours = median_ms(ours, reps) - ms_copy;
    // The host's time to queue one sort (the stream drained first): the launches' cost, which
    // a sort shorter than it cannot hide.
    std::vector<double> host_us;
    for (int r = 0; r < 15; r++) {
        BENCH_CUDA_CHECK(cudaStreamSynchronize(g_stream));
        const auto t0 = std::chrono::steady_clock::now();
        sort_work();
        host_us.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    BENCH_CUDA_CHECK(cudaStreamSynchronize(g_stream));
    std::sort(host_us.begin(), host_us.end());

    // Correctness, in the same run: equal to the radix sort's keys; values beside their keys.
    size_t radix_bytes = 0, merge_bytes = 0;
    void *tmp = nullptr;
    if (PAIRS)
        BENCH_CUDA_CHECK(
            cub::DeviceRadixSort::SortPairs(nullptr, radix_bytes, src, ref_out, vsrc, vref, n));
    else
        BENCH_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, radix_bytes, src, ref_out, n));
    merge_sort(nullptr, merge_bytes);
    BENCH_CUDA_CHECK(cudaMalloc(&tmp, std::max(radix_bytes, merge_bytes) + 16));
    auto radix = [&] {
        if (PAIRS)
            BENCH_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
                tmp, radix_bytes, src, ref_out, vsrc, vref, n, 0, (int)(8 * sizeof(K)), g_stream));
        else
            BENCH_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(tmp, radix_bytes, src, ref_out, n, 0,
                                                            (int)(8 * sizeof(K)), g_stream));
    };
    radix();
    unsigned long long *bad;
    BENCH_CUDA_CHECK(cudaMalloc(&bad, 8));
    BENCH_CUDA_CHECK(cudaMemsetAsync(bad, 0, 8, g_stream));
    ours();
    check_sorted<K>
        <<<1024, 256, 0, g_stream>>>(work, ref_out, src, PAIRS ? vwork : nullptr, n, bad);
    unsigned long long nbad = 0;
    BENCH_CUDA_CHECK(cudaMemcpyAsync(&nbad, bad, 8, cudaMemcpyDeviceToHost, g_stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(g_stream));
    if (nbad) {
        printf("FAILED: stenc_sort %s%s n=%zu: %llu wrong elements\n", key_name,
               PAIRS ? " pairs" : "", n, nbad);
        exit(1);
    }

    Row row{key_name,
            PAIRS ? "u32" : "none",
            n,
            lg,
            n / (ms_ours * 1e6),
            0,
            0,
            0,
            0,
            chapter_passes(lg),
            merge_bytes,
            radix_bytes + n * (sizeof(K) + (PAIRS ? 4 : 0)),
            host_us[host_us.size() / 2]};
    BENCH_STENC_CHECK(
        stenc_sort_global_passes(ctx, kt, STENC_U32, PAIRS, n, 1, policy, &row.passes));
    {
        // The same sort captured once in a CUDA graph and replayed: the device's time without
        // the host's per-launch cost (the direct figure above includes it).
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        BENCH_CUDA_CHECK(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeRelaxed));
        sort_work();
        BENCH_CUDA_CHECK(cudaStreamEndCapture(g_stream, &graph));
        BENCH_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        auto replay = [&] {
            copy_in();
            BENCH_CUDA_CHECK(cudaGraphLaunch(exec, g_stream));
        };
        row.graph = n / ((median_ms(replay, reps) - ms_copy) * 1e6);
        BENCH_CUDA_CHECK(cudaGraphExecDestroy(exec));
        BENCH_CUDA_CHECK(cudaGraphDestroy(graph));
    }
    if (peers) {
        float ms_radix = median_ms(radix, reps);
        auto merge = [&] {
            copy_in();
            merge_sort(tmp, merge_bytes);
        };
        float ms_merge = median_ms(merge, reps) - ms_copy;
        row.merge = n / (ms_merge * 1e6);
        row.radix = n / (ms_radix * 1e6);
    }
    BENCH_CUDA_CHECK(cudaFree(tmp));
    BENCH_CUDA_CHECK(cudaFree(bad));
    BENCH_CUDA_CHECK(cudaFree(src));
    BENCH_CUDA_CHECK(cudaFree(work));
    BENCH_CUDA_CHECK(cudaFree(ref_out));
    if (PAIRS) {
        BENCH_CUDA_CHECK(cudaFree(vsrc));
        BENCH_CUDA_CHECK(cudaFree(vwork));
        BENCH_CUDA_CHECK(cudaFree(vref));
    }
    return row;
}

void print_row(const Row &r, const char *name, const stenc_sort_policy *p) {
    printf("name=%s target=cuda key=%s values=%s n=%zu log2n=%d gkeys=%.3f passes=%d "
           "passes_formula=%d extra_bytes=0 host_us=%.1f",
           name, r.key, r.values, r.n, r.lg, r.ours, r.passes, r.formula, r.host_us);
    if (p)
        printf(" tile_log2=%d chunk_log2=%d threads=%d cluster_log2=%d first_tile_log2=%d",
               p->tile_log2, p->chunk_log2, p->threads, p->cluster_log2, p->first_tile_log2);
    printf(" graph_gkeys=%.3f", r.graph);
    if (r.merge > 0)
        printf(" merge_gkeys=%.3f radix_gkeys=%.3f ratio_merge=%.3f "
               "ratio_radix=%.3f merge_extra_bytes=%zu radix_extra_bytes=%zu",
               r.merge, r.radix, r.ours / r.merge, r.ours / r.radix, r.merge_extra, r.radix_extra);
    printf("\n");
    fflush(stdout);
}

} // namespace

// One row per element kind (u32 keys, u64 keys, u32 pairs) with policy p and no peers.
void print_kinds(stenc_ctx *ctx, size_t n, const stenc_sort_policy *p, const char *name,
                 const char *pairs_name, bool u32_only = false) {
    print_row(bench_one<unsigned, false>(ctx, "u32", n, p, false), name, p);
    if (u32_only) return;
    print_row(bench_one<unsigned long long, false>(ctx, "u64", n, p, false), name, p);
    print_row(bench_one<unsigned, true>(ctx, "u32", n, p, false), pairs_name, p);
}

int main(int argc, char **argv) {
    progress_args(&argc, argv); // --quiet: no progress lines
    int max_lg = 28;
    bool tune = false, main_table = true, tune_narrow = false, tune_cluster = false;
    bool have_policy = false, u32_only = false, ab_tile_merge = false, ab_fixed_passes = false,
         ab_split = false, ab_replay = false;
    stenc_sort_policy policy = {0, 0, 0, 0, 0};
    std::vector<stenc_sort_policy> ab_policies; // --ab-policy
    std::vector<int> sizes = {16, 18, 20, 22, 24, 26, 27, 28},
                     tune_sizes = {16, 18, 20, 22, 24, 27};
    std::vector<size_t> counts; // --counts: sizes that need not be powers of two
    auto parse_list = [](const char *arg) {
        std::vector<int> v;
        for (const char *c = arg; *c;) {
            v.push_back(atoi(c));
            while (*c && *c != ',')
                c++;
            if (*c) c++;
        }
        return v;
    };
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tune"))
            tune = true;
        else if (!strcmp(argv[i], "--tune-only"))
            tune = true, main_table = false;
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes = parse_list(argv[++i]);
        else if (!strcmp(argv[i], "--counts") && i + 1 < argc) {
            for (const char *c = argv[++i]; *c;) {
                char *end;
                const unsigned long long n = strtoull(c, &end, 10);
                if (end == c || n == 0 || (*end && *end != ',')) {
                    fprintf(stderr, "--counts takes positive sizes separated by commas\n");
                    return 2;
                }
                counts.push_back((size_t)n);
                c = *end ? end + 1 : end;
            }
        } else if (!strcmp(argv[i], "--tune-cluster"))
            tune_cluster = true, main_table = false;
        else if (!strcmp(argv[i], "--tune-narrow"))
            tune_narrow = true, main_table = false;
        else if (!strcmp(argv[i], "--tune-sizes") && i + 1 < argc)
            tune_sizes = parse_list(argv[++i]);
        else if (!strcmp(argv[i], "--u32-only"))
            u32_only = true;
        else if (!strcmp(argv[i], "--ab-tile-merge"))
            ab_tile_merge = true;
        else if (!strcmp(argv[i], "--ab-fixed-passes"))
            ab_fixed_passes = true;
        else if (!strcmp(argv[i], "--ab-split"))
            ab_split = true;
        else if (!strcmp(argv[i], "--ab-replay"))
            ab_replay = true;
        else if (!strcmp(argv[i], "--profile"))
            g_profile = true;
        else if (!strcmp(argv[i], "--ab-policy") && i + 1 < argc) {
            for (const char *c = argv[++i]; *c;) {
                const char *end = strchr(c, ':');
                const std::string one(c, end ? (size_t)(end - c) : strlen(c));
                const std::vector<int> v = parse_list(one.c_str());
                if (v.size() != 4 && v.size() != 5) {
                    fprintf(stderr, "--ab-policy takes policies t,c,threads,cluster[,first_tile] "
                                    "separated by ':'\n");
                    return 2;
                }
                ab_policies.push_back({v[0], v[1], v[2], v[3], v.size() == 5 ? v[4] : 0});
                c = end ? end + 1 : c + strlen(c);
            }
        } else if (!strcmp(argv[i], "--policy") && i + 1 < argc) {
            const std::vector<int> v = parse_list(argv[++i]);
            have_policy = v.size() == 4 || v.size() == 5;
            if (!have_policy) {
                fprintf(stderr, "--policy takes tile_log2,chunk_log2,threads,cluster_log2"
                                "[,first_tile_log2]\n");
                return 2;
            }
            policy = {v[0], v[1], v[2], v[3], v.size() == 5 ? v[4] : 0};
        } else
            max_lg = atoi(argv[i]);
    }
    stenc_ctx *ctx;
    BENCH_STENC_CHECK(stenc_ctx_create(&ctx, STENC_DEVICE_CUDA));
    g_stream = (cudaStream_t)stenc_ctx_cuda_stream(ctx);
    printf("device: %s\n", stenc_ctx_device_name(ctx));
    std::vector<Row> rows;
    std::vector<size_t> ns; // the main table's sizes: the powers of two, then --counts
    for (int lg : sizes)
        if (lg <= max_lg) ns.push_back((size_t)1 << lg);
    ns.insert(ns.end(), counts.begin(), counts.end());
    progress prog; // counts the keys of the main table's sizes
    progress_begin(&prog, "bench_sort");
    double keys_done = 0, keys_total = 0;
    for (size_t n : ns)
        keys_total += (double)n;
    for (size_t n : ns) {
        if (!main_table) break;
        progress_update(&prog, keys_done, keys_total);
        keys_done += (double)n;
        const stenc_sort_policy *pol = have_policy ? &policy : nullptr;
        const char *name = have_policy ? "sort_policy" : "sort";
        // Rows with one of the runtime's process-wide switches set to `mode`.
        auto ab_rows = [&](int (*set)(int), int mode, const char *row_name,
                           const char *pairs_name) {
            const int was = set(mode);
            print_kinds(ctx, n, pol, row_name, pairs_name, u32_only);
            set(was);
        };
        if (ab_tile_merge)
            ab_rows(stsort_set_tile_merge, 0, "sort_bitonic_first", "sort_bitonic_first");
        if (ab_fixed_passes)
            ab_rows(stsort_set_fixed_passes, 0, "sort_general_passes", "sort_general_passes");
        if (ab_split) {
            ab_rows(stsort_set_split, 0, "sort_unsplit", "sort_unsplit_pairs");
            ab_rows(stsort_set_split, 2, "sort_split", "sort_split_pairs");
        }
        if (ab_replay) ab_rows(stsort_set_replay, 0, "sort_direct", "sort_direct_pairs");
        for (const stenc_sort_policy &p : ab_policies)
            print_kinds(ctx, n, &p, "sort_ab_policy", "sort_ab_policy_pairs", u32_only);
        rows.push_back(bench_one<unsigned, false>(ctx, "u32", n, pol, !have_policy));
        print_row(rows.back(), name, pol);
        if (u32_only) continue;
        rows.push_back(bench_one<unsigned long long, false>(ctx, "u64", n, pol, !have_policy));
        print_row(rows.back(), name, pol);
        rows.push_back(bench_one<unsigned, true>(ctx, "u32", n, pol, !have_policy));
        print_row(rows.back(), name, pol);
    }
    if (tune_narrow) {
        // Small sorts: narrow tiles (8 elements per thread, threads = 2^(t-3)) of 2^10..2^13,
        // and wide ones (32 per thread; 16 for 16-byte elements) of 2^12..2^13, every element
        // kind; the default policy is row threads=0 tile_log2=0.
        for (int lg : tune_sizes) {
            if (lg > max_lg) break;
            for (int t = 10; t <= 14; t++)
                for (int narrow = 0; narrow <= 1; narrow++) {
                    if (narrow ? t > 13 : t < 12) continue;
                    stenc_sort_policy p = {t, 4, narrow ? 1 << (t - 3) : 0, 0, 0};
                    if (t == 14) p = {0, 0, 0, 0, 0};
                    print_kinds(ctx, (size_t)1 << lg, &p, "sort_narrow", "sort_narrow_pairs");
                }
        }
    }
    if (tune_cluster) {
        // Placement: clusters of the first pass the device runs at once, against the tiles.
        for (int t = 11; t <= 15; t++)
            for (int cl = 0; cl <= 3; cl++)
                printf("name=sort_cluster_occupancy key=u32 tile_log2=%d narrow=%d "
                       "cluster_log2=%d max_active_clusters=%d blocks=%d\n",
                       t, t == 11, cl, stsort_max_active_clusters(4, 0, t, t == 11, cl),
                       std::max(0, stsort_max_active_clusters(4, 0, t, t == 11, cl)) << cl);
        // The default tiles with no cluster and clusters of 2, 4 and 8 blocks in the first
        // pass, every element kind; then u32 keys with tiles of 2^15 (1024 threads).
        for (int lg : tune_sizes) {
            if (lg > max_lg) break;
            for (int cl = -1; cl <= 3; cl++) {
                if (cl == 0) continue;
                stenc_sort_policy p = {0, 0, 0, cl, 0};
                // The passes launched one after the other (no programmatic dependents).
                const int was = stsort_set_overlap_launches(0);
                print_row(bench_one<unsigned, false>(ctx, "u32", (size_t)1 << lg, &p, false),
                          "sort_cluster_serial", &p);
                stsort_set_overlap_launches(was);
                print_kinds(ctx, (size_t)1 << lg, &p, "sort_cluster", "sort_cluster_pairs");
                if (lg >= 20) {
                    p.tile_log2 = 15;
                    print_row(bench_one<unsigned, false>(ctx, "u32", (size_t)1 << lg, &p, false),
                              "sort_cluster", &p);
                }
            }
        }
    }
    if (tune) {
        // u32 keys: tiles 2^12..2^15 (2^15: 1024 threads x 32 registers), runs of 2^4 or 2^5.
        for (int lg : tune_sizes) {
            if (lg > max_lg) break;
            for (int t = 12; t <= 15; t++)
                for (int c = 4; c <= 5; c++) {
                    if ((lg >= 22 && t < 13) || (lg <= 20 && t > 14) || (c == 5 && lg < 24))
                        continue;
                    stenc_sort_policy p = {t, c, 0, 0, 0};
                    Row r = bench_one<unsigned, false>(ctx, "u32", (size_t)1 << lg, &p, false);
                    print_row(r, "sort_tune", &p);
                }
        }
        // 8-byte elements: tiles 2^12..2^14.
        for (int lg : tune_sizes) {
            if (lg > max_lg) break;
            for (int t = 12; t <= 14; t++) {
                stenc_sort_policy p = {t, 4, 0, 0, 0};
                Row r =
                    bench_one<unsigned long long, false>(ctx, "u64", (size_t)1 << lg, &p, false);
                print_row(r, "sort_tune", &p);
                r = bench_one<unsigned, true>(ctx, "u32", (size_t)1 << lg, &p, false);
                print_row(r, "sort_tune_pairs", &p);
            }
        }
    }
    printf("\n%-4s %-6s %-9s %9s %9s %9s %9s %7s %7s %7s %8s\n", "key", "values", "n", "stenc",
           "graph", "cub_mrg", "cub_rdx", "vs_mrg", "vs_rdx", "passes", "chapter");
    for (const Row &r : rows) {
        char n[32];
        if (r.n == (size_t)1 << r.lg)
            snprintf(n, sizeof n, "2^%d", r.lg);
        else
            snprintf(n, sizeof n, "%zu", r.n);
        printf("%-4s %-6s %-9s %9.2f %9.2f %9.2f %9.2f %7.2f %7.2f %7d %8d\n", r.key, r.values, n,
               r.ours, r.graph, r.merge, r.radix, r.ours / r.merge, r.ours / r.radix, r.passes,
               r.formula);
    }
    printf("(Gkeys/s; graph: stenc_sort captured in a CUDA graph and replayed; stenc allocates 0 "
           "extra bytes; passes: global passes of stenc_sort, "
           "chapter: eq. 3 with 9 shared-memory phases and 4 register steps)\n");
    stenc_ctx_destroy(ctx);
    return 0;
}
