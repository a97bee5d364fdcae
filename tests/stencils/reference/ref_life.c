/* life.stencil, by hand (float). */
#include "ref_common.h"

stenc_status ref_life(const stenc_field *cell_f, stenc_field *next_f) {
    const stenc_field *all[] = {cell_f, next_f};
    stenc_status st = ref_check("ref_life", STENC_F32, 2, 1, 1, 2, all);
    if (st != STENC_OK) return st;
    const ref_f32 cell = ref_view_f32(cell_f), next = ref_view_f32(next_f);
    long ni, nj, nk;
    ref_extents(next_f, &ni, &nj, &nk);
#pragma omp parallel for schedule(static)
    for (long j = 0; j < nj; j++)
        for (long i = 0; i < ni; i++) {
            const float n = REF_AT(cell, i - 1, j - 1, 0) + REF_AT(cell, i, j - 1, 0) +
                            REF_AT(cell, i + 1, j - 1, 0) + REF_AT(cell, i - 1, j, 0) +
                            REF_AT(cell, i + 1, j, 0) + REF_AT(cell, i - 1, j + 1, 0) +
                            REF_AT(cell, i, j + 1, 0) + REF_AT(cell, i + 1, j + 1, 0);
            if (REF_AT(cell, i, j, 0) > 0.5f)
                REF_AT(next, i, j, 0) = (n > 1.5f && n < 3.5f) ? 1.0f : 0.0f;
            else
                REF_AT(next, i, j, 0) = (n > 2.5f && n < 3.5f) ? 1.0f : 0.0f;
        }
    return STENC_OK;
}
