/* Inputs of other kinds than full arrays of the stencil's type, against plain loops written
 * here, every point bit for bit (both built without contraction), at odd sizes, on random data
 * with random halos, then the launch checks of their fields:
 * - lower-dimensional inputs (stencils/lower_dims.stencil): stretched2d, whose cell widths
 *   dx[i] and dy[j] are 1-D fields, and planecoef3d, with a plane a[i,k] and a line b[j];
 * - integer inputs (stencils/int_inputs.stencil): material2d (an int32 material id, a uint8
 *   frozen mask) and masked3d (a uint8 mask, an int32 zone per plane k);
 * - integer inputs spanning i (tests/stencils/int_rows.stencil), which the CUDA direct kernels
 *   read by vector loads of their own type: read at offsets along i, lower-dimensional and
 *   staggered, in 1, 2 and 3 dimensions, at extents along i that are no multiple of V; and,
 *   on CUDA, every variant on integer fields copied to origins off their vector alignment.
 * With argument "gpu": every CUDA variant against the same loops (exit 77 without a device);
 * with "opencl": the OpenCL kernels' default (exit 77 without an OpenCL device). */
#include "intface2d.h"
#include "introws1d.h"
#include "introws2d.h"
#include "introws3d.h"
#include "masked3d.h"
#include "material2d.h"
#include "planecoef3d.h"
#include "stretched2d.h"
#include "point_check.h"

static int on_gpu;  /* the fields live on a device: CUDA's or OpenCL's */
static int on_cuda; /* ... CUDA's, whose variants the launchers list */

/* Element (i, j, k) of a host field, halo indices allowed. */
/* The interior of `got` (moved to the host) against `want`, every point. */
static int same_interior(stenc_field *got, const stenc_field *want, const char *what) {
    if (on_gpu) assert_int_equal(stenc_field_download(got), STENC_OK);
    return point_same(got, want, 0, what);
}

static stenc_ctx *make_ctx(void) {
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, on_cuda  ? STENC_DEVICE_CUDA
                                            : on_gpu ? STENC_DEVICE_OPENCL
                                                     : STENC_DEVICE_CPU),
                     STENC_OK);
    return ctx;
}

static void upload(stenc_field *const *f, int n) {
    for (int a = 0; on_gpu && a < n; a++)
        assert_int_equal(stenc_field_upload(f[a]), STENC_OK);
}

/* An output filled with 7 (on the host, then moved where it lives): a point a kernel leaves
 * unwritten differs from the loops'. */
static void reset_output(stenc_field *out) {
    assert_int_equal(stenc_field_download(out), STENC_OK); /* fill works on the host */
    assert_int_equal(stenc_field_fill(out, 7.0), STENC_OK);
    upload(&out, 1);
}

/* The variants to run: every CUDA one, or the automatic choice (NULL: the C kernel, or the
 * OpenCL default). */
static int variant_count(const char *(*name)(int)) {
    int n = 0;
    while (on_cuda && name(n))
        n++;
    return on_cuda ? n : 1;
}

