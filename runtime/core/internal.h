/* Internals shared by all runtime modules: error reporting, the context's innards and the
 * bridges to the CUDA and OpenCL halves of the core. Not installed. */
#ifndef STENC_CORE_INTERNAL_H
#define STENC_CORE_INTERNAL_H

#include <stdint.h>

#include "stenc/core.h"
#include "stenc/field.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-context state that a module keeps between calls (scratch buffers, flags), released
 * with the context. A module names its slot with a key of its own, one constant object whose
 * address is the slot's identity, so the core knows none of its clients:
 *     static const stenc_cache_key sort_key = {"sort"};
 * A context holds up to STENC_CACHE_SLOTS keys. */
typedef struct stenc_cache_key {
    const char *module;
} stenc_cache_key;
#define STENC_CACHE_SLOTS 16

typedef void (*stenc_cache_release_fn)(stenc_ctx *ctx, void *state);

struct stenc_ctx {
    stenc_device device; /* CPU, CUDA or OpenCL, never AUTO */
    int cuda_device;     /* ordinal, CUDA only */
    void *stream;        /* cudaStream_t, CUDA only */
    int sm_count;        /* CUDA only */
    size_t l2_bytes;     /* CUDA only */
    size_t smem_optin;   /* largest dynamic shared memory a block may opt in to, CUDA only */
    int cc_major, cc_minor;
    void *ocl; /* the OpenCL half's state (runtime/opencl/ocl.c), OpenCL only */
    char name[320];
    /* The device kind's half of the core: memory, timers, synchronisation. */
    const struct stenc_device_ops *ops;
    int tune_mode; /* stenc_tune_mode; runtime/tune keeps the keys it saw in `cache` */
    struct {
        const stenc_cache_key *key; /* NULL: a free slot */
        void *state;
        stenc_cache_release_fn release;
    } cache[STENC_CACHE_SLOTS];
};

/* The state a module keeps under `key` in ctx, or NULL. */
void *stenc_ctx_cache_get(const stenc_ctx *ctx, const stenc_cache_key *key);
/* Keep `state` under `key`; `release` (may be NULL) frees it when the context is destroyed or
 * the key is set again. With every slot taken by other keys, the state is released at once
 * and STENC_ERR_CAPACITY returned (the module makes it again at its next call). */
stenc_status stenc_ctx_cache_set(stenc_ctx *ctx, const stenc_cache_key *key, void *state,
                                 stenc_cache_release_fn release);

/* Distributed fields. runtime/dist (a library of its own, with MPI) attaches its part to a
 * field; the core calls back through these hooks, so that it never depends on MPI. */
typedef struct stenc_field_dist_ops {
    /* Frees the dist part; called by stenc_field_free once the field is no longer live. */
    void (*release)(void *dist, stenc_ctx *ctx);
    /* A global reduction (kind: runtime/multigrid's stenc_reduce_kind); b is NULL but for dot.
     * The arguments are checked already. */
    stenc_status (*reduce)(int kind, const stenc_field *a, const stenc_field *b, double *result);
    /* Collective over the field's ranks: STENC_OK when every rank passes STENC_OK, else the
     * status of the lowest failing rank, everywhere (messages as dist_agree's). */
    stenc_status (*agree)(const stenc_field *field, stenc_status mine, const char *fn);
    /* Collective: the global results of a generated kernel's reductions on this field's
     * decomposition (stenc_launch_reduce_finish). ops[r] is 's' (sum: the n[0]*n[1]*n[2] doubles
     * at terms[r * n[0]*n[1]*n[2]] hold this rank's terms, on the device when on_device), 'x' (max)
     * or 'n' (min: results[r] holds this rank's value). Every rank agrees on `kernel` (the local
     * launch's status) first. */
    stenc_status (*reduce_terms)(const stenc_field *field, stenc_status kernel, const char *ops,
                                 const double *terms, const size_t n[3], int on_device,
                                 double *results, const char *fn);
    /* Collective: stenc_field_exchange (stepping launchers on distributed fields). */
    stenc_status (*exchange)(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT],
                             unsigned flags);
    /* shared[f] = 1 where face f (STENC_FACE_*) meets a rank (this one too, across a periodic
     * boundary): its halo comes from an exchange, not from a boundary condition. */
    void (*shared_faces)(const stenc_field *field, int shared[STENC_FACE_COUNT]);
    /* The global interior's extents (1 in unused dimensions) and which dimensions wrap around
     * (MLSSOR's tiles and mirror are the global grid's). */
    void (*global_extent)(const stenc_field *field, size_t n[3], int periodic[3]);
} stenc_field_dist_ops;
void stenc_field_set_dist(stenc_field *field, const stenc_field_dist_ops *ops, void *dist,
                          uint64_t decomp_sig, const size_t index_offset[3]);
