/* References for the multigrid tests, written independently of runtime/multigrid: the
 * restriction as three separable 1-D passes, the prolongation in scatter (distributive) form,
 * all in long double on dense arrays, and exact compensated sums. */
#ifndef STENC_TEST_MG_REFERENCE_H
#define STENC_TEST_MG_REFERENCE_H

#include "test_util.h"
#include "stenc/multigrid.h"
#include "stenc/reduce.h"

/* A dense long double copy of a field with a margin of `m` points around the interior (from
 * the halo), indexed [(k+mk)][(j+mj)][(i+m)] with the margin only in used dimensions. */
typedef struct ref_grid {
    long n[3], m[3], e[3]; /* interior, margin, extents (n + 2m) */
    long double *v;
} ref_grid;

static inline long double *ref_at(ref_grid *g, long i, long j, long k) {
    return &g->v[((k + g->m[2]) * g->e[1] + (j + g->m[1])) * g->e[0] + (i + g->m[0])];
}

static inline ref_grid ref_alloc(int dims, const long n[3], long margin) {
    ref_grid g;
    for (int d = 0; d < 3; d++) {
        g.n[d] = n[d];
        g.m[d] = d < dims ? margin : 0;
        g.e[d] = n[d] + 2 * g.m[d];
    }
    g.v = calloc((size_t)(g.e[0] * g.e[1] * g.e[2]), sizeof *g.v);
    assert_non_null(g.v);
    return g;
}

/* Read a host field, interior plus `margin` halo layers, into a new ref_grid. */
static inline ref_grid ref_from_field(const stenc_field *f, long margin) {
    stenc_field_layout l;
    assert_stenc_ok(stenc_field_get_layout(f, &l));
    const long n[3] = {(long)l.n[0], (long)l.n[1], (long)l.n[2]};
    ref_grid g = ref_alloc(l.dims, n, margin);
    for (long k = -g.m[2]; k < n[2] + g.m[2]; k++)
        for (long j = -g.m[1]; j < n[1] + g.m[1]; j++)
            for (long i = -g.m[0]; i < n[0] + g.m[0]; i++) {
                double x;
                assert_stenc_ok(stenc_field_get(f, i, j, k, &x));
                *ref_at(&g, i, j, k) = x;
            }
    return g;
}

/* One 1-D full-weighting pass along `axis`: out(..I..) = (in(2I+s-1) + 2 in(2I+s) +
 * in(2I+s+1)) / 4. For the vertex grid only 1 <= I <= nc-2 is computed (the rest stays 0;
 * those points are injected by the caller). */
static inline void ref_fw_pass(ref_grid *in, ref_grid *out, int axis, long s, int vertex) {
    for (long k = 0; k < out->n[2]; k++)
        for (long j = 0; j < out->n[1]; j++)
            for (long i = 0; i < out->n[0]; i++) {
                long c[3] = {i, j, k};
                long I = c[axis];
                if (vertex && (I == 0 || I == out->n[axis] - 1)) continue;
                long f[3] = {i, j, k};
                long double sum = 0;
                for (long d = -1; d <= 1; d++) {
                    f[axis] = 2 * I + s + d;
                    sum += (d == 0 ? 2.0L : 1.0L) * *ref_at(in, f[0], f[1], f[2]);
                }
                *ref_at(out, i, j, k) = sum / 4;
            }
}