static void test_stretched2d(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(), *host = NULL;
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    const size_t sizes[][2] = {{37, 23}, {1, 5}, {64, 3}, {129, 67}};
    const double dt = 0.003, nu = 0.7;
    test_rng rng = test_rng_seeded(11);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t ni = sizes[s][0], nj = sizes[s][1];
        stenc_field *u, *dx, *dy, *v, *want;
        assert_int_equal(stenc_field_create(ctx, &u, STENC_F64, 2, ni, nj, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &dx, STENC_F64, 1, ni, 1, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &dy, STENC_F64, 1, nj, 1, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &v, STENC_F64, 2, ni, nj, 1, 0), STENC_OK);
        assert_int_equal(stenc_field_create(host, &want, STENC_F64, 2, ni, nj, 1, 0), STENC_OK);
        point_fill(u, &rng, -1, 1);
        point_fill(dx, &rng, 0.5, 1.5);
        point_fill(dy, &rng, 0.5, 1.5);
        for (long j = 0; j < (long)nj; j++)
            for (long i = 0; i < (long)ni; i++) {
                const double uc = point_at(u, i, j, 0), ue = point_at(u, i + 1, j, 0),
                             uw = point_at(u, i - 1, j, 0), un = point_at(u, i, j + 1, 0),
                             us = point_at(u, i, j - 1, 0);
                const double xc = point_at(dx, i, 0, 0), yc = point_at(dy, j, 0, 0);
                const double gx =
                    (ue - uw) / (point_at(dx, i - 1, 0, 0) + 2.0 * xc + point_at(dx, i + 1, 0, 0));
                const double gy =
                    (un - us) / (point_at(dy, j - 1, 0, 0) + 2.0 * yc + point_at(dy, j + 1, 0, 0));
                const double lap =
                    (ue - 2.0 * uc + uw) / (xc * xc) + (un - 2.0 * uc + us) / (yc * yc);
                stenc_field_set(want, i, j, 0, uc + dt * (nu * lap - gx - gy));
            }
        stenc_field *const all[4] = {u, dx, dy, v};
        upload(all, 4);
        for (int vi = 0; vi < variant_count(stretched2d_variant_name); vi++) {
            const char *name = on_cuda ? stretched2d_variant_name(vi) : NULL;
            reset_output(v);
            assert_int_equal(stretched2d_variant(ctx, name, dt, nu, u, dx, dy, v), STENC_OK);
            char what[160];
            snprintf(what, sizeof what, "stretched2d %zux%zu %s", ni, nj, name ? name : "c");
            assert_true(same_interior(v, want, what));
        }
        stenc_field_free(u), stenc_field_free(dx), stenc_field_free(dy), stenc_field_free(v);
        stenc_field_free(want);
    }
    stenc_ctx_destroy(host);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

static void test_planecoef3d(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(), *host = NULL;
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    const size_t sizes[][3] = {{19, 7, 11}, {33, 5, 2}, {1, 1, 1}, {70, 9, 13}};
    test_rng rng = test_rng_seeded(12);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t ni = sizes[s][0], nj = sizes[s][1], nk = sizes[s][2];
        stenc_field *x, *a, *b, *y, *want;
        assert_int_equal(stenc_field_create(ctx, &x, STENC_F32, 3, ni, nj, nk, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &a, STENC_F32, 2, ni, nk, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &b, STENC_F32, 1, nj, 1, 1, 2), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &y, STENC_F32, 3, ni, nj, nk, 0), STENC_OK);
        assert_int_equal(stenc_field_create(host, &want, STENC_F32, 3, ni, nj, nk, 0), STENC_OK);
        point_fill(x, &rng, -1, 1);
        point_fill(a, &rng, -1, 1);
        point_fill(b, &rng, -1, 1);
        for (long k = 0; k < (long)nk; k++)
            for (long j = 0; j < (long)nj; j++)
                for (long i = 0; i < (long)ni; i++) {
#define X(di, dj, dk) ((float)point_at(x, i + (di), j + (dj), k + (dk)))
                    const float am = (float)point_at(a, i, k - 1, 0),
                                ac = (float)point_at(a, i, k, 0),
                                ap = (float)point_at(a, i, k + 1, 0);
                    const float bm = (float)point_at(b, j - 1, 0, 0),
                                bp = (float)point_at(b, j + 1, 0, 0);
                    const float v = am * X(0, 0, -1) + ac * X(0, 0, 0) + ap * X(0, 0, 1) +
                                    bm * X(0, -1, 0) + bp * X(0, 1, 0) +
                                    0.25f * (X(-1, 0, 0) + X(1, 0, 0));
#undef X
                    stenc_field_set(want, i, j, k, v);
                }
        stenc_field *const all[4] = {x, a, b, y};
        upload(all, 4);
        for (int vi = 0; vi < variant_count(planecoef3d_variant_name); vi++) {
            const char *name = on_cuda ? planecoef3d_variant_name(vi) : NULL;
            reset_output(y);
            assert_int_equal(planecoef3d_variant(ctx, name, x, a, b, y), STENC_OK);
            char what[160];
            snprintf(what, sizeof what, "planecoef3d %zux%zux%zu %s", ni, nj, nk,
                     name ? name : "c");
            assert_true(same_interior(y, want, what));
        }
        stenc_field_free(x), stenc_field_free(a), stenc_field_free(b), stenc_field_free(y);
        stenc_field_free(want);
    }
    stenc_ctx_destroy(host);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* The launch check: a lower-dimensional input of the wrong rank, extent or halo, or in place
 * of a full one, fails with STENC_ERR_SHAPE and a message naming it; v is not written. */
