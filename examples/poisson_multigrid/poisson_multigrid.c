/* poisson_multigrid: -laplace(u) = 2 pi^2 sin(pi x) sin(pi y) on the unit square, u = 0 on the
 * boundary, exact solution u = sin(pi x) sin(pi y). Geometric multigrid after Thoman: V(2,1)
 * cycles, omega-Jacobi smoothing (omega = 0.8), the residual, full-weighting restriction
 * (stenc_mg_restrict) and bilinear prolongation added to the fine grid
 * (stenc_mg_prolong_add), on grids of 2^L-1 interior points per side with the Dirichlet
 * boundary in the halo (STENC_MG_GRID_INTERIOR), coarsened down to one point, where the
 * correction is found by many smoothing steps.
 *
 * For each grid it prints the residual reduction of every cycle (the claim of multigrid: it
 * does not grow with the grid), the max error against the exact solution (second order: it
 * falls 4x per refinement), the time per V-cycle, and the time of each level. On the GPU the
 * coarse levels are launch-bound: a V-cycle is recorded once as a graph (stenc/graph.h) and
 * replayed, which removes most of the launch cost (--graph off to compare); the coarse levels
 * can also run on the CPU (--switch), which was measured not to pay (MG_DEFAULT_SWITCH). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mg_residual.h"
#include "mg_smooth.h"
#include "mg_smooth_zero.h"
#include "stenc/stenc.h"

#define EXAMPLE_NAME "poisson_multigrid"
#include "example_util.h"

#define MG_MAX_LEVELS 16
#define MG_MAX_GRIDS 8
#define MG_OMEGA 0.8    /* Thoman's smoothing weight */
#define MG_PRE_SMOOTH 2 /* V(2,1) */
#define MG_POST_SMOOTH 1
#define MG_COARSE_SWEEPS 20 /* on the 1-point grid the error falls 5x per sweep */
#define MG_MAX_CYCLES 40
/* GPU solves: levels with fewer interior points per side than this run on the CPU (--switch).
 * Measured on an H200 at 4095^2 (docs/examples.md): all levels on the GPU 1.03 ms per cycle,
 * CPU below 64: 1.17 ms, below 256: 1.50 ms, below 1024: 5.5 ms. The coarse levels are
 * launch-bound on the GPU, but their launches queue asynchronously, while the CPU path needs
 * two blocking transfers per cycle and parallel regions that cost as much: so 0 (none). */
#define MG_DEFAULT_SWITCH 0
/* The residual of a double solution cannot fall much below eps*(n+1)^2 relative to f (4u/h^2
 * rounds); at 4095^2 it stalls at 3.5e-10. The tolerance is raised to this floor. */
#define MG_ROUNDING_FLOOR 0.5
/* --check: the mean reduction per cycle must stay below MG_CHECK_MAX_FACTOR on every grid and
 * within MG_CHECK_SPREAD of each other; the error must fall by 4x (3.6..4.4) per halving of h
 * (16x for grids two halvings apart, and so on). */
#define MG_CHECK_MAX_FACTOR 0.35
#define MG_CHECK_SPREAD 1.5
#define MG_CHECK_MIN_ORDER 3.6
#define MG_CHECK_MAX_ORDER 4.4

typedef struct mg_options {
    long grids[MG_MAX_GRIDS];
    int ngrids;
    double tol;      /* stop when |r| / |f| falls below it */
    int time_cycles; /* cycles per timed batch after the solve */
    long switch_n;   /* GPU solves: levels smaller than this run on the CPU */
    int graph;       /* GPU solves: time V-cycles replayed from a recording */
    int want_cpu, want_gpu, check;
} mg_options;

/* The progress lines count a grid of n^2 points as n^2 units, a fifth of them for its solve
 * and the rest for its timings (measured at 4095^2 on the CPU: 1 s against 6 s). */
typedef struct mg_progress {
    progress line;
    double done, total; /* done: the grids finished before the one in hand */
} mg_progress;
#define MG_PROGRESS_SOLVE 0.2
#define MG_PROGRESS_CYCLES 20 /* the solve's expected cycles (17-18 measured) */

