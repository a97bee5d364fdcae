/* The runtime core: statuses, error messages, contexts, raw memory and timers. */
#include "test_util.h"

static void test_status_strings_are_distinct(void **state) {
    (void)state;
    for (int a = 0; a < STENC_STATUS_COUNT; a++) {
        const char *sa = stenc_status_string((stenc_status)a);
        assert_non_null(sa);
        assert_true(strlen(sa) > 0);
        for (int b = a + 1; b < STENC_STATUS_COUNT; b++)
            assert_string_not_equal(sa, stenc_status_string((stenc_status)b));
    }
    assert_string_equal(stenc_status_string((stenc_status)1000), "unknown status");
}

static void test_null_arguments_are_errors_with_messages(void **state) {
    (void)state;
    stenc_clear_error();
    assert_string_equal(stenc_last_error(), "");
    assert_int_equal(stenc_ctx_create(NULL, STENC_DEVICE_CPU), STENC_ERR_INVALID_ARGUMENT);
    /* The message says what failed and where. */
    assert_non_null(strstr(stenc_last_error(), "stenc_ctx_create"));
    assert_non_null(strstr(stenc_last_error(), "runtime/core/ctx.c:"));
    assert_int_equal(stenc_ctx_synchronize(NULL), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_malloc(NULL, NULL, 8), STENC_ERR_INVALID_ARGUMENT);
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, (stenc_device)42), STENC_ERR_INVALID_ARGUMENT);
    assert_null(ctx);
    stenc_ctx_destroy(NULL); /* allowed */
}

/* A NULL format or file still records the status, with a placeholder (it used to crash). */
static void test_set_error_without_message(void **state) {
    (void)state;
    /* Through a pointer, which carries no format attribute for the compiler to check. */
    stenc_status (*set_error)(stenc_status, const char *, int, const char *, ...) = stenc_set_error;
    const char *no_text = NULL;
    stenc_clear_error();
    assert_int_equal(set_error(STENC_ERR_IO, "x/runtime/a.c", 7, no_text), STENC_ERR_IO);
    assert_string_equal(stenc_last_error(), "input/output error: (no message) [runtime/a.c:7]");
    assert_int_equal(set_error(STENC_ERR_CUDA, no_text, 3, "launch %d failed", 2), STENC_ERR_CUDA);
    assert_string_equal(stenc_last_error(), "CUDA error: launch 2 failed [(unknown file):3]");
    assert_int_equal(set_error((stenc_status)99, no_text, 0, no_text), (stenc_status)99);
    assert_string_equal(stenc_last_error(), "unknown status: (no message) [(unknown file):0]");
}

/* Byte counts no object can have: copies refuse them (memmove of SIZE_MAX bytes used to run),
 * allocations report no memory (ASan's allocator used to abort), and *ptr is NULL. */
