/* fe_gauss_seidel: the GPUsolve test problem (Strobl) with an 8-colour Gauss-Seidel solver of
 * the 27-point trilinear finite-element stencil:
 *
 *     -laplace(u) = 3 pi^2 sin(pi x) sin(pi y) sin(pi z) on (0,1)^3, u = 0 on the boundary,
 *     exact solution u = sin(pi x) sin(pi y) sin(pi z).
 *
 * The mesh is a tensor product of 1-D node sets X(t) = t - a sin(2 pi t)/(2 pi), t = m/(n+1),
 * with n unknowns per side (the boundary nodes sit in the halo). With 1-D stiffness rows
 * K = [-1/hl, 1/hl + 1/hr, -1/hr] and mass rows M = [hl/6, (hl+hr)/3, hr/6] (hl, hr the
 * spacings below and above a node), the assembled Q1 stiffness row of node (i,j,k) is
 *     c(di,dj,dk) = Kx(di) My(dj) Mz(dk) + Mx(di) Ky(dj) Mz(dk) + Mx(di) My(dj) Kz(dk),
 * which on a uniform mesh is h * [8/3 centre, 0 faces, -1/6 edges, -1/12 corners]. The load is
 * b = (Mx (x) My (x) Mz) f at the nodes (f interpolated in the Q1 space).
 *
 * Three stencil kinds, as in GPUsolve:
 *   const  uniform mesh (a = 0 in x, y, z): one stencil, 27 scalars;
 *   semi   x uniform, y and z graded (a in y, z): the stencil is constant along i and varies
 *          with (j,k); the stencil recomputes its (j,k) rows from the mesh mapping;
 *   var    x, y and z graded: one stencil per node, 27 coefficient fields assembled here.
 * Each sweep runs the 8 colours i%2 + 2*(j%2) + 4*(k%2) in order, until |b - A u| / |b| < tol.
 * The error against the exact solution falls as h^2 on each mesh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fe_gs_const.h"
#include "fe_gs_semi.h"
#include "fe_gs_var.h"
#include "fe_res_const.h"
#include "fe_res_semi.h"
#include "fe_res_var.h"
#include "stenc/stenc.h"

#define EXAMPLE_NAME "fe_gauss_seidel"
#include "example_util.h"

#define FE_NCOEF 27
#define FE_NCOLORS 8
#define FE_MAX_GRIDS 8
#define FE_DEFAULT_GRADING 0.5
#define FE_DEFAULT_TOL 1e-8
/* --check: the error falls by 3.4..4.6x per refinement; the generated colour sweeps agree with
 * a hand-written 8-colour sweep, and the semi-constant stencil's own coefficients with the
 * assembled ones, to FE_CHECK_SWEEP_TOL (relative) after FE_CHECK_SWEEPS sweeps. */
#define FE_CHECK_MIN_ORDER 3.4
#define FE_CHECK_MAX_ORDER 4.6
#define FE_CHECK_SWEEPS 2
/* The sweep checks' grid: n+1 not a power of two, so that mesh coordinates round. */
#define FE_CHECK_N 10
#define FE_CHECK_SWEEP_TOL 1e-12

typedef enum fe_mode { FE_CONST = 0, FE_SEMI, FE_VAR, FE_MODE_COUNT } fe_mode;
static const char *const fe_mode_name[FE_MODE_COUNT] = {"const", "semi", "var"};

typedef struct fe_options {
    long grids[FE_MAX_GRIDS];
    int ngrids, modes[FE_MODE_COUNT];
    double grading, tol;
    long max_sweeps;
    stenc_device device;
    int check;
} fe_options;

/* One problem: the mesh, the fields and the coefficients of one stencil kind. */
typedef struct fe_problem {
    fe_mode mode;
    size_t n;
    double grading[3];           /* a per dimension */
    double *X[3];                /* node coordinates 0..n+1 per dimension */
    double c[FE_NCOEF];          /* const: the stencil */
    stenc_field *coef[FE_NCOEF]; /* var: the coefficient fields */
    stenc_field *u, *b, *r;
    double norm_b;
} fe_problem;

