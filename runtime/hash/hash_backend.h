/* Internals of the cuckoo hash tables: the hash functions, the slot layouts, and the backend
 * interface through which hash.c drives the CPU (hash_cpu.c) and CUDA (hash_cuda.cu) halves.
 * Prefix: hash_. Not installed. */
#ifndef STENC_HASH_BACKEND_H
#define STENC_HASH_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "stenc/hash.h"
#include "internal.h"

#ifdef __CUDACC__
#define HASH_HD __host__ __device__ __forceinline__
#else
#define HASH_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Tables are never smaller than this, so that tiny inputs do not fight over two slots. */
#define HASH_MIN_SLOTS 16u
/* The chain limit is HASH_CHAIN_PER_LG * lg(N) (the chapter's 7 lg N), but at least this. */
#define HASH_CHAIN_PER_LG 7u
#define HASH_CHAIN_FLOOR 32u
/* Close to the smallest size factor for d (below HASH_NEAR_MIN_FACTOR times it) eviction chains
 * grow long: 7 lg N then fails every time at 2^20 keys for d = 3..5 at their minimum factors,
 * so the limit is HASH_NEAR_MIN_CHAIN_SCALE times larger there. */
#define HASH_NEAR_MIN_FACTOR 1.2
#define HASH_NEAR_MIN_CHAIN_SCALE 100u

/* The BUCKETS layout: a bucket is one 32-byte sector, 4 narrow or 2 wide slots. */
#define HASH_BUCKET_BYTES 32u

/* Everything a kernel needs to place a key: d hash functions of the form
 * mix(a_i * key + b_i) mapped onto [0, buckets). In the SLOTS layout a bucket is one slot
 * (bucket = 1, buckets = capacity), so every bucket-generic routine is the chapter's there.
 * Passed by value to kernels. */
typedef struct hash_geom {
    uint64_t a[STENC_HASH_MAX_FUNCTIONS]; /* odd multipliers */
    uint64_t b[STENC_HASH_MAX_FUNCTIONS];
    uint32_t capacity;  /* slots, a multiple of bucket; 0 for an empty table */
    uint32_t buckets;   /* capacity / bucket */
    uint32_t max_chain; /* evictions one insertion may follow */
    int d;              /* hash functions */
    int wide;           /* 1: 64-bit keys in 16-byte slots; 0: 32-bit keys in 8-byte slots */
    int bucket;         /* slots per bucket: 1 (SLOTS layout) or HASH_BUCKET_BYTES / slot size */
    int holes;          /* BUCKETS: the duplicate pass erased entries, so a bucket with a free
                         * slot no longer proves that a key is absent from later buckets */
} hash_geom;

/* Slot layouts. Narrow: one 64-bit word, key in the high half, value in the low half, so an
 * entry moves with one 64-bit atomic exchange. Wide: a 16-byte slot moved with a 128-bit
 * exchange. Empty slots are all ones in both (the reserved key). */
#define HASH_EMPTY_NARROW 0xffffffffffffffffull
typedef struct hash_wide_slot {
    uint64_t key;
    uint32_t value;
    uint32_t pad; /* all ones, so that an empty slot is all ones */
} hash_wide_slot;

HASH_HD uint64_t hash_narrow_entry(uint32_t key, uint32_t value) {
    return ((uint64_t)key << 32) | value;
}
HASH_HD uint32_t hash_narrow_key(uint64_t entry) {
    return (uint32_t)(entry >> 32);
}
HASH_HD uint32_t hash_narrow_value(uint64_t entry) {
    return (uint32_t)entry;
}

/* Bucket of `key` under hash function i (its slot in the SLOTS layout). Multiply-add, then a
 * xor-shift-multiply mix so that keys equal modulo the table size, or consecutive keys,
 * scatter; then a multiply-shift range reduction (no division). */
HASH_HD uint32_t hash_slot(const hash_geom *g, int i, uint64_t key) {
    uint64_t x = key * g->a[i] + g->b[i];
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 32;
    return (uint32_t)(((x & 0xffffffffull) * (uint64_t)g->buckets) >> 32);
}