/* The grid in hand (n^2 points) is `fraction` done. */
static void mg_report(mg_progress *mp, size_t n, double fraction) {
    progress_update(&mp->line, mp->done + (double)n * (double)n * fraction, mp->total);
}

typedef struct mg_level {
    size_t n; /* interior points per side */
    double h;
    int on_device; /* where this level's work runs */
    stenc_field *u, *tmp, *f;
} mg_level;

typedef struct mg_solver {
    stenc_ctx *ctx;
    int nlevels;
    mg_level lv[MG_MAX_LEVELS];
} mg_solver;

/* Move a field to where its level runs (a no-op when it is there already). */
static stenc_status place(stenc_field *f, int on_device) {
    return on_device ? stenc_field_upload(f) : stenc_field_download(f);
}

static stenc_status smooth(mg_solver *s, mg_level *L, int steps) {
    for (int k = 0; k < steps; k++) {
        stenc_status st = mg_smooth(s->ctx, MG_OMEGA, L->h * L->h, L->u, L->f, L->tmp);
        if (st != STENC_OK) return st;
        if ((st = stenc_field_swap(L->u, L->tmp)) != STENC_OK) return st;
    }
    return STENC_OK;
}

/* One V(2,1) cycle on level l for the current u and f of that level. With zero_guess the
 * level starts from u = 0 (a coarse-grid correction). */
static stenc_status vcycle(mg_solver *s, int l, int zero_guess) {
    mg_level *L = &s->lv[l];
    stenc_status st;
    int pre = l == s->nlevels - 1 ? MG_COARSE_SWEEPS : MG_PRE_SMOOTH;
    /* The last prolongation from this level left u on the finer level's side. */
    if ((st = place(L->u, L->on_device)) != STENC_OK) return st;
    if (zero_guess) {
        if ((st = mg_smooth_zero(s->ctx, MG_OMEGA, L->h * L->h, L->f, L->u)) != STENC_OK) return st;
        pre--;
    }
    if ((st = smooth(s, L, pre)) != STENC_OK) return st;
    if (l == s->nlevels - 1) return STENC_OK;

    mg_level *C = &s->lv[l + 1];
    /* r = f - A u into tmp, restricted into the coarse right-hand side (moved to this level's
     * side for the call, then to the coarse level's side). */
    if ((st = mg_residual(s->ctx, 1.0 / (L->h * L->h), L->u, L->f, L->tmp)) != STENC_OK) return st;
    if ((st = place(C->f, L->on_device)) != STENC_OK) return st;
    if ((st = stenc_mg_restrict(C->f, L->tmp, STENC_MG_GRID_INTERIOR, STENC_MG_FULL_WEIGHTING)) !=
        STENC_OK)
        return st;
    if ((st = place(C->f, C->on_device)) != STENC_OK) return st;

    if ((st = vcycle(s, l + 1, 1)) != STENC_OK) return st;

    /* u += P e; the coarse halo holds the correction's zero boundary. */
    if ((st = place(C->u, L->on_device)) != STENC_OK) return st;
    if ((st = stenc_mg_prolong_add(L->u, C->u, STENC_MG_GRID_INTERIOR)) != STENC_OK) return st;
    return smooth(s, L, MG_POST_SMOOTH);
}

static void solver_free(mg_solver *s) {
    for (int l = 0; l < s->nlevels; l++) {
        stenc_field_free(s->lv[l].u);
        stenc_field_free(s->lv[l].tmp);
        stenc_field_free(s->lv[l].f);
    }
    s->nlevels = 0;
}

/* Build the hierarchy for an n x n grid; levels with n >= switch_n run on the device when
 * on_gpu. Every halo is zero (the Dirichlet boundary of u, and of every correction) and no
 * kernel writes a halo, so one zero fill at creation is enough. */
