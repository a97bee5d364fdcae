/* bench_steps: heat3d_steps (stencils/heat3d.stencil, generated in double) with temporal
 * blocking against the same steps made one by one (STENC_STEPS_BLOCK=1), on fields far larger
 * than the caches, and against the copy bandwidth of an OpenMP copy loop measured in the same
 * run. A step's bytes are those of one sweep: x read and y written, 16 bytes a point; GB/s is
 * steps * bytes / time, so a blocked run can pass the copy rate. Median of several timed runs
 * after a warm-up; the blocked result is checked bit for bit against the plain steps.
 *
 * Usage: bench_steps [--quick] [N ...] (default 256 384); one key=value line per case, then a
 * table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "heat3d.h"
#include "stenc/stenc.h"

#define BENCH_REPS 5
#define BENCH_STEPS 16
#define BENCH_COPY_MB 512.0 /* per copy array */

static stenc_ctx *ctx;
static stenc_timer *timer;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void check(stenc_status st, const char *what) {
    if (st == STENC_OK) return;
    fprintf(stderr, "bench_steps: %s: %s\n", what, stenc_last_error());
    exit(1);
}

static void tick(void) {
    check(stenc_timer_start(timer), "timer");
}

static double tock(void) {
    double ms = 0;
    check(stenc_timer_stop(timer, &ms), "timer");
    return ms * 1e-3;
}

/* Copy bandwidth in GB/s, bytes read + written. */
static double copy_bandwidth(double mb, int reps) {
    const size_t count = (size_t)(mb * 1e6 / sizeof(double));
    double *src = malloc(count * sizeof *src), *dst = malloc(count * sizeof *dst);
    if (!src || !dst) exit(1);
#pragma omp parallel for schedule(static)
    for (size_t e = 0; e < count; e++)
        src[e] = (double)e, dst[e] = 0;
    double t[16];
    for (int r = -1; r < reps; r++) {
        tick();
#pragma omp parallel for schedule(static)
        for (size_t e = 0; e < count; e++)
            dst[e] = src[e];
        const double s = tock();
        if (r >= 0) t[r] = s;
    }
    volatile double sink = dst[count / 2];
    (void)sink;
    free(src), free(dst);
    return 2.0 * (double)count * sizeof(double) / median(t, reps) * 1e-9;
}

static void set_degree(int degree) {
    char text[16];
    if (degree)
        snprintf(text, sizeof text, "%d", degree);
    else
        strcpy(text, "auto");
    setenv("STENC_STEPS_BLOCK", text, 1);
}

static void randomize(stenc_field *f, size_t n) {
    double *dense = malloc(n * n * n * sizeof *dense);
    if (!dense) exit(1);
    for (size_t e = 0; e < n * n * n; e++)
        dense[e] = (double)((e * 2654435761u) % 1000) / 1000.0;
    check(stenc_field_copy_from(f, dense), "copy_from");
    free(dense);
}

/* Median seconds of nsteps steps at this degree (0: automatic), after a warm-up; *used is the
 * degree the launcher took. */
static double time_steps(stenc_field *x, stenc_field *y, int degree, int reps, int *used) {
    const stenc_bc bc[STENC_FACE_COUNT] = {{STENC_BC_PERIODIC, 0},  {STENC_BC_PERIODIC, 0},
                                           {STENC_BC_NEUMANN, 0},   {STENC_BC_NEUMANN, 0},
                                           {STENC_BC_DIRICHLET, 0}, {STENC_BC_DIRICHLET, 1}};
    set_degree(degree);
    double t[16];
    for (int r = -1; r < reps; r++) {
        tick();
        check(heat3d_steps(ctx, 0.4, 0.1, x, y, BENCH_STEPS, bc), "heat3d_steps");
        const double s = tock();
        if (r >= 0) t[r] = s;
    }
    *used = stenc_launch_steps_last_degree();
    return median(t, reps);
}

/* The interiors of two fields the same, bit for bit. */
static int same(const stenc_field *a, const stenc_field *b, size_t n) {
    double *da = malloc(n * n * n * sizeof *da), *db = malloc(n * n * n * sizeof *db);
    if (!da || !db) exit(1);
    check(stenc_field_copy_to(a, da), "copy_to");
    check(stenc_field_copy_to(b, db), "copy_to");
    const int ok = memcmp(da, db, n * n * n * sizeof *da) == 0;
    free(da), free(db);
    return ok;
}

