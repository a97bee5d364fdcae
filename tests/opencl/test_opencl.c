/* The OpenCL backend: contexts and device choice, memory behind reserved address ranges,
 * timers, fields (transfers, halo fills on the device against the host fill and the rule
 * written as a recursion, I/O of device fields), stenc_ocl_launch of hand-written kernels
 * against plain C loops, build errors, and the modules that refuse OpenCL contexts. The checks
 * of a build without OpenCL (or a machine without a device) run everywhere; the rest is
 * skipped (exit code 77) when no OpenCL device is present. */
#include <time.h>
#include <unistd.h>

#include "field_test_util.h"
#include "internal.h" /* stenc_memzero */

/* ---- helpers --------------------------------------------------------------------------------- */

static stenc_ctx *ocl_ctx(void) {
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_OPENCL));
    return ctx;
}

static void fill_random_bytes(void *p, size_t bytes, test_rng *rng) {
    unsigned char *b = p;
    for (size_t i = 0; i < bytes; i++)
        b[i] = (unsigned char)test_rng_u64(rng);
}

/* Sets or clears an environment variable for one test and puts the old value back. */
typedef struct saved_env {
    const char *name;
    char *value; /* NULL: was unset */
} saved_env;

static saved_env env_set(const char *name, const char *value) {
    saved_env s = {name, NULL};
    const char *old = getenv(name);
    if (old) s.value = strdup(old);
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    return s;
}

static void env_restore(saved_env s) {
    if (s.value)
        setenv(s.name, s.value, 1);
    else
        unsetenv(s.name);
    free(s.value);
}

static void assert_message_has(const char *needle) {
    if (!strstr(stenc_last_error(), needle))
        fail_msg("expected '%s' in the message: %s", needle, stenc_last_error());
}

/* ---- everywhere: the build's answer without a device ---------------------------------------- */

static void test_built_with_opencl_matches_the_build(void **state) {
    (void)state;
    assert_int_equal(stenc_built_with_opencl(), TEST_BUILT_WITH_OPENCL);
    assert_string_equal(stenc_status_string(STENC_ERR_OPENCL), "OpenCL error");
    if (!stenc_built_with_opencl()) assert_int_equal(stenc_opencl_device_count(), 0);
    if (stenc_opencl_device_count() == 0) { /* no OpenCL built, or no platform or device */
        stenc_ctx *ctx = (stenc_ctx *)&ctx;
        assert_int_equal(stenc_ctx_create(&ctx, STENC_DEVICE_OPENCL), STENC_ERR_NO_DEVICE);
        assert_null(ctx);
        assert_message_has(stenc_built_with_opencl() ? "no OpenCL" : "built without OpenCL");
        saved_env env = env_set("STENC_DEVICE", "opencl");
        assert_int_equal(stenc_ctx_create(&ctx, STENC_DEVICE_AUTO), STENC_ERR_NO_DEVICE);
        env_restore(env);
    }
}

static void test_opencl_calls_refuse_a_cpu_context(void **state) {
    (void)state;
    stenc_ctx *cpu;
    assert_stenc_ok(stenc_ctx_create(&cpu, STENC_DEVICE_CPU));
    const stenc_status want =
        stenc_built_with_opencl() ? STENC_ERR_INVALID_ARGUMENT : STENC_ERR_NO_DEVICE;
    void *mem = NULL;
    size_t offset = 0;
    char host[8];
    assert_int_equal(stenc_ocl_buffer(cpu, host, &mem, &offset), want);
    const stenc_ocl_program program = {"noop", "__kernel void noop(void) {}", NULL, NULL};
    const stenc_launch_shape shape = {STENC_ON_DEVICE, {1, 1, 1}, {0, 0, 0}};
    assert_int_equal(stenc_ocl_launch(cpu, &program, "noop", 1, NULL, NULL, &shape, NULL, 0, NULL,
                                      0, STENC_F32, NULL, 0),
                     want);
    assert_message_has("stenc_ocl_launch");
    double result;
    assert_int_equal(stenc_ocl_reduce(cpu, &program, "noop", 1, NULL, NULL, &shape, NULL, 0, NULL,
                                      0, STENC_F32, NULL, 0, "s", &result),
                     want);
    assert_message_has("stenc_ocl_reduce");
    assert_stenc_ok(stenc_ctx_destroy(cpu));
    /* A destroyed context is reported, not read. */
    assert_int_equal(stenc_ocl_buffer(cpu, host, &mem, &offset), STENC_ERR_INVALID_ARGUMENT);
}

/* ---- contexts -------------------------------------------------------------------------------- */

static void test_context_create_and_name(void **state) {
    (void)state;
    assert_true(stenc_opencl_device_count() >= 1);
    stenc_ctx *ctx = ocl_ctx();
    assert_int_equal(stenc_ctx_device(ctx), STENC_DEVICE_OPENCL);
    const char *name = stenc_ctx_device_name(ctx);
    assert_non_null(strstr(name, "(OpenCL)"));
    assert_true(strlen(name) > strlen(": (OpenCL)"));
    assert_null(stenc_ctx_cuda_stream(ctx));
    assert_stenc_ok(stenc_ctx_synchronize(ctx));
    /* Two contexts at once are independent. */
    stenc_ctx *other = ocl_ctx();
    assert_string_equal(stenc_ctx_device_name(other), name);
    assert_stenc_ok(stenc_ctx_destroy(other));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_ERR_INVALID_ARGUMENT);
}

static void test_auto_takes_opencl_from_the_environment(void **state) {
    (void)state;
    saved_env env = env_set("STENC_DEVICE", "opencl");
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_AUTO));
    assert_int_equal(stenc_ctx_device(ctx), STENC_DEVICE_OPENCL);
    assert_stenc_ok(stenc_ctx_destroy(ctx));
    setenv("STENC_DEVICE", "openc1", 1);
    assert_int_equal(stenc_ctx_create(&ctx, STENC_DEVICE_AUTO), STENC_ERR_INVALID_ARGUMENT);
    assert_null(ctx);
    assert_message_has("'opencl'");
    env_restore(env);
}