static int solver_init(mg_solver *s, stenc_ctx *ctx, size_t n, int on_gpu, long switch_n) {
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    for (size_t m = n;; s->nlevels++) {
        if (s->nlevels == MG_MAX_LEVELS) return fprintf(stderr, "too many levels\n"), -1;
        mg_level *L = &s->lv[s->nlevels];
        L->n = m, L->h = 1.0 / (double)(m + 1);
        L->on_device = on_gpu && (long)m >= switch_n;
        TRY(stenc_field_create(ctx, &L->u, STENC_F64, 2, m, m, 1, MG_SMOOTH_HALO));
        TRY(stenc_field_create(ctx, &L->tmp, STENC_F64, 2, m, m, 1, MG_SMOOTH_HALO));
        TRY(stenc_field_create(ctx, &L->f, STENC_F64, 2, m, m, 1, 0));
        if (L->on_device) {
            TRY(stenc_field_upload(L->u));
            TRY(stenc_field_upload(L->tmp));
            TRY(stenc_field_upload(L->f));
        }
        if (m == 1) break;
        TRY(stenc_mg_coarse_extent(STENC_MG_GRID_INTERIOR, m, &m));
    }
    s->nlevels++;
    return 0;
fail:
    s->nlevels++;
    solver_free(s);
    return -1;
}

typedef struct mg_result {
    int cycles, converged;
    double tol; /* o->tol, raised to the rounding floor of the grid */
    double factor[MG_MAX_CYCLES], mean_factor, rel_residual, max_error;
    int nlevels, graph; /* graph: the GPU times below include replayed recordings */
    size_t level_n[MG_MAX_LEVELS];
    int level_gpu[MG_MAX_LEVELS];
    /* ms per V-cycle, and each level's own share of it: plain launches (or CPU calls), and
     * (graph) replayed recordings */
    double ms_plain, ms_graph;
    double level_ms_plain[MG_MAX_LEVELS], level_ms_graph[MG_MAX_LEVELS];
} mg_result;

/* |f - A u| / |f| on the finest level (uses its tmp). */
static stenc_status rel_residual(mg_solver *s, double norm_f, double *rel) {
    mg_level *L = &s->lv[0];
    stenc_status st = mg_residual(s->ctx, 1.0 / (L->h * L->h), L->u, L->f, L->tmp);
    double r = 0;
    if (st == STENC_OK) st = stenc_field_norm2(L->tmp, &r);
    *rel = r / norm_f;
    return st;
}

enum { MG_TIMED_BATCHES = 5, MG_MAX_BATCH = 2000 };
#define MG_MIN_BATCH_S 0.01 /* a CPU batch of small levels is otherwise lost in the noise */

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* *ms: the time of one V-cycle that starts at level l (levels l.. and the coarse solve), the
 * median of MG_TIMED_BATCHES batches of 2 * batch cycles after a warm-up, batch raised so that
 * a batch lasts MG_MIN_BATCH_S at least. With a graph, the batches replay a recording of two
 * cycles: a cycle swaps each level's u and tmp an odd number of times, so two leave the
 * pointers as the recording found them. */
static stenc_status time_from_level(mg_solver *s, int l, int use_graph, int batch, double *ms) {
    stenc_graph *graph = NULL;
    stenc_status st = STENC_OK;
    double t[MG_TIMED_BATCHES];
    if (use_graph) {
        if ((st = stenc_graph_begin(s->ctx)) != STENC_OK) return st;
        for (int c = 0; c < 2 && st == STENC_OK; c++)
            st = vcycle(s, l, 0);
        stenc_graph *g = NULL;
        stenc_status end = stenc_graph_end(s->ctx, &g);
        if (st != STENC_OK) return stenc_graph_free(g), st;
        if ((st = end) != STENC_OK) return st;
        graph = g;
    }
    for (int b = -1; b < MG_TIMED_BATCHES && st == STENC_OK; b++) { /* b = -1: warm-up */
        double t0 = progress_now_s();
        for (int r = 0; r < (b < 0 ? 1 : batch) && st == STENC_OK; r++)
            if (use_graph)
                st = stenc_graph_launch(graph);
            else if ((st = vcycle(s, l, 0)) == STENC_OK)
                st = vcycle(s, l, 0);
        if (st == STENC_OK) st = stenc_ctx_synchronize(s->ctx);
        double seconds = progress_now_s() - t0;
        if (b >= 0)
            t[b] = seconds * 1e3 / (2.0 * batch);
        else if (seconds * batch < MG_MIN_BATCH_S)
            batch = seconds * MG_MAX_BATCH < MG_MIN_BATCH_S ? MG_MAX_BATCH
                                                            : (int)(MG_MIN_BATCH_S / seconds) + 1;
    }
    stenc_graph_free(graph);
    if (st != STENC_OK) return st;
    qsort(t, MG_TIMED_BATCHES, sizeof t[0], compare_double);
    *ms = t[MG_TIMED_BATCHES / 2];
    return STENC_OK;
}

