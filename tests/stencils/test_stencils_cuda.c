/* Generated CUDA kernels (every variant of every stencil in stencils/) against the hand-written
 * references and the generated C kernels, on device-resident fields; the tuner; the CUDA
 * launch errors. GPU test: skipped without a device.
 *
 * Equality: bit for bit (max_ulps = 0). The generated .cu files are compiled with
 * -fmad=false (stenc_add_stencils, docs/cuda.md), so the GPU evaluates every expression in
 * the .stencil's order with IEEE-rounded + - * / sqrt, exactly like the C sides. With FMA
 * contraction allowed the bound would not be small in ulps where terms cancel, so the test
 * does not allow it. Outputs are poisoned with NaN (interior and halo) before every run: a
 * point left unwritten fails, and so does a written halo point.
 *
 * The solver stencils (colours, inouts, reductions: gs_redblack, gs27_8color, gs1d_r2,
 * residual_norm, dot3d; and wjacobi2d) run colour after colour on the device, on the host
 * (generated C kernel) and in the reference, from the same data: fields bit for bit after
 * every launch (whole box: halos and the points of other colours must not move), reductions
 * within SUM_REL_BOUND of the long double reference (max / min exactly) and bitwise the same
 * on a repeated run of the whole sequence. */
#include <ctype.h>
#include <unistd.h>

#include "test_util.h"

#include "stencil_cases.h"
#include "variant_compare.h"

#include "dot3d.h"
#include "euler_flux.h"
#include "gs1d_r2.h"
#include "gs27_8color.h"
#include "gs_redblack.h"
#include "heat3d.h"
#include "jacobi2d.h"
#include "life.h"
#include "ref_solvers.h"
#include "residual2d.h"
#include "residual_norm.h"
#include "varcoef27.h"
#include "wave_r2.h"
#include "wjacobi2d.h"

/* Defined by the generated CUDA code; its digest is part of the tuning key. */
extern const stenc_launch_variants heat3d_cuda_variants, gs_redblack_cuda_variants;

enum { CUDA_MAX_ULPS = 0 };

static stenc_ctx *ctx;

static int setup(void **state) {
    (void)state;
    return stenc_ctx_create(&ctx, STENC_DEVICE_CUDA) == STENC_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    stenc_ctx_destroy(ctx);
    return 0;
}

/* The names of the variants of stencil table entry t (its launcher's list: CUDA's). */
static const char *cuda_variant_name(int index, const void *arg) {
    return variant_table[*(const int *)arg].variant_name(index);
}

static void expect_equal(const stencil_case *c, const char *what, const size_t n[3],
                         stenc_field *got, stenc_field *want, const char *output) {
    variant_expect_equal(c->name, what, n, got, want, output);
}

static void compare_shape(const stencil_case *c, int t, const size_t n[3], int halo,
                          uint64_t seed) {
    variant_compare_shape(ctx, c, t, n, halo, seed, cuda_variant_name, &t);
}

/* Odd sizes: 1, 2, primes, smaller than a tile, not multiples of V or K, more planes than a
 * streaming chunk (64), more columns than a block, last blocks along i nearly empty (259: 3 columns
 * past 256) and partly full (300: 44). */
static const size_t shapes[][3] = {{1, 1, 1},    {2, 2, 2},    {17, 1, 3},  {1, 17, 2},
                                   {33, 7, 5},   {5, 3, 19},   {31, 9, 1},  {65, 2, 4},
                                   {37, 11, 67}, {131, 70, 3}, {259, 2, 5}, {300, 5, 3}};

static void run_case(const char *name) {
    variant_run_case(name, shapes, sizeof shapes / sizeof *shapes, 11, compare_shape);
}

VARIANT_CASE_TESTS(run_case)

/* Every stencil lists at least one direct and one streaming variant, names unique. */
static void test_variant_names(void **state) {
    (void)state;
    for (size_t t = 0; t < sizeof variant_table / sizeof *variant_table; t++) {
        int direct = 0, stream = 0, count = 0;
        const char *name;
        for (int v = 0; (name = variant_table[t].variant_name(v)) != NULL; v++, count++) {
            direct += strncmp(name, "direct_", 7) == 0;
            stream += strncmp(name, "stream_", 7) == 0;
            for (int w = 0; w < v; w++)
                if (strcmp(variant_table[t].variant_name(w), name) == 0)
                    fail_msg("%s: variant %s listed twice", variant_table[t].name, name);
        }
        if (!direct || !stream)
            fail_msg("%s: %d variants, %d direct, %d streaming", variant_table[t].name, count,
                     direct, stream);
    }
}

/* ---- the tuner ---------------------------------------------------------------------------- */

static int file_contains(const char *path, const char *text) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

