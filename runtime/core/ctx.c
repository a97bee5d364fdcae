/* The context, raw memory and timers: the CPU half, and dispatch to the CUDA half. */
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

/* STENC_DEVICE=cpu|cuda turns AUTO into a choice, so a program can be moved without a rebuild. */
static stenc_status resolve_auto(stenc_device *device) {
    const char *env = getenv("STENC_DEVICE");
    if (env && *env) {
        if (strcmp(env, "cpu") == 0)
            *device = STENC_DEVICE_CPU;
        else if (strcmp(env, "cuda") == 0)
            *device = STENC_DEVICE_CUDA;
        else
            return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                               "environment variable STENC_DEVICE='%s' is not 'cpu' or 'cuda'",
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
                      device == STENC_DEVICE_CUDA,
                  "stenc_ctx_create: unknown device kind %d", (int)device);
    if (device == STENC_DEVICE_AUTO) STENC_TRY(resolve_auto(&device));

    stenc_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_ctx_create: no memory");
    ctx->device = device;
    ctx->tune_mode = tune_mode_from_env();
    if (device == STENC_DEVICE_CUDA) {
        stenc_status status = stenc_cuda_ctx_init(ctx);
        if (status != STENC_OK) {
            free(ctx);
            return status;
        }
    } else {
        int threads = 1;
#ifdef _OPENMP
        threads = omp_get_max_threads();
#endif
        snprintf(ctx->name, sizeof ctx->name, "CPU (%d thread%s)", threads,
                 threads == 1 ? "" : "s");
    }
    stenc_status status = stenc_handle_add(ctx, &ctx_kind, "stenc_ctx_create");
    if (status != STENC_OK) {
        if (device == STENC_DEVICE_CUDA) stenc_cuda_ctx_release(ctx);
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
    if (ctx->device == STENC_DEVICE_CUDA) stenc_cuda_ctx_release(ctx);
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
    return ctx->device == STENC_DEVICE_CUDA ? stenc_cuda_synchronize(ctx) : STENC_OK;
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
    if (ctx->device == STENC_DEVICE_CUDA) {
        STENC_TRY(stenc_cuda_malloc(ctx, &p, bytes));
    } else if (!(p = stenc_host_alloc(bytes))) {
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_malloc: %zu bytes of host memory",
                           bytes);
    }
    *ptr = p;
    return STENC_OK;
}

stenc_status stenc_free(stenc_ctx *ctx, void *ptr) {
    if (!ptr) return STENC_OK;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_free"));
    if (ctx->device == STENC_DEVICE_CUDA)
        stenc_cuda_free(ctx, ptr);
    else
        stenc_host_free(ptr);
    return STENC_OK;
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
    if (ctx->device == STENC_DEVICE_CUDA) return stenc_cuda_upload(ctx, dst, src, bytes);
    memmove(dst, src, bytes);
    return STENC_OK;
}

stenc_status stenc_download(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    STENC_TRY(check_copy_args(ctx, dst, src, bytes, "stenc_download"));
    if (bytes == 0) return STENC_OK;
    if (ctx->device == STENC_DEVICE_CUDA) return stenc_cuda_download(ctx, dst, src, bytes);
    memmove(dst, src, bytes);
    return STENC_OK;
}

stenc_status stenc_memzero(stenc_ctx *ctx, void *ptr, size_t bytes) {
    if (bytes == 0) return STENC_OK;
    if (ctx->device == STENC_DEVICE_CUDA) return stenc_cuda_memzero(ctx, ptr, bytes);
    memset(ptr, 0, bytes);
    return STENC_OK;
}

stenc_status stenc_memcpy(stenc_ctx *ctx, void *dst, const void *src, size_t bytes) {
    STENC_TRY(check_copy_args(ctx, dst, src, bytes, "stenc_memcpy"));
    if (bytes == 0) return STENC_OK;
    if (ctx->device == STENC_DEVICE_CUDA) return stenc_cuda_memcpy(ctx, dst, src, bytes);
    memmove(dst, src, bytes);
    return STENC_OK;
}

/* ---- timers ------------------------------------------------------------------------------ */

struct stenc_timer {
    stenc_ctx *ctx;
    int on_cuda;                    /* so that destroy needs no context */
    void *start_event, *stop_event; /* CUDA */
    struct timespec start;          /* CPU */
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
    timer->on_cuda = ctx->device == STENC_DEVICE_CUDA;
    stenc_status status = STENC_OK;
    if (timer->on_cuda)
        status = stenc_cuda_timer_create(ctx, &timer->start_event, &timer->stop_event);
    if (status == STENC_OK) {
        status = stenc_handle_add(timer, &timer_kind, "stenc_timer_create");
        if (status != STENC_OK && timer->on_cuda)
            stenc_cuda_timer_destroy(timer->start_event, timer->stop_event);
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
    if (timer->on_cuda) stenc_cuda_timer_destroy(timer->start_event, timer->stop_event);
    free(timer);
    return STENC_OK;
}

stenc_status stenc_timer_start(stenc_timer *timer) {
    STENC_TRY(check_timer(timer, "stenc_timer_start"));
    timer->running = 1;
    if (timer->on_cuda) return stenc_cuda_timer_record(timer->ctx, timer->start_event);
    clock_gettime(CLOCK_MONOTONIC, &timer->start);
    return STENC_OK;
}

stenc_status stenc_timer_stop(stenc_timer *timer, double *elapsed_ms) {
    STENC_TRY(check_timer(timer, "stenc_timer_stop"));
    STENC_REQUIRE(elapsed_ms != NULL, "stenc_timer_stop: elapsed_ms is NULL");
    STENC_REQUIRE(timer->running, "stenc_timer_stop: timer was not started");
    timer->running = 0;
    if (timer->on_cuda) {
        STENC_TRY(stenc_cuda_timer_record(timer->ctx, timer->stop_event));
        return stenc_cuda_timer_elapsed(timer->start_event, timer->stop_event, elapsed_ms);
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    *elapsed_ms = (double)(now.tv_sec - timer->start.tv_sec) * 1e3 +
                  (double)(now.tv_nsec - timer->start.tv_nsec) * 1e-6;
    return STENC_OK;
}
