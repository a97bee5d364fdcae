/* Distributed runs under mpirun, each against rank 0 alone on the same grid, in the same run:
 * - heat3d (float): weak scaling (N^3 points per rank, split along k) and strong scaling (a
 *   global G^3 grid); the halo exchange alone in GB/s;
 * - red-black SOR (gs_redblack, double, a global Q^2 grid split along j): time per sweep;
 * - MLSSOR (stenc_mlssor_sweep, double, the same grid): time per layer (a layer updates every
 *   point once, as a red-black sweep does) and exchanges per layer, for subdomains 8 and 16 and
 *   halos from one exchange per phase to the deepest (16);
 * - multi-block heat3d (float): 2x2x2 blocks of B^3 joined by 12 patches, spread over the
 *   ranks by the partitioner: time per step;
 * - the device-to-device copy rate between every pair of GPUs (CUDA builds, rank 0).
 *
 *   mpirun -np P bench_dist [--weak N] [--strong G] [--sor Q] [--mb B] [--steps S] [--reps R]
 *                           [--cpu] [--stepping | --sor-only] [--quiet]
 *
 * Defaults: --weak 512 --strong 1024 --sor 8192 --mb 384 on GPUs; 128, 192, 1024 and 48 on
 * the CPU (--cpu, or no GPU).
 * Time per step: the slowest rank's wall time over S steps after a warm-up, the median of
 * R repetitions; every rank synchronises its device before the clock stops. Checked in the
 * same run: the distributed result's global sum of squares equals the single rank's, bit for
 * bit (the reductions are exact). Prints key=value lines, then a table.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_redblack.h"
#include "heat3d.h"
#include "stenc/dist.h"
#include "stenc/launch.h"
#include "stenc/multiblock.h"
#include "stenc/reduce.h"
#include "stenc/sor.h"
#ifdef STENC_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static int rank_, size_;
static int ipc_faces = 0; /* faces of rank 0's part that the exchange reads through CUDA IPC */

