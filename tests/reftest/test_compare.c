/* The comparison core of stenc/reftest.h: ULP distances against a second computation that
 * counts representable values with frexp/ldexp arithmetic and with nextafter() walks (no bit
 * casts), tolerances, and the point-by-point comparison of fields. */
#include <float.h>

#include "test_util.h"

/* ---- the second computation: the signed position of x among the values of its type -------- */

/* Floats: below FLT_MIN the values are the multiples of 2^-149, the first 2^23 positions; each
 * binade [2^(e-1), 2^e) above holds 2^23 more, from position (e + 126) * 2^23. Exact in double
 * (positions < 2^31). */
static double position_f32(float x) {
    if (x < 0) return -position_f32(-x);
    if (isinf(x)) return 255.0 * 0x1p23;
    if (x < FLT_MIN) return ldexp((double)x, 149);
    int e;
    double m = frexp((double)x, &e); /* x = m * 2^e, 0.5 <= m < 1 */
    return (double)(e + 126) * 0x1p23 + ldexp(2 * m - 1, 23);
}

/* Doubles: the same with 2^52 positions per binade; kept as a sign and a magnitude, since
 * the magnitudes reach 2^63 and a double cannot hold them exactly. */
static uint64_t magnitude_f64(double x) {
    x = fabs(x);
    if (isinf(x)) return (uint64_t)2047 << 52;
    if (x < DBL_MIN) return (uint64_t)ldexp(x, 1074);
    int e;
    double m = frexp(x, &e);
    return ((uint64_t)(e + 1022) << 52) + (uint64_t)ldexp(2 * m - 1, 52);
}

static uint64_t expected_f32(float a, float b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
    return (uint64_t)fabs(position_f32(a) - position_f32(b));
}

static uint64_t expected_f64(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
    const uint64_t ma = magnitude_f64(a), mb = magnitude_f64(b);
    if (signbit(a) != signbit(b)) return ma + mb; /* below 2^64: each is at most 2047 * 2^52 */
    return ma > mb ? ma - mb : mb - ma;
}