/* The time per V-cycle, and each level's own time: T(l) - T(l+1), where T(l) is the time of a
 * cycle from level l down (a difference of whole measured cycles: no waiting between levels
 * distorts it). The grid's progress goes from `from` to `to` as the levels are timed. */
static stenc_status time_levels(mg_solver *s, int use_graph, int batch, double *ms_cycle,
                                double *level_ms, mg_progress *mp, double from, double to) {
    double next = 0;
    const double n0 = (double)s->lv[0].n;
    for (int l = s->nlevels - 1; l >= 0; l--) {
        double t;
        stenc_status st = time_from_level(s, l, use_graph, batch, &t);
        if (st != STENC_OK) return st;
        level_ms[l] = t - next;
        next = t;
        /* timing from level l costs about (n_l / n_0)^2 of timing from the finest */
        const double nl = (double)s->lv[l].n;
        mg_report(mp, s->lv[0].n, from + (to - from) * nl * nl / (n0 * n0));
    }
    *ms_cycle = next;
    return STENC_OK;
}

static int solve(stenc_ctx *ctx, const mg_options *o, size_t n, int on_gpu, mg_result *res,
                 mg_progress *mp) {
    const double pi = acos(-1.0);
    mg_solver s;
    if (solver_init(&s, ctx, n, on_gpu, o->switch_n) != 0) return -1;
    mg_level *L = &s.lv[0];
    double *dense = malloc(n * n * sizeof *dense);
    int ok = 0;
    if (!dense) goto fail;
    memset(res, 0, sizeof *res);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            dense[i + n * j] =
                2 * pi * pi * sin(pi * (double)(i + 1) * L->h) * sin(pi * (double)(j + 1) * L->h);
    TRY(stenc_field_download(L->f));
    TRY(stenc_field_copy_from(L->f, dense));
    TRY(place(L->f, L->on_device));

    double norm_f, rel = 1, prev = 1, log_sum = 0;
    const double rounding_floor =
        MG_ROUNDING_FLOOR * DBL_EPSILON * (double)(n + 1) * (double)(n + 1);
    res->tol = o->tol > rounding_floor ? o->tol : rounding_floor;
    TRY(stenc_field_norm2(L->f, &norm_f));
    while (res->cycles < MG_MAX_CYCLES && !(rel < res->tol)) {
        TRY(vcycle(&s, 0, 0));
        TRY(rel_residual(&s, norm_f, &rel));
        res->factor[res->cycles] = rel / prev;
        log_sum += log(rel / prev);
        prev = rel;
        res->cycles++;
        const double cycles = res->cycles < MG_PROGRESS_CYCLES ? res->cycles : MG_PROGRESS_CYCLES;
        mg_report(mp, n, MG_PROGRESS_SOLVE * cycles / MG_PROGRESS_CYCLES);
    }
    res->converged = rel < res->tol;
    res->rel_residual = rel;
    res->mean_factor = exp(log_sum / res->cycles);

    TRY(stenc_field_download(L->u));
    TRY(stenc_field_copy_to(L->u, dense));
    res->max_error = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            double e = fabs(dense[i + n * j] -
                            sin(pi * (double)(i + 1) * L->h) * sin(pi * (double)(j + 1) * L->h));
            if (!(e <= res->max_error)) res->max_error = e; /* NaN propagates */
        }
    TRY(place(L->u, L->on_device));

    /* Timing. Graphs need every level on the device (the CPU levels' transfers wait). */
    res->graph = on_gpu && o->graph && s.lv[s.nlevels - 1].on_device;
    const double mid = res->graph ? (1 + MG_PROGRESS_SOLVE) / 2 : 1; /* two timings or one */
    TRY(time_levels(&s, 0, o->time_cycles, &res->ms_plain, res->level_ms_plain, mp,
                    MG_PROGRESS_SOLVE, mid));
    if (res->graph)
        TRY(time_levels(&s, 1, o->time_cycles, &res->ms_graph, res->level_ms_graph, mp, mid, 1));
    res->nlevels = s.nlevels;
    for (int l = 0; l < s.nlevels; l++) {
        res->level_n[l] = s.lv[l].n;
        res->level_gpu[l] = s.lv[l].on_device;
    }
    ok = 1;
