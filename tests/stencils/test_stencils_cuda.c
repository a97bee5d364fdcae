/* Generated CUDA kernels (every variant of every stencil in stencils/) against the hand-written
 * references and the generated C kernels, on device-resident fields; the tuner; the CUDA
 * launch errors. GPU test: skipped without a device.
 *
 * Equality: bit for bit (max_ulps = 0). The generated .cu files are compiled with
 * -fmad=false (stenc_add_stencils, docs/cuda.md), so the GPU evaluates every expression in
 * the .stencil's order with IEEE-rounded + - * / sqrt, exactly like the C sides. With FMA
 * contraction allowed the bound would not be small in ulps where terms cancel, so the test
 * does not allow it. Outputs are poisoned with NaN (interior and halo) before every run: a
 * point left unwritten fails, and so does a written halo point. */
#include <ctype.h>
#include <unistd.h>

#include "test_util.h"

#include "stencil_cases.h"

#include "euler_flux.h"
#include "heat3d.h"
#include "jacobi2d.h"
#include "life.h"
#include "residual2d.h"
#include "varcoef27.h"
#include "wave_r2.h"

enum { CUDA_MAX_ULPS = 0 };

typedef stenc_status (*variant_run_fn)(stenc_ctx *ctx, const char *variant, const double *s,
                                       stenc_field *const *f);
typedef const char *(*variant_name_fn)(int index);

static stenc_status v_heat3d(stenc_ctx *ctx, const char *v, const double *s,
                             stenc_field *const *f) {
    return heat3d_variant(ctx, v, s[0], s[1], f[0], f[1]);
}
static stenc_status v_jacobi2d(stenc_ctx *ctx, const char *v, const double *s,
                               stenc_field *const *f) {
    return jacobi2d_variant(ctx, v, s[0], f[0], f[1], f[2]);
}
static stenc_status v_residual2d(stenc_ctx *ctx, const char *v, const double *s,
                                 stenc_field *const *f) {
    return residual2d_variant(ctx, v, s[0], f[0], f[1], f[2]);
}
static stenc_status v_varcoef27(stenc_ctx *ctx, const char *v, const double *s,
                                stenc_field *const *f) {
    (void)s;
    return varcoef27_variant(ctx, v, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9],
                             f[10], f[11], f[12], f[13], f[14], f[15], f[16], f[17], f[18], f[19],
                             f[20], f[21], f[22], f[23], f[24], f[25], f[26], f[27], f[28]);
}
static stenc_status v_life(stenc_ctx *ctx, const char *v, const double *s, stenc_field *const *f) {
    (void)s;
    return life_variant(ctx, v, f[0], f[1]);
}
static stenc_status v_euler_flux(stenc_ctx *ctx, const char *v, const double *s,
                                 stenc_field *const *f) {
    return euler_flux_variant(ctx, v, s[0], s[1], s[2], s[3], f[0], f[1], f[2], f[3], f[4], f[5],
                              f[6], f[7]);
}
static stenc_status v_wave_r2(stenc_ctx *ctx, const char *v, const double *s,
                              stenc_field *const *f) {
    return wave_r2_variant(ctx, v, s[0], f[0], f[1], f[2]);
}

static const struct {
    const char *name;
    variant_run_fn run;
    variant_name_fn variant_name;
} variant_table[] = {
    {"heat3d", v_heat3d, heat3d_variant_name},
    {"jacobi2d", v_jacobi2d, jacobi2d_variant_name},
    {"residual2d", v_residual2d, residual2d_variant_name},
    {"varcoef27", v_varcoef27, varcoef27_variant_name},
    {"life", v_life, life_variant_name},
    {"euler_flux", v_euler_flux, euler_flux_variant_name},
    {"wave_r2", v_wave_r2, wave_r2_variant_name},
};

static int find_table(const char *name) {
    for (size_t t = 0; t < sizeof variant_table / sizeof *variant_table; t++)
        if (strcmp(variant_table[t].name, name) == 0) return (int)t;
    return -1;
}

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

/* Poison an output (host side, interior and halo), then move it to the device. */
static void poison_on_device(stenc_field *f) {
    assert_stenc_ok(stenc_field_download(f));
    assert_stenc_ok(stenc_field_fill(f, NAN));
    assert_stenc_ok(stenc_field_upload(f));
}

static void expect_equal(const stencil_case *c, const char *what, const size_t n[3],
                         stenc_field *got, stenc_field *want, const char *output) {
    char msg[256];
    size_t bad = stencil_compare_interior(got, want, CUDA_MAX_ULPS, msg, sizeof msg);
    if (bad)
        fail_msg("%s %s %zux%zux%zu, output %s: %zu point(s) differ, first %s", c->name, what, n[0],
                 n[1], n[2], output, bad, msg);
}

/* Every variant on one shape: CUDA against the reference and against the generated C kernel;
 * output halos untouched. */
