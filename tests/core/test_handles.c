/* Handles used after their destroy, destroyed twice, or passed as another kind: every call
 * reports it (STENC_ERR_INVALID_ARGUMENT, naming the call and the argument) without reading
 * the memory behind the pointer, which ASan would flag. And what a failed call leaves in its
 * outputs (docs/runtime.md).
 *
 * A stale pointer is only recognised while no new handle has taken its address, so each case
 * checks its destroyed handles before it creates anything else. */
#include "test_util.h"

#include "stenc/hash.h"
#include "stenc/launch.h"
#include "stenc/multigrid.h"
#include "stenc/reduce.h"
#include "stenc/tune.h"

static stenc_ctx *cpu(void) {
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    return ctx;
}

/* The call failed as an invalid argument with both pieces of text in its message. */
#define assert_rejected(call, text1, text2)                                                        \
    do {                                                                                           \
        stenc_clear_error();                                                                       \
        assert_int_equal((call), STENC_ERR_INVALID_ARGUMENT);                                      \
        if (!strstr(stenc_last_error(), (text1)) || !strstr(stenc_last_error(), (text2)))          \
            fail_msg("%s: message '%s' lacks '%s' or '%s'", #call, stenc_last_error(), (text1),    \
                     (text2));                                                                     \
    } while (0)

static void test_context_destroyed(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    assert_stenc_ok(stenc_ctx_destroy(ctx));
    assert_rejected(stenc_ctx_destroy(ctx), "stenc_ctx_destroy", "not a live context");
    assert_rejected(stenc_ctx_synchronize(ctx), "stenc_ctx_synchronize", "ctx");
    void *p = (void *)&p;
    assert_rejected(stenc_malloc(ctx, &p, 8), "stenc_malloc", "not a live context");
    assert_null(p);
    char a[4] = "abc";
    assert_rejected(stenc_memcpy(ctx, a, "xyz", 4), "stenc_memcpy", "not a live context");
    assert_rejected(stenc_free(ctx, a), "stenc_free", "not a live context");
    assert_string_equal(a, "abc");
    /* Accessors give their NULL-argument answer and say why. */
    stenc_clear_error();
    assert_int_equal(stenc_ctx_device(ctx), STENC_DEVICE_CPU);
    assert_non_null(strstr(stenc_last_error(), "stenc_ctx_device"));
    assert_string_equal(stenc_ctx_device_name(ctx), "(null)");
    assert_null(stenc_ctx_cuda_stream(ctx));
    assert_int_equal(stenc_tune_get_mode(ctx), STENC_TUNE_OFF);
    assert_int_equal(stenc_graph_recording(ctx), 0);
    /* Everything created on it fails, and the out-pointer is NULL. */
    stenc_field *f = (stenc_field *)&f;
    assert_rejected(stenc_field_create(ctx, &f, STENC_F32, 1, 4, 1, 1, 0), "stenc_field_create",
                    "ctx");
    assert_null(f);
    stenc_hash_table *t = (stenc_hash_table *)&t;
    assert_rejected(stenc_hash_create(ctx, NULL, &t), "stenc_hash_create", "ctx");
    assert_null(t);
    stenc_timer *timer = (stenc_timer *)&timer;
    assert_rejected(stenc_timer_create(ctx, &timer), "stenc_timer_create", "ctx");
    assert_null(timer);
    stenc_tridiag_report *r = (stenc_tridiag_report *)&r;
    assert_rejected(stenc_tridiag_report_create(ctx, &r), "stenc_tridiag_report_create", "ctx");
    assert_null(r);
    stenc_graph *g = (stenc_graph *)&g;
    assert_rejected(stenc_graph_end(ctx, &g), "stenc_graph_end", "ctx");
    assert_null(g);
    uint32_t keys[3] = {3, 1, 2};
    assert_rejected(stenc_sort(ctx, STENC_U32, keys, STENC_U32, NULL, 3, STENC_SORT_ASCENDING),
                    "stenc_sort", "ctx");
    assert_int_equal(keys[0], 3);
    float d[2] = {1, 1}, x[2] = {7, 7};
    assert_rejected(
        stenc_tridiag_solve(ctx, STENC_F32, STENC_TRIDIAG_CONTIGUOUS, 2, 1, d, d, d, d, x, NULL),
        "stenc_tridiag_solve", "ctx");
    assert_true(x[0] == 7 && x[1] == 7);
    assert_rejected(stenc_tune(ctx, STENC_TUNE_ON), "stenc_tune", "ctx");
    assert_rejected(stenc_graph_begin(ctx), "stenc_graph_begin", "ctx");
    assert_stenc_ok(stenc_ctx_destroy(NULL));
}

