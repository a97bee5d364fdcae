/* Write an objective once, get a CPU solver and a CUDA kernel: the Nelder-Mead core as a
 * header-only function that gcc compiles for the CPU path and nvcc for the kernel.
 *
 * An objective is an ordinary C function
 *     STENC_NM_HD double my_objective(const double *x, int dim, const void *params);
 * defined `static inline` in a header that a .c file and a .cu file both include. Then
 *     STENC_NM_DEFINE_SOLVER(my_solver, my_objective)
 * written once in the .c file defines my_solver_cpu() and my_solver() (which picks by the
 * context's device), and written once in the .cu file defines my_solver_cuda(). All three take
 * (stenc_ctx *, const stenc_nm_batch *, const stenc_nm_options *) and return a stenc_status.
 * In a build without CUDA the .c expansion supplies my_solver_cuda(), which returns
 * STENC_ERR_NO_DEVICE. See docs/nelder_mead.md for a worked example.
 *
 * How it stays fast: the core takes the objective as a function pointer but is forced inline
 * into a call with a constant pointer and a literal dimension, so both compilers call the
 * objective directly, unroll every loop over vertices and coordinates, and keep the simplex in
 * registers. Vertices are never indexed by a run-time number (that would push the simplex to
 * local memory on the GPU): "vertex w" is read and written through unrolled selects.
 */
#ifndef STENC_NELDER_MEAD_CORE_H
#define STENC_NELDER_MEAD_CORE_H

#include <math.h>
#include <stddef.h>

#include "stenc/nelder_mead.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define STENC_NM_HD __host__ __device__
#define STENC_NM_INLINE static __forceinline__
#if defined(__CUDA_ARCH__)
#define STENC_NM_UNROLL _Pragma("unroll")
#else /* nvcc's host pass: the kernels' host copies are never run */
#define STENC_NM_UNROLL
#endif
#else
#define STENC_NM_HD
#define STENC_NM_INLINE static inline __attribute__((always_inline))
#define STENC_NM_UNROLL _Pragma("GCC unroll 16")
#endif

/* Tunables of the generated solvers. */
#define STENC_NM_CUDA_BLOCK 128        /* threads per block: one problem per thread */
#define STENC_NM_CUDA_MAX_BLOCKS 65535 /* beyond this the kernel loops over the problems */
#define STENC_NM_CPU_CHUNK 64          /* problems per OpenMP work item (convergence varies) */

typedef double (*stenc_nm_objective_fn)(const double *x, int dim, const void *params);

/* 1 when a value stops the problem; NaN and +inf become +inf under NONFINITE_REJECT. */
STENC_NM_INLINE STENC_NM_HD int stenc_nm_nonfinite_stops_(double *f, int policy) {
    if (isfinite(*f)) return 0;
    if (policy == STENC_NM_NONFINITE_REJECT && !(*f < 0.0)) {
        *f = INFINITY;
        return 0;
    }
    return 1;
}

/* v[j] = x for the one j == w, through selects (see the top of the file). */
STENC_NM_INLINE STENC_NM_HD void stenc_nm_put_(double v[][STENC_NM_MAX_DIM], double *fv, int n,
                                               int w, const double *x, double fx) {
    STENC_NM_UNROLL
    for (int j = 0; j <= n; j++) {
        if (j == w) {
            STENC_NM_UNROLL
            for (int k = 0; k < n; k++)
                v[j][k] = x[k];
            fv[j] = fx;
        }
    }
}

/* x = v[w]. */
STENC_NM_INLINE STENC_NM_HD void stenc_nm_get_(double v[][STENC_NM_MAX_DIM], int n, int w,
                                               double *x) {
    STENC_NM_UNROLL
    for (int k = 0; k < n; k++)
        x[k] = v[0][k];
    STENC_NM_UNROLL
    for (int j = 1; j <= n; j++) {
        if (j == w) {
            STENC_NM_UNROLL
            for (int k = 0; k < n; k++)
                x[k] = v[j][k];
        }
    }
}

/* Minimise fn over R^n from x0 (n is a literal at every call). Writes the best vertex to
 * x_out (which may alias x0), its value and the iteration count; returns a stenc_nm_stop.
 * Simplex moves follow Lagarias et al. (1998): reflect; expand when the reflection beats the
 * best vertex; accept a reflection that beats the second worst; otherwise contract outside or
 * inside; shrink towards the best vertex when the contraction does not help. */
