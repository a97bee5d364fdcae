/* The context, raw memory and timers: argument checks, the CPU half, and dispatch through the
 * context's table of its device kind (stenc_device_ops) to the CUDA and OpenCL halves. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"
#include "stenc/tune.h"

int stenc_mul_size(size_t a, size_t b, size_t *out) {
    if (a != 0 && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

stenc_status stenc_check_count(size_t count, size_t elem_bytes, const char *fn, const char *what) {
    const size_t most = (size_t)PTRDIFF_MAX / (elem_bytes ? elem_bytes : 1);
    if (count <= most) return STENC_OK;
    return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                       "%s: %zu %s, but at most %zu of %zu bytes fit in one array (PTRDIFF_MAX "
                       "bytes)",
                       fn, count, what, most, elem_bytes);
}

static const stenc_handle_kind ctx_kind = {"context"};

stenc_status stenc_ctx_check(const stenc_ctx *ctx, const char *fn) {
    return stenc_handle_check(ctx, &ctx_kind, fn, "ctx");
}

int stenc_ctx_live(const stenc_ctx *ctx) {
    return stenc_handle_live(ctx, &ctx_kind);
}

void *stenc_host_alloc(size_t bytes) {
    size_t rounded = (bytes + 127) & ~(size_t)127;
    if (rounded < bytes) return NULL;
    return aligned_alloc(128, rounded ? rounded : 128);
}

void stenc_host_free(void *ptr) {
    free(ptr);
}

size_t stenc_type_size(stenc_type type) {
    switch (type) {
    case STENC_U8:
        return 1;
    case STENC_F32:
    case STENC_I32:
    case STENC_U32:
        return 4;
    case STENC_F64:
    case STENC_I64:
    case STENC_U64:
        return 8;
    default:
        return 0;
    }
}

int stenc_type_is_real(stenc_type type) {
    return type == STENC_F32 || type == STENC_F64;
}

const char *stenc_type_name(stenc_type type) {
    static const char *const names[STENC_TYPE_COUNT] = {"float", "double", "i32", "u32",
                                                        "i64",   "u64",    "u8"};
    return (unsigned)type < STENC_TYPE_COUNT ? names[type] : "invalid";
}

int stenc_built_with_cuda(void) {
#ifdef STENC_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

int stenc_cuda_device_count(void) {
    return stenc_cuda_count_devices();
}

int stenc_built_with_opencl(void) {
#ifdef STENC_HAVE_OPENCL
    return 1;
#else
    return 0;
#endif
}

int stenc_opencl_device_count(void) {
    return stenc_ocl_count_devices();
}

const char *stenc_device_kind_name(stenc_device device) {
    switch (device) {
    case STENC_DEVICE_CPU:
        return "CPU";
    case STENC_DEVICE_CUDA:
        return "CUDA";
    case STENC_DEVICE_OPENCL:
        return "OpenCL";
    default:
        return "AUTO";
    }
}

stenc_status stenc_ctx_require_cpu_or_cuda(const stenc_ctx *ctx, const char *fn) {
    if (ctx->device == STENC_DEVICE_CPU || ctx->device == STENC_DEVICE_CUDA) return STENC_OK;
    return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                       "%s: not available on %s contexts (this one is %s); it runs on CPU and "
                       "CUDA contexts",
                       fn, stenc_device_kind_name(ctx->device), ctx->name);
}

/* ---- the CPU half: device memory is host memory, timing a monotonic clock ------------------- */

static stenc_status cpu_init(stenc_ctx *ctx) {
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    snprintf(ctx->name, sizeof ctx->name, "CPU (%d thread%s)", threads, threads == 1 ? "" : "s");
    return STENC_OK;
}

static void cpu_release(stenc_ctx *ctx) {
    (void)ctx;
}

static stenc_status cpu_synchronize(stenc_ctx *ctx) {
    (void)ctx;
    return STENC_OK;
}

static stenc_status cpu_alloc(stenc_ctx *ctx, void **ptr, size_t bytes) {
    (void)ctx;
    if (!(*ptr = stenc_host_alloc(bytes)))
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_malloc: %zu bytes of host memory",
                           bytes);
    return STENC_OK;
}

static stenc_status cpu_free(stenc_ctx *ctx, void *ptr) {
    (void)ctx;
    stenc_host_free(ptr);
    return STENC_OK;
}

/* Upload, download and copy alike: memmove, so overlapping ranges are fine on the CPU. */
static stenc_status cpu_copy(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    (void)ctx;
    memmove(dst, src, bytes);
    return STENC_OK;
}

