/* The cuda target's share of the emitter: loads, buffers and the variant table for
 * templates/cuda/stencil_cuda.cu.tmpl (see emit_cuda.h and docs/cuda.md). */
#include "emit_cuda.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "emit_names.h"

/* One variant of the generated kernels. Direct: V points along i (one vector load per row) by
 * K along the outer dimension per thread, BX x BY threads. Stream: one point along i and V along
 * mid (BY apart) per thread, BX x BY threads marching over KC planes of the outer dimension (name
 * stream_vV_... when V > 1). minb > 1 asks for that many resident blocks per SM
 * (__launch_bounds__), capping registers to raise occupancy (suffix _o<minb> in the name). */
typedef struct cuda_variant {
    char strategy; /* 'd' direct, 's' stream, 'q' stream with register queues (v: rows along mid
                      per thread, k: planes per chunk, bx: 1 for warps overlapping along i, 0
                      for the lanes past a row in a second window, by: warps), 'w' sweep, 'f'
                      wavefront, 'a' DOACROSS bands (ordered sweeps) */
    int v, k, bx, by;
    int minb; /* 0: no minimum */
} cuda_variant;

/* The variant lists: the tunables of the cuda target. The first entry of each list is the
 * default (used untuned); the others are what the tuner times. Chosen from the H100
 * prototypes (bench/cuda/NOTES.md): V = 2..4 (float) or 1..2 (double) with K = 2..4 was best
 * for light stencils; many-array stencils keep V*K small to stay clear of register spills. */
typedef struct cuda_policy {
    const cuda_variant *list;
    int count;
} cuda_policy;

/* Stencils with more field arguments than this are "heavy" (register-bound per point). */
enum { CUDA_HEAVY_FIELDS = 6 };

static const cuda_variant v3_float[] = {
    {'d', 4, 4, 32, 8, 0}, {'d', 1, 1, 32, 8, 0},  {'d', 2, 4, 32, 8, 0},  {'d', 4, 2, 32, 8, 0},
    {'d', 2, 4, 64, 4, 0}, {'s', 1, 32, 32, 8, 0}, {'s', 4, 32, 32, 4, 0}, {'s', 2, 64, 32, 8, 0},
    {'q', 8, 64, 0, 4, 4}, {'q', 4, 64, 0, 8, 2},  {'q', 4, 64, 1, 8, 2},  {'q', 8, 32, 1, 8, 0}};
static const cuda_variant v3_double[] = {
    {'d', 2, 4, 32, 8, 0},  {'d', 1, 1, 32, 8, 0},  {'d', 1, 4, 32, 8, 0},  {'d', 2, 2, 32, 8, 0},
    {'s', 1, 32, 32, 8, 0}, {'s', 4, 32, 32, 4, 0}, {'s', 2, 64, 32, 8, 0}, {'q', 4, 64, 0, 8, 2},
    {'q', 4, 64, 1, 8, 2},  {'q', 8, 32, 1, 8, 0},  {'q', 2, 64, 0, 16, 0}};
/* Heavy stencils in double (euler_flux: 13 IEEE divisions per point) need 100-150 registers
 * per thread uncapped: 12-25% occupancy, too few loads in flight. The _o variants cap them. */
static const cuda_variant v3_heavy_float[] = {
    {'d', 4, 1, 32, 4, 4}, {'d', 1, 1, 32, 8, 0},  {'d', 2, 1, 32, 8, 0}, {'d', 2, 2, 32, 4, 0},
    {'d', 4, 1, 32, 4, 0}, {'s', 1, 32, 32, 8, 0}, {'s', 1, 64, 32, 4, 0}};
static const cuda_variant v3_heavy_double[] = {
    {'d', 2, 1, 32, 4, 4}, {'d', 1, 1, 32, 8, 0}, {'d', 2, 1, 32, 8, 0},  {'d', 1, 1, 32, 8, 3},
    {'d', 1, 1, 32, 4, 6}, {'d', 1, 2, 32, 8, 0}, {'s', 1, 32, 32, 8, 0}, {'s', 1, 64, 32, 4, 0}};
static const cuda_variant v2_float[] = {{'d', 4, 4, 64, 1, 0},   {'d', 1, 1, 128, 1, 0},
                                        {'d', 4, 2, 64, 1, 0},   {'d', 2, 4, 128, 1, 0},
                                        {'s', 1, 32, 128, 1, 0}, {'s', 1, 64, 256, 1, 0}};
static const cuda_variant v2_double[] = {{'d', 2, 2, 128, 1, 0},
                                         {'d', 1, 1, 128, 1, 0},
                                         {'d', 2, 4, 64, 1, 0},
                                         {'s', 1, 32, 128, 1, 0},
                                         {'s', 1, 64, 256, 1, 0}};
static const cuda_variant v1_float[] = {
    {'d', 4, 1, 128, 1, 0}, {'d', 1, 1, 256, 1, 0}, {'s', 1, 1, 256, 1, 0}};
static const cuda_variant v1_double[] = {
    {'d', 2, 1, 128, 1, 0}, {'d', 1, 1, 256, 1, 0}, {'s', 1, 1, 256, 1, 0}};

/* The sweep kernel (colours, inouts, reductions): strategy 'w', V lattice points along i per
 * thread (BX apart, so that a warp's loads stay together), K along the outer dimension, BX x BY
 * threads (a power of two: the block's reduction is a tree). Few variants, and no tuning
 * (STENC_VARIANTS_FIXED): an in-place sweep cannot be timed on the user's fields, and a
 * reduction must not depend on a timing. 29-field gs27 in double keeps V * K small. */
static const cuda_variant sweep3[] = {
    {'w', 1, 2, 32, 8, 0}, {'w', 1, 4, 32, 4, 0}, {'w', 2, 2, 32, 4, 0}, {'w', 1, 1, 64, 4, 0}};
static const cuda_variant sweep2[] = {
    {'w', 1, 4, 128, 1, 0}, {'w', 2, 4, 128, 1, 0}, {'w', 1, 8, 256, 1, 0}, {'w', 4, 2, 64, 1, 0}};
/* Sweeps that only reduce (no colours, no inouts) read whole tiles by rows, as the direct
 * kernel does: its shapes (V consecutive points per thread, vectors of at most 16 bytes; K
 * rows), in power-of-two blocks. */
static const cuda_variant sweep1_reduce_float[] = {{'w', 4, 1, 128, 1, 0}, {'w', 1, 1, 256, 1, 0}};
static const cuda_variant sweep1_reduce_double[] = {{'w', 2, 1, 128, 1, 0}, {'w', 1, 1, 256, 1, 0}};
static const cuda_variant sweep2_reduce_float[] = {
    {'w', 1, 4, 128, 1, 0}, {'w', 1, 8, 256, 1, 0}, {'w', 4, 2, 64, 1, 0}, {'w', 2, 4, 128, 1, 0}};
static const cuda_variant sweep2_reduce_double[] = {
    {'w', 1, 4, 128, 1, 0}, {'w', 1, 8, 256, 1, 0}, {'w', 2, 2, 128, 1, 0}, {'w', 2, 4, 64, 1, 0}};
static const cuda_variant sweep3_reduce_float[] = {
    {'w', 4, 4, 32, 8, 0}, {'w', 4, 2, 32, 8, 0}, {'w', 2, 4, 32, 8, 0}, {'w', 1, 2, 32, 8, 0}};
static const cuda_variant sweep3_reduce_double[] = {
    {'w', 2, 4, 32, 8, 0}, {'w', 2, 2, 32, 8, 0}, {'w', 1, 4, 32, 8, 0}, {'w', 1, 2, 32, 8, 0}};
