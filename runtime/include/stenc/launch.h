/* stenc launch: what generated launchers share. A generated launcher describes its stencil
 * in a constant table (stenc_launch_desc) and calls stenc_launch_check() once; that one
 * function checks every argument and hands back, per field, the pointer and strides the
 * kernel indexes with. Users call the generated launchers, not these functions. */
#ifndef STENC_LAUNCH_H
#define STENC_LAUNCH_H

#include <math.h>
#include <stddef.h>

#include "stenc/accum.h"
#include "stenc/core.h"
#include "stenc/field.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernels that stenc_compiler can generate for a stencil (bits of stenc_launch_desc.targets). */
#define STENC_TARGET_C 1u
#define STENC_TARGET_CUDA 2u
#define STENC_TARGET_OPENCL 4u

/* Most field arguments one stencil may take. */
#define STENC_LAUNCH_MAX_FIELDS 256

/* An inout is read at offsets (it needs its halo) and written in place (it may alias nothing). */
typedef enum stenc_arg_kind {
    STENC_ARG_INPUT = 0,
    STENC_ARG_OUTPUT,
    STENC_ARG_INOUT
} stenc_arg_kind;

/* One field argument of a stencil, in the launcher's order. */
typedef struct stenc_launch_arg {
    const char *name; /* as declared in the .stencil file */
    stenc_arg_kind kind;
    int halo;                /* ghost layers the stencil reads beyond the interior (inputs) */
    const char *widest_read; /* a read that needs all of `halo`, as written: "x[-1,0,0]" */
    /* The stencil dimensions a lower-dimensional input spans (`input dx[i];`): bit d for
     * dimension d. 0: all of them. Such a field has as many dimensions as bits, in order. */
    unsigned axes;
    /* 0: the field holds the stencil's float or double; STENC_I32 or STENC_U8: an integer
     * input (`input int32 mat;`), whose field holds that type. */
    int int_type;
    /* A staggered array (`output fx[i+1, j];`): its extent against the launch's reference
     * grid along each stencil dimension (0 where it does not span). The written arrays share
     * one, the extent the launch runs over. */
    int stagger[3];
} stenc_launch_arg;

/* A stencil, as its launcher checks its arguments. */
typedef struct stenc_launch_desc {
    const char *name; /* the stencil's name */
    int dims;         /* 1, 2 or 3 */
    stenc_type type;  /* STENC_F32 or STENC_F64: the precision it was generated for */
    unsigned targets; /* STENC_TARGET_* bits: the kernels generated */
    int nargs;
    const stenc_launch_arg *args;
} stenc_launch_desc;

/* What a kernel needs of one field. */
typedef struct stenc_launch_field {
    void *origin;        /* interior element (0,0,0), on the host or the device */
    ptrdiff_t stride[3]; /* in elements; stride[0] == 1 */
} stenc_launch_field;

/* Where and over what the kernel runs. */
typedef struct stenc_launch_shape {
    stenc_location location; /* where every field lives */
    size_t n[3];             /* interior extents shared by all fields; 1 in unused dimensions */
    /* Global index of the first field's interior point (0,0,0): nonzero for a part of a
     * distributed field (stenc/dist.h) or a view (stenc_field_view). */
    size_t index_offset[3];
} stenc_launch_shape;

/* Check a launch of `desc` on `ctx` with fields[0..desc->nargs) (in desc->args order) and fill
 * out[] and *shape. Fails, with a message naming the stencil and the field, when: ctx or a
 * field is NULL, destroyed already, or belongs to another context
 * (STENC_ERR_INVALID_ARGUMENT); a field's dims or
 * type differ from the stencil's, the interiors differ, or an input's halo is narrower than
 * the stencil reads (STENC_ERR_SHAPE); a lower-dimensional input (axes) has another number of
 * dimensions than it spans, or extents other than the interior's along them (STENC_ERR_SHAPE),
 * or the launch is on distributed fields (STENC_ERR_UNSUPPORTED); the interior is the first
 * field's that spans every dimension, and out[].stride of a lower-dimensional input is 0 in
 * the dimensions it does not span; an output is also an input or another output
 * (STENC_ERR_INVALID_ARGUMENT); the fields do not all live in one place, or they live on the
 * device and no kernel was generated for the context's device, CUDA or OpenCL
 * (STENC_ERR_LOCATION). Writes nothing on failure. */
