/* The OpenCL half of the core: device choice, the context and its queue, memory, timers.
 *
 * Memory. The runtime treats device memory as a void * and computes with it (a field's origin
 * is its allocation plus an offset) but never dereferences it on the host. An OpenCL buffer is
 * a cl_mem, not an address, so stenc_malloc reserves an inaccessible address range of the
 * buffer's size (PROT_NONE, no memory behind it) and returns its start; the context's table of
 * ranges turns any address inside one back into (cl_mem, offset). A stray host access faults
 * instead of reading something else, and no two live allocations share an address. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ocl_internal.h"

/* ---- errors ---------------------------------------------------------------------------------- */

const char *ocl_error_name(cl_int err) {
    switch (err) {
#define OCL_NAME(code)                                                                             \
    case code:                                                                                     \
        return #code;
        OCL_NAME(CL_DEVICE_NOT_FOUND)
        OCL_NAME(CL_DEVICE_NOT_AVAILABLE)
        OCL_NAME(CL_COMPILER_NOT_AVAILABLE)
        OCL_NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        OCL_NAME(CL_OUT_OF_RESOURCES)
        OCL_NAME(CL_OUT_OF_HOST_MEMORY)
        OCL_NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
        OCL_NAME(CL_MEM_COPY_OVERLAP)
        OCL_NAME(CL_BUILD_PROGRAM_FAILURE)
        OCL_NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        OCL_NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        OCL_NAME(CL_COMPILE_PROGRAM_FAILURE)
        OCL_NAME(CL_LINKER_NOT_AVAILABLE)
        OCL_NAME(CL_LINK_PROGRAM_FAILURE)
        OCL_NAME(CL_INVALID_VALUE)
        OCL_NAME(CL_INVALID_DEVICE_TYPE)
        OCL_NAME(CL_INVALID_PLATFORM)
        OCL_NAME(CL_INVALID_DEVICE)
        OCL_NAME(CL_INVALID_CONTEXT)
        OCL_NAME(CL_INVALID_QUEUE_PROPERTIES)
        OCL_NAME(CL_INVALID_COMMAND_QUEUE)
        OCL_NAME(CL_INVALID_HOST_PTR)
        OCL_NAME(CL_INVALID_MEM_OBJECT)
        OCL_NAME(CL_INVALID_BINARY)
        OCL_NAME(CL_INVALID_BUILD_OPTIONS)
        OCL_NAME(CL_INVALID_PROGRAM)
        OCL_NAME(CL_INVALID_PROGRAM_EXECUTABLE)
        OCL_NAME(CL_INVALID_KERNEL_NAME)
        OCL_NAME(CL_INVALID_KERNEL_DEFINITION)
        OCL_NAME(CL_INVALID_KERNEL)
        OCL_NAME(CL_INVALID_ARG_INDEX)
        OCL_NAME(CL_INVALID_ARG_VALUE)
        OCL_NAME(CL_INVALID_ARG_SIZE)
        OCL_NAME(CL_INVALID_KERNEL_ARGS)
        OCL_NAME(CL_INVALID_WORK_DIMENSION)
        OCL_NAME(CL_INVALID_WORK_GROUP_SIZE)
        OCL_NAME(CL_INVALID_WORK_ITEM_SIZE)
        OCL_NAME(CL_INVALID_GLOBAL_OFFSET)
        OCL_NAME(CL_INVALID_EVENT_WAIT_LIST)
        OCL_NAME(CL_INVALID_EVENT)
        OCL_NAME(CL_INVALID_OPERATION)
        OCL_NAME(CL_INVALID_BUFFER_SIZE)
        OCL_NAME(CL_INVALID_GLOBAL_WORK_SIZE)
        OCL_NAME(CL_INVALID_PROPERTY)
        OCL_NAME(CL_INVALID_COMPILER_OPTIONS)
        OCL_NAME(CL_INVALID_LINKER_OPTIONS)
        OCL_NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef OCL_NAME
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        return "unknown OpenCL error";
    }
}

