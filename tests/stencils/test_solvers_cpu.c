/* The solver stencils' generated CPU kernels (colour sweeps and reductions) against the
 * hand-written references in reference/ref_solvers.c, and the launchers' new checks.
 *
 * Colour sweeps: bit for bit (same expressions, same precision, no FMA contraction under
 * -std=c11, and the points of one colour are independent, so visiting order cannot matter).
 * After each colour, every point of the other colours must hold exactly its old value.
 *
 * Reductions: the field part bit for bit; sums against a long double sum within
 * SUM_REL_BOUND relative error (each r*r is rounded once in double, <= 2^-53 relative, and
 * the compensated sum adds about one rounding of the result: 4 * 2^-53 leaves room for both);
 * max exactly; and bitwise the same results with 1, 2 and 3 threads. */
#include <omp.h>

#include "test_util.h"

#include "dot3d.h"
#include "gs1d_r2.h"
#include "gs27_8color.h"
#include "gs_redblack.h"
#include "ref_solvers.h"
#include "residual_norm.h"
#include "stencil_cases.h"
#include "wjacobi2d.h"

#define SUM_REL_BOUND (4.0 * 0x1.0p-53)

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

/* Awkward sizes: 1, 2, odd and even extents, primes, 2^k +- 1, more rows than a tile. */
static const size_t shapes[][3] = {{1, 1, 1},  {2, 2, 2},  {17, 1, 3}, {1, 17, 2}, {33, 7, 5},
                                   {5, 3, 19}, {31, 9, 1}, {65, 2, 4}, {8, 33, 3}};

static stenc_field *make(int dims, const size_t n[3], int halo) {
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F64, dims, n[0], n[1], n[2], halo));
    return f;
}

/* Every element of the boxes (halo included) equal, bit for bit; else fail with the first. */
static void expect_same_box(const stenc_field *got, const stenc_field *want, const char *what) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(got, &L));
    long h1 = L.dims >= 2 ? L.halo : 0, h2 = L.dims >= 3 ? L.halo : 0;
    for (long k = -h2; k < (long)L.n[2] + h2; k++)
        for (long j = -h1; j < (long)L.n[1] + h1; j++)
            for (long i = -L.halo; i < (long)L.n[0] + L.halo; i++) {
                double g, w;
                assert_stenc_ok(stenc_field_get(got, i, j, k, &g));
                assert_stenc_ok(stenc_field_get(want, i, j, k, &w));
                if (memcmp(&g, &w, sizeof g) != 0)
                    fail_msg("%s: (%ld,%ld,%ld) = %.17g, want %.17g", what, i, j, k, g, w);
            }
}

/* Points of colour `color` (by `colour_of`) changed somewhere, all others identical. */
static void expect_only_colour_changed(const stenc_field *after, const stenc_field *before,
                                       int color, int (*colour_of)(long, long, long),
                                       int first_visit, const char *what) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(after, &L));
    size_t changed = 0, of_colour = 0;
    for (long k = 0; k < (long)L.n[2]; k++)
        for (long j = 0; j < (long)L.n[1]; j++)
            for (long i = 0; i < (long)L.n[0]; i++) {
                double a, b;
                assert_stenc_ok(stenc_field_get(after, i, j, k, &a));
                assert_stenc_ok(stenc_field_get(before, i, j, k, &b));
                int mine = colour_of(i, j, k) == color;
                of_colour += mine;
                if (memcmp(&a, &b, sizeof a) == 0) continue;
                if (!mine)
                    fail_msg("%s, colour %d: (%ld,%ld,%ld) of colour %d changed", what, color, i, j,
                             k, colour_of(i, j, k));
                changed++;
            }
    /* random data: on its first visit every point of the colour moves (later, a point whose
     * neighbours are all in the halo may already be converged) */
    if (first_visit && changed != of_colour)
        fail_msg("%s, colour %d: %zu of %zu points of the colour changed", what, color, changed,
                 of_colour);
}

