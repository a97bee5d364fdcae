/* bench_opencl: the opencl target against the c target on the same machine, and against the
 * cuda target where a CUDA device is present (the H100 host, through NVIDIA's OpenCL). For
 * each stencil: the generated C kernel on the host (OpenMP), every OpenCL variant and the
 * automatic choice on the OpenCL device, and the CUDA launcher's automatic choice; medians of
 * timed runs after a warm-up, timed with stenc timers (OpenCL profiling events, CUDA events,
 * the host clock); the OpenCL and CUDA results checked bit for bit against the C kernel's on
 * the benchmark data. Then a reduction, dot3d, on each (sums checked to 1e-12 relative).
 *
 * Output: one key=value line per case, then a table. Options: --quick (tiny sizes, a smoke
 * test), --mb M (each stencil's fields take about M MB: 1074 by default, heat3d fp32 at 512^3;
 * far beyond the H100's 50 MB L2), --reps R, --only NAME. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dot3d.h"
#include "stencil_cases.h"
#include "variant_cases.h"

extern const stenc_launch_variants heat3d_opencl_variants, wave_r2_opencl_variants,
    jacobi2d_opencl_variants, varcoef27_opencl_variants;

typedef struct bench_options {
    int quick, reps;
    double mb;
    const char *only;
} bench_options;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        stenc_status check_status_ = (call);                                                       \
        if (check_status_ != STENC_OK) {                                                           \
            fprintf(stderr, "bench_opencl: %s failed: %s\n", #call, stenc_last_error());           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Median milliseconds of `reps` runs of variant `variant` (NULL: automatic) after a warm-up. */
static double time_runs(stenc_ctx *ctx, int t, const char *variant, const stencil_case *c,
                        stenc_field **f, int reps) {
    stenc_timer *timer;
    CHECK(stenc_timer_create(ctx, &timer));
    CHECK(variant_table[t].run(ctx, variant, c->scalars, f));
    double *ms = calloc((size_t)reps, sizeof *ms);
    for (int r = 0; r < reps; r++) {
        CHECK(stenc_timer_start(timer));
        CHECK(variant_table[t].run(ctx, variant, c->scalars, f));
        CHECK(stenc_timer_stop(timer, &ms[r]));
    }
    qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
    const double median = ms[reps / 2];
    free(ms);
    stenc_timer_destroy(timer);
    return median;
}

/* 1 when the outputs of `dev` (downloaded) equal the host's, bit for bit. */
static int same_outputs(const stencil_case *c, stenc_field **dev, stenc_field **host) {
    int same = 1;
    for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++) {
        CHECK(stenc_field_download(dev[o]));
        char msg[256];
        same &= stencil_compare_interior(dev[o], host[o], 0, msg, sizeof msg) == 0;
        CHECK(stenc_field_upload(dev[o]));
    }
    return same;
}

typedef struct row {
    char stencil[32], backend[16], variant[32];
    double ms, gpts, vs_c;
    int same;
} row;

static void emit(row *rows, int *nrows, const char *stencil, const char *backend,
                 const char *variant, double ms, double points, double c_ms, int same,
                 const char *device) {
    row *r = &rows[(*nrows)++];
    snprintf(r->stencil, sizeof r->stencil, "%s", stencil);
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    r->ms = ms;
    r->gpts = points / (ms * 1e6);
    r->vs_c = c_ms / ms;
    r->same = same;
    printf("bench=opencl stencil=%s backend=%s variant=%s device=\"%s\" points=%.0f ms=%.4f "
           "gpts=%.3f speed_vs_c=%.3f bitwise_equal_to_c=%d\n",
           stencil, backend, variant, device, points, ms, r->gpts, r->vs_c, same);
}

static void bench_stencil(const char *name, const bench_options *o, stenc_ctx *cpu, stenc_ctx *ocl,
                          stenc_ctx *cuda, row *rows, int *nrows) {
    const stencil_case *c = stencil_case_find(name);
    const int t = find_table(name);
    if (!c || t < 0 || (o->only && strcmp(o->only, name) != 0)) return;
    /* the side of a cube (square) whose fields take o->mb MB */
    const double point_bytes = (double)(c->ninputs + c->noutputs) * stenc_type_size(c->type);
    const double side = pow(o->mb * 1e6 / point_bytes, 1.0 / c->dims);
    const size_t edge = (size_t)llround(side);
    size_t n[3] = {edge, edge, c->dims == 3 ? edge : 1};
    const double points = (double)n[0] * (double)n[1] * (double)n[2];
    stenc_field *host[STENCIL_CASE_MAX_FIELDS], *dev[STENCIL_CASE_MAX_FIELDS];
    CHECK(stencil_case_create(cpu, c, n, c->halo, host));
    c->randomize(host, c->ninputs, 42);
    const double c_ms = time_runs(cpu, t, "c", c, host, o->reps);
    emit(rows, nrows, name, "c", "c", c_ms, points, c_ms, 1, stenc_ctx_device_name(cpu));

    const stenc_launch_variants *vs = !strcmp(name, "heat3d")      ? &heat3d_opencl_variants
                                      : !strcmp(name, "wave_r2")   ? &wave_r2_opencl_variants
                                      : !strcmp(name, "jacobi2d")  ? &jacobi2d_opencl_variants
                                      : !strcmp(name, "varcoef27") ? &varcoef27_opencl_variants
                                                                   : NULL;
    if (ocl && vs) {
        CHECK(stencil_case_create(ocl, c, n, c->halo, dev));
        c->randomize(dev, c->ninputs, 42);
        for (int a = 0; a < c->ninputs + c->noutputs; a++)
            CHECK(stenc_field_upload(dev[a]));
        for (int v = -1; v < vs->count; v++) {
            const char *variant = v < 0 ? NULL : vs->list[v].name;
            const double ms = time_runs(ocl, t, variant, c, dev, o->reps);
            emit(rows, nrows, name, "opencl", variant ? variant : "auto", ms, points, c_ms,
                 same_outputs(c, dev, host), stenc_ctx_device_name(ocl));
        }
        stencil_case_free(c, dev);
    }
    if (cuda) {
        CHECK(stencil_case_create(cuda, c, n, c->halo, dev));
        c->randomize(dev, c->ninputs, 42);
        for (int a = 0; a < c->ninputs + c->noutputs; a++)
            CHECK(stenc_field_upload(dev[a]));
        const double ms = time_runs(cuda, t, NULL, c, dev, o->reps);
        emit(rows, nrows, name, "cuda", "auto", ms, points, c_ms, same_outputs(c, dev, host),
             stenc_ctx_device_name(cuda));
        stencil_case_free(c, dev);
    }
    stencil_case_free(c, host);
}