stenc_status stenc_launch_check(const stenc_launch_desc *desc, const stenc_ctx *ctx,
                                const stenc_field *const fields[], stenc_launch_field out[],
                                stenc_launch_shape *shape);

/* A coloured stencil's colouring (docs/language.md, "color"): colour of global point
 * (i, j, k) = table[(i % period[0]) + period[0] * ((j % period[1]) + period[1] * (k % period[2]))].
 */
typedef struct stenc_launch_colors {
    int ncolors;
    int period[3];
    const unsigned char *table;
} stenc_launch_colors;

/* The colour that kernels, which index the table from the fields' point (0,0,0), must be
 * given so that the launch updates the points whose *global* colour is `color`, for fields
 * starting at shape->index_offset. The table shifted by that offset must be the table with
 * its colours renamed (true of every colouring of the form sum of c_d * (index_d % m_d), such
 * as red-black and 8 colours); otherwise STENC_ERR_UNSUPPORTED, naming the offset. */
stenc_status stenc_launch_color(const char *stencil, const stenc_launch_colors *colors,
                                const stenc_launch_shape *shape, int color, int *local_color);

/* For stencils with `reduce`, on fields distributed over MPI ranks (stenc/dist.h): the
 * reductions are global, and bitwise the same whatever the number of ranks. prepare gives the
 * kernel *terms, nreduces zeroed arrays of shape->n points each where the fields live, into
 * which it stores each point's `reduce sum` values (at i + ni * (j + nj * k)) as well as
 * accumulating; finish sums them exactly (rounded once) over every rank and combines the
 * kernel's max and min, then frees terms. Both are collective; finish takes the kernel's
 * status, so that a rank whose kernel failed fails everywhere. For fields of one process
 * prepare sets *terms to NULL and finish is not called. A launch on views of distributed
 * fields (stenc_dist_overlap's) is STENC_ERR_UNSUPPORTED: the global result needs the whole
 * part. ops: one character per reduction in source order, 's' sum, 'x' max, 'n' min. */
/* For a stepping launcher (`step OUT -> IN;`): STENC_ERR_SHAPE when some fields are
 * distributed over MPI ranks and another is not split like them (the steps exchange IN's
 * halo: stenc_launch_steps_blocked). */
stenc_status stenc_launch_steps_check(const stenc_launch_desc *desc,
                                      const stenc_field *const fields[]);

/* ---- stepping launchers: temporal blocking on the host -------------------------------------- */
/* A stepping launcher's host kernel: one sweep over shape with the fields' views, the scalars
 * in declaration order as double (NULL when the stencil has none). */
typedef void (*stenc_launch_step_kernel)(const stenc_launch_shape *shape,
                                         const stenc_launch_field *views, const double *scalars);

/* A CUDA kernel that makes `degree` steps in one trip through memory (temporal blocking on the
 * device, docs/cuda.md "Temporal blocking"): from views[in] (step g, interior only: its halo is
 * never read) it writes the interior of views[out] (step g + degree) and the halo, `halo`
 * layers deep, of views[in] as stenc_field_fill_halo would fill it from step g + degree - 1.
 * Every used face of bc is DIRICHLET or NEUMANN. Launched on the context's stream. */
typedef stenc_status (*stenc_launch_tstep_run)(stenc_ctx *ctx, const stenc_launch_shape *shape,
                                               const stenc_launch_field *views,
                                               const double *scalars,
                                               const stenc_bc bc[STENC_FACE_COUNT], int halo);

typedef struct stenc_launch_tstep_variant {
    const char *name; /* "tstep_t4_32x32": the degree and the threads of a block */
    int degree;
    stenc_launch_tstep_run run;
} stenc_launch_tstep_variant;

