/* stenc hash tables: cuckoo hashing on the device (Alcantara et al., GPU Computing Gems Jade,
 * ch. 4), with a CPU implementation of the same API as the reference.
 *
 * A table is built in bulk from N keys (and values) and then queried in bulk. Each key lives in
 * one of d slots chosen by d hash functions (2-5, default 4); the table has about
 * size_factor * N slots (default 1.25). Keys and values share one slot and are moved with
 * atomic exchanges; an insertion that follows too long a chain of evictions makes the build
 * restart with fresh hash constants, up to max_attempts times.
 *
 * Two slot layouts (config.layout): SLOTS, the chapter's (each hash function names one slot),
 * and BUCKETS (each hash function names a 32-byte bucket of 4 slots, 2 for 64-bit keys, read
 * in one memory transaction; a key goes into the first of its d buckets with a free slot, and
 * evictions happen only when all d are full). Same API and guarantees; see docs/hash.md.
 *
 * Pointers: on a CUDA context keys, values and outputs are device pointers; on a CPU context
 * they are host pointers (see stenc_malloc). Keys are STENC_U32 or STENC_U64 (config.key_type).
 * The all-ones key (STENC_HASH_EMPTY_KEY32/64) is reserved: it marks empty slots and may not be
 * built or inserted; queried, it is simply not found.
 *
 * Nothing is lost silently: a call either succeeds with every input key stored, or returns a
 * status and leaves the table as documented on that call.
 */
#ifndef STENC_HASH_H
#define STENC_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "stenc/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STENC_HASH_EMPTY_KEY32 0xffffffffu
#define STENC_HASH_EMPTY_KEY64 0xffffffffffffffffull
/* What stenc_hash_find writes for a key that is not in the table. Values are not restricted,
 * so a stored value may equal it: use stenc_hash_contains where that matters. */
#define STENC_HASH_NOT_FOUND 0xffffffffu

#define STENC_HASH_DEFAULT_LAYOUT STENC_HASH_LAYOUT_BUCKETS

#define STENC_HASH_MIN_FUNCTIONS 2
#define STENC_HASH_MAX_FUNCTIONS 5

typedef enum stenc_hash_kind {
    STENC_HASH_MAP = 0, /* key -> one 32-bit value */
    STENC_HASH_SET,     /* keys only; repeated input keys are allowed and stored once */
    STENC_HASH_COMPACT, /* a set whose unique keys get dense ids 0..count-1 (find gives the id) */
    STENC_HASH_MULTI,   /* key -> all of its values (find_multi gives count and offset) */
    STENC_HASH_KIND_COUNT
} stenc_hash_kind;

/* What a MAP does with a key given more than once (in one build, or in an insert with a key
 * that is already stored). The other kinds always accept repeated keys. */
typedef enum stenc_hash_duplicates {
    STENC_HASH_DUPLICATES_REJECT = 0, /* the call fails with STENC_ERR_INVALID_ARGUMENT */
    STENC_HASH_DUPLICATES_MIN_VALUE,  /* the smallest of the key's values is stored */
    STENC_HASH_DUPLICATES_COUNT
} stenc_hash_duplicates;

typedef enum stenc_hash_layout {
    STENC_HASH_LAYOUT_SLOTS = 0, /* d hash functions choose a slot (the chapter's layout) */
    STENC_HASH_LAYOUT_BUCKETS,   /* d hash functions choose a 32-byte bucket of slots */
    STENC_HASH_LAYOUT_COUNT
} stenc_hash_layout;

/* Bulk insertion of large inputs (docs/hash.md, "Partitioned insertion"). */
typedef enum stenc_hash_partition {
    STENC_HASH_PARTITION_AUTO = 0, /* on the GPU, large BUCKETS builds of 32-bit keys (tables of
                                    * 64 MiB or more) are partitioned by table slice first: 1.5x
                                    * faster at 2^27 keys, with up to 16 B of device scratch per
                                    * key, kept with the table until stenc_hash_trim/destroy */
    STENC_HASH_PARTITION_OFF,      /* always the direct insertion: no scratch memory */
    STENC_HASH_PARTITION_COUNT
} stenc_hash_partition;

typedef struct stenc_hash_config {
    stenc_hash_kind kind;
    stenc_type key_type;              /* STENC_U32, or STENC_U64 (MAP and SET only) */
    int hash_functions;               /* d, 2..5 */
    double size_factor;               /* slots per key; at least 2.1, 1.1, 1.03, 1.02 for d=2..5 */
    int max_attempts;                 /* builds with fresh hash constants before giving up, >= 1 */
    uint32_t max_chain;               /* evictions one insertion may follow; 0: 7*lg(N), at least
                                       * 32, and 100 times more within 20% of the minimum factor */
    uint64_t seed;                    /* of the hash constants */
    stenc_hash_duplicates duplicates; /* MAP only */
    stenc_hash_layout layout;         /* capacity is rounded up to whole buckets */
    stenc_hash_partition partition;   /* AUTO or OFF; the results are the same */
} stenc_hash_config;

