/* bench_cpu: every stencil in stencils/, generated kernel vs hand-written reference on the
 * CPU, in Gpts/s and GB/s (bytes per point = (inputs + outputs) * sizeof(type): each array
 * touched once, the floor for a streaming kernel), and as a fraction of the copy bandwidth
 * (an OpenMP copy loop over arrays far larger than the caches, read + write counted) measured
 * in the same run. Medians of several timed runs after a warm-up; generated == reference is
 * checked bit for bit on the benchmark data.
 *
 * Output: one key=value line per case, then a table. --quick: tiny sizes (a smoke test);
 * --quiet: no progress lines (on stderr, when it is a terminal). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "progress.h"
#include "stencil_cases.h"

#define BENCH_DEFAULT_REPS 7
#define BENCH_DEFAULT_SET_MB 600.0 /* working set of one stencil call: 2x the 300 MB L3 */
#define BENCH_COPY_ARRAY_MB 512.0  /* per copy array; 1 GiB moved per copy */
#define BENCH_QUICK_SET_MB 2.0
#define BENCH_QUICK_COPY_MB 8.0

typedef struct bench_options {
    int reps, quick;
    double set_mb, copy_mb;
    const char *only;
} bench_options;

static double now_seconds(stenc_timer *timer, int start) {
    double ms = 0;
    if (start)
        stenc_timer_start(timer);
    else
        stenc_timer_stop(timer, &ms);
    return ms * 1e-3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Copy bandwidth in GB/s (bytes read + bytes written per second). */
static double copy_bandwidth(stenc_timer *timer, const bench_options *o) {
    size_t count = (size_t)(o->copy_mb * 1e6 / sizeof(double));
    double *src = malloc(count * sizeof *src), *dst = malloc(count * sizeof *dst);
    if (!src || !dst) {
        free(src), free(dst);
        return NAN;
    }
#pragma omp parallel for schedule(static)
    for (size_t e = 0; e < count; e++)
        src[e] = (double)e, dst[e] = 0; /* first touch */
    double t[64];
    int reps = o->reps < 64 ? o->reps : 64;
    for (int r = -1; r < reps; r++) {
        now_seconds(timer, 1);
#pragma omp parallel for schedule(static)
        for (size_t e = 0; e < count; e++)
            dst[e] = src[e];
        double s = now_seconds(timer, 0);
        if (r >= 0) t[r] = s;
    }
    /* Keep the copy observable. */
    volatile double sink = dst[count / 2];
    (void)sink;
    free(src), free(dst);
    return 2.0 * (double)count * sizeof(double) / median(t, reps) * 1e-9;
}

/* Median seconds of `run` over the reps, after one warm-up call. */
static double time_runs(stenc_timer *timer, stencil_run_fn run, stenc_ctx *ctx,
                        const stencil_case *c, stenc_field **f, int reps, int *ok) {
    double t[64];
    if (reps > 64) reps = 64;
    for (int r = -1; r < reps; r++) {
        now_seconds(timer, 1);
        stenc_status st = run(ctx, c->scalars, f);
        double s = now_seconds(timer, 0);
        if (st != STENC_OK) {
            fprintf(stderr, "bench_cpu: %s failed: %s\n", c->name, stenc_last_error());
            *ok = 0;
            return NAN;
        }
        if (r >= 0) t[r] = s;
    }
    return median(t, reps);
}

static void parse(int argc, char **argv, bench_options *o) {
    o->reps = BENCH_DEFAULT_REPS, o->quick = 0, o->only = NULL;
    o->set_mb = BENCH_DEFAULT_SET_MB, o->copy_mb = BENCH_COPY_ARRAY_MB;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--quick") == 0) {
            o->quick = 1, o->reps = 2;
            o->set_mb = BENCH_QUICK_SET_MB, o->copy_mb = BENCH_QUICK_COPY_MB;
        } else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc)
            o->reps = atoi(argv[++a]);
        else if (strcmp(argv[a], "--set-mb") == 0 && a + 1 < argc)
            o->set_mb = atof(argv[++a]);
        else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc)
            o->only = argv[++a];
        else {
            printf("usage: %s [--quick] [--reps N] [--set-mb MB] [--only STENCIL] [--quiet]\n",
                   argv[0]);
            exit(strcmp(argv[a], "--help") == 0 ? 0 : 2);
        }
    }
    if (o->reps < 1) o->reps = 1;
}