/* heat3d with tuning on: the cache file gets the key and one of heat3d's variants, and the
 * result is right; a new context with tuning off then finds the entry. A stale entry (a name
 * that is no variant) falls back to the default, still right. */
static void test_tuner(void **state) {
    (void)state;
    char path[] = "/tmp/stenc_tune_test_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    remove(path);
    assert_int_equal(setenv("STENC_TUNE_CACHE", path, 1), 0);

    const stencil_case *c = stencil_case_find("heat3d");
    int t = find_table("heat3d");
    size_t n[3] = {67, 33, 19};
    stenc_ctx *tctx;
    assert_stenc_ok(stenc_ctx_create(&tctx, STENC_DEVICE_CUDA));
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
    expect_equal(c, "tuned", n, dev[1], ref[1], "y");

    char key[512], chosen[128];
    int found = 0;
    assert_stenc_ok(
        stenc_tune_key(tctx, "heat3d", heat3d_cuda_variants.digest, n, STENC_F32, key, sizeof key));
    assert_true(file_contains(path, key));
    stenc_ctx *fresh;
    assert_stenc_ok(stenc_ctx_create(&fresh, STENC_DEVICE_CUDA));
    assert_stenc_ok(stenc_tune(fresh, STENC_TUNE_OFF));
    assert_stenc_ok(stenc_tune_lookup(fresh, key, chosen, sizeof chosen, &found));
    assert_int_equal(found, 1);
    int known = 0;
    const char *name;
    for (int v = 0; (name = heat3d_variant_name(v)) != NULL; v++)
        known |= strcmp(name, chosen) == 0;
    if (!known) fail_msg("the tuner stored '%s', which is not a heat3d variant", chosen);
    stenc_ctx_destroy(fresh);

    /* a stale entry: still a correct result */
    assert_stenc_ok(stenc_tune(tctx, STENC_TUNE_OFF));
    assert_stenc_ok(stenc_tune_store(tctx, key, "direct_v9_k9_1x1", 1.0));
    variant_poison_on_device(dev[1]);
    assert_stenc_ok(variant_table[t].run(tctx, NULL, c->scalars, dev));
    assert_stenc_ok(stenc_field_download(dev[1]));
    expect_equal(c, "stale cache entry", n, dev[1], ref[1], "y");

    stencil_case_free(c, dev);
    stencil_case_free(c, ref);
    stenc_ctx_destroy(tctx);
    remove(path);
    unsetenv("STENC_TUNE_CACHE");
}

/* ---- solver stencils: colours, inouts, reductions ---------------------------------------- */

/* Sums: each value is rounded once (to double, or to float by the body in dot3d, on both
 * sides), the compensated sums add about one rounding of the result; 4 * 2^-53 leaves room.
 * The GPU and C results are each within it of the long double reference. */
#define SUM_REL_BOUND (4.0 * 0x1.0p-53)

enum { SOLVER_MAX_FIELDS = 29, SOLVER_MAX_REDUCES = 3 };

typedef struct solver_case {
    const char *name;
    int dims, ncolors, nfields, nreduces;
    int inout;  /* field updated in place, -1: none */
    int output; /* field written, -1: none */
    stenc_type type;
    int halo[SOLVER_MAX_FIELDS];        /* per field, before the extra layer of the test */
    char reduce_op[SOLVER_MAX_REDUCES]; /* 's'um, 'M'ax, 'm'in */
    int (*colour_of)(long i, long j, long k);
    /* fill field a (host) with seed */
    void (*fill)(stenc_field *f, int a, uint64_t seed);
    stenc_status (*run)(stenc_ctx *ctx, const char *variant, int color, stenc_field **f,
                        double *res);
    stenc_status (*ref)(int color, stenc_field **f, long double *res);
    const char *(*variant_name)(int index);
} solver_case;

static int colour_redblack(long i, long j, long k) {
    return (void)k, (int)((i + j) % 2);
}
static int colour_eight(long i, long j, long k) {
    return (int)(i % 2 + 2 * (j % 2) + 4 * (k % 2));
}
static int colour_three(long i, long j, long k) {
    return (void)j, (void)k, (int)(i % 3);
}

static void fill_pm1(stenc_field *f, int a, uint64_t seed) {
    (void)a;
    stencil_fill_uniform(f, seed, -1, 1);
}
/* gs27: u, 27 coefficients (c000 = field 14 dominant), f */
static void fill_gs27(stenc_field *f, int a, uint64_t seed) {
    if (a == 14)
        stencil_fill_uniform(f, seed, 4, 6);
    else if (a >= 1 && a <= 27)
        stencil_fill_uniform(f, seed, -0.2, 0.2);
    else
        stencil_fill_uniform(f, seed, -1, 1);
}

