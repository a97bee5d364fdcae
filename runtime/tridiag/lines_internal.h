/* Internals of line solves (stenc_launch_solve_begin/_end, prefix lns_): the geometry of a
 * field's allocation that the C half (lines.c) hands to the CUDA half (lines_cuda.cu, or
 * lines_no_cuda.c without CUDA), the rule that splits it into interior and the rest, written
 * once for both, and the OpenCL half (lines_opencl.c, or lines_no_opencl.c without OpenCL).
 * Not installed. */
#ifndef STENC_LINES_INTERNAL_H
#define STENC_LINES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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

/* The geometry of a field of layout L (stenc/field.h: rows of `pitch` elements, the interior
 * `lead` elements into a row and `halo` rows and planes in, where those dimensions exist). */
static inline lns_geometry lns_geometry_of(const stenc_field_layout *L) {
    const size_t pitch = (size_t)L->stride[1], plane = (size_t)L->stride[2];
    const size_t h = (size_t)L->halo;
    lns_geometry g;
    g.pitch = pitch;
    g.rows = plane / pitch;
    g.planes = L->alloc_elems / plane;
    g.lead = L->origin_elems % pitch;
    g.n0 = L->n[0];
    g.halo = h;
    g.row_lo = L->dims >= 2 ? h : 0;
    g.row_hi = g.row_lo + L->n[1];
    g.plane_lo = L->dims >= 3 ? h : 0;
    g.plane_hi = g.plane_lo + L->n[2];
    return g;
}

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

/* The positions in columns [c0, c0 + width) of every row, less the interior ones, numbered in
 * allocation order, so that a GPU thread finds its position from its index alone
 * (lns_frame_at): a launch over a few thousand positions then takes a few dozen blocks, where
 * a block per row would leave most of its threads idle. All columns give the non-interior
 * positions (lns_frame_outside); those within `halo` of the interior columns give v's halo
 * (lns_frame_halo). "Box" offsets count the frame's columns alone. */
typedef struct lns_frame {
    size_t c0, width, pitch;
    size_t n0, gap;     /* interior columns; width - n0, the frame between two interior rows */
    size_t head;        /* box offset of the first interior point of an interior plane */
    size_t plane;       /* box positions of a plane */
    size_t plane_frame; /* frame positions of an interior plane */
    size_t before;      /* frame positions before the first interior plane */
    size_t inner;       /* frame positions of the interior planes */
    size_t inside;      /* interior points */
    size_t rows_in;     /* interior rows of an interior plane */
    size_t count;       /* frame positions */
} lns_frame;

static inline LNS_HD lns_frame lns_frame_of(const lns_geometry *g, size_t c0, size_t width) {
    lns_frame f;
    const size_t planes_in = g->plane_hi - g->plane_lo;
    f.c0 = c0, f.width = width, f.pitch = g->pitch;
    f.n0 = g->n0, f.gap = width - g->n0;
    f.rows_in = g->row_hi - g->row_lo;
    f.head = g->row_lo * width + (g->lead - c0);
    f.plane = g->rows * width;
    f.plane_frame = f.plane - f.rows_in * g->n0;
    f.before = g->plane_lo * f.plane;
    f.inner = planes_in * f.plane_frame;
    f.inside = planes_in * f.rows_in * g->n0;
    f.count = g->planes * f.plane - f.inside;
    return f;
}

/* Every non-interior position: where the identity equations go. */
static inline LNS_HD lns_frame lns_frame_outside(const lns_geometry *g) {
    return lns_frame_of(g, 0, g->pitch);
}

/* v's halo: the non-interior positions at most `halo` columns from the interior ones (rows and
 * planes beyond the interior are all halo). */
static inline LNS_HD lns_frame lns_frame_halo(const lns_geometry *g) {
    return lns_frame_of(g, g->lead - g->halo, g->n0 + 2 * g->halo);
}

