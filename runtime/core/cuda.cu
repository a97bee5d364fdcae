// The CUDA half of the core: device selection, stream, raw memory, events.
#include <cstdio>
#include <cstring>

#include "cuda_check.h"

extern "C" int stenc_cuda_count_devices(void) {
    int count = 0;
    // No driver or no device both mean "no CUDA here"; clear the sticky error state.
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

extern "C" stenc_status stenc_cuda_select_device(int ordinal) {
    STENC_CUDA_TRY(cudaSetDevice(ordinal));
    return STENC_OK;
}

extern "C" stenc_status stenc_cuda_ctx_init(stenc_ctx *ctx) {
    if (stenc_cuda_count_devices() == 0)
        return STENC_ERROR(STENC_ERR_NO_DEVICE, "stenc_ctx_create: no CUDA device is present");
    int device = 0;
    STENC_CUDA_TRY(cudaGetDevice(&device));
    cudaDeviceProp prop;
    STENC_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
    cudaStream_t stream;
    STENC_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    ctx->cuda_device = device;
    ctx->stream = stream;
    ctx->sm_count = prop.multiProcessorCount;
    ctx->l2_bytes = (size_t)prop.l2CacheSize;
    ctx->smem_optin = prop.sharedMemPerBlockOptin;
    ctx->cc_major = prop.major;
    ctx->cc_minor = prop.minor;
    snprintf(ctx->name, sizeof ctx->name, "%s (sm_%d%d, %d SMs)", prop.name, prop.major, prop.minor,
             prop.multiProcessorCount);
    return STENC_OK;
}

extern "C" void stenc_cuda_ctx_release(stenc_ctx *ctx) {
    if (ctx->stream) {
        cudaStreamSynchronize(stenc_stream(ctx));
        cudaStreamDestroy(stenc_stream(ctx));
        ctx->stream = NULL;
    }
}

extern "C" stenc_status stenc_cuda_synchronize(stenc_ctx *ctx) {
    STENC_CUDA_TRY(cudaStreamSynchronize(stenc_stream(ctx)));
    return STENC_OK;
}

extern "C" stenc_status stenc_cuda_malloc(stenc_ctx *ctx, void **ptr, size_t bytes) {
    (void)ctx;
    STENC_CUDA_TRY(cudaMalloc(ptr, bytes ? bytes : 1));
    return STENC_OK;
}

extern "C" void stenc_cuda_free(stenc_ctx *ctx, void *ptr) {
    // Frees must not race with queued kernels that still read the buffer.
    cudaStreamSynchronize(stenc_stream(ctx));
    cudaFree(ptr);
}

extern "C" stenc_status stenc_cuda_upload(stenc_ctx *ctx, void *dst, const void *src,
                                          size_t bytes) {
    STENC_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stenc_stream(ctx)));
    STENC_CUDA_TRY(cudaStreamSynchronize(stenc_stream(ctx)));
    return STENC_OK;
}

extern "C" stenc_status stenc_cuda_download(stenc_ctx *ctx, void *dst, const void *src,
                                            size_t bytes) {
    STENC_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stenc_stream(ctx)));
    STENC_CUDA_TRY(cudaStreamSynchronize(stenc_stream(ctx)));
    return STENC_OK;
}

extern "C" stenc_status stenc_cuda_memcpy(stenc_ctx *ctx, void *dst, const void *src,
                                          size_t bytes) {
    STENC_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stenc_stream(ctx)));
    return STENC_OK;
}

extern "C" stenc_status stenc_cuda_memzero(stenc_ctx *ctx, void *ptr, size_t bytes) {
    STENC_CUDA_TRY(cudaMemsetAsync(ptr, 0, bytes, stenc_stream(ctx)));
    return STENC_OK;
}

extern "C" stenc_status stenc_cuda_timer_create(stenc_ctx *ctx, void **start_event,
                                                void **stop_event) {
    (void)ctx;
    cudaEvent_t start, stop;
    STENC_CUDA_TRY(cudaEventCreate(&start));
    cudaError_t err = cudaEventCreate(&stop);
    if (err != cudaSuccess) {
        cudaEventDestroy(start);
        STENC_CUDA_TRY(err);
    }
    *start_event = start;
    *stop_event = stop;
    return STENC_OK;
}

extern "C" void stenc_cuda_timer_destroy(void *start_event, void *stop_event) {
    cudaEventDestroy((cudaEvent_t)start_event);
    cudaEventDestroy((cudaEvent_t)stop_event);
}

extern "C" stenc_status stenc_cuda_timer_record(stenc_ctx *ctx, void *event) {
    STENC_CUDA_TRY(cudaEventRecord((cudaEvent_t)event, stenc_stream(ctx)));
    return STENC_OK;
}

extern "C" stenc_status stenc_cuda_timer_elapsed(void *start_event, void *stop_event, double *ms) {
    STENC_CUDA_TRY(cudaEventSynchronize((cudaEvent_t)stop_event));
    float elapsed = 0.0f;
    STENC_CUDA_TRY(
        cudaEventElapsedTime(&elapsed, (cudaEvent_t)start_event, (cudaEvent_t)stop_event));
    *ms = elapsed;
    return STENC_OK;
}
