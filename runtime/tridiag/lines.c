/* Line solves of generated launchers (stenc_launch_solve_begin/_end, stenc/launch.h).
 *
 * The four scratch arrays (lower, diag, upper, rhs) have v's whole allocation layout, halo
 * and row padding included. The kernel fills their interior; every other position gets the
 * identity equation x = rhs, with rhs = v's value at halo positions and 0 in padding. Whole
 * allocation-wide lines are then one batch for the tridiagonal solver, which writes straight
 * into v's storage: a line's halo positions come out as v's own values, and the first and
 * last interior points couple to them through lower and upper like any neighbour.
 *
 * A uniform coefficient's array (interior = its value, identity elsewhere) is kept in a small
 * per-context pool keyed by shape and values, so that the two sweeps of an ADI step find
 * theirs filled already. The other arrays are work buffers, rewritten at every launch.
 *
 * On CUDA, lines along j or k that the solver would transpose to solve them contiguously (all
 * but its one-thread-per-line Thomas) are transposed here instead (lns_lines): the transpose
 * of the rhs writes the identity rows and v's halo values on its way (no fill launch), the
 * uniform arrays are kept transposed in the pool (not transposed again at every launch), and
 * the transpose back writes v's interior alone (no halo to restore). The solver then sees the
 * same values in the same order as after its own transposes and runs the same algorithm on
 * them: the same bits. The other device lines take fill, solve and write-back, one launch
 * each; the fill and the write-back numbered position by position (lns_frame).
 *
 * On an OpenCL device a kernel of its own (lines_opencl.c) solves the interior lines alone,
 * reading the boundary values from v's halo and writing v's interior only: no identity rows,
 * no halo to restore, and a uniform array may hold its value everywhere. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../field/field_internal.h"
#include "lines_internal.h"
#include "stenc/graph.h"
#include "stenc/launch.h"
#include "tridiag_internal.h"

/* Uniform arrays kept per context: an ADI step uses two (the off-diagonals share one), and on
 * CUDA two more, transposed for the sweep along j. */
enum { LNS_POOL_SIZE = 8 };
_Static_assert(LNS_POOL_SIZE >= 6, "one launch takes up to six uniform arrays (three transposed)");

typedef struct lns_buffer {
    void *ptr; /* host memory (stenc_host_alloc) or the context's device memory */
    size_t bytes;
    stenc_location where;
} lns_buffer;

/* What a uniform array holds: the field shape it was made for, where, in which order (the
 * allocation's, or lines transposed), and its values' bits as the type stores them. */
typedef struct lns_uniform_key {
    stenc_location where;
    stenc_type type;
    int dims, halo;
    size_t n[3];
    ptrdiff_t pitch;
    size_t alloc_elems;
    lns_lines lines; /* {0, 0}: the allocation's order */
    uint64_t inside, outside;
} lns_uniform_key;

typedef struct lns_pooled {
    lns_buffer buf;
    int valid; /* buf holds what key says; cleared before anything else is written there */
    lns_uniform_key key;
    uint64_t last_use; /* the clock at its last use */
} lns_pooled;

/* A launch between begin and end. */
typedef struct lns_pending {
    int active, empty;
    const stenc_field *v;
    int dim;
    unsigned uniform;
    stenc_location where;
    stenc_field_layout layout;
    void *arrays[4]; /* allocation starts */
    /* CUDA lines transposed here (transposed_lines): the equations transposed (lower, diag,
     * upper, rhs; the uniform ones from the pool), then the transposed solution */
    int transposed;
    lns_lines lines;
    void *lines_arrays[5];
} lns_pending;

typedef struct lns_state {
    lns_buffer work[2][4]; /* [location][slot]: non-uniform coefficients and the rhs */
    lns_buffer lines[5];   /* device lines transposed here: lns_pending.lines_arrays */
    lns_pooled pool[LNS_POOL_SIZE];
    uint64_t clock;               /* counts the pool's uses, for least-recently-used eviction */
    stenc_tridiag_report *report; /* device solves: one wait for all of a launch's calls */
    /* stenc_tridiag_defer_lines: the user's report, into which device solves record without
     * waiting; NULL: each launch waits */
    stenc_tridiag_report *deferred;
    lns_pending pending;
} lns_state;

static const stenc_cache_key lines_key = {"line_solve"};

static void buffer_free(stenc_ctx *ctx, lns_buffer *b) {
    if (b->ptr && b->where == STENC_ON_DEVICE)
        stenc_free(ctx, b->ptr);
    else
        stenc_host_free(b->ptr);
    b->ptr = NULL, b->bytes = 0;
}

