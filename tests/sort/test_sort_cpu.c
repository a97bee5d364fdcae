/* The sort's CPU path (the reference and the path without a GPU), its arguments and its plan
 * of global passes. */
#include "sort_cases.h"

static stenc_ctx *cpu_ctx(void) {
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    return ctx;
}

static void test_small_sizes_all_types(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    static const size_t sizes[] = {0, 1, 2, 3, 5, 31, 1023, 1024, 1025};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        check_all_types(ctx, sizes[i], 1, 1000 + i, NULL);
    stenc_ctx_destroy(ctx);
}

static void test_large_sizes(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    size_t big = ((size_t)1 << 20) + 7;
    check_sort_case(ctx, STENC_U32, V_NONE, big, 1, D_RANDOM, STENC_SORT_ASCENDING, 1, NULL);
    check_sort_case(ctx, STENC_F64, V_U64, big, 1, D_SPECIAL, STENC_SORT_ASCENDING, 2, NULL);
    check_sort_case(ctx, STENC_I64, V_U32, big, 1, D_REVERSE, STENC_SORT_DESCENDING, 3, NULL);
    check_sort_case(ctx, STENC_F32, V_U32, big, 1, D_FEW, STENC_SORT_DESCENDING, 4, NULL);
    check_sort_case(ctx, STENC_U32, V_NONE, (size_t)1 << 24, 1, D_RANDOM, STENC_SORT_ASCENDING, 5,
                    NULL);
    stenc_ctx_destroy(ctx);
}

static void test_segments(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    static const size_t shapes[][2] = {{1, 9},    {2, 1000},  {3, 1000},
                                       {1025, 7}, {4096, 64}, {100003, 3}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        check_sort_case(ctx, STENC_F32, V_U32, shapes[i][0], shapes[i][1], D_SPECIAL,
                        STENC_SORT_ASCENDING, 10 + i, NULL);
        check_sort_case(ctx, STENC_U64, V_NONE, shapes[i][0], shapes[i][1], D_RANDOM,
                        STENC_SORT_DESCENDING, 20 + i, NULL);
    }
    stenc_ctx_destroy(ctx);
}

/* The exact order of the float specials, spelled out by hand. */
static void test_float_total_order(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    float keys[] = {NAN, 1.0f, -0.0f, INFINITY, -NAN, 0.0f, -INFINITY, -1.0f, 0x1p-149f};
    const uint32_t want[] = {0xFF800000u, 0xBF800000u, 0x80000000u, 0x00000000u,
                             0x00000001u, 0x3F800000u, 0x7F800000u};
    assert_stenc_ok(stenc_sort(ctx, STENC_F32, keys, STENC_U32, NULL, 9, STENC_SORT_ASCENDING));
    for (int i = 0; i < 7; i++)
        assert_int_equal(f32_bits(keys[i]), want[i]);
    assert_true(isnan(keys[7]) && isnan(keys[8]));
    assert_stenc_ok(stenc_sort(ctx, STENC_F32, keys, STENC_U32, NULL, 9, STENC_SORT_DESCENDING));
    assert_true(isnan(keys[0]) && isnan(keys[1]));
    for (int i = 0; i < 7; i++)
        assert_int_equal(f32_bits(keys[8 - i]), want[i]);
    stenc_ctx_destroy(ctx);
}

static void test_errors(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    check_sort_errors(ctx);
    stenc_ctx_destroy(ctx);
}

/* 1 + sum over phases q > t of (1 + ceil((q - t) / (t - c))): written out independently. */
/* Passes for 2^k elements, tiles of 2^t, runs of 2^c and clusters of 2^cl blocks: one first
 * pass up to phase t + cl, then per phase a contiguous pass and enough strided ones. */
static int expected_passes_cluster(int k, int t, int c, int cl) {
    int p = 1;
    for (int q = t + cl + 1; q <= k; q++)
        p += 1 + (q - t + (t - c) - 1) / (t - c);
    return p;
}
static int expected_passes(int k, int t, int c) {
    return expected_passes_cluster(k, t, c, 0);
}

static void test_global_passes(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    int passes = -1;
    /* A CPU context knows no SM count, so the tile is never shrunk here. */
    assert_stenc_ok(
        stenc_sort_global_passes(ctx, STENC_U32, STENC_U32, 0, (size_t)1 << 24, 1, NULL, &passes));
    assert_int_equal(passes, expected_passes(24, 14, 3)); /* 4-byte keys: tiles of 2^14 */
    assert_int_equal(passes, 21);
    assert_stenc_ok(stenc_sort_global_passes(ctx, STENC_U32, STENC_U32, 1, ((size_t)1 << 27) - 3, 1,
                                             NULL, &passes));
    assert_int_equal(passes, expected_passes(27, 13, 3)); /* 8-byte elements: 2^13 */
    assert_int_equal(passes, 33); /* runs of 2^3: phase 23 takes one strided pass, not two */
    /* Clusters (a CPU context has none by default, but plans them when asked). */
    stenc_sort_policy cl = {0, 0, 0, 3, 0};
    assert_stenc_ok(
        stenc_sort_global_passes(ctx, STENC_U32, STENC_U32, 0, (size_t)1 << 27, 1, &cl, &passes));
    assert_int_equal(passes, expected_passes_cluster(27, 14, 3, 3));
    assert_int_equal(passes, 23);
    cl.cluster_log2 = 2;
    assert_stenc_ok(stenc_sort_global_passes(ctx, STENC_U32, STENC_U32, 0, 70000, 1, &cl, &passes));
    assert_int_equal(passes, expected_passes_cluster(17, 14, 3, 2));
    assert_int_equal(passes, 3);
    cl.cluster_log2 = 4;
    assert_int_equal(stenc_sort_global_passes(ctx, STENC_U32, STENC_U32, 0, 1000, 1, &cl, &passes),
                     STENC_ERR_INVALID_ARGUMENT);
    cl.cluster_log2 = -2;
    assert_int_equal(stenc_sort_global_passes(ctx, STENC_U32, STENC_U32, 0, 1000, 1, &cl, &passes),
                     STENC_ERR_INVALID_ARGUMENT);
    stenc_sort_policy p = {12, 4, 256, 0, 0};
    assert_stenc_ok(stenc_sort_global_passes(ctx, STENC_F64, STENC_U32, 0, 100000, 1, &p, &passes));
    assert_int_equal(passes, expected_passes(17, 12, 4));
    /* 8 elements per thread (1024 threads): the same passes as any tile of 2^13. */
    stenc_sort_policy narrow = {13, 4, 1024, 0, 0};
    assert_stenc_ok(stenc_sort_global_passes(ctx, STENC_U64, STENC_U32, 1, (size_t)1 << 20, 1,
                                             &narrow, &passes));
    assert_int_equal(passes, expected_passes(20, 13, 4));
    narrow.threads = 2048;
    assert_int_equal(
        stenc_sort_global_passes(ctx, STENC_U32, STENC_U32, 0, 1000, 1, &narrow, &passes),
        STENC_ERR_INVALID_ARGUMENT);
    assert_stenc_ok(stenc_sort_global_passes(ctx, STENC_U32, STENC_U32, 0, 1000, 1, NULL, &passes));
    assert_int_equal(passes, 1);
    assert_stenc_ok(stenc_sort_global_passes(ctx, STENC_U32, STENC_U32, 0, 1, 5, NULL, &passes));
    assert_int_equal(passes, 0);
    stenc_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_total_order), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_global_passes),     cmocka_unit_test(test_small_sizes_all_types),
        cmocka_unit_test(test_segments),          cmocka_unit_test(test_large_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
