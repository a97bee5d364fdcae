/* Division in generated kernels against the host's `/`, every point bit for bit (a NaN against
 * a NaN, whatever its payload), in double and float (tests/stencils/divide.stencil), at odd
 * sizes: the targets promise IEEE division, correctly rounded, for every operand (docs/cuda.md,
 * "Precision and rounding"), and fast paths that handle only some operands are where that
 * promise would break. The operands mix, point by point: ordinary values, random bit patterns
 * (every exponent, subnormals, zeros of both signs, infinities, NaNs), magnitudes near 2^+-32
 * and 2^+-320, exact and power-of-two quotients, and quotients a hair from a rounding boundary.
 * With argument "gpu": every CUDA variant (exit 77 without a device); "opencl": the OpenCL
 * kernels (exit 77 without an OpenCL device); none: the C kernels. */
#include <math.h>

#include "divide_const_f.h"
#include "divide_d.h"
#include "divide_f.h"
#include "point_check.h"

static stenc_device device = STENC_DEVICE_CPU;

/* A dividend and a divisor of one kind (see the file's comment), as doubles; `single` gives
 * float values (each exactly a float), with float's range edges. */
static void operands(test_rng *rng, int single, double *a, double *b) {
    const int edge = single ? 32 : 320; /* magnitudes where a reciprocal-based fast path ends */
    const uint64_t u = test_rng_u64(rng), v = test_rng_u64(rng);
    switch (u % 6) {
    case 0: /* ordinary */
        *a = test_rng_uniform(rng, -2, 2);
        *b = test_rng_uniform(rng, -2, 2);
        break;
    case 1: { /* any bit pattern */
        if (single) {
            float x, y;
            const uint32_t ux = (uint32_t)(v >> 32), uy = (uint32_t)v;
            memcpy(&x, &ux, 4), memcpy(&y, &uy, 4);
            *a = x, *b = y;
        } else {
            memcpy(a, &v, 8);
            const uint64_t w = test_rng_u64(rng);
            memcpy(b, &w, 8);
        }
        break;
    }
    case 2: { /* magnitudes around the range's edges, zeros among them */
        const int e[] = {-edge - 1, -edge, edge - 1, edge, 0, -edge / 2};
        *a = ldexp(test_rng_uniform(rng, 1, 2), e[v % 6]) * ((v >> 8) & 1 ? -1 : 1);
        *b = ldexp(test_rng_uniform(rng, 1, 2), e[(v >> 3) % 6]);
        if ((v >> 9) % 7 == 0) *a = (v >> 12) & 1 ? -0.0 : 0.0;
        if ((v >> 13) % 11 == 0) *b = (v >> 16) & 1 ? -0.0 : 0.0;
        break;
    }
    case 3: /* exact quotients, powers of two among them */
        *b = test_rng_uniform(rng, -3, 3);
        *a = *b * (double)((int)(v % 17) - 8) * ldexp(1, (int)(v >> 5) % 9 - 4);
        break;
    case 4: { /* a / b within about 2^-20 of a quotient's rounding boundary */
        const int p = single ? 24 : 53;
        *b = floor(test_rng_uniform(rng, 1, 2) * ldexp(1, p - 1)) * ldexp(1, 1 - p);
        const double mid =
            (floor(test_rng_uniform(rng, 1, 2) * ldexp(1, p - 1)) + 0.5) * ldexp(1, 1 - p);
        *a = *b * mid; /* rounded: a hair off the midpoint */
        break;
    }
    default: /* ordinary magnitudes of any sign */
        *a = ldexp(test_rng_uniform(rng, -1, 1), (int)(v % 41) - 20);
        *b = ldexp(test_rng_uniform(rng, -1, 1), (int)((v >> 8) % 41) - 20);
    }
    if (single) *a = (float)*a, *b = (float)*b;
}

static int same_value(double got, double want) {
    return (isnan(got) && isnan(want)) || memcmp(&got, &want, sizeof got) == 0;
}

