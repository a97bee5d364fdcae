/* stenc sort: an in-place, comparison-based bitonic sort (Peters & Schulz-Hildebrandt).
 *
 * Keys are sorted where they lie, with an optional value array moved along with them. No
 * scratch memory proportional to n is allocated on either device. On a CUDA context the
 * pointers are device pointers; on a CPU context they are host pointers.
 *
 * Keys: STENC_U32, STENC_I32, STENC_U64, STENC_I64, STENC_F32, STENC_F64. Floating-point keys
 * use a total order: -inf < ... < -0 < +0 < ... < +inf < NaN (every NaN, whatever its sign or
 * payload, after every number; the bits of each key are kept). STENC_SORT_DESCENDING is the
 * exact reverse of that order (NaNs first, +0 before -0).
 * Values: STENC_U32 or STENC_U64 (any 4- or 8-byte payload may be passed as these).
 * The sort is not stable: the order of equal keys (and of their values) is unspecified.
 *
 * Repeated sorts on a CUDA context: the second call with the same arrays (pointers), sizes,
 * types, order and policy captures the sort's launches into a CUDA graph kept with the
 * context, and later such calls replay it (a few microseconds of host time instead of a launch
 * per pass; docs/sort.md). The arrays' contents may change between calls. A context keeps up
 * to 16 such graphs, dropping the least recently used, and frees them when destroyed.
 */
#ifndef STENC_SORT_H
#define STENC_SORT_H

#include "stenc/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum stenc_sort_order { STENC_SORT_ASCENDING = 0, STENC_SORT_DESCENDING } stenc_sort_order;

/* Sort keys[0..n) in place; when `values` is not NULL, values[i] moves with keys[i]
 * (`value_type` is ignored when `values` is NULL). An n whose keys or values would exceed
 * PTRDIFF_MAX bytes is STENC_ERR_INVALID_ARGUMENT. On failure the arrays are unchanged
 * unless the message says that a CUDA error happened during the sort, after which their
 * content is undefined (but still a permutation of the input if the kernels ran). */
stenc_status stenc_sort(stenc_ctx *ctx, stenc_type key_type, void *keys, stenc_type value_type,
                        void *values, size_t n, stenc_sort_order order);

/* Sort `num_segments` independent segments of `segment_len` elements each, stored one after
 * the other (segment s is keys[s*segment_len .. (s+1)*segment_len)), in one call. */
stenc_status stenc_sort_segments(stenc_ctx *ctx, stenc_type key_type, void *keys,
                                 stenc_type value_type, void *values, size_t segment_len,
                                 size_t num_segments, stenc_sort_order order);

/* ---- advanced: tuning and analysis of the CUDA path ------------------------------------- */

/* Tunables of the CUDA path. A zero field takes its default. */
typedef struct stenc_sort_policy {
    int tile_log2;       /* elements per block: 2^tile_log2 (max; a block holds them in registers,
                            32 per thread, 16 for 16-byte elements: up to 2^15 for 4-byte keys
                            without values, 2^14 for 8-byte and 2^13 for 16-byte elements) */
    int chunk_log2;      /* contiguous elements per run in strided global passes (coalescing) */
    int threads;         /* 0: the default kernel for the tile (32 elements per thread, 16 for
                            16-byte elements; small sorts may get 8); 2^(tile_log2 - 3) with
                            tile_log2 <= 13: 8 elements per thread; any other multiple of 32 up to
                            1024 is ignored */
    int cluster_log2;    /* 0: the default (on devices with thread block clusters, sm_90 and
                            up: pairs of blocks, 4 when the tiles fill at most a quarter of the
                            SMs); -1: none; 1..3: the first pass sorts runs of 2^cluster_log2
                            tiles, one per block of a cluster, exchanging through distributed
                            shared memory (each doubling of the run saves two global passes) */
    int first_tile_log2; /* 0: the default; else the first pass's tiles, from tile_log2 up to
                            the kernel's limit above (each doubling saves two global passes) */
} stenc_sort_policy;

/* As stenc_sort_segments, with an explicit policy (NULL: defaults). The CPU path ignores it. */
stenc_status stenc_sort_segments_ex(stenc_ctx *ctx, stenc_type key_type, void *keys,
                                    stenc_type value_type, void *values, size_t segment_len,
                                    size_t num_segments, stenc_sort_order order,
                                    const stenc_sort_policy *policy);

/* The number of global-memory passes (kernel launches, each reading and writing every
 * element once) that the CUDA path makes for this problem and policy (NULL: defaults). */
stenc_status stenc_sort_global_passes(stenc_ctx *ctx, stenc_type key_type, stenc_type value_type,
                                      int has_values, size_t segment_len, size_t num_segments,
                                      const stenc_sort_policy *policy, int *passes);

#ifdef __cplusplus
}
#endif

#endif /* STENC_SORT_H */