/* The allocation index of frame position t < f->count; its column in *col. Needs an interior
 * (f->rows_in, f->n0 > 0) and f->gap > 0, which a halo of 1 or more gives. */
static inline LNS_HD size_t lns_frame_at(const lns_frame *f, size_t t, size_t *col) {
    size_t b = t; /* the box offset; the frame before the first interior plane is all box */
    if (t >= f->before + f->inner) {
        b = t + f->inside;
    } else if (t >= f->before) {
        const size_t u = t - f->before, p = u / f->plane_frame, w = u - p * f->plane_frame;
        size_t rows = 0; /* interior rows whose interior points come before w */
        if (w >= f->head) {
            rows = (w - f->head) / f->gap + 1;
            if (rows > f->rows_in) rows = f->rows_in;
        }
        b = f->before + p * f->plane + w + rows * f->n0;
    }
    const size_t row = b / f->width;
    *col = f->c0 + (b - row * f->width);
    return row * f->pitch + *col;
}

/* What an allocation element is (lns_kind). */
enum { LNS_INTERIOR, LNS_HALO, LNS_PADDING };

/* The kind of the element at column `col` of allocation row `row` (r + rows * plane), for
 * fields whose rows * planes fits 32 bits (a 32-bit division per element in the transposing
 * kernels). */
static inline LNS_HD int lns_kind(const lns_geometry *g, uint32_t row, size_t col) {
    if (lns_is_padding(g, col)) return LNS_PADDING;
    if (col < g->lead || col >= g->lead + g->n0) return LNS_HALO;
    const uint32_t rows = (uint32_t)g->rows, plane = row / rows, r = row - plane * rows;
    return r >= g->row_lo && r < g->row_hi && plane >= g->plane_lo && plane < g->plane_hi
               ? LNS_INTERIOR
               : LNS_HALO;
}

/* Lines that the CUDA half transposes: element i (< n) of line s (< batch) is allocation
 * element i * batch + s, batch a multiple of pitch (lines along j: a row of them; along k: a
 * plane), so in allocation row i * (batch / pitch) + s / pitch, column s % pitch; rows *
 * planes < 2^32. Transposed, element i of line s is at s * n + i. */
typedef struct lns_lines {
    size_t n, batch;
} lns_lines;

/* The CUDA half; device pointers to allocation starts, queued on the context's stream.
 * Without CUDA they return STENC_ERR_NO_DEVICE. */

/* Every position of `array`: interior ones get `inside`, the rest `outside`. With lines l
 * (else NULL), in the order of the transposed lines. */
stenc_status lns_cuda_fill_uniform(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                                   stenc_type type, void *array, double inside, double outside);
/* The identity equation at every non-interior position: lower and upper 0, diag 1, rhs v's
 * value at halo positions and 0 at padding. A NULL lower, diag or upper is skipped. One
 * kernel. */
stenc_status lns_cuda_fill_identity(stenc_ctx *ctx, const lns_geometry *g, stenc_type type,
                                    void *lower, void *diag, void *upper, void *rhs, const void *v);
/* v's halo positions from rhs, where lns_cuda_fill_identity put them. One kernel. */
stenc_status lns_cuda_restore_halo(stenc_ctx *ctx, const lns_geometry *g, stenc_type type, void *v,
                                   const void *rhs);
/* The equations of lines l transposed: dst[q] (q = lower, diag, upper, rhs) gets src[q] at
 * interior positions and the identity equation elsewhere, rhs v's value at halo positions and
 * 0 at padding, as lns_cuda_fill_identity would leave src[q] before a transpose. A NULL dst[q]
 * is skipped. One kernel. */
stenc_status lns_cuda_transpose_in(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                                   stenc_type type, const void *const src[4], void *const dst[4],
                                   const void *v);
/* v's interior points from the transposed solution xt of lines l; v's halo and padding are
 * not written. One kernel. */
stenc_status lns_cuda_transpose_out(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                                    stenc_type type, const void *xt, void *v);

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
