/* Internals of the sort (prefix stsort_): the order-preserving key maps shared by the CPU and
 * CUDA paths, the pass plan of the bitonic network, and the bridge to the CUDA half. */
#ifndef STENC_SORT_INTERNAL_H
#define STENC_SORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "stenc/sort.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
#define STSORT_HD static __host__ __device__ __forceinline__
#else
#define STSORT_HD static inline
#endif

/* How a key's bits are read. */
typedef enum stsort_kind { STSORT_UNSIGNED = 0, STSORT_SIGNED = 1, STSORT_FLOAT = 2 } stsort_kind;

/* Bijective maps from key bits to unsigned integers whose unsigned order is the key order.
 * Floats: the usual sign flip gives -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN; a
 * rotation by the count of negative NaNs then moves those to the top, so every NaN is last.
 * Bijective, so the mapped keys can be stored and mapped back without losing NaN payloads. */
#define STSORT_F32_NEG_NANS 0x007FFFFFu
#define STSORT_F64_NEG_NANS 0x000FFFFFFFFFFFFFull

STSORT_HD uint32_t stsort_map32(uint32_t x, int kind) {
    if (kind == STSORT_SIGNED) return x ^ 0x80000000u;
    if (kind == STSORT_FLOAT)
        return ((x & 0x80000000u) ? ~x : (x | 0x80000000u)) - STSORT_F32_NEG_NANS;
    return x;
}
STSORT_HD uint32_t stsort_unmap32(uint32_t u, int kind) {
    if (kind == STSORT_SIGNED) return u ^ 0x80000000u;
    if (kind == STSORT_FLOAT) {
        u += STSORT_F32_NEG_NANS;
        return (u & 0x80000000u) ? (u & 0x7FFFFFFFu) : ~u;
    }
    return u;
}
STSORT_HD uint64_t stsort_map64(uint64_t x, int kind) {
    const uint64_t top = 0x8000000000000000ull;
    if (kind == STSORT_SIGNED) return x ^ top;
    if (kind == STSORT_FLOAT) return ((x & top) ? ~x : (x | top)) - STSORT_F64_NEG_NANS;
    return x;
}
STSORT_HD uint64_t stsort_unmap64(uint64_t u, int kind) {
    const uint64_t top = 0x8000000000000000ull;
    if (kind == STSORT_SIGNED) return u ^ top;
    if (kind == STSORT_FLOAT) {
        u += STSORT_F64_NEG_NANS;
        return (u & top) ? (u & ~top) : ~u;
    }
    return u;
}

/* One launch of the CUDA path. A block holds a tile of 2^(low_bits + high_bits) elements of
 * the virtual index space: its low_bits lowest index bits vary (contiguous runs), plus
 * high_bits bits starting at bit high_lo (>= low_bits); the other bits come from the block
 * index. It runs phases phase_first..phase_last of the network; in each phase q, the steps on
 * bits min(q, low_bits)-1 .. 0 when high_bits == 0 (a contiguous tile), else the steps on the
 * bits high_lo + high_bits - 1 .. high_lo (a strided tile, one phase). */
typedef struct stsort_pass {
    int phase_first, phase_last;
    int low_bits, high_lo, high_bits;
    /* > 0: a contiguous first pass whose blocks form clusters of 2^cluster_log2; its phases
     * beyond low_bits start with the steps on bits q-1 .. low_bits across the cluster. */
    int cluster_log2;
} stsort_pass;

/* How many of a pass's first blocks (at most `tiles`) have their lowest index v0 below `limit`
 * (> 0), in whole clusters: v0 holds the block number's low gap bits at low_bits and its other
 * bits above the tile's strided bits, so these blocks come first. */
static inline unsigned long long stsort_blocks_below(const stsort_pass *p, unsigned long long limit,
                                                     unsigned long long tiles) {
    const int gap = p->high_lo - p->low_bits, top = p->high_lo + p->high_bits;
    unsigned long long low =
        ((limit & ((1ull << top) - 1)) + (1ull << p->low_bits) - 1) >> p->low_bits;
    if (low > (1ull << gap)) low = 1ull << gap;
    const unsigned long long cluster = 1ull << p->cluster_log2;
    const unsigned long long blocks =
        (((limit >> top) << gap) + low + cluster - 1) / cluster * cluster;
    return blocks < tiles ? blocks : tiles;
}

