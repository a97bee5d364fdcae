/* stenc distributed fields: one global grid split over the ranks of an MPI communicator.
 *
 * The library libstenc_mpi (CMake: stenc::stenc_mpi) adds this API on top of libstenc; it is
 * built when MPI is found. A distributed field is an ordinary stenc_field holding this rank's
 * part of the global interior, with its halo, so generated launchers, halo fills and field
 * accessors work on it unchanged; stenc_field_exchange() fills the halos that face other
 * ranks. Reductions over a distributed field (stenc/reduce.h) are global and bitwise the same
 * whatever the number of ranks. See docs/distributed.md.
 *
 * Collective calls (marked so below) must be made by every rank of the context's
 * communicator in the same order. They return the same status on every rank: when one rank
 * fails, the others fail too, with a message naming that rank.
 */
#ifndef STENC_DIST_H
#define STENC_DIST_H

#include <mpi.h>
#include <stddef.h>

#include "stenc/core.h"
#include "stenc/field.h"
#include "stenc/io.h"
#include "stenc/multigrid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a context on a communicator --------------------------------------------------------- */

/* Collective. A context for this rank of `comm` (duplicated; MPI must be initialised). With
 * STENC_DEVICE_CUDA or AUTO (when CUDA devices are present) the rank uses device
 * (node-local rank) mod (devices on the node): one rank per GPU. STENC_DEVICE_CPU keeps every
 * rank on the CPU. Destroy it with stenc_ctx_destroy() before MPI_Finalize. */
stenc_status stenc_ctx_create_mpi(stenc_ctx **ctx, MPI_Comm comm, stenc_device device);

/* The context's communicator (the duplicate): STENC_ERR_INVALID_ARGUMENT for a context made
 * by stenc_ctx_create(). */
stenc_status stenc_ctx_comm(const stenc_ctx *ctx, MPI_Comm *comm);

/* ---- decompositions ---------------------------------------------------------------------- */

/* How a global interior of n[0] x n[1] x n[2] points is split over a Cartesian grid of ranks.
 * Along each dimension the points go to the ranks in order, the first (n mod p) ranks taking
 * one point more. */
typedef struct stenc_decomp stenc_decomp;

typedef struct stenc_decomp_info {
    int dims;        /* 1, 2 or 3 */
    size_t n[3];     /* global interior extents (1 in unused dimensions) */
    int procs[3];    /* ranks along each dimension */
    int periodic[3]; /* 1 where the global grid wraps around */
    int rank, size;  /* this rank in the context's communicator, and its size */
    int coords[3];   /* this rank's position in the grid of ranks */
    size_t lo[3];    /* global index of this rank's first interior point */
    size_t local[3]; /* this rank's interior extents */
} stenc_decomp_info;

/* Collective. Split a `dims`-D interior of n[] points over the context's ranks. procs[d] > 0
 * fixes the ranks along d, 0 lets MPI_Dims_create choose (NULL: choose all); the product must
 * be the communicator's size. periodic[d] (NULL: none) makes dimension d wrap around; it must
 * match the boundary conditions later given to stenc_field_exchange(). Fails with
 * STENC_ERR_SHAPE when a rank would get no point along some dimension. */
stenc_status stenc_decomp_create(stenc_decomp **decomp, stenc_ctx *ctx, int dims, const size_t n[3],
                                 const int procs[3], const int periodic[3]);
/* Collective. Destroy the fields made on it first. NULL is allowed. */
stenc_status stenc_decomp_destroy(stenc_decomp *decomp);
stenc_status stenc_decomp_get_info(const stenc_decomp *decomp, stenc_decomp_info *info);

/* Collective. The decomposition of the next coarser multigrid level of `fine`, in the
 * STENC_MG_GRID_INTERIOR convention (n -> (n-1)/2 along each dimension, stenc/multigrid.h),
 * over the same ranks: each rank owns the coarse points that sit on its fine points (coarse
 * point I on fine point 2I+1), so that stenc_dist_mg_restrict and _prolong_add need one
 * halo layer of neighbours' points. STENC_ERR_SHAPE when an extent does not coarsen, or when
 * some rank would own no coarse point: a level that small is gathered onto one rank
 * (stenc_field_gather_field) and the coarser levels solved there. STENC_ERR_UNSUPPORTED for a
 * periodic dimension. */
stenc_status stenc_decomp_coarsen(stenc_decomp **coarse, const stenc_decomp *fine);

