/* stenc batched Nelder-Mead: minimise M independent objectives of dimension 1-8 at once, one
 * optimisation per GPU thread (Shaffer & Zagaris, GPU Computing Gems Jade, ch. 13), or spread
 * over the CPU's cores with OpenMP.
 *
 * Two ways in:
 *   - the built-in test objectives (Rosenbrock, Wood, Powell, a paraboloid, the distance to a
 *     circle): stenc_nm_minimize(ctx, STENC_NM_ROSENBROCK, &batch, &options);
 *   - your own objective, written once as a C function and compiled for the host and the
 *     device: see stenc/nelder_mead_core.h and STENC_NM_DEFINE_SOLVER (docs/nelder_mead.md).
 *
 * Data. Problem i reads x0[i*ld .. i*ld+dim) and writes x[i*ld ..], f[i], iters[i] and
 * stop[i]. On a CUDA context every pointer in the batch is a device pointer; on a CPU context
 * a host pointer (stenc_malloc/stenc_upload work on both). Everything is double precision.
 *
 * Per-problem failures are not call failures: a NaN or infinite objective value, a degenerate
 * initial simplex or a dimension out of range come back in stop[i], and the call returns
 * STENC_OK. The call fails only for bad arguments (NULL arrays, bad options, a context of the
 * wrong kind) or a device error; then the outputs are untouched, or undefined after a device
 * error. On a CUDA context the solve is queued on the context's stream: results are ready
 * after stenc_download() or stenc_ctx_synchronize().
 */
#ifndef STENC_NELDER_MEAD_H
#define STENC_NELDER_MEAD_H

#include <stddef.h>
#include <stdint.h>

#include "stenc/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STENC_NM_MAX_DIM 8 /* largest problem dimension */

/* Why a problem stopped, stored in batch.stop[i]. */
typedef enum stenc_nm_stop {
    STENC_NM_STOP_SIZE = 0,   /* converged: simplex size below options.size_tol */
    STENC_NM_STOP_FTOL,       /* converged: f_worst - f_best below options.f_tol */
    STENC_NM_STOP_MAX_ITER,   /* options.max_iter iterations done without converging */
    STENC_NM_STOP_NONFINITE,  /* the objective gave NaN or an infinity (see on_nonfinite) */
    STENC_NM_STOP_DEGENERATE, /* x0 not finite, or a zero, non-finite or lost initial step */
    STENC_NM_STOP_BAD_DIM,    /* dimension outside what the objective accepts (1..8 or less) */
    STENC_NM_STOP_COUNT
} stenc_nm_stop;

/* "size", "ftol", "max_iter", "nonfinite", "degenerate", "bad_dim"; "invalid" otherwise. */
const char *stenc_nm_stop_string(int stop);

/* What to do when the objective returns NaN or an infinity at a trial point. */
typedef enum stenc_nm_nonfinite {
    /* Stop that problem with STENC_NM_STOP_NONFINITE; x and f are the best finite vertex. */
    STENC_NM_NONFINITE_STOP = 0,
    /* Treat NaN and +inf as "worse than anything" and go on: lets an objective return +inf
     * outside its feasible set. -inf, or a non-finite value at x0, still stops the problem. */
    STENC_NM_NONFINITE_REJECT
} stenc_nm_nonfinite;

typedef struct stenc_nm_options {
    int max_iter;        /* iteration limit (>= 0); one iteration = one simplex move */
    double size_tol;     /* stop when the RMS distance of the vertices from their centroid
                            drops below this (0 disables) */
    double f_tol;        /* stop when f_worst - f_best drops below this (0 disables) */
    double initial_step; /* initial simplex x0 + initial_step*e_k, when batch.step is NULL */
    double reflect;      /* > 0 (standard 1) */
    double expand;       /* > 1 and > reflect (standard 2) */
    double contract;     /* in (0, 1) (standard 0.5) */
    double shrink;       /* in (0, 1) (standard 0.5) */
    int on_nonfinite;    /* a stenc_nm_nonfinite */
} stenc_nm_options;

/* max_iter 1000, size_tol 1e-8, f_tol 0, initial_step 0.1, coefficients 1, 2, 0.5, 0.5,
 * STENC_NM_NONFINITE_STOP. */
