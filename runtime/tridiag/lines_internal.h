/* Internals of line solves (stenc_launch_solve_begin/_end, prefix lns_): the geometry of a
 * field's allocation that the C half (lines.c) hands to the CUDA half (lines_cuda.cu, or
 * lines_no_cuda.c without CUDA), the rule that splits it into interior and the rest, written
 * once for both, and the OpenCL half (lines_opencl.c, or lines_no_opencl.c without OpenCL).
 * Not installed. */
#ifndef STENC_LINES_INTERNAL_H
#define STENC_LINES_INTERNAL_H

#include <stddef.h>

#include "internal.h"
#include "stenc/field.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define LNS_HD __host__ __device__
#else
#define LNS_HD
#endif

/* A field's allocation as rows of `pitch` elements, `rows` per plane, `planes` planes; row
 * index = r + rows * plane. Interior: columns [lead, lead + n0) of the rows with r in
 * [row_lo, row_hi) and plane in [plane_lo, plane_hi). Columns further than `halo` from the
 * interior columns are padding; every other non-interior position is halo. */
typedef struct lns_geometry {
    size_t pitch, rows, planes;
    size_t lead, n0, halo;
    size_t row_lo, row_hi, plane_lo, plane_hi;
} lns_geometry;

/* 1 when allocation row `row` holds interior points. */
static inline LNS_HD int lns_row_interior(const lns_geometry *g, size_t row) {
    const size_t r = row % g->rows, plane = row / g->rows;
    return r >= g->row_lo && r < g->row_hi && plane >= g->plane_lo && plane < g->plane_hi;
}

/* The non-interior columns of a row: all of them in a halo row, else those before and after
 * the interior columns. */
static inline LNS_HD size_t lns_outside_count(const lns_geometry *g, int interior_row) {
    return interior_row ? g->pitch - g->n0 : g->pitch;
}

/* The t-th of them, t < lns_outside_count(). */
static inline LNS_HD size_t lns_outside_column(const lns_geometry *g, int interior_row, size_t t) {
    return !interior_row || t < g->lead ? t : t + g->n0;
}

static inline LNS_HD int lns_is_padding(const lns_geometry *g, size_t col) {
    return col + g->halo < g->lead || col >= g->lead + g->n0 + g->halo;
}

/* The CUDA half; device pointers to allocation starts, queued on the context's stream.
 * Without CUDA they return STENC_ERR_NO_DEVICE. */

/* Every position of `array`: interior ones get `inside`, the rest `outside`. */
stenc_status lns_cuda_fill_uniform(stenc_ctx *ctx, const lns_geometry *g, stenc_type type,
                                   void *array, double inside, double outside);
/* The identity equation at every non-interior position: lower and upper 0, diag 1, rhs v's
 * value at halo positions and 0 at padding. A NULL array is skipped. */
stenc_status lns_cuda_fill_identity(stenc_ctx *ctx, const lns_geometry *g, stenc_type type,
                                    void *lower, void *diag, void *upper, void *rhs, const void *v);
/* v's halo positions from rhs, where lns_cuda_fill_identity put them. */
stenc_status lns_cuda_restore_halo(stenc_ctx *ctx, const lns_geometry *g, stenc_type type, void *v,
                                   const void *rhs);

/* The OpenCL half; pointers are the context's stenc_malloc addresses of allocation starts,
 * work queued on its queue. Without OpenCL they return STENC_ERR_NO_DEVICE. */

/* Every one of `elems` elements of `array` set to (type)value: the OpenCL solve reads only
 * the interior, so a uniform array needs no identity around it. */
stenc_status lns_ocl_fill(stenc_ctx *ctx, stenc_type type, void *array, size_t elems, double value);
/* Solve every line along dim of the interior of v (layout L) in place, with the Thomas
 * algorithm: arrays[] (lower, diag, upper, rhs; L's layout) give the equations at interior
 * points, v's halo the boundary values. Writes v's interior only, and the rhs array's; waits.
 * *first_bad: the lowest failing line (zero pivot or non-finite value), numbered a + n1*b for
 * the line at (a, b) of the other two dimensions in order, each of extent L->n; SIZE_MAX when
 * none fails. STENC_ERR_UNSUPPORTED for double on a device without fp64. */
stenc_status lns_ocl_solve(stenc_ctx *ctx, const stenc_field_layout *L, int dim, void *v,
                           void *const arrays[4], size_t *first_bad);

#ifdef __cplusplus
}
#endif

#endif /* STENC_LINES_INTERNAL_H */