/* The assembled 1-D rows at interior node m (0..n-1, coordinate X[m+1]). */
static void rows_1d(const double *X, size_t m, double K[3], double M[3]) {
    double hl = X[m + 1] - X[m], hr = X[m + 2] - X[m + 1];
    K[0] = -1 / hl, K[1] = 1 / hl + 1 / hr, K[2] = -1 / hr;
    M[0] = hl / 6, M[1] = (hl + hr) / 3, M[2] = hr / 6;
}

/* Coefficient q of node (i,j,k): offset (di,dj,dk) = (q%3-1, q/3%3-1, q/9-1), the order of the
 * stencil's declarations (q = 13 is the centre). */
static double node_coefficient(const fe_problem *P, size_t i, size_t j, size_t k, int q) {
    double K[3][3], M[3][3];
    rows_1d(P->X[0], i, K[0], M[0]);
    rows_1d(P->X[1], j, K[1], M[1]);
    rows_1d(P->X[2], k, K[2], M[2]);
    int di = q % 3, dj = q / 3 % 3, dk = q / 9;
    return K[0][di] * M[1][dj] * M[2][dk] + M[0][di] * K[1][dj] * M[2][dk] +
           M[0][di] * M[1][dj] * K[2][dk];
}

static void problem_free(fe_problem *P) {
    for (int d = 0; d < 3; d++)
        free(P->X[d]);
    for (int q = 0; q < FE_NCOEF; q++)
        stenc_field_free(P->coef[q]);
    stenc_field_free(P->u);
    stenc_field_free(P->b);
    stenc_field_free(P->r);
    memset(P, 0, sizeof *P);
}

/* Build the mesh, load, coefficients and fields; the fields go to the device on a CUDA
 * context. `mesh_of` >= 0 builds the problem on the mesh of that mode instead (the check). */
static int problem_init(fe_problem *P, stenc_ctx *ctx, fe_mode mode, int mesh_of, size_t n,
                        double a) {
    const double pi = acos(-1.0);
    memset(P, 0, sizeof *P);
    P->mode = mode, P->n = n;
    fe_mode mesh = mesh_of >= 0 ? (fe_mode)mesh_of : mode;
    P->grading[0] = mesh == FE_VAR ? a : 0;
    P->grading[1] = P->grading[2] = mesh == FE_CONST ? 0 : a;
    size_t count = n * n * n;
    double *dense = malloc(count * sizeof *dense);
    int ok = 0;
    if (!dense) goto fail;
    for (int d = 0; d < 3; d++) {
        if (!(P->X[d] = malloc((n + 2) * sizeof *P->X[d]))) goto fail;
        for (size_t m = 0; m <= n + 1; m++) {
            double t = (double)m / (double)(n + 1);
            P->X[d][m] = t - P->grading[d] * sin(2 * pi * t) / (2 * pi);
        }
        P->X[d][n + 1] = 1; /* exactly */
    }
    TRY(stenc_field_create(ctx, &P->u, STENC_F64, 3, n, n, n, FE_GS_CONST_HALO));
    TRY(stenc_field_create(ctx, &P->b, STENC_F64, 3, n, n, n, 0));
    TRY(stenc_field_create(ctx, &P->r, STENC_F64, 3, n, n, n, 0));
    /* b = 3 pi^2 (Mx sx)(My sy)(Mz sz), s = sin(pi X) */
    double *Ms[3] = {NULL, NULL, NULL};
    int have_ms = 1;
    for (int d = 0; d < 3 && have_ms; d++) {
        if (!(Ms[d] = malloc(n * sizeof *Ms[d]))) {
            have_ms = 0;
            break;
        }
        for (size_t m = 0; m < n; m++) {
            double K[3], M[3];
            rows_1d(P->X[d], m, K, M);
            Ms[d][m] = M[0] * sin(pi * P->X[d][m]) + M[1] * sin(pi * P->X[d][m + 1]) +
                       M[2] * sin(pi * P->X[d][m + 2]);
        }
    }
    if (have_ms)
        for (size_t k = 0; k < n; k++)
            for (size_t j = 0; j < n; j++)
                for (size_t i = 0; i < n; i++)
                    dense[i + n * (j + n * k)] = 3 * pi * pi * Ms[0][i] * Ms[1][j] * Ms[2][k];
    for (int d = 0; d < 3; d++)
        free(Ms[d]);
    if (!have_ms) goto fail;
    TRY(stenc_field_copy_from(P->b, dense));
    TRY(stenc_field_norm2(P->b, &P->norm_b));
    if (mode == FE_CONST)
        for (int q = 0; q < FE_NCOEF; q++)
            P->c[q] = node_coefficient(P, 0, 0, 0, q);
    if (mode == FE_VAR) {
        for (int q = 0; q < FE_NCOEF; q++) {
            TRY(stenc_field_create(ctx, &P->coef[q], STENC_F64, 3, n, n, n, 0));
            for (size_t k = 0; k < n; k++)
                for (size_t j = 0; j < n; j++)
                    for (size_t i = 0; i < n; i++)
                        dense[i + n * (j + n * k)] = node_coefficient(P, i, j, k, q);
            TRY(stenc_field_copy_from(P->coef[q], dense));
            TRY(stenc_field_upload(P->coef[q]));
        }
    }
    TRY(stenc_field_upload(P->u));
    TRY(stenc_field_upload(P->b));
    TRY(stenc_field_upload(P->r));
    ok = 1;
fail:
    free(dense);
    if (!ok) problem_free(P);
    return ok ? 0 : -1;
}

