/* Batched Nelder-Mead benchmark, the chapter's experiment scaled up: M two-dimensional
 * problems "distance from x to the unit circle", started uniformly in [-2, 2]^2, with a fixed
 * iteration count (mode=fixed) and with a size tolerance (mode=tol). Peers: GSL nmsimplex2 on
 * one core (timed on a subset of gsl_subset problems and scaled per problem: the cost of one
 * problem does not depend on M), stenc on one core and on all cores, stenc on the GPU (kernel
 * time with CUDA events, median of runs after a warm-up; also end to end with the copies).
 * Every run is checked: GPU against CPU, and every problem against the known minimum.
 *
 * Usage: bench_nelder_mead [max_m] [--quiet]   (max_m default 4000000; --quiet: no progress
 * lines, which go to stderr when it is a terminal) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multimin.h>

#include "progress.h"
#include "stenc/stenc.h"
#include "stenc/nelder_mead.h"

enum { DIM = 2, GPU_RUNS = 5, CPU_RUNS = 3 };
static const size_t sizes[] = {150000, 450000, 1000000, 4000000};
static const size_t gsl_subset = 100000;
static const int fixed_iters = 100;
static const double tol = 1e-8, step = 0.1;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        stenc_status st_ = (call);                                                                 \
        if (st_ != STENC_OK) {                                                                     \
            fprintf(stderr, "%s failed: %s\n", #call, stenc_last_error());                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double circle_gsl(const gsl_vector *v, void *p) {
    (void)p;
    return fabs(hypot(gsl_vector_get(v, 0), gsl_vector_get(v, 1)) - 1.0);
}

static stenc_nm_options mode_options(int tol_mode) {
    stenc_nm_options o = stenc_nm_default_options();
    o.initial_step = step;
    o.max_iter = tol_mode ? 1000 : fixed_iters;
    o.size_tol = tol_mode ? tol : 0;
    return o;
}

/* GSL nmsimplex2, one core, the same start points, step and stopping rules. */
static double time_gsl(const double *x0, size_t m, int tol_mode, double *mean_iters,
                       double *worst_f) {
    gsl_multimin_fminimizer *s =
        gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, DIM);
    gsl_vector *start = gsl_vector_alloc(DIM), *steps = gsl_vector_alloc(DIM);
    gsl_vector_set_all(steps, step);
    gsl_multimin_function F = {.f = circle_gsl, .n = DIM, .params = NULL};
    const stenc_nm_options o = mode_options(tol_mode);
    long total = 0;
    double worst = 0;
    double t0 = progress_now_s();
    for (size_t i = 0; i < m; i++) {
        gsl_vector_set(start, 0, x0[2 * i]), gsl_vector_set(start, 1, x0[2 * i + 1]);
        gsl_multimin_fminimizer_set(s, &F, start, steps);
        int it = 0;
        while (it < o.max_iter) {
            it++;
            if (gsl_multimin_fminimizer_iterate(s)) break;
            if (tol_mode &&
                gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), tol) == GSL_SUCCESS)
                break;
        }
        total += it;
        if (s->fval > worst) worst = s->fval;
    }
    double t = progress_now_s() - t0;
    gsl_vector_free(start), gsl_vector_free(steps);
    gsl_multimin_fminimizer_free(s);
    *mean_iters = (double)total / (double)m;
    *worst_f = worst;
    return t;
}

typedef struct run_result {
    double ms, ms_with_copies, worst_f, mean_iters;
} run_result;

