/* The CUDA half of the core in a build without CUDA: there is no device, and asking for one
 * is an error, never a crash. */
#include "internal.h"

#define NO_CUDA(fn) STENC_ERROR(STENC_ERR_NO_DEVICE, "%s: this libstenc was built without CUDA", fn)

int stenc_cuda_count_devices(void) {
    return 0;
}
stenc_status stenc_cuda_select_device(int ordinal) {
    (void)ordinal;
    return NO_CUDA("stenc_ctx_create_mpi");
}
stenc_status stenc_cuda_ctx_init(stenc_ctx *ctx) {
    (void)ctx;
    return NO_CUDA("stenc_ctx_create");
}
void stenc_cuda_ctx_release(stenc_ctx *ctx) {
    (void)ctx;
}
stenc_status stenc_cuda_synchronize(stenc_ctx *ctx) {
    (void)ctx;
    return NO_CUDA("stenc_ctx_synchronize");
}
stenc_status stenc_cuda_malloc(stenc_ctx *ctx, void **ptr, size_t bytes) {
    (void)ctx, (void)ptr, (void)bytes;
    return NO_CUDA("stenc_malloc");
}
void stenc_cuda_free(stenc_ctx *ctx, void *ptr) {
    (void)ctx, (void)ptr;
}
stenc_status stenc_cuda_upload(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    (void)ctx, (void)dst, (void)src, (void)bytes;
    return NO_CUDA("stenc_upload");
}
stenc_status stenc_cuda_download(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    (void)ctx, (void)dst, (void)src, (void)bytes;
    return NO_CUDA("stenc_download");
}
stenc_status stenc_cuda_memcpy(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    (void)ctx, (void)dst, (void)src, (void)bytes;
    return NO_CUDA("stenc_memcpy");
}
stenc_status stenc_cuda_memzero(stenc_ctx *ctx, void *ptr, size_t bytes) {
    (void)ctx, (void)ptr, (void)bytes;
    return NO_CUDA("stenc_memzero");
}
stenc_status stenc_cuda_timer_create(stenc_ctx *ctx, void **start_event, void **stop_event) {
    (void)ctx, (void)start_event, (void)stop_event;
    return NO_CUDA("stenc_timer_create");
}
void stenc_cuda_timer_destroy(void *start_event, void *stop_event) {
    (void)start_event, (void)stop_event;
}
stenc_status stenc_cuda_timer_record(stenc_ctx *ctx, void *event) {
    (void)ctx, (void)event;
    return NO_CUDA("stenc_timer_start");
}
stenc_status stenc_cuda_timer_elapsed(void *start_event, void *stop_event, double *ms) {
    (void)start_event, (void)stop_event, (void)ms;
    return NO_CUDA("stenc_timer_stop");
}
