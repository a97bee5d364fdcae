/* Field reductions on the CPU: sums, sums of squares, L2 and max norms and dot products
 * against long double compensated references on random data, the drift test, determinism
 * across thread counts, special values and the error paths. */
#include <omp.h>

#include "mg_reference.h"

static const stenc_type types[] = {STENC_F32, STENC_F64};

/* Shapes at awkward sizes: 1, 2, a prime, 10^6+3 points, and multi-D ones whose rows are
 * padded and whose chunks straddle rows and planes. */
static const struct {
    int dims;
    size_t n[3];
} shapes[] = {
    {1, {1, 1, 1}}, {1, {2, 1, 1}},      {1, {4099, 1, 1}}, {1, {1000003, 1, 1}},
    {2, {1, 5, 1}}, {2, {1001, 999, 1}}, {3, {37, 41, 43}}, {3, {3, 1, 2}},
};
enum { N_SHAPES = sizeof shapes / sizeof *shapes };

/* A host field with random interior values in [lo, hi), its halo poisoned with 1e30 so that
 * reading it shows; also returns the interior as a dense double array. */
static stenc_field *random_field(stenc_ctx *ctx, stenc_type t, int dims, const size_t n[3],
                                 int halo, test_rng *rng, double lo, double hi, double **dense) {
    stenc_field *f = NULL;
    assert_stenc_ok(stenc_field_create(ctx, &f, t, dims, n[0], n[1], n[2], halo));
    assert_stenc_ok(stenc_field_fill(f, 1e30));
    size_t total = n[0] * n[1] * n[2];
    double *v = malloc(total * sizeof *v);
    float *vf = malloc(total * sizeof *vf);
    for (size_t p = 0; p < total; p++) {
        v[p] = test_rng_uniform(rng, lo, hi);
        vf[p] = (float)v[p];
        if (t == STENC_F32) v[p] = vf[p];
    }
    assert_stenc_ok(stenc_field_copy_from(f, t == STENC_F32 ? (void *)vf : (void *)v));
    free(vf);
    *dense = v;
    return f;
}

/* |got - want| within the compensated-summation bound: about one rounding of the result
 * plus n * 2^-106 * sum |terms| (with a margin of 4). */
static void expect_sum(double got, ref_sum want, long double abs_sum, size_t n, const char *what) {
    long double w = want.s + want.c;
    long double bound = 2 * 0x1p-53L * fabsl(w) + 4 * (long double)n * 0x1p-106L * abs_sum;
    if (!(fabsl((long double)got - w) <= bound))
        fail_msg("%s over %zu points: got %.17g want %.21Lg (bound %.3Lg)", what, n, got, w, bound);
}

static void test_sums_and_dots_against_references(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    test_rng rng = test_rng_seeded(21);
    for (int ti = 0; ti < 2; ti++)
        for (int si = 0; si < N_SHAPES; si++) {
            const int dims = shapes[si].dims;
            const size_t *n = shapes[si].n, total = n[0] * n[1] * n[2];
            double *a, *b;
            stenc_field *fa = random_field(ctx, types[ti], dims, n, 1, &rng, -1, 1, &a);
            stenc_field *fb = random_field(ctx, types[ti], dims, n, 3, &rng, -2, 1, &b);
            ref_sum sum = {0, 0}, sq = {0, 0}, dot = {0, 0};
            long double abs_sum = 0, abs_dot = 0, max = 0;
            for (size_t p = 0; p < total; p++) {
                ref_sum_add(&sum, a[p]);
                abs_sum += fabsl(a[p]);
                ref_sum_add_product(&sq, a[p], a[p]);
                ref_sum_add_product(&dot, a[p], b[p]);
                abs_dot += fabsl((long double)a[p] * b[p]);
                if (fabs(a[p]) > max) max = fabs(a[p]);
            }
            double got = NAN;
            assert_stenc_ok(stenc_field_sum(fa, &got));
            expect_sum(got, sum, abs_sum, total, "sum");
            assert_stenc_ok(stenc_field_sum_squares(fa, &got));
            expect_sum(got, sq, sq.s, total, "sum of squares");
            assert_stenc_ok(stenc_field_dot(fa, fb, &got));
            expect_sum(got, dot, abs_dot, total, "dot");
            assert_stenc_ok(stenc_field_norm_max(fa, &got));
            assert_true(got == (double)max);
            assert_stenc_ok(stenc_field_norm2(fa, &got));
            long double norm = sqrtl(sq.s + sq.c);
            assert_true(fabsl(got - norm) <= 2 * 0x1p-53L * norm);
            free(a);
            free(b);
            stenc_field_free(fa);
            stenc_field_free(fb);
        }
    stenc_ctx_destroy(ctx);
}