static void compare_shape(const stencil_case *c, int t, const size_t n[3], int halo,
                          uint64_t seed) {
    stenc_field *dev[STENCIL_CASE_MAX_FIELDS], *ref[STENCIL_CASE_MAX_FIELDS],
        *cgen[STENCIL_CASE_MAX_FIELDS];
    assert_stenc_ok(stencil_case_create(ctx, c, n, halo, dev));
    c->randomize(dev, c->ninputs, seed);
    for (int a = 0; a < c->ninputs; a++)
        ref[a] = cgen[a] = dev[a];
    for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++) {
        assert_stenc_ok(stenc_field_create(ctx, &ref[o], c->type, c->dims, n[0], n[1], n[2], halo));
        assert_stenc_ok(
            stenc_field_create(ctx, &cgen[o], c->type, c->dims, n[0], n[1], n[2], halo));
        assert_stenc_ok(stenc_field_fill(ref[o], NAN));
        assert_stenc_ok(stenc_field_fill(cgen[o], NAN));
    }
    assert_stenc_ok(c->reference(ctx, c->scalars, ref));
    assert_stenc_ok(variant_table[t].run(ctx, "c", c->scalars, cgen)); /* the C kernel */
    for (int a = 0; a < c->ninputs; a++)
        assert_stenc_ok(stenc_field_upload(dev[a]));

    const char *name;
    for (int v = -1; v == -1 || (name = variant_table[t].variant_name(v)) != NULL; v++) {
        const char *variant = v < 0 ? NULL : name; /* NULL: the launcher's own choice */
        for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++)
            poison_on_device(dev[o]);
        stenc_status st = variant_table[t].run(ctx, variant, c->scalars, dev);
        if (st != STENC_OK)
            fail_msg("%s/%s %zux%zux%zu: %s", c->name, variant ? variant : "(auto)", n[0], n[1],
                     n[2], stenc_last_error());
        assert_stenc_ok(stenc_ctx_synchronize(ctx));
        for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++) {
            assert_stenc_ok(stenc_field_download(dev[o]));
            char what[160];
            snprintf(what, sizeof what, "%s vs reference", variant ? variant : "(auto)");
            expect_equal(c, what, n, dev[o], ref[o], c->field_names[o]);
            snprintf(what, sizeof what, "%s vs generated C", variant ? variant : "(auto)");
            expect_equal(c, what, n, dev[o], cgen[o], c->field_names[o]);
            size_t written = stencil_count_written_halo(dev[o]);
            if (written)
                fail_msg("%s/%s %zux%zux%zu: %zu halo point(s) of output %s were written", c->name,
                         variant ? variant : "(auto)", n[0], n[1], n[2], written,
                         c->field_names[o]);
        }
    }
    for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++) {
        stenc_field_free(ref[o]);
        stenc_field_free(cgen[o]);
    }
    stencil_case_free(c, dev);
}

/* Odd sizes: 1, 2, primes, smaller than a tile, not multiples of V or K, more planes than a
 * streaming chunk (64), more columns than a block. */
static const size_t shapes[][3] = {{1, 1, 1},  {2, 2, 2},  {17, 1, 3}, {1, 17, 2},   {33, 7, 5},
                                   {5, 3, 19}, {31, 9, 1}, {65, 2, 4}, {37, 11, 67}, {131, 70, 3}};

static void run_case(const char *name) {
    const stencil_case *c = stencil_case_find(name);
    assert_non_null(c);
    int t = find_table(name);
    assert_true(t >= 0);
    uint64_t seed = 11;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int extra = 0; extra <= 1; extra++) {
            size_t n[3] = {shapes[s][0], c->dims >= 2 ? shapes[s][1] : 1,
                           c->dims >= 3 ? shapes[s][2] : 1};
            compare_shape(c, t, n, c->halo + extra, seed++);
        }
}

static void test_heat3d(void **state) {
    (void)state, run_case("heat3d");
}
static void test_jacobi2d(void **state) {
    (void)state, run_case("jacobi2d");
}
static void test_residual2d(void **state) {
    (void)state, run_case("residual2d");
}
static void test_varcoef27(void **state) {
    (void)state, run_case("varcoef27");
}
static void test_life(void **state) {
    (void)state, run_case("life");
}
static void test_euler_flux(void **state) {
    (void)state, run_case("euler_flux");
}
static void test_wave_r2(void **state) {
    (void)state, run_case("wave_r2");
}

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
    poison_on_device(dev[1]);
    assert_stenc_ok(variant_table[t].run(tctx, NULL, c->scalars, dev));
    assert_stenc_ok(stenc_field_download(dev[1]));
    expect_equal(c, "tuned", n, dev[1], ref[1], "y");

    char key[512], chosen[128];
    int found = 0;
    assert_stenc_ok(stenc_tune_key(tctx, "heat3d", n, STENC_F32, key, sizeof key));
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
    poison_on_device(dev[1]);
    assert_stenc_ok(variant_table[t].run(tctx, NULL, c->scalars, dev));
    assert_stenc_ok(stenc_field_download(dev[1]));
    expect_equal(c, "stale cache entry", n, dev[1], ref[1], "y");

    stencil_case_free(c, dev);
    stencil_case_free(c, ref);
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

int main(void) {
    TEST_REQUIRE_GPU_OR_SKIP();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variant_names), cmocka_unit_test(test_heat3d),
        cmocka_unit_test(test_jacobi2d),      cmocka_unit_test(test_residual2d),
        cmocka_unit_test(test_varcoef27),     cmocka_unit_test(test_life),
        cmocka_unit_test(test_euler_flux),    cmocka_unit_test(test_wave_r2),
        cmocka_unit_test(test_tuner),         cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
