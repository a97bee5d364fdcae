/* stenc multi-block grids (SBLOCK): several structured blocks, each with its own extents and
 * index axes, joined face to face by patches, spread over the ranks of an MPI communicator.
 * Part of libstenc_mpi (stenc::stenc_mpi); see docs/distributed.md, "Multi-block grids".
 *
 * A block lives whole on one rank (a block is not split; split a large block into several).
 * A multi-block field holds, on each rank, one ordinary stenc_field per block of that rank,
 * so generated launchers run on them unchanged (stenc_mb_foreach runs one over every local
 * block). stenc_mb_exchange fills the halos across patches: within a rank by copies,
 * between ranks by MPI; faces on no patch get the boundary conditions. Edge and corner halos
 * are filled too unless asked not to (STENC_EXCHANGE_FACES); they are those of one grid where
 * the blocks around an edge or vertex sit as in a Cartesian grid (L- and T-shaped domains,
 * 2x2 junctions); where 3 or 5 blocks meet at a vertex there is no unique diagonal neighbour
 * and the diagonal halo holds a value reached through one of the patches.
 *
 * Collective calls (all but the accessors) must be made by every rank of the context's
 * communicator, and return the same status on every rank.
 */
#ifndef STENC_MULTIBLOCK_H
#define STENC_MULTIBLOCK_H

#include "stenc/dist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A patch joins face[0] of block[0] to face[1] of block[1] (a block may meet itself: a
 * periodic patch). axis[a] is the axis of block[1] that axis a of block[0] runs along, and
 * reverse[a] is 1 where it runs the other way; the normal axes of the two faces must map to
 * each other, and each tangential extent of block[0]'s face must equal that of block[1]'s
 * (STENC_ERR_SHAPE otherwise). Moving out of block[0] through face[0] enters block[1]
 * through face[1]. Unused axes (of 2-D grids) map to themselves. */
typedef struct stenc_mb_patch {
    int block[2];
    stenc_face face[2];
    int axis[3];
    int reverse[3];
} stenc_mb_patch;

typedef struct stenc_mb stenc_mb;

/* Collective. The block structure: `nblocks` blocks of extents n[b][0..2] (1 in unused
 * dimensions), `npatches` patches (each face on at most one). owner[b] (NULL: the
 * partitioner) gives each block's rank. The partitioner hands the blocks out largest first,
 * each to the least loaded rank so far (ties: the lower rank); a block's load is its points.
 * With fewer blocks than ranks some ranks hold none: allowed with allow_idle, else
 * STENC_ERR_SHAPE. */
stenc_status stenc_mb_create(stenc_mb **mb, stenc_ctx *ctx, int dims, int nblocks,
                             const size_t (*n)[3], int npatches, const stenc_mb_patch *patches,
                             const int *owner, int allow_idle);
stenc_status stenc_mb_destroy(stenc_mb *mb); /* collective; NULL is allowed */

/* The rank that holds block b (-1 with an error recorded when b is out of range), and the
 * number of blocks on this rank. */
int stenc_mb_owner(const stenc_mb *mb, int block);
int stenc_mb_local_count(const stenc_mb *mb);

/* A multi-block field: one field per local block, of `type` with `halo` ghost layers. */
typedef struct stenc_mb_field stenc_mb_field;
stenc_status stenc_mb_field_create(stenc_mb_field **field, const stenc_mb *mb, stenc_type type,
                                   int halo);
stenc_status stenc_mb_field_free(stenc_mb_field *field); /* NULL is allowed */

/* The field of local block `local` (0 .. stenc_mb_local_count - 1) and its global block
 * number (NULL / -1 with an error recorded when out of range). */
stenc_field *stenc_mb_field_block(const stenc_mb_field *field, int local, int *block);

/* Move every local block to the device or back (stenc_field_upload / download). */
stenc_status stenc_mb_field_upload(stenc_mb_field *field);
stenc_status stenc_mb_field_download(stenc_mb_field *field);

/* Collective. Fill the halos: across each patch from the other block (with its axes mapped),
 * elsewhere by bc[] (the same conditions on every block's free faces, as
 * stenc_field_fill_halo; STENC_BC_PERIODIC is refused: periodicity is a patch). flags:
 * STENC_EXCHANGE_FACES fills the face halos alone, in one round of messages, for stencils
 * that read no diagonal neighbour; 0 fills edges and corners too, in one round per used
 * dimension (each reaches one diagonal step further through the other blocks' halos). */
stenc_status stenc_mb_exchange(stenc_mb_field *field, const stenc_bc bc[STENC_FACE_COUNT],
                               unsigned flags);

/* Run `launch` on every local block: views[f] is the block's field of fields[f]. The fields
 * must share their block structure. Stops at the first failure and returns it. */
stenc_status stenc_mb_foreach(int nfields, stenc_mb_field *const fields[],
                              stenc_dist_launch_fn launch, void *user);

/* Collective. Global sum and sum of squares over every block, exact and rounded once: the
 * same bits whatever the number of ranks and the blocks' owners. */
stenc_status stenc_mb_field_sum(const stenc_mb_field *field, double *result);
stenc_status stenc_mb_field_sum_squares(const stenc_mb_field *field, double *result);

#ifdef __cplusplus
}
#endif

#endif /* STENC_MULTIBLOCK_H */
