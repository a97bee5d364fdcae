/* Line solves (stencils/lines.stencil) against a solve written here: per line, the
 * coefficients computed from the inputs as the stencil states them, the halo values of the
 * solved array moved to the right-hand side at the ends, and the Thomas algorithm in long
 * double. Every interior element at odd sizes on random data, in float and double, along i, j
 * and k; the solved array's halo must come out bitwise unchanged. Then the errors: a halo too
 * thin, singular lines (each named in the message: a zero pivot, a NaN rhs, a NaN boundary
 * value); and the deferred singular check (stenc_tridiag_defer_lines). With argument "gpu"
 * or "opencl": the same launches on CUDA or on an OpenCL device (exit 77 without one). */
#include <float.h>

#include "adi_x.h"
#include "adi_y.h"
#include "bvp1d.h"
#include "diffuse_j3d.h"
#include "implicit_k3d.h"
#include "point_check.h"

static stenc_device device_kind = STENC_DEVICE_CPU;
static stenc_ctx *host_ctx; /* the snapshots' */

/* The coefficients (lower, diag, upper, rhs) at interior point p, as the stencil computes them. */
typedef void (*coef_fn)(const long p[3], const void *arg, long double out[4]);

/* 1 when host field v's halo holds before's values bitwise. */
static int halo_same(const stenc_field *v, const stenc_field *before, const char *what) {
    stenc_field_layout l;
    stenc_field_get_layout(v, &l);
    const long n[3] = {(long)l.n[0], (long)l.n[1], (long)l.n[2]};
    const long h = l.halo, hj = l.dims > 1 ? h : 0, hk = l.dims > 2 ? h : 0;
    for (long k = -hk; k < n[2] + hk; k++)
        for (long j = -hj; j < n[1] + hj; j++)
            for (long i = -h; i < n[0] + h; i++) {
                if (i >= 0 && i < n[0] && j >= 0 && j < n[1] && k >= 0 && k < n[2]) continue;
                const double x = point_at(v, i, j, k), y = point_at(before, i, j, k);
                if (memcmp(&x, &y, sizeof x) != 0) {
                    print_error("%s: halo point (%ld,%ld,%ld) became %.17g (was %.17g)\n", what, i,
                                j, k, x, y);
                    return 0;
                }
            }
    return 1;
}

/* 1 when v's interior solves every line along `dim` of the systems coef() gives, with the
 * halo values of `before` beyond the ends, to within tol of 1 + the largest value of the line
 * (the data are of order 1), and v's halo equals before's bitwise. */
static int lines_match(const stenc_field *v, const stenc_field *before, int dim, coef_fn coef,
                       const void *arg, double tol, const char *what) {
    stenc_field_layout l;
    stenc_field_get_layout(v, &l);
    const long n[3] = {(long)l.n[0], (long)l.n[1], (long)l.n[2]}, m = n[dim];
    long double *a = malloc(sizeof *a * 4 * (size_t)m), *b = a + m, *c = b + m, *d = c + m;
    assert_non_null(a);
    long other[2], o0 = (dim + 1) % 3, o1 = (dim + 2) % 3;
    int ok = 1;
    for (other[1] = 0; ok && other[1] < n[o1]; other[1]++)
        for (other[0] = 0; ok && other[0] < n[o0]; other[0]++) {
            long p[3];
            p[o0] = other[0], p[o1] = other[1];
            for (long q = 0; q < m; q++) {
                p[dim] = q;
                long double out[4];
                coef(p, arg, out);
                a[q] = out[0], b[q] = out[1], c[q] = out[2], d[q] = out[3];
            }
            p[dim] = -1;
            d[0] -= a[0] * point_at(before, p[0], p[1], p[2]);
            p[dim] = m;
            d[m - 1] -= c[m - 1] * point_at(before, p[0], p[1], p[2]);
            /* Thomas */
            for (long q = 1; q < m; q++) {
                const long double w = a[q] / b[q - 1];
                b[q] -= w * c[q - 1];
                d[q] -= w * d[q - 1];
            }
            d[m - 1] /= b[m - 1];
            for (long q = m - 2; q >= 0; q--)
                d[q] = (d[q] - c[q] * d[q + 1]) / b[q];
            long double scale = 0;
            for (long q = 0; q < m; q++)
                if (fabsl(d[q]) > scale) scale = fabsl(d[q]);
            for (long q = 0; q < m && ok; q++) {
                p[dim] = q;
                const double got = point_at(v, p[0], p[1], p[2]);
                if (!(fabsl(got - d[q]) <= tol * (scale + 1))) { /* the data are O(1) */
                    print_error("%s: (%ld,%ld,%ld) is %.17g, the line's solution %.17Lg\n", what,
                                p[0], p[1], p[2], got, d[q]);
                    ok = 0;
                }
            }
        }
    free(a);
    return ok && halo_same(v, before, what);
}