static void test_bad_device_choice(void **state) {
    (void)state;
    static const char *const malformed[] = {"x",    "1",    "0:",   ":0",  "0:0:0", "-1:0",
                                            "0:-1", " 0:0", "0:0 ", "0;0", "0:0x1", "0:1e3"};
    saved_env env = env_set("STENC_OPENCL_DEVICE", NULL);
    for (size_t v = 0; v < sizeof malformed / sizeof *malformed; v++) {
        setenv("STENC_OPENCL_DEVICE", malformed[v], 1);
        stenc_ctx *ctx = (stenc_ctx *)&ctx;
        if (stenc_ctx_create(&ctx, STENC_DEVICE_OPENCL) != STENC_ERR_INVALID_ARGUMENT)
            fail_msg("STENC_OPENCL_DEVICE='%s' was accepted", malformed[v]);
        assert_null(ctx);
        assert_message_has("STENC_OPENCL_DEVICE");
    }
    static const char *const out_of_range[] = {"99:0", "0:99", "4294967297:0"};
    for (size_t v = 0; v < sizeof out_of_range / sizeof *out_of_range; v++) {
        setenv("STENC_OPENCL_DEVICE", out_of_range[v], 1);
        stenc_ctx *ctx = NULL;
        if (stenc_ctx_create(&ctx, STENC_DEVICE_OPENCL) != STENC_ERR_INVALID_ARGUMENT)
            fail_msg("STENC_OPENCL_DEVICE='%s' was accepted", out_of_range[v]);
        assert_message_has("STENC_OPENCL_DEVICE");
    }
    setenv("STENC_OPENCL_DEVICE", "0:0", 1);
    stenc_ctx *ctx = ocl_ctx();
    assert_stenc_ok(stenc_ctx_destroy(ctx));
    env_restore(env);
}

/* ---- memory ---------------------------------------------------------------------------------- */

static void test_malloc_upload_download_round_trips(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    test_rng rng = test_rng_seeded(7);
    static const size_t sizes[] = {0, 1, 2, 3, 7, 31, 127, 128, 129, 4093, 65537, (1u << 20) + 3};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t n = sizes[s], room = n ? n : 1;
        void *dev = NULL;
        assert_stenc_ok(stenc_malloc(ctx, &dev, n));
        assert_non_null(dev);
        assert_int_equal((uintptr_t)dev % STENC_FIELD_ALIGN, 0);
        unsigned char *src = malloc(room), *back = malloc(room), *want = malloc(room);
        assert_non_null(src);
        assert_non_null(back);
        assert_non_null(want);
        fill_random_bytes(src, room, &rng);
        assert_stenc_ok(stenc_upload(ctx, dev, src, n));
        memset(back, 0xA5, room);
        assert_stenc_ok(stenc_download(ctx, back, dev, n));
        if (memcmp(back, src, n) != 0) fail_msg("round trip of %zu bytes differs", n);
        memcpy(want, src, n);
        /* Pointers offset into the allocation: a piece in the middle goes up, and pieces at
         * odd offsets come back. */
        if (n >= 3) {
            const size_t off = n / 3, len = n - off - n / 5;
            unsigned char *piece = malloc(len);
            assert_non_null(piece);
            fill_random_bytes(piece, len, &rng);
            assert_stenc_ok(stenc_upload(ctx, (char *)dev + off, piece, len));
            memcpy(want + off, piece, len);
            memset(back, 0x5A, room);
            assert_stenc_ok(stenc_download(ctx, back, dev, n));
            if (memcmp(back, want, n) != 0) fail_msg("piece of %zu at %zu of %zu", len, off, n);
            for (size_t at = 1; at < n; at = at * 3 + 1) {
                memset(back, 0x3C, room);
                assert_stenc_ok(stenc_download(ctx, back, (char *)dev + at, n - at));
                if (memcmp(back, want + at, n - at) != 0)
                    fail_msg("download from offset %zu of %zu", at, n);
            }
            free(piece);
        }
        /* Spans past the end are refused, and nothing is written. */
        assert_int_equal(stenc_upload(ctx, (char *)dev + room - 1, src, 2),
                         STENC_ERR_INVALID_ARGUMENT);
        assert_message_has("run past the end");
        free(src);
        free(back);
        free(want);
        assert_stenc_ok(stenc_free(ctx, dev));
    }
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

