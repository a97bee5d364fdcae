/* A user-defined objective written once for the CPU and the GPU (STENC_NM_DEFINE_SOLVER in
 * user_objective.c and user_objective.cu): a weighted bowl with per-problem parameters, a
 * NaN region and a -inf pit, to test parameters, the mechanism and non-finite handling. */
#ifndef TEST_NM_USER_OBJECTIVE_H
#define TEST_NM_USER_OBJECTIVE_H

#include "stenc/nelder_mead_core.h"

typedef struct bowl_params {
    double center[STENC_NM_MAX_DIM];
    double nan_above;     /* f is NaN where x[0] > nan_above */
    double neg_inf_below; /* f is -inf where x[0] < neg_inf_below */
} bowl_params;

/* sum (k+1) (x[k] - c[k])^2 */
static inline STENC_NM_HD double bowl_fn(const double *x, int n, const void *params) {
    const bowl_params *p = (const bowl_params *)params;
    if (x[0] > p->nan_above) return NAN;
    if (x[0] < p->neg_inf_below) return -INFINITY;
    double f = 0.0;
    for (int k = 0; k < n; k++) {
        const double d = x[k] - p->center[k];
        f += (k + 1) * d * d;
    }
    return f;
}

STENC_NM_DECLARE_SOLVER(test_bowl)

#endif