/* ---- the stencils' coefficients ------------------------------------------------------------ */

typedef struct adi_case {
    const stenc_field *u;
    double r;
    int dim; /* the implicit direction */
} adi_case;

static void adi_coef(const long p[3], const void *arg, long double out[4]) {
    const adi_case *c = arg;
    const long ei = c->dim == 1, ej = c->dim == 0; /* the explicit direction */
    const double u = point_at(c->u, p[0], p[1], 0);
    const double lo = point_at(c->u, p[0] - ei, p[1] - ej, 0);
    const double hi = point_at(c->u, p[0] + ei, p[1] + ej, 0);
    out[0] = -c->r, out[1] = 1 + 2 * c->r, out[2] = -c->r;
    out[3] = u + c->r * (lo - 2.0 * u + hi);
}

typedef struct diffuse_case {
    const stenc_field *u, *kappa;
    float dt;
} diffuse_case;

static void diffuse_coef(const long p[3], const void *arg, long double out[4]) {
    const diffuse_case *c = arg;
    const float k0 = (float)point_at(c->kappa, p[0], p[1], p[2]);
    const float lo = c->dt * 0.5f * (k0 + (float)point_at(c->kappa, p[0], p[1] - 1, p[2]));
    const float hi = c->dt * 0.5f * (k0 + (float)point_at(c->kappa, p[0], p[1] + 1, p[2]));
    out[0] = -lo, out[1] = 1.0f + lo + hi, out[2] = -hi;
    out[3] = (float)point_at(c->u, p[0], p[1], p[2]);
}

typedef struct bvp_case {
    const stenc_field *c, *f;
    double h2;
} bvp_case;

static void bvp_coef(const long p[3], const void *arg, long double out[4]) {
    const bvp_case *c = arg;
    out[0] = -1, out[2] = -1;
    out[1] = 2 + c->h2 * point_at(c->c, p[0], 0, 0) + 0.001 * (double)p[0];
    out[3] = c->h2 * point_at(c->f, p[0], 0, 0);
}

typedef struct implicit_case {
    const stenc_field *u, *s;
    double a, b;
} implicit_case;

static void implicit_coef(const long p[3], const void *arg, long double out[4]) {
    const implicit_case *c = arg;
    const double s = point_at(c->s, p[0], p[1], p[2]);
    out[0] = -c->a * s, out[1] = 1 + c->a * s + c->b, out[2] = -c->b;
    out[3] = point_at(c->u, p[0], p[1], p[2]);
}

/* ---- the launches --------------------------------------------------------------------------- */

static void test_adi(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device_kind), STENC_OK);
    static const size_t sizes[][3] = {{1, 1, 1}, {2, 5, 1}, {17, 9, 1}, {64, 33, 1}, {131, 70, 1}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        for (int dim = 0; dim < 2; dim++) {
            const int halo = 1 + (int)(s % 2);
            stenc_field *u = point_make(ctx, STENC_F64, 2, sizes[s][0], sizes[s][1], sizes[s][2], 1,
                                        -1, 1, 10 + s);
            stenc_field *v = point_make(ctx, STENC_F64, 2, sizes[s][0], sizes[s][1], sizes[s][2],
                                        halo, -1, 1, 20 + s);
            stenc_field *before = point_host_copy(host_ctx, v);
            const double r = 0.3 + 0.1 * (double)s;
            assert_int_equal(dim == 0 ? adi_x(ctx, r, u, v) : adi_y(ctx, r, u, v), STENC_OK);
            stenc_field *hu = point_host_copy(host_ctx, u), *hv = point_host_copy(host_ctx, v);
            const adi_case c = {hu, r, dim};
            char what[96];
            snprintf(what, sizeof what, "adi_%c %zux%zu", dim ? 'y' : 'x', sizes[s][0],
                     sizes[s][1]);
            assert_true(lines_match(hv, before, dim, adi_coef, &c, 1e-13, what));
            stenc_field_free(u), stenc_field_free(v), stenc_field_free(before);
            stenc_field_free(hu), stenc_field_free(hv);
        }
    }
    stenc_ctx_destroy(ctx);
}