static const stenc_launch_arg blur_args[2] = {{"u", STENC_ARG_INPUT, 1, "u[-1]", 0u, 0, {0, 0, 0}},
                                              {"v", STENC_ARG_OUTPUT, 0, "", 0u, 0, {0, 0, 0}}};
static const stenc_launch_desc blur = {"blur", 1, STENC_F32, STENC_TARGET_C, 2, blur_args};

static void test_field_destroyed(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    stenc_field *u, *v, *w;
    assert_stenc_ok(stenc_field_create(ctx, &u, STENC_F32, 1, 5, 1, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &v, STENC_F32, 1, 5, 1, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &w, STENC_F32, 1, 5, 1, 1, 1));
    const stenc_field *fields[2] = {u, v};
    stenc_launch_field out[2];
    stenc_launch_shape shape;
    assert_stenc_ok(stenc_launch_check(&blur, ctx, fields, out, &shape));

    assert_stenc_ok(stenc_field_free(v));
    assert_rejected(stenc_field_free(v), "stenc_field_free", "not a live field");
    /* The generated launchers' shared check names the argument. */
    memset(out, 0x5a, sizeof out);
    memset(&shape, 0x5a, sizeof shape);
    assert_rejected(stenc_launch_check(&blur, ctx, fields, out, &shape), "blur: field 'v'",
                    "not a live field");
    for (size_t i = 0; i < sizeof out; i++)
        assert_int_equal(((unsigned char *)out)[i], 0x5a);
    double value = 42;
    assert_rejected(stenc_field_get(v, 0, 0, 0, &value), "stenc_field_get", "field");
    assert_true(value == 42);
    assert_rejected(stenc_field_set(v, 0, 0, 0, 1.0), "stenc_field_set", "field");
    assert_rejected(stenc_field_fill(v, 1.0), "stenc_field_fill", "field");
    float dense[5] = {0};
    assert_rejected(stenc_field_copy_from(v, dense), "stenc_field_copy_from", "field");
    assert_rejected(stenc_field_copy_to(v, dense), "stenc_field_copy_to", "field");
    assert_rejected(stenc_field_upload(v), "stenc_field_upload", "field");
    assert_rejected(stenc_field_download(v), "stenc_field_download", "field");
    stenc_bc bc[STENC_FACE_COUNT] = {{STENC_BC_DIRICHLET, 0}, {STENC_BC_DIRICHLET, 0}};
    assert_rejected(stenc_field_fill_halo(v, bc), "stenc_field_fill_halo", "field");
    assert_rejected(stenc_field_swap(u, v), "stenc_field_swap", "field b");
    stenc_field_layout layout;
    assert_rejected(stenc_field_get_layout(v, &layout), "stenc_field_get_layout", "field");
    assert_rejected(stenc_field_sum(v, &value), "stenc_field_sum", "field");
    assert_rejected(stenc_field_dot(u, v, &value), "stenc_field_dot", "b (");
    assert_true(value == 42);
    assert_rejected(stenc_mg_prolong_add(w, v, STENC_MG_GRID_VERTEX), "stenc_mg_prolong_add",
                    "coarse");
    assert_null(stenc_field_host_origin(v));
    assert_null(stenc_field_device_origin(v));
    assert_null(stenc_field_ctx(v));
    assert_int_equal(stenc_field_location(v), STENC_ON_HOST);
    assert_non_null(strstr(stenc_last_error(), "stenc_field_location"));

    assert_stenc_ok(stenc_field_free(u));
    assert_stenc_ok(stenc_field_free(w));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

/* A context destroyed before its fields: the fields report it, and still free (on the host). */
static void test_context_destroyed_before_field(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F64, 2, 3, 3, 1, 1));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
    assert_rejected(stenc_field_fill(f, 1.0), "stenc_field_fill", "context of field was destroyed");
    const stenc_field *fields[2] = {f, f};
    stenc_launch_field out[2];
    stenc_launch_shape shape;
    assert_rejected(stenc_launch_check(&blur, ctx, fields, out, &shape), "blur", "ctx");
    assert_stenc_ok(stenc_field_free(f)); /* no device copy: nothing needs the context */
}

