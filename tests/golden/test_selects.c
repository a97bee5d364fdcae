/* The host kernel's selects (docs/compiler.md, "Selects in the host kernel"), bit for bit:
 * selects.stencil generated in the precision REAL (float or double, set by CMake). max and min
 * against the C library's fmax and fmin for every pair of special values (signed zeros,
 * infinities, quiet and signalling NaNs, subnormals), and an if whose sides only assign
 * against the same branches written here by hand. */
#include "test_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sel_if.h"
#include "sel_minmax.h"

#if STENC_TEST_REAL_IS_FLOAT
typedef float real;
typedef uint32_t bits;
#define REAL_TYPE STENC_F32
#define F(fn) fn##f
#define BITS_FMT "%08" PRIx32
static const bits specials[] = {
    0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x40000000u, 0x7f800000u,
    0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0xffe12345u, 0x7f800001u,
    0xff800001u, 0x7fa00000u, 0x00000001u, 0x80000001u, 0x7f7fffffu, 0x00800000u,
};
#else
typedef double real;
typedef uint64_t bits;
#define REAL_TYPE STENC_F64
#define F(fn) fn
#define BITS_FMT "%016" PRIx64
static const bits specials[] = {
    0x0000000000000000u, 0x8000000000000000u, 0x3ff0000000000000u, 0xbff0000000000000u,
    0x4000000000000000u, 0x7ff0000000000000u, 0xfff0000000000000u, 0x7ff8000000000000u,
    0xfff8000000000000u, 0x7ff8000000000001u, 0xfffc123456789abcu, 0x7ff0000000000001u,
    0xfff0000000000001u, 0x7ff4000000000000u, 0x0000000000000001u, 0x8000000000000001u,
    0x7fefffffffffffffu, 0x0010000000000000u,
};
#endif
enum { NSPECIAL = sizeof specials / sizeof specials[0] };

/* The library's functions, called: through a volatile pointer gcc neither inlines nor folds
 * them. */
static real (*volatile lib_max)(real, real) = F(fmax);
static real (*volatile lib_min)(real, real) = F(fmin);

static real from_bits(bits b) {
    real r;
    memcpy(&r, &b, sizeof r);
    return r;
}

static bits to_bits(real r) {
    bits b;
    memcpy(&b, &r, sizeof b);
    return b;
}

static stenc_field *make(stenc_ctx *ctx, int dims, size_t ni, size_t nj, int halo) {
    stenc_field *f = NULL;
    assert_stenc_ok(stenc_field_create(ctx, &f, REAL_TYPE, dims, ni, nj, 1, halo));
    return f;
}

/* Element (i, j) of a field's host copy, bits and all (stenc_field_set goes through a double,
 * which would quieten a float's signalling NaN). */
static real *elem(const stenc_field *f, long i, long j) {
    stenc_field_layout lay;
    assert_stenc_ok(stenc_field_get_layout(f, &lay));
    return (real *)stenc_field_host_origin(f) + i + j * lay.stride[1];
}

static void expect_bits(real got, real want, const char *what, long i, long j) {
    if (to_bits(got) != to_bits(want))
        fail_msg("%s(%ld,%ld): got " BITS_FMT ", want " BITS_FMT, what, i, j, to_bits(got),
                 to_bits(want));
}

/* Every ordered pair of special values, then the pairs again shifted by one point, so that
 * each pair is met in the vectorised loop's body and, for some, in its remainder. */
static void test_minmax(void **state) {
    stenc_ctx *ctx = *state;
    const size_t n = 2 * NSPECIAL * NSPECIAL + 1;
    stenc_field *a = make(ctx, 1, n, 1, 0), *b = make(ctx, 1, n, 1, 0);
    stenc_field *mx = make(ctx, 1, n, 1, 0), *mn = make(ctx, 1, n, 1, 0);
    stenc_field *mix = make(ctx, 1, n, 1, 0);
    for (long p = 0; p < (long)n; p++) {
        const long q = (p < NSPECIAL * NSPECIAL ? p : p - 1) % (NSPECIAL * NSPECIAL);
        *elem(a, p, 0) = from_bits(specials[q / NSPECIAL]);
        *elem(b, p, 0) = from_bits(specials[q % NSPECIAL]);
    }
    assert_stenc_ok(sel_minmax(ctx, a, b, mx, mn, mix));
    for (long p = 0; p < (long)n; p++) {
        const real x = *elem(a, p, 0), y = *elem(b, p, 0);
        expect_bits(*elem(mx, p, 0), lib_max(x, y), "max", p, 0);
        expect_bits(*elem(mn, p, 0), lib_min(x, y), "min", p, 0);
        expect_bits(*elem(mix, p, 0), lib_min(lib_max(x, (real)0.5), y), "mix", p, 0);
    }
    stenc_field *all[] = {a, b, mx, mn, mix};
    for (size_t f = 0; f < sizeof all / sizeof all[0]; f++)
        stenc_field_free(all[f]);
}