/* BUCKETS: which slot of a full bucket the eviction number `step` of a chain carrying `key`
 * takes. It varies along the chain and between keys, so that two chains do not keep swapping
 * the same pair of entries. */
HASH_HD int hash_victim(uint64_t key, uint32_t step, int bucket) {
    return (int)(((uint32_t)(key ^ (key >> 32)) * 0x9e3779b9u + step) % (uint32_t)bucket);
}

/* Which function to use after an entry of `key` was evicted from `slot` (bucket): the one after the
 * function that put it there, skipping functions that map to the same slot (so that a key
 * whose functions collide still uses all of its distinct slots). */
HASH_HD int hash_next_function(const hash_geom *g, uint64_t key, uint32_t slot) {
    int i = 0;
    while (i < g->d && hash_slot(g, i, key) != slot)
        i++;
    if (i == g->d) return 0; /* not reachable for a consistent table */
    for (int step = 1; step < g->d; step++) {
        int j = (i + step) % g->d;
        if (hash_slot(g, j, key) != slot) return j;
    }
    return (i + 1) % g->d;
}

/* The first function that maps `key` to `slot` (d when none does). */
HASH_HD int hash_function_of(const hash_geom *g, uint64_t key, uint32_t slot) {
    int i = 0;
    while (i < g->d && hash_slot(g, i, key) != slot)
        i++;
    return i;
}

static inline size_t hash_slot_bytes(const hash_geom *g) {
    return g->wide ? sizeof(hash_wide_slot) : sizeof(uint64_t);
}

/* Partitioned insertion (CUDA backend, BUCKETS layout, 32-bit keys; docs/hash.md "Partitioned
 * insertion"): the input is grouped by the table region of each key's first bucket (a counting
 * sort into scratch memory); then one block per slice of a region (HASH_PARTITION_SLICE_BUCKETS
 * buckets, in shared memory) places the keys whose first bucket is in its slice with
 * shared-memory atomics and writes the slice out; keys whose first bucket is full go through
 * the ordinary insertion afterwards. Defaults: */
#define HASH_PARTITION_MIN_KEYS ((size_t)1 << 20)
#define HASH_PARTITION_MIN_TABLE_BYTES ((size_t)64 << 20) /* beyond the H100's 50 MB L2 */
#define HASH_PARTITION_REGION_BYTES ((size_t)128 << 10)   /* one slice */
#define HASH_PARTITION_MAX_REGIONS 2048u                  /* the histogram lives in shared memory */
#define HASH_PARTITION_SLICE_BUCKETS 4096u                /* 128 KiB of shared memory per block */
#define HASH_PARTITION_MAX_SLICES_LOG 8                   /* slices per region, at most 2^this */
#define HASH_PARTITION_MAX_SLICES (1u << HASH_PARTITION_MAX_SLICES_LOG)
#define HASH_PARTITION_MAX_SLOTS_PER_KEY 4u /* smaller batches insert directly */

typedef struct hash_partition_policy {
    size_t min_keys;            /* partition inputs of at least this many keys ... */
    size_t min_table_bytes;     /* ... going into a table at least this large */
    size_t region_bytes;        /* table bytes per region (a power of two buckets, at least this) */
    uint32_t max_regions;       /* 2..HASH_PARTITION_MAX_REGIONS; larger regions beyond it */
    uint32_t max_slots_per_key; /* ... and not much larger than the batch (0: any size) */
    int fail_alloc;     /* tests: the scratch allocation fails, so the fallback is taken: 1 without
                         * calling CUDA (sanitizer runs stay free of API errors), 2 by asking
                         * cudaMalloc for 2^60 bytes */
    int partition_only; /* benchmark: 1 partition, 2 partition and place in the slices, then
                         * return without the rest (to time the steps) */
} hash_partition_policy;

hash_partition_policy hash_partition_policy_default(void);
/* The policy of every table in the process (a hook for tests and the benchmark; not to be
 * changed while another thread builds). Returns the previous policy. */
hash_partition_policy hash_set_partition_policy(hash_partition_policy p);
hash_partition_policy hash_get_partition_policy(void);
/* The backend notes each insertion pass that ran partitioned, or fell back to the direct
 * insertion because the scratch memory could not be had; tests read the totals. */