/* The blocks a pass launches: one per tile of the virtual index space, except that with one
 * segment only the tiles that hold a comparator between two real elements run (and, in a
 * later pass, not those of a last run that the phase leaves as it is, below). Such a tile has
 * one at its lowest index v0 and at v0 + 2^d, d the lowest bit the pass steps on (0 in a
 * contiguous tile, high_lo in a strided one): in any other tile a real element meets only
 * missing ones, which never move (docs/sort.md). Block numbers follow v0, so with one segment
 * the tiles that run come first; with several, each segment's empty tail lies between the
 * next one's tiles and every tile runs. A cluster's blocks run together: whole clusters. */
static inline unsigned long long stsort_pass_blocks(const stsort_pass *p, int seg_log2,
                                                    unsigned long long seg_len,
                                                    unsigned long long num_segments) {
    const int t = p->low_bits + p->high_bits;
    const unsigned long long tiles = ((num_segments << seg_log2) + (1ull << t) - 1) >> t;
    if (num_segments != 1) return tiles;
    const unsigned long long d = 1ull << (p->high_bits ? p->high_lo : 0);
    if (seg_len <= d) return 0;
    /* A later pass (one phase q) also skips the last run of phase q when all of that run's
     * real elements lie in its lower half: that half left phase q - 1 sorted ascending, the
     * run is ascending, and the upper half is missing, so no step of phase q moves anything.
     * The run starts at r0; its tiles come last. */
    unsigned long long limit = seg_len - d;
    const int q = p->phase_first;
    if (q == p->phase_last && (p->high_bits > 0 || q > p->low_bits) &&
        !(((seg_len - 1) >> (q - 1)) & 1)) {
        const unsigned long long r0 = (seg_len - 1) & ~((1ull << q) - 1);
        if (r0 < limit) limit = r0;
    }
    return limit == 0 ? 0 : stsort_blocks_below(p, limit, tiles);
}

/* Enough for any segment with the default policy (tiles of at least 2^10, runs of 2^5). */
#define STSORT_MAX_PASSES 512

/* The resolved launch parameters for one problem. */
typedef struct stsort_config {
    int seg_log2;        /* the network sorts 2^seg_log2 virtual elements per segment */
    int tile_log2;       /* tiles of the later passes */
    int first_tile_log2; /* tiles of the first pass (>= tile_log2) */
    int chunk_log2;      /* smallest contiguous run in a strided tile */
    int reg_log2;        /* elements per thread: a block of 2^t has 2^(t - reg_log2) threads */
    int cluster_log2;    /* blocks per cluster in the first pass: 2^this (0: no cluster) */
} stsort_config;

