/* stenc/divide.h -- x / c for a constant float c, correctly rounded, without a division.
 *
 * The CUDA target's kernels call stenc_div_const() where a float stencil divides by a literal
 * (docs/cuda.md, "Division by a constant"). The GPU's IEEE division (div.rn.f32) is a
 * reciprocal, Newton steps, a range check and a call to a slow path; the call's register
 * convention makes the temporally blocked kernels spill. This is three operations and a range
 * test, with the same result as x / c for every x, NaNs aside (any NaN for a NaN):
 *
 * - In the band lo <= |x| < hi: q = RN(x * y) with y = RN(1 / c), then q + RN-corrected by the
 *   remainder r = x - q * c, which an FMA computes exactly (Markstein's correction). Within the
 *   band no operation underflows or overflows, so the result for x * 2^k is the result for x
 *   times 2^k, and one binade of dividends decides every dividend of the band. The compiler
 *   checks that binade, all 2^23 of its values, against x / c before it emits the call
 *   (compiler/divide.c, which also sets lo and hi), and keeps `/` otherwise.
 * - Outside it (zeros, subnormals, tiny and huge magnitudes, infinities, NaNs): x * RN53(1 / c)
 *   in double, rounded once to float. That product is within 2^-52 relatively of x / c, and a
 *   quotient of two floats is either exactly a float or at least 2^-49 relatively from the
 *   nearest midpoint between floats (the same bound holds for subnormal results and for the
 *   overflow threshold), so rounding it to float gives RN(x / c). tests/compiler/test_divide.c
 *   checks both paths on all 2^32 floats.
 *
 * C and CUDA: on the device the intrinsics, which nvcc never contracts or reorders. */
#ifndef STENC_DIVIDE_H
#define STENC_DIVIDE_H

#include <math.h>

#if defined(__CUDACC__)
#define STENC_DIVIDE_FN static __host__ __device__ __forceinline__
#else
#define STENC_DIVIDE_FN static inline
#endif

/* RN(x / c) for lo <= |x| < hi, where the compiler's check passed; y = RN(1 / c). */
STENC_DIVIDE_FN float stenc_div_fast(float x, float c, float y) {
#if defined(__CUDA_ARCH__)
    const float q = __fmul_rn(x, y);
    return __fmaf_rn(-__fmaf_rn(q, c, -x), y, q);
#else
    const float q = x * y;
    return fmaf(-fmaf(q, c, -x), y, q);
#endif
}

/* RN(x / c) for every x; yd = RN53(1 / c). */
STENC_DIVIDE_FN float stenc_div_wide(float x, double yd) {
#if defined(__CUDA_ARCH__)
    return __double2float_rn(__dmul_rn((double)x, yd));
#else
    return (float)((double)x * yd);
#endif
}

/* RN(x / c) for every x, with the constants the compiler computed (compiler/divide.c). */
STENC_DIVIDE_FN float stenc_div_const(float x, float c, float y, double yd, float lo, float hi) {
    const float m = fabsf(x);
    return m >= lo && m < hi ? stenc_div_fast(x, c, y) : stenc_div_wide(x, yd);
}

#endif
