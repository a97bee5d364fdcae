/* poisson2d.stencil (jacobi2d, residual2d), by hand (double). */
#include "ref_common.h"

stenc_status ref_jacobi2d(double h2, const stenc_field *u_f, const stenc_field *f_f,
                          stenc_field *out_f) {
    const stenc_field *all[] = {u_f, f_f, out_f};
    stenc_status st = ref_check("ref_jacobi2d", STENC_F64, 2, 1, 1, 3, all);
    if (st != STENC_OK) return st;
    const ref_f64 u = ref_view_f64(u_f), f = ref_view_f64(f_f), out = ref_view_f64(out_f);
    long ni, nj, nk;
    ref_extents(out_f, &ni, &nj, &nk);
#pragma omp parallel for schedule(static)
    for (long j = 0; j < nj; j++)
        for (long i = 0; i < ni; i++)
            REF_AT(out, i, j, 0) =
                0.25 * (h2 * REF_AT(f, i, j, 0) + REF_AT(u, i - 1, j, 0) + REF_AT(u, i + 1, j, 0) +
                        REF_AT(u, i, j - 1, 0) + REF_AT(u, i, j + 1, 0));
    return STENC_OK;
}

stenc_status ref_residual2d(double inv_h2, const stenc_field *u_f, const stenc_field *f_f,
                            stenc_field *r_f) {
    const stenc_field *all[] = {u_f, f_f, r_f};
    stenc_status st = ref_check("ref_residual2d", STENC_F64, 2, 1, 1, 3, all);
    if (st != STENC_OK) return st;
    const ref_f64 u = ref_view_f64(u_f), f = ref_view_f64(f_f), r = ref_view_f64(r_f);
    long ni, nj, nk;
    ref_extents(r_f, &ni, &nj, &nk);
#pragma omp parallel for schedule(static)
    for (long j = 0; j < nj; j++)
        for (long i = 0; i < ni; i++)
            REF_AT(r, i, j, 0) =
                REF_AT(f, i, j, 0) -
                inv_h2 * (4.0 * REF_AT(u, i, j, 0) - REF_AT(u, i - 1, j, 0) -
                          REF_AT(u, i + 1, j, 0) - REF_AT(u, i, j - 1, 0) - REF_AT(u, i, j + 1, 0));
    return STENC_OK;
}
