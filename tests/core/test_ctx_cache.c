/* Per-context module state: kept, replaced (releasing the old), released with the context. */
#include "test_util.h"

#include "internal.h"

static int releases;
static void *released_state;

static void count_release(stenc_ctx *ctx, void *state) {
    assert_non_null(ctx);
    releases++;
    released_state = state;
    free(state);
}

static void test_cache_slots(void **unused) {
    (void)unused;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    assert_null(stenc_ctx_cache_get(ctx, STENC_CACHE_TRIDIAG));
    int *first = malloc(sizeof *first), *second = malloc(sizeof *second);
    stenc_ctx_cache_set(ctx, STENC_CACHE_TRIDIAG, first, count_release);
    assert_ptr_equal(stenc_ctx_cache_get(ctx, STENC_CACHE_TRIDIAG), first);
    assert_null(stenc_ctx_cache_get(ctx, STENC_CACHE_REDUCE)); /* slots are separate */
    stenc_ctx_cache_set(ctx, STENC_CACHE_TRIDIAG, second, count_release);
    assert_int_equal(releases, 1);
    assert_ptr_equal(released_state, first);
    assert_null(stenc_ctx_cache_get(ctx, STENC_CACHE_SLOTS)); /* out of range: no state */
    stenc_ctx_destroy(ctx);
    assert_int_equal(releases, 2);
    assert_ptr_equal(released_state, second);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cache_slots)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
