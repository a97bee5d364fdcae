/* Test cases of the hash tables, written once against a context: test_hash.c runs them on the
 * CPU, test_hash_gpu.c on the GPU. Every expected answer comes from the input itself (keys
 * made distinct by a bijection, absent keys from outside its range, duplicates resolved by a
 * sort on the host), never from the table. */
#ifndef STENC_TEST_HASH_CASES_H
#define STENC_TEST_HASH_CASES_H

#include "test_util.h"
#include "stenc/hash.h"
#include "hash_backend.h" /* white-box cases: hand-made tables through a backend */

/* The slot layout every case runs on (each test program runs its cases once per layout). */
static stenc_hash_layout case_layout = STENC_HASH_LAYOUT_SLOTS;

static inline stenc_hash_config case_config(stenc_hash_kind kind) {
    stenc_hash_config c = stenc_hash_config_default(kind);
    c.layout = case_layout;
    return c;
}

static inline int set_layout_slots(void **state) {
    (void)state;
    case_layout = STENC_HASH_LAYOUT_SLOTS;
    return 0;
}
static inline int set_layout_buckets(void **state) {
    (void)state;
    case_layout = STENC_HASH_LAYOUT_BUCKETS;
    return 0;
}

/* A bijection of 32-bit words (odd multiply and xor-shifts are invertible), so perm32(i) are
 * distinct for distinct i. */
static inline uint32_t perm32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Distinct keys for i in [0, 2^31), never the reserved key; absent_key(i) is never a key(j). */
static inline uint32_t key_at(uint32_t i) {
    uint32_t k = perm32(i);
    return k == STENC_HASH_EMPTY_KEY32 ? perm32(0xfffffffeu) : k;
}
static inline uint32_t absent_key(uint32_t i) {
    return key_at(0x80000000u + i);
}

static inline uint64_t key64_at(uint64_t i) {
    /* Distinct in the high half and in the low half: both are bijections of i. */
    return ((uint64_t)perm32((uint32_t)i ^ 0x55555555u) << 32) | perm32((uint32_t)i);
}

/* Context memory holding a copy of host data. */
static inline void *to_ctx(stenc_ctx *ctx, const void *host, size_t bytes) {
    void *p = NULL;
    assert_stenc_ok(stenc_malloc(ctx, &p, bytes));
    if (bytes) assert_stenc_ok(stenc_upload(ctx, p, host, bytes));
    return p;
}

static inline void from_ctx(stenc_ctx *ctx, void *host, const void *dev, size_t bytes) {
    if (bytes) assert_stenc_ok(stenc_download(ctx, host, dev, bytes));
}

/* Poisoned output buffer in context memory, so an unwritten element shows. */
static inline void *poisoned(stenc_ctx *ctx, size_t bytes) {
    void *host = malloc(bytes ? bytes : 1);
    memset(host, 0xa5, bytes);
    void *p = to_ctx(ctx, host, bytes);
    free(host);
    return p;
}

/* find + contains for host queries; host results. */
static inline stenc_status query(stenc_ctx *ctx, const stenc_hash_table *t, const void *q, size_t n,
                                 size_t kb, uint32_t *res, uint8_t *found) {
    void *dq = to_ctx(ctx, q, n * kb);
    uint32_t *dr = poisoned(ctx, n * 4);
    uint8_t *df = poisoned(ctx, n);
    stenc_status st = stenc_hash_find(t, dq, dr, n);
    if (st == STENC_OK) st = stenc_hash_contains(t, dq, df, n);
    if (st == STENC_OK) {
        from_ctx(ctx, res, dr, n * 4);
        from_ctx(ctx, found, df, n);
    }
    stenc_free(ctx, dq);
    stenc_free(ctx, dr);
    stenc_free(ctx, df);
    return st;
}

static inline stenc_status build_host(stenc_ctx *ctx, stenc_hash_table *t, const void *keys,
                                      const uint32_t *values, size_t n, size_t kb) {
    void *dk = to_ctx(ctx, keys, n * kb);
    void *dv = values ? to_ctx(ctx, values, n * 4) : NULL;
    stenc_status st = stenc_hash_build(t, dk, dv, n);
    stenc_free(ctx, dk);
    stenc_free(ctx, dv);
    return st;
}

static inline stenc_status insert_host(stenc_ctx *ctx, stenc_hash_table *t, const void *keys,
                                       const uint32_t *values, size_t n, size_t kb) {
    void *dk = to_ctx(ctx, keys, n * kb);
    void *dv = values ? to_ctx(ctx, values, n * 4) : NULL;
    stenc_status st = stenc_hash_insert(t, dk, dv, n);
    stenc_free(ctx, dk);
    stenc_free(ctx, dv);
    return st;
}

