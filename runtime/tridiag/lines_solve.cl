/* Line solves on an OpenCL device (lines_opencl.c): one work item per line of v's interior,
 * the Thomas algorithm along it. The boundary values v[-1] and v[n] come from v's halo and
 * are folded into the first and last equations; only v's interior is written, so the halo
 * keeps its bits. The forward pass keeps the modified upper diagonal in v's interior (the
 * solution overwrites it on the way back) and the modified rhs in the rhs scratch array, so a
 * line needs no memory of its own. A zero, NaN or infinite pivot, or a non-finite solution,
 * marks the line as failed: first_bad takes the lowest failing line index. */
#pragma OPENCL FP_CONTRACT OFF
#ifdef STENC_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* As the CPU solver's TDG_BAD_PIVOT (tridiag_cpu.c). */
#define BAD_PIVOT(x) (!(fabs(x) > 0) || isinf(x))

/* base + *_off is interior point (0,0,0) of each array (v, the coefficients and the rhs share
 * v's layout). n, sd: the lines' length and stride; line t starts at (t % n1) * s1 + (t / n1)
 * * s2, for t < n1 * n2. */
#define SOLVE_LINES(T, NAME)                                                                       \
    __kernel void NAME(__global uchar *v_base, long v_off, __global const uchar *lower_base,      \
                       long lower_off, __global const uchar *diag_base, long diag_off,             \
                       __global const uchar *upper_base, long upper_off,                           \
                       __global uchar *rhs_base, long rhs_off, long n, long sd, long n1, long s1,  \
                       long n2, long s2, __global uint *first_bad) {                               \
        const long t = (long)get_global_id(0);                                                     \
        if (t >= n1 * n2) return;                                                                  \
        const long start = t % n1 * s1 + t / n1 * s2;                                              \
        __global T *v = (__global T *)(v_base + v_off) + start;                                    \
        __global const T *a = (__global const T *)(lower_base + lower_off) + start;                \
        __global const T *b = (__global const T *)(diag_base + diag_off) + start;                  \
        __global const T *c = (__global const T *)(upper_base + upper_off) + start;                \
        __global T *d = (__global T *)(rhs_base + rhs_off) + start;                                \
        const T before = v[-sd], after = v[n * sd];                                                \
        int bad = 0;                                                                               \
        T cp = 0, dp = 0;                                                                          \
        for (long p = 0; p < n; p++) {                                                             \
            const long q = p * sd;                                                                 \
            T rhs = d[q];                                                                          \
            if (p == 0) rhs -= a[q] * before;                                                      \
            if (p == n - 1) rhs -= c[q] * after;                                                   \
            const T beta = p == 0 ? b[q] : b[q] - a[q] * cp;                                       \
            bad |= BAD_PIVOT(beta);                                                                \
            dp = (p == 0 ? rhs : rhs - a[q] * dp) / beta;                                          \
            cp = p + 1 < n ? c[q] / beta : (T)0;                                                   \
            v[q] = cp;                                                                             \
            d[q] = dp;                                                                             \
        }                                                                                          \
        T x = dp;                                                                                  \
        bad |= !isfinite(x);                                                                       \
        v[(n - 1) * sd] = x;                                                                       \
        for (long p = n - 1; p-- > 0;) {                                                           \
            const long q = p * sd;                                                                 \
            x = d[q] - v[q] * x;                                                                   \
            bad |= !isfinite(x);                                                                   \
            v[q] = x;                                                                              \
        }                                                                                          \
        if (bad) atomic_min(first_bad, (uint)t);                                                   \
    }

SOLVE_LINES(float, solve_lines_f32)
#ifdef STENC_FP64
SOLVE_LINES(double, solve_lines_f64)
#endif
