/* The hand-written references against answers known in closed form (a linear field is a
 * fixed point of heat3d, the 5-point and 13-point Laplacians of quadratics, shifts through
 * varcoef27's coefficients, a life blinker, a mass flux), and the comparison helpers. These
 * keep the references honest before the generated kernels are compared with them. */
#include "test_util.h"

#include "reference.h"
#include "stencil_cases.h"

static stenc_ctx *ctx;

static int setup(void **state) {
    (void)state;
    return stenc_ctx_create(&ctx, STENC_DEVICE_CPU) == STENC_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    stenc_ctx_destroy(ctx);
    return 0;
}

typedef double (*point_fn)(long i, long j, long k);

/* Set every point of the box (halo included) from fn. */
static void set_box(stenc_field *f, point_fn fn) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    long h1 = L.dims >= 2 ? L.halo : 0, h2 = L.dims >= 3 ? L.halo : 0;
    for (long k = -h2; k < (long)L.n[2] + h2; k++)
        for (long j = -h1; j < (long)L.n[1] + h1; j++)
            for (long i = -L.halo; i < (long)L.n[0] + L.halo; i++)
                assert_stenc_ok(stenc_field_set(f, i, j, k, fn(i, j, k)));
}

/* Every interior point within tol of fn. */
static void expect_interior(const stenc_field *f, point_fn fn, double tol, const char *what) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    for (long k = 0; k < (long)L.n[2]; k++)
        for (long j = 0; j < (long)L.n[1]; j++)
            for (long i = 0; i < (long)L.n[0]; i++) {
                double v, want = fn(i, j, k);
                assert_stenc_ok(stenc_field_get(f, i, j, k, &v));
                if (!(fabs(v - want) <= tol))
                    fail_msg("%s: (%ld,%ld,%ld) = %.9g, want %.9g", what, i, j, k, v, want);
            }
}

static double linear3(long i, long j, long k) {
    return 0.5 + 0.01 * i - 0.02 * j + 0.03 * k;
}

static void test_heat3d_keeps_linear_fields(void **state) {
    (void)state;
    stenc_field *x, *y;
    assert_stenc_ok(stenc_field_create(ctx, &x, STENC_F32, 3, 9, 7, 5, 1));
    assert_stenc_ok(stenc_field_create(ctx, &y, STENC_F32, 3, 9, 7, 5, 1));
    set_box(x, linear3);
    double r = 0.15;
    assert_stenc_ok(ref_heat3d(1 - 6 * r, r, x, y));
    expect_interior(y, linear3, 1e-6, "heat3d");
    assert_int_equal(ref_heat3d(1, 0, x, NULL), STENC_ERR_INVALID_ARGUMENT);
    stenc_field_free(x);
    stenc_field_free(y);
}

static double quad2(long i, long j, long k) {
    return (void)k, (double)(i * i + j * j);
}
static double three(long i, long j, long k) {
    return (void)i, (void)j, (void)k, 3.0;
}
static double residual_quad2(long i, long j, long k) {
    return (void)i, (void)j, (void)k, 3.0 + 4.0 * 2.0;
}
static double jacobi_quad2(long i, long j, long k) {
    return 0.25 * (0.5 * 3.0 + 4.0 * quad2(i, j, k) + 4.0);
}

static void test_poisson_stencils_on_a_quadratic(void **state) {
    (void)state;
    stenc_field *u, *f, *out;
    assert_stenc_ok(stenc_field_create(ctx, &u, STENC_F64, 2, 13, 6, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F64, 2, 13, 6, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &out, STENC_F64, 2, 13, 6, 1, 0));
    set_box(u, quad2);
    set_box(f, three);
    /* 4u - neighbours = -4 for u = i^2 + j^2 */
    assert_stenc_ok(ref_residual2d(2.0, u, f, out));
    expect_interior(out, residual_quad2, 0, "residual2d");
    assert_stenc_ok(ref_jacobi2d(0.5, u, f, out));
    expect_interior(out, jacobi_quad2, 1e-12, "jacobi2d");
    stenc_field_free(u);
    stenc_field_free(f);
    stenc_field_free(out);
}

