/* The CPU backend of the hash tables: the reference. Builds are serial (the cuckoo loop with
 * the same hash functions, round-robin order, bucket scan and chain limit as the GPU, one key at
 * a time); queries run in parallel with OpenMP. Routines that look keys up work on buckets:
 * in the SLOTS layout a bucket is one slot. */
#include <string.h>

#include "hash_backend.h"

/* A slot seen as (key, value), whatever the layout. */
typedef struct cpu_entry {
    uint64_t key;
    uint32_t value;
} cpu_entry;

static uint64_t empty_key(const hash_geom *g) {
    return g->wide ? STENC_HASH_EMPTY_KEY64 : STENC_HASH_EMPTY_KEY32;
}

static uint64_t load_key(const hash_geom *g, const void *keys, size_t i) {
    return g->wide ? ((const uint64_t *)keys)[i] : ((const uint32_t *)keys)[i];
}

static void store_key(const hash_geom *g, void *keys, size_t i, uint64_t key) {
    if (g->wide)
        ((uint64_t *)keys)[i] = key;
    else
        ((uint32_t *)keys)[i] = (uint32_t)key;
}

static cpu_entry slot_get(const hash_geom *g, const void *slots, uint32_t s) {
    cpu_entry e;
    if (g->wide) {
        const hash_wide_slot *w = (const hash_wide_slot *)slots + s;
        e.key = w->key;
        e.value = w->value;
    } else {
        uint64_t x = ((const uint64_t *)slots)[s];
        e.key = hash_narrow_key(x);
        e.value = hash_narrow_value(x);
    }
    return e;
}

static void slot_set(const hash_geom *g, void *slots, uint32_t s, cpu_entry e) {
    if (g->wide) {
        hash_wide_slot *w = (hash_wide_slot *)slots + s;
        w->key = e.key;
        w->value = e.value;
        w->pad = 0xffffffffu;
    } else {
        ((uint64_t *)slots)[s] = hash_narrow_entry((uint32_t)e.key, e.value);
    }
}

static void slot_clear(const hash_geom *g, void *slots, uint32_t s) {
    memset((char *)slots + (size_t)s * hash_slot_bytes(g), 0xff, hash_slot_bytes(g));
}

/* The slot of bucket b holding `key` (the first one), or UINT32_MAX; *free_slot (may be NULL)
 * = whether the bucket has an empty slot. */
static uint32_t bucket_find(const hash_geom *g, const void *slots, uint32_t b, uint64_t key,
                            int *free_slot) {
    const uint64_t empty = empty_key(g);
    const uint32_t first = b * (uint32_t)g->bucket;
    if (free_slot) *free_slot = 0;
    for (uint32_t s = first; s < first + (uint32_t)g->bucket; s++) {
        uint64_t k = slot_get(g, slots, s).key;
        if (k == key) return s;
        if (free_slot && k == empty) *free_slot = 1;
    }
    return UINT32_MAX;
}

/* The slot that holds `key`, or UINT32_MAX. `early`: stop at a bucket with an empty slot,
 * which is exact for BUCKETS tables without holes (see docs/hash.md). */
static uint32_t locate_in(const hash_geom *g, const void *slots, uint64_t key, int early) {
    if (g->capacity == 0 || key == empty_key(g)) return UINT32_MAX;
    early = early && g->bucket > 1 && !g->holes;
    for (int i = 0; i < g->d; i++) {
        int free_slot = 0;
        uint32_t s = bucket_find(g, slots, hash_slot(g, i, key), key, early ? &free_slot : NULL);
        if (s != UINT32_MAX) return s;
        if (free_slot) return UINT32_MAX;
    }
    return UINT32_MAX;
}

static uint32_t locate(const hash_geom *g, const void *slots, uint64_t key) {
    return locate_in(g, slots, key, 0);
}

static stenc_status cpu_clear(stenc_ctx *ctx, const hash_geom *g, void *slots) {
    (void)ctx;
    memset(slots, 0xff, (size_t)g->capacity * hash_slot_bytes(g));
    return STENC_OK;
}

/* BUCKETS: place `carry` in the first of its buckets (in function order from its start
 * function) with an empty slot; when all d are full, evict from the start function's bucket
 * and carry the evicted entry on from its next function. Stops on meeting a copy of the key.
 * Returns 0 when placed, 1 when the chain ran past max_chain (the carried entry is lost). */
