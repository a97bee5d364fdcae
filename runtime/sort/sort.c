/* The sort's public entry points: argument checks, the dispatch between the CPU and CUDA
 * paths, the pass plan of the CUDA path, and the CPU path.
 *
 * The CPU path maps the keys in place to order-preserving unsigned integers (a bijection,
 * so nothing is lost), sorts them with an in-place introsort (quicksort parallelised with
 * OpenMP tasks, heapsort below a depth limit, insertion sort for short ranges) carrying the
 * values along, and maps them back. It allocates nothing proportional to n. */
#include <string.h>

#include "sort_internal.h"

/* ---- keys and arguments ------------------------------------------------------------------ */

static int key_kind(stenc_type type, stsort_kind *kind) {
    switch (type) {
    case STENC_U32:
    case STENC_U64:
        *kind = STSORT_UNSIGNED;
        return 1;
    case STENC_I32:
    case STENC_I64:
        *kind = STSORT_SIGNED;
        return 1;
    case STENC_F32:
    case STENC_F64:
        *kind = STSORT_FLOAT;
        return 1;
    default:
        return 0;
    }
}

static stenc_status check_types(const char *fn, stenc_type key_type, stenc_type value_type,
                                int has_values, stsort_kind *kind, int *key_bytes,
                                int *value_bytes) {
    if (key_type < 0 || key_type >= STENC_TYPE_COUNT)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: invalid key type %d", fn,
                           (int)key_type);
    if (!key_kind(key_type, kind))
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "%s: keys of type %s are not supported", fn,
                           stenc_type_name(key_type));
    *key_bytes = (int)stenc_type_size(key_type);
    *value_bytes = 0;
    if (has_values) {
        if (value_type < 0 || value_type >= STENC_TYPE_COUNT)
            return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: invalid value type %d", fn,
                               (int)value_type);
        if (value_type != STENC_U32 && value_type != STENC_U64)
            return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                               "%s: values of type %s are not supported (u32 or u64)", fn,
                               stenc_type_name(value_type));
        *value_bytes = (int)stenc_type_size(value_type);
    }
    return STENC_OK;
}

/* ---- the CUDA path's plan ----------------------------------------------------------------- */

int stsort_cluster_max(const stenc_ctx *ctx) {
    return ctx->device == STENC_DEVICE_CUDA && ctx->cc_major >= 9 ? STSORT_MAX_CLUSTER_LOG2 : 0;
}

/* How many blocks a first pass on tiles of 2^tile launches (stsort_pass_blocks; 0 if the
 * space of 2^space_log2 holds no whole tile). */
static size_t first_pass_blocks(size_t segment_len, size_t num_segments, int seg_log2,
                                int space_log2, int tile) {
    if (space_log2 < tile) return 0;
    const stsort_pass first = {1, tile, tile, tile, 0, 0};
    return (size_t)stsort_pass_blocks(&first, seg_log2, segment_len, num_segments);
}

/* Whether a block of the kernel holds a tile of 2^tile elements in registers (threads) and in
 * shared memory. */
static int tile_threads_fit(int tile, int reg_log2, int max_threads) {
    return tile - reg_log2 <= stsort_ceil_log2((size_t)max_threads);
}
static int tile_smem_fits(int tile, size_t elem_bytes, size_t smem_optin) {
    return smem_optin == 0 || stsort_smem_slots(tile) * elem_bytes <= smem_optin;
}
static stenc_status check_tile(int tile, size_t elem_bytes, int reg_log2, int max_threads,
                               size_t smem_optin) {
    if (!tile_threads_fit(tile, reg_log2, max_threads))
        return STENC_ERROR(STENC_ERR_CAPACITY,
                           "stenc_sort: a tile of 2^%d elements of %zu bytes needs %d threads per "
                           "block, the kernel allows %d",
                           tile, elem_bytes, 1 << (tile - reg_log2), max_threads);
    if (!tile_smem_fits(tile, elem_bytes, smem_optin))
        return STENC_ERROR(STENC_ERR_CAPACITY,
                           "stenc_sort: a tile of 2^%d elements of %zu bytes needs %zu bytes of "
                           "shared memory, the device allows %zu",
                           tile, elem_bytes, stsort_smem_slots(tile) * elem_bytes, smem_optin);
    return STENC_OK;
}

