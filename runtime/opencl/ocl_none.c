/* The OpenCL half in a build without OpenCL: no OpenCL context can be created, so the
 * memory and timer entries are never reached; asking for OpenCL is an error, never a crash. */
#include "internal.h"
#include "stenc/opencl.h"

#define NO_OPENCL(fn)                                                                              \
    STENC_ERROR(STENC_ERR_NO_DEVICE, "%s: this libstenc was built without OpenCL", fn)

int stenc_ocl_count_devices(void) {
    return 0;
}
stenc_status stenc_ocl_ctx_init(stenc_ctx *ctx) {
    (void)ctx;
    return NO_OPENCL("stenc_ctx_create");
}
void stenc_ocl_ctx_release(stenc_ctx *ctx) {
    (void)ctx;
}
stenc_status stenc_ocl_synchronize(stenc_ctx *ctx) {
    (void)ctx;
    return NO_OPENCL("stenc_ctx_synchronize");
}
stenc_status stenc_ocl_malloc(stenc_ctx *ctx, void **ptr, size_t bytes) {
    (void)ctx, (void)ptr, (void)bytes;
    return NO_OPENCL("stenc_malloc");
}
stenc_status stenc_ocl_free(stenc_ctx *ctx, void *ptr) {
    (void)ctx, (void)ptr;
    return NO_OPENCL("stenc_free");
}
stenc_status stenc_ocl_upload(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    (void)ctx, (void)dst, (void)src, (void)bytes;
    return NO_OPENCL("stenc_upload");
}
stenc_status stenc_ocl_download(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    (void)ctx, (void)dst, (void)src, (void)bytes;
    return NO_OPENCL("stenc_download");
}
stenc_status stenc_ocl_memcpy(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    (void)ctx, (void)dst, (void)src, (void)bytes;
    return NO_OPENCL("stenc_memcpy");
}
stenc_status stenc_ocl_memzero(stenc_ctx *ctx, void *ptr, size_t bytes) {
    (void)ctx, (void)ptr, (void)bytes;
    return NO_OPENCL("stenc_memzero");
}
stenc_status stenc_ocl_timer_create(stenc_ctx *ctx, void **start, void **stop) {
    (void)ctx, (void)start, (void)stop;
    return NO_OPENCL("stenc_timer_create");
}
void stenc_ocl_timer_destroy(void *start, void *stop) {
    (void)start, (void)stop;
}
stenc_status stenc_ocl_timer_record(stenc_ctx *ctx, void *mark) {
    (void)ctx, (void)mark;
    return NO_OPENCL("stenc_timer_start");
}
stenc_status stenc_ocl_timer_elapsed(void *start, void *stop, double *ms) {
    (void)start, (void)stop, (void)ms;
    return NO_OPENCL("stenc_timer_stop");
}

/* The public calls check their context first, as they do with OpenCL. */
stenc_status stenc_ocl_buffer(stenc_ctx *ctx, const void *ptr, void **cl_mem_out,
                              size_t *byte_offset) {
    (void)ptr, (void)cl_mem_out, (void)byte_offset;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_ocl_buffer"));
    return NO_OPENCL("stenc_ocl_buffer");
}

stenc_status stenc_ocl_launch(stenc_ctx *ctx, const stenc_ocl_program *program, const char *kernel,
                              int dims, const size_t *local, const size_t *points,
                              const stenc_launch_shape *shape, const stenc_launch_field *fields,
                              int nfields, const double *scalars, int nscalars, stenc_type type,
                              const int *extra, int nextra) {
    (void)program, (void)kernel, (void)dims, (void)local, (void)points, (void)shape;
    (void)fields;
    (void)nfields, (void)scalars, (void)nscalars, (void)type, (void)extra, (void)nextra;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_ocl_launch"));
    return NO_OPENCL("stenc_ocl_launch");
}

stenc_status stenc_ocl_reduce(stenc_ctx *ctx, const stenc_ocl_program *program, const char *kernel,
                              int dims, const size_t *local, const size_t *points,
                              const stenc_launch_shape *shape, const stenc_launch_field *fields,
                              int nfields, const double *scalars, int nscalars, stenc_type type,
                              const int *extra, int nextra, const char *ops, double *results) {
    (void)program, (void)kernel, (void)dims, (void)local, (void)points, (void)shape, (void)fields;
    (void)nfields, (void)scalars, (void)nscalars, (void)type, (void)extra, (void)nextra;
    (void)ops, (void)results;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_ocl_reduce"));
    return NO_OPENCL("stenc_ocl_reduce");
}

int stenc_ocl_device_is_cpu(const stenc_ctx *ctx) {
    (void)ctx;
    return 0;
}
