/* runtime/dist internals that speak MPI, shared by dist.c and multiblock.c. Not installed. */
#ifndef STENC_DIST_MPI_H
#define STENC_DIST_MPI_H

#include <mpi.h>

#include "stenc/dist.h"

#include "dist_internal.h"

/* Collective over comm: STENC_OK when every rank passes STENC_OK; else the status of the
 * lowest failing rank, everywhere. A rank that did not fail itself gets that rank's message. */
stenc_status dist_agree(MPI_Comm comm, stenc_status mine, const char *fn);

/* This rank's exact partial sum of a field (DIST_SUM), of a*b (DIST_DOT; b NULL: a*a), or the
 * largest |a| bit pattern (DIST_MAX_ABS), on the host or the device; acc normalised. */
stenc_status dist_local_reduce(int kind, const stenc_field *a, const stenc_field *b, xsum *acc,
                               uint64_t *max_bits);

/* Collective over comm: the lowest rank of comm on this rank's node, equal for the ranks of
 * one node and for them alone. */
int dist_node_key(MPI_Comm comm);

/* What a rank tells the ranks that may read its device memory through CUDA IPC: whether it
 * offers it, its node (dist_node_key), its device and the allocation's handle, and where in it
 * what the reader wants starts (distributed fields; multi-block fields send offsets apart). */
typedef struct dist_ipc_offer {
    int usable, node;
    char bus[DIST_BUS_ID_BYTES];
    unsigned char handle[DIST_IPC_HANDLE_BYTES];
    uint64_t offset;
} dist_ipc_offer;

/* Whether a field on ctx with `halo` ghost layers offers CUDA IPC: a CUDA context, a halo, and
 * STENC_MPI_IPC not "0"; then offer->bus names this process's device. */
int dist_ipc_wanted(const stenc_ctx *ctx, int halo, dist_ipc_offer *offer);

/* 1 when `coarse` is stenc_decomp_coarsen(fine): the same ranks, every split halved. Both
 * must be valid decompositions. */
int dist_decomp_is_coarsening(const stenc_decomp *coarse, const stenc_decomp *fine);

#endif /* STENC_DIST_MPI_H */