stenc_status stsort_configure(size_t segment_len, size_t num_segments, size_t elem_bytes,
                              int sm_count, size_t smem_optin, int cluster_max,
                              const stenc_sort_policy *policy, stsort_config *cfg) {
    stenc_sort_policy p = {0, 0, 0, 0, 0};
    if (policy) p = *policy;
    STENC_REQUIRE(p.tile_log2 >= 0 && p.tile_log2 <= STSORT_MAX_TILE_LOG2 &&
                      (p.tile_log2 == 0 || p.tile_log2 >= 6),
                  "stenc_sort: policy tile_log2 %d outside [6, %d]", p.tile_log2,
                  (int)STSORT_MAX_TILE_LOG2);
    STENC_REQUIRE(p.chunk_log2 >= 0 && p.chunk_log2 < 16, "stenc_sort: policy chunk_log2 %d",
                  p.chunk_log2);
    STENC_REQUIRE(p.threads >= 0 && p.threads <= STSORT_MAX_THREADS_4B && p.threads % 32 == 0,
                  "stenc_sort: policy threads %d (a multiple of 32, at most %d)", p.threads,
                  (int)STSORT_MAX_THREADS_4B);
    STENC_REQUIRE(p.cluster_log2 >= -1 && p.cluster_log2 <= STSORT_MAX_CLUSTER_LOG2,
                  "stenc_sort: policy cluster_log2 %d outside [-1, %d]", p.cluster_log2,
                  (int)STSORT_MAX_CLUSTER_LOG2);
    STENC_REQUIRE(p.first_tile_log2 >= 0 && p.first_tile_log2 <= STSORT_MAX_TILE_LOG2,
                  "stenc_sort: policy first_tile_log2 %d outside [0, %d]", p.first_tile_log2,
                  (int)STSORT_MAX_TILE_LOG2);
    int seg_log2 = stsort_ceil_log2(segment_len);
    int space_log2 = seg_log2 + stsort_ceil_log2(num_segments ? num_segments : 1);
    int tile = p.tile_log2;
    /* Narrow registers (8 elements per thread, up to 1024 threads, tiles up to 2^13): asked for
     * with threads == 2^(tile - 3) (another count is ignored, as before), or by default for
     * small sorts, which gain from smaller tiles (more blocks) of whole warps. */
    int narrow = p.threads > 0 && p.tile_log2 > 0 && p.tile_log2 <= STSORT_NARROW_MAX_TILE_LOG2 &&
                 p.threads == 1 << (p.tile_log2 - STSORT_REG_LOG2_NARROW);
    if (tile == 0) {
        tile = stsort_default_tile_log2(elem_bytes);
        /* Small sorts: shrink the tile to about one per SM (2^s tiles, 2^s the largest power
         * of two <= the SMs), down to a floor (smaller tiles mean more passes, and these
         * sorts are bound by each pass's latency). The tiles counted are those the first pass
         * launches: a size just above a power of two that has fewer than 3/4 of 2^s of them
         * takes the next smaller tile (measured on the H100: 2^19+1, 65 tiles of 2^13 or 129
         * of 2^12, +7% with 2^12). */
        if (sm_count > 0) {
            const int per_sm_log2 = stsort_ceil_log2((size_t)sm_count + 1) - 1;
            int spread = space_log2 - per_sm_log2;
            while (spread > STSORT_MIN_TILE_LOG2 &&
                   first_pass_blocks(segment_len, num_segments, seg_log2, space_log2, spread) * 4 <
                       ((size_t)3 << per_sm_log2))
                spread--;
            if (spread < STSORT_MIN_TILE_LOG2) spread = STSORT_MIN_TILE_LOG2;
            if (spread < tile) tile = spread;
            /* 4-byte elements that fit in L2 (up to 2^22): later passes of 2^13, four blocks
             * per SM instead of two, which hide each other's latency (measured on the H100,
             * with the larger first-pass tile below: 2^21 +6%, 2^22 +7% against 2^14). */
            if (elem_bytes <= 4 && space_log2 <= STSORT_L2_SPACE_LOG2_4B &&
                tile > STSORT_L2_TILE_LOG2_4B)
                tile = STSORT_L2_TILE_LOG2_4B;
            /* Up to 2^18: narrow tiles of 2^11 (256 threads), twice as many blocks as the
             * floor above gives (measured on the H100: +6-10% for u32 keys, +23-31% for
             * 8-byte elements at 2^16 and 2^18; at 2^20 and above wide tiles are faster). */
            if (space_log2 <= STSORT_NARROW_MAX_SPACE_LOG2) {
                tile = STSORT_NARROW_TILE_LOG2;
                narrow = 1;
            }
        }
    }
    /* A default tile shrinks to the device's shared memory (an explicit one is refused). */
    while (p.tile_log2 == 0 && tile > STSORT_MIN_TILE_LOG2 &&
           !tile_smem_fits(tile, elem_bytes, smem_optin))
        tile--;
    const int reg_log2 = narrow ? STSORT_REG_LOG2_NARROW : stsort_reg_log2(elem_bytes);
    /* A block holds the tile in registers, 2^reg_log2 elements per thread. */
    const int max_threads = narrow ? STSORT_MAX_THREADS_4B : stsort_max_threads(elem_bytes);
    STENC_TRY(check_tile(tile, elem_bytes, reg_log2, max_threads, smem_optin));
    int first_tile = p.first_tile_log2 ? p.first_tile_log2 : tile;
    /* By default the first pass doubles its tiles while the block allows it and they still
     * fill half the SMs: each doubling of its runs saves a phase's two global passes, and the
     * merge sort of whole tiles makes large first-pass tiles cheap (measured on the H100:
     * +3-7% for every element kind from 2^21 up, and a second doubling for u32 keys from
     * about 2.2M to 2^22, +3% at 3M and 4M; with fewer blocks, slower). Not when the tiles
     * already run in one wave, a block per SM: half as many doubled tiles leave half the SMs
     * idle through the longest pass (u32 keys at 2140000-2162688, 131-132 tiles of 2^14: 13.3
     * Gkeys/s with 66 tiles of 2^15, 17.8-18.1 without; bench/logs/sort_history.md, "Fifteenth revision"). */
    while (p.first_tile_log2 == 0 && p.tile_log2 == 0 && !narrow && sm_count > 0 &&
           first_pass_blocks(segment_len, num_segments, seg_log2, space_log2, first_tile) >
               (size_t)sm_count &&
           first_pass_blocks(segment_len, num_segments, seg_log2, space_log2, first_tile + 1) *
                   STSORT_FIRST_TILE_SM_SHARE >=
               (size_t)sm_count &&
           tile_threads_fit(first_tile + 1, reg_log2, max_threads) &&
           tile_smem_fits(first_tile + 1, elem_bytes, smem_optin))
        first_tile++;
    STENC_REQUIRE(first_tile >= tile, "stenc_sort: policy first_tile_log2 %d below tile_log2 %d",
                  first_tile, tile);
    if (first_tile != tile)
        STENC_TRY(check_tile(first_tile, elem_bytes, reg_log2, max_threads, smem_optin));
    if (tile > space_log2) tile = space_log2;
    if (first_tile > space_log2) first_tile = space_log2;
    /* Never fewer elements than one thread's registers (the rest are virtual +infinity). */
    if (tile < reg_log2) tile = reg_log2;
    if (first_tile < tile) first_tile = tile;
    cfg->seg_log2 = seg_log2;
    cfg->tile_log2 = tile;
    cfg->first_tile_log2 = first_tile;
    cfg->chunk_log2 = p.chunk_log2 ? p.chunk_log2 : STSORT_CHUNK_LOG2;
    if (cfg->chunk_log2 > tile - 1) cfg->chunk_log2 = tile - 1;
    cfg->reg_log2 = reg_log2;
    /* Clusters only run the first pass's phases beyond the tile, up to the segment's. By
     * default pairs of blocks: every step across blocks moves the whole tile through the SMs'
     * network, and larger clusters are harder to place (on the H100, clusters of 4 or 8 cost
     * more than they save at 2^18-2^22, docs/sort.md); clusters of 4 where the grid is small
     * (2^16: +3% against pairs of blocks, +3% against clusters of 8). */
    int cluster = p.cluster_log2 < 0 ? 0 : p.cluster_log2;
    if (p.cluster_log2 == 0) {
        cluster = STSORT_CLUSTER_LOG2;
        const size_t blocks =
            first_pass_blocks(segment_len, num_segments, seg_log2, space_log2, first_tile);
        if (sm_count > 0 && blocks > 0 && blocks * STSORT_SMALL_GRID_SM_SHARE <= (size_t)sm_count)
            cluster = STSORT_SMALL_GRID_CLUSTER_LOG2;
        if (cluster > cluster_max) cluster = cluster_max;
    }
    if (cluster > seg_log2 - first_tile)
        cluster = seg_log2 - first_tile > 0 ? seg_log2 - first_tile : 0;
    cfg->cluster_log2 = cluster;
    return STENC_OK;
}

