/* Hand-written reference kernels, one per stencil in stencils/, written directly from the
 * .stencil maths over the field layout. They use the stencil's precision and evaluate every
 * expression in the .stencil's order (left to right, as written), with scalars converted from
 * double to the stencil's type and literals in that type, so that a generated CPU kernel that
 * follows the same rules matches them bit for bit. OpenMP over (k, j), like a generated kernel.
 *
 * Arguments follow the generated launchers: scalars as double, then the fields in declaration
 * order. The fields must be on the host; each is indexed through its own layout. The checks
 * here are only what keeps the kernel in bounds; the launchers' checks are what is tested. */
#ifndef STENC_TEST_REFERENCE_H
#define STENC_TEST_REFERENCE_H

#include "stenc/stenc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* heat3d (float): y = a*x + b*(six face neighbours) */
stenc_status ref_heat3d(double a, double b, const stenc_field *x, stenc_field *y);
/* jacobi2d (double): u_new = 0.25*(h2*f + four neighbours) */
stenc_status ref_jacobi2d(double h2, const stenc_field *u, const stenc_field *f,
                          stenc_field *u_new);
/* residual2d (double): r = f - inv_h2*(4u - four neighbours) */
stenc_status ref_residual2d(double inv_h2, const stenc_field *u, const stenc_field *f,
                            stenc_field *r);
/* varcoef27 (float): y = sum of c<di><dj><dk> * u[di,dj,dk]; c[] in declaration order
 * (cmmm, c0mm, cpmm, cm0m, ..., cppp: di fastest, then dj, then dk). */
stenc_status ref_varcoef27(const stenc_field *u, const stenc_field *const c[27], stenc_field *y);
/* life (float): Conway's rule on 0/1 values */
stenc_status ref_life(const stenc_field *cell, stenc_field *next);
/* euler_flux (float): 2-D Euler flux balance with pressure-switched smoothing */
stenc_status ref_euler_flux(double gm1, double dt_dx, double k2, double sensor_min,
                            const stenc_field *ro, const stenc_field *rovx, const stenc_field *rovy,
                            const stenc_field *roe, stenc_field *dro, stenc_field *drovx,
                            stenc_field *drovy, stenc_field *droe);
/* wave_r2 (float): u_next = 2u - u_prev + c2*lap4(u), radius 2 */
stenc_status ref_wave_r2(double c2, const stenc_field *u, const stenc_field *u_prev,
                         stenc_field *u_next);

#ifdef __cplusplus
}
#endif

#endif /* STENC_TEST_REFERENCE_H */