static const cuda_variant sweep1[] = {
    {'w', 8, 1, 256, 1, 0}, {'w', 4, 1, 128, 1, 0}, {'w', 1, 1, 256, 1, 0}};

/* Static shared memory one block may declare (the CUDA limit without opt-in), and the size of
 * a reduction's partial (stenc_acc: a sum and its compensation). A variant that would need more
 * is not emitted: ptxas would reject it. */
enum { CUDA_STATIC_SHARED = 48 * 1024, CUDA_ACC_BYTES = 16 };
/* The dynamic shared memory a DOACROSS block may take (Hopper and Ampere allow 227 and 163 KiB;
 * the launch reports a device that has less). */
enum { CUDA_DYNAMIC_SHARED = 160 * 1024 };
/* The DOACROSS kernel's compute warp checks its supplies and publishes its progress every
 * CUDA_DOACROSS_CHECK steps (an unrolled loop) ... */
enum { CUDA_DOACROSS_CHECK = 8 };
/* ... and its loader warp stages old values up to CUDA_DOACROSS_BATCH hyperplanes at a time. */
enum { CUDA_DOACROSS_BATCH = 16 };

/* The last resort of a reducing sweep with many reductions: one warp per block. */
static const cuda_variant sweep_one_warp = {'w', 1, 1, 32, 1, 0};

#define POLICY(list)                                                                               \
    { list, (int)(sizeof list / sizeof list[0]) }

static int needs_sweep(const km_kernel *km) {
    return km->ncolors > 0 || km->nreduces > 0 || km->ninouts > 0;
}

/* A sweep that only reduces (no colours, no inouts): its kernel reads whole tiles by rows. */
static int sweep_by_rows(const km_kernel *km) {
    return km->nreduces > 0 && km->ncolors == 0 && km->ninouts == 0 && !km->order;
}

static cuda_policy choose_policy(const km_kernel *km) {
    int is_float = km->type_size == 4;
    if (needs_sweep(km)) {
        /* by dimensions - 1, then double / float */
        static const cuda_policy by_rows[3][2] = {
            {POLICY(sweep1_reduce_double), POLICY(sweep1_reduce_float)},
            {POLICY(sweep2_reduce_double), POLICY(sweep2_reduce_float)},
            {POLICY(sweep3_reduce_double), POLICY(sweep3_reduce_float)}};
        if (sweep_by_rows(km)) return by_rows[km->dims - 1][is_float];
        return km->dims == 3   ? (cuda_policy)POLICY(sweep3)
               : km->dims == 2 ? (cuda_policy)POLICY(sweep2)
                               : (cuda_policy)POLICY(sweep1);
    }
    int heavy = km->ninputs + km->noutputs > CUDA_HEAVY_FIELDS;
    if (km->dims == 3) {
        if (heavy)
            return is_float ? (cuda_policy)POLICY(v3_heavy_float)
                            : (cuda_policy)POLICY(v3_heavy_double);
        return is_float ? (cuda_policy)POLICY(v3_float) : (cuda_policy)POLICY(v3_double);
    }
    if (km->dims == 2)
        return is_float ? (cuda_policy)POLICY(v2_float) : (cuda_policy)POLICY(v2_double);
    return is_float ? (cuda_policy)POLICY(v1_float) : (cuda_policy)POLICY(v1_double);
}

/* ---- helpers ------------------------------------------------------------------------------ */

/* An offset in the kernels' (i, mid, outer) frame. */
static void remap(const km_kernel *km, const km_offset *o, int out[3]) {
    out[0] = o->d[0];
    out[1] = km->dims == 3 ? o->d[1] : 0;
    out[2] = km->dims == 3 ? o->d[2] : km->dims == 2 ? o->d[1] : 0;
}

/* An offset as template data: under `key`, an empty list for 0, else one item with its sign
 * ("+" or "-"), its magnitude `abs`, and `one` when that is 1; the templates print the terms
 * (" - 1", " + 2 * stenc_a.sj[3]") with {{#each key}}. */
static void set_term(tmpl_value *m, const char *key, int d) {
    tmpl_value *list = tmpl_set_list(m, key);
    if (!d) return;
    tmpl_value *t = tmpl_append_map(list);
    tmpl_set_str(t, "sign", d < 0 ? "-" : "+");
    tmpl_set_fmt(t, "abs", "%d", abs(d));
    tmpl_set_bool(t, "one", abs(d) == 1);
}

/* A lower-dimensional input (`input dx[i];`) has stride 0 in the dimensions it does not span
 * (stenc_launch_check), so one that spans i is read like any array: its rows lie along i.
 * One that does not span i would need stride 0 along i, which the kernels' row, vector and
 * shared-plane paths do not have: it is read by one load per point from the point's
 * coordinates in every kernel (templates/cuda/load_point.tmpl).
 * 1 for an input the direct kernel's fast path reads from row buffers: every one spanning i.
 * An integer input's rows (`input int32 mat;`) hold its own type, loaded by vectors of it (a
 * uchar4 brings four uint8 points) and converted to stenc_T at use. */
static int read_by_row(const km_kernel *km, int array) {
    return km->arrays[array].axes == 0 || (km->arrays[array].axes & 1);
}

/* 1 for the inputs every other path (the direct kernel's scalar path, stream, sweep, tstep,
 * wave, DOACROSS) reads by one load per point: those without i, and integers, whose elements
 * are not stenc_T for the columns and shared planes. */
static int read_by_point(const km_kernel *km, int array) {
    return !read_by_row(km, array) || km->arrays[array].elem != AST_ELEM_REAL;
}

/* The C++ type of an input's elements in the kernels. */
static const char *elem_ctype(ast_elem elem) {
    return elem == AST_ELEM_I32 ? "int" : elem == AST_ELEM_U8 ? "unsigned char" : "stenc_T";
}

/* Bytes of an input's element: the stencil's type, or its integer type. */
static int elem_bytes(const km_kernel *km, ast_elem elem) {
    return elem == AST_ELEM_I32 ? 4 : elem == AST_ELEM_U8 ? 1 : km->type_size;
}

/* 1 for a read that an ordered 2-D sweep's DOACROSS kernel takes from its windows in shared
 * memory: any read of an array read by rows (an inout's, or an input's that spans i). */
static int window_read(const km_kernel *km, const km_read *rd) {
    return km->order && km->dims == 2 && !read_by_point(km, rd->array);
}

/* 1 for an array with a window: one with a window read, or an inout (its own value at the point
 * is read from it, and replaced there). */
static int window_array(const km_kernel *km, int a) {
    if (!km->order || km->dims != 2 || read_by_point(km, a)) return 0;
    if (km->arrays[a].kind == KM_INOUT) return 1;
    for (int r = 0; r < km->nreads; r++)
        if (km->reads[r].array == a && window_read(km, &km->reads[r])) return 1;
    return 0;
}

/* How far along the row the reads of array a from its window reach, back (`back`) or ahead: the
 * halo columns the window holds on that side (a staggered input may have none behind). */
static int window_reach(const km_kernel *km, int a, int back) {
    int reach = 0;
    for (int r = 0; r < km->nreads; r++)
        if (km->reads[r].array == a && window_read(km, &km->reads[r])) {
            const int di = km->reads[r].offset.d[0] * km->order * (back ? -1 : 1);
            reach = di > reach ? di : reach;
        }
    return reach;
}

/* The window of array a: its index among the arrays that have one. */
static int window_slot(const km_kernel *km, int a) {
    int slot = 0;
    for (int b = 0; b < a; b++)
        slot += window_array(km, b);
    return slot;
}

/* What the load partials (templates/cuda/load*.tmpl) need of read `rd` of field `field`: the
 * field, whether it is an inout, the offset in the kernels' frame (di, dj, dk), and for a read
 * by point its element type and the frame's dimensions the array spans. */