int stsort_plan(const stsort_config *cfg, size_t num_segments, stsort_pass *out, int cap) {
    (void)num_segments;
    int k = cfg->seg_log2, t = cfg->tile_log2, tf = cfg->first_tile_log2, count = 0;
    if (k == 0) return 0;
#define STSORT_EMIT(pf, pl, lo, hlo, hb, cl)                                                       \
    do {                                                                                           \
        if (count >= cap) return -1;                                                               \
        out[count].phase_first = (pf), out[count].phase_last = (pl);                               \
        out[count].low_bits = (lo), out[count].high_lo = (hlo), out[count].high_bits = (hb);       \
        out[count].cluster_log2 = (cl);                                                            \
        count++;                                                                                   \
    } while (0)
    /* Phases 1..min(k, tf + cluster): whole first-pass tiles on chip (a cluster's blocks), one
     * launch; the later phases on tiles of 2^t. */
    int first = tf + cfg->cluster_log2 < k ? tf + cfg->cluster_log2 : k;
    STSORT_EMIT(1, first, tf, tf, 0, first > tf ? cfg->cluster_log2 : 0);
    int per_pass = t - cfg->chunk_log2; /* high bits one strided tile can hold */
    for (int q = first + 1; q <= k; q++) {
        /* Steps on bits q-1 .. t: strided tiles, balanced, from the top bit down. */
        int m = q - t, npass = (m + per_pass - 1) / per_pass, hi = q - 1;
        for (int i = 0; i < npass; i++) {
            int h = m / npass + (i < m % npass ? 1 : 0);
            STSORT_EMIT(q, q, t - h, hi - h + 1, h, 0);
            hi -= h;
        }
        /* Steps on bits t-1 .. 0: contiguous tiles. */
        STSORT_EMIT(q, q, t, t, 0, 0);
    }
#undef STSORT_EMIT
    return count;
}