static const double GS_H2 = 1.0 / 289, GS_OMEGA = 1.3, GS1D_H2 = 1e-3, RN_INV_H2 = 289.0;

static stenc_status s_gs_redblack(stenc_ctx *c, const char *v, int color, stenc_field **f,
                                  double *res) {
    (void)res;
    return gs_redblack_variant(c, v, color, GS_H2, GS_OMEGA, f[0], f[1]);
}
static stenc_status r_gs_redblack(int color, stenc_field **f, long double *res) {
    (void)res;
    return ref_gs_redblack(color, GS_H2, GS_OMEGA, f[0], f[1]);
}
static stenc_status s_gs27(stenc_ctx *c, const char *v, int color, stenc_field **f, double *res) {
    (void)res;
    return gs27_8color_variant(c, v, color, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8],
                               f[9], f[10], f[11], f[12], f[13], f[14], f[15], f[16], f[17], f[18],
                               f[19], f[20], f[21], f[22], f[23], f[24], f[25], f[26], f[27],
                               f[28]);
}
static stenc_status r_gs27(int color, stenc_field **f, long double *res) {
    (void)res;
    return ref_gs27_8color(color, f[0], (const stenc_field *const *)&f[1], f[28]);
}
static stenc_status s_gs1d(stenc_ctx *c, const char *v, int color, stenc_field **f, double *res) {
    return gs1d_r2_variant(c, v, color, GS1D_H2, f[0], f[1], &res[0], &res[1]);
}
static stenc_status r_gs1d(int color, stenc_field **f, long double *res) {
    return ref_gs1d_r2(color, GS1D_H2, f[0], f[1], &res[0], &res[1]);
}
static stenc_status s_residual_norm(stenc_ctx *c, const char *v, int color, stenc_field **f,
                                    double *res) {
    (void)color;
    return residual_norm_variant(c, v, RN_INV_H2, f[0], f[1], f[2], &res[0], &res[1]);
}
static stenc_status r_residual_norm(int color, stenc_field **f, long double *res) {
    (void)color;
    return ref_residual_norm(RN_INV_H2, f[0], f[1], f[2], &res[0], &res[1]);
}
static stenc_status s_dot3d(stenc_ctx *c, const char *v, int color, stenc_field **f, double *res) {
    (void)color;
    return dot3d_variant(c, v, f[0], f[1], &res[0], &res[1], &res[2]);
}
static stenc_status r_dot3d(int color, stenc_field **f, long double *res) {
    (void)color;
    return ref_dot3d(f[0], f[1], &res[0], &res[1], &res[2]);
}
static stenc_status s_wjacobi2d(stenc_ctx *c, const char *v, int color, stenc_field **f,
                                double *res) {
    (void)color, (void)res;
    return wjacobi2d_variant(c, v, GS_H2, 0.8, f[0], f[1], f[2]);
}
static stenc_status r_wjacobi2d(int color, stenc_field **f, long double *res) {
    (void)color, (void)res;
    return ref_wjacobi2d(GS_H2, 0.8, f[0], f[1], f[2]);
}

#define HALO29_1                                                                                   \
    { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }

static const solver_case solver_cases[] = {
    {"gs_redblack",
     2,
     2,
     2,
     0,
     0,
     -1,
     STENC_F64,
     {1, 1},
     {0},
     colour_redblack,
     fill_pm1,
     s_gs_redblack,
     r_gs_redblack,
     gs_redblack_variant_name},
    {"gs27_8color",
     3,
     8,
     29,
     0,
     0,
     -1,
     STENC_F64,
     HALO29_1,
     {0},
     colour_eight,
     fill_gs27,
     s_gs27,
     r_gs27,
     gs27_8color_variant_name},
    {"gs1d_r2",
     1,
     3,
     2,
     2,
     0,
     -1,
     STENC_F64,
     {2, 2},
     {'M', 's'},
     colour_three,
     fill_pm1,
     s_gs1d,
     r_gs1d,
     gs1d_r2_variant_name},
    {"residual_norm",
     2,
     0,
     3,
     2,
     -1,
     2,
     STENC_F64,
     {1, 1, 0},
     {'s', 'M'},
     NULL,
     fill_pm1,
     s_residual_norm,
     r_residual_norm,
     residual_norm_variant_name},
    {"dot3d",
     3,
     0,
     2,
     3,
     -1,
     -1,
     STENC_F32,
     {0, 1},
     {'s', 'm', 'M'},
     NULL,
     fill_pm1,
     s_dot3d,
     r_dot3d,
     dot3d_variant_name},
    {"wjacobi2d",
     2,
     0,
     3,
     0,
     -1,
     2,
     STENC_F64,
     {1, 1, 0},
     {0},
     NULL,
     fill_pm1,
     s_wjacobi2d,
     r_wjacobi2d,
     wjacobi2d_variant_name},
};