fail:
    free(dense);
    solver_free(&s);
    return ok ? 0 : -1;
}

static void usage(const char *prog) {
    printf("usage: %s [--grids 63,127,...] [--device cpu|cuda|all] [--tol T] [--time-cycles K]\n"
           "          [--switch N] [--graph on|off] [--check] [--quiet] [--help]\n"
           "  --grids        interior points per side, each 2^L-1, 3..65535 (default\n"
           "                 63,127,255,511,1023)\n"
           "  --device       cpu, cuda, or all (default all: the CPU, then the GPU when there\n"
           "                 is one)\n"
           "  --tol          stop when |f - A u| / |f| < T (default 1e-10; at least %.1f eps\n"
           "                 (n+1)^2, the rounding floor of the grid)\n"
           "  --time-cycles  the timings' batches hold at least 2K V-cycles (default 5)\n"
           "  --switch       GPU solves: levels with fewer points per side run on the CPU\n"
           "                 (default %d: all on the GPU)\n"
           "  --graph        GPU solves: also time V-cycles replayed from a recording\n"
           "                 (default on)\n"
           "  --check        exit 1 unless every grid converges, the reduction per cycle is\n"
           "                 below %.2f and within %.1fx across grids, and the error falls\n"
           "                 %.1f..%.1fx per halving of h\n"
           "  --quiet        no progress lines (printed on stderr when it is a terminal)\n",
           prog, MG_ROUNDING_FLOOR, MG_DEFAULT_SWITCH, MG_CHECK_MAX_FACTOR, MG_CHECK_SPREAD,
           MG_CHECK_MIN_ORDER, MG_CHECK_MAX_ORDER);
}

static int parse_args(int argc, char **argv, mg_options *o) {
    const long defaults[] = {63, 127, 255, 511, 1023};
    memset(o, 0, sizeof *o);
    memcpy(o->grids, defaults, sizeof defaults);
    o->ngrids = 5, o->tol = 1e-10, o->time_cycles = 5, o->switch_n = MG_DEFAULT_SWITCH;
    o->graph = 1;
    o->want_cpu = o->want_gpu = 1;
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
            o->ngrids = example_parse_sizes(val, o->grids, MG_MAX_GRIDS, 3, 65535);
            if (o->ngrids < 0) return -2;
            for (int g = 0; g < o->ngrids; g++)
                if (((o->grids[g] + 1) & o->grids[g]) != 0)
                    return fprintf(stderr, "bad grid %ld: each must be 2^L-1\n", o->grids[g]), -2;
        } else if (strcmp(arg, "--tol") == 0) {
            o->tol = atof(val);
            if (!(o->tol > 0)) return fprintf(stderr, "bad tol '%s'\n", val), -2;
        } else if (strcmp(arg, "--time-cycles") == 0) {
            o->time_cycles = atoi(val);
            if (o->time_cycles < 1) return fprintf(stderr, "bad time-cycles '%s'\n", val), -2;
        } else if (strcmp(arg, "--switch") == 0)
            o->switch_n = atol(val);
        else if (strcmp(arg, "--graph") == 0) {
            o->graph = strcmp(val, "on") == 0;
            if (!o->graph && strcmp(val, "off") != 0)
                return fprintf(stderr, "bad graph '%s' (on or off)\n", val), -2;
        } else if (strcmp(arg, "--device") == 0) {
            o->want_cpu = strcmp(val, "cpu") == 0 || strcmp(val, "all") == 0;
            o->want_gpu = strcmp(val, "cuda") == 0 || strcmp(val, "all") == 0;
            if (!o->want_cpu && !o->want_gpu) return fprintf(stderr, "bad device '%s'\n", val), -2;
        } else
            return fprintf(stderr, "unknown option %s\n", arg), -2;
    }
    return 0;
}

