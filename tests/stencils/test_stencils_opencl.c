/* Generated OpenCL kernels (every variant of the plain stencils in stencils/, and a colour
 * sweep) against the generated C kernels and the hand-written references, on fields on an
 * OpenCL device; reductions; the tuner on OpenCL. Ordered sweeps: test_ordered opencl. Skipped
 * without an OpenCL device (CI runs it on PoCL, the CPU's OpenCL).
 *
 * Equality: bit for bit. The kernel source turns contraction off (FP_CONTRACT OFF) and the
 * runtime builds it with correctly rounded single-precision division and square root, so the
 * device rounds every + - * / sqrt like the C kernel, which is built without contraction
 * (docs/templates.md, "The opencl target"). Outputs are poisoned with NaN before every run:
 * a point left unwritten fails, and so does a written halo point. */
#include <unistd.h>

#include "test_util.h"

#include "stencil_cases.h"
#include "variant_compare.h"

#include "dot3d.h"
#include "gs1d_r2.h"
#include "gs_redblack.h"
#include "residual_norm.h"

/* Defined by the generated OpenCL files: the variants of the target (the launchers'
 * NAME_variant_name lists the first device target's, cuda's when that is built too). */
extern const stenc_launch_variants heat3d_opencl_variants, jacobi2d_opencl_variants,
    residual2d_opencl_variants, varcoef27_opencl_variants, life_opencl_variants,
    euler_flux_opencl_variants, wave_r2_opencl_variants, gs_redblack_opencl_variants;

static const stenc_launch_variants *opencl_variants(const char *name) {
    const stenc_launch_variants *all[] = {&heat3d_opencl_variants,     &jacobi2d_opencl_variants,
                                          &residual2d_opencl_variants, &varcoef27_opencl_variants,
                                          &life_opencl_variants,       &euler_flux_opencl_variants,
                                          &wave_r2_opencl_variants};
    for (size_t v = 0; v < sizeof all / sizeof *all; v++)
        if (strcmp(all[v]->stencil, name) == 0) return all[v];
    return NULL;
}

static stenc_ctx *ctx;

static int setup(void **state) {
    (void)state;
    return stenc_ctx_create(&ctx, STENC_DEVICE_OPENCL) == STENC_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    stenc_ctx_destroy(ctx);
    return 0;
}

/* The names of the OpenCL variants of the stencil (arg: its stenc_launch_variants). */
static const char *opencl_variant_name(int index, const void *arg) {
    const stenc_launch_variants *vs = arg;
    return index < vs->count ? vs->list[index].name : NULL;
}

static void expect_equal(const char *stencil, const char *what, const size_t n[3], stenc_field *got,
                         stenc_field *want, const char *output) {
    variant_expect_equal(stencil, what, n, got, want, output);
}

static void compare_shape(const stencil_case *c, int t, const size_t n[3], int halo,
                          uint64_t seed) {
    const stenc_launch_variants *vs = opencl_variants(c->name);
    assert_non_null(vs);
    variant_compare_shape(ctx, c, t, n, halo, seed, opencl_variant_name, vs);
}

/* Odd sizes: 1, 2, primes, not multiples of a work group's sides, more than one group. */
static const size_t shapes[][3] = {{1, 1, 1},  {2, 2, 2},  {17, 1, 3},
                                   {33, 7, 5}, {5, 3, 19}, {131, 70, 3}};

static void run_case(const char *name) {
    variant_run_case(name, shapes, sizeof shapes / sizeof *shapes, 21, compare_shape);
}

VARIANT_CASE_TESTS(run_case)

/* The whole allocations (interior, halo, padding) of two host fields of one layout. */
static int same_box(const stenc_field *a, const stenc_field *b) {
    stenc_field_layout la, lb;
    assert_stenc_ok(stenc_field_get_layout(a, &la));
    assert_stenc_ok(stenc_field_get_layout(b, &lb));
    assert_int_equal(la.alloc_elems, lb.alloc_elems);
    const size_t size = stenc_type_size(la.type);
    const char *pa = (const char *)stenc_field_host_origin(a) - la.origin_elems * size;
    const char *pb = (const char *)stenc_field_host_origin(b) - lb.origin_elems * size;
    return memcmp(pa, pb, la.alloc_elems * size) == 0;
}

/* Red-black SOR, colour after colour, on the device and in the C kernel from the same data:
 * the whole box (halo and the other colour's points too) bit for bit after every launch. */