static void describe_read(tmpl_value *rv, const km_kernel *km, const km_read *rd, int field) {
    const km_array *arr = &km->arrays[rd->array];
    int o[3];
    remap(km, &rd->offset, o);
    tmpl_set_fmt(rv, "field", "%d", field);
    tmpl_set_bool(rv, "inout", arr->kind == KM_INOUT);
    set_term(rv, "di", o[0]);
    set_term(rv, "dj", o[1]);
    set_term(rv, "dk", o[2]);
    tmpl_set_bool(rv, "point", read_by_point(km, rd->array));
    tmpl_set_bool(rv, "is_real", arr->elem == AST_ELEM_REAL);
    tmpl_set_str(rv, "elem", elem_ctype(arr->elem));
    const unsigned on = arr->axes ? arr->axes : (1u << km->dims) - 1; /* the dimensions spanned */
    tmpl_set_bool(rv, "span_i", on & 1);
    tmpl_set_bool(rv, "span_m", km->dims == 3 && (on >> 1 & 1));
    tmpl_set_bool(rv, "span_o", km->dims == 3 ? (on >> 2 & 1) : km->dims == 2 && (on >> 1 & 1));
}

/* The suffix of an offset in a buffer's name: "m1", "0", "p2". */
static void set_suffix(tmpl_value *m, const char *key, int d) {
    tmpl_buf b = {0};
    emit_offset_suffix(&b, d);
    tmpl_set_str(m, key, tmpl_buf_str(&b));
    tmpl_buf_free(&b);
}

/* Per input: the row groups of the direct kernel's fast path, the column window and the
 * shared planes of the stream kernel. */
typedef struct row_group {
    int dj, dk, lo, hi;
} row_group;

typedef struct input_info {
    int field; /* index among the fields (launcher order) */
    row_group *rows;
    int nrows;
    int has_column, klo, khi;        /* reads at di = dj = 0 */
    int has_plane, plo, phi, rx, ry; /* reads with di or dj != 0 */
} input_info;

static void *xmalloc(size_t n) {
    void *p = calloc(n ? n : 1, 1);
    if (!p) abort(); /* the emitter's policy: out of memory is fatal (see emit.c) */
    return p;
}

/* ---- the data ----------------------------------------------------------------------------- */

/* ---- the sweep kernel's data (colours, inouts, reductions) -------------------------------- */

static void sweep_data(const km_kernel *km, const int *field_of, const char *const *read_name,
                       const char *const *value_name, const char *const *reduce_name,
                       const char *const *reduce_acc, tmpl_value *d) {
    tmpl_value *reads = tmpl_set_list(d, "cu_sreads");
    for (int r = 0; r < km->nreads; r++) {
        const km_read *rd = &km->reads[r];
        int centre = !rd->offset.d[0] && !rd->offset.d[1] && !rd->offset.d[2];
        if (km->arrays[rd->array].kind == KM_INOUT && centre) continue; /* cu_inouts */
        tmpl_value *rv = tmpl_append_map(reads);
        tmpl_set_str(rv, "local", read_name[r]);
        describe_read(rv, km, rd, field_of[rd->array]);
        tmpl_set_bool(rv, "window", window_read(km, rd));
        tmpl_set_fmt(rv, "oslot", "%d", window_slot(km, rd->array));
        tmpl_set_fmt(rv, "win_di", "%d", rd->offset.d[0]);
        tmpl_set_fmt(rv, "win_dj", "%d", rd->offset.d[1]);
    }
    tmpl_value *inouts = tmpl_set_list(d, "cu_inouts");
    for (int a = 0; a < km->narrays; a++) {
        if (km->arrays[a].kind != KM_INOUT) continue;
        tmpl_value *io = tmpl_append_map(inouts);
        tmpl_set_fmt(io, "field", "%d", field_of[a]);
        tmpl_set_fmt(io, "slot", "%d", (int)tmpl_list_len(inouts) - 1);
        tmpl_set_str(io, "local", value_name[a]);
        tmpl_set_fmt(io, "oslot", "%d", window_slot(km, a));
        tmpl_set_fmt(io, "lo", "%d", window_reach(km, a, 1));
        tmpl_set_fmt(io, "hi", "%d", window_reach(km, a, 0));
    }
    /* The DOACROSS kernel's windows (ordered 2-D sweeps): per array, its field, whether the sweep
     * writes it (an inout: its rows before the band's come from the band before) and the rows
     * and columns its reads reach. */
    tmpl_value *olds = tmpl_set_list(d, "cu_old");
    for (int a = 0; a < km->narrays; a++) {
        if (!window_array(km, a)) continue;
        tmpl_value *o = tmpl_append_map(olds);
        tmpl_set_fmt(o, "oslot", "%d", window_slot(km, a));
        tmpl_set_fmt(o, "field", "%d", field_of[a]);
        tmpl_set_bool(o, "inout", km->arrays[a].kind == KM_INOUT);
        /* the rows before and after the point that its reads reach (its halo covers them), in
         * sweep order */
        int before = 0, after = 0;
        for (int r = 0; r < km->nreads; r++) {
            const km_read *rd = &km->reads[r];
            if (rd->array != a || !window_read(km, rd)) continue;
            const int dj = rd->offset.d[1] * km->order;
            if (-dj > before) before = -dj;
            if (dj > after) after = dj;
        }
        tmpl_set_fmt(o, "before", "%d", before);
        tmpl_set_fmt(o, "after", "%d", after);
        tmpl_set_fmt(o, "lo", "%d", window_reach(km, a, 1));
        tmpl_set_fmt(o, "hi", "%d", window_reach(km, a, 0));
    }
    /* reductions, in id order (the launcher's results[] order) */
    static const char *const ops[] = {"sum", "sum", "max", "min"};
    static const char *const OPS[] = {"SUM", "SUM", "MAX", "MIN"};
    tmpl_value *reduces = tmpl_set_list(d, "cu_reduces");
    for (int id = 0; id < km->nreduces; id++) {
        const km_reduce *rd = &km->reduces[id];
        tmpl_value *rv = tmpl_append_map(reduces);
        tmpl_set_str(rv, "local", reduce_name[id]);
        tmpl_set_str(rv, "acc", reduce_acc[id]);
        tmpl_set_str(rv, "op", ops[rd->op]);
        tmpl_set_str(rv, "OP", OPS[rd->op]);
        tmpl_set_bool(rv, "is_sum", rd->op == AST_REDUCE_SUM);
        tmpl_set_fmt(rv, "index", "%d", id);
    }
    tmpl_set_fmt(d, "cu_nreduces", "%d", km->nreduces > 0 ? km->nreduces : 1);

    /* The colouring in the kernels' (i, mid, outer) frame: periods, and per colour the cells
     * of the period box (residues in the frame), colour by colour. No colour: one colour of
     * one cell, period 1. */
    int p[3] = {1, 1, 1}; /* stencil (i, j, k) periods */
    for (int dim = 0; km->ncolors && dim < 3; dim++)
        p[dim] = km->color_period[dim];
    int fp[3] = {p[0], km->dims == 3 ? p[1] : 1, km->dims == 3 ? p[2] : km->dims == 2 ? p[1] : 1};
    tmpl_set_fmt(d, "cu_p0", "%d", fp[0]);
    tmpl_set_fmt(d, "cu_p1", "%d", fp[1]);
    tmpl_set_fmt(d, "cu_p2", "%d", fp[2]);
    int ncolors = km->ncolors ? km->ncolors : 1;
    tmpl_set_fmt(d, "cu_ncolors", "%d", ncolors);
    tmpl_value *cells = tmpl_set_list(d, "cu_cells");
    tmpl_value *start = tmpl_set_list(d, "cu_cell_start");
    int ncells = 0;
    for (int c = 0; c < ncolors; c++) {
        char first[16];
        snprintf(first, sizeof first, "%d", ncells);
        tmpl_append_str(start, first);
        tmpl_value *cv = tmpl_append_map(cells);
        tmpl_value *members = tmpl_set_list(cv, "cells");
        for (int ck = 0; ck < p[2]; ck++)
            for (int cj = 0; cj < p[1]; cj++)
                for (int ci = 0; ci < p[0]; ci++) {
                    int colour = km->ncolors ? km->color_table[ci + p[0] * (cj + p[1] * ck)] : 0;
                    if (colour != c) continue;
                    int f[3] = {ci, km->dims == 3 ? cj : 0,
                                km->dims == 3   ? ck
                                : km->dims == 2 ? cj
                                                : 0};
                    tmpl_value *cell = tmpl_append_map(members);
                    tmpl_set_fmt(cell, "f0", "%d", f[0]);
                    tmpl_set_fmt(cell, "f1", "%d", f[1]);
                    tmpl_set_fmt(cell, "f2", "%d", f[2]);
                    ncells++;
                }
        tmpl_set_fmt(cv, "color", "%d", c);
    }
    char last[16];
    snprintf(last, sizeof last, "%d", ncells);
    tmpl_append_str(start, last);
    tmpl_set_fmt(d, "cu_ncells", "%d", ncells);
}