static int g_split_mode = 1; /* stsort_set_split */

int stsort_set_split(int mode) {
    const int was = g_split_mode;
    g_split_mode = mode;
    return was;
}

static int policy_is_default(const stenc_sort_policy *p) {
    return !p || (p->tile_log2 == 0 && p->chunk_log2 == 0 && p->threads == 0 &&
                  p->cluster_log2 == 0 && p->first_tile_log2 == 0);
}

/* The default rule (measured on the H100, bench/logs/sort_history.md, "Fourteenth revision" and
 * "Seventeenth revision"). A split sort queues about twice the launches, 3-4 us of host time
 * each, so it pays only where the device's time covers them: heads of at least 2^21 4-byte or
 * 8-byte elements (8-byte sorts between 2^21 and 2^22 measured -10% to +13% with the default
 * side plan, +0% to +24% with the one of configure_side; 16-byte ones not measured, so never).
 * Tails of at least 1/32 of the head: below, the single network's extra tiles cost little (2^21 +
 * 1: no gain). With 4-byte heads of 2^21, tails of at most half the head: above, the tail is a
 * second large sort whose first pass competes with the head's (u32 keys at 3.5M-4.2M: 0 to +5%
 * called directly, 6-10% slower replayed from a CUDA graph); from heads of 2^22 on, every tail
 * gained both ways. */
static int split_pays(size_t n, int head_log2, size_t elem_bytes, const stsort_config *whole,
                      int sm_count) {
    const int min_head_log2 = elem_bytes <= 4   ? STSORT_SPLIT_MIN_HEAD_LOG2_4B
                              : elem_bytes <= 8 ? STSORT_SPLIT_MIN_HEAD_LOG2_8B
                                                : 64;
    const size_t head = (size_t)1 << head_log2, tail = n - head;
    if (head_log2 < min_head_log2 || tail < head >> STSORT_SPLIT_MIN_TAIL_SHARE_LOG2) return 0;
    /* Nor where n's own first pass runs one block on each of at least 7/8 of the SMs: it
     * leaves no SMs idle for a split to fill (u32 keys at 2162688, 132 tiles of 2^14: 18.0
     * Gkeys/s as one network, 14.4-14.6 split; fifteenth revision). */
    const size_t blocks =
        first_pass_blocks(n, 1, whole->seg_log2, whole->seg_log2, whole->first_tile_log2);
    if (blocks <= (size_t)sm_count && blocks * 8 >= (size_t)sm_count * 7) return 0;
    return !(elem_bytes <= 4 && head_log2 == STSORT_SPLIT_MIN_HEAD_LOG2_4B) || tail <= head / 2;
}

_Static_assert(STSORT_SIDE_TILE_LOG2 <= STSORT_SIDE_FIRST_TILE_LOG2_4B &&
                   STSORT_SIDE_TILE_LOG2 <= STSORT_SIDE_FIRST_TILE_LOG2_8B,
               "a side part's later tiles are at most its first ones");