static int bucket_insert_one(const hash_geom *g, void *slots, cpu_entry carry) {
    const uint64_t empty = empty_key(g);
    int start = 0;
    for (uint32_t evictions = 0;; evictions++) {
        for (int t = 0; t < g->d; t++) {
            int free_slot = 0;
            uint32_t b = hash_slot(g, (start + t) % g->d, carry.key);
            if (bucket_find(g, slots, b, carry.key, &free_slot) != UINT32_MAX) return 0;
            if (!free_slot) continue;
            uint32_t s = bucket_find(g, slots, b, empty, NULL);
            slot_set(g, slots, s, carry);
            return 0;
        }
        if (evictions == g->max_chain) return 1;
        uint32_t b = hash_slot(g, start, carry.key);
        uint32_t s =
            b * (uint32_t)g->bucket + (uint32_t)hash_victim(carry.key, evictions, g->bucket);
        cpu_entry evicted = slot_get(g, slots, s);
        slot_set(g, slots, s, carry);
        if (evicted.key == empty || evicted.key == carry.key) return 0;
        carry = evicted;
        start = hash_next_function(g, carry.key, b);
    }
}

static stenc_status cpu_insert(stenc_ctx *ctx, const hash_geom *g, void *slots, const void *keys,
                               const uint32_t *values, const uint8_t *skip, size_t n, int fresh,
                               hash_scratch *scratch, hash_insert_result *result) {
    (void)scratch; /* the reference inserts serially, in input order */
    if (fresh) STENC_TRY(cpu_clear(ctx, g, slots));
    result->failed = result->reserved = 0;
    const uint64_t empty = empty_key(g);
    for (size_t i = 0; i < n; i++) {
        if (skip && skip[i]) continue;
        cpu_entry carry = {load_key(g, keys, i), values ? values[i] : 0};
        if (carry.key == empty) {
            result->reserved++;
            continue;
        }
        if (g->bucket > 1) {
            if (bucket_insert_one(g, slots, carry)) {
                result->failed++;
                return STENC_OK;
            }
            continue;
        }
        uint32_t s = hash_slot(g, 0, carry.key);
        int placed = 0;
        for (uint32_t its = 0; its < g->max_chain && !placed; its++) {
            cpu_entry evicted = slot_get(g, slots, s);
            slot_set(g, slots, s, carry);
            if (evicted.key == empty || evicted.key == carry.key) {
                placed = 1; /* an empty slot, or a copy of the same key (dropped) */
                break;
            }
            carry = evicted;
            s = hash_slot(g, hash_next_function(g, carry.key, s), carry.key);
        }
        if (!placed) {
            result->failed++; /* the carried entry is lost: the caller restarts */
            return STENC_OK;
        }
    }
    return STENC_OK;
}

static stenc_status cpu_dedupe(stenc_ctx *ctx, const hash_geom *g, void *slots, size_t *occupied,
                               size_t *erased) {
    (void)ctx;
    const uint64_t empty = empty_key(g);
    size_t count = 0, gone = 0;
    for (uint32_t s = 0; s < g->capacity; s++) {
        cpu_entry e = slot_get(g, slots, s);
        if (e.key == empty) continue;
        const uint32_t b = s / (uint32_t)g->bucket;
        /* A copy earlier in the same bucket, or in a bucket of a lower-numbered function. */
        int duplicate = bucket_find(g, slots, b, e.key, NULL) != s;
        int first = hash_function_of(g, e.key, b);
        for (int j = 0; j < first && !duplicate; j++) {
            uint32_t other = hash_slot(g, j, e.key);
            duplicate = other != b && bucket_find(g, slots, other, e.key, NULL) != UINT32_MAX;
        }
        if (duplicate) {
            slot_clear(g, slots, s);
            gone++;
        } else {
            count++;
        }
    }
    *occupied = count;
    *erased = gone;
    return STENC_OK;
}

static stenc_status cpu_apply_min(stenc_ctx *ctx, const hash_geom *g, void *slots, const void *keys,
                                  const uint32_t *values, size_t n) {
    (void)ctx;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = load_key(g, keys, i);
        uint32_t s = locate(g, slots, key);
        if (s == UINT32_MAX) continue;
        cpu_entry e = slot_get(g, slots, s);
        if (values[i] < e.value) {
            e.value = values[i];
            slot_set(g, slots, s, e);
        }
    }
    return STENC_OK;
}

