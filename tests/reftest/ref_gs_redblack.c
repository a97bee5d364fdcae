/* gs_redblack.stencil by hand: one colour of a red-black SOR sweep, in place,
 *     u = (1 - omega)*u + omega*0.25*(h2*f + u[-1,0] + u[1,0] + u[0,-1] + u[0,1]);
 * at the points with (i + j) % 2 == color; the four neighbours are of the other colour. */
#include "stenc/reftest.h"

stenc_status reftest_gs_redblack(const stenc_reftest_call *c) {
    const double h2 = c->scalars[0], omega = c->scalars[1];
    double *u = c->arrays[0].origin;
    const double *f = c->arrays[1].origin;
    const ptrdiff_t sj = c->stride[1];
    for (ptrdiff_t j = 0; j < c->n[1]; j++)
        for (ptrdiff_t i = (j + c->color) % 2; i < c->n[0]; i += 2) {
            const ptrdiff_t p = i + j * sj;
            u[p] = (1 - omega) * u[p] +
                   omega * 0.25 * (h2 * f[p] + u[p - 1] + u[p + 1] + u[p - sj] + u[p + sj]);
        }
    return STENC_OK;
}