static inline stenc_hash_table *make_table(stenc_ctx *ctx, stenc_hash_kind kind, int d,
                                           double factor) {
    stenc_hash_config c = case_config(kind);
    c.hash_functions = d;
    c.size_factor = factor;
    stenc_hash_table *t = NULL;
    assert_stenc_ok(stenc_hash_create(ctx, &c, &t));
    return t;
}

/* Build a MAP of n distinct keys and query it with a miss fraction of miss_pct percent. Every
 * element is checked. */
static inline void case_map_roundtrip(stenc_ctx *ctx, size_t n, int d, double factor, int miss_pct,
                                      uint64_t seed) {
    stenc_hash_table *t = make_table(ctx, STENC_HASH_MAP, d, factor);
    uint32_t *keys = malloc((n ? n : 1) * 4), *values = malloc((n ? n : 1) * 4);
    test_rng rng = test_rng_seeded(seed);
    for (size_t i = 0; i < n; i++) {
        keys[i] = key_at((uint32_t)i + (uint32_t)seed * 7919u);
        values[i] = (uint32_t)test_rng_u64(&rng);
    }
    assert_stenc_ok(build_host(ctx, t, keys, values, n, 4));
    assert_int_equal(stenc_hash_count(t), n);
    assert_true(stenc_hash_capacity(t) >= (size_t)(factor * (double)n));
    /* Queries: at least one, a fraction absent, in shuffled order. */
    size_t m = n ? n : 16;
    uint32_t *q = malloc(m * 4), *expect = malloc(m * 4), *res = malloc(m * 4);
    uint8_t *found = malloc(m), *hit = malloc(m);
    for (size_t i = 0; i < m; i++) {
        hit[i] = n != 0 && (int)(test_rng_u64(&rng) % 100) >= miss_pct;
        size_t j = n ? test_rng_u64(&rng) % n : 0;
        q[i] = hit[i] ? keys[j] : absent_key((uint32_t)i);
        expect[i] = hit[i] ? values[j] : STENC_HASH_NOT_FOUND;
    }
    assert_stenc_ok(query(ctx, t, q, m, 4, res, found));
    size_t bad = 0;
    for (size_t i = 0; i < m; i++)
        bad += res[i] != expect[i] || found[i] != hit[i];
    if (bad)
        fail_msg("n=%zu d=%d factor=%g miss=%d%%: %zu of %zu queries wrong", n, d, factor, miss_pct,
                 bad, m);
    free(hit);
    free(q);
    free(expect);
    free(res);
    free(found);
    free(keys);
    free(values);
    stenc_hash_destroy(t);
}

/* Keys chosen to collide under weak hashes: all equal modulo the table size, consecutive, and
 * multiples of a large power of two. */