stenc_status ocl_status_of(cl_int err) {
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY
               ? STENC_ERR_OUT_OF_MEMORY
               : STENC_ERR_OPENCL;
}

/* ---- platforms and devices ------------------------------------------------------------------- */

/* The platforms installed, in *platforms (free it); 0 of them when none or no ICD loader. */
static cl_uint list_platforms(cl_platform_id **platforms) {
    cl_uint count = 0;
    *platforms = NULL;
    if (clGetPlatformIDs(0, NULL, &count) != CL_SUCCESS || count == 0) return 0;
    *platforms = malloc(count * sizeof **platforms);
    if (!*platforms || clGetPlatformIDs(count, *platforms, NULL) != CL_SUCCESS) {
        free(*platforms);
        *platforms = NULL;
        return 0;
    }
    return count;
}

/* Devices of every type on `platform`; 0 when it has none. */
static cl_uint count_devices(cl_platform_id platform) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &count) != CL_SUCCESS) return 0;
    return count;
}

int stenc_ocl_count_devices(void) {
    cl_platform_id *platforms;
    const cl_uint np = list_platforms(&platforms);
    cl_uint total = 0;
    for (cl_uint p = 0; p < np; p++)
        total += count_devices(platforms[p]);
    free(platforms);
    return (int)total;
}

/* STENC_OPENCL_DEVICE=P:D, two decimal indices: 1 and the indices when set, 0 when unset. */
static stenc_status parse_device_env(int *set, unsigned long *p, unsigned long *d) {
    const char *env = getenv("STENC_OPENCL_DEVICE");
    *set = env && *env;
    if (!*set) return STENC_OK;
    const char *s = env;
    unsigned long v[2] = {0, 0};
    for (int part = 0; part < 2; part++) {
        if (*s < '0' || *s > '9') goto bad;
        for (; *s >= '0' && *s <= '9'; s++) {
            if (v[part] > 100000) goto bad;
            v[part] = v[part] * 10 + (unsigned long)(*s - '0');
        }
        if (part == 0 && *s++ != ':') goto bad;
    }
    if (*s != '\0') goto bad;
    *p = v[0], *d = v[1];
    return STENC_OK;
bad:
    return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                       "stenc_ctx_create: environment variable STENC_OPENCL_DEVICE='%s' is not "
                       "PLATFORM:DEVICE (two indices, such as 0:1)",
                       env);
}

/* The device STENC_OPENCL_DEVICE names, else the first device of the first platform that has
 * one. */
static stenc_status pick_device(cl_platform_id *platform, cl_device_id *device) {
    int set = 0;
    unsigned long want_p = 0, want_d = 0;
    STENC_TRY(parse_device_env(&set, &want_p, &want_d));
    cl_platform_id *platforms;
    const cl_uint np = list_platforms(&platforms);
    if (np == 0)
        return STENC_ERROR(STENC_ERR_NO_DEVICE, "stenc_ctx_create: no OpenCL platform is "
                                                "installed (an ICD such as pocl-opencl-icd)");
    stenc_status status = STENC_OK;
    cl_uint p = 0;
    if (set) {
        if (want_p >= np)
            status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                                 "stenc_ctx_create: STENC_OPENCL_DEVICE=%lu:%lu, but there %s %u "
                                 "OpenCL platform%s (indices from 0)",
                                 want_p, want_d, np == 1 ? "is" : "are", (unsigned)np,
                                 np == 1 ? "" : "s");
        else if (want_d >= count_devices(platforms[want_p]))
            status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                                 "stenc_ctx_create: STENC_OPENCL_DEVICE=%lu:%lu, but platform %lu "
                                 "has %u device%s (indices from 0)",
                                 want_p, want_d, want_p, (unsigned)count_devices(platforms[want_p]),
                                 count_devices(platforms[want_p]) == 1 ? "" : "s");
        p = (cl_uint)want_p;
    } else {
        while (p < np && count_devices(platforms[p]) == 0)
            p++;
        if (p == np)
            status = STENC_ERROR(STENC_ERR_NO_DEVICE,
                                 "stenc_ctx_create: no OpenCL device on any of the %u platform%s",
                                 (unsigned)np, np == 1 ? "" : "s");
    }
    if (status == STENC_OK) {
        const cl_uint d = (cl_uint)want_d + 1; /* devices up to the one wanted */
        cl_device_id *devices = malloc(d * sizeof *devices);
        cl_int err = devices ? clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, d, devices, NULL)
                             : CL_OUT_OF_HOST_MEMORY;
        if (err != CL_SUCCESS)
            status = STENC_ERROR(ocl_status_of(err),
                                 "stenc_ctx_create: clGetDeviceIDs of platform %u failed: %s (%d)",
                                 (unsigned)p, ocl_error_name(err), (int)err);
        else
            *platform = platforms[p], *device = devices[want_d];
        free(devices);
    }
    free(platforms);
    return status;
}

