/* Staggered arrays (stencils/staggered.stencil) against loops written here: face fluxes of a
 * 2-D cell field (ni + 1 faces per row, a staggered lower-dimensional spacing), the update of
 * the cells from their faces, the cell-to-node average in 3-D (the grid plus one everywhere)
 * and a difference over the interior faces of a 1-D grid (the grid minus one). Every element
 * bit for bit (built without contraction), at odd sizes, on random data; the outputs' halos
 * are poisoned and must stay so (a staggered output is written over its own extent, no
 * more). Then the launch check: extents that do not fit the declared staggers, and a halo
 * too thin, are STENC_ERR_SHAPE naming the field. With argument "gpu" or "opencl": the same
 * launches on that device against the host's (exit 77 without one), and on CUDA node_avg3d's
 * every variant. */
#include "face_div2d.h"
#include "face_flux2d.h"
#include "inner_diff1d.h"
#include "node_avg3d.h"
#include "point_check.h"

static stenc_device device_kind = STENC_DEVICE_CPU;
static stenc_ctx *host_ctx; /* the snapshots' */

/* 1 when every point of a's box (halo included) equals want(i, j, k) bitwise. */
typedef double (*point_fn)(long i, long j, long k, const void *arg);

static int box_matches(const stenc_field *a, point_fn want, const void *arg, const char *what) {
    stenc_field_layout l;
    stenc_field_get_layout(a, &l);
    const long h = l.halo, hj = l.dims > 1 ? h : 0, hk = l.dims > 2 ? h : 0;
    for (long k = -hk; k < (long)l.n[2] + hk; k++)
        for (long j = -hj; j < (long)l.n[1] + hj; j++)
            for (long i = -h; i < (long)l.n[0] + h; i++) {
                const double got = point_at(a, i, j, k), expect = want(i, j, k, arg);
                if (memcmp(&got, &expect, sizeof got) != 0) {
                    print_error("%s: (%ld,%ld,%ld) is %.17g, expected %.17g\n", what, i, j, k, got,
                                expect);
                    return 0;
                }
            }
    return 1;
}

/* ---- face_flux2d: fx(i, j) = kappa (u(i, j) - u(i-1, j)) / dxf(i), i = 0..ni --------------- */

typedef struct flux_case {
    const stenc_field *u, *dxf, *before; /* before: fx's values before the launch */
    long ni, nj;
    double kappa;
} flux_case;

static double flux_point(long i, long j, long k, const void *arg) {
    const flux_case *c = arg;
    if (i < 0 || i > c->ni || j < 0 || j >= c->nj) return point_at(c->before, i, j, k);
    return c->kappa * (point_at(c->u, i, j, 0) - point_at(c->u, i - 1, j, 0)) /
           point_at(c->dxf, i, 0, 0);
}

/* ---- face_div2d: v = u + dt (fx(i+1) - fx(i) + fy(j+1) - fy(j)) ------------------------------ */

typedef struct div_case {
    const stenc_field *u, *fx, *fy, *before;
    long ni, nj;
    double dt;
} div_case;

static double div_point(long i, long j, long k, const void *arg) {
    const div_case *c = arg;
    if (i < 0 || i >= c->ni || j < 0 || j >= c->nj) return point_at(c->before, i, j, k);
    return point_at(c->u, i, j, 0) +
           c->dt * (point_at(c->fx, i + 1, j, 0) - point_at(c->fx, i, j, 0) +
                    point_at(c->fy, i, j + 1, 0) - point_at(c->fy, i, j, 0));
}

/* ---- node_avg3d: nd(i, j, k) = the mean of the 8 cells around node (i, j, k) ------------------
 */

typedef struct node_case {
    const stenc_field *c, *before;
    long n[3];
} node_case;

static double node_point(long i, long j, long k, const void *arg) {
    const node_case *c = arg;
    if (i < 0 || i > c->n[0] || j < 0 || j > c->n[1] || k < 0 || k > c->n[2])
        return point_at(c->before, i, j, k);
    /* the stencil's order of terms, in float */
    const float s = (float)point_at(c->c, i, j, k) + (float)point_at(c->c, i - 1, j, k);
    const float t = s + (float)point_at(c->c, i, j - 1, k);
    const float u = t + (float)point_at(c->c, i - 1, j - 1, k);
    const float v = u + (float)point_at(c->c, i, j, k - 1);
    const float w = v + (float)point_at(c->c, i - 1, j, k - 1);
    const float x = w + (float)point_at(c->c, i, j - 1, k - 1);
    const float y = x + (float)point_at(c->c, i - 1, j - 1, k - 1);
    return (double)(0.125f * y);
}