static void test_memcpy_and_memzero(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    test_rng rng = test_rng_seeded(11);
    const size_t n = 1031;
    char *a, *b;
    assert_stenc_ok(stenc_malloc(ctx, (void **)&a, n));
    assert_stenc_ok(stenc_malloc(ctx, (void **)&b, n));
    unsigned char ha[1031], hb[1031], back[1031];
    fill_random_bytes(ha, n, &rng);
    fill_random_bytes(hb, n, &rng);
    assert_stenc_ok(stenc_upload(ctx, a, ha, n));
    assert_stenc_ok(stenc_upload(ctx, b, hb, n));
    /* Between buffers, at odd offsets. */
    assert_stenc_ok(stenc_memcpy(ctx, b + 5, a + 3, n - 10));
    memmove(hb + 5, ha + 3, n - 10);
    /* Within one buffer, ranges apart. */
    assert_stenc_ok(stenc_memcpy(ctx, a + 600, a + 17, 400));
    memmove(ha + 600, ha + 17, 400);
    assert_stenc_ok(stenc_download(ctx, back, b, n));
    assert_memory_equal(back, hb, n);
    assert_stenc_ok(stenc_download(ctx, back, a, n));
    assert_memory_equal(back, ha, n);
    /* Overlapping ranges of one buffer are refused; the buffer is left alone. */
    assert_int_equal(stenc_memcpy(ctx, a + 10, a, 50), STENC_ERR_INVALID_ARGUMENT);
    assert_message_has("overlap");
    assert_int_equal(stenc_memcpy(ctx, b, a + 1000, 100), STENC_ERR_INVALID_ARGUMENT);
    assert_stenc_ok(stenc_download(ctx, back, a, n));
    assert_memory_equal(back, ha, n);
    /* memzero of a piece. */
    assert_stenc_ok(stenc_memzero(ctx, a + 101, 333));
    memset(ha + 101, 0, 333);
    assert_stenc_ok(stenc_download(ctx, back, a, n));
    assert_memory_equal(back, ha, n);
    assert_stenc_ok(stenc_free(ctx, a));
    assert_stenc_ok(stenc_free(ctx, b));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

static void test_foreign_pointers_are_errors(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx(), *other = ocl_ctx();
    char host[64] = {0};
    char *dev, *elsewhere;
    assert_stenc_ok(stenc_malloc(ctx, (void **)&dev, 100));
    assert_stenc_ok(stenc_malloc(other, (void **)&elsewhere, 100));
    /* A host pointer is not device memory. */
    assert_int_equal(stenc_upload(ctx, host, host + 32, 8), STENC_ERR_INVALID_ARGUMENT);
    assert_message_has("stenc_upload");
    assert_int_equal(stenc_download(ctx, host, host + 32, 8), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_memcpy(ctx, dev, host, 8), STENC_ERR_INVALID_ARGUMENT);
    /* Another context's memory is not this one's. */
    assert_int_equal(stenc_upload(ctx, elsewhere, host, 8), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_memcpy(ctx, dev, elsewhere, 8), STENC_ERR_INVALID_ARGUMENT);
    /* Only the start of an allocation can be freed. */
    assert_int_equal(stenc_free(ctx, host), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_free(ctx, dev + 1), STENC_ERR_INVALID_ARGUMENT);
    assert_message_has("start");
    assert_int_equal(stenc_free(ctx, elsewhere), STENC_ERR_INVALID_ARGUMENT);
    /* stenc_ocl_buffer: the same buffer for every address of an allocation, with its offset. */
    void *mem0 = NULL, *mem1 = NULL;
    size_t off0 = 1, off1 = 0;
    assert_stenc_ok(stenc_ocl_buffer(ctx, dev, &mem0, &off0));
    assert_stenc_ok(stenc_ocl_buffer(ctx, dev + 99, &mem1, &off1));
    assert_non_null(mem0);
    assert_ptr_equal(mem0, mem1);
    assert_int_equal(off0, 0);
    assert_int_equal(off1, 99);
    assert_int_equal(stenc_ocl_buffer(ctx, dev + 100, &mem1, &off1), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_ocl_buffer(ctx, dev - 1, &mem1, &off1), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_ocl_buffer(ctx, host, &mem1, &off1), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_ocl_buffer(ctx, dev, NULL, &off1), STENC_ERR_INVALID_ARGUMENT);
    assert_stenc_ok(stenc_ocl_buffer(other, elsewhere + 3, &mem1, &off1));
    assert_ptr_not_equal(mem0, mem1);
    /* A freed allocation is gone (before anything new can take its addresses). */
    assert_stenc_ok(stenc_free(ctx, dev));
    assert_int_equal(stenc_upload(ctx, dev, host, 8), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_free(ctx, dev), STENC_ERR_INVALID_ARGUMENT);
    /* Memory left allocated is released with its context. */
    assert_stenc_ok(stenc_malloc(ctx, (void **)&dev, 1000));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
    assert_stenc_ok(stenc_free(other, elsewhere));
    assert_stenc_ok(stenc_ctx_destroy(other));
}

/* ---- timers ---------------------------------------------------------------------------------- */

static double host_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* A kernel that takes a while: `rounds` dependent steps per work item. */
static const stenc_ocl_program busy_program = {
    "busy",
    "__kernel void busy(__global uchar *b, long o, long sj, long sk, long n0, long n1,\n"
    "                   long n2, long o0, long o1, long o2, int rounds) {\n"
    "    long i = get_global_id(0);\n"
    "    if (i >= n0) return;\n"
    "    __global uint *p = (__global uint *)(b + o);\n"
    "    uint x = p[i];\n"
    "    for (int r = 0; r < rounds; r++) x = x * 1664525u + 1013904223u;\n"
    "    p[i] = x;\n"
    "}\n",
    NULL, NULL};

static void test_timer_measures_queued_work(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    const size_t n = 1 << 16;
    void *dev;
    assert_stenc_ok(stenc_malloc(ctx, &dev, n * sizeof(uint32_t)));
    assert_stenc_ok(stenc_memzero(ctx, dev, n * sizeof(uint32_t)));
    const stenc_launch_field f = {dev, {1, 0, 0}};
    const stenc_launch_shape shape = {STENC_ON_DEVICE, {n, 1, 1}, {0, 0, 0}};
    const int rounds = 2000;
    /* Build first, so that the timing is of the kernel. */
    assert_stenc_ok(stenc_ocl_launch(ctx, &busy_program, "busy", 1, NULL, NULL, &shape, &f, 1, NULL,
                                     0, STENC_F32, &rounds, 1));
    assert_stenc_ok(stenc_ctx_synchronize(ctx));
    stenc_timer *timer;
    assert_stenc_ok(stenc_timer_create(ctx, &timer));
    const double before = host_ms();
    assert_stenc_ok(stenc_timer_start(timer));
    assert_stenc_ok(stenc_ocl_launch(ctx, &busy_program, "busy", 1, NULL, NULL, &shape, &f, 1, NULL,
                                     0, STENC_F32, &rounds, 1));
    double ms = -1;
    assert_stenc_ok(stenc_timer_stop(timer, &ms));
    const double wall = host_ms() - before;
    /* Positive, and no longer than the host saw from before the start to after the stop. */
    if (!(ms > 0.0 && ms <= wall + 1.0)) fail_msg("timer %g ms, host %g ms", ms, wall);
    /* The kernel is most of what the host waited for (n * rounds steps take milliseconds), so
     * a timer in the wrong unit, or one that misses the kernel, is far below. */
    if (wall > 5.0 && ms < 0.25 * wall)
        fail_msg("timer %g ms, but the host waited %g ms for %zu x %d steps", ms, wall, n, rounds);
    assert_int_equal(stenc_timer_stop(timer, &ms), STENC_ERR_INVALID_ARGUMENT); /* not started */
    assert_stenc_ok(stenc_free(ctx, dev));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
    assert_stenc_ok(stenc_timer_destroy(timer)); /* a timer may outlive its context */
}

/* ---- fields ---------------------------------------------------------------------------------- */

static void test_field_upload_download(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    test_rng rng = test_rng_seeded(21);
    field_device_round_trip(ctx, STENC_F32, 1, 1, 1, 1, 0, &rng);
    field_device_round_trip(ctx, STENC_F64, 1, 17, 1, 1, 2, &rng);
    field_device_round_trip(ctx, STENC_I32, 2, 33, 7, 1, 1, &rng);
    field_device_round_trip(ctx, STENC_U8, 3, 31, 5, 3, 3, &rng);
    field_device_round_trip(ctx, STENC_F64, 3, 33, 7, 5, 2, &rng);
    field_device_round_trip(ctx, STENC_F32, 3, 129, 65, 17, 1, &rng);
    /* Host accessors refuse a device field. */
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F32, 2, 9, 5, 1, 1));
    assert_stenc_ok(stenc_field_upload(f));
    double v;
    assert_int_equal(stenc_field_get(f, 0, 0, 0, &v), STENC_ERR_LOCATION);
    assert_int_equal(stenc_field_fill(f, 1), STENC_ERR_LOCATION);
    assert_stenc_ok(stenc_field_free(f));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

