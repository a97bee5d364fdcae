/* Cuckoo hash tables: argument checks, the build with restarts, the variants (set, compacting,
 * multivalue) and insertion into a built table. The passes themselves are in a backend
 * (hash_cpu.c, hash_cuda.cu); this file decides which to run and keeps the table valid.
 *
 * A build never touches the table it replaces: it fills a fresh hash_state, and only a
 * successful build is installed. A failed build or insert therefore leaves the old state (for
 * insert) or an empty one (for build).
 */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "hash_backend.h"

/* The contents of a table: what a build produces and an install swaps in. */
typedef struct hash_state {
    hash_geom g;
    void *slots;        /* g.capacity slots */
    size_t slots_bytes; /* allocated for slots (a rebuild may reuse them) */
    size_t count;       /* unique keys */
    size_t value_count; /* MULTI: values; else count */
    void *unique_keys;  /* COMPACT: count keys in id order */
    uint32_t *info;     /* MULTI: (offset, count) per id */
    uint32_t *values;   /* MULTI: value_count values grouped by key */
} hash_state;

struct stenc_hash_table {
    stenc_ctx *ctx;
    const hash_backend *be;
    stenc_hash_config cfg;
    hash_state st;
    stenc_hash_stats stats;
    hash_scratch scratch; /* the backend's partition buffer, kept for the next build */
};

#define HASH_PARTITION_DEFAULTS                                                                    \
    {                                                                                              \
        .min_keys = HASH_PARTITION_MIN_KEYS, .min_table_bytes = HASH_PARTITION_MIN_TABLE_BYTES,    \
        .region_bytes = HASH_PARTITION_REGION_BYTES, .max_regions = HASH_PARTITION_MAX_REGIONS,    \
        .max_slots_per_key = HASH_PARTITION_MAX_SLOTS_PER_KEY, .fail_alloc = 0,                    \
        .partition_only = 0                                                                        \
    }
static hash_partition_policy partition_policy = HASH_PARTITION_DEFAULTS;
static atomic_ullong partition_runs, partition_fallbacks;

hash_partition_policy hash_partition_policy_default(void) {
    hash_partition_policy p = HASH_PARTITION_DEFAULTS;
    return p;
}

hash_partition_policy hash_set_partition_policy(hash_partition_policy p) {
    hash_partition_policy old = partition_policy;
    partition_policy = p;
    return old;
}

hash_partition_policy hash_get_partition_policy(void) {
    return partition_policy;
}

void hash_partition_note(int fell_back) {
    atomic_fetch_add(fell_back ? &partition_fallbacks : &partition_runs, 1ull);
}

void hash_partition_counts(uint64_t *partitioned, uint64_t *fallbacks) {
    *partitioned = atomic_load(&partition_runs);
    *fallbacks = atomic_load(&partition_fallbacks);
}

/* Smallest table sizes the chapter found practical for 2..5 functions (section 4.3). */
static const double min_size_factor[STENC_HASH_MAX_FUNCTIONS + 1] = {0, 0, 2.1, 1.1, 1.03, 1.02};

double stenc_hash_min_size_factor(int hash_functions) {
    if (hash_functions < STENC_HASH_MIN_FUNCTIONS || hash_functions > STENC_HASH_MAX_FUNCTIONS)
        return 0;
    return min_size_factor[hash_functions];
}

stenc_hash_config stenc_hash_config_default(stenc_hash_kind kind) {
    stenc_hash_config c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.key_type = STENC_U32;
    c.hash_functions = 4;
    c.size_factor = 1.25;
    c.max_attempts = 8;
    c.max_chain = 0;
    c.seed = 0x5eed5eed12345678ull;
    c.duplicates = STENC_HASH_DUPLICATES_REJECT;
    c.layout = STENC_HASH_DEFAULT_LAYOUT;
    c.partition = STENC_HASH_PARTITION_AUTO;
    return c;
}

static size_t key_bytes(const stenc_hash_table *t) {
    return t->cfg.key_type == STENC_U64 ? 8 : 4;
}