/* Every interior point of q and r (moved to the host) against the host's quotients. */
static int check(stenc_field *q, stenc_field *r, stenc_field *a, stenc_field *b, int single,
                 const char *what) {
    if (device != STENC_DEVICE_CPU) {
        assert_int_equal(stenc_field_download(q), STENC_OK);
        assert_int_equal(stenc_field_download(r), STENC_OK);
        assert_int_equal(stenc_field_download(a), STENC_OK);
        assert_int_equal(stenc_field_download(b), STENC_OK);
    }
    stenc_field_layout l;
    stenc_field_get_layout(q, &l);
    for (long j = 0; j < (long)l.n[1]; j++)
        for (long i = 0; i < (long)l.n[0]; i++) {
            const double a0 = point_at(a, i, j, 0), b0 = point_at(b, i, j, 0);
            const double b1 = point_at(b, i + 1, j, 0), a1 = point_at(a, i, j - 1, 0);
            const double wq = single ? (double)((float)a0 / (float)b0) : a0 / b0;
            const double wr = single ? (double)((float)b1 / (float)a1) : b1 / a1;
            const double gq = point_at(q, i, j, 0), gr = point_at(r, i, j, 0);
            if (!same_value(gq, wq) || !same_value(gr, wr)) {
                print_error("%s: (%ld,%ld): q = %a / %a: %a, want %a; r = %a / %a: %a, want %a\n",
                            what, i, j, a0, b0, gq, wq, b1, a1, gr, wr);
                return 0;
            }
        }
    return 1;
}

typedef const char *(*variant_name_fn)(int);
typedef stenc_status (*variant_fn)(stenc_ctx *, const char *, const stenc_field *,
                                   const stenc_field *, stenc_field *, stenc_field *);

static void run(int single, variant_name_fn name_of, variant_fn launch) {
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device), STENC_OK);
    const size_t sizes[][2] = {{1, 1}, {37, 23}, {2, 301}, {257, 130}};
    const stenc_type type = single ? STENC_F32 : STENC_F64;
    test_rng rng = test_rng_seeded(single ? 31 : 30);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t ni = sizes[s][0], nj = sizes[s][1];
        stenc_field *a, *b, *q, *r;
        assert_int_equal(stenc_field_create(ctx, &a, type, 2, ni, nj, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &b, type, 2, ni, nj, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &q, type, 2, ni, nj, 1, 0), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &r, type, 2, ni, nj, 1, 0), STENC_OK);
        for (long j = -1; j <= (long)nj; j++)
            for (long i = -1; i <= (long)ni; i++) {
                double x, y;
                operands(&rng, single, &x, &y);
                stenc_field_set(a, i, j, 0, x);
                stenc_field_set(b, i, j, 0, y);
            }
        if (device != STENC_DEVICE_CPU) { /* q and r too: a launch writes where fields live */
            assert_int_equal(stenc_field_upload(a), STENC_OK);
            assert_int_equal(stenc_field_upload(b), STENC_OK);
            assert_int_equal(stenc_field_upload(q), STENC_OK);
            assert_int_equal(stenc_field_upload(r), STENC_OK);
        }
        int count = 0;
        while (device == STENC_DEVICE_CUDA && name_of(count))
            count++;
        for (int v = 0; v < (count ? count : 1); v++) { /* every CUDA variant, else the default */
            const char *name = count ? name_of(v) : NULL;
            if (v > 0)
                for (int f = 0; f < 4; f++) /* check() left them on the host */
                    assert_int_equal(stenc_field_upload((stenc_field *[]){a, b, q, r}[f]),
                                     STENC_OK);
            assert_int_equal(launch(ctx, name, a, b, q, r), STENC_OK);
            char what[128];
            snprintf(what, sizeof what, "%s %zux%zu %s", single ? "divide_f" : "divide_d", ni, nj,
                     name ? name : "default");
            assert_true(check(q, r, a, b, single, what));
        }
        stenc_field_free(a), stenc_field_free(b), stenc_field_free(q), stenc_field_free(r);
    }
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

static void test_double(void **state) {
    (void)state;
    run(0, divide_d_variant_name, divide_d_variant);
}

