/* The reftest harness, stenc_reftest_run(), on a stencil written by hand in this file (no
 * generated code): a coloured 2-D update with a reduction, and one planted fault at a time in
 * the "generated" side or in the reference. */
#include "test_util.h"

/* The fault of the current test. */
typedef enum fault {
    FAULT_NONE = 0,
    FAULT_LAUNCH_WRITES_HALO,    /* the kernel writes y(-1,0) */
    FAULT_REFERENCE_ONE_ULP,     /* the reference is 1 ULP off at (3,2) */
    FAULT_REFERENCE_SUM,         /* the reference's reduction is off */
    FAULT_REFERENCE_FAILS,       /* the reference returns an error without a message */
    FAULT_LAUNCH_FAILS,          /* the launcher returns an error */
    FAULT_REFERENCE_ALL_COLOURS, /* the reference ignores the colour */
} fault;

static fault current_fault;
static double seen_scalar; /* what the reference got as `a` */

/* y = a*x + x[i-1,j] at the points of colour (i+j)%2; s = the sum of the new y. The same
 * arithmetic for both sides, so that they agree bitwise unless a fault says otherwise. */
static double point_value(double a, const double *x, ptrdiff_t p) {
    return a * x[p] + x[p - 1];
}

static stenc_status fake_launch(stenc_ctx *ctx, const char *variant, int color,
                                const double *scalars, stenc_field *const *f, double *results) {
    (void)ctx, (void)variant;
    if (current_fault == FAULT_LAUNCH_FAILS)
        return stenc_set_error(STENC_ERR_SHAPE, __FILE__, __LINE__, "fake: planted failure");
    stenc_field_layout L;
    stenc_field_get_layout(f[1], &L);
    const double *x = stenc_field_host_origin(f[0]);
    double *y = stenc_field_host_origin(f[1]);
    double sum = 0;
    for (ptrdiff_t j = 0; j < (ptrdiff_t)L.n[1]; j++)
        for (ptrdiff_t i = 0; i < (ptrdiff_t)L.n[0]; i++) {
            if ((i + j) % 2 != color) continue;
            const ptrdiff_t p = i + j * L.stride[1];
            y[p] = point_value(scalars[0], x, p);
            sum += y[p];
        }
    if (current_fault == FAULT_LAUNCH_WRITES_HALO) y[-1] = 7.0;
    results[0] = sum;
    return STENC_OK;
}

/* The reference, written the way a user would: from the call alone. */
static stenc_status fake_reference(const stenc_reftest_call *c) {
    if (current_fault == FAULT_REFERENCE_FAILS) return STENC_ERR_NUMERICAL;
    assert_int_equal(c->narrays, 2);
    assert_int_equal(c->arrays[0].kind, STENC_ARG_INPUT);
    assert_string_equal(c->arrays[1].name, "y");
    assert_true(isnan(c->results[0])); /* not written yet */
    seen_scalar = c->scalars[0];
    const double *x = c->arrays[0].origin;
    double *y = c->arrays[1].origin;
    double sum = 0;
    for (ptrdiff_t j = 0; j < c->n[1]; j++)
        for (ptrdiff_t i = 0; i < c->n[0]; i++) {
            if ((i + j) % 2 != c->color && current_fault != FAULT_REFERENCE_ALL_COLOURS) continue;
            const ptrdiff_t p = i + j * c->stride[1];
            y[p] = point_value(c->scalars[0], x, p);
            if (current_fault == FAULT_REFERENCE_ONE_ULP && i == 3 && j == 2)
                y[p] = nextafter(y[p], INFINITY);
            sum += y[p];
        }
    c->results[0] = current_fault == FAULT_REFERENCE_SUM ? sum * (1 + 1e-9) : sum;
    return STENC_OK;
}

static const char *fake_variant_name(int index) {
    (void)index;
    return NULL;
}