static inline void case_adversarial(stenc_ctx *ctx, size_t n) {
    for (int pattern = 0; pattern < 3; pattern++) {
        stenc_hash_table *t = make_table(ctx, STENC_HASH_MAP, 4, 1.25);
        uint32_t cap = (uint32_t)ceil(1.25 * (double)n);
        uint32_t *keys = malloc(n * 4), *values = malloc(n * 4), *res = malloc(n * 4);
        uint8_t *found = malloc(n);
        for (size_t i = 0; i < n; i++) {
            keys[i] = pattern == 0   ? 17u + (uint32_t)i * cap
                      : pattern == 1 ? 1000000u + (uint32_t)i
                                     : (uint32_t)i << 12;
            values[i] = (uint32_t)i * 3u + 1u;
        }
        assert_stenc_ok(build_host(ctx, t, keys, values, n, 4));
        assert_stenc_ok(query(ctx, t, keys, n, 4, res, found));
        for (size_t i = 0; i < n; i++) {
            if (res[i] != values[i] || !found[i])
                fail_msg("pattern %d: key %u -> %u, expected %u", pattern, keys[i], res[i],
                         values[i]);
        }
        free(keys);
        free(values);
        free(res);
        free(found);
        stenc_hash_destroy(t);
    }
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Pairs sorted by key then value: the host reference for duplicates. */
typedef struct pair32 {
    uint32_t key, value;
} pair32;
static int cmp_pair(const void *a, const void *b) {
    const pair32 *x = a, *y = b;
    if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
    return (x->value > y->value) - (x->value < y->value);
}

/* n pairs over about n/mult distinct keys. */
static inline void repeated_input(size_t n, size_t mult, uint64_t seed, uint32_t *keys,
                                  uint32_t *values) {
    test_rng rng = test_rng_seeded(seed);
    size_t distinct = n / mult ? n / mult : 1;
    for (size_t i = 0; i < n; i++) {
        keys[i] = key_at((uint32_t)(test_rng_u64(&rng) % distinct));
        values[i] = (uint32_t)(test_rng_u64(&rng) % 1000000u);
    }
}

/* Duplicates: REJECT fails and leaves the table empty; MIN_VALUE stores each key's minimum. */
static inline void case_duplicates(stenc_ctx *ctx, size_t n, size_t mult) {
    uint32_t *keys = malloc(n * 4), *values = malloc(n * 4), *res = malloc(n * 4);
    uint8_t *found = malloc(n);
    repeated_input(n, mult, 99, keys, values);
    pair32 *ref = malloc(n * sizeof *ref);
    for (size_t i = 0; i < n; i++)
        ref[i] = (pair32){keys[i], values[i]};
    qsort(ref, n, sizeof *ref, cmp_pair);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++)
        unique += i == 0 || ref[i].key != ref[i - 1].key;

    stenc_hash_table *t = make_table(ctx, STENC_HASH_MAP, 4, 1.25);
    stenc_clear_error();
    assert_int_equal(build_host(ctx, t, keys, values, n, 4), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "repeat"));
    assert_int_equal(stenc_hash_count(t), 0);
    assert_stenc_ok(query(ctx, t, keys, n, 4, res, found));
    for (size_t i = 0; i < n; i++)
        assert_int_equal(found[i], 0);
    stenc_hash_destroy(t);

    stenc_hash_config c = case_config(STENC_HASH_MAP);
    c.duplicates = STENC_HASH_DUPLICATES_MIN_VALUE;
    assert_stenc_ok(stenc_hash_create(ctx, &c, &t));
    assert_stenc_ok(build_host(ctx, t, keys, values, n, 4));
    assert_int_equal(stenc_hash_count(t), unique);
    uint32_t *uk = malloc(unique * 4), *umin = malloc(unique * 4);
    for (size_t i = 0, u = 0; i < n; i++)
        if (i == 0 || ref[i].key != ref[i - 1].key) {
            uk[u] = ref[i].key;
            umin[u++] = ref[i].value; /* sorted by value within a key: the first is the min */
        }
    assert_stenc_ok(query(ctx, t, uk, unique, 4, res, found));
    for (size_t u = 0; u < unique; u++)
        if (res[u] != umin[u] || !found[u])
            fail_msg("key %u: value %u, expected the minimum %u", uk[u], res[u], umin[u]);
    stenc_hash_destroy(t);

    /* SET: repeated keys are stored once, and members find the value 0. */
    t = make_table(ctx, STENC_HASH_SET, 4, 1.25);
    assert_stenc_ok(build_host(ctx, t, keys, NULL, n, 4));
    assert_int_equal(stenc_hash_count(t), unique);
    assert_stenc_ok(query(ctx, t, uk, unique, 4, res, found));
    for (size_t u = 0; u < unique; u++)
        assert_true(res[u] == 0 && found[u] == 1);
    stenc_hash_destroy(t);
    free(uk);
    free(umin);
    free(ref);
    free(keys);
    free(values);
    free(res);
    free(found);
}

/* The reserved key is refused by build and insert, and queried it is absent. */
static inline void case_reserved_key(stenc_ctx *ctx) {
    stenc_hash_table *t = make_table(ctx, STENC_HASH_MAP, 4, 1.25);
    uint32_t keys[4] = {1, 2, 3, 4}, values[4] = {10, 20, 30, 40}, res[5];
    uint8_t found[5];
    assert_stenc_ok(build_host(ctx, t, keys, values, 4, 4));
    uint32_t bad[3] = {7, STENC_HASH_EMPTY_KEY32, 8};
    stenc_clear_error();
    assert_int_equal(insert_host(ctx, t, bad, values, 3, 4), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "reserved"));
    /* A failed insert leaves the table as it was. */
    uint32_t q[5] = {1, 2, 3, 4, 7};
    assert_stenc_ok(query(ctx, t, q, 5, 4, res, found));
    for (int i = 0; i < 4; i++)
        assert_int_equal(res[i], values[i]);
    assert_int_equal(res[4], STENC_HASH_NOT_FOUND);
    assert_int_equal(stenc_hash_count(t), 4);
    /* Querying the reserved key must not match an empty slot. */
    uint32_t e = STENC_HASH_EMPTY_KEY32;
    assert_stenc_ok(query(ctx, t, &e, 1, 4, res, found));
    assert_int_equal(res[0], STENC_HASH_NOT_FOUND);
    assert_int_equal(found[0], 0);
    /* A failed build leaves the table empty. */
    assert_int_equal(build_host(ctx, t, bad, values, 3, 4), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_hash_count(t), 0);
    assert_stenc_ok(query(ctx, t, q, 5, 4, res, found));
    for (int i = 0; i < 5; i++)
        assert_int_equal(found[i], 0);
    stenc_hash_destroy(t);
}

