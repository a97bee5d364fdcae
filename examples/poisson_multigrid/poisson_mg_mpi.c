/* poisson_mg_mpi: the multigrid example's problem (poisson_multigrid.c) on a grid split over
 * MPI ranks (docs/distributed.md). -laplace(u) = 2 pi^2 sin(pi x) sin(pi y) on the unit square,
 * u = 0 on the boundary, V(2,1) cycles of omega-Jacobi smoothing, full weighting and bilinear
 * prolongation on grids of 2^L-1 points per side.
 *
 * The fine levels are distributed: each is split by stenc_decomp_coarsen() of the level above,
 * and the transfers between them are stenc_dist_mg_restrict / _prolong_add. A level with fewer
 * than --agglomerate points per side, or one the ranks cannot share (some rank would own no
 * point), is gathered onto rank 0 (agglomeration), which runs it and every coarser level alone:
 * the residual of the last distributed level is gathered there and restricted, and its
 * correction prolonged into the gathered u, which is scattered back.
 *
 * Rank 0 prints the relative residual after each cycle and, at the end, the max error against
 * the exact solution, in decimal and hex: the same bits on any number of ranks, wherever the
 * agglomeration happens. --time N also times N V-cycles (median of 5 batches).
 *
 *   mpirun -np 4 poisson_mg_mpi [--n N] [--cycles C] [--agglomerate M] [--time N] [--cpu]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_residual.h"
#include "mg_smooth.h"
#include "mg_smooth_zero.h"
#include "stenc/dist.h"
#include "stenc/stenc.h"

#define MG_MAX_LEVELS 24
#define MG_OMEGA 0.8
#define MG_PRE_SMOOTH 2
#define MG_POST_SMOOTH 1
#define MG_COARSE_SWEEPS 20
#define MG_TIMED_BATCHES 5

typedef struct level {
    size_t n;
    double h;
    int split;                /* 1: distributed over the ranks; 0: on rank 0 alone */
    stenc_decomp *dp;         /* split levels */
    stenc_field *u, *tmp, *f; /* NULL on ranks other than 0 for levels on rank 0 */
} level;

typedef struct solver {
    stenc_ctx *ctx;
    int rank, nlevels, first_whole; /* levels first_whole.. live on rank 0 */
    level lv[MG_MAX_LEVELS];
    stenc_field *gathered; /* rank 0: the last split level, gathered (r down, u up) */
} solver;

static const stenc_bc zero_bc[STENC_FACE_COUNT] = {
    {STENC_BC_DIRICHLET, 0}, {STENC_BC_DIRICHLET, 0}, {STENC_BC_DIRICHLET, 0},
    {STENC_BC_DIRICHLET, 0}, {STENC_BC_DIRICHLET, 0}, {STENC_BC_DIRICHLET, 0}};

#define CHECK(call)                                                                                \
    do {                                                                                           \
        stenc_status st_ = (call);                                                                 \
        if (st_ != STENC_OK) return st_;                                                           \
    } while (0)

/* u's halo before a kernel reads its neighbours: the neighbours' points on a split level, the
 * zero boundary (set at creation, never written) on rank 0's. */
static stenc_status halo(level *L) {
    return L->split ? stenc_field_exchange(L->u, zero_bc, STENC_EXCHANGE_FACES) : STENC_OK;
}

static stenc_status smooth(solver *s, level *L, int steps) {
    for (int k = 0; k < steps; k++) {
        CHECK(halo(L));
        CHECK(mg_smooth(s->ctx, MG_OMEGA, L->h * L->h, L->u, L->f, L->tmp));
        CHECK(stenc_field_swap(L->u, L->tmp));
    }
    return STENC_OK;
}

/* One V(2,1) cycle from level l (from u = 0 with zero_guess). Levels on rank 0 return at once
 * on the other ranks. */
