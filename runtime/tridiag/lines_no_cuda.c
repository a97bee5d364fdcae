/* The CUDA half of line solves in a build without CUDA: no field reaches a device there. */
#include "lines_internal.h"

static stenc_status no_cuda(const char *fn) {
    return STENC_ERROR(STENC_ERR_NO_DEVICE, "%s: stenc was built without CUDA", fn);
}

stenc_status lns_cuda_fill_uniform(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                                   stenc_type type, void *array, double inside, double outside) {
    (void)ctx, (void)g, (void)l, (void)type, (void)array, (void)inside, (void)outside;
    return no_cuda("stenc_launch_solve_begin");
}

stenc_status lns_cuda_fill_identity(stenc_ctx *ctx, const lns_geometry *g, stenc_type type,
                                    void *lower, void *diag, void *upper, void *rhs,
                                    const void *v) {
    (void)ctx, (void)g, (void)type, (void)lower, (void)diag, (void)upper, (void)rhs, (void)v;
    return no_cuda("stenc_launch_solve_end");
}

stenc_status lns_cuda_restore_halo(stenc_ctx *ctx, const lns_geometry *g, stenc_type type, void *v,
                                   const void *rhs) {
    (void)ctx, (void)g, (void)type, (void)v, (void)rhs;
    return no_cuda("stenc_launch_solve_end");
}

stenc_status lns_cuda_transpose_in(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                                   stenc_type type, const void *const src[4], void *const dst[4],
                                   const void *v) {
    (void)ctx, (void)g, (void)l, (void)type, (void)src, (void)dst, (void)v;
    return no_cuda("stenc_launch_solve_end");
}

stenc_status lns_cuda_transpose_out(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                                    stenc_type type, const void *xt, void *v) {
    (void)ctx, (void)g, (void)l, (void)type, (void)xt, (void)v;
    return no_cuda("stenc_launch_solve_end");
}