/* Reference restriction of fine (a host field) to the coarse extents nc. */
static inline ref_grid ref_restrict(const stenc_field *fine, int dims, const long nc[3],
                                    stenc_mg_grid grid, stenc_mg_restriction op) {
    const long s = grid == STENC_MG_GRID_INTERIOR ? 1 : 0;
    const int vertex = grid == STENC_MG_GRID_VERTEX;
    ref_grid f = ref_from_field(fine, 0);
    ref_grid out = ref_alloc(dims, nc, 0);
    if (op == STENC_MG_FULL_WEIGHTING) {
        ref_grid cur = f;
        for (int axis = 0; axis < dims; axis++) {
            long n[3] = {cur.n[0], cur.n[1], cur.n[2]};
            n[axis] = nc[axis];
            ref_grid next = ref_alloc(dims, n, 0);
            ref_fw_pass(&cur, &next, axis, s, vertex);
            if (cur.v != f.v) free(cur.v);
            cur = next;
        }
        memcpy(out.v, cur.v, (size_t)(nc[0] * nc[1] * nc[2]) * sizeof *out.v);
        if (cur.v != f.v) free(cur.v);
    }
    for (long k = 0; k < nc[2]; k++)
        for (long j = 0; j < nc[1]; j++)
            for (long i = 0; i < nc[0]; i++) {
                const long c[3] = {i, j, k};
                int inject = op == STENC_MG_INJECTION;
                for (int d = 0; d < dims; d++)
                    if (vertex && (c[d] == 0 || c[d] == nc[d] - 1)) inject = 1;
                if (inject)
                    *ref_at(&out, i, j, k) =
                        *ref_at(&f, dims > 0 ? 2 * i + s : 0, dims > 1 ? 2 * j + s : 0,
                                dims > 2 ? 2 * k + s : 0);
            }
    free(f.v);
    return out;
}

/* Reference prolongation: every coarse point (the halo ring -1 and nc too on the interior
 * grid) distributes its value to the fine points within one fine step, with weight
 * prod (1 - |d|/2). Returns the increment for the fine interior. */
static inline ref_grid ref_prolong(const stenc_field *coarse, int dims, const long nf[3],
                                   stenc_mg_grid grid) {
    const long s = grid == STENC_MG_GRID_INTERIOR ? 1 : 0;
    const int vertex = grid == STENC_MG_GRID_VERTEX;
    ref_grid c = ref_from_field(coarse, vertex ? 0 : 1);
    ref_grid out = ref_alloc(dims, nf, 0);
    for (long K = -c.m[2]; K < c.n[2] + c.m[2]; K++)
        for (long J = -c.m[1]; J < c.n[1] + c.m[1]; J++)
            for (long I = -c.m[0]; I < c.n[0] + c.m[0]; I++) {
                long double v = *ref_at(&c, I, J, K);
                const long C[3] = {I, J, K};
                for (long dk = -(dims > 2); dk <= (dims > 2); dk++)
                    for (long dj = -(dims > 1); dj <= (dims > 1); dj++)
                        for (long di = -1; di <= 1; di++) {
                            const long d[3] = {di, dj, dk};
                            long f[3];
                            long double w = 1;
                            int skip = 0;
                            for (int a = 0; a < 3; a++) {
                                if (a >= dims) {
                                    f[a] = 0;
                                    continue;
                                }
                                f[a] = 2 * C[a] + s + d[a];
                                if (f[a] < 0 || f[a] >= nf[a]) skip = 1;
                                if (vertex && (f[a] == 0 || f[a] == nf[a] - 1)) skip = 1;
                                w *= d[a] == 0 ? 1.0L : 0.5L;
                            }
                            if (!skip) *ref_at(&out, f[0], f[1], f[2]) += w * v;
                        }
            }
    free(c.v);
    return out;
}

/* Neumaier summation in long double: with 64-bit significands, far below a double's ulp. */
typedef struct ref_sum {
    long double s, c;
} ref_sum;

static inline void ref_sum_add(ref_sum *r, long double x) {
    long double t = r->s + x;
    if (fabsl(r->s) >= fabsl(x))
        r->c += (r->s - t) + x;
    else
        r->c += (x - t) + r->s;
    r->s = t;
}

/* Add the exact product x*y of two doubles: split each into a float-sized head and a tail
 * (at most 30 bits), so that the four partial products are exact in long double. */
static inline void ref_sum_add_product(ref_sum *r, double x, double y) {
    double xh = (double)(float)x, xl = x - xh;
    double yh = (double)(float)y, yl = y - yh;
    ref_sum_add(r, (long double)xh * yh);
    ref_sum_add(r, (long double)xh * yl);
    ref_sum_add(r, (long double)xl * yh);
    ref_sum_add(r, (long double)xl * yl);
}

#endif /* STENC_TEST_MG_REFERENCE_H */
