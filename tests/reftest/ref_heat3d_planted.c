/* heat3d.stencil by hand with a planted bug: the j loop stops one row short, so the last row
 * of every plane keeps its old values. The reference test must fail and name the first point
 * of that row, (0, nj-1, 0). */
#include "stenc/reftest.h"

stenc_status reftest_heat3d_planted(const stenc_reftest_call *c) {
    const float a = (float)c->scalars[0], b = (float)c->scalars[1];
    const float *x = c->arrays[0].origin;
    float *y = c->arrays[1].origin;
    const ptrdiff_t sj = c->stride[1], sk = c->stride[2];
    for (ptrdiff_t k = 0; k < c->n[2]; k++)
        for (ptrdiff_t j = 0; j < c->n[1] - 1; j++) /* the bug: should be j < c->n[1] */
            for (ptrdiff_t i = 0; i < c->n[0]; i++) {
                const ptrdiff_t p = i + j * sj + k * sk;
                y[p] = a * x[p] +
                       b * (x[p - 1] + x[p + 1] + x[p - sj] + x[p + sj] + x[p - sk] + x[p + sk]);
            }
    return STENC_OK;
}