static stenc_status vcycle(solver *s, int l, int zero_guess) {
    level *L = &s->lv[l];
    if (!L->split && s->rank != 0) return STENC_OK;
    int pre = l == s->nlevels - 1 ? MG_COARSE_SWEEPS : MG_PRE_SMOOTH;
    if (zero_guess) {
        CHECK(mg_smooth_zero(s->ctx, MG_OMEGA, L->h * L->h, L->f, L->u));
        pre--;
    }
    CHECK(smooth(s, L, pre));
    if (l == s->nlevels - 1) return STENC_OK;
    level *C = &s->lv[l + 1];
    CHECK(halo(L));
    CHECK(mg_residual(s->ctx, 1.0 / (L->h * L->h), L->u, L->f, L->tmp));
    if (C->split) {
        CHECK(stenc_dist_mg_restrict(C->f, L->tmp, STENC_MG_FULL_WEIGHTING));
        CHECK(vcycle(s, l + 1, 1));
        CHECK(stenc_dist_mg_prolong_add(L->u, C->u, zero_bc));
        return smooth(s, L, MG_POST_SMOOTH);
    }
    if (L->split) { /* agglomeration: the coarser levels run on rank 0 */
        CHECK(stenc_field_gather_field(L->tmp, 0, s->gathered));
        if (s->rank == 0)
            CHECK(stenc_mg_restrict(C->f, s->gathered, STENC_MG_GRID_INTERIOR,
                                    STENC_MG_FULL_WEIGHTING));
        CHECK(vcycle(s, l + 1, 1));
        CHECK(stenc_field_gather_field(L->u, 0, s->gathered));
        if (s->rank == 0) CHECK(stenc_mg_prolong_add(s->gathered, C->u, STENC_MG_GRID_INTERIOR));
        CHECK(stenc_field_scatter_field(L->u, 0, s->gathered));
        return smooth(s, L, MG_POST_SMOOTH);
    }
    CHECK(stenc_mg_restrict(C->f, L->tmp, STENC_MG_GRID_INTERIOR, STENC_MG_FULL_WEIGHTING));
    CHECK(vcycle(s, l + 1, 1));
    CHECK(stenc_mg_prolong_add(L->u, C->u, STENC_MG_GRID_INTERIOR));
    return smooth(s, L, MG_POST_SMOOTH);
}

static void solver_free(solver *s) {
    for (int l = 0; l < s->nlevels; l++) {
        stenc_field_free(s->lv[l].u);
        stenc_field_free(s->lv[l].tmp);
        stenc_field_free(s->lv[l].f);
    }
    stenc_field_free(s->gathered);
    for (int l = 0; l < s->nlevels; l++)
        stenc_decomp_destroy(s->lv[l].dp);
}

static stenc_status make_fields(solver *s, level *L) {
    const size_t n[3] = {L->n, L->n, 1};
    if (L->split) {
        CHECK(stenc_field_create_dist(s->ctx, &L->u, L->dp, STENC_F64, MG_SMOOTH_HALO));
        CHECK(stenc_field_create_dist(s->ctx, &L->tmp, L->dp, STENC_F64, MG_SMOOTH_HALO));
        CHECK(stenc_field_create_dist(s->ctx, &L->f, L->dp, STENC_F64, 0));
    } else if (s->rank == 0) {
        CHECK(stenc_field_create(s->ctx, &L->u, STENC_F64, 2, n[0], n[1], 1, MG_SMOOTH_HALO));
        CHECK(stenc_field_create(s->ctx, &L->tmp, STENC_F64, 2, n[0], n[1], 1, MG_SMOOTH_HALO));
        CHECK(stenc_field_create(s->ctx, &L->f, STENC_F64, 2, n[0], n[1], 1, 0));
    } else {
        return STENC_OK;
    }
    CHECK(stenc_field_upload(L->u));
    CHECK(stenc_field_upload(L->tmp));
    return stenc_field_upload(L->f);
}

/* The hierarchy from n down to one point; levels of fewer than `agglomerate` points per side,
 * and those the ranks cannot share, on rank 0. */
