/* Multigrid transfers, the C half: shape checks, dispatch, and the OpenMP kernels.
 *
 * Both kernels work per output point in gather form (no write conflicts), accumulate in
 * double, and add their terms in a fixed order (k offset outermost, i innermost), so that the
 * CUDA kernels, which do the same, give bitwise the same results: every weight is a power of
 * two, so each weight*value product is exact and fused or unfused multiply-adds agree.
 */
#include <stdio.h>

#include "mg_internal.h"

static const char *grid_name(stenc_mg_grid grid) {
    return grid == STENC_MG_GRID_INTERIOR ? "2^n-1 (STENC_MG_GRID_INTERIOR)"
                                          : "2^n+1 (STENC_MG_GRID_VERTEX)";
}

stenc_status stenc_mg_coarse_extent(stenc_mg_grid grid, size_t n_fine, size_t *n_coarse) {
    STENC_REQUIRE(n_coarse != NULL, "stenc_mg_coarse_extent: n_coarse is NULL");
    STENC_REQUIRE(grid == STENC_MG_GRID_INTERIOR || grid == STENC_MG_GRID_VERTEX,
                  "stenc_mg_coarse_extent: invalid grid convention %d", (int)grid);
    if (n_fine < 3 || n_fine % 2 == 0)
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "stenc_mg_coarse_extent: %zu fine points do not coarsen in the %s "
                           "convention (needs an odd count >= 3)",
                           n_fine, grid_name(grid));
    *n_coarse = grid == STENC_MG_GRID_INTERIOR ? (n_fine - 1) / 2 : (n_fine + 1) / 2;
    return STENC_OK;
}

/* Where coarse point I sits on the fine grid: fine index 2I + shift. */
static long grid_shift(stenc_mg_grid grid) {
    return grid == STENC_MG_GRID_INTERIOR ? 1 : 0;
}

/* "7x7x1"-style extents for messages. */
static void format_extents(char *buf, size_t size, const stenc_field_layout *l) {
    if (l->dims == 1)
        snprintf(buf, size, "%zu", l->n[0]);
    else if (l->dims == 2)
        snprintf(buf, size, "%zux%zu", l->n[0], l->n[1]);
    else
        snprintf(buf, size, "%zux%zux%zu", l->n[0], l->n[1], l->n[2]);
}

/* Check that `fine` coarsens to `coarse` in every used dimension. */
static stenc_status check_transfer(const char *fn, const stenc_mg_view *fine,
                                   const stenc_mg_view *coarse, stenc_mg_grid grid) {
    STENC_REQUIRE(grid == STENC_MG_GRID_INTERIOR || grid == STENC_MG_GRID_VERTEX,
                  "%s: invalid grid convention %d", fn, (int)grid);
    for (int d = 0; d < fine->layout.dims; d++) {
        size_t nf = fine->layout.n[d], nc = coarse->layout.n[d];
        int fits = nf >= 3 && nf % 2 == 1 &&
                   (grid == STENC_MG_GRID_INTERIOR ? nf == 2 * nc + 1 : nf == 2 * nc - 1);
        if (!fits) {
            char fs[96], cs[96];
            format_extents(fs, sizeof fs, &fine->layout);
            format_extents(cs, sizeof cs, &coarse->layout);
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: fine interior %s does not coarsen to coarse interior %s in "
                               "the %s convention: dimension %d has %zu fine and %zu coarse "
                               "points, needs n_fine == %s with n_fine odd and >= 3",
                               fn, fs, cs, grid_name(grid), d, nf, nc,
                               grid == STENC_MG_GRID_INTERIOR ? "2*n_coarse+1" : "2*n_coarse-1");
        }
    }
    return STENC_OK;
}

/* Weight of offset d in {-1, 0, 1} of 1/4 [1 2 1] (used dimension) or of [1] (unused). */
static inline double restrict_weight(int used, long d) {
    if (!used) return 1.0;
    return d == 0 ? 0.5 : 0.25;
}

static void restrict_cpu(const stenc_mg_view *c, const stenc_mg_view *f, stenc_mg_grid grid,
                         const long shift[3], stenc_mg_restriction op) {
    const int dims = c->layout.dims;
    const long n[3] = {(long)c->layout.n[0], (long)c->layout.n[1], (long)c->layout.n[2]};
    const int used[3] = {dims > 0, dims > 1, dims > 2};
    const ptrdiff_t *cs = c->layout.stride, *fs = f->layout.stride;
#pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < n[2]; k++)
        for (long j = 0; j < n[1]; j++)
            for (long i = 0; i < n[0]; i++) {
                const long ci[3] = {i, j, k};
                int inject = op == STENC_MG_INJECTION;
                ptrdiff_t centre = 0;
                for (int d = 0; d < 3; d++) {
                    if (!used[d]) continue;
                    centre += (2 * ci[d] + shift[d]) * fs[d];
                    if (grid == STENC_MG_GRID_VERTEX && (ci[d] == 0 || ci[d] == n[d] - 1))
                        inject = 1;
                }
                double v = 0.0;
                if (inject) {
                    v = stenc_mg_load(f, centre);
                } else {
                    for (long dk = -used[2]; dk <= used[2]; dk++)
                        for (long dj = -used[1]; dj <= used[1]; dj++)
                            for (long di = -used[0]; di <= used[0]; di++) {
                                double w = restrict_weight(used[2], dk) *
                                           restrict_weight(used[1], dj) *
                                           restrict_weight(used[0], di);
                                v += w * stenc_mg_load(f, centre + di + dj * fs[1] + dk * fs[2]);
                            }
                }
                stenc_mg_store(c, i + j * cs[1] + k * cs[2], v);
            }
}