static void test_gs_redblack_colours(void **state) {
    (void)state;
    static const size_t sizes[][2] = {{1, 1}, {2, 3}, {17, 9}, {64, 33}, {131, 70}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t ni = sizes[s][0], nj = sizes[s][1];
        stenc_field *u_dev, *u_host, *f_dev, *f_host;
        assert_stenc_ok(stenc_field_create(ctx, &u_dev, STENC_F64, 2, ni, nj, 1, 1));
        assert_stenc_ok(stenc_field_create(ctx, &u_host, STENC_F64, 2, ni, nj, 1, 1));
        assert_stenc_ok(stenc_field_create(ctx, &f_dev, STENC_F64, 2, ni, nj, 1, 0));
        assert_stenc_ok(stenc_field_create(ctx, &f_host, STENC_F64, 2, ni, nj, 1, 0));
        stencil_fill_uniform(u_dev, 3 + s, -1, 1);
        stencil_fill_uniform(u_host, 3 + s, -1, 1);
        stencil_fill_uniform(f_dev, 7 + s, -2, 2);
        stencil_fill_uniform(f_host, 7 + s, -2, 2);
        assert_stenc_ok(stenc_field_upload(u_dev));
        assert_stenc_ok(stenc_field_upload(f_dev));
        const double h2 = 1.0 / ((double)(ni + 1) * (double)(ni + 1)), omega = 1.7;
        for (int sweep = 0; sweep < 2; sweep++)
            for (int color = 0; color < 2; color++) {
                assert_stenc_ok(gs_redblack(ctx, color, h2, omega, u_dev, f_dev));
                assert_stenc_ok(gs_redblack(ctx, color, h2, omega, u_host, f_host));
                assert_stenc_ok(stenc_field_download(u_dev));
                if (!same_box(u_dev, u_host))
                    fail_msg("gs_redblack %zux%zu, sweep %d colour %d: the boxes differ", ni, nj,
                             sweep, color);
                assert_stenc_ok(stenc_field_upload(u_dev));
            }
        stenc_field_free(u_dev), stenc_field_free(u_host);
        stenc_field_free(f_dev), stenc_field_free(f_host);
    }
}

/* A field on the context made from the same values as a host field (halo included). */
static stenc_field *device_copy(const stenc_field *host) {
    stenc_field_layout l;
    assert_stenc_ok(stenc_field_get_layout(host, &l));
    stenc_field *dev;
    assert_stenc_ok(stenc_field_create(ctx, &dev, l.type, l.dims, l.n[0], l.n[1], l.n[2], l.halo));
    const size_t size = stenc_type_size(l.type);
    memcpy((char *)stenc_field_host_origin(dev) - l.origin_elems * size,
           (const char *)stenc_field_host_origin(host) - l.origin_elems * size,
           l.alloc_elems * size);
    assert_stenc_ok(stenc_field_upload(dev));
    return dev;
}

/* The host copy's value at (i, j, k). */
static double at(const stenc_field *f, size_t i, size_t j, size_t k) {
    double v = 0;
    assert_stenc_ok(stenc_field_get(f, (long)i, (long)j, (long)k, &v));
    return v;
}

/* A sum from the device against the exact-ish sum of its terms (long double, another order):
 * within 4 roundings of the sum of the terms' magnitudes. */
static void expect_sum(const char *what, double got, long double want, long double magnitude) {
    const long double tol = 4 * 0x1p-53L * magnitude + 0x1p-1074L;
    if (fabsl((long double)got - want) > tol)
        fail_msg("%s: sum %.17g, the terms add up to %.17Lg (tolerance %.3Lg)", what, got, want,
                 tol);
}

/* The reducing variants: the default, a work item per row, work groups merged in a tree. */
static const char *const reduce_variants[] = {NULL, "rows", "groups"};
enum { REDUCE_VARIANTS = 3 };

/* Reductions on the device, every variant: the fields bit for bit as the C kernel writes them, max
 * and min exactly the C kernel's, sums within 4 roundings of their terms added in long double (the
 * device adds rows in another order than the C kernel's tiles), and the same bits on a second
 * run. residual_norm (2-D, sum and max), dot3d (3-D float, sum, min, max), gs1d_r2 (1-D, a
 * colour sweep in place with max and sum: rows of 4096 points, so several work items). */