/* A stepping stencil's temporally blocked CUDA kernels; the first is the default. */
typedef struct stenc_launch_tsteps {
    int count;
    const stenc_launch_tstep_variant *list;
    /* Untuned and unasked (no STENC_STEPS_BLOCK, STENC_STEPS_KERNEL or tune cache entry):
     * 1 blocks with the first kernel, 0 makes the plain steps (the kernels were measured slower
     * than them: docs/cuda.md). */
    int automatic;
    /* The stencil's single-step kernels: the plain steps the tuner times against, and the
     * digest of the generated file (the tune cache key). */
    const struct stenc_launch_variants *plain;
} stenc_launch_tsteps;

/* What stenc_launch_steps_blocked needs of a stencil with `step OUT -> IN;`. */
typedef struct stenc_launch_stepper {
    int in, out; /* indices in desc->args of IN and OUT */
    stenc_launch_step_kernel kernel;
    int blockable; /* 0: the body reads the slowest dimension's index (a slab would shift it) */
    /* The CUDA kernels that make several steps per trip; NULL when none were generated (no cuda
     * target, or a body the device blocking does not take: docs/cuda.md). */
    const stenc_launch_tsteps *cuda;
    /* The single-step CUDA kernels (NULL without the cuda target), and whether the body reads
     * no index: steps on distributed fields launch them over boxes grown into the halo. */
    const struct stenc_launch_variants *cuda_variants;
    int index_free;
} stenc_launch_stepper;

/* Make the first *made of nsteps steps of NAME_steps (fill in's halo by bc, sweep, swap in and
 * out) several per trip through memory; the launcher makes the rest one at a time. On the host
 * (docs/runtime.md, "Temporal blocking") a wavefront along the slowest dimension makes all of
 * them (*made = nsteps); on a CUDA device (docs/cuda.md, "Temporal blocking") stepper->cuda's
 * kernels make all but the last, and the last plain step leaves both fields as the plain steps
 * would; on fields distributed over MPI ranks (collective) it makes them all, exchanging IN's
 * halo once per step, or once per H / R steps with a halo of H >= 2R (docs/distributed.md,
 * "Stepping"). Either way the fields end bit for bit as after the steps made one by one
 * (with exchanges where distributed), halos included. *made is 0, and nothing is changed, when these steps are not blocked (1-D, fewer
 * than 2 steps (3 on a device), an inout, views, a periodic or unknown face of the slowest
 * dimension on the host, a face other than Dirichlet or Neumann on the device, a degree of 1,
 * ...). The degree is STENC_STEPS_BLOCK when set (a number 1..64, or `auto`; on a device the
 * largest kernel degree up to it), else chosen from the size of a plane on the host; on a device
 * STENC_STEPS_KERNEL names a kernel, else the tune cache or the tuner (stenc/tune.h) chooses,
 * else stepper->cuda->automatic says; any other value of STENC_STEPS_BLOCK, or a name of no
 * kernel, is STENC_ERR_INVALID_ARGUMENT.
 * Fails like stenc_field_fill_halo (a Dirichlet value the type cannot hold), before writing
 * anything. fields[] as for stenc_launch_check; in and out are fields[stepper->in] and
 * fields[stepper->out]. */
stenc_status stenc_launch_steps_blocked(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                        const stenc_launch_stepper *stepper,
                                        const stenc_field *const fields[], stenc_field *in,
                                        stenc_field *out, const double *scalars, long nsteps,
                                        const stenc_bc bc[STENC_FACE_COUNT], long *made);

/* The degree (steps per trip) of the last stepping launch made on this thread: 1 when it made
 * its steps one at a time, 0 before any. For tests and benchmarks. */
int stenc_launch_steps_last_degree(void);

/* For an ordered sweep (`order forward|backward;`): STENC_ERR_UNSUPPORTED on distributed fields
 * (each part would need its neighbours' updated values first). */
stenc_status stenc_launch_ordered_check(const stenc_launch_desc *desc,
                                        const stenc_field *const fields[],
                                        const stenc_launch_shape *shape);

stenc_status stenc_launch_reduce_prepare(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                         const stenc_field *const fields[],
                                         const stenc_launch_shape *shape, int nreduces,
                                         double **terms);
stenc_status stenc_launch_reduce_finish(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                        const stenc_field *const fields[],
                                        const stenc_launch_shape *shape, const char *ops,
                                        stenc_status kernel, double *terms, double *results);

