/* The CUDA half of the multigrid module in a build without CUDA: no field can live on a
 * device, so these are unreachable through the public API; they still answer properly. */
#include "mg_internal.h"

#define NO_CUDA(fn) STENC_ERROR(STENC_ERR_NO_DEVICE, "%s: this libstenc was built without CUDA", fn)

stenc_status stenc_mg_cuda_restrict(stenc_ctx *ctx, const stenc_mg_view *coarse,
                                    const stenc_mg_view *fine, stenc_mg_grid grid,
                                    const long shift[3], stenc_mg_restriction op) {
    (void)ctx, (void)coarse, (void)fine, (void)grid, (void)shift, (void)op;
    return NO_CUDA("stenc_mg_restrict");
}

stenc_status stenc_mg_cuda_prolong_add(stenc_ctx *ctx, const stenc_mg_view *fine,
                                       const stenc_mg_view *coarse, stenc_mg_grid grid,
                                       const long shift[3]) {
    (void)ctx, (void)fine, (void)coarse, (void)grid, (void)shift;
    return NO_CUDA("stenc_mg_prolong_add");
}

stenc_status stenc_mg_cuda_reduce(stenc_ctx *ctx, stenc_reduce_kind kind, const stenc_mg_view *a,
                                  const stenc_mg_view *b, double *result) {
    (void)ctx, (void)kind, (void)a, (void)b, (void)result;
    return NO_CUDA("stenc field reduction");
}
