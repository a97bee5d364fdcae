/* stenc reftest: comparing a generated kernel with a reference written by hand.
 *
 * Two layers. The comparison core (ULP distances, tolerances, the comparison of two fields)
 * serves any test. The harness runs one case: a stencil's generated launcher and the user's
 * reference function on the same random data, every point of every array compared, both
 * timed. stenc_add_reference_test() (cmake/StencReferenceTest.cmake) builds a test program
 * around it that loops over sizes, targets and CUDA variants and prints a table; see
 * docs/reference-tests.md.
 */
#ifndef STENC_REFTEST_H
#define STENC_REFTEST_H

#include <stddef.h>
#include <stdint.h>

#include "stenc/core.h"
#include "stenc/field.h"
#include "stenc/launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the comparison core -------------------------------------------------------------------- */

/* Units in the last place between a and b: how many steps of nextafter() lead from one to the
 * other. 0 when they are equal (+0 and -0 included), 1 for neighbours; the largest finite
 * value and infinity are neighbours, and so are the smallest subnormals of either sign and
 * zero. 0 when both are NaN, UINT64_MAX when only one is. */
uint64_t stenc_ulp_distance_f32(float a, float b);
uint64_t stenc_ulp_distance_f64(double a, double b);

/* Bits of stenc_tolerance.use. */
#define STENC_TOL_ABS 1u
#define STENC_TOL_REL 2u
#define STENC_TOL_ULP 4u

/* When a computed value matches the expected one. With no bit in `use` (a zeroed struct) the
 * match is bitwise: the same value with the same sign, so -0 differs from +0. Otherwise a value
 * matches when it is equal (+0 == -0) or meets at least one of the tolerances in `use`. In
 * both modes a NaN matches any NaN and nothing else, and an infinity only itself. */
typedef struct stenc_tolerance {
    unsigned use; /* STENC_TOL_* bits; 0: bitwise */
    double abs;   /* |got - want| <= abs */
    double rel;   /* |got - want| <= rel * |want| */
    uint64_t ulp; /* stenc_ulp_distance_*(got, want) <= ulp, in the type compared */
} stenc_tolerance;

/* The error of one value. */
typedef struct stenc_value_error {
    double abs;   /* |got - want|; infinity for a NaN against a number */
    double rel;   /* abs / |want|; 0 when both are zero, infinity when only want is */
    uint64_t ulp; /* in the type compared; UINT64_MAX for a NaN against a number */
} stenc_value_error;

/* The error of `got` against `want`, both values of `type` (STENC_F32: floats held in a
 * double; anything else is taken as double). Two NaNs and two equal infinities have no error. */
stenc_value_error stenc_value_error_of(stenc_type type, double got, double want);

/* 1 when `got` matches `want` under `tol` (see stenc_tolerance), else 0. */
int stenc_tolerance_match(const stenc_tolerance *tol, stenc_type type, double got, double want);

/* STENC_OK when `tol` is usable: known bits, abs and rel not negative and not NaN. Else
 * STENC_ERR_INVALID_ARGUMENT naming `what`. */
stenc_status stenc_tolerance_check(const stenc_tolerance *tol, const char *what);

/* What a comparison of two fields found. */
typedef struct stenc_compare_stats {
    size_t points;         /* values compared */
    size_t mismatches;     /* values that do not match */
    stenc_value_error max; /* the largest errors over all values, each on its own */
    /* The first mismatch in memory order (k, then j, then i), when mismatches > 0. */
    long first[3];               /* its point; unused dimensions 0 */
    double got, want;            /* its values */
    stenc_value_error first_err; /* its error */
} stenc_compare_stats;

/* Compare every point of two host fields of the same type, dims, extents and halo, the halo
 * included (a kernel that writes an output's halo is caught): `got` against `want` under
 * `tol`. Halo points have indices below 0 or at n and above. Fails with
 * STENC_ERR_INVALID_ARGUMENT (NULL, bad tolerance), STENC_ERR_SHAPE (layouts differ) or
 * STENC_ERR_LOCATION (a field on the device); *stats is written only on success. */
stenc_status stenc_compare_fields(const stenc_field *got, const stenc_field *want,
                                  const stenc_tolerance *tol, stenc_compare_stats *stats);

/* ---- the reference function ----------------------------------------------------------------- */

/* One array argument, as the reference sees it. */
typedef struct stenc_reftest_array {
    const char *name;    /* as declared in the .stencil file */
    stenc_arg_kind kind; /* STENC_ARG_INPUT, STENC_ARG_OUTPUT or STENC_ARG_INOUT */
    void *origin;        /* interior element (0,0,0): float * or double * (the call's type) */
} stenc_reftest_array;

/* Everything a reference function receives: one launch of the stencil, on the host.
 *
 * Element (i, j, k) of array a is ((T *)arrays[a].origin)[i + j*stride[1] + k*stride[2]],
 * 0 <= i < n[0] and so on; every array has this layout, halo included (indices from -halo to
 * n-1+halo in each used dimension). Inputs hold random values everywhere, halo included;
 * outputs and inouts hold random values too, the same as the generated kernel's. The
 * reference writes the interior points of the outputs and inouts (of colour `color` only, in
 * a coloured stencil) and the reductions, and nothing else. */
