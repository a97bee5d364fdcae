/* Colour analysis: the colour expression of an in-place sweep (`color EXPR;`), its period,
 * its colours, and the proof that a sweep over one colour is race-free.
 *
 * A colour expression is integer arithmetic over the index variables i, j, k: integer
 * literals, + - * (binary and unary minus) and `%` with a positive integer constant on the
 * right, which is the Euclidean modulo (the result is in 0..m-1, also for negative left
 * operands). Integer ring operations commute with "mod m", so `E % m` is periodic with period
 * m times nothing more than the periods of the `%` terms inside E, in every dimension; an
 * index variable outside every `%` makes the expression non-periodic in its dimension.
 *
 * The analysis derives the period p[d] of each dimension, evaluates the expression over one
 * period box, requires the values to be exactly 0..n-1 (n colours), and proves, for every
 * neighbour read of an inout array at offset o != 0, that colour(x + o) != colour(x) for every
 * point x of the box: by periodicity, for every point of every grid. */
#ifndef STENC_COMPILER_COLOR_H
#define STENC_COMPILER_COLOR_H

#include "ast.h"
#include "diag.h"

/* Largest period in one dimension, largest period box, most colours: the generated kernel
 * holds the box as a table, and each launch scans one period of i per row. */
#define COLOR_MAX_PERIOD 64
#define COLOR_MAX_BOX 4096
#define COLOR_MAX_COLORS 64

/* Analyse the colour expression `e` of stencil `st` (dims known, 1..3). On success fill
 * st->ncolors, st->color_period and st->color_table (in the file's arena) and return 1; else
 * report why at the offending part of `e` and return 0. */
int color_analyze(ast_stencil *st, const ast_expr *e, ast_arena *arena, diag *d);

/* The colour of interior point (i, j, k) of a stencil that color_analyze() accepted. */
int color_at(const ast_stencil *st, long i, long j, long k);

/* 1 when a read at `offset` can never land on a point of the reading point's colour; else 0,
 * with a point x (interior coordinates inside the period box) where it does. */
int color_offset_is_safe(const ast_stencil *st, const int offset[AST_MAX_DIMS],
                         int witness[AST_MAX_DIMS]);

#endif /* STENC_COMPILER_COLOR_H */
