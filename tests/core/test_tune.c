/* The tuning cache: keys, the file format, replacement, modes and the environment. */
#include <unistd.h>

#include "test_util.h"

static char cache_path[256];

static int setup(void **state) {
    (void)state;
    snprintf(cache_path, sizeof cache_path, "/tmp/stenc-test-tune-%ld/sub/cache.txt",
             (long)getpid());
    setenv("STENC_TUNE_CACHE", cache_path, 1);
    remove(cache_path);
    return 0;
}

static void test_key_names_everything(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    char key[512];
    size_t n[3] = {17, 33, 1};
    assert_stenc_ok(stenc_tune_key(ctx, "heat3d", "00ff", n, STENC_F64, key, sizeof key));
    assert_non_null(strstr(key, "heat3d#00ff|17x33x1|double|CPU"));
    char version[64];
    snprintf(version, sizeof version, "|stenc %d.%d.%d", STENC_VERSION_MAJOR, STENC_VERSION_MINOR,
             STENC_VERSION_PATCH);
    assert_non_null(strstr(key, version));
    /* Another digest (an edited stencil, or another project's stencil of the same name) is
     * another key. */
    char other[512];
    assert_stenc_ok(stenc_tune_key(ctx, "heat3d", "00fe", n, STENC_F64, other, sizeof other));
    assert_string_not_equal(key, other);
    assert_stenc_ok(stenc_tune_key(ctx, "heat3d", NULL, n, STENC_F64, other, sizeof other));
    assert_non_null(strstr(other, "heat3d#|17x33x1"));
    char tiny[8];
    assert_int_equal(stenc_tune_key(ctx, "heat3d", "00ff", n, STENC_F64, tiny, sizeof tiny),
                     STENC_ERR_INVALID_ARGUMENT);
    stenc_ctx_destroy(ctx);
}

static void test_store_then_lookup_in_a_fresh_context(void **state) {
    (void)state;
    stenc_ctx *a, *b;
    assert_stenc_ok(stenc_ctx_create(&a, STENC_DEVICE_CPU));
    char variant[64];
    int found = 1;
    assert_stenc_ok(stenc_tune_lookup(a, "k1", variant, sizeof variant, &found));
    assert_int_equal(found, 0); /* empty cache */
    assert_stenc_ok(stenc_tune_store(a, "k1", "direct_v2_k4", 0.38));
    assert_stenc_ok(stenc_tune_store(a, "k2", "stream_32x8", 0.47));
    assert_stenc_ok(stenc_tune_store(a, "k1", "direct_v4_k2", 0.37)); /* replaces k1 */
    stenc_ctx_destroy(a);

    assert_stenc_ok(stenc_ctx_create(&b, STENC_DEVICE_CPU)); /* reads the file, not memory */
    assert_stenc_ok(stenc_tune_lookup(b, "k1", variant, sizeof variant, &found));
    assert_int_equal(found, 1);
    assert_string_equal(variant, "direct_v4_k2");
    assert_stenc_ok(stenc_tune_lookup(b, "k2", variant, sizeof variant, &found));
    assert_string_equal(variant, "stream_32x8");
    stenc_ctx_destroy(b);

    /* One line per key: k1 was replaced, not appended. */
    FILE *f = fopen(cache_path, "r");
    assert_non_null(f);
    int lines = 0, c;
    while ((c = fgetc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    assert_int_equal(lines, 2);
}

static void test_malformed_lines_are_skipped(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    assert_stenc_ok(stenc_tune_store(ctx, "good", "v1", 1.0)); /* creates the directories */
    FILE *f = fopen(cache_path, "a");
    fputs("garbage without tabs\n\t\t\nbad\tonly-one-tab\n", f);
    fclose(f);
    stenc_ctx_destroy(ctx);
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    char variant[64];
    int found;
    assert_stenc_ok(stenc_tune_lookup(ctx, "good", variant, sizeof variant, &found));
    assert_int_equal(found, 1);
    assert_string_equal(variant, "v1");
    assert_stenc_ok(stenc_tune_lookup(ctx, "bad", variant, sizeof variant, &found));
    assert_int_equal(found, 0);
    assert_int_equal(stenc_tune_store(ctx, "k", "has\ttab", 1.0), STENC_ERR_INVALID_ARGUMENT);
    stenc_ctx_destroy(ctx);
}

static void test_modes_and_environment(void **state) {
    (void)state;
    stenc_ctx *ctx;
    setenv("STENC_TUNE", "force", 1);
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    assert_int_equal(stenc_tune_get_mode(ctx), STENC_TUNE_FORCE);
    /* FORCE ignores the file, so that every key is timed again. */
    assert_stenc_ok(stenc_tune_store(ctx, "kf", "v", 1.0));
    assert_stenc_ok(stenc_tune(ctx, STENC_TUNE_FORCE));
    char variant[64];
    int found;
    assert_stenc_ok(stenc_tune_lookup(ctx, "kf", variant, sizeof variant, &found));
    assert_int_equal(found, 0);
    stenc_ctx_destroy(ctx);
    setenv("STENC_TUNE", "1", 1);
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    assert_int_equal(stenc_tune_get_mode(ctx), STENC_TUNE_ON);
    assert_int_equal(stenc_tune(ctx, (stenc_tune_mode)9), STENC_ERR_INVALID_ARGUMENT);
    assert_stenc_ok(stenc_tune(ctx, STENC_TUNE_OFF));
    assert_int_equal(stenc_tune_get_mode(ctx), STENC_TUNE_OFF);
    stenc_ctx_destroy(ctx);
    unsetenv("STENC_TUNE");
}

static void test_unwritable_cache_is_an_io_error(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    setenv("STENC_TUNE_CACHE", "/proc/stenc-cannot-write-here/cache.txt", 1);
    assert_int_equal(stenc_tune_store(ctx, "k", "v", 1.0), STENC_ERR_IO);
    assert_non_null(strstr(stenc_last_error(), "/proc/stenc-cannot-write-here"));
    setenv("STENC_TUNE_CACHE", cache_path, 1);
    stenc_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_key_names_everything, setup),
        cmocka_unit_test_setup(test_store_then_lookup_in_a_fresh_context, setup),
        cmocka_unit_test_setup(test_malformed_lines_are_skipped, setup),
        cmocka_unit_test_setup(test_modes_and_environment, setup),
        cmocka_unit_test_setup(test_unwritable_cache_is_an_io_error, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