static const solver_case *find_solver(const char *name) {
    for (size_t c = 0; c < sizeof solver_cases / sizeof *solver_cases; c++)
        if (strcmp(solver_cases[c].name, name) == 0) return &solver_cases[c];
    return NULL;
}

/* The fields of one run of a case: host fields for the C kernel, for the reference, and fields
 * moved to the device; the same data in all three. */
typedef struct solver_fields {
    stenc_field *c[SOLVER_MAX_FIELDS], *r[SOLVER_MAX_FIELDS], *d[SOLVER_MAX_FIELDS];
} solver_fields;

static void solver_create(const solver_case *sc, const size_t n[3], int extra, uint64_t seed,
                          solver_fields *F) {
    for (int a = 0; a < sc->nfields; a++) {
        stenc_field **sets[3] = {&F->c[a], &F->r[a], &F->d[a]};
        for (int s = 0; s < 3; s++) {
            assert_stenc_ok(stenc_field_create(ctx, sets[s], sc->type, sc->dims, n[0], n[1], n[2],
                                               sc->halo[a] + extra));
            if (a == sc->output)
                assert_stenc_ok(stenc_field_fill(*sets[s], NAN)); /* poisoned */
            else
                sc->fill(*sets[s], a, seed + (uint64_t)a);
        }
        assert_stenc_ok(stenc_field_upload(F->d[a]));
    }
}

static void solver_free(const solver_case *sc, solver_fields *F) {
    for (int a = 0; a < sc->nfields; a++) {
        stenc_field_free(F->c[a]);
        stenc_field_free(F->r[a]);
        stenc_field_free(F->d[a]);
    }
}

/* Two fields' whole boxes (halo included) bit for bit; the first difference in msg. */
static size_t box_differences(const stenc_field *got, const stenc_field *want, char *msg,
                              size_t size) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(got, &L));
    long h1 = L.dims >= 2 ? L.halo : 0, h2 = L.dims >= 3 ? L.halo : 0;
    size_t bad = 0;
    for (long k = -h2; k < (long)L.n[2] + h2; k++)
        for (long j = -h1; j < (long)L.n[1] + h1; j++)
            for (long i = -L.halo; i < (long)L.n[0] + L.halo; i++) {
                double g, w;
                assert_stenc_ok(stenc_field_get(got, i, j, k, &g));
                assert_stenc_ok(stenc_field_get(want, i, j, k, &w));
                if (memcmp(&g, &w, sizeof g) != 0 && !(isnan(g) && isnan(w))) {
                    if (!bad++)
                        snprintf(msg, size, "(%ld,%ld,%ld) = %.17g, want %.17g", i, j, k, g, w);
                }
            }
    return bad;
}

/* Points that differ between `after` and `before` all have colour `color`; returns how many
 * points of the colour changed, and of_colour how many there are. */
static size_t colour_changes(const solver_case *sc, const stenc_field *after,
                             const stenc_field *before, int color, size_t *of_colour,
                             const char *what) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(after, &L));
    size_t changed = 0;
    *of_colour = 0;
    for (long k = 0; k < (long)L.n[2]; k++)
        for (long j = 0; j < (long)L.n[1]; j++)
            for (long i = 0; i < (long)L.n[0]; i++) {
                double a, b;
                assert_stenc_ok(stenc_field_get(after, i, j, k, &a));
                assert_stenc_ok(stenc_field_get(before, i, j, k, &b));
                int mine = sc->colour_of(i, j, k) == color;
                *of_colour += (size_t)mine;
                if (memcmp(&a, &b, sizeof a) == 0) continue;
                if (!mine)
                    fail_msg("%s, colour %d: (%ld,%ld,%ld) of colour %d changed", what, color, i, j,
                             k, sc->colour_of(i, j, k));
                changed++;
            }
    return changed;
}

static void expect_reduction(char op, double got, double c_result, long double want,
                             const char *what) {
    if (op == 's') {
        long double err = fabsl((long double)got - want);
        if (!(err <= SUM_REL_BOUND * fabsl(want) + 0x1.0p-1074))
            fail_msg("%s: sum %.17g, want %.20Lg (C target %.17g)", what, got, want, c_result);
    } else if (memcmp(&got, &c_result, sizeof got) != 0 || got != (double)want) {
        fail_msg("%s: %s %.17g, want %.17Lg (C target %.17g)", what, op == 'M' ? "max" : "min", got,
                 want, c_result);
    }
}

/* One run of a case on one shape with one variant: `steps` launches (colours in turn), each
 * checked. The device's results of every launch go to results[step][r], its final fields stay
 * in F for the repeat check. */
