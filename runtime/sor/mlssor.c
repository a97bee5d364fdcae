/* MLSSOR, the C half: checks, dispatch, and the OpenMP sweep (the tiles of a phase in
 * parallel, each tile in place on the field: tiles of one phase touch disjoint points). */
#include <math.h>

#include "../field/field_internal.h"
#include "mlssor_internal.h"

#define MLS_FN "stenc_mlssor_sweep"

/* One tile of the phase with classes (ci, cj): its layers in order, each in lexicographic
 * order of the logical grid. */
#define MLS_DEFINE_TILE(T, SUF)                                                                    \
    static void tile_##SUF(const mls_sweep *s, int ci, int cj, long p, long q) {                   \
        T *u = (T *)s->u;                                                                          \
        const T *f = (const T *)s->f;                                                              \
        const T a = (T)(1.0 - s->omega), b = (T)(s->omega * 0.25), h2 = (T)s->h2;                  \
        const ptrdiff_t pu = s->pitch_u, pf = s->pitch_f;                                          \
        for (long d = 0; d < s->K; d++) {                                                          \
            long ilo, ihi, jlo, jhi;                                                               \
            mls_interval(s->n, ci, p, d, &ilo, &ihi);                                              \
            mls_interval(s->n, cj, q, d, &jlo, &jhi);                                              \
            mls_clip(s->ox, s->nx, &ilo, &ihi);                                                    \
            mls_clip(s->oy, s->ny, &jlo, &jhi);                                                    \
            for (long lj = jlo; lj <= jhi; lj++) {                                                 \
                const long y = s->backward ? s->ny - 1 - lj : lj;                                  \
                T *row = u + y * pu;                                                               \
                const T *frow = f ? f + y * pf : NULL;                                             \
                for (long li = ilo; li <= ihi; li++) {                                             \
                    const long x = s->backward ? s->nx - 1 - li : li;                              \
                    T t = frow ? h2 * frow[x] : (T)0;                                              \
                    t = t + row[x - 1];                                                            \
                    t = t + row[x + 1];                                                            \
                    t = t + row[x - pu];                                                           \
                    t = t + row[x + pu];                                                           \
                    row[x] = a * row[x] + b * t;                                                   \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
MLS_DEFINE_TILE(float, f32)
MLS_DEFINE_TILE(double, f64)

static void sweep_cpu(const mls_sweep *s) {
    for (int phase = s->phase_lo; phase < s->phase_hi; phase++) {
        const int ci = mls_phase_class(phase, 0), cj = mls_phase_class(phase, 1);
        long p0, p1, q0, q1;
        mls_tile_range(s->n, s->K, ci, s->ox, s->nx, &p0, &p1);
        mls_tile_range(s->n, s->K, cj, s->oy, s->ny, &q0, &q1);
        const long np = p1 - p0 + 1;
        if (np <= 0 || q1 < q0) continue; /* no tile of this phase meets the grid */
        const long count = np * (q1 - q0 + 1);
#pragma omp parallel for schedule(static)
        for (long t = 0; t < count; t++) {
            if (s->type == STENC_F32)
                tile_f32(s, ci, cj, p0 + t % np, q0 + t / np);
            else
                tile_f64(s, ci, cj, p0 + t % np, q0 + t / np);
        }
    }
}

static stenc_status check_field(const stenc_field *fld, const char *what) {
    STENC_TRY(stenc_field_check(fld, MLS_FN, what));
    if (fld->parent)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "%s: %s is a view; MLSSOR runs on whole fields",
                           MLS_FN, what);
    const stenc_field_layout *l = &fld->layout;
    if (l->dims != 2)
        return STENC_ERROR(STENC_ERR_SHAPE, "%s: %s is %d-D; MLSSOR is 2-D", MLS_FN, what, l->dims);
    if (l->type != STENC_F32 && l->type != STENC_F64)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "%s: %s has type %s; only float and double",
                           MLS_FN, what, stenc_type_name(l->type));
    return STENC_OK;
}

static void *origin_of(const stenc_field *fld) {
    return fld->location == STENC_ON_DEVICE ? stenc_field_device_origin(fld)
                                            : stenc_field_host_origin(fld);
}

/* Everything one rank can check on its own. */
static stenc_status check_args(const stenc_field *u, const stenc_field *f, double h2, double omega,
                               long subdomain, int layers, stenc_sweep_dir dir) {
    STENC_TRY(check_field(u, "u"));
    if (f) STENC_TRY(check_field(f, "f"));
    STENC_REQUIRE(omega > 0 && omega < 2, "%s: omega is %g; SOR needs 0 < omega < 2", MLS_FN,
                  omega);
    STENC_REQUIRE(isfinite(h2) && h2 > 0, "%s: h2 is %g; it must be positive and finite", MLS_FN,
                  h2);
    STENC_REQUIRE(dir == STENC_SWEEP_FORWARD || dir == STENC_SWEEP_BACKWARD,
                  "%s: direction %d is neither STENC_SWEEP_FORWARD nor STENC_SWEEP_BACKWARD",
                  MLS_FN, (int)dir);
    /* 2^20: ample for any grid, and small enough that tile arithmetic stays far from overflow. */
    STENC_REQUIRE(subdomain >= 2 && subdomain <= (1L << 20),
                  "%s: subdomain is %ld; it must be 2..1048576", MLS_FN, subdomain);
    const long kmax = subdomain / 2;
    STENC_REQUIRE(layers >= 0 && layers <= kmax,
                  "%s: %d layers with subdomain %ld; a sweep takes 1..%ld layers (0: %ld)", MLS_FN,
                  layers, subdomain, kmax, kmax);
    const stenc_field_layout *lu = &u->layout;
    if (lu->halo < 1)
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "%s: u has halo 0, but MLSSOR reads the boundary values from its halo "
                           "(create it with halo 1 or more)",
                           MLS_FN);
    if (f) {
        STENC_REQUIRE(f->ctx == u->ctx, "%s: u and f belong to different contexts", MLS_FN);
        if (f->location != u->location)
            return STENC_ERROR(STENC_ERR_LOCATION, "%s: u lives on the %s but f on the %s", MLS_FN,
                               u->location == STENC_ON_DEVICE ? "device" : "host",
                               f->location == STENC_ON_DEVICE ? "device" : "host");
        if (f->layout.type != lu->type)
            return STENC_ERROR(STENC_ERR_SHAPE, "%s: u is %s but f is %s", MLS_FN,
                               stenc_type_name(lu->type), stenc_type_name(f->layout.type));
        if (f->layout.n[0] != lu->n[0] || f->layout.n[1] != lu->n[1])
            return STENC_ERROR(STENC_ERR_SHAPE, "%s: u is %zux%zu but f is %zux%zu", MLS_FN,
                               lu->n[0], lu->n[1], f->layout.n[0], f->layout.n[1]);
        if (stenc_field_decomp_signature(f) != stenc_field_decomp_signature(u))
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: u and f are not split alike over the same ranks (one of them "
                               "%s)",
                               MLS_FN,
                               stenc_field_decomp_signature(u) && stenc_field_decomp_signature(f)
                                   ? "has another decomposition"
                                   : "is distributed and the other not");
    }
    if (u->location == STENC_ON_DEVICE) STENC_TRY(stenc_ctx_require_cpu_or_cuda(u->ctx, MLS_FN));
    if (origin_of(u) == NULL || (f && origin_of(f) == NULL))
        return STENC_ERROR(STENC_ERR_INTERNAL, "%s: a field has no storage where it lives", MLS_FN);
    return STENC_OK;
}