STENC_NM_INLINE STENC_NM_HD int stenc_nm_solve_one(stenc_nm_objective_fn fn, const void *params,
                                                   int n, const double *x0, const double *step,
                                                   const stenc_nm_options *opt, double *x_out,
                                                   double *f_out, int *iters_out) {
    double v[STENC_NM_MAX_DIM + 1][STENC_NM_MAX_DIM];
    double fv[STENC_NM_MAX_DIM + 1];
    double xt[STENC_NM_MAX_DIM]; /* trial point */
    const int policy = opt->on_nonfinite;
    int stop = STENC_NM_STOP_MAX_ITER, iter = 0, b = 0;

    /* Initial simplex: x0 and x0 + h_k e_k. A step lost to rounding is degenerate too. */
    int degenerate = 0;
    STENC_NM_UNROLL
    for (int k = 0; k < n; k++) {
        xt[k] = x0[k];
        degenerate |= !isfinite(xt[k]);
    }
    STENC_NM_UNROLL
    for (int j = 0; j <= n; j++) {
        STENC_NM_UNROLL
        for (int k = 0; k < n; k++)
            v[j][k] = xt[k];
    }
    STENC_NM_UNROLL
    for (int k = 0; k < n; k++) {
        const double moved = xt[k] + (step ? step[k] : opt->initial_step);
        degenerate |= !isfinite(moved) || moved == xt[k];
        v[k + 1][k] = moved;
    }
    if (degenerate) {
        STENC_NM_UNROLL
        for (int k = 0; k < n; k++)
            x_out[k] = xt[k];
        *f_out = NAN;
        *iters_out = 0;
        return STENC_NM_STOP_DEGENERATE;
    }
    fv[0] = fn(v[0], n, params);
    if (!isfinite(fv[0])) { /* no finite vertex to fall back on */
        STENC_NM_UNROLL
        for (int k = 0; k < n; k++)
            x_out[k] = xt[k];
        *f_out = fv[0];
        *iters_out = 0;
        return STENC_NM_STOP_NONFINITE;
    }
    STENC_NM_UNROLL
    for (int j = 1; j <= n; j++)
        fv[j] = INFINITY; /* not yet evaluated: never the best */
    STENC_NM_UNROLL
    for (int j = 1; j <= n; j++) {
        double fj = fn(v[j], n, params);
        if (stenc_nm_nonfinite_stops_(&fj, policy)) {
            stop = STENC_NM_STOP_NONFINITE;
            goto done;
        }
        fv[j] = fj;
    }

    for (;;) {
        /* best b (first minimum), worst w (last maximum, so b != w), second worst fg */
        int w = 0;
        double fb = fv[0], fw = fv[0]; /* values carried along: fv[b] would be a dynamic index */
        b = 0;
        STENC_NM_UNROLL
        for (int j = 1; j <= n; j++) {
            if (fv[j] < fb) b = j, fb = fv[j];
            if (fv[j] >= fw) w = j, fw = fv[j];
        }
        double fg = -INFINITY;
        STENC_NM_UNROLL
        for (int j = 0; j <= n; j++)
            if (j != w && fv[j] > fg) fg = fv[j];

        double sum[STENC_NM_MAX_DIM];
        STENC_NM_UNROLL
        for (int k = 0; k < n; k++) {
            sum[k] = 0.0;
            STENC_NM_UNROLL
            for (int j = 0; j <= n; j++)
                sum[k] += v[j][k];
        }
        double ss = 0.0;
        STENC_NM_UNROLL
        for (int j = 0; j <= n; j++) {
            STENC_NM_UNROLL
            for (int k = 0; k < n; k++) {
                const double d = v[j][k] - sum[k] / (n + 1);
                ss += d * d;
            }
        }
        if (ss < opt->size_tol * opt->size_tol * (n + 1)) { /* RMS size < size_tol */
            stop = STENC_NM_STOP_SIZE;
            break;
        }
        if (fw - fb < opt->f_tol) {
            stop = STENC_NM_STOP_FTOL;
            break;
        }
        if (iter >= opt->max_iter) {
            stop = STENC_NM_STOP_MAX_ITER;
            break;
        }
        iter++;

        double xw[STENC_NM_MAX_DIM], c[STENC_NM_MAX_DIM];
        stenc_nm_get_(v, n, w, xw);
        STENC_NM_UNROLL
        for (int k = 0; k < n; k++) {
            c[k] = (sum[k] - xw[k]) / n; /* centroid of all but the worst */
            xt[k] = c[k] + opt->reflect * (c[k] - xw[k]);
        }
        double fr = fn(xt, n, params);
        if (stenc_nm_nonfinite_stops_(&fr, policy)) {
            stop = STENC_NM_STOP_NONFINITE;
            break;
        }
        if (fr < fb) {
            double xe[STENC_NM_MAX_DIM];
            STENC_NM_UNROLL
            for (int k = 0; k < n; k++)
                xe[k] = c[k] + opt->expand * (c[k] - xw[k]);
            double fe = fn(xe, n, params);
            if (stenc_nm_nonfinite_stops_(&fe, policy)) {
                stop = STENC_NM_STOP_NONFINITE;
                break;
            }
            if (fe < fr)
                stenc_nm_put_(v, fv, n, w, xe, fe);
            else
                stenc_nm_put_(v, fv, n, w, xt, fr);
            continue;
        }
        if (fr < fg) {
            stenc_nm_put_(v, fv, n, w, xt, fr);
            continue;
        }
        /* contraction: outside (towards the reflection) when it beat the worst, else inside */
        const int outside = fr < fw;
        STENC_NM_UNROLL
        for (int k = 0; k < n; k++)
            xt[k] = c[k] + opt->contract * ((outside ? xt[k] : xw[k]) - c[k]);
        double fc = fn(xt, n, params);
        if (stenc_nm_nonfinite_stops_(&fc, policy)) {
            stop = STENC_NM_STOP_NONFINITE;
            break;
        }
        if (outside ? fc <= fr : fc < fw) {
            stenc_nm_put_(v, fv, n, w, xt, fc);
            continue;
        }
        /* shrink towards the best vertex; a vertex keeps its old place until its new value is
         * known, so that a stop leaves every (vertex, value) pair consistent */
        double xb[STENC_NM_MAX_DIM];
        stenc_nm_get_(v, n, b, xb);
        int failed = 0;
        STENC_NM_UNROLL
        for (int j = 0; j <= n; j++) {
            if (j == b || failed) continue;
            STENC_NM_UNROLL
            for (int k = 0; k < n; k++)
                xt[k] = xb[k] + opt->shrink * (v[j][k] - xb[k]);
            double fj = fn(xt, n, params);
            if (stenc_nm_nonfinite_stops_(&fj, policy)) {
                failed = 1;
                continue;
            }
            STENC_NM_UNROLL
            for (int k = 0; k < n; k++)
                v[j][k] = xt[k];
            fv[j] = fj;
        }
        if (failed) {
            stop = STENC_NM_STOP_NONFINITE;
            break;
        }
    }
done:
    b = 0;
    double f_best = fv[0];
    STENC_NM_UNROLL
    for (int j = 1; j <= n; j++)
        if (fv[j] < f_best) b = j, f_best = fv[j];
    stenc_nm_get_(v, n, b, xt);
    STENC_NM_UNROLL
    for (int k = 0; k < n; k++)
        x_out[k] = xt[k];
    *f_out = f_best;
    *iters_out = iter;
    return stop;
}