static void test_float(void **state) {
    (void)state;
    run(1, divide_f_variant_name, divide_f_variant);
}

/* divide_const_f: every point of q, r, s and t against the host's quotients by the literals. */
static int check_const(stenc_field *out[4], stenc_field *a, stenc_field *b, const char *what) {
    static const char *const names[] = {"q", "r", "s", "t"};
    const float divisor[] = {118.0f, -0.3f, 3e-30f, 7e30f};
    for (int f = 0; f < 4 && device != STENC_DEVICE_CPU; f++)
        assert_int_equal(stenc_field_download(out[f]), STENC_OK);
    stenc_field_layout l;
    stenc_field_get_layout(out[0], &l);
    for (long j = 0; j < (long)l.n[1]; j++)
        for (long i = 0; i < (long)l.n[0]; i++) {
            const float x[] = {(float)point_at(a, i, j, 0), (float)point_at(b, i + 1, j, 0),
                               (float)point_at(a, i, j - 1, 0),
                               (float)point_at(a, i, j, 0) + (float)point_at(b, i, j, 0)};
            for (int f = 0; f < 4; f++) {
                const double want = (double)(x[f] / divisor[f]), got = point_at(out[f], i, j, 0);
                if (!same_value(got, want)) {
                    print_error("%s: (%ld,%ld): %s = %a / %a: %a, want %a\n", what, i, j, names[f],
                                (double)x[f], (double)divisor[f], got, want);
                    return 0;
                }
            }
        }
    return 1;
}

/* divide_const_f on operands of every kind (operands()), every CUDA variant. */
static void test_float_const(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device), STENC_OK);
    const size_t sizes[][2] = {{1, 1}, {37, 23}, {257, 130}};
    test_rng rng = test_rng_seeded(32);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t ni = sizes[s][0], nj = sizes[s][1];
        stenc_field *a, *b, *out[4];
        assert_int_equal(stenc_field_create(ctx, &a, STENC_F32, 2, ni, nj, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &b, STENC_F32, 2, ni, nj, 1, 1), STENC_OK);
        for (int f = 0; f < 4; f++)
            assert_int_equal(stenc_field_create(ctx, &out[f], STENC_F32, 2, ni, nj, 1, 0),
                             STENC_OK);
        for (long j = -1; j <= (long)nj; j++)
            for (long i = -1; i <= (long)ni; i++) {
                double x, y;
                operands(&rng, 1, &x, &y);
                stenc_field_set(a, i, j, 0, x);
                stenc_field_set(b, i, j, 0, y);
            }
        int count = 0;
        while (device == STENC_DEVICE_CUDA && divide_const_f_variant_name(count))
            count++;
        for (int v = 0; v < (count ? count : 1); v++) {
            const char *name = count ? divide_const_f_variant_name(v) : NULL;
            if (device != STENC_DEVICE_CPU) {
                stenc_field *all[] = {a, b, out[0], out[1], out[2], out[3]};
                for (int f = 0; f < 6; f++)
                    assert_int_equal(stenc_field_upload(all[f]), STENC_OK);
            }
            assert_int_equal(
                divide_const_f_variant(ctx, name, a, b, out[0], out[1], out[2], out[3]), STENC_OK);
            if (device != STENC_DEVICE_CPU) {
                assert_int_equal(stenc_field_download(a), STENC_OK);
                assert_int_equal(stenc_field_download(b), STENC_OK);
            }
            char what[128];
            snprintf(what, sizeof what, "divide_const_f %zux%zu %s", ni, nj,
                     name ? name : "default");
            assert_true(check_const(out, a, b, what));
        }
        stenc_field_free(a), stenc_field_free(b);
        for (int f = 0; f < 4; f++)
            stenc_field_free(out[f]);
    }
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

int main(int argc, char **argv) {
    const int arg = point_device_arg(argc, argv, &device);
    if (arg == STENC_TEST_SKIP) return STENC_TEST_SKIP;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_double),
        cmocka_unit_test(test_float),
        cmocka_unit_test(test_float_const),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
