/* bench_multigrid: the colour sweeps of the Gauss-Seidel smoothers against their bytes-moved
 * bound, on the CPU and (when the colour stencils have CUDA kernels in this build) the GPU:
 *
 *   gs_redblack  (stencils/gs_redblack.stencil, 2-D double): one colour launch and one full
 *                red-black sweep (2 launches);
 *   gs27_8color  (stencils/gs27_8color.stencil, 3-D double, 27 coefficient fields): one full
 *                8-colour sweep.
 *
 * The bound: the traffic a launch cannot avoid with the field layout (i fastest, colours
 * interleaved within every cache line / memory transaction, so a launch moves whole lines of
 * every row it touches):
 *   red-black, one colour:  read u and f, write u, all rows:             24 B per grid point;
 *   8-colour, one colour:   read 27 coefficients + f on 1/4 of the rows (the colour's (j,k)
 *                           parity), read u on all rows, write u on 1/4:  66 B per grid point,
 *                           so 528 B per point for a sweep (a lexicographic sweep would need
 *                           240 B: the colouring reads every coefficient line twice).
 * Bound time = bytes / copy bandwidth, the copy measured in the same run on the same device
 * (an OpenMP copy loop on the CPU, stenc_memcpy on the GPU; read + write counted). Reported:
 * fraction = bound time / measured time. Medians of --reps timed runs after a warm-up; every
 * point of one launch is checked against a hand-written update in the same run, to 1e-12 of
 * the sum of the magnitudes of the update's terms (the update itself can cancel to near 0).
 *
 * The V-cycle times (at 4095^2, per level, CPU and GPU) come from the example
 * examples/poisson_multigrid (`poisson_multigrid --grids 4095 --device all`).
 *
 * Output: key=value lines, then a table. --quick: small sizes (a smoke test); --quiet: no
 * progress lines (on stderr, when it is a terminal). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs27_8color.h"
#include "gs_redblack.h"
#include "progress.h"
#include "stenc/stenc.h"

#define BMG_DEFAULT_REPS 9
#define BMG_RB_N 8192     /* 2 fields of 8192^2 doubles: 1.07 GB, beyond the caches */
#define BMG_C8_N 128      /* 29 fields of 128^3 doubles: 486 MB */
#define BMG_COPY_MB 512.0 /* per copy buffer */
#define BMG_QUICK_RB_N 256
#define BMG_QUICK_C8_N 24
#define BMG_QUICK_COPY_MB 8.0
#define BMG_RB_BYTES_PER_POINT 24.0
#define BMG_C8_BYTES_PER_POINT_COLOR 66.0
#define BMG_CHECK_TOL 1e-12 /* per point, relative to the sum of the magnitudes of its terms */
#define BMG_MAX_REPS 64

typedef struct bmg_options {
    int reps, quick;
    size_t rb_n, c8_n;
    double copy_mb;
} bmg_options;

typedef struct bmg_row {
    const char *name, *target, *what;
    char size[32];
    double ms, gbs, fraction;
    int check_ok;
} bmg_row;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static unsigned long long bmg_rng = 0x9E3779B97F4A7C15ull;
static double uniform(void) { /* [0, 1) */
    bmg_rng ^= bmg_rng << 13, bmg_rng ^= bmg_rng >> 7, bmg_rng ^= bmg_rng << 17;
    return (double)(bmg_rng >> 11) / 9007199254740992.0;
}