/* ---- line solves ---------------------------------------------------------------------------- */
/* `solve v along i { lower = E; diag = E; upper = E; rhs = E; }`: along every line of v in one
 * direction, lower*v[p-1] + diag*v[p] + upper*v[p+1] = rhs at each interior point p, where v's
 * halo holds the lines' boundary values (Dirichlet). The launcher calls stenc_launch_check,
 * then stenc_launch_solve_begin, which hands out four scratch arrays laid out exactly like v
 * (coef[], indexed like a field: origin + i + j*stride[1] + k*stride[2]); its kernel writes
 * the interior points of coef[STENC_SOLVE_RHS] and of each non-uniform coefficient; then
 * stenc_launch_solve_end solves every line into v (batched, stenc/tridiag.h). Runs where the
 * fields live: on the host (the CPU's Thomas solver, whatever the context), on a CUDA device,
 * on the context's stream, or on an OpenCL device (a Thomas kernel of its own, one work item
 * per interior line, on the context's queue). The scratch is the context's, kept between
 * launches. */

/* Coefficient slots of a line solve (indices of coef[] and bits of uniform). */
#define STENC_SOLVE_LOWER 0
#define STENC_SOLVE_DIAG 1
#define STENC_SOLVE_UPPER 2
#define STENC_SOLVE_RHS 3

/* What a launcher solves for. */
typedef struct stenc_launch_solve {
    int dim; /* the lines' direction: 0 (i), 1 (j) or 2 (k), < desc->dims */
    int arg; /* index in desc->args of the solved array (written: output or inout; stagger 0) */
    /* Bit (1u << q) for q = LOWER, DIAG, UPPER: coefficient q is the same at every interior
     * point, values[q], and the kernel does not write it. */
    unsigned uniform;
} stenc_launch_solve;

/* Prepare a line solve of fields[solve->arg] (v) and set coef[q] (q = LOWER, DIAG, UPPER, RHS)
 * to arrays with v's layout: origin at the interior point (0,0,0), v's strides. A uniform
 * coefficient's array already holds (type)values[q] (values may be NULL when uniform is 0);
 * arrays for the same values and shape are kept and reused across launches. With an empty
 * interior (a shape->n of 0) the origins are NULL and the launch does nothing. Fails, naming
 * the stencil and v, with STENC_ERR_UNSUPPORTED when v is distributed over MPI ranks or is a
 * view (stenc_field_view), or while ctx records a graph (the solve waits for its singular
 * check); STENC_ERR_SHAPE when v's halo is 0 (it holds the boundary values);
 * STENC_ERR_INVALID_ARGUMENT for a NULL pointer, a bad dim, arg or uniform, or a stencil
 * type other than float and double; STENC_ERR_OUT_OF_MEMORY for the scratch. Writes nothing
 * to coef on failure. */
stenc_status stenc_launch_solve_begin(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                      const stenc_launch_solve *solve,
                                      const stenc_field *const fields[],
                                      const stenc_launch_shape *shape, const double values[3],
                                      stenc_launch_field coef[4]);

/* After the kernel: solve every line of v's allocation into v, with the identity equation
 * (lower 0, diag 1, upper 0, rhs v's value, 0 in row padding) at every non-interior position
 * (put into the arrays, or on CUDA into the transposed lines the solver takes; the kernel's
 * writes outside the interior are never read), with the same arguments as
 * stenc_launch_solve_begin (STENC_ERR_INVALID_ARGUMENT without a matching begin on ctx). v's
 * halo is unchanged, bit for bit; its row padding may be written. Lines run over v's whole
 * allocation, so all of v's halo must be finite: a line whose system meets a zero pivot or a
 * non-finite value (coefficient or halo value) is STENC_ERR_SINGULAR, naming the line by its
 * interior coordinates (negative or past the extent for a line of the halo); v's interior is
 * then undefined and its halo still unchanged. On the device the call waits for the solve.
 * On OpenCL no identity equations are written (the kernel reads only the interior and the two
 * boundary values of each interior line, which must then be finite); a double solve on a
 * device without cl_khr_fp64 is STENC_ERR_UNSUPPORTED. */
stenc_status stenc_launch_solve_end(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                    const stenc_launch_solve *solve,
                                    const stenc_field *const fields[],
                                    const stenc_launch_shape *shape);

