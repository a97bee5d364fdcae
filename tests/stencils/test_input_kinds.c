/* Inputs of other kinds than full arrays of the stencil's type, against plain loops written
 * here, every point bit for bit (both built without contraction), at odd sizes, on random data
 * with random halos, then the launch checks of their fields:
 * - lower-dimensional inputs (stencils/lower_dims.stencil): stretched2d, whose cell widths
 *   dx[i] and dy[j] are 1-D fields, and planecoef3d, with a plane a[i,k] and a line b[j];
 * - integer inputs (stencils/int_inputs.stencil): material2d (an int32 material id, a uint8
 *   frozen mask) and masked3d (a uint8 mask, an int32 zone per plane k).
 * With argument "gpu": every CUDA variant against the same loops (exit 77 without a device);
 * with "opencl": the OpenCL kernels' default (exit 77 without an OpenCL device). */
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
            assert_int_equal(stenc_field_download(v), STENC_OK); /* fill works on the host */
            assert_int_equal(stenc_field_fill(v, 7.0), STENC_OK);
            upload(&v, 1);
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
            assert_int_equal(stenc_field_download(y), STENC_OK);
            assert_int_equal(stenc_field_fill(y, 7.0), STENC_OK);
            upload(&y, 1);
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
            assert_int_equal(stenc_field_download(v), STENC_OK);
            assert_int_equal(stenc_field_fill(v, 7.0), STENC_OK);
            upload(&v, 1);
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
            assert_int_equal(stenc_field_download(y), STENC_OK);
            assert_int_equal(stenc_field_fill(y, 7.0), STENC_OK);
            upload(&y, 1);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