/* ---- inner_diff1d: g(i) = u(i+1) - u(i), i = 0..ni-2 -------------------------------------------
 */

typedef struct diff_case {
    const stenc_field *u, *before;
    long ni;
} diff_case;

static double diff_point(long i, long j, long k, const void *arg) {
    const diff_case *c = arg;
    if (i < 0 || i >= c->ni - 1) return point_at(c->before, i, j, k);
    return point_at(c->u, i + 1, 0, 0) - point_at(c->u, i, 0, 0);
}

static void test_staggered(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device_kind), STENC_OK);
    static const size_t sizes2[][2] = {{1, 1}, {2, 5}, {17, 9}, {64, 33}, {131, 70}};
    for (size_t s = 0; s < sizeof sizes2 / sizeof *sizes2; s++) {
        const size_t ni = sizes2[s][0], nj = sizes2[s][1];
        char what[96];
        /* the fluxes on the faces normal to i */
        stenc_field *u = point_make(ctx, STENC_F64, 2, ni, nj, 1, 1, -1, 1, 10 + s);
        stenc_field *dxf = point_make(ctx, STENC_F64, 1, ni + 1, 1, 1, 0, -1, 1, 20 + s);
        stenc_field *fx = point_make(ctx, STENC_F64, 2, ni + 1, nj, 1, 1, -1, 1, 30 + s);
        stenc_field *fx_before = point_snapshot(host_ctx, fx);
        assert_int_equal(face_flux2d(ctx, 0.75, u, dxf, fx), STENC_OK);
        stenc_field *hu = point_host_copy(host_ctx, u), *hdxf = point_host_copy(host_ctx, dxf),
                    *hfx = point_host_copy(host_ctx, fx);
        const flux_case fc = {hu, hdxf, fx_before, (long)ni, (long)nj, 0.75};
        snprintf(what, sizeof what, "face_flux2d %zux%zu", ni, nj);
        assert_true(box_matches(hfx, flux_point, &fc, what));
        /* the cells from their faces (fy: random faces normal to j) */
        stenc_field *fy = point_make(ctx, STENC_F64, 2, ni, nj + 1, 1, 0, -1, 1, 40 + s);
        stenc_field *v = point_make(ctx, STENC_F64, 2, ni, nj, 1, 2, -1, 1, 50 + s);
        stenc_field *v_before = point_snapshot(host_ctx, v);
        assert_int_equal(face_div2d(ctx, 0.1, u, fx, fy, v), STENC_OK);
        stenc_field *hfy = point_host_copy(host_ctx, fy), *hv = point_host_copy(host_ctx, v);
        const div_case dc = {hu, hfx, hfy, v_before, (long)ni, (long)nj, 0.1};
        snprintf(what, sizeof what, "face_div2d %zux%zu", ni, nj);
        assert_true(box_matches(hv, div_point, &dc, what));
        stenc_field *all[] = {u, dxf, fx, fy, v, fx_before, v_before, hu, hdxf, hfx, hfy, hv};
        for (size_t a = 0; a < sizeof all / sizeof *all; a++)
            stenc_field_free(all[a]);
    }
    /* Node rows of 65 and 131 points: a block's row (64 or 128 points) and one or three more,
     * a last block nearly empty; 128: whole blocks. On CUDA, every variant. */
    static const size_t sizes3[][3] = {{1, 1, 1},  {2, 3, 5},   {13, 7, 9}, {33, 4, 3},
                                       {64, 3, 4}, {130, 2, 6}, {127, 3, 2}};
    for (size_t s = 0; s < sizeof sizes3 / sizeof *sizes3; s++) {
        const size_t *n = sizes3[s];
        stenc_field *c = point_make(ctx, STENC_F32, 3, n[0], n[1], n[2], 1, -1, 1, 60 + s);
        stenc_field *hc = point_host_copy(host_ctx, c);
        const char *name = NULL; /* the automatic choice first */
        for (int v = 0; v == 0 || (device_kind == STENC_DEVICE_CUDA &&
                                   (name = node_avg3d_variant_name(v - 1)) != NULL);
             v++) {
            stenc_field *nd =
                point_make(ctx, STENC_F32, 3, n[0] + 1, n[1] + 1, n[2] + 1, 1, -1, 1, 70 + s);
            stenc_field *nd_before = point_snapshot(host_ctx, nd);
            assert_int_equal(node_avg3d_variant(ctx, name, c, nd), STENC_OK);
            stenc_field *hnd = point_host_copy(host_ctx, nd);
            const node_case nc = {hc, nd_before, {(long)n[0], (long)n[1], (long)n[2]}};
            char what[96];
            snprintf(what, sizeof what, "node_avg3d %zux%zux%zu %s", n[0], n[1], n[2],
                     name ? name : "(auto)");
            assert_true(box_matches(hnd, node_point, &nc, what));
            stenc_field_free(nd), stenc_field_free(nd_before), stenc_field_free(hnd);
        }
        stenc_field_free(c), stenc_field_free(hc);
    }
    static const size_t sizes1[] = {2, 3, 100, 4097};
    for (size_t s = 0; s < sizeof sizes1 / sizeof *sizes1; s++) {
        const size_t ni = sizes1[s];
        stenc_field *u =
            point_make(ctx, STENC_F64, 1, ni, 1, 1, 0, -1, 1, 80 + s); /* no halo needed */
        stenc_field *g = point_make(ctx, STENC_F64, 1, ni - 1, 1, 1, 2, -1, 1, 90 + s);
        stenc_field *g_before = point_snapshot(host_ctx, g);
        assert_int_equal(inner_diff1d(ctx, u, g), STENC_OK);
        stenc_field *hu = point_host_copy(host_ctx, u), *hg = point_host_copy(host_ctx, g);
        const diff_case dc = {hu, g_before, (long)ni};
        char what[96];
        snprintf(what, sizeof what, "inner_diff1d %zu", ni);
        assert_true(box_matches(hg, diff_point, &dc, what));
        stenc_field_free(u), stenc_field_free(g), stenc_field_free(g_before);
        stenc_field_free(hu), stenc_field_free(hg);
    }
    stenc_ctx_destroy(ctx);
}