/* ---- CUDA variants ------------------------------------------------------------------------ */
/* The cuda target generates several kernels per stencil (strategy, block shape, points per
 * thread); each is a variant with a name and a run function. The launcher picks one with
 * stenc_launch_select(). See docs/cuda.md. */

/* What a launch does beyond its fields and scalars: the colour it updates (coloured stencils;
 * 0 otherwise) and where the reductions' values go (results[r] in source order, on the host;
 * NULL when the stencil has no reduction). */
typedef struct stenc_launch_op {
    int color;
    double *results;
    double *terms; /* distributed launches: where sum terms go (stenc_launch_reduce_prepare) */
} stenc_launch_op;

/* Run one variant on checked arguments (device pointers). scalars[] in declaration order,
 * as double; NULL when the stencil has none. `op` is never NULL. */
typedef stenc_status (*stenc_launch_variant_fn)(stenc_ctx *ctx, const stenc_launch_shape *shape,
                                                const stenc_launch_field *f, const double *scalars,
                                                const stenc_launch_op *op);

typedef struct stenc_launch_variant {
    const char *name; /* "direct_v4_k4_32x8", "stream_32x8_k32" */
    stenc_launch_variant_fn run;
} stenc_launch_variant;

/* Bits of stenc_launch_variants.flags. FIXED: the automatic choice is always list[0], never
 * the tune cache or the tuner: set for stencils that update in place (timing a variant would
 * apply the sweep again) or reduce (the results must not depend on a timing). */
#define STENC_VARIANTS_FIXED 1u

/* A stencil's variants; list[0] is the default. */
typedef struct stenc_launch_variants {
    const char *stencil;
    stenc_type type;
    int count;
    const stenc_launch_variant *list;
    unsigned flags;     /* STENC_VARIANTS_* */
    const char *digest; /* the generated code's hash, part of the tuning key (stenc/tune.h) */
} stenc_launch_variants;

/* Run the variant named `variant`, or with variant == NULL: list[0] when vs->flags has
 * STENC_VARIANTS_FIXED; else the tune cache's choice for this stencil, size, precision and
 * device (stenc/tune.h); with no entry and tuning on, time every variant on these fields
 * (overwriting the outputs several times), store the fastest and run it; with tuning off,
 * list[0]. `op` (colour, reduction results) is passed to the variant as is. Fails with
 * STENC_ERR_INVALID_ARGUMENT for an unknown name (the message lists the variants), with a
 * variant's error (STENC_ERR_CUDA, with CUDA's message and the launch site) otherwise. When
 * tuning fails the outputs are undefined. */
stenc_status stenc_launch_select(stenc_ctx *ctx, const stenc_launch_variants *vs,
                                 const char *variant, const stenc_launch_shape *shape,
                                 const stenc_launch_field *f, const double *scalars,
                                 const stenc_launch_op *op);

/* A device buffer of at least `bytes` bytes kept by the context for generated kernels (the
 * per-block partial reductions), grown when too small and freed with the context. The buffer
 * is shared by every launch on ctx: its contents are only valid within one launcher call,
 * which must use it in stream order on the context's stream. */
stenc_status stenc_launch_scratch(stenc_ctx *ctx, size_t bytes, void **ptr);

/* The name of variant `index`, NULL when out of range. */
const char *stenc_launch_variant_name(const stenc_launch_variants *vs, int index);

/* ---- reductions of generated kernels -------------------------------------------------------- */
/* A kernel's `reduce sum|max|min` accumulates, per tile of its loop (per block on the
 * device), into one stenc_acc (stenc/accum.h) and combines the tiles in a fixed order (see
 * docs/language.md and docs/cuda.md). */

/* Tell the compiler that a row start is aligned to STENC_FIELD_ALIGN bytes (true of the first
 * interior element of every row of every field). */
#if defined(__GNUC__) || defined(__clang__)
#define STENC_ASSUME_ALIGNED(ptr) __builtin_assume_aligned((ptr), STENC_FIELD_ALIGN)
#else
#define STENC_ASSUME_ALIGNED(ptr) (ptr)
#endif

#ifdef __cplusplus
}
#endif

#endif /* STENC_LAUNCH_H */