/* 10^7 copies of 0.1 sum to the correctly rounded 10^6, where a plain loop drifts. */
static void test_no_drift(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    const size_t n = 10000000;
    stenc_field *f64 = NULL, *f32 = NULL;
    assert_stenc_ok(stenc_field_create(ctx, &f64, STENC_F64, 1, n, 1, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &f32, STENC_F32, 2, 2500, 4000, 1, 2));
    assert_stenc_ok(stenc_field_fill(f64, 0.1));
    assert_stenc_ok(stenc_field_fill(f32, 0.1));
    assert_stenc_ok(stenc_field_set(f64, -1, 0, 0, 1e300)); /* halo: never read */
    double got = 0, naive = 0;
    assert_stenc_ok(stenc_field_sum(f64, &got));
    /* The exact sum is n * 0.1 (0.1 the double), and one IEEE multiply rounds it correctly. */
    const double exact = (double)n * 0.1;
    assert_true(got == exact);
    for (size_t i = 0; i < n; i++)
        naive += 0.1;
    assert_true(fabs(naive - exact) > 1e3 * fabs(exact) * 0x1p-53); /* the naive loop drifts */
    /* Squares of a float widen exactly; n * 0.1f^2 is again one correctly rounded multiply. */
    const double sq = (double)0.1f * (double)0.1f;
    assert_stenc_ok(stenc_field_sum_squares(f32, &got));
    assert_true(got == (double)n * sq);
    assert_stenc_ok(stenc_field_dot(f64, f64, &got));
    /* The dot's terms are the exact squares of the double 0.1 (106 bits). */
    ref_sum one = {0, 0};
    ref_sum_add_product(&one, 0.1, 0.1);
    assert_true(fabsl((long double)got - (long double)n * (one.s + one.c)) <=
                0x1p-53L * (long double)got);
    stenc_field_free(f64);
    stenc_field_free(f32);
    stenc_ctx_destroy(ctx);
}

/* The same field gives bitwise the same results whatever the thread count. */
static void test_deterministic_across_thread_counts(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    test_rng rng = test_rng_seeded(22);
    const size_t n[3] = {311, 257, 13};
    double *a, *b;
    stenc_field *fa = random_field(ctx, STENC_F64, 3, n, 2, &rng, -1e3, 1e3, &a);
    stenc_field *fb = random_field(ctx, STENC_F64, 3, n, 0, &rng, -1, 1, &b);
    double first[3] = {0, 0, 0};
    const int threads[] = {1, 2, 3, 7};
    for (int t = 0; t < 4; t++) {
        omp_set_num_threads(threads[t]);
        double r[3];
        assert_stenc_ok(stenc_field_sum(fa, &r[0]));
        assert_stenc_ok(stenc_field_dot(fa, fb, &r[1]));
        assert_stenc_ok(stenc_field_norm2(fb, &r[2]));
        if (t == 0) memcpy(first, r, sizeof r);
        assert_memory_equal(first, r, sizeof r);
    }
    omp_set_num_threads(2);
    free(a);
    free(b);
    stenc_field_free(fa);
    stenc_field_free(fb);
    stenc_ctx_destroy(ctx);
}