static void release_state(stenc_ctx *ctx, void *state) {
    lns_state *st = state;
    for (int w = 0; w < 2; w++)
        for (int q = 0; q < 4; q++)
            buffer_free(ctx, &st->work[w][q]);
    for (int q = 0; q < 5; q++)
        buffer_free(ctx, &st->lines[q]);
    for (int e = 0; e < LNS_POOL_SIZE; e++)
        buffer_free(ctx, &st->pool[e].buf);
    stenc_tridiag_report_destroy(st->report);
    free(st);
}

static stenc_status state_get(stenc_ctx *ctx, const char *fn, lns_state **out) {
    lns_state *st = stenc_ctx_cache_get(ctx, &lines_key);
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
        STENC_TRY(stenc_ctx_cache_set(ctx, &lines_key, st, release_state)); /* st released */
    }
    *out = st;
    return STENC_OK;
}

/* At least `bytes` in b, where the launch's fields live; the contents are not kept. */
static stenc_status buffer_reserve(stenc_ctx *ctx, lns_buffer *b, stenc_location where,
                                   size_t bytes, const char *fn) {
    if (b->ptr && b->where == where && b->bytes >= bytes) return STENC_OK;
    buffer_free(ctx, b); /* stenc_free waits for work that may still read it */
    void *p = NULL;
    if (where == STENC_ON_DEVICE)
        STENC_TRY(stenc_malloc(ctx, &p, bytes));
    else if (!(p = stenc_host_alloc(bytes)))
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY,
                           "%s: no host memory for a %zu-byte scratch array", fn, bytes);
    b->ptr = p, b->bytes = bytes, b->where = where;
    return STENC_OK;
}

/* ---- the CPU half of the fills ---------------------------------------------------------- */