static void test_varying(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device_kind), STENC_OK);
    static const size_t sizes3[][3] = {{1, 1, 1}, {2, 3, 5}, {13, 7, 9}, {33, 40, 3}, {5, 2, 61}};
    for (size_t s = 0; s < sizeof sizes3 / sizeof *sizes3; s++) {
        char what[96];
        /* along j, float, coefficients from kappa */
        stenc_field *u = point_make(ctx, STENC_F32, 3, sizes3[s][0], sizes3[s][1], sizes3[s][2], 1,
                                    -1, 1, 30 + s);
        stenc_field *kappa = point_make(ctx, STENC_F32, 3, sizes3[s][0], sizes3[s][1], sizes3[s][2],
                                        1, 0.1, 2, 40 + s);
        stenc_field *v = point_make(ctx, STENC_F32, 3, sizes3[s][0], sizes3[s][1], sizes3[s][2], 1,
                                    -1, 1, 50 + s);
        stenc_field *before = point_host_copy(host_ctx, v);
        assert_int_equal(diffuse_j3d(ctx, 0.7, u, kappa, v), STENC_OK);
        stenc_field *hu = point_host_copy(host_ctx, u), *hk = point_host_copy(host_ctx, kappa),
                    *hv = point_host_copy(host_ctx, v);
        const diffuse_case dc = {hu, hk, 0.7f};
        snprintf(what, sizeof what, "diffuse_j3d %zux%zux%zu", sizes3[s][0], sizes3[s][1],
                 sizes3[s][2]);
        assert_true(lines_match(hv, before, 1, diffuse_coef, &dc, 2e-6, what));
        stenc_field *all[] = {u, kappa, v, before, hu, hk, hv};
        for (size_t a = 0; a < sizeof all / sizeof *all; a++)
            stenc_field_free(all[a]);
        /* along k, double, the sub-diagonal varying, the super-diagonal uniform */
        u = point_make(ctx, STENC_F64, 3, sizes3[s][0], sizes3[s][1], sizes3[s][2], 0, -1, 1,
                       60 + s);
        stenc_field *sf = point_make(ctx, STENC_F64, 3, sizes3[s][0], sizes3[s][1], sizes3[s][2], 0,
                                     0, 1, 70 + s);
        v = point_make(ctx, STENC_F64, 3, sizes3[s][0], sizes3[s][1], sizes3[s][2], 2, -1, 1,
                       80 + s);
        before = point_host_copy(host_ctx, v);
        assert_int_equal(implicit_k3d(ctx, 1.5, 0.25 * (double)(s + 1), u, sf, v), STENC_OK);
        stenc_field *hs = point_host_copy(host_ctx, sf);
        hu = point_host_copy(host_ctx, u), hv = point_host_copy(host_ctx, v);
        const implicit_case ic = {hu, hs, 1.5, 0.25 * (double)(s + 1)};
        snprintf(what, sizeof what, "implicit_k3d %zux%zux%zu", sizes3[s][0], sizes3[s][1],
                 sizes3[s][2]);
        assert_true(lines_match(hv, before, 2, implicit_coef, &ic, 1e-13, what));
        stenc_field *more[] = {u, sf, v, before, hu, hs, hv};
        for (size_t a = 0; a < sizeof more / sizeof *more; a++)
            stenc_field_free(more[a]);
    }
    static const size_t sizes1[][3] = {{1, 1, 1}, {2, 1, 1}, {7, 1, 1}, {100, 1, 1}, {1001, 1, 1}};
    for (size_t s = 0; s < sizeof sizes1 / sizeof *sizes1; s++) {
        stenc_field *c = point_make(ctx, STENC_F64, 1, sizes1[s][0], sizes1[s][1], sizes1[s][2], 0,
                                    0, 1, 90 + s);
        stenc_field *f = point_make(ctx, STENC_F64, 1, sizes1[s][0], sizes1[s][1], sizes1[s][2], 0,
                                    -1, 1, 100 + s);
        stenc_field *w = point_make(ctx, STENC_F64, 1, sizes1[s][0], sizes1[s][1], sizes1[s][2], 1,
                                    -1, 1, 110 + s);
        stenc_field *before = point_host_copy(host_ctx, w);
        assert_int_equal(bvp1d(ctx, 0.5, c, f, w), STENC_OK);
        stenc_field *hc = point_host_copy(host_ctx, c), *hf = point_host_copy(host_ctx, f),
                    *hw = point_host_copy(host_ctx, w);
        const bvp_case bc = {hc, hf, 0.5};
        char what[64];
        snprintf(what, sizeof what, "bvp1d %zu", sizes1[s][0]);
        assert_true(lines_match(hw, before, 0, bvp_coef, &bc, 1e-11, what));
        stenc_field *all[] = {c, f, w, before, hc, hf, hw};
        for (size_t a = 0; a < sizeof all / sizeof *all; a++)
            stenc_field_free(all[a]);
    }
    stenc_ctx_destroy(ctx);
}