#define CHECK(call)                                                                                \
    do {                                                                                           \
        stenc_status st_ = (call);                                                                 \
        if (st_ != STENC_OK) {                                                                     \
            fprintf(stderr, "rank %d: %s failed: %s\n", rank_, #call, stenc_last_error());         \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

typedef struct run_cfg {
    stenc_ctx *ctx;
    int overlap; /* 0: exchange, then launch; 1: stenc_dist_overlap */
} run_cfg;

static stenc_status heat_launch(void *user, stenc_field *const v[]) {
    const run_cfg *c = user;
    return heat3d(c->ctx, 0.4, 0.1, v[0], v[1]);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over `reps` repetitions (after a warm-up) of the slowest rank's seconds per step, a
 * step being one call of step(state); every rank synchronises its device before the clock
 * stops. */
static double median_step(stenc_ctx *ctx, MPI_Comm comm, int steps, int reps, void (*step)(void *),
                          void *state) {
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (!t) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int r = -1; r < reps; r++) { /* r = -1: the warm-up */
        CHECK(stenc_ctx_synchronize(ctx));
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        for (int s = 0; s < steps; s++)
            step(state);
        CHECK(stenc_ctx_synchronize(ctx));
        double mine = MPI_Wtime() - t0, slowest = 0;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (r >= 0) t[r] = slowest / steps;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    const double median = t[reps / 2];
    free(t);
    return median;
}

static const stenc_bc walls[6] = {{STENC_BC_DIRICHLET, 1.0}, {STENC_BC_DIRICHLET, 0.0},
                                  {STENC_BC_NEUMANN, 0},     {STENC_BC_NEUMANN, 0},
                                  {STENC_BC_DIRICHLET, 0.5}, {STENC_BC_DIRICHLET, -0.5}};

/* One heat3d step (mode 0: launch only, 1: exchange then launch, 2: overlapped, 3: the
 * exchange alone), then the swap. */
typedef struct heat_state {
    run_cfg cfg;
    int mode;
    stenc_field *x, *y;
} heat_state;

static void heat_step(void *state) {
    heat_state *h = state;
    if (h->mode == 3) {
        CHECK(stenc_field_exchange(h->x, walls, STENC_EXCHANGE_FACES));
        return;
    }
    if (h->mode == 2) {
        stenc_field *xy[2] = {h->x, h->y};
        CHECK(stenc_dist_overlap(h->x, walls, STENC_EXCHANGE_FACES, HEAT3D_HALO, 2, xy, heat_launch,
                                 &h->cfg));
    } else {
        if (h->mode == 1) CHECK(stenc_field_exchange(h->x, walls, STENC_EXCHANGE_FACES));
        CHECK(heat3d(h->cfg.ctx, 0.4, 0.1, h->x, h->y));
    }
    CHECK(stenc_field_swap(h->x, h->y));
}

/* Median seconds per step of `steps` steps over `reps` repetitions on comm, in `mode`
 * (heat_step). *ss: the final field's sum of squares. */
static double time_steps(stenc_ctx *ctx, MPI_Comm comm, const size_t n[3], int steps, int reps,
                         int mode, double *ss) {
    stenc_decomp *dp = NULL;
    int procs[3] = {1, 1, 0}; /* split along k alone: contiguous faces */
    CHECK(stenc_decomp_create(&dp, ctx, 3, n, procs, NULL));
    stenc_decomp_info info;
    CHECK(stenc_decomp_get_info(dp, &info));
    stenc_field *x = NULL, *y = NULL;
    CHECK(stenc_field_create_dist(ctx, &x, dp, STENC_F32, HEAT3D_HALO));
    CHECK(stenc_field_create_dist(ctx, &y, dp, STENC_F32, HEAT3D_HALO));
    if (mode == 3) ipc_faces = stenc_field_ipc_faces(x);
    /* A smooth start: a function of the global k plane (set plane by plane, cheaply). */
    stenc_field_layout L;
    CHECK(stenc_field_get_layout(x, &L));
    float *host = stenc_field_host_origin(x);
    for (size_t k = 0; k < L.n[2]; k++)
        for (size_t j = 0; j < L.n[1]; j++)
            for (size_t i = 0; i < L.n[0]; i++)
                host[i + j * (size_t)L.stride[1] + k * (size_t)L.stride[2]] =
                    (float)((info.lo[2] + k) % 17) * 0.125f + (float)(j % 5) * 0.25f;
    CHECK(stenc_field_upload(x));
    CHECK(stenc_field_upload(y));
    heat_state st = {{ctx, mode == 2}, mode, x, y};
    const double median = median_step(ctx, comm, steps, reps, heat_step, &st);
    x = st.x, y = st.y;
    CHECK(stenc_field_sum_squares(x, ss));
    CHECK(stenc_field_free(x));
    CHECK(stenc_field_free(y));
    CHECK(stenc_decomp_destroy(dp));
    return median;
}

/* heat3d_steps on fields with a halo of `halo` layers: one exchange per halo / 1 steps (deep
 * halos: docs/distributed.md, "Stepping"). Median seconds per step of one call of `steps`
 * steps; *degree: the steps per exchange it made. */
typedef struct stepping_state {
    stenc_ctx *ctx;
    stenc_field *x, *y;
    int steps;
} stepping_state;

static void stepping_call(void *state) {
    stepping_state *s = state;
    CHECK(heat3d_steps(s->ctx, 0.4, 0.1, s->x, s->y, s->steps, walls));
}

static double time_stepping(stenc_ctx *ctx, MPI_Comm comm, const size_t n[3], int steps, int reps,
                            int halo, int *degree) {
    stenc_decomp *dp = NULL;
    int procs[3] = {1, 1, 0};
    CHECK(stenc_decomp_create(&dp, ctx, 3, n, procs, NULL));
    stenc_field *x = NULL, *y = NULL;
    CHECK(stenc_field_create_dist(ctx, &x, dp, STENC_F32, halo));
    CHECK(stenc_field_create_dist(ctx, &y, dp, STENC_F32, halo));
    CHECK(stenc_field_fill(x, 0.25));
    CHECK(stenc_field_upload(x));
    CHECK(stenc_field_upload(y));
    stepping_state st = {ctx, x, y, steps};
    const double per_call = median_step(ctx, comm, 1, reps, stepping_call, &st);
    *degree = stenc_launch_steps_last_degree();
    CHECK(stenc_field_free(x));
    CHECK(stenc_field_free(y));
    CHECK(stenc_decomp_destroy(dp));
    return per_call / steps;
}

/* The device-to-device copy rate from GPU `from` to GPU `to`, in GB/s, for `bytes` per copy
 * (0 where there is no such pair). Peer access is enabled for the measurement where the pair
 * has it, and left as it was. */
static double peer_copy_gbs(int from, int to, size_t bytes) {
#ifdef STENC_HAVE_CUDA
    int count = 0, here = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || from >= count || to >= count || from == to)
        return 0;
    cudaGetDevice(&here);
    void *a = NULL, *b = NULL;
    int can = 0;
    cudaDeviceCanAccessPeer(&can, from, to);
    cudaSetDevice(from);
    if (can) cudaDeviceEnablePeerAccess(to, 0);
    (void)cudaGetLastError(); /* "already enabled" must not reach stenc's next check */
    cudaStream_t s = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double result = 0;
    if (cudaMalloc(&a, bytes) == cudaSuccess && cudaStreamCreate(&s) == cudaSuccess &&
        cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess) {
        cudaSetDevice(to);
        const int got = cudaMalloc(&b, bytes) == cudaSuccess;
        cudaSetDevice(from);
        double ms[11];
        for (int r = 0; got && r < 11; r++) {
            cudaEventRecord(e0, s);
            for (int k = 0; k < 10; k++)
                cudaMemcpyPeerAsync(b, to, a, from, bytes, s);
            cudaEventRecord(e1, s);
            cudaEventSynchronize(e1);
            float m = 0;
            cudaEventElapsedTime(&m, e0, e1);
            ms[r] = m / 10;
        }
        if (got) {
            qsort(ms, 11, sizeof ms[0], cmp_double);
            result = (double)bytes / (ms[5] * 1e-3) / 1e9;
        }
    }
    cudaSetDevice(from);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (s) cudaStreamDestroy(s);
    cudaFree(a);
    if (can) cudaDeviceDisablePeerAccess(to);
    cudaSetDevice(to);
    cudaFree(b);
    cudaSetDevice(here);
    (void)cudaGetLastError();
    return result;
#else
    (void)from, (void)to, (void)bytes;
    return 0;
#endif
}

/* ---- red-black SOR ------------------------------------------------------------------------- */

typedef struct rb_cfg {
    stenc_ctx *ctx;
    int color;
} rb_cfg;

static stenc_status rb_launch(void *user, stenc_field *const v[]) {
    const rb_cfg *c = user;
    return gs_redblack(c->ctx, c->color, 1e-8, 1.9, v[0], v[1]);
}

/* The walls of the red-black SOR problem (2-D). */
static const stenc_bc sor_walls[6] = {{STENC_BC_DIRICHLET, 1.0}, {STENC_BC_DIRICHLET, 0.0},
                                      {STENC_BC_DIRICHLET, 0.5}, {STENC_BC_NEUMANN, 0},
                                      {STENC_BC_NONE, 0},        {STENC_BC_NONE, 0}};

/* One sweep: both colours, the halo exchanged before each. */
typedef struct sor_state {
    stenc_ctx *ctx;
    int overlap;
    stenc_field *u, *f;
} sor_state;

static void sor_sweep(void *state) {
    sor_state *w = state;
    stenc_field *uf[2] = {w->u, w->f};
    for (int c = 0; c < GS_REDBLACK_COLORS; c++) {
        rb_cfg cfg = {w->ctx, c};
        if (w->overlap) {
            CHECK(stenc_dist_overlap(w->u, sor_walls, STENC_EXCHANGE_FACES, GS_REDBLACK_HALO, 2, uf,
                                     rb_launch, &cfg));
        } else {
            CHECK(stenc_field_exchange(w->u, sor_walls, STENC_EXCHANGE_FACES));
            CHECK(rb_launch(&cfg, uf));
        }
    }
}

/* Median seconds per sweep (both colours, the halo exchanged before each) of red-black SOR on
 * a q^2 grid split along j; overlap: through stenc_dist_overlap. *ss: u's sum of squares. */
static double time_sor(stenc_ctx *ctx, MPI_Comm comm, size_t q, int sweeps, int reps, int overlap,
                       double *ss) {
    const size_t n[3] = {q, q, 1};
    const int procs[3] = {1, 0, 1};
    stenc_decomp *dp = NULL;
    CHECK(stenc_decomp_create(&dp, ctx, 2, n, procs, NULL));
    stenc_decomp_info info;
    CHECK(stenc_decomp_get_info(dp, &info));
    stenc_field *u = NULL, *f = NULL;
    CHECK(stenc_field_create_dist(ctx, &u, dp, STENC_F64, GS_REDBLACK_HALO));
    CHECK(stenc_field_create_dist(ctx, &f, dp, STENC_F64, GS_REDBLACK_HALO));
    stenc_field_layout L;
    CHECK(stenc_field_get_layout(u, &L));
    double *hu = stenc_field_host_origin(u), *hf = stenc_field_host_origin(f);
    for (size_t j = 0; j < L.n[1]; j++)
        for (size_t i = 0; i < L.n[0]; i++) {
            const size_t at = i + j * (size_t)L.stride[1], gj = info.lo[1] + j;
            hu[at] = (double)((i * 7 + gj * 3) % 23) / 23.0;
            hf[at] = (double)((i + gj) % 5) - 2.0;
        }
    CHECK(stenc_field_upload(u));
    CHECK(stenc_field_upload(f));
    sor_state st = {ctx, overlap, u, f};
    const double median = median_step(ctx, comm, sweeps, reps, sor_sweep, &st);
    CHECK(stenc_field_sum_squares(u, ss));
    CHECK(stenc_field_free(u));
    CHECK(stenc_field_free(f));
    CHECK(stenc_decomp_destroy(dp));
    return median;
}

/* One MLSSOR sweep, forward and backward by turns. */
typedef struct mls_state {
    stenc_field *u, *f;
    long sub;
    int turn;
} mls_state;

static void mls_sweep(void *state) {
    mls_state *m = state;
    const stenc_sweep_dir dir = m->turn++ % 2 ? STENC_SWEEP_BACKWARD : STENC_SWEEP_FORWARD;
    CHECK(stenc_mlssor_sweep(m->u, m->f, 1e-8, 1.9, m->sub, 0, dir));
}

/* Median seconds per sweep of K = sub/2 layers of MLSSOR on the grid of time_sor, u and f with
 * halo `halo`. *ss: u's sum of squares. */
static double time_mlssor(stenc_ctx *ctx, MPI_Comm comm, size_t q, long sub, int halo, int sweeps,
                          int reps, double *ss) {
    const size_t n[3] = {q, q, 1};
    const int procs[3] = {1, 0, 1};
    stenc_decomp *dp = NULL;
    CHECK(stenc_decomp_create(&dp, ctx, 2, n, procs, NULL));
    stenc_decomp_info info;
    CHECK(stenc_decomp_get_info(dp, &info));
    stenc_field *u = NULL, *f = NULL;
    CHECK(stenc_field_create_dist(ctx, &u, dp, STENC_F64, halo));
    CHECK(stenc_field_create_dist(ctx, &f, dp, STENC_F64, halo));
    stenc_field_layout L;
    CHECK(stenc_field_get_layout(u, &L));
    double *hu = stenc_field_host_origin(u), *hf = stenc_field_host_origin(f);
    const long h = halo;
    for (long j = -h; j < (long)L.n[1] + h; j++)
        for (long i = -h; i < (long)L.n[0] + h; i++) {
            const long at = i + j * (long)L.stride[1], gj = (long)info.lo[1] + j;
            const int inside = i >= 0 && i < (long)L.n[0] && gj >= 0 && gj < (long)q;
            hu[at] = inside ? (double)((i * 7 + gj * 3 + 46) % 23) / 23.0 : 0.5;
            hf[at] = (double)(((i + gj) % 5 + 5) % 5) - 2.0;
        }
    CHECK(stenc_field_upload(u));
    CHECK(stenc_field_upload(f));
    const stenc_bc none[6] = {{STENC_BC_NONE, 0}};
    CHECK(stenc_field_exchange(f, none, 0)); /* f's halo: the neighbours' values */
    mls_state st = {u, f, sub, 0};
    const double median = median_step(ctx, comm, sweeps, reps, mls_sweep, &st);
    CHECK(stenc_field_sum_squares(u, ss));
    CHECK(stenc_field_free(u));
    CHECK(stenc_field_free(f));
    CHECK(stenc_decomp_destroy(dp));
    return median;
}

/* Exchanges per MLSSOR sweep on a split grid: the runtime's grouping of its four phases
 * (docs/sor.md). */
static int mls_exchanges(long sub, int halo) {
    const long margin = halo - 1, per = margin + 1 >= 4 * (sub - 1) ? 4 : (margin + 1) / (sub - 1);
    return per > 0 ? (int)((4 + per - 1) / per) : 0;
}

/* ---- multi-block heat3d ------------------------------------------------------------------- */

/* One step: stenc_mb_exchange, heat3d on every local block, then u and un change roles. */
typedef struct mb_state {
    run_cfg cfg;
    stenc_mb_field *u, *un;
} mb_state;

static void mb_step(void *state) {
    mb_state *m = state;
    CHECK(stenc_mb_exchange(m->u, walls, STENC_EXCHANGE_FACES));
    stenc_mb_field *const pair[2] = {m->u, m->un};
    CHECK(stenc_mb_foreach(2, pair, heat_launch, &m->cfg));
    stenc_mb_field *const tmp = m->u;
    m->u = m->un, m->un = tmp;
}

/* Median seconds per step (stenc_mb_exchange, heat3d on every local block, swap) of heat3d on
 * 2x2x2 blocks of b^3 points, block (x, y, z) numbered x + 2y + 4z. *ss: the sum of squares. */
static double time_mb(stenc_ctx *ctx, MPI_Comm comm, size_t b, int steps, int reps, double *ss) {
    size_t n[8][3];
    stenc_mb_patch patches[12];
    int np = 0;
    for (int blk = 0; blk < 8; blk++) {
        n[blk][0] = n[blk][1] = n[blk][2] = b;
        for (int a = 0; a < 3; a++)
            if (!(blk >> a & 1)) /* a patch to the block above along a */
                patches[np++] = (stenc_mb_patch){{blk, blk | 1 << a},
                                                 {(stenc_face)(2 * a + 1), (stenc_face)(2 * a)},
                                                 {0, 1, 2},
                                                 {0, 0, 0}};
    }
    stenc_mb *mb = NULL;
    CHECK(stenc_mb_create(&mb, ctx, 3, 8, (const size_t(*)[3])n, np, patches, NULL, 1));
    stenc_mb_field *u = NULL, *un = NULL;
    CHECK(stenc_mb_field_create(&u, mb, STENC_F32, HEAT3D_HALO));
    CHECK(stenc_mb_field_create(&un, mb, STENC_F32, HEAT3D_HALO));
    for (int l = 0; l < stenc_mb_local_count(mb); l++) {
        int blk = 0;
        stenc_field *f = stenc_mb_field_block(u, l, &blk);
        stenc_field_layout L;
        CHECK(stenc_field_get_layout(f, &L));
        float *h = stenc_field_host_origin(f);
        const size_t gj0 = (size_t)(blk >> 1 & 1) * b, gk0 = (size_t)(blk >> 2) * b;
        for (size_t k = 0; k < b; k++)
            for (size_t j = 0; j < b; j++)
                for (size_t i = 0; i < b; i++)
                    h[i + j * (size_t)L.stride[1] + k * (size_t)L.stride[2]] =
                        (float)((gk0 + k) % 17) * 0.125f + (float)((gj0 + j) % 5) * 0.25f;
    }
    CHECK(stenc_mb_field_upload(u));
    CHECK(stenc_mb_field_upload(un));
    mb_state st = {{ctx, 0}, u, un};
    const double median = median_step(ctx, comm, steps, reps, mb_step, &st);
    u = st.u, un = st.un;
    CHECK(stenc_mb_field_sum_squares(u, ss));
    CHECK(stenc_mb_field_free(u));
    CHECK(stenc_mb_field_free(un));
    CHECK(stenc_mb_destroy(mb));
    return median;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    int cpu = stenc_cuda_device_count() == 0, steps = 20, reps = 7;
    long weak = 0, strong = 0, sor = 0, mbs = 0;
    int stepping_only = 0, sor_only = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--weak") && a + 1 < argc)
            weak = atol(argv[++a]);
        else if (!strcmp(argv[a], "--strong") && a + 1 < argc)
            strong = atol(argv[++a]);
        else if (!strcmp(argv[a], "--sor") && a + 1 < argc)
            sor = atol(argv[++a]);
        else if (!strcmp(argv[a], "--mb") && a + 1 < argc)
            mbs = atol(argv[++a]);
        else if (!strcmp(argv[a], "--steps") && a + 1 < argc)
            steps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--cpu"))
            cpu = 1;
        else if (!strcmp(argv[a], "--stepping"))
            stepping_only = 1;
        else if (!strcmp(argv[a], "--sor-only"))
            sor_only = 1;
        else if (!strcmp(argv[a], "--quiet"))
            continue;
        else {
            if (rank_ == 0)
                printf("usage: mpirun -np P bench_dist [--weak N] [--strong G] [--sor Q] [--mb B] "
                       "[--steps S] [--reps R] [--cpu] [--stepping | --sor-only] [--quiet]\n");
            MPI_Finalize();
            return strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0 ? 0 : 2;
        }
    }
    if (weak <= 0) weak = cpu ? 128 : 512;
    if (strong <= 0) strong = cpu ? 192 : 1024;
    if (sor <= 0) sor = cpu ? 1024 : 8192;
    if (mbs <= 0) mbs = cpu ? 48 : 384;
    if (steps < 1 || reps < 1) MPI_Abort(MPI_COMM_WORLD, 2);
    const stenc_device dev = cpu ? STENC_DEVICE_CPU : STENC_DEVICE_CUDA;
    stenc_ctx *ctx = NULL, *solo = NULL;
    CHECK(stenc_ctx_create_mpi(&ctx, MPI_COMM_WORLD, dev));
    MPI_Comm self_comm;
    MPI_Comm_split(MPI_COMM_WORLD, rank_ == 0 ? 0 : MPI_UNDEFINED, 0, &self_comm);
    if (rank_ == 0) CHECK(stenc_ctx_create_mpi(&solo, self_comm, dev));
    const char *where = stenc_ctx_device_name(ctx);
    const char *target = cpu ? "cpu" : "cuda";
    if (rank_ == 0) printf("device=\"%s\" ranks=%d steps=%d reps=%d\n", where, size_, steps, reps);

    if (sor_only) {
        /* Red-black SOR (a sweep: 2 exchanges, every point once) against MLSSOR (a sweep: K
         * layers, each point K times), rank 0 alone and all ranks, on Q^2. */
        const size_t q = (size_t)sor;
        double r1 = 0, rss1 = 0, rssn = 0;
        if (rank_ == 0) r1 = time_sor(solo, self_comm, q, steps, reps, 0, &rss1);
        const double rn = time_sor(ctx, MPI_COMM_WORLD, q, steps, reps, 0, &rssn);
        double one[2] = {r1, rss1};
        MPI_Bcast(one, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        int all_same = one[1] == rssn;
        if (rank_ == 0)
            printf("name=sor_compare method=redblack target=%s precision=double size=%zu^2 "
                   "ranks=%d exchanges_per_layer=2 ms_layer_1rank=%.4f ms_layer=%.4f "
                   "speedup=%.3f bitwise_same=%s\n",
                   target, q, size_, one[0] * 1e3, rn * 1e3, one[0] / rn,
                   one[1] == rssn ? "yes" : "NO");
        static const struct {
            long sub;
            int halo;
        } ml[] = {{8, 7}, {8, 16}, {16, 15}, {5, 16}};
        for (size_t c = 0; c < sizeof ml / sizeof ml[0]; c++) {
            const long sub = ml[c].sub, layers = sub / 2;
            double m1 = 0, mss1 = 0, mssn = 0;
            if (rank_ == 0)
                m1 = time_mlssor(solo, self_comm, q, sub, ml[c].halo, steps, reps, &mss1);
            const double mn =
                time_mlssor(ctx, MPI_COMM_WORLD, q, sub, ml[c].halo, steps, reps, &mssn);
            double o[2] = {m1, mss1};
            MPI_Bcast(o, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            all_same = all_same && o[1] == mssn;
            const int ex = size_ > 1 ? mls_exchanges(sub, ml[c].halo) : 0;
            if (rank_ == 0)
                printf("name=sor_compare method=mlssor subdomain=%ld layers=%ld halo=%d "
                       "target=%s precision=double size=%zu^2 ranks=%d exchanges_per_sweep=%d "
                       "exchanges_per_layer=%.3f ms_layer_1rank=%.4f ms_layer=%.4f "
                       "speedup=%.3f vs_redblack_layer=%.3f bitwise_same=%s\n",
                       sub, layers, ml[c].halo, target, q, size_, ex, (double)ex / layers,
                       o[0] / layers * 1e3, mn / layers * 1e3, o[0] / mn, rn / (mn / layers),
                       o[1] == mssn ? "yes" : "NO");
        }
        if (solo) CHECK(stenc_ctx_destroy(solo));
        if (self_comm != MPI_COMM_NULL) MPI_Comm_free(&self_comm);
        CHECK(stenc_ctx_destroy(ctx));
        MPI_Finalize();
        return all_same ? 0 : 1;
    }
    /* Weak: N^3 per rank, stacked along k. */
    const size_t wn[3] = {(size_t)weak, (size_t)weak, (size_t)weak * (size_t)size_};
    /* heat3d_steps, exchanging at every step (halo 1) and once per 2 or 4 steps (halo 2, 4). */
    double per_halo[3];
    int degree[3];
    static const int halos[3] = {1, 2, 4};
    for (int h = 0; h < 3; h++)
        per_halo[h] = time_stepping(ctx, MPI_COMM_WORLD, wn, steps, reps, halos[h], &degree[h]);
    if (rank_ == 0) {
        for (int h = 0; h < 3; h++)
            printf("name=heat3d_steps_deep target=%s precision=float size=%ld^3 per_rank "
                   "ranks=%d halo=%d steps_per_exchange=%d ms_step=%.4f vs_halo1=%.3f\n",
                   target, weak, size_, halos[h], degree[h], per_halo[h] * 1e3,
                   per_halo[0] / per_halo[h]);
        fflush(stdout);
    }
    if (stepping_only) {
        if (solo) CHECK(stenc_ctx_destroy(solo));
        if (self_comm != MPI_COMM_NULL) MPI_Comm_free(&self_comm);
        CHECK(stenc_ctx_destroy(ctx));
        MPI_Finalize();
        return 0;
    }
    const size_t w1[3] = {(size_t)weak, (size_t)weak, (size_t)weak};
    double ss1 = 0, ssn = 0, ssx = 0, dummy = 0;
    double t1 = 0;
    if (rank_ == 0) t1 = time_steps(solo, self_comm, w1, steps, reps, 1, &ss1);
    MPI_Bcast(&t1, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    const double tn = time_steps(ctx, MPI_COMM_WORLD, wn, steps, reps, 1, &ssn);
    const double to = time_steps(ctx, MPI_COMM_WORLD, wn, steps, reps, 2, &ssx);
    const double tx = time_steps(ctx, MPI_COMM_WORLD, wn, steps, reps, 3, &dummy);
    const double face_bytes = (double)weak * (double)weak * sizeof(float);
    /* Each rank but the ends sends two faces; report the bytes a middle/end rank sends. */
    const double sent = face_bytes * (size_ > 1 ? (size_ > 2 ? 2 : 1) : 0);
    const double peer_face = rank_ == 0 && !cpu ? peer_copy_gbs(0, 1, (size_t)face_bytes) : 0;
    const double peer_big = rank_ == 0 && !cpu ? peer_copy_gbs(0, 1, (size_t)256 << 20) : 0;
    if (rank_ == 0) {
        printf("name=heat3d_weak target=%s precision=float size=%ld^3 per_rank ranks=%d "
               "ms_step_1rank=%.4f ms_step_exchange_then_launch=%.4f ms_step_overlap=%.4f "
               "efficiency=%.3f efficiency_no_overlap=%.3f\n",
               target, weak, size_, t1 * 1e3, tn * 1e3, to * 1e3, t1 / to, t1 / tn);
        printf("name=halo_exchange target=%s precision=float face=%ld^2 ranks=%d ms=%.4f "
               "gbs_sent_per_rank=%.2f peer_copy_gbs_face=%.2f peer_copy_gbs_256MiB=%.2f "
               "cuda_aware=%d ipc_faces_rank0=%d\n",
               target, weak, size_, tx * 1e3, tx > 0 ? sent / tx / 1e9 : 0, peer_face, peer_big,
               stenc_mpi_cuda_aware(), ipc_faces);
    }
    /* Strong: G^3 in all, against rank 0 alone on all of it. */
    const size_t sn[3] = {(size_t)strong, (size_t)strong, (size_t)strong};
    double s1 = 0, sss1 = 0, sssn = 0;
    if (rank_ == 0) s1 = time_steps(solo, self_comm, sn, steps, reps, 1, &sss1);
    const double sn_t = time_steps(ctx, MPI_COMM_WORLD, sn, steps, reps, 2, &sssn);
    /* Red-black SOR on Q^2, plain and overlapped, against rank 0 alone. */
    const size_t q = (size_t)sor;
    double r1 = 0, rss1 = 0, rssn = 0, rsso = 0;
    if (rank_ == 0) r1 = time_sor(solo, self_comm, q, steps, reps, 0, &rss1);
    const double rn = time_sor(ctx, MPI_COMM_WORLD, q, steps, reps, 0, &rssn);
    const double ro = time_sor(ctx, MPI_COMM_WORLD, q, steps, reps, 1, &rsso);
    /* Multi-block heat3d, 8 blocks of B^3, against rank 0 holding all of them. */
    double m1 = 0, mss1 = 0, mssn = 0;
    if (rank_ == 0) m1 = time_mb(solo, self_comm, (size_t)mbs, steps, reps, &mss1);
    const double mn = time_mb(ctx, MPI_COMM_WORLD, (size_t)mbs, steps, reps, &mssn);
    double one[4] = {s1, sss1, rss1, mss1};
    MPI_Bcast(one, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    s1 = one[0], sss1 = one[1], rss1 = one[2], mss1 = one[3];
    /* Bitwise: exact sums of squares equal rank 0 alone's, and overlapping changes no bit. */
    const int same_heat = sss1 == sssn && ssn == ssx, same_sor = rss1 == rssn && rssn == rsso,
              same_mb = mss1 == mssn;
    /* Every ordered pair of GPUs, 256 MiB a copy. */
    int gpus = 0;
#ifdef STENC_HAVE_CUDA
    if (!cpu && cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
    if (gpus > 8) gpus = 8;
#endif
    double peer[8][8] = {{0}};
    for (int a = 0; rank_ == 0 && a < gpus; a++)
        for (int b = 0; b < gpus; b++)
            peer[a][b] = peer_copy_gbs(a, b, (size_t)256 << 20);
    if (rank_ == 0) {
        printf("name=heat3d_strong target=%s precision=float size=%ld^3 ranks=%d "
               "ms_step_1rank=%.4f ms_step=%.4f speedup=%.3f bitwise_same=%s\n",
               target, strong, size_, s1 * 1e3, sn_t * 1e3, s1 / sn_t, same_heat ? "yes" : "NO");
        printf("name=redblack_sor target=%s precision=double size=%ld^2 ranks=%d "
               "ms_sweep_1rank=%.4f ms_sweep_exchange_then_launch=%.4f ms_sweep_overlap=%.4f "
               "speedup=%.3f bitwise_same=%s\n",
               target, sor, size_, r1 * 1e3, rn * 1e3, ro * 1e3, r1 / (rn < ro ? rn : ro),
               same_sor ? "yes" : "NO");
        printf("name=multiblock_heat3d target=%s precision=float blocks=8 block=%ld^3 ranks=%d "
               "ms_step_1rank=%.4f ms_step=%.4f speedup=%.3f bitwise_same=%s\n",
               target, mbs, size_, m1 * 1e3, mn * 1e3, m1 / mn, same_mb ? "yes" : "NO");
        for (int a = 0; a < gpus; a++)
            for (int b = 0; b < gpus; b++)
                if (a != b)
                    printf("name=peer_copy from=%d to=%d bytes=268435456 gbs=%.2f\n", a, b,
                           peer[a][b]);
        printf("\n%d rank(s), %s\n", size_, where);
        printf("  heat3d weak   %4ld^3 per rank: 1 rank %.3f ms/step; %d ranks %.3f (exchange, "
               "then launch) %.3f (overlapped): efficiency %.1f%% (%.1f%% without overlap)\n",
               weak, t1 * 1e3, size_, tn * 1e3, to * 1e3, 100 * t1 / to, 100 * t1 / tn);
        printf("  exchange %ld^2 faces: %.3f ms, %.2f GB/s sent per rank (%s); peer copy %.2f "
               "GB/s (face), %.2f GB/s (256 MiB)\n",
               weak, tx * 1e3, tx > 0 ? sent / tx / 1e9 : 0,
               ipc_faces > 0            ? "CUDA IPC"
               : stenc_mpi_cuda_aware() ? "CUDA-aware MPI"
                                        : "MPI through the host",
               peer_face, peer_big);
        printf("  heat3d strong %4ld^3: 1 rank %.3f ms/step; %d ranks %.3f: speedup %.2fx; "
               "result %s\n",
               strong, s1 * 1e3, size_, sn_t * 1e3, s1 / sn_t,
               same_heat ? "bitwise the same" : "DIFFERS");
        printf("  red-black SOR %ld^2 (double): 1 rank %.3f ms/sweep; %d ranks %.3f (exchange, "
               "then launch) %.3f (overlapped): speedup %.2fx; result %s\n",
               sor, r1 * 1e3, size_, rn * 1e3, ro * 1e3, r1 / (rn < ro ? rn : ro),
               same_sor ? "bitwise the same" : "DIFFERS");
        printf("  multi-block heat3d, 8 blocks of %ld^3: 1 rank %.3f ms/step; %d ranks %.3f: "
               "speedup %.2fx; result %s\n",
               mbs, m1 * 1e3, size_, mn * 1e3, m1 / mn, same_mb ? "bitwise the same" : "DIFFERS");
        if (gpus > 1) {
            printf("  peer copy GB/s (256 MiB), row: from, column: to\n       ");
            for (int b = 0; b < gpus; b++)
                printf("%8d", b);
            printf("\n");
            for (int a = 0; a < gpus; a++) {
                printf("  %4d ", a);
                for (int b = 0; b < gpus; b++)
                    if (a == b)
                        printf("%8s", "-");
                    else
                        printf("%8.1f", peer[a][b]);
                printf("\n");
            }
        }
    }
    (void)ss1;
    if (solo) CHECK(stenc_ctx_destroy(solo));
    if (self_comm != MPI_COMM_NULL) MPI_Comm_free(&self_comm);
    CHECK(stenc_ctx_destroy(ctx));
    MPI_Finalize();
    return same_heat && same_sor && same_mb ? 0 : 1;
}