/* The bits of special values too (signed zeros, subnormals, NaN payloads). */
static void test_device_halo_fill_matches_host(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    field_device_halo_fills(ctx, 1, "OpenCL fill");
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

static void test_device_fields_swap_and_io(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    test_rng rng = test_rng_seeded(5);
    stenc_field *a, *b;
    assert_stenc_ok(stenc_field_create(ctx, &a, STENC_F64, 3, 13, 6, 5, 1));
    assert_stenc_ok(stenc_field_create(ctx, &b, STENC_F64, 3, 13, 6, 5, 1));
    field_randomize(a, &rng);
    field_randomize(b, &rng);
    const size_t count = 13 * 6 * 5;
    double *va = malloc(count * sizeof *va), *vb = malloc(count * sizeof *vb);
    double *got = malloc(count * sizeof *got);
    assert_non_null(va);
    assert_non_null(vb);
    assert_non_null(got);
    assert_stenc_ok(stenc_field_copy_to(a, va));
    assert_stenc_ok(stenc_field_copy_to(b, vb));
    assert_stenc_ok(stenc_field_upload(a));
    assert_stenc_ok(stenc_field_upload(b));
    /* A view's device origin is a place in its parent's buffer. */
    stenc_field *view;
    const size_t lo[3] = {0, 2, 1}, extent[3] = {13, 3, 2};
    assert_stenc_ok(stenc_field_view(&view, a, lo, extent));
    void *parent_mem, *view_mem;
    size_t parent_at, view_at;
    assert_stenc_ok(stenc_ocl_buffer(ctx, stenc_field_device_origin(a), &parent_mem, &parent_at));
    assert_stenc_ok(stenc_ocl_buffer(ctx, stenc_field_device_origin(view), &view_mem, &view_at));
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(a, &L));
    assert_ptr_equal(view_mem, parent_mem);
    assert_int_equal(view_at, parent_at + (size_t)(2 * L.stride[1] + L.stride[2]) * sizeof(double));
    assert_int_equal(parent_at, L.origin_elems * sizeof(double));
    assert_stenc_ok(stenc_field_free(view));
    assert_stenc_ok(stenc_field_swap(a, b));
    /* Field I/O reads and writes device fields in place (through stenc_download/upload). */
    char path[] = "/tmp/stenc_test_opencl_XXXXXX", path_b[] = "/tmp/stenc_test_opencl_XXXXXX";
    const int fd = mkstemp(path), fd_b = mkstemp(path_b);
    assert_true(fd >= 0 && fd_b >= 0);
    close(fd);
    close(fd_b);
    assert_stenc_ok(stenc_io_npy_write(path, a)); /* a holds b's data now, and b a's */
    assert_stenc_ok(stenc_io_npy_write(path_b, b));
    assert_int_equal(stenc_field_location(a), STENC_ON_DEVICE);
    stenc_ctx *cpu;
    stenc_field *plain;
    assert_stenc_ok(stenc_ctx_create(&cpu, STENC_DEVICE_CPU));
    assert_stenc_ok(stenc_field_create(cpu, &plain, STENC_F64, 3, 13, 6, 5, 0));
    assert_stenc_ok(stenc_io_npy_read(path_b, plain));
    assert_stenc_ok(stenc_field_copy_to(plain, got));
    assert_memory_equal(got, va, count * sizeof *got);
    assert_stenc_ok(stenc_io_npy_read(path, plain));
    assert_stenc_ok(stenc_field_copy_to(plain, got));
    assert_memory_equal(got, vb, count * sizeof *got);
    assert_stenc_ok(stenc_io_npy_read(path, b)); /* b (a's data) takes b's data back */
    assert_int_equal(stenc_field_location(b), STENC_ON_DEVICE);
    assert_stenc_ok(stenc_field_download(a));
    assert_stenc_ok(stenc_field_download(b));
    assert_stenc_ok(stenc_field_copy_to(a, got));
    assert_memory_equal(got, vb, count * sizeof *got);
    assert_stenc_ok(stenc_field_copy_to(b, got));
    assert_memory_equal(got, vb, count * sizeof *got);
    unlink(path);
    unlink(path_b);
    free(va);
    free(vb);
    free(got);
    assert_stenc_ok(stenc_field_free(plain));
    assert_stenc_ok(stenc_ctx_destroy(cpu));
    assert_stenc_ok(stenc_field_free(a));
    /* A device field outliving its context is reported, not freed twice. */
    assert_stenc_ok(stenc_field_upload(b));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
    assert_int_equal(stenc_field_free(b), STENC_ERR_INVALID_ARGUMENT);
}

/* ---- stenc_ocl_launch ------------------------------------------------------------------------ */

/* y = a * x + b * (global linear index) + extra[0], with the argument convention of
 * stenc/opencl.h; FP_CONTRACT off so that it rounds as the C loop below. */
static const stenc_ocl_program axpb_program = {
    "axpb",
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#ifdef STENC_FP64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "typedef double real;\n"
    "#else\n"
    "typedef float real;\n"
    "#endif\n"
    "__kernel void axpb(__global uchar *xb, long xo, long xsj, long xsk,\n"
    "                   __global uchar *yb, long yo, long ysj, long ysk,\n"
    "                   real a, real b, long n0, long n1, long n2, long o0, long o1, long o2,\n"
    "                   int add) {\n"
    "    const long i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);\n"
    "    if (i >= n0 || j >= n1 || k >= n2) return;\n"
    "    __global const real *x = (__global const real *)(xb + xo);\n"
    "    __global real *y = (__global real *)(yb + yo);\n"
    "    const long g = (i + o0) + 1000 * (j + o1) + 1000000 * (k + o2);\n"
    "    y[i + j * ysj + k * ysk] = a * x[i + j * xsj + k * xsk] + b * (real)g + (real)add;\n"
    "}\n",
    NULL, NULL};

/* The C reference of one point, in the precision of the type. */
static double axpb_point(stenc_type type, double a, double b, double x, long g, int add) {
    if (type == STENC_F32) {
        const float t = (float)a * (float)x, u = (float)b * (float)g;
        return (double)((float)(t + u) + (float)add);
    }
    return a * x + b * (double)g + (double)add;
}

/* Launch axpb over the box lo .. lo+m-1 of fields x, y (both on the device), then check every
 * point of y, halo included: inside the box against the C loop, elsewhere untouched. */
