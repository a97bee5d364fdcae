/* The solver stencils, by hand (double). See ref_solvers.h. */
#include "ref_solvers.h"

#include <math.h>

#include "ref_common.h"

stenc_status ref_gs_redblack(int color, double h2, double omega, stenc_field *u_f,
                             const stenc_field *f_f) {
    const stenc_field *all[] = {u_f, f_f};
    stenc_status st = ref_check("ref_gs_redblack", STENC_F64, 2, 1, 1, 2, all);
    if (st != STENC_OK) return st;
    const ref_f64 u = ref_view_f64(u_f), f = ref_view_f64(f_f);
    long ni, nj, nk;
    ref_extents(u_f, &ni, &nj, &nk);
    for (long j = 0; j < nj; j++)
        for (long i = 0; i < ni; i++) {
            if ((i + j) % 2 != color) continue;
            REF_AT(u, i, j, 0) =
                (1.0 - omega) * REF_AT(u, i, j, 0) +
                omega * 0.25 *
                    (h2 * REF_AT(f, i, j, 0) + REF_AT(u, i - 1, j, 0) + REF_AT(u, i + 1, j, 0) +
                     REF_AT(u, i, j - 1, 0) + REF_AT(u, i, j + 1, 0));
        }
    return STENC_OK;
}

stenc_status ref_gs27_8color(int color, stenc_field *u_f, const stenc_field *const c_f[27],
                             const stenc_field *f_f) {
    const stenc_field *all[29];
    all[0] = u_f;
    for (int n = 0; n < 27; n++)
        all[1 + n] = c_f[n];
    all[28] = f_f;
    stenc_status st = ref_check("ref_gs27_8color", STENC_F64, 3, 1, 1, 29, all);
    if (st != STENC_OK) return st;
    const ref_f64 u = ref_view_f64(u_f), f = ref_view_f64(f_f);
    ref_f64 c[27];
    for (int n = 0; n < 27; n++)
        c[n] = ref_view_f64(c_f[n]);
    long ni, nj, nk;
    ref_extents(u_f, &ni, &nj, &nk);
    for (long k = 0; k < nk; k++)
        for (long j = 0; j < nj; j++)
            for (long i = 0; i < ni; i++) {
                if (i % 2 + 2 * (j % 2) + 4 * (k % 2) != color) continue;
                /* the off-diagonal products, left to right in declaration order */
                double off = 0.0;
                int first = 1;
                for (int n = 0; n < 27; n++) {
                    if (n == 13) continue; /* c000, the diagonal */
                    double t = REF_AT(c[n], i, j, k) *
                               REF_AT(u, i + n % 3 - 1, j + n / 3 % 3 - 1, k + n / 9 - 1);
                    off = first ? t : off + t;
                    first = 0;
                }
                REF_AT(u, i, j, k) = (REF_AT(f, i, j, k) - off) / REF_AT(c[13], i, j, k);
            }
    return STENC_OK;
}

stenc_status ref_wjacobi2d(double h2, double omega, const stenc_field *u_f, const stenc_field *f_f,
                           stenc_field *out_f) {
    const stenc_field *all[] = {u_f, f_f, out_f};
    stenc_status st = ref_check("ref_wjacobi2d", STENC_F64, 2, 1, 1, 3, all);
    if (st != STENC_OK) return st;
    const ref_f64 u = ref_view_f64(u_f), f = ref_view_f64(f_f), out = ref_view_f64(out_f);
    long ni, nj, nk;
    ref_extents(out_f, &ni, &nj, &nk);
#pragma omp parallel for schedule(static)
    for (long j = 0; j < nj; j++)
        for (long i = 0; i < ni; i++)
            REF_AT(out, i, j, 0) =
                (1.0 - omega) * REF_AT(u, i, j, 0) +
                omega * 0.25 *
                    (h2 * REF_AT(f, i, j, 0) + REF_AT(u, i - 1, j, 0) + REF_AT(u, i + 1, j, 0) +
                     REF_AT(u, i, j - 1, 0) + REF_AT(u, i, j + 1, 0));
    return STENC_OK;
}