/* 1 when an input or inout read at offsets is staggered against the launch's extent. */
static int staggered_input(const km_kernel *km) {
    for (int a = 0; a < km->narrays; a++) {
        const km_array *arr = &km->arrays[a];
        if ((arr->kind != KM_INPUT && arr->kind != KM_INOUT) || !arr->noffsets) continue;
        for (int d = 0; d < km->dims; d++)
            if ((!arr->axes || arr->axes >> d & 1) && arr->stagger[d] != km->stagger[d]) return 1;
    }
    return 0;
}

/* Static shared memory of variant `cv`: the stream kernel's ring of planes per input (with the
 * input's rim), the reducing sweep's partials; 0 for the others. */
static long variant_shared_bytes(const km_kernel *km, const input_info *info,
                                 const cuda_variant *cv) {
    long bytes = 0;
    if (cv->strategy == 's')
        for (int a = 0; a < km->narrays; a++)
            if (info[a].has_plane)
                bytes += (long)(info[a].phi - info[a].plo + 1) * (cv->by * cv->v + 2 * info[a].ry) *
                         (cv->bx + 2 * info[a].rx) * km->type_size;
    if (cv->strategy == 'w') bytes = (long)km->nreduces * cv->bx * cv->by * CUDA_ACC_BYTES;
    return bytes;
}

/* ---- temporal blocking of stepping launchers (`step OUT -> IN;`) -------------------------- */

/* One kernel making T steps per trip: BX x BY threads, one point of a plane each (the block's
 * tile: its output and a rim of R*T points on every side along i and mid), marching over a
 * chunk of the outer dimension (its length chosen at launch to fill whole waves). Degrees: 3-D
 * tiles lose 4RT/32 of each side to the rim, so small T; 2-D rows of 512 lose little and take more
 * steps. */
typedef struct tstep_variant {
    int t, bx, by;
    int skew;  /* 1: one barrier per plane, steps R + 1 planes apart (docs/cuda.md) */
    int minb;  /* __launch_bounds__'s blocks per SM; 0 leaves the registers to ptxas */
    int queue; /* 1: a star's steps in register queues, only their middle planes shared */
} tstep_variant;
/* The rings are skewed in 3-D, where that ran 1.12-1.15x the barrier per step on heat3d; not in
 * 2-D, where its longer register queues made jacobi2d t8 0.93x in float. Stars (tstep_star) also
 * get queue variants, listed first: on the H100 at 512^3, 32 steps, heat3d t3 with queues ran
 * 1.16x the plain steps in float and 1.59x in double, against 1.05x and 1.21x with rings; with
 * two blocks an SM (m2: 32 registers, the inner kernel only) t3 ran 1.28x in float but 1.18x in
 * double, where it spills. The 2-D t2 kernel asks for one block per SM: left to ptxas it
 * spilled 280 bytes in double. In 2-D t12 comes first (the default): jacobi2d at 8192^2 in
 * float 2.74x the plain steps with queues, 2.60x with rings; in double t6 and t8 with rings
 * were best (2.66-2.79x), which the tuner finds. t6 and the smaller ones make what the main
 * kernel leaves (steps.c). bench/cuda/RESULTS.md has the figures. */
static const tstep_variant tstep3[] = {
    {3, 32, 32, 0, 0, 1}, {4, 32, 32, 0, 0, 1}, {3, 32, 32, 0, 2, 1}, {4, 32, 32, 0, 2, 1},
    {4, 32, 32, 1, 0, 0}, {3, 32, 32, 1, 0, 0}, {2, 32, 16, 1, 0, 0}, {2, 32, 32, 1, 0, 0}};
static const tstep_variant tstep2[] = {
    {12, 256, 1, 0, 0, 1}, {8, 256, 1, 0, 0, 1},  {6, 256, 1, 0, 0, 1}, {4, 256, 1, 0, 0, 1},
    {3, 256, 1, 0, 0, 1},  {12, 256, 1, 0, 0, 0}, {8, 256, 1, 0, 0, 0}, {6, 256, 1, 0, 0, 0},
    {4, 256, 1, 0, 0, 0},  {3, 256, 1, 0, 0, 0},  {2, 256, 1, 0, 1, 0}};
/* Whether NAME_steps blocks on the device unasked: in 2-D (jacobi2d at 8192^2, 32 steps: 2.74x
 * the plain steps in float, 2.51x in double), and in 3-D for stars of radius 1 that read no array
 * but IN, which have the queue kernels (heat3d from 33^3 to 512^3, 8 and 32 steps, Dirichlet and
 * Neumann: 1.09-2.0x the plain steps with the float lead kernel, 1.09-2.2x with the double one).
 * Not for other 3-D stencils: a box such as box27 has only rings, never measured faster than the
 * plain steps, and radius-2 stars and stars with more inputs (more registers) were not measured;
 * the tuner (stenc/tune.h) picks a kernel where it pays. */
static int tstep_star(const km_kernel *km);
static int tstep_automatic(const km_kernel *km, int reach, int point_reads) {
    return km->dims == 2 || (tstep_star(km) && reach == 1 && !point_reads);
}
/* The list entry emitted first, the kernel of automatic blocking: in 3-D float t3 with queues and
 * two blocks per SM (1.28x the plain steps at 512^3, 32 steps, against 1.16x for t3 with one),
 * in 3-D double t3 with queues and one (1.61x, against 1.19x: at two blocks double spills). */
static int tstep_lead(const km_kernel *km) {
    return km->dims == 3 && km->type_size == 4 ? 2 : 0;
}
/* The dynamic shared memory one kernel may ask for (the H100 allows 227 KB per block), and the
 * narrowest output a tile may keep after its rim. */
enum { TSTEP_MAX_SHARED = 160 * 1024, TSTEP_MIN_OUTPUT = 8 };

/* The planes of one step's ring in the tstep kernel: the 2R + 1 the next step reads, and when
 * skewed the one the step writes in the same iteration (the template's NP). */
static int tstep_ring_planes(int reach, const tstep_variant *tv) {
    return 2 * reach + 1 + (tv->queue ? 0 : tv->skew);
}