/* The defaults for a kind: 32-bit keys, 4 hash functions, factor 1.25, 8 attempts, chain
 * 7*lg(N), REJECT duplicates, STENC_HASH_DEFAULT_LAYOUT, STENC_HASH_PARTITION_AUTO. */
stenc_hash_config stenc_hash_config_default(stenc_hash_kind kind);

/* Counters of the table's life, for tuning and benchmarks. */
typedef struct stenc_hash_stats {
    int last_attempts; /* builds the last build or insert needed (1: no restart) */
    uint64_t builds;   /* build attempts since creation, all calls */
    uint64_t restarts; /* attempts that failed and were retried */
    uint64_t rebuilds; /* inserts that had to rebuild the table (growth or failure) */
} stenc_hash_stats;

typedef struct stenc_hash_table stenc_hash_table;

/* An empty table on `ctx` (finds nothing). The config is checked here; `config` NULL means
 * stenc_hash_config_default(STENC_HASH_MAP). */
stenc_status stenc_hash_create(stenc_ctx *ctx, const stenc_hash_config *config,
                               stenc_hash_table **table);
/* NULL is allowed; a table destroyed already is STENC_ERR_INVALID_ARGUMENT. Destroy tables
 * before their context (after it, the table's memory is leaked and the call says so). */
stenc_status stenc_hash_destroy(stenc_hash_table *table);

/* Free the device scratch that partitioned insertions keep between calls (after the last
 * large build, say); the next one allocates it again. NULL is allowed. */
stenc_status stenc_hash_trim(stenc_hash_table *table);

/* Replace the table's contents with n keys (key_type) and, for MAP and MULTI, n values
 * (`values` is ignored, and may be NULL, for SET and COMPACT). The input is read only.
 * Fails with INVALID_ARGUMENT for the reserved key or (MAP, REJECT) a repeated key, with
 * CAPACITY when max_attempts builds all failed, and with INVALID_ARGUMENT when
 * size_factor * n does not fit in 2^32 - 1 slots. On any failure the table is left empty and
 * valid. */
stenc_status stenc_hash_build(stenc_hash_table *table, const void *keys, const uint32_t *values,
                              size_t n);

/* Add n keys (and values) to a MAP or SET, as if the table had been built from its old
 * contents and these together. The table grows, or is rebuilt with fresh constants, when it
 * must; the caller does not see it (stats.rebuilds counts it). On failure the table is as
 * before the call. COMPACT and MULTI return UNSUPPORTED. */
stenc_status stenc_hash_insert(stenc_hash_table *table, const void *keys, const uint32_t *values,
                               size_t n);

/* For each query key: MAP its value, COMPACT its id, SET and MULTI 0; STENC_HASH_NOT_FOUND
 * when absent. The queries of find, contains and find_multi are one array: n is at most
 * PTRDIFF_MAX / key bytes, and on a CUDA context (2^31 - 1) * 256; more is
 * STENC_ERR_INVALID_ARGUMENT. */
stenc_status stenc_hash_find(const stenc_hash_table *table, const void *queries, uint32_t *results,
                             size_t n);

/* found[i] = 1 when queries[i] is in the table, else 0. */
stenc_status stenc_hash_contains(const stenc_hash_table *table, const void *queries, uint8_t *found,
                                 size_t n);

/* MULTI: for each query its number of values and the offset of the first in the table's value
 * list (stenc_hash_copy_values); count 0 and offset STENC_HASH_NOT_FOUND when absent. A key's
 * values are contiguous; their order is the input order on the CPU, unspecified on the GPU. */
stenc_status stenc_hash_find_multi(const stenc_hash_table *table, const void *queries,
                                   uint32_t *counts, uint32_t *offsets, size_t n);

/* COMPACT: the unique keys in id order, stenc_hash_count() of them (key_type), into ctx
 * memory. */
stenc_status stenc_hash_copy_keys(const stenc_hash_table *table, void *keys_out);

/* MULTI: all stored values grouped by key, stenc_hash_value_count() of them, into ctx memory. */
stenc_status stenc_hash_copy_values(const stenc_hash_table *table, uint32_t *values_out);

size_t stenc_hash_count(const stenc_hash_table *table);       /* unique keys stored */
size_t stenc_hash_value_count(const stenc_hash_table *table); /* MULTI: values; else count */
size_t stenc_hash_capacity(const stenc_hash_table *table);    /* slots */
stenc_hash_config stenc_hash_get_config(const stenc_hash_table *table);
stenc_hash_stats stenc_hash_get_stats(const stenc_hash_table *table);

/* The smallest size factor accepted for d hash functions (0 for an invalid d). */
double stenc_hash_min_size_factor(int hash_functions);

#ifdef __cplusplus
}
#endif

#endif /* STENC_HASH_H */
