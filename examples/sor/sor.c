/* sor: Jacobi, red-black SOR and SSOR on the 2-D Laplace problem of Di et al.,
 * 4u - u[-1,0] - u[1,0] - u[0,-1] - u[0,1] = 0 on the unit square with boundary values
 * u = sin(pi x) on y = 1 and 0 elsewhere, whose exact solution is the harmonic function
 * u = sin(pi x) sinh(pi y) / sinh(pi). The grid has n x n unknowns, h = 1/(n+1); the boundary
 * sits in the halo.
 *
 *  Jacobi   the generated lap_jacobi stencil (eq. 3), two fields swapped every step;
 *  RB-SOR   the generated sor_rb colour sweep: in place, red points then black points, with
 *           the optimal omega = 2 / (1 + sin(pi h));
 *  SSOR     a lexicographic forward sweep (eq. 4) and a backward sweep (eq. 5) per
 *           iteration, hand-written here (it is sequential: CPU only), with Young's
 *           omega = 2 / (1 + 2 sin(pi h / 2)).
 *
 * Each runs until |r| / |r0| < tol for the residual r of eq. 2 (the generated lap_residual),
 * tol falling as h^2 beyond n = SOR_TOL_REF_N.
 * Jacobi needs O(n^2) iterations, the two SOR variants O(n). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lap_jacobi.h"
#include "lap_residual.h"
#include "sor_rb.h"
#include "stenc/stenc.h"

#define EXAMPLE_NAME "sor"
#include "example_util.h"

#define SOR_MAX_GRIDS 8
#define SOR_DEFAULT_TOL 1e-9
/* The tolerance holds for grids up to this size and falls as h^2 beyond it: the algebraic
 * error (about |r| / lambda_min ~ |r| / h^2 relative) must stay well below the discretisation
 * error (~ h^2) for the methods to agree on the discrete solution as the grid grows. */
#define SOR_TOL_REF_N 15
/* --check: SOR and SSOR each need at most this fraction of Jacobi's iterations (n >= 15),
 * the three solutions agree to within SOR_CHECK_AGREE times the discretisation error, and the
 * error against the exact solution falls by 3.5..4.5x per refinement (second order). */
#define SOR_CHECK_MAX_FRACTION 0.1
#define SOR_CHECK_AGREE 0.05
#define SOR_CHECK_MIN_ORDER 3.5
#define SOR_CHECK_MAX_ORDER 4.5

typedef enum sor_method { SOR_JACOBI = 0, SOR_RB, SOR_SSOR, SOR_METHOD_COUNT } sor_method;
static const char *const sor_method_name[SOR_METHOD_COUNT] = {"Jacobi", "RB-SOR", "SSOR"};
/* Sweeps over the grid per iteration. */
static const int sor_method_sweeps[SOR_METHOD_COUNT] = {1, 1, 2};
/* --check: iterations of the generated red-black sweep compared with a hand-written one. */
#define SOR_CHECK_RB_ITERS 3
#define SOR_CHECK_RB_TOL 1e-14

typedef struct sor_options {
    long grids[SOR_MAX_GRIDS];
    int ngrids;
    double tol;
    long max_iters;
    stenc_device device;
    int check;
} sor_options;

typedef struct sor_result {
    long iters;
    int converged;
    double omega, tol, rel_residual, max_error, seconds; /* tol: o->tol scaled to the grid */
    double *solution;                                    /* n*n, i fastest */
} sor_result;

/* The progress lines count work in point updates, from the iterations each solve is expected
 * to take: log(1/tol) over the convergence rate, -log(cos(pi h)) for Jacobi and about 2 pi h
 * for SOR and SSOR at their omegas (within 30% of the measured counts). */
typedef struct sor_progress {
    progress line;
    double done, total; /* done: the solves finished before the one in hand */
} sor_progress;

/* o->tol on an n x n grid: falls as h^2 beyond SOR_TOL_REF_N. */
static double sor_tol(const sor_options *o, size_t n) {
    const double scale = (double)(SOR_TOL_REF_N + 1) / (double)(n + 1);
    return o->tol * (scale < 1 ? scale * scale : 1);
}