static void launch_axpb(stenc_ctx *ctx, stenc_type type, int dims, const size_t n[3], int halo,
                        const size_t lo[3], const size_t m[3], const size_t *local, test_rng *rng) {
    stenc_field *x, *y;
    assert_stenc_ok(stenc_field_create(ctx, &x, type, dims, n[0], n[1], n[2], halo));
    assert_stenc_ok(stenc_field_create(ctx, &y, type, dims, n[0], n[1], n[2], halo));
    field_randomize(x, rng);
    field_randomize(y, rng); /* the poison: points outside the box keep it */
    field_box box = field_box_of(x);
    double *xv = field_box_read(x, &box), *before = field_box_read(y, &box);
    assert_stenc_ok(stenc_field_upload(x));
    assert_stenc_ok(stenc_field_upload(y));
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(x, &L));
    const size_t esize = stenc_type_size(type);
    /* The box's first point as the origin: an interior offset inside the allocation. */
    const ptrdiff_t shift =
        (ptrdiff_t)lo[0] + (ptrdiff_t)lo[1] * L.stride[1] + (ptrdiff_t)lo[2] * L.stride[2];
    stenc_launch_field f[2] = {
        {(char *)stenc_field_device_origin(x) + shift * (ptrdiff_t)esize, {1, 0, 0}},
        {(char *)stenc_field_device_origin(y) + shift * (ptrdiff_t)esize, {1, 0, 0}}};
    for (int a = 0; a < 2; a++)
        f[a].stride[1] = L.stride[1], f[a].stride[2] = L.stride[2];
    const stenc_launch_shape shape = {STENC_ON_DEVICE, {m[0], m[1], m[2]}, {lo[0], lo[1], lo[2]}};
    const double scalars[2] = {test_rng_uniform(rng, -2, 2), 1.0 / 4096};
    const int add = 3;
    assert_stenc_ok(stenc_ocl_launch(ctx, &axpb_program, "axpb", dims, local, NULL, &shape, f, 2,
                                     scalars, 2, type, &add, 1));
    assert_stenc_ok(stenc_field_download(y));
    double *after = field_box_read(y, &box);
    for (long k = -box.h[2]; k < box.n[2] + box.h[2]; k++)
        for (long j = -box.h[1]; j < box.n[1] + box.h[1]; j++)
            for (long i = -box.h[0]; i < box.n[0] + box.h[0]; i++) {
                const size_t at = field_box_index(&box, i, j, k);
                const long p[3] = {i, j, k};
                int inside = 1;
                for (int d = 0; d < 3; d++)
                    inside &= p[d] >= (long)lo[d] && p[d] < (long)(lo[d] + m[d]);
                const double want = inside ? axpb_point(type, scalars[0], scalars[1], xv[at],
                                                        i + 1000 * j + 1000000 * k, add)
                                           : before[at];
                if (memcmp(&after[at], &want, sizeof want) != 0)
                    fail_msg("%s %dD %zux%zux%zu box (%zu,%zu,%zu)+(%zu,%zu,%zu) local %s: point "
                             "(%ld,%ld,%ld) is %.17g, expected %.17g",
                             stenc_type_name(type), dims, n[0], n[1], n[2], lo[0], lo[1], lo[2],
                             m[0], m[1], m[2], local ? "set" : "NULL", i, j, k, after[at], want);
            }
    free(xv);
    free(before);
    free(after);
    assert_stenc_ok(stenc_field_free(x));
    assert_stenc_ok(stenc_field_free(y));
}