int main(int argc, char **argv) {
    int quick = 0;
    size_t sizes[8], nsizes = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--quick") == 0)
            quick = 1;
        else if (nsizes < 8)
            sizes[nsizes++] = (size_t)strtoul(argv[a], NULL, 10);
    }
    if (!nsizes) {
        sizes[nsizes++] = quick ? 40 : 256;
        if (!quick) sizes[nsizes++] = 384;
    }
    const int reps = quick ? 1 : BENCH_REPS;
    check(stenc_ctx_create(&ctx, STENC_DEVICE_CPU), "context");
    check(stenc_timer_create(ctx, &timer), "timer");
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    const double copy = copy_bandwidth(quick ? 8.0 : BENCH_COPY_MB, reps);
    printf("name=copy target=cpu precision=double size=%.0fMB gbs=%.2f threads=%d\n",
           quick ? 8.0 : BENCH_COPY_MB, copy, threads);
    static const int degrees[] = {1, 0, 2, 4, 8, 16};
    enum { NDEG = sizeof degrees / sizeof degrees[0] };
    double secs[8][NDEG];
    int used[8][NDEG], ok[8];
    for (size_t z = 0; z < nsizes; z++) {
        const size_t n = sizes[z];
        stenc_field *x, *y, *rx, *ry;
        check(stenc_field_create(ctx, &x, STENC_F64, 3, n, n, n, 1), "field");
        check(stenc_field_create(ctx, &y, STENC_F64, 3, n, n, n, 1), "field");
        check(stenc_field_create(ctx, &rx, STENC_F64, 3, n, n, n, 1), "field");
        check(stenc_field_create(ctx, &ry, STENC_F64, 3, n, n, n, 1), "field");
        randomize(x, n), randomize(rx, n);
        for (int d = 0; d < NDEG; d++)
            secs[z][d] = time_steps(x, y, degrees[d], reps, &used[z][d]);
        /* Correctness: the same start, plain against automatic. */
        randomize(x, n), randomize(rx, n);
        int dummy;
        time_steps(rx, ry, 1, 1, &dummy);
        time_steps(x, y, 0, 1, &dummy);
        ok[z] = same(x, rx, n);
        const double pts = (double)n * n * n * BENCH_STEPS, bytes = pts * 2 * sizeof(double);
        for (int d = 0; d < NDEG; d++)
            printf("name=heat3d_steps target=cpu precision=double size=%zux%zux%zu steps=%d "
                   "block=%s degree=%d gpts=%.4f gbs=%.2f ratio_copy=%.3f ratio_plain=%.3f "
                   "check=%s\n",
                   n, n, n, BENCH_STEPS, degrees[d] ? "forced" : "auto", used[z][d],
                   pts / secs[z][d] * 1e-9, bytes / secs[z][d] * 1e-9,
                   bytes / secs[z][d] * 1e-9 / copy, secs[z][0] / secs[z][d],
                   ok[z] ? "ok" : "FAILED");
        stenc_field_free(x), stenc_field_free(y), stenc_field_free(rx), stenc_field_free(ry);
    }
    printf("\nCPU (%d threads), copy bandwidth %.2f GB/s (read+write), heat3d double, %d steps, "
           "median of %d runs\n",
           threads, copy, BENCH_STEPS, reps);
    printf("size         degree        ms/step   Gpts/s   GB/s   of copy  vs plain  check\n");
    for (size_t z = 0; z < nsizes; z++) {
        const size_t n = sizes[z];
        const double pts = (double)n * n * n * BENCH_STEPS, bytes = pts * 2 * sizeof(double);
        for (int d = 0; d < NDEG; d++) {
            char deg[24];
            snprintf(deg, sizeof deg, "%s%d", degrees[d] ? "" : "auto ", used[z][d]);
            char size[32];
            snprintf(size, sizeof size, "%zu^3", n);
            printf("%-12s %-12s %8.2f %8.3f %6.2f %8.1f%% %8.2f  %s\n", size, deg,
                   secs[z][d] * 1e3 / BENCH_STEPS, pts / secs[z][d] * 1e-9,
                   bytes / secs[z][d] * 1e-9, 100 * bytes / secs[z][d] * 1e-9 / copy,
                   secs[z][0] / secs[z][d], ok[z] ? "ok" : "FAILED");
        }
    }
    stenc_timer_destroy(timer);
    stenc_ctx_destroy(ctx);
    for (size_t z = 0; z < nsizes; z++)
        if (!ok[z]) return 1;
    return 0;
}