/* Elements of shared memory before every bx x by plane of the rings and after the last (a
 * 16-byte multiple; the template's PAD): in 2-D the fast path lets threads past the tile's
 * trapezoid compute too, and their reads reach R points (and in 3-D R rows) past their plane.
 * In a pad, never in another plane, which a step may be writing at the time, those reads race
 * with no write (docs/cuda.md, "The fast path"). */
static int tstep_pad(int reach, int bx, int by) {
    return (reach * (by > 1 ? bx : 0) + reach + 3) / 4 * 4;
}

/* Elements of a variant's shared planes, each after its pad: T steps of tstep_ring_planes
 * planes in rings, or with register queues two sets (double-buffered) of the middle planes of
 * steps 0..T-1. */
static long tstep_shared_elems(const tstep_variant *tv, int reach) {
    const int pad = tstep_pad(reach, tv->bx, tv->by);
    const long planes = tv->queue ? 2L * tv->t : (long)tv->t * tstep_ring_planes(reach, tv);
    return planes * (tv->bx * tv->by + pad) + pad;
}

/* Whether IN's reads make a star along the outer dimension: every read off the plane lies on
 * the thread's own column (i and mid offsets 0), so that register queues can hold them and
 * only the middle plane of each step need be shared (the queue variants). */
static int tstep_star(const km_kernel *km) {
    for (int r = 0; r < km->nreads; r++) {
        if (km->reads[r].array != km->step_in) continue;
        int o[3];
        remap(km, &km->reads[r].offset, o);
        if (o[2] && (o[0] || o[1])) return 0;
    }
    return 1;
}

/* Whether the device blocking takes this stencil: a stepping 2-D or 3-D stencil whose body
 * does not read its indices (the kernel evaluates ghost points at their boundary point's
 * coordinates, which an index read would see), with no staggered array (one extent for all). */
static int tstep_ok(const km_kernel *km) {
    if (km->step_in < 0 || km->dims < 2 || km->ninouts) return 0;
    for (int x = 0; x < AST_INDEX_COUNT; x++)
        if (km->uses_index[x]) return 0;
    for (int a = 0; a < km->narrays; a++)
        for (int dim = 0; dim < km->dims; dim++)
            if (km->arrays[a].stagger[dim]) return 0;
    for (int dim = 0; dim < km->dims; dim++)
        if (km->stagger[dim]) return 0;
    const km_array *in = &km->arrays[km->step_in];
    return in->axes == 0 && in->elem == AST_ELEM_REAL;
}

/* The register-queue streaming kernel (strategy 'q') takes 3-D stencils without sweeps or
 * staggering whose inputs are all real and span every dimension, read within QUEUE_MAX_REACH
 * along i (the points past a warp's row that the first and last lanes hold), when their
 * variant list has such entries (not the heavy lists: a window per array would not fit the
 * registers). */
enum { QUEUE_MAX_REACH = 4 };

static int queue_ok(const km_kernel *km) {
    if (km->dims != 3 || needs_sweep(km) || staggered_input(km)) return 0;
    const cuda_policy pol = choose_policy(km); /* no kernel for a list without 'q' entries */
    int listed = 0;
    for (int v = 0; v < pol.count; v++)
        listed |= pol.list[v].strategy == 'q';
    if (!listed) return 0;
    for (int a = 0; a < km->narrays; a++) {
        const km_array *arr = &km->arrays[a];
        if (arr->kind != KM_INPUT || !arr->noffsets) continue;
        if (read_by_point(km, a) || arr->axes != 0) return 0;
    }
    for (int r = 0; r < km->nreads; r++)
        if (abs(km->reads[r].offset.d[0]) > QUEUE_MAX_REACH) return 0;
    return 1;
}

/* Its data: per input the window of rows along mid and planes along the outer dimension that
 * its reads span and its reach along i (cu_qfields); mlo, olo and qreach (per array) place each
 * read in its windows (cu_reads' qm, qo, qh). Returns queue_ok. */
static int queue_data(const km_kernel *km, const int *field_of, tmpl_value *d, int *mlo, int *olo,
                      int *qreach) {
    const int ok = queue_ok(km);
    tmpl_set_bool(d, "cu_queue", ok);
    if (!ok) return 0;
    int qr = 0;
    tmpl_value *fields = tmpl_set_list(d, "cu_qfields");
    for (int a = 0; a < km->narrays; a++) {
        int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, any = 0;
        for (int r = 0; r < km->nreads; r++) {
            if (km->reads[r].array != a) continue;
            int o[3];
            remap(km, &km->reads[r].offset, o);
            for (int e = 0; e < 3; e++) {
                lo[e] = !any || o[e] < lo[e] ? o[e] : lo[e];
                hi[e] = !any || o[e] > hi[e] ? o[e] : hi[e];
            }
            any = 1;
        }
        mlo[a] = lo[1], olo[a] = lo[2];
        if (!any) continue;
        tmpl_value *fv = tmpl_append_map(fields);
        tmpl_set_fmt(fv, "field", "%d", field_of[a]);
        tmpl_set_fmt(fv, "mlo", "%d", lo[1]);
        tmpl_set_fmt(fv, "mspan", "%d", hi[1] - lo[1]);
        tmpl_set_fmt(fv, "mhi", "%d", hi[1] > 0 ? hi[1] : 0);
        tmpl_set_fmt(fv, "olo", "%d", lo[2]);
        tmpl_set_fmt(fv, "ohi", "%d", hi[2]);
        tmpl_set_fmt(fv, "ospan", "%d", hi[2] - lo[2]);
        tmpl_set_fmt(fv, "ilo", "%d", lo[0] < 0 ? -lo[0] : 0);
        tmpl_set_fmt(fv, "ihi", "%d", hi[0] > 0 ? hi[0] : 0);
        const int reach = -lo[0] > hi[0] ? -lo[0] : hi[0];
        tmpl_set_fmt(fv, "qh", "%d", reach);
        tmpl_set_bool(fv, "hashalo", reach > 0);
        qreach[a] = reach;
        if (reach > qr) qr = reach;
    }
    tmpl_set_fmt(d, "cu_qr", "%d", qr);
    return 1;
}

