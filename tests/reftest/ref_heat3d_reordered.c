/* heat3d.stencil by hand, correct but summing the neighbours in another order (pairs per
 * dimension) than the stencil's left-to-right sum: the results differ in the last bits, so
 * the test needs a tolerance (docs/reference-tests.md, "When bitwise is not possible"). An
 * absolute one, since the sum cancels: near zero, a ULP tolerance would have to be huge. */
#include "stenc/reftest.h"

stenc_status reftest_heat3d_reordered(const stenc_reftest_call *c) {
    const float a = (float)c->scalars[0], b = (float)c->scalars[1];
    const float *x = c->arrays[0].origin;
    float *y = c->arrays[1].origin;
    const ptrdiff_t sj = c->stride[1], sk = c->stride[2];
    for (ptrdiff_t k = 0; k < c->n[2]; k++)
        for (ptrdiff_t j = 0; j < c->n[1]; j++)
            for (ptrdiff_t i = 0; i < c->n[0]; i++) {
                const ptrdiff_t p = i + j * sj + k * sk;
                const float di = x[p - 1] + x[p + 1], dj = x[p - sj] + x[p + sj],
                            dk = x[p - sk] + x[p + sk];
                y[p] = a * x[p] + b * (di + (dj + dk));
            }
    return STENC_OK;
}