static void test_lower_launch_checks(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx();
    stenc_field *u, *dx, *dy, *v, *dx2, *dxlong, *dxthin;
    assert_int_equal(stenc_field_create(ctx, &u, STENC_F64, 2, 9, 6, 1, 1), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &dx, STENC_F64, 1, 9, 1, 1, 1), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &dy, STENC_F64, 1, 6, 1, 1, 1), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &v, STENC_F64, 2, 9, 6, 1, 0), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &dx2, STENC_F64, 2, 9, 6, 1, 1), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &dxlong, STENC_F64, 1, 10, 1, 1, 1), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &dxthin, STENC_F64, 1, 9, 1, 1, 0), STENC_OK);
    stenc_field_fill(v, 3.0);
    stenc_field *const all[7] = {u, dx, dy, v, dx2, dxlong, dxthin};
    upload(all, 7);
    struct {
        stenc_field *dx, *dy;
        const char *needle;
    } bad[] = {
        {dx2, dy, "field 'dx' is 2-D but input 'dx' spans 1 dimension"},
        {dxlong, dy, "field 'dx' has interior 10 but 'u' has 9x6 along the dimensions it spans"},
        {dy, dx, "field 'dx' has interior 6 but 'u' has 9x6"},
        {dxthin, dy, "field 'dx' has halo 0 but the stencil reads dx[-1]"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        assert_int_equal(stretched2d(ctx, 0.1, 0.2, u, bad[c].dx, bad[c].dy, v), STENC_ERR_SHAPE);
        if (!strstr(stenc_last_error(), bad[c].needle))
            fail_msg("message '%s' lacks '%s'", stenc_last_error(), bad[c].needle);
    }
    /* A full field where the 1-D one belongs, and the other way round. */
    assert_int_equal(stretched2d(ctx, 0.1, 0.2, dx, dx, dy, v), STENC_ERR_SHAPE);
    if (on_gpu) stenc_field_download(v);
    assert_true(point_at(v, 4, 3, 0) == 3.0);
    for (int f = 0; f < 7; f++)
        stenc_field_free(all[f]);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

static void test_material2d(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(), *host = NULL;
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    const size_t sizes[][2] = {{41, 27}, {1, 3}, {130, 9}};
    const double k0 = 0.8, k1 = 3.5, r = 0.05;
    test_rng rng = test_rng_seeded(21);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t ni = sizes[s][0], nj = sizes[s][1];
        stenc_field *u, *mat, *frozen, *v, *want;
        assert_int_equal(stenc_field_create(ctx, &u, STENC_F64, 2, ni, nj, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &mat, STENC_I32, 2, ni, nj, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &frozen, STENC_U8, 2, ni, nj, 1, 0), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &v, STENC_F64, 2, ni, nj, 1, 0), STENC_OK);
        assert_int_equal(stenc_field_create(host, &want, STENC_F64, 2, ni, nj, 1, 0), STENC_OK);
        point_fill(u, &rng, -1, 1);
        point_fill(mat, &rng, 0, 2);    /* materials 0 and 1 */
        point_fill(frozen, &rng, 0, 4); /* 0..3: a quarter of the cells move */
        for (long j = 0; j < (long)nj; j++)
            for (long i = 0; i < (long)ni; i++) {
                const double uc = point_at(u, i, j, 0);
                double kc = point_at(mat, i, j, 0) == 1 ? k1 : k0;
                double ke = point_at(mat, i + 1, j, 0) == 1 ? k1 : k0,
                       kw = point_at(mat, i - 1, j, 0) == 1 ? k1 : k0;
                double kn = point_at(mat, i, j + 1, 0) == 1 ? k1 : k0,
                       ks = point_at(mat, i, j - 1, 0) == 1 ? k1 : k0;
                const double flux = 2.0 * kc * ke / (kc + ke) * (point_at(u, i + 1, j, 0) - uc) +
                                    2.0 * kc * kw / (kc + kw) * (point_at(u, i - 1, j, 0) - uc) +
                                    2.0 * kc * kn / (kc + kn) * (point_at(u, i, j + 1, 0) - uc) +
                                    2.0 * kc * ks / (kc + ks) * (point_at(u, i, j - 1, 0) - uc);
                stenc_field_set(want, i, j, 0, point_at(frozen, i, j, 0) != 0 ? uc : uc + r * flux);
            }
        stenc_field *const all[4] = {u, mat, frozen, v};
        upload(all, 4);
        for (int vi = 0; vi < variant_count(material2d_variant_name); vi++) {
            const char *name = on_cuda ? material2d_variant_name(vi) : NULL;
            reset_output(v);
            assert_int_equal(material2d_variant(ctx, name, k0, k1, r, u, mat, frozen, v), STENC_OK);
            char what[160];
            snprintf(what, sizeof what, "material2d %zux%zu %s", ni, nj, name ? name : "c");
            assert_true(same_interior(v, want, what));
        }
        stenc_field_free(u), stenc_field_free(mat), stenc_field_free(frozen), stenc_field_free(v);
        stenc_field_free(want);
    }
    stenc_ctx_destroy(host);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