static stenc_status run(const stenc_field *u, const mls_sweep *s) {
    if (u->location == STENC_ON_DEVICE) return mls_cuda_sweep(u->ctx, s);
    sweep_cpu(s);
    return STENC_OK;
}

/* The sweep of the part `u` of a distributed field, in groups of phases that share one halo
 * exchange (docs/sor.md, "On distributed fields"): after an exchange, each phase is run over
 * the part grown by `margin` points across every shared face, so that the tiles that reach into
 * this part are computed here in full, from the neighbours' values, exactly as the neighbour
 * computes them. A phase's result at a point depends on values at most n - 1 points away (its
 * tile and the ring around it), so `group` phases with group * (n - 1) <= margin + 1 leave this
 * part's own points exact. */
static stenc_status dist_sweep(stenc_field *u, const stenc_field *f, mls_sweep s) {
    const stenc_field_dist_ops *ops = stenc_field_dist_ops_of(u);
    size_t global[3];
    int periodic[3], shared[STENC_FACE_COUNT];
    ops->global_extent(u, global, periodic);
    ops->shared_faces(u, shared);
    stenc_status st = STENC_OK;
    if (periodic[0] || periodic[1])
        st = STENC_ERROR(STENC_ERR_UNSUPPORTED,
                         "%s: u's decomposition is periodic along %s; MLSSOR's boundary values "
                         "sit in a Dirichlet halo",
                         MLS_FN, periodic[0] ? "i" : "j");
    const long halo_u = (long)u->layout.halo, halo_f = f ? (long)f->layout.halo : halo_u;
    const long margin = mls_min(halo_u - 1, halo_f);
    const int any_shared = shared[0] || shared[1] || shared[2] || shared[3];
    /* Each phase moves the edge of what is exact n - 1 points inwards: from one past the margin
     * (the ring) to the part's first point takes margin + 1 points. */
    const long reach = s.n - 1;
    long group = any_shared ? mls_min((margin + 1) / reach, MLS_PHASES) : MLS_PHASES;
    if (st == STENC_OK && group < 1)
        st = STENC_ERROR(STENC_ERR_SHAPE,
                         "%s: subdomain %ld on a split grid needs halos of at least %ld on u and "
                         "%ld on f (%ld and %ld for one exchange per sweep); u's is %ld, f's %ld",
                         MLS_FN, s.n, reach, reach - 1, MLS_PHASES * reach, MLS_PHASES * reach - 1,
                         halo_u, f ? halo_f : 0L);
    STENC_TRY(ops->agree(u, st, MLS_FN));
    /* The box: the part, grown by the margin across shared faces. */
    long lo[2], count[2];
    for (int d = 0; d < 2; d++) {
        const long grow_lo = shared[2 * d] ? margin : 0, grow_hi = shared[2 * d + 1] ? margin : 0;
        lo[d] = -grow_lo;
        count[d] = (long)u->layout.n[d] + grow_lo + grow_hi;
        const long first = (long)u->index_offset[d] + lo[d]; /* global index of the box's start */
        const long o = s.backward ? (long)global[d] - (first + count[d]) : first;
        if (d == 0)
            s.nx = count[0], s.ox = o;
        else
            s.ny = count[1], s.oy = o;
    }
    const size_t elem = u->elem_size;
    s.u = (char *)s.u + (lo[0] + lo[1] * s.pitch_u) * (ptrdiff_t)elem;
    if (s.f) s.f = (const char *)s.f + (lo[0] + lo[1] * s.pitch_f) * (ptrdiff_t)elem;
    static const stenc_bc untouched[STENC_FACE_COUNT] = {{STENC_BC_NONE, 0}};
    for (int phase = 0; phase < MLS_PHASES; phase += (int)group) {
        s.phase_lo = phase;
        s.phase_hi = (int)mls_min(phase + group, MLS_PHASES);
        st = ops->exchange(u, untouched, 0);
        if (st == STENC_OK) st = run(u, &s);
        STENC_TRY(ops->agree(u, st, MLS_FN));
    }
    return STENC_OK;
}

