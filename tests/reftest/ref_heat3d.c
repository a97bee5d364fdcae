/* heat3d.stencil by hand, as a reference for stenc_add_reference_test():
 *     y = a*x[0,0,0] + b*(x[-1,0,0] + x[1,0,0] + x[0,-1,0] + x[0,1,0] + x[0,0,-1] + x[0,0,1])
 * The obvious triple loop, in the stencil's precision and its order of operations, so that the
 * generated kernel matches it bit for bit. Registered in float (the stencil's type) and in
 * double (PRECISION double), hence one loop per type. */
#include "stenc/reftest.h"

#define HEAT3D_LOOP(T)                                                                             \
    do {                                                                                           \
        const T a = (T)c->scalars[0], b = (T)c->scalars[1];                                        \
        const T *x = c->arrays[0].origin;                                                          \
        T *y = c->arrays[1].origin;                                                                \
        const ptrdiff_t sj = c->stride[1], sk = c->stride[2];                                      \
        for (ptrdiff_t k = 0; k < c->n[2]; k++)                                                    \
            for (ptrdiff_t j = 0; j < c->n[1]; j++)                                                \
                for (ptrdiff_t i = 0; i < c->n[0]; i++) {                                          \
                    const ptrdiff_t p = i + j * sj + k * sk;                                       \
                    y[p] = a * x[p] + b * (x[p - 1] + x[p + 1] + x[p - sj] + x[p + sj] +           \
                                           x[p - sk] + x[p + sk]);                                 \
                }                                                                                  \
    } while (0)

stenc_status reftest_heat3d(const stenc_reftest_call *c) {
    if (c->type == STENC_F32)
        HEAT3D_LOOP(float);
    else
        HEAT3D_LOOP(double);
    return STENC_OK;
}