static stenc_status cpu_zero(stenc_ctx *ctx, void *ptr, size_t bytes) {
    (void)ctx;
    memset(ptr, 0, bytes);
    return STENC_OK;
}

/* A mark is the time it was recorded. */
static stenc_status cpu_timer_create(stenc_ctx *ctx, void **start, void **stop) {
    (void)ctx;
    *start = calloc(1, sizeof(struct timespec));
    *stop = calloc(1, sizeof(struct timespec));
    if (*start && *stop) return STENC_OK;
    free(*start);
    free(*stop);
    return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_timer_create: no memory");
}

static void cpu_timer_destroy(void *start, void *stop) {
    free(start);
    free(stop);
}

static stenc_status cpu_timer_record(stenc_ctx *ctx, void *mark) {
    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, mark);
    return STENC_OK;
}

static stenc_status cpu_timer_elapsed(void *start, void *stop, double *ms) {
    const struct timespec *a = start, *b = stop;
    *ms = (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) * 1e-6;
    return STENC_OK;
}

static const stenc_device_ops cpu_ops = {
    .kind = "CPU",
    .init = cpu_init,
    .release = cpu_release,
    .synchronize = cpu_synchronize,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_copy,
    .download = cpu_copy,
    .copy = cpu_copy,
    .zero = cpu_zero,
    .timer_create = cpu_timer_create,
    .timer_destroy = cpu_timer_destroy,
    .timer_record = cpu_timer_record,
    .timer_elapsed = cpu_timer_elapsed,
};

/* ---- the CUDA and OpenCL halves (cuda.cu, runtime/opencl/ocl.c, or their stand-ins) ---------- */

static stenc_status cuda_free(stenc_ctx *ctx, void *ptr) {
    stenc_cuda_free(ctx, ptr);
    return STENC_OK;
}

static const stenc_device_ops cuda_ops = {
    .kind = "CUDA",
    .init = stenc_cuda_ctx_init,
    .release = stenc_cuda_ctx_release,
    .synchronize = stenc_cuda_synchronize,
    .alloc = stenc_cuda_malloc,
    .free = cuda_free,
    .upload = stenc_cuda_upload,
    .download = stenc_cuda_download,
    .copy = stenc_cuda_memcpy,
    .zero = stenc_cuda_memzero,
    .timer_create = stenc_cuda_timer_create,
    .timer_destroy = stenc_cuda_timer_destroy,
    .timer_record = stenc_cuda_timer_record,
    .timer_elapsed = stenc_cuda_timer_elapsed,
};

static const stenc_device_ops opencl_ops = {
    .kind = "OpenCL",
    .init = stenc_ocl_ctx_init,
    .release = stenc_ocl_ctx_release,
    .synchronize = stenc_ocl_synchronize,
    .alloc = stenc_ocl_malloc,
    .free = stenc_ocl_free,
    .upload = stenc_ocl_upload,
    .download = stenc_ocl_download,
    .copy = stenc_ocl_memcpy,
    .zero = stenc_ocl_memzero,
    .timer_create = stenc_ocl_timer_create,
    .timer_destroy = stenc_ocl_timer_destroy,
    .timer_record = stenc_ocl_timer_record,
    .timer_elapsed = stenc_ocl_timer_elapsed,
};

static const stenc_device_ops *ops_of(stenc_device device) {
    return device == STENC_DEVICE_CUDA     ? &cuda_ops
           : device == STENC_DEVICE_OPENCL ? &opencl_ops
                                           : &cpu_ops;
}

/* STENC_DEVICE=cpu|cuda|opencl turns AUTO into a choice, so a program can be moved without a
 * rebuild. */
static stenc_status resolve_auto(stenc_device *device) {
    const char *env = getenv("STENC_DEVICE");
    if (env && *env) {
        if (strcmp(env, "cpu") == 0)
            *device = STENC_DEVICE_CPU;
        else if (strcmp(env, "cuda") == 0)
            *device = STENC_DEVICE_CUDA;
        else if (strcmp(env, "opencl") == 0)
            *device = STENC_DEVICE_OPENCL;
        else
            return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                               "environment variable STENC_DEVICE='%s' is not 'cpu', 'cuda' or "
                               "'opencl'",
                               env);
        return STENC_OK;
    }
    *device = stenc_cuda_count_devices() > 0 ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU;
    return STENC_OK;
}

/* A new context's tuning mode (stenc/tune.h): STENC_TUNE=0|1|force, default 0. */
static int tune_mode_from_env(void) {
    const char *env = getenv("STENC_TUNE");
    if (!env || !*env || strcmp(env, "0") == 0) return STENC_TUNE_OFF;
    if (strcmp(env, "force") == 0) return STENC_TUNE_FORCE;
    return STENC_TUNE_ON;
}

