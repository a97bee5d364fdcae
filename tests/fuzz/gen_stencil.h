/* A random valid-stencil generator and an evaluator of what it generates, independent of the
 * compiler: the stencil is built as this file's own tree, printed as .stencil text, and
 * interpreted here point by point with the semantics of docs/language.md. The differential test
 * (test_differential.c) runs the compiled launcher on the same fields and compares.
 *
 * The generator calls check_reserved_name() (compiler/check.h) to drop names the checker
 * reserves; nothing else of the compiler is used. */
#ifndef STENC_FUZZ_GEN_STENCIL_H
#define STENC_FUZZ_GEN_STENCIL_H

#include <stddef.h>
#include <stdint.h>

/* Feature classes that can be switched on and off (STENC_RANDOM_FLAGS, docs/fuzzing.md), so that
 * a class the compiler fails on can be left out while the rest is validated. All are on by
 * default. */
enum {
    GS_CNAMES = 1u << 0,       /* names from C, C++, CUDA, libc and generated code */
    GS_LOGIC_ARITH = 1u << 1,  /* comparisons and logic as arithmetic operands and function
                                  arguments: (a<b)*c, sqrt(x > 0) */
    GS_BOOL_MUL = 1u << 2,     /* a product in a boolean context: !(a*x), if (a*x) */
    GS_WIDE_LIT = 1u << 3,     /* float stencils: literals at the ends of the float range */
    GS_RADIUS8_3D = 1u << 4,   /* radius beyond 4 in 3-D stencils (CUDA shared memory) */
    GS_SUBNORMAL = 1u << 5,    /* subnormal double literals, 4.9e-324 */
    GS_FSUFFIX = 1u << 6,      /* literals with the f suffix, 1.5f */
    GS_UNUSED = 1u << 7,       /* unused scalars and inputs, inouts never assigned */
    GS_STENCIL_NAMES = 1u << 8 /* stencil names from the C names, filtered by
                                  check_stencil_name_conflict() when compiler/check.h has it */
};

/* What runs by default; GS_ALL is every class. */
#define GS_DEFAULT_FLAGS GS_ALL_FLAGS
#define GS_ALL_FLAGS 0x1ffu

/* Parse "all", "none", "default" or a comma list of class names, each optionally prefixed with
 * + or - (applied to GS_DEFAULT_FLAGS): "+cnames,-unused". Returns -1 on an unknown name. */
long gs_parse_flags(const char *text);
/* "cnames,logic,..." for `flags` (static buffer). */
const char *gs_flags_text(unsigned flags);

typedef enum gs_field_kind { GS_INPUT = 1, GS_OUTPUT, GS_INOUT } gs_field_kind;
typedef enum gs_reduce_op { GS_SUM = 1, GS_MAX, GS_MIN } gs_reduce_op;

#define GS_MAX_FIELDS 8
#define GS_MAX_SCALARS 4
#define GS_MAX_REDUCES 12
#define GS_MAX_LETS 64
#define GS_NAME 256

typedef struct gs_stencil gs_stencil; /* opaque: the tree */

/* What a test needs to know to call the launcher and to lay out fields. Fields are listed in
 * declaration order (the launcher's order); scalars likewise. */
typedef struct gs_info {
    const char *name;
    int dims;     /* 1..3 */
    int is_float; /* 1: float, 0: double */
    int nscalars;
    int nfields;
    gs_field_kind kind[GS_MAX_FIELDS];
    const char *field_name[GS_MAX_FIELDS];
    int nreduces;
    gs_reduce_op reduce_op[GS_MAX_REDUCES];
    int ncolors; /* 0 without a colour */
    int radius;  /* largest |offset| read (the stencil's NAME_HALO) */
} gs_info;

/* Generate the stencil of `seed` named `name` (NULL: "rs_<seed>"). Never fails. */
gs_stencil *gs_generate(uint64_t seed, unsigned flags, const char *name);
void gs_free(gs_stencil *st);
/* The C, C++, CUDA and libc names the generator draws from (for stencil names). */
int gs_c_name_count(void);
const char *gs_c_name(int index);
const gs_info *gs_get_info(const gs_stencil *st);
/* The .stencil text (owned by st). */
const char *gs_text(const gs_stencil *st);

/* A field's values, interior and halo: the point (i, j, k) of the interior, i in -h..n0+h-1
 * (j and k likewise in used dimensions, 0 otherwise) is data[(i+h) + w0*((j+hj) + w1*(k+hk))]
 * with w0 = n0+2h, w1 = n1+2hj, hj = dims>=2 ? h : 0, hk = dims>=3 ? h : 0. */
typedef struct gs_field {
    int halo;
    double *data;
    unsigned char *loose; /* optional, same layout: set to 1 where the point's value went through
                             a min or max of +0 and -0, whose sign C leaves open (0 elsewhere) */
} gs_field;

size_t gs_field_points(const gs_info *info, const long n[3], int halo);
size_t gs_field_index(const gs_info *info, const long n[3], int halo, long i, long j, long k);
/* The colour of interior point (i, j, k) (0 without a colour). */
int gs_color_at(const gs_stencil *st, long i, long j, long k);

/* One launch of colour `color` (0 without a colour) on interior extents n: updates the
 * outputs and inouts of `fields` (info order) in place at the points of that colour, from the
 * values before the launch, and stores each reduction's result in red[]. Sums are compensated
 * in long double (an error near n * 2^-128 of the sum of magnitudes: exact for the test's
 * purpose); red_abs[] gets each sum's error scale, the number of terms times the sum of their
 * magnitudes, which bounds a compensated double sum's error with 2^-106 (docs/language.md).
 * Scalars are given as the launcher receives them (double). */
void gs_eval_launch(const gs_stencil *st, const long n[3], int color, const double *scalars,
                    gs_field *fields, double *red, double *red_abs);

#endif /* STENC_FUZZ_GEN_STENCIL_H */