/* Global index of the field's interior point (0,0,0): 0 for a field of one process; a
 * distributed part's first point; plus a view's place in its parent. */
void stenc_field_index_offset(const stenc_field *field, size_t offset[3]);
void *stenc_field_dist(const stenc_field *field);
const stenc_field_dist_ops *stenc_field_dist_ops_of(const stenc_field *field);
/* Equal for fields split alike over the same ranks; 0 for a field of one process. Computed
 * from global facts only, so every rank compares two fields the same way. */
uint64_t stenc_field_decomp_signature(const stenc_field *field);
/* The faces' names in messages ("i-lo" .. "k-hi"), indexed by stenc_face. */
extern const char *const stenc_face_names[STENC_FACE_COUNT];

/* Zero `bytes` of the context's memory (stenc_malloc's), ordered on the context's stream. */
stenc_status stenc_memzero(stenc_ctx *ctx, void *ptr, size_t bytes);

/* 1 for a view (stenc_field_view), which owns no storage; 0 otherwise (and for dead
 * handles). */
int stenc_field_is_view(const stenc_field *field);

/* 1 when `field` is a live field; records no error. */
int stenc_field_live(const stenc_field *field);

/* runtime/io: stenc_io_vti_write for one piece of a larger grid (a .pvti's piece): the
 * fields' points start at global index offset[] of a grid of whole[] points (NULL, NULL: the
 * whole grid, as stenc_io_vti_write). `fn` names the public call in messages. */
stenc_status stenc_io_vti_write_piece(const char *path, int count, const char *const names[],
                                      const stenc_field *const fields[], const double origin[3],
                                      const double spacing[3], const size_t offset[3],
                                      const size_t whole[3], const char *fn);

/* stenc_set_error() (public, core.h) records an error; use it through STENC_ERROR so that
 * the call site is filled in. */
#define STENC_ERROR(status, ...) stenc_set_error((status), __FILE__, __LINE__, __VA_ARGS__)

/* Return STENC_ERR_INVALID_ARGUMENT with a message when `cond` is false. */
#define STENC_REQUIRE(cond, ...)                                                                   \
    do {                                                                                           \
        if (!(cond)) return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, __VA_ARGS__);                  \
    } while (0)

/* Propagate a failing status unchanged (the callee already set the message). */
#define STENC_TRY(expr)                                                                            \
    do {                                                                                           \
        stenc_status try_status_ = (expr);                                                         \
        if (try_status_ != STENC_OK) return try_status_;                                           \
    } while (0)

/* Host allocation aligned to 128 bytes; NULL on failure (and for bytes == 0: one byte). */
void *stenc_host_alloc(size_t bytes);
void stenc_host_free(void *ptr);

/* splitmix64: the next of a reproducible sequence of 64-bit values, the same on every
 * platform (hash constants, reftest's random data). */
static inline uint64_t stenc_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Multiply sizes, failing on overflow: returns 0 and leaves *out alone when a*b overflows. */
int stenc_mul_size(size_t a, size_t b, size_t *out);