static double sor_expected_work(const sor_options *o, sor_method m, size_t n) {
    const double pi = acos(-1.0), h = 1.0 / (double)(n + 1);
    const double rate = m == SOR_JACOBI ? -log(cos(pi * h)) : 2 * pi * h;
    return log(1 / sor_tol(o, n)) / rate * (double)(n * n) * sor_method_sweeps[m];
}

static double exact(double x, double y) {
    const double pi = acos(-1.0);
    return sin(pi * x) * sinh(pi * y) / sinh(pi);
}

/* A zero n x n field with the problem's boundary values in its halo. */
static stenc_status make_field(stenc_ctx *ctx, size_t n, stenc_field **out) {
    const double pi = acos(-1.0), h = 1.0 / (double)(n + 1);
    stenc_field *u = NULL;
    stenc_bc bc[STENC_FACE_COUNT];
    for (int f = 0; f < STENC_FACE_COUNT; f++)
        bc[f] = (stenc_bc){STENC_BC_DIRICHLET, 0.0};
    bc[STENC_FACE_J_HI].kind = STENC_BC_NONE; /* y = 1: set below */
    stenc_status st = stenc_field_create(ctx, &u, STENC_F64, 2, n, n, 1, 1);
    if (st == STENC_OK) st = stenc_field_fill_halo(u, bc);
    for (long i = -1; st == STENC_OK && i <= (long)n; i++)
        st = stenc_field_set(u, i, (long)n, 0, sin(pi * (double)(i + 1) * h));
    if (st != STENC_OK) {
        stenc_field_free(u);
        return st;
    }
    *out = u;
    return STENC_OK;
}

/* One SSOR iteration in place on a host field: a forward lexicographic sweep (eq. 4), then a
 * backward one (eq. 5). */
static stenc_status ssor_iteration(stenc_field *u, double omega) {
    stenc_field_layout L;
    stenc_status st = stenc_field_get_layout(u, &L);
    if (st != STENC_OK) return st;
    double *p = stenc_field_host_origin(u);
    const ptrdiff_t nx = (ptrdiff_t)L.n[0], ny = (ptrdiff_t)L.n[1], sj = L.stride[1];
    for (ptrdiff_t j = 0; j < ny; j++)
        for (ptrdiff_t i = 0; i < nx; i++) {
            double *c = p + i + j * sj;
            *c = (1 - omega) * *c + omega * 0.25 * (c[-1] + c[1] + c[-sj] + c[sj]);
        }
    for (ptrdiff_t j = ny - 1; j >= 0; j--)
        for (ptrdiff_t i = nx - 1; i >= 0; i--) {
            double *c = p + i + j * sj;
            *c = (1 - omega) * *c + omega * 0.25 * (c[-1] + c[1] + c[-sj] + c[sj]);
        }
    return STENC_OK;
}

/* The generated red-black sweep against a hand-written one on the host (red: (i+j) even,
 * first), SOR_CHECK_RB_ITERS iterations from zero; returns the largest difference, or -1. */
static double rb_reference_diff(stenc_ctx *ctx, size_t n, double omega) {
    stenc_field *u = NULL, *ref = NULL;
    double diff = -1, *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
    if (!a || !b) goto fail;
    TRY(make_field(ctx, n, &u));
    TRY(make_field(ctx, n, &ref));
    TRY(stenc_field_upload(u));
    for (int it = 0; it < SOR_CHECK_RB_ITERS; it++)
        for (int color = 0; color < 2; color++)
            TRY(sor_rb(ctx, color, omega, u));
    TRY(stenc_field_download(u));
    stenc_field_layout L;
    TRY(stenc_field_get_layout(ref, &L));
    double *p = stenc_field_host_origin(ref);
    const ptrdiff_t sj = L.stride[1];
    for (int it = 0; it < SOR_CHECK_RB_ITERS; it++)
        for (size_t color = 0; color < 2; color++)
            for (size_t j = 0; j < n; j++)
                for (size_t i = (j + color) % 2; i < n; i += 2) {
                    double *c = p + i + (ptrdiff_t)j * sj;
                    *c = (1 - omega) * *c + omega * 0.25 * (c[-1] + c[1] + c[-sj] + c[sj]);
                }
    TRY(stenc_field_copy_to(u, a));
    TRY(stenc_field_copy_to(ref, b));
    diff = 0;
    for (size_t q = 0; q < n * n; q++)
        if (!(fabs(a[q] - b[q]) <= diff)) diff = fabs(a[q] - b[q]);
fail:
    stenc_field_free(u);
    stenc_field_free(ref);
    free(a);
    free(b);
    return diff;
}

