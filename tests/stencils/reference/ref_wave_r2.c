/* wave_r2.stencil, by hand (float, radius 2). */
#include "ref_common.h"

stenc_status ref_wave_r2(double c2_in, const stenc_field *u_f, const stenc_field *prev_f,
                         stenc_field *next_f) {
    const stenc_field *all[] = {u_f, prev_f, next_f};
    stenc_status st = ref_check("ref_wave_r2", STENC_F32, 3, 2, 1, 3, all);
    if (st != STENC_OK) return st;
    const float c2 = (float)c2_in;
    const ref_f32 u = ref_view_f32(u_f), prev = ref_view_f32(prev_f), next = ref_view_f32(next_f);
    long ni, nj, nk;
    ref_extents(next_f, &ni, &nj, &nk);
#pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < nk; k++)
        for (long j = 0; j < nj; j++)
            for (long i = 0; i < ni; i++) {
                const float lap =
                    (-1.0f / 12.0f) *
                        (REF_AT(u, i - 2, j, k) + REF_AT(u, i + 2, j, k) + REF_AT(u, i, j - 2, k) +
                         REF_AT(u, i, j + 2, k) + REF_AT(u, i, j, k - 2) + REF_AT(u, i, j, k + 2)) +
                    (4.0f / 3.0f) *
                        (REF_AT(u, i - 1, j, k) + REF_AT(u, i + 1, j, k) + REF_AT(u, i, j - 1, k) +
                         REF_AT(u, i, j + 1, k) + REF_AT(u, i, j, k - 1) + REF_AT(u, i, j, k + 1)) -
                    (15.0f / 2.0f) * REF_AT(u, i, j, k);
                REF_AT(next, i, j, k) =
                    2.0f * REF_AT(u, i, j, k) - REF_AT(prev, i, j, k) + c2 * lap;
            }
    return STENC_OK;
}