/* One colour of a Gauss-Seidel sweep. */
static stenc_status fe_color(stenc_ctx *ctx, fe_problem *P, int color) {
    stenc_field **f = P->coef;
    const double *c = P->c;
    switch (P->mode) {
    case FE_CONST:
        return fe_gs_const(ctx, color, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9],
                           c[10], c[11], c[12], c[13], c[14], c[15], c[16], c[17], c[18], c[19],
                           c[20], c[21], c[22], c[23], c[24], c[25], c[26], P->u, P->b);
    case FE_SEMI:
        return fe_gs_semi(ctx, color, 1.0 / (double)(P->n + 1), P->grading[1], P->u, P->b);
    case FE_VAR:
        return fe_gs_var(ctx, color, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9],
                         f[10], f[11], f[12], f[13], f[14], f[15], f[16], f[17], f[18], f[19],
                         f[20], f[21], f[22], f[23], f[24], f[25], f[26], P->u, P->b);
    default:
        return STENC_ERR_INVALID_ARGUMENT;
    }
}

static stenc_status fe_sweep(stenc_ctx *ctx, fe_problem *P) {
    for (int color = 0; color < FE_NCOLORS; color++) {
        stenc_status st = fe_color(ctx, P, color);
        if (st != STENC_OK) return st;
    }
    return STENC_OK;
}

/* |b - A u| / |b| */
static stenc_status fe_rel_residual(stenc_ctx *ctx, fe_problem *P, double *rel) {
    stenc_field **f = P->coef;
    const double *c = P->c;
    stenc_status st;
    switch (P->mode) {
    case FE_CONST:
        st = fe_res_const(ctx, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10],
                          c[11], c[12], c[13], c[14], c[15], c[16], c[17], c[18], c[19], c[20],
                          c[21], c[22], c[23], c[24], c[25], c[26], P->u, P->b, P->r);
        break;
    case FE_SEMI:
        st = fe_res_semi(ctx, 1.0 / (double)(P->n + 1), P->grading[1], P->u, P->b, P->r);
        break;
    case FE_VAR:
        st = fe_res_var(ctx, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10],
                        f[11], f[12], f[13], f[14], f[15], f[16], f[17], f[18], f[19], f[20], f[21],
                        f[22], f[23], f[24], f[25], f[26], P->u, P->b, P->r);
        break;
    default:
        st = STENC_ERR_INVALID_ARGUMENT;
    }
    double rn = 0;
    if (st == STENC_OK) st = stenc_field_norm2(P->r, &rn);
    *rel = rn / P->norm_b;
    return st;
}