static int shift_n;
static double ramp(long i, long j, long k) {
    return (double)(i + 10 * j + 100 * k);
}
static double ramp_shifted(long i, long j, long k) {
    return ramp(i + shift_n % 3 - 1, j + shift_n / 3 % 3 - 1, k + shift_n / 9 - 1);
}

static void test_varcoef27_coefficients_pick_their_neighbour(void **state) {
    (void)state;
    stenc_field *f[29];
    for (int a = 0; a < 29; a++)
        assert_stenc_ok(stenc_field_create(ctx, &f[a], STENC_F32, 3, 5, 4, 3, 1));
    set_box(f[0], ramp);
    for (shift_n = 0; shift_n < 27; shift_n++) {
        for (int c = 0; c < 27; c++)
            assert_stenc_ok(stenc_field_fill(f[1 + c], c == shift_n));
        assert_stenc_ok(ref_varcoef27(f[0], (const stenc_field *const *)&f[1], f[28]));
        expect_interior(f[28], ramp_shifted, 0, "varcoef27");
    }
    for (int a = 0; a < 29; a++)
        stenc_field_free(f[a]);
}

static double blinker(long i, long j, long k) {
    return (void)k, j == 2 && i >= 1 && i <= 3;
}
static double blinker_turned(long i, long j, long k) {
    return (void)k, i == 2 && j >= 1 && j <= 3;
}

static void test_life_blinker_turns(void **state) {
    (void)state;
    stenc_field *a, *b;
    assert_stenc_ok(stenc_field_create(ctx, &a, STENC_F32, 2, 5, 5, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &b, STENC_F32, 2, 5, 5, 1, 1));
    set_box(a, blinker);
    assert_stenc_ok(ref_life(a, b));
    expect_interior(b, blinker_turned, 0, "life");
    stenc_field_free(a);
    stenc_field_free(b);
}

static double quad_i(long i, long j, long k) {
    return (void)j, (void)k, 0.01 * (double)(i * i);
}
static double zero(long i, long j, long k) {
    return (void)i, (void)j, (void)k, 0.0;
}
static double wave_expected(long i, long j, long k) {
    return 2 * quad_i(i, j, k) - 0.0 + 0.1 * 0.01 * 2.0; /* lap4(0.01 i^2) = 0.02 */
}

static void test_wave_r2_on_a_quadratic(void **state) {
    (void)state;
    stenc_field *u, *prev, *next;
    assert_stenc_ok(stenc_field_create(ctx, &u, STENC_F32, 3, 11, 4, 5, 2));
    assert_stenc_ok(stenc_field_create(ctx, &prev, STENC_F32, 3, 11, 4, 5, 2));
    assert_stenc_ok(stenc_field_create(ctx, &next, STENC_F32, 3, 11, 4, 5, 2));
    set_box(u, quad_i);
    set_box(prev, zero);
    assert_stenc_ok(ref_wave_r2(0.1, u, prev, next));
    expect_interior(next, wave_expected, 2e-6, "wave_r2");
    /* radius 2 needs a halo of 2 */
    stenc_field *thin;
    assert_stenc_ok(stenc_field_create(ctx, &thin, STENC_F32, 3, 11, 4, 5, 1));
    assert_int_equal(ref_wave_r2(0.1, thin, prev, next), STENC_ERR_SHAPE);
    stenc_field_free(thin);
    stenc_field_free(u);
    stenc_field_free(prev);
    stenc_field_free(next);
}

static double one(long i, long j, long k) {
    return (void)i, (void)j, (void)k, 1.0;
}
static double mass_flux_x(long i, long j, long k) {
    return (void)j, (void)k, 0.1 + 0.01 * i;
}
static double energy(long i, long j, long k) {
    return (void)i, (void)j, (void)k, 2.5;
}
static double dro_expected(long i, long j, long k) {
    return (void)i, (void)j, (void)k, -0.1 * 0.01; /* -dt_dx * d(rovx)/di */
}