/* stenc on ctx: median kernel time over `runs` after a warm-up; results left in f_out. */
static run_result time_stenc(stenc_ctx *ctx, const double *x0_host, size_t m, int tol_mode,
                             int runs, double *f_out, int32_t *iters_out) {
    const stenc_nm_circle_params circle = {.center = {0, 0}, .radius = 1};
    void *x0, *x, *f, *iters, *params;
    CHECK(stenc_malloc(ctx, &x0, m * DIM * sizeof(double)));
    CHECK(stenc_malloc(ctx, &x, m * DIM * sizeof(double)));
    CHECK(stenc_malloc(ctx, &f, m * sizeof(double)));
    CHECK(stenc_malloc(ctx, &iters, m * sizeof(int32_t)));
    CHECK(stenc_malloc(ctx, &params, sizeof circle));
    CHECK(stenc_upload(ctx, params, &circle, sizeof circle));
    double t0 = progress_now_s();
    CHECK(stenc_upload(ctx, x0, x0_host, m * DIM * sizeof(double)));
    stenc_nm_batch b = {
        .count = m, .dim = DIM, .x0 = x0, .params = params, .x = x, .f = f, .iters = iters};
    const stenc_nm_options o = mode_options(tol_mode);
    CHECK(stenc_nm_minimize(ctx, STENC_NM_CIRCLE, &b, &o)); /* warm-up, and the copies */
    CHECK(stenc_download(ctx, f_out, f, m * sizeof(double)));
    run_result r = {.ms_with_copies = 1e3 * (progress_now_s() - t0)};
    stenc_timer *timer;
    CHECK(stenc_timer_create(ctx, &timer));
    double ms[16];
    for (int k = 0; k < runs; k++) {
        CHECK(stenc_timer_start(timer));
        CHECK(stenc_nm_minimize(ctx, STENC_NM_CIRCLE, &b, &o));
        CHECK(stenc_timer_stop(timer, &ms[k]));
    }
    qsort(ms, (size_t)runs, sizeof ms[0], cmp_double);
    r.ms = ms[runs / 2];
    CHECK(stenc_download(ctx, f_out, f, m * sizeof(double)));
    CHECK(stenc_download(ctx, iters_out, iters, m * sizeof(int32_t)));
    long total = 0;
    for (size_t i = 0; i < m; i++) {
        if (f_out[i] > r.worst_f || isnan(f_out[i]))
            r.worst_f = isnan(f_out[i]) ? INFINITY : f_out[i];
        total += iters_out[i];
    }
    r.mean_iters = (double)total / (double)m;
    stenc_timer_destroy(timer);
    stenc_free(ctx, x0), stenc_free(ctx, x), stenc_free(ctx, f), stenc_free(ctx, iters);
    stenc_free(ctx, params);
    return r;
}