static void state_free(stenc_ctx *ctx, hash_state *s) {
    stenc_free(ctx, s->slots);
    stenc_free(ctx, s->unique_keys);
    stenc_free(ctx, s->info);
    stenc_free(ctx, s->values);
    memset(s, 0, sizeof *s);
}

static void state_empty(const stenc_hash_table *t, hash_state *s) {
    memset(s, 0, sizeof *s);
    s->g.d = t->cfg.hash_functions;
    s->g.wide = t->cfg.key_type == STENC_U64;
    s->g.bucket = t->cfg.layout == STENC_HASH_LAYOUT_BUCKETS
                      ? (int)(HASH_BUCKET_BYTES / hash_slot_bytes(&s->g))
                      : 1;
}

static stenc_status check_config(const stenc_hash_config *c) {
    STENC_REQUIRE((unsigned)c->kind < STENC_HASH_KIND_COUNT, "stenc_hash_create: bad kind %d",
                  (int)c->kind);
    STENC_REQUIRE(c->key_type == STENC_U32 || c->key_type == STENC_U64,
                  "stenc_hash_create: key_type %s is not u32 or u64", stenc_type_name(c->key_type));
    if (c->key_type == STENC_U64 && c->kind != STENC_HASH_MAP && c->kind != STENC_HASH_SET)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_hash_create: 64-bit keys are supported by MAP and SET only");
    STENC_REQUIRE(c->hash_functions >= STENC_HASH_MIN_FUNCTIONS &&
                      c->hash_functions <= STENC_HASH_MAX_FUNCTIONS,
                  "stenc_hash_create: %d hash functions (2..5 allowed)", c->hash_functions);
    double min_f = stenc_hash_min_size_factor(c->hash_functions);
    STENC_REQUIRE(c->size_factor >= min_f && c->size_factor <= 1e6,
                  "stenc_hash_create: size factor %g is too small for %d hash functions "
                  "(at least %g)",
                  c->size_factor, c->hash_functions, min_f);
    STENC_REQUIRE(c->max_attempts >= 1, "stenc_hash_create: max_attempts %d < 1", c->max_attempts);
    STENC_REQUIRE((unsigned)c->duplicates < STENC_HASH_DUPLICATES_COUNT,
                  "stenc_hash_create: bad duplicates policy %d", (int)c->duplicates);
    STENC_REQUIRE((unsigned)c->layout < STENC_HASH_LAYOUT_COUNT, "stenc_hash_create: bad layout %d",
                  (int)c->layout);
    STENC_REQUIRE((unsigned)c->partition < STENC_HASH_PARTITION_COUNT,
                  "stenc_hash_create: bad partition setting %d", (int)c->partition);
    return STENC_OK;
}

static const stenc_handle_kind table_kind = {"hash table"};

/* A live table of a live context. */
static stenc_status check_table(const stenc_hash_table *t, const char *fn) {
    STENC_TRY(stenc_handle_check(t, &table_kind, fn, "table"));
    if (stenc_ctx_check(t->ctx, fn) != STENC_OK)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: the table's context was destroyed (a context must outlive its "
                           "tables)",
                           fn);
    return STENC_OK;
}

stenc_status stenc_hash_create(stenc_ctx *ctx, const stenc_hash_config *config,
                               stenc_hash_table **table) {
    STENC_REQUIRE(table != NULL, "stenc_hash_create: table is NULL");
    *table = NULL;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_hash_create"));
    STENC_TRY(stenc_ctx_require_cpu_or_cuda(ctx, "stenc_hash_create"));
    stenc_hash_config cfg = config ? *config : stenc_hash_config_default(STENC_HASH_MAP);
    STENC_TRY(check_config(&cfg));
    const hash_backend *be =
        stenc_ctx_device(ctx) == STENC_DEVICE_CUDA ? hash_cuda_backend() : hash_cpu_backend();
    if (!be)
        return STENC_ERROR(STENC_ERR_NO_DEVICE,
                           "stenc_hash_create: a CUDA context, but stenc was built without CUDA");
    stenc_hash_table *t = stenc_host_alloc(sizeof *t);
    if (!t) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_hash_create: host memory");
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    t->be = be;
    t->cfg = cfg;
    state_empty(t, &t->st);
    stenc_status st = stenc_handle_add(t, &table_kind, "stenc_hash_create");
    if (st != STENC_OK) {
        stenc_host_free(t);
        return st;
    }
    *table = t;
    return STENC_OK;
}

