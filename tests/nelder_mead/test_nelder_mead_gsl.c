/* stenc's Nelder-Mead against GSL's gsl_multimin_fminimizer_nmsimplex2 on the same starting
 * points, the same initial simplex size and the same size tolerance: stenc's results must be
 * as good or better. GSL is used here and in the benchmark only, never in libstenc. */
#include <gsl/gsl_multimin.h>

#include "test_util.h"
#include "stenc/nelder_mead.h"

/* The objectives again, written out independently of runtime/nelder_mead/objectives.h. */
static double ref_rosenbrock(const gsl_vector *v, void *p) {
    (void)p;
    double f = 0;
    for (size_t k = 0; k + 1 < v->size; k++) {
        double a = gsl_vector_get(v, k + 1) - gsl_vector_get(v, k) * gsl_vector_get(v, k);
        double b = 1 - gsl_vector_get(v, k);
        f += 100 * a * a + b * b;
    }
    return f;
}
static double ref_wood(const gsl_vector *v, void *p) {
    (void)p;
    double x1 = gsl_vector_get(v, 0), x2 = gsl_vector_get(v, 1), x3 = gsl_vector_get(v, 2),
           x4 = gsl_vector_get(v, 3);
    return 100 * pow(x2 - x1 * x1, 2) + pow(1 - x1, 2) + 90 * pow(x4 - x3 * x3, 2) +
           pow(1 - x3, 2) + 10.1 * (pow(x2 - 1, 2) + pow(x4 - 1, 2)) + 19.8 * (x2 - 1) * (x4 - 1);
}
static double ref_powell(const gsl_vector *v, void *p) {
    (void)p;
    double x1 = gsl_vector_get(v, 0), x2 = gsl_vector_get(v, 1), x3 = gsl_vector_get(v, 2),
           x4 = gsl_vector_get(v, 3);
    return pow(x1 + 10 * x2, 2) + 5 * pow(x3 - x4, 2) + pow(x2 - 2 * x3, 4) + 10 * pow(x1 - x4, 4);
}
static double ref_circle(const gsl_vector *v, void *p) {
    const stenc_nm_circle_params *c = p;
    double s = 0;
    for (size_t k = 0; k < v->size; k++)
        s += pow(gsl_vector_get(v, k) - c->center[k], 2);
    return fabs(sqrt(s) - c->radius);
}

typedef struct gsl_case {
    const char *name;
    stenc_nm_builtin fn;
    double (*ref)(const gsl_vector *, void *);
    int dim;
} gsl_case;

static void compare_with_gsl(const gsl_case *c, stenc_nm_circle_params *params) {
    enum { N = 400 };
    const double size_tol = 1e-10, step = 0.1;
    const int max_iter = 20000;
    test_rng rng = test_rng_seeded(31 + (uint64_t)c->fn);
    double *x0 = malloc(N * c->dim * sizeof(double)), *x = malloc(N * c->dim * sizeof(double));
    double f[N], f_gsl[N];
    int32_t stop[N];
    for (int i = 0; i < N * c->dim; i++)
        x0[i] = test_rng_uniform(&rng, -2, 2);

    const gsl_multimin_fminimizer_type *T = gsl_multimin_fminimizer_nmsimplex2;
    gsl_multimin_fminimizer *s = gsl_multimin_fminimizer_alloc(T, (size_t)c->dim);
    gsl_vector *start = gsl_vector_alloc((size_t)c->dim), *steps = gsl_vector_alloc((size_t)c->dim);
    gsl_vector_set_all(steps, step);
    gsl_multimin_function F = {.f = c->ref, .n = (size_t)c->dim, .params = params};
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < c->dim; k++)
            gsl_vector_set(start, (size_t)k, x0[i * c->dim + k]);
        gsl_multimin_fminimizer_set(s, &F, start, steps);
        for (int it = 0; it < max_iter; it++) {
            if (gsl_multimin_fminimizer_iterate(s)) break;
            if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), size_tol) == GSL_SUCCESS)
                break;
        }
        f_gsl[i] = s->fval;
    }
    gsl_vector_free(start), gsl_vector_free(steps);
    gsl_multimin_fminimizer_free(s);

    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    stenc_nm_batch b = {
        .count = N, .dim = c->dim, .x0 = x0, .params = params, .x = x, .f = f, .stop = stop};
    stenc_nm_options o = stenc_nm_default_options();
    o.max_iter = max_iter, o.size_tol = size_tol, o.initial_step = step;
    assert_stenc_ok(stenc_nm_minimize(ctx, c->fn, &b, &o));
    stenc_ctx_destroy(ctx);

    /* Per problem: as good, up to what the stopping rule resolves (a simplex of size_tol
     * pins f down to about |grad f| * size_tol, and the distance to a circle has slope 1);
     * over the batch: at least as many starts reach the known minimum 0. */
    const double slack = 10 * size_tol, solved_below = 1e-8;
    int worse = 0, solved = 0, solved_gsl = 0;
    double sum = 0, sum_gsl = 0;
    for (int i = 0; i < N; i++) {
        gsl_vector_view xv = gsl_vector_view_array(&x[i * c->dim], (size_t)c->dim);
        /* stenc's f is f(x), checked against the independent reference */
        assert_true(fabs(c->ref(&xv.vector, params) - f[i]) <= 1e-12 * (1 + fabs(f[i])));
        worse += f[i] > f_gsl[i] + slack;
        solved += f[i] < solved_below;
        solved_gsl += f_gsl[i] < solved_below;
        sum += f[i], sum_gsl += f_gsl[i];
    }
    printf("%-12s dim %d: stenc solved %d/%d (mean f %.3g), gsl %d/%d (mean f %.3g); "
           "stenc worse on %d\n",
           c->name, c->dim, solved, N, sum / N, solved_gsl, N, sum_gsl / N, worse);
    assert_true(solved >= solved_gsl);
    /* Two different Nelder-Mead codes take different paths; on a rare start one of them
     * stalls. Allow stenc to lose on at most 1% of starts, if it wins overall. */
    assert_true(worse * 100 <= N);
    assert_true(sum / N <= sum_gsl / N + slack);
    free(x0), free(x);
}

static void test_as_good_as_gsl(void **state) {
    (void)state;
    stenc_nm_circle_params circle = {.center = {0.5, -0.25, 1.0}, .radius = 1.5};
    const gsl_case cases[] = {
        {"rosenbrock", STENC_NM_ROSENBROCK, ref_rosenbrock, 2},
        {"rosenbrock", STENC_NM_ROSENBROCK, ref_rosenbrock, 3},
        {"wood", STENC_NM_WOOD, ref_wood, 4},
        {"powell", STENC_NM_POWELL, ref_powell, 4},
        {"circle", STENC_NM_CIRCLE, ref_circle, 2},
        {"circle", STENC_NM_CIRCLE, ref_circle, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        compare_with_gsl(&cases[i], &circle);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_as_good_as_gsl)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