/* A reduction: dot3d (fp32 x, y; sum, min, max) over a cube of o->mb MB, launched where the
 * fields live (the launcher returns once the results are back). min and max must be the C
 * kernel's; the sum within 1e-12 relative (the kernels add in other orders). */
static void bench_dot3d(const bench_options *o, stenc_ctx **ctxs, const char **backends, int nctx,
                        row *rows, int *nrows) {
    if (o->only && strcmp(o->only, "dot3d") != 0) return;
    const size_t edge = (size_t)llround(cbrt(o->mb * 1e6 / 8.0));
    const double points = (double)edge * (double)edge * (double)edge;
    double c_ms = 0, c_sum = 0, c_min = 0, c_max = 0;
    for (int x = 0; x < nctx; x++) {
        if (!ctxs[x]) continue;
        stenc_field *f[2];
        for (int a = 0; a < 2; a++) {
            CHECK(stenc_field_create(ctxs[x], &f[a], STENC_F32, 3, edge, edge, edge, 0));
            stencil_fill_uniform(f[a], 42 + (uint64_t)a, -1, 1);
            if (x > 0) CHECK(stenc_field_upload(f[a]));
        }
        double sum = 0, mn = 0, mx = 0;
        stenc_timer *timer;
        CHECK(stenc_timer_create(ctxs[x], &timer));
        CHECK(dot3d(ctxs[x], f[0], f[1], &sum, &mn, &mx));
        double *ms = calloc((size_t)o->reps, sizeof *ms);
        for (int r = 0; r < o->reps; r++) {
            CHECK(stenc_timer_start(timer));
            CHECK(dot3d(ctxs[x], f[0], f[1], &sum, &mn, &mx));
            CHECK(stenc_timer_stop(timer, &ms[r]));
        }
        qsort(ms, (size_t)o->reps, sizeof *ms, cmp_double);
        const double median = ms[o->reps / 2];
        free(ms);
        stenc_timer_destroy(timer);
        if (x == 0) c_ms = median, c_sum = sum, c_min = mn, c_max = mx;
        const int same = mn == c_min && mx == c_max && fabs(sum - c_sum) <= 1e-12 * fabs(c_sum);
        emit(rows, nrows, "dot3d", backends[x], "default", median, points, c_ms, same,
             stenc_ctx_device_name(ctxs[x]));
        stenc_field_free(f[0]), stenc_field_free(f[1]);
    }
}

int main(int argc, char **argv) {
    bench_options o = {0, 9, 1073.741824, NULL};
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            o.quick = 1, o.mb = 0.2, o.reps = 3;
        else if (!strcmp(argv[a], "--mb") && a + 1 < argc)
            o.mb = atof(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            o.reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--only") && a + 1 < argc)
            o.only = argv[++a];
        else {
            fprintf(stderr, "usage: bench_opencl [--quick] [--mb M] [--reps R] [--only NAME]\n");
            return 2;
        }
    }
    if (o.reps < 1 || !(o.mb > 0)) return 2;
    stenc_ctx *cpu, *ocl = NULL, *cuda = NULL;
    CHECK(stenc_ctx_create(&cpu, STENC_DEVICE_CPU));
    if (stenc_opencl_device_count() > 0) CHECK(stenc_ctx_create(&ocl, STENC_DEVICE_OPENCL));
    if (stenc_cuda_device_count() > 0) CHECK(stenc_ctx_create(&cuda, STENC_DEVICE_CUDA));
    if (!ocl) printf("# no OpenCL device: the c (and cuda) rows only\n");
    row rows[96];
    int nrows = 0;
    const char *names[] = {"heat3d", "wave_r2", "jacobi2d", "varcoef27"};
    for (size_t s = 0; s < sizeof names / sizeof *names; s++)
        bench_stencil(names[s], &o, cpu, ocl, cuda, rows, &nrows);
    stenc_ctx *ctxs[] = {cpu, ocl, cuda};
    const char *backends[] = {"c", "opencl", "cuda"};
    bench_dot3d(&o, ctxs, backends, 3, rows, &nrows);

    printf("\n%-10s %-7s %-11s %10s %9s %9s %6s\n", "stencil", "backend", "variant", "ms", "Gpts/s",
           "vs c", "bits");
    int all_same = 1;
    for (int r = 0; r < nrows; r++) {
        printf("%-10s %-7s %-11s %10.4f %9.3f %8.2fx %6s\n", rows[r].stencil, rows[r].backend,
               rows[r].variant, rows[r].ms, rows[r].gpts, rows[r].vs_c,
               rows[r].same ? "same" : "DIFFER");
        all_same &= rows[r].same;
    }
    stenc_ctx_destroy(cuda);
    stenc_ctx_destroy(ocl);
    stenc_ctx_destroy(cpu);
    return all_same ? 0 : 1;
}