static stenc_status solver_init(solver *s, stenc_ctx *ctx, size_t n, long agglomerate) {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    s->ctx = ctx;
    s->first_whole = -1;
    const size_t global[3] = {n, n, 1};
    for (size_t m = n;;) {
        if (s->nlevels == MG_MAX_LEVELS)
            return stenc_set_error(STENC_ERR_SHAPE, __FILE__, __LINE__, "too many levels");
        level *L = &s->lv[s->nlevels++];
        L->n = m, L->h = 1.0 / (double)(m + 1);
        if (s->nlevels == 1) {
            CHECK(stenc_decomp_create(&L->dp, ctx, 2, global, NULL, NULL));
            L->split = 1;
        } else if (s->first_whole < 0 && (long)m >= agglomerate) {
            /* a level the ranks cannot share is no error here: it goes to rank 0 */
            L->split = stenc_decomp_coarsen(&L->dp, s->lv[s->nlevels - 2].dp) == STENC_OK;
        }
        if (!L->split && s->first_whole < 0) {
            s->first_whole = s->nlevels - 1;
            const level *F = &s->lv[s->nlevels - 2]; /* the last split level */
            if (s->rank == 0) {
                CHECK(stenc_field_create(ctx, &s->gathered, STENC_F64, 2, F->n, F->n, 1, 0));
                CHECK(stenc_field_upload(s->gathered));
            }
        }
        CHECK(make_fields(s, L));
        if (m == 1) break;
        CHECK(stenc_mg_coarse_extent(STENC_MG_GRID_INTERIOR, m, &m));
    }
    if (s->first_whole < 0) s->first_whole = s->nlevels;
    return STENC_OK;
}

/* |f - A u| / |f| on the finest level, global. */
static stenc_status rel_residual(solver *s, double norm_f, double *rel) {
    level *L = &s->lv[0];
    double r = 0;
    CHECK(halo(L));
    CHECK(mg_residual(s->ctx, 1.0 / (L->h * L->h), L->u, L->f, L->tmp));
    CHECK(stenc_field_norm2(L->tmp, &r));
    *rel = r / norm_f;
    return STENC_OK;
}