stenc_nm_options stenc_nm_default_options(void);

/* M problems and where their inputs and outputs live. */
typedef struct stenc_nm_batch {
    size_t count;         /* M; 0 is allowed and does nothing; a count whose arrays would
                             exceed PTRDIFF_MAX bytes is STENC_ERR_INVALID_ARGUMENT */
    int dim;              /* dimension of every problem when dims is NULL */
    const int32_t *dims;  /* optional per-problem dimensions (then ld must be set) */
    size_t ld;            /* doubles from one problem's row to the next in x0, step and x;
                             0 means dim. A per-problem dimension above ld is BAD_DIM. */
    const double *x0;     /* start points, count rows of ld */
    const double *step;   /* optional per-problem initial steps (rows of ld); NULL: every
                             coordinate uses options.initial_step */
    const void *params;   /* objective parameters of problem i at params + i*params_stride;
                             may be NULL for objectives that take none (a built-in that takes
                             some fails with STENC_ERR_INVALID_ARGUMENT) */
    size_t params_stride; /* bytes; 0 gives every problem the same parameters */
    double *x;            /* out: the minimiser (may be x0: solved in place). Untouched for
                             BAD_DIM; x0 for DEGENERATE */
    double *f;            /* out: f(x); NaN when nothing was evaluated */
    int32_t *iters;       /* out, optional: iterations done */
    int32_t *stop;        /* out, optional: a stenc_nm_stop */
} stenc_nm_batch;

/* The built-in objectives. Their parameters (batch.params) are given with each. */
typedef enum stenc_nm_builtin {
    STENC_NM_ROSENBROCK = 0, /* sum 100(x[k+1]-x[k]^2)^2 + (1-x[k])^2, dim 2..8; min 0 at 1 */
    STENC_NM_WOOD,           /* Wood's function, dim 4; min 0 at (1,1,1,1) */
    STENC_NM_POWELL,         /* Powell's singular function, dim 4; min 0 at 0 */
    STENC_NM_PARABOLOID,     /* sum w[k](x[k]-c[k])^2, dim 1..8, stenc_nm_paraboloid_params */
    STENC_NM_CIRCLE,         /* | |x - c| - r |, dim 1..8, stenc_nm_circle_params: the distance
                                to a circle (a sphere in 3-D and up), the chapter's benchmark */
    STENC_NM_BUILTIN_COUNT
} stenc_nm_builtin;

typedef struct stenc_nm_paraboloid_params {
    double center[STENC_NM_MAX_DIM];
    double weight[STENC_NM_MAX_DIM]; /* > 0 for a unique minimum */
} stenc_nm_paraboloid_params;

typedef struct stenc_nm_circle_params {
    double center[STENC_NM_MAX_DIM];
    double radius;
} stenc_nm_circle_params;

/* Minimise a built-in objective for every problem of the batch, on ctx's device. NULL
 * options means stenc_nm_default_options(). */
stenc_status stenc_nm_minimize(stenc_ctx *ctx, stenc_nm_builtin objective,
                               const stenc_nm_batch *batch, const stenc_nm_options *options);

/* The same, forced onto one device: the CPU entry needs a CPU context, the CUDA one a CUDA
 * context (STENC_ERR_NO_DEVICE in a build without CUDA). */
stenc_status stenc_nm_minimize_cpu(stenc_ctx *ctx, stenc_nm_builtin objective,
                                   const stenc_nm_batch *batch, const stenc_nm_options *options);
stenc_status stenc_nm_minimize_cuda(stenc_ctx *ctx, stenc_nm_builtin objective,
                                    const stenc_nm_batch *batch, const stenc_nm_options *options);

/* Argument checks shared by every solver, built-in or user-defined (STENC_NM_DEFINE_SOLVER
 * calls it): ctx is of kind `device`, the arrays the batch needs are present, the sizes do
 * not overflow and the options are valid. `caller` names the entry point in the message. */
stenc_status stenc_nm_check(const stenc_ctx *ctx, stenc_device device, const stenc_nm_batch *batch,
                            const stenc_nm_options *options, const char *caller);

#ifdef __cplusplus
}
#endif

#endif /* STENC_NELDER_MEAD_H */