stenc_status stenc_hash_destroy(stenc_hash_table *table) {
    if (!table) return STENC_OK;
    STENC_TRY(stenc_handle_remove(table, &table_kind, "stenc_hash_destroy", "table"));
    /* The table's memory belongs to its context: without it, it can only be leaked. */
    stenc_status st = STENC_OK;
    if (stenc_ctx_live(table->ctx)) {
        state_free(table->ctx, &table->st);
        stenc_free(table->ctx, table->scratch.p);
    } else {
        st = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                         "stenc_hash_destroy: the table's context was destroyed first, so its "
                         "memory could not be freed (leaked)");
    }
    stenc_host_free(table);
    return st;
}

stenc_status stenc_hash_trim(stenc_hash_table *table) {
    if (!table) return STENC_OK;
    STENC_TRY(check_table(table, "stenc_hash_trim"));
    stenc_free(table->ctx, table->scratch.p);
    table->scratch.p = NULL;
    table->scratch.bytes = 0;
    return STENC_OK;
}

/* The partition scratch the backend may use: none when the config turns partitioning off. */
static hash_scratch *partition_scratch(stenc_hash_table *t) {
    return t->cfg.partition == STENC_HASH_PARTITION_OFF ? NULL : &t->scratch;
}

/* Fresh, reproducible constants for every build attempt. */
static void draw_constants(const stenc_hash_table *t, uint64_t attempt, hash_geom *g) {
    uint64_t s = t->cfg.seed ^ (attempt * 0xa0761d6478bd642full);
    for (int i = 0; i < STENC_HASH_MAX_FUNCTIONS; i++) {
        g->a[i] = stenc_splitmix64(&s) | 1u;
        g->b[i] = stenc_splitmix64(&s);
    }
}

static uint32_t chain_limit(const stenc_hash_config *c, size_t n) {
    if (c->max_chain) return c->max_chain;
    uint32_t lg = 0;
    while (lg < 64 && ((size_t)1 << lg) < n)
        lg++;
    uint32_t chain = HASH_CHAIN_PER_LG * lg;
    if (c->size_factor < HASH_NEAR_MIN_FACTOR * stenc_hash_min_size_factor(c->hash_functions))
        chain *= HASH_NEAR_MIN_CHAIN_SCALE;
    return chain < HASH_CHAIN_FLOOR ? HASH_CHAIN_FLOOR : chain;
}

/* Slots for n keys: size_factor * n, at least HASH_MIN_SLOTS, rounded up to whole buckets. */
static stenc_status slots_for(const stenc_hash_table *t, size_t n, int bucket, const char *fn,
                              uint32_t *capacity) {
    double want = ceil(t->cfg.size_factor * (double)n);
    if (want < HASH_MIN_SLOTS) want = HASH_MIN_SLOTS;
    want = ceil(want / bucket) * bucket;
    if (want > (double)UINT32_MAX)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: %zu keys at size factor %g need more than 2^32-1 slots", fn, n,
                           t->cfg.size_factor);
    *capacity = (uint32_t)want;
    return STENC_OK;
}

/* Cuckoo-build keys/values (n of them) into s, restarting with fresh constants until every
 * insertion succeeds; then remove repeated keys. Leaves s with slots and count, or empty. */
