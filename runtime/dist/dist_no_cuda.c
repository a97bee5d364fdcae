/* runtime/dist without CUDA: no field is ever on a device, so these are never reached. */
#include "dist_internal.h"

#define NO_CUDA(fn) STENC_ERROR(STENC_ERR_NO_DEVICE, "%s: stenc was built without CUDA", fn)

stenc_status dist_cuda_stream_create(dist_stream *s) {
    (void)s;
    return NO_CUDA("stenc_field_create_dist");
}
void dist_cuda_stream_destroy(dist_stream *s) {
    (void)s;
}
stenc_status dist_cuda_mark_ready(stenc_ctx *ctx, dist_stream *s) {
    (void)ctx, (void)s;
    return NO_CUDA("stenc_field_exchange");
}
stenc_status dist_cuda_wait_ready(dist_stream *s) {
    (void)s;
    return NO_CUDA("stenc_field_exchange");
}
stenc_status dist_cuda_join(stenc_ctx *ctx, dist_stream *s) {
    (void)ctx, (void)s;
    return NO_CUDA("stenc_field_exchange");
}
stenc_status dist_cuda_sync(dist_stream *s) {
    (void)s;
    return NO_CUDA("stenc_field_exchange");
}
stenc_status dist_cuda_box(dist_stream *s, const dist_box *box, void *buffer, int unpack) {
    (void)s, (void)box, (void)buffer, (void)unpack;
    return NO_CUDA("stenc_field_exchange");
}
stenc_status dist_cuda_gather(dist_stream *s, const dist_gather *g, void *buffer) {
    (void)s, (void)g, (void)buffer;
    return NO_CUDA("stenc_mb_exchange");
}
stenc_status dist_cuda_ipc_alloc(void **ptr, size_t bytes,
                                 unsigned char handle[DIST_IPC_HANDLE_BYTES]) {
    (void)ptr, (void)bytes, (void)handle;
    return NO_CUDA("stenc_field_create_dist");
}
void dist_cuda_ipc_free(void *ptr) {
    (void)ptr;
}
int dist_cuda_bus_id(char bus[DIST_BUS_ID_BYTES]) {
    (void)bus;
    return 0;
}
void *dist_cuda_ipc_open(const unsigned char handle[DIST_IPC_HANDLE_BYTES],
                         const char bus[DIST_BUS_ID_BYTES]) {
    (void)handle, (void)bus;
    return NULL;
}
void dist_cuda_ipc_close(void *ptr) {
    (void)ptr;
}
stenc_status dist_cuda_host_alloc(void **ptr, size_t bytes) {
    (void)ptr, (void)bytes;
    return NO_CUDA("stenc_field_create_dist");
}
void dist_cuda_host_free(void *ptr) {
    (void)ptr;
}
stenc_status dist_cuda_copy(dist_stream *s, void *dst, const void *src, size_t bytes,
                            int to_device) {
    (void)s, (void)dst, (void)src, (void)bytes, (void)to_device;
    return NO_CUDA("stenc_field_exchange");
}
stenc_status dist_cuda_reduce(stenc_ctx *ctx, int kind, stenc_type type, const size_t n[3],
                              const void *a, const ptrdiff_t a_stride[3], const void *b,
                              const ptrdiff_t b_stride[3], xsum *acc, uint64_t *max_bits) {
    (void)ctx, (void)kind, (void)type, (void)n, (void)a, (void)a_stride, (void)b, (void)b_stride;
    (void)acc, (void)max_bits;
    return NO_CUDA("stenc_field reduction");
}
