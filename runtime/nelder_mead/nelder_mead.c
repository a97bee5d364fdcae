/* Batched Nelder-Mead: options, argument checks, and the built-in objectives' CPU solvers and
 * dispatch. The algorithm itself is stenc/nelder_mead_core.h, shared with the CUDA kernels in
 * nelder_mead.cu. */
#include <math.h>

#include "internal.h"
#include "objectives.h"

STENC_NM_BUILTIN_SOLVERS(STENC_NM_DEFINE_SOLVER_DIMS)

stenc_nm_options stenc_nm_default_options(void) {
    stenc_nm_options o = {
        .max_iter = 1000,
        .size_tol = 1e-8,
        .f_tol = 0.0,
        .initial_step = 0.1,
        .reflect = 1.0,
        .expand = 2.0,
        .contract = 0.5,
        .shrink = 0.5,
        .on_nonfinite = STENC_NM_NONFINITE_STOP,
    };
    return o;
}

const char *stenc_nm_stop_string(int stop) {
    static const char *const names[STENC_NM_STOP_COUNT] = {
        "size", "ftol", "max_iter", "nonfinite", "degenerate", "bad_dim",
    };
    return stop >= 0 && stop < STENC_NM_STOP_COUNT ? names[stop] : "invalid";
}

static stenc_status check_options(const stenc_nm_options *o, const char *caller) {
    STENC_REQUIRE(o->max_iter >= 0, "%s: options.max_iter %d < 0", caller, o->max_iter);
    STENC_REQUIRE(o->size_tol >= 0 && o->f_tol >= 0,
                  "%s: tolerances must be >= 0 (size_tol %g, f_tol %g)", caller, o->size_tol,
                  o->f_tol);
    STENC_REQUIRE(isfinite(o->reflect) && o->reflect > 0, "%s: options.reflect %g must be > 0",
                  caller, o->reflect);
    STENC_REQUIRE(isfinite(o->expand) && o->expand > 1 && o->expand > o->reflect,
                  "%s: options.expand %g must be > 1 and > reflect %g", caller, o->expand,
                  o->reflect);
    STENC_REQUIRE(o->contract > 0 && o->contract < 1, "%s: options.contract %g not in (0, 1)",
                  caller, o->contract);
    STENC_REQUIRE(o->shrink > 0 && o->shrink < 1, "%s: options.shrink %g not in (0, 1)", caller,
                  o->shrink);
    STENC_REQUIRE(
        o->on_nonfinite == STENC_NM_NONFINITE_STOP || o->on_nonfinite == STENC_NM_NONFINITE_REJECT,
        "%s: options.on_nonfinite %d is not a stenc_nm_nonfinite", caller, o->on_nonfinite);
    return STENC_OK;
}