stenc_status ref_residual_norm(double inv_h2, const stenc_field *u_f, const stenc_field *f_f,
                               stenc_field *r_f, long double *r2, long double *rmax) {
    const stenc_field *all[] = {u_f, f_f, r_f};
    stenc_status st = ref_check("ref_residual_norm", STENC_F64, 2, 1, 1, 3, all);
    if (st != STENC_OK) return st;
    const ref_f64 u = ref_view_f64(u_f), f = ref_view_f64(f_f), r = ref_view_f64(r_f);
    long ni, nj, nk;
    ref_extents(r_f, &ni, &nj, &nk);
    long double sum = 0.0L, max = -INFINITY;
    for (long j = 0; j < nj; j++)
        for (long i = 0; i < ni; i++) {
            double v =
                REF_AT(f, i, j, 0) -
                inv_h2 * (4.0 * REF_AT(u, i, j, 0) - REF_AT(u, i - 1, j, 0) -
                          REF_AT(u, i + 1, j, 0) - REF_AT(u, i, j - 1, 0) - REF_AT(u, i, j + 1, 0));
            REF_AT(r, i, j, 0) = v;
            sum += (long double)v * v;
            if (fabsl(v) > max) max = fabsl(v);
        }
    *r2 = sum;
    *rmax = max;
    return STENC_OK;
}

stenc_status ref_gs1d_r2(int color, double h2, stenc_field *u_f, const stenc_field *f_f,
                         long double *change, long double *change2) {
    const stenc_field *all[] = {u_f, f_f};
    stenc_status st = ref_check("ref_gs1d_r2", STENC_F64, 1, 2, 1, 2, all);
    if (st != STENC_OK) return st;
    const ref_f64 u = ref_view_f64(u_f), f = ref_view_f64(f_f);
    long ni, nj, nk;
    ref_extents(u_f, &ni, &nj, &nk);
    long double max = -INFINITY, sum = 0.0L;
    for (long i = 0; i < ni; i++) {
        if (i % 3 != color) continue;
        double old = REF_AT(u, i, 0, 0);
        double v = (12.0 * h2 * REF_AT(f, i, 0, 0) - REF_AT(u, i - 2, 0, 0) +
                    16.0 * REF_AT(u, i - 1, 0, 0) + 16.0 * REF_AT(u, i + 1, 0, 0) -
                    REF_AT(u, i + 2, 0, 0)) /
                   30.0;
        REF_AT(u, i, 0, 0) = v;
        double d = v - old;
        if (fabs(d) > max) max = fabs(d);
        sum += (long double)(d * d);
    }
    *change = max;
    *change2 = sum;
    return STENC_OK;
}

stenc_status ref_dot3d(const stenc_field *x_f, const stenc_field *y_f, long double *dot,
                       long double *xmin, long double *xmax) {
    const stenc_field *all[] = {x_f, y_f};
    stenc_status st = ref_check("ref_dot3d", STENC_F32, 3, 0, 2, 2, all);
    if (st != STENC_OK) return st;
    const ref_f32 x = ref_view_f32(x_f), y = ref_view_f32(y_f);
    long ni, nj, nk;
    ref_extents(x_f, &ni, &nj, &nk);
    long double sum = 0.0L, lo = INFINITY, hi = -INFINITY;
    for (long k = 0; k < nk; k++)
        for (long j = 0; j < nj; j++)
            for (long i = 0; i < ni; i++) {
                float p = REF_AT(x, i, j, k) * REF_AT(y, i, j, k); /* rounded in float */
                sum += p;
                if (REF_AT(x, i, j, k) < lo) lo = REF_AT(x, i, j, k);
                if (REF_AT(x, i, j, k) > hi) hi = REF_AT(x, i, j, k);
            }
    *dot = sum;
    *xmin = lo;
    *xmax = hi;
    return STENC_OK;
}