/* Solve with one method on an n x n grid. */
static int solve(stenc_ctx *ctx, const sor_options *o, sor_method m, size_t n, sor_result *res,
                 sor_progress *sp) {
    const double pi = acos(-1.0), h = 1.0 / (double)(n + 1);
    stenc_field *u = NULL, *tmp = NULL, *r = NULL;
    int ok = 0;
    memset(res, 0, sizeof *res);
    res->omega = m == SOR_SSOR ? 2 / (1 + 2 * sin(pi * h / 2))
                 : m == SOR_RB ? 2 / (1 + sin(pi * h))
                               : 1;
    res->solution = malloc(n * n * sizeof *res->solution);
    if (!res->solution) return fprintf(stderr, "sor: out of memory\n"), -1;
    TRY(make_field(ctx, n, &u));
    TRY(make_field(ctx, n, &tmp));
    TRY(stenc_field_create(ctx, &r, STENC_F64, 2, n, n, 1, 0));
    if (m != SOR_SSOR) { /* SSOR is a sequential host sweep */
        TRY(stenc_field_upload(u));
        TRY(stenc_field_upload(tmp));
        TRY(stenc_field_upload(r));
    }
    double r0, rn;
    const double expected = sor_expected_work(o, m, n),
                 per_iter = (double)(n * n) * sor_method_sweeps[m];
    res->tol = sor_tol(o, n);
    TRY(lap_residual(ctx, u, r));
    TRY(stenc_field_norm2(r, &r0));
    rn = r0;
    double t0 = progress_now_s();
    while (res->iters < o->max_iters && !(rn < res->tol * r0)) {
        switch (m) {
        case SOR_JACOBI:
            TRY(lap_jacobi(ctx, u, tmp));
            TRY(stenc_field_swap(u, tmp));
            break;
        case SOR_RB:
            TRY(sor_rb(ctx, 0, res->omega, u));
            TRY(sor_rb(ctx, 1, res->omega, u));
            break;
        case SOR_SSOR:
            TRY(ssor_iteration(u, res->omega));
            break;
        default:
            goto fail;
        }
        res->iters++;
        const double work = (double)res->iters * per_iter;
        progress_update(&sp->line, sp->done + (work < expected ? work : expected), sp->total);
        TRY(lap_residual(ctx, u, r));
        TRY(stenc_field_norm2(r, &rn));
    }
    TRY(stenc_ctx_synchronize(ctx));
    res->seconds = progress_now_s() - t0;
    res->converged = rn < res->tol * r0;
    res->rel_residual = rn / r0;
    TRY(stenc_field_download(u));
    TRY(stenc_field_copy_to(u, res->solution));
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            double e =
                fabs(res->solution[i + n * j] - exact((double)(i + 1) * h, (double)(j + 1) * h));
            if (!(e <= res->max_error)) res->max_error = e;
        }
    sp->done += expected;
    ok = 1;
fail:
    stenc_field_free(u);
    stenc_field_free(tmp);
    stenc_field_free(r);
    return ok ? 0 : -1;
}