#define LNS_DEFINE_CPU(T, SUF)                                                                     \
    static void fill_uniform_##SUF(const lns_geometry *g, T *array, T inside, T outside) {         \
        const size_t total = g->rows * g->planes;                                                  \
        _Pragma("omp parallel for schedule(static)") for (size_t row = 0; row < total; row++) {    \
            const int interior = lns_row_interior(g, row);                                         \
            T *line = array + row * g->pitch;                                                      \
            for (size_t c = 0; c < g->pitch; c++)                                                  \
                line[c] = interior && c >= g->lead && c < g->lead + g->n0 ? inside : outside;      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void fill_identity_##SUF(const lns_geometry *g, T *lower, T *diag, T *upper, T *rhs,    \
                                    const T *v) {                                                  \
        const size_t total = g->rows * g->planes;                                                  \
        _Pragma("omp parallel for schedule(static)") for (size_t row = 0; row < total; row++) {    \
            const int interior = lns_row_interior(g, row);                                         \
            const size_t count = lns_outside_count(g, interior), base = row * g->pitch;            \
            for (size_t t = 0; t < count; t++) {                                                   \
                const size_t c = lns_outside_column(g, interior, t), q = base + c;                 \
                if (lower) lower[q] = (T)0;                                                        \
                if (diag) diag[q] = (T)1;                                                          \
                if (upper) upper[q] = (T)0;                                                        \
                rhs[q] = lns_is_padding(g, c) ? (T)0 : v[q];                                       \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void restore_halo_##SUF(const lns_geometry *g, T *v, const T *rhs) {                    \
        const size_t total = g->rows * g->planes;                                                  \
        _Pragma("omp parallel for schedule(static)") for (size_t row = 0; row < total; row++) {    \
            const int interior = lns_row_interior(g, row);                                         \
            const size_t count = lns_outside_count(g, interior), base = row * g->pitch;            \
            for (size_t t = 0; t < count; t++) {                                                   \
                const size_t c = lns_outside_column(g, interior, t);                               \
                if (!lns_is_padding(g, c)) v[base + c] = rhs[base + c];                            \
            }                                                                                      \
        }                                                                                          \
    }

LNS_DEFINE_CPU(float, f32)
LNS_DEFINE_CPU(double, f64)

/* With lines l (CUDA only), in their transposed order. */
static stenc_status fill_uniform(stenc_ctx *ctx, stenc_location where, const lns_geometry *g,
                                 const lns_lines *l, stenc_type type, void *array, double inside,
                                 double outside) {
    if (where == STENC_ON_DEVICE && stenc_ctx_device(ctx) == STENC_DEVICE_OPENCL)
        return lns_ocl_fill(ctx, type, array, g->pitch * g->rows * g->planes, inside);
    if (where == STENC_ON_DEVICE)
        return lns_cuda_fill_uniform(ctx, g, l, type, array, inside, outside);
    if (type == STENC_F32)
        fill_uniform_f32(g, array, (float)inside, (float)outside);
    else
        fill_uniform_f64(g, array, inside, outside);
    return STENC_OK;
}

static stenc_status fill_identity(stenc_ctx *ctx, stenc_location where, const lns_geometry *g,
                                  stenc_type type, void *const arrays[4], const void *v) {
    if (where == STENC_ON_DEVICE)
        return lns_cuda_fill_identity(ctx, g, type, arrays[0], arrays[1], arrays[2], arrays[3], v);
    if (type == STENC_F32)
        fill_identity_f32(g, arrays[0], arrays[1], arrays[2], arrays[3], v);
    else
        fill_identity_f64(g, arrays[0], arrays[1], arrays[2], arrays[3], v);
    return STENC_OK;
}

static stenc_status restore_halo(stenc_ctx *ctx, stenc_location where, const lns_geometry *g,
                                 stenc_type type, void *v, const void *rhs) {
    if (where == STENC_ON_DEVICE) return lns_cuda_restore_halo(ctx, g, type, v, rhs);
    if (type == STENC_F32)
        restore_halo_f32(g, v, rhs);
    else
        restore_halo_f64(g, v, rhs);
    return STENC_OK;
}

/* ---- the uniform pool ------------------------------------------------------------------- */

/* The bits of `value` as `type` stores it. */
static uint64_t value_bits(stenc_type type, double value) {
    if (type == STENC_F32) {
        const float f = (float)value;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return u;
    }
    uint64_t u;
    memcpy(&u, &value, sizeof u);
    return u;
}

static int key_equal(const lns_uniform_key *a, const lns_uniform_key *b) {
    return a->where == b->where && a->type == b->type && a->dims == b->dims && a->halo == b->halo &&
           a->n[0] == b->n[0] && a->n[1] == b->n[1] && a->n[2] == b->n[2] && a->pitch == b->pitch &&
           a->alloc_elems == b->alloc_elems && a->lines.n == b->lines.n &&
           a->lines.batch == b->lines.batch && a->inside == b->inside && a->outside == b->outside;
}

/* The array of coefficient q, uniformly `value` inside, for a field of layout L, in the
 * allocation's order or (l) transposed: from the pool, or filled into its least recently used
 * entry. The entries this launch took already are the most recently used, so they stay while
 * the pool has more entries than a launch takes. */
static stenc_status uniform_array(stenc_ctx *ctx, lns_state *st, stenc_location where,
                                  const stenc_field_layout *L, const lns_lines *l, int q,
                                  double value, const char *fn, void **out) {
    const double outside = q == STENC_SOLVE_DIAG ? 1.0 : 0.0;
    const lns_uniform_key key = {.where = where,
                                 .type = L->type,
                                 .dims = L->dims,
                                 .halo = L->halo,
                                 .n = {L->n[0], L->n[1], L->n[2]},
                                 .pitch = L->stride[1],
                                 .alloc_elems = L->alloc_elems,
                                 .lines = l ? *l : (lns_lines){0, 0},
                                 .inside = value_bits(L->type, value),
                                 .outside = value_bits(L->type, outside)};
    lns_pooled *victim = NULL;
    for (int e = 0; e < LNS_POOL_SIZE; e++) {
        lns_pooled *p = &st->pool[e];
        if (p->valid && key_equal(&p->key, &key)) {
            p->last_use = ++st->clock;
            *out = p->buf.ptr;
            return STENC_OK;
        }
        if (!victim || !p->valid || (victim->valid && p->last_use < victim->last_use)) victim = p;
    }
    victim->valid = 0;
    STENC_TRY(
        buffer_reserve(ctx, &victim->buf, where, L->alloc_elems * stenc_type_size(L->type), fn));
    const lns_geometry g = lns_geometry_of(L);
    STENC_TRY(fill_uniform(ctx, where, &g, l, L->type, victim->buf.ptr, value, outside));
    victim->key = key;
    victim->valid = 1;
    victim->last_use = ++st->clock;
    *out = victim->buf.ptr;
    return STENC_OK;
}

/* ---- the plan of a launch's solves ------------------------------------------------------ */

/* The solver calls of one launch: `calls` batches of `batch` systems of n equations, the
 * c-th starting `first + c * step` elements into every array. */
typedef struct lns_plan {
    stenc_tridiag_layout layout;
    size_t n, batch, calls, first, step;
} lns_plan;

/* j of a 3-D field, planes [lo, hi) one call each: the batch index must be the fastest. */
static lns_plan plan_planes(const lns_geometry *g, size_t lo, size_t hi) {
    const size_t plane = g->pitch * g->rows;
    return (lns_plan){STENC_TRIDIAG_INTERLEAVED, g->rows, g->pitch, hi - lo, lo * plane, plane};
}

static lns_plan plan_of(const lns_geometry *g, int dim, stenc_location where) {
    if (dim == 0)
        return (lns_plan){STENC_TRIDIAG_CONTIGUOUS, g->pitch, g->rows * g->planes, 1, 0, 0};
    if (dim == 2)
        return (lns_plan){STENC_TRIDIAG_INTERLEAVED, g->planes, g->pitch * g->rows, 1, 0, 0};
    /* j: on CUDA, the planes of a column as one system, which the identity rows of the halo
     * rows between them split exactly into the planes' own (one call instead of a call per
     * plane, each too small to fill the device: 4-10x faster at 128^3-256^3 on an H100). The
     * host solves plane by plane, which names a failing plane at once. */
    if (g->planes == 1 || (where == STENC_ON_DEVICE && g->rows * g->planes <= INT32_MAX))
        return (lns_plan){STENC_TRIDIAG_INTERLEAVED, g->rows * g->planes, g->pitch, 1, 0, 0};
    return plan_planes(g, g->plane_lo, g->plane_hi);
}

/* Lines of a CUDA launch that the solver would transpose (interleaved, and not its
 * one-thread-per-line Thomas), one call: transposed here instead (*out), see the top. */
static int transposed_lines(const stenc_ctx *ctx, stenc_location where, stenc_type type,
                            const lns_geometry *g, int dim, lns_lines *out) {
    if (where != STENC_ON_DEVICE || stenc_ctx_device(ctx) != STENC_DEVICE_CUDA) return 0;
    const lns_plan pl = plan_of(g, dim, where);
    if (pl.layout != STENC_TRIDIAG_INTERLEAVED || pl.calls != 1 ||
        g->rows * g->planes > UINT32_MAX /* lns_kind's rows */ ||
        stenc_tridiag_auto_algo(ctx, type, pl.layout, pl.n, pl.batch) == STENC_TRIDIAG_THOMAS)
        return 0;
    *out = (lns_lines){pl.n, pl.batch};
    return 1;
}

/* ---- checks shared by begin and end ----------------------------------------------------- */

static stenc_status check_solve(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                const stenc_launch_solve *solve, const stenc_field *const fields[],
                                const stenc_launch_shape *shape, const char *fn,
                                stenc_field **out) {
    STENC_REQUIRE(desc && solve && fields && shape && desc->args, "%s: NULL argument", fn);
    STENC_TRY(stenc_ctx_check(ctx, desc->name));
    STENC_REQUIRE(solve->arg >= 0 && solve->arg < desc->nargs,
                  "%s: the solved array is argument %d, but the stencil has %d", desc->name,
                  solve->arg, desc->nargs);
    const stenc_launch_arg *arg = &desc->args[solve->arg];
    STENC_REQUIRE(solve->dim >= 0 && solve->dim < desc->dims,
                  "%s: the lines of '%s' run along dimension %d, but the stencil is %d-D",
                  desc->name, arg->name, solve->dim, desc->dims);
    STENC_REQUIRE(arg->kind != STENC_ARG_INPUT && !arg->axes && !arg->int_type &&
                      !arg->stagger[0] && !arg->stagger[1] && !arg->stagger[2],
                  "%s: '%s' is solved for, so it must be written, unstaggered and span every "
                  "dimension",
                  desc->name, arg->name);
    STENC_REQUIRE(!(solve->uniform & ~7u),
                  "%s: uniform bits 0x%x of '%s': only lower, diag and upper (0x7) can be uniform",
                  desc->name, solve->uniform, arg->name);
    STENC_REQUIRE(desc->type == STENC_F32 || desc->type == STENC_F64,
                  "%s: line solves are float or double, not %s", desc->name,
                  stenc_type_name(desc->type));
    char what[160];
    snprintf(what, sizeof what, "field '%s'", arg->name);
    STENC_TRY(stenc_field_check(fields[solve->arg], desc->name, what));
    stenc_field *v = (stenc_field *)fields[solve->arg]; /* an output: written by end */
    STENC_REQUIRE(v->ctx == ctx, "%s: field '%s' belongs to another context", desc->name,
                  arg->name);
    STENC_REQUIRE(v->layout.type == desc->type && v->layout.dims == desc->dims,
                  "%s: field '%s' is a %d-D %s field, but the stencil is %d-D %s", desc->name,
                  arg->name, v->layout.dims, stenc_type_name(v->layout.type), desc->dims,
                  stenc_type_name(desc->type));
    if (v->dist)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: '%s' is distributed over MPI ranks, but a line solve needs its "
                           "whole lines on one process",
                           desc->name, arg->name);
    if (v->parent)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: '%s' is a view; line solves run on whole fields", desc->name,
                           arg->name);
    STENC_REQUIRE(shape->location == v->location,
                  "%s: the launch shape says the fields live on the %s, but '%s' lives on the %s",
                  desc->name, shape->location == STENC_ON_DEVICE ? "device" : "host", arg->name,
                  v->location == STENC_ON_DEVICE ? "device" : "host");
    if (shape->location == STENC_ON_DEVICE) {
        if (stenc_ctx_device(ctx) != STENC_DEVICE_CUDA &&
            stenc_ctx_device(ctx) != STENC_DEVICE_OPENCL)
            return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                               "%s: '%s' lives on the %s device, but line solves run on the CPU, "
                               "on CUDA and on OpenCL",
                               desc->name, arg->name,
                               stenc_device_kind_name(stenc_ctx_device(ctx)));
        if (stenc_graph_recording(ctx))
            return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                               "%s: the line solve of '%s' waits for its singular-system check, "
                               "which a graph recording cannot contain",
                               desc->name, arg->name);
    }
    if (v->layout.halo < 1)
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "%s: '%s' has halo 0, but a line solve reads the lines' boundary "
                           "values from its halo (create it with halo 1 or more)",
                           desc->name, arg->name);
    for (int d = 0; d < desc->dims; d++)
        STENC_REQUIRE(shape->n[d] == 0 || shape->n[d] == v->layout.n[d],
                      "%s: the launch runs over %zu points along dimension %d, but '%s' has %zu",
                      desc->name, shape->n[d], d, arg->name, v->layout.n[d]);
    *out = v;
    return STENC_OK;
}