/* A halo too thin to hold the boundary values, and a singular line. */
static void test_errors(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device_kind), STENC_OK);
    const size_t n[3] = {9, 5, 1};
    stenc_field *u = point_make(ctx, STENC_F64, 2, n[0], n[1], n[2], 1, -1, 1, 1);
    stenc_field *v = point_make(ctx, STENC_F64, 2, n[0], n[1], n[2], 1, -1, 1, 2);
    stenc_field *v_thin = point_make(ctx, STENC_F64, 2, n[0], n[1], n[2], 0, -1, 1, 3);
    assert_int_equal(adi_x(ctx, 0.25, u, v_thin), STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "'v'"));
    /* r = -1/2: diag = 0, a zero pivot at the start of every line */
    assert_int_equal(adi_y(ctx, -0.5, u, v), STENC_ERR_SINGULAR);
    assert_non_null(strstr(stenc_last_error(), "along j at i=0 is singular"));
    assert_int_equal(adi_y(ctx, 0.5, u, v), STENC_OK);
    stenc_field_free(u), stenc_field_free(v), stenc_field_free(v_thin);
    stenc_ctx_destroy(ctx);
}

/* Set host field f's point (i, j, k) and upload f again when it lives on a device. */
static void set_point(stenc_field *f, long i, long j, long k, double value) {
    const int on_device = stenc_field_location(f) == STENC_ON_DEVICE;
    if (on_device) assert_int_equal(stenc_field_download(f), STENC_OK);
    assert_int_equal(stenc_field_set(f, i, j, k, value), STENC_OK);
    if (on_device) assert_int_equal(stenc_field_upload(f), STENC_OK);
}

/* `got` is STENC_ERR_SINGULAR naming `where`, and v's halo is still before's (a host copy of
 * v from before the launch, freed here). */
static void expect_singular(stenc_status got, const char *where, stenc_field *v,
                            stenc_field *before) {
    assert_int_equal(got, STENC_ERR_SINGULAR);
    if (!strstr(stenc_last_error(), where))
        fail_msg("expected \"%s\" in: %s", where, stenc_last_error());
    stenc_field *after = point_host_copy(host_ctx, v);
    assert_true(halo_same(after, before, where));
    stenc_field_free(after), stenc_field_free(before);
}

/* One bad line among many, in each direction, is the line the message names: a zero pivot
 * (diag 0 at one point, along k), a NaN rhs (along j, float, and along i) and a NaN boundary
 * value in v's halo (along k); v's halo stays unchanged; the next launch is fine. */
static void test_singular_lines(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device_kind), STENC_OK);
    /* along k: diag = 1 + a*s + b is 0 where s = -1 (a = 1.5, b = 0.5) */
    stenc_field *u = point_make(ctx, STENC_F64, 3, 7, 6, 5, 0, -1, 1, 200);
    stenc_field *sf = point_make(ctx, STENC_F64, 3, 7, 6, 5, 0, 0, 1, 201);
    stenc_field *v = point_make(ctx, STENC_F64, 3, 7, 6, 5, 1, -1, 1, 202);
    set_point(sf, 5, 3, 0, -1.0);
    expect_singular(implicit_k3d(ctx, 1.5, 0.5, u, sf, v), "the line of 'v' along k at i=5, j=3 is",
                    v, point_host_copy(host_ctx, v));
    set_point(sf, 5, 3, 0, 0.5);
    /* a NaN boundary value below line (2, 4) */
    set_point(v, 2, 4, -1, NAN);
    expect_singular(implicit_k3d(ctx, 1.5, 0.5, u, sf, v), "along k at i=2, j=4 is singular", v,
                    point_host_copy(host_ctx, v));
    set_point(v, 2, 4, -1, 0.25);
    assert_int_equal(implicit_k3d(ctx, 1.5, 0.5, u, sf, v), STENC_OK);
    stenc_field_free(u), stenc_field_free(sf), stenc_field_free(v);
    /* along j of a 3-D float field: a NaN rhs (u) at one point */
    u = point_make(ctx, STENC_F32, 3, 5, 9, 4, 1, -1, 1, 210);
    stenc_field *kappa = point_make(ctx, STENC_F32, 3, 5, 9, 4, 1, 0.1, 2, 211);
    v = point_make(ctx, STENC_F32, 3, 5, 9, 4, 1, -1, 1, 212);
    set_point(u, 3, 6, 2, NAN);
    expect_singular(diffuse_j3d(ctx, 0.7, u, kappa, v), "along j at i=3, k=2 is singular", v,
                    point_host_copy(host_ctx, v));
    set_point(u, 3, 6, 2, 0.5);
    assert_int_equal(diffuse_j3d(ctx, 0.7, u, kappa, v), STENC_OK);
    stenc_field_free(u), stenc_field_free(kappa), stenc_field_free(v);
    /* along i: u at (4, 3) is in the rhs of rows j = 2, 3, 4; the first, 2, is named */
    u = point_make(ctx, STENC_F64, 2, 11, 7, 1, 1, -1, 1, 220);
    v = point_make(ctx, STENC_F64, 2, 11, 7, 1, 1, -1, 1, 221);
    set_point(u, 4, 3, 0, NAN);
    expect_singular(adi_x(ctx, 0.3, u, v), "the line of 'v' along i at j=2 is singular", v,
                    point_host_copy(host_ctx, v));
    stenc_field_free(u), stenc_field_free(v);
    stenc_ctx_destroy(ctx);
}