static void test_reductions(void **state) {
    (void)state;
    static const size_t sizes2[][2] = {{1, 1}, {2, 3}, {17, 9}, {131, 70}, {1000, 3}, {300, 37}};
    for (size_t s = 0; s < sizeof sizes2 / sizeof *sizes2 * REDUCE_VARIANTS; s++) {
        const char *variant = reduce_variants[s % REDUCE_VARIANTS];
        const size_t ni = sizes2[s / REDUCE_VARIANTS][0], nj = sizes2[s / REDUCE_VARIANTS][1];
        stenc_field *u, *f, *r, *r_host;
        assert_stenc_ok(stenc_field_create(ctx, &u, STENC_F64, 2, ni, nj, 1, 1));
        assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F64, 2, ni, nj, 1, 0));
        assert_stenc_ok(stenc_field_create(ctx, &r, STENC_F64, 2, ni, nj, 1, 0));
        assert_stenc_ok(stenc_field_create(ctx, &r_host, STENC_F64, 2, ni, nj, 1, 0));
        stencil_fill_uniform(u, 11 + s, -1, 1);
        stencil_fill_uniform(f, 13 + s, -2, 2);
        const double inv_h2 = 3.25;
        double r2_host, rmax_host, r2, rmax, r2_again, rmax_again;
        assert_stenc_ok(residual_norm(ctx, inv_h2, u, f, r_host, &r2_host, &rmax_host));
        stenc_field *ud = device_copy(u), *fd = device_copy(f);
        assert_stenc_ok(stenc_field_upload(r));
        assert_stenc_ok(residual_norm_variant(ctx, variant, inv_h2, ud, fd, r, &r2, &rmax));
        assert_stenc_ok(
            residual_norm_variant(ctx, variant, inv_h2, ud, fd, r, &r2_again, &rmax_again));
        assert_stenc_ok(stenc_field_download(r));
        char what[96];
        snprintf(what, sizeof what, "residual_norm %zux%zu, %s", ni, nj,
                 variant ? variant : "default");
        if (!same_box(r, r_host)) fail_msg("%s: the residuals differ", what);
        long double sum = 0; /* of r_host's squares: r is the same, bits and all */
        for (size_t j = 0; j < nj; j++)
            for (size_t i = 0; i < ni; i++) {
                const double v = at(r_host, i, j, 0);
                sum += (long double)(v * v);
            }
        expect_sum(what, r2, sum, sum);
        assert_true(rmax == rmax_host);
        assert_memory_equal(&r2, &r2_again, sizeof r2);
        assert_memory_equal(&rmax, &rmax_again, sizeof rmax);
        stenc_field_free(u), stenc_field_free(f), stenc_field_free(r), stenc_field_free(r_host);
        stenc_field_free(ud), stenc_field_free(fd);
    }

    static const size_t sizes3[][3] = {{1, 1, 1}, {5, 3, 19}, {33, 7, 5}, {300, 17, 40}};
    for (size_t s = 0; s < sizeof sizes3 / sizeof *sizes3 * REDUCE_VARIANTS; s++) {
        const char *variant = reduce_variants[s % REDUCE_VARIANTS];
        const size_t *n = sizes3[s / REDUCE_VARIANTS];
        stenc_field *x, *y;
        assert_stenc_ok(stenc_field_create(ctx, &x, STENC_F32, 3, n[0], n[1], n[2], 0));
        assert_stenc_ok(stenc_field_create(ctx, &y, STENC_F32, 3, n[0], n[1], n[2], 0));
        stencil_fill_uniform(x, 17 + s, -3, 3);
        stencil_fill_uniform(y, 19 + s, -1, 1);
        double dot_host, min_host, max_host, dot, xmin, xmax;
        assert_stenc_ok(dot3d(ctx, x, y, &dot_host, &min_host, &max_host));
        stenc_field *xd = device_copy(x), *yd = device_copy(y);
        assert_stenc_ok(dot3d_variant(ctx, variant, xd, yd, &dot, &xmin, &xmax));
        long double sum = 0, magnitude = 0;
        for (size_t k = 0; k < n[2]; k++)
            for (size_t j = 0; j < n[1]; j++)
                for (size_t i = 0; i < n[0]; i++) {
                    const float t = (float)at(x, i, j, k) * (float)at(y, i, j, k);
                    sum += t;
                    magnitude += fabsl((long double)t);
                }
        char what[96];
        snprintf(what, sizeof what, "dot3d %zux%zux%zu, %s", n[0], n[1], n[2],
                 variant ? variant : "default");
        expect_sum(what, dot, sum, magnitude);
        assert_true(xmin == min_host);
        assert_true(xmax == max_host);
        stenc_field_free(x), stenc_field_free(y), stenc_field_free(xd), stenc_field_free(yd);
    }

    static const size_t sizes1[] = {1, 5, 4096, 4099, 10007};
    for (size_t s = 0; s < sizeof sizes1 / sizeof *sizes1 * REDUCE_VARIANTS; s++) {
        const char *variant = reduce_variants[s % REDUCE_VARIANTS];
        const size_t ni = sizes1[s / REDUCE_VARIANTS];
        stenc_field *u, *f;
        assert_stenc_ok(stenc_field_create(ctx, &u, STENC_F64, 1, ni, 1, 1, 2));
        assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F64, 1, ni, 1, 1, 0));
        stencil_fill_uniform(u, 23 + s, -1, 1);
        stencil_fill_uniform(f, 29 + s, -1, 1);
        stenc_field *ud = device_copy(u), *fd = device_copy(f);
        stenc_field *before = device_copy(u); /* its host copy: the values before a sweep */
        for (int color = 0; color < 3; color++) {
            double change_host, change2_host, change, change2;
            assert_stenc_ok(gs1d_r2(ctx, color, 0.5, u, f, &change_host, &change2_host));
            assert_stenc_ok(gs1d_r2_variant(ctx, variant, color, 0.5, ud, fd, &change, &change2));
            assert_stenc_ok(stenc_field_download(ud));
            char what[96];
            snprintf(what, sizeof what, "gs1d_r2 %zu, colour %d, %s", ni, color,
                     variant ? variant : "default");
            if (!same_box(ud, u)) fail_msg("%s: the fields differ", what);
            long double sum = 0;
            for (size_t i = 0; i < ni; i++) {
                const double d =
                    at(u, i, 0, 0) - ((const double *)stenc_field_host_origin(before))[i];
                sum += (long double)(d * d);
            }
            expect_sum(what, change2, sum, sum);
            assert_true(change == change_host);
            memcpy(stenc_field_host_origin(before), stenc_field_host_origin(u),
                   ni * sizeof(double));
            assert_stenc_ok(stenc_field_upload(ud));
        }
        stenc_field_free(u), stenc_field_free(f), stenc_field_free(ud), stenc_field_free(fd);
        stenc_field_free(before);
    }
}

