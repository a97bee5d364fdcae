// Cuckoo hash table throughput on the GPU: bulk build (inserts/s), queries that all hit and
// queries that all miss, for N = 2^20, 2^24, 2^27 at size factors 1.25 and 2.0, in both slot
// layouts (slots: the chapter's; buckets: 32-byte buckets). In the same run
// it measures the random 64-bit atomic update rate (the anchor of bench/anchors/anchors.cu,
// same kernel), and compares with cuCollections' published static_map figures for the H100.
// Every result is checked on the device. Usage: bench_hash [max_lg=27] [target=h100]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "stenc/core.h"
#include "stenc/hash.h"

#include "bench_util.h"

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

struct row {
    const char *layout;
    int lg;
    double factor;
    const char *op;
    double gops, restarts;
};

int main(int argc, char **argv) {
    int max_lg = argc > 1 ? atoi(argv[1]) : 27;
    const char *target = argc > 2 ? argv[2] : "h100";
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
    for (int lg : {20, 24, 27}) {
        if (lg > max_lg) continue;
        const size_t n = (size_t)1 << lg;
        const int reps = lg >= 27 ? 5 : 11;
        uint32_t *keys, *values, *q, *res;
        BENCH_CUDA_CHECK(cudaMalloc(&keys, n * 4));
        BENCH_CUDA_CHECK(cudaMalloc(&values, n * 4));
        BENCH_CUDA_CHECK(cudaMalloc(&q, n * 4));
        BENCH_CUDA_CHECK(cudaMalloc(&res, n * 4));
        const unsigned grid = (unsigned)((n + 255) / 256);
        make_pairs<<<grid, 256, 0, stream>>>(keys, values, n);
        BENCH_CUDA_CHECK(cudaGetLastError());
        for (int lay = 0; lay < 2; lay++)
            for (double factor : {1.25, 2.0}) {
                const char *lname = lay ? "buckets" : "slots";
                stenc_hash_config cfg = stenc_hash_config_default(STENC_HASH_MAP);
                cfg.layout = lay ? STENC_HASH_LAYOUT_BUCKETS : STENC_HASH_LAYOUT_SLOTS;
                cfg.size_factor = factor;
                stenc_hash_table *t;
                BENCH_STENC_CHECK(stenc_hash_create(ctx, &cfg, &t));
                uint64_t builds0 = 0, restarts0 = 0;
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
                stenc_hash_stats st = stenc_hash_get_stats(t);
                double restart_rate = (double)(st.restarts - restarts0) /
                                      (double)(st.builds - builds0 ? st.builds - builds0 : 1);
                if (stenc_hash_count(t) != n) {
                    printf("FAILED: %zu keys stored of %zu\n", stenc_hash_count(t), n);
                    return 1;
                }
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
    printf("atomic anchor (random 64-bit update, 1 GiB): %.3f G/s; cuco peers (published): "
           "insert %.1f, find %.1f G/s\n",
           atomic_gups, cuco_insert_gops, cuco_find_gops);
    stenc_timer_destroy(tm);
    stenc_ctx_destroy(ctx);
    return 0;
}