static void test_euler_flux_mass_balance(void **state) {
    (void)state;
    stenc_field *f[8];
    for (int a = 0; a < 8; a++)
        assert_stenc_ok(stenc_field_create(ctx, &f[a], STENC_F32, 3, 7, 6, 2, 1));
    set_box(f[0], one);
    set_box(f[1], mass_flux_x);
    set_box(f[2], zero);
    set_box(f[3], energy);
    /* sensor_min = 1: no smoothing, so dro is the pure central flux balance */
    assert_stenc_ok(
        ref_euler_flux(0.4, 0.1, 0.5, 1.0, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]));
    expect_interior(f[4], dro_expected, 1e-7, "euler_flux dro");
    /* A uniform gas has no flux balance, with or without smoothing. */
    set_box(f[1], zero);
    assert_stenc_ok(
        ref_euler_flux(0.4, 0.1, 0.5, -1.0, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]));
    for (int a = 4; a < 8; a++)
        expect_interior(f[a], zero, 0, "euler_flux uniform");
    for (int a = 0; a < 8; a++)
        stenc_field_free(f[a]);
}

static void test_compare_helper_catches_differences(void **state) {
    (void)state;
    stenc_field *a, *b;
    assert_stenc_ok(stenc_field_create(ctx, &a, STENC_F32, 2, 6, 3, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &b, STENC_F32, 2, 6, 3, 1, 2));
    stencil_fill_uniform(a, 3, -1, 1);
    float dense[18];
    assert_stenc_ok(stenc_field_copy_to(a, dense));
    assert_stenc_ok(stenc_field_copy_from(b, dense));
    char msg[200];
    assert_int_equal(stencil_compare_interior(a, b, 0, msg, sizeof msg), 0);
    dense[7] = nextafterf(dense[7], 2.0f);
    assert_stenc_ok(stenc_field_copy_from(b, dense));
    assert_int_equal(stencil_compare_interior(a, b, 0, msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "(1,1,0)"));
    assert_int_equal(stencil_compare_interior(a, b, 1, msg, sizeof msg), 0);
    assert_stenc_ok(stenc_field_set(b, 5, 2, 0, NAN));
    assert_stenc_ok(stenc_field_set(a, 5, 2, 0, NAN));
    assert_int_equal(stencil_compare_interior(a, b, 1, msg, sizeof msg), 1); /* NaN never matches */
    /* halo poison accounting */
    assert_stenc_ok(stenc_field_fill(b, NAN));
    assert_int_equal(stencil_count_written_halo(b), 0);
    assert_stenc_ok(stenc_field_set(b, -2, 1, 0, 0.0));
    assert_stenc_ok(stenc_field_set(b, 3, 1, 0, 0.0)); /* interior: not counted */
    assert_int_equal(stencil_count_written_halo(b), 1);
    stenc_field_free(a);
    stenc_field_free(b);
}

/* Every case's reference runs through the table on its own random data. */
static void test_every_case_runs(void **state) {
    (void)state;
    int count;
    const stencil_case *cases = stencil_cases(&count);
    assert_int_equal(count, 7);
    for (int c = 0; c < count; c++) {
        stenc_field *f[STENCIL_CASE_MAX_FIELDS];
        size_t n[3] = {9, cases[c].dims >= 2 ? 4 : 1, cases[c].dims >= 3 ? 3 : 1};
        assert_stenc_ok(stencil_case_create(ctx, &cases[c], n, cases[c].halo, f));
        cases[c].randomize(f, cases[c].ninputs, 1);
        for (int o = 0; o < cases[c].noutputs; o++)
            assert_stenc_ok(stenc_field_fill(f[cases[c].ninputs + o], NAN));
        assert_stenc_ok(cases[c].reference(ctx, cases[c].scalars, f));
        for (int o = 0; o < cases[c].noutputs; o++) {
            char msg[200];
            /* an output compared with itself matches only where it was written (not NaN) */
            assert_int_equal(stencil_compare_interior(f[cases[c].ninputs + o],
                                                      f[cases[c].ninputs + o], 0, msg, sizeof msg),
                             0);
        }
        stencil_case_free(&cases[c], f);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heat3d_keeps_linear_fields),
        cmocka_unit_test(test_poisson_stencils_on_a_quadratic),
        cmocka_unit_test(test_varcoef27_coefficients_pick_their_neighbour),
        cmocka_unit_test(test_life_blinker_turns),
        cmocka_unit_test(test_wave_r2_on_a_quadratic),
        cmocka_unit_test(test_euler_flux_mass_balance),
        cmocka_unit_test(test_compare_helper_catches_differences),
        cmocka_unit_test(test_every_case_runs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