static void test_wrong_kind(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F32, 1, 4, 1, 1, 0));
    stenc_hash_table *t;
    assert_stenc_ok(stenc_hash_create(ctx, NULL, &t));
    void *p = NULL;
    assert_rejected(stenc_malloc((stenc_ctx *)f, &p, 8), "stenc_malloc",
                    "is a field, not a context");
    assert_rejected(stenc_field_fill((stenc_field *)ctx, 0.0), "stenc_field_fill",
                    "is a context, not a field");
    assert_rejected(stenc_field_free((stenc_field *)t), "stenc_field_free",
                    "is a hash table, not a field");
    assert_rejected(stenc_hash_destroy((stenc_hash_table *)f), "stenc_hash_destroy",
                    "is a field, not a hash table");
    assert_rejected(stenc_timer_start((stenc_timer *)f), "stenc_timer_start",
                    "is a field, not a timer");
    assert_rejected(stenc_ctx_destroy((stenc_ctx *)t), "stenc_ctx_destroy",
                    "is a hash table, not a context");
    /* Nothing was harmed: all three still work. */
    assert_stenc_ok(stenc_field_fill(f, 1.0));
    assert_int_equal(stenc_hash_count(t), 0);
    assert_stenc_ok(stenc_hash_destroy(t));
    assert_stenc_ok(stenc_field_free(f));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

