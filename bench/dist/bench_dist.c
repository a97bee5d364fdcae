/* Distributed heat3d (float) under mpirun: weak scaling (N^3 points per rank, split along k)
 * and strong scaling (a global G^3 grid), each against rank 0 alone on the same per-rank or
 * global grid, measured in the same run; and the halo exchange alone in GB/s, against the
 * device-to-device peer copy rate between the first two GPUs (CUDA builds, rank 0).
 *
 *   mpirun -np P bench_dist [--weak N] [--strong G] [--steps S] [--reps R] [--cpu] [--quiet]
 *
 * Defaults: --weak 512 --strong 1024 on GPUs, 128 and 192 on the CPU (--cpu, or no GPU).
 * Time per step: the slowest rank's wall time over S steps after a warm-up, the median of
 * R repetitions; every rank synchronises its device before the clock stops. Checked in the
 * same run: the distributed result's global sum of squares equals the single rank's, bit for
 * bit (the reductions are exact). Prints key=value lines, then a table.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat3d.h"
#include "stenc/dist.h"
#include "stenc/reduce.h"
#ifdef STENC_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static int rank_, size_;

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

static const stenc_bc walls[6] = {{STENC_BC_DIRICHLET, 1.0}, {STENC_BC_DIRICHLET, 0.0},
                                  {STENC_BC_NEUMANN, 0},     {STENC_BC_NEUMANN, 0},
                                  {STENC_BC_DIRICHLET, 0.5}, {STENC_BC_DIRICHLET, -0.5}};

/* Median seconds per step of `steps` steps over `reps` repetitions on comm; mode 0: launch
 * only, 1: exchange then launch, 2: overlapped, 3: the exchange alone. *ss: the final
 * field's sum of squares. */
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
    run_cfg cfg = {ctx, mode == 2};
    stenc_field *xy[2] = {x, y};
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int r = -1; r < reps; r++) { /* r = -1: the warm-up */
        CHECK(stenc_ctx_synchronize(ctx));
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        for (int s = 0; s < steps; s++) {
            if (mode == 3) {
                CHECK(stenc_field_exchange(x, walls, STENC_EXCHANGE_FACES));
                continue;
            }
            if (mode == 2) {
                CHECK(stenc_dist_overlap(x, walls, STENC_EXCHANGE_FACES, HEAT3D_HALO, 2, xy,
                                         heat_launch, &cfg));
            } else {
                if (mode == 1) CHECK(stenc_field_exchange(x, walls, STENC_EXCHANGE_FACES));
                CHECK(heat3d(ctx, 0.4, 0.1, x, y));
            }
            CHECK(stenc_field_swap(x, y));
            xy[0] = x, xy[1] = y;
        }
        CHECK(stenc_ctx_synchronize(ctx));
        double mine = MPI_Wtime() - t0, slowest = 0;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (r >= 0) t[r] = slowest / steps;
    }
    CHECK(stenc_field_sum_squares(x, ss));
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    const double median = t[reps / 2];
    free(t);
    CHECK(stenc_field_free(x));
    CHECK(stenc_field_free(y));
    CHECK(stenc_decomp_destroy(dp));
    return median;
}

