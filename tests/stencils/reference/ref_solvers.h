/* Hand-written references for the solver stencils (stencils/gs_redblack, gs27_8color,
 * wjacobi2d, residual_norm), with the conventions of reference.h: the stencil's precision,
 * expressions in the .stencil's order, scalars as double, fields in declaration order.
 *
 * The coloured references visit every interior point and test its colour with the formula of
 * the .stencil (not the compiler's table), one point after the other; the reductions are
 * summed in long double, in a plain loop. */
#ifndef STENC_TEST_REF_SOLVERS_H
#define STENC_TEST_REF_SOLVERS_H

#include "stenc/stenc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gs_redblack (double): at the points with (i + j) % 2 == color,
 * u = (1-omega)*u + omega*0.25*(h2*f + four neighbours). */
stenc_status ref_gs_redblack(int color, double h2, double omega, stenc_field *u,
                             const stenc_field *f);
/* gs27_8color (double): at the points with i%2 + 2*(j%2) + 4*(k%2) == color,
 * u = (f - sum over the 26 neighbours of c<di><dj><dk> * u[di,dj,dk]) / c000; c[] in
 * declaration order (cmmm, c0mm, ..., cppp: di fastest). */
stenc_status ref_gs27_8color(int color, stenc_field *u, const stenc_field *const c[27],
                             const stenc_field *f);
/* wjacobi2d (double): u_new = (1-omega)*u + omega*0.25*(h2*f + four neighbours) */
stenc_status ref_wjacobi2d(double h2, double omega, const stenc_field *u, const stenc_field *f,
                           stenc_field *u_new);
/* residual_norm (double): r = f - inv_h2*(4u - four neighbours); *r2 = sum of r*r and
 * *rmax = max |r| over the interior, in long double. */
stenc_status ref_residual_norm(double inv_h2, const stenc_field *u, const stenc_field *f,
                               stenc_field *r, long double *r2, long double *rmax);

/* gs1d_r2 (double): at the points with i % 3 == color, u = (12*h2*f - u[-2] + 16u[-1] +
 * 16u[1] - u[2]) / 30; *change = max |new - old|, *change2 = sum (new - old)^2 (long double). */
stenc_status ref_gs1d_r2(int color, double h2, stenc_field *u, const stenc_field *f,
                         long double *change, long double *change2);
/* dot3d (float): *dot = sum of the float products x*y (long double), *xmin, *xmax. */
stenc_status ref_dot3d(const stenc_field *x, const stenc_field *y, long double *dot,
                       long double *xmin, long double *xmax);

#ifdef __cplusplus
}
#endif

#endif /* STENC_TEST_REF_SOLVERS_H */
