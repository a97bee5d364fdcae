/* The 2-D heat equation u_t = u_xx + u_yy on the unit square, zero boundary values, solved with
 * the Peaceman-Rachford ADI scheme (Gems ch. 23 uses the same splitting): each step is a sweep
 * of tridiagonal solves along x (contiguous systems) and one along y (interleaved systems, the
 * layout the sweep produces), on the CPU or the GPU. Two ways, timed side by side: by hand
 * (an explicit half step of its own, then stenc_tridiag_solve on arrays it fills) and in the
 * stencil language (adi.stencil: the stencils adi_x and adi_y, each one line solve).
 * The initial value sin(pi x) sin(pi y) decays as exp(-2 pi^2 t): the program prints the max
 * error on each grid, and --check requires it to fall about 4x per halving of h (dt = h/4, so
 * the scheme is second order in h), and the two ways to agree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adi_rhs.h"
#include "adi_x.h"
#include "adi_y.h"
#include "stenc/stenc.h"

#define EXAMPLE_NAME "adi_heat"
#include "example_util.h"

#define ADI_MAX_GRIDS 8
#define ADI_END_TIME 0.05
/* --check: the error ratio between successive grids (halving h: about 4) and the largest error */
#define ADI_CHECK_MIN_RATIO 3.0
#define ADI_CHECK_MAX_RATIO 5.0
#define ADI_CHECK_MAX_ERROR 1e-2
/* --check: the largest difference between the two ways, against the solution's maximum */
#define ADI_CHECK_AGREE 1e-12

static const double kPi = 3.14159265358979323846;

typedef struct adi_options {
    long grids[ADI_MAX_GRIDS];
    int ngrids;
    stenc_device device;
    int check;
} adi_options;

static void usage(const char *prog) {
    printf("usage: %s [--grids 255] [--device auto|cpu|cuda] [--check] [--quiet] [--help]\n"
           "  --grids   interior points per side of each grid (default 255; with --check\n"
           "            15,31,63,127); each 1..16383\n"
           "  --device  auto (the GPU when there is one), cpu or cuda (default auto)\n"
           "  --check   exit 1 unless every error is below %g and it falls %.0f..%.0fx per\n"
           "            halving of h, and the two ways (by hand, adi.stencil) agree to %g\n"
           "            of the solution's maximum\n"
           "  --quiet   no progress lines (printed on stderr when it is a terminal)\n",
           prog, ADI_CHECK_MAX_ERROR, ADI_CHECK_MIN_RATIO, ADI_CHECK_MAX_RATIO, ADI_CHECK_AGREE);
}

static int parse_args(int argc, char **argv, adi_options *o) {
    const long check_grids[] = {15, 31, 63, 127};
    int have_grids = 0;
    memset(o, 0, sizeof *o);
    o->grids[0] = 255, o->ngrids = 1, o->device = STENC_DEVICE_AUTO;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(arg, "--check") == 0) {
            o->check = 1;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return usage(EXAMPLE_NAME), -1;
        if (!val) return fprintf(stderr, "%s needs a value (--help)\n", arg), -2;
        a++;
        if (strcmp(arg, "--grids") == 0) {
            o->ngrids = example_parse_sizes(val, o->grids, ADI_MAX_GRIDS, 1, 16383);
            if (o->ngrids < 0) return -2;
            have_grids = 1;
        } else if (strcmp(arg, "--device") == 0) {
            if (example_parse_device(val, &o->device) != 0) return -2;
        } else
            return fprintf(stderr, "unknown option %s (--help)\n", arg), -2;
    }
    if (o->check && !have_grids) {
        memcpy(o->grids, check_grids, sizeof check_grids);
        o->ngrids = 4;
    }
    return 0;
}

/* The explicit half step on the context's device. */
static stenc_status rhs(stenc_ctx *ctx, int dir, const double *u, double *out, int n,
                        double half_r) {
    if (stenc_ctx_device(ctx) == STENC_DEVICE_CUDA) {
#ifdef STENC_HAVE_CUDA
        if (adi_rhs_cuda(dir, u, out, n, half_r, stenc_ctx_cuda_stream(ctx)) == 0) return STENC_OK;
#endif
        return stenc_set_error(STENC_ERR_CUDA, __FILE__, __LINE__, "adi_rhs_cuda failed");
    }
    const int step = dir == 1 ? n : 1;
#pragma omp parallel for
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            long k = (long)j * n + i;
            int at = dir == 1 ? j : i;
            double lo = at > 0 ? u[k - step] : 0.0, hi = at < n - 1 ? u[k + step] : 0.0;
            out[k] = u[k] + half_r * (lo - 2.0 * u[k] + hi);
        }
    return STENC_OK;
}

