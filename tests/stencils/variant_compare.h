/* Every variant of a device target (CUDA, OpenCL) against the hand-written references and the
 * generated C kernels, for the tests (cmocka): test_stencils_cuda, test_stencils_opencl. */
#ifndef STENC_TEST_VARIANT_COMPARE_H
#define STENC_TEST_VARIANT_COMPARE_H

#include <math.h>
#include <stdio.h>

#include "test_util.h"
#include "variant_cases.h"

/* ---- every variant of a device target against the reference and the C kernel ------------ */

/* Poison an output on the host (interior and halo), then move it to the device. */
static inline void variant_poison_on_device(stenc_field *f) {
    if (stenc_field_location(f) == STENC_ON_DEVICE) assert_stenc_ok(stenc_field_download(f));
    assert_stenc_ok(stenc_field_fill(f, NAN));
    assert_stenc_ok(stenc_field_upload(f));
}

/* Bit for bit: the device kernels are built without contraction (docs/cuda.md, docs/templates.md).
 */
static inline void variant_expect_equal(const char *stencil, const char *what, const size_t n[3],
                                        const stenc_field *got, const stenc_field *want,
                                        const char *output) {
    char msg[256];
    size_t bad = stencil_compare_interior(got, want, 0, msg, sizeof msg);
    if (bad)
        fail_msg("%s %s %zux%zux%zu, output %s: %zu point(s) differ, first %s", stencil, what, n[0],
                 n[1], n[2], output, bad, msg);
}

/* The name of variant `index` of a device target, NULL past the last. */
typedef const char *(*variant_name_of_fn)(int index, const void *arg);

/* Every variant (and the launcher's own choice) of variant_table[t] on one shape, on fields
 * on ctx's device, against the reference and the generated C kernel; output halos untouched. */
static inline void variant_compare_shape(stenc_ctx *ctx, const stencil_case *c, int t,
                                         const size_t n[3], int halo, uint64_t seed,
                                         variant_name_of_fn name_of, const void *arg) {
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
    for (int v = -1; v == -1 || (name = name_of(v, arg)) != NULL; v++) {
        const char *variant = v < 0 ? NULL : name; /* NULL: the launcher's own choice */
        for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++)
            variant_poison_on_device(dev[o]);
        if (variant_table[t].run(ctx, variant, c->scalars, dev) != STENC_OK)
            fail_msg("%s/%s %zux%zux%zu: %s", c->name, variant ? variant : "(auto)", n[0], n[1],
                     n[2], stenc_last_error());
        assert_stenc_ok(stenc_ctx_synchronize(ctx));
        for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++) {
            assert_stenc_ok(stenc_field_download(dev[o]));
            char what[160];
            snprintf(what, sizeof what, "%s vs reference", variant ? variant : "(auto)");
            variant_expect_equal(c->name, what, n, dev[o], ref[o], c->field_names[o]);
            snprintf(what, sizeof what, "%s vs generated C", variant ? variant : "(auto)");
            variant_expect_equal(c->name, what, n, dev[o], cgen[o], c->field_names[o]);
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

/* Compare every variant of a stencil on one shape (a test's variant_compare_shape call). */
typedef void (*variant_compare_fn)(const stencil_case *c, int t, const size_t n[3], int halo,
                                   uint64_t seed);

/* Every shape of shapes[0..count), with the stencil's own halo and one more. */
static inline void variant_run_case(const char *name, const size_t (*shapes)[3], size_t count,
                                    uint64_t seed, variant_compare_fn compare) {
    const stencil_case *c = stencil_case_find(name);
    assert_non_null(c);
    int t = find_table(name);
    assert_true(t >= 0);
    for (size_t s = 0; s < count; s++)
        for (int extra = 0; extra <= 1; extra++) {
            size_t n[3] = {shapes[s][0], c->dims >= 2 ? shapes[s][1] : 1,
                           c->dims >= 3 ? shapes[s][2] : 1};
            compare(c, t, n, c->halo + extra, seed++);
        }
}

/* One cmocka test per stencil of variant_table, each calling run_case(name). */
#define VARIANT_CASE_TESTS(run_case)                                                               \
    static void test_heat3d(void **state) {                                                        \
        (void)state, run_case("heat3d");                                                           \
    }                                                                                              \
    static void test_jacobi2d(void **state) {                                                      \
        (void)state, run_case("jacobi2d");                                                         \
    }                                                                                              \
    static void test_residual2d(void **state) {                                                    \
        (void)state, run_case("residual2d");                                                       \
    }                                                                                              \
    static void test_varcoef27(void **state) {                                                     \
        (void)state, run_case("varcoef27");                                                        \
    }                                                                                              \
    static void test_life(void **state) {                                                          \
        (void)state, run_case("life");                                                             \
    }                                                                                              \
    static void test_euler_flux(void **state) {                                                    \
        (void)state, run_case("euler_flux");                                                       \
    }                                                                                              \
    static void test_wave_r2(void **state) {                                                       \
        (void)state, run_case("wave_r2");                                                          \
    }

#endif /* STENC_TEST_VARIANT_COMPARE_H */
