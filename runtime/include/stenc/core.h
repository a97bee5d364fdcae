/* stenc core API: status codes, errors, element types, the context, raw memory and timers.
 *
 * Every fallible call returns a stenc_status. On failure, stenc_last_error() gives a message
 * that says what went wrong and where. The library never prints, exits or aborts.
 *
 * Handles (contexts, fields, hash tables, timers, graphs, tridiagonal reports) are checked on
 * every call: one that was destroyed already, or a handle of another kind, is
 * STENC_ERR_INVALID_ARGUMENT, never a crash. A destroy returns a status for the same reason;
 * NULL is allowed and does nothing. Accessors that return a value instead of a status return
 * their NULL-argument value for such a handle and record the error. A failed create sets its
 * handle to NULL (see docs/runtime.md, "What a failed call leaves in its outputs").
 */
#ifndef STENC_CORE_H
#define STENC_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STENC_VERSION_MAJOR 0
#define STENC_VERSION_MINOR 1
#define STENC_VERSION_PATCH 0
#define STENC_VERSION_STRING "0.1.0"

/* The version of the library linked in, which may differ from the header's STENC_VERSION_STRING
 * when a program runs against another libstenc.so of the same major version. */
const char *stenc_version(void);

/* ---- status ------------------------------------------------------------------------------ */

typedef enum stenc_status {
    STENC_OK = 0,
    STENC_ERR_INVALID_ARGUMENT, /* NULL pointer, bad enum, negative count, ... */
    STENC_ERR_SHAPE,            /* shapes, types or halos of arguments do not fit together */
    STENC_ERR_OUT_OF_MEMORY,    /* host or device allocation failed */
    STENC_ERR_NO_DEVICE,        /* a CUDA or OpenCL device was asked for, but none is present or
                                 * built */
    STENC_ERR_CUDA,             /* a CUDA runtime or library call failed */
    STENC_ERR_LOCATION,         /* data is on the host where the device was needed, or back */
    STENC_ERR_SINGULAR,         /* a zero pivot or singular system */
    STENC_ERR_NUMERICAL,        /* NaN or infinity where a finite value was needed */
    STENC_ERR_CAPACITY,         /* a structure could not be built within its size/attempts */
    STENC_ERR_IO,               /* a file could not be read or written */
    STENC_ERR_UNSUPPORTED,      /* a valid request that this build or type cannot do */
    STENC_ERR_INTERNAL,         /* a bug in stenc: please report it */
    STENC_ERR_OPENCL,           /* an OpenCL call failed (appended: earlier values are kept) */
    STENC_STATUS_COUNT
} stenc_status;

/* A short, constant description of a status code ("invalid argument"). */
const char *stenc_status_string(stenc_status status);

/* The message of the most recent failure in this thread: what failed, why, and the call site.
 * Empty when nothing has failed. Valid until the next failing call in this thread. */
const char *stenc_last_error(void);

/* Forget the last error of this thread. */
void stenc_clear_error(void);

/* Record a failure for stenc_last_error() and return `status`: for generated launchers and
 * extensions that report errors the way the library does. `file`/`line` name the call site.
 * A NULL `fmt` records "(no message)", a NULL `file` "(unknown file)". */