static void test_byte_counts_beyond_any_object(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    char a[8] = "abcdefg", b[8] = "1234567";
    const size_t huge[] = {SIZE_MAX, (size_t)PTRDIFF_MAX + 1};
    for (int h = 0; h < 2; h++) {
        stenc_clear_error();
        assert_int_equal(stenc_memcpy(ctx, a, b, huge[h]), STENC_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(stenc_last_error(), "stenc_memcpy"));
        assert_non_null(strstr(stenc_last_error(), "at most"));
        assert_int_equal(stenc_upload(ctx, a, b, huge[h]), STENC_ERR_INVALID_ARGUMENT);
        assert_int_equal(stenc_download(ctx, a, b, huge[h]), STENC_ERR_INVALID_ARGUMENT);
        void *p = (void *)&p;
        assert_int_equal(stenc_malloc(ctx, &p, huge[h]), STENC_ERR_OUT_OF_MEMORY);
        assert_null(p);
        assert_non_null(strstr(stenc_last_error(), "stenc_malloc"));
    }
    assert_string_equal(a, "abcdefg");
    assert_stenc_ok(stenc_memcpy(ctx, a, b, sizeof a));
    assert_string_equal(a, "1234567");
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

static void test_type_sizes(void **state) {
    (void)state;
    assert_int_equal(stenc_type_size(STENC_F32), 4);
    assert_int_equal(stenc_type_size(STENC_F64), 8);
    assert_int_equal(stenc_type_size(STENC_U64), 8);
    assert_int_equal(stenc_type_size((stenc_type)99), 0);
    assert_string_equal(stenc_type_name(STENC_F64), "double");
    assert_string_equal(stenc_type_name((stenc_type)99), "invalid");
}

static void test_cpu_memory_round_trip(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    assert_int_equal(stenc_ctx_device(ctx), STENC_DEVICE_CPU);
    assert_non_null(strstr(stenc_ctx_device_name(ctx), "CPU"));
    assert_null(stenc_ctx_cuda_stream(ctx));
    enum { N = 1001 };
    double src[N], back[N];
    test_rng rng = test_rng_seeded(1);
    for (int i = 0; i < N; i++)
        src[i] = test_rng_uniform(&rng, -1, 1);
    void *dev = NULL;
    assert_stenc_ok(stenc_malloc(ctx, &dev, sizeof src));
    assert_int_equal((uintptr_t)dev % 128, 0);
    assert_stenc_ok(stenc_upload(ctx, dev, src, sizeof src));
    void *dev2 = NULL;
    assert_stenc_ok(stenc_malloc(ctx, &dev2, sizeof src));
    assert_stenc_ok(stenc_memcpy(ctx, dev2, dev, sizeof src));
    memset(back, 0xff, sizeof back);
    assert_stenc_ok(stenc_download(ctx, back, dev2, sizeof src));
    assert_memory_equal(src, back, sizeof src);
    assert_int_equal(stenc_upload(ctx, NULL, src, 8), STENC_ERR_INVALID_ARGUMENT);
    assert_stenc_ok(stenc_upload(ctx, NULL, NULL, 0)); /* empty copies are fine */
    stenc_free(ctx, dev);
    stenc_free(ctx, dev2);
    assert_stenc_ok(stenc_ctx_synchronize(ctx));
    stenc_ctx_destroy(ctx);
}

static void test_cpu_timer_measures_time(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    stenc_timer *timer;
    assert_stenc_ok(stenc_timer_create(ctx, &timer));
    double ms = -1;
    assert_int_equal(stenc_timer_stop(timer, &ms), STENC_ERR_INVALID_ARGUMENT); /* not started */
    assert_stenc_ok(stenc_timer_start(timer));
    volatile double x = 0;
    for (int i = 0; i < 2000000; i++)
        x += 1e-9 * i;
    assert_stenc_ok(stenc_timer_stop(timer, &ms));
    assert_true(ms > 0.0 && ms < 10000.0);
    stenc_timer_destroy(timer);
    stenc_ctx_destroy(ctx);
}

static void test_cuda_request_matches_availability(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    stenc_status st = stenc_ctx_create(&ctx, STENC_DEVICE_CUDA);
    if (test_gpu_available()) {
        assert_int_equal(st, STENC_OK);
        assert_int_equal(stenc_ctx_device(ctx), STENC_DEVICE_CUDA);
        stenc_ctx_destroy(ctx);
    } else {
        assert_int_equal(st, STENC_ERR_NO_DEVICE);
        assert_null(ctx);
        assert_non_null(strstr(stenc_last_error(), "CUDA"));
    }
}

static void test_env_override(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    setenv("STENC_DEVICE", "cpu", 1);
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_AUTO));
    assert_int_equal(stenc_ctx_device(ctx), STENC_DEVICE_CPU);
    stenc_ctx_destroy(ctx);
    setenv("STENC_DEVICE", "gpu-please", 1);
    assert_int_equal(stenc_ctx_create(&ctx, STENC_DEVICE_AUTO), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "gpu-please"));
    unsetenv("STENC_DEVICE");
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_AUTO));
    assert_int_equal(stenc_ctx_device(ctx),
                     test_gpu_available() ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU);
    stenc_ctx_destroy(ctx);
}

/* On a GPU: the same round trip through device memory, and event timing. */
static void test_cuda_memory_round_trip(void **state) {
    (void)state;
    if (!test_gpu_available()) skip();
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CUDA));
    enum { N = 100003 };
    float *src = malloc(N * sizeof *src), *back = malloc(N * sizeof *back);
    test_rng rng = test_rng_seeded(2);
    for (int i = 0; i < N; i++)
        src[i] = (float)test_rng_uniform(&rng, -1, 1);
    void *a, *b;
    assert_stenc_ok(stenc_malloc(ctx, &a, N * sizeof *src));
    assert_stenc_ok(stenc_malloc(ctx, &b, N * sizeof *src));
    stenc_timer *timer;
    assert_stenc_ok(stenc_timer_create(ctx, &timer));
    assert_stenc_ok(stenc_upload(ctx, a, src, N * sizeof *src));
    assert_stenc_ok(stenc_timer_start(timer));
    assert_stenc_ok(stenc_memcpy(ctx, b, a, N * sizeof *src));
    double ms;
    assert_stenc_ok(stenc_timer_stop(timer, &ms));
    assert_true(ms >= 0.0);
    assert_stenc_ok(stenc_download(ctx, back, b, N * sizeof *src));
    assert_memory_equal(src, back, N * sizeof *src);
    stenc_timer_destroy(timer);
    stenc_free(ctx, a);
    stenc_free(ctx, b);
    stenc_ctx_destroy(ctx);
    free(src);
    free(back);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_strings_are_distinct),
        cmocka_unit_test(test_null_arguments_are_errors_with_messages),
        cmocka_unit_test(test_set_error_without_message),
        cmocka_unit_test(test_byte_counts_beyond_any_object),
        cmocka_unit_test(test_type_sizes),
        cmocka_unit_test(test_cpu_memory_round_trip),
        cmocka_unit_test(test_cpu_timer_measures_time),
        cmocka_unit_test(test_cuda_request_matches_availability),
        cmocka_unit_test(test_env_override),
        cmocka_unit_test(test_cuda_memory_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