/* STENC_OK when `count` elements of `elem_bytes` bytes can be one array: at most PTRDIFF_MAX
 * bytes, C's limit on an object, so that no count, index or byte size derived from it
 * overflows (a signed count of SIZE_MAX is -1). Else STENC_ERR_INVALID_ARGUMENT naming `fn`,
 * `what` (the elements, plural) and the limit. */
stenc_status stenc_check_count(size_t count, size_t elem_bytes, const char *fn, const char *what);

/* ---- live handles (handle.c) ---------------------------------------------------------------- */
/* Every public handle (context, field, hash table, ...) is registered by its create function
 * and removed by its destroy, and calls check their handles against the registry before they
 * read them: a destroyed handle, or one of another kind, is reported and never dereferenced. */

/* A kind of handle: one constant object per kind, defined by the module that owns it. */
typedef struct stenc_handle_kind {
    const char *name; /* "context", "field", ... */
} stenc_handle_kind;

/* Register a new handle (STENC_ERR_OUT_OF_MEMORY when the registry cannot grow). */
stenc_status stenc_handle_add(const void *handle, const stenc_handle_kind *kind, const char *fn);
/* STENC_OK when `handle` is live and of `kind`; else STENC_ERR_INVALID_ARGUMENT with a message
 * naming `fn` and the argument `what`: NULL, not live (destroyed or never created), or
 * another kind. */
stenc_status stenc_handle_check(const void *handle, const stenc_handle_kind *kind, const char *fn,
                                const char *what);
/* 1 when `handle` is live and of `kind`; records no error. */
int stenc_handle_live(const void *handle, const stenc_handle_kind *kind);
/* stenc_handle_check, and on success forget the handle: it is no longer live. */
stenc_status stenc_handle_remove(const void *handle, const stenc_handle_kind *kind, const char *fn,
                                 const char *what);

/* A live context (argument name "ctx"); stenc_ctx_live records no error. */
stenc_status stenc_ctx_check(const stenc_ctx *ctx, const char *fn);
int stenc_ctx_live(const stenc_ctx *ctx);

/* A live field whose context is live (runtime/field); `what` names the argument. */
struct stenc_field;
stenc_status stenc_field_check(const struct stenc_field *field, const char *fn, const char *what);

/* ---- device kinds ---------------------------------------------------------------------------- */
/* What the core does on one kind of device: a context's setup and release, and the raw memory
 * and timer calls behind stenc_malloc, stenc_upload, stenc_timer_start and the rest. ctx.c
 * keeps one table per kind and calls through the context's (ctx->ops) once it has checked the
 * arguments, so no call chains ifs over the kinds. */
typedef struct stenc_device_ops {
    const char *kind; /* "CPU", "CUDA", "OpenCL": for messages */
    /* Set up the kind's state and ctx->name; a failure leaves nothing to release. */
    stenc_status (*init)(stenc_ctx *ctx);
    void (*release)(stenc_ctx *ctx);
    stenc_status (*synchronize)(stenc_ctx *ctx);
    stenc_status (*alloc)(stenc_ctx *ctx, void **ptr, size_t bytes);
    stenc_status (*free)(stenc_ctx *ctx, void *ptr);
    /* bytes > 0 in the copies below; uploads and downloads block. */
    stenc_status (*upload)(stenc_ctx *ctx, void *dst, const void *src, size_t bytes);
    stenc_status (*download)(stenc_ctx *ctx, void *dst, const void *src, size_t bytes);
    stenc_status (*copy)(stenc_ctx *ctx, void *dst, const void *src, size_t bytes);
    stenc_status (*zero)(stenc_ctx *ctx, void *ptr, size_t bytes);
    /* Timers: two marks recorded in stream order, and the milliseconds between them. Destroy
     * and elapsed need no context (a timer may outlive its context). */
    stenc_status (*timer_create)(stenc_ctx *ctx, void **start, void **stop);
    void (*timer_destroy)(void *start, void *stop);
    stenc_status (*timer_record)(stenc_ctx *ctx, void *mark);
    stenc_status (*timer_elapsed)(void *start, void *stop, double *ms);
} stenc_device_ops;