/* f on this rank's part of the finest level, or the error u - exact into f's place (err). */
static stenc_status fill_part(const level *L, stenc_field *out, int error) {
    const double pi = acos(-1.0);
    stenc_decomp_info info;
    CHECK(stenc_decomp_get_info(L->dp, &info));
    for (size_t j = 0; j < info.local[1]; j++)
        for (size_t i = 0; i < info.local[0]; i++) {
            const double x = (double)(info.lo[0] + i + 1) * L->h,
                         y = (double)(info.lo[1] + j + 1) * L->h;
            const double exact = sin(pi * x) * sin(pi * y);
            double v = 2 * pi * pi * exact;
            if (error) {
                CHECK(stenc_field_get(L->u, (long)i, (long)j, 0, &v));
                v -= exact;
            }
            CHECK(stenc_field_set(out, (long)i, (long)j, 0, v));
        }
    return STENC_OK;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int rank_;

static void usage(void) {
    printf("usage: poisson_mg_mpi [--n N] [--cycles C] [--agglomerate M] [--time N] [--cpu]\n"
           "  --n N            interior points per side, 2^L-1 (default 255)\n"
           "  --cycles C       V-cycles (default 12)\n"
           "  --agglomerate M  levels of fewer than M points per side run on rank 0 "
           "(default 64)\n"
           "  --time N         time batches of N V-cycles afterwards (default 0: no timing)\n"
           "  --cpu            every rank on the CPU (default: one GPU per rank when present)\n");
}

static int run(solver *s, long n, int cycles, long agglomerate, int time_cycles, int cpu) {
    stenc_field *err = NULL;
    double norm_f = 0, rel = 0, max_error = 0, norm_u = 0;
    int status = 1;
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != STENC_OK) {                                                                  \
            fprintf(stderr, "poisson_mg_mpi (rank %d): %s failed: %s\n", rank_, #call,             \
                    stenc_last_error());                                                           \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)
    TRY(stenc_ctx_create_mpi(&s->ctx, MPI_COMM_WORLD, cpu ? STENC_DEVICE_CPU : STENC_DEVICE_AUTO));
    s->rank = rank_;
    TRY(solver_init(s, s->ctx, (size_t)n, agglomerate));
    level *L = &s->lv[0];
    TRY(stenc_field_download(L->f));
    TRY(fill_part(L, L->f, 0));
    TRY(stenc_field_upload(L->f));
    TRY(stenc_field_norm2(L->f, &norm_f));
    stenc_decomp_info info;
    TRY(stenc_decomp_get_info(L->dp, &info));
    if (rank_ == 0) {
        printf("poisson_mg_mpi: %ld^2 on %d rank(s) (%d x %d), %s; %d levels, ", n, info.size,
               info.procs[0], info.procs[1], stenc_ctx_device_name(s->ctx), s->nlevels);
        if (s->first_whole < s->nlevels)
            printf("levels %d.. (from %zu points per side) gathered on rank 0\n", s->first_whole,
                   s->lv[s->first_whole].n);
        else
            printf("all split\n");
    }
    for (int c = 0; c < cycles; c++) {
        TRY(vcycle(s, 0, 0));
        TRY(rel_residual(s, norm_f, &rel));
        if (rank_ == 0) printf("cycle %2d: relative residual %.6e (%a)\n", c + 1, rel, rel);
    }
    TRY(stenc_field_create_dist(s->ctx, &err, L->dp, STENC_F64, 0));
    TRY(stenc_field_download(L->u));
    TRY(fill_part(L, err, 1));
    TRY(stenc_field_upload(L->u));
    TRY(stenc_field_norm_max(err, &max_error));
    TRY(stenc_field_norm2(L->u, &norm_u));
    if (rank_ == 0)
        printf("result: cycles=%d rel_residual=%.9e (%a) max_error=%.9e (%a) norm2=%a\n", cycles,
               rel, rel, max_error, max_error, norm_u);
    if (time_cycles > 0) {
        double t[MG_TIMED_BATCHES];
        for (int b = -1; b < MG_TIMED_BATCHES; b++) { /* b = -1: warm-up */
            TRY(stenc_ctx_synchronize(s->ctx));
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            for (int c = 0; c < time_cycles; c++)
                TRY(vcycle(s, 0, 0));
            TRY(stenc_ctx_synchronize(s->ctx));
            MPI_Barrier(MPI_COMM_WORLD);
            if (b >= 0) t[b] = (MPI_Wtime() - t0) * 1e3 / time_cycles;
        }
        qsort(t, MG_TIMED_BATCHES, sizeof t[0], compare_double);
        if (rank_ == 0)
            printf("case=poisson_mg_mpi n=%ld ranks=%d agglomerate_from=%zu ms_per_vcycle=%.4f\n",
                   n, info.size, s->first_whole < s->nlevels ? s->lv[s->first_whole].n : 0,
                   t[MG_TIMED_BATCHES / 2]);
    }
    status = 0;
done:
    stenc_field_free(err);
    return status;
#undef TRY
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    long n = 255, agglomerate = 64;
    int cycles = 12, time_cycles = 0, cpu = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc)
            n = atol(argv[++a]);
        else if (!strcmp(argv[a], "--cycles") && a + 1 < argc)
            cycles = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--agglomerate") && a + 1 < argc)
            agglomerate = atol(argv[++a]);
        else if (!strcmp(argv[a], "--time") && a + 1 < argc)
            time_cycles = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--cpu"))
            cpu = 1;
        else if (!strcmp(argv[a], "--quiet"))
            continue;
        else {
            const int help = !strcmp(argv[a], "--help") || !strcmp(argv[a], "-h");
            if (rank_ == 0) {
                if (!help) fprintf(stderr, "poisson_mg_mpi: unknown option %s\n", argv[a]);
                usage();
            }
            MPI_Finalize();
            return help ? 0 : 2;
        }
    }
    int levels_ok = n >= 1;
    for (long m = n + 1; levels_ok && m > 1; m /= 2)
        levels_ok = m % 2 == 0;
    if (!levels_ok || cycles < 1 || time_cycles < 0) {
        if (rank_ == 0)
            fprintf(stderr, "poisson_mg_mpi: need n = 2^L-1 (1, 3, 7, 15, ...), cycles >= 1, "
                            "time >= 0\n");
        MPI_Finalize();
        return 2;
    }
    solver s;
    memset(&s, 0, sizeof s);
    int status = run(&s, n, cycles, agglomerate, time_cycles, cpu);
    solver_free(&s);
    stenc_ctx_destroy(s.ctx);
    MPI_Finalize();
    return status;
}