static void copy_field(stenc_field *dst, const stenc_field *src) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(src, &L));
    long h1 = L.dims >= 2 ? L.halo : 0, h2 = L.dims >= 3 ? L.halo : 0;
    for (long k = -h2; k < (long)L.n[2] + h2; k++)
        for (long j = -h1; j < (long)L.n[1] + h1; j++)
            for (long i = -L.halo; i < (long)L.n[0] + L.halo; i++) {
                double v;
                assert_stenc_ok(stenc_field_get(src, i, j, k, &v));
                assert_stenc_ok(stenc_field_set(dst, i, j, k, v));
            }
}

/* ---- gs_redblack ------------------------------------------------------------------------- */

static int redblack(long i, long j, long k) {
    return (void)k, (int)((i + j) % 2);
}

static void test_gs_redblack(void **state) {
    (void)state;
    const double h2 = 1.0 / 289, omega = 1.3;
    uint64_t seed = 11;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int halo = 1; halo <= 2; halo++) {
            size_t n[3] = {shapes[s][0], shapes[s][1], 1};
            stenc_field *u = make(2, n, halo), *uref = make(2, n, halo), *f = make(2, n, halo),
                        *before = make(2, n, halo);
            stencil_fill_uniform(u, seed++, -1, 1);
            stencil_fill_uniform(f, seed++, -1, 1);
            copy_field(uref, u);
            /* two full sweeps: red, black, red, black */
            for (int step = 0; step < 4; step++) {
                int color = step % 2;
                copy_field(before, u);
                assert_stenc_ok(gs_redblack(ctx, color, h2, omega, u, f));
                assert_stenc_ok(ref_gs_redblack(color, h2, omega, uref, f));
                expect_same_box(u, uref, "gs_redblack");
                expect_only_colour_changed(u, before, color, redblack, step < 2, "gs_redblack");
            }
            stenc_field_free(u), stenc_field_free(uref), stenc_field_free(f);
            stenc_field_free(before);
        }
}

/* A discrete solution is a fixed point: u = i^2 + j^2 has 5-point Laplacian 4, so with
 * h2*f = -4 every update gives back u (exactly: all values are small integers). */
static void test_gs_redblack_fixed_point(void **state) {
    (void)state;
    size_t n[3] = {23, 14, 1};
    stenc_field *u = make(2, n, 1), *f = make(2, n, 1);
    for (long j = -1; j <= 14; j++)
        for (long i = -1; i <= 23; i++)
            assert_stenc_ok(stenc_field_set(u, i, j, 0, (double)(i * i + j * j)));
    assert_stenc_ok(stenc_field_fill(f, -4.0 / 0.25));
    for (int color = 0; color < 2; color++)
        assert_stenc_ok(gs_redblack(ctx, color, 0.25, 1.0, u, f));
    for (long j = 0; j < 14; j++)
        for (long i = 0; i < 23; i++) {
            double v;
            assert_stenc_ok(stenc_field_get(u, i, j, 0, &v));
            if (v != (double)(i * i + j * j)) fail_msg("(%ld,%ld) = %g", i, j, v);
        }
    stenc_field_free(u), stenc_field_free(f);
}

/* ---- gs27_8color ------------------------------------------------------------------------- */

static int eight(long i, long j, long k) {
    return (int)(i % 2 + 2 * (j % 2) + 4 * (k % 2));
}

