/* A program of an installed stenc on distributed fields (stenc::stenc_mpi): the smoother of
 * main.c on a 1-D field split over the ranks, with a halo exchange, checked against the exact
 * answer, and a global sum. Prints "ok (mpi, N ranks)". */
#include <mpi.h>
#include <stdio.h>

#include "smooth.h"
#include "stenc/dist.h"
#include "stenc/stenc.h"

enum { N = 37 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    stenc_ctx *ctx = NULL;
    stenc_decomp *dp = NULL;
    stenc_field *x = NULL, *s = NULL, *diff = NULL;
    const size_t n[3] = {N, 1, 1};
    stenc_decomp_info info;
    const stenc_bc bc[6] = {{STENC_BC_NONE, 0}, {STENC_BC_NONE, 0}};
    if (stenc_ctx_create_mpi(&ctx, MPI_COMM_WORLD, STENC_DEVICE_CPU) != STENC_OK ||
        stenc_decomp_create(&dp, ctx, 1, n, NULL, NULL) != STENC_OK ||
        stenc_decomp_get_info(dp, &info) != STENC_OK ||
        stenc_field_create_dist(ctx, &x, dp, STENC_F64, SMOOTH_HALO) != STENC_OK ||
        stenc_field_create_dist(ctx, &s, dp, STENC_F64, 0) != STENC_OK ||
        stenc_field_create_dist(ctx, &diff, dp, STENC_F64, 0) != STENC_OK) {
        fprintf(stderr, "consumer_mpi: setup failed: %s\n", stenc_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* x = g*g at global index g, the physical halo included; the exchange fills the rest. */
    for (long i = -1; i <= (long)info.local[0]; i++) {
        const long g = (long)info.lo[0] + i;
        stenc_field_set(x, i, 0, 0, (double)(g * g));
    }
    double total = 0;
    if (stenc_field_exchange(x, bc, 0) != STENC_OK || smooth(ctx, x, s, diff) != STENC_OK ||
        stenc_field_sum(diff, &total) != STENC_OK) {
        fprintf(stderr, "consumer_mpi: run failed: %s\n", stenc_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < info.local[0]; i++) {
        double d = 0;
        stenc_field_get(diff, (long)i, 0, 0, &d);
        if (d != 0.5) bad = 1;
    }
    if (total != 0.5 * N) bad = 1;
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && any) printf("consumer_mpi: WRONG (sum %g)\n", total);
    if (rank == 0 && !any) printf("ok (mpi, %d ranks)\n", size);
    stenc_field_free(x), stenc_field_free(s), stenc_field_free(diff);
    stenc_decomp_destroy(dp);
    stenc_ctx_destroy(ctx);
    MPI_Finalize();
    return any;
}
