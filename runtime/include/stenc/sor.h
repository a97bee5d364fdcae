/* stenc MLSSOR: the parallel multi-layer SSOR of Di et al. (seed 001, sections IV-A to IV-C)
 * for the 5-point Poisson problem -laplace(u) = f on a 2-D field, on the CPU and on CUDA.
 *
 * The update at a point is gs_redblack's and sor_lex's (stencils/), in the field's type:
 *     u = (1 - omega)*u + omega*0.25*(h2*f + u[-1,0] + u[1,0] + u[0,-1] + u[0,1])
 * with the Dirichlet boundary values in u's halo (index -1 and n), which are read, never
 * written.
 *
 * One call is one K-layer sweep: every interior point is updated K times. The iteration space
 * (layer d = 0..K-1, i, j) is cut, along i and along j alike, into intervals of period
 * `subdomain` (n below, n >= 2, 1 <= K <= n/2) that move with the layer:
 *     A_p(d) = [p*n + d,         p*n + n - 2 - d]    (shrinking: n-1 points at d = 0)
 *     B_p(d) = [p*n + n - 1 - d, p*n + n - 1 + d]    (growing: 1 point at d = 0)
 * for every integer p, clipped to the interior. At every layer the A and B intervals partition
 * the line. A tile is A or B along i times A or B along j; the sweep runs four phases, the
 * tiles (A,A), then (A,B), then (B,A), then (B,B) (first letter along i), and inside a phase
 * every tile runs on its own: its layers in order, each layer's points in lexicographic order
 * (i fastest). Tiles of one phase never read what another writes (an A interval of n-1-2d >= 1
 * points separates two B intervals, and the other way round), so the result is the same
 * whatever runs them in parallel: the CPU and the GPU agree bit for bit. The (A,B) and (B,A)
 * phases read nothing the other writes either, so their order does not matter (Di et al. fuse
 * them on one GPU).
 *
 * A forward sweep goes as above; a backward sweep is the same in the mirrored grid
 * (i -> nx-1-i, j -> ny-1-j), its points in decreasing order. SSOR-like use alternates them.
 * Like red-black SOR, MLSSOR does not follow every dependence of the sequential sweep: at tile
 * edges a point may see a neighbour one layer older or newer than the loop nest would give it.
 * That is what lets all tiles of a phase run at once; the price is paid in convergence
 * (docs/sor.md, bench/RESULTS.md). With n > nx, n > ny and K = 1 the sweep is exactly one
 * lexicographic SOR sweep (sor_lex's, forward; its mirror, backward).
 *
 * Fields: u and f 2-D, same context, location, type (F32 or F64) and interior; u with halo >=
 * 1 (f's halo is not read). f may be NULL (f = 0, Laplace). Views are STENC_ERR_UNSUPPORTED.
 * The sweep runs where the fields live: on the host with OpenMP, or queued on the CUDA
 * context's stream (asynchronously, like a generated kernel).
 *
 * Distributed fields (stenc/dist.h; u and f split alike, not periodic): collective, and the
 * result is the global grid's sweep by one process, bit for bit. The tiles that cross a part's
 * edge are computed on both sides, over a margin M = min(H_u - 1, H_f) past every shared face
 * (H: the halos); G of the four phases share one exchange of u's halo when G * (n - 1) <= M + 1,
 * and G >= 1 is required (STENC_ERR_SHAPE). f's halo must hold the neighbours' values (exchange
 * it once after setting f); u's first halo layer on physical faces holds the global boundary
 * values along its whole length, corners past shared faces included; on return u's halo across
 * shared faces holds scratch values. docs/sor.md, "On distributed fields".
 */
#ifndef STENC_SOR_H
#define STENC_SOR_H

#include "stenc/core.h"
#include "stenc/field.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum stenc_sweep_dir { STENC_SWEEP_FORWARD = 0, STENC_SWEEP_BACKWARD } stenc_sweep_dir;

/* One K-layer MLSSOR sweep of u in direction `dir` (see above). `subdomain` is n; `layers` is K,
 * 0 for n/2. 0 < omega < 2 and h2 > 0 finite, else STENC_ERR_INVALID_ARGUMENT. */
stenc_status stenc_mlssor_sweep(stenc_field *u, const stenc_field *f, double h2, double omega,
                                long subdomain, int layers, stenc_sweep_dir dir);

#ifdef __cplusplus
}
#endif

#endif /* STENC_SOR_H */
