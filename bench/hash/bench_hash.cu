// Cuckoo hash table throughput on the GPU: bulk build (inserts/s), queries that all hit and
// queries that all miss, for N = 2^20, 2^24, 2^27 at size factors 1.25 and 2.0, in both slot
// layouts (slots: the chapter's; buckets: 32-byte buckets). In the same run
// it measures the random 64-bit atomic update rate (the anchor of bench/anchors/anchors.cu,
// same kernel), and compares with cuCollections' published static_map figures for the H100.
// Every result is checked on the device. Builds are timed three ways: with the default
// partition policy (`insert`), with partitioning off (`ins-direct`) and forced on
// (`ins-part`); a sweep at 2^21..2^23 finds the crossover, and the build's phases (clear,
// partitioned or direct insertion, duplicate pass) are timed alone through the backend at 2^24
// and 2^27. Usage: bench_hash [max_lg=27] [target=h100]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "stenc/core.h"
#include "stenc/hash.h"

#include "bench_util.h"
#include "progress.h"
#include "hash_backend.h" // the partition policy hook and the backend, for the phase timings

// Published peers (cuCollections static_map, H100 SXM, 2^27 pairs, 50% load) and the anchor
// figure of /work/shared/anchors (used only to say how this run's anchor compares).
static const double cuco_insert_gops = 10.9, cuco_find_gops = 16.8;

__device__ __host__ inline uint32_t perm32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
// Distinct keys for i < 2^31 (a bijection), never the reserved key; i >= 2^31 gives absent keys.
__device__ inline uint32_t key_at(uint32_t i) {
    uint32_t k = perm32(i);
    return k == 0xffffffffu ? perm32(0xfffffffeu) : k;
}

__global__ void make_pairs(uint32_t *keys, uint32_t *values, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    keys[i] = key_at((uint32_t)i);
    values[i] = (uint32_t)i * 3u + 1u;
}
// n device pairs of make_pairs (the benchmark's input), in fresh allocations.
static void device_pairs(size_t n, cudaStream_t stream, uint32_t **keys, uint32_t **values) {
    BENCH_CUDA_CHECK(cudaMalloc(keys, n * 4));
    BENCH_CUDA_CHECK(cudaMalloc(values, n * 4));
    make_pairs<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(*keys, *values, n);
    BENCH_CUDA_CHECK(cudaGetLastError());
}

// Queries in a scattered order: i -> (i * 7919 + 13) mod n is a bijection for n = 2^k.
__global__ void make_queries(uint32_t *q, size_t n, int hit) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t j = (uint32_t)((i * 7919u + 13u) & (n - 1));
    q[i] = hit ? key_at(j) : key_at(0x80000000u + (uint32_t)i);
}
__global__ void check_results(const uint32_t *r, size_t n, int hit, unsigned long long *bad) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t j = (uint32_t)((i * 7919u + 13u) & (n - 1));
    uint32_t want = hit ? j * 3u + 1u : STENC_HASH_NOT_FOUND;
    if (r[i] != want) atomicAdd(bad, 1ull);
}
// The anchor: random read-modify-write of 64-bit words (Fig. 4.7 of the chapter).
__global__ void rand_update(unsigned long long *t, size_t n, size_t stride) {
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= n) return;
    size_t loc = (k * stride) % n;
    atomicExch(&t[loc], t[loc] + 1);
}

