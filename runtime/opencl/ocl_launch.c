/* OpenCL programs and launches: programs built once per context and kept with their kernels
 * in the context's "opencl programs" slot, and stenc_ocl_launch, which generated OpenCL
 * launchers call with the argument convention of stenc/opencl.h. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "ocl_internal.h"
#include "stenc/accum.h"

/* stenc/accum.h, compiled in by CMake (stenc_runtime_embed): every program on a device with
 * doubles is built after it, so that generated reductions accumulate as the C target does. */
extern const char ocl_accum_h[];

/* Characters of a failed build's log that go into the error message. */
#define OCL_BUILD_LOG_CHARS 2000

/* A program built for a context, and the kernels made from it so far. A program is built
 * separately with and without -DSTENC_FP64. */
typedef struct ocl_built {
    const stenc_ocl_program *program;
    uint64_t digest; /* of the program's name, source and options (program_digest) */
    int fp64;
    cl_program built;
    size_t nkernels;
    struct {
        char *name;
        cl_kernel kernel;
    } * kernels;
} ocl_built;

typedef struct ocl_programs {
    ocl_built *list;
    size_t count;
} ocl_programs;

static const stenc_cache_key programs_key = {"opencl programs"};

static void release_programs(stenc_ctx *ctx, void *state) {
    (void)ctx;
    ocl_programs *p = state;
    for (size_t i = 0; i < p->count; i++) {
        ocl_built *b = &p->list[i];
        for (size_t k = 0; k < b->nkernels; k++) {
            clReleaseKernel(b->kernels[k].kernel);
            free(b->kernels[k].name);
        }
        free(b->kernels);
        clReleaseProgram(b->built);
    }
    free(p->list);
    free(p);
}

/* The context's programs, made on first use. */
static stenc_status programs_of(stenc_ctx *ctx, ocl_programs **out) {
    *out = stenc_ctx_cache_get(ctx, &programs_key);
    if (*out) return STENC_OK;
    ocl_programs *p = calloc(1, sizeof *p);
    if (!p) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_ocl_launch: no memory");
    STENC_TRY(stenc_ctx_cache_set(ctx, &programs_key, p, release_programs)); /* released if full */
    *out = p;
    return STENC_OK;
}

/* Build `program` on ctx's device; a failed build reports the start of its log. */
static stenc_status build(stenc_ctx *ctx, const stenc_ocl_program *program, int fp64,
                          const char *fn, cl_program *out) {
    const ocl_state *s = ocl_of(ctx);
    char options[512];
    if (program->options && strlen(program->options) > 255)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: stencil '%s': the program's build options are longer than 255 "
                           "characters",
                           fn, program->name);
    snprintf(options, sizeof options, "-cl-std=CL1.2%s%s%s%s",
             s->fp32_exact_div ? " -cl-fp32-correctly-rounded-divide-sqrt" : "",
             fp64 ? " -DSTENC_FP64" : "", program->options ? " " : "",
             program->options ? program->options : "");
    cl_int err = CL_SUCCESS;
    /* The prelude, then the program numbered from its line 1 (for the build log). */
    const char *sources[] = {"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                             "#pragma OPENCL FP_CONTRACT OFF\n",
                             ocl_accum_h, "\n#line 1\n", program->source};
    const cl_uint nsources = s->fp64 ? 4 : 1;
    cl_program built =
        clCreateProgramWithSource(s->context, nsources, sources + (4 - nsources), NULL, &err);
    if (err != CL_SUCCESS)
        return STENC_ERROR(ocl_status_of(err),
                           "%s: clCreateProgramWithSource of stencil '%s' failed: %s (%d)", fn,
                           program->name, ocl_error_name(err), (int)err);
    err = clBuildProgram(built, 1, &s->device, options, NULL, NULL);
    if (err == CL_SUCCESS) {
        *out = built;
        return STENC_OK;
    }
    char log[OCL_BUILD_LOG_CHARS + 1] = "";
    size_t size = 0;
    if (clGetProgramBuildInfo(built, s->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) ==
        CL_SUCCESS) {
        char *whole = malloc(size + 1);
        if (whole && clGetProgramBuildInfo(built, s->device, CL_PROGRAM_BUILD_LOG, size, whole,
                                           NULL) == CL_SUCCESS) {
            whole[size] = '\0';
            snprintf(log, sizeof log, "%s", whole);
        }
        free(whole);
    }
    clReleaseProgram(built);
    return STENC_ERROR(err == CL_BUILD_PROGRAM_FAILURE ? STENC_ERR_OPENCL : ocl_status_of(err),
                       "%s: building the OpenCL program of stencil '%s' with '%s' failed: %s "
                       "(%d); build log:\n%s",
                       fn, program->name, options, ocl_error_name(err), (int)err, log);
}