/* On a CUDA context: do the example's stencils run on device-resident fields in this build? */
static int cuda_kernels_available(stenc_ctx *ctx) {
    stenc_field *u = NULL, *f = NULL, *r = NULL;
    int ok = stenc_field_create(ctx, &u, STENC_F64, 2, 3, 3, 1, 1) == STENC_OK &&
             stenc_field_create(ctx, &f, STENC_F64, 2, 3, 3, 1, 1) == STENC_OK &&
             stenc_field_create(ctx, &r, STENC_F64, 2, 3, 3, 1, 1) == STENC_OK &&
             stenc_field_upload(u) == STENC_OK && stenc_field_upload(f) == STENC_OK &&
             stenc_field_upload(r) == STENC_OK && mg_smooth(ctx, 0.8, 1, u, f, r) == STENC_OK &&
             mg_smooth_zero(ctx, 0.8, 1, f, r) == STENC_OK &&
             mg_residual(ctx, 1, u, f, r) == STENC_OK && stenc_ctx_synchronize(ctx) == STENC_OK;
    stenc_field_free(u);
    stenc_field_free(f);
    stenc_field_free(r);
    return ok;
}

/* Solve every grid on ctx; returns the number of failed checks, -1 on an error. */
static int run_device(stenc_ctx *ctx, const mg_options *o, int on_gpu, mg_progress *mp) {
    int failures = 0;
    double prev_err = 0, fmin = INFINITY, fmax = 0;
    printf("\n== %s: %s\n", on_gpu ? "GPU" : "CPU", stenc_ctx_device_name(ctx));
    if (on_gpu)
        printf("   levels with n >= %ld on the GPU, smaller ones on the CPU (--switch)\n",
               o->switch_n);
    for (int g = 0; g < o->ngrids; g++) {
        mg_result r;
        size_t n = (size_t)o->grids[g];
        printf("grid %zu^2 (h = 1/%zu)\n", n, n + 1);
        if (solve(ctx, o, n, on_gpu, &r, mp) != 0) return -1;
        mp->done += (double)n * (double)n;
        printf("    |r|/|f| reduction per cycle:");
        for (int c = 0; c < r.cycles; c++)
            printf(" %.3f", r.factor[c]);
        /* second order: the error falls with h^2, by 4x per halving of h */
        double ratio = g > 0 ? prev_err / r.max_error : 0;
        double h_ratio = g > 0 ? (double)(n + 1) / (double)(o->grids[g - 1] + 1) : 1;
        double order_ratio = ratio / (h_ratio * h_ratio) * 4; /* 4 when second order */
        printf("\n    cycles %d, |r|/|f| %.2e (tol %.1e)%s, mean reduction %.3f, max error %.3e",
               r.cycles, r.rel_residual, r.tol, r.converged ? "" : " (NOT converged)",
               r.mean_factor, r.max_error);
        if (g > 0) printf(" (%.2fx smaller)", ratio);
        double ms = r.graph ? r.ms_graph : r.ms_plain;
        const double *level_ms = r.graph ? r.level_ms_graph : r.level_ms_plain;
        printf(", %.3f ms per V-cycle", ms);
        if (r.graph) printf(" (replayed graph; plain launches %.3f ms)", r.ms_plain);
        printf("\n");
        double on_cpu = 0;
        for (int l = 0; l < r.nlevels; l++)
            on_cpu += r.level_gpu[l] ? 0 : level_ms[l];
        printf("key=value example=poisson_multigrid target=%s n=%zu cycles=%d mean_reduction=%.4f "
               "max_error=%.4e ms_per_vcycle=%.4f ms_per_vcycle_plain=%.4f graph=%d "
               "finest_level_share=%.3f\n",
               on_gpu ? "cuda" : "cpu", n, r.cycles, r.mean_factor, r.max_error, ms, r.ms_plain,
               r.graph, level_ms[0] / ms);
        printf("    time per level: T(l) - T(l+1), T(l) the time of a cycle from level l down\n");
        printf("    %6s %8s %6s %10s %7s", "level", "n", "where", "ms", "share");
        if (r.graph) printf(" %12s %7s", "plain ms", "share");
        printf("\n");
        for (int l = 0; l < r.nlevels; l++) {
            printf("    %6d %8zu %6s %10.4f %6.1f%%", l, r.level_n[l],
                   r.level_gpu[l] ? "gpu" : "cpu", level_ms[l], 100 * level_ms[l] / ms);
            if (r.graph)
                printf(" %12.4f %6.1f%%", r.level_ms_plain[l],
                       100 * r.level_ms_plain[l] / r.ms_plain);
            printf("\n");
        }
        printf("    where the time goes: finest level %.1f%%, two finest %.1f%%",
               100 * level_ms[0] / ms,
               100 * (level_ms[0] + (r.nlevels > 1 ? level_ms[1] : 0)) / ms);
        if (on_gpu) printf(", levels on the CPU %.1f%%", 100 * on_cpu / ms);
        printf("\n");
        fflush(stdout);
        if (!r.converged || !(r.mean_factor < MG_CHECK_MAX_FACTOR)) failures++;
        if (g > 0 && !(order_ratio >= MG_CHECK_MIN_ORDER && order_ratio <= MG_CHECK_MAX_ORDER))
            failures++;
        fmin = fmin < r.mean_factor ? fmin : r.mean_factor;
        fmax = fmax > r.mean_factor ? fmax : r.mean_factor;
        prev_err = r.max_error;
    }
    if (!(fmax <= MG_CHECK_SPREAD * fmin)) failures++;
    printf("mean reduction per cycle across grids: %.3f .. %.3f\n", fmin, fmax);
    return failures;
}

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    mg_options o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed == -1) return 0;
    if (parsed < 0) return 2;
    printf("poisson_multigrid: -laplace u = 2 pi^2 sin(pi x) sin(pi y) on (0,1)^2, u = 0 on the "
           "boundary\n"
           "V(%d,%d) cycles, omega-Jacobi (omega = %.1f), full weighting, bilinear prolongation, "
           "down to 1 point (%d sweeps)\n",
           MG_PRE_SMOOTH, MG_POST_SMOOTH, MG_OMEGA, MG_COARSE_SWEEPS);
    int failures = 0;
    stenc_ctx *ctx = NULL;
    mg_progress mp = {.done = 0, .total = 0};
    for (int g = 0; g < o.ngrids; g++) /* the GPU's share is a guess: as much as the CPU's */
        mp.total += (o.want_cpu + o.want_gpu) * (double)o.grids[g] * (double)o.grids[g];
    progress_begin(&mp.line, "poisson_multigrid");
    if (o.want_cpu) {
        if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) {
            fprintf(stderr, "poisson_multigrid: %s\n", stenc_last_error());
            return 1;
        }
        int f = run_device(ctx, &o, 0, &mp);
        stenc_ctx_destroy(ctx);
        if (f < 0) return 1;
        failures += f;
    }
    if (o.want_gpu) {
        if (stenc_ctx_create(&ctx, STENC_DEVICE_CUDA) != STENC_OK)
            printf("\nnote: no GPU run (%s)\n", stenc_last_error());
        else if (!cuda_kernels_available(ctx)) {
            printf("\nnote: the stencils cannot run on the GPU in this build (%s); no GPU run\n",
                   stenc_last_error());
            stenc_ctx_destroy(ctx);
        } else {
            int f = run_device(ctx, &o, 1, &mp);
            stenc_ctx_destroy(ctx);
            if (f < 0) return 1;
            failures += f;
        }
    }
    if (o.check) {
        printf("check: %s\n", failures ? "FAILED" : "passed");
        return failures ? 1 : 0;
    }
    return 0;
}