/* stenc_tridiag_defer_lines: on CUDA a singular line goes into the report and the launch
 * returns at once; on the host and on OpenCL the launch still waits. A report of another context is
 * refused, and one destroyed while set makes the next launch fail. */
static void test_deferred(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL, *other = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device_kind), STENC_OK);
    assert_int_equal(stenc_ctx_create(&other, STENC_DEVICE_CPU), STENC_OK);
    const size_t n[3] = {9, 5, 1};
    stenc_field *u = point_make(ctx, STENC_F64, 2, n[0], n[1], n[2], 1, -1, 1, 3);
    stenc_field *v = point_make(ctx, STENC_F64, 2, n[0], n[1], n[2], 1, -1, 1, 4);
    stenc_tridiag_report *report = NULL, *foreign = NULL;
    assert_int_equal(stenc_tridiag_report_create(ctx, &report), STENC_OK);
    assert_int_equal(stenc_tridiag_report_create(other, &foreign), STENC_OK);
    assert_int_equal(stenc_tridiag_defer_lines(ctx, foreign), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_tridiag_defer_lines(ctx, report), STENC_OK);
    const int device = device_kind == STENC_DEVICE_CUDA; /* the one that defers */
    assert_int_equal(adi_y(ctx, -0.5, u, v), device ? STENC_OK : STENC_ERR_SINGULAR);
    size_t first = 0;
    assert_int_equal(stenc_tridiag_report_check(report, &first),
                     device ? STENC_ERR_SINGULAR : STENC_OK);
    if (!device) assert_true(first == SIZE_MAX);
    assert_int_equal(adi_y(ctx, 0.5, u, v), STENC_OK);
    assert_int_equal(stenc_tridiag_report_check(report, &first), STENC_OK);
    assert_true(first == SIZE_MAX);
    assert_int_equal(stenc_tridiag_report_destroy(report), STENC_OK);
    if (device) assert_int_equal(adi_y(ctx, 0.5, u, v), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_tridiag_defer_lines(ctx, NULL), STENC_OK);
    assert_int_equal(adi_y(ctx, -0.5, u, v), STENC_ERR_SINGULAR);
    assert_non_null(strstr(stenc_last_error(), "along j"));
    stenc_tridiag_report_destroy(foreign);
    stenc_field_free(u), stenc_field_free(v);
    stenc_ctx_destroy(other);
    stenc_ctx_destroy(ctx);
}

static int run(int argc, char **argv) {
    const int on_device = point_device_arg(argc, argv, &device_kind);
    if (on_device == STENC_TEST_SKIP) return STENC_TEST_SKIP;
    if (on_device) {
        const struct CMUnitTest device[] = {
            cmocka_unit_test(test_adi), cmocka_unit_test(test_varying),
            cmocka_unit_test(test_errors), cmocka_unit_test(test_singular_lines),
            cmocka_unit_test(test_deferred)};
        return cmocka_run_group_tests(device, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adi), cmocka_unit_test(test_varying), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_singular_lines), cmocka_unit_test(test_deferred)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

int main(int argc, char **argv) {
    if (stenc_ctx_create(&host_ctx, STENC_DEVICE_CPU) != STENC_OK) return 1;
    const int status = run(argc, argv);
    stenc_ctx_destroy(host_ctx);
    return status;
}