template <class F> static double median_ms(stenc_timer *tm, F f, int reps) {
    f(); // warm-up
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        double ms;
        BENCH_STENC_CHECK(stenc_timer_start(tm));
        f();
        BENCH_STENC_CHECK(stenc_timer_stop(tm, &ms));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static hash_partition_policy direct_policy() {
    hash_partition_policy p = hash_partition_policy_default();
    p.min_keys = ~(size_t)0;
    return p;
}
static hash_partition_policy forced_policy() {
    hash_partition_policy p = hash_partition_policy_default();
    p.min_keys = 0;
    p.min_table_bytes = 0;
    return p;
}
static uint64_t partitioned_runs() {
    uint64_t runs, fallbacks;
    hash_partition_counts(&runs, &fallbacks);
    return runs;
}

struct row {
    const char *layout;
    int lg;
    double factor;
    const char *op;
    double gops, restarts;
};

int main(int argc, char **argv) {
    progress_args(&argc, argv); // --quiet: no progress lines
    int max_lg = argc > 1 ? atoi(argv[1]) : 27;
    const char *target = argc > 2 ? argv[2] : "h100";
    // "phases": only the phase timings, at 2^max_lg (for a profiler run).
    const bool phases_only = argc > 3 && strcmp(argv[3], "phases") == 0;
    stenc_ctx *ctx;
    BENCH_STENC_CHECK(stenc_ctx_create(&ctx, STENC_DEVICE_CUDA));
    cudaStream_t stream = (cudaStream_t)stenc_ctx_cuda_stream(ctx);
    stenc_timer *tm;
    BENCH_STENC_CHECK(stenc_timer_create(ctx, &tm));
    printf("device: %s\n", stenc_ctx_device_name(ctx));

    // Anchor, as in anchors.cu: 2^27 slots (1 GiB), stride 1000003.
    double atomic_gups;
    {
        size_t n = (size_t)1 << 27;
        unsigned long long *t;
        BENCH_CUDA_CHECK(cudaMalloc(&t, n * 8));
        BENCH_CUDA_CHECK(cudaMemset(t, 0, n * 8));
        double ms = median_ms(
            tm, [&] { rand_update<<<(n + 255) / 256, 256, 0, stream>>>(t, n, 1000003); }, 7);
        BENCH_CUDA_CHECK(cudaGetLastError());
        atomic_gups = n / ms / 1e6;
        BENCH_CUDA_CHECK(cudaFree(t));
        printf("name=atomic_anchor target=%s op=random_u64_update gops=%.3f\n", target,
               atomic_gups);
    }

    std::vector<row> rows;
    unsigned long long *bad;
    BENCH_CUDA_CHECK(cudaMalloc(&bad, 8));
    progress prog; // counts the pairs built, over every size, layout and load
    progress_begin(&prog, "bench_hash");
    double pairs_done = 0, pairs_total = 0;
    for (int lg : {20, 24, 27})
        if (lg <= max_lg && !phases_only) pairs_total += 4.0 * (double)((size_t)1 << lg);
    for (int lg : {20, 24, 27}) {
        if (lg > max_lg || phases_only) continue;
        const size_t n = (size_t)1 << lg;
        const int reps = lg >= 27 ? 5 : 11;
        uint32_t *keys, *values, *q, *res;
        device_pairs(n, stream, &keys, &values);
        BENCH_CUDA_CHECK(cudaMalloc(&q, n * 4));
        BENCH_CUDA_CHECK(cudaMalloc(&res, n * 4));
        const unsigned grid = (unsigned)((n + 255) / 256);
        for (int lay = 0; lay < 2; lay++)
            for (double factor : {1.25, 2.0}) {
                progress_update(&prog, pairs_done, pairs_total);
                pairs_done += (double)n;
                const char *lname = lay ? "buckets" : "slots";
                stenc_hash_config cfg = stenc_hash_config_default(STENC_HASH_MAP);
                cfg.layout = lay ? STENC_HASH_LAYOUT_BUCKETS : STENC_HASH_LAYOUT_SLOTS;
                cfg.size_factor = factor;
                stenc_hash_table *t;
                BENCH_STENC_CHECK(stenc_hash_create(ctx, &cfg, &t));
                auto build_ms = [&](hash_partition_policy pol) {
                    hash_set_partition_policy(pol);
                    double bms = median_ms(
                        tm, [&] { BENCH_STENC_CHECK(stenc_hash_build(t, keys, values, n)); }, reps);
                    if (stenc_hash_count(t) != n) {
                        printf("FAILED: %zu keys stored of %zu\n", stenc_hash_count(t), n);
                        exit(1);
                    }
                    return bms;
                };
                const double direct_ms = build_ms(direct_policy());
                const double part_ms = build_ms(forced_policy());
                hash_set_partition_policy(hash_partition_policy_default());
                uint64_t builds0 = 0, restarts0 = 0, runs0 = partitioned_runs();
                int calls = 0;
                double ms = median_ms(
                    tm,
                    [&] {
                        if (calls++ == 1) { // after the warm-up
                            builds0 = stenc_hash_get_stats(t).builds;
                            restarts0 = stenc_hash_get_stats(t).restarts;
                        }
                        BENCH_STENC_CHECK(stenc_hash_build(t, keys, values, n));
                    },
                    reps);
                const bool took_partition = partitioned_runs() > runs0;
                stenc_hash_stats st = stenc_hash_get_stats(t);
                double restart_rate = (double)(st.restarts - restarts0) /
                                      (double)(st.builds - builds0 ? st.builds - builds0 : 1);
                if (stenc_hash_count(t) != n) {
                    printf("FAILED: %zu keys stored of %zu\n", stenc_hash_count(t), n);
                    return 1;
                }
                printf("name=hash_path target=%s layout=%s lg=%d factor=%.2f default=%s\n", target,
                       lname, lg, factor, took_partition ? "partitioned" : "direct");
                rows.push_back({lname, lg, factor, "ins-direct", n / direct_ms / 1e6, 0});
                rows.push_back({lname, lg, factor, "ins-part", n / part_ms / 1e6, 0});
                rows.push_back({lname, lg, factor, "insert", n / ms / 1e6, restart_rate});
                // The build's first step, alone: clearing as many slots with cudaMemset. "insert
                // minus clear" is derived (n / (build - clear)), for peers whose insert figures
                // start from a cleared table.
                {
                    void *buf;
                    const size_t bytes = stenc_hash_capacity(t) * 8;
                    BENCH_CUDA_CHECK(cudaMalloc(&buf, bytes));
                    double cms = median_ms(
                        tm, [&] { BENCH_CUDA_CHECK(cudaMemsetAsync(buf, 0xff, bytes, stream)); },
                        reps);
                    BENCH_CUDA_CHECK(cudaFree(buf));
                    rows.push_back({lname, lg, factor, "clear", n / cms / 1e6, 0});
                    rows.push_back({lname, lg, factor, "ins-clear", n / (ms - cms) / 1e6, 0});
                }
                for (int hit = 1; hit >= 0; hit--) {
                    make_queries<<<grid, 256, 0, stream>>>(q, n, hit);
                    BENCH_CUDA_CHECK(cudaMemsetAsync(res, 0xa5, n * 4, stream));
                    double qms = median_ms(
                        tm, [&] { BENCH_STENC_CHECK(stenc_hash_find(t, q, res, n)); }, reps);
                    BENCH_CUDA_CHECK(cudaMemsetAsync(bad, 0, 8, stream));
                    check_results<<<grid, 256, 0, stream>>>(res, n, hit, bad);
                    unsigned long long nbad;
                    BENCH_CUDA_CHECK(
                        cudaMemcpyAsync(&nbad, bad, 8, cudaMemcpyDeviceToHost, stream));
                    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
                    if (nbad) {
                        printf("FAILED: %llu wrong %s results at n=2^%d factor %.2f layout %s\n",
                               nbad, hit ? "hit" : "miss", lg, factor, lname);
                        return 1;
                    }
                    rows.push_back(
                        {lname, lg, factor, hit ? "find_hit" : "find_miss", n / qms / 1e6, 0});
                }
                stenc_hash_destroy(t);
            }
        BENCH_CUDA_CHECK(cudaFree(keys));
        BENCH_CUDA_CHECK(cudaFree(values));
        BENCH_CUDA_CHECK(cudaFree(q));
        BENCH_CUDA_CHECK(cudaFree(res));
    }
    // Crossover of the partitioned build, buckets layout, between the sizes above.
    for (int lg = 21; lg <= 23 && lg <= max_lg && !phases_only; lg++) {
        const size_t n = (size_t)1 << lg;
        uint32_t *keys, *values;
        device_pairs(n, stream, &keys, &values);
        for (double factor : {1.25, 2.0}) {
            stenc_hash_config cfg = stenc_hash_config_default(STENC_HASH_MAP);
            cfg.size_factor = factor;
            stenc_hash_table *t;
            BENCH_STENC_CHECK(stenc_hash_create(ctx, &cfg, &t));
            for (int part = 0; part < 2; part++) {
                hash_set_partition_policy(part ? forced_policy() : direct_policy());
                double ms = median_ms(
                    tm, [&] { BENCH_STENC_CHECK(stenc_hash_build(t, keys, values, n)); }, 11);
                if (stenc_hash_count(t) != n) {
                    printf("FAILED: %zu keys stored of %zu\n", stenc_hash_count(t), n);
                    return 1;
                }
                rows.push_back(
                    {"buckets", lg, factor, part ? "ins-part" : "ins-direct", n / ms / 1e6, 0});
            }
            hash_set_partition_policy(hash_partition_policy_default());
            stenc_hash_destroy(t);
        }
        BENCH_CUDA_CHECK(cudaFree(keys));
        BENCH_CUDA_CHECK(cudaFree(values));
    }

    // The build's phases alone, buckets layout, through the backend on a hand-made geometry
    // (d = 4, constants as a build would draw them): the clear; the insertion of a fresh table,
    // direct (clear included) and partitioned (it writes every bucket, no clear); the partition
    // alone; the duplicate pass.
    struct phase_row {
        int lg;
        double factor, clear_ms, direct_ms, part_ms, partition_ms, slices_ms, dedupe_ms;
    };
    std::vector<phase_row> phases;
    const hash_backend *be = hash_cuda_backend();
    for (int lg : {24, 27}) {
        if (lg > max_lg || (phases_only && lg != max_lg)) continue;
        const size_t n = (size_t)1 << lg;
        const int reps = lg >= 27 ? 5 : 11;
        uint32_t *keys, *values;
        device_pairs(n, stream, &keys, &values);
        for (double factor : {1.25, 2.0}) {
            hash_geom g;
            memset(&g, 0, sizeof g);
            g.d = 4;
            g.bucket = 4;
            g.buckets = (uint32_t)((factor * (double)n + 3) / 4);
            g.capacity = g.buckets * 4;
            g.max_chain = 7u * (uint32_t)lg;
            uint64_t seed = 0x5eed5eed12345678ull;
            for (int i = 0; i < STENC_HASH_MAX_FUNCTIONS; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                g.a[i] = (seed ^ (seed >> 29)) | 1u;
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                g.b[i] = seed ^ (seed >> 31);
            }
            void *slots;
            BENCH_CUDA_CHECK(cudaMalloc(&slots, (size_t)g.capacity * 8));
            hash_scratch part = {nullptr, 0};
            hash_insert_result r;
            const double clear_ms = median_ms(
                tm, [&] { BENCH_STENC_CHECK(be->clear(ctx, &g, slots)); }, reps);
            double ins_ms[4];
            for (int p = 0; p < 4; p++) {
                hash_partition_policy pol = p ? forced_policy() : direct_policy();
                pol.partition_only = p >= 2 ? p - 1 : 0;
                hash_set_partition_policy(pol);
                ins_ms[p] = median_ms(
                    tm,
                    [&] {
                        BENCH_STENC_CHECK(
                            be->insert(ctx, &g, slots, keys, values, nullptr, n, 1, &part, &r));
                    },
                    reps);
                if (r.failed || r.reserved) {
                    printf("FAILED: phase insertion failed=%llu reserved=%llu\n",
                           (unsigned long long)r.failed, (unsigned long long)r.reserved);
                    return 1;
                }
            }
            hash_set_partition_policy(forced_policy()); // leave a complete table for the pass
            BENCH_STENC_CHECK(be->insert(ctx, &g, slots, keys, values, nullptr, n, 1, &part, &r));
            hash_set_partition_policy(hash_partition_policy_default());
            size_t occupied = 0, erased = 0;
            const double dedupe_ms = median_ms(
                tm, [&] { BENCH_STENC_CHECK(be->dedupe(ctx, &g, slots, &occupied, &erased)); },
                reps);
            if (occupied != n || erased != 0) {
                printf("FAILED: phase dedupe kept %zu of %zu, erased %zu\n", occupied, n, erased);
                return 1;
            }
            phases.push_back(
                {lg, factor, clear_ms, ins_ms[0], ins_ms[1], ins_ms[2], ins_ms[3], dedupe_ms});
            printf("name=hash_phases target=%s layout=buckets lg=%d factor=%.2f clear_ms=%.3f "
                   "insert_direct_ms=%.3f insert_part_ms=%.3f partition_ms=%.3f "
                   "partition_slices_ms=%.3f dedupe_ms=%.3f insert_direct_gops=%.3f "
                   "insert_part_gops=%.3f\n",
                   target, lg, factor, clear_ms, ins_ms[0], ins_ms[1], ins_ms[2], ins_ms[3],
                   dedupe_ms, n / ins_ms[0] / 1e6, n / ins_ms[1] / 1e6);
            BENCH_CUDA_CHECK(cudaFree(part.p));
            BENCH_CUDA_CHECK(cudaFree(slots));
        }
        BENCH_CUDA_CHECK(cudaFree(keys));
        BENCH_CUDA_CHECK(cudaFree(values));
    }

    for (const row &r : rows) {
        double cuco = strncmp(r.op, "find", 4) != 0 ? cuco_insert_gops : cuco_find_gops;
        printf("name=hash target=%s layout=%s n=%zu lg=%d factor=%.2f op=%s gops=%.3f "
               "restarts=%.3f ratio_atomic=%.3f ratio_cuco=%.3f\n",
               target, r.layout, (size_t)1 << r.lg, r.lg, r.factor, r.op, r.gops, r.restarts,
               r.gops / atomic_gups, r.gops / cuco);
    }
    printf("\n%-8s %-6s %-6s %-10s %10s %9s %12s %10s\n", "layout", "N", "factor", "op", "G ops/s",
           "restarts", "vs atomic", "vs cuco");
    for (const row &r : rows)
        printf("%-8s 2^%-4d %-6.2f %-10s %10.3f %9.3f %12.3f %10.3f\n", r.layout, r.lg, r.factor,
               r.op, r.gops, r.restarts, r.gops / atomic_gups,
               r.gops / (strncmp(r.op, "find", 4) != 0 ? cuco_insert_gops : cuco_find_gops));
    printf("\nphases (buckets, ms): %-4s %-6s %8s %12s %12s %10s %10s %8s\n", "N", "factor",
           "clear", "ins-direct", "ins-part", "partition", "+slices", "dedupe");
    for (const phase_row &p : phases)
        printf("                      2^%-2d %-6.2f %8.3f %12.3f %12.3f %10.3f %10.3f %8.3f\n",
               p.lg, p.factor, p.clear_ms, p.direct_ms, p.part_ms, p.partition_ms, p.slices_ms,
               p.dedupe_ms);
    printf("atomic anchor (random 64-bit update, 1 GiB): %.3f G/s; cuco peers (published): "
           "insert %.1f, find %.1f G/s\n",
           atomic_gups, cuco_insert_gops, cuco_find_gops);
    stenc_timer_destroy(tm);
    stenc_ctx_destroy(ctx);
    return 0;
}
