/* The plain stencils' launchers with a variant name, called alike (scalars and fields as
 * arrays, in stencil_cases.h's order): for the tests that run every variant of a device
 * target (test_stencils_cuda, test_stencils_opencl) and bench_opencl. */
#ifndef STENC_TEST_VARIANT_CASES_H
#define STENC_TEST_VARIANT_CASES_H

#include <string.h>

#include "stencil_cases.h"

#include "euler_flux.h"
#include "heat3d.h"
#include "jacobi2d.h"
#include "life.h"
#include "residual2d.h"
#include "varcoef27.h"
#include "wave_r2.h"

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

#endif /* STENC_TEST_VARIANT_CASES_H */