/* One case of the dimension switch: instantiate the core for the literal d when the objective
 * accepts it (the test folds away at compile time). */
#define STENC_NM_DIM_CASE_(d)                                                                      \
    case d:                                                                                        \
        if (d >= min_dim && d <= max_dim)                                                          \
            stop = stenc_nm_solve_one(fn, params, d, x0, step, opt, x, &f, &iters);                \
        break;

/* Solve problem i of the batch: the body of the OpenMP loop and of the CUDA kernels. A kernel
 * for one dimension passes it as fixed_dim, so that it holds the registers of that dimension
 * only; fixed_dim 0 switches per problem. */
STENC_NM_INLINE STENC_NM_HD void stenc_nm_solve_problem(stenc_nm_objective_fn fn, int min_dim,
                                                        int max_dim, int fixed_dim,
                                                        const stenc_nm_batch *batch,
                                                        const stenc_nm_options *opt, size_t i) {
    const int n = batch->dims ? batch->dims[i] : batch->dim;
    const size_t ld = batch->ld ? batch->ld : (size_t)(batch->dim > 0 ? batch->dim : 0);
    int stop = STENC_NM_STOP_BAD_DIM, iters = 0;
    double f = NAN;
    if (n >= min_dim && n <= max_dim && n >= 1 && n <= STENC_NM_MAX_DIM && (size_t)n <= ld) {
        const void *params =
            batch->params ? (const char *)batch->params + i * batch->params_stride : NULL;
        const double *x0 = batch->x0 + i * ld;
        const double *step = batch->step ? batch->step + i * ld : NULL;
        double *x = batch->x + i * ld;
        if (fixed_dim >= 1 && fixed_dim <= STENC_NM_MAX_DIM) {
            if (n == fixed_dim && fixed_dim >= min_dim && fixed_dim <= max_dim)
                stop = stenc_nm_solve_one(fn, params, fixed_dim, x0, step, opt, x, &f, &iters);
        } else
            switch (n) {
                STENC_NM_DIM_CASE_(1)
                STENC_NM_DIM_CASE_(2)
                STENC_NM_DIM_CASE_(3)
                STENC_NM_DIM_CASE_(4)
                STENC_NM_DIM_CASE_(5)
                STENC_NM_DIM_CASE_(6)
                STENC_NM_DIM_CASE_(7)
                STENC_NM_DIM_CASE_(8)
            default:
                break;
            }
    }
    batch->f[i] = f;
    if (batch->iters) batch->iters[i] = iters;
    if (batch->stop) batch->stop[i] = stop;
}