stenc_status stenc_ctx_create(stenc_ctx **out, stenc_device device) {
    STENC_REQUIRE(out != NULL, "stenc_ctx_create: ctx pointer is NULL");
    *out = NULL;
    STENC_REQUIRE(device == STENC_DEVICE_AUTO || device == STENC_DEVICE_CPU ||
                      device == STENC_DEVICE_CUDA || device == STENC_DEVICE_OPENCL,
                  "stenc_ctx_create: unknown device kind %d", (int)device);
    if (device == STENC_DEVICE_AUTO) STENC_TRY(resolve_auto(&device));

    stenc_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_ctx_create: no memory");
    ctx->device = device;
    ctx->ops = ops_of(device);
    ctx->tune_mode = tune_mode_from_env();
    stenc_status status = ctx->ops->init(ctx);
    if (status != STENC_OK) {
        free(ctx);
        return status;
    }
    status = stenc_handle_add(ctx, &ctx_kind, "stenc_ctx_create");
    if (status != STENC_OK) {
        ctx->ops->release(ctx);
        free(ctx);
        return status;
    }
    *out = ctx;
    return STENC_OK;
}

void *stenc_ctx_cache_get(const stenc_ctx *ctx, const stenc_cache_key *key) {
    if (!ctx || !key) return NULL;
    for (int s = 0; s < STENC_CACHE_SLOTS; s++)
        if (ctx->cache[s].key == key) return ctx->cache[s].state;
    return NULL;
}

stenc_status stenc_ctx_cache_set(stenc_ctx *ctx, const stenc_cache_key *key, void *state,
                                 stenc_cache_release_fn release) {
    STENC_REQUIRE(ctx && key, "stenc_ctx_cache_set: ctx or key is NULL");
    int slot = -1;
    for (int s = 0; s < STENC_CACHE_SLOTS && slot < 0; s++)
        if (ctx->cache[s].key == key) slot = s;
    for (int s = 0; s < STENC_CACHE_SLOTS && slot < 0; s++)
        if (!ctx->cache[s].key) slot = s;
    if (slot < 0) {
        if (state && release) release(ctx, state);
        return STENC_ERROR(STENC_ERR_CAPACITY,
                           "stenc_ctx_cache_set: all %d per-context slots are taken; module "
                           "'%s' keeps no state",
                           STENC_CACHE_SLOTS, key->module);
    }
    if (ctx->cache[slot].state && ctx->cache[slot].release)
        ctx->cache[slot].release(ctx, ctx->cache[slot].state);
    ctx->cache[slot].key = state ? key : NULL;
    ctx->cache[slot].state = state;
    ctx->cache[slot].release = release;
    return STENC_OK;
}

stenc_status stenc_ctx_destroy(stenc_ctx *ctx) {
    if (!ctx) return STENC_OK;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_ctx_destroy"));
    /* Module state first: it may hold device memory that needs the stream (and a live ctx). */
    for (int slot = 0; slot < STENC_CACHE_SLOTS; slot++)
        if (ctx->cache[slot].key) stenc_ctx_cache_set(ctx, ctx->cache[slot].key, NULL, NULL);
    ctx->ops->release(ctx);
    STENC_TRY(stenc_handle_remove(ctx, &ctx_kind, "stenc_ctx_destroy", "ctx"));
    free(ctx);
    return STENC_OK;
}

/* Accessors return their NULL-argument value for a handle that is not live (and record why). */
stenc_device stenc_ctx_device(const stenc_ctx *ctx) {
    return ctx && stenc_ctx_check(ctx, "stenc_ctx_device") == STENC_OK ? ctx->device
                                                                       : STENC_DEVICE_CPU;
}

const char *stenc_ctx_device_name(const stenc_ctx *ctx) {
    return ctx && stenc_ctx_check(ctx, "stenc_ctx_device_name") == STENC_OK ? ctx->name : "(null)";
}

void *stenc_ctx_cuda_stream(const stenc_ctx *ctx) {
    return ctx && stenc_ctx_check(ctx, "stenc_ctx_cuda_stream") == STENC_OK ? ctx->stream : NULL;
}

stenc_status stenc_ctx_synchronize(stenc_ctx *ctx) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_ctx_synchronize"));
    return ctx->ops->synchronize(ctx);
}

/* ---- raw memory -------------------------------------------------------------------------- */

