/* The emitter's translation, checked point by point: features.stencil (every built-in, index
 * variables, lets, if / else if / else, ternaries, logic, 1-D to 3-D) generated in the
 * precision REAL (float or double, set by CMake) against loops written here by hand from the
 * .stencil text, on random data at awkward sizes. Outputs are poisoned first, so an unwritten
 * point fails, and their halos must stay poisoned. */
#include "test_util.h"

#include "feat1d.h"
#include "feat2d.h"
#include "feat3d.h"

#if STENC_TEST_REAL_IS_FLOAT
typedef float real;
#define REAL_TYPE STENC_F32
#define TOL 2e-6
#define F(fn) fn##f
#else
typedef double real;
#define REAL_TYPE STENC_F64
#define TOL 1e-13
#define F(fn) fn
#endif

static const double poison = -12345.0;

static stenc_field *make_field(stenc_ctx *ctx, int dims, const size_t n[3], int halo,
                               test_rng *rng) {
    stenc_field *f = NULL;
    assert_stenc_ok(stenc_field_create(ctx, &f, REAL_TYPE, dims, n[0], n[1], n[2], halo));
    stenc_field_layout lay;
    assert_stenc_ok(stenc_field_get_layout(f, &lay));
    long hj = dims >= 2 ? halo : 0, hk = dims >= 3 ? halo : 0;
    for (long k = -hk; k < (long)n[2] + hk; k++)
        for (long j = -hj; j < (long)n[1] + hj; j++)
            for (long i = -halo; i < (long)n[0] + halo; i++)
                assert_stenc_ok(
                    stenc_field_set(f, i, j, k, rng ? test_rng_uniform(rng, -1.0, 1.0) : poison));
    return f;
}

static real at(const stenc_field *f, long i, long j, long k) {
    double v;
    assert_stenc_ok(stenc_field_get(f, i, j, k, &v));
    return (real)v;
}

static void expect_close(real got, real want, const char *what, long i, long j, long k) {
    double err = fabs((double)got - (double)want);
    if (!(err <= TOL * (1.0 + fabs((double)want))))
        fail_msg("%s(%ld,%ld,%ld): got %.17g, want %.17g", what, i, j, k, (double)got,
                 (double)want);
}

/* Every output point was written by the kernel and every halo point was left alone. */
static void expect_halo_poisoned(const stenc_field *f, int dims, const size_t n[3], int halo) {
    long hj = dims >= 2 ? halo : 0, hk = dims >= 3 ? halo : 0;
    for (long k = -hk; k < (long)n[2] + hk; k++)
        for (long j = -hj; j < (long)n[1] + hj; j++)
            for (long i = -halo; i < (long)n[0] + halo; i++) {
                int inside = i >= 0 && i < (long)n[0] && j >= 0 && j < (long)n[1] && k >= 0 &&
                             k < (long)n[2];
                if (!inside && at(f, i, j, k) != (real)poison)
                    fail_msg("halo point (%ld,%ld,%ld) was written", i, j, k);
            }
}

static void test_feat1d(void **state) {
    stenc_ctx *ctx = *state;
    const size_t sizes[] = {1, 2, 3, 5, 17, 31, 4095, 4099};
    test_rng rng = test_rng_seeded(11);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n[3] = {sizes[s], 1, 1};
        stenc_field *u = make_field(ctx, 1, n, 2, &rng);
        stenc_field *v = make_field(ctx, 1, n, 1, NULL);
        stenc_field *w = make_field(ctx, 1, n, 0, NULL);
        const real c = (real)0.375;
        assert_stenc_ok(feat1d(ctx, 0.375, u, v, w));
        const real ni = (real)n[0];
        for (long i = 0; i < (long)n[0]; i++) {
            const real ui = at(u, i, 0, 0), d = at(u, i + 1, 0, 0) - at(u, i - 1, 0, 0);
            real want_v;
            if (d > (real)0.25)
                want_v = F(sqrt)(d) + c;
            else if (d < (real)-0.25)
                want_v = d * d;
            else
                want_v = F(exp)(-at(u, i - 2, 0, 0));
            const real ri = (real)i;
            real want_w =
                ((ri > 2 && !(ui > (real)0.5)) || ri == ni - 1)
                    ? ri / ni
                    : F(fmax)(F(fabs)(at(u, i + 2, 0, 0)), F(fmin)(ui, c)) + F(pow)(ui, (real)2);
            expect_close(at(v, i, 0, 0), want_v, "v", i, 0, 0);
            expect_close(at(w, i, 0, 0), want_w, "w", i, 0, 0);
        }
        expect_halo_poisoned(v, 1, n, 1);
        stenc_field_free(u);
        stenc_field_free(v);
        stenc_field_free(w);
    }
}

