/* The multigrid module's inside: a plain view of a field for kernels, and the bridge between
 * the C half (transfer.c, reduce.c: checks, CPU kernels, dispatch) and the CUDA half
 * (transfer.cu, reduce.cu; mg_no_cuda.c without CUDA). Not installed. */
#ifndef STENC_MG_INTERNAL_H
#define STENC_MG_INTERNAL_H

#include "internal.h"
#include "stenc/field.h"
#include "stenc/multigrid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A field as a kernel sees it: its layout, and its interior origin where the data lives. */
typedef struct stenc_mg_view {
    stenc_field_layout layout;
    void *origin;
} stenc_mg_view;

/* Fill *view from a field that must be non-NULL, F32 or F64; `fn` names the caller in
 * messages. */
stenc_status stenc_mg_view_of(const char *fn, const char *what, const stenc_field *field,
                              stenc_mg_view *view);

/* Views of two fields that must share context, location, type and dims. */
stenc_status stenc_mg_view_pair(const char *fn, const char *what_a, const stenc_field *a,
                                const char *what_b, const stenc_field *b, stenc_mg_view *va,
                                stenc_mg_view *vb);

/* Element `off` (elements from the origin) of a view, widened to double, and back. */
static inline double stenc_mg_load(const stenc_mg_view *v, ptrdiff_t off) {
    return v->layout.type == STENC_F32 ? (double)((const float *)v->origin)[off]
                                       : ((const double *)v->origin)[off];
}
static inline void stenc_mg_store(const stenc_mg_view *v, ptrdiff_t off, double x) {
    if (v->layout.type == STENC_F32)
        ((float *)v->origin)[off] = (float)x;
    else
        ((double *)v->origin)[off] = x;
}

typedef enum stenc_reduce_kind {
    STENC_REDUCE_SUM = 0,
    STENC_REDUCE_DOT, /* sum a*b; the sum of squares is dot(a, a) */
    STENC_REDUCE_MAX_ABS
} stenc_reduce_kind;

/* Points per chunk of the CPU reduction: the unit of its fixed summation order. Large enough
 * to amortise a task, small enough that 2 chunks per thread exist from ~10^4 points on. */
#define STENC_REDUCE_CHUNK 4096

/* Transfers between parts of two levels of a distributed grid (stenc/dist.h), in the
 * INTERIOR convention: coarse interior index I sits on fine interior index 2I + shift[d]
 * along each used dimension (whole grids: shift 1). The caller checks the extents and fills
 * the halos the kernels read: the fine one (restriction) or the coarse one (prolongation). */
stenc_status stenc_mg_restrict_part(stenc_field *coarse, const stenc_field *fine,
                                    const long shift[3], stenc_mg_restriction op);
stenc_status stenc_mg_prolong_add_part(stenc_field *fine, const stenc_field *coarse,
                                       const long shift[3]);

/* The CUDA half; arguments are checked, views point at device memory. Transfers are queued
 * on the context's stream; the reduction waits and writes the host double. `shift` as for
 * the _part calls; `grid` says whether VERTEX's boundary rules apply. */
stenc_status stenc_mg_cuda_restrict(stenc_ctx *ctx, const stenc_mg_view *coarse,
                                    const stenc_mg_view *fine, stenc_mg_grid grid,
                                    const long shift[3], stenc_mg_restriction op);
stenc_status stenc_mg_cuda_prolong_add(stenc_ctx *ctx, const stenc_mg_view *fine,
                                       const stenc_mg_view *coarse, stenc_mg_grid grid,
                                       const long shift[3]);
stenc_status stenc_mg_cuda_reduce(stenc_ctx *ctx, stenc_reduce_kind kind, const stenc_mg_view *a,
                                  const stenc_mg_view *b, double *result);

#ifdef __cplusplus
}
#endif

#endif /* STENC_MG_INTERNAL_H */