static stenc_status build_slots(stenc_hash_table *t, const void *keys, const uint32_t *values,
                                size_t n, const char *fn, hash_state *s, void *reuse,
                                size_t reuse_bytes) {
    state_empty(t, s);
    stenc_status st = slots_for(t, n, s->g.bucket, fn, &s->g.capacity);
    if (st != STENC_OK) {
        stenc_free(t->ctx, reuse);
        return st;
    }
    s->g.buckets = s->g.capacity / (uint32_t)s->g.bucket;
    s->g.max_chain = chain_limit(&t->cfg, n);
    const size_t need = (size_t)s->g.capacity * hash_slot_bytes(&s->g);
    if (reuse && reuse_bytes >= need) { /* a rebuild of the same size keeps its memory */
        s->slots = reuse;
        s->slots_bytes = reuse_bytes;
    } else {
        stenc_free(t->ctx, reuse);
        STENC_TRY(stenc_malloc(t->ctx, &s->slots, need));
        s->slots_bytes = need;
    }
    t->stats.last_attempts = 0;
    for (int attempt = 0; attempt < t->cfg.max_attempts; attempt++) {
        draw_constants(t, t->stats.builds, &s->g);
        t->stats.builds++;
        t->stats.last_attempts = attempt + 1;
        hash_insert_result r = {0, 0};
        /* fresh: the backend clears the slots, or writes every one */
        if ((st = t->be->insert(t->ctx, &s->g, s->slots, keys, values, NULL, n, 1,
                                partition_scratch(t), &r)) != STENC_OK)
            goto fail;
        if (r.reserved) {
            st = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                             "%s: %llu keys equal the reserved empty key", fn,
                             (unsigned long long)r.reserved);
            goto fail;
        }
        if (r.failed == 0) {
            size_t erased = 0;
            if ((st = t->be->dedupe(t->ctx, &s->g, s->slots, &s->count, &erased)) != STENC_OK)
                goto fail;
            s->g.holes = erased != 0;
            s->value_count = s->count;
            return STENC_OK;
        }
        t->stats.restarts++;
    }
    st = STENC_ERROR(STENC_ERR_CAPACITY,
                     "%s: %zu keys did not fit in %u slots with %d hash functions after %d "
                     "attempts (chain limit %u); use a larger size factor or more attempts",
                     fn, n, s->g.capacity, s->g.d, t->cfg.max_attempts, s->g.max_chain);
fail:
    state_free(t->ctx, s);
    state_empty(t, s);
    return st;
}

/* A whole build of any kind into s (not installed). `reuse` (may be NULL) is slot memory that
 * the build owns from here on. */
static stenc_status build_state(stenc_hash_table *t, const void *keys, const uint32_t *values,
                                size_t n, const char *fn, hash_state *s, void *reuse,
                                size_t reuse_bytes) {
    const stenc_hash_kind kind = t->cfg.kind;
    const uint32_t *slot_values = kind == STENC_HASH_MAP ? values : NULL;
    STENC_TRY(build_slots(t, keys, slot_values, n, fn, s, reuse, reuse_bytes));
    stenc_status st = STENC_OK;
    if (kind == STENC_HASH_MAP && s->count < n) {
        if (t->cfg.duplicates == STENC_HASH_DUPLICATES_REJECT) {
            st = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                             "%s: %zu of %zu keys repeat an earlier key (the table rejects "
                             "duplicates; use STENC_HASH_DUPLICATES_MIN_VALUE to keep the "
                             "smallest value)",
                             fn, n - s->count, n);
            goto fail;
        }
        if ((st = t->be->apply_min(t->ctx, &s->g, s->slots, keys, values, n)) != STENC_OK)
            goto fail;
    }
    if (kind == STENC_HASH_COMPACT || kind == STENC_HASH_MULTI) {
        if ((st = stenc_malloc(t->ctx, &s->unique_keys, s->count * key_bytes(t))) != STENC_OK)
            goto fail;
        if ((st = t->be->assign_ids(t->ctx, &s->g, s->slots, s->unique_keys, s->count)) != STENC_OK)
            goto fail;
    }
    if (kind == STENC_HASH_MULTI) {
        s->value_count = n;
        if ((st = stenc_malloc(t->ctx, (void **)&s->info, 2 * s->count * sizeof(uint32_t))) !=
            STENC_OK)
            goto fail;
        if ((st = stenc_malloc(t->ctx, (void **)&s->values, n * sizeof(uint32_t))) != STENC_OK)
            goto fail;
        if ((st = t->be->multi_fill(t->ctx, &s->g, s->slots, keys, values, n, s->count, s->info,
                                    s->values)) != STENC_OK)
            goto fail;
        /* The key list was only needed to number the keys. */
        stenc_free(t->ctx, s->unique_keys);
        s->unique_keys = NULL;
    }
    return STENC_OK;