/* The side part's plan: the default one, except beside a head of 2^21 (the only head measured;
 * bench/logs/sort_history.md, "Seventeenth revision" and "Eighteenth revision"). There a side part of up to
 * 2^18 4-byte or 2^19 8-byte elements sorts its first pass in few launches on tiles of 2^13
 * (4-byte elements) or 2^14 (8-byte ones) in clusters of 2, and its later passes on tiles of
 * 2^13, where the default plan (narrow tiles of 2^11 up to 2^18) queues about twice as many
 * launches, and a split sort directly called runs at the pace the host queues both parts' (3-4
 * us each). Where its first pass fits on the SMs that the head's first pass leaves idle, one
 * block per SM on the largest tile a block holds (2^15 4-byte elements: 4 blocks, up to 2^17
 * elements, beside the head's 128 blocks on 132 SMs), it takes those tiles (later tiles half as
 * large): such a block needs a whole SM's registers, so it runs only on an idle SM and never
 * slows the head. So does a head block of 2^14 8-byte elements (512 threads of 128 registers):
 * a side part of 8-byte elements whose first pass does not fit on the idle SMs would take SMs
 * from the head's first pass, so it waits for that pass to end (`side_waits`). Measured (u32
 * keys, replayed): 2162689-2228224 at 1.02-1.08x of CUB's merge sort with the largest tiles;
 * 2228225-2^21 + 2^18 at 1.03-1.13x with first tiles of 2^13, 0.98-1.09x with 2^14 (0.95-1.04x
 * with the default plan, directly called); from 2400000 the default is faster. u64 keys at
 * 2170000-2500000: 0.93-1.02x waiting, 0.86-1.05x (bimodal) not. */
static stenc_status configure_side(size_t m, int head_log2, size_t elem_bytes, int sm_count,
                                   size_t smem_optin, int cluster_max,
                                   const stsort_config *head_plan, stsort_config *side,
                                   int *side_waits) {
    stenc_sort_policy p = {0, 0, 0, 0, 0};
    *side_waits = 0;
    const int max_log2 = elem_bytes <= 4   ? STSORT_SIDE_MAX_LOG2_4B
                         : elem_bytes <= 8 ? STSORT_SIDE_MAX_LOG2_8B
                                           : 0;
    if (head_log2 == STSORT_SIDE_HEAD_LOG2 && max_log2 > 0 && m <= (size_t)1 << max_log2 &&
        cluster_max > 0) {
        const int reg_log2 = stsort_reg_log2(elem_bytes);
        const int max_threads = stsort_max_threads(elem_bytes);
        const int shared_first =
            elem_bytes <= 4 ? STSORT_SIDE_FIRST_TILE_LOG2_4B : STSORT_SIDE_FIRST_TILE_LOG2_8B;
        int largest = STSORT_MAX_TILE_LOG2;
        while (largest > shared_first && !(tile_threads_fit(largest, reg_log2, max_threads) &&
                                           tile_smem_fits(largest, elem_bytes, smem_optin)))
            largest--;
        const size_t head_blocks = ((size_t)1 << head_log2) >> head_plan->first_tile_log2;
        const size_t idle = (size_t)sm_count > head_blocks ? (size_t)sm_count - head_blocks : 0;
        const int on_idle = ((m + ((size_t)1 << largest) - 1) >> largest) <= idle;
        const int first = on_idle ? largest : shared_first;
        /* Its first pass must end by the head's last phase, where the later phases take over. */
        if (first + 1 <= head_log2 && tile_threads_fit(first, reg_log2, max_threads) &&
            tile_smem_fits(first, elem_bytes, smem_optin)) {
            p.first_tile_log2 = first;
            p.tile_log2 = on_idle ? first - 1 : STSORT_SIDE_TILE_LOG2;
            p.cluster_log2 = 1;
            *side_waits = !on_idle && elem_bytes >= 8;
        }
    }
    return stsort_configure(m, 1, elem_bytes, sm_count, smem_optin, cluster_max, &p, side);
}

stenc_status stsort_configure_split(size_t n, size_t num_segments, size_t elem_bytes, int sm_count,
                                    size_t smem_optin, int cluster_max,
                                    const stenc_sort_policy *policy, const stsort_config *whole,
                                    stsort_split *split) {
    split->offset = 0;
    split->side_waits = 0;
    const int k = whole->seg_log2;
    if (g_split_mode == 0 || num_segments != 1 || sm_count <= 0 || !policy_is_default(policy) ||
        k < 2 || n == (size_t)1 << k || whole->first_tile_log2 + whole->cluster_log2 >= k)
        return STENC_OK;
    if (g_split_mode == 1 && !split_pays(n, k - 1, elem_bytes, whole, sm_count)) return STENC_OK;
    /* The head [0, 2^(k-1)) is the main part, on a power of two's plan; its phases 1..k-1 run
     * beside the tail's; the later phase on the whole network's plan where its first pass ends
     * by then, else on the head's. */
    const int phases = k - 1;
    const size_t head = (size_t)1 << phases;
    STENC_TRY(stsort_configure(head, 1, elem_bytes, sm_count, smem_optin, cluster_max, NULL,
                               &split->main));
    STENC_TRY(configure_side(n - head, phases, elem_bytes, sm_count, smem_optin, cluster_max,
                             &split->main, &split->side, &split->side_waits));
    split->main.seg_log2 = k;
    split->last = whole->first_tile_log2 + whole->cluster_log2 <= phases ? *whole : split->main;
    split->offset = head;
    split->phases = phases;
    return STENC_OK;
}