static void solver_run(const solver_case *sc, const char *variant, const size_t n[3], int extra,
                       uint64_t seed, int steps, double results[][SOLVER_MAX_REDUCES],
                       solver_fields *F) {
    char what[256], msg[160];
    solver_create(sc, n, extra, seed, F);
    stenc_field *before = NULL;
    if (sc->inout >= 0)
        assert_stenc_ok(stenc_field_create(ctx, &before, sc->type, sc->dims, n[0], n[1], n[2],
                                           sc->halo[sc->inout] + extra));
    for (int step = 0; step < steps; step++) {
        int color = sc->ncolors ? step % sc->ncolors : 0;
        snprintf(what, sizeof what, "%s/%s %zux%zux%zu halo+%d step %d (colour %d)", sc->name,
                 variant ? variant : "(auto)", n[0], n[1], n[2], extra, step, color);
        if (sc->inout >= 0) {
            /* before = the host copy, which equals the device's after the previous step */
            void *buf = malloc(n[0] * n[1] * n[2] * stenc_type_size(sc->type));
            assert_non_null(buf);
            assert_stenc_ok(stenc_field_copy_to(F->c[sc->inout], buf));
            assert_stenc_ok(stenc_field_copy_from(before, buf));
            free(buf);
        }
        if (sc->output >= 0) variant_poison_on_device(F->d[sc->output]);
        double cres[SOLVER_MAX_REDUCES] = {0}, *dres = results[step];
        long double rres[SOLVER_MAX_REDUCES] = {0};
        for (int r = 0; r < SOLVER_MAX_REDUCES; r++)
            dres[r] = NAN;
        stenc_status st = sc->run(ctx, variant, color, F->d, dres);
        if (st != STENC_OK) fail_msg("%s: %s", what, stenc_last_error());
        assert_stenc_ok(sc->run(ctx, "c", color, F->c, cres));
        assert_stenc_ok(sc->ref(color, F->r, rres));
        int written[2] = {sc->inout, sc->output};
        for (int w = 0; w < 2; w++) {
            int a = written[w];
            if (a < 0) continue;
            assert_stenc_ok(stenc_field_download(F->d[a]));
            size_t bad = box_differences(F->d[a], F->c[a], msg, sizeof msg);
            if (bad)
                fail_msg("%s: %zu point(s) differ from the C target, first %s", what, bad, msg);
            bad = box_differences(F->d[a], F->r[a], msg, sizeof msg);
            if (bad)
                fail_msg("%s: %zu point(s) differ from the reference, first %s", what, bad, msg);
            if (a == sc->output) {
                size_t halo = stencil_count_written_halo(F->d[a]);
                if (halo) fail_msg("%s: %zu halo point(s) written", what, halo);
            }
            if (a == sc->inout && sc->colour_of) {
                size_t of_colour,
                    changed = colour_changes(sc, F->d[a], before, color, &of_colour, what);
                if (step < sc->ncolors && changed != of_colour)
                    fail_msg("%s: %zu of %zu points of the colour changed", what, changed,
                             of_colour);
            }
            assert_stenc_ok(stenc_field_upload(F->d[a]));
        }
        for (int r = 0; r < sc->nreduces; r++)
            expect_reduction(sc->reduce_op[r], dres[r], cres[r], rres[r], what);
    }
    if (before) stenc_field_free(before);
}

/* Every variant (and the automatic choice) on every shape, twice: the second run of the same
 * sequence must give bitwise the same fields and reductions. */
static void run_solver(const char *name, const size_t (*shapes_)[3], size_t nshapes, int steps) {
    const solver_case *sc = find_solver(name);
    assert_non_null(sc);
    uint64_t seed = 1000;
    for (size_t s = 0; s < nshapes; s++)
        for (int extra = 0; extra <= 1; extra++) {
            size_t n[3] = {shapes_[s][0], sc->dims >= 2 ? shapes_[s][1] : 1,
                           sc->dims >= 3 ? shapes_[s][2] : 1};
            seed += 100;
            const char *vname;
            for (int v = -1; v == -1 || (vname = sc->variant_name(v)) != NULL; v++) {
                const char *variant = v < 0 ? NULL : vname;
                double first[8][SOLVER_MAX_REDUCES], again[8][SOLVER_MAX_REDUCES];
                solver_fields A, B;
                solver_run(sc, variant, n, extra, seed, steps, first, &A);
                solver_run(sc, variant, n, extra, seed, steps, again, &B);
                for (int step = 0; step < steps; step++)
                    for (int r = 0; r < sc->nreduces; r++)
                        if (memcmp(&first[step][r], &again[step][r], sizeof(double)) != 0)
                            fail_msg("%s/%s %zux%zux%zu: reduction %d of step %d not "
                                     "deterministic: %.17g then %.17g",
                                     name, variant ? variant : "(auto)", n[0], n[1], n[2], r, step,
                                     first[step][r], again[step][r]);
                solver_free(sc, &A);
                solver_free(sc, &B);
            }
        }
}

