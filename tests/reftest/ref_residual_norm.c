/* residual_norm.stencil by hand: the 5-point residual and two reductions,
 *     r = f - inv_h2*(4*u - u[-1,0] - u[1,0] - u[0,-1] - u[0,1]);
 *     reduce sum r2 = r*r;  reduce max rmax = fabs(r);
 * r is bitwise the kernel's; r2 is a plain sum in loop order (the kernel's is compensated), so
 * the test gives the reductions a relative tolerance. */
#include <math.h>

#include "stenc/reftest.h"

stenc_status reftest_residual_norm(const stenc_reftest_call *c) {
    const double inv_h2 = c->scalars[0];
    const double *u = c->arrays[0].origin, *f = c->arrays[1].origin;
    double *r = c->arrays[2].origin;
    const ptrdiff_t sj = c->stride[1];
    double r2 = 0, rmax = -INFINITY;
    for (ptrdiff_t j = 0; j < c->n[1]; j++)
        for (ptrdiff_t i = 0; i < c->n[0]; i++) {
            const ptrdiff_t p = i + j * sj;
            r[p] = f[p] - inv_h2 * (4 * u[p] - u[p - 1] - u[p + 1] - u[p - sj] - u[p + sj]);
            r2 += r[p] * r[p];
            rmax = fmax(rmax, fabs(r[p]));
        }
    c->results[0] = r2;
    c->results[1] = rmax;
    return STENC_OK;
}