stenc_status stenc_set_error(stenc_status status, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- element types ----------------------------------------------------------------------- */

typedef enum stenc_type {
    STENC_F32 = 0,
    STENC_F64,
    STENC_I32,
    STENC_U32,
    STENC_I64,
    STENC_U64,
    STENC_U8, /* fields of integers: i32 and u8 (masks, material ids); see stenc/field.h */
    STENC_TYPE_COUNT
} stenc_type;

/* Bytes per element; 0 for an invalid type. */
size_t stenc_type_size(stenc_type type);

/* "float", "double", "i32", ...; "invalid" for an invalid type. */
const char *stenc_type_name(stenc_type type);

/* 1 for STENC_F32 and STENC_F64. */
int stenc_type_is_real(stenc_type type);

/* ---- context ----------------------------------------------------------------------------- */

typedef enum stenc_device {
    STENC_DEVICE_AUTO = 0, /* CUDA when a device is present, else CPU; env
                            * STENC_DEVICE=cpu|cuda|opencl */
    STENC_DEVICE_CPU,
    STENC_DEVICE_CUDA,
    STENC_DEVICE_OPENCL /* an OpenCL device (stenc/opencl.h): env STENC_OPENCL_DEVICE=P:D picks
                         * platform P's device D, else the first device found */
} stenc_device;

/* The device in use, its stream and its properties. Everything else hangs off a context.
 * A context is used by one host thread at a time. */
typedef struct stenc_ctx stenc_ctx;

/* Create a context. STENC_DEVICE_CUDA (STENC_DEVICE_OPENCL) fails with STENC_ERR_NO_DEVICE when
 * no CUDA (OpenCL) device is present or stenc was built without CUDA (OpenCL). A malformed or
 * out-of-range STENC_OPENCL_DEVICE is STENC_ERR_INVALID_ARGUMENT. */
stenc_status stenc_ctx_create(stenc_ctx **ctx, stenc_device device);

/* Release a context and its stream. NULL is allowed; a context destroyed already is
 * STENC_ERR_INVALID_ARGUMENT. Destroy what belongs to the context first. */
stenc_status stenc_ctx_destroy(stenc_ctx *ctx);

/* STENC_DEVICE_CPU, STENC_DEVICE_CUDA or STENC_DEVICE_OPENCL: what the context actually uses. */
stenc_device stenc_ctx_device(const stenc_ctx *ctx);

/* A readable name: "CPU (16 threads)", "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)" or
 * "Portable Computing Language: pthread-skylake-avx512-AMD EPYC 9B14 (OpenCL)". */
const char *stenc_ctx_device_name(const stenc_ctx *ctx);

/* The cudaStream_t that launches on this context use (NULL on the CPU). */
void *stenc_ctx_cuda_stream(const stenc_ctx *ctx);

/* Wait for all work queued on the context; reports asynchronous CUDA (OpenCL) errors. */
stenc_status stenc_ctx_synchronize(stenc_ctx *ctx);

/* Number of CUDA devices usable at run time; 0 when none or when built without CUDA. */
int stenc_cuda_device_count(void);

/* 1 if this build of libstenc contains CUDA code. */
int stenc_built_with_cuda(void);

/* Number of OpenCL devices (of every platform) usable at run time; 0 when none or when built
 * without OpenCL. */
int stenc_opencl_device_count(void);

/* 1 if this build of libstenc can use OpenCL. */
int stenc_built_with_opencl(void);

/* ---- raw memory on the context's device -------------------------------------------------- */
/* On a CPU context "device memory" is ordinary, 128-byte-aligned host memory, so code written
 * against these calls runs unchanged on either device. On an OpenCL context a pointer from
 * stenc_malloc is an address in a reserved range that the host cannot read: it stands for a
 * buffer, and pointers inside the range (allocation + offset) for places in it
 * (stenc/opencl.h). */

/* *ptr is NULL after a failure. More than PTRDIFF_MAX bytes is STENC_ERR_OUT_OF_MEMORY. */
stenc_status stenc_malloc(stenc_ctx *ctx, void **ptr, size_t bytes);
/* NULL ptr is allowed. */
stenc_status stenc_free(stenc_ctx *ctx, void *ptr);
/* Copies between host memory and the context's memory. Blocking. More than PTRDIFF_MAX bytes
 * (no object is larger) is STENC_ERR_INVALID_ARGUMENT. */
stenc_status stenc_upload(stenc_ctx *ctx, void *dst_device, const void *src_host, size_t bytes);
stenc_status stenc_download(stenc_ctx *ctx, void *dst_host, const void *src_device, size_t bytes);
/* Copy within the context's memory. Ordered on the context's stream (queue). On an OpenCL
 * context the two ranges may not overlap. */
stenc_status stenc_memcpy(stenc_ctx *ctx, void *dst_device, const void *src_device, size_t bytes);

/* ---- timers ------------------------------------------------------------------------------ */
/* Device timing with CUDA events on a CUDA context, profiled markers on the queue of an OpenCL
 * context, a monotonic clock on the CPU. */

typedef struct stenc_timer stenc_timer;
stenc_status stenc_timer_create(stenc_ctx *ctx, stenc_timer **timer);
stenc_status stenc_timer_destroy(stenc_timer *timer); /* NULL is allowed */
stenc_status stenc_timer_start(stenc_timer *timer);
/* Stops the timer, waits for the work in between, and stores the elapsed milliseconds. */
stenc_status stenc_timer_stop(stenc_timer *timer, double *elapsed_ms);

#ifdef __cplusplus
}
#endif

#endif /* STENC_CORE_H */
