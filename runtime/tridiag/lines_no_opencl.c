/* The OpenCL half of line solves in a build without OpenCL: no OpenCL context, and so no field
 * on an OpenCL device, can exist there; this only reports that. */
#include "lines_internal.h"

static stenc_status no_opencl(const char *fn) {
    return STENC_ERROR(STENC_ERR_NO_DEVICE, "%s: stenc was built without OpenCL", fn);
}

stenc_status lns_ocl_fill(stenc_ctx *ctx, stenc_type type, void *array, size_t elems,
                          double value) {
    (void)ctx, (void)type, (void)array, (void)elems, (void)value;
    return no_opencl("stenc_launch_solve_begin");
}

stenc_status lns_ocl_solve(stenc_ctx *ctx, const stenc_field_layout *L, int dim, void *v,
                           void *const arrays[4], size_t *first_bad) {
    (void)ctx, (void)L, (void)dim, (void)v, (void)arrays, (void)first_bad;
    return no_opencl("stenc_launch_solve_end");
}
