/* heat_mpi: the heat demo's problem on a grid split over MPI ranks (docs/distributed.md).
 *
 * u_t = kappa * laplace(u) on the unit cube, u = 0 on the walls, u(0) = sin(pi x) sin(pi y)
 * sin(pi z), whose exact solution decays as exp(-3 pi^2 kappa t). The n^3 interior is split
 * over the ranks on a 3-D Cartesian grid; each step exchanges the halo while the inner box
 * computes (stenc_dist_overlap) and swaps. At the end rank 0 prints the global max error
 * against the exact solution and the global L2 norm of u, in decimal and in hex: they are the
 * same bits on any number of ranks.
 *
 *   mpirun -np 4 heat_mpi [--n N] [--t-end T] [--r R] [--cpu] [--quiet]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat3d.h"
#include "stenc/dist.h"
#include "stenc/stenc.h"

typedef struct heat_step {
    stenc_ctx *ctx;
    double a, b;
} heat_step;

static stenc_status step_launch(void *user, stenc_field *const v[]) {
    const heat_step *s = user;
    return heat3d(s->ctx, s->a, s->b, v[0], v[1]);
}

static int rank_;

static int failed(const char *what) {
    fprintf(stderr, "heat_mpi (rank %d): %s failed: %s\n", rank_, what, stenc_last_error());
    return 1;
}
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != STENC_OK) {                                                                  \
            status = failed(#call);                                                                \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

static void usage(void) {
    printf("usage: heat_mpi [--n N] [--t-end T] [--r R] [--cpu] [--quiet]   (under mpirun -np P)\n"
           "  --n N      interior points per side of the global grid (default 32)\n"
           "  --t-end T  simulated time (default 0.02)\n"
           "  --r R      kappa*dt/h^2, at most 1/6 (default 0.15)\n"
           "  --cpu      every rank on the CPU (default: one GPU per rank when present)\n"
           "  --quiet    accepted for uniformity with the other examples (no progress lines)\n");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    int n = 32, cpu = 0, status = 0;
    double t_end = 0.02, r = 0.15;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc)
            n = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--t-end") && a + 1 < argc)
            t_end = atof(argv[++a]);
        else if (!strcmp(argv[a], "--r") && a + 1 < argc)
            r = atof(argv[++a]);
        else if (!strcmp(argv[a], "--cpu"))
            cpu = 1;
        else if (!strcmp(argv[a], "--quiet"))
            continue;
        else {
            const int help = !strcmp(argv[a], "--help") || !strcmp(argv[a], "-h");
            if (rank_ == 0) {
                if (!help) fprintf(stderr, "heat_mpi: unknown option %s\n", argv[a]);
                usage();
            }
            MPI_Finalize();
            return help ? 0 : 2;
        }
    }
    if (n < 2 || !(r > 0 && r <= 1.0 / 6) || !(t_end > 0)) {
        if (rank_ == 0) fprintf(stderr, "heat_mpi: need n >= 2, 0 < r <= 1/6, t-end > 0\n");
        MPI_Finalize();
        return 2;
    }
    const double pi = acos(-1.0), h = 1.0 / (n + 1);
    const double dt_max = r * h * h; /* kappa = 1 */
    const long steps = (long)ceil(t_end / dt_max);
    const double dt = t_end / (double)steps, rr = dt / (h * h);

    stenc_ctx *ctx = NULL;
    stenc_decomp *dp = NULL;
    stenc_field *x = NULL, *y = NULL, *err = NULL;
    const size_t global[3] = {(size_t)n, (size_t)n, (size_t)n};
    stenc_bc walls[STENC_FACE_COUNT];
    for (int f = 0; f < STENC_FACE_COUNT; f++)
        walls[f] = (stenc_bc){STENC_BC_DIRICHLET, 0.0};
    stenc_decomp_info info;
    TRY(stenc_ctx_create_mpi(&ctx, MPI_COMM_WORLD, cpu ? STENC_DEVICE_CPU : STENC_DEVICE_AUTO));
    TRY(stenc_decomp_create(&dp, ctx, 3, global, NULL, NULL));
    TRY(stenc_decomp_get_info(dp, &info));
    TRY(stenc_field_create_dist(ctx, &x, dp, STENC_F32, HEAT3D_HALO));
    TRY(stenc_field_create_dist(ctx, &y, dp, STENC_F32, HEAT3D_HALO));
    TRY(stenc_field_create_dist(ctx, &err, dp, STENC_F64, 0));
    for (size_t k = 0; k < info.local[2]; k++) /* this rank's box of the initial condition */
        for (size_t j = 0; j < info.local[1]; j++)
            for (size_t i = 0; i < info.local[0]; i++) {
                const double gx = (double)(info.lo[0] + i + 1) * h,
                             gy = (double)(info.lo[1] + j + 1) * h,
                             gz = (double)(info.lo[2] + k + 1) * h;
                TRY(stenc_field_set(x, (long)i, (long)j, (long)k,
                                    (float)(sin(pi * gx) * sin(pi * gy) * sin(pi * gz))));
            }
    TRY(stenc_field_upload(x));
    TRY(stenc_field_upload(y));
    heat_step args = {ctx, 1 - 6 * rr, rr};
    const double t0 = MPI_Wtime();
    for (long s = 0; s < steps; s++) {
        stenc_field *xy[2] = {x, y};
        TRY(stenc_dist_overlap(x, walls, STENC_EXCHANGE_FACES, HEAT3D_HALO, 2, xy, step_launch,
                               &args));
        TRY(stenc_field_swap(x, y));
    }
    TRY(stenc_ctx_synchronize(ctx));
    const double seconds = MPI_Wtime() - t0;
    TRY(stenc_field_download(x));
    const double decay = exp(-3 * pi * pi * t_end);
    for (size_t k = 0; k < info.local[2]; k++)
        for (size_t j = 0; j < info.local[1]; j++)
            for (size_t i = 0; i < info.local[0]; i++) {
                const double gx = (double)(info.lo[0] + i + 1) * h,
                             gy = (double)(info.lo[1] + j + 1) * h,
                             gz = (double)(info.lo[2] + k + 1) * h;
                double u = 0;
                TRY(stenc_field_get(x, (long)i, (long)j, (long)k, &u));
                TRY(stenc_field_set(err, (long)i, (long)j, (long)k,
                                    u - decay * sin(pi * gx) * sin(pi * gy) * sin(pi * gz)));
            }
    double max_error = 0, norm = 0;
    TRY(stenc_field_norm_max(err, &max_error)); /* global, the same bits on every rank */
    TRY(stenc_field_norm2(x, &norm));
    if (rank_ == 0) {
        printf("heat_mpi: %d^3 on %d rank(s) (%d x %d x %d), %s\n", n, info.size, info.procs[0],
               info.procs[1], info.procs[2], stenc_ctx_device_name(ctx));
        printf("steps=%ld dt=%.6g r=%.6g seconds=%.3f\n", steps, dt, rr, seconds);
        printf("result: max_error=%.9e (%a) norm2=%.9e (%a)\n", max_error, max_error, norm, norm);
    }
done:
    stenc_field_free(x);
    stenc_field_free(y);
    stenc_field_free(err);
    stenc_decomp_destroy(dp);
    stenc_ctx_destroy(ctx);
    MPI_Finalize();
    return status;
}
