/* Counts that no array can have, at the entry points of sort and the tridiagonal solver: an
 * argument error that names the call and the limit, never a silent no-op or a run over memory
 * that cannot exist. (Raw copies are in test_core.c, hash tables in tests/hash, Nelder-Mead in
 * tests/nelder_mead.) */
#include "test_util.h"

/* Failed as an invalid argument, with the call and the limit in the message. */
#define assert_count_rejected(call, fn)                                                            \
    do {                                                                                           \
        stenc_clear_error();                                                                       \
        assert_int_equal((call), STENC_ERR_INVALID_ARGUMENT);                                      \
        if (!strstr(stenc_last_error(), (fn)) || !strstr(stenc_last_error(), "at most"))           \
            fail_msg("%s: message '%s'", #call, stenc_last_error());                               \
    } while (0)

static void test_sort_counts(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    uint32_t keys[4] = {3, 1, 2, 0};
    uint64_t values[4] = {30, 10, 20, 0};
    /* The first count past the limit for 4-byte keys, and for 8-byte values beside them. */
    const size_t past4 = (size_t)PTRDIFF_MAX / 4 + 1, past8 = (size_t)PTRDIFF_MAX / 8 + 1;
    assert_count_rejected(
        stenc_sort(ctx, STENC_U32, keys, STENC_U32, NULL, past4, STENC_SORT_ASCENDING),
        "stenc_sort");
    assert_count_rejected(
        stenc_sort(ctx, STENC_U32, keys, STENC_U64, values, past8, STENC_SORT_ASCENDING),
        "stenc_sort");
    assert_count_rejected(stenc_sort_segments(ctx, STENC_U32, keys, STENC_U32, NULL, 4, past4 / 4,
                                              STENC_SORT_DESCENDING),
                          "stenc_sort");
    int passes = -5;
    assert_count_rejected(
        stenc_sort_global_passes(ctx, STENC_U64, STENC_U32, 0, past8, 1, NULL, &passes),
        "stenc_sort_global_passes");
    assert_int_equal(passes, -5);
    /* Counts whose product or byte size overflows size_t stay errors too. */
    stenc_clear_error();
    assert_int_equal(
        stenc_sort(ctx, STENC_U32, keys, STENC_U32, NULL, SIZE_MAX, STENC_SORT_ASCENDING),
        STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_sort_segments(ctx, STENC_U32, keys, STENC_U32, NULL, SIZE_MAX / 2, 3,
                                         STENC_SORT_ASCENDING),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_true(keys[0] == 3 && keys[1] == 1 && keys[2] == 2 && keys[3] == 0);
    assert_true(values[0] == 30 && values[3] == 0);
    /* The largest count of these arrays still sorts. */
    assert_stenc_ok(stenc_sort(ctx, STENC_U32, keys, STENC_U64, values, 4, STENC_SORT_ASCENDING));
    for (uint32_t i = 0; i < 4; i++)
        assert_true(keys[i] == i && values[i] == 10 * i);
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

static void test_tridiag_counts(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    double a[4] = {0, 1, 0, 1}, b[4] = {2, 2, 2, 2}, c[4] = {1, 0, 1, 0}, d[4] = {3, 3, 3, 3};
    double x[4] = {7, 7, 7, 7};
    /* n * batch * 8 bytes past PTRDIFF_MAX but within SIZE_MAX, for both layouts. */
    const size_t past8 = (size_t)PTRDIFF_MAX / 8 + 1;
    const stenc_tridiag_layout layouts[2] = {STENC_TRIDIAG_CONTIGUOUS, STENC_TRIDIAG_INTERLEAVED};
    for (int l = 0; l < 2; l++) {
        assert_count_rejected(
            stenc_tridiag_solve(ctx, STENC_F64, layouts[l], 2, past8 / 2, a, b, c, d, x, NULL),
            "stenc_tridiag_solve");
        assert_count_rejected(
            stenc_tridiag_solve_inplace(ctx, STENC_F64, layouts[l], 1, past8, a, b, c, d, NULL),
            "stenc_tridiag_solve_inplace");
        assert_count_rejected(stenc_tridiag_solve(ctx, STENC_F32, layouts[l], 4,
                                                  (size_t)PTRDIFF_MAX / 16 + 1, a, b, c, d, x,
                                                  NULL),
                              "stenc_tridiag_solve");
    }
    for (int i = 0; i < 4; i++)
        assert_true(x[i] == 7 && d[i] == 3);
    /* The same arrays at their real size: two systems of 2x2, [2 1; 1 2] x = [3 3], x = 1. */
    assert_stenc_ok(
        stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_CONTIGUOUS, 2, 2, a, b, c, d, x, NULL));
    for (int i = 0; i < 4; i++)
        assert_true(fabs(x[i] - 1.0) < 1e-15);
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_counts),
        cmocka_unit_test(test_tridiag_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