static void test_gs27_8color(void **state) {
    (void)state;
    uint64_t seed = 101;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const size_t *n = shapes[s];
        stenc_field *u = make(3, n, 1), *uref = make(3, n, 1), *f = make(3, n, 1),
                    *before = make(3, n, 1), *c[27];
        for (int m = 0; m < 27; m++) {
            c[m] = make(3, n, 1);
            /* diagonally dominant, as a real operator would be */
            if (m == 13)
                stencil_fill_uniform(c[m], seed++, 4, 6);
            else
                stencil_fill_uniform(c[m], seed++, -0.2, 0.2);
        }
        stencil_fill_uniform(u, seed++, -1, 1);
        stencil_fill_uniform(f, seed++, -1, 1);
        copy_field(uref, u);
        for (int color = 0; color < 8; color++) {
            copy_field(before, u);
            assert_stenc_ok(gs27_8color(ctx, color, u, c[0], c[1], c[2], c[3], c[4], c[5], c[6],
                                        c[7], c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15],
                                        c[16], c[17], c[18], c[19], c[20], c[21], c[22], c[23],
                                        c[24], c[25], c[26], f));
            assert_stenc_ok(ref_gs27_8color(color, uref, (const stenc_field *const *)c, f));
            expect_same_box(u, uref, "gs27_8color");
            expect_only_colour_changed(u, before, color, eight, 1, "gs27_8color");
        }
        for (int m = 0; m < 27; m++)
            stenc_field_free(c[m]);
        stenc_field_free(u), stenc_field_free(uref), stenc_field_free(f);
        stenc_field_free(before);
    }
}

/* The same sweeps launched box by box on views, whose starts (i 32, j 5, k 3) are odd along
 * j and k: each view colours its points by their index in the parent, so a colour's launches
 * over the 8 boxes update exactly the points that one launch on the whole field does. */
static void test_gs27_8color_on_views(void **state) {
    (void)state;
    const size_t n[3] = {70, 9, 7};
    stenc_field *u = make(3, n, 1), *uv = make(3, n, 1), *f = make(3, n, 1), *c[27];
    uint64_t seed = 907;
    for (int m = 0; m < 27; m++) {
        c[m] = make(3, n, 1);
        stencil_fill_uniform(c[m], seed++, m == 13 ? 4 : -0.2, m == 13 ? 6 : 0.2);
    }
    stencil_fill_uniform(u, seed++, -1, 1);
    stencil_fill_uniform(f, seed++, -1, 1);
    copy_field(uv, u);
    const size_t cut[3] = {32, 5, 3};
    for (int color = 0; color < 8; color++) {
        assert_stenc_ok(gs27_8color(ctx, color, u, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
                                    c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15], c[16],
                                    c[17], c[18], c[19], c[20], c[21], c[22], c[23], c[24], c[25],
                                    c[26], f));
        for (int box = 0; box < 8; box++) {
            size_t lo[3], m[3];
            for (int d = 0; d < 3; d++) {
                const int upper = (box >> d) & 1;
                lo[d] = upper ? cut[d] : 0;
                m[d] = upper ? n[d] - cut[d] : cut[d];
            }
            stenc_field *vu, *vf, *vc[27];
            assert_stenc_ok(stenc_field_view(&vu, uv, lo, m));
            assert_stenc_ok(stenc_field_view(&vf, f, lo, m));
            for (int k = 0; k < 27; k++)
                assert_stenc_ok(stenc_field_view(&vc[k], c[k], lo, m));
            assert_stenc_ok(gs27_8color(ctx, color, vu, vc[0], vc[1], vc[2], vc[3], vc[4], vc[5],
                                        vc[6], vc[7], vc[8], vc[9], vc[10], vc[11], vc[12], vc[13],
                                        vc[14], vc[15], vc[16], vc[17], vc[18], vc[19], vc[20],
                                        vc[21], vc[22], vc[23], vc[24], vc[25], vc[26], vf));
            for (int k = 0; k < 27; k++)
                stenc_field_free(vc[k]);
            stenc_field_free(vu), stenc_field_free(vf);
        }
        expect_same_box(uv, u, "gs27_8color on views");
    }
    for (int m = 0; m < 27; m++)
        stenc_field_free(c[m]);
    stenc_field_free(u), stenc_field_free(uv), stenc_field_free(f);
}

/* ---- wjacobi2d --------------------------------------------------------------------------- */

