/* runtime/dist internals: the bridge to its CUDA half. Not installed. */
#ifndef STENC_DIST_INTERNAL_H
#define STENC_DIST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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

/* Copy the box into a dense buffer (pack) or back (unpack), i fastest, on the device,
 * queued on the context's stream. */
stenc_status dist_cuda_box(stenc_ctx *ctx, const dist_box *box, void *buffer, int unpack);
/* Pinned host memory; device memory comes from stenc_malloc. */
stenc_status dist_cuda_host_alloc(void **ptr, size_t bytes);
void dist_cuda_host_free(void *ptr);
/* Stream-ordered copies between the device and host memory (kind 0: to the host). */
stenc_status dist_cuda_copy(stenc_ctx *ctx, void *dst, const void *src, size_t bytes,
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
