/* The CUDA half of the tridiagonal solvers in a build without CUDA. */
#include "tridiag_internal.h"

static stenc_status no_cuda(const char *fn) {
    return STENC_ERROR(STENC_ERR_NO_DEVICE, "%s: stenc was built without CUDA", fn);
}

stenc_status tdg_cuda_solve(stenc_ctx *ctx, const tdg_problem *p, void *device_flag,
                            uint64_t *first_bad) {
    (void)ctx, (void)p, (void)device_flag, (void)first_bad;
    return no_cuda("stenc_tridiag_solve");
}

stenc_tridiag_algo tdg_cuda_auto_algo(const stenc_ctx *ctx, stenc_type type,
                                      stenc_tridiag_layout layout, size_t n, size_t batch) {
    (void)ctx, (void)type, (void)layout, (void)n, (void)batch;
    return STENC_TRIDIAG_THOMAS;
}

stenc_status tdg_cuda_flag_create(stenc_ctx *ctx, void **device_flag) {
    (void)ctx, (void)device_flag;
    return no_cuda("stenc_tridiag_report_create");
}

void tdg_cuda_flag_destroy(stenc_ctx *ctx, void *device_flag) {
    (void)ctx, (void)device_flag;
}

stenc_status tdg_cuda_flag_take(stenc_ctx *ctx, void *device_flag, uint64_t *first_bad) {
    (void)ctx, (void)device_flag, (void)first_bad;
    return no_cuda("stenc_tridiag_report_check");
}