/* Sizes smaller than a block, odd and even extents, primes, 2^k +- 1, more rows than a chunk. */
static const size_t solver_shapes[][3] = {{1, 1, 1},    {2, 2, 2},    {17, 1, 3},   {1, 17, 2},
                                          {33, 7, 5},   {5, 3, 19},   {31, 9, 1},   {65, 2, 4},
                                          {37, 11, 67}, {131, 70, 3}, {258, 129, 1}};

static void test_gs_redblack_cuda(void **state) {
    (void)state;
    run_solver("gs_redblack", solver_shapes, sizeof solver_shapes / sizeof *solver_shapes, 4);
}
static void test_gs27_8color_cuda(void **state) {
    (void)state;
    static const size_t shapes3[][3] = {{1, 1, 1},  {2, 2, 2},   {17, 1, 3}, {33, 7, 5},
                                        {5, 3, 19}, {37, 11, 9}, {66, 9, 6}};
    run_solver("gs27_8color", shapes3, sizeof shapes3 / sizeof *shapes3, 8);
}
static void test_gs1d_r2_cuda(void **state) {
    (void)state;
    /* across blocks of 256 x V lattice points and more blocks than the combine pass's threads */
    static const size_t sizes[][3] = {{1, 1, 1},     {2, 1, 1},     {3, 1, 1},    {4, 1, 1},
                                      {7, 1, 1},     {4095, 1, 1},  {4097, 1, 1}, {8197, 1, 1},
                                      {12290, 1, 1}, {200003, 1, 1}};
    run_solver("gs1d_r2", sizes, sizeof sizes / sizeof *sizes, 6);
}
static void test_residual_norm_cuda(void **state) {
    (void)state;
    static const size_t shapes2[][3] = {{1, 1, 1},     {2, 2, 1},     {31, 9, 1},     {65, 2, 1},
                                        {257, 129, 1}, {1000, 77, 1}, {1025, 1023, 1}};
    run_solver("residual_norm", shapes2, sizeof shapes2 / sizeof *shapes2, 1);
}
static void test_dot3d_cuda(void **state) {
    (void)state;
    static const size_t shapes3[][3] = {{1, 1, 1},   {33, 7, 5},  {5, 3, 19},
                                        {64, 17, 9}, {3, 40, 13}, {129, 65, 33}};
    run_solver("dot3d", shapes3, sizeof shapes3 / sizeof *shapes3, 1);
}
static void test_wjacobi2d_cuda(void **state) {
    (void)state;
    run_solver("wjacobi2d", solver_shapes, sizeof solver_shapes / sizeof *solver_shapes, 1);
}

/* The residual norm's sum must not drift: one residual of 1 then 10^6 - 1 of 1e-4 (a naive
 * double loop drifts by ~1e-10 relative, far beyond the bound). */
static void test_residual_norm_does_not_drift_cuda(void **state) {
    (void)state;
    size_t n[3] = {1000, 1000, 1};
    stenc_field *u, *f, *r;
    assert_stenc_ok(stenc_field_create(ctx, &u, STENC_F64, 2, n[0], n[1], 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F64, 2, n[0], n[1], 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &r, STENC_F64, 2, n[0], n[1], 1, 0));
    assert_stenc_ok(stenc_field_fill(u, 0.0));
    assert_stenc_ok(stenc_field_fill(f, 1e-4));
    assert_stenc_ok(stenc_field_set(f, 0, 0, 0, 1.0));
    assert_stenc_ok(stenc_field_upload(u));
    assert_stenc_ok(stenc_field_upload(f));
    assert_stenc_ok(stenc_field_upload(r));
    const char *name;
    for (int v = 0; (name = residual_norm_variant_name(v)) != NULL; v++) {
        double r2 = NAN, rmax = NAN;
        assert_stenc_ok(residual_norm_variant(ctx, name, 1.0, u, f, r, &r2, &rmax));
        long double want = 1.0L + (long double)(n[0] * n[1] - 1) * (long double)(1e-4 * 1e-4);
        if (!(fabsl((long double)r2 - want) <= SUM_REL_BOUND * want))
            fail_msg("%s: r2 = %.17g, want %.20Lg", name, r2, want);
        assert_true(rmax == 1.0);
    }
    stenc_field_free(u), stenc_field_free(f), stenc_field_free(r);
}

/* Solver stencils list sweep variants only, and the automatic choice never tunes them (an
 * in-place sweep cannot be timed on the user's data): no cache entry, the default variant. */