static void test_masked3d(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(), *host = NULL;
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    const size_t sizes[][3] = {{23, 9, 7}, {65, 3, 4}, {2, 2, 2}};
    test_rng rng = test_rng_seeded(22);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t ni = sizes[s][0], nj = sizes[s][1], nk = sizes[s][2];
        stenc_field *x, *mask, *zone, *y, *want;
        assert_int_equal(stenc_field_create(ctx, &x, STENC_F32, 3, ni, nj, nk, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &mask, STENC_U8, 3, ni, nj, nk, 0), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &zone, STENC_I32, 1, nk, 1, 1, 0), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &y, STENC_F32, 3, ni, nj, nk, 0), STENC_OK);
        assert_int_equal(stenc_field_create(host, &want, STENC_F32, 3, ni, nj, nk, 0), STENC_OK);
        point_fill(x, &rng, -1, 1);
        point_fill(mask, &rng, 0, 3);
        point_fill(zone, &rng, -2, 2);
        for (long k = 0; k < (long)nk; k++)
            for (long j = 0; j < (long)nj; j++)
                for (long i = 0; i < (long)ni; i++) {
#define X(di, dj, dk) ((float)point_at(x, i + (di), j + (dj), k + (dk)))
                    const float w = 0.1f * (float)point_at(zone, k, 0, 0);
                    const float v = point_at(mask, i, j, k) == 0
                                        ? X(0, 0, 0)
                                        : (1.0f - 6.0f * w) * X(0, 0, 0) +
                                              w * (X(-1, 0, 0) + X(1, 0, 0) + X(0, -1, 0) +
                                                   X(0, 1, 0) + X(0, 0, -1) + X(0, 0, 1));
#undef X
                    stenc_field_set(want, i, j, k, v);
                }
        stenc_field *const all[4] = {x, mask, zone, y};
        upload(all, 4);
        for (int vi = 0; vi < variant_count(masked3d_variant_name); vi++) {
            const char *name = on_cuda ? masked3d_variant_name(vi) : NULL;
            reset_output(y);
            assert_int_equal(masked3d_variant(ctx, name, x, mask, zone, y), STENC_OK);
            char what[160];
            snprintf(what, sizeof what, "masked3d %zux%zux%zu %s", ni, nj, nk, name ? name : "c");
            assert_true(same_interior(y, want, what));
        }
        /* A float field where the integer one belongs: refused, naming both types. */
        stenc_field *wrong = NULL;
        assert_int_equal(stenc_field_create(ctx, &wrong, STENC_F32, 1, nk, 1, 1, 0), STENC_OK);
        upload(&wrong, 1);
        assert_int_equal(masked3d(ctx, x, mask, wrong, y), STENC_ERR_SHAPE);
        if (!strstr(stenc_last_error(), "field 'zone' holds float but input 'zone' is i32"))
            fail_msg("message: %s", stenc_last_error());
        assert_int_equal(masked3d(ctx, x, zone, zone, y), STENC_ERR_SHAPE); /* i32 for u8 */
        stenc_field_free(wrong);
        stenc_field_free(x), stenc_field_free(mask), stenc_field_free(zone), stenc_field_free(y);
        stenc_field_free(want);
    }
    stenc_ctx_destroy(host);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- integer inputs spanning i (int_rows.stencil) ----------------------------------------- */