/* CL_DEVICE_NAME of `device`, or CL_PLATFORM_NAME of `platform` when device is NULL. */
static cl_int name_query(cl_platform_id platform, cl_device_id device, size_t size, char *out,
                         size_t *need) {
    return device ? clGetDeviceInfo(device, CL_DEVICE_NAME, size, out, need)
                  : clGetPlatformInfo(platform, CL_PLATFORM_NAME, size, out, need);
}

/* That name, cut to fit `size` bytes ("?" when the query fails): the parts of ctx->name. */
static void object_name(cl_platform_id platform, cl_device_id device, char *buf, size_t size) {
    size_t need = 0;
    char *whole = NULL;
    snprintf(buf, size, "?");
    if (name_query(platform, device, 0, NULL, &need) == CL_SUCCESS && (whole = malloc(need + 1)) &&
        name_query(platform, device, need, whole, NULL) == CL_SUCCESS) {
        whole[need] = '\0';
        snprintf(buf, size, "%s", whole);
    }
    free(whole);
}

/* Whether the extension list of the device names `ext` as a whole word. */
static int has_extension(cl_device_id device, const char *ext) {
    size_t size = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS) return 0;
    char *list = malloc(size + 1);
    if (!list) return 0;
    int found = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, list, NULL) == CL_SUCCESS) {
        list[size] = '\0';
        const size_t len = strlen(ext);
        for (const char *at = strstr(list, ext); at && !found; at = strstr(at + 1, ext))
            found = (at == list || at[-1] == ' ') && (at[len] == ' ' || at[len] == '\0');
    }
    free(list);
    return found;
}

static cl_device_fp_config fp_config(cl_device_id device, cl_device_info which) {
    cl_device_fp_config config = 0;
    if (clGetDeviceInfo(device, which, sizeof config, &config, NULL) != CL_SUCCESS) return 0;
    return config;
}

/* Some drivers give markers no profiling times; timers then wait and read the host clock. */
static int markers_are_profiled(const ocl_state *s) {
    cl_event marker = NULL;
    if (clEnqueueMarkerWithWaitList(s->queue, 0, NULL, &marker) != CL_SUCCESS) return 0;
    cl_ulong end = 0;
    const int ok = clWaitForEvents(1, &marker) == CL_SUCCESS &&
                   clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof end, &end,
                                           NULL) == CL_SUCCESS &&
                   end != 0;
    clReleaseEvent(marker);
    return ok;
}

static void release_state(ocl_state *s) {
    if (s->queue) clFinish(s->queue);
    for (size_t r = 0; r < s->nranges; r++) {
        clReleaseMemObject(s->ranges[r].mem);
        munmap((void *)s->ranges[r].base, s->ranges[r].bytes);
    }
    free(s->ranges);
    if (s->queue) clReleaseCommandQueue(s->queue);
    if (s->context) clReleaseContext(s->context);
    free(s);
}

