/* Recorded launch sequences (stenc/graph.h): a replayed recording of generated-stencil launches
 * and swaps gives, bit for bit, what the C target computes on the CPU for the same steps;
 * recording runs nothing; a call that waits for the device spoils the recording with a clear
 * error and leaves the context usable; CPU contexts refuse to record. GPU test for the CUDA
 * part: skipped without a device. */
#include "test_util.h"

#include "jacobi2d.h"

enum { REPLAYS = 3, STEPS_PER_RECORDING = 2 }; /* an even number of swaps per recording */

typedef struct grid {
    stenc_field *u, *t, *f;
} grid;

static void grid_create(stenc_ctx *ctx, grid *g, size_t nx, size_t ny, const double *u0,
                        const double *f0) {
    assert_stenc_ok(stenc_field_create(ctx, &g->u, STENC_F64, 2, nx, ny, 1, JACOBI2D_HALO));
    assert_stenc_ok(stenc_field_create(ctx, &g->t, STENC_F64, 2, nx, ny, 1, JACOBI2D_HALO));
    assert_stenc_ok(stenc_field_create(ctx, &g->f, STENC_F64, 2, nx, ny, 1, 0));
    assert_stenc_ok(stenc_field_copy_from(g->u, u0));
    assert_stenc_ok(stenc_field_copy_from(g->f, f0));
    assert_stenc_ok(stenc_field_upload(g->u));
    assert_stenc_ok(stenc_field_upload(g->t));
    assert_stenc_ok(stenc_field_upload(g->f));
}

static void grid_free(grid *g) {
    stenc_field_free(g->u);
    stenc_field_free(g->t);
    stenc_field_free(g->f);
}

/* The same grid on a CPU context (the reference) and on a CUDA context. */
typedef struct twin {
    stenc_ctx *cpu, *gpu;
    grid c, d;
} twin;

static void twin_create(twin *t, size_t nx, size_t ny, const double *u0, const double *f0) {
    assert_stenc_ok(stenc_ctx_create(&t->cpu, STENC_DEVICE_CPU));
    assert_stenc_ok(stenc_ctx_create(&t->gpu, STENC_DEVICE_CUDA));
    grid_create(t->cpu, &t->c, nx, ny, u0, f0);
    grid_create(t->gpu, &t->d, nx, ny, u0, f0);
}

static void twin_free(twin *t) {
    grid_free(&t->c);
    grid_free(&t->d);
    stenc_ctx_destroy(t->cpu);
    stenc_ctx_destroy(t->gpu);
}

static stenc_status step(stenc_ctx *ctx, grid *g, double h2) {
    stenc_status st = jacobi2d(ctx, h2, g->u, g->f, g->t);
    return st != STENC_OK ? st : stenc_field_swap(g->u, g->t);
}

static void random_fill(double *a, size_t n, uint64_t seed) {
    test_rng rng = test_rng_seeded(seed);
    for (size_t i = 0; i < n; i++)
        a[i] = test_rng_uniform(&rng, -1, 1);
}

static void test_cpu_context_refuses(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    assert_int_equal(stenc_graph_begin(ctx), STENC_ERR_UNSUPPORTED);
    assert_non_null(strstr(stenc_last_error(), "CUDA context"));
    assert_int_equal(stenc_graph_recording(ctx), 0);
    stenc_graph *g = (stenc_graph *)&g; /* must be overwritten with NULL */
    assert_int_not_equal(stenc_graph_end(ctx, &g), STENC_OK);
    assert_null(g);
    assert_int_equal(stenc_graph_launch(NULL), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_graph_begin(NULL), STENC_ERR_INVALID_ARGUMENT);
    assert_stenc_ok(stenc_graph_free(NULL));
    /* No graph exists on a CPU context: anything passed as one is reported. */
    assert_int_equal(stenc_graph_launch((stenc_graph *)ctx), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_graph_free((stenc_graph *)ctx), STENC_ERR_INVALID_ARGUMENT);
    stenc_ctx_destroy(ctx);
}

