/* varcoef27.stencil, by hand (float): the 27 products summed in declaration order. */
#include "ref_common.h"

stenc_status ref_varcoef27(const stenc_field *u_f, const stenc_field *const c_f[27],
                           stenc_field *y_f) {
    if (!c_f)
        return stenc_set_error(STENC_ERR_INVALID_ARGUMENT, __FILE__, __LINE__,
                               "ref_varcoef27: coefficient array is NULL");
    const stenc_field *all[29];
    all[0] = u_f;
    for (int c = 0; c < 27; c++)
        all[1 + c] = c_f[c];
    all[28] = y_f;
    stenc_status st = ref_check("ref_varcoef27", STENC_F32, 3, 1, 1, 29, all);
    if (st != STENC_OK) return st;
    const ref_f32 u = ref_view_f32(u_f), y = ref_view_f32(y_f);
    ref_f32 c[27];
    for (int n = 0; n < 27; n++)
        c[n] = ref_view_f32(c_f[n]);
    long ni, nj, nk;
    ref_extents(y_f, &ni, &nj, &nk);
    /* Coefficient n multiplies u[n%3-1, n/3%3-1, n/9-1]; written out so that the sum is the
     * .stencil's left-to-right chain. */
#define T(n)                                                                                       \
    (REF_AT(c[n], i, j, k) * REF_AT(u, i + (n) % 3 - 1, j + (n) / 3 % 3 - 1, k + (n) / 9 - 1))
#pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < nk; k++)
        for (long j = 0; j < nj; j++)
            for (long i = 0; i < ni; i++)
                REF_AT(y, i, j, k) = T(0) + T(1) + T(2) + T(3) + T(4) + T(5) + T(6) + T(7) + T(8) +
                                     T(9) + T(10) + T(11) + T(12) + T(13) + T(14) + T(15) + T(16) +
                                     T(17) + T(18) + T(19) + T(20) + T(21) + T(22) + T(23) + T(24) +
                                     T(25) + T(26);
#undef T
    return STENC_OK;
}