/* A build that cannot succeed (a chain limit of one eviction): CAPACITY, a message, an empty
 * valid table, the input untouched, and the same table object builds again afterwards. */
static inline void case_failure_path(stenc_ctx *ctx) {
    /* BUCKETS places 1000 keys at factor 2.1 without evictions; at 98% load (d = 5 at its
     * minimum factor) the last thousands of keys each need a chain, and one eviction is never
     * enough for all of them. */
    const int buckets = case_layout == STENC_HASH_LAYOUT_BUCKETS;
    const size_t n = buckets ? 100000 : 1000;
    stenc_hash_config c = case_config(STENC_HASH_MAP);
    c.max_chain = 1;
    c.max_attempts = 3;
    c.hash_functions = buckets ? 5 : 2;
    c.size_factor = stenc_hash_min_size_factor(c.hash_functions);
    stenc_hash_table *t = NULL;
    assert_stenc_ok(stenc_hash_create(ctx, &c, &t));
    uint32_t *keys = malloc(n * 4), *values = malloc(n * 4), *res = malloc(n * 4);
    uint8_t *found = malloc(n);
    for (size_t i = 0; i < n; i++) {
        keys[i] = key_at((uint32_t)i);
        values[i] = (uint32_t)i;
    }
    /* First a small build that fits, to see that a failure replaces it by an empty table. */
    assert_stenc_ok(build_host(ctx, t, keys, values, 1, 4));
    void *dk = to_ctx(ctx, keys, n * 4), *dv = to_ctx(ctx, values, n * 4);
    stenc_clear_error();
    assert_int_equal(stenc_hash_build(t, dk, dv, n), STENC_ERR_CAPACITY);
    assert_non_null(strstr(stenc_last_error(), "attempts"));
    assert_int_equal(stenc_hash_get_stats(t).last_attempts, 3);
    assert_int_equal(stenc_hash_count(t), 0);
    uint32_t *back = malloc(n * 4);
    from_ctx(ctx, back, dk, n * 4);
    assert_memory_equal(back, keys, n * 4);
    assert_stenc_ok(query(ctx, t, keys, n, 4, res, found));
    for (size_t i = 0; i < n; i++)
        assert_true(found[i] == 0 && res[i] == STENC_HASH_NOT_FOUND);
    /* Insertion that cannot fit either: the table keeps what it had. */
    assert_stenc_ok(build_host(ctx, t, keys, values, 2, 4));
    assert_int_equal(stenc_hash_insert(t, (uint32_t *)dk + 2, (uint32_t *)dv + 2, n - 2),
                     STENC_ERR_CAPACITY);
    assert_int_equal(stenc_hash_count(t), 2);
    assert_stenc_ok(query(ctx, t, keys, n, 4, res, found));
    for (size_t i = 0; i < n; i++)
        assert_true(found[i] == (i < 2) && res[i] == (i < 2 ? values[i] : STENC_HASH_NOT_FOUND));
    stenc_hash_destroy(t);
    /* A factor below the minimum for d is an argument error at create. */
    c = case_config(STENC_HASH_MAP);
    c.size_factor = 1.01;
    stenc_clear_error();
    assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_INVALID_ARGUMENT);
    assert_null(t);
    assert_non_null(strstr(stenc_last_error(), "too small"));
    stenc_free(ctx, dk);
    stenc_free(ctx, dv);
    free(back);
    free(keys);
    free(values);
    free(res);
    free(found);
}

/* A count that no array can have is an argument error naming the call and its limit, on
 * every backend, however the backend counts internally (a signed or 32-bit count of SIZE_MAX
 * is -1); nothing is written and the table keeps its keys. */
