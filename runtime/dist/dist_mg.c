/* Multigrid transfers between two levels of a distributed grid (stenc/dist.h).
 *
 * The coarse level is split by stenc_decomp_coarsen: a rank owns the coarse points that sit
 * on its fine points (coarse I on fine 2I+1). Its restriction then reads its own fine points
 * and one fine halo layer; its prolongation reads its own coarse points and one coarse halo
 * layer. So each transfer is one halo exchange and the single-grid kernel on the rank's part,
 * shifted by where the part starts (mg_internal.h), and gives the bits of the whole-grid
 * transfer, point for point.
 */
#include <stdio.h>

#include "dist_mpi.h"
#include "mg_internal.h"
#include "stenc/multigrid.h"

/* Checks shared by both transfers, on this rank: two distributed fields on the same context,
 * coarse split as the coarsening of fine's split, and `halo_field` with a halo. */
static stenc_status check_levels(const char *fn, const stenc_field *fine, const stenc_field *coarse,
                                 const stenc_field *halo_field, const char *halo_what) {
    const stenc_decomp *fd = fine ? stenc_field_decomp(fine) : NULL;
    const stenc_decomp *cd = coarse ? stenc_field_decomp(coarse) : NULL;
    stenc_clear_error();
    STENC_REQUIRE(fd != NULL, "%s: the fine field is not a distributed field", fn);
    STENC_REQUIRE(cd != NULL, "%s: the coarse field is not a distributed field", fn);
    STENC_REQUIRE(stenc_field_ctx(fine) == stenc_field_ctx(coarse),
                  "%s: the fine and coarse fields belong to different contexts", fn);
    if (!dist_decomp_is_coarsening(cd, fd)) {
        stenc_decomp_info fi, ci;
        stenc_decomp_get_info(fd, &fi);
        stenc_decomp_get_info(cd, &ci);
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "%s: the coarse field's decomposition (%zux%zux%zu over %dx%dx%d "
                           "ranks) is not stenc_decomp_coarsen() of the fine field's "
                           "(%zux%zux%zu over %dx%dx%d)",
                           fn, ci.n[0], ci.n[1], ci.n[2], ci.procs[0], ci.procs[1], ci.procs[2],
                           fi.n[0], fi.n[1], fi.n[2], fi.procs[0], fi.procs[1], fi.procs[2]);
    }
    stenc_field_layout l;
    STENC_TRY(stenc_field_get_layout(halo_field, &l));
    if (l.halo < 1)
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "%s: the %s field has halo 0; the transfer reads one layer of the "
                           "neighbours' points: needs halo >= 1",
                           fn, halo_what);
    return STENC_OK;
}

/* Where this rank's coarse point 0 sits in its fine part: coarse local I on fine local
 * 2I + shift[d], shift in {0, 1}. */
static void part_shift(const stenc_field *fine, const stenc_field *coarse, long shift[3]) {
    stenc_decomp_info fi, ci;
    stenc_decomp_get_info(stenc_field_decomp(fine), &fi);
    stenc_decomp_get_info(stenc_field_decomp(coarse), &ci);
    for (int d = 0; d < 3; d++)
        shift[d] = d < fi.dims ? 2 * (long)ci.lo[d] + 1 - (long)fi.lo[d] : 0;
}

static MPI_Comm comm_of(const stenc_field *f) {
    MPI_Comm comm = MPI_COMM_NULL;
    stenc_ctx_comm(stenc_field_ctx(f), &comm);
    return comm;
}

stenc_status stenc_dist_mg_restrict(stenc_field *coarse, stenc_field *fine,
                                    stenc_mg_restriction op) {
    static const char fn[] = "stenc_dist_mg_restrict";
    STENC_TRY(stenc_field_check(fine, fn, "fine"));
    MPI_Comm comm = comm_of(fine);
    STENC_REQUIRE(comm != MPI_COMM_NULL, "%s: the fine field's context has no communicator", fn);
    stenc_status status = check_levels(fn, fine, coarse, fine, "fine");
    if (status == STENC_OK && op != STENC_MG_FULL_WEIGHTING && op != STENC_MG_INJECTION)
        status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: invalid restriction operator %d", fn,
                             (int)op);
    STENC_TRY(dist_agree(comm, status, fn));
    /* Full weighting reads the 3^dims points around each coarse point, diagonals too; the
     * physical halo is never read (INTERIOR), so those faces are left alone. */
    if (op == STENC_MG_FULL_WEIGHTING) {
        const stenc_bc none[STENC_FACE_COUNT] = {{STENC_BC_NONE, 0}};
        STENC_TRY(stenc_field_exchange(fine, none, 0));
    }
    long shift[3];
    part_shift(fine, coarse, shift);
    return dist_agree(comm, stenc_mg_restrict_part(coarse, fine, shift, op), fn);
}

stenc_status stenc_dist_mg_prolong_add(stenc_field *fine, stenc_field *coarse,
                                       const stenc_bc coarse_bc[STENC_FACE_COUNT]) {
    static const char fn[] = "stenc_dist_mg_prolong_add";
    STENC_TRY(stenc_field_check(fine, fn, "fine"));
    MPI_Comm comm = comm_of(fine);
    STENC_REQUIRE(comm != MPI_COMM_NULL, "%s: the fine field's context has no communicator", fn);
    stenc_status status = check_levels(fn, fine, coarse, coarse, "coarse");
    if (status == STENC_OK && !coarse_bc)
        status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: coarse_bc is NULL", fn);
    STENC_TRY(dist_agree(comm, status, fn));
    /* Fine points in a coarse cell read its corners: the halo with its edges and corners. */
    STENC_TRY(stenc_field_exchange(coarse, coarse_bc, 0));
    long shift[3];
    part_shift(fine, coarse, shift);
    return dist_agree(comm, stenc_mg_prolong_add_part(fine, coarse, shift), fn);
}