/* With tuning on, heat3d times its OpenCL variants, stores one in the cache and gives the
 * right result. */
static void test_tuner(void **state) {
    (void)state;
    char path[] = "/tmp/stenc_tune_ocl_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    remove(path);
    assert_int_equal(setenv("STENC_TUNE_CACHE", path, 1), 0);
    const stencil_case *c = stencil_case_find("heat3d");
    const int t = find_table("heat3d");
    const size_t n[3] = {67, 33, 19};
    stenc_ctx *tctx;
    assert_stenc_ok(stenc_ctx_create(&tctx, STENC_DEVICE_OPENCL));
    assert_stenc_ok(stenc_tune(tctx, STENC_TUNE_ON));
    stenc_field *dev[2], *ref[2];
    assert_stenc_ok(stencil_case_create(tctx, c, n, 1, dev));
    assert_stenc_ok(stencil_case_create(tctx, c, n, 1, ref));
    c->randomize(dev, 1, 5);
    c->randomize(ref, 1, 5);
    assert_stenc_ok(stenc_field_fill(ref[1], NAN));
    assert_stenc_ok(c->reference(tctx, c->scalars, ref));
    assert_stenc_ok(stenc_field_upload(dev[0]));
    variant_poison_on_device(dev[1]);
    assert_stenc_ok(variant_table[t].run(tctx, NULL, c->scalars, dev));
    assert_stenc_ok(stenc_field_download(dev[1]));
    expect_equal("heat3d", "tuned", n, dev[1], ref[1], "y");
    char key[512], chosen[128];
    int found = 0;
    assert_stenc_ok(stenc_tune_key(tctx, "heat3d", heat3d_opencl_variants.digest, n, STENC_F32, key,
                                   sizeof key));
    assert_stenc_ok(stenc_tune_lookup(tctx, key, chosen, sizeof chosen, &found));
    assert_int_equal(found, 1);
    int known = 0;
    for (int v = 0; v < heat3d_opencl_variants.count; v++)
        known |= strcmp(heat3d_opencl_variants.list[v].name, chosen) == 0;
    if (!known) fail_msg("the tuner stored '%s', which is not an OpenCL heat3d variant", chosen);
    stencil_case_free(c, dev);
    stencil_case_free(c, ref);
    stenc_ctx_destroy(tctx);
    remove(path);
    unsetenv("STENC_TUNE_CACHE");
}

int main(int argc, char **argv) {
    if (stenc_opencl_device_count() == 0) {
        printf("SKIPPED: no OpenCL device (built with OpenCL: %s)\n",
               stenc_built_with_opencl() ? "yes" : "no");
        return STENC_TEST_SKIP;
    }
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heat3d),     cmocka_unit_test(test_jacobi2d),
        cmocka_unit_test(test_residual2d), cmocka_unit_test(test_varcoef27),
        cmocka_unit_test(test_life),       cmocka_unit_test(test_euler_flux),
        cmocka_unit_test(test_wave_r2),    cmocka_unit_test(test_gs_redblack_colours),
        cmocka_unit_test(test_reductions), cmocka_unit_test(test_tuner),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