/* "CPU", "CUDA" or "OpenCL" (for AUTO: "AUTO"). */
const char *stenc_device_kind_name(stenc_device device);

/* STENC_OK on a CPU or CUDA context; STENC_ERR_UNSUPPORTED naming `fn` on another (OpenCL): for
 * modules with CPU and CUDA kernels only, which would read the other kind's memory as theirs. */
stenc_status stenc_ctx_require_cpu_or_cuda(const stenc_ctx *ctx, const char *fn);

/* The CUDA half of the core (runtime/core/cuda.cu). In a build without CUDA these return
 * STENC_ERR_NO_DEVICE and stenc_cuda_count_devices() returns 0. */
int stenc_cuda_count_devices(void);
stenc_status stenc_cuda_ctx_init(stenc_ctx *ctx);
/* Make CUDA device `ordinal` this thread's current device (contexts created next use it). */
stenc_status stenc_cuda_select_device(int ordinal);
void stenc_cuda_ctx_release(stenc_ctx *ctx);
stenc_status stenc_cuda_synchronize(stenc_ctx *ctx);
stenc_status stenc_cuda_malloc(stenc_ctx *ctx, void **ptr, size_t bytes);
void stenc_cuda_free(stenc_ctx *ctx, void *ptr);
stenc_status stenc_cuda_upload(stenc_ctx *ctx, void *dst, const void *src, size_t bytes);
stenc_status stenc_cuda_download(stenc_ctx *ctx, void *dst, const void *src, size_t bytes);
stenc_status stenc_cuda_memcpy(stenc_ctx *ctx, void *dst, const void *src, size_t bytes);
stenc_status stenc_cuda_memzero(stenc_ctx *ctx, void *ptr, size_t bytes);
stenc_status stenc_cuda_timer_create(stenc_ctx *ctx, void **start_event, void **stop_event);
void stenc_cuda_timer_destroy(void *start_event, void *stop_event);
stenc_status stenc_cuda_timer_record(stenc_ctx *ctx, void *event);
stenc_status stenc_cuda_timer_elapsed(void *start_event, void *stop_event, double *ms);

/* The OpenCL half of the core (runtime/opencl/ocl.c; the entries of stenc_device_ops, with the
 * same contracts). In a build without OpenCL (ocl_none.c) these return STENC_ERR_NO_DEVICE and
 * stenc_ocl_count_devices() returns 0. */
int stenc_ocl_count_devices(void);
stenc_status stenc_ocl_ctx_init(stenc_ctx *ctx);
void stenc_ocl_ctx_release(stenc_ctx *ctx);
stenc_status stenc_ocl_synchronize(stenc_ctx *ctx);
stenc_status stenc_ocl_malloc(stenc_ctx *ctx, void **ptr, size_t bytes);
stenc_status stenc_ocl_free(stenc_ctx *ctx, void *ptr);
stenc_status stenc_ocl_upload(stenc_ctx *ctx, void *dst, const void *src, size_t bytes);
stenc_status stenc_ocl_download(stenc_ctx *ctx, void *dst, const void *src, size_t bytes);
stenc_status stenc_ocl_memcpy(stenc_ctx *ctx, void *dst, const void *src, size_t bytes);
stenc_status stenc_ocl_memzero(stenc_ctx *ctx, void *ptr, size_t bytes);
stenc_status stenc_ocl_timer_create(stenc_ctx *ctx, void **start, void **stop);
void stenc_ocl_timer_destroy(void *start, void *stop);
stenc_status stenc_ocl_timer_record(stenc_ctx *ctx, void *mark);
stenc_status stenc_ocl_timer_elapsed(void *start, void *stop, double *ms);

#ifdef __cplusplus
}
#endif

#endif /* STENC_CORE_INTERNAL_H */