static void test_launch_matches_c_loop(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    test_rng rng = test_rng_seeded(33);
    static const size_t local1[3] = {16, 1, 1}, local2[3] = {8, 4, 1}, local3[3] = {8, 2, 2};
    const size_t *locals[4] = {NULL, local1, local2, local3};
    for (int t = 0; t < 2; t++) {
        const stenc_type type = t ? STENC_F64 : STENC_F32;
        for (int dims = 1; dims <= 3; dims++) {
            const size_t n[3] = {37, dims >= 2 ? 11 : 1, dims >= 3 ? 6 : 1};
            const size_t all[3] = {0, 0, 0};
            const size_t lo[3] = {5, dims >= 2 ? 2 : 0, dims >= 3 ? 1 : 0};
            const size_t m[3] = {29, dims >= 2 ? 7 : 1, dims >= 3 ? 4 : 1};
            launch_axpb(ctx, type, dims, n, 2, all, n, NULL, &rng);
            launch_axpb(ctx, type, dims, n, 2, all, n, locals[dims], &rng);
            launch_axpb(ctx, type, dims, n, 1, lo, m, locals[dims], &rng);
            launch_axpb(ctx, type, dims, n, 0, lo, m, NULL, &rng);
        }
    }
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

/* A program's own build options, and work items of several points: VALUE comes from the
 * options (two programs of one source with other options are two programs), and with points
 * = {3} each item covers three points, so there are fewer items than points (else 1 is
 * written). */
#define PUT3_SOURCE                                                                                \
    "__kernel void put3(__global uchar *b, long o, long sj, long sk, long n0, long n1,\n"          \
    "                   long n2, long o0, long o1, long o2) {\n"                                   \
    "    for (long i = get_global_id(0) * 3; i < get_global_id(0) * 3 + 3; i++)\n"                 \
    "        if (i < n0) ((__global uint *)(b + o))[i] = get_global_size(0) < n0 ? VALUE : 1u;\n"  \
    "}\n"
static void test_program_options_and_points(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    static const stenc_ocl_program seven = {"seven", PUT3_SOURCE, "-DVALUE=7u", NULL};
    static const stenc_ocl_program nine = {"nine", PUT3_SOURCE, "-DVALUE=9u", NULL};
    enum { N = 1001 };
    uint32_t host[N];
    void *dev;
    assert_stenc_ok(stenc_malloc(ctx, &dev, sizeof host));
    const stenc_launch_field f = {dev, {1, 0, 0}};
    const stenc_launch_shape shape = {STENC_ON_DEVICE, {N, 1, 1}, {0, 0, 0}};
    const size_t three[1] = {3}, local[1] = {32};
    const stenc_ocl_program *programs[2] = {&seven, &nine};
    for (int p = 0; p < 2; p++)
        for (int with_local = 0; with_local < 2; with_local++) {
            assert_stenc_ok(stenc_memzero(ctx, dev, sizeof host));
            assert_stenc_ok(stenc_ocl_launch(ctx, programs[p], "put3", 1, with_local ? local : NULL,
                                             three, &shape, &f, 1, NULL, 0, STENC_F32, NULL, 0));
            assert_stenc_ok(stenc_download(ctx, host, dev, sizeof host));
            for (int i = 0; i < N; i++)
                if (host[i] != (p ? 9u : 7u))
                    fail_msg("%s, local %d: point %d is %u", programs[p]->name, with_local, i,
                             host[i]);
        }
    /* Another program at the same address (a library unloaded and another loaded there):
     * found by its name, source and options too, not by the address alone. */
    stenc_ocl_program moved = seven;
    assert_stenc_ok(stenc_ocl_launch(ctx, &moved, "put3", 1, NULL, three, &shape, &f, 1, NULL, 0,
                                     STENC_F32, NULL, 0));
    moved.options = "-DVALUE=9u";
    assert_stenc_ok(stenc_ocl_launch(ctx, &moved, "put3", 1, NULL, three, &shape, &f, 1, NULL, 0,
                                     STENC_F32, NULL, 0));
    assert_stenc_ok(stenc_download(ctx, host, dev, sizeof host));
    assert_int_equal(host[N - 1], 9u);
    /* ... and by its digest, where the program gives one (generated programs do) */
    moved.digest = "d1";
    assert_stenc_ok(stenc_ocl_launch(ctx, &moved, "put3", 1, NULL, three, &shape, &f, 1, NULL, 0,
                                     STENC_F32, NULL, 0));
    moved.options = "-DVALUE=7u", moved.digest = "d2";
    assert_stenc_ok(stenc_ocl_launch(ctx, &moved, "put3", 1, NULL, three, &shape, &f, 1, NULL, 0,
                                     STENC_F32, NULL, 0));
    assert_stenc_ok(stenc_download(ctx, host, dev, sizeof host));
    assert_int_equal(host[N - 1], 7u);
    char longer[300];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    const stenc_ocl_program wordy = {"wordy", PUT3_SOURCE, longer, NULL};
    assert_int_equal(stenc_ocl_launch(ctx, &wordy, "put3", 1, NULL, NULL, &shape, &f, 1, NULL, 0,
                                      STENC_F32, NULL, 0),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_message_has("longer than 255");
    assert_stenc_ok(stenc_free(ctx, dev));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

static void test_build_error_reports_the_log(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    static const stenc_ocl_program broken = {"broken_stencil",
                                             "__kernel void broken(__global uchar *b, long o) {\n"
                                             "    int x = 1 +;\n"
                                             "}\n",
                                             NULL, NULL};
    char host[16];
    void *dev;
    assert_stenc_ok(stenc_malloc(ctx, &dev, sizeof host));
    const stenc_launch_field f = {dev, {1, 0, 0}};
    const stenc_launch_shape shape = {STENC_ON_DEVICE, {4, 1, 1}, {0, 0, 0}};
    for (int again = 0; again < 2; again++) { /* a failed build is not kept */
        assert_int_equal(stenc_ocl_launch(ctx, &broken, "broken", 1, NULL, NULL, &shape, &f, 1,
                                          NULL, 0, STENC_F32, NULL, 0),
                         STENC_ERR_OPENCL);
        assert_message_has("broken_stencil");
        assert_message_has("-cl-std=CL1.2");
        /* The compiler's own words follow "build log:" (compilers say "error"). */
        const char *log = strstr(stenc_last_error(), "build log:\n");
        assert_non_null(log);
        log += strlen("build log:\n");
        const char *end = strstr(log, " [runtime/");
        assert_non_null(end);
        assert_true(end - log > 10);
        const char *said = strstr(log, "error");
        assert_true(said != NULL && said < end);
    }
    assert_stenc_ok(stenc_free(ctx, dev));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

static void test_launch_errors(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    const size_t n = 10;
    float host[10];
    for (size_t i = 0; i < n; i++)
        host[i] = (float)i;
    void *dev;
    assert_stenc_ok(stenc_malloc(ctx, &dev, sizeof host));
    assert_stenc_ok(stenc_upload(ctx, dev, host, sizeof host));
    const stenc_launch_field f = {dev, {1, 0, 0}};
    stenc_launch_shape shape = {STENC_ON_DEVICE, {n, 1, 1}, {0, 0, 0}};
    const int rounds = 3;
    /* A kernel the program does not have. */
    assert_int_equal(stenc_ocl_launch(ctx, &busy_program, "lazy", 1, NULL, NULL, &shape, &f, 1,
                                      NULL, 0, STENC_F32, &rounds, 1),
                     STENC_ERR_OPENCL);
    assert_message_has("lazy");
    assert_message_has("CL_INVALID_KERNEL_NAME");
    /* Arguments the kernel does not take. */
    assert_int_equal(stenc_ocl_launch(ctx, &busy_program, "busy", 1, NULL, NULL, &shape, &f, 1,
                                      NULL, 0, STENC_F32, NULL, 0),
                     STENC_ERR_OPENCL);
    assert_message_has("takes 11 arguments");
    /* Fields on the host, origins outside the context's memory, bad counts and sizes. */
    shape.location = STENC_ON_HOST;
    assert_int_equal(stenc_ocl_launch(ctx, &busy_program, "busy", 1, NULL, NULL, &shape, &f, 1,
                                      NULL, 0, STENC_F32, &rounds, 1),
                     STENC_ERR_LOCATION);
    shape.location = STENC_ON_DEVICE;
    const stenc_launch_field stray = {host, {1, 0, 0}};
    assert_int_equal(stenc_ocl_launch(ctx, &busy_program, "busy", 1, NULL, NULL, &shape, &stray, 1,
                                      NULL, 0, STENC_F32, &rounds, 1),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_ocl_launch(ctx, &busy_program, "busy", 0, NULL, NULL, &shape, &f, 1,
                                      NULL, 0, STENC_F32, &rounds, 1),
                     STENC_ERR_INVALID_ARGUMENT);
    const size_t zero_local[1] = {0};
    assert_int_equal(stenc_ocl_launch(ctx, &busy_program, "busy", 1, zero_local, NULL, &shape, &f,
                                      1, NULL, 0, STENC_F32, &rounds, 1),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_ocl_launch(ctx, &busy_program, "busy", 1, NULL, zero_local, &shape, &f,
                                      1, NULL, 0, STENC_F32, &rounds, 1),
                     STENC_ERR_INVALID_ARGUMENT); /* zero points per work item */
    assert_int_equal(stenc_ocl_launch(ctx, &busy_program, "busy", 1, NULL, NULL, &shape, &f, 1,
                                      NULL, 0, STENC_I32, &rounds, 1),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_ocl_launch(ctx, NULL, "busy", 1, NULL, NULL, &shape, &f, 1, NULL, 0,
                                      STENC_F32, &rounds, 1),
                     STENC_ERR_INVALID_ARGUMENT);
    /* An empty interior launches nothing, whichever extent is 0 (busy checks n0 alone). */
    for (int d = 0; d < 3; d++) {
        shape.n[0] = n, shape.n[1] = shape.n[2] = 1;
        shape.n[d] = 0;
        assert_stenc_ok(stenc_ocl_launch(ctx, &busy_program, "busy", 1, NULL, NULL, &shape, &f, 1,
                                         NULL, 0, STENC_F32, &rounds, 1));
    }
    float back[10];
    assert_stenc_ok(stenc_download(ctx, back, dev, sizeof back));
    assert_memory_equal(back, host, sizeof host);
    assert_stenc_ok(stenc_free(ctx, dev));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

/* ---- stenc_ocl_reduce ------------------------------------------------------------------------ */

/* Sum and max of x over each work item's points (`points` along i), as partials per item, or
 * per group of 8 items merged by item 0 in item order: the stenc_acc functions come from the
 * runtime's prelude (stenc/accum.h). */
static const stenc_ocl_program sum_max_program = {
    "sum_max",
    "static void accumulate(__global uchar *xb, long xo, long n0, stenc_acc *acc) {\n"
    "    __global const float *x = (__global const float *)(xb + xo);\n"
    "    const long items = (long)get_global_size(0);\n"
    "    const long span = (n0 + items - 1) / items;\n"
    "    const long lo = (long)get_global_id(0) * span;\n"
    "    for (long i = lo; i < lo + span && i < n0; i++) {\n"
    "        stenc_acc_sum_add(&acc[0], (double)x[i]);\n"
    "        stenc_acc_max_add(&acc[1], (double)x[i]);\n"
    "    }\n"
    "}\n"
    "__kernel void sum_max_items(__global uchar *xb, long xo, long xsj, long xsk, long n0,\n"
    "                            long n1, long n2, long o0, long o1, long o2,\n"
    "                            __global double *parts) {\n"
    "    stenc_acc acc[2] = {STENC_ACC_SUM_INIT, STENC_ACC_MAX_INIT};\n"
    "    accumulate(xb, xo, n0, acc);\n"
    "    const size_t g = get_global_id(0);\n"
    "    parts[4 * g] = acc[0].s, parts[4 * g + 1] = acc[0].c;\n"
    "    parts[4 * g + 2] = acc[1].s, parts[4 * g + 3] = acc[1].c;\n"
    "}\n"
    "__kernel void sum_max_groups(__global uchar *xb, long xo, long xsj, long xsk, long n0,\n"
    "                             long n1, long n2, long o0, long o1, long o2,\n"
    "                             __global double *parts) {\n"
    "    __local double ls[8][4];\n"
    "    stenc_acc acc[2] = {STENC_ACC_SUM_INIT, STENC_ACC_MAX_INIT};\n"
    "    accumulate(xb, xo, n0, acc);\n"
    "    const int l = (int)get_local_id(0);\n"
    "    ls[l][0] = acc[0].s, ls[l][1] = acc[0].c, ls[l][2] = acc[1].s, ls[l][3] = acc[1].c;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (l == 0) {\n"
    "        for (int m = 1; m < 8; m++) {\n"
    "            const stenc_acc s = {ls[m][0], ls[m][1]}, x = {ls[m][2], ls[m][3]};\n"
    "            stenc_acc_sum_merge(&acc[0], &s);\n"
    "            stenc_acc_max_merge(&acc[1], &x);\n"
    "        }\n"
    "        const size_t g = get_group_id(0);\n"
    "        parts[4 * g] = acc[0].s, parts[4 * g + 1] = acc[0].c;\n"
    "        parts[4 * g + 2] = acc[1].s, parts[4 * g + 3] = acc[1].c;\n"
    "    }\n"
    "}\n",
    NULL, NULL};

/* stenc_ocl_reduce against a C loop: per item and per group, at awkward lengths; the same bits
 * on a second run; an empty interior; and its errors. */
static void test_reduce(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    static const size_t lengths[] = {1, 7, 64, 1000, 100003};
    test_rng rng = test_rng_seeded(91);
    for (size_t c = 0; c < sizeof lengths / sizeof *lengths; c++) {
        const size_t n = lengths[c];
        float *host = malloc(n * sizeof *host);
        long double sum = 0, magnitude = 0;
        float max = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            host[i] = (float)test_rng_uniform(&rng, -1e3, 1e3);
            sum += host[i], magnitude += fabsl((long double)host[i]);
            max = host[i] > max ? host[i] : max;
        }
        void *dev;
        assert_stenc_ok(stenc_malloc(ctx, &dev, n * sizeof *host));
        assert_stenc_ok(stenc_upload(ctx, dev, host, n * sizeof *host));
        const stenc_launch_field f = {dev, {1, 0, 0}};
        const stenc_launch_shape shape = {STENC_ON_DEVICE, {n, 1, 1}, {0, 0, 0}};
        for (int per_group = 0; per_group < 2; per_group++) {
            const size_t points[1] = {5}, local[1] = {8};
            double got[2], again[2];
            const char *kernel = per_group ? "sum_max_groups" : "sum_max_items";
            assert_stenc_ok(stenc_ocl_reduce(ctx, &sum_max_program, kernel, 1,
                                             per_group ? local : NULL, points, &shape, &f, 1, NULL,
                                             0, STENC_F32, NULL, 0, "sx", got));
            assert_stenc_ok(stenc_ocl_reduce(ctx, &sum_max_program, kernel, 1,
                                             per_group ? local : NULL, points, &shape, &f, 1, NULL,
                                             0, STENC_F32, NULL, 0, "sx", again));
            if (fabsl((long double)got[0] - sum) > 4 * 0x1p-53L * magnitude)
                fail_msg("n %zu, per group %d: sum %.17g, want %.17Lg", n, per_group, got[0], sum);
            assert_true(got[1] == (double)max);
            assert_memory_equal(got, again, sizeof got);
        }
        free(host);
        assert_stenc_ok(stenc_free(ctx, dev));
    }
    void *dev;
    assert_stenc_ok(stenc_malloc(ctx, &dev, 64));
    const stenc_launch_field f = {dev, {1, 0, 0}};
    stenc_launch_shape shape = {STENC_ON_DEVICE, {0, 1, 1}, {0, 0, 0}};
    double got[2] = {1, 1};
    /* Over no point: the identities. */
    assert_stenc_ok(stenc_ocl_reduce(ctx, &sum_max_program, "sum_max_items", 1, NULL, NULL, &shape,
                                     &f, 1, NULL, 0, STENC_F32, NULL, 0, "sx", got));
    assert_true(got[0] == 0 && got[1] == -INFINITY);
    shape.n[0] = 16;
    assert_int_equal(stenc_ocl_reduce(ctx, &sum_max_program, "sum_max_items", 1, NULL, NULL, &shape,
                                      &f, 1, NULL, 0, STENC_F32, NULL, 0, "sq", got),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_message_has("must be 1 to 64");
    assert_int_equal(stenc_ocl_reduce(ctx, &sum_max_program, "sum_max_items", 1, NULL, NULL, &shape,
                                      &f, 1, NULL, 0, STENC_F32, NULL, 0, "", got),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_ocl_reduce(ctx, &sum_max_program, "sum_max_items", 1, NULL, NULL, &shape,
                                      &f, 1, NULL, 0, STENC_F32, NULL, 0, NULL, got),
                     STENC_ERR_INVALID_ARGUMENT);
    /* A kernel without the partials' argument. */
    const int rounds = 1;
    assert_int_equal(stenc_ocl_reduce(ctx, &busy_program, "busy", 1, NULL, NULL, &shape, &f, 1,
                                      NULL, 0, STENC_F32, &rounds, 1, "s", got),
                     STENC_ERR_OPENCL);
    assert_message_has("and the partials");
    assert_stenc_ok(stenc_free(ctx, dev));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

/* ---- modules with CPU and CUDA kernels only -------------------------------------------------- */

static void test_cpu_and_cuda_modules_refuse(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx();
    void *dev;
    assert_stenc_ok(stenc_malloc(ctx, &dev, 4096));
    stenc_hash_table *table = (stenc_hash_table *)&table;
    assert_int_equal(stenc_hash_create(ctx, NULL, &table), STENC_ERR_UNSUPPORTED);
    assert_null(table);
    assert_message_has("stenc_hash_create");
    assert_int_equal(stenc_sort(ctx, STENC_U32, dev, STENC_U32, NULL, 100, STENC_SORT_ASCENDING),
                     STENC_ERR_UNSUPPORTED);
    assert_message_has("OpenCL");
    char *p = dev;
    assert_int_equal(stenc_tridiag_solve(ctx, STENC_F32, STENC_TRIDIAG_CONTIGUOUS, 8, 2, p, p + 64,
                                         p + 128, p + 192, p + 256, NULL),
                     STENC_ERR_UNSUPPORTED);
    double x0[2] = {0, 0}, x[2], fx[1];
    stenc_nm_batch batch = {0};
    batch.count = 1, batch.dim = 2, batch.x0 = x0, batch.x = x, batch.f = fx;
    assert_int_equal(stenc_nm_minimize(ctx, STENC_NM_ROSENBROCK, &batch, NULL),
                     STENC_ERR_UNSUPPORTED);
    assert_int_equal(stenc_graph_begin(ctx), STENC_ERR_UNSUPPORTED);
    /* Field reductions: on the host they run as on a CPU context, on the device they refuse. */
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F64, 2, 5, 3, 1, 1));
    assert_stenc_ok(stenc_field_fill(f, 0.5));
    double sum = 0;
    assert_stenc_ok(stenc_field_sum(f, &sum));
    assert_true(sum == 7.5);
    assert_stenc_ok(stenc_field_upload(f));
    assert_int_equal(stenc_field_sum(f, &sum), STENC_ERR_UNSUPPORTED);
    assert_message_has("stenc_field_sum");
    assert_stenc_ok(stenc_field_free(f));
    assert_stenc_ok(stenc_free(ctx, dev));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

static void test_tune_key_names_the_opencl_device(void **state) {
    (void)state;
    stenc_ctx *ctx = ocl_ctx(), *cpu;
    assert_stenc_ok(stenc_ctx_create(&cpu, STENC_DEVICE_CPU));
    const size_t n[3] = {64, 64, 1};
    char key[512], cpu_key[512];
    assert_stenc_ok(stenc_tune_key(ctx, "heat", "d1", n, STENC_F32, key, sizeof key));
    assert_stenc_ok(stenc_tune_key(cpu, "heat", "d1", n, STENC_F32, cpu_key, sizeof cpu_key));
    assert_non_null(strstr(key, "(OpenCL)"));
    assert_string_not_equal(key, cpu_key);
    /* The device type, for the generated kernels' default: PoCL's is a CPU, NVIDIA's is not. */
    const int pocl = strstr(stenc_ctx_device_name(ctx), "Portable Computing Language") != NULL;
    const int nvidia = strstr(stenc_ctx_device_name(ctx), "NVIDIA") != NULL;
    if (pocl) assert_int_equal(stenc_ocl_device_is_cpu(ctx), 1);
    if (nvidia) assert_int_equal(stenc_ocl_device_is_cpu(ctx), 0);
    assert_int_equal(stenc_ocl_device_is_cpu(cpu), 0);
    assert_int_equal(stenc_ocl_device_is_cpu(NULL), 0);
    assert_stenc_ok(stenc_ctx_destroy(cpu));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

int main(void) {
    const struct CMUnitTest everywhere[] = {
        cmocka_unit_test(test_built_with_opencl_matches_the_build),
        cmocka_unit_test(test_opencl_calls_refuse_a_cpu_context),
    };
    if (cmocka_run_group_tests_name("opencl_everywhere", everywhere, NULL, NULL)) return 1;
    if (stenc_opencl_device_count() == 0) {
        printf("SKIPPED: no OpenCL device (built with OpenCL: %s)\n",
               stenc_built_with_opencl() ? "yes" : "no");
        return STENC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_context_create_and_name),
        cmocka_unit_test(test_auto_takes_opencl_from_the_environment),
        cmocka_unit_test(test_bad_device_choice),
        cmocka_unit_test(test_malloc_upload_download_round_trips),
        cmocka_unit_test(test_memcpy_and_memzero),
        cmocka_unit_test(test_foreign_pointers_are_errors),
        cmocka_unit_test(test_timer_measures_queued_work),
        cmocka_unit_test(test_field_upload_download),
        cmocka_unit_test(test_device_halo_fill_matches_host),
        cmocka_unit_test(test_device_fields_swap_and_io),
        cmocka_unit_test(test_launch_matches_c_loop),
        cmocka_unit_test(test_program_options_and_points),
        cmocka_unit_test(test_build_error_reports_the_log),
        cmocka_unit_test(test_launch_errors),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_cpu_and_cuda_modules_refuse),
        cmocka_unit_test(test_tune_key_names_the_opencl_device),
    };
    return cmocka_run_group_tests_name("opencl", tests, NULL, NULL);
}