/* Record STEPS_PER_RECORDING steps, replay REPLAYS times, compare with the CPU. */
static void check_replay(size_t nx, size_t ny) {
    const size_t n = nx * ny;
    const double h2 = 1.0 / (double)((nx + 1) * (nx + 1));
    double *u0 = malloc(n * sizeof *u0), *f0 = malloc(n * sizeof *f0);
    double *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    assert_true(u0 && f0 && want && got);
    random_fill(u0, n, 1000 + n);
    random_fill(f0, n, 2000 + n);

    twin t;
    twin_create(&t, nx, ny, u0, f0);
    stenc_ctx *cpu = t.cpu, *gpu = t.gpu;
    grid *c = &t.c, *d = &t.d;
    for (int s = 0; s < REPLAYS * STEPS_PER_RECORDING; s++)
        assert_stenc_ok(step(cpu, c, h2));
    assert_stenc_ok(stenc_field_copy_to(c->u, want));

    stenc_graph *graph = NULL;
    assert_stenc_ok(stenc_graph_begin(gpu));
    assert_int_equal(stenc_graph_recording(gpu), 1);
    for (int s = 0; s < STEPS_PER_RECORDING; s++)
        assert_stenc_ok(step(gpu, d, h2));
    assert_stenc_ok(stenc_graph_end(gpu, &graph));
    assert_non_null(graph);
    assert_int_equal(stenc_graph_recording(gpu), 0);

    /* Recording ran nothing: u is still u0 (the download keeps the device copy in place). */
    assert_stenc_ok(stenc_field_download(d->u));
    assert_stenc_ok(stenc_field_copy_to(d->u, got));
    assert_memory_equal(got, u0, n * sizeof *got);
    assert_stenc_ok(stenc_field_upload(d->u));

    for (int r = 0; r < REPLAYS; r++)
        assert_stenc_ok(stenc_graph_launch(graph));
    assert_stenc_ok(stenc_ctx_synchronize(gpu));
    assert_stenc_ok(stenc_field_download(d->u));
    assert_stenc_ok(stenc_field_copy_to(d->u, got));
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%zux%zu: point %zu: replayed %.17g, CPU %.17g", nx, ny, i, got[i], want[i]);

    assert_stenc_ok(stenc_graph_free(graph));
    /* Freed: a replay or a second free is reported, not run. */
    assert_int_equal(stenc_graph_launch(graph), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "not a live graph"));
    assert_int_equal(stenc_graph_free(graph), STENC_ERR_INVALID_ARGUMENT);
    twin_free(&t);
    free(u0), free(f0), free(want), free(got);
}

static void test_replay_matches_cpu(void **state) {
    (void)state;
    const size_t sizes[][2] = {{333, 217}, {1, 1}, {64, 1}, {1, 65}, {1024, 1031}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        check_replay(sizes[s][0], sizes[s][1]);
}

static void test_waiting_call_spoils_recording(void **state) {
    (void)state;
    const size_t nx = 40, ny = 30, n = nx * ny;
    double u0[40 * 30], f0[40 * 30], want[40 * 30], got[40 * 30];
    random_fill(u0, n, 7);
    random_fill(f0, n, 8);
    twin t;
    twin_create(&t, nx, ny, u0, f0);
    stenc_ctx *cpu = t.cpu, *gpu = t.gpu;
    grid *c = &t.c, *d = &t.d;

    assert_stenc_ok(stenc_graph_begin(gpu));
    assert_int_equal(stenc_graph_begin(gpu), STENC_ERR_INVALID_ARGUMENT); /* already recording */
    assert_int_not_equal(stenc_ctx_synchronize(gpu), STENC_OK);
    stenc_graph *graph = (stenc_graph *)&graph;
    assert_int_equal(stenc_graph_end(gpu, &graph), STENC_ERR_CUDA);
    assert_null(graph);
    assert_non_null(strstr(stenc_last_error(), "waited for the device"));
    assert_int_equal(stenc_graph_recording(gpu), 0);

    /* Nothing recorded is an error too. */
    assert_stenc_ok(stenc_graph_begin(gpu));
    assert_int_equal(stenc_graph_end(gpu, &graph), STENC_ERR_INVALID_ARGUMENT);
    assert_null(graph);

    /* The context runs launches again, and nothing stale is reported. */
    assert_stenc_ok(step(cpu, c, 0.01));
    assert_stenc_ok(step(gpu, d, 0.01));
    assert_stenc_ok(stenc_ctx_synchronize(gpu));
    assert_stenc_ok(stenc_field_copy_to(c->u, want));
    assert_stenc_ok(stenc_field_download(d->u));
    assert_stenc_ok(stenc_field_copy_to(d->u, got));
    assert_memory_equal(got, want, sizeof got);

    twin_free(&t);
}

int main(void) {
    const struct CMUnitTest cpu_tests[] = {cmocka_unit_test(test_cpu_context_refuses)};
    int failed = cmocka_run_group_tests_name("graph_cpu", cpu_tests, NULL, NULL);
    if (failed) return 1;
    TEST_REQUIRE_GPU_OR_SKIP();
    const struct CMUnitTest gpu_tests[] = {
        cmocka_unit_test(test_replay_matches_cpu),
        cmocka_unit_test(test_waiting_call_spoils_recording),
    };
    return cmocka_run_group_tests_name("graph_cuda", gpu_tests, NULL, NULL);
}
