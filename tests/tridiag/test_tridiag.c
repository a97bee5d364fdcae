/* The CPU tridiagonal solver: residuals and agreement with a long-double reference on random
 * diagonally dominant batches, both layouts and precisions, awkward sizes; inputs untouched;
 * in place; singular systems named; argument errors. */
#include "tridiag_check.h"

static const size_t sizes[] = {1, 2, 3, 5, 31, 32, 33, 1000, 1024, 1025, 4096, 100000};
static const size_t batches[] = {1, 2, 7, 64, 1000, 65536};
/* Keep the CPU test fast under the sanitizers. */
enum { MAX_UNKNOWNS = 1 << 20 };

/* Residual bound ||Ax-d||/||d|| and error bound max|x-ref|/max|ref|, in units of epsilon. */
#define RESIDUAL_EPS 64.0
#define ERROR_EPS 64.0

static void check_case(stenc_ctx *ctx, stenc_type type, stenc_tridiag_layout layout, size_t n,
                       size_t batch, uint64_t seed) {
    tdg_batch t = tdg_batch_random(n, batch, layout, seed);
    size_t count = n * batch, es = stenc_type_size(type);
    char *in = tdg_batch_typed(&t, type);
    char *keep = malloc(4 * count * es);
    memcpy(keep, in, 4 * count * es);
    void *x = malloc(count * es);
    tdg_poison(x, type, count);
    assert_stenc_ok(stenc_tridiag_solve(ctx, type, layout, n, batch, in, in + count * es,
                                        in + 2 * count * es, in + 3 * count * es, x, NULL));
    assert_memory_equal(in, keep, 4 * count * es); /* inputs untouched */
    size_t worst;
    double res = tdg_max_residual(&t, in, type, x, &worst);
    if (!(res <= RESIDUAL_EPS * tdg_eps(type)))
        fail_msg("%s %s n=%zu batch=%zu: residual %g in system %zu > %g", stenc_type_name(type),
                 layout ? "interleaved" : "contiguous", n, batch, res, worst,
                 RESIDUAL_EPS * tdg_eps(type));
    long double *ref = tdg_reference(&t, in, type);
    double err = tdg_max_rel_error(count, x, type, ref);
    if (!(err <= ERROR_EPS * tdg_eps(type)))
        fail_msg("%s n=%zu batch=%zu: error %g against the reference", stenc_type_name(type), n,
                 batch, err);

    /* In place: d becomes x, the same numbers; a, b, c untouched. */
    assert_stenc_ok(stenc_tridiag_solve_inplace(ctx, type, layout, n, batch, in, in + count * es,
                                                in + 2 * count * es, in + 3 * count * es, NULL));
    assert_memory_equal(in, keep, 3 * count * es);
    assert_memory_equal(in + 3 * count * es, x, count * es);
    free(ref);
    free(x);
    free(keep);
    free(in);
    tdg_batch_free(&t);
}

static void test_cpu_sizes_layouts_types(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    uint64_t seed = 1;
    for (int type = STENC_F32; type <= STENC_F64; type++)
        for (int layout = 0; layout < 2; layout++)
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
                for (size_t bi = 0; bi < sizeof batches / sizeof *batches; bi++) {
                    size_t n = sizes[si], batch = batches[bi];
                    if (bi > 0 && n * batch > MAX_UNKNOWNS) continue;
                    check_case(ctx, (stenc_type)type, (stenc_tridiag_layout)layout, n, batch,
                               seed++);
                }
    stenc_ctx_destroy(ctx);
}

/* A known system: -x[i-1] + 2x[i] - x[i+1] = h^2 f with x = i(n+1-i)/2 style answer; checks
 * the solver against an analytic solution, not only against itself. */
static void test_cpu_poisson_analytic(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    enum { N = 999 };
    static double a[N], b[N], c[N], d[N], x[N];
    for (int i = 0; i < N; i++)
        a[i] = -1, b[i] = 2, c[i] = -1, d[i] = 1;
    assert_stenc_ok(
        stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_CONTIGUOUS, N, 1, a, b, c, d, x, NULL));
    /* -u'' = 1 discretised exactly by the quadratic u_k = k (N + 1 - k) / 2, k = i + 1. */
    for (int i = 0; i < N; i++) {
        double k = i + 1, exact = k * (N + 1 - k) / 2;
        assert_true(fabs(x[i] - exact) <= 1e-9 * exact);
    }
    stenc_ctx_destroy(ctx);
}