static int shape_empty(const stenc_launch_shape *shape) {
    return !shape->n[0] || !shape->n[1] || !shape->n[2];
}

stenc_status stenc_launch_solve_begin(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                      const stenc_launch_solve *solve,
                                      const stenc_field *const fields[],
                                      const stenc_launch_shape *shape, const double values[3],
                                      stenc_launch_field coef[4]) {
    const char *fn = "stenc_launch_solve_begin";
    stenc_field *v = NULL;
    STENC_TRY(check_solve(desc, ctx, solve, fields, shape, fn, &v));
    STENC_REQUIRE(coef && (values || !solve->uniform), "%s: NULL %s for the line solve of '%s'",
                  desc->name, coef ? "values of the uniform coefficients" : "coef",
                  desc->args[solve->arg].name);
    lns_state *st = NULL;
    STENC_TRY(state_get(ctx, fn, &st));
    lns_pending *p = &st->pending;
    p->active = 0;
    const stenc_field_layout *L = &v->layout;
    const stenc_location where = shape->location;
    const size_t bytes = L->alloc_elems * stenc_type_size(L->type);
    void *arrays[4] = {NULL, NULL, NULL, NULL}, *lines_arrays[5] = {NULL, NULL, NULL, NULL, NULL};
    lns_lines lines = {0, 0};
    const int empty = shape_empty(shape);
    const lns_geometry g = lns_geometry_of(L);
    const int transposed = !empty && transposed_lines(ctx, where, L->type, &g, solve->dim, &lines);
    /* Transposed arrays first: evicted before those in the allocation's order, which the
     * launches along every direction take. */
    for (int q = 0; transposed && q < 5; q++) {
        if (q < 4 && solve->uniform >> q & 1) {
            STENC_TRY(uniform_array(ctx, st, where, L, &lines, q, values[q], fn, &lines_arrays[q]));
        } else {
            STENC_TRY(buffer_reserve(ctx, &st->lines[q], where, bytes, fn));
            lines_arrays[q] = st->lines[q].ptr;
        }
    }
    for (int q = 0; !empty && q < 4; q++) {
        if (solve->uniform >> q & 1) {
            STENC_TRY(uniform_array(ctx, st, where, L, NULL, q, values[q], fn, &arrays[q]));
        } else {
            lns_buffer *b = &st->work[where][q];
            STENC_TRY(buffer_reserve(ctx, b, where, bytes, fn));
            arrays[q] = b->ptr;
        }
    }
    p->empty = empty;
    p->v = v;
    p->dim = solve->dim;
    p->uniform = solve->uniform;
    p->where = where;
    p->layout = *L;
    memcpy(p->arrays, arrays, sizeof arrays);
    p->transposed = transposed;
    p->lines = lines;
    memcpy(p->lines_arrays, lines_arrays, sizeof lines_arrays);
    p->active = 1;
    for (int q = 0; q < 4; q++) {
        coef[q].origin = empty ? NULL : (char *)arrays[q] + L->origin_elems * v->elem_size;
        for (int d = 0; d < 3; d++)
            coef[q].stride[d] = L->stride[d];
    }
    return STENC_OK;
}