#define F(f, i, j, k) ((float)point_at(f, i, j, k))
#define D(f, i, j, k) point_at(f, i, j, k)

/* introws3d by loops: every operation in the body's order, in float. */
static void introws3d_loops(const stenc_field *x, const stenc_field *flag, const stenc_field *wk,
                            const stenc_field *wi, stenc_field *want) {
    stenc_field_layout l;
    stenc_field_get_layout(want, &l);
    for (long k = 0; k < (long)l.n[2]; k++)
        for (long j = 0; j < (long)l.n[1]; j++)
            for (long i = 0; i < (long)l.n[0]; i++) {
                const float flags = F(flag, i - 1, j, k) + F(flag, i + 1, j, k) +
                                    F(flag, i, j + 1, k) + F(flag, i, j, k - 1);
                float v = flags * F(x, i, j, k) + F(wk, i, k - 1, 0) * F(x, i, j, k - 1);
                v = v + F(wk, i, k + 1, 0) * F(x, i, j, k + 1);
                v = v + F(flag, i, j, k) * F(wk, i, k, 0) * F(x, i - 1, j, k);
                v = v + (F(wi, i - 2, 0, 0) - F(wi, i + 1, 0, 0)) * F(x, i + 1, j, k);
                stenc_field_set(want, i, j, k, v);
            }
}

/* Extents along i around multiples of V (4 and 2) and of a block's row, and not. */
static const size_t introws3d_sizes[][3] = {{13, 5, 6}, {1, 2, 3},   {4, 4, 4},
                                            {67, 3, 9}, {130, 3, 5}, {2, 7, 2}};

/* introws3d's fields on ctx, on the host: x, flag (uint8, values up to 255), wk[i,k] (int32
 * beyond 2^24, rounded to float as the kernels round them), wi[i] (uint8), y. */
static void introws3d_fields(stenc_ctx *ctx, const size_t n[3], test_rng *rng, stenc_field *f[5]) {
    assert_int_equal(stenc_field_create(ctx, &f[0], STENC_F32, 3, n[0], n[1], n[2], 1), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &f[1], STENC_U8, 3, n[0], n[1], n[2], 1), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &f[2], STENC_I32, 2, n[0], n[2], 1, 1), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &f[3], STENC_U8, 1, n[0], 1, 1, 2), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &f[4], STENC_F32, 3, n[0], n[1], n[2], 0), STENC_OK);
    point_fill(f[0], rng, -1, 1);
    point_fill(f[1], rng, 0, 256);
    point_fill(f[2], rng, -3e7, 3e7);
    point_fill(f[3], rng, 0, 256);
}

