/* dot3d.stencil by hand: three reductions of float arrays and no scalar,
 *     reduce sum dot = x*y;  reduce min xmin = x;  reduce max xmax = x;
 * The product is a float, widened to double for the sum, as in the kernel. The sum is
 * compensated (stenc/accum.h) in loop order, not the kernel's tile order: a few ULPs apart. */
#include "stenc/accum.h"
#include "stenc/reftest.h"

stenc_status reftest_dot3d(const stenc_reftest_call *c) {
    const float *x = c->arrays[0].origin, *y = c->arrays[1].origin;
    const ptrdiff_t sj = c->stride[1], sk = c->stride[2];
    stenc_acc dot = STENC_ACC_SUM_INIT, xmin = STENC_ACC_MIN_INIT, xmax = STENC_ACC_MAX_INIT;
    for (ptrdiff_t k = 0; k < c->n[2]; k++)
        for (ptrdiff_t j = 0; j < c->n[1]; j++)
            for (ptrdiff_t i = 0; i < c->n[0]; i++) {
                const ptrdiff_t p = i + j * sj + k * sk;
                stenc_acc_sum_add(&dot, (double)(x[p] * y[p]));
                stenc_acc_min_add(&xmin, x[p]);
                stenc_acc_max_add(&xmax, x[p]);
            }
    c->results[0] = stenc_acc_sum_result(&dot);
    c->results[1] = stenc_acc_min_result(&xmin);
    c->results[2] = stenc_acc_max_result(&xmax);
    return STENC_OK;
}