/* The template data of the tstep kernel (cu_tsteps and its lists). */
static void tstep_data(const km_kernel *km, const int *field_of, const emit_symbols *sym,
                       tmpl_value *d) {
    const int ok = tstep_ok(km);
    tmpl_set_bool(d, "cu_tsteps", ok);
    if (!ok) return;
    int reach = 0;
    for (int r = 0; r < km->nreads; r++)
        if (km->reads[r].array == km->step_in)
            for (int dim = 0; dim < km->dims; dim++)
                if (abs(km->reads[r].offset.d[dim]) > reach)
                    reach = abs(km->reads[r].offset.d[dim]);
    tmpl_set_fmt(d, "ts_r", "%d", reach);
    tmpl_set_fmt(d, "ts_in", "%d", field_of[km->step_in]);
    tmpl_set_fmt(d, "ts_out", "%d", field_of[km->step_out]);
    tmpl_set_str(d, "ts_out_local", sym->value_name[km->step_out]);
    tmpl_value *reads = tmpl_set_list(d, "ts_reads");
    int point_reads = 0;
    for (int r = 0; r < km->nreads; r++) {
        point_reads |= km->reads[r].array != km->step_in;
        const km_read *rd = &km->reads[r];
        tmpl_value *rv = tmpl_append_map(reads);
        tmpl_set_str(rv, "local", sym->read_name[r]);
        describe_read(rv, km, rd, field_of[rd->array]);
        const int ring = rd->array == km->step_in;
        tmpl_set_bool(rv, "ring", ring);
        int o[3];
        remap(km, &rd->offset, o);
        tmpl_set_bool(rv, "column", ring && !o[0] && !o[1]);
        tmpl_set_fmt(rv, "oi", "%d", o[0]);
        tmpl_set_fmt(rv, "om", "%d", o[1]);
        tmpl_set_fmt(rv, "oo", "%d", o[2]);
    }
    tmpl_set_bool(d, "ts_point_reads", point_reads);
    tmpl_set_fmt(d, "ts_automatic", "%d", tstep_automatic(km, reach, point_reads));
    const tstep_variant *list = km->dims == 3 ? tstep3 : tstep2;
    const int count = km->dims == 3 ? (int)(sizeof tstep3 / sizeof *tstep3)
                                    : (int)(sizeof tstep2 / sizeof *tstep2);
    tmpl_value *vars = tmpl_set_list(d, "ts_variants");
    const int star = tstep_star(km);
    const int lead = tstep_lead(km);
    for (int n = 0; n < count; n++) {
        const int v = n == 0 ? lead : n <= lead ? n - 1 : n; /* lead first, then the rest */
        const tstep_variant *tv = &list[v];
        if (tv->queue && !star) continue;
        const int rt = reach * tv->t;
        const long elems = tstep_shared_elems(tv, reach), bytes = elems * km->type_size;
        if (bytes > TSTEP_MAX_SHARED || tv->bx - 2 * rt < TSTEP_MIN_OUTPUT ||
            (km->dims == 3 && tv->by - 2 * rt < TSTEP_MIN_OUTPUT))
            continue;
        tmpl_value *vv = tmpl_append_map(vars);
        tmpl_set_fmt(vv, "t", "%d", tv->t);
        tmpl_set_fmt(vv, "bx", "%d", tv->bx);
        tmpl_set_fmt(vv, "by", "%d", tv->by);
        tmpl_set_fmt(vv, "skew", "%d", tv->queue ? 0 : tv->skew);
        tmpl_set_fmt(vv, "queue", "%d", tv->queue);
        tmpl_set_fmt(vv, "minb", "%d", tv->minb);
        tmpl_set_fmt(vv, "np", "%d", tstep_ring_planes(reach, tv));
        tmpl_set_fmt(vv, "pad", "%d", tstep_pad(reach, tv->bx, tv->by));
        tmpl_set_fmt(vv, "elems", "%ld", elems);
        char minb[16] = "";
        if (tv->minb) snprintf(minb, sizeof minb, "_m%d", tv->minb);
        tmpl_set_fmt(vv, "name", "tstep_t%d_%dx%d%s%s", tv->t, tv->bx, tv->by, minb,
                     tv->queue ? "_q" : "");
    }
    tmpl_set_fmt(d, "ts_nvariants", "%d", (int)tmpl_list_len(vars));
    /* no variant fits (a reach too long for the tiles): no kernel */
    if (tmpl_list_len(vars) == 0) tmpl_set_bool(d, "cu_tsteps", 0);
}

