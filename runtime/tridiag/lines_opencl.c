/* The OpenCL half of line solves: uniform arrays filled with clEnqueueFillBuffer, and the solve
 * of every line with the kernels of lines_solve.cl (a work item per line), built once per
 * context. */
#include <limits.h>

#include "lines_internal.h"
#include "ocl_internal.h"

/* lines_solve.cl, compiled in by CMake (stenc_runtime_embed). */
extern const char tridiag_lines_solve_cl[];

/* Work items per group of a solve, at most: each item walks a whole line on its own. */
#define LNS_OCL_GROUP 64

/* first_bad's value while no line has failed. */
#define LNS_OCL_NONE UINT_MAX

stenc_status lns_ocl_fill(stenc_ctx *ctx, stenc_type type, void *array, size_t elems,
                          double value) {
    static const char fn[] = "stenc_launch_solve_begin";
    const float f32 = (float)value;
    const size_t es = stenc_type_size(type);
    cl_mem mem;
    size_t offset = 0;
    STENC_TRY(
        ocl_lookup(ctx, array, elems * es, fn, "a uniform coefficient's array", &mem, &offset));
    const void *pattern = type == STENC_F32 ? (const void *)&f32 : (const void *)&value;
    OCL_TRY(fn, clEnqueueFillBuffer(ocl_of(ctx)->queue, mem, pattern, es, offset, elems * es, 0,
                                    NULL, NULL));
    return STENC_OK;
}

/* The buffer behind the allocation `start` of L's shape, and the offset of its interior
 * point (0,0,0) in it, in bytes. */
static stenc_status origin_of(stenc_ctx *ctx, const stenc_field_layout *L, const void *start,
                              const char *what, cl_mem *mem, cl_long *origin) {
    const size_t es = stenc_type_size(L->type);
    size_t offset = 0;
    STENC_TRY(
        ocl_lookup(ctx, start, L->alloc_elems * es, "stenc_launch_solve_end", what, mem, &offset));
    *origin = (cl_long)(offset + L->origin_elems * es);
    return STENC_OK;
}

stenc_status lns_ocl_solve(stenc_ctx *ctx, const stenc_field_layout *L, int dim, void *v,
                           void *const arrays[4], size_t *first_bad) {
    static const char fn[] = "stenc_launch_solve_end";
    static const stenc_ocl_program program = {"stenc_launch_solve_end", tridiag_lines_solve_cl,
                                              NULL, NULL};
    const int fp64 = L->type == STENC_F64;
    if (fp64 && !ocl_of(ctx)->fp64)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: a double-precision line solve, which %s does not support (no "
                           "cl_khr_fp64)",
                           fn, ctx->name);
    const int o1 = dim == 0 ? 1 : 0, o2 = dim == 2 ? 1 : 2; /* the other two dimensions */
    const size_t lines = L->n[o1] * L->n[o2];
    if (lines >= LNS_OCL_NONE)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: %zu lines; a line solve on OpenCL handles fewer than %u", fn, lines,
                           LNS_OCL_NONE);
    cl_kernel k;
    STENC_TRY(
        ocl_kernel(ctx, &program, fp64, fp64 ? "solve_lines_f64" : "solve_lines_f32", fn, &k));
    static const char *const what[5] = {"the solved field's device copy", "the lower scratch array",
                                        "the diag scratch array", "the upper scratch array",
                                        "the rhs scratch array"};
    cl_mem mems[5];
    cl_long origins[5];
    STENC_TRY(origin_of(ctx, L, v, what[0], &mems[0], &origins[0]));
    for (int q = 0; q < 4; q++)
        STENC_TRY(origin_of(ctx, L, arrays[q], what[q + 1], &mems[q + 1], &origins[q + 1]));

    /* first_bad: a buffer of the launch's own, as stenc_ocl_reduce's partials are. */
    cl_uint first = LNS_OCL_NONE;
    cl_int err = CL_SUCCESS;
    cl_mem flag = clCreateBuffer(ocl_of(ctx)->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 sizeof first, &first, &err);
    if (err != CL_SUCCESS)
        return STENC_ERROR(ocl_status_of(err),
                           "%s: clCreateBuffer of the failed-line flag failed: %s (%d)", fn,
                           ocl_error_name(err), (int)err);
    /* The kernel's long arguments after the arrays, in its order: n, sd, n1, s1, n2, s2. */
    const cl_long longs[6] = {(cl_long)L->n[dim], L->stride[dim],    (cl_long)L->n[o1],
                              L->stride[o1],      (cl_long)L->n[o2], L->stride[o2]};
    cl_uint a = 0;
    for (int m = 0; m < 5 && err == CL_SUCCESS; m++) {
        err = clSetKernelArg(k, a++, sizeof mems[m], &mems[m]);
        if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof origins[m], &origins[m]);
    }
    for (int i = 0; i < 6 && err == CL_SUCCESS; i++)
        err = clSetKernelArg(k, a++, sizeof longs[i], &longs[i]);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof flag, &flag);
    const char *step = "setting the solve kernel's arguments";
    size_t group = LNS_OCL_GROUP, most = 0;
    if (err == CL_SUCCESS) {
        step = "clGetKernelWorkGroupInfo of the solve kernel";
        err = clGetKernelWorkGroupInfo(k, ocl_of(ctx)->device, CL_KERNEL_WORK_GROUP_SIZE,
                                       sizeof most, &most, NULL);
    }
    if (most > 0 && most < group) group = most;
    const size_t global = (lines + group - 1) / group * group;
    if (err == CL_SUCCESS) {
        step = "clEnqueueNDRangeKernel of the solve";
        err =
            clEnqueueNDRangeKernel(ocl_of(ctx)->queue, k, 1, NULL, &global, &group, 0, NULL, NULL);
    }
    if (err == CL_SUCCESS) {
        step = "reading the failed-line flag";
        err = clEnqueueReadBuffer(ocl_of(ctx)->queue, flag, CL_TRUE, 0, sizeof first, &first, 0,
                                  NULL, NULL);
    }
    clReleaseMemObject(flag);
    if (err != CL_SUCCESS)
        return STENC_ERROR(ocl_status_of(err), "%s: %s (%zu lines) failed: %s (%d)", fn, step,
                           lines, ocl_error_name(err), (int)err);
    *first_bad = first == LNS_OCL_NONE ? SIZE_MAX : (size_t)first;
    return STENC_OK;
}
