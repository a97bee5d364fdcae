/* The kernel model: what the analyser computes from one checked stencil, and what the
 * emitter and `stenc --info` need to know about it.
 *
 * analyze_stencil() walks the checked AST once. It collects, per array, the offsets read and
 * the halo they need; per stencil, the distinct (input, offset) reads, so that generated code
 * can load each value once; and the cost figures of SBLOCK's Table 14.1:
 *
 *   flops/point  each + - * / and unary minus counts 1, each call of a built-in function 1;
 *                comparisons, && || !, literals and references count 0. A let is counted
 *                once, where it is defined. An if counts its condition plus the more expensive
 *                of its two branches; a ternary likewise.
 *   bytes/point  every input that is read is loaded once, every inout loaded and stored
 *                once, every output stored once: (inputs read + 2 * inouts + outputs) *
 *                sizeof(type), integer inputs at their own size (4 or 1). Lower-dimensional
 *                inputs (`input dx[i];`) are not counted: one element serves a whole line of
 *                points from cache. Scalars and reductions are
 * free. A reduce statement counts the flops of its expression. AI           flops / bytes.
 *
 * The model points into the AST (names, the stencil) and writes nothing into it; it must not
 * outlive the ast_file. */
#ifndef STENC_COMPILER_ANALYZE_H
#define STENC_COMPILER_ANALYZE_H

#include "ast.h"

/* An offset relative to the point computed, in (i, j, k) order; unused dimensions are 0. */
typedef struct km_offset {
    int d[AST_MAX_DIMS];
} km_offset;

typedef enum km_array_kind {
    KM_SCALAR = AST_DECL_SCALAR,
    KM_INPUT = AST_DECL_INPUT,
    KM_OUTPUT = AST_DECL_OUTPUT,
    KM_INOUT = AST_DECL_INOUT
} km_array_kind;

/* One declared scalar, input or output. */
typedef struct km_array {
    const char *name;
    km_array_kind kind;
    const ast_decl *decl; /* its declaration */
    int position;         /* rank among the stencil's declarations of this kind (= decl) */
    int reads;            /* references in the body (outputs: reads of the assigned value) */
    unsigned axes;        /* inputs: the dimensions spanned, bit d for dimension d; 0 = all */
    ast_elem elem;        /* inputs: AST_ELEM_I32 / _U8 for integers, else AST_ELEM_REAL */
    /* Inputs and inouts only (0 / NULL otherwise): */
    km_offset *offsets; /* distinct offsets read, sorted by k, then j, then i */
    int noffsets;
    int halo_lo[AST_MAX_DIMS]; /* points needed below the interior in each dimension:
                                  max(0, -min offset); 0 in unused dimensions */
    int halo_hi[AST_MAX_DIMS]; /* points needed above its extent: max(0, max offset + the
                                  launch's stagger - the array's) */
    /* `output fx[i+1, j];`: its extent against the reference grid, per dimension (0 where it
     * does not span); the launch runs over the written arrays' (km_kernel.stagger). */
    int stagger[AST_MAX_DIMS];
} km_array;

/* One distinct (input or inout, offset) pair read by the body, in order of first appearance.
 * km_find_read() gives the index of an AST_SYM_INPUT or AST_SYM_INOUT reference's read, so
 * an emitter can declare one local per read, load it once, and print references as that
 * local. The centre of an inout is the exception: it is the inout's current value (see
 * AST_SYM_INOUT), not a load. */
typedef struct km_read {
    int array;        /* index into km_kernel.arrays (an input or an inout) */
    km_offset offset; /* the offset read */
    int count;        /* references to it in the body */
} km_read;

/* One reduce statement: `reduce sum|max|min NAME = expr;`. */
typedef struct km_reduce {
    const char *name;
    ast_reduce_op op;
} km_reduce;

enum { KM_MAX_DIVISORS = 16 };

typedef struct km_kernel {
    const ast_stencil *st; /* the stencil analysed: its identity, for the driver */
    /* The statements, checked: what targets print as the body. The emitter reads the stencil
     * through this model only (names, reads, halos, reductions, colours, the body). */
    const ast_block *body;
    const char *name; /* = st->name */
    int dims;         /* 1, 2 or 3 */
    ast_type type;    /* the effective element type: st->type, or the --precision
                         override. Emitters must use this, not st->type. */
    int type_size;    /* 4 or 8 */

    km_array *arrays; /* every declaration, in source order (same order as st->decls) */
    int narrays;
    int nscalars, ninputs, noutputs, ninouts; /* counts by kind */

    km_read *reads; /* distinct (input, offset) reads */
    int nreads;

    int halo_lo[AST_MAX_DIMS]; /* max over inputs of km_array.halo_lo: the ghost layers every
                                  input field needs, and the interior's distance from the
                                  edge of the arrays */
    int halo_hi[AST_MAX_DIMS];
    int radius; /* largest |offset| in any dimension over all reads */

    int uses_index[AST_INDEX_COUNT]; /* 1 when the body uses i, j, k, ni, nj, nk */
    int nlets;                       /* let temporaries (= st->nlets) */
    int has_branches;                /* 1 when the body has an if or a ternary */
    /* The distinct literal divisors of divide_literal()'s divisions (compiler/divide.h), in order
     * of first appearance; more than KM_MAX_DIVISORS are left as `/`. */
    int ndivisors;
    float divisors[KM_MAX_DIVISORS];
    int nreduces;       /* reduce statements (= st->nreduces) */
    km_reduce *reduces; /* by id: the launcher's results[] order */
    /* The colouring (= st->ncolors, color_period, color_table); ncolors 0 without one. */
    int ncolors;
    int color_period[AST_MAX_DIMS];
    const unsigned char *color_table;
    /* `step OUT -> IN;`: the arrays' indices, -1 without one. */
    int step_out, step_in;
    /* `order forward|backward;`: 1 / -1, 0 without. The wavefront: point (i, j, k) lies on
     * hyperplane t = wave[0]*i + wave[1]*j + wave[2]*k, every neighbour read of an inout
     * before the point (lexicographically, k slowest) lies on an earlier one and every read
     * after it on a later one, so the points of one hyperplane are independent. */
    int order;
    int wave[AST_MAX_DIMS];
    /* The extent the launch runs over, against the reference grid: the written arrays'
     * stagger (they share one), 0 without written arrays. */
    int stagger[AST_MAX_DIMS];

    long flops;       /* flops per point, as defined above */
    long bytes;       /* bytes per point, as defined above */
    double intensity; /* flops / bytes (0 when bytes == 0) */
    int inputs_read;  /* inputs with at least one read (counted in bytes) */
} km_kernel;

/* Analyse a stencil that check_file() accepted. `type_override` is AST_TYPE_NONE to keep the
 * stencil's own type, or the --precision type. Returns 0, or nonzero when out of memory
 * (then *km is empty). Release with analyze_free(). */
int analyze_stencil(const ast_stencil *st, ast_type type_override, km_kernel *km);

/* Free what analyze_stencil() allocated; leaves *km zeroed. NULL is allowed. */
void analyze_free(km_kernel *km);

/* Index in km->reads of the read of `array` at `offset`, or -1. */
int km_find_read(const km_kernel *km, int array, const int offset[AST_MAX_DIMS]);

/* Index of the array named `name` in km->arrays, or -1. */
int km_find_array(const km_kernel *km, const char *name);

#endif /* STENC_COMPILER_ANALYZE_H */