static void test_feat2d(void **state) {
    stenc_ctx *ctx = *state;
    const size_t sizes[][2] = {{1, 1}, {2, 3}, {17, 9}, {33, 12}, {5, 17}};
    test_rng rng = test_rng_seeded(22);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n[3] = {sizes[s][0], sizes[s][1], 1};
        stenc_field *a = make_field(ctx, 2, n, 1, &rng);
        stenc_field *b = make_field(ctx, 2, n, 3, &rng); /* wider halo: other strides */
        stenc_field *y = make_field(ctx, 2, n, 2, NULL);
        const real h = (real)0.125;
        assert_stenc_ok(feat2d(ctx, 0.125, a, b, y));
        for (long j = 0; j < (long)n[1]; j++)
            for (long i = 0; i < (long)n[0]; i++) {
                const real av = at(a, i, j, 0), bv = at(b, i, j, 0);
                real want = F(floor)(at(a, i - 1, j, 0) * 3) + F(ceil)(at(b, i, j + 1, 0)) +
                            F(sin)(av) * F(cos)(bv) + F(tan)((real)0.25 * at(a, i, j - 1, 0)) +
                            F(log)(1 + bv * bv) + F(fabs)(-at(a, i + 1, j, 0)) - -av + (real)i * h +
                            (real)j + (real)n[1];
                expect_close(at(y, i, j, 0), want, "y", i, j, 0);
            }
        expect_halo_poisoned(y, 2, n, 2);
        stenc_field_free(a);
        stenc_field_free(b);
        stenc_field_free(y);
    }
}

static void test_feat3d(void **state) {
    stenc_ctx *ctx = *state;
    const size_t sizes[][3] = {{1, 1, 1}, {3, 2, 5}, {17, 9, 6}, {5, 17, 9}};
    test_rng rng = test_rng_seeded(33);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n[3] = {sizes[s][0], sizes[s][1], sizes[s][2]};
        stenc_field *p = make_field(ctx, 3, n, 2, &rng);
        stenc_field *unused = make_field(ctx, 3, n, 0, &rng);
        stenc_field *q = make_field(ctx, 3, n, 1, NULL);
        assert_stenc_ok(feat3d(ctx, p, unused, q));
        for (long k = 0; k < (long)n[2]; k++)
            for (long j = 0; j < (long)n[1]; j++)
                for (long i = 0; i < (long)n[0]; i++) {
                    real want = at(p, i + 2, j, k) + 2 * at(p, i, j - 2, k) +
                                3 * at(p, i, j, k + 1) + (real)k + (real)n[2] * (real)i -
                                at(p, i - 1, j - 1, k - 1);
                    expect_close(at(q, i, j, k), want, "q", i, j, k);
                }
        expect_halo_poisoned(q, 3, n, 1);
        stenc_field_free(p);
        stenc_field_free(unused);
        stenc_field_free(q);
    }
}

static int setup(void **state) {
    stenc_ctx *ctx = NULL;
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) return -1;
    *state = ctx;
    return 0;
}

static int teardown(void **state) {
    stenc_ctx_destroy(*state);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feat1d),
        cmocka_unit_test(test_feat2d),
        cmocka_unit_test(test_feat3d),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