/* ---- the solve ---------------------------------------------------------------------------- */

/* A failing system: `system` of call `call` of `plan`. */
typedef struct lns_failure {
    const lns_plan *plan;
    size_t call, system;
} lns_failure;

static stenc_status solve_host(const lns_plan *pl, stenc_type type, void *const arrays[4], char *x,
                               int *failed, lns_failure *where) {
    const size_t es = stenc_type_size(type);
    for (size_t c = 0; c < pl->calls; c++) {
        const size_t off = (pl->first + c * pl->step) * es;
        const char *in[4];
        for (int q = 0; q < 4; q++)
            in[q] = (const char *)arrays[q] + off;
        const tdg_problem p = {.type = type,
                               .layout = pl->layout,
                               .n = pl->n,
                               .batch = pl->batch,
                               .a = in[0],
                               .b = in[1],
                               .c = in[2],
                               .d = in[3],
                               .x = x + off,
                               .algo = STENC_TRIDIAG_THOMAS};
        uint64_t bad = TDG_NONE;
        STENC_TRY(tdg_cpu_solve(&p, &bad));
        if (bad != TDG_NONE) {
            *failed = 1;
            *where = (lns_failure){pl, c, (size_t)bad};
            return STENC_OK;
        }
    }
    return STENC_OK;
}