static size_t elem_bytes_of(int key_bytes, int value_bytes) {
    return (size_t)key_bytes + (size_t)value_bytes;
}

/* ---- the CPU path ------------------------------------------------------------------------- */

enum {
    CPU_INSERTION_MAX = 24,      /* ranges this short: insertion sort */
    CPU_TASK_MIN = 1 << 14,      /* ranges this long: a new OpenMP task */
    CPU_SEGMENTS_PER_TASK = 4096 /* elements per task when sorting many segments */
};

/* An introsort on mapped unsigned keys K, carrying values V when HAS_V. */
#define STSORT_DEFINE_CPU(NAME, K, V, HAS_V)                                                       \
    static void NAME##_swap(K *k, V *v, size_t i, size_t j) {                                      \
        K tk = k[i];                                                                               \
        k[i] = k[j], k[j] = tk;                                                                    \
        if (HAS_V) {                                                                               \
            V tv = v[i];                                                                           \
            v[i] = v[j], v[j] = tv;                                                                \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_insertion(K *k, V *v, size_t n) {                                           \
        for (size_t i = 1; i < n; i++)                                                             \
            for (size_t j = i; j > 0 && k[j - 1] > k[j]; j--)                                      \
                NAME##_swap(k, v, j - 1, j);                                                       \
    }                                                                                              \
    static void NAME##_sift(K *k, V *v, size_t root, size_t n) {                                   \
        for (;;) {                                                                                 \
            size_t child = 2 * root + 1;                                                           \
            if (child >= n) return;                                                                \
            if (child + 1 < n && k[child + 1] > k[child]) child++;                                 \
            if (!(k[child] > k[root])) return;                                                     \
            NAME##_swap(k, v, root, child);                                                        \
            root = child;                                                                          \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_heapsort(K *k, V *v, size_t n) {                                            \
        for (size_t i = n / 2; i-- > 0;)                                                           \
            NAME##_sift(k, v, i, n);                                                               \
        for (size_t end = n; end-- > 1;) {                                                         \
            NAME##_swap(k, v, 0, end);                                                             \
            NAME##_sift(k, v, 0, end);                                                             \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_intro(K *k, V *v, size_t n, int depth) {                                    \
        while (n > CPU_INSERTION_MAX) {                                                            \
            if (depth-- == 0) {                                                                    \
                NAME##_heapsort(k, v, n);                                                          \
                return;                                                                            \
            }                                                                                      \
            /* Median of three into k[0]; then Hoare partition around it. */                       \
            size_t mid = n / 2;                                                                    \
            if (k[mid] < k[0]) NAME##_swap(k, v, mid, 0);                                          \
            if (k[n - 1] < k[0]) NAME##_swap(k, v, n - 1, 0);                                      \
            if (k[n - 1] < k[mid]) NAME##_swap(k, v, n - 1, mid);                                  \
            NAME##_swap(k, v, 0, mid);                                                             \
            K pivot = k[0];                                                                        \
            size_t i = 0, j = n;                                                                   \
            for (;;) {                                                                             \
                do                                                                                 \
                    i++;                                                                           \
                while (i < n && k[i] < pivot);                                                     \
                do                                                                                 \
                    j--;                                                                           \
                while (k[j] > pivot);                                                              \
                if (i >= j) break;                                                                 \
                NAME##_swap(k, v, i, j);                                                           \
            }                                                                                      \
            NAME##_swap(k, v, 0, j);                                                               \
            /* [0, j) <= pivot, k[j] == pivot, (j, n) >= pivot. */                                 \
            size_t left = j, right = n - j - 1;                                                    \
            K *rk = k + j + 1;                                                                     \
            V *rv = HAS_V ? v + j + 1 : v;                                                         \
            if (left >= CPU_TASK_MIN && right >= CPU_TASK_MIN) {                                   \
                _Pragma("omp task firstprivate(k, v, left, depth)")                                \
                    NAME##_intro(k, v, left, depth);                                               \
                k = rk, v = rv, n = right;                                                         \
            } else if (left < right) {                                                             \
                NAME##_intro(k, v, left, depth);                                                   \
                k = rk, v = rv, n = right;                                                         \
            } else {                                                                               \
                NAME##_intro(rk, rv, right, depth);                                                \
                n = left;                                                                          \
            }                                                                                      \
        }                                                                                          \
        NAME##_insertion(k, v, n);                                                                 \
    }

STSORT_DEFINE_CPU(cpu32, uint32_t, uint32_t, 0)
STSORT_DEFINE_CPU(cpu32v32, uint32_t, uint32_t, 1)
STSORT_DEFINE_CPU(cpu32v64, uint32_t, uint64_t, 1)
STSORT_DEFINE_CPU(cpu64, uint64_t, uint32_t, 0)
STSORT_DEFINE_CPU(cpu64v32, uint64_t, uint32_t, 1)
STSORT_DEFINE_CPU(cpu64v64, uint64_t, uint64_t, 1)

static int depth_limit(size_t n) {
    return 2 * stsort_ceil_log2(n + 1) + 4;
}

/* Map (or unmap) keys in place: ascending order of the result is the requested order. */
static void cpu_map_keys(void *keys, int key_bytes, stsort_kind kind, int descending, size_t n,
                         int forward) {
    if (key_bytes == 4) {
        uint32_t *k = keys, flip = descending ? UINT32_MAX : 0;
        for (size_t i = 0; i < n; i++)
            k[i] = forward ? stsort_map32(k[i], kind) ^ flip : stsort_unmap32(k[i] ^ flip, kind);
    } else {
        uint64_t *k = keys, flip = descending ? UINT64_MAX : 0;
        for (size_t i = 0; i < n; i++)
            k[i] = forward ? stsort_map64(k[i], kind) ^ flip : stsort_unmap64(k[i] ^ flip, kind);
    }
}

static void cpu_sort_segment(void *keys, int key_bytes, stsort_kind kind, void *values,
                             int value_bytes, size_t n, int descending) {
    cpu_map_keys(keys, key_bytes, kind, descending, n, 1);
    int d = depth_limit(n);
    /* The introsort spawns tasks: wait for all of them before mapping the keys back. */
#pragma omp taskgroup
    if (key_bytes == 4) {
        if (value_bytes == 0)
            cpu32_intro(keys, NULL, n, d);
        else if (value_bytes == 4)
            cpu32v32_intro(keys, values, n, d);
        else
            cpu32v64_intro(keys, values, n, d);
    } else {
        if (value_bytes == 0)
            cpu64_intro(keys, NULL, n, d);
        else if (value_bytes == 4)
            cpu64v32_intro(keys, values, n, d);
        else
            cpu64v64_intro(keys, values, n, d);
    }
    cpu_map_keys(keys, key_bytes, kind, descending, n, 0);
}

static void cpu_sort(void *keys, int key_bytes, stsort_kind kind, void *values, int value_bytes,
                     size_t segment_len, size_t num_segments, int descending) {
    size_t per_task = CPU_SEGMENTS_PER_TASK / segment_len + 1;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop grainsize(per_task)
        for (size_t s = 0; s < num_segments; s++) {
            char *k = (char *)keys + s * segment_len * (size_t)key_bytes;
            char *v = values ? (char *)values + s * segment_len * (size_t)value_bytes : NULL;
            cpu_sort_segment(k, key_bytes, kind, v, value_bytes, segment_len, descending);
        }
    }
}

/* ---- public entry points ------------------------------------------------------------------ */

/* The element count of a call, which must fit in one array of keys and one of values. */
static stenc_status check_total(size_t segment_len, size_t num_segments, int key_bytes,
                                int value_bytes, const char *fn, size_t *total) {
    STENC_REQUIRE(stenc_mul_size(segment_len, num_segments, total),
                  "%s: %zu segments of %zu elements overflow size_t", fn, num_segments,
                  segment_len);
    const int widest = key_bytes > value_bytes ? key_bytes : value_bytes;
    return stenc_check_count(*total, (size_t)widest, fn, "elements");
}

/* The CUDA path's plan for a context: the whole network's, and whether it runs split. */
static stenc_status configure_cuda(const stenc_ctx *ctx, size_t segment_len, size_t num_segments,
                                   size_t elem_bytes, const stenc_sort_policy *policy,
                                   stsort_config *cfg, stsort_split *split) {
    STENC_TRY(stsort_configure(segment_len, num_segments, elem_bytes, ctx->sm_count,
                               ctx->smem_optin, stsort_cluster_max(ctx), policy, cfg));
    return stsort_configure_split(segment_len, num_segments, elem_bytes, ctx->sm_count,
                                  ctx->smem_optin, stsort_cluster_max(ctx), policy, cfg, split);
}

stenc_status stenc_sort_segments_ex(stenc_ctx *ctx, stenc_type key_type, void *keys,
                                    stenc_type value_type, void *values, size_t segment_len,
                                    size_t num_segments, stenc_sort_order order,
                                    const stenc_sort_policy *policy) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_sort"));
    STENC_TRY(stenc_ctx_require_cpu_or_cuda(ctx, "stenc_sort"));
    STENC_REQUIRE(order == STENC_SORT_ASCENDING || order == STENC_SORT_DESCENDING,
                  "stenc_sort: invalid order %d", (int)order);
    stsort_kind kind = STSORT_UNSIGNED;
    int key_bytes = 0, value_bytes = 0;
    STENC_TRY(check_types("stenc_sort", key_type, value_type, values != NULL, &kind, &key_bytes,
                          &value_bytes));
    size_t total;
    STENC_TRY(check_total(segment_len, num_segments, key_bytes, value_bytes, "stenc_sort", &total));
    if (total == 0) return STENC_OK;
    STENC_REQUIRE(keys, "stenc_sort: keys is NULL for %zu elements", total);
    int descending = order == STENC_SORT_DESCENDING;
    if (ctx->device == STENC_DEVICE_CUDA) {
        stsort_config cfg;
        stsort_split split;
        STENC_TRY(configure_cuda(ctx, segment_len, num_segments,
                                 elem_bytes_of(key_bytes, value_bytes), policy, &cfg, &split));
        if (segment_len < 2) return STENC_OK;
        return stsort_cuda_sort(ctx, key_bytes, kind, keys, value_bytes, values, segment_len,
                                num_segments, descending, &cfg, &split);
    }
    if (segment_len < 2) return STENC_OK;
    cpu_sort(keys, key_bytes, kind, values, value_bytes, segment_len, num_segments, descending);
    return STENC_OK;
}

stenc_status stenc_sort_segments(stenc_ctx *ctx, stenc_type key_type, void *keys,
                                 stenc_type value_type, void *values, size_t segment_len,
                                 size_t num_segments, stenc_sort_order order) {
    return stenc_sort_segments_ex(ctx, key_type, keys, value_type, values, segment_len,
                                  num_segments, order, NULL);
}

stenc_status stenc_sort(stenc_ctx *ctx, stenc_type key_type, void *keys, stenc_type value_type,
                        void *values, size_t n, stenc_sort_order order) {
    return stenc_sort_segments_ex(ctx, key_type, keys, value_type, values, n, 1, order, NULL);
}

stenc_status stenc_sort_global_passes(stenc_ctx *ctx, stenc_type key_type, stenc_type value_type,
                                      int has_values, size_t segment_len, size_t num_segments,
                                      const stenc_sort_policy *policy, int *passes) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_sort_global_passes"));
    STENC_REQUIRE(passes, "stenc_sort_global_passes: passes is NULL");
    stsort_kind kind = STSORT_UNSIGNED;
    int key_bytes = 0, value_bytes = 0;
    STENC_TRY(check_types("stenc_sort_global_passes", key_type, value_type, has_values, &kind,
                          &key_bytes, &value_bytes));
    size_t total;
    STENC_TRY(check_total(segment_len, num_segments, key_bytes, value_bytes,
                          "stenc_sort_global_passes", &total));
    if (segment_len < 2 || num_segments == 0) {
        *passes = 0;
        return STENC_OK;
    }
    stsort_config cfg;
    stsort_split split;
    STENC_TRY(configure_cuda(ctx, segment_len, num_segments, elem_bytes_of(key_bytes, value_bytes),
                             policy, &cfg, &split));
    stsort_pass plan[STSORT_MAX_PASSES];
    int count = stsort_plan(&cfg, num_segments, plan, STSORT_MAX_PASSES);
    if (count < 0)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_sort_global_passes: more than %d passes with tiles of 2^%d",
                           (int)STSORT_MAX_PASSES, cfg.tile_log2);
    if (split.offset > 0) {
        /* The passes over the whole array: the main part's, then those of the later phases
         * (the side part's run beside the main part's). */
        count = 0;
        const stsort_config *parts[2] = {&split.main, &split.last};
        for (int part = 0; part < 2; part++) {
            const int n_part = stsort_plan(parts[part], 1, plan, STSORT_MAX_PASSES);
            if (n_part < 0)
                return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                                   "stenc_sort_global_passes: more than %d passes with tiles of "
                                   "2^%d",
                                   (int)STSORT_MAX_PASSES, parts[part]->tile_log2);
            for (int i = 0; i < n_part; i++)
                count += (plan[i].phase_first <= split.phases) == (part == 0);
        }
    }
    *passes = count;
    return STENC_OK;
}