static void test_wjacobi2d(void **state) {
    (void)state;
    uint64_t seed = 201;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        size_t n[3] = {shapes[s][0], shapes[s][1], 1};
        stenc_field *u = make(2, n, 1), *f = make(2, n, 1), *gen = make(2, n, 0),
                    *ref = make(2, n, 0);
        stencil_fill_uniform(u, seed++, -1, 1);
        stencil_fill_uniform(f, seed++, -1, 1);
        assert_stenc_ok(stenc_field_fill(gen, NAN));
        assert_stenc_ok(wjacobi2d(ctx, 1.0 / 289, 0.8, u, f, gen));
        assert_stenc_ok(ref_wjacobi2d(1.0 / 289, 0.8, u, f, ref));
        expect_same_box(gen, ref, "wjacobi2d");
        stenc_field_free(u), stenc_field_free(f), stenc_field_free(gen), stenc_field_free(ref);
    }
}

/* ---- residual_norm ----------------------------------------------------------------------- */

static void expect_sum_close(double got, long double want, const char *what) {
    long double err = fabsl((long double)got - want);
    if (!(err <= SUM_REL_BOUND * fabsl(want)))
        fail_msg("%s: %.17g, want %.20Lg (relative error %.3Lg > %.3g)", what, got, want,
                 want != 0 ? err / fabsl(want) : err, SUM_REL_BOUND);
}

/* Run residual_norm with 1, 2 and 3 threads: identical results each time; returns them. */
static void residual_norm_threads(double inv_h2, stenc_field *u, stenc_field *f, stenc_field *r,
                                  double *r2, double *rmax) {
    int saved = omp_get_max_threads();
    for (int threads = 1; threads <= 3; threads++) {
        omp_set_num_threads(threads);
        double s = NAN, m = NAN;
        assert_stenc_ok(residual_norm(ctx, inv_h2, u, f, r, &s, &m));
        if (threads > 1 && (memcmp(&s, r2, sizeof s) != 0 || memcmp(&m, rmax, sizeof m) != 0))
            fail_msg("residual_norm with %d threads: %.17g %.17g, with 1: %.17g %.17g", threads, s,
                     m, *r2, *rmax);
        *r2 = s, *rmax = m;
    }
    omp_set_num_threads(saved);
}

static void test_residual_norm(void **state) {
    (void)state;
    uint64_t seed = 301;
    static const size_t big[][3] = {
        {1, 1, 1}, {31, 9, 1}, {65, 2, 1}, {257, 129, 1}, {1000, 77, 1}};
    for (size_t s = 0; s < sizeof big / sizeof *big; s++) {
        const size_t *n = big[s];
        stenc_field *u = make(2, n, 1), *f = make(2, n, 1), *r = make(2, n, 0),
                    *rref = make(2, n, 0);
        stencil_fill_uniform(u, seed++, -1, 1);
        stencil_fill_uniform(f, seed++, -1, 1);
        double r2 = 0, rmax = 0;
        residual_norm_threads(289.0, u, f, r, &r2, &rmax);
        long double want2, wantmax;
        assert_stenc_ok(ref_residual_norm(289.0, u, f, rref, &want2, &wantmax));
        expect_same_box(r, rref, "residual_norm r");
        expect_sum_close(r2, want2, "residual_norm r2");
        if (rmax != (double)wantmax) fail_msg("rmax %.17g, want %.17Lg", rmax, wantmax);
        stenc_field_free(u), stenc_field_free(f), stenc_field_free(r), stenc_field_free(rref);
    }
}

/* A sum that a naive double loop gets wrong: one residual of 1 then 10^6 - 1 of 1e-4. Each
 * square (1e-8) is added to a sum near 1 whose ulp is 2.2e-16, so a naive loop rounds 10^6
 * times, always the same way, and drifts by ~1e-10; the compensated sum must stay within
 * SUM_REL_BOUND of the long double answer. */