/* ---- distributed fields ------------------------------------------------------------------ */

/* Collective. A field holding this rank's part of `decomp`, with `halo` ghost layers, created
 * on ctx (whose communicator must be the decomposition's). Every rank's part must be at least
 * `halo` points wide along every split or periodic dimension (STENC_ERR_SHAPE otherwise), so
 * that a halo comes from the nearest rank alone. Free it with stenc_field_free(), on every
 * rank: freeing is collective too (neighbours that read each other's device memory unmap it
 * before it is freed). */
stenc_status stenc_field_create_dist(stenc_ctx *ctx, stenc_field **field,
                                     const stenc_decomp *decomp, stenc_type type, int halo);

/* The decomposition of a distributed field (NULL, with an error recorded, for another field). */
const stenc_decomp *stenc_field_decomp(const stenc_field *field);

/* Bits of the exchange's `flags`. FACES: fill the face halos alone, not the edges and corners,
 * for stencils that read no diagonal neighbour (heat3d's 7 points): every dimension is sent at
 * once, in a third of the messages' latency. Without it, edges and corners are filled too, one
 * dimension after the other. */
#define STENC_EXCHANGE_FACES 1u

/* Collective. Fill the halo: faces that meet another rank (or this one, across a periodic
 * boundary) from that rank's interior, physical faces by bc[] as stenc_field_fill_halo() does.
 * The result is the halo that stenc_field_fill_halo() would give the whole global field, point
 * for point. Both faces of a periodic dimension of the decomposition must say
 * STENC_BC_PERIODIC, and no other face may. Device fields are packed and unpacked on the
 * device. Between ranks of one node whose GPUs reach each other the unpacking reads the
 * neighbour's device memory (CUDA IPC) and MPI carries an empty message; otherwise the data
 * goes from device memory when MPI is CUDA-aware (MPIX_Query_cuda_support, or
 * STENC_MPI_CUDA_AWARE=0|1), through pinned host buffers if not. Every rank's part must be on
 * the device, or every rank's on the host (STENC_ERR_INVALID_ARGUMENT, on the ranks that see
 * the difference). Blocking. */
stenc_status stenc_field_exchange(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT],
                                  unsigned flags);

/* The same in two halves: begin sends (with FACES, every dimension; otherwise the first) and
 * returns; the interior may be computed meanwhile; end completes the exchange. Between them
 * the field's halo must not be read and its interior not written. A second begin before the
 * end is STENC_ERR_INVALID_ARGUMENT. */
stenc_status stenc_field_exchange_begin(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT],
                                        unsigned flags);
stenc_status stenc_field_exchange_end(stenc_field *field);

/* ---- overlapping the exchange with computation ------------------------------------------- */

/* A launch over views of the caller's fields, in the order given, e.g. a generated launcher:
 *     static stenc_status step(void *user, stenc_field *const v[]) {
 *         return heat3d(ctx, a, b, v[0], v[1]);
 *     }                                                                                     */
typedef stenc_status (*stenc_dist_launch_fn)(void *user, stenc_field *const views[]);
#define STENC_DIST_OVERLAP_MAX_FIELDS 16

/* Collective. Exchange `exchanged`'s halo (bc, flags as stenc_field_exchange) and apply
 * `launch` to the whole interior of fields[0..nfields) (which must be split like `exchanged`),
 * overlapping the two: `launch` first runs on views of the inner box, the points farther
 * than `radius` (the stencil's reach, at most the halo) from every face, while the messages
 * travel; then, once the halo is complete, on views of the slabs of the shell around it
 * (at most 6 more calls). On the device the inner box runs while the exchange packs, copies
 * and unpacks on a stream of its own; on the host the messages travel while it runs. A part
 * too thin to have an inner box is exchanged first and launched whole. The result is the
 * same as stenc_field_exchange() followed by one launch on the whole fields, bit for bit,
 * for a stencil that writes each point from the inputs alone. Use FACES where the stencil
 * reads no diagonal neighbour: without it the later dimensions wait for the inner box. */
stenc_status stenc_dist_overlap(stenc_field *exchanged, const stenc_bc bc[STENC_FACE_COUNT],
                                unsigned flags, int radius, int nfields,
                                stenc_field *const fields[], stenc_dist_launch_fn launch,
                                void *user);

/* Collective. The global interior, dense (i fastest), of the field's type: gathered into
 * `global` on rank `root` (other ranks may pass NULL), or scattered from it. */
