/* Internals of the OpenCL half of the runtime (prefix ocl_): a context's OpenCL state, its
 * table of buffers behind the reserved address ranges, checked OpenCL calls, and the kernels
 * built per context. For runtime/opencl and the OpenCL halves of other modules (fields). Built
 * only with OpenCL. Not installed. */
#ifndef STENC_OCL_INTERNAL_H
#define STENC_OCL_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "internal.h"
#include "stenc/opencl.h"

/* One stenc_malloc: the buffer behind the address range [base, base + bytes). */
typedef struct ocl_range {
    uintptr_t base;
    size_t bytes;
    cl_mem mem;
} ocl_range;

/* A context's OpenCL state (ctx->ocl). */
typedef struct ocl_state {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* in order, with profiling */
    int fp64;               /* the device computes in double precision */
    int fp32_exact_div;     /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT for float */
    int marker_profiling;   /* markers carry profiling times (else timers use the host clock) */
    int is_cpu;             /* CL_DEVICE_TYPE_CPU */
    cl_ulong max_alloc;     /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    ocl_range *ranges;      /* sorted by base */
    size_t nranges, capacity;
} ocl_state;

static inline ocl_state *ocl_of(const stenc_ctx *ctx) {
    return (ocl_state *)ctx->ocl;
}

/* "CL_INVALID_VALUE", ...; "unknown OpenCL error" for a code it does not know. */
const char *ocl_error_name(cl_int err);

/* The status an OpenCL error code maps to: out of memory for allocation failures, else
 * STENC_ERR_OPENCL. */
stenc_status ocl_status_of(cl_int err);

/* Run an OpenCL call that returns a cl_int; on failure return its status with a message naming
 * `fn` (the public call), the OpenCL call, and OpenCL's error. */
#define OCL_TRY(fn, call)                                                                          \
    do {                                                                                           \
        cl_int ocl_err_ = (call);                                                                  \
        if (ocl_err_ != CL_SUCCESS)                                                                \
            return stenc_set_error(ocl_status_of(ocl_err_), __FILE__, __LINE__,                    \
                                   "%s: %s failed: %s (%d)", (fn), #call,                          \
                                   ocl_error_name(ocl_err_), (int)ocl_err_);                       \
    } while (0)

/* The buffer that [ptr, ptr + bytes) lies in, and ptr's offset in it. A pointer outside every
 * allocation of ctx, or a span that runs past the end of its allocation, is
 * STENC_ERR_INVALID_ARGUMENT naming `fn` and `what` (the argument). */
stenc_status ocl_lookup(const stenc_ctx *ctx, const void *ptr, size_t bytes, const char *fn,
                        const char *what, cl_mem *mem, size_t *offset);

/* Kernel `kernel` of `program` for ctx, with -DSTENC_FP64 when fp64: built on first use and
 * kept in the context's "opencl programs" slot (see stenc_ocl_launch for the options and the
 * errors). The kernel is the context's: set its arguments and enqueue it before the next call
 * that may use it. `fn` names the public call in messages. */
stenc_status ocl_kernel(stenc_ctx *ctx, const stenc_ocl_program *program, int fp64,
                        const char *kernel, const char *fn, cl_kernel *out);

#endif /* STENC_OCL_INTERNAL_H */
