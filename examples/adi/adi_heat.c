/* The 2-D heat equation u_t = u_xx + u_yy on the unit square, zero boundary values, solved with
 * the Peaceman-Rachford ADI scheme (Gems ch. 23 uses the same splitting): each step is a sweep
 * of tridiagonal solves along x (contiguous systems) and one along y (interleaved systems, the
 * layout the sweep produces), on the CPU or the GPU through stenc_tridiag_solve.
 * The initial value sin(pi x) sin(pi y) decays as exp(-2 pi^2 t): the program prints its error.
 *   adi_heat [N]      N interior points per side (default 255)
 *   adi_heat --check  N = 15, 31, 63, 127: exits 1 unless the error falls ~4x per halving of h
 * STENC_DEVICE=cpu|cuda picks the device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adi_rhs.h"
#include "stenc/tridiag.h"

static const double kPi = 3.14159265358979323846;
static const double kEndTime = 0.05;

#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != STENC_OK) {                                                                  \
            fprintf(stderr, "%s failed: %s\n", #call, stenc_last_error());                         \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static void rhs(stenc_ctx *ctx, int dir, const double *u, double *out, int n, double half_r) {
    if (stenc_ctx_device(ctx) == STENC_DEVICE_CUDA) {
#ifdef STENC_HAVE_CUDA
        if (adi_rhs_cuda(dir, u, out, n, half_r, stenc_ctx_cuda_stream(ctx)) == 0) return;
#endif
        fprintf(stderr, "adi: CUDA rhs kernel failed\n");
        exit(2);
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
}

/* Runs to kEndTime with dt = h/4 and returns the max error against the exact solution. */
static double solve_heat(stenc_ctx *ctx, int n, double *ms_per_step) {
    const double h = 1.0 / (n + 1), dt = h / 4, half_r = 0.5 * dt / (h * h);
    const int steps = (int)ceil(kEndTime / dt);
    const double t_end = steps * dt;
    size_t count = (size_t)n * n, bytes = count * sizeof(double);
    double *host = malloc(bytes), *coef = malloc(bytes);
    void *a, *b, *c, *u, *tmp;
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
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            host[(size_t)j * n + i] = sin(kPi * (i + 1) * h) * sin(kPi * (j + 1) * h);
    TRY(stenc_upload(ctx, u, host, bytes));

    stenc_tridiag_report *report;
    TRY(stenc_tridiag_report_create(ctx, &report));
    stenc_tridiag_options opt = {STENC_TRIDIAG_AUTO, 0, report};
    stenc_timer *timer;
    TRY(stenc_timer_create(ctx, &timer));
    TRY(stenc_timer_start(timer));
    for (int s = 0; s < steps; s++) {
        /* x-implicit half step: row j is system j, contiguous. */
        rhs(ctx, 1, u, tmp, n, half_r);
        TRY(stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_CONTIGUOUS, n, n, a, b, c, tmp, u,
                                &opt));
        /* y-implicit half step: column i is system i, element j at j*n + i: interleaved. */
        rhs(ctx, 0, u, tmp, n, half_r);
        TRY(stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_INTERLEAVED, n, n, a, b, c, tmp, u,
                                &opt));
    }
    double ms;
    TRY(stenc_timer_stop(timer, &ms));
    TRY(stenc_tridiag_report_check(report, NULL));
    *ms_per_step = ms / steps;
    TRY(stenc_download(ctx, host, u, bytes));
    double err = 0, decay = exp(-2 * kPi * kPi * t_end);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double exact = decay * sin(kPi * (i + 1) * h) * sin(kPi * (j + 1) * h);
            double e = fabs(host[(size_t)j * n + i] - exact);
            if (!(e <= err)) err = isnan(e) ? INFINITY : e;
        }
    stenc_timer_destroy(timer);
    stenc_tridiag_report_destroy(report);
    stenc_free(ctx, a), stenc_free(ctx, b), stenc_free(ctx, c), stenc_free(ctx, u);
    stenc_free(ctx, tmp);
    free(host), free(coef);
    return err;
}

int main(int argc, char **argv) {
    stenc_ctx *ctx;
    TRY(stenc_ctx_create(&ctx, STENC_DEVICE_AUTO));
    printf("device: %s\n", stenc_ctx_device_name(ctx));
    int check = argc > 1 && strcmp(argv[1], "--check") == 0;
    int fixed = argc > 1 && !check ? atoi(argv[1]) : 255;
    if (fixed < 1) {
        fprintf(stderr, "usage: adi_heat [N | --check]\n");
        return 2;
    }
    const int grid[] = {15, 31, 63, 127};
    int runs = check ? 4 : 1, ok = 1;
    double prev = 0;
    for (int k = 0; k < runs; k++) {
        int n = check ? grid[k] : fixed;
        double ms, err = solve_heat(ctx, n, &ms);
        printf("N=%d h=%.5f max error %.3e  %.3f ms/step", n, 1.0 / (n + 1), err, ms);
        if (k > 0) {
            double ratio = prev / err;
            printf("  error ratio %.2f", ratio);
            /* Second order in h (dt = h/4): halving h should divide the error by about 4. */
            if (!(ratio > 3.0 && ratio < 5.0)) ok = 0;
        }
        printf("\n");
        if (!(err < 1e-2)) ok = 0;
        prev = err;
    }
    stenc_ctx_destroy(ctx);
    if (check) printf("%s\n", ok ? "PASS: second-order convergence" : "FAIL");
    return ok ? 0 : 1;
}