/* Declarations for a header shared by the .c and .cu files of a user-defined solver. */
#define STENC_NM_DECLARE_SOLVER(name)                                                              \
    STENC_NM_EXTERN_C_ stenc_status name##_cpu(stenc_ctx *ctx, const stenc_nm_batch *batch,        \
                                               const stenc_nm_options *options);                   \
    STENC_NM_EXTERN_C_ stenc_status name##_cuda(stenc_ctx *ctx, const stenc_nm_batch *batch,       \
                                                const stenc_nm_options *options);                  \
    STENC_NM_EXTERN_C_ stenc_status name(stenc_ctx *ctx, const stenc_nm_batch *batch,              \
                                         const stenc_nm_options *options);

#ifdef __cplusplus
#define STENC_NM_EXTERN_C_ extern "C"
#else
#define STENC_NM_EXTERN_C_
#endif

#define STENC_NM_DEFINE_SOLVER(name, objective)                                                    \
    STENC_NM_DEFINE_SOLVER_DIMS(name, objective, 1, STENC_NM_MAX_DIM)

#if defined(__CUDACC__)

/* After a launch: report a launch-configuration error the way the library does. */
static inline stenc_status stenc_nm_cuda_launched_(const char *file, int line, const char *kernel) {
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) return STENC_OK;
    return stenc_set_error(STENC_ERR_CUDA, file, line, "launch of %s failed: %s (%s)", kernel,
                           cudaGetErrorString(err), cudaGetErrorName(err));
}

/* In a .cu file: kernels (one problem per thread; one kernel per dimension, and one that
 * switches per problem for batches with per-problem dims) and name_cuda(). */
