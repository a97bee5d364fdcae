/* Accumulators for reductions: compensated sums, and max/min that propagate NaN. One place
 * for generated kernels (C, CUDA and OpenCL) and the runtime's field norms.
 *
 * Sums are Neumaier's compensated summation over Knuth's exact TwoSum: `s` is the naive sum
 * and `c` collects the rounding error of every addition, so s + c stays within about one
 * rounding of the exact sum whatever the number of terms. Branch-free, so CPU and GPU take the
 * same path. Must not be compiled with reassociation (-ffast-math). OpenCL programs are built
 * after this file (runtime/opencl), on devices with doubles.
 */
#ifndef STENC_ACCUM_H
#define STENC_ACCUM_H

#ifndef __OPENCL_VERSION__ /* OpenCL C has these built in */
#include <math.h>
#endif

#if defined(__CUDACC__)
#define STENC_ACC_FN static inline __host__ __device__
#else
#define STENC_ACC_FN static inline
#endif

typedef struct stenc_acc {
    double s; /* the running (naive) sum, or the max / min */
    double c; /* sums: the rounding errors of s, summed */
} stenc_acc;

#define STENC_ACC_SUM_INIT                                                                         \
    { 0.0, 0.0 }
#define STENC_ACC_MAX_INIT                                                                         \
    { -INFINITY, 0.0 }
#define STENC_ACC_MIN_INIT                                                                         \
    { INFINITY, 0.0 }

/* Add x + err, where err is an exactly known correction of x (e.g. a product's rounding
 * error), or the compensation of a partial sum being merged. */
STENC_ACC_FN void stenc_acc_sum_add2(stenc_acc *acc, double x, double err) {
    double t = acc->s + x;
    double bp = t - acc->s;
    acc->c += ((acc->s - (t - bp)) + (x - bp)) + err;
    acc->s = t;
}
STENC_ACC_FN void stenc_acc_sum_add(stenc_acc *acc, double x) {
    stenc_acc_sum_add2(acc, x, 0.0);
}
STENC_ACC_FN void stenc_acc_sum_merge(stenc_acc *acc, const stenc_acc *part) {
    stenc_acc_sum_add2(acc, part->s, part->c);
}
/* A non-finite naive sum is the honest answer (its compensation would be NaN). */
STENC_ACC_FN double stenc_acc_sum_result(const stenc_acc *acc) {
    return isfinite(acc->s) ? acc->s + acc->c : acc->s;
}

/* Of equal values +0 wins a max and -0 a min, so that the result is the same in any order. */
STENC_ACC_FN void stenc_acc_max_add(stenc_acc *acc, double x) {
    if (isnan(x) || x > acc->s || (x == acc->s && signbit(acc->s) && !signbit(x)))
        acc->s = isnan(acc->s) ? acc->s : x;
}
STENC_ACC_FN void stenc_acc_max_merge(stenc_acc *acc, const stenc_acc *part) {
    stenc_acc_max_add(acc, part->s);
}
STENC_ACC_FN double stenc_acc_max_result(const stenc_acc *acc) {
    return acc->s;
}

STENC_ACC_FN void stenc_acc_min_add(stenc_acc *acc, double x) {
    if (isnan(x) || x < acc->s || (x == acc->s && !signbit(acc->s) && signbit(x)))
        acc->s = isnan(acc->s) ? acc->s : x;
}
STENC_ACC_FN void stenc_acc_min_merge(stenc_acc *acc, const stenc_acc *part) {
    stenc_acc_min_add(acc, part->s);
}
STENC_ACC_FN double stenc_acc_min_result(const stenc_acc *acc) {
    return acc->s;
}

#endif /* STENC_ACCUM_H */