/* Time steps on an n x n grid: dt = h/4 up to ADI_END_TIME. */
static int adi_steps(int n) {
    const double h = 1.0 / (n + 1);
    return (int)ceil(ADI_END_TIME / (h / 4));
}

/* The initial value at the interior points, i fastest. */
static void initial_value(double *u, int n) {
    const double h = 1.0 / (n + 1);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            u[(size_t)j * n + i] = sin(kPi * (i + 1) * h) * sin(kPi * (j + 1) * h);
}

/* The largest error of u (i fastest) against the exact solution at t = steps * dt. */
static double max_error(const double *u, int n) {
    const double h = 1.0 / (n + 1), decay = exp(-2 * kPi * kPi * adi_steps(n) * (h / 4));
    double err = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double exact = decay * sin(kPi * (i + 1) * h) * sin(kPi * (j + 1) * h);
            double e = fabs(u[(size_t)j * n + i] - exact);
            if (!(e <= err)) err = isnan(e) ? INFINITY : e;
        }
    return err;
}

/* By hand: runs to ADI_END_TIME with dt = h/4 and leaves the solution in `host` (n*n, i
 * fastest). *work_done grows by n^2 per step (the progress lines). */
static int solve_hand(stenc_ctx *ctx, int n, double *host, double *ms_per_step, progress *prog,
                      double *work_done, double work_total) {
    const double h = 1.0 / (n + 1), dt = h / 4, half_r = 0.5 * dt / (h * h);
    const int steps = adi_steps(n);
    size_t count = (size_t)n * n, bytes = count * sizeof(double);
    double *coef = malloc(bytes);
    void *a = NULL, *b = NULL, *c = NULL, *u = NULL, *tmp = NULL;
    stenc_tridiag_report *report = NULL;
    stenc_timer *timer = NULL;
    int ok = 0;
    if (!coef) {
        fprintf(stderr, "adi_heat: out of memory\n");
        goto fail;
    }
    TRY(stenc_malloc(ctx, &a, bytes));
    TRY(stenc_malloc(ctx, &b, bytes));
    TRY(stenc_malloc(ctx, &c, bytes));
    TRY(stenc_malloc(ctx, &u, bytes));
    TRY(stenc_malloc(ctx, &tmp, bytes));
    /* (I - r/2 delta^2) is the same matrix along x and y on a square grid. */
    for (size_t k = 0; k < count; k++)
        coef[k] = -half_r;
    TRY(stenc_upload(ctx, a, coef, bytes));
    TRY(stenc_upload(ctx, c, coef, bytes));
    for (size_t k = 0; k < count; k++)
        coef[k] = 1.0 + 2.0 * half_r;
    TRY(stenc_upload(ctx, b, coef, bytes));
    initial_value(host, n);
    TRY(stenc_upload(ctx, u, host, bytes));

    TRY(stenc_tridiag_report_create(ctx, &report));
    stenc_tridiag_options opt = {STENC_TRIDIAG_AUTO, 0, report};
    TRY(stenc_timer_create(ctx, &timer));
    TRY(stenc_timer_start(timer));
    for (int s = 0; s < steps; s++) {
        /* x-implicit half step: row j is system j, contiguous. */
        TRY(rhs(ctx, 1, u, tmp, n, half_r));
        TRY(stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_CONTIGUOUS, n, n, a, b, c, tmp, u,
                                &opt));
        /* y-implicit half step: column i is system i, element j at j*n + i: interleaved. */
        TRY(rhs(ctx, 0, u, tmp, n, half_r));
        TRY(stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_INTERLEAVED, n, n, a, b, c, tmp, u,
                                &opt));
        *work_done += (double)count;
        progress_update(prog, *work_done, work_total);
    }
    double ms;
    TRY(stenc_timer_stop(timer, &ms));
    TRY(stenc_tridiag_report_check(report, NULL));
    *ms_per_step = ms / steps;
    TRY(stenc_download(ctx, host, u, bytes));
    ok = 1;
fail:
    stenc_timer_destroy(timer);
    stenc_tridiag_report_destroy(report);
    stenc_free(ctx, a), stenc_free(ctx, b), stenc_free(ctx, c), stenc_free(ctx, u);
    stenc_free(ctx, tmp);
    free(coef);
    return ok ? 0 : -1;
}

/* In the stencil language: the same steps by adi_x and adi_y on fields whose zero halos are
 * the boundary values. Like the hand-written loop, the launches record singular lines into a
 * report checked once at the end, instead of waiting for each solve. */