static void test_hash_table_destroyed(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    stenc_hash_table *t;
    assert_stenc_ok(stenc_hash_create(ctx, NULL, &t));
    uint32_t keys[2] = {5, 9}, values[2] = {50, 90}, got[2] = {1, 1};
    assert_stenc_ok(stenc_hash_build(t, keys, values, 2));
    assert_stenc_ok(stenc_hash_destroy(t));
    assert_rejected(stenc_hash_destroy(t), "stenc_hash_destroy", "not a live hash table");
    assert_rejected(stenc_hash_find(t, keys, got, 2), "stenc_hash_find", "table");
    assert_true(got[0] == 1 && got[1] == 1);
    assert_rejected(stenc_hash_build(t, keys, values, 2), "stenc_hash_build", "table");
    assert_rejected(stenc_hash_insert(t, keys, values, 2), "stenc_hash_insert", "table");
    assert_rejected(stenc_hash_trim(t), "stenc_hash_trim", "table");
    assert_int_equal(stenc_hash_count(t), 0);
    assert_int_equal(stenc_hash_capacity(t), 0);
    assert_stenc_ok(stenc_hash_destroy(NULL));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

static void test_timer_and_report_destroyed(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu();
    stenc_timer *timer;
    assert_stenc_ok(stenc_timer_create(ctx, &timer));
    stenc_tridiag_report *report;
    assert_stenc_ok(stenc_tridiag_report_create(ctx, &report));
    assert_stenc_ok(stenc_timer_destroy(timer));
    assert_stenc_ok(stenc_tridiag_report_destroy(report));
    assert_rejected(stenc_timer_destroy(timer), "stenc_timer_destroy", "not a live timer");
    assert_rejected(stenc_timer_start(timer), "stenc_timer_start", "timer");
    double ms = -1;
    assert_rejected(stenc_timer_stop(timer, &ms), "stenc_timer_stop", "timer");
    assert_true(ms == -1);
    assert_rejected(stenc_tridiag_report_destroy(report), "stenc_tridiag_report_destroy",
                    "not a live tridiagonal report");
    size_t first = 77;
    assert_rejected(stenc_tridiag_report_check(report, &first), "stenc_tridiag_report_check",
                    "report");
    assert_int_equal(first, 77);
    float d[2] = {1, 1}, x[2] = {7, 7};
    stenc_tridiag_options opt = {STENC_TRIDIAG_AUTO, 0, report};
    assert_rejected(
        stenc_tridiag_solve(ctx, STENC_F32, STENC_TRIDIAG_CONTIGUOUS, 2, 1, d, d, d, d, x, &opt),
        "stenc_tridiag_solve", "report");
    assert_true(x[0] == 7 && x[1] == 7);
    assert_stenc_ok(stenc_timer_destroy(NULL));
    assert_stenc_ok(stenc_tridiag_report_destroy(NULL));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

/* Many live handles at once, destroyed in a scrambled order: each stays usable until its own
 * destroy and is rejected after it (the registry's growth and deletions). */
static void test_many_handles(void **state) {
    (void)state;
    enum { N = 1000 };
    stenc_ctx *ctx = cpu();
    stenc_timer **timers = malloc(N * sizeof *timers);
    size_t *order = malloc(N * sizeof *order);
    for (size_t i = 0; i < N; i++) {
        assert_stenc_ok(stenc_timer_create(ctx, &timers[i]));
        order[i] = i;
    }
    test_rng rng = test_rng_seeded(5);
    for (size_t i = N - 1; i > 0; i--) {
        size_t j = (size_t)(test_rng_u64(&rng) % (i + 1)), tmp = order[i];
        order[i] = order[j], order[j] = tmp;
    }
    for (size_t k = 0; k < N; k++) {
        assert_stenc_ok(stenc_timer_destroy(timers[order[k]]));
        if (k % 97 == 0) /* every handle: the destroyed ones rejected, the others live */
            for (size_t m = 0; m < N; m++)
                assert_int_equal(stenc_timer_start(timers[order[m]]),
                                 m <= k ? STENC_ERR_INVALID_ARGUMENT : STENC_OK);
    }
    free(timers);
    free(order);
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

/* A failed create sets its handle to NULL; every other output of a failed call is untouched. */
static void test_failed_call_outputs(void **state) {
    (void)state;
    stenc_ctx *bad = (stenc_ctx *)&bad;
    assert_int_equal(stenc_ctx_create(&bad, (stenc_device)42), STENC_ERR_INVALID_ARGUMENT);
    assert_null(bad);
    stenc_ctx *ctx = cpu();
    stenc_timer *timer = (stenc_timer *)&timer;
    assert_int_equal(stenc_timer_create(NULL, &timer), STENC_ERR_INVALID_ARGUMENT);
    assert_null(timer);
    stenc_tridiag_report *r = (stenc_tridiag_report *)&r;
    assert_int_equal(stenc_tridiag_report_create(NULL, &r), STENC_ERR_INVALID_ARGUMENT);
    assert_null(r);
    stenc_field *f = (stenc_field *)&f;
    assert_int_equal(stenc_field_create(ctx, &f, STENC_F32, 4, 1, 1, 1, 0), STENC_ERR_SHAPE);
    assert_null(f);
    stenc_hash_config c = stenc_hash_config_default(STENC_HASH_MAP);
    c.max_attempts = 0;
    stenc_hash_table *t = (stenc_hash_table *)&t;
    assert_int_equal(stenc_hash_create(ctx, &c, &t), STENC_ERR_INVALID_ARGUMENT);
    assert_null(t);

    /* Buffers of a failed call keep their contents. */
    char key[8] = "keep", path[4] = "xyz", variant[2] = "v";
    const size_t n[3] = {64, 64, 1};
    assert_int_equal(stenc_tune_key(ctx, "heat3d", "", n, STENC_F32, key, sizeof key),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_string_equal(key, "keep");
    setenv("STENC_TUNE_CACHE", "/tmp/stenc-test-handles-cache.txt", 1);
    assert_int_equal(stenc_tune_cache_path(path, sizeof path), STENC_ERR_INVALID_ARGUMENT);
    assert_string_equal(path, "xyz");
    assert_stenc_ok(stenc_tune_store(ctx, "k", "a_long_variant", 1.0));
    int found = 5;
    assert_int_equal(stenc_tune_lookup(ctx, "k", variant, sizeof variant, &found),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(found, 5);
    assert_string_equal(variant, "v");
    remove("/tmp/stenc-test-handles-cache.txt");
    unsetenv("STENC_TUNE_CACHE");
    stenc_sort_policy policy = {0};
    policy.tile_log2 = 99;
    int passes = -5;
    assert_int_equal(
        stenc_sort_global_passes(ctx, STENC_U32, STENC_U32, 0, 1000, 1, &policy, &passes),
        STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(passes, -5);
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_context_destroyed),
        cmocka_unit_test(test_field_destroyed),
        cmocka_unit_test(test_context_destroyed_before_field),
        cmocka_unit_test(test_wrong_kind),
        cmocka_unit_test(test_hash_table_destroyed),
        cmocka_unit_test(test_timer_and_report_destroyed),
        cmocka_unit_test(test_many_handles),
        cmocka_unit_test(test_failed_call_outputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