/* Rank 0's device-to-device copy to the next GPU, in GB/s, for `bytes` per copy. */
static double peer_copy_gbs(size_t bytes) {
#ifdef STENC_HAVE_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) return 0;
    int here = 0;
    cudaGetDevice(&here);
    const int there = (here + 1) % count;
    void *a = NULL, *b = NULL;
    int can = 0;
    cudaDeviceCanAccessPeer(&can, here, there);
    if (can) cudaDeviceEnablePeerAccess(there, 0);
    (void)cudaGetLastError(); /* "already enabled" must not reach stenc's next check */
    if (cudaMalloc(&a, bytes) != cudaSuccess) return 0;
    cudaSetDevice(there);
    if (cudaMalloc(&b, bytes) != cudaSuccess) return 0;
    cudaSetDevice(here);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    double ms[21];
    for (int r = 0; r < 21; r++) {
        cudaEventRecord(e0, 0);
        for (int k = 0; k < 10; k++)
            cudaMemcpyPeerAsync(b, there, a, here, bytes, 0);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        float m = 0;
        cudaEventElapsedTime(&m, e0, e1);
        ms[r] = m / 10;
    }
    qsort(ms, 21, sizeof ms[0], cmp_double);
    cudaFree(a);
    cudaSetDevice(there);
    cudaFree(b);
    cudaSetDevice(here);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (can) cudaDeviceDisablePeerAccess(there);
    (void)cudaGetLastError();
    return (double)bytes / (ms[10] * 1e-3) / 1e9;
#else
    (void)bytes;
    return 0;
#endif
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    int cpu = stenc_cuda_device_count() == 0, steps = 20, reps = 7;
    long weak = 0, strong = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--weak") && a + 1 < argc)
            weak = atol(argv[++a]);
        else if (!strcmp(argv[a], "--strong") && a + 1 < argc)
            strong = atol(argv[++a]);
        else if (!strcmp(argv[a], "--steps") && a + 1 < argc)
            steps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--cpu"))
            cpu = 1;
        else if (!strcmp(argv[a], "--quiet"))
            continue;
        else {
            if (rank_ == 0)
                printf("usage: mpirun -np P bench_dist [--weak N] [--strong G] [--steps S] "
                       "[--reps R] [--cpu] [--quiet]\n");
            MPI_Finalize();
            return strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0 ? 0 : 2;
        }
    }
    if (weak <= 0) weak = cpu ? 128 : 512;
    if (strong <= 0) strong = cpu ? 192 : 1024;
    if (steps < 1 || reps < 1) MPI_Abort(MPI_COMM_WORLD, 2);
    const stenc_device dev = cpu ? STENC_DEVICE_CPU : STENC_DEVICE_CUDA;
    stenc_ctx *ctx = NULL, *solo = NULL;
    CHECK(stenc_ctx_create_mpi(&ctx, MPI_COMM_WORLD, dev));
    MPI_Comm self_comm;
    MPI_Comm_split(MPI_COMM_WORLD, rank_ == 0 ? 0 : MPI_UNDEFINED, 0, &self_comm);
    if (rank_ == 0) CHECK(stenc_ctx_create_mpi(&solo, self_comm, dev));
    const char *where = stenc_ctx_device_name(ctx);
    if (rank_ == 0) printf("device=\"%s\" ranks=%d steps=%d reps=%d\n", where, size_, steps, reps);

    /* Weak: N^3 per rank, stacked along k. */
    const size_t wn[3] = {(size_t)weak, (size_t)weak, (size_t)weak * (size_t)size_};
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
    const double peer_face = rank_ == 0 && !cpu ? peer_copy_gbs((size_t)face_bytes) : 0;
    const double peer_big = rank_ == 0 && !cpu ? peer_copy_gbs((size_t)256 << 20) : 0;
    if (rank_ == 0) {
        printf("name=heat3d_weak target=%s precision=float size=%ld^3 per_rank ranks=%d "
               "ms_step_1rank=%.4f ms_step_exchange_then_launch=%.4f ms_step_overlap=%.4f "
               "efficiency=%.3f efficiency_no_overlap=%.3f\n",
               cpu ? "cpu" : "cuda", weak, size_, t1 * 1e3, tn * 1e3, to * 1e3, t1 / to, t1 / tn);
        printf("name=halo_exchange target=%s precision=float face=%ld^2 ranks=%d ms=%.4f "
               "gbs_sent_per_rank=%.2f peer_copy_gbs_face=%.2f peer_copy_gbs_256MiB=%.2f "
               "cuda_aware=%d\n",
               cpu ? "cpu" : "cuda", weak, size_, tx * 1e3, tx > 0 ? sent / tx / 1e9 : 0, peer_face,
               peer_big, stenc_mpi_cuda_aware());
    }
    /* Strong: G^3 in all, against rank 0 alone on all of it. */
    const size_t sn[3] = {(size_t)strong, (size_t)strong, (size_t)strong};
    double s1 = 0, sss1 = 0, sssn = 0;
    if (rank_ == 0) s1 = time_steps(solo, self_comm, sn, steps, reps, 1, &sss1);
    MPI_Bcast(&s1, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    const double sn_t = time_steps(ctx, MPI_COMM_WORLD, sn, steps, reps, 2, &sssn);
    MPI_Bcast(&sss1, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    const int same = sss1 == sssn && ssn == ssx; /* and overlapping changes no bit */
    if (rank_ == 0) {
        printf("name=heat3d_strong target=%s precision=float size=%ld^3 ranks=%d "
               "ms_step_1rank=%.4f ms_step=%.4f speedup=%.3f bitwise_same=%s\n",
               cpu ? "cpu" : "cuda", strong, size_, s1 * 1e3, sn_t * 1e3, s1 / sn_t,
               same ? "yes" : "NO");
        printf("\nheat3d float, %d rank(s), %s\n", size_, where);
        printf("  weak   %4ld^3 per rank: 1 rank %.3f ms/step; %d ranks %.3f (exchange, then "
               "launch) %.3f (overlapped): efficiency %.1f%% (%.1f%% without overlap)\n",
               weak, t1 * 1e3, size_, tn * 1e3, to * 1e3, 100 * t1 / to, 100 * t1 / tn);
        printf("  exchange %ld^2 faces: %.3f ms, %.2f GB/s sent per rank; peer copy %.2f GB/s "
               "(face), %.2f GB/s (256 MiB)\n",
               weak, tx * 1e3, tx > 0 ? sent / tx / 1e9 : 0, peer_face, peer_big);
        printf("  strong %4ld^3: 1 rank %.3f ms/step; %d ranks %.3f: speedup %.2fx; result %s\n",
               strong, s1 * 1e3, size_, sn_t * 1e3, s1 / sn_t,
               same ? "bitwise the same" : "DIFFERS");
    }
    (void)ss1;
    if (solo) CHECK(stenc_ctx_destroy(solo));
    if (self_comm != MPI_COMM_NULL) MPI_Comm_free(&self_comm);
    CHECK(stenc_ctx_destroy(ctx));
    MPI_Finalize();
    return same ? 0 : 1;
}