/* Max |u - exact| at the nodes. */
static int fe_error(fe_problem *P, double *err) {
    const double pi = acos(-1.0);
    const size_t n = P->n;
    double *u = malloc(n * n * n * sizeof *u);
    int ok = 0;
    if (!u) return -1;
    TRY(stenc_field_download(P->u));
    TRY(stenc_field_copy_to(P->u, u));
    TRY(stenc_field_upload(P->u));
    *err = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                double ex =
                    sin(pi * P->X[0][i + 1]) * sin(pi * P->X[1][j + 1]) * sin(pi * P->X[2][k + 1]);
                double e = fabs(u[i + n * (j + n * k)] - ex);
                if (!(e <= *err)) *err = e;
            }
    ok = 1;
fail:
    free(u);
    return ok ? 0 : -1;
}

typedef struct fe_result {
    long sweeps;
    int converged;
    double rel_residual, max_error, seconds;
} fe_result;

/* The progress lines count point updates, from the sweeps a solve is expected to take:
 * FE_PROGRESS_RATE n^2 log(1/tol) (the constant stencil's count; the graded meshes need
 * fewer). */
#define FE_PROGRESS_RATE 0.05
typedef struct fe_progress {
    progress line;
    double done, total; /* done: the solves finished before the one in hand */
} fe_progress;

static double fe_expected_work(const fe_options *o, size_t n) {
    const double n2 = (double)n * (double)n;
    return FE_PROGRESS_RATE * n2 * log(1 / o->tol) * n2 * (double)n;
}

static int fe_solve(stenc_ctx *ctx, const fe_options *o, fe_mode mode, size_t n, fe_result *res,
                    fe_progress *fp) {
    fe_problem P;
    const double expected = fe_expected_work(o, n), per_sweep = (double)n * (double)n * (double)n;
    int ok = 0;
    memset(res, 0, sizeof *res);
    if (problem_init(&P, ctx, mode, -1, n, o->grading) != 0) return -1;
    double rel = 1;
    double t0 = progress_now_s();
    while (res->sweeps < o->max_sweeps && !(rel < o->tol)) {
        TRY(fe_sweep(ctx, &P));
        res->sweeps++;
        const double work = (double)res->sweeps * per_sweep;
        progress_update(&fp->line, fp->done + (work < expected ? work : expected), fp->total);
        TRY(fe_rel_residual(ctx, &P, &rel));
    }
    fp->done += expected;
    TRY(stenc_ctx_synchronize(ctx));
    res->seconds = progress_now_s() - t0;
    res->converged = rel < o->tol;
    res->rel_residual = rel;
    if (fe_error(&P, &res->max_error) != 0) goto fail;
    ok = 1;
fail:
    problem_free(&P);
    return ok ? 0 : -1;
}

/* Fill u's interior with reproducible pseudo-random values in [-1, 1]. */
static stenc_status fill_random(stenc_field *u, size_t n) {
    double *v = malloc(n * n * n * sizeof *v);
    if (!v) return STENC_ERR_OUT_OF_MEMORY;
    unsigned long long s = 88172645463325252ull;
    for (size_t p = 0; p < n * n * n; p++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        v[p] = (double)(s >> 11) / 4503599627370496.0 - 1.0;
    }
    stenc_status st = stenc_field_download(u);
    if (st == STENC_OK) st = stenc_field_copy_from(u, v);
    if (st == STENC_OK) st = stenc_field_upload(u);
    free(v);
    return st;
}

/* The checks of the sweeps themselves, on an n^3 grid from a random start:
 *  - the generated var sweep against a hand-written 8-colour sweep (colour 0 first) with the
 *    same coefficients, on the fully graded mesh;
 *  - the semi stencil (coefficients computed in the stencil) against the var stencil with
 *    coefficients assembled here for the same mesh.
 * Returns the number of failures, or -1 on an error. */