static stenc_status solve_call(stenc_ctx *ctx, const lns_plan *pl, stenc_type type,
                               void *const arrays[4], char *x, size_t c,
                               stenc_tridiag_report *report) {
    const size_t off = (pl->first + c * pl->step) * stenc_type_size(type);
    const stenc_tridiag_options options = {STENC_TRIDIAG_AUTO, 0, report};
    return stenc_tridiag_solve(ctx, type, pl->layout, pl->n, pl->batch,
                               (const char *)arrays[0] + off, (const char *)arrays[1] + off,
                               (const char *)arrays[2] + off, (const char *)arrays[3] + off,
                               x + off, &options);
}

/* The report a launch's device solves record into: the user's (stenc_tridiag_defer_lines),
 * or the state's own, which the launch waits for (wait_device). */
static stenc_status device_report(stenc_ctx *ctx, lns_state *st, stenc_tridiag_report **out) {
    if (!st->deferred && !st->report) STENC_TRY(stenc_tridiag_report_create(ctx, &st->report));
    *out = st->deferred ? st->deferred : st->report;
    return STENC_OK;
}

/* A call failed after others may have recorded into the state's report: drop it, flag and
 * all, and return s. */
static stenc_status drop_report(lns_state *st, stenc_status s) {
    stenc_tridiag_report_destroy(st->report);
    st->report = NULL;
    return s;
}

/* After the launch's solves were queued (status s): unless they recorded into the user's
 * report, one wait for the state's. A singular system sets *failed and *where: the system the
 * report names, in call 0 of pl (a report does not say which call). */
static stenc_status wait_device(lns_state *st, stenc_status s, const lns_plan *pl, int *failed,
                                lns_failure *where) {
    if (st->deferred) return s;
    size_t first = SIZE_MAX;
    if (s == STENC_OK) s = stenc_tridiag_report_check(st->report, &first);
    if (s == STENC_ERR_SINGULAR) {
        *failed = 1;
        *where = (lns_failure){pl, 0, first};
        return STENC_OK;
    }
    return s == STENC_OK ? s : drop_report(st, s);
}

/* Where a singular system of several calls, or of one call spanning the planes, is: locate's
 * calls solved one by one, waiting on each, until one fails (the arrays are untouched, so the
 * solutions are the launch's). */
static stenc_status locate_failure(stenc_ctx *ctx, lns_state *st, const lns_plan *locate,
                                   stenc_type type, void *const arrays[4], char *x,
                                   lns_failure *where) {
    for (size_t c = 0; c < locate->calls; c++) {
        size_t system = SIZE_MAX;
        stenc_status r = solve_call(ctx, locate, type, arrays, x, c, st->report);
        if (r == STENC_OK) r = stenc_tridiag_report_check(st->report, &system);
        if (r == STENC_ERR_SINGULAR) {
            *where = (lns_failure){locate, c, system};
            return STENC_OK;
        }
        if (r != STENC_OK) return drop_report(st, r);
    }
    return STENC_OK;
}