static const char *const fake_scalars[] = {"a"};
static const stenc_launch_arg fake_arrays[] = {
    {"x", STENC_ARG_INPUT, 1, "", 0u, 0, {0, 0, 0}},
    {"y", STENC_ARG_OUTPUT, 0, "", 0u, 0, {0, 0, 0}},
};
static const char *const fake_results[] = {"s"};
static const stenc_reftest_stencil fake = {
    .name = "fake",
    .dims = 2,
    .type = STENC_F64,
    .halo = 1,
    .ncolors = 2,
    .nscalars = 1,
    .scalar_names = fake_scalars,
    .narrays = 2,
    .arrays = fake_arrays,
    .nresults = 1,
    .result_names = fake_results,
    .launch = fake_launch,
    .variant_name = fake_variant_name,
};

static const size_t size_7x5[3] = {7, 5, 1};

static stenc_reftest_result run(stenc_ctx *ctx, const stenc_reftest_options *opt,
                                stenc_status expect) {
    stenc_reftest_result r;
    memset(&r, 0, sizeof r);
    stenc_status st = stenc_reftest_run(&fake, fake_reference, opt, ctx, NULL, size_7x5, &r);
    if (st != expect) fail_msg("status %d, want %d: %s", st, expect, stenc_last_error());
    return r;
}

static int setup(void **state) {
    stenc_ctx *ctx;
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) return -1;
    *state = ctx;
    current_fault = FAULT_NONE;
    return 0;
}

static int teardown(void **state) {
    return stenc_ctx_destroy(*state) == STENC_OK ? 0 : -1;
}

static void test_options_defaults(void **state) {
    (void)state;
    stenc_reftest_options o;
    stenc_reftest_options_init(&o);
    assert_int_equal(o.tolerance.use, 0);
    assert_int_equal(o.reduce_tolerance.use, 0);
    assert_true(o.lo == -1 && o.hi == 1 && o.seed == 1 && o.warmup == 1 && o.repeat == 5);
    assert_null(o.scalars);
}

static void test_correct_reference_passes(void **state) {
    stenc_reftest_options opt;
    stenc_reftest_options_init(&opt);
    stenc_reftest_result r = run(*state, &opt, STENC_OK);
    assert_true(r.passed);
    assert_int_equal(r.mismatches, 0);
    /* Two arrays of 9 x 7 points (halo included), compared after each of the two colours. */
    assert_int_equal(r.points, 2 * 9 * 7 * 2);
    assert_true(r.max.abs == 0 && r.max_result.abs == 0);
    assert_true(r.gen_ms >= 0 && r.ref_ms >= 0);
    assert_true(seen_scalar >= -1 && seen_scalar < 1); /* random in [lo, hi) */
    const double a = 0.375;
    opt.scalars = &a;
    r = run(*state, &opt, STENC_OK);
    assert_true(r.passed);
    assert_true(seen_scalar == a);
}

static void test_one_ulp_names_the_point(void **state) {
    current_fault = FAULT_REFERENCE_ONE_ULP;
    stenc_reftest_options opt;
    stenc_reftest_options_init(&opt);
    stenc_reftest_result r = run(*state, &opt, STENC_OK);
    assert_false(r.passed);
    assert_true(r.mismatches >= 1); /* the sum may differ too; the array comes first */
    assert_string_equal(r.first.what, "y");
    assert_false(r.first.is_result);
    assert_int_equal(r.first.color, 1); /* (3 + 2) % 2 */
    assert_int_equal(r.first.point[0], 3);
    assert_int_equal(r.first.point[1], 2);
    assert_int_equal(r.first.point[2], 0);
    assert_true(r.first.want == nextafter(r.first.got, INFINITY));
    assert_int_equal(r.first.err.ulp, 1);
    /* A tolerance of 1 ULP on arrays accepts it, one on the sum what it did to the sum. */
    opt.tolerance = (stenc_tolerance){STENC_TOL_ULP, 0, 0, 1};
    opt.reduce_tolerance = (stenc_tolerance){STENC_TOL_REL, 0, 1e-12, 0};
    r = run(*state, &opt, STENC_OK);
    assert_true(r.passed);
    assert_int_equal(r.max.ulp, 1);
}

