/* Cuckoo hash tables on the CPU backend (the reference): every case of hash_cases.h, the
 * argument checks, and the sizes 0, 1, 2, 1000 and 2^20, once per slot layout. */
#include "hash_cases.h"

static stenc_ctx *cpu(void) {
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    return ctx;
}

static void test_config_checks(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    stenc_hash_table *t = (stenc_hash_table *)&t;
    assert_int_equal(stenc_hash_create(NULL, NULL, &t), STENC_ERR_INVALID_ARGUMENT);
    assert_null(t);
    assert_int_equal(stenc_hash_create(ctx, NULL, NULL), STENC_ERR_INVALID_ARGUMENT);
    stenc_hash_config c = stenc_hash_config_default(STENC_HASH_MAP);
    assert_int_equal(c.hash_functions, 4);
    assert_true(c.size_factor == 1.25);
    c.hash_functions = 6;
    assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_INVALID_ARGUMENT);
    c.hash_functions = 1;
    assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_INVALID_ARGUMENT);
    for (int d = 2; d <= 5; d++) { /* the minimum factor is accepted, just below it is not */
        c.hash_functions = d;
        c.size_factor = stenc_hash_min_size_factor(d);
        assert_stenc_ok(stenc_hash_create(ctx, &c, &t));
        stenc_hash_destroy(t);
        c.size_factor = stenc_hash_min_size_factor(d) - 0.005;
        assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_INVALID_ARGUMENT);
    }
    assert_true(stenc_hash_min_size_factor(7) == 0);
    c = stenc_hash_config_default(STENC_HASH_MAP);
    c.key_type = STENC_F32;
    assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_INVALID_ARGUMENT);
    c = stenc_hash_config_default(STENC_HASH_MULTI);
    c.key_type = STENC_U64;
    assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_UNSUPPORTED);
    c = stenc_hash_config_default(STENC_HASH_MAP);
    c.max_attempts = 0;
    assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_INVALID_ARGUMENT);
    c = stenc_hash_config_default(STENC_HASH_MAP);
    assert_int_equal(c.layout, STENC_HASH_DEFAULT_LAYOUT);
    c.layout = STENC_HASH_LAYOUT_COUNT;
    assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_INVALID_ARGUMENT);
    c = stenc_hash_config_default(STENC_HASH_MAP);
    assert_int_equal(c.partition, STENC_HASH_PARTITION_AUTO);
    c.partition = STENC_HASH_PARTITION_COUNT;
    assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_INVALID_ARGUMENT);
    c = stenc_hash_config_default(STENC_HASH_MAP);
    /* BUCKETS rounds the capacity up to whole 32-byte buckets: 4 slots, 2 for 64-bit keys. */
    c.layout = STENC_HASH_LAYOUT_BUCKETS;
    const size_t odd_sizes[] = {1, 13, 101, 1001};
    for (int wide = 0; wide <= 1; wide++)
        for (size_t i = 0; i < 4; i++) {
            const size_t n = odd_sizes[i], per = wide ? 2 : 4, kb = wide ? 8 : 4;
            c.key_type = wide ? STENC_U64 : STENC_U32;
            assert_stenc_ok(stenc_hash_create(ctx, &c, &t));
            uint64_t *k = malloc(n * 8);
            uint32_t *v = calloc(n, 4);
            for (size_t j = 0; j < n; j++)
                if (wide)
                    k[j] = key64_at(j);
                else
                    ((uint32_t *)k)[j] = key_at((uint32_t)j);
            assert_stenc_ok(build_host(ctx, t, k, v, n, kb));
            size_t cap = stenc_hash_capacity(t), want = (size_t)ceil(1.25 * (double)n);
            want = want < 16 ? 16 : want;
            assert_int_equal(cap, (want + per - 1) / per * per);
            free(k);
            free(v);
            stenc_hash_destroy(t);
        }
    /* Arguments of the calls. */
    assert_stenc_ok(stenc_hash_create(ctx, NULL, &t));
    uint32_t k = 1, r = 0;
    assert_int_equal(stenc_hash_build(t, NULL, &k, 1), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_hash_build(t, &k, NULL, 1), STENC_ERR_INVALID_ARGUMENT); /* MAP */
    assert_int_equal(stenc_hash_find(t, &k, NULL, 1), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_hash_find_multi(t, &k, &r, &r, 1), STENC_ERR_UNSUPPORTED);
    assert_int_equal(stenc_hash_copy_keys(t, &r), STENC_ERR_UNSUPPORTED);
    assert_int_equal(stenc_hash_find(NULL, &k, &r, 1), STENC_ERR_INVALID_ARGUMENT);
    /* A table never built finds nothing. */
    assert_stenc_ok(stenc_hash_find(t, &k, &r, 1));
    assert_int_equal(r, STENC_HASH_NOT_FOUND);
    stenc_hash_destroy(t);
    stenc_hash_destroy(NULL);
    stenc_ctx_destroy(ctx);
}