static void test_cpu_singular_is_named(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    for (int layout = 0; layout < 2; layout++)
        for (int type = STENC_F32; type <= STENC_F64; type++) {
            size_t n = 33, batch = 100, count = n * batch, es = stenc_type_size(type);
            tdg_batch t = tdg_batch_random(n, batch, (stenc_tridiag_layout)layout, 9);
            /* System 41: an all-zero row; system 77: zero pivot at row 0. */
            size_t k = tdg_index(&t, 41, 17);
            t.a[k] = t.b[k] = t.c[k] = 0;
            t.b[tdg_index(&t, 77, 0)] = 0;
            char *in = tdg_batch_typed(&t, (stenc_type)type);
            void *x = malloc(count * es);
            stenc_status st = stenc_tridiag_solve(
                ctx, (stenc_type)type, (stenc_tridiag_layout)layout, n, batch, in, in + count * es,
                in + 2 * count * es, in + 3 * count * es, x, NULL);
            assert_int_equal(st, STENC_ERR_SINGULAR);
            assert_non_null(strstr(stenc_last_error(), "system 41 "));
            /* The deferred report names the same system, and is clear after reading. */
            stenc_tridiag_report *report;
            assert_stenc_ok(stenc_tridiag_report_create(ctx, &report));
            stenc_tridiag_options opt = {STENC_TRIDIAG_AUTO, 0, report};
            assert_stenc_ok(stenc_tridiag_solve(ctx, (stenc_type)type, (stenc_tridiag_layout)layout,
                                                n, batch, in, in + count * es, in + 2 * count * es,
                                                in + 3 * count * es, x, &opt));
            size_t first = 0;
            assert_int_equal(stenc_tridiag_report_check(report, &first), STENC_ERR_SINGULAR);
            assert_int_equal(first, 41);
            assert_stenc_ok(stenc_tridiag_report_check(report, &first));
            assert_int_equal(first, SIZE_MAX);
            stenc_tridiag_report_destroy(report);
            free(x);
            free(in);
            tdg_batch_free(&t);
        }
    /* A 1x1 zero system. */
    double zero = 0, one = 1, out = 0;
    assert_int_equal(stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_CONTIGUOUS, 1, 1, &one,
                                         &zero, &one, &one, &out, NULL),
                     STENC_ERR_SINGULAR);
    assert_non_null(strstr(stenc_last_error(), "system 0 "));
    stenc_ctx_destroy(ctx);
}

static void test_cpu_arguments(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    float v[16] = {0}, x[16];
    const stenc_tridiag_layout C = STENC_TRIDIAG_CONTIGUOUS;
    assert_int_equal(stenc_tridiag_solve(NULL, STENC_F32, C, 4, 1, v, v, v, v, x, NULL),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_tridiag_solve(ctx, STENC_F32, C, 4, 1, NULL, v, v, v, x, NULL),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_tridiag_solve(ctx, STENC_I32, C, 4, 1, v, v, v, v, x, NULL),
                     STENC_ERR_UNSUPPORTED);
    assert_int_equal(
        stenc_tridiag_solve(ctx, STENC_F32, (stenc_tridiag_layout)5, 4, 1, v, v, v, v, x, NULL),
        STENC_ERR_INVALID_ARGUMENT);
    /* x overlapping an input, and x == d outside the in-place call. */
    assert_int_equal(stenc_tridiag_solve(ctx, STENC_F32, C, 4, 1, v, v + 4, v + 8, x, v + 6, NULL),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_tridiag_solve(ctx, STENC_F32, C, 4, 1, v, v + 4, v + 8, x, x, NULL),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "inplace"));
    stenc_tridiag_options opt = {STENC_TRIDIAG_CR, 0, NULL};
    assert_int_equal(stenc_tridiag_solve(ctx, STENC_F32, C, 4, 1, v, v, v, v, x, &opt),
                     STENC_ERR_UNSUPPORTED);
    opt.algo = (stenc_tridiag_algo)99;
    assert_int_equal(stenc_tridiag_solve(ctx, STENC_F32, C, 4, 1, v, v, v, v, x, &opt),
                     STENC_ERR_INVALID_ARGUMENT);
    /* Empty problems are fine, even with NULL arrays. */
    assert_stenc_ok(
        stenc_tridiag_solve(ctx, STENC_F32, C, 0, 5, NULL, NULL, NULL, NULL, NULL, NULL));
    assert_stenc_ok(
        stenc_tridiag_solve(ctx, STENC_F64, C, 5, 0, NULL, NULL, NULL, NULL, NULL, NULL));
    assert_string_equal(stenc_tridiag_algo_name(STENC_TRIDIAG_CR_PCR), "cr_pcr");
    assert_string_equal(stenc_tridiag_algo_name((stenc_tridiag_algo)99), "invalid");
    assert_int_equal(stenc_tridiag_auto_algo(ctx, STENC_F32, C, 1024, 1024), STENC_TRIDIAG_THOMAS);
    stenc_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_sizes_layouts_types),
        cmocka_unit_test(test_cpu_poisson_analytic),
        cmocka_unit_test(test_cpu_singular_is_named),
        cmocka_unit_test(test_cpu_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