static void test_reduction_mismatch(void **state) {
    current_fault = FAULT_REFERENCE_SUM;
    stenc_reftest_options opt;
    stenc_reftest_options_init(&opt);
    stenc_reftest_result r = run(*state, &opt, STENC_OK);
    assert_false(r.passed);
    assert_true(r.first.is_result);
    assert_string_equal(r.first.what, "s");
    assert_int_equal(r.first.color, 0);
    opt.reduce_tolerance = (stenc_tolerance){STENC_TOL_REL, 0, 1e-8, 0};
    r = run(*state, &opt, STENC_OK);
    assert_true(r.passed);
    assert_true(r.max_result.rel > 0 && r.max_result.rel < 1e-8);
}

/* The halo is compared too: a kernel that writes it is caught at the halo point. */
static void test_halo_write_is_caught(void **state) {
    current_fault = FAULT_LAUNCH_WRITES_HALO;
    stenc_reftest_options opt;
    stenc_reftest_options_init(&opt);
    stenc_reftest_result r = run(*state, &opt, STENC_OK);
    assert_false(r.passed);
    assert_int_equal(r.first.point[0], -1);
    assert_int_equal(r.first.point[1], 0);
    assert_true(r.first.got == 7.0);
}

/* A reference that updates every colour is caught at the first launch. */
static void test_colours_are_checked(void **state) {
    current_fault = FAULT_REFERENCE_ALL_COLOURS;
    stenc_reftest_options opt;
    stenc_reftest_options_init(&opt);
    stenc_reftest_result r = run(*state, &opt, STENC_OK);
    assert_false(r.passed);
    assert_int_equal(r.first.color, 0);
    assert_int_equal(r.first.point[0], 1); /* (1,0) is colour 1 */
    assert_int_equal(r.first.point[1], 0);
}

static void test_failures_are_statuses(void **state) {
    stenc_reftest_options opt;
    stenc_reftest_options_init(&opt);
    current_fault = FAULT_REFERENCE_FAILS;
    run(*state, &opt, STENC_ERR_NUMERICAL);
    assert_non_null(strstr(stenc_last_error(), "without a message"));
    current_fault = FAULT_LAUNCH_FAILS;
    run(*state, &opt, STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "planted failure"));
    current_fault = FAULT_NONE;

    opt.repeat = 0;
    run(*state, &opt, STENC_ERR_INVALID_ARGUMENT);
    stenc_reftest_options_init(&opt);
    opt.lo = 2, opt.hi = 1;
    run(*state, &opt, STENC_ERR_INVALID_ARGUMENT);
    stenc_reftest_options_init(&opt);
    opt.tolerance = (stenc_tolerance){STENC_TOL_ABS, -1, 0, 0};
    run(*state, &opt, STENC_ERR_INVALID_ARGUMENT);
    stenc_reftest_options_init(&opt);
    stenc_reftest_result r;
    const size_t bad[3] = {7, 5, 2}; /* a 2-D stencil takes n[2] == 1 */
    assert_int_equal(stenc_reftest_run(&fake, fake_reference, &opt, *state, NULL, bad, &r),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_reftest_run(&fake, NULL, &opt, *state, NULL, size_7x5, &r),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_reftest_run(&fake, fake_reference, &opt, NULL, NULL, size_7x5, &r),
                     STENC_ERR_INVALID_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_defaults),
        cmocka_unit_test_setup_teardown(test_correct_reference_passes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_ulp_names_the_point, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reduction_mismatch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_halo_write_is_caught, setup, teardown),
        cmocka_unit_test_setup_teardown(test_colours_are_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failures_are_statuses, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
