/* runtime/dist internals: the bridge to its CUDA half. Not installed. */
#ifndef STENC_DIST_INTERNAL_H
#define STENC_DIST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "stenc/field.h"
#include "xsum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A box of a field: points lo[d] <= i < lo[d] + count[d] (halo indices allowed), with the
 * field's origin and strides (elements) and element size. */
typedef struct dist_box {
    void *origin;
    ptrdiff_t stride[3];
    size_t elem;
    long lo[3], count[3];
} dist_box;

static inline size_t dist_box_points(const dist_box *b) {
    return (size_t)b->count[0] * (size_t)b->count[1] * (size_t)b->count[2];
}

/* A device field's exchange runs on a stream of its own, so that it overlaps kernels on the
 * context's stream. Two events order them: `ready` (recorded on the context's stream, waited
 * for by the exchange) and `done` (the other way round). */
typedef struct dist_stream {
    void *stream, *ready, *done;
} dist_stream;
stenc_status dist_cuda_stream_create(dist_stream *s);
void dist_cuda_stream_destroy(dist_stream *s);
/* Record `ready` on the context's stream: the exchange will see the work queued so far. */
stenc_status dist_cuda_mark_ready(stenc_ctx *ctx, dist_stream *s);
/* The exchange's stream waits for the last `ready`. */
stenc_status dist_cuda_wait_ready(dist_stream *s);
/* The context's stream waits for the work queued on the exchange's stream so far. */
stenc_status dist_cuda_join(stenc_ctx *ctx, dist_stream *s);
stenc_status dist_cuda_sync(dist_stream *s);

/* Copy the box into a dense buffer (pack) or back (unpack), i fastest, on the host. */
static inline void dist_host_box(const dist_box *b, void *buffer, int unpack) {
    char *origin = (char *)b->origin, *buf = (char *)buffer;
    const size_t row = (size_t)b->count[0] * b->elem;
    for (long k = 0; k < b->count[2]; k++)
        for (long j = 0; j < b->count[1]; j++) {
            const ptrdiff_t at =
                b->lo[0] + (b->lo[1] + j) * b->stride[1] + (b->lo[2] + k) * b->stride[2];
            char *p = origin + at * (ptrdiff_t)b->elem;
            if (unpack)
                memcpy(p, buf, row);
            else
                memcpy(buf, p, row);
            buf += row;
        }
}

/* The same on the device, queued on the exchange's stream. */
stenc_status dist_cuda_box(dist_stream *s, const dist_box *box, void *buffer, int unpack);
/* A gather in any axis order: buffer point (x0, x1, x2), x0 fastest, 0 <= x_e < count[e],
 * reads base + x0*step[0] + x1*step[1] + x2*step[2] (elements; steps may be negative). A
 * multi-block patch's axes, permuted and reversed, are such steps. */
typedef struct dist_gather {
    const void *base;
    ptrdiff_t step[3];
    long count[3];
    size_t elem;
} dist_gather;

static inline void dist_host_gather(const dist_gather *g, void *buffer) {
    const char *base = (const char *)g->base;
    char *out = (char *)buffer;
    for (long z = 0; z < g->count[2]; z++)
        for (long y = 0; y < g->count[1]; y++)
            for (long x = 0; x < g->count[0]; x++) {
                const ptrdiff_t off = x * g->step[0] + y * g->step[1] + z * g->step[2];
                memcpy(out, base + off * (ptrdiff_t)g->elem, g->elem);
                out += g->elem;
            }
}
stenc_status dist_cuda_gather(dist_stream *s, const dist_gather *g, void *buffer);

/* CUDA IPC between the processes of a node. dist_cuda_ipc_alloc makes device memory of its
 * own (an allocation's base is what a handle names) and its handle. dist_cuda_bus_id names
 * this process's device (1; 0 when it cannot). dist_cuda_ipc_open maps another process's
 * allocation when that process's device (bus) can be reached from this one: the pointer, or
 * NULL with no error recorded (the caller then uses MPI). */
enum { DIST_IPC_HANDLE_BYTES = 64, DIST_BUS_ID_BYTES = 32 };
stenc_status dist_cuda_ipc_alloc(void **ptr, size_t bytes,
                                 unsigned char handle[DIST_IPC_HANDLE_BYTES]);
void dist_cuda_ipc_free(void *ptr);
int dist_cuda_bus_id(char bus[DIST_BUS_ID_BYTES]);
void *dist_cuda_ipc_open(const unsigned char handle[DIST_IPC_HANDLE_BYTES],
                         const char bus[DIST_BUS_ID_BYTES]);
void dist_cuda_ipc_close(void *ptr);

/* Pinned host memory; device memory comes from stenc_malloc. */
stenc_status dist_cuda_host_alloc(void **ptr, size_t bytes);
void dist_cuda_host_free(void *ptr);
/* Copies between the device and host memory on the exchange's stream. */
stenc_status dist_cuda_copy(dist_stream *s, void *dst, const void *src, size_t bytes,
                            int to_device);

/* Reduction kinds, as runtime/multigrid numbers them (stenc_reduce_kind). */
enum { DIST_SUM = 0, DIST_DOT = 1, DIST_MAX_ABS = 2 };

/* The exact local sum (DIST_SUM: of a; DIST_DOT: of a*b) into *acc, normalised, or for
 * DIST_MAX_ABS the largest bit pattern of |a| into *max_bits (NaN above every number), over
 * the interior n[] of device fields a and b (b may equal a). Waits for the result. */
stenc_status dist_cuda_reduce(stenc_ctx *ctx, int kind, stenc_type type, const size_t n[3],
                              const void *a, const ptrdiff_t a_stride[3], const void *b,
                              const ptrdiff_t b_stride[3], xsum *acc, uint64_t *max_bits);

#ifdef __cplusplus
}
#endif

#endif /* STENC_DIST_INTERNAL_H */