static void test_solver_variants_not_tuned(void **state) {
    (void)state;
    static const char *const sweeping[] = {"gs_redblack", "gs27_8color", "gs1d_r2", "residual_norm",
                                           "dot3d"};
    for (size_t s = 0; s < sizeof sweeping / sizeof *sweeping; s++) {
        const solver_case *sc = find_solver(sweeping[s]);
        const char *name;
        int count = 0;
        for (int v = 0; (name = sc->variant_name(v)) != NULL; v++, count++)
            if (strncmp(name, "sweep_", 6) != 0) fail_msg("%s: variant %s", sc->name, name);
        if (count < 2) fail_msg("%s: %d variants", sc->name, count);
    }
    char path[] = "/tmp/stenc_tune_solver_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    remove(path);
    assert_int_equal(setenv("STENC_TUNE_CACHE", path, 1), 0);
    stenc_ctx *tctx;
    assert_stenc_ok(stenc_ctx_create(&tctx, STENC_DEVICE_CUDA));
    assert_stenc_ok(stenc_tune(tctx, STENC_TUNE_FORCE));
    size_t n[3] = {41, 23, 1};
    stenc_field *u, *f, *uc, *fc;
    assert_stenc_ok(stenc_field_create(tctx, &u, STENC_F64, 2, n[0], n[1], 1, 1));
    assert_stenc_ok(stenc_field_create(tctx, &f, STENC_F64, 2, n[0], n[1], 1, 1));
    assert_stenc_ok(stenc_field_create(tctx, &uc, STENC_F64, 2, n[0], n[1], 1, 1));
    assert_stenc_ok(stenc_field_create(tctx, &fc, STENC_F64, 2, n[0], n[1], 1, 1));
    stencil_fill_uniform(u, 3, -1, 1), stencil_fill_uniform(uc, 3, -1, 1);
    stencil_fill_uniform(f, 4, -1, 1), stencil_fill_uniform(fc, 4, -1, 1);
    assert_stenc_ok(stenc_field_upload(u));
    assert_stenc_ok(stenc_field_upload(f));
    assert_stenc_ok(gs_redblack(tctx, 0, GS_H2, GS_OMEGA, u, f));
    assert_stenc_ok(gs_redblack(tctx, 0, GS_H2, GS_OMEGA, uc, fc)); /* once, on the host */
    assert_stenc_ok(stenc_field_download(u));
    char msg[160];
    size_t bad = box_differences(u, uc, msg, sizeof msg);
    if (bad)
        fail_msg("gs_redblack with tuning on: %zu point(s) differ (swept more than once?), "
                 "first %s",
                 bad, msg);
    char key[512];
    assert_stenc_ok(stenc_tune_key(tctx, "gs_redblack", gs_redblack_cuda_variants.digest, n,
                                   STENC_F64, key, sizeof key));
    assert_false(file_contains(path, key));
    stenc_field_free(u), stenc_field_free(f), stenc_field_free(uc), stenc_field_free(fc);
    stenc_ctx_destroy(tctx);
    remove(path);
    unsetenv("STENC_TUNE_CACHE");
}

/* ---- errors ------------------------------------------------------------------------------- */

static void test_errors(void **state) {
    (void)state;
    const stencil_case *c = stencil_case_find("wave_r2");
    int t = find_table("wave_r2");
    size_t n[3] = {9, 6, 5};
    stenc_field *f[3];
    assert_stenc_ok(stencil_case_create(ctx, c, n, c->halo, f));
    c->randomize(f, c->ninputs, 3);

    /* mixed locations: u on the device, u_prev and u_next on the host */
    assert_stenc_ok(stenc_field_upload(f[0]));
    stenc_clear_error();
    assert_int_equal(variant_table[t].run(ctx, NULL, c->scalars, f), STENC_ERR_LOCATION);
    assert_non_null(strstr(stenc_last_error(), "u_prev"));

    /* an unknown variant on the device: the message lists the real ones */
    assert_stenc_ok(stenc_field_upload(f[1]));
    assert_stenc_ok(stenc_field_upload(f[2]));
    stenc_clear_error();
    assert_int_equal(variant_table[t].run(ctx, "direct_v3_k3_7x7", c->scalars, f),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "direct_v3_k3_7x7"));
    assert_non_null(strstr(stenc_last_error(), wave_r2_variant_name(0)));

    /* a device variant on host fields */
    for (int a = 0; a < 3; a++)
        assert_stenc_ok(stenc_field_download(f[a]));
    stenc_clear_error();
    assert_int_equal(variant_table[t].run(ctx, wave_r2_variant_name(0), c->scalars, f),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "host"));
    stencil_case_free(c, f);
}