static void test_introws3d(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(), *host = NULL;
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    test_rng rng = test_rng_seeded(31);
    for (size_t s = 0; s < sizeof introws3d_sizes / sizeof introws3d_sizes[0]; s++) {
        const size_t *n = introws3d_sizes[s];
        stenc_field *f[5], *want;
        introws3d_fields(ctx, n, &rng, f);
        assert_int_equal(stenc_field_create(host, &want, STENC_F32, 3, n[0], n[1], n[2], 0),
                         STENC_OK);
        introws3d_loops(f[0], f[1], f[2], f[3], want);
        upload(f, 4);
        for (int vi = 0; vi < variant_count(introws3d_variant_name); vi++) {
            const char *name = on_cuda ? introws3d_variant_name(vi) : NULL;
            reset_output(f[4]);
            assert_int_equal(introws3d_variant(ctx, name, f[0], f[1], f[2], f[3], f[4]), STENC_OK);
            char what[160];
            snprintf(what, sizeof what, "introws3d %zux%zux%zu %s", n[0], n[1], n[2],
                     name ? name : "c");
            assert_true(same_interior(f[4], want, what));
        }
        for (int a = 0; a < 5; a++)
            stenc_field_free(f[a]);
        stenc_field_free(want);
    }
    stenc_ctx_destroy(host);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

static void test_introws2d(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(), *host = NULL;
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    const size_t sizes[][2] = {{41, 7}, {1, 3}, {2, 2}, {3, 5}, {130, 9}, {67, 4}};
    const double sc = 0.37;
    test_rng rng = test_rng_seeded(32);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t ni = sizes[s][0], nj = sizes[s][1];
        stenc_field *u, *id, *m, *row, *v, *want;
        assert_int_equal(stenc_field_create(ctx, &u, STENC_F64, 2, ni, nj, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &id, STENC_I32, 2, ni, nj, 1, 2), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &m, STENC_U8, 1, ni, 1, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &row, STENC_I32, 1, nj, 1, 1, 0), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &v, STENC_F64, 2, ni, nj, 1, 0), STENC_OK);
        assert_int_equal(stenc_field_create(host, &want, STENC_F64, 2, ni, nj, 1, 0), STENC_OK);
        point_fill(u, &rng, -1, 1);
        point_fill(id, &rng, -2e9, 2e9);
        point_fill(m, &rng, 0, 256);
        point_fill(row, &rng, -1e6, 1e6);
        for (long j = 0; j < (long)nj; j++)
            for (long i = 0; i < (long)ni; i++) {
                const double mm = D(m, i - 1, 0, 0) + D(m, i + 1, 0, 0) - 2.0 * D(m, i, 0, 0);
                double w = mm * D(u, i, j, 0) + D(id, i - 2, j, 0) * D(u, i + 1, j, 0);
                w = w + D(id, i + 1, j, 0);
                w = w + D(id, i, j - 1, 0) * sc;
                w = w + D(row, j, 0, 0);
                stenc_field_set(want, i, j, 0, w);
            }
        stenc_field *const all[5] = {u, id, m, row, v};
        upload(all, 4);
        for (int vi = 0; vi < variant_count(introws2d_variant_name); vi++) {
            const char *name = on_cuda ? introws2d_variant_name(vi) : NULL;
            reset_output(v);
            assert_int_equal(introws2d_variant(ctx, name, sc, u, id, m, row, v), STENC_OK);
            char what[160];
            snprintf(what, sizeof what, "introws2d %zux%zu %s", ni, nj, name ? name : "c");
            assert_true(same_interior(v, want, what));
        }
        for (int a = 0; a < 5; a++)
            stenc_field_free(all[a]);
        stenc_field_free(want);
    }
    stenc_ctx_destroy(host);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

static void test_introws1d(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(), *host = NULL;
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    const size_t sizes[] = {1, 3, 4, 5, 130, 257};
    test_rng rng = test_rng_seeded(33);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t ni = sizes[s];
        stenc_field *u, *fl, *c, *v, *want;
        assert_int_equal(stenc_field_create(ctx, &u, STENC_F32, 1, ni, 1, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &fl, STENC_U8, 1, ni, 1, 1, 3), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &c, STENC_I32, 1, ni, 1, 1, 4), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &v, STENC_F32, 1, ni, 1, 1, 0), STENC_OK);
        assert_int_equal(stenc_field_create(host, &want, STENC_F32, 1, ni, 1, 1, 0), STENC_OK);
        point_fill(u, &rng, -1, 1);
        point_fill(fl, &rng, 0, 256);
        point_fill(c, &rng, -3e7, 3e7);
        for (long i = 0; i < (long)ni; i++) {
            float w = F(fl, i - 3, 0, 0) * F(u, i - 1, 0, 0) + F(fl, i, 0, 0) * F(u, i, 0, 0);
            w = w + F(fl, i + 2, 0, 0) * F(u, i + 1, 0, 0);
            w = w + F(c, i - 1, 0, 0);
            w = w - F(c, i + 4, 0, 0);
            stenc_field_set(want, i, 0, 0, w);
        }
        stenc_field *const all[4] = {u, fl, c, v};
        upload(all, 3);
        for (int vi = 0; vi < variant_count(introws1d_variant_name); vi++) {
            const char *name = on_cuda ? introws1d_variant_name(vi) : NULL;
            reset_output(v);
            assert_int_equal(introws1d_variant(ctx, name, u, fl, c, v), STENC_OK);
            char what[160];
            snprintf(what, sizeof what, "introws1d %zu %s", ni, name ? name : "c");
            assert_true(same_interior(v, want, what));
        }
        for (int a = 0; a < 4; a++)
            stenc_field_free(all[a]);
        stenc_field_free(want);
    }
    stenc_ctx_destroy(host);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