stenc_status stenc_mlssor_sweep(stenc_field *u, const stenc_field *f, double h2, double omega,
                                long subdomain, int layers, stenc_sweep_dir dir) {
    STENC_REQUIRE(u, "%s: u is NULL", MLS_FN);
    const int distributed = stenc_field_decomp_signature(u) != 0;
    stenc_status st = check_args(u, f, h2, omega, subdomain, layers, dir);
    if (distributed) {
        const stenc_field_dist_ops *ops = stenc_field_dist_ops_of(u);
        if (!ops || !ops->agree)
            return STENC_ERROR(STENC_ERR_INTERNAL, "%s: u is distributed without its operations",
                               MLS_FN);
        STENC_TRY(ops->agree(u, st, MLS_FN));
    } else if (st != STENC_OK) {
        return st;
    }
    const stenc_field_layout *lu = &u->layout;
    mls_sweep s = {
        .nx = (long)lu->n[0],
        .ny = (long)lu->n[1],
        .ox = 0,
        .oy = 0,
        .phase_lo = 0,
        .phase_hi = MLS_PHASES,
        .pitch_u = lu->stride[1],
        .pitch_f = f ? f->layout.stride[1] : 0,
        .n = subdomain,
        .K = layers ? layers : (int)(subdomain / 2),
        .backward = dir == STENC_SWEEP_BACKWARD,
        .h2 = h2,
        .omega = omega,
        .type = lu->type,
        .u = origin_of(u),
        .f = f ? origin_of(f) : NULL,
    };
    return distributed ? dist_sweep(u, f, s) : run(u, &s);
}
