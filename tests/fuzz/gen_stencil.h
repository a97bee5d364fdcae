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
    GS_CNAMES = 1u << 0,        /* names from C, C++, CUDA, libc and generated code */
    GS_LOGIC_ARITH = 1u << 1,   /* comparisons and logic as arithmetic operands and function
                                   arguments: (a<b)*c, sqrt(x > 0) */
    GS_BOOL_MUL = 1u << 2,      /* a product in a boolean context: !(a*x), if (a*x) */
    GS_WIDE_LIT = 1u << 3,      /* float stencils: literals at the ends of the float range */
    GS_RADIUS8_3D = 1u << 4,    /* radius beyond 4 in 3-D stencils (CUDA shared memory) */
    GS_SUBNORMAL = 1u << 5,     /* subnormal double literals, 4.9e-324 */
    GS_FSUFFIX = 1u << 6,       /* literals with the f suffix, 1.5f */
    GS_UNUSED = 1u << 7,        /* unused scalars and inputs, inouts never assigned */
    GS_STENCIL_NAMES = 1u << 8, /* stencil names from the C names, filtered by
                                   check_stencil_name_conflict() when compiler/check.h has it */
    GS_LOWDIM = 1u << 9,        /* inputs spanning some dimensions: input dx[i], a[i,k] */
    GS_STAGGER = 1u << 10,      /* staggered arrays: output fx[i+1, j], input dxf[i-1] */
    GS_INT_INPUT = 1u << 11,    /* integer inputs: input int32 mat, input uint8 mask */
    GS_SOLVE = 1u << 12,        /* line solves: solve v along j { lower = ...; ... } */
    GS_ORDER = 1u << 13         /* ordered sweeps: order forward|backward; inouts read anywhere */
};

/* What runs by default; GS_ALL is every class. */
#define GS_DEFAULT_FLAGS GS_ALL_FLAGS
#define GS_ALL_FLAGS 0x3fffu

/* Parse "all", "none", "default" or a comma list of class names, each optionally prefixed with
 * + or - (applied to GS_DEFAULT_FLAGS): "+cnames,-unused". Returns -1 on an unknown name. */
long gs_parse_flags(const char *text);
/* "cnames,logic,..." for `flags` (static buffer). */
const char *gs_flags_text(unsigned flags);

typedef enum gs_field_kind { GS_INPUT = 1, GS_OUTPUT, GS_INOUT } gs_field_kind;
typedef enum gs_reduce_op { GS_SUM = 1, GS_MAX, GS_MIN } gs_reduce_op;
/* What an array holds: the stencil's type, or integers (inputs only). */
typedef enum gs_elem { GS_REAL = 0, GS_I32, GS_U8 } gs_elem;

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
    /* Per field: the stencil dimensions it spans (bit d; 0: all of them), its extent against
     * the reference grid along each stencil dimension (0 where it does not span), what it
     * holds, and the halo its reads need (the largest of below and above over its dimensions,
     * docs/language.md "Staggered arrays"; 0 for outputs). */
    unsigned axes[GS_MAX_FIELDS];
    int stagger[GS_MAX_FIELDS][3];
    gs_elem elem[GS_MAX_FIELDS];
    int halo_need[GS_MAX_FIELDS];
    int launch_stagger[3]; /* the written arrays' stagger: the launch runs over n + this */
    long min_extent[3];    /* the least reference extents at which every array has a point */
    /* A line solve (docs/language.md): 1 + its direction (1: i, 2: j, 3: k), 0 without. Its
     * array is the only output; its halo must be at least 1 and finite. */
    int solve;
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

/* Field f of a launch on the reference grid n: its own number of dimensions (those it spans)
 * and its extents along them, in order (1 beyond). */
int gs_field_shape(const gs_info *info, int f, const long n[3], long ext[3]);

/* A field's values, interior and halo, in its own dimensions (gs_field_shape): its point
 * (a, b, c), a in -h..e0+h-1 (b and c likewise in its used dimensions, 0 otherwise), is
 * data[(a+h) + w0*((b+hb) + w1*(c+hc))] with w0 = e0+2h, w1 = e1+2hb, hb = fdims>=2 ? h : 0,
 * hc = fdims>=3 ? h : 0. Integer inputs hold whole numbers. */
typedef struct gs_field {
    int halo;
    double *data;
    unsigned char *loose; /* optional, same layout: set to 1 where the point's value went through
                             a min or max of +0 and -0, whose sign C leaves open (0 elsewhere) */
    double *tol; /* optional, same layout: where positive, the value is a line solve's and any
                    within tol of it is right (0 elsewhere: bitwise) */
} gs_field;

size_t gs_field_points(const gs_info *info, int f, const long n[3], int halo);
size_t gs_field_index(const gs_info *info, int f, const long n[3], int halo, long a, long b,
                      long c);
/* The colour of launch point (i, j, k) (0 without a colour). */
int gs_color_at(const gs_stencil *st, long i, long j, long k);

/* One launch of colour `color` (0 without a colour) on the reference grid n (the launch runs
 * over n + launch_stagger, and so do i, j, k and ni, nj, nk): updates the
 * outputs and inouts of `fields` (info order) in place at the points of that colour, from the
 * values before the launch, and stores each reduction's result in red[]. Sums are compensated
 * in long double (an error near n * 2^-128 of the sum of magnitudes: exact for the test's
 * purpose); red_abs[] gets each sum's error scale, the number of terms times the sum of their
 * magnitudes, which bounds a compensated double sum's error with 2^-106 (docs/language.md).
 * Scalars are given as the launcher receives them (double). */
void gs_eval_launch(const gs_stencil *st, const long n[3], int color, const double *scalars,
                    gs_field *fields, double *red, double *red_abs);

#endif /* STENC_FUZZ_GEN_STENCIL_H */