static inline void case_count_limits(stenc_ctx *ctx) {
    for (int wide = 0; wide <= 1; wide++) {
        const size_t kb = wide ? 8 : 4, first_bad = (size_t)PTRDIFF_MAX / kb + 1;
        const size_t huge[] = {SIZE_MAX, SIZE_MAX / 2 + 1, first_bad};
        stenc_hash_config c = case_config(wide ? STENC_HASH_SET : STENC_HASH_MULTI);
        c.key_type = wide ? STENC_U64 : STENC_U32;
        stenc_hash_table *t = NULL;
        assert_stenc_ok(stenc_hash_create(ctx, &c, &t));
        const uint64_t keys[2] = {key64_at(1), key64_at(2)};
        const uint32_t values[2] = {7, 8};
        assert_stenc_ok(build_host(ctx, t, keys, values, 2, kb)); /* 32-bit: reads the low ones */
        void *q = to_ctx(ctx, keys, sizeof keys);
        uint32_t *out = poisoned(ctx, 64), *out2 = poisoned(ctx, 64), back[16];
        for (size_t h = 0; h < sizeof huge / sizeof *huge; h++) {
            const size_t n = huge[h];
            stenc_clear_error();
            if (!wide) {
                assert_int_equal(stenc_hash_find_multi(t, q, out, out2, n),
                                 STENC_ERR_INVALID_ARGUMENT);
                assert_non_null(strstr(stenc_last_error(), "stenc_hash_find_multi"));
            } else {
                assert_int_equal(stenc_hash_find(t, q, out, n), STENC_ERR_INVALID_ARGUMENT);
                assert_non_null(strstr(stenc_last_error(), "stenc_hash_find"));
            }
            assert_non_null(strstr(stenc_last_error(), "at most"));
            assert_int_equal(stenc_hash_contains(t, q, (uint8_t *)out, n),
                             STENC_ERR_INVALID_ARGUMENT);
            assert_non_null(strstr(stenc_last_error(), "stenc_hash_contains"));
            assert_int_equal(stenc_hash_build(t, q, out, n), STENC_ERR_INVALID_ARGUMENT);
            assert_non_null(strstr(stenc_last_error(), "2^32-1"));
            if (wide) {
                assert_int_equal(stenc_hash_insert(t, q, out, n), STENC_ERR_INVALID_ARGUMENT);
                assert_non_null(strstr(stenc_last_error(), "stenc_hash_insert"));
            }
        }
        from_ctx(ctx, back, out, 64);
        for (int i = 0; i < 16; i++)
            assert_int_equal(back[i], 0xa5a5a5a5u);
        assert_int_equal(stenc_hash_count(t), 2);
        stenc_free(ctx, q);
        stenc_free(ctx, out);
        stenc_free(ctx, out2);
        stenc_hash_destroy(t);
    }
}

/* Insertion in batches (in place, and growing), with duplicates of stored keys. */
static inline void case_insert(stenc_ctx *ctx, size_t n0, size_t batch, int batches) {
    stenc_hash_config c = case_config(STENC_HASH_MAP);
    c.duplicates = STENC_HASH_DUPLICATES_MIN_VALUE;
    stenc_hash_table *t = NULL;
    assert_stenc_ok(stenc_hash_create(ctx, &c, &t));
    size_t total = n0 + batch * (size_t)batches;
    uint32_t *keys = malloc(total * 4), *values = malloc(total * 4), *res = malloc(total * 4);
    uint8_t *found = malloc(total);
    for (size_t i = 0; i < total; i++) {
        keys[i] = key_at((uint32_t)i + 5000000u);
        values[i] = 100u + (uint32_t)i;
    }
    assert_stenc_ok(build_host(ctx, t, keys, values, n0, 4));
    for (int b = 0; b < batches; b++) {
        const size_t at = n0 + batch * (size_t)b;
        assert_stenc_ok(insert_host(ctx, t, keys + at, values + at, batch, 4));
        assert_int_equal(stenc_hash_count(t), at + batch);
    }
    assert_stenc_ok(query(ctx, t, keys, total, 4, res, found));
    for (size_t i = 0; i < total; i++)
        if (res[i] != values[i] || !found[i]) fail_msg("key %zu lost after inserts", i);
    /* Stored keys again, with smaller and larger values: the minimum stays. */
    uint32_t again[4] = {keys[0], keys[1], keys[total - 1], key_at(9000000u)};
    uint32_t again_v[4] = {5, 1000000, 7, 42}, want[4] = {5, values[1], 7, 42};
    assert_stenc_ok(insert_host(ctx, t, again, again_v, 4, 4));
    assert_int_equal(stenc_hash_count(t), total + 1);
    assert_stenc_ok(query(ctx, t, again, 4, 4, res, found));
    for (int i = 0; i < 4; i++)
        assert_int_equal(res[i], want[i]);
    stenc_hash_destroy(t);

    /* REJECT: a stored key, or a key twice in the batch, fails and changes nothing. */
    t = make_table(ctx, STENC_HASH_MAP, 4, 1.25);
    assert_stenc_ok(build_host(ctx, t, keys, values, n0, 4));
    assert_int_equal(insert_host(ctx, t, keys, values, 1, 4), STENC_ERR_INVALID_ARGUMENT);
    uint32_t twice[3] = {key_at(7000000u), key_at(7000001u), key_at(7000000u)};
    assert_int_equal(insert_host(ctx, t, twice, values, 3, 4), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_hash_count(t), n0);
    assert_stenc_ok(query(ctx, t, twice, 3, 4, res, found));
    for (int i = 0; i < 3; i++)
        assert_int_equal(found[i], 0);
    assert_stenc_ok(query(ctx, t, keys, n0, 4, res, found));
    for (size_t i = 0; i < n0; i++)
        assert_int_equal(res[i], values[i]);
    stenc_hash_destroy(t);

    /* SET: inserting members again changes nothing. */
    t = make_table(ctx, STENC_HASH_SET, 3, 1.5);
    assert_stenc_ok(build_host(ctx, t, keys, NULL, n0, 4));
    assert_stenc_ok(insert_host(ctx, t, keys, NULL, total, 4));
    assert_stenc_ok(insert_host(ctx, t, keys, NULL, total, 4));
    assert_int_equal(stenc_hash_count(t), total);
    assert_stenc_ok(query(ctx, t, keys, total, 4, res, found));
    for (size_t i = 0; i < total; i++)
        assert_true(found[i] && res[i] == 0);
    stenc_hash_destroy(t);
    free(keys);
    free(values);
    free(res);
    free(found);
}