/* Defaults of the CUDA path (see docs/sort.md for why; tuned on an H100, 2026-11-21). */
enum {
    STSORT_MIN_TILE_LOG2 = 12,    /* smallest tile chosen to spread a small sort over SMs */
    STSORT_CHUNK_LOG2 = 3,        /* strided passes: runs of at least 8 contiguous elements */
    STSORT_MAX_THREADS = 512,     /* __launch_bounds__ of the kernel (4-byte elements: 1024) */
    STSORT_MAX_THREADS_4B = 1024, /* 32 u32 keys per thread fit in 64 registers */
    STSORT_MAX_TILE_LOG2 = 16,
    STSORT_REG_LOG2 = 5,        /* elements per thread (registers) for elements of <= 8 bytes */
    STSORT_REG_LOG2_WIDE = 4,   /* ... and for 16-byte elements (u64 keys + u64 values) */
    STSORT_REG_LOG2_NARROW = 3, /* 8 elements per thread: more warps per tile for small sorts */
    STSORT_NARROW_MAX_TILE_LOG2 = 13,   /* 2^13 / 8 = 1024 threads, the most a block has */
    STSORT_NARROW_MAX_SPACE_LOG2 = 18,  /* default: narrow registers for sorts up to 2^this */
    STSORT_NARROW_TILE_LOG2 = 11,       /* ... with tiles of 2^this (256 threads) */
    STSORT_MAX_CLUSTER_LOG2 = 3,        /* 8 blocks: the largest portable cluster */
    STSORT_CLUSTER_LOG2 = 1,            /* default: pairs of blocks (sm_90 and up) ... */
    STSORT_SMALL_GRID_CLUSTER_LOG2 = 2, /* ... or 4 when the tiles fill at most 1/4 of the SMs */
    STSORT_SMALL_GRID_SM_SHARE = 4,
    STSORT_L2_SPACE_LOG2_4B = 22,   /* 4-byte sorts up to 2^this (16 MiB: in the H100's L2) ... */
    STSORT_L2_TILE_LOG2_4B = 13,    /* ... take later tiles of at most 2^this */
    STSORT_FIRST_TILE_SM_SHARE = 2, /* first-pass tiles doubled while they fill 1/this of the SMs */
    STSORT_SPLIT_MIN_HEAD_LOG2_4B = 21,   /* split sorts (stsort_split): heads of >= 2^this
                                             4-byte elements, ... */
    STSORT_SPLIT_MIN_HEAD_LOG2_8B = 21,   /* ... of >= 2^this 8-byte ones, ... */
    STSORT_SPLIT_MIN_TAIL_SHARE_LOG2 = 5, /* ... and tails of >= head / 2^this (sort.c) */
    STSORT_SIDE_HEAD_LOG2 = 21,           /* beside a head of 2^this, a tail of ... */
    STSORT_SIDE_MAX_LOG2_4B = 18,         /* ... up to 2^this 4-byte elements or ... */
    STSORT_SIDE_MAX_LOG2_8B = 19,         /* ... 2^this 8-byte ones has a first pass on ... */
    STSORT_SIDE_FIRST_TILE_LOG2_4B = 13,  /* ... tiles of 2^this (4-byte elements) or ... */
    STSORT_SIDE_FIRST_TILE_LOG2_8B = 14,  /* ... 2^this (8-byte ones), later tiles of at most ... */
    STSORT_SIDE_TILE_LOG2 = 13            /* ... 2^this; or larger ones on idle SMs (sort.c) */
};

/* The default (largest) tile: 2^14 4-byte keys (512 threads, 66 KiB of shared memory, two
 * blocks per SM; 2^15 with 1024 threads is allowed but measured slower once clusters and
 * overlapped launches came, docs/sort.md), 2^13 8-byte elements, 2^12 16-byte ones. */
static inline int stsort_default_tile_log2(size_t elem_bytes) {
    return elem_bytes <= 4 ? 14 : elem_bytes <= 8 ? 13 : 12;
}

/* The largest block of the kernel for elements of this size. */
static inline int stsort_max_threads(size_t elem_bytes) {
    return elem_bytes <= 4 ? STSORT_MAX_THREADS_4B : STSORT_MAX_THREADS;
}

/* log2 of the elements each thread holds in registers by default (the wide kernels); a block
 * has tile / 2^this threads. Small sorts may use STSORT_REG_LOG2_NARROW (stsort_configure). */
static inline int stsort_reg_log2(size_t elem_bytes) {
    return elem_bytes <= 8 ? STSORT_REG_LOG2 : STSORT_REG_LOG2_WIDE;
}

/* ceil(log2(x)) for x >= 1. */
static inline int stsort_ceil_log2(size_t x) {
    int k = 0;
    while (k < 63 && ((size_t)1 << k) < x)
        k++;
    return k;
}

/* Resolve the policy for a problem (elem_bytes: key + value bytes; sm_count 0: unknown;
 * cluster_max: the largest cluster_log2 the device runs, 0 where it has no clusters). */
stenc_status stsort_configure(size_t segment_len, size_t num_segments, size_t elem_bytes,
                              int sm_count, size_t smem_optin, int cluster_max,
                              const stenc_sort_policy *policy, stsort_config *cfg);

/* A one-segment sort of n elements may run *split* (bench/logs/sort_history.md, "Fourteenth revision" and
 * "Sixteenth revision"): the network's phases 1..Q on [0, O) (the main part) and on [O, n)
 * (the side part, on a second stream) beside each other, then its phases Q + 1 on over the
 * whole array. O is a multiple of 2^Q, so no comparator of phases 1..Q crosses O, and bits
 * 0..Q of an index and of n - 1 read the same relative to O: the side part's own network
 * (of n - O elements, in the requested order) runs exactly the whole network's phases 1..Q
 * there. The main part runs the whole network's passes over the tiles below O, on a plan
 * whose first pass fills the SMs evenly (O = 2^K, the head: a power of two's plan, Q = K), and
 * the side part's passes are few and short and run in its shadow. */