/* FNV-1a 64 of the program's name, digest (else its source) and options. A program is found
 * by its address and this: a library unloaded and another loaded may put another program at
 * the same address (the differential test does), which must not find the first one's build.
 * Generated programs carry a digest, so that a launch hashes a few bytes, not the source. */
static uint64_t program_digest(const stenc_ocl_program *program) {
    uint64_t h = 0xcbf29ce484222325ull;
    const char *parts[3] = {program->name, program->digest ? program->digest : program->source,
                            program->options};
    for (int k = 0; k < 3; k++) {
        for (const char *c = parts[k]; c && *c; c++)
            h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
        h = (h ^ 0xffu) * 0x100000001b3ull; /* a separator */
    }
    return h;
}

/* The program's entry for ctx, built on first use. */
static stenc_status built_of(stenc_ctx *ctx, const stenc_ocl_program *program, int fp64,
                             const char *fn, ocl_built **out) {
    ocl_programs *p;
    STENC_TRY(programs_of(ctx, &p));
    const uint64_t digest = program_digest(program);
    for (size_t i = 0; i < p->count; i++)
        if (p->list[i].program == program && p->list[i].fp64 == fp64 &&
            p->list[i].digest == digest) {
            *out = &p->list[i];
            return STENC_OK;
        }
    ocl_built *grown = realloc(p->list, (p->count + 1) * sizeof *grown);
    if (!grown) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    p->list = grown;
    ocl_built *b = &p->list[p->count];
    memset(b, 0, sizeof *b);
    STENC_TRY(build(ctx, program, fp64, fn, &b->built));
    b->program = program;
    b->digest = digest;
    b->fp64 = fp64;
    p->count++;
    *out = b;
    return STENC_OK;
}

stenc_status ocl_kernel(stenc_ctx *ctx, const stenc_ocl_program *program, int fp64,
                        const char *kernel, const char *fn, cl_kernel *out) {
    ocl_built *b = NULL;
    STENC_TRY(built_of(ctx, program, fp64, fn, &b));
    for (size_t k = 0; k < b->nkernels; k++)
        if (strcmp(b->kernels[k].name, kernel) == 0) {
            *out = b->kernels[k].kernel;
            return STENC_OK;
        }
    void *grown = realloc(b->kernels, (b->nkernels + 1) * sizeof *b->kernels);
    if (!grown) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    b->kernels = grown;
    char *name = malloc(strlen(kernel) + 1);
    if (!name) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    strcpy(name, kernel);
    cl_int err = CL_SUCCESS;
    cl_kernel made = clCreateKernel(b->built, kernel, &err);
    if (err != CL_SUCCESS) {
        free(name);
        return STENC_ERROR(
            ocl_status_of(err), "%s: stencil '%s': clCreateKernel of kernel '%s' failed: %s (%d)%s",
            fn, program->name, kernel, ocl_error_name(err), (int)err,
            err == CL_INVALID_KERNEL_NAME ? " (the program has no such kernel)" : "");
    }
    b->kernels[b->nkernels].name = name;
    b->kernels[b->nkernels].kernel = made;
    b->nkernels++;
    *out = made;
    return STENC_OK;
}

/* ---- stenc_ocl_launch ------------------------------------------------------------------------ */