/* Extents that do not fit the declared staggers, and halos too thin for the reads past an
 * array's own extent: STENC_ERR_SHAPE, naming the field. */
static void test_launch_check(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, STENC_DEVICE_CPU), STENC_OK);
    stenc_field *u, *dxf, *fx, *fx_short, *dxf_short, *u_thin;
    assert_int_equal(stenc_field_create(ctx, &u, STENC_F64, 2, 9, 5, 1, 1), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &dxf, STENC_F64, 1, 10, 1, 1, 0), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &fx, STENC_F64, 2, 10, 5, 1, 0), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &fx_short, STENC_F64, 2, 9, 5, 1, 0), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &dxf_short, STENC_F64, 1, 9, 1, 1, 0), STENC_OK);
    assert_int_equal(stenc_field_create(ctx, &u_thin, STENC_F64, 2, 9, 5, 1, 0), STENC_OK);
    assert_int_equal(face_flux2d(ctx, 1.0, u, dxf, fx), STENC_OK);
    assert_int_equal(face_flux2d(ctx, 1.0, u, dxf, fx_short), STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "'fx'"));
    assert_non_null(strstr(stenc_last_error(), "staggered"));
    assert_int_equal(face_flux2d(ctx, 1.0, u, dxf_short, fx), STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "'dxf'"));
    /* u is read at i-1 from face 0 and at i from face ni: halo 1 on both sides */
    assert_int_equal(face_flux2d(ctx, 1.0, u_thin, dxf, fx), STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "'u'"));
    stenc_field_free(u), stenc_field_free(dxf), stenc_field_free(fx);
    stenc_field_free(fx_short), stenc_field_free(dxf_short), stenc_field_free(u_thin);
    stenc_ctx_destroy(ctx);
}

static int run(int argc, char **argv) {
    const int on_device = point_device_arg(argc, argv, &device_kind);
    if (on_device == STENC_TEST_SKIP) return STENC_TEST_SKIP;
    if (on_device) {
        const struct CMUnitTest device[] = {cmocka_unit_test(test_staggered)};
        return cmocka_run_group_tests(device, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_staggered),
        cmocka_unit_test(test_launch_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

int main(int argc, char **argv) {
    if (stenc_ctx_create(&host_ctx, STENC_DEVICE_CPU) != STENC_OK) return 1;
    const int rc = run(argc, argv);
    stenc_ctx_destroy(host_ctx);
    return rc;
}