/* COMPACT: dense ids, the key list inverts them, and every input key maps to its key's id. */
static inline void case_compact(stenc_ctx *ctx, size_t n, size_t mult) {
    uint32_t *keys = malloc(n * 4), *values = malloc(n * 4), *ids = malloc(n * 4);
    uint8_t *found = malloc(n);
    repeated_input(n, mult, 5, keys, values);
    uint32_t *sorted = malloc(n * 4);
    memcpy(sorted, keys, n * 4);
    qsort(sorted, n, 4, cmp_u32);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++)
        unique += i == 0 || sorted[i] != sorted[i - 1];
    stenc_hash_table *t = make_table(ctx, STENC_HASH_COMPACT, 4, 1.25);
    assert_stenc_ok(build_host(ctx, t, keys, NULL, n, 4));
    assert_int_equal(stenc_hash_count(t), unique);
    uint32_t *list = malloc(unique * 4 + 4);
    void *dl = poisoned(ctx, unique * 4);
    assert_stenc_ok(stenc_hash_copy_keys(t, dl));
    from_ctx(ctx, list, dl, unique * 4);
    assert_stenc_ok(query(ctx, t, keys, n, 4, ids, found));
    uint8_t *seen = calloc(unique + 1, 1);
    for (size_t i = 0; i < n; i++) {
        if (ids[i] >= unique || list[ids[i]] != keys[i])
            fail_msg("key %u: id %u, list says %u", keys[i], ids[i],
                     ids[i] < unique ? list[ids[i]] : 0);
        seen[ids[i]] = 1;
    }
    for (size_t u = 0; u < unique; u++)
        assert_int_equal(seen[u], 1); /* ids are dense */
    uint32_t absent = absent_key(1);
    assert_stenc_ok(query(ctx, t, &absent, 1, 4, ids, found));
    assert_int_equal(ids[0], STENC_HASH_NOT_FOUND);
    assert_int_equal(stenc_hash_insert(t, keys, NULL, 0), STENC_ERR_UNSUPPORTED);
    stenc_free(ctx, dl);
    stenc_hash_destroy(t);
    free(seen);
    free(list);
    free(sorted);
    free(keys);
    free(values);
    free(ids);
    free(found);
}

/* MULTI: each key's count, and its values as a multiset (in input order on the CPU). */
static inline void case_multi(stenc_ctx *ctx, size_t n, size_t mult, int input_order) {
    uint32_t *keys = malloc(n * 4), *values = malloc(n * 4);
    repeated_input(n, mult, 11, keys, values);
    stenc_hash_table *t = make_table(ctx, STENC_HASH_MULTI, 4, 1.25);
    assert_stenc_ok(build_host(ctx, t, keys, values, n, 4));
    assert_int_equal(stenc_hash_value_count(t), n);
    size_t m = n + 1;
    uint32_t *q = malloc(m * 4), *cnt = malloc(m * 4), *off = malloc(m * 4);
    memcpy(q, keys, n * 4);
    q[n] = absent_key(3);
    void *dq = to_ctx(ctx, q, m * 4), *dc = poisoned(ctx, m * 4), *dof = poisoned(ctx, m * 4);
    assert_stenc_ok(stenc_hash_find_multi(t, dq, dc, dof, m));
    from_ctx(ctx, cnt, dc, m * 4);
    from_ctx(ctx, off, dof, m * 4);
    uint32_t *all = malloc(n * 4 + 4);
    void *da = poisoned(ctx, n * 4);
    assert_stenc_ok(stenc_hash_copy_values(t, da));
    from_ctx(ctx, all, da, n * 4);
    assert_int_equal(cnt[n], 0);
    assert_int_equal(off[n], STENC_HASH_NOT_FOUND);
    /* Reference per key: its values in input order. */
    uint32_t *mine = malloc(n * 4), *theirs = malloc(n * 4);
    for (size_t i = 0; i < n; i += 1 + n / 200) { /* about 200 keys, each fully checked */
        size_t c = 0;
        for (size_t j = 0; j < n; j++)
            if (keys[j] == keys[i]) mine[c++] = values[j];
        assert_int_equal(cnt[i], c);
        assert_true((size_t)off[i] + c <= n);
        memcpy(theirs, all + off[i], c * 4);
        if (!input_order) {
            qsort(mine, c, 4, cmp_u32);
            qsort(theirs, c, 4, cmp_u32);
        }
        assert_memory_equal(mine, theirs, c * 4);
    }
    stenc_free(ctx, dq);
    stenc_free(ctx, dc);
    stenc_free(ctx, dof);
    stenc_free(ctx, da);
    stenc_hash_destroy(t);
    free(mine);
    free(theirs);
    free(all);
    free(q);
    free(cnt);
    free(off);
    free(keys);
    free(values);
}