/* Set argument `index` of a generated stencil's kernel; `what` names it in messages. */
static stenc_status set_arg(cl_kernel k, cl_uint index, size_t size, const void *value,
                            const stenc_ocl_program *program, const char *kernel,
                            const char *what) {
    const cl_int err = clSetKernelArg(k, index, size, value);
    if (err != CL_SUCCESS)
        return STENC_ERROR(ocl_status_of(err),
                           "stenc_ocl_launch: stencil '%s', kernel '%s': clSetKernelArg of "
                           "argument %u (%s, %zu bytes) failed: %s (%d)",
                           program->name, kernel, (unsigned)index, what, size, ocl_error_name(err),
                           (int)err);
    return STENC_OK;
}

static stenc_status set_long(cl_kernel k, cl_uint *index, long long value,
                             const stenc_ocl_program *program, const char *kernel,
                             const char *what) {
    const cl_long v = (cl_long)value;
    return set_arg(k, (*index)++, sizeof v, &v, program, kernel, what);
}

static stenc_status check_launch(stenc_ctx *ctx, const stenc_ocl_program *program,
                                 const char *kernel, int dims, const size_t *local,
                                 const size_t *points, const stenc_launch_shape *shape,
                                 const stenc_launch_field *fields, int nfields,
                                 const double *scalars, int nscalars, stenc_type type,
                                 const int *extra, int nextra, const char *fn) {
    STENC_TRY(stenc_ctx_check(ctx, fn));
    STENC_REQUIRE(program && program->name && program->source && kernel,
                  "%s: program, its name or source, or kernel is NULL", fn);
    STENC_REQUIRE(ctx->device == STENC_DEVICE_OPENCL,
                  "%s: stencil '%s' needs an OpenCL context, not %s", fn, program->name, ctx->name);
    STENC_REQUIRE(shape != NULL, "%s: stencil '%s': shape is NULL", fn, program->name);
    STENC_REQUIRE(dims >= 1 && dims <= 3, "%s: stencil '%s': dims = %d, must be 1, 2 or 3", fn,
                  program->name, dims);
    for (int d = 0; local && d < dims; d++)
        STENC_REQUIRE(local[d] > 0, "%s: stencil '%s': local[%d] is 0", fn, program->name, d);
    for (int d = 0; points && d < dims; d++)
        STENC_REQUIRE(points[d] > 0, "%s: stencil '%s': points[%d] is 0", fn, program->name, d);
    STENC_REQUIRE(nfields >= 0 && nfields <= STENC_LAUNCH_MAX_FIELDS && nscalars >= 0 &&
                      nextra >= 0,
                  "%s: stencil '%s': %d fields (0..%d), %d scalars, %d extra", fn, program->name,
                  nfields, STENC_LAUNCH_MAX_FIELDS, nscalars, nextra);
    STENC_REQUIRE((nfields == 0 || fields) && (nscalars == 0 || scalars) && (nextra == 0 || extra),
                  "%s: stencil '%s': fields, scalars or extra is NULL", fn, program->name);
    STENC_REQUIRE(type == STENC_F32 || type == STENC_F64,
                  "%s: stencil '%s': type %s, must be float or double", fn, program->name,
                  stenc_type_name(type));
    if (type == STENC_F64 && !ocl_of(ctx)->fp64)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: stencil '%s' is double precision, which %s does not support "
                           "(no cl_khr_fp64)",
                           fn, program->name, ctx->name);
    if (shape->location != STENC_ON_DEVICE)
        return STENC_ERROR(STENC_ERR_LOCATION,
                           "%s: stencil '%s': the fields live on the host; upload them first", fn,
                           program->name);
    return STENC_OK;
}

/* The work items of a launch along each of its dims (stenc/opencl.h). */
static void work_items(int dims, const size_t *local, const size_t *points,
                       const stenc_launch_shape *shape, size_t global[3]) {
    global[0] = global[1] = global[2] = 1;
    for (int d = 0; d < dims; d++) {
        const size_t items = points ? (shape->n[d] + points[d] - 1) / points[d] : shape->n[d];
        global[d] = local ? (items + local[d] - 1) / local[d] * local[d] : items;
    }
}

/* stenc_ocl_launch on checked arguments over a non-empty interior; `parts`, when not NULL, is
 * the kernel's last argument (stenc_ocl_reduce). */