/* Copy bandwidth of the context's memory in GB/s (read + write). */
static double copy_bandwidth(stenc_ctx *ctx, stenc_timer *timer, const bmg_options *o) {
    size_t bytes = (size_t)(o->copy_mb * 1e6);
    double t[BMG_MAX_REPS], ms = 0, result = NAN;
    void *a = NULL, *b = NULL;
    if (stenc_malloc(ctx, &a, bytes) != STENC_OK || stenc_malloc(ctx, &b, bytes) != STENC_OK)
        goto done;
    if (stenc_ctx_device(ctx) == STENC_DEVICE_CPU) {
        double *s = a, *d = b;
        size_t n = bytes / sizeof(double);
#pragma omp parallel for schedule(static)
        for (size_t e = 0; e < n; e++)
            s[e] = (double)e, d[e] = 0; /* first touch */
        for (int r = -1; r < o->reps; r++) {
            stenc_timer_start(timer);
#pragma omp parallel for schedule(static)
            for (size_t e = 0; e < n; e++)
                d[e] = s[e];
            stenc_timer_stop(timer, &ms);
            if (r >= 0) t[r] = ms;
        }
    } else {
        if (stenc_memcpy(ctx, b, a, bytes) != STENC_OK) goto done; /* warm-up */
        for (int r = 0; r < o->reps; r++) {
            stenc_timer_start(timer);
            if (stenc_memcpy(ctx, b, a, bytes) != STENC_OK) goto done;
            stenc_timer_stop(timer, &ms);
            t[r] = ms;
        }
    }
    result = 2.0 * (double)bytes / (median(t, o->reps) * 1e-3) * 1e-9;
done:
    stenc_free(ctx, a);
    stenc_free(ctx, b);
    return result;
}