static float f32_from_bits(uint32_t bits) {
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static double f64_from_bits(uint64_t bits) {
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* ---- ULP distances ----------------------------------------------------------------------- */

static void test_ulp_special_values_f32(void **state) {
    (void)state;
    const float denorm = 0x1p-149f, nan = NAN;
    assert_int_equal(stenc_ulp_distance_f32(0.0f, -0.0f), 0);
    assert_int_equal(stenc_ulp_distance_f32(1.0f, 1.0f), 0);
    assert_int_equal(stenc_ulp_distance_f32(1.0f, nextafterf(1.0f, 2.0f)), 1);
    assert_int_equal(stenc_ulp_distance_f32(-denorm, denorm), 2); /* through one zero */
    assert_int_equal(stenc_ulp_distance_f32(-0.0f, denorm), 1);
    assert_int_equal(stenc_ulp_distance_f32(FLT_MIN, nextafterf(FLT_MIN, 0.0f)), 1);
    assert_int_equal(stenc_ulp_distance_f32(FLT_MAX, INFINITY), 1);
    assert_int_equal(stenc_ulp_distance_f32(-INFINITY, INFINITY), 2ull * (255u << 23));
    assert_int_equal(stenc_ulp_distance_f32(nan, nan), 0);
    assert_int_equal(stenc_ulp_distance_f32(-nan, f32_from_bits(0x7fc00001u)), 0);
    assert_true(stenc_ulp_distance_f32(nan, 1.0f) == UINT64_MAX);
    assert_true(stenc_ulp_distance_f32(INFINITY, nan) == UINT64_MAX);
    /* Symmetric. */
    assert_int_equal(stenc_ulp_distance_f32(2.0f, -3.0f), stenc_ulp_distance_f32(-3.0f, 2.0f));
}

static void test_ulp_special_values_f64(void **state) {
    (void)state;
    const double denorm = 0x1p-1074;
    assert_int_equal(stenc_ulp_distance_f64(0.0, -0.0), 0);
    assert_int_equal(stenc_ulp_distance_f64(1.0, nextafter(1.0, 0.0)), 1);
    assert_int_equal(stenc_ulp_distance_f64(-denorm, denorm), 2);
    assert_int_equal(stenc_ulp_distance_f64(DBL_MIN, nextafter(DBL_MIN, 0.0)), 1);
    assert_int_equal(stenc_ulp_distance_f64(DBL_MAX, INFINITY), 1);
    /* The largest distance there is: 2 * (2047 << 52), past INT64_MAX. */
    assert_true(stenc_ulp_distance_f64(-INFINITY, INFINITY) == 2 * ((uint64_t)2047 << 52));
    assert_true(stenc_ulp_distance_f64(-DBL_MAX, DBL_MAX) == 2 * (((uint64_t)2047 << 52) - 1));
    assert_int_equal(stenc_ulp_distance_f64(NAN, -NAN), 0);
    assert_true(stenc_ulp_distance_f64(NAN, 0.0) == UINT64_MAX);
    assert_true(stenc_ulp_distance_f64(-INFINITY, NAN) == UINT64_MAX);
}

/* Values that stress every region: zeros, subnormals, the normal boundary, ordinary values,
 * the top of the range and infinities, of both signs. */
static const double edges_f64[] = {
    0.0,       0x1p-1074,   0x3p-1074, 0x1p-1023, 0x1.fffffffffffffp-1023,
    0x1p-1022, 0x1.8p-1000, 1e-300,    0.1,       1.0,
    1.5,       3.0,         1e10,      1e300,     DBL_MAX,
    INFINITY,
};
static const float edges_f32[] = {
    0.0f,      0x1p-149f,   0x3p-149f, 0x1p-127f, 0x1.fffffcp-127f,
    0x1p-126f, 0x1.8p-100f, 1e-30f,    0.1f,      1.0f,
    1.5f,      3.0f,        1e10f,     1e30f,     FLT_MAX,
    INFINITY,
};

static void test_ulp_edges_against_positions(void **state) {
    (void)state;
    const size_t nf = sizeof edges_f32 / sizeof edges_f32[0];
    for (size_t a = 0; a < 2 * nf; a++)
        for (size_t b = 0; b < 2 * nf; b++) {
            const float x = a < nf ? edges_f32[a] : -edges_f32[a - nf];
            const float y = b < nf ? edges_f32[b] : -edges_f32[b - nf];
            assert_int_equal(stenc_ulp_distance_f32(x, y), expected_f32(x, y));
        }
    const size_t nd = sizeof edges_f64 / sizeof edges_f64[0];
    for (size_t a = 0; a < 2 * nd; a++)
        for (size_t b = 0; b < 2 * nd; b++) {
            const double x = a < nd ? edges_f64[a] : -edges_f64[a - nd];
            const double y = b < nd ? edges_f64[b] : -edges_f64[b - nd];
            assert_true(stenc_ulp_distance_f64(x, y) == expected_f64(x, y));
        }
}

/* Random bit patterns, NaNs included: every kind of pair, many times. */
static void test_ulp_random_bits_against_positions(void **state) {
    (void)state;
    test_rng rng = test_rng_seeded(31);
    for (int t = 0; t < 200000; t++) {
        const uint64_t r = test_rng_u64(&rng);
        const float x = f32_from_bits((uint32_t)r), y = f32_from_bits((uint32_t)(r >> 32));
        assert_int_equal(stenc_ulp_distance_f32(x, y), expected_f32(x, y));
        const double u = f64_from_bits(test_rng_u64(&rng)), v = f64_from_bits(test_rng_u64(&rng));
        assert_true(stenc_ulp_distance_f64(u, v) == expected_f64(u, v));
    }
}

/* Walking k steps with nextafter() from any value covers k ULPs: across zero, across the
 * subnormal boundary, into infinity. */
static void test_ulp_matches_nextafter_walks(void **state) {
    (void)state;
    const float starts_f32[] = {-0x5p-149f, -0x1p-126f, 0x1.fffff0p-127f,
                                1.0f,       -1.0f,      nextafterf(FLT_MAX, 0.0f),
                                -0x1p-149f};
    for (size_t s = 0; s < sizeof starts_f32 / sizeof starts_f32[0]; s++) {
        float x = starts_f32[s];
        for (uint64_t k = 1; k <= 12 && !isinf(x); k++) {
            x = nextafterf(x, INFINITY);
            assert_int_equal(stenc_ulp_distance_f32(starts_f32[s], x), k);
            assert_int_equal(stenc_ulp_distance_f32(x, starts_f32[s]), k);
        }
    }
    const double starts_f64[] = {-0x5p-1074, -0x1p-1022, 1.0, -1.0, nextafter(DBL_MAX, 0.0)};
    for (size_t s = 0; s < sizeof starts_f64 / sizeof starts_f64[0]; s++) {
        double x = starts_f64[s];
        for (uint64_t k = 1; k <= 12 && !isinf(x); k++) {
            x = nextafter(x, INFINITY);
            assert_true(stenc_ulp_distance_f64(starts_f64[s], x) == k);
        }
    }
}

/* ---- values and tolerances --------------------------------------------------------------- */

static void test_value_error(void **state) {
    (void)state;
    stenc_value_error e = stenc_value_error_of(STENC_F64, 1.5, 1.0);
    assert_true(e.abs == 0.5 && e.rel == 0.5 && e.ulp == (uint64_t)1 << 51);
    e = stenc_value_error_of(STENC_F32, 1.0, (double)nextafterf(1.0f, 2.0f));
    assert_int_equal(e.ulp, 1); /* counted in float, though the values travel as double */
    e = stenc_value_error_of(STENC_F64, 1e-300, 0.0);
    assert_true(isinf(e.rel));
    e = stenc_value_error_of(STENC_F64, -0.0, 0.0);
    assert_true(e.abs == 0 && e.rel == 0 && e.ulp == 0);
    e = stenc_value_error_of(STENC_F64, NAN, 1.0);
    assert_true(isinf(e.abs) && isinf(e.rel) && e.ulp == UINT64_MAX);
    e = stenc_value_error_of(STENC_F64, NAN, NAN);
    assert_true(e.abs == 0 && e.ulp == 0);
    e = stenc_value_error_of(STENC_F64, 1.0, INFINITY);
    assert_true(isinf(e.abs) && isinf(e.rel));
}

static void test_bitwise_is_the_default(void **state) {
    (void)state;
    const stenc_tolerance bitwise = {0, 0, 0, 0};
    assert_true(stenc_tolerance_match(&bitwise, STENC_F64, 1.0, 1.0));
    assert_false(stenc_tolerance_match(&bitwise, STENC_F64, 1.0, nextafter(1.0, 2.0)));
    assert_false(stenc_tolerance_match(&bitwise, STENC_F64, -0.0, 0.0)); /* the sign counts */
    assert_false(stenc_tolerance_match(&bitwise, STENC_F32, 0.0, -0.0));
    assert_true(stenc_tolerance_match(&bitwise, STENC_F64, NAN, -NAN)); /* any NaN */
    assert_false(stenc_tolerance_match(&bitwise, STENC_F64, NAN, 1.0));
    assert_true(stenc_tolerance_match(&bitwise, STENC_F32, INFINITY, INFINITY));
    assert_true(stenc_tolerance_match(NULL, STENC_F64, 2.0, 2.0));
}

static void test_tolerances(void **state) {
    (void)state;
    stenc_tolerance ulp0 = {STENC_TOL_ULP, 0, 0, 0};
    assert_true(stenc_tolerance_match(&ulp0, STENC_F64, -0.0, 0.0)); /* equal values */
    stenc_tolerance ulp2 = {STENC_TOL_ULP, 0, 0, 2};
    const float one = 1.0f, two_up = nextafterf(nextafterf(one, 2.0f), 2.0f);
    assert_true(stenc_tolerance_match(&ulp2, STENC_F32, two_up, one));
    assert_false(stenc_tolerance_match(&ulp2, STENC_F32, nextafterf(two_up, 2.0f), one));
    /* ULPs are counted in the type: 2 float ULPs are 2^30 double ones. */
    assert_false(stenc_tolerance_match(&ulp2, STENC_F64, two_up, one));
    /* An infinity is nobody's neighbour, whatever the tolerance. */
    assert_false(stenc_tolerance_match(&ulp2, STENC_F32, INFINITY, FLT_MAX));
    stenc_tolerance loose = {STENC_TOL_ABS | STENC_TOL_REL, 1e300, 1e300, 0};
    assert_false(stenc_tolerance_match(&loose, STENC_F64, -INFINITY, INFINITY));
    assert_false(stenc_tolerance_match(&loose, STENC_F64, NAN, 0.0));

    stenc_tolerance abs = {STENC_TOL_ABS, 1e-3, 0, 0};
    assert_true(stenc_tolerance_match(&abs, STENC_F64, 1e-4, -1e-4)); /* near zero */
    assert_false(stenc_tolerance_match(&abs, STENC_F64, 1000.5, 1000.0));
    stenc_tolerance rel = {STENC_TOL_REL, 0, 1e-3, 0};
    assert_true(stenc_tolerance_match(&rel, STENC_F64, 1000.5, 1000.0));
    assert_false(stenc_tolerance_match(&rel, STENC_F64, 1e-4, -1e-4));
    /* Any one tolerance met is enough. */
    stenc_tolerance both = {STENC_TOL_ABS | STENC_TOL_REL, 1e-3, 1e-3, 0};
    assert_true(stenc_tolerance_match(&both, STENC_F64, 1e-4, -1e-4));
    assert_true(stenc_tolerance_match(&both, STENC_F64, 1000.5, 1000.0));
    assert_false(stenc_tolerance_match(&both, STENC_F64, 1.01, 1.0));
}

static void test_tolerance_check(void **state) {
    (void)state;
    stenc_tolerance t = {STENC_TOL_ABS, -1, 0, 0};
    assert_int_equal(stenc_tolerance_check(&t, "t"), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "negative"));
    t = (stenc_tolerance){STENC_TOL_REL, 0, NAN, 0};
    assert_int_equal(stenc_tolerance_check(&t, "t"), STENC_ERR_INVALID_ARGUMENT);
    t = (stenc_tolerance){8u, 0, 0, 0};
    assert_int_equal(stenc_tolerance_check(&t, "t"), STENC_ERR_INVALID_ARGUMENT);
    t = (stenc_tolerance){STENC_TOL_ABS, -1, 0, 0};
    t.use = 0; /* unused values are not looked at */
    assert_int_equal(stenc_tolerance_check(&t, "t"), STENC_OK);
    assert_int_equal(stenc_tolerance_check(NULL, "t"), STENC_ERR_INVALID_ARGUMENT);
}

/* ---- fields ------------------------------------------------------------------------------ */

static void test_compare_fields(void **state) {
    (void)state;
    stenc_ctx *ctx;
    stenc_field *got, *want, *other;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    assert_stenc_ok(stenc_field_create(ctx, &got, STENC_F32, 3, 5, 3, 2, 1));
    assert_stenc_ok(stenc_field_create(ctx, &want, STENC_F32, 3, 5, 3, 2, 1));
    assert_stenc_ok(stenc_field_create(ctx, &other, STENC_F32, 3, 5, 3, 2, 0));
    assert_stenc_ok(stenc_field_fill(got, 0.5));
    assert_stenc_ok(stenc_field_fill(want, 0.5));
    const stenc_tolerance bitwise = {0, 0, 0, 0};
    stenc_compare_stats s;
    assert_stenc_ok(stenc_compare_fields(got, want, &bitwise, &s));
    assert_int_equal(s.points, 7 * 5 * 4); /* halo included */
    assert_int_equal(s.mismatches, 0);

    /* Two wrong points: the first in memory order is reported, halo point or not. */
    assert_stenc_ok(stenc_field_set(got, 3, 2, 1, (double)nextafterf(0.5f, 1.0f)));
    assert_stenc_ok(stenc_field_set(got, -1, 0, 0, 0.25));
    assert_stenc_ok(stenc_compare_fields(got, want, &bitwise, &s));
    assert_int_equal(s.mismatches, 2);
    assert_int_equal(s.first[0], -1);
    assert_int_equal(s.first[1], 0);
    assert_int_equal(s.first[2], 0);
    assert_true(s.got == 0.25 && s.want == 0.5 && s.first_err.abs == 0.25);
    assert_true(s.max.abs == 0.25 && s.max.ulp == (uint64_t)1 << 23);

    /* Within 1 ULP, only the halo point is left. */
    const stenc_tolerance ulp1 = {STENC_TOL_ULP, 0, 0, 1};
    assert_stenc_ok(stenc_field_set(got, -1, 0, 0, 0.5));
    assert_stenc_ok(stenc_compare_fields(got, want, &ulp1, &s));
    assert_int_equal(s.mismatches, 0);
    assert_stenc_ok(stenc_compare_fields(got, want, &bitwise, &s));
    assert_int_equal(s.mismatches, 1);
    assert_int_equal(s.first[0], 3);
    assert_int_equal(s.first[1], 2);
    assert_int_equal(s.first[2], 1);

    assert_int_equal(stenc_compare_fields(got, other, &bitwise, &s), STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "halo 1 against"));
    assert_int_equal(stenc_compare_fields(got, NULL, &bitwise, &s), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_compare_fields(got, want, NULL, &s), STENC_ERR_INVALID_ARGUMENT);
    stenc_field_free(other);
    stenc_field_free(want);
    stenc_field_free(got);
    stenc_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ulp_special_values_f32),
        cmocka_unit_test(test_ulp_special_values_f64),
        cmocka_unit_test(test_ulp_edges_against_positions),
        cmocka_unit_test(test_ulp_random_bits_against_positions),
        cmocka_unit_test(test_ulp_matches_nextafter_walks),
        cmocka_unit_test(test_value_error),
        cmocka_unit_test(test_bitwise_is_the_default),
        cmocka_unit_test(test_tolerances),
        cmocka_unit_test(test_tolerance_check),
        cmocka_unit_test(test_compare_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
