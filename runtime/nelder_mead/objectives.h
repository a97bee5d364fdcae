/* The built-in objectives, written once for the host and the device (nelder_mead_core.h).
 * Included by nelder_mead.c (CPU solvers) and nelder_mead.cu (CUDA kernels). */
#ifndef STENC_NM_OBJECTIVES_H
#define STENC_NM_OBJECTIVES_H

#include "stenc/nelder_mead_core.h"

/* Generalised Rosenbrock: a curved valley, min 0 at (1, ..., 1). */
static inline STENC_NM_HD double stenc_nm_rosenbrock_fn(const double *x, int n,
                                                        const void *params) {
    (void)params;
    double f = 0.0;
    for (int k = 0; k + 1 < n; k++) {
        const double a = x[k + 1] - x[k] * x[k], b = 1.0 - x[k];
        f += 100.0 * a * a + b * b;
    }
    return f;
}

/* Wood's four-variable function, min 0 at (1, 1, 1, 1). */
static inline STENC_NM_HD double stenc_nm_wood_fn(const double *x, int n, const void *params) {
    (void)params, (void)n;
    const double a = x[1] - x[0] * x[0], b = 1.0 - x[0], c = x[3] - x[2] * x[2], d = 1.0 - x[2];
    const double e = x[1] - 1.0, g = x[3] - 1.0;
    return 100.0 * a * a + b * b + 90.0 * c * c + d * d + 10.1 * (e * e + g * g) + 19.8 * e * g;
}

/* Powell's singular function: the Hessian is singular at the minimum 0 at the origin. */
static inline STENC_NM_HD double stenc_nm_powell_fn(const double *x, int n, const void *params) {
    (void)params, (void)n;
    const double a = x[0] + 10.0 * x[1], b = x[2] - x[3], c = x[1] - 2.0 * x[2], d = x[0] - x[3];
    return a * a + 5.0 * b * b + c * c * c * c + 10.0 * d * d * d * d;
}

static inline STENC_NM_HD double stenc_nm_paraboloid_fn(const double *x, int n,
                                                        const void *params) {
    const stenc_nm_paraboloid_params *p = (const stenc_nm_paraboloid_params *)params;
    double f = 0.0;
    for (int k = 0; k < n; k++) {
        const double d = x[k] - p->center[k];
        f += p->weight[k] * d * d;
    }
    return f;
}

/* Distance from x to the circle (sphere) |x - c| = r: the chapter's benchmark objective. */
static inline STENC_NM_HD double stenc_nm_circle_fn(const double *x, int n, const void *params) {
    const stenc_nm_circle_params *p = (const stenc_nm_circle_params *)params;
    double s = 0.0;
    for (int k = 0; k < n; k++) {
        const double d = x[k] - p->center[k];
        s += d * d;
    }
    return fabs(sqrt(s) - p->radius);
}

/* One solver per built-in (and the dimensions it accepts), for the C and the CUDA file. */
#define STENC_NM_BUILTIN_SOLVERS(define)                                                           \
    define(stenc_nm_rosenbrock, stenc_nm_rosenbrock_fn, 2, STENC_NM_MAX_DIM)                       \
        define(stenc_nm_wood, stenc_nm_wood_fn, 4, 4)                                              \
            define(stenc_nm_powell, stenc_nm_powell_fn, 4, 4)                                      \
                define(stenc_nm_paraboloid, stenc_nm_paraboloid_fn, 1, STENC_NM_MAX_DIM)           \
                    define(stenc_nm_circle, stenc_nm_circle_fn, 1, STENC_NM_MAX_DIM)

#endif /* STENC_NM_OBJECTIVES_H */
