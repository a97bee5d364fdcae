/* divide: a float division by a constant as stenc_div_const() (stenc/divide.h), where that is
 * correctly rounded for every dividend. */
#ifndef STENC_DIVIDE_PLAN_H
#define STENC_DIVIDE_PLAN_H

#include "ast.h"

/* The constants of stenc_div_const(x, c, y, yd, lo, hi). */
typedef struct divide_const {
    float c;   /* the divisor */
    float y;   /* RN(1 / c) in float */
    double yd; /* RN(1 / c) in double */
    float lo;  /* the fast path's band: lo <= |x| < hi */
    float hi;
} divide_const;

/* Plan x / c: 1 with `out` filled when stenc_div_const() gives RN(x / c) for every float x,
 * which is checked on all dividends in [1, 2) (see stenc/divide.h); 0 when c is zero, not
 * finite, outside [2^-124, 2^124] in magnitude, or fails that check. */
int divide_plan(float c, divide_const *out);

/* Whether `x` is a division that divide_plan() may take: in a float stencil (`in_float`), a
 * dividend that is not made of numbers alone (the C compiler folds those) over a literal or a
 * negated one, not a power of two (nvcc multiplies by its reciprocal, which is exact); *c is
 * then the divisor as the float it is printed as. */
int divide_literal(const ast_expr *x, int in_float, float *c);

#endif