/* 64-bit keys, including pairs that differ only in the high or only in the low half. */
static inline void case_keys64(stenc_ctx *ctx, size_t n) {
    stenc_hash_config c = case_config(STENC_HASH_MAP);
    c.key_type = STENC_U64;
    stenc_hash_table *t = NULL;
    assert_stenc_ok(stenc_hash_create(ctx, &c, &t));
    uint64_t *keys = malloc(2 * n * 8);
    uint32_t *values = malloc(2 * n * 4), *res = malloc(2 * n * 4);
    uint8_t *found = malloc(2 * n);
    for (size_t i = 0; i < n; i++) {
        keys[i] = i % 2 ? ((uint64_t)i << 32) | 5u : key64_at(i); /* high-half-only keys */
        values[i] = (uint32_t)i ^ 0xabcdefu;
        keys[n + i] = key64_at(i + 0x100000000ull) ^ 0x8000000000000000ull; /* absent */
    }
    assert_stenc_ok(build_host(ctx, t, keys, values, n, 8));
    assert_int_equal(stenc_hash_count(t), n);
    assert_stenc_ok(query(ctx, t, keys, 2 * n, 8, res, found));
    for (size_t i = 0; i < 2 * n; i++) {
        uint32_t want = i < n ? values[i] : STENC_HASH_NOT_FOUND;
        if (res[i] != want || found[i] != (i < n))
            fail_msg("64-bit key %zu: %u, expected %u", i, res[i], want);
    }
    uint64_t bad[2] = {1, STENC_HASH_EMPTY_KEY64};
    assert_int_equal(insert_host(ctx, t, bad, values, 2, 8), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_hash_count(t), n);
    /* Insert the absent half: now all are found. */
    for (size_t i = 0; i < n; i++)
        values[n + i] = (uint32_t)(7 * i);
    assert_stenc_ok(insert_host(ctx, t, keys + n, values + n, n, 8));
    assert_stenc_ok(query(ctx, t, keys, 2 * n, 8, res, found));
    for (size_t i = 0; i < 2 * n; i++)
        assert_true(found[i] && res[i] == values[i]);
    stenc_hash_destroy(t);
    c.kind = STENC_HASH_COMPACT;
    assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_UNSUPPORTED);
    free(keys);
    free(values);
    free(res);
    free(found);
}

/* Repeated keys at high load (MIN_VALUE): every twelfth key appears again right after itself
 * with a smaller value, so copies race in one warp on the GPU, and the duplicate pass may
 * leave erased slots in buckets that other keys were pushed past. Every key must still be
 * found, with its minimum, and absent keys must not. */
static inline void case_repeats_high_load(stenc_ctx *ctx, size_t unique) {
    size_t n = unique + unique / 12 + 1;
    uint32_t *keys = malloc(n * 4), *values = malloc(n * 4);
    uint32_t *q = malloc(2 * unique * 4), *want = malloc(unique * 4), *res = malloc(2 * unique * 4);
    uint8_t *found = malloc(2 * unique);
    size_t k = 0;
    for (size_t u = 0; u < unique; u++) {
        keys[k] = key_at((uint32_t)u + 123u);
        values[k++] = 1000u + (uint32_t)u;
        want[u] = 1000u + (uint32_t)u;
        if (u % 12 == 0) {
            keys[k] = key_at((uint32_t)u + 123u);
            values[k++] = (uint32_t)u; /* the minimum */
            want[u] = (uint32_t)u;
        }
        q[u] = key_at((uint32_t)u + 123u);
        q[unique + u] = absent_key((uint32_t)u);
    }
    stenc_hash_config c = case_config(STENC_HASH_MAP);
    c.duplicates = STENC_HASH_DUPLICATES_MIN_VALUE;
    c.size_factor = stenc_hash_min_size_factor(4); /* 88% of the slots hold unique keys */
    stenc_hash_table *t = NULL;
    assert_stenc_ok(stenc_hash_create(ctx, &c, &t));
    assert_stenc_ok(build_host(ctx, t, keys, values, k, 4));
    assert_int_equal(stenc_hash_count(t), unique);
    assert_stenc_ok(query(ctx, t, q, 2 * unique, 4, res, found));
    size_t bad = 0;
    for (size_t i = 0; i < 2 * unique; i++)
        bad += i < unique ? (res[i] != want[i] || !found[i])
                          : (res[i] != STENC_HASH_NOT_FOUND || found[i]);
    if (bad) fail_msg("%zu of %zu queries wrong after a build with repeats", bad, 2 * unique);
    stenc_hash_destroy(t);
    free(keys);
    free(values);
    free(q);
    free(want);
    free(res);
    free(found);
}