typedef struct row {
    const char *target, *mode;
    size_t m;
    double ms, mps, ratio, iters, worst_f;
} row;

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    size_t max_m = argc > 1 ? (size_t)atoll(argv[1]) : 4000000;
    size_t top = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        if (sizes[s] <= max_m) top = sizes[s];
    if (!top) top = max_m;
    double *x0 = malloc(top * DIM * sizeof(double));
    double *f_cpu = malloc(top * sizeof(double)), *f_gpu = malloc(top * sizeof(double));
    int32_t *it = malloc(top * sizeof(int32_t));
    uint64_t state = 12345;
    for (size_t i = 0; i < top * DIM; i++) { /* xorshift: the same points every run */
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        x0[i] = -2.0 + 4.0 * (double)(state >> 11) * 0x1.0p-53;
    }
    stenc_ctx *cpu, *gpu = NULL;
    CHECK(stenc_ctx_create(&cpu, STENC_DEVICE_CPU));
    if (stenc_cuda_device_count() > 0) CHECK(stenc_ctx_create(&gpu, STENC_DEVICE_CUDA));
    const int threads = omp_get_max_threads();
    printf("# device: %s; CPU: %d threads; GSL timed on %zu problems and scaled per problem\n",
           gpu ? stenc_ctx_device_name(gpu) : "none", threads, gsl_subset);
    row rows[64];
    int nrows = 0, failed = 0;
    /* The progress lines count cases: per mode GSL, stenc on one core, and each size. */
    int cases = 2, done = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && sizes[s] <= top; s++)
        cases++;
    progress prog;
    progress_begin(&prog, "bench_nelder_mead");
    for (int tol_mode = 0; tol_mode < 2; tol_mode++) {
        const char *mode = tol_mode ? "tol" : "fixed";
        size_t sub = gsl_subset < top ? gsl_subset : top;
        double gsl_iters, gsl_worst;
        double gsl_s = time_gsl(x0, sub, tol_mode, &gsl_iters, &gsl_worst);
        progress_update(&prog, ++done, 2.0 * cases);
        double gsl_per_problem = gsl_s / (double)sub;
        rows[nrows++] =
            (row){"gsl_1core", mode,      sub,      1e3 * gsl_s, 1e-6 * (double)sub / gsl_s,
                  1.0,         gsl_iters, gsl_worst};
        /* stenc on one core, same subset: the per-core comparison */
        omp_set_num_threads(1);
        run_result one = time_stenc(cpu, x0, sub, tol_mode, 1, f_cpu, it);
        omp_set_num_threads(threads);
        progress_update(&prog, ++done, 2.0 * cases);
        rows[nrows++] = (row){"stenc_cpu_1core",
                              mode,
                              sub,
                              one.ms,
                              1e-3 * (double)sub / one.ms,
                              gsl_per_problem * (double)sub * 1e3 / one.ms,
                              one.mean_iters,
                              one.worst_f};
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && sizes[s] <= top; s++) {
            size_t m = sizes[s];
            double gsl_ms = gsl_per_problem * (double)m * 1e3;
            run_result c = time_stenc(cpu, x0, m, tol_mode, m > 1000000 ? 1 : CPU_RUNS, f_cpu, it);
            rows[nrows++] =
                (row){"stenc_cpu_all", mode,         m,        c.ms, 1e-3 * (double)m / c.ms,
                      gsl_ms / c.ms,   c.mean_iters, c.worst_f};
            if (gpu) {
                run_result g = time_stenc(gpu, x0, m, tol_mode, GPU_RUNS, f_gpu, it);
                rows[nrows++] =
                    (row){"stenc_cuda",  mode,         m,        g.ms, 1e-3 * (double)m / g.ms,
                          gsl_ms / g.ms, g.mean_iters, g.worst_f};
                rows[nrows++] = (row){"stenc_cuda_with_copies",
                                      mode,
                                      m,
                                      g.ms_with_copies,
                                      1e-3 * (double)m / g.ms_with_copies,
                                      gsl_ms / g.ms_with_copies,
                                      g.mean_iters,
                                      g.worst_f};
                /* check: GPU and CPU reach the same quality on every problem */
                size_t off = 0;
                for (size_t i = 0; i < m; i++)
                    off += fabs(f_gpu[i] - f_cpu[i]) > 1e-6;
                if (off) {
                    printf("# CHECK FAILED: %zu of %zu problems differ CPU vs GPU\n", off, m);
                    failed = 1;
                }
            }
            progress_update(&prog, ++done, 2.0 * cases);
            /* check: in tol mode every problem reached the circle */
            if (tol_mode && c.worst_f > 1e-6) {
                printf("# CHECK FAILED: worst f %g\n", c.worst_f);
                failed = 1;
            }
        }
    }
    for (int r = 0; r < nrows; r++)
        printf("name=nelder_mead target=%s precision=double m=%zu dim=%d mode=%s time_ms=%.3f "
               "mproblems_s=%.4f ratio_gsl=%.1f mean_iters=%.1f worst_f=%.3g\n",
               rows[r].target, rows[r].m, DIM, rows[r].mode, rows[r].ms, rows[r].mps, rows[r].ratio,
               rows[r].iters, rows[r].worst_f);
    printf("\n%-24s %-6s %9s %12s %12s %10s %8s\n", "target", "mode", "M", "time ms", "Mproblems/s",
           "x GSL", "iters");
    for (int r = 0; r < nrows; r++)
        printf("%-24s %-6s %9zu %12.3f %12.4f %10.1f %8.1f\n", rows[r].target, rows[r].mode,
               rows[r].m, rows[r].ms, rows[r].mps, rows[r].ratio, rows[r].iters);
    printf("\nchecks: %s\n", failed ? "FAILED" : "passed");
    stenc_ctx_destroy(cpu);
    stenc_ctx_destroy(gpu);
    free(x0), free(f_cpu), free(f_gpu), free(it);
    return failed;
}