static stenc_status open_device(ocl_state *s) {
    static const char fn[] = "stenc_ctx_create";
    cl_int err = CL_SUCCESS;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)s->platform,
                                           0};
    s->context = clCreateContext(props, 1, &s->device, NULL, NULL, &err);
    OCL_TRY(fn, err);
    s->queue = clCreateCommandQueue(s->context, s->device, CL_QUEUE_PROFILING_ENABLE, &err);
    OCL_TRY(fn, err);
    OCL_TRY(fn, clGetDeviceInfo(s->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof s->max_alloc,
                                &s->max_alloc, NULL));
    s->fp64 = has_extension(s->device, "cl_khr_fp64") ||
              fp_config(s->device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
    s->fp32_exact_div = (fp_config(s->device, CL_DEVICE_SINGLE_FP_CONFIG) &
                         CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    s->marker_profiling = markers_are_profiled(s);
    cl_device_type type = 0;
    OCL_TRY(fn, clGetDeviceInfo(s->device, CL_DEVICE_TYPE, sizeof type, &type, NULL));
    s->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    return STENC_OK;
}

int stenc_ocl_device_is_cpu(const stenc_ctx *ctx) {
    return stenc_ctx_live(ctx) && ctx->device == STENC_DEVICE_OPENCL && ctx->ocl &&
           ocl_of(ctx)->is_cpu;
}

stenc_status stenc_ocl_ctx_init(stenc_ctx *ctx) {
    ocl_state *s = calloc(1, sizeof *s);
    if (!s) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_ctx_create: no memory");
    stenc_status status = pick_device(&s->platform, &s->device);
    if (status == STENC_OK) status = open_device(s);
    if (status != STENC_OK) {
        release_state(s);
        return status;
    }
    char platform[128], device[160];
    object_name(s->platform, NULL, platform, sizeof platform);
    object_name(NULL, s->device, device, sizeof device);
    snprintf(ctx->name, sizeof ctx->name, "%s: %s (OpenCL)", platform, device);
    ctx->ocl = s;
    return STENC_OK;
}

void stenc_ocl_ctx_release(stenc_ctx *ctx) {
    if (ctx->ocl) release_state(ocl_of(ctx));
    ctx->ocl = NULL;
}

stenc_status stenc_ocl_synchronize(stenc_ctx *ctx) {
    OCL_TRY("stenc_ctx_synchronize", clFinish(ocl_of(ctx)->queue));
    return STENC_OK;
}

/* ---- memory ---------------------------------------------------------------------------------- */

/* Index of the first range whose base is above `p` (ranges are sorted by base). */
static size_t ranges_after(const ocl_state *s, uintptr_t p) {
    size_t lo = 0, hi = s->nranges;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (s->ranges[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The range holding p, or NULL. */
static const ocl_range *range_of(const ocl_state *s, uintptr_t p) {
    const size_t after = ranges_after(s, p);
    if (after == 0) return NULL;
    const ocl_range *r = &s->ranges[after - 1];
    return p - r->base < r->bytes ? r : NULL;
}

stenc_status ocl_lookup(const stenc_ctx *ctx, const void *ptr, size_t bytes, const char *fn,
                        const char *what, cl_mem *mem, size_t *offset) {
    const uintptr_t p = (uintptr_t)ptr;
    const ocl_range *r = range_of(ocl_of(ctx), p);
    if (!r)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: %s (%p) is not in any allocation of this OpenCL context (device "
                           "pointers come from stenc_malloc on it)",
                           fn, what, ptr);
    const size_t at = p - r->base;
    if (bytes > r->bytes - at)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: %zu bytes at %s (%p) run past the end of its allocation (%zu "
                           "bytes from %p)",
                           fn, bytes, what, ptr, r->bytes, (void *)r->base);
    *mem = r->mem;
    *offset = at;
    return STENC_OK;
}

stenc_status stenc_ocl_buffer(stenc_ctx *ctx, const void *ptr, void **cl_mem_out,
                              size_t *byte_offset) {
    static const char fn[] = "stenc_ocl_buffer";
    STENC_TRY(stenc_ctx_check(ctx, fn));
    STENC_REQUIRE(ctx->device == STENC_DEVICE_OPENCL, "%s: the context is not an OpenCL one (%s)",
                  fn, ctx->name);
    STENC_REQUIRE(cl_mem_out && byte_offset, "%s: cl_mem_out or byte_offset is NULL", fn);
    cl_mem mem;
    size_t offset;
    STENC_TRY(ocl_lookup(ctx, ptr, 0, fn, "ptr", &mem, &offset));
    *cl_mem_out = mem;
    *byte_offset = offset;
    return STENC_OK;
}

/* Room for one more range. */
static stenc_status ranges_reserve(ocl_state *s) {
    if (s->nranges < s->capacity) return STENC_OK;
    const size_t capacity = s->capacity ? 2 * s->capacity : 16;
    ocl_range *grown = realloc(s->ranges, capacity * sizeof *grown);
    if (!grown) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_malloc: no host memory");
    s->ranges = grown;
    s->capacity = capacity;
    return STENC_OK;
}

stenc_status stenc_ocl_malloc(stenc_ctx *ctx, void **ptr, size_t bytes) {
    ocl_state *s = ocl_of(ctx);
    const size_t size = bytes ? bytes : 1; /* OpenCL has no empty buffers */
    if (size > s->max_alloc)
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY,
                           "stenc_malloc: %zu bytes, more than the largest buffer of %s (%llu "
                           "bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                           bytes, ctx->name, (unsigned long long)s->max_alloc);
    STENC_TRY(ranges_reserve(s));
    void *range = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (range == MAP_FAILED)
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY,
                           "stenc_malloc: no %zu bytes of address space to stand for an OpenCL "
                           "buffer (mmap: %s)",
                           size, strerror(errno));
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(s->context, CL_MEM_READ_WRITE, size, NULL, &err);
    if (err != CL_SUCCESS) {
        munmap(range, size);
        const int no_room = err == CL_INVALID_BUFFER_SIZE || err == CL_OUT_OF_RESOURCES ||
                            ocl_status_of(err) == STENC_ERR_OUT_OF_MEMORY;
        return STENC_ERROR(no_room ? STENC_ERR_OUT_OF_MEMORY : STENC_ERR_OPENCL,
                           "stenc_malloc: clCreateBuffer of %zu bytes on %s failed: %s (%d)", size,
                           ctx->name, ocl_error_name(err), (int)err);
    }
    const size_t at = ranges_after(s, (uintptr_t)range);
    memmove(&s->ranges[at + 1], &s->ranges[at], (s->nranges - at) * sizeof *s->ranges);
    s->ranges[at] = (ocl_range){(uintptr_t)range, size, mem};
    s->nranges++;
    *ptr = range;
    return STENC_OK;
}

stenc_status stenc_ocl_free(stenc_ctx *ctx, void *ptr) {
    ocl_state *s = ocl_of(ctx);
    const ocl_range *r = range_of(s, (uintptr_t)ptr);
    if (!r || r->base != (uintptr_t)ptr)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "stenc_free: %p is not %s allocation of this OpenCL context (from "
                           "stenc_malloc on it)",
                           ptr, r ? "the start of an" : "an");
    /* Queued work may still use the buffer. */
    OCL_TRY("stenc_free", clFinish(s->queue));
    clReleaseMemObject(r->mem);
    munmap(ptr, r->bytes);
    const size_t at = (size_t)(r - s->ranges);
    memmove(&s->ranges[at], &s->ranges[at + 1], (s->nranges - at - 1) * sizeof *s->ranges);
    s->nranges--;
    return STENC_OK;
}

stenc_status stenc_ocl_upload(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    static const char fn[] = "stenc_upload";
    cl_mem mem;
    size_t offset;
    STENC_TRY(ocl_lookup(ctx, dst, bytes, fn, "the destination", &mem, &offset));
    OCL_TRY(fn, clEnqueueWriteBuffer(ocl_of(ctx)->queue, mem, CL_TRUE, offset, bytes, src, 0, NULL,
                                     NULL));
    return STENC_OK;
}

stenc_status stenc_ocl_download(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    static const char fn[] = "stenc_download";
    cl_mem mem;
    size_t offset;
    STENC_TRY(ocl_lookup(ctx, src, bytes, fn, "the source", &mem, &offset));
    OCL_TRY(fn, clEnqueueReadBuffer(ocl_of(ctx)->queue, mem, CL_TRUE, offset, bytes, dst, 0, NULL,
                                    NULL));
    return STENC_OK;
}

stenc_status stenc_ocl_memcpy(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    static const char fn[] = "stenc_memcpy";
    cl_mem dmem, smem;
    size_t doff, soff;
    STENC_TRY(ocl_lookup(ctx, dst, bytes, fn, "the destination", &dmem, &doff));
    STENC_TRY(ocl_lookup(ctx, src, bytes, fn, "the source", &smem, &soff));
    if (dmem == smem && doff < soff + bytes && soff < doff + bytes)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: the %zu bytes at %p and at %p overlap; OpenCL copies only "
                           "between separate ranges",
                           fn, bytes, dst, src);
    OCL_TRY(fn,
            clEnqueueCopyBuffer(ocl_of(ctx)->queue, smem, dmem, soff, doff, bytes, 0, NULL, NULL));
    return STENC_OK;
}

stenc_status stenc_ocl_memzero(stenc_ctx *ctx, void *ptr, size_t bytes) {
    static const char fn[] = "stenc_memzero";
    cl_mem mem;
    size_t offset;
    STENC_TRY(ocl_lookup(ctx, ptr, bytes, fn, "ptr", &mem, &offset));
    const cl_uchar zero = 0;
    OCL_TRY(fn, clEnqueueFillBuffer(ocl_of(ctx)->queue, mem, &zero, sizeof zero, offset, bytes, 0,
                                    NULL, NULL));
    return STENC_OK;
}

/* ---- timers ---------------------------------------------------------------------------------- */

/* A mark: a profiled marker on the queue, or (drivers whose markers have no times) the host
 * clock read once the queue has drained. */
typedef struct ocl_mark {
    cl_event event;
    struct timespec host;
} ocl_mark;

stenc_status stenc_ocl_timer_create(stenc_ctx *ctx, void **start, void **stop) {
    (void)ctx;
    *start = calloc(1, sizeof(ocl_mark));
    *stop = calloc(1, sizeof(ocl_mark));
    if (*start && *stop) return STENC_OK;
    free(*start);
    free(*stop);
    return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_timer_create: no memory");
}

static void mark_clear(ocl_mark *m) {
    if (m->event) clReleaseEvent(m->event);
    m->event = NULL;
}

void stenc_ocl_timer_destroy(void *start, void *stop) {
    mark_clear(start);
    mark_clear(stop);
    free(start);
    free(stop);
}

stenc_status stenc_ocl_timer_record(stenc_ctx *ctx, void *mark) {
    static const char fn[] = "stenc_timer_start or stenc_timer_stop";
    ocl_mark *m = mark;
    ocl_state *s = ocl_of(ctx);
    mark_clear(m);
    if (s->marker_profiling) {
        OCL_TRY(fn, clEnqueueMarkerWithWaitList(s->queue, 0, NULL, &m->event));
    } else {
        OCL_TRY(fn, clFinish(s->queue));
        clock_gettime(CLOCK_MONOTONIC, &m->host);
    }
    return STENC_OK;
}

stenc_status stenc_ocl_timer_elapsed(void *start, void *stop, double *ms) {
    static const char fn[] = "stenc_timer_stop";
    const ocl_mark *a = start, *b = stop;
    if (!a->event || !b->event) { /* host-clock marks */
        *ms = (double)(b->host.tv_sec - a->host.tv_sec) * 1e3 +
              (double)(b->host.tv_nsec - a->host.tv_nsec) * 1e-6;
        return STENC_OK;
    }
    OCL_TRY(fn, clWaitForEvents(1, &b->event));
    cl_ulong t0 = 0, t1 = 0;
    OCL_TRY(fn, clGetEventProfilingInfo(a->event, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL));
    OCL_TRY(fn, clGetEventProfilingInfo(b->event, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
    *ms = t1 >= t0 ? (double)(t1 - t0) * 1e-6 : 0.0;
    return STENC_OK;
}
