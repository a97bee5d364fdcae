/* stenc multigrid transfers: restriction (fine to coarse) and prolongation (coarse to fine)
 * between two stenc_fields of 1, 2 or 3 dimensions, on the CPU and on CUDA.
 *
 * Grids. Both conventions use standard coarsening (every other point, in every used
 * dimension) with the coarse spacing twice the fine one. Indices below are interior indices
 * of the fields (see stenc/field.h); n is the interior extent of one used dimension.
 *
 *  STENC_MG_GRID_INTERIOR  (2^n-1 points: 1, 3, 7, 15, ...)  n_fine == 2*n_coarse + 1.
 *      The fields hold only the unknowns; the boundary (Dirichlet) values live in the halo at
 *      index -1 and n. Coarse point I sits on fine point 2I+1; the coarse halo point -1 and
 *      n_coarse sit on the fine halo points -1 and n_fine.
 *  STENC_MG_GRID_VERTEX    (2^n+1 points: 3, 5, 9, 17, ...)  n_fine == 2*n_coarse - 1.
 *      The fields hold the boundary nodes too: interior indices 0 and n-1 of every used
 *      dimension are the boundary, everything in between are the unknowns. Coarse point I
 *      sits on fine point 2I. The halo is never read or written.
 *
 * Any odd size that satisfies the relation works (a two-grid step does not need powers of
 * two); a whole hierarchy needs 2^n-1 or 2^n+1 to coarsen down to one / three points.
 * Every call checks that the two fields fit and returns STENC_ERR_SHAPE with the sizes when
 * they do not; outputs are then untouched. Both fields must belong to the same context
 * (STENC_ERR_INVALID_ARGUMENT) and live on the same side (STENC_ERR_LOCATION); the call runs
 * there, on the host with OpenMP or on the context's CUDA stream (asynchronously, like a
 * generated kernel).
 */
#ifndef STENC_MULTIGRID_H
#define STENC_MULTIGRID_H

#include <stddef.h>

#include "stenc/core.h"
#include "stenc/field.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum stenc_mg_grid {
    STENC_MG_GRID_INTERIOR = 0, /* 2^n-1 unknowns, boundary in the halo */
    STENC_MG_GRID_VERTEX        /* 2^n+1 nodes, boundary nodes inside the field */
} stenc_mg_grid;

typedef enum stenc_mg_restriction {
    /* Tensor product of 1/4 [1 2 1] per used dimension: 1/16 [1 2 1; 2 4 2; 1 2 1] in 2-D,
     * its 27-point analogue (weights 1/64 * 1, 2, 4, 8) in 3-D. */
    STENC_MG_FULL_WEIGHTING = 0,
    STENC_MG_INJECTION /* the fine value on the coarse point */
} stenc_mg_restriction;

/* The coarse extent for a fine extent `n_fine` in the given convention; STENC_ERR_SHAPE when
 * n_fine does not coarsen (even, or too small: INTERIOR needs n_fine >= 3, VERTEX >= 3). */
stenc_status stenc_mg_coarse_extent(stenc_mg_grid grid, size_t n_fine, size_t *n_coarse);

/* coarse = R fine on the coarse interior; the coarse halo is left alone.
 *  INTERIOR: coarse(I) = sum over d in {-1,0,1}^dims of w(d) fine(2I+1+d). All fine points
 *            read are interior points (2I+1+d lies in 0..n_fine-1), so no fine halo is
 *            needed.
 *  VERTEX:   coarse points on the boundary (an index 0 or n_coarse-1 in some used dimension)
 *            are injected, coarse(I) = fine(2I), so boundary values carry over unchanged; the
 *            others get the operator around fine(2I), whose neighbours 2I-1..2I+1 are all
 *            fine unknowns (never boundary nodes).
 * Fields: same type (F32/F64), same dims, any halo. */
stenc_status stenc_mg_restrict(stenc_field *coarse, const stenc_field *fine, stenc_mg_grid grid,
                               stenc_mg_restriction op);

/* fine += P coarse, P the bilinear (2-D) / trilinear (3-D) interpolation: a fine point on a
 * coarse point takes its value, one between two coarse points their mean, one in the middle
 * of a coarse cell (face) the mean of its 4 corners, one in the middle of a 3-D coarse cell the
 * mean of its 8 corners.
 *  INTERIOR: every fine interior point is updated. Fine points next to the boundary
 *            interpolate with the coarse halo (index -1 and n_coarse), which must therefore
 *            hold the coarse boundary values: the coarse field needs halo >= 1 (for a
 *            correction with Dirichlet boundaries, fill it with 0).
 *  VERTEX:   fine boundary nodes are left alone (their values are fixed by the boundary
 *            condition); all others are updated from coarse nodes, boundary nodes included.
 * Fields: same type, same dims. The fine halo is not touched. */
stenc_status stenc_mg_prolong_add(stenc_field *fine, const stenc_field *coarse, stenc_mg_grid grid);

#ifdef __cplusplus
}
#endif

#endif /* STENC_MULTIGRID_H */
