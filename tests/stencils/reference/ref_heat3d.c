/* heat3d.stencil, by hand (float). */
#include "ref_common.h"

stenc_status ref_heat3d(double a_in, double b_in, const stenc_field *x_f, stenc_field *y_f) {
    const stenc_field *all[] = {x_f, y_f};
    stenc_status st = ref_check("ref_heat3d", STENC_F32, 3, 1, 1, 2, all);
    if (st != STENC_OK) return st;
    const float a = (float)a_in, b = (float)b_in;
    const ref_f32 x = ref_view_f32(x_f), y = ref_view_f32(y_f);
    long ni, nj, nk;
    ref_extents(y_f, &ni, &nj, &nk);
#pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < nk; k++)
        for (long j = 0; j < nj; j++)
            for (long i = 0; i < ni; i++)
                REF_AT(y, i, j, k) =
                    a * REF_AT(x, i, j, k) +
                    b * (REF_AT(x, i - 1, j, k) + REF_AT(x, i + 1, j, k) + REF_AT(x, i, j - 1, k) +
                         REF_AT(x, i, j + 1, k) + REF_AT(x, i, j, k - 1) + REF_AT(x, i, j, k + 1));
    return STENC_OK;
}
