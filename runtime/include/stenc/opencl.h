/* stenc on OpenCL: what generated OpenCL launchers call, and the bridge from stenc's device
 * pointers to OpenCL buffers.
 *
 * On an OpenCL context (STENC_DEVICE_OPENCL) stenc_malloc makes a cl_mem and returns an address
 * in a reserved range of the same size that the host cannot read or write. The rest of stenc
 * keeps treating device memory as a void * with pointer arithmetic (a field's interior origin
 * is its allocation plus an offset); stenc_ocl_buffer turns any address inside such a range
 * back into the buffer and a byte offset. No OpenCL header is needed to include this one:
 * OpenCL objects are passed as void *.
 */
#ifndef STENC_OPENCL_H
#define STENC_OPENCL_H

#include <stddef.h>

#include "stenc/core.h"
#include "stenc/launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cl_mem that `ptr` (an address from stenc_malloc on ctx, or inside one of its
 * allocations) lies in, and ptr's byte offset from the buffer's start. The buffer is
 * borrowed: it stays valid until stenc_free of its allocation. ctx not an OpenCL context, or
 * ptr outside every allocation of ctx: STENC_ERR_INVALID_ARGUMENT. */
stenc_status stenc_ocl_buffer(stenc_ctx *ctx, const void *ptr, void **cl_mem_out,
                              size_t *byte_offset);

/* 1 when ctx is an OpenCL context on a CPU device (PoCL's, say), whose kernels run best as a
 * loop over whole rows per work item; 0 for a GPU, any other context, or NULL. */
int stenc_ocl_device_is_cpu(const stenc_ctx *ctx);

/* An OpenCL program of a generated stencil: its source, built once per context. The program's
 * address identifies it, so it must outlive the contexts it runs on (a static constant). */
typedef struct stenc_ocl_program {
    const char *name;    /* the stencil's name, for messages */
    const char *source;  /* OpenCL C */
    const char *options; /* build options added to the runtime's ("-DX=1"), at most 255
                            characters; NULL: none. Two programs of one source with other
                            options are two programs. */
    const char *digest;  /* a short text that changes with the source (generated launchers
                            give the digest of their files); NULL: the runtime hashes the source
                            at each launch. With the address and the options it tells a program
                            from another loaded at the same address. */
} stenc_ocl_program;

/* Run kernel `kernel` of `program` on ctx (an OpenCL context) over shape->n.
 *
 * Building. The program is built on first use and kept per context, after stenc/accum.h on
 * a device with doubles (its stenc_acc functions are there for reductions), with the options
 * "-cl-std=CL1.2", plus " -cl-fp32-correctly-rounded-divide-sqrt" when the device supports it
 * (so float division and sqrt round as in C), plus " -DSTENC_FP64" when type is STENC_F64.
 * STENC_F64 on a device without double precision is STENC_ERR_UNSUPPORTED. A failed build is
 * STENC_ERR_OPENCL with the stencil's name and the first 2000 characters of the build log.
 *
 * Kernel arguments, in this order:
 *   per field f (0..nfields-1): __global uchar *base (the buffer of fields[f].origin),
 *       long byte offset of fields[f].origin in it, long stride_j, long stride_k
 *       (fields[f].stride[1] and stride[2], in elements);
 *   per scalar s (0..nscalars-1): scalars[s] as float (type STENC_F32) or double (STENC_F64);
 *   long n0, long n1, long n2 (shape->n), long o0, long o1, long o2 (shape->index_offset);
 *   then extra[0..nextra) as int (a colour, ...).
 *
 * Work. `dims` (1..3) dimensions of work items. A work item computes points[d] > 0 points
 * along d (points == NULL: one each), so there are ceil(n[d] / points[d]) items along d; with
 * `local` (local[d] > 0 items per group) global[d] is that rounded up to a multiple of
 * local[d], so the kernel checks its bounds; local == NULL lets the implementation choose and
 * global[d] is the number of items. An empty interior (an
 * n[d] of 0) launches nothing. Asynchronous, in order on the context's queue.
 *
 * Errors: a context that is not an OpenCL one, NULL arguments or bad counts are
 * STENC_ERR_INVALID_ARGUMENT; fields on the host (shape->location) STENC_ERR_LOCATION; a kernel
 * missing from the program, arguments it does not take, and failing OpenCL calls
 * STENC_ERR_OPENCL with OpenCL's error name and number and the stencil's and kernel's names. */
stenc_status stenc_ocl_launch(stenc_ctx *ctx, const stenc_ocl_program *program, const char *kernel,
                              int dims, const size_t *local, const size_t *points,
                              const stenc_launch_shape *shape, const stenc_launch_field *fields,
                              int nfields, const double *scalars, int nscalars, stenc_type type,
                              const int *extra, int nextra);

/* Run reducing kernel `kernel` as stenc_ocl_launch does (the same `local` and `points`), and
 * block until its partial results are read back. The kernel takes one argument more, after
 * `extra`: __global double *parts, which holds a partial result per work item (local ==
 * NULL) or per work group: partial g = g0 + N0 * (g1 + N1 * g2), with N the items (groups)
 * along each dimension, stores for each reduction r its accumulator (stenc/accum.h) as
 * parts[2 * (g * nred + r)] (s) and [... + 1] (c). `ops` has one letter per reduction, nred
 * of them (1..64): 's' sum, 'x' max, 'n' min. The partials are merged in order g = 0, 1, ...,
 * so results[r] has the same bits on every run for a given size, local and points; over no
 * point (an empty interior) results are 0, -inf, +inf. Also STENC_ERR_UNSUPPORTED on a device
 * without doubles, and bad ops STENC_ERR_INVALID_ARGUMENT; otherwise the errors of
 * stenc_ocl_launch. */
stenc_status stenc_ocl_reduce(stenc_ctx *ctx, const stenc_ocl_program *program, const char *kernel,
                              int dims, const size_t *local, const size_t *points,
                              const stenc_launch_shape *shape, const stenc_launch_field *fields,
                              int nfields, const double *scalars, int nscalars, stenc_type type,
                              const int *extra, int nextra, const char *ops, double *results);
#ifdef __cplusplus
}
#endif

#endif /* STENC_OPENCL_H */
