// The CUDA path of the sort, host side: the pass plan's launches (device code in
// sort_kernels.cuh; the fixed kernels compiled in sort_fixed_u32.cu and sort_fixed_u64.cu).
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_check.h"
#include "sort_internal.h"
#include "sort_kernels.cuh"

namespace stsort_kernels {
STSORT_FOR_KINDS(extern template STSORT_FIXED_KERNEL, uint32_t)
STSORT_FOR_KINDS(extern template STSORT_FIXED_KERNEL, uint64_t)
} // namespace stsort_kernels

namespace {

using namespace stsort_kernels;

bool g_overlap_launches = true; // stsort_set_overlap_launches
bool g_tile_merge = true;       // stsort_set_tile_merge
bool g_fixed_passes = true;     // stsort_set_fixed_passes

// Dynamic shared memory of a tile: the keys' slots, then (16-byte aligned) the values'.
template <class K, class V> struct TileSmem {
    size_t value_offset, bytes;
    explicit TileSmem(int tile_log2) {
        const size_t slots = stsort_smem_slots(tile_log2);
        value_offset = (slots * sizeof(K) + 15) / 16 * 16;
        bytes = value_offset + (has_values<V>() ? slots * sizeof(V) : 0);
    }
};

// The launch attribute that groups blocks into 1-D clusters of 2^log2.
inline cudaLaunchAttribute cluster_attribute(int log2) {
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 1u << log2;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    return attr;
}

template <int RB, class K, int KIND, class V>
stenc_status run_plan_rb(stenc_ctx *ctx, void *keys, void *values, size_t segment_len,
                         size_t num_segments, int descending, const stsort_config *cfg) {
    if (cfg->reg_log2 != RB || cfg->tile_log2 < RB || cfg->first_tile_log2 < cfg->tile_log2 ||
        cfg->first_tile_log2 - RB > stsort_ceil_log2(max_threads<K, V, RB>()))
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "stenc_sort: tiles 2^%d and 2^%d with 2^%d registers do not fit the "
                           "kernel",
                           cfg->first_tile_log2, cfg->tile_log2, cfg->reg_log2);
    stsort_pass passes[STSORT_MAX_PASSES];
    stsort_config plan_cfg = *cfg;
    int count = stsort_plan(&plan_cfg, num_segments, passes, STSORT_MAX_PASSES);
    if (count < 0)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_sort: segments of 2^%d elements need more than %d passes "
                           "with tiles of 2^%d",
                           cfg->seg_log2, (int)STSORT_MAX_PASSES, cfg->tile_log2);
    const TileSmem<K, V> largest(cfg->first_tile_log2);
    const unsigned long long space = (unsigned long long)num_segments << cfg->seg_log2;
    const K flip = descending ? ~K(0) : K(0);
    auto tiles_of = [&](int t) { return (space + (1ull << t) - 1) >> t; };
    if (tiles_of(cfg->tile_log2) > 0x7FFFFFFFull)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "stenc_sort: %llu tiles exceed the grid",
                           tiles_of(cfg->tile_log2));
    auto args_of = [&](const stsort_pass &p) {
        PassArgs a;
        a.seg_len = segment_len;
        a.num_segs = num_segments;
        a.seg_log2 = cfg->seg_log2;
        a.low_bits = p.low_bits;
        a.high_lo = p.high_lo;
        a.high_bits = p.high_bits;
        a.phase_first = p.phase_first;
        a.phase_last = p.phase_last;
        a.cluster_log2 = p.cluster_log2;
        a.tile_merge = g_tile_merge;
        return a;
    };
    cudaStream_t stream = stenc_stream(ctx);

    const PassKernel<K, V> general = sort_pass_kernel<RB, K, KIND, V>;
    PassKernel<K, V> ready[2 + kFixedMaxH] = {}; // kernels whose shared memory is set
    int num_ready = 0;
    const bool overlap = g_overlap_launches && ctx->cc_major >= 9;
    for (int i = 0; i < count; i++) {
        const PassArgs a = args_of(passes[i]);
        cudaLaunchAttribute attrs[2];
        unsigned num_attrs = 0;
        if (a.cluster_log2 > 0) attrs[num_attrs++] = cluster_attribute(a.cluster_log2);
        if (overlap && i > 0) {
            attrs[num_attrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attrs[num_attrs].val.programmaticStreamSerializationAllowed = 1;
            num_attrs++;
        }
        const unsigned long long blocks =
            stsort_pass_blocks(&passes[i], cfg->seg_log2, segment_len, num_segments);
        if (blocks == 0) continue;              // no tile can move anything
        const int t = a.low_bits + a.high_bits; // the first pass's tiles may be larger
        const TileSmem<K, V> smem(t);
        PassKernel<K, V> kernel = RB == reg_log2<K, V>() && g_fixed_passes && fixed_pass_applies(a)
                                      ? fixed_kernel<K, KIND, V>(t, a.high_bits)
                                      : nullptr;
        if (!kernel) kernel = general;
        if (std::find(ready, ready + num_ready, kernel) == ready + num_ready) {
            STENC_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                (int)largest.bytes));
            if (num_ready < (int)(sizeof ready / sizeof *ready)) ready[num_ready++] = kernel;
        }
        cudaLaunchConfig_t lc = {};
        lc.gridDim = dim3((unsigned)blocks);
        lc.blockDim = dim3(1u << (t - RB));
        lc.dynamicSmemBytes = smem.bytes;
        lc.stream = stream;
        lc.attrs = attrs;
        lc.numAttrs = num_attrs;
        const cudaError_t e =
            cudaLaunchKernelEx(&lc, kernel, static_cast<K *>(keys), static_cast<V *>(values), a,
                               flip, (uint32_t)smem.value_offset);
        if (e != cudaSuccess && i == 0 && a.cluster_log2 > 0) {
            // No room for such a cluster here (a partitioned GPU, say): nothing has run yet,
            // so plan again with smaller clusters.
            (void)cudaGetLastError();
            plan_cfg.cluster_log2--;
            count = stsort_plan(&plan_cfg, num_segments, passes, STSORT_MAX_PASSES);
            if (count < 0)
                return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                                   "stenc_sort: segments of 2^%d elements need more than %d "
                                   "passes with tiles of 2^%d",
                                   cfg->seg_log2, (int)STSORT_MAX_PASSES, cfg->tile_log2);
            i = -1;
            continue;
        }
        STENC_CUDA_TRY(e);
        STENC_CUDA_CHECK_LAUNCH(kernel == general ? "sort_pass_kernel" : "sort_fixed_kernel");
    }
    return STENC_OK;
}