static int check_sweeps(stenc_ctx *ctx, const fe_options *o, size_t n) {
    fe_problem V, S, W;
    int failures = -1, have_v = 0, have_s = 0, have_w = 0;
    const size_t count = n * n * n;
    double *u = NULL, *ref = NULL, *cf[FE_NCOEF] = {NULL}, *b = NULL;
    if (problem_init(&V, ctx, FE_VAR, -1, n, o->grading) != 0) return -1;
    have_v = 1;
    if (problem_init(&S, ctx, FE_SEMI, -1, n, o->grading) != 0) goto fail;
    have_s = 1;
    if (problem_init(&W, ctx, FE_VAR, FE_SEMI, n, o->grading) != 0) goto fail;
    have_w = 1;
    u = malloc(count * sizeof *u), b = malloc(count * sizeof *b);
    if (!u || !b) goto fail;
    const size_t nh = n + 2; /* the reference works on a dense array with a zero halo */
    ref = calloc(nh * nh * nh, sizeof *ref);
    if (!ref) goto fail;

    /* var against the hand-written sweep */
    TRY(fill_random(V.u, n));
    TRY(stenc_field_download(V.u));
    TRY(stenc_field_copy_to(V.u, u));
    TRY(stenc_field_upload(V.u));
    TRY(stenc_field_download(V.b));
    TRY(stenc_field_copy_to(V.b, b));
    TRY(stenc_field_upload(V.b));
    for (int q = 0; q < FE_NCOEF; q++) {
        if (!(cf[q] = malloc(count * sizeof *cf[q]))) goto fail;
        TRY(stenc_field_download(V.coef[q]));
        TRY(stenc_field_copy_to(V.coef[q], cf[q]));
        TRY(stenc_field_upload(V.coef[q]));
    }
#define REF(i, j, k) ref[(i) + 1 + nh * ((j) + 1 + nh * ((k) + 1))]
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++)
                REF(i, j, k) = u[i + n * (j + n * k)];
    for (int s = 0; s < FE_CHECK_SWEEPS; s++) {
        TRY(fe_sweep(ctx, &V));
        for (int color = 0; color < FE_NCOLORS; color++)
            for (size_t k = (size_t)color / 4; k < n; k += 2)
                for (size_t j = (size_t)color / 2 % 2; j < n; j += 2)
                    for (size_t i = (size_t)color % 2; i < n; i += 2) {
                        size_t p = i + n * (j + n * k);
                        double sum = 0;
                        for (int q = 0; q < FE_NCOEF; q++) {
                            long di = q % 3 - 1, dj = q / 3 % 3 - 1, dk = q / 9 - 1;
                            if (q != 13)
                                sum += cf[q][p] * REF((long)i + di, (long)j + dj, (long)k + dk);
                        }
                        REF(i, j, k) = (b[p] - sum) / cf[13][p];
                    }
    }
    TRY(stenc_field_download(V.u));
    TRY(stenc_field_copy_to(V.u, u));
    double dmax = 0, umax = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                double a = u[i + n * (j + n * k)], r = REF(i, j, k);
                if (!(fabs(a - r) <= dmax)) dmax = fabs(a - r);
                if (fabs(r) > umax) umax = fabs(r);
            }
#undef REF
    failures = 0;
    printf("check: var 8-colour sweep vs hand-written, %d sweeps on %zu^3: max difference %.2e "
           "(relative %.2e)  %s\n",
           FE_CHECK_SWEEPS, n, dmax, dmax / umax,
           dmax <= FE_CHECK_SWEEP_TOL * umax ? "ok" : "FAIL");
    failures += !(dmax <= FE_CHECK_SWEEP_TOL * umax);

    /* semi (in-stencil coefficients) against var (assembled) on the same mesh */
    TRY(fill_random(S.u, n));
    TRY(fill_random(W.u, n));
    for (int s = 0; s < FE_CHECK_SWEEPS; s++) {
        TRY(fe_sweep(ctx, &S));
        TRY(fe_sweep(ctx, &W));
    }
    TRY(stenc_field_download(S.u));
    TRY(stenc_field_copy_to(S.u, u));
    TRY(stenc_field_download(W.u));
    TRY(stenc_field_copy_to(W.u, b));
    dmax = 0, umax = 0;
    for (size_t p = 0; p < count; p++) {
        if (!(fabs(u[p] - b[p]) <= dmax)) dmax = fabs(u[p] - b[p]);
        if (fabs(b[p]) > umax) umax = fabs(b[p]);
    }
    printf("check: semi stencil vs var with assembled coefficients, %d sweeps: max difference "
           "%.2e (relative %.2e)  %s\n",
           FE_CHECK_SWEEPS, dmax, dmax / umax, dmax <= FE_CHECK_SWEEP_TOL * umax ? "ok" : "FAIL");
    failures += !(dmax <= FE_CHECK_SWEEP_TOL * umax);
    goto done;