typedef struct stsort_split {
    size_t offset;      /* O; 0: one network, the other fields unused */
    int phases;         /* Q */
    stsort_config main; /* phases 1..Q below O (seg_log2: the whole network's) */
    stsort_config side; /* the plan of the n - O elements from O, run up to phase Q */
    stsort_config last; /* phases Q + 1 on (its first pass ends at or below phase Q) */
    int side_waits;     /* the side part starts once the main part's first pass is done */
} stsort_split;

/* Decide whether the sort of `whole` (configured by stsort_configure with the same arguments)
 * runs split, and configure its parts. Only with one segment, the default policy (NULL or all
 * zero) and a known SM count, when n's first pass stops below its last phase, and where the
 * rule of stsort_set_split allows it. */
stenc_status stsort_configure_split(size_t n, size_t num_segments, size_t elem_bytes, int sm_count,
                                    size_t smem_optin, int cluster_max,
                                    const stenc_sort_policy *policy, const stsort_config *whole,
                                    stsort_split *split);

/* When a sort runs split: 0 never, 1 by the default rule (stsort_configure_split), 2 whenever
 * it can. Returns the previous mode. Process-wide, for the benchmark's comparison only. */
int stsort_set_split(int mode);

/* Whether a sort called again on the same arrays, sizes, types, order and plan (split sorts
 * too, with both parts) replays its launches from a CUDA graph captured on its second call (on
 * by default; bench/logs/sort_history.md, "Fifteenth revision" and "Eighteenth revision"); returns the
 * previous setting. Process-wide, for the benchmark's comparison and the tests. */
int stsort_set_replay(int on);

/* How many sorts the process has replayed (for the tests). */
unsigned long long stsort_replays(void);

/* The cluster_max of a context (stsort_configure). */
int stsort_cluster_max(const stenc_ctx *ctx);

/* Write the passes for `cfg` into out[0..cap) and return their count (-1 if cap is short). */
int stsort_plan(const stsort_config *cfg, size_t num_segments, stsort_pass *out, int cap);

/* Padded shared-memory slots for a tile of 2^tile_log2 elements (one pad per 32 slots). */
static inline size_t stsort_smem_slots(int tile_log2) {
    size_t e = (size_t)1 << tile_log2;
    return e + e / 32 + 1;
}

/* Whether each pass after the first is launched as a programmatic dependent of the one before
 * (sm_90 and up: its blocks are scheduled while the previous pass drains, and wait for it
 * before reading). On by default; returns the previous setting. Process-wide, for the
 * benchmark's comparison only (not thread-safe while changed). */
int stsort_set_overlap_launches(int on);

/* Whether a first pass whose tiles each lie in one segment sorts them with merge sort (on by
 * default) instead of the bitonic phases (bench/logs/sort_history.md, "Ninth revision"); returns the
 * previous setting. Process-wide, for the benchmark's comparison only. */
int stsort_set_tile_merge(int on);

/* Whether the later passes on the default tiles (contiguous, and strided of up to 9 bits) run
 * the kernels whose schedule is fixed at compile time (on by default; bench/logs/sort_history.md, "Eleventh
 * revision") instead of the general one; returns the previous setting. Process-wide, for the
 * benchmark's comparison. */
int stsort_set_fixed_passes(int on);

/* How many clusters of 2^cluster_log2 first-pass blocks (u32 keys, u64 keys or u32 pairs;
 * narrow: 8 elements per thread) the current device runs at once; -1 if unknown. For the
 * benchmark's report of cluster placement. */
int stsort_max_active_clusters(int key_bytes, int value_bytes, int tile_log2, int narrow,
                               int cluster_log2);

/* The CUDA half (sort_cuda.cu; sort_no_cuda.c without CUDA). Arguments are checked. With
 * split->offset > 0 the sort runs split (one segment; stsort_split). */
stenc_status stsort_cuda_sort(stenc_ctx *ctx, int key_bytes, stsort_kind kind, void *keys,
                              int value_bytes, void *values, size_t segment_len,
                              size_t num_segments, int descending, const stsort_config *cfg,
                              const stsort_split *split);

#ifdef __cplusplus
}
#endif

#endif /* STENC_SORT_INTERNAL_H */