typedef struct stenc_reftest_call {
    const char *stencil; /* the stencil's name */
    int dims;            /* 1, 2 or 3 */
    stenc_type type;     /* STENC_F32 or STENC_F64: the element type of every array */
    ptrdiff_t n[3];      /* interior extents; 1 in unused dimensions */
    ptrdiff_t stride[3]; /* in elements, shared by every array; stride[0] == 1 */
    int halo;            /* ghost layers of every array: at least what the stencil reads */
    int color;           /* the colour to update, 0..ncolors-1; 0 when not coloured */
    int ncolors;         /* 0 when the stencil has no `color` */
    int nscalars;
    const double *scalars; /* in declaration order, as double: convert as the launcher does */
    int narrays;
    const stenc_reftest_array *arrays; /* the launcher's field arguments, in its order */
    int nresults;
    double *results; /* the reductions in source order; NaN until the reference writes them */
} stenc_reftest_call;

/* A reference: computes the launch described by `call`. Returns STENC_OK, or a status that
 * fails the test (set a message with stenc_set_error()). */
typedef stenc_status (*stenc_reftest_fn)(const stenc_reftest_call *call);

/* ---- the stencil under test ----------------------------------------------------------------- */

/* One launch of the generated code: NAME_variant() with the arguments in arrays. `color` is
 * ignored by stencils without colours, `results` (one double per reduction) by stencils
 * without reductions. */
typedef stenc_status (*stenc_reftest_launch_fn)(stenc_ctx *ctx, const char *variant, int color,
                                                const double *scalars, stenc_field *const *fields,
                                                double *results);

/* A generated stencil as the harness drives it. stenc_add_reference_test() writes this table
 * from the generated header. */
typedef struct stenc_reftest_stencil {
    const char *name;
    int dims;
    stenc_type type;
    int halo;    /* NAME_HALO */
    int ncolors; /* 0 when not coloured */
    int nscalars;
    const char *const *scalar_names;
    int narrays;
    const stenc_launch_arg *arrays; /* name and kind of each field argument (halo unused) */
    int nresults;
    const char *const *result_names;
    stenc_reftest_launch_fn launch;
    const char *(*variant_name)(int index); /* NAME_variant_name */
} stenc_reftest_stencil;

/* How a case is run and judged. */
typedef struct stenc_reftest_options {
    stenc_tolerance tolerance;        /* arrays; default bitwise */
    stenc_tolerance reduce_tolerance; /* reductions; default bitwise */
    double lo, hi;                    /* random values in [lo, hi); default [-1, 1) */
    const double *scalars;            /* one per scalar; NULL (default): random in [lo, hi) */
    uint64_t seed;                    /* default 1 */
    int warmup, repeat;               /* timed runs: `repeat` after `warmup`; default 1, 5 */
} stenc_reftest_options;

/* The defaults above. */
void stenc_reftest_options_init(stenc_reftest_options *opt);

/* Where and how the first mismatch of a case showed. */
typedef struct stenc_reftest_mismatch {
    const char *what;      /* the array or reduction */
    int is_result;         /* 1 for a reduction */
    int color;             /* the launch's colour; -1 when not coloured */
    long point[3];         /* arrays: the point (unused dimensions 0) */
    double got, want;      /* got: the generated kernel; want: the reference */
    stenc_value_error err; /* its error */
} stenc_reftest_mismatch;

/* The outcome of one case. */
typedef struct stenc_reftest_result {
    int passed;                   /* no mismatch */
    size_t points;                /* array values compared, over every launch */
    size_t mismatches;            /* in the launch that showed the first (the last compared) */
    stenc_value_error max;        /* the largest errors over the arrays */
    stenc_value_error max_result; /* the same over the reductions */
    stenc_reftest_mismatch first; /* when !passed */
    double gen_ms, ref_ms;        /* medians of the timed runs (one launch per colour each) */
} stenc_reftest_result;

/* Run one case of stencil `s` with interior `n` (1 in unused dimensions): every array is
 * created with halo s->halo and filled with the same random values for both sides, on `ctx`
 * for the generated kernel (uploaded to the device on a CUDA context) and on the host for the
 * reference. Then, for each colour in turn (once when not coloured), the launcher runs with
 * `variant` (NULL: the automatic choice; "c" or NULL on the host) and the reference with the
 * same arguments, and every point of every array (halo included) and every reduction is
 * compared; the case stops at the first launch that shows a mismatch, since the two sides
 * have parted. Last, both are timed. Returns STENC_OK when the case ran, whether or not it
 * passed (result->passed says); a failing launcher, reference or allocation returns its
 * status and message. */
stenc_status stenc_reftest_run(const stenc_reftest_stencil *s, stenc_reftest_fn reference,
                               const stenc_reftest_options *opt, stenc_ctx *ctx,
                               const char *variant, const size_t n[3],
                               stenc_reftest_result *result);

#ifdef __cplusplus
}
#endif

#endif /* STENC_REFTEST_H */
