/* gs1d_r2.stencil by hand: a 1-D, fourth-order Gauss-Seidel sweep over three colours (i % 3),
 * in place, with two reductions of the change:
 *     u = (12*h2*f - u[-2] + 16*u[-1] + 16*u[1] - u[2]) / 30;
 *     reduce max change = fabs(u - old);  reduce sum change2 = (u - old)*(u - old);
 * Only the points of the launch's colour are updated; their neighbours are of other colours,
 * so the order of the loop does not matter. The sum is compensated (stenc/accum.h) but in
 * another order than the kernel's tiles: it agrees to a few ULPs, not bitwise. */
#include <math.h>

#include "stenc/accum.h"
#include "stenc/reftest.h"

stenc_status reftest_gs1d_r2(const stenc_reftest_call *c) {
    const double h2 = c->scalars[0];
    double *u = c->arrays[0].origin;
    const double *f = c->arrays[1].origin;
    stenc_acc change = STENC_ACC_MAX_INIT, change2 = STENC_ACC_SUM_INIT;
    for (ptrdiff_t i = c->color; i < c->n[0]; i += 3) {
        const double old = u[i];
        u[i] = (12 * h2 * f[i] - u[i - 2] + 16 * u[i - 1] + 16 * u[i + 1] - u[i + 2]) / 30;
        stenc_acc_max_add(&change, fabs(u[i] - old));
        stenc_acc_sum_add(&change2, (u[i] - old) * (u[i] - old));
    }
    c->results[0] = stenc_acc_max_result(&change);
    c->results[1] = stenc_acc_sum_result(&change2);
    return STENC_OK;
}