stenc_status stenc_field_gather(const stenc_field *field, int root, void *global);
stenc_status stenc_field_scatter(stenc_field *field, int root, const void *global);

/* Collective. The same into / from an ordinary field `whole` of the global extents and the
 * same type, on rank `root` (other ranks pass NULL), on the host or the device: for
 * multigrid, the coarse levels too small to split gathered onto one rank (agglomeration). */
stenc_status stenc_field_gather_field(const stenc_field *part, int root, stenc_field *whole);
stenc_status stenc_field_scatter_field(stenc_field *part, int root, const stenc_field *whole);

/* Collective. Multigrid transfers between distributed levels, `coarse` split by
 * stenc_decomp_coarsen() of `fine`'s decomposition, in the STENC_MG_GRID_INTERIOR convention,
 * with the operators of stenc_mg_restrict and stenc_mg_prolong_add and their bits, whatever
 * the number of ranks.
 * - restrict: coarse = R fine. Exchanges fine's halo (halo >= 1) first; its physical faces
 *   are not read.
 * - prolong_add: fine += P coarse. Exchanges coarse's halo (halo >= 1) first, its physical
 *   faces filled by coarse_bc: the coarse boundary values (STENC_BC_DIRICHLET 0 for a
 *   correction). */
stenc_status stenc_dist_mg_restrict(stenc_field *coarse, stenc_field *fine,
                                    stenc_mg_restriction op);
stenc_status stenc_dist_mg_prolong_add(stenc_field *fine, stenc_field *coarse,
                                       const stenc_bc coarse_bc[STENC_FACE_COUNT]);

/* Collective. Write distributed fields (of one decomposition, at most 8) for ParaView: each
 * rank writes its piece PATH_BASE_pRANK.vti (PATH without ".pvti"), holding its part and the
 * first layer of the neighbours above it so that pieces share boundary points; rank 0 writes
 * `path` (ending in .pvti), the parallel header listing every piece. Names, origin and spacing
 * as stenc_io_vti_write; a .pvd (stenc_io_pvd_add) may list the .pvti files of a time series.
 * Checked (names, shapes) on every rank; a failure on one is the status of all. */
stenc_status stenc_dist_vti_write(const char *path, int count, const char *const names[],
                                  const stenc_field *const fields[], const double origin[3],
                                  const double spacing[3]);

/* Collective. Write distributed fields (at most 8, one decomposition) as time step `step` of
 * an HDF5 file, in the layout of stenc_io_h5_write_step. Two ways:
 * - `file` opened by stenc_dist_h5_open on every rank (parallel HDF5): every rank writes its
 *   part of each dataset, in one collective MPI-IO write per field; `root` is ignored.
 * - `file` opened by stenc_io_h5_open on rank `root` alone (other ranks pass NULL): the fields
 *   are gathered whole on the root, which writes them. */
stenc_status stenc_dist_h5_write_step(stenc_io_h5 *file, int root, long step, double time,
                                      int count, const char *const names[],
                                      const stenc_field *const fields[]);

/* 1 when libstenc was built on the MPI build of HDF5 (configure option STENC_HDF5_PARALLEL),
 * so that stenc_dist_h5_open works. */
int stenc_dist_have_parallel_h5(void);

/* Collective. Open an HDF5 file on every rank of ctx's communicator, through MPI-IO, for
 * stenc_dist_h5_write_step. Close it with stenc_io_h5_close on every rank (collective for such
 * a file); the other calls of stenc/io.h refuse it. Without parallel HDF5:
 * STENC_ERR_UNSUPPORTED. */
stenc_status stenc_dist_h5_open(stenc_io_h5 **file, stenc_ctx *ctx, const char *path,
                                stenc_io_mode mode);

/* 1 when this build sends device buffers to MPI directly (CUDA-aware MPI), 0 when it stages
 * them through the host. */
int stenc_mpi_cuda_aware(void);

/* How many faces of this rank's part get their halo straight from the neighbour's device
 * memory (CUDA IPC: ranks of one node whose GPUs reach each other, device fields; off with
 * STENC_MPI_IPC=0). The other faces' halos come through MPI. -1, with an error recorded, for
 * a field that is not distributed. */
int stenc_field_ipc_faces(const stenc_field *field);

#ifdef __cplusplus
}
#endif

#endif /* STENC_DIST_H */