static stenc_status launch(stenc_ctx *ctx, const stenc_ocl_program *program, const char *kernel,
                           int dims, const size_t *local, const size_t *points,
                           const stenc_launch_shape *shape, const stenc_launch_field *fields,
                           int nfields, const double *scalars, int nscalars, stenc_type type,
                           const int *extra, int nextra, cl_mem parts, const char *fn) {
    cl_kernel k;
    STENC_TRY(ocl_kernel(ctx, program, type == STENC_F64, kernel, fn, &k));
    /* A kernel of another convention would fail later, at the launch, with less to go on. */
    const unsigned long long want =
        4ull * (unsigned)nfields + (unsigned)nscalars + 6 + (unsigned)nextra + (parts != NULL);
    cl_uint takes = 0;
    OCL_TRY(fn, clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof takes, &takes, NULL));
    if (takes != want)
        return STENC_ERROR(STENC_ERR_OPENCL,
                           "%s: stencil '%s', kernel '%s' takes %u arguments, but %d fields, %d "
                           "scalars and %d extra%s make %llu (stenc/opencl.h)",
                           fn, program->name, kernel, (unsigned)takes, nfields, nscalars, nextra,
                           parts ? " and the partials" : "", want);
    cl_uint a = 0;
    for (int f = 0; f < nfields; f++) {
        cl_mem mem;
        size_t offset;
        char what[64];
        snprintf(what, sizeof what, "field %d", f);
        STENC_TRY(ocl_lookup(ctx, fields[f].origin, 0, fn, what, &mem, &offset));
        STENC_TRY(set_arg(k, a++, sizeof mem, &mem, program, kernel, what));
        STENC_TRY(set_long(k, &a, (long long)offset, program, kernel, what));
        STENC_TRY(set_long(k, &a, (long long)fields[f].stride[1], program, kernel, what));
        STENC_TRY(set_long(k, &a, (long long)fields[f].stride[2], program, kernel, what));
    }
    for (int s = 0; s < nscalars; s++) {
        const float f32 = (float)scalars[s];
        const double f64 = scalars[s];
        STENC_TRY(type == STENC_F32 ? set_arg(k, a++, sizeof f32, &f32, program, kernel, "scalar")
                                    : set_arg(k, a++, sizeof f64, &f64, program, kernel, "scalar"));
    }
    for (int d = 0; d < 3; d++)
        STENC_TRY(set_long(k, &a, (long long)shape->n[d], program, kernel, "n"));
    for (int d = 0; d < 3; d++)
        STENC_TRY(set_long(k, &a, (long long)shape->index_offset[d], program, kernel, "offset"));
    for (int e = 0; e < nextra; e++) {
        const cl_int v = extra[e];
        STENC_TRY(set_arg(k, a++, sizeof v, &v, program, kernel, "extra"));
    }
    if (parts) STENC_TRY(set_arg(k, a++, sizeof parts, &parts, program, kernel, "partials"));
    size_t global[3];
    work_items(dims, local, points, shape, global);
    const cl_int err = clEnqueueNDRangeKernel(ocl_of(ctx)->queue, k, (cl_uint)dims, NULL, global,
                                              local, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return STENC_ERROR(ocl_status_of(err),
                           "%s: stencil '%s', kernel '%s': clEnqueueNDRangeKernel of %zu x %zu x "
                           "%zu items failed: %s (%d)",
                           fn, program->name, kernel, global[0], dims > 1 ? global[1] : 1,
                           dims > 2 ? global[2] : 1, ocl_error_name(err), (int)err);
    return STENC_OK;
}

stenc_status stenc_ocl_launch(stenc_ctx *ctx, const stenc_ocl_program *program, const char *kernel,
                              int dims, const size_t *local, const size_t *points,
                              const stenc_launch_shape *shape, const stenc_launch_field *fields,
                              int nfields, const double *scalars, int nscalars, stenc_type type,
                              const int *extra, int nextra) {
    static const char fn[] = "stenc_ocl_launch";
    STENC_TRY(check_launch(ctx, program, kernel, dims, local, points, shape, fields, nfields,
                           scalars, nscalars, type, extra, nextra, fn));
    if (shape->n[0] == 0 || shape->n[1] == 0 || shape->n[2] == 0) return STENC_OK;
    return launch(ctx, program, kernel, dims, local, points, shape, fields, nfields, scalars,
                  nscalars, type, extra, nextra, NULL, fn);
}