stenc_status stenc_nm_check(const stenc_ctx *ctx, stenc_device device, const stenc_nm_batch *batch,
                            const stenc_nm_options *options, const char *caller) {
    if (!caller) caller = "stenc_nm";
    STENC_TRY(stenc_ctx_check(ctx, caller));
    STENC_TRY(stenc_ctx_require_cpu_or_cuda(ctx, caller));
    STENC_REQUIRE(batch, "%s: batch is NULL", caller);
    if (ctx->device != device) {
        return STENC_ERROR(STENC_ERR_LOCATION, "%s: needs a %s context, got a %s one", caller,
                           stenc_device_kind_name(device), stenc_device_kind_name(ctx->device));
    }
    if (options) STENC_TRY(check_options(options, caller));
    if (batch->count == 0) return STENC_OK;
    /* Every problem writes f[i]: count must fit that array (solvers count with ptrdiff_t). */
    STENC_TRY(stenc_check_count(batch->count, sizeof(double), caller, "problems"));
    STENC_REQUIRE(batch->f, "%s: batch.f must not be NULL", caller);
    /* Rows are read only for problems of a valid dimension; with none possible, x0 and x may
     * be absent (every problem comes back BAD_DIM). */
    const int dim_ok = batch->dim >= 1 && batch->dim <= STENC_NM_MAX_DIM;
    if (batch->dims) {
        STENC_REQUIRE(batch->ld >= 1, "%s: batch.ld must be set with per-problem dims", caller);
    } else if (dim_ok && batch->ld != 0 && batch->ld < (size_t)batch->dim) {
        return STENC_ERROR(STENC_ERR_SHAPE, "%s: batch.ld %zu < dim %d", caller, batch->ld,
                           batch->dim);
    }
    if (batch->dims || dim_ok) {
        STENC_REQUIRE(batch->x0 && batch->x, "%s: batch.x0 (%p) and batch.x (%p) must be set",
                      caller, (const void *)batch->x0, (const void *)batch->x);
        size_t ld = batch->ld ? batch->ld : (size_t)batch->dim, elems, bytes;
        if (!stenc_mul_size(batch->count, ld, &elems) ||
            !stenc_mul_size(batch->count, batch->params_stride, &bytes))
            return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: count %zu with ld %zu overflows",
                               caller, batch->count, ld);
        STENC_TRY(stenc_check_count(elems, sizeof(double), caller, "doubles in x0 and x"));
    }
    return STENC_OK;
}

typedef stenc_status (*builtin_solver)(stenc_ctx *, const stenc_nm_batch *,
                                       const stenc_nm_options *);

/* The parameters each built-in reads, by name (NULL: none). The objectives dereference them
 * on the host or the device, so their absence is caught before either solver runs. */
static const char *const builtin_params[STENC_NM_BUILTIN_COUNT] = {
    [STENC_NM_PARABOLOID] = "stenc_nm_paraboloid_params",
    [STENC_NM_CIRCLE] = "stenc_nm_circle_params",
};

#define BUILTIN_ENTRY(name, fn, lo, hi) {name##_cpu, name##_cuda},
static const builtin_solver builtin_solvers[STENC_NM_BUILTIN_COUNT][2] = {
    STENC_NM_BUILTIN_SOLVERS(BUILTIN_ENTRY)};
#undef BUILTIN_ENTRY

static stenc_status minimize_on(stenc_ctx *ctx, int on_cuda, stenc_nm_builtin objective,
                                const stenc_nm_batch *batch, const stenc_nm_options *options,
                                const char *caller) {
    STENC_REQUIRE((int)objective >= 0 && objective < STENC_NM_BUILTIN_COUNT,
                  "%s: objective %d is not a stenc_nm_builtin", caller, (int)objective);
    const char *params = builtin_params[objective];
    STENC_REQUIRE(!params || !batch || batch->count == 0 || batch->params != NULL,
                  "%s: the objective reads batch.params (a %s per problem, or one shared with "
                  "params_stride 0), which is NULL",
                  caller, params);
    return builtin_solvers[objective][on_cuda](ctx, batch, options);
}

stenc_status stenc_nm_minimize_cpu(stenc_ctx *ctx, stenc_nm_builtin objective,
                                   const stenc_nm_batch *batch, const stenc_nm_options *options) {
    return minimize_on(ctx, 0, objective, batch, options, "stenc_nm_minimize_cpu");
}

stenc_status stenc_nm_minimize_cuda(stenc_ctx *ctx, stenc_nm_builtin objective,
                                    const stenc_nm_batch *batch, const stenc_nm_options *options) {
    return minimize_on(ctx, 1, objective, batch, options, "stenc_nm_minimize_cuda");
}

stenc_status stenc_nm_minimize(stenc_ctx *ctx, stenc_nm_builtin objective,
                               const stenc_nm_batch *batch, const stenc_nm_options *options) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_nm_minimize"));
    return minimize_on(ctx, ctx->device == STENC_DEVICE_CUDA, objective, batch, options,
                       "stenc_nm_minimize");
}