typedef struct row {
    const char *name, *precision, *impl;
    char size[48];
    double gpts, gbs, ratio_copy, ratio_ref, ref_gpts;
    int correct;
} row;

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    bench_options o;
    parse(argc, argv, &o);
    stenc_ctx *ctx;
    stenc_timer *timer;
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK ||
        stenc_timer_create(ctx, &timer) != STENC_OK) {
        fprintf(stderr, "bench_cpu: %s\n", stenc_last_error());
        return 1;
    }
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    double copy_gbs = copy_bandwidth(timer, &o);
    printf("name=copy target=cpu precision=double size=%.0fMB gbs=%.2f threads=%d\n", o.copy_mb,
           copy_gbs, threads);

    int count, failed = 0, nrows = 0;
    const stencil_case *cases = stencil_cases(&count);
    row rows[16];
    progress prog;
    progress_begin(&prog, "bench_cpu");
    for (int ci = 0; ci < count; ci++) {
        const stencil_case *c = &cases[ci];
        progress_update(&prog, ci, count); /* every case moves about the same working set */
        if (o.only && strcmp(o.only, c->name) != 0) continue;
        size_t esize = stenc_type_size(c->type);
        double bytes_per_point = (double)(c->ninputs + c->noutputs) * (double)esize;
        double points = o.set_mb * 1e6 / bytes_per_point;
        size_t side = (size_t)floor(c->dims == 3 ? cbrt(points) : sqrt(points));
        size_t n[3] = {side, c->dims >= 2 ? side : 1, c->dims >= 3 ? side : 1};
        stenc_field *gen[STENCIL_CASE_MAX_FIELDS], *ref[STENCIL_CASE_MAX_FIELDS];
        if (stencil_case_create(ctx, c, n, c->halo, gen) != STENC_OK) {
            fprintf(stderr, "bench_cpu: %s: %s\n", c->name, stenc_last_error());
            return 1;
        }
        for (int a = 0; a < c->ninputs; a++)
            ref[a] = gen[a];
        for (int a = c->ninputs; a < c->ninputs + c->noutputs; a++)
            if (stenc_field_create(ctx, &ref[a], c->type, c->dims, n[0], n[1], n[2], c->halo) !=
                STENC_OK) {
                fprintf(stderr, "bench_cpu: %s: %s\n", c->name, stenc_last_error());
                return 1;
            }
        c->randomize(gen, c->ninputs, 42);
        int ok = 1;
        double total = (double)n[0] * (double)n[1] * (double)n[2];
        double ref_s = time_runs(timer, c->reference, ctx, c, ref, o.reps, &ok);
        double gen_s =
            c->generated ? time_runs(timer, c->generated, ctx, c, gen, o.reps, &ok) : NAN;
        row *rw = &rows[nrows++];
        rw->name = c->name;
        rw->precision = stenc_type_name(c->type);
        snprintf(rw->size, sizeof rw->size, c->dims == 3 ? "%zux%zux%zu" : "%zux%zu", n[0], n[1],
                 n[2]);
        rw->ref_gpts = total / ref_s * 1e-9;
        rw->correct = ok;
        if (c->generated && ok) {
            for (int a = c->ninputs; a < c->ninputs + c->noutputs; a++) {
                char msg[200];
                size_t bad = stencil_compare_interior(gen[a], ref[a], 0, msg, sizeof msg);
                if (bad) {
                    fprintf(stderr, "bench_cpu: %s output %s: %zu points differ, first %s\n",
                            c->name, c->field_names[a], bad, msg);
                    rw->correct = 0;
                }
            }
        }
        double secs = c->generated ? gen_s : ref_s;
        rw->impl = c->generated ? "generated" : "reference";
        rw->gpts = total / secs * 1e-9;
        rw->gbs = rw->gpts * bytes_per_point;
        rw->ratio_copy = rw->gbs / copy_gbs;
        rw->ratio_ref = c->generated ? ref_s / gen_s : 1.0;
        if (!rw->correct) failed = 1;
        printf("name=%s target=cpu precision=%s size=%s impl=%s gpts=%.4f gbs=%.2f "
               "ratio_copy=%.3f ratio_ref=%.3f ref_gpts=%.4f check=%s\n",
               rw->name, rw->precision, rw->size, rw->impl, rw->gpts, rw->gbs, rw->ratio_copy,
               rw->ratio_ref, rw->ref_gpts, rw->correct ? "ok" : "FAILED");
        fflush(stdout);
        for (int a = c->ninputs; a < c->ninputs + c->noutputs; a++)
            stenc_field_free(ref[a]);
        stencil_case_free(c, gen);
    }

    printf("\nCPU: %s, copy bandwidth %.2f GB/s (read+write), median of %d runs\n",
           stenc_ctx_device_name(ctx), copy_gbs, o.reps);
    printf("%-11s %-7s %-12s %-10s %8s %8s %10s %10s %9s %6s\n", "stencil", "type", "size", "impl",
           "Gpts/s", "GB/s", "of copy", "ref Gpts/s", "gen/ref", "check");
    for (int r = 0; r < nrows; r++)
        printf("%-11s %-7s %-12s %-10s %8.3f %8.2f %9.1f%% %10.3f %9.2f %6s\n", rows[r].name,
               rows[r].precision, rows[r].size, rows[r].impl, rows[r].gpts, rows[r].gbs,
               100 * rows[r].ratio_copy, rows[r].ref_gpts, rows[r].ratio_ref,
               rows[r].correct ? "ok" : "FAILED");
    stenc_timer_destroy(timer);
    stenc_ctx_destroy(ctx);
    return failed ? 1 : 0;
}
