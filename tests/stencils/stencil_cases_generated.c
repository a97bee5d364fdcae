/* The generated launchers (target stenc_stencils), called through the stencil_cases table. */
#include <string.h>

#include "stencil_cases.h"

#include "euler_flux.h"
#include "heat3d.h"
#include "jacobi2d.h"
#include "life.h"
#include "residual2d.h"
#include "varcoef27.h"
#include "wave_r2.h"

static stenc_status gen_heat3d(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    return heat3d(ctx, s[0], s[1], f[0], f[1]);
}
static stenc_status gen_jacobi2d(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    return jacobi2d(ctx, s[0], f[0], f[1], f[2]);
}
static stenc_status gen_residual2d(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    return residual2d(ctx, s[0], f[0], f[1], f[2]);
}
static stenc_status gen_varcoef27(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    (void)s;
    return varcoef27(ctx, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11],
                     f[12], f[13], f[14], f[15], f[16], f[17], f[18], f[19], f[20], f[21], f[22],
                     f[23], f[24], f[25], f[26], f[27], f[28]);
}
static stenc_status gen_life(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    (void)s;
    return life(ctx, f[0], f[1]);
}
static stenc_status gen_euler_flux(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    return euler_flux(ctx, s[0], s[1], s[2], s[3], f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
}
static stenc_status gen_wave_r2(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    return wave_r2(ctx, s[0], f[0], f[1], f[2]);
}

stencil_run_fn stencil_generated_runner(const char *name) {
    static const struct {
        const char *name;
        stencil_run_fn run;
    } table[] = {
        {"heat3d", gen_heat3d},       {"jacobi2d", gen_jacobi2d}, {"residual2d", gen_residual2d},
        {"varcoef27", gen_varcoef27}, {"life", gen_life},         {"euler_flux", gen_euler_flux},
        {"wave_r2", gen_wave_r2}};
    for (size_t t = 0; t < sizeof table / sizeof *table; t++)
        if (strcmp(table[t].name, name) == 0) return table[t].run;
    return NULL;
}
