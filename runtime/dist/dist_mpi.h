/* runtime/dist internals that speak MPI, shared by dist.c and multiblock.c. Not installed. */
#ifndef STENC_DIST_MPI_H
#define STENC_DIST_MPI_H

#include <mpi.h>

#include "dist_internal.h"

/* Collective over comm: STENC_OK when every rank passes STENC_OK; else the status of the
 * lowest failing rank, everywhere. A rank that did not fail itself gets that rank's message. */
stenc_status dist_agree(MPI_Comm comm, stenc_status mine, const char *fn);

/* This rank's exact partial sum of a field (DIST_SUM), of a*b (DIST_DOT; b NULL: a*a), or the
 * largest |a| bit pattern (DIST_MAX_ABS), on the host or the device; acc normalised. */
stenc_status dist_local_reduce(int kind, const stenc_field *a, const stenc_field *b, xsum *acc,
                               uint64_t *max_bits);

#endif /* STENC_DIST_MPI_H */