static void test_residual_norm_does_not_drift(void **state) {
    (void)state;
    size_t n[3] = {1000, 1000, 1};
    stenc_field *u = make(2, n, 1), *f = make(2, n, 1), *r = make(2, n, 0);
    /* u = 0, so r = f */
    assert_stenc_ok(stenc_field_fill(u, 0.0));
    assert_stenc_ok(stenc_field_fill(f, 1e-4));
    assert_stenc_ok(stenc_field_set(f, 0, 0, 0, 1.0));
    double r2 = 0, rmax = 0;
    residual_norm_threads(1.0, u, f, r, &r2, &rmax);
    /* exact: 1 + (10^6 - 1) * 1e-8 (up to the rounding of 1e-4 and of each square) */
    long double want = 1.0L + (long double)(n[0] * n[1] - 1) * (long double)(1e-4 * 1e-4);
    expect_sum_close(r2, want, "residual_norm r2 (many small terms after a large one)");
    /* a naive left-to-right double sum drifts by far more than the bound */
    double naive = 1.0;
    for (size_t p = 1; p < n[0] * n[1]; p++)
        naive += 1e-4 * 1e-4;
    assert_true(fabsl((long double)naive - want) > SUM_REL_BOUND * want);
    assert_true(rmax == 1.0);
    stenc_field_free(u), stenc_field_free(f), stenc_field_free(r);
}

/* ---- gs1d_r2: 3 colours, 1-D tiles, reductions over one colour ---------------------------- */

static int three(long i, long j, long k) {
    return (void)j, (void)k, (int)(i % 3);
}

static void test_gs1d_r2(void **state) {
    (void)state;
    /* 4096 points per tile: sizes across tile edges, where a tile starts at i % 3 != 0 */
    static const size_t sizes[] = {1, 2, 3, 4, 7, 17, 4095, 4096, 4097, 8197, 12290};
    uint64_t seed = 401;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n[3] = {sizes[s], 1, 1};
        stenc_field *u = make(1, n, 2), *uref = make(1, n, 2), *f = make(1, n, 2),
                    *before = make(1, n, 2);
        stencil_fill_uniform(u, seed++, -1, 1);
        stencil_fill_uniform(f, seed++, -1, 1);
        copy_field(uref, u);
        for (int step = 0; step < 6; step++) {
            int color = step % 3;
            copy_field(before, u);
            /* the same launch with 1, 2 and 3 threads, from the same state */
            double change = NAN, change2 = NAN;
            int saved = omp_get_max_threads();
            for (int threads = 1; threads <= 3; threads++) {
                double c1, c2;
                copy_field(u, before);
                omp_set_num_threads(threads);
                assert_stenc_ok(gs1d_r2(ctx, color, 1e-3, u, f, &c1, &c2));
                if (threads > 1 &&
                    (memcmp(&c1, &change, sizeof c1) || memcmp(&c2, &change2, sizeof c2)))
                    fail_msg("gs1d_r2 n=%zu colour %d, %d threads: %.17g %.17g, 1 thread: %.17g "
                             "%.17g",
                             n[0], color, threads, c1, c2, change, change2);
                change = c1, change2 = c2;
            }
            omp_set_num_threads(saved);
            long double want, want2;
            assert_stenc_ok(ref_gs1d_r2(color, 1e-3, uref, f, &want, &want2));
            expect_same_box(u, uref, "gs1d_r2");
            expect_only_colour_changed(u, before, color, three, step < 3, "gs1d_r2");
            if (n[0] > (size_t)color) { /* the colour has points */
                if (change != (double)want) fail_msg("change %.17g, want %.17Lg", change, want);
                expect_sum_close(change2, want2, "gs1d_r2 change2");
            } else { /* no point of this colour: the reductions of nothing */
                assert_true(isinf(change) && change < 0);
                assert_true(change2 == 0.0);
            }
        }
        stenc_field_free(u), stenc_field_free(uref), stenc_field_free(f);
        stenc_field_free(before);
    }
}

/* ---- dot3d: a pure reduction in float, 3-D tiles ----------------------------------------- */