void emit_cuda_data(const km_kernel *km, const emit_symbols *sym, tmpl_value *d) {
    const char *const *read_name = sym->read_name, *const *value_name = sym->value_name;
    const char *const *reduce_name = sym->reduce_name, *const *reduce_acc = sym->reduce_acc;
    tmpl_set_bool(d, "cu_float", km->type_size == 4);
    /* field index of every array, -1 for scalars */
    int *field_of = xmalloc((size_t)km->narrays * sizeof *field_of);
    int nfields = 0, nscalars = 0;
    tmpl_value *scalars = tmpl_set_list(d, "cu_scalars");
    for (int a = 0; a < km->narrays; a++) {
        if (km->arrays[a].kind == KM_SCALAR) {
            field_of[a] = -1;
            tmpl_value *s = tmpl_append_map(scalars);
            tmpl_set_str(s, "name", value_name[a]);
            tmpl_set_fmt(s, "index", "%d", nscalars++);
        } else {
            field_of[a] = nfields++;
        }
    }
    tmpl_set_fmt(d, "cu_nscalars", "%d", nscalars > 0 ? nscalars : 1);
    tmpl_set_fmt(d, "cu_nfields", "%d", nfields);

    input_info *info = xmalloc((size_t)km->narrays * sizeof *info);
    for (int a = 0; a < km->narrays; a++) {
        info[a].field = field_of[a];
        info[a].rows = xmalloc((size_t)(km->nreads + 1) * sizeof(row_group));
    }
    for (int r = 0; r < km->nreads; r++) {
        if (!read_by_row(km, km->reads[r].array)) continue; /* scalar loads: load_point */
        input_info *in = &info[km->reads[r].array];
        int o[3];
        remap(km, &km->reads[r].offset, o);
        int g = 0;
        while (g < in->nrows && !(in->rows[g].dj == o[1] && in->rows[g].dk == o[2]))
            g++;
        if (g == in->nrows) in->rows[in->nrows++] = (row_group){o[1], o[2], o[0], o[0]};
        if (o[0] < in->rows[g].lo) in->rows[g].lo = o[0];
        if (o[0] > in->rows[g].hi) in->rows[g].hi = o[0];
        if (read_by_point(km, km->reads[r].array)) continue; /* integers: no columns, planes */
        if (o[0] == 0 && o[1] == 0) {
            if (!in->has_column) in->has_column = 1, in->klo = in->khi = o[2];
            if (o[2] < in->klo) in->klo = o[2];
            if (o[2] > in->khi) in->khi = o[2];
        } else {
            if (!in->has_plane) in->has_plane = 1, in->plo = in->phi = o[2];
            if (o[2] < in->plo) in->plo = o[2];
            if (o[2] > in->phi) in->phi = o[2];
            if (abs(o[0]) > in->rx) in->rx = abs(o[0]);
            if (abs(o[1]) > in->ry) in->ry = abs(o[1]);
        }
    }

    /* The fields the kernels touch: base offsets are computed for these only (cu_used), and
     * in the direct kernel for the integer inputs it reads by rows (cu_int_rows). */
    tmpl_value *used = tmpl_set_list(d, "cu_used");
    tmpl_value *int_rows = tmpl_set_list(d, "cu_int_rows");
    tmpl_value *outs = tmpl_set_list(d, "cu_outputs");
    int nout = 0;
    for (int a = 0; a < km->narrays; a++) {
        const km_array *arr = &km->arrays[a];
        if (arr->kind == KM_SCALAR || (arr->kind == KM_INPUT && arr->noffsets == 0)) continue;
        if (read_by_point(km, a)) { /* no row offset: load_point indexes from the point */
            if (read_by_row(km, a))
                tmpl_set_fmt(tmpl_append_map(int_rows), "field", "%d", field_of[a]);
            continue;
        }
        tmpl_value *u = tmpl_append_map(used);
        tmpl_set_fmt(u, "field", "%d", field_of[a]);
        if (arr->kind == KM_OUTPUT) {
            tmpl_value *ov = tmpl_append_map(outs);
            tmpl_set_fmt(ov, "field", "%d", field_of[a]);
            tmpl_set_str(ov, "local", value_name[a]);
            tmpl_set_fmt(ov, "windex", "%d", nout++);
        }
    }

    /* Direct kernel, fast path: one buffer per (input, mid, outer) row. */
    tmpl_value *rows = tmpl_set_list(d, "cu_rows");
    tmpl_value *cols = tmpl_set_list(d, "cu_columns");
    tmpl_value *planes = tmpl_set_list(d, "cu_planes");
    int warm = 0;
    for (int a = 0; a < km->narrays; a++) {
        input_info *in = &info[a];
        for (int g = 0; g < in->nrows; g++) {
            row_group *rg = &in->rows[g];
            tmpl_value *rv = tmpl_append_map(rows);
            tmpl_set_fmt(rv, "field", "%d", in->field);
            tmpl_set_bool(rv, "is_real", km->arrays[a].elem == AST_ELEM_REAL);
            tmpl_set_str(rv, "elem", elem_ctype(km->arrays[a].elem));
            set_suffix(rv, "sfx_j", rg->dj);
            set_suffix(rv, "sfx_k", rg->dk);
            set_term(rv, "dj", rg->dj);
            set_term(rv, "dk", rg->dk);
            tmpl_set_fmt(rv, "lo", "%d", rg->lo);
            tmpl_set_fmt(rv, "hi", "%d", rg->hi);
        }
        if (in->has_column) {
            tmpl_value *cv = tmpl_append_map(cols);
            int span = in->khi - in->klo;
            if (span > warm) warm = span;
            tmpl_set_fmt(cv, "field", "%d", in->field);
            tmpl_set_fmt(cv, "w", "%d", span + 1);
            tmpl_set_fmt(cv, "last", "%d", span);
            tmpl_set_fmt(cv, "span", "%d", span);
            tmpl_set_fmt(cv, "khi", "%d", in->khi);
        }
        if (in->has_plane) {
            tmpl_value *pv = tmpl_append_map(planes);
            int span = in->phi - in->plo;
            if (span > warm) warm = span;
            tmpl_set_fmt(pv, "field", "%d", in->field);
            tmpl_set_fmt(pv, "np", "%d", span + 1);
            tmpl_set_fmt(pv, "span", "%d", span);
            tmpl_set_fmt(pv, "phi", "%d", in->phi);
            tmpl_set_fmt(pv, "rx", "%d", in->rx);
            tmpl_set_fmt(pv, "ry", "%d", in->ry);
            tmpl_set_fmt(pv, "wx", "%d", 2 * in->rx);
            tmpl_set_fmt(pv, "wy", "%d", 2 * in->ry);
        }
    }
    tmpl_set_fmt(d, "cu_warm", "%d", warm);
    tmpl_set_bool(d, "cu_sweep", needs_sweep(km));
    tmpl_set_bool(d, "cu_sweep_rows", sweep_by_rows(km));
    tstep_data(km, field_of, sym, d);
    if (needs_sweep(km))
        sweep_data(km, field_of, read_name, value_name, reduce_name, reduce_acc, d);
    tmpl_set_bool(d, "cu_has_planes", tmpl_list_len(planes) > 0);

    /* Every read, for its three forms: fast (an element of its row buffer), slow (a scalar
     * load), stream (its column window or shared plane); by point, the same load in all but
     * the fast form of an integer input's read (its row buffer too). */
    tmpl_value *reads = tmpl_set_list(d, "cu_reads");
    int *qmlo = xmalloc(sizeof(int) * (size_t)km->narrays);
    int *qolo = xmalloc(sizeof(int) * (size_t)km->narrays);
    int *qreach = xmalloc(sizeof(int) * (size_t)km->narrays);
    const int queue = queue_data(km, field_of, d, qmlo, qolo, qreach);
    for (int r = 0; r < km->nreads; r++) {
        const km_read *rd = &km->reads[r];
        const input_info *in = &info[rd->array];
        int o[3];
        remap(km, &rd->offset, o);
        tmpl_value *rv = tmpl_append_map(reads);
        tmpl_set_str(rv, "local", read_name[r]);
        if (queue) { /* its place in its input's window, and its lane offset */
            tmpl_set_fmt(rv, "qm", "%d", o[1] - qmlo[rd->array]);
            tmpl_set_fmt(rv, "qo", "%d", o[2] - qolo[rd->array]);
            tmpl_set_fmt(rv, "qi", "%d", o[0]);
            tmpl_set_fmt(rv, "qh", "%d", qreach[rd->array]);
            tmpl_set_bool(rv, "qshfl", o[0] != 0);
        }
        describe_read(rv, km, rd, in->field);
        tmpl_set_bool(rv, "row", read_by_row(km, rd->array));
        if (!read_by_row(km, rd->array)) continue;
        int lo = 0;
        for (int g = 0; g < in->nrows; g++)
            if (in->rows[g].dj == o[1] && in->rows[g].dk == o[2]) lo = in->rows[g].lo;
        set_suffix(rv, "sfx_j", o[1]);
        set_suffix(rv, "sfx_k", o[2]);
        set_term(rv, "eoff", o[0] - lo);
        if (read_by_point(km, rd->array)) continue;
        tmpl_set_bool(rv, "column", o[0] == 0 && o[1] == 0);
        tmpl_set_fmt(rv, "cidx", "%d", o[2] - in->klo);
        tmpl_set_fmt(rv, "np", "%d", in->phi - in->plo + 1);
        tmpl_set_fmt(rv, "ty", "%d", in->ry + o[1]);
        tmpl_set_fmt(rv, "tx", "%d", in->rx + o[0]);
    }

    free(qmlo);
    free(qolo);
    free(qreach);

    /* Inputs read by point somewhere: the point's coordinates for their loads. The launch's
     * vector-alignment test, per field: the bytes of its element (an integer input's own), 0
     * for an input without i (read element by element); a table only where they differ from
     * stenc_T's size. */
    tmpl_value *vec_bytes = tmpl_set_list(d, "cu_vec_bytes");
    int any_lower = 0, mixed = 0;
    for (int a = 0; a < km->narrays; a++) {
        if (field_of[a] < 0) continue;
        const int bytes = read_by_row(km, a) ? elem_bytes(km, km->arrays[a].elem) : 0;
        char text[8];
        snprintf(text, sizeof text, "%d", bytes);
        tmpl_append_str(vec_bytes, text);
        any_lower |= read_by_point(km, a);
        mixed |= bytes != km->type_size;
    }
    tmpl_set_bool(d, "cu_lower", any_lower);
    tmpl_set_bool(d, "cu_vec_table", mixed);
    tmpl_set_bool(d, "cu_int_row_types", tmpl_list_len(int_rows) > 0);

    /* Index variables the body uses, in the kernels' frame. */
    tmpl_set_bool(d, "cu_use_i", km->uses_index[AST_INDEX_I]);
    tmpl_set_bool(d, "cu_use_j", km->uses_index[AST_INDEX_J]);
    tmpl_set_bool(d, "cu_use_k", km->uses_index[AST_INDEX_K]);
    tmpl_set_bool(d, "cu_use_ni", km->uses_index[AST_INDEX_NI]);
    tmpl_set_bool(d, "cu_use_nj", km->uses_index[AST_INDEX_NJ]);
    tmpl_set_bool(d, "cu_use_nk", km->uses_index[AST_INDEX_NK]);

    /* The variants that fit the device: those whose shared memory stays within the static
     * limit (the stream kernel's planes, the sweep's per-thread partials). Direct variants and
     * sweeps without reductions use none, so every stencil keeps at least one. */
    /* An ordered sweep: the wavefront in the kernels' frame, and its one variant. */
    tmpl_set_fmt(d, "cu_wave_mid", "%d", km->dims == 3 ? km->wave[1] : 0);
    tmpl_set_fmt(d, "cu_wave_out", "%d",
                 km->dims == 3   ? km->wave[2]
                 : km->dims == 2 ? km->wave[1]
                                 : 0);
    /* 2-D: the DOACROSS kernels first (bands of 32 V rows, V = 2 or 4, a warp each stepping the
     * hyperplanes, every read from windows in shared memory), where their windows fit; then the
     * launch per hyperplane. In sweep order (di, dj, hyperplane distance t = di + W dj) over the
     * reads from windows, the inouts' own value (0, 0) among them: the rows before and after the
     * band's they reach, the nearest and farthest hyperplanes, the widest reach along the row;
     * of the inouts' reads of the band before (dj < 0), how many of its rows and the farthest
     * hyperplane; and how far ahead of a point of this band the band before's last row must
     * be: for its values (dj < 0), and for the old values of this band that it reads (dj > 0). */
    const int wave_out = km->dims == 2 ? km->wave[1] : 0;
    int nold = 0, before = 0, after = 0, dmin = 0, dmax = 0, hi = 0;
    int prev = 0, dprev = INT_MIN, need = INT_MIN, linked = 0;
    for (int a = 0; a < km->narrays; a++)
        nold += window_array(km, a);
    for (int r = 0; r < km->nreads; r++) {
        const km_read *rd = &km->reads[r];
        if (!window_read(km, rd)) continue;
        const int di = rd->offset.d[0] * km->order, dj = rd->offset.d[1] * km->order;
        const int t = di + wave_out * dj;
        before = -dj > before ? -dj : before;
        after = dj > after ? dj : after;
        dmin = t < dmin ? t : dmin;
        dmax = t > dmax ? t : dmax;
        hi = abs(di) > hi ? abs(di) : hi;
        if (km->arrays[rd->array].kind != KM_INOUT || dj == 0) continue;
        linked = 1;
        const int ahead = dj < 0 ? di + wave_out * (dj + 1) : -di - wave_out * (dj - 1);
        need = ahead > need ? ahead : need;
        if (dj > 0) continue;
        prev = -dj > prev ? -dj : prev;
        dprev = t > dprev ? t : dprev;
    }
    /* Each window keeps the last old_w hyperplanes of a row: the reads' span, the compute
     * warp's checks and the loader's batches ahead (templates/cuda/stencil_cuda.cu.tmpl). */
    const int old_w = 64;
    const int window_fits = dmax - dmin + CUDA_DOACROSS_CHECK + 2 * CUDA_DOACROSS_BATCH <= old_w;
    tmpl_set_fmt(d, "cu_old_w", "%d", old_w);
    tmpl_set_fmt(d, "cu_nold", "%d", nold > 0 ? nold : 1);
    tmpl_set_fmt(d, "cu_doa_before", "%d", before);
    tmpl_set_fmt(d, "cu_doa_after", "%d", after);
    tmpl_set_fmt(d, "cu_doa_prev", "%d", prev);
    tmpl_set_fmt(d, "cu_doa_linked", "%d", linked);
    tmpl_set_fmt(d, "cu_doa_dmin", "%d", dmin);
    tmpl_set_fmt(d, "cu_doa_dmax", "%d", dmax);
    tmpl_set_fmt(d, "cu_doa_dprev", "%d", prev ? dprev : 0);
    tmpl_set_fmt(d, "cu_doa_need", "%d", linked ? need : 0);
    tmpl_set_fmt(d, "cu_doa_hi", "%d", hi);
    tmpl_set_fmt(d, "cu_doa_check", "%d", CUDA_DOACROSS_CHECK);
    tmpl_set_fmt(d, "cu_doa_batch", "%d", CUDA_DOACROSS_BATCH);
    const int doacross = km->order && km->dims == 2 && window_fits && before <= 32 && after <= 32;
    tmpl_set_bool(d, "cu_doacross", doacross);
    /* the DOACROSS variants whose windows fit a block's shared memory */
    static const cuda_variant doacross_variants[] = {{'a', 2, 1, 128, 1, 0},
                                                     {'a', 4, 1, 128, 1, 0}};
    cuda_variant ordered_variants[3];
    int nordered = 0;
    for (int v = 0; doacross && v < 2; v++)
        if ((long)km->type_size * (nold > 0 ? nold : 1) *
                (before + 32 * doacross_variants[v].v + after) * (old_w + 1) <=
            CUDA_DYNAMIC_SHARED)
            ordered_variants[nordered++] = doacross_variants[v];
    ordered_variants[nordered++] = (cuda_variant){'f', 1, 1, 256, 1, 0};
    cuda_policy pol = km->order ? (cuda_policy){ordered_variants, nordered} : choose_policy(km);
    const cuda_variant **fitting = xmalloc((size_t)(pol.count + 1) * sizeof *fitting);
    int nfit = 0;
    /* The stream kernel fills its planes over the stencil's whole reach on both sides of the
     * launch's extent; an input staggered against the launch has halo only for its reads. */
    const int staggered = staggered_input(km);
    for (int v = 0; v < pol.count; v++)
        if (variant_shared_bytes(km, info, &pol.list[v]) <= CUDA_STATIC_SHARED &&
            !(staggered && pol.list[v].strategy == 's') && (queue || pol.list[v].strategy != 'q'))
            fitting[nfit++] = &pol.list[v];
    if (nfit == 0) fitting[nfit++] = &sweep_one_warp; /* only reducing sweeps get here */
    /* The pass combining the blocks' partials: 256 threads, fewer when the partials of many
     * reductions would not fit shared memory (a power of two, at least one warp). */
    int combine = 256;
    while (combine > 32 && (long)km->nreduces * combine * CUDA_ACC_BYTES > CUDA_STATIC_SHARED)
        combine /= 2;
    tmpl_set_fmt(d, "cu_combine_threads", "%d", combine);
    tmpl_value *vars = tmpl_set_list(d, "cu_variants");
    for (int v = 0; v < nfit; v++) {
        const cuda_variant *cv = fitting[v];
        tmpl_value *vv = tmpl_append_map(vars);
        int minb = cv->minb > 1 ? cv->minb : 1;
        tmpl_set_str(vv, "strategy",
                     cv->strategy == 'd'   ? "direct"
                     : cv->strategy == 'w' ? "sweep"
                     : cv->strategy == 'f' ? "wave"
                     : cv->strategy == 'a' ? "doacross"
                     : cv->strategy == 'q' ? "streamq"
                                           : "stream");
        tmpl_set_fmt(vv, "v", "%d", cv->v);
        tmpl_set_fmt(vv, "k", "%d", cv->k);
        tmpl_set_fmt(vv, "bx", "%d", cv->bx);
        tmpl_set_fmt(vv, "by", "%d", cv->by);
        tmpl_set_fmt(vv, "minb", "%d", minb);
        tmpl_buf name = {0};
        if (cv->strategy == 'd')
            tmpl_buf_printf(&name, "direct_v%d_k%d_%dx%d", cv->v, cv->k, cv->bx, cv->by);
        else if (cv->strategy == 'w')
            tmpl_buf_printf(&name, "sweep_v%d_k%d_%dx%d", cv->v, cv->k, cv->bx, cv->by);
        else if (cv->strategy == 'f')
            tmpl_buf_printf(&name, "wavefront_%d", cv->bx);
        else if (cv->strategy == 'a')
            tmpl_buf_printf(&name, "doacross_r%d", cv->v);
        else if (cv->strategy == 'q')
            tmpl_buf_printf(&name, "streamq%s_m%d_w%d_k%d", cv->bx ? "o" : "", cv->v, cv->by,
                            cv->k);
        else if (cv->v > 1) /* V rows per thread along mid */
            tmpl_buf_printf(&name, "stream_v%d_%dx%d_k%d", cv->v, cv->bx, cv->by, cv->k);
        else
            tmpl_buf_printf(&name, "stream_%dx%d_k%d", cv->bx, cv->by, cv->k);
        if (minb > 1) tmpl_buf_printf(&name, "_o%d", minb);
        tmpl_set_str(vv, "name", tmpl_buf_str(&name));
        tmpl_buf_free(&name);
    }
    tmpl_set_fmt(d, "cu_nvariants", "%d", nfit);
    free(fitting);

    for (int a = 0; a < km->narrays; a++)
        free(info[a].rows);
    free(info);
    free(field_of);
}