void hash_partition_note(int fell_back);
void hash_partition_counts(uint64_t *partitioned, uint64_t *fallbacks);

/* Device memory a table lends its backend from call to call (the partition buffer): grown when
 * too small, freed (stenc_free) when the table is destroyed. */
typedef struct hash_scratch {
    void *p;
    size_t bytes;
} hash_scratch;

/* Counters of one insertion pass. */
typedef struct hash_insert_result {
    uint64_t failed;   /* insertions whose chain ran past max_chain (their item is dropped) */
    uint64_t reserved; /* input keys equal to the reserved empty key (not inserted) */
} hash_insert_result;

/* One backend: every operation works on memory of its context and blocks until done. */
typedef struct hash_backend {
    /* Most queries one find or find_multi may take (the CUDA grid's limit). */
    size_t max_queries;
    /* Mark all slots empty. */
    stenc_status (*clear)(stenc_ctx *ctx, const hash_geom *g, void *slots);
    /* Insert keys[i] (with values[i], or 0 when values is NULL) for every i with skip == NULL
     * or skip[i] == 0. An insertion that meets a copy of its own key stops there (the copy
     * stays). fresh: the slots hold nothing yet, not even empty marks, and the backend clears
     * them (or writes every one). The order in which items are inserted is the backend's (the
     * CUDA backend may partition them first, in `scratch`, which may be NULL). */
    stenc_status (*insert)(stenc_ctx *ctx, const hash_geom *g, void *slots, const void *keys,
                           const uint32_t *values, const uint8_t *skip, size_t n, int fresh,
                           hash_scratch *scratch, hash_insert_result *result);
    /* Erase every copy of a key but the one at its lowest-numbered hash function (and, within
     * that bucket, its lowest slot); count the occupied slots left and the erased ones. */
    stenc_status (*dedupe)(stenc_ctx *ctx, const hash_geom *g, void *slots, size_t *occupied,
                           size_t *erased);
    /* For stored keys, value = min(value, values[i]). */
    stenc_status (*apply_min)(stenc_ctx *ctx, const hash_geom *g, void *slots, const void *keys,
                              const uint32_t *values, size_t n);
    /* results[i] = value or STENC_HASH_NOT_FOUND, found[i] = 0/1 (either may be NULL). In the
     * BUCKETS layout without holes a miss stops at the first bucket with a free slot;
     * *found_count (may be NULL) = the number found. */
    stenc_status (*find)(stenc_ctx *ctx, const hash_geom *g, const void *slots, const void *queries,
                         size_t n, uint32_t *results, uint8_t *found, size_t *found_count);
    /* Copy the occupied slots' keys and values to keys_out/values_out, in any order. */
    stenc_status (*gather)(stenc_ctx *ctx, const hash_geom *g, const void *slots, void *keys_out,
                           uint32_t *values_out, size_t expected);
    /* COMPACT: value of each occupied slot = its rank among occupied slots in slot order;
     * keys_out[rank] = its key. */
    stenc_status (*assign_ids)(stenc_ctx *ctx, const hash_geom *g, void *slots, void *keys_out,
                               size_t count);
    /* MULTI, on a table whose values are the ids 0..count-1: info[2*id] = offset,
     * info[2*id+1] = number of values, and values_out grouped by id. */
    stenc_status (*multi_fill)(stenc_ctx *ctx, const hash_geom *g, const void *slots,
                               const void *keys, const uint32_t *values, size_t n, size_t count,
                               uint32_t *info, uint32_t *values_out);
    /* MULTI queries: counts[i], offsets[i] from info (0 and NOT_FOUND when absent). */
    stenc_status (*find_multi)(stenc_ctx *ctx, const hash_geom *g, const void *slots,
                               const uint32_t *info, const void *queries, size_t n,
                               uint32_t *counts, uint32_t *offsets);
} hash_backend;

const hash_backend *hash_cpu_backend(void);
/* NULL in a build without CUDA. */
const hash_backend *hash_cuda_backend(void);

#ifdef __cplusplus
}
#endif

#endif /* STENC_HASH_BACKEND_H */