fail:
    state_free(t->ctx, s);
    state_empty(t, s);
    return st;
}

static stenc_status check_input(const stenc_hash_table *t, const void *keys, const uint32_t *values,
                                size_t n, const char *fn) {
    STENC_TRY(check_table(t, fn));
    STENC_REQUIRE(n == 0 || keys != NULL, "%s: keys is NULL for %zu keys", fn, n);
    int needs_values = t->cfg.kind == STENC_HASH_MAP || t->cfg.kind == STENC_HASH_MULTI;
    STENC_REQUIRE(n == 0 || !needs_values || values != NULL, "%s: values is NULL for %zu keys", fn,
                  n);
    STENC_REQUIRE(n <= UINT32_MAX, "%s: %zu keys (at most 2^32-1)", fn, n);
    return STENC_OK;
}

stenc_status stenc_hash_build(stenc_hash_table *table, const void *keys, const uint32_t *values,
                              size_t n) {
    STENC_TRY(check_input(table, keys, values, n, "stenc_hash_build"));
    /* The old contents go either way (replaced on success, emptied on failure); their slot
     * memory is reused when it is large enough, so repeated builds do not reallocate. */
    void *reuse = table->st.slots;
    size_t reuse_bytes = table->st.slots_bytes;
    table->st.slots = NULL;
    state_free(table->ctx, &table->st);
    state_empty(table, &table->st);
    hash_state fresh;
    stenc_status st =
        build_state(table, keys, values, n, "stenc_hash_build", &fresh, reuse, reuse_bytes);
    table->st = fresh;
    return st;
}

/* Insert by rebuilding from the stored entries and the new ones; installs only on success. */
static stenc_status insert_by_rebuild(stenc_hash_table *t, const void *keys, const uint32_t *values,
                                      size_t n) {
    const size_t kb = key_bytes(t), old = t->st.count, total = old + n;
    void *all_keys = NULL;
    uint32_t *all_values = NULL;
    hash_state fresh;
    state_empty(t, &fresh);
    stenc_status st = stenc_malloc(t->ctx, &all_keys, total * kb);
    if (st == STENC_OK) st = stenc_malloc(t->ctx, (void **)&all_values, total * 4);
    if (st == STENC_OK && old)
        st = t->be->gather(t->ctx, &t->st.g, t->st.slots, all_keys, all_values, old);
    if (st == STENC_OK) st = stenc_memcpy(t->ctx, (char *)all_keys + old * kb, keys, n * kb);
    if (st == STENC_OK && values) st = stenc_memcpy(t->ctx, all_values + old, values, n * 4);
    if (st == STENC_OK)
        st = build_state(t, all_keys, t->cfg.kind == STENC_HASH_MAP ? all_values : NULL, total,
                         "stenc_hash_insert", &fresh, NULL, 0);
    stenc_free(t->ctx, all_keys);
    stenc_free(t->ctx, all_values);
    if (st != STENC_OK) return st;
    state_free(t->ctx, &t->st);
    t->st = fresh;
    t->stats.rebuilds++;
    return STENC_OK;
}