// The wide kernel (32 elements per thread, 16 for 16-byte elements) or the narrow one (8).
template <class K, int KIND, class V>
stenc_status run_plan(stenc_ctx *ctx, void *keys, void *values, size_t segment_len,
                      size_t num_segments, int descending, const stsort_config *cfg) {
    if (cfg->reg_log2 == STSORT_REG_LOG2_NARROW)
        return run_plan_rb<STSORT_REG_LOG2_NARROW, K, KIND, V>(ctx, keys, values, segment_len,
                                                               num_segments, descending, cfg);
    return run_plan_rb<reg_log2<K, V>(), K, KIND, V>(ctx, keys, values, segment_len, num_segments,
                                                     descending, cfg);
}

template <class K, int KIND>
stenc_status run_keys(stenc_ctx *ctx, void *keys, int value_bytes, void *values, size_t segment_len,
                      size_t num_segments, int descending, const stsort_config *cfg) {
    if (value_bytes == 4)
        return run_plan<K, KIND, uint32_t>(ctx, keys, values, segment_len, num_segments, descending,
                                           cfg);
    if (value_bytes == 8)
        return run_plan<K, KIND, uint64_t>(ctx, keys, values, segment_len, num_segments, descending,
                                           cfg);
    return run_plan<K, KIND, NoValue>(ctx, keys, nullptr, segment_len, num_segments, descending,
                                      cfg);
}