/* ---- stenc_ocl_reduce ------------------------------------------------------------------------ */

stenc_status stenc_ocl_reduce(stenc_ctx *ctx, const stenc_ocl_program *program, const char *kernel,
                              int dims, const size_t *local, const size_t *points,
                              const stenc_launch_shape *shape, const stenc_launch_field *fields,
                              int nfields, const double *scalars, int nscalars, stenc_type type,
                              const int *extra, int nextra, const char *ops, double *results) {
    static const char fn[] = "stenc_ocl_reduce";
    STENC_TRY(check_launch(ctx, program, kernel, dims, local, points, shape, fields, nfields,
                           scalars, nscalars, type, extra, nextra, fn));
    STENC_REQUIRE(ops && results, "%s: stencil '%s': ops or results is NULL", fn, program->name);
    const size_t nred = strlen(ops);
    STENC_REQUIRE(nred >= 1 && nred <= 64 && strspn(ops, "sxn") == nred,
                  "%s: stencil '%s': ops \"%s\" must be 1 to 64 of 's', 'x', 'n'", fn,
                  program->name, ops);
    if (!ocl_of(ctx)->fp64)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: stencil '%s' reduces in double precision, which %s does not "
                           "support (no cl_khr_fp64)",
                           fn, program->name, ctx->name);
    stenc_acc total[64];
    for (size_t r = 0; r < nred; r++)
        total[r] = ops[r] == 's'   ? (stenc_acc)STENC_ACC_SUM_INIT
                   : ops[r] == 'x' ? (stenc_acc)STENC_ACC_MAX_INIT
                                   : (stenc_acc)STENC_ACC_MIN_INIT;
    stenc_status status = STENC_OK;
    if (shape->n[0] && shape->n[1] && shape->n[2]) {
        size_t global[3];
        work_items(dims, local, points, shape, global);
        size_t items = 1; /* that store partials: work items, or work groups */
        for (int d = 0; d < dims; d++)
            items *= local ? global[d] / local[d] : global[d];
        const size_t bytes = items * nred * sizeof(stenc_acc);
        double *parts = malloc(bytes);
        if (!parts)
            return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory for %zu partials", fn,
                               items * nred);
        cl_int err = CL_SUCCESS;
        cl_mem buffer = clCreateBuffer(ocl_of(ctx)->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
        if (err != CL_SUCCESS) {
            free(parts);
            return STENC_ERROR(ocl_status_of(err),
                               "%s: stencil '%s': clCreateBuffer of %zu bytes of partials "
                               "failed: %s (%d)",
                               fn, program->name, bytes, ocl_error_name(err), (int)err);
        }
        status = launch(ctx, program, kernel, dims, local, points, shape, fields, nfields, scalars,
                        nscalars, type, extra, nextra, buffer, fn);
        if (status == STENC_OK) {
            err = clEnqueueReadBuffer(ocl_of(ctx)->queue, buffer, CL_TRUE, 0, bytes, parts, 0, NULL,
                                      NULL);
            if (err != CL_SUCCESS)
                status = STENC_ERROR(ocl_status_of(err),
                                     "%s: stencil '%s': reading %zu bytes of partials failed: "
                                     "%s (%d)",
                                     fn, program->name, bytes, ocl_error_name(err), (int)err);
        }
        clReleaseMemObject(buffer);
        /* The partials, merged in order: the same bits on every run. */
        for (size_t g = 0; status == STENC_OK && g < items; g++)
            for (size_t r = 0; r < nred; r++) {
                const stenc_acc part = {parts[(g * nred + r) * 2], parts[(g * nred + r) * 2 + 1]};
                if (ops[r] == 's')
                    stenc_acc_sum_merge(&total[r], &part);
                else if (ops[r] == 'x')
                    stenc_acc_max_merge(&total[r], &part);
                else
                    stenc_acc_min_merge(&total[r], &part);
            }
        free(parts);
    }
    for (size_t r = 0; status == STENC_OK && r < nred; r++)
        results[r] = ops[r] == 's' ? stenc_acc_sum_result(&total[r]) : total[r].s;
    return status;
}
