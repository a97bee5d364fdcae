/* limited_smooth.stencil by hand, its functions written out:
 *     gx = minmod(u[1,0] - u, u - u[-1,0]);  gy = minmod(u[0,1] - u, u - u[0,-1]);
 *     v = u + nu*(u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4*u) - 0.5*nu*(gx + gy);
 *     reduce sum change = (v - u)^2;
 * v is bitwise the kernel's (the same operations in the same order); the sum is plain, in loop
 * order (the kernel's is compensated), so the test gives it a relative tolerance. */
#include <math.h>

#include "stenc/reftest.h"

static double minmod(double a, double b) {
    if (a * b <= 0) return 0;
    return fabs(a) < fabs(b) ? a : b;
}

stenc_status reftest_limited_smooth(const stenc_reftest_call *c) {
    const double nu = c->scalars[0];
    const double *u = c->arrays[0].origin;
    double *v = c->arrays[1].origin;
    const ptrdiff_t sj = c->stride[1];
    double change = 0;
    for (ptrdiff_t j = 0; j < c->n[1]; j++)
        for (ptrdiff_t i = 0; i < c->n[0]; i++) {
            const ptrdiff_t p = i + j * sj;
            const double gx = minmod(u[p + 1] - u[p], u[p] - u[p - 1]);
            const double gy = minmod(u[p + sj] - u[p], u[p] - u[p - sj]);
            v[p] = u[p] + nu * (u[p - 1] + u[p + 1] + u[p - sj] + u[p + sj] - 4 * u[p]) -
                   0.5 * nu * (gx + gy);
            change += (v[p] - u[p]) * (v[p] - u[p]);
        }
    c->results[0] = change;
    return STENC_OK;
}