/* Every call queued with the one report, one wait, and a failure located with `locate` when
 * its calls are not pl's. */
static stenc_status solve_device(stenc_ctx *ctx, lns_state *st, const lns_plan *pl,
                                 const lns_plan *locate, stenc_type type, void *const arrays[4],
                                 char *x, int *failed, lns_failure *where) {
    stenc_tridiag_report *report = NULL;
    STENC_TRY(device_report(ctx, st, &report));
    stenc_status s = STENC_OK;
    for (size_t c = 0; c < pl->calls && s == STENC_OK; c++)
        s = solve_call(ctx, pl, type, arrays, x, c, report);
    STENC_TRY(wait_device(st, s, pl, failed, where));
    if (*failed && locate != pl) return locate_failure(ctx, st, locate, type, arrays, x, where);
    return STENC_OK;
}

/* Lines transposed here (transposed_lines, one call pl): the transpose in, which writes the
 * identity equations and v's halo values; the solve of the contiguous lines, whose systems are
 * numbered as pl's; the transpose back into v's interior. A failure is located as solve_device
 * does, in the allocation's order: after the identities are filled there, and with v's halo
 * put back after. */
static stenc_status solve_transposed(stenc_ctx *ctx, lns_state *st, const lns_pending *p,
                                     const lns_geometry *g, const lns_plan *pl,
                                     const lns_plan *locate, char *x, int *failed,
                                     lns_failure *where) {
    const stenc_type type = p->layout.type;
    const void *src[4];
    void *dst[4], *work[4];
    for (int q = 0; q < 4; q++) {
        const int uniform = p->uniform >> q & 1;
        work[q] = uniform ? NULL : p->arrays[q];
        src[q] = work[q];
        dst[q] = uniform ? NULL : p->lines_arrays[q];
    }
    STENC_TRY(lns_cuda_transpose_in(ctx, g, &p->lines, type, src, dst, x));
    stenc_tridiag_report *report = NULL;
    STENC_TRY(device_report(ctx, st, &report));
    const lns_plan lines = {STENC_TRIDIAG_CONTIGUOUS, p->lines.n, p->lines.batch, 1, 0, 0};
    char *xt = p->lines_arrays[4];
    stenc_status s = solve_call(ctx, &lines, type, p->lines_arrays, xt, 0, report);
    if (s == STENC_OK) s = lns_cuda_transpose_out(ctx, g, &p->lines, type, xt, x);
    STENC_TRY(wait_device(st, s, pl, failed, where));
    if (!*failed || locate == pl) return STENC_OK;
    STENC_TRY(lns_cuda_fill_identity(ctx, g, type, work[0], work[1], work[2], work[3], x));
    STENC_TRY(locate_failure(ctx, st, locate, type, p->arrays, x, where));
    return lns_cuda_restore_halo(ctx, g, type, x, p->arrays[STENC_SOLVE_RHS]);
}

/* The allocation index of an element of the failing system's line. */
static size_t failure_start(const lns_failure *f) {
    const lns_plan *pl = f->plan;
    return pl->first + f->call * pl->step +
           (pl->layout == STENC_TRIDIAG_CONTIGUOUS ? f->system * pl->n : f->system);
}

/* The allocation index of the first interior point of line `line` of lns_ocl_solve's
 * numbering. */
static size_t ocl_line_start(const stenc_field_layout *L, int dim, size_t line) {
    const int o1 = dim == 0 ? 1 : 0, o2 = dim == 2 ? 1 : 2;
    return L->origin_elems + line % L->n[o1] * (size_t)L->stride[o1] +
           line / L->n[o1] * (size_t)L->stride[o2];
}

/* "heat_x: the line of 'v' along i at j=3, k=0 is singular: ...", for the line through
 * allocation index `start`. */
static stenc_status singular_error(const stenc_launch_desc *desc, const stenc_launch_solve *solve,
                                   const lns_geometry *g, size_t start) {
    const long at[3] = {(long)(start % g->pitch) - (long)g->lead,
                        (long)(start / g->pitch % g->rows) - (long)g->row_lo,
                        (long)(start / (g->pitch * g->rows)) - (long)g->plane_lo};
    const long n[3] = {(long)g->n0, (long)(g->row_hi - g->row_lo),
                       (long)(g->plane_hi - g->plane_lo)};
    char coords[96] = "";
    size_t used = 0;
    int outside = 0;
    for (int d = 0; d < desc->dims; d++) {
        if (d == solve->dim) continue;
        used += (size_t)snprintf(coords + used, sizeof coords - used, "%s%c=%ld",
                                 used ? ", " : " at ", "ijk"[d], at[d]);
        outside |= at[d] < 0 || at[d] >= n[d];
    }
    const char *name = desc->args[solve->arg].name;
    return STENC_ERROR(STENC_ERR_SINGULAR,
                       "%s: the line of '%s' along %c%s%s is singular: a zero pivot or a "
                       "non-finite value (the halo of '%s' must hold finite values)",
                       desc->name, name, "ijk"[solve->dim], coords,
                       outside ? " (a line of the halo)" : "", name);
}