static void test_map_sizes_and_miss_rates(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    const size_t sizes[] = {0, 1, 2, 3, 17, 1000, 1023, 4099};
    const int misses[] = {0, 50, 100};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int m = 0; m < 3; m++)
            case_map_roundtrip(ctx, sizes[s], 4, 1.25, misses[m], s + 1);
    for (int d = 2; d <= 5; d++) {
        case_map_roundtrip(ctx, 1000, d, stenc_hash_min_size_factor(d), 50, 40 + d);
        case_map_roundtrip(ctx, 1000, d, d == 2 ? 3.0 : 2.0, 50, 50 + d);
    }
    stenc_ctx_destroy(ctx);
}

static void test_map_large(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_map_roundtrip(ctx, (size_t)1 << 20, 4, 1.25, 50, 3);
    case_map_roundtrip(ctx, ((size_t)1 << 20) + 1, 3, 1.1, 0, 4);
    stenc_ctx_destroy(ctx);
}

static void test_adversarial_keys(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_adversarial(ctx, 1000);
    case_adversarial(ctx, 100000);
    stenc_ctx_destroy(ctx);
}

static void test_duplicates(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_duplicates(ctx, 1000, 3);
    case_duplicates(ctx, 50000, 40); /* more copies of a key than hash functions */
    case_duplicates(ctx, 2, 2);      /* one key, twice */
    stenc_ctx_destroy(ctx);
}

static void test_reserved_key(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_reserved_key(ctx);
    stenc_ctx_destroy(ctx);
}

static void test_failure_path(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_failure_path(ctx);
    case_count_limits(ctx);
    stenc_ctx_destroy(ctx);
}

static void test_insert(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_insert(ctx, 1000, 10, 20); /* small batches, in place */
    case_insert(ctx, 100, 1000, 5); /* large batches, growth */
    case_insert(ctx, 1, 1, 3);
    stenc_ctx_destroy(ctx);
}

static void test_compact(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_compact(ctx, 1, 1);
    case_compact(ctx, 1000, 4);
    case_compact(ctx, 100000, 10);
    stenc_ctx_destroy(ctx);
}

static void test_multi(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_multi(ctx, 1, 1, 1);
    case_multi(ctx, 1000, 5, 1);
    case_multi(ctx, 100000, 50, 1);
    stenc_ctx_destroy(ctx);
}

static void test_repeats_high_load(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_repeats_high_load(ctx, 1000);
    case_repeats_high_load(ctx, 100003);
    stenc_ctx_destroy(ctx);
}

static void test_bucket_rules(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_bucket_rules(ctx);
    stenc_ctx_destroy(ctx);
}

static void test_keys64(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    case_keys64(ctx, 1000);
    case_keys64(ctx, 65537);
    stenc_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_checks), cmocka_unit_test(test_map_sizes_and_miss_rates),
        cmocka_unit_test(test_map_large),     cmocka_unit_test(test_adversarial_keys),
        cmocka_unit_test(test_duplicates),    cmocka_unit_test(test_reserved_key),
        cmocka_unit_test(test_failure_path),  cmocka_unit_test(test_insert),
        cmocka_unit_test(test_compact),       cmocka_unit_test(test_multi),
        cmocka_unit_test(test_keys64),        cmocka_unit_test(test_repeats_high_load),
    };
    const struct CMUnitTest white_box[] = {cmocka_unit_test(test_bucket_rules)};
    int failed = cmocka_run_group_tests_name("slots layout", tests, set_layout_slots, NULL);
    failed += cmocka_run_group_tests_name("buckets layout", tests, set_layout_buckets, NULL);
    failed += cmocka_run_group_tests_name("bucket rules", white_box, NULL, NULL);
    return failed;
}