/* White box, BUCKETS layout, through the context's backend on a hand-made table (d = 2,
 * 64 buckets of 4): a miss stops at the first bucket with a free slot only when the table has
 * no holes; a full bucket never stops it; and the duplicate pass keeps exactly the copy in the
 * lowest function's bucket at the lowest slot. */
static inline void case_bucket_rules(stenc_ctx *ctx) {
    const hash_backend *be =
        stenc_ctx_device(ctx) == STENC_DEVICE_CUDA ? hash_cuda_backend() : hash_cpu_backend();
    assert_non_null(be);
    hash_geom g;
    memset(&g, 0, sizeof g);
    g.d = 2;
    g.bucket = 4;
    g.buckets = 64;
    g.capacity = 256;
    g.max_chain = 32;
    for (int i = 0; i < STENC_HASH_MAX_FUNCTIONS; i++) {
        g.a[i] = 0x9e3779b97f4a7c15ull * (uint64_t)(2 * i + 1) | 1u;
        g.b[i] = 0x632be59bd9b4e019ull * (uint64_t)(i + 3);
    }
    uint32_t key = 1;
    while (hash_slot(&g, 0, key) == hash_slot(&g, 1, key))
        key++;
    const uint32_t b0 = hash_slot(&g, 0, key), b1 = hash_slot(&g, 1, key);
    uint64_t host[256], back[256];
    void *dev = NULL;
    assert_stenc_ok(stenc_malloc(ctx, &dev, sizeof host));
    uint32_t *dq = to_ctx(ctx, &key, 4), res = 0;
    uint32_t *dr = poisoned(ctx, 4);
    for (int full = 0; full <= 1; full++)
        for (int holes = 0; holes <= 1; holes++) {
            memset(host, 0xff, sizeof host);
            for (uint32_t s = 0; s < 3u + (uint32_t)full; s++) /* b0: 3 or 4 other keys */
                host[b0 * 4 + s] = hash_narrow_entry(0x10000u + s, s);
            host[b1 * 4 + 2] = hash_narrow_entry(key, 77);
            assert_stenc_ok(stenc_upload(ctx, dev, host, sizeof host));
            g.holes = holes;
            size_t hits = 9;
            assert_stenc_ok(be->find(ctx, &g, dev, dq, 1, dr, NULL, &hits));
            from_ctx(ctx, &res, dr, 4);
            const int expect_hit = full || holes; /* a free slot in b0 ends the search early */
            if ((int)hits != expect_hit || res != (expect_hit ? 77u : STENC_HASH_NOT_FOUND))
                fail_msg("full=%d holes=%d: hits %zu value %u", full, holes, hits, res);
        }
    /* Copies in b1 (slots 0 and 3) and b0 (slot 2): only b0's stays. Two copies in b1 alone:
     * slot 1 stays. */
    for (int with_b0 = 1; with_b0 >= 0; with_b0--) {
        memset(host, 0xff, sizeof host);
        host[b1 * 4 + 3] = hash_narrow_entry(key, 3);
        host[b1 * 4 + 1] = hash_narrow_entry(key, 1);
        if (with_b0) host[b0 * 4 + 2] = hash_narrow_entry(key, 2);
        assert_stenc_ok(stenc_upload(ctx, dev, host, sizeof host));
        size_t occupied = 0, erased = 0;
        assert_stenc_ok(be->dedupe(ctx, &g, dev, &occupied, &erased));
        from_ctx(ctx, back, dev, sizeof back);
        assert_int_equal(occupied, 1);
        assert_int_equal(erased, with_b0 ? 2 : 1);
        for (uint32_t s = 0; s < 256; s++) {
            uint32_t keep = with_b0 ? b0 * 4 + 2 : b1 * 4 + 1;
            uint64_t want = s == keep ? host[s] : HASH_EMPTY_NARROW;
            if (back[s] != want) fail_msg("dedupe (with_b0=%d): slot %u wrong", with_b0, s);
        }
    }
    stenc_free(ctx, dev);
    stenc_free(ctx, dq);
    stenc_free(ctx, dr);
}

#endif /* STENC_TEST_HASH_CASES_H */