#define TRY(call)                                                                                  \
    do {                                                                                           \
        stenc_status st_ = (call);                                                                 \
        if (st_ != STENC_OK) {                                                                     \
            fprintf(stderr, "bench_multigrid: %s failed: %s\n", #call, stenc_last_error());        \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* ---- red-black ------------------------------------------------------------------------------ */

static int bench_redblack(stenc_ctx *ctx, stenc_timer *timer, const bmg_options *o, double copy_gbs,
                          const char *target, bmg_row rows[2]) {
    const size_t n = o->rb_n, count = n * n;
    const double h2 = 1.0 / (double)((n + 1) * (n + 1)), omega = 1.5;
    double *u0 = malloc(count * sizeof *u0), *f0 = malloc(count * sizeof *f0);
    double *u1 = malloc(count * sizeof *u1), t1[BMG_MAX_REPS], t2[BMG_MAX_REPS], ms;
    stenc_field *u = NULL, *f = NULL;
    int ok = 0;
    if (!u0 || !f0 || !u1) goto fail;
    for (size_t p = 0; p < count; p++)
        u0[p] = uniform(), f0[p] = uniform();
    TRY(stenc_field_create(ctx, &u, STENC_F64, 2, n, n, 1, GS_REDBLACK_HALO));
    TRY(stenc_field_create(ctx, &f, STENC_F64, 2, n, n, 1, 0));
    TRY(stenc_field_copy_from(u, u0));
    TRY(stenc_field_copy_from(f, f0));
    TRY(stenc_field_upload(u));
    TRY(stenc_field_upload(f));
    /* the check: colour 0 once from u0, every point against the update written out here
     * (halo zero) */
    TRY(gs_redblack(ctx, 0, h2, omega, u, f));
    TRY(stenc_field_download(u));
    TRY(stenc_field_copy_to(u, u1));
    double worst = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            size_t p = i + n * j;
            double expect = u0[p], scale = fabs(u0[p]);
            if ((i + j) % 2 == 0) {
                double s = (i > 0 ? u0[p - 1] : 0) + (i + 1 < n ? u0[p + 1] : 0) +
                           (j > 0 ? u0[p - n] : 0) + (j + 1 < n ? u0[p + n] : 0);
                expect = (1 - omega) * u0[p] + omega * 0.25 * (h2 * f0[p] + s);
                /* the terms are positive here (u0, f0 in [0, 1)), except (1 - omega) u0 */
                scale = fabs((1 - omega) * u0[p]) + omega * 0.25 * (h2 * f0[p] + s);
            }
            double e = fabs(u1[p] - expect) / (scale + 1e-300);
            if (!(e <= worst)) worst = e;
        }
    TRY(stenc_field_upload(u));
    for (int r = -1; r < o->reps; r++) {
        TRY(stenc_timer_start(timer));
        TRY(gs_redblack(ctx, 0, h2, omega, u, f));
        TRY(stenc_timer_stop(timer, &ms));
        if (r >= 0) t1[r] = ms;
        TRY(stenc_timer_start(timer));
        TRY(gs_redblack(ctx, 0, h2, omega, u, f));
        TRY(gs_redblack(ctx, 1, h2, omega, u, f));
        TRY(stenc_timer_stop(timer, &ms));
        if (r >= 0) t2[r] = ms;
    }
    const double bytes = BMG_RB_BYTES_PER_POINT * (double)count;
    const char *what[2] = {"one colour", "sweep (2 colours)"};
    double med[2] = {median(t1, o->reps), median(t2, o->reps)};
    for (int c = 0; c < 2; c++) {
        bmg_row *R = &rows[c];
        R->name = "gs_redblack", R->target = target, R->what = what[c];
        snprintf(R->size, sizeof R->size, "%zux%zu", n, n);
        R->ms = med[c];
        R->gbs = bytes * (c + 1) / (med[c] * 1e-3) * 1e-9;
        R->fraction = R->gbs / copy_gbs;
        R->check_ok = worst <= BMG_CHECK_TOL;
        printf("name=gs_redblack target=%s precision=double size=%s case=%s ms=%.4f "
               "bytes_per_point=%.0f gbs=%.2f fraction_of_bound=%.3f check=%s\n",
               target, R->size, c ? "sweep" : "colour", R->ms, BMG_RB_BYTES_PER_POINT * (c + 1),
               R->gbs, R->fraction, R->check_ok ? "ok" : "FAIL");
    }
    ok = 1;
fail:
    stenc_field_free(u);
    stenc_field_free(f);
    free(u0), free(f0), free(u1);
    return ok ? 0 : -1;
}

/* ---- 8 colours, variable coefficients ---------------------------------------------------- */

#define C8_NCOEF 27

static stenc_status c8_color(stenc_ctx *ctx, int color, stenc_field *u, stenc_field **c,
                             stenc_field *f) {
    return gs27_8color(ctx, color, u, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9],
                       c[10], c[11], c[12], c[13], c[14], c[15], c[16], c[17], c[18], c[19], c[20],
                       c[21], c[22], c[23], c[24], c[25], c[26], f);
}

static int bench_8color(stenc_ctx *ctx, stenc_timer *timer, const bmg_options *o, double copy_gbs,
                        const char *target, bmg_row *R) {
    const size_t n = o->c8_n, count = n * n * n;
    double *u0 = malloc(count * sizeof *u0), *u1 = malloc(count * sizeof *u1);
    double *f0 = malloc(count * sizeof *f0), *coef[C8_NCOEF] = {NULL}, t[BMG_MAX_REPS], ms;
    stenc_field *u = NULL, *f = NULL, *c[C8_NCOEF] = {NULL};
    int ok = 0;
    if (!u0 || !u1 || !f0) goto fail;
    for (size_t p = 0; p < count; p++)
        u0[p] = uniform(), f0[p] = uniform();
    TRY(stenc_field_create(ctx, &u, STENC_F64, 3, n, n, n, GS27_8COLOR_HALO));
    TRY(stenc_field_create(ctx, &f, STENC_F64, 3, n, n, n, 0));
    TRY(stenc_field_copy_from(u, u0));
    TRY(stenc_field_copy_from(f, f0));
    /* a diagonally dominant operator: off-diagonal -1/26 * (1 + 0.1 noise), diagonal 1.1 */
    for (int q = 0; q < C8_NCOEF; q++) {
        if (!(coef[q] = malloc(count * sizeof *coef[q]))) goto fail;
        for (size_t p = 0; p < count; p++)
            coef[q][p] = q == 13 ? 1.1 + 0.1 * uniform() : -(1 + 0.1 * uniform()) / 26;
        TRY(stenc_field_create(ctx, &c[q], STENC_F64, 3, n, n, n, 0));
        TRY(stenc_field_copy_from(c[q], coef[q]));
        TRY(stenc_field_upload(c[q]));
    }
    TRY(stenc_field_upload(u));
    TRY(stenc_field_upload(f));
    /* the check: colour 5 (i odd, j even, k odd) once from u0 */
    const int color = 5;
    TRY(c8_color(ctx, color, u, c, f));
    TRY(stenc_field_download(u));
    TRY(stenc_field_copy_to(u, u1));
    double worst = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                size_t p = i + n * (j + n * k);
                double expect = u0[p], scale = fabs(u0[p]);
                if ((int)(i % 2 + 2 * (j % 2) + 4 * (k % 2)) == color) {
                    double s = 0, sabs = fabs(f0[p]);
                    for (int q = 0; q < C8_NCOEF; q++) {
                        long ii = (long)i + q % 3 - 1, jj = (long)j + q / 3 % 3 - 1,
                             kk = (long)k + q / 9 - 1;
                        if (q == 13 || ii < 0 || jj < 0 || kk < 0 || ii >= (long)n ||
                            jj >= (long)n || kk >= (long)n)
                            continue;
                        double term =
                            coef[q][p] * u0[(size_t)ii + n * ((size_t)jj + n * (size_t)kk)];
                        s += term, sabs += fabs(term);
                    }
                    expect = (f0[p] - s) / coef[13][p];
                    scale = sabs / fabs(coef[13][p]);
                }
                double e = fabs(u1[p] - expect) / (scale + 1e-300);
                if (!(e <= worst)) worst = e;
            }
    TRY(stenc_field_upload(u));
    for (int r = -1; r < o->reps; r++) {
        TRY(stenc_timer_start(timer));
        for (int col = 0; col < 8; col++)
            TRY(c8_color(ctx, col, u, c, f));
        TRY(stenc_timer_stop(timer, &ms));
        if (r >= 0) t[r] = ms;
    }
    R->name = "gs27_8color", R->target = target, R->what = "sweep (8 colours)";
    snprintf(R->size, sizeof R->size, "%zux%zux%zu", n, n, n);
    R->ms = median(t, o->reps);
    R->gbs = 8 * BMG_C8_BYTES_PER_POINT_COLOR * (double)count / (R->ms * 1e-3) * 1e-9;
    R->fraction = R->gbs / copy_gbs;
    R->check_ok = worst <= BMG_CHECK_TOL;
    printf("name=gs27_8color target=%s precision=double size=%s case=sweep ms=%.4f "
           "bytes_per_point=%.0f gbs=%.2f fraction_of_bound=%.3f check=%s\n",
           target, R->size, R->ms, 8 * BMG_C8_BYTES_PER_POINT_COLOR, R->gbs, R->fraction,
           R->check_ok ? "ok" : "FAIL");
    ok = 1;
fail:
    for (int q = 0; q < C8_NCOEF; q++) {
        stenc_field_free(c[q]);
        free(coef[q]);
    }
    stenc_field_free(u);
    stenc_field_free(f);
    free(u0), free(u1), free(f0);
    return ok ? 0 : -1;
}