stenc_status stenc_mg_restrict(stenc_field *coarse, const stenc_field *fine, stenc_mg_grid grid,
                               stenc_mg_restriction op) {
    static const char fn[] = "stenc_mg_restrict";
    stenc_mg_view c, f;
    STENC_TRY(stenc_mg_view_pair(fn, "coarse", coarse, "fine", fine, &c, &f));
    STENC_REQUIRE(op == STENC_MG_FULL_WEIGHTING || op == STENC_MG_INJECTION,
                  "%s: invalid restriction operator %d", fn, (int)op);
    STENC_TRY(check_transfer(fn, &f, &c, grid));
    const long s = grid_shift(grid);
    const long shift[3] = {s, s, s};
    if (stenc_field_location(coarse) == STENC_ON_DEVICE)
        return stenc_mg_cuda_restrict(stenc_field_ctx(coarse), &c, &f, grid, shift, op);
    restrict_cpu(&c, &f, grid, shift, op);
    return STENC_OK;
}

stenc_status stenc_mg_restrict_part(stenc_field *coarse, const stenc_field *fine,
                                    const long shift[3], stenc_mg_restriction op) {
    static const char fn[] = "stenc_dist_mg_restrict";
    stenc_mg_view c, f;
    STENC_TRY(stenc_mg_view_pair(fn, "coarse", coarse, "fine", fine, &c, &f));
    if (stenc_field_location(coarse) == STENC_ON_DEVICE)
        return stenc_mg_cuda_restrict(stenc_field_ctx(coarse), &c, &f, STENC_MG_GRID_INTERIOR,
                                      shift, op);
    restrict_cpu(&c, &f, STENC_MG_GRID_INTERIOR, shift, op);
    return STENC_OK;
}

/* The coarse points around fine point `fi` along one dimension: first index and count (1 on
 * a coarse point, 2 between two), each with weight 1/count. Unused dimensions give index 0. */
static inline void prolong_span(int used, long fi, long shift, long *first, int *count) {
    long t = fi - shift; /* twice the coarse coordinate */
    if (!used) {
        *first = 0;
        *count = 1;
    } else if (t % 2 == 0) {
        *first = t / 2;
        *count = 1;
    } else {
        *first = (t - 1) / 2; /* t - 1 is even, so this is exact even for t == -1 */
        *count = 2;
    }
}

static void prolong_cpu(const stenc_mg_view *f, const stenc_mg_view *c, stenc_mg_grid grid,
                        const long shift[3]) {
    const int dims = f->layout.dims;
    const long n[3] = {(long)f->layout.n[0], (long)f->layout.n[1], (long)f->layout.n[2]};
    const int used[3] = {dims > 0, dims > 1, dims > 2};
    const ptrdiff_t *cs = c->layout.stride, *fs = f->layout.stride;
#pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < n[2]; k++)
        for (long j = 0; j < n[1]; j++)
            for (long i = 0; i < n[0]; i++) {
                const long fi[3] = {i, j, k};
                long first[3];
                int count[3], boundary = 0;
                for (int d = 0; d < 3; d++) {
                    prolong_span(used[d], fi[d], shift[d], &first[d], &count[d]);
                    if (used[d] && grid == STENC_MG_GRID_VERTEX &&
                        (fi[d] == 0 || fi[d] == n[d] - 1))
                        boundary = 1;
                }
                if (boundary) continue;
                double v = 0.0;
                for (int ek = 0; ek < count[2]; ek++)
                    for (int ej = 0; ej < count[1]; ej++)
                        for (int ei = 0; ei < count[0]; ei++) {
                            double w = (1.0 / count[2]) * (1.0 / count[1]) * (1.0 / count[0]);
                            v += w * stenc_mg_load(c, (first[0] + ei) + (first[1] + ej) * cs[1] +
                                                          (first[2] + ek) * cs[2]);
                        }
                ptrdiff_t at = i + j * fs[1] + k * fs[2];
                stenc_mg_store(f, at, stenc_mg_load(f, at) + v);
            }
}

stenc_status stenc_mg_prolong_add(stenc_field *fine, const stenc_field *coarse,
                                  stenc_mg_grid grid) {
    static const char fn[] = "stenc_mg_prolong_add";
    stenc_mg_view f, c;
    STENC_TRY(stenc_mg_view_pair(fn, "fine", fine, "coarse", coarse, &f, &c));
    STENC_TRY(check_transfer(fn, &f, &c, grid));
    if (grid == STENC_MG_GRID_INTERIOR && c.layout.halo < 1)
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "%s: the coarse field has halo %d, but prolongation in the %s "
                           "convention reads the coarse boundary values at index -1 and n: "
                           "needs halo >= 1",
                           fn, c.layout.halo, grid_name(grid));
    const long s = grid_shift(grid);
    const long shift[3] = {s, s, s};
    if (stenc_field_location(fine) == STENC_ON_DEVICE)
        return stenc_mg_cuda_prolong_add(stenc_field_ctx(fine), &f, &c, grid, shift);
    prolong_cpu(&f, &c, grid, shift);
    return STENC_OK;
}

stenc_status stenc_mg_prolong_add_part(stenc_field *fine, const stenc_field *coarse,
                                       const long shift[3]) {
    static const char fn[] = "stenc_dist_mg_prolong_add";
    stenc_mg_view f, c;
    STENC_TRY(stenc_mg_view_pair(fn, "fine", fine, "coarse", coarse, &f, &c));
    if (stenc_field_location(fine) == STENC_ON_DEVICE)
        return stenc_mg_cuda_prolong_add(stenc_field_ctx(fine), &f, &c, STENC_MG_GRID_INTERIOR,
                                         shift);
    prolong_cpu(&f, &c, STENC_MG_GRID_INTERIOR, shift);
    return STENC_OK;
}