static void test_intface2d(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(), *host = NULL;
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    const size_t sizes[][2] = {{9, 4}, {1, 1}, {64, 3}, {127, 2}, {130, 5}};
    test_rng rng = test_rng_seeded(34);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t ni = sizes[s][0], nj = sizes[s][1];
        stenc_field *u, *open, *v, *want;
        assert_int_equal(stenc_field_create(ctx, &u, STENC_F32, 2, ni, nj, 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &open, STENC_U8, 2, ni + 1, nj, 1, 0), STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &v, STENC_F32, 2, ni, nj, 1, 0), STENC_OK);
        assert_int_equal(stenc_field_create(host, &want, STENC_F32, 2, ni, nj, 1, 0), STENC_OK);
        point_fill(u, &rng, -1, 1);
        point_fill(open, &rng, 0, 3);
        for (long j = 0; j < (long)nj; j++)
            for (long i = 0; i < (long)ni; i++) {
                const float uc = F(u, i, j, 0);
                const float w = F(open, i, j, 0) * (F(u, i - 1, j, 0) - uc) +
                                F(open, i + 1, j, 0) * (F(u, i + 1, j, 0) - uc);
                stenc_field_set(want, i, j, 0, w);
            }
        stenc_field *const all[3] = {u, open, v};
        upload(all, 2);
        for (int vi = 0; vi < variant_count(intface2d_variant_name); vi++) {
            const char *name = on_cuda ? intface2d_variant_name(vi) : NULL;
            reset_output(v);
            assert_int_equal(intface2d_variant(ctx, name, u, open, v), STENC_OK);
            char what[160];
            snprintf(what, sizeof what, "intface2d %zux%zu %s", ni, nj, name ? name : "c");
            assert_true(same_interior(v, want, what));
        }
        for (int a = 0; a < 3; a++)
            stenc_field_free(all[a]);
        stenc_field_free(want);
    }
    stenc_ctx_destroy(host);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

#undef F
#undef D

#if STENC_TEST_CUDA_VARIANTS
/* Defined by the generated CUDA code: its variants' run functions. */
extern const stenc_launch_variants introws3d_cuda_variants;

/* A device copy of field f's storage (halo and padding included) placed `shift` bytes past a
 * fresh allocation's start (cudaMalloc's: 256-byte aligned); its launch view, with the strides
 * of stenc_launch_check (a lower-dimensional field's along the stencil dimensions `axes` it
 * spans, 0 elsewhere). *block is the allocation, for stenc_free. */
static stenc_launch_field shifted_copy(stenc_ctx *ctx, const stenc_field *f, unsigned axes,
                                       size_t shift, void **block) {
    stenc_field_layout l;
    assert_int_equal(stenc_field_get_layout(f, &l), STENC_OK);
    const size_t es = stenc_type_size(l.type), bytes = l.alloc_elems * es;
    assert_int_equal(stenc_malloc(ctx, block, bytes + shift), STENC_OK);
    const char *base = (const char *)stenc_field_device_origin(f) - l.origin_elems * es;
    assert_int_equal(stenc_memcpy(ctx, (char *)*block + shift, base, bytes), STENC_OK);
    stenc_launch_field out = {(char *)*block + shift + l.origin_elems * es, {0, 0, 0}};
    for (int d = 0, p = 0; d < 3; d++)
        out.stride[d] = !axes ? l.stride[d] : axes >> d & 1 ? l.stride[p++] : 0;
    return out;
}

/* Integer fields whose origins are off their vector alignment (a uint8 one byte past it, an
 * int32 four bytes) make the direct kernels take their scalar (or clamped) path, and origins
 * aligned only to their own type's vectors (four bytes for uint8 by V = 4, sixteen for int32;
 * two and eight by V = 2) their vector path: every variant exact either way. Fields of
 * stenc_field_create are always aligned (128-byte rows), so the run functions get copies. */