#define STENC_NM_DEFINE_SOLVER_DIMS(name, objective, min_dim, max_dim)                             \
    template <int D>                                                                               \
    static __global__ void __launch_bounds__(STENC_NM_CUDA_BLOCK)                                  \
        name##_kernel(stenc_nm_batch batch, stenc_nm_options opt) {                                \
        const size_t stride = (size_t)gridDim.x * blockDim.x;                                      \
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < batch.count;            \
             i += stride)                                                                          \
            stenc_nm_solve_problem(objective, min_dim, max_dim, D, &batch, &opt, i);               \
    }                                                                                              \
    template <int D>                                                                               \
    static stenc_status name##_launch(stenc_ctx *ctx, const stenc_nm_batch *batch,                 \
                                      const stenc_nm_options *opt) {                               \
        size_t blocks = (batch->count + STENC_NM_CUDA_BLOCK - 1) / STENC_NM_CUDA_BLOCK;            \
        if (blocks > STENC_NM_CUDA_MAX_BLOCKS) blocks = STENC_NM_CUDA_MAX_BLOCKS;                  \
        name##_kernel<D><<<(unsigned)blocks, STENC_NM_CUDA_BLOCK, 0,                               \
                           (cudaStream_t)stenc_ctx_cuda_stream(ctx)>>>(*batch, *opt);              \
        return stenc_nm_cuda_launched_(__FILE__, __LINE__, #name "_kernel");                       \
    }                                                                                              \
    extern "C" stenc_status name##_cuda(stenc_ctx *ctx, const stenc_nm_batch *batch,               \
                                        const stenc_nm_options *options) {                         \
        stenc_status status =                                                                      \
            stenc_nm_check(ctx, STENC_DEVICE_CUDA, batch, options, #name "_cuda");                 \
        if (status != STENC_OK || batch->count == 0) return status;                                \
        const stenc_nm_options opt = options ? *options : stenc_nm_default_options();              \
        const int d =                                                                              \
            batch->dims || batch->dim < min_dim || batch->dim > max_dim ? 0 : batch->dim;          \
        switch (d) {                                                                               \
        case 1:                                                                                    \
            return name##_launch < (1 >= min_dim && 1 <= max_dim) ? 1 : 0 > (ctx, batch, &opt);    \
        case 2:                                                                                    \
            return name##_launch < (2 >= min_dim && 2 <= max_dim) ? 2 : 0 > (ctx, batch, &opt);    \
        case 3:                                                                                    \
            return name##_launch < (3 >= min_dim && 3 <= max_dim) ? 3 : 0 > (ctx, batch, &opt);    \
        case 4:                                                                                    \
            return name##_launch < (4 >= min_dim && 4 <= max_dim) ? 4 : 0 > (ctx, batch, &opt);    \
        case 5:                                                                                    \
            return name##_launch < (5 >= min_dim && 5 <= max_dim) ? 5 : 0 > (ctx, batch, &opt);    \
        case 6:                                                                                    \
            return name##_launch < (6 >= min_dim && 6 <= max_dim) ? 6 : 0 > (ctx, batch, &opt);    \
        case 7:                                                                                    \
            return name##_launch < (7 >= min_dim && 7 <= max_dim) ? 7 : 0 > (ctx, batch, &opt);    \
        case 8:                                                                                    \
            return name##_launch < (8 >= min_dim && 8 <= max_dim) ? 8 : 0 > (ctx, batch, &opt);    \
        default:                                                                                   \
            return name##_launch<0>(ctx, batch, &opt);                                             \
        }                                                                                          \
    }

#else /* C: the OpenMP solver, the dispatcher, and a CUDA stand-in in a build without CUDA */

#if defined(STENC_HAVE_CUDA) && STENC_HAVE_CUDA
#define STENC_NM_CUDA_STANDIN_(name)
#else
#define STENC_NM_CUDA_STANDIN_(name)                                                               \
    stenc_status name##_cuda(stenc_ctx *ctx, const stenc_nm_batch *batch,                          \
                             const stenc_nm_options *options) {                                    \
        (void)ctx, (void)batch, (void)options;                                                     \
        return stenc_set_error(STENC_ERR_NO_DEVICE, __FILE__, __LINE__,                            \
                               "%s: this libstenc was built without CUDA", #name "_cuda");         \
    }
#endif

#define STENC_NM_DEFINE_SOLVER_DIMS(name, objective, min_dim, max_dim)                             \
    stenc_status name##_cuda(stenc_ctx *ctx, const stenc_nm_batch *batch,                          \
                             const stenc_nm_options *options);                                     \
    stenc_status name##_cpu(stenc_ctx *ctx, const stenc_nm_batch *batch,                           \
                            const stenc_nm_options *options) {                                     \
        stenc_status status = stenc_nm_check(ctx, STENC_DEVICE_CPU, batch, options, #name "_cpu"); \
        if (status != STENC_OK) return status;                                                     \
        const stenc_nm_options opt = options ? *options : stenc_nm_default_options();              \
        const stenc_nm_batch b = *batch;                                                           \
        const ptrdiff_t count = (ptrdiff_t)b.count;                                                \
        _Pragma("omp parallel for schedule(dynamic, STENC_NM_CPU_CHUNK)") for (ptrdiff_t i = 0;    \
                                                                               i < count; i++)     \
            stenc_nm_solve_problem(objective, min_dim, max_dim, 0, &b, &opt, (size_t)i);           \
        return STENC_OK;                                                                           \
    }                                                                                              \
    STENC_NM_CUDA_STANDIN_(name)                                                                   \
    stenc_status name(stenc_ctx *ctx, const stenc_nm_batch *batch,                                 \
                      const stenc_nm_options *options) {                                           \
        if (ctx && stenc_ctx_device(ctx) == STENC_DEVICE_CUDA)                                     \
            return name##_cuda(ctx, batch, options);                                               \
        return name##_cpu(ctx, batch, options);                                                    \
    }

#endif /* __CUDACC__ */

#endif /* STENC_NELDER_MEAD_CORE_H */