static void usage(const char *prog) {
    printf(
        "usage: %s [--grids 31,63,127] [--tol T] [--max-iters N] [--device auto|cpu|cuda]\n"
        "          [--check] [--quiet] [--help]\n"
        "  --grids      unknowns per side of each grid, 2..8191 (default 31,63,127)\n"
        "  --tol        stop when |r| / |r0| < T (default %g) on grids up to %d, T (%d/(n+1))^2\n"
        "               on larger ones\n"
        "  --max-iters  give up after N iterations of a method (default 10000000)\n"
        "  --device     auto (the GPU when there is one), cpu or cuda (default auto); SSOR\n"
        "               always runs on the CPU\n"
        "  --check      exit 1 unless every method converges, SOR and SSOR each need at most\n"
        "               %.0f%% of Jacobi's iterations, the solutions agree, the error falls\n"
        "               as h^2, and the generated red-black sweep matches a hand-written one\n"
        "  --quiet      no progress lines (printed on stderr when it is a terminal)\n",
        prog, SOR_DEFAULT_TOL, SOR_TOL_REF_N, SOR_TOL_REF_N + 1, 100 * SOR_CHECK_MAX_FRACTION);
}

static int parse_args(int argc, char **argv, sor_options *o) {
    const long defaults[] = {31, 63, 127};
    memset(o, 0, sizeof *o);
    memcpy(o->grids, defaults, sizeof defaults);
    o->ngrids = 3, o->tol = SOR_DEFAULT_TOL, o->max_iters = 10000000;
    o->device = STENC_DEVICE_AUTO;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(arg, "--check") == 0) {
            o->check = 1;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return usage(EXAMPLE_NAME), -1;
        if (!val) return fprintf(stderr, "%s needs a value\n", arg), -2;
        a++;
        if (strcmp(arg, "--grids") == 0) {
            o->ngrids = example_parse_sizes(val, o->grids, SOR_MAX_GRIDS, 2, 8191);
            if (o->ngrids < 0) return -2;
        } else if (strcmp(arg, "--tol") == 0) {
            o->tol = atof(val);
            if (!(o->tol > 0 && o->tol < 1)) return fprintf(stderr, "bad tol '%s'\n", val), -2;
        } else if (strcmp(arg, "--max-iters") == 0) {
            o->max_iters = atol(val);
            if (o->max_iters < 1) return fprintf(stderr, "bad max-iters '%s'\n", val), -2;
        } else if (strcmp(arg, "--device") == 0) {
            if (example_parse_device(val, &o->device) != 0) return -2;
        } else
            return fprintf(stderr, "unknown option %s\n", arg), -2;
    }
    return 0;
}