/* Optional argument: a cmocka test-name pattern ("*cuda" runs the solver tests only), for
 * the slower runs under compute-sanitizer. */
/* heat3d_steps on device fields (halo fills, launches and swaps on the device) against the
 * same steps on the host with the hand-written reference, bit for bit: with a periodic face
 * (steps made one by one) and with Dirichlet and Neumann faces only, where the device blocks
 * them unasked (a 3-D star of radius 1: docs/cuda.md, "Temporal blocking"). */
static void test_heat3d_steps_cuda(void **state) {
    (void)state;
    const stencil_case *c = stencil_case_find("heat3d");
    assert_non_null(c);
    stenc_ctx *host = NULL;
    assert_stenc_ok(stenc_ctx_create(&host, STENC_DEVICE_CPU));
    const size_t sizes[2][3] = {{37, 9, 11}, {70, 45, 29}};
    const stenc_bc bcs[2][6] = {{{STENC_BC_DIRICHLET, 1.5},
                                 {STENC_BC_NEUMANN, 0},
                                 {STENC_BC_PERIODIC, 0},
                                 {STENC_BC_PERIODIC, 0},
                                 {STENC_BC_DIRICHLET, -0.5},
                                 {STENC_BC_NEUMANN, 0}},
                                {{STENC_BC_DIRICHLET, 1.5},
                                 {STENC_BC_NEUMANN, 0},
                                 {STENC_BC_NEUMANN, 0},
                                 {STENC_BC_DIRICHLET, 0.25},
                                 {STENC_BC_DIRICHLET, -0.5},
                                 {STENC_BC_NEUMANN, 0}}};
    for (int t = 0; t < 2; t++) {
        const size_t *n = sizes[t];
        stenc_field *x = NULL, *y = NULL, *rx = NULL, *ry = NULL;
        assert_stenc_ok(stenc_field_create(ctx, &x, STENC_F32, 3, n[0], n[1], n[2], 1));
        assert_stenc_ok(stenc_field_create(ctx, &y, STENC_F32, 3, n[0], n[1], n[2], 1));
        assert_stenc_ok(stenc_field_create(host, &rx, STENC_F32, 3, n[0], n[1], n[2], 1));
        assert_stenc_ok(stenc_field_create(host, &ry, STENC_F32, 3, n[0], n[1], n[2], 1));
        c->randomize(&x, 1, 12 + (unsigned)t);
        c->randomize(&rx, 1, 12 + (unsigned)t);
        assert_stenc_ok(stenc_field_upload(x));
        assert_stenc_ok(stenc_field_upload(y));
        const double a = 0.4, b = 0.1;
        const long nsteps = 7;
        assert_stenc_ok(heat3d_steps(ctx, a, b, x, y, nsteps, bcs[t]));
        const int degree = stenc_launch_steps_last_degree();
        assert_stenc_ok(stenc_field_download(x));
        if (t == 0 && degree != 1) fail_msg("heat3d_steps blocked across a periodic face");
        if (t == 1 && degree < 2) fail_msg("heat3d_steps not blocked unasked: degree %d", degree);
        stenc_field *cur = stencil_heat3d_steps_reference(a, b, bcs[t], rx, ry, nsteps);
        assert_non_null(cur);
        char msg[256];
        size_t bad = stencil_compare_interior(x, cur, CUDA_MAX_ULPS, msg, sizeof msg);
        if (bad)
            fail_msg("heat3d_steps on the device (degree %d): %zu point(s) differ, first %s",
                     degree, bad, msg);
        stenc_field_free(x), stenc_field_free(y), stenc_field_free(rx), stenc_field_free(ry);
    }
    stenc_ctx_destroy(host);
}

int main(int argc, char **argv) {
    TEST_REQUIRE_GPU_OR_SKIP();
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variant_names),
        cmocka_unit_test(test_heat3d),
        cmocka_unit_test(test_jacobi2d),
        cmocka_unit_test(test_residual2d),
        cmocka_unit_test(test_varcoef27),
        cmocka_unit_test(test_life),
        cmocka_unit_test(test_euler_flux),
        cmocka_unit_test(test_wave_r2),
        cmocka_unit_test(test_tuner),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_gs_redblack_cuda),
        cmocka_unit_test(test_gs27_8color_cuda),
        cmocka_unit_test(test_gs1d_r2_cuda),
        cmocka_unit_test(test_residual_norm_cuda),
        cmocka_unit_test(test_dot3d_cuda),
        cmocka_unit_test(test_wjacobi2d_cuda),
        cmocka_unit_test(test_residual_norm_does_not_drift_cuda),
        cmocka_unit_test(test_solver_variants_not_tuned),
        cmocka_unit_test(test_heat3d_steps_cuda),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
