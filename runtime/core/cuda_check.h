/* Checked CUDA calls for the runtime's .cu files: a failing call returns STENC_ERR_CUDA with
 * the call, CUDA's message and the call site. */
#ifndef STENC_CORE_CUDA_CHECK_H
#define STENC_CORE_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "internal.h"

#define STENC_CUDA_TRY(call)                                                                       \
    do {                                                                                           \
        cudaError_t cuda_err_ = (call);                                                            \
        if (cuda_err_ != cudaSuccess)                                                              \
            return stenc_set_error(                                                                \
                cuda_err_ == cudaErrorMemoryAllocation ? STENC_ERR_OUT_OF_MEMORY : STENC_ERR_CUDA, \
                __FILE__, __LINE__, "%s failed: %s (%s)", #call, cudaGetErrorString(cuda_err_),    \
                cudaGetErrorName(cuda_err_));                                                      \
    } while (0)

/* After a kernel launch: report launch-configuration errors at the launch site. */
#define STENC_CUDA_CHECK_LAUNCH(kernel_name)                                                       \
    do {                                                                                           \
        cudaError_t cuda_err_ = cudaGetLastError();                                                \
        if (cuda_err_ != cudaSuccess)                                                              \
            return stenc_set_error(STENC_ERR_CUDA, __FILE__, __LINE__,                             \
                                   "launch of %s failed: %s (%s)", kernel_name,                    \
                                   cudaGetErrorString(cuda_err_), cudaGetErrorName(cuda_err_));    \
    } while (0)

static inline cudaStream_t stenc_stream(const stenc_ctx *ctx) {
    return (cudaStream_t)ctx->stream;
}

#endif /* STENC_CORE_CUDA_CHECK_H */
