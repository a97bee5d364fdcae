/* Per-context module state: kept under a module's key, replaced (releasing the old), released
 * with the context; keys are registered by their address, up to STENC_CACHE_SLOTS of them. */
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

static const stenc_cache_key key_a = {"a"}, key_b = {"b"};

static void test_cache_slots(void **unused) {
    (void)unused;
    releases = 0;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    assert_null(stenc_ctx_cache_get(ctx, &key_a));
    int *first = malloc(sizeof *first), *second = malloc(sizeof *second);
    assert_stenc_ok(stenc_ctx_cache_set(ctx, &key_a, first, count_release));
    assert_ptr_equal(stenc_ctx_cache_get(ctx, &key_a), first);
    assert_null(stenc_ctx_cache_get(ctx, &key_b)); /* keys are separate */
    const stenc_cache_key same_name = {"a"};       /* a key is its address, not its name */
    assert_null(stenc_ctx_cache_get(ctx, &same_name));
    assert_stenc_ok(stenc_ctx_cache_set(ctx, &key_a, second, count_release));
    assert_int_equal(releases, 1);
    assert_ptr_equal(released_state, first);
    assert_null(stenc_ctx_cache_get(ctx, NULL));
    stenc_ctx_destroy(ctx);
    assert_int_equal(releases, 2);
    assert_ptr_equal(released_state, second);
}

/* More keys than slots: the state of the one too many is released at once and the call says
 * so; every key that got a slot keeps its state until the context goes. */
static void test_cache_capacity(void **unused) {
    (void)unused;
    releases = 0;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    static stenc_cache_key keys[STENC_CACHE_SLOTS + 1];
    for (int k = 0; k < STENC_CACHE_SLOTS; k++) {
        keys[k].module = "filler";
        assert_stenc_ok(stenc_ctx_cache_set(ctx, &keys[k], malloc(4), count_release));
    }
    keys[STENC_CACHE_SLOTS].module = "one too many";
    void *extra = malloc(4);
    assert_int_equal(stenc_ctx_cache_set(ctx, &keys[STENC_CACHE_SLOTS], extra, count_release),
                     STENC_ERR_CAPACITY);
    assert_non_null(strstr(stenc_last_error(), "one too many"));
    assert_int_equal(releases, 1);
    assert_ptr_equal(released_state, extra);
    assert_null(stenc_ctx_cache_get(ctx, &keys[STENC_CACHE_SLOTS]));
    for (int k = 0; k < STENC_CACHE_SLOTS; k++)
        assert_non_null(stenc_ctx_cache_get(ctx, &keys[k]));
    /* Setting NULL frees a slot for another key. */
    assert_stenc_ok(stenc_ctx_cache_set(ctx, &keys[0], NULL, NULL));
    assert_int_equal(releases, 2);
    assert_stenc_ok(stenc_ctx_cache_set(ctx, &keys[STENC_CACHE_SLOTS], malloc(4), count_release));
    stenc_ctx_destroy(ctx);
    assert_int_equal(releases, 2 + STENC_CACHE_SLOTS);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cache_slots),
                                       cmocka_unit_test(test_cache_capacity)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