static void test_special_values(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    for (int ti = 0; ti < 2; ti++) {
        stenc_field *f = NULL;
        assert_stenc_ok(stenc_field_create(ctx, &f, types[ti], 2, 100, 90, 1, 1));
        assert_stenc_ok(stenc_field_fill(f, -0.5));
        double r;
        assert_stenc_ok(stenc_field_norm_max(f, &r));
        assert_true(r == 0.5);
        assert_stenc_ok(stenc_field_set(f, 37, 80, 0, -3.0));
        assert_stenc_ok(stenc_field_norm_max(f, &r));
        assert_true(r == 3.0);
        assert_stenc_ok(stenc_field_sum(f, &r));
        assert_true(r == -0.5 * 8999 - 3.0);
        assert_stenc_ok(stenc_field_set(f, 99, 89, 0, INFINITY));
        assert_stenc_ok(stenc_field_sum(f, &r));
        assert_true(isinf(r) && r > 0);
        assert_stenc_ok(stenc_field_norm2(f, &r));
        assert_true(isinf(r));
        assert_stenc_ok(stenc_field_set(f, 5, 0, 0, NAN));
        assert_stenc_ok(stenc_field_sum(f, &r));
        assert_true(isnan(r));
        assert_stenc_ok(stenc_field_norm_max(f, &r));
        assert_true(isnan(r));
        assert_stenc_ok(stenc_field_dot(f, f, &r));
        assert_true(isnan(r));
        stenc_field_free(f);
    }
    stenc_ctx_destroy(ctx);
}

static void test_errors(void **state) {
    (void)state;
    stenc_ctx *ctx, *other;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    assert_stenc_ok(stenc_ctx_create(&other, STENC_DEVICE_CPU));
    stenc_field *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
    assert_stenc_ok(stenc_field_create(ctx, &a, STENC_F64, 2, 10, 12, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &b, STENC_F64, 2, 12, 10, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &c, STENC_F32, 2, 10, 12, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &d, STENC_F64, 3, 10, 12, 1, 1));
    assert_stenc_ok(stenc_field_create(other, &e, STENC_F64, 2, 10, 12, 1, 1));
    double r = 42;
    assert_int_equal(stenc_field_dot(a, b, &r), STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "10x12x1"));
    assert_non_null(strstr(stenc_last_error(), "12x10x1"));
    assert_int_equal(stenc_field_dot(a, c, &r), STENC_ERR_SHAPE);
    assert_int_equal(stenc_field_dot(a, d, &r), STENC_ERR_SHAPE);
    assert_int_equal(stenc_field_dot(a, e, &r), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_field_dot(a, NULL, &r), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_field_dot(NULL, a, &r), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_field_sum(NULL, &r), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_field_norm_max(NULL, &r), STENC_ERR_INVALID_ARGUMENT);
    assert_true(r == 42);
    assert_int_equal(stenc_field_sum(a, NULL), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_field_sum_squares(a, NULL), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_field_norm2(a, NULL), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_field_dot(a, a, NULL), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "stenc_field_dot"));
    /* Halos may differ. */
    stenc_field *h = NULL;
    assert_stenc_ok(stenc_field_create(ctx, &h, STENC_F64, 2, 10, 12, 1, 4));
    assert_stenc_ok(stenc_field_fill(a, 2.0));
    assert_stenc_ok(stenc_field_fill(h, 3.0));
    assert_stenc_ok(stenc_field_dot(a, h, &r));
    assert_true(r == 6.0 * 120);
    stenc_field *all[] = {a, b, c, d, e, h};
    for (size_t i = 0; i < 6; i++)
        stenc_field_free(all[i]);
    stenc_ctx_destroy(ctx);
    stenc_ctx_destroy(other);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sums_and_dots_against_references),
        cmocka_unit_test(test_no_drift),
        cmocka_unit_test(test_deterministic_across_thread_counts),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