fail:
    failures = -1;
done:
    for (int q = 0; q < FE_NCOEF; q++)
        free(cf[q]);
    free(u), free(b), free(ref);
    if (have_v) problem_free(&V);
    if (have_s) problem_free(&S);
    if (have_w) problem_free(&W);
    return failures;
}

static void usage(const char *prog) {
    printf("usage: %s [--grids 7,15,31] [--modes const,semi,var] [--grading A] [--tol T]\n"
           "          [--max-sweeps N] [--device auto|cpu|cuda] [--check] [--quiet] [--help]\n"
           "  --grids       unknowns per side, 2..1023 (default 7,15,31)\n"
           "  --modes       the stencil kinds to solve with (default const,semi,var)\n"
           "  --grading     a in X(t) = t - a sin(2 pi t)/(2 pi), |a| < 1 (default %.1f)\n"
           "  --tol         stop when |b - A u| / |b| < T (default %g)\n"
           "  --max-sweeps  give up after N sweeps (default 1000000)\n"
           "  --device      auto (the GPU when there is one), cpu or cuda (default auto)\n"
           "  --check       exit 1 unless every solve converges, the error falls as h^2, and\n"
           "                the colour sweeps match a hand-written one\n"
           "  --quiet       no progress lines (printed on stderr when it is a terminal)\n",
           prog, FE_DEFAULT_GRADING, FE_DEFAULT_TOL);
}

static int parse_args(int argc, char **argv, fe_options *o) {
    const long defaults[] = {7, 15, 31};
    memset(o, 0, sizeof *o);
    memcpy(o->grids, defaults, sizeof defaults);
    o->ngrids = 3, o->grading = FE_DEFAULT_GRADING, o->tol = FE_DEFAULT_TOL;
    o->max_sweeps = 1000000, o->device = STENC_DEVICE_AUTO;
    for (int m = 0; m < FE_MODE_COUNT; m++)
        o->modes[m] = 1;
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
            o->ngrids = example_parse_sizes(val, o->grids, FE_MAX_GRIDS, 2, 1023);
            if (o->ngrids < 0) return -2;
        } else if (strcmp(arg, "--modes") == 0) {
            for (int m = 0; m < FE_MODE_COUNT; m++)
                o->modes[m] = strstr(val, fe_mode_name[m]) != NULL;
        } else if (strcmp(arg, "--grading") == 0) {
            o->grading = atof(val);
            if (!(fabs(o->grading) < 1)) return fprintf(stderr, "need |grading| < 1\n"), -2;
        } else if (strcmp(arg, "--tol") == 0) {
            o->tol = atof(val);
            if (!(o->tol > 0 && o->tol < 1)) return fprintf(stderr, "bad tol '%s'\n", val), -2;
        } else if (strcmp(arg, "--max-sweeps") == 0) {
            o->max_sweeps = atol(val);
            if (o->max_sweeps < 1) return fprintf(stderr, "bad max-sweeps '%s'\n", val), -2;
        } else if (strcmp(arg, "--device") == 0) {
            if (example_parse_device(val, &o->device) != 0) return -2;
        } else
            return fprintf(stderr, "unknown option %s\n", arg), -2;
    }
    return 0;
}