stenc_status stenc_malloc(stenc_ctx *ctx, void **ptr, size_t bytes) {
    STENC_REQUIRE(ptr != NULL, "stenc_malloc: ptr is NULL");
    *ptr = NULL;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_malloc"));
    /* No allocator can serve more; some (ASan's) abort instead of failing. */
    if (bytes > (size_t)PTRDIFF_MAX)
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY,
                           "stenc_malloc: %zu bytes, more than the largest object (PTRDIFF_MAX "
                           "bytes)",
                           bytes);
    void *p = NULL;
    STENC_TRY(ctx->ops->alloc(ctx, &p, bytes));
    *ptr = p;
    return STENC_OK;
}

stenc_status stenc_free(stenc_ctx *ctx, void *ptr) {
    if (!ptr) return STENC_OK;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_free"));
    return ctx->ops->free(ctx, ptr);
}

static stenc_status check_copy_args(stenc_ctx *ctx, void *dst, const void *src, size_t bytes,
                                    const char *fn) {
    STENC_TRY(stenc_ctx_check(ctx, fn));
    STENC_TRY(stenc_check_count(bytes, 1, fn, "bytes"));
    STENC_REQUIRE(bytes == 0 || (dst != NULL && src != NULL), "%s: NULL %s for %zu bytes", fn,
                  dst ? "source" : "destination", bytes);
    return STENC_OK;
}

stenc_status stenc_upload(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    STENC_TRY(check_copy_args(ctx, dst, src, bytes, "stenc_upload"));
    if (bytes == 0) return STENC_OK;
    return ctx->ops->upload(ctx, dst, src, bytes);
}

stenc_status stenc_download(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    STENC_TRY(check_copy_args(ctx, dst, src, bytes, "stenc_download"));
    if (bytes == 0) return STENC_OK;
    return ctx->ops->download(ctx, dst, src, bytes);
}

stenc_status stenc_memzero(stenc_ctx *ctx, void *ptr, size_t bytes) {
    if (bytes == 0) return STENC_OK;
    return ctx->ops->zero(ctx, ptr, bytes);
}

stenc_status stenc_memcpy(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    STENC_TRY(check_copy_args(ctx, dst, src, bytes, "stenc_memcpy"));
    if (bytes == 0) return STENC_OK;
    return ctx->ops->copy(ctx, dst, src, bytes);
}

/* ---- timers ------------------------------------------------------------------------------ */

struct stenc_timer {
    stenc_ctx *ctx;
    const stenc_device_ops *ops; /* kept, so that destroy needs no context */
    void *start, *stop;          /* the device kind's marks */
    int running;
};

static const stenc_handle_kind timer_kind = {"timer"};

/* A live timer of a live context. */
static stenc_status check_timer(const stenc_timer *timer, const char *fn) {
    STENC_TRY(stenc_handle_check(timer, &timer_kind, fn, "timer"));
    return stenc_ctx_check(timer->ctx, fn);
}

stenc_status stenc_timer_create(stenc_ctx *ctx, stenc_timer **out) {
    STENC_REQUIRE(out != NULL, "stenc_timer_create: timer pointer is NULL");
    *out = NULL;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_timer_create"));
    stenc_timer *timer = calloc(1, sizeof *timer);
    if (!timer) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_timer_create: no memory");
    timer->ctx = ctx;
    timer->ops = ctx->ops;
    stenc_status status = timer->ops->timer_create(ctx, &timer->start, &timer->stop);
    if (status == STENC_OK) {
        status = stenc_handle_add(timer, &timer_kind, "stenc_timer_create");
        if (status != STENC_OK) timer->ops->timer_destroy(timer->start, timer->stop);
    }
    if (status != STENC_OK) {
        free(timer);
        return status;
    }
    *out = timer;
    return STENC_OK;
}

stenc_status stenc_timer_destroy(stenc_timer *timer) {
    if (!timer) return STENC_OK;
    STENC_TRY(stenc_handle_remove(timer, &timer_kind, "stenc_timer_destroy", "timer"));
    timer->ops->timer_destroy(timer->start, timer->stop);
    free(timer);
    return STENC_OK;
}

stenc_status stenc_timer_start(stenc_timer *timer) {
    STENC_TRY(check_timer(timer, "stenc_timer_start"));
    timer->running = 1;
    return timer->ops->timer_record(timer->ctx, timer->start);
}

stenc_status stenc_timer_stop(stenc_timer *timer, double *elapsed_ms) {
    STENC_TRY(check_timer(timer, "stenc_timer_stop"));
    STENC_REQUIRE(elapsed_ms != NULL, "stenc_timer_stop: elapsed_ms is NULL");
    STENC_REQUIRE(timer->running, "stenc_timer_stop: timer was not started");
    timer->running = 0;
    STENC_TRY(timer->ops->timer_record(timer->ctx, timer->stop));
    return timer->ops->timer_elapsed(timer->start, timer->stop, elapsed_ms);
}
