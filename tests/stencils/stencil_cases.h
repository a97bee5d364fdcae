/* One description per stencil in stencils/: precision, dims, halo, fields, scalars, how to
 * fill its inputs with meaningful random data, and how to run the hand-written reference and
 * (when built) the generated launcher on an array of fields. Shared by the generated-vs-
 * reference tests, the CPU benchmark and (later) the GPU tests, so a stencil is described once.
 *
 * Fields are passed as one array: inputs first, then outputs, in declaration order. */
#ifndef STENC_TEST_STENCIL_CASES_H
#define STENC_TEST_STENCIL_CASES_H

#include <stdint.h>

#include "stenc/stenc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STENCIL_CASE_MAX_FIELDS 29
#define STENCIL_CASE_MAX_SCALARS 4

typedef stenc_status (*stencil_run_fn)(stenc_ctx *ctx, const double *scalars,
                                       stenc_field *const *fields);

typedef struct stencil_case {
    const char *name;
    stenc_type type;
    int dims;
    int halo; /* ghost layers the inputs need */
    int nscalars, ninputs, noutputs;
    const char *scalar_names[STENCIL_CASE_MAX_SCALARS];
    const char *field_names[STENCIL_CASE_MAX_FIELDS]; /* inputs, then outputs */
    double scalars[STENCIL_CASE_MAX_SCALARS];         /* values for tests and benchmarks */
    /* Random inputs in the stencil's domain (0/1 cells, positive density, ...), halo included. */
    void (*randomize)(stenc_field *const *inputs, int ninputs, uint64_t seed);
    stencil_run_fn reference;
    stencil_run_fn generated; /* NULL when the generated kernels are not built */
} stencil_case;

/* The cases, in a fixed order; *count receives their number. `generated` is filled in when
 * the test or benchmark links stencil_cases_generated.c (it defines the hook below). */
const stencil_case *stencil_cases(int *count);
const stencil_case *stencil_case_find(const char *name);

/* Provided by stencil_cases_generated.c when stenc_stencils is built, else NULL. */
stencil_run_fn stencil_generated_runner(const char *name);

/* Create the fields of `c` on ctx with interior n[3] and `halo` layers (outputs too). */
stenc_status stencil_case_create(stenc_ctx *ctx, const stencil_case *c, const size_t n[3], int halo,
                                 stenc_field **fields);
void stencil_case_free(const stencil_case *c, stenc_field **fields);

/* Uniform random values over the whole box (interior and halo) of a host field. */
void stencil_fill_uniform(stenc_field *field, uint64_t seed, double lo, double hi);

/* Compare the interior of `got` with `want` (same type and shape, on the host): a point
 * matches when neither is NaN and they are at most max_ulps apart. Returns the number of
 * mismatches and describes the first in msg. */
/* heat3d's `step y -> x` done by hand, the reference of heat3d_steps: nsteps times, fill the
 * current field's halo by bc, apply ref_heat3d into the other, and exchange the test's own
 * pointers. Returns the field holding the last step (x or y), NULL after a failure. Host
 * fields. */
stenc_field *stencil_heat3d_steps_reference(double a, double b, const stenc_bc bc[6],
                                            stenc_field *x, stenc_field *y, int nsteps);

size_t stencil_compare_interior(const stenc_field *got, const stenc_field *want, uint64_t max_ulps,
                                char *msg, size_t msg_size);

/* Number of halo points (not interior) of `field` that are not NaN: an output's halo is
 * poisoned with NaN before a run and must stay so. */
size_t stencil_count_written_halo(const stenc_field *field);

#ifdef __cplusplus
}
#endif

#endif /* STENC_TEST_STENCIL_CASES_H */