/* sel_if on random data with the condition's edge cases sown in: x equal to t, NaN, zeros
 * (whose unused side divides by zero) and infinities. */
static void test_if(void **state) {
    stenc_ctx *ctx = *state;
    const size_t ni = 67, nj = 5;
    const real t = (real)0.25;
    stenc_field *x = make(ctx, 2, ni, nj, 0), *z = make(ctx, 2, ni, nj, 0);
    stenc_field *y = make(ctx, 2, ni, nj, 0), *w = make(ctx, 2, ni, nj, 0);
    stenc_field *once = make(ctx, 2, ni, nj, 0), *u = make(ctx, 2, ni, nj, 0);
    stenc_field *u0 = make(ctx, 2, ni, nj, 0);
    const real edge[] = {t, (real)NAN, (real)0.0, (real)-0.0, (real)INFINITY, (real)-INFINITY};
    test_rng rng = test_rng_seeded(7);
    for (long j = 0; j < (long)nj; j++)
        for (long i = 0; i < (long)ni; i++) {
            const long c = (long)(test_rng_u64(&rng) % 12);
            *elem(x, i, j) = c < 6 ? edge[c] : (real)test_rng_uniform(&rng, -1.0, 1.0);
            *elem(z, i, j) = c == 2 ? (real)0.0 : (real)test_rng_uniform(&rng, -1.0, 1.0);
            *elem(u, i, j) = *elem(u0, i, j) = (real)test_rng_uniform(&rng, -1.0, 1.0);
        }
    assert_stenc_ok(sel_if(ctx, t, x, z, y, w, once, u));
    for (long j = 0; j < (long)nj; j++)
        for (long i = 0; i < (long)ni; i++) {
            const real xv = *elem(x, i, j), zv = *elem(z, i, j);
            real uv = *elem(u0, i, j), yv, wv, ov = 7;
            if (xv > t) {
                const real e = xv - t;
                yv = e * zv;
                uv = uv + e;
                wv = uv * 2;
                ov = ov + yv;
            } else {
                yv = zv / xv;
                wv = lib_max(xv, zv);
            }
            expect_bits(*elem(y, i, j), yv, "y", i, j);
            expect_bits(*elem(w, i, j), wv, "w", i, j);
            expect_bits(*elem(once, i, j), ov, "once", i, j);
            expect_bits(*elem(u, i, j), uv, "u", i, j);
        }
    stenc_field *all[] = {x, z, y, w, once, u, u0};
    for (size_t f = 0; f < sizeof all / sizeof all[0]; f++)
        stenc_field_free(all[f]);
}

/* The two tests above pass with branches too: check that the host kernel has the selects. */
static void test_printed_as_selects(void **state) {
    (void)state;
    static const char *const files[] = {STENC_TEST_SEL_IF_SOURCE, STENC_TEST_SEL_MINMAX_SOURCE};
    static const char *const wanted[] = {"? stenc_h", "stenc_fmax"};
    for (int f = 0; f < 2; f++) {
        FILE *in = fopen(files[f], "rb");
        if (!in) fail_msg("cannot open %s", files[f]);
        static char text[1 << 16];
        const size_t len = fread(text, 1, sizeof text - 1, in);
        fclose(in);
        text[len] = '\0';
        if (!strstr(text, wanted[f])) fail_msg("%s has no '%s'", files[f], wanted[f]);
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
        cmocka_unit_test(test_minmax),
        cmocka_unit_test(test_if),
        cmocka_unit_test(test_printed_as_selects),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