/* On a CUDA context: do the colour sweeps run on device-resident fields in this build? */
static int cuda_kernels_available(stenc_ctx *ctx, const fe_options *o) {
    fe_problem P;
    if (problem_init(&P, ctx, FE_SEMI, -1, 2, o->grading) != 0) return 0;
    double rel;
    int ok = fe_color(ctx, &P, 0) == STENC_OK && fe_rel_residual(ctx, &P, &rel) == STENC_OK &&
             stenc_ctx_synchronize(ctx) == STENC_OK;
    problem_free(&P);
    return ok;
}

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    fe_options o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed == -1) return 0;
    if (parsed < 0) return 2;
    stenc_ctx *ctx = NULL;
    if (stenc_ctx_create(&ctx, o.device) != STENC_OK) {
        fprintf(stderr, "fe_gauss_seidel: %s\n", stenc_last_error());
        return 1;
    }
    if (stenc_ctx_device(ctx) == STENC_DEVICE_CUDA && !cuda_kernels_available(ctx, &o)) {
        printf("note: the colour sweeps cannot run on the GPU in this build (%s); using the "
               "CPU\n",
               stenc_last_error());
        stenc_ctx_destroy(ctx);
        if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) {
            fprintf(stderr, "fe_gauss_seidel: %s\n", stenc_last_error());
            return 1;
        }
    }
    printf("fe_gauss_seidel: -laplace u = 3 pi^2 sin(pi x) sin(pi y) sin(pi z) on (0,1)^3, Q1 "
           "elements, 8-colour Gauss-Seidel\n"
           "device: %s, grading a = %g, tol %g\n",
           stenc_ctx_device_name(ctx), o.grading, o.tol);
    {
        /* the constant stencil, against the textbook values h * (8/3, 0, -1/6, -1/12) */
        fe_problem P;
        size_t n = (size_t)o.grids[0];
        if (problem_init(&P, ctx, FE_CONST, -1, n, 0) != 0) return 1;
        double h = 1.0 / (double)(n + 1);
        printf("const stencil / h on %zu^3: centre %.6f (8/3), face %.2e (0), edge %.6f (-1/6), "
               "corner %.6f (-1/12)\n",
               n, P.c[13] / h, P.c[12] / h, P.c[9] / h, P.c[0] / h);
        problem_free(&P);
    }
    int failures = 0;
    fe_progress fp = {.done = 0, .total = 0};
    for (int m = 0; m < FE_MODE_COUNT; m++)
        for (int g = 0; g < o.ngrids && o.modes[m]; g++)
            fp.total += fe_expected_work(&o, (size_t)o.grids[g]);
    progress_begin(&fp.line, "fe_gauss_seidel");
    printf("%6s %6s %8s %10s %12s %8s %10s %12s\n", "mode", "n", "sweeps", "|r|/|b|", "max_error",
           "ratio", "time_s", "ms/sweep");
    for (int m = 0; m < FE_MODE_COUNT; m++) {
        if (!o.modes[m]) continue;
        double prev = 0;
        for (int g = 0; g < o.ngrids; g++) {
            fe_result r;
            size_t n = (size_t)o.grids[g];
            if (fe_solve(ctx, &o, (fe_mode)m, n, &r, &fp) != 0) {
                stenc_ctx_destroy(ctx);
                return 1;
            }
            char ratio[32] = "-";
            double q = prev / r.max_error;
            if (g > 0) snprintf(ratio, sizeof ratio, "%.2f", q);
            printf("%6s %6zu %8ld %10.2e %12.4e %8s %10.3f %12.4f%s\n", fe_mode_name[m], n,
                   r.sweeps, r.rel_residual, r.max_error, ratio, r.seconds,
                   1e3 * r.seconds / (double)r.sweeps, r.converged ? "" : "  NOT converged");
            printf("key=value example=fe_gauss_seidel mode=%s n=%zu sweeps=%ld max_error=%.4e "
                   "ms_per_sweep=%.4f\n",
                   fe_mode_name[m], n, r.sweeps, r.max_error, 1e3 * r.seconds / (double)r.sweeps);
            fflush(stdout);
            failures += !r.converged;
            if (g > 0) failures += !(q >= FE_CHECK_MIN_ORDER && q <= FE_CHECK_MAX_ORDER);
            prev = r.max_error;
        }
    }
    if (o.check) {
        int f = check_sweeps(ctx, &o, FE_CHECK_N);
        failures += f < 0 ? 1 : f;
    }
    stenc_ctx_destroy(ctx);
    if (o.check) {
        printf("check: %s\n", failures ? "FAILED" : "passed");
        return failures ? 1 : 0;
    }
    return 0;
}