static int solve_stencil(stenc_ctx *ctx, int n, double *host, double *ms_per_step, progress *prog,
                         double *work_done, double work_total) {
    const double h = 1.0 / (n + 1), dt = h / 4, half_r = 0.5 * dt / (h * h);
    const int steps = adi_steps(n);
    stenc_field *u = NULL, *w = NULL;
    stenc_timer *timer = NULL;
    stenc_tridiag_report *report = NULL;
    int ok = 0;
    TRY(stenc_tridiag_report_create(ctx, &report));
    TRY(stenc_tridiag_defer_lines(ctx, report));
    TRY(stenc_field_create(ctx, &u, STENC_F64, 2, (size_t)n, (size_t)n, 1, 1));
    TRY(stenc_field_create(ctx, &w, STENC_F64, 2, (size_t)n, (size_t)n, 1, 1));
    TRY(stenc_field_fill(u, 0));
    TRY(stenc_field_fill(w, 0));
    initial_value(host, n);
    TRY(stenc_field_copy_from(u, host));
    TRY(stenc_field_upload(u));
    TRY(stenc_field_upload(w));
    TRY(stenc_timer_create(ctx, &timer));
    TRY(stenc_timer_start(timer));
    for (int s = 0; s < steps; s++) {
        TRY(adi_x(ctx, half_r, u, w));
        TRY(adi_y(ctx, half_r, w, u));
        *work_done += (double)n * n;
        progress_update(prog, *work_done, work_total);
    }
    double ms;
    TRY(stenc_timer_stop(timer, &ms));
    *ms_per_step = ms / steps;
    TRY(stenc_tridiag_report_check(report, NULL));
    TRY(stenc_field_download(u));
    TRY(stenc_field_copy_to(u, host));
    ok = 1;
fail:
    stenc_tridiag_defer_lines(ctx, NULL);
    stenc_tridiag_report_destroy(report);
    stenc_timer_destroy(timer);
    stenc_field_free(u), stenc_field_free(w);
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    adi_options o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed == -1) return 0;
    if (parsed < 0) return 2;
    stenc_ctx *ctx;
    if (stenc_ctx_create(&ctx, o.device) != STENC_OK) {
        fprintf(stderr, "adi_heat: %s\n", stenc_last_error());
        return 1;
    }
    printf("adi_heat: u_t = laplace(u) on the unit square, Peaceman-Rachford ADI to t = %g\n"
           "device: %s\n",
           ADI_END_TIME, stenc_ctx_device_name(ctx));
    double work_done = 0, work_total = 0, prev = 0;
    for (int g = 0; g < o.ngrids; g++)
        work_total += 2.0 * (double)o.grids[g] * (double)o.grids[g] * adi_steps((int)o.grids[g]);
    progress prog;
    progress_begin(&prog, "adi_heat");
    int ok = 1;
    for (int g = 0; g < o.ngrids; g++) {
        const int n = (int)o.grids[g];
        const size_t count = (size_t)n * n;
        double *hand = malloc(count * sizeof *hand), *lang = malloc(count * sizeof *lang);
        double ms_hand = 0, ms_lang = 0;
        if (!hand || !lang ||
            solve_hand(ctx, n, hand, &ms_hand, &prog, &work_done, work_total) != 0 ||
            solve_stencil(ctx, n, lang, &ms_lang, &prog, &work_done, work_total) != 0) {
            if (!hand || !lang) fprintf(stderr, "adi_heat: out of memory\n");
            free(hand), free(lang);
            stenc_ctx_destroy(ctx);
            return 1;
        }
        const double err = max_error(hand, n), err_lang = max_error(lang, n);
        double diff = 0, top = 0;
        for (size_t k = 0; k < count; k++) {
            const double d = fabs(hand[k] - lang[k]);
            if (!(d <= diff)) diff = isnan(d) ? INFINITY : d;
            if (fabs(hand[k]) > top) top = fabs(hand[k]);
        }
        free(hand), free(lang);
        printf("N=%d h=%.5f max error %.3e  by hand %.3f ms/step, adi.stencil %.3f ms/step "
               "(%.2fx), difference %.1e",
               n, 1.0 / (n + 1), err, ms_hand, ms_lang, ms_lang / ms_hand, diff);
        if (g > 0) {
            double ratio = prev / err;
            printf("  error ratio %.2f", ratio);
            if (!(ratio > ADI_CHECK_MIN_RATIO && ratio < ADI_CHECK_MAX_RATIO)) ok = 0;
        }
        printf("\n");
        fflush(stdout);
        if (!(err < ADI_CHECK_MAX_ERROR) || !(err_lang < ADI_CHECK_MAX_ERROR)) ok = 0;
        if (!(diff <= ADI_CHECK_AGREE * top)) ok = 0;
        prev = err;
    }
    stenc_ctx_destroy(ctx);
    if (o.check) {
        printf("check: %s (second-order convergence; the two ways agree to %g)\n",
               ok ? "passed" : "FAILED", ADI_CHECK_AGREE);
        return ok ? 0 : 1;
    }
    return 0;
}