template <class K>
stenc_status run_kind(stenc_ctx *ctx, stsort_kind kind, void *keys, int value_bytes, void *values,
                      size_t segment_len, size_t num_segments, int descending,
                      const stsort_config *cfg) {
    switch (kind) {
    case STSORT_SIGNED:
        return run_keys<K, STSORT_SIGNED>(ctx, keys, value_bytes, values, segment_len, num_segments,
                                          descending, cfg);
    case STSORT_FLOAT:
        return run_keys<K, STSORT_FLOAT>(ctx, keys, value_bytes, values, segment_len, num_segments,
                                         descending, cfg);
    default:
        return run_keys<K, STSORT_UNSIGNED>(ctx, keys, value_bytes, values, segment_len,
                                            num_segments, descending, cfg);
    }
}

// How many clusters of 2^cluster_log2 blocks of the first pass fit on the device at once.
template <int RB, class K, class V> int max_active_clusters(int tile_log2, int cluster_log2) {
    auto kernel = sort_pass_kernel<RB, K, STSORT_UNSIGNED, V>;
    const TileSmem<K, V> smem(tile_log2);
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)smem.bytes) != cudaSuccess)
        return -1;
    cudaLaunchConfig_t lc = {};
    cudaLaunchAttribute attr = cluster_attribute(cluster_log2);
    lc.gridDim = dim3(1u << cluster_log2);
    lc.blockDim = dim3(1u << (tile_log2 - RB));
    lc.dynamicSmemBytes = smem.bytes;
    lc.attrs = &attr;
    lc.numAttrs = 1;
    int n = -1;
    if (cudaOccupancyMaxActiveClusters(&n, kernel, &lc) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return n;
}
} // namespace

extern "C" int stsort_max_active_clusters(int key_bytes, int value_bytes, int tile_log2, int narrow,
                                          int cluster_log2) {
    if (key_bytes == 4 && value_bytes == 0)
        return narrow ? max_active_clusters<STSORT_REG_LOG2_NARROW, uint32_t, NoValue>(tile_log2,
                                                                                       cluster_log2)
                      : max_active_clusters<STSORT_REG_LOG2, uint32_t, NoValue>(tile_log2,
                                                                                cluster_log2);
    if (key_bytes == 8 && value_bytes == 0)
        return max_active_clusters<STSORT_REG_LOG2, uint64_t, NoValue>(tile_log2, cluster_log2);
    if (key_bytes == 4 && value_bytes == 4)
        return max_active_clusters<STSORT_REG_LOG2, uint32_t, uint32_t>(tile_log2, cluster_log2);
    return -1;
}

extern "C" int stsort_set_overlap_launches(int on) {
    const int was = g_overlap_launches;
    g_overlap_launches = on != 0;
    return was;
}

extern "C" int stsort_set_tile_merge(int on) {
    const int was = g_tile_merge;
    g_tile_merge = on != 0;
    return was;
}

extern "C" int stsort_set_fixed_passes(int on) {
    const int was = g_fixed_passes;
    g_fixed_passes = on != 0;
    return was;
}

extern "C" stenc_status stsort_cuda_sort(stenc_ctx *ctx, int key_bytes, stsort_kind kind,
                                         void *keys, int value_bytes, void *values,
                                         size_t segment_len, size_t num_segments, int descending,
                                         const stsort_config *cfg) {
    if (key_bytes == 4)
        return run_kind<uint32_t>(ctx, kind, keys, value_bytes, values, segment_len, num_segments,
                                  descending, cfg);
    return run_kind<uint64_t>(ctx, kind, keys, value_bytes, values, segment_len, num_segments,
                              descending, cfg);
}