stenc_status stenc_hash_insert(stenc_hash_table *table, const void *keys, const uint32_t *values,
                               size_t n) {
    const char *fn = "stenc_hash_insert";
    STENC_TRY(check_input(table, keys, values, n, fn));
    stenc_hash_table *t = table;
    if (t->cfg.kind != STENC_HASH_MAP && t->cfg.kind != STENC_HASH_SET)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: only MAP and SET tables take insertions (ids and value lists of "
                           "COMPACT and MULTI are fixed at build)",
                           fn);
    if (n == 0) return STENC_OK;
    const int is_map = t->cfg.kind == STENC_HASH_MAP;
    const uint32_t *slot_values = is_map ? values : NULL;
    if (t->st.slots == NULL) { /* empty: an insert is a build, and a failed one stays empty */
        hash_state fresh;
        STENC_TRY(build_state(t, keys, values, n, fn, &fresh, NULL, 0));
        t->st = fresh;
        return STENC_OK;
    }

    /* Keys already stored are not inserted again: they are duplicates of the old contents. */
    uint8_t *present = NULL;
    STENC_TRY(stenc_malloc(t->ctx, (void **)&present, n));
    size_t found = 0;
    hash_state work;
    state_empty(t, &work);
    stenc_status st = t->be->find(t->ctx, &t->st.g, t->st.slots, keys, n, NULL, present, &found);
    if (st != STENC_OK) goto done;
    if (is_map && found && t->cfg.duplicates == STENC_HASH_DUPLICATES_REJECT) {
        st = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                         "%s: %zu of %zu keys are already in the table (it rejects duplicates)", fn,
                         found, n);
        goto done;
    }
    if ((double)(t->st.count + n - found) * t->cfg.size_factor > (double)t->st.g.capacity) {
        st = insert_by_rebuild(t, keys, values, n); /* grow */
        goto done;
    }
    /* In place, on a copy, so that a failure leaves the table as it was. */
    work.g = t->st.g;
    const size_t bytes = (size_t)work.g.capacity * hash_slot_bytes(&work.g);
    if ((st = stenc_malloc(t->ctx, &work.slots, bytes)) != STENC_OK) goto done;
    work.slots_bytes = bytes;
    if ((st = stenc_memcpy(t->ctx, work.slots, t->st.slots, bytes)) != STENC_OK) goto done;
    work.g.max_chain = chain_limit(&t->cfg, t->st.count + n);
    hash_insert_result r = {0, 0};
    st = t->be->insert(t->ctx, &work.g, work.slots, keys, slot_values, present, n, 0,
                       partition_scratch(t), &r);
    if (st != STENC_OK) goto done;
    if (r.reserved) {
        st = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: %llu keys equal the reserved empty key",
                         fn, (unsigned long long)r.reserved);
        goto done;
    }
    if (r.failed) { /* a chain too long for these constants: rebuild with fresh ones */
        t->stats.restarts++;
        st = insert_by_rebuild(t, keys, values, n);
        goto done;
    }
    size_t erased = 0;
    if ((st = t->be->dedupe(t->ctx, &work.g, work.slots, &work.count, &erased)) != STENC_OK)
        goto done;
    work.g.holes |= erased != 0;
    const size_t expected = t->st.count + n - found;
    if (work.count < expected && is_map && t->cfg.duplicates == STENC_HASH_DUPLICATES_REJECT) {
        st = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                         "%s: %zu of %zu keys repeat another key of the batch (the table "
                         "rejects duplicates)",
                         fn, expected - work.count, n);
        goto done;
    }
    if (is_map && t->cfg.duplicates == STENC_HASH_DUPLICATES_MIN_VALUE &&
        (found || work.count < expected))
        if ((st = t->be->apply_min(t->ctx, &work.g, work.slots, keys, values, n)) != STENC_OK)
            goto done;
    t->stats.last_attempts = 1;
    work.value_count = work.count;
    state_free(t->ctx, &t->st);
    t->st = work;
    state_empty(t, &work);
done:
    state_free(t->ctx, &work);
    stenc_free(t->ctx, present);
    return st;
}

static stenc_status check_query(const stenc_hash_table *t, const void *queries, const void *out,
                                size_t n, const char *fn) {
    STENC_TRY(check_table(t, fn));
    /* The backends count queries in signed or 32-bit-grid terms: n must fit the query array
     * and the backend. */
    STENC_TRY(stenc_check_count(n, key_bytes(t), fn, "queries"));
    if (n > t->be->max_queries)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: %zu queries, at most %zu per call", fn,
                           n, t->be->max_queries);
    STENC_REQUIRE(n == 0 || (queries != NULL && out != NULL), "%s: NULL queries or output", fn);
    return STENC_OK;
}