/* On a CUDA context: do the colour stencils run on device fields in this build? */
static int cuda_colour_kernels(stenc_ctx *ctx) {
    stenc_field *u = NULL, *f = NULL;
    int ok = stenc_field_create(ctx, &u, STENC_F64, 2, 4, 4, 1, 1) == STENC_OK &&
             stenc_field_create(ctx, &f, STENC_F64, 2, 4, 4, 1, 1) == STENC_OK &&
             stenc_field_upload(u) == STENC_OK && stenc_field_upload(f) == STENC_OK &&
             gs_redblack(ctx, 0, 1, 1, u, f) == STENC_OK && stenc_ctx_synchronize(ctx) == STENC_OK;
    stenc_field_free(u);
    stenc_field_free(f);
    return ok;
}

/* The progress lines count the three measurements of each device (the copy, the red-black
 * sweep, the 8-colour sweep) alike. */
static int run_device(stenc_ctx *ctx, const bmg_options *o, const char *target, bmg_row *rows,
                      int *nrows, double *copy_out, progress *prog, int first_step,
                      int total_steps) {
    stenc_timer *timer = NULL;
    if (stenc_timer_create(ctx, &timer) != STENC_OK) return -1;
    double copy = copy_bandwidth(ctx, timer, o);
    *copy_out = copy;
    printf("name=copy target=%s precision=double size=%.0fMB gbs=%.2f device=\"%s\"\n", target,
           o->copy_mb, copy, stenc_ctx_device_name(ctx));
    int rc = isfinite(copy) ? 0 : -1;
    progress_update(prog, first_step + 1, total_steps);
    if (rc == 0) rc = bench_redblack(ctx, timer, o, copy, target, rows + *nrows);
    progress_update(prog, first_step + 2, total_steps);
    if (rc == 0) *nrows += 2, rc = bench_8color(ctx, timer, o, copy, target, rows + *nrows);
    if (rc == 0) *nrows += 1;
    stenc_timer_destroy(timer);
    return rc;
}

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    bmg_options o = {BMG_DEFAULT_REPS, 0, BMG_RB_N, BMG_C8_N, BMG_COPY_MB};
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--quick") == 0)
            o.quick = 1, o.reps = 3, o.rb_n = BMG_QUICK_RB_N, o.c8_n = BMG_QUICK_C8_N,
            o.copy_mb = BMG_QUICK_COPY_MB;
        else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc)
            o.reps = atoi(argv[++a]);
        else {
            printf("usage: %s [--quick] [--reps N] [--quiet]\n", argv[0]);
            return strcmp(argv[a], "--help") == 0 ? 0 : 2;
        }
    }
    if (o.reps < 1) o.reps = 1;
    if (o.reps > BMG_MAX_REPS) o.reps = BMG_MAX_REPS;
    bmg_row rows[8];
    double copy[2] = {0, 0};
    int nrows = 0, failed = 0;
    stenc_ctx *ctx = NULL;
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) {
        fprintf(stderr, "bench_multigrid: %s\n", stenc_last_error());
        return 1;
    }
    progress prog;
    const int steps = stenc_cuda_device_count() > 0 ? 6 : 3;
    progress_begin(&prog, "bench_multigrid");
    failed |= run_device(ctx, &o, "cpu", rows, &nrows, &copy[0], &prog, 0, steps) != 0;
    stenc_ctx_destroy(ctx);
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CUDA) != STENC_OK)
        printf("note: no GPU run (%s)\n", stenc_last_error());
    else {
        if (cuda_colour_kernels(ctx))
            failed |= run_device(ctx, &o, "cuda", rows, &nrows, &copy[1], &prog, 3, steps) != 0;
        else
            printf("note: the colour stencils have no CUDA kernel in this build (%s); no GPU "
                   "run\n",
                   stenc_last_error());
        stenc_ctx_destroy(ctx);
    }
    printf("\n| stencil | target | size | case | ms | GB/s (bound bytes) | of copy |"
           " check |\n|---|---|---|---|---:|---:|---:|---|\n");
    for (int r = 0; r < nrows; r++) {
        printf("| %s | %s | %s | %s | %.4f | %.2f | %.3f | %s |\n", rows[r].name, rows[r].target,
               rows[r].size, rows[r].what, rows[r].ms, rows[r].gbs, rows[r].fraction,
               rows[r].check_ok ? "ok" : "FAIL");
        failed |= !rows[r].check_ok;
    }
    printf("copy bandwidth (read + write): cpu %.2f GB/s", copy[0]);
    if (copy[1] > 0) printf(", cuda %.2f GB/s", copy[1]);
    printf("\n");
    return failed ? 1 : 0;
}