static void test_introws3d_misaligned_cuda(void **state) {
    (void)state;
    if (!on_cuda) skip();
    stenc_ctx *ctx = make_ctx(), *host = NULL;
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    /* shifts in bytes of flag, wk, wi */
    static const size_t shifts[][3] = {{1, 4, 2}, {4, 16, 4}, {2, 8, 2}};
    static const unsigned axes[5] = {0, 0, 1u | 4u, 1u, 0}; /* wk[i,k], wi[i] */
    test_rng rng = test_rng_seeded(35);
    for (size_t s = 0; s < sizeof introws3d_sizes / sizeof introws3d_sizes[0]; s++) {
        const size_t *n = introws3d_sizes[s];
        stenc_field *f[5], *want;
        introws3d_fields(ctx, n, &rng, f);
        assert_int_equal(stenc_field_create(host, &want, STENC_F32, 3, n[0], n[1], n[2], 0),
                         STENC_OK);
        introws3d_loops(f[0], f[1], f[2], f[3], want);
        upload(f, 5); /* the output too: its device copy must exist before its origin is taken */
        const stenc_launch_shape shape = {STENC_ON_DEVICE, {n[0], n[1], n[2]}, {0, 0, 0}};
        const stenc_launch_op op = {0, NULL, NULL};
        for (size_t c = 0; c < sizeof shifts / sizeof shifts[0]; c++) {
            stenc_launch_field lf[5];
            void *blocks[3] = {NULL, NULL, NULL};
            for (int a = 0; a < 5; a++)
                if (a >= 1 && a <= 3) {
                    lf[a] = shifted_copy(ctx, f[a], axes[a], shifts[c][a - 1], &blocks[a - 1]);
                } else {
                    stenc_field_layout l;
                    assert_int_equal(stenc_field_get_layout(f[a], &l), STENC_OK);
                    lf[a] = (stenc_launch_field){stenc_field_device_origin(f[a]),
                                                 {l.stride[0], l.stride[1], l.stride[2]}};
                }
            for (int v = 0; v < introws3d_cuda_variants.count; v++) {
                const stenc_launch_variant *var = &introws3d_cuda_variants.list[v];
                reset_output(f[4]);
                if (var->run(ctx, &shape, lf, NULL, &op) != STENC_OK ||
                    stenc_ctx_synchronize(ctx) != STENC_OK)
                    fail_msg("introws3d/%s shifted by %zu, %zu, %zu: %s", var->name, shifts[c][0],
                             shifts[c][1], shifts[c][2], stenc_last_error());
                char what[160];
                snprintf(what, sizeof what, "introws3d %zux%zux%zu %s shifted by %zu, %zu, %zu",
                         n[0], n[1], n[2], var->name, shifts[c][0], shifts[c][1], shifts[c][2]);
                assert_true(same_interior(f[4], want, what));
            }
            for (int b = 0; b < 3; b++)
                assert_int_equal(stenc_free(ctx, blocks[b]), STENC_OK);
        }
        for (int a = 0; a < 5; a++)
            stenc_field_free(f[a]);
        stenc_field_free(want);
    }
    stenc_ctx_destroy(host);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}
#else
static void test_introws3d_misaligned_cuda(void **state) {
    (void)state;
    skip(); /* built without CUDA: no variants */
}
#endif

int main(int argc, char **argv) {
    on_cuda = argc > 1 && strcmp(argv[1], "gpu") == 0;
    on_gpu = on_cuda || (argc > 1 && strcmp(argv[1], "opencl") == 0);
    if (on_cuda && stenc_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return STENC_TEST_SKIP;
    }
    if (on_gpu && !on_cuda && stenc_opencl_device_count() == 0) {
        printf("no OpenCL device: skipped\n");
        return STENC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stretched2d),
        cmocka_unit_test(test_planecoef3d),
        cmocka_unit_test(test_lower_launch_checks),
        cmocka_unit_test(test_material2d),
        cmocka_unit_test(test_masked3d),
        cmocka_unit_test(test_introws3d),
        cmocka_unit_test(test_introws2d),
        cmocka_unit_test(test_introws1d),
        cmocka_unit_test(test_intface2d),
        cmocka_unit_test(test_introws3d_misaligned_cuda),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