/* On a CUDA context: do the stencils run on device-resident fields in this build? */
static int cuda_kernels_available(stenc_ctx *ctx) {
    stenc_field *u = NULL, *r = NULL;
    int ok = stenc_field_create(ctx, &u, STENC_F64, 2, 3, 3, 1, 1) == STENC_OK &&
             stenc_field_create(ctx, &r, STENC_F64, 2, 3, 3, 1, 1) == STENC_OK &&
             stenc_field_upload(u) == STENC_OK && stenc_field_upload(r) == STENC_OK &&
             lap_jacobi(ctx, u, r) == STENC_OK && lap_residual(ctx, u, r) == STENC_OK &&
             sor_rb(ctx, 0, 1.5, u) == STENC_OK && stenc_ctx_synchronize(ctx) == STENC_OK;
    stenc_field_free(u);
    stenc_field_free(r);
    return ok;
}

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    sor_options o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed == -1) return 0;
    if (parsed < 0) return 2;
    stenc_ctx *ctx = NULL;
    if (stenc_ctx_create(&ctx, o.device) != STENC_OK) {
        fprintf(stderr, "sor: %s\n", stenc_last_error());
        return 1;
    }
    if (stenc_ctx_device(ctx) == STENC_DEVICE_CUDA && !cuda_kernels_available(ctx)) {
        printf("note: the stencils cannot run on the GPU in this build (%s); using the CPU\n",
               stenc_last_error());
        stenc_ctx_destroy(ctx);
        if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) {
            fprintf(stderr, "sor: %s\n", stenc_last_error());
            return 1;
        }
    }
    printf("sor: 5-point Laplace on the unit square, u = sin(pi x) on y = 1, exact u = sin(pi x) "
           "sinh(pi y)/sinh(pi)\n"
           "device: %s (Jacobi and red-black SOR; SSOR is a sequential CPU sweep)\n"
           "tol %g, times (%d/(n+1))^2 for n > %d\n",
           stenc_ctx_device_name(ctx), o.tol, SOR_TOL_REF_N + 1, SOR_TOL_REF_N);
    printf("%6s %-8s %8s %10s %8s %10s %12s %10s\n", "n", "method", "omega", "iterations", "sweeps",
           "|r|/|r0|", "max_error", "time_s");
    int failures = 0;
    double prev_err = 0;
    sor_progress sp = {.done = 0, .total = 0};
    for (int g = 0; g < o.ngrids; g++)
        for (int m = 0; m < SOR_METHOD_COUNT; m++)
            sp.total += sor_expected_work(&o, (sor_method)m, (size_t)o.grids[g]);
    progress_begin(&sp.line, "sor");
    for (int g = 0; g < o.ngrids; g++) {
        size_t n = (size_t)o.grids[g];
        sor_result res[SOR_METHOD_COUNT];
        memset(res, 0, sizeof res);
        for (int m = 0; m < SOR_METHOD_COUNT; m++) {
            if (solve(ctx, &o, (sor_method)m, n, &res[m], &sp) != 0) {
                for (int k = 0; k <= m; k++)
                    free(res[k].solution);
                stenc_ctx_destroy(ctx);
                return 1;
            }
            printf("%6zu %-8s %8.4f %10ld %8ld %10.2e %12.4e %10.4f%s\n", n, sor_method_name[m],
                   res[m].omega, res[m].iters, res[m].iters * sor_method_sweeps[m],
                   res[m].rel_residual, res[m].max_error, res[m].seconds,
                   res[m].converged ? "" : "  NOT converged");
            printf("key=value example=sor n=%zu method=%s omega=%.6f iterations=%ld "
                   "max_error=%.4e seconds=%.4f\n",
                   n, sor_method_name[m], res[m].omega, res[m].iters, res[m].max_error,
                   res[m].seconds);
            failures += !res[m].converged;
        }
        /* the ordering: SOR variants far fewer iterations than Jacobi */
        for (int m = 1; m < SOR_METHOD_COUNT; m++)
            if (!(res[m].iters <= SOR_CHECK_MAX_FRACTION * res[SOR_JACOBI].iters)) {
                printf("  %s needs %ld iterations, more than %.0f%% of Jacobi's %ld\n",
                       sor_method_name[m], res[m].iters, 100 * SOR_CHECK_MAX_FRACTION,
                       res[SOR_JACOBI].iters);
                failures++;
            }
        /* one discrete solution */
        double agree = 0;
        for (int m = 1; m < SOR_METHOD_COUNT; m++)
            for (size_t p = 0; p < n * n; p++) {
                double d = fabs(res[m].solution[p] - res[SOR_JACOBI].solution[p]);
                if (!(d <= agree)) agree = d;
            }
        printf("  solutions agree to %.2e (%.2g%% of the error)", agree,
               100 * agree / res[SOR_JACOBI].max_error);
        failures += !(agree <= SOR_CHECK_AGREE * res[SOR_JACOBI].max_error);
        if (g > 0) {
            double ratio = prev_err / res[SOR_JACOBI].max_error;
            printf("; error %.2fx smaller than on the previous grid", ratio);
            failures += !(ratio >= SOR_CHECK_MIN_ORDER && ratio <= SOR_CHECK_MAX_ORDER);
        }
        printf("\n");
        prev_err = res[SOR_JACOBI].max_error;
        if (o.check) {
            double d = rb_reference_diff(ctx, n, res[SOR_RB].omega);
            printf("  generated red-black sweep vs hand-written, %d iterations: max difference "
                   "%.2e\n",
                   SOR_CHECK_RB_ITERS, d);
            failures += !(d >= 0 && d <= SOR_CHECK_RB_TOL);
        }
        for (int m = 0; m < SOR_METHOD_COUNT; m++)
            free(res[m].solution);
    }
    stenc_ctx_destroy(ctx);
    if (o.check) {
        printf("check: %s\n", failures ? "FAILED" : "passed");
        return failures ? 1 : 0;
    }
    return 0;
}