static void test_dot3d(void **state) {
    (void)state;
    uint64_t seed = 501;
    static const size_t dims3[][3] = {{1, 1, 1}, {33, 7, 5}, {5, 3, 19}, {64, 17, 9}, {3, 40, 13}};
    for (size_t s = 0; s < sizeof dims3 / sizeof *dims3; s++) {
        const size_t *n = dims3[s];
        stenc_field *x, *y;
        assert_stenc_ok(stenc_field_create(ctx, &x, STENC_F32, 3, n[0], n[1], n[2], 0));
        assert_stenc_ok(stenc_field_create(ctx, &y, STENC_F32, 3, n[0], n[1], n[2], 1));
        stencil_fill_uniform(x, seed++, -1, 1);
        stencil_fill_uniform(y, seed++, -1, 1);
        double dot = NAN, lo = NAN, hi = NAN;
        int saved = omp_get_max_threads();
        for (int threads = 1; threads <= 3; threads++) {
            double d, a, b;
            omp_set_num_threads(threads);
            assert_stenc_ok(dot3d(ctx, x, y, &d, &a, &b));
            if (threads > 1 && (memcmp(&d, &dot, sizeof d) || a != lo || b != hi))
                fail_msg("dot3d with %d threads differs from 1 thread", threads);
            dot = d, lo = a, hi = b;
        }
        omp_set_num_threads(saved);
        long double want, wlo, whi;
        assert_stenc_ok(ref_dot3d(x, y, &want, &wlo, &whi));
        /* the products are rounded in float on both sides; only the sums differ */
        long double err = fabsl((long double)dot - want);
        if (!(err <= SUM_REL_BOUND * fabsl(want) + 0x1.0p-1074))
            fail_msg("dot3d %zux%zux%zu: %.17g, want %.20Lg", n[0], n[1], n[2], dot, want);
        assert_true(lo == (double)wlo && hi == (double)whi);
        stenc_field_free(x), stenc_field_free(y);
    }
}

/* ---- launcher checks --------------------------------------------------------------------- */

static void test_launcher_checks(void **state) {
    (void)state;
    size_t n[3] = {9, 6, 1};
    stenc_field *u = make(2, n, 1), *f = make(2, n, 1), *thin = make(2, n, 0),
                *before = make(2, n, 1), *r = make(2, n, 0);
    stencil_fill_uniform(u, 5, -1, 1);
    stencil_fill_uniform(f, 6, -1, 1);
    copy_field(before, u);
    /* colours out of range */
    static const int bad_colors[] = {-1, 2, 1000};
    for (size_t c = 0; c < sizeof bad_colors / sizeof *bad_colors; c++) {
        assert_int_equal(gs_redblack(ctx, bad_colors[c], 1, 1, u, f), STENC_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(stenc_last_error(), "out of range"));
    }
    /* an inout that is also an input, an inout without its halo */
    assert_int_equal(gs_redblack(ctx, 0, 1, 1, u, u), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "inout 'u' is the same field as input 'f'"));
    assert_int_equal(gs_redblack(ctx, 0, 1, 1, thin, f), STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "'u' has halo 0"));
    expect_same_box(u, before, "a failed gs_redblack launch");
    /* NULL result pointers */
    double r2, rmax;
    assert_int_equal(residual_norm(ctx, 1, u, f, r, NULL, &rmax), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "'r2'"));
    assert_int_equal(residual_norm(ctx, 1, u, f, r, &r2, NULL), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "'rmax'"));
    stenc_field_free(u), stenc_field_free(f), stenc_field_free(thin), stenc_field_free(before);
    stenc_field_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gs_redblack),
        cmocka_unit_test(test_gs_redblack_fixed_point),
        cmocka_unit_test(test_gs27_8color),
        cmocka_unit_test(test_gs27_8color_on_views),
        cmocka_unit_test(test_wjacobi2d),
        cmocka_unit_test(test_residual_norm),
        cmocka_unit_test(test_residual_norm_does_not_drift),
        cmocka_unit_test(test_gs1d_r2),
        cmocka_unit_test(test_dot3d),
        cmocka_unit_test(test_launcher_checks),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
