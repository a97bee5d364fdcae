/* The OpenCL half of fields: halo fills on the device with the kernels of halo_fill.cl, built
 * once per context. (The device copy and its transfers are plain stenc_malloc, stenc_upload
 * and stenc_download: field.c.) */
#include <string.h>

#include "field_internal.h"
#include "ocl_internal.h"

/* halo_fill.cl, compiled in by CMake (stenc_runtime_embed). */
extern const char field_halo_fill_cl[];

/* Work items per group of a halo fill, at most; the fill is pure memory traffic. */
#define FIELD_OCL_HALO_GROUP 64

/* The kernels' rules (halo_fill.cl). */
enum { RULE_NONE = 0, RULE_VALUE = 1, RULE_CLAMP = 2, RULE_WRAP = 3 };

static int rule_of(stenc_bc_kind kind) {
    switch (kind) {
    case STENC_BC_DIRICHLET:
        return RULE_VALUE;
    case STENC_BC_NEUMANN:
        return RULE_CLAMP;
    case STENC_BC_PERIODIC:
        return RULE_WRAP;
    default:
        return RULE_NONE;
    }
}

/* A Dirichlet value rounded to the field's type as the host fill rounds it, as the bits the
 * kernel stores (the first elem_size bytes of *bits). */
static void value_bits(stenc_type type, double value, cl_ulong *bits) {
    *bits = 0;
    const float f32 = (float)value;
    const int32_t i32 = (int32_t)value;
    const uint8_t u8 = (uint8_t)value;
    if (type == STENC_F32)
        memcpy(bits, &f32, sizeof f32);
    else if (type == STENC_I32)
        memcpy(bits, &i32, sizeof i32);
    else if (type == STENC_U8)
        memcpy(bits, &u8, sizeof u8);
    else
        memcpy(bits, &value, sizeof value);
}

stenc_status stenc_field_ocl_fill_halo_dim(stenc_field *field, int d, const stenc_bc *lo,
                                           const stenc_bc *hi) {
    static const char fn[] = "stenc_field_fill_halo";
    static const stenc_ocl_program program = {"stenc_field_fill_halo", field_halo_fill_cl, NULL,
                                              NULL};
    static const char *const kernels[9] = {
        [1] = "fill_halo_dim_1", [4] = "fill_halo_dim_4", [8] = "fill_halo_dim_8"};
    stenc_ctx *ctx = field->ctx;
    const stenc_field_layout *L = &field->layout;
    const size_t esize = field->elem_size;
    cl_kernel k;
    STENC_TRY(ocl_kernel(ctx, &program, 0, kernels[esize], fn, &k));
    cl_mem mem;
    size_t origin = 0;
    STENC_TRY(ocl_lookup(ctx, stenc_field_device_origin(field), 0, fn, "the field's device copy",
                         &mem, &origin));
    const int o1 = d == 0 ? 1 : 0, o2 = d == 2 ? 1 : 2; /* the other two dimensions */
    const cl_int rules[2] = {rule_of(lo->kind), rule_of(hi->kind)};
    cl_ulong values[2];
    value_bits(L->type, lo->value, &values[0]);
    value_bits(L->type, hi->value, &values[1]);
    const cl_long h = L->halo, h1 = o1 < L->dims ? L->halo : 0, h2 = o2 < L->dims ? L->halo : 0;
    /* The kernel's long arguments, in its order: n, h, h1, n1, h2, n2, sd, s1, s2. */
    const cl_long longs[] = {(cl_long)L->n[d],
                             h,
                             h1,
                             (cl_long)L->n[o1],
                             h2,
                             (cl_long)L->n[o2],
                             L->stride[d],
                             L->stride[o1],
                             L->stride[o2]};
    const cl_long origin_bytes = (cl_long)origin;
    cl_uint a = 0;
    OCL_TRY(fn, clSetKernelArg(k, a++, sizeof mem, &mem));
    OCL_TRY(fn, clSetKernelArg(k, a++, sizeof origin_bytes, &origin_bytes));
    for (int s = 0; s < 2; s++)
        OCL_TRY(fn, clSetKernelArg(k, a++, sizeof rules[s], &rules[s]));
    /* value_bits put the element's bytes first, so its first esize bytes are the element. */
    for (int s = 0; s < 2; s++)
        OCL_TRY(fn, clSetKernelArg(k, a++, esize, &values[s]));
    for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++)
        OCL_TRY(fn, clSetKernelArg(k, a++, sizeof longs[i], &longs[i]));

    const size_t total =
        (size_t)(2 * h * ((cl_long)L->n[o1] + 2 * h1) * ((cl_long)L->n[o2] + 2 * h2));
    size_t group = FIELD_OCL_HALO_GROUP, most = 0;
    OCL_TRY(fn, clGetKernelWorkGroupInfo(k, ocl_of(ctx)->device, CL_KERNEL_WORK_GROUP_SIZE,
                                         sizeof most, &most, NULL));
    if (most > 0 && most < group) group = most;
    const size_t global = (total + group - 1) / group * group;
    OCL_TRY(fn,
            clEnqueueNDRangeKernel(ocl_of(ctx)->queue, k, 1, NULL, &global, &group, 0, NULL, NULL));
    return STENC_OK;
}