stenc_status stenc_launch_solve_end(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                    const stenc_launch_solve *solve,
                                    const stenc_field *const fields[],
                                    const stenc_launch_shape *shape) {
    const char *fn = "stenc_launch_solve_end";
    stenc_field *v = NULL;
    STENC_TRY(check_solve(desc, ctx, solve, fields, shape, fn, &v));
    lns_state *st = stenc_ctx_cache_get(ctx, &lines_key);
    const lns_pending *p = st ? &st->pending : NULL;
    const stenc_field_layout *L = &v->layout;
    STENC_REQUIRE(p && p->active && p->v == v && p->dim == solve->dim &&
                      p->uniform == solve->uniform && p->where == shape->location &&
                      p->layout.alloc_elems == L->alloc_elems &&
                      p->layout.origin_elems == L->origin_elems &&
                      p->layout.stride[1] == L->stride[1] && p->layout.stride[2] == L->stride[2],
                  "%s: the line solve of '%s' ends without a matching stenc_launch_solve_begin",
                  desc->name, desc->args[solve->arg].name);
    st->pending.active = 0;
    if (p->empty) return STENC_OK;

    const stenc_location where = shape->location;
    const stenc_type type = L->type;
    const lns_geometry g = lns_geometry_of(L);
    char *x = where == STENC_ON_DEVICE ? v->device : v->host;
    if (where == STENC_ON_DEVICE && stenc_ctx_device(ctx) == STENC_DEVICE_OPENCL) {
        /* Waits, as host fields do: only CUDA defers (stenc_tridiag_defer_lines). */
        size_t bad = SIZE_MAX;
        STENC_TRY(lns_ocl_solve(ctx, L, solve->dim, x, p->arrays, &bad));
        if (bad != SIZE_MAX)
            return singular_error(desc, solve, &g, ocl_line_start(L, solve->dim, bad));
        return STENC_OK;
    }
    const lns_plan plan = plan_of(&g, solve->dim, where);
    /* Several calls, or one spanning the planes: a singular system is looked for plane by
     * plane, halo planes included (their identity rows fail on a non-finite halo value). */
    const lns_plan planes = plan_planes(&g, 0, g.planes);
    const lns_plan *locate = plan.calls > 1 || (solve->dim == 1 && g.planes > 1) ? &planes : &plan;
    int failed = 0;
    lns_failure failure = {&plan, 0, 0};
    if (p->transposed) {
        STENC_TRY(solve_transposed(ctx, st, p, &g, &plan, locate, x, &failed, &failure));
        if (failed) return singular_error(desc, solve, &g, failure_start(&failure));
        return STENC_OK;
    }
    /* Identities in the arrays this launch's kernel wrote; the uniform ones have theirs. */
    void *work[4];
    for (int q = 0; q < 4; q++)
        work[q] = solve->uniform >> q & 1 ? NULL : p->arrays[q];
    STENC_TRY(fill_identity(ctx, where, &g, type, work, x));
    if (where == STENC_ON_DEVICE)
        STENC_TRY(solve_device(ctx, st, &plan, locate, type, p->arrays, x, &failed, &failure));
    else
        STENC_TRY(solve_host(&plan, type, p->arrays, x, &failed, &failure));
    /* The identity rows give back v's halo values, but not bit for bit in every case (x = rhs
     * - 0*x_prev turns -0.0 into +0.0), nor along a failing line: put them back. */
    STENC_TRY(restore_halo(ctx, where, &g, type, x, p->arrays[STENC_SOLVE_RHS]));
    if (failed) return singular_error(desc, solve, &g, failure_start(&failure));
    return STENC_OK;
}

stenc_status stenc_tridiag_defer_lines(stenc_ctx *ctx, stenc_tridiag_report *report) {
    const char *fn = "stenc_tridiag_defer_lines";
    STENC_TRY(stenc_ctx_check(ctx, fn));
    if (report) {
        STENC_TRY(tdg_report_check_live(report, fn));
        STENC_REQUIRE(report->ctx == ctx, "%s: the report belongs to another context", fn);
    }
    lns_state *st = NULL;
    STENC_TRY(state_get(ctx, fn, &st));
    st->deferred = report;
    return STENC_OK;
}