stenc_status stenc_hash_find(const stenc_hash_table *table, const void *queries, uint32_t *results,
                             size_t n) {
    STENC_TRY(check_query(table, queries, results, n, "stenc_hash_find"));
    if (table->cfg.kind == STENC_HASH_MULTI)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_hash_find: a MULTI table answers stenc_hash_find_multi");
    if (n == 0) return STENC_OK;
    /* SET slots hold the value 0, COMPACT slots the id. */
    return table->be->find(table->ctx, &table->st.g, table->st.slots, queries, n, results, NULL,
                           NULL);
}

stenc_status stenc_hash_contains(const stenc_hash_table *table, const void *queries, uint8_t *found,
                                 size_t n) {
    STENC_TRY(check_query(table, queries, found, n, "stenc_hash_contains"));
    if (n == 0) return STENC_OK;
    return table->be->find(table->ctx, &table->st.g, table->st.slots, queries, n, NULL, found,
                           NULL);
}

stenc_status stenc_hash_find_multi(const stenc_hash_table *table, const void *queries,
                                   uint32_t *counts, uint32_t *offsets, size_t n) {
    STENC_TRY(check_query(table, queries, counts, n, "stenc_hash_find_multi"));
    STENC_REQUIRE(n == 0 || offsets != NULL, "stenc_hash_find_multi: offsets is NULL");
    if (table->cfg.kind != STENC_HASH_MULTI)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_hash_find_multi: the table is not a MULTI table");
    if (n == 0) return STENC_OK;
    return table->be->find_multi(table->ctx, &table->st.g, table->st.slots, table->st.info, queries,
                                 n, counts, offsets);
}

stenc_status stenc_hash_copy_keys(const stenc_hash_table *table, void *keys_out) {
    STENC_TRY(check_table(table, "stenc_hash_copy_keys"));
    if (table->cfg.kind != STENC_HASH_COMPACT)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_hash_copy_keys: only COMPACT tables keep their key list");
    if (table->st.count == 0) return STENC_OK;
    STENC_REQUIRE(keys_out != NULL, "stenc_hash_copy_keys: keys_out is NULL");
    return stenc_memcpy(table->ctx, keys_out, table->st.unique_keys,
                        table->st.count * key_bytes(table));
}

stenc_status stenc_hash_copy_values(const stenc_hash_table *table, uint32_t *values_out) {
    STENC_TRY(check_table(table, "stenc_hash_copy_values"));
    if (table->cfg.kind != STENC_HASH_MULTI)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_hash_copy_values: only MULTI tables keep a value list");
    if (table->st.value_count == 0) return STENC_OK;
    STENC_REQUIRE(values_out != NULL, "stenc_hash_copy_values: values_out is NULL");
    return stenc_memcpy(table->ctx, values_out, table->st.values,
                        table->st.value_count * sizeof(uint32_t));
}

/* Accessors return their NULL-argument value for a table that is not live (and record why). */
static int accessible(const stenc_hash_table *t, const char *fn) {
    return t && stenc_handle_check(t, &table_kind, fn, "table") == STENC_OK;
}

size_t stenc_hash_count(const stenc_hash_table *table) {
    return accessible(table, "stenc_hash_count") ? table->st.count : 0;
}
size_t stenc_hash_value_count(const stenc_hash_table *table) {
    return accessible(table, "stenc_hash_value_count") ? table->st.value_count : 0;
}
size_t stenc_hash_capacity(const stenc_hash_table *table) {
    return accessible(table, "stenc_hash_capacity") ? table->st.g.capacity : 0;
}
stenc_hash_config stenc_hash_get_config(const stenc_hash_table *table) {
    return accessible(table, "stenc_hash_get_config") ? table->cfg
                                                      : stenc_hash_config_default(STENC_HASH_MAP);
}
stenc_hash_stats stenc_hash_get_stats(const stenc_hash_table *table) {
    stenc_hash_stats s;
    memset(&s, 0, sizeof s);
    return accessible(table, "stenc_hash_get_stats") ? table->stats : s;
}