static stenc_status cpu_find(stenc_ctx *ctx, const hash_geom *g, const void *slots,
                             const void *queries, size_t n, uint32_t *results, uint8_t *found,
                             size_t *found_count) {
    (void)ctx;
    size_t hits = 0;
    const long long count = (long long)n;
#pragma omp parallel for reduction(+ : hits) schedule(static)
    for (long long i = 0; i < count; i++) {
        uint32_t s = locate_in(g, slots, load_key(g, queries, (size_t)i), 1);
        int hit = s != UINT32_MAX;
        if (results) results[i] = hit ? slot_get(g, slots, s).value : STENC_HASH_NOT_FOUND;
        if (found) found[i] = (uint8_t)hit;
        hits += (size_t)hit;
    }
    if (found_count) *found_count = hits;
    return STENC_OK;
}

static stenc_status cpu_gather(stenc_ctx *ctx, const hash_geom *g, const void *slots,
                               void *keys_out, uint32_t *values_out, size_t expected) {
    const uint64_t empty = empty_key(g);
    size_t k = 0;
    for (uint32_t s = 0; s < g->capacity && k < expected; s++) {
        cpu_entry e = slot_get(g, slots, s);
        if (e.key == empty) continue;
        store_key(g, keys_out, k, e.key);
        values_out[k++] = e.value;
    }
    (void)ctx;
    if (k != expected)
        return STENC_ERROR(STENC_ERR_INTERNAL, "hash gather: %zu entries, expected %zu", k,
                           expected);
    return STENC_OK;
}

static stenc_status cpu_assign_ids(stenc_ctx *ctx, const hash_geom *g, void *slots, void *keys_out,
                                   size_t count) {
    const uint64_t empty = empty_key(g);
    size_t id = 0;
    for (uint32_t s = 0; s < g->capacity; s++) {
        cpu_entry e = slot_get(g, slots, s);
        if (e.key == empty) continue;
        if (id >= count) break;
        store_key(g, keys_out, id, e.key);
        e.value = (uint32_t)id++;
        slot_set(g, slots, s, e);
    }
    (void)ctx;
    if (id != count)
        return STENC_ERROR(STENC_ERR_INTERNAL, "hash assign_ids: %zu ids, expected %zu", id, count);
    return STENC_OK;
}

static stenc_status cpu_multi_fill(stenc_ctx *ctx, const hash_geom *g, const void *slots,
                                   const void *keys, const uint32_t *values, size_t n, size_t count,
                                   uint32_t *info, uint32_t *values_out) {
    (void)ctx;
    uint32_t *cursor = stenc_host_alloc(count * sizeof(uint32_t));
    if (!cursor) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "hash multi_fill: host memory");
    memset(info, 0, 2 * count * sizeof(uint32_t));
    stenc_status st = STENC_OK;
    for (size_t i = 0; i < n && st == STENC_OK; i++) {
        uint32_t s = locate(g, slots, load_key(g, keys, i));
        if (s == UINT32_MAX)
            st = STENC_ERROR(STENC_ERR_INTERNAL, "hash multi_fill: key %zu not stored", i);
        else
            info[2 * (size_t)slot_get(g, slots, s).value + 1]++;
    }
    uint32_t offset = 0;
    for (size_t id = 0; id < count; id++) {
        info[2 * id] = cursor[id] = offset;
        offset += info[2 * id + 1];
    }
    for (size_t i = 0; i < n && st == STENC_OK; i++) {
        uint32_t id = slot_get(g, slots, locate(g, slots, load_key(g, keys, i))).value;
        values_out[cursor[id]++] = values[i];
    }
    stenc_host_free(cursor);
    return st;
}

static stenc_status cpu_find_multi(stenc_ctx *ctx, const hash_geom *g, const void *slots,
                                   const uint32_t *info, const void *queries, size_t n,
                                   uint32_t *counts, uint32_t *offsets) {
    (void)ctx;
    const long long count = (long long)n;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < count; i++) {
        uint32_t s = locate(g, slots, load_key(g, queries, (size_t)i));
        if (s == UINT32_MAX) {
            counts[i] = 0;
            offsets[i] = STENC_HASH_NOT_FOUND;
        } else {
            uint32_t id = slot_get(g, slots, s).value;
            offsets[i] = info[2 * (size_t)id];
            counts[i] = info[2 * (size_t)id + 1];
        }
    }
    return STENC_OK;
}

const hash_backend *hash_cpu_backend(void) {
    static const hash_backend be = {SIZE_MAX,       cpu_clear,     cpu_insert, cpu_dedupe,
                                    cpu_apply_min,  cpu_find,      cpu_gather, cpu_assign_ids,
                                    cpu_multi_fill, cpu_find_multi};
    return &be;
}
