/* Helpers shared by the CPU and GPU field tests: the halo box of a field as a dense array of
 * doubles, random contents, and the halo-fill rule written as a recursion (independently of
 * the library's dimension-by-dimension loops). */
#ifndef STENC_FIELD_TEST_UTIL_H
#define STENC_FIELD_TEST_UTIL_H

#include "test_util.h"

/* The box interior+halo of a field: extents, halo per dimension, and a dense index. */
typedef struct field_box {
    long n[3], h[3], len[3];
    size_t count;
} field_box;

static inline field_box field_box_of(const stenc_field *field) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(field, &L));
    field_box box;
    box.count = 1;
    for (int d = 0; d < 3; d++) {
        box.n[d] = (long)L.n[d];
        box.h[d] = d < L.dims ? L.halo : 0;
        box.len[d] = box.n[d] + 2 * box.h[d];
        box.count *= (size_t)box.len[d];
    }
    return box;
}

static inline size_t field_box_index(const field_box *box, long i, long j, long k) {
    return (size_t)((i + box->h[0]) +
                    box->len[0] * ((j + box->h[1]) + box->len[1] * (k + box->h[2])));
}

/* Read every point of interior and halo through stenc_field_get. */
static inline double *field_box_read(const stenc_field *field, const field_box *box) {
    double *v = malloc(box->count * sizeof *v);
    assert_non_null(v);
    for (long k = -box->h[2]; k < box->n[2] + box->h[2]; k++)
        for (long j = -box->h[1]; j < box->n[1] + box->h[1]; j++)
            for (long i = -box->h[0]; i < box->n[0] + box->h[0]; i++)
                assert_stenc_ok(stenc_field_get(field, i, j, k, &v[field_box_index(box, i, j, k)]));
    return v;
}

/* Random values everywhere, halo included, so that untouched halo points are recognisable:
 * in [-1, 1) for float and double fields, whole numbers of the type for integer ones. */
static inline void field_randomize(stenc_field *field, test_rng *rng) {
    field_box box = field_box_of(field);
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(field, &L));
    const int whole = L.type == STENC_I32 || L.type == STENC_U8;
    const double lo = L.type == STENC_U8 ? 0 : -100000, hi = L.type == STENC_U8 ? 256 : 100000;
    for (long k = -box.h[2]; k < box.n[2] + box.h[2]; k++)
        for (long j = -box.h[1]; j < box.n[1] + box.h[1]; j++)
            for (long i = -box.h[0]; i < box.n[0] + box.h[0]; i++)
                assert_stenc_ok(stenc_field_set(field, i, j, k,
                                                whole ? floor(test_rng_uniform(rng, lo, hi))
                                                      : test_rng_uniform(rng, -1, 1)));
}

/* The value the halo fill must leave at p, from the values before the fill (`before`): the
 * rule of the highest dimension in whose halo p lies (and whose face is not NONE), applied
 * to the point it refers to, recursively. `round` rounds a Dirichlet value to the type. */
static inline double halo_expected(const field_box *box, const double *before,
                                   const stenc_bc bc[STENC_FACE_COUNT], long p[3],
                                   double (*round)(double)) {
    for (int d = 2; d >= 0; d--) {
        if (p[d] >= 0 && p[d] < box->n[d]) continue;
        const stenc_bc *face = &bc[2 * d + (p[d] < 0 ? 0 : 1)];
        if (face->kind == STENC_BC_NONE) continue;
        if (face->kind == STENC_BC_DIRICHLET) return round(face->value);
        long q[3] = {p[0], p[1], p[2]};
        if (face->kind == STENC_BC_NEUMANN)
            q[d] = p[d] < 0 ? 0 : box->n[d] - 1;
        else
            q[d] = ((p[d] % box->n[d]) + box->n[d]) % box->n[d];
        return halo_expected(box, before, bc, q, round);
    }
    return before[field_box_index(box, p[0], p[1], p[2])];
}

static inline double round_f32(double x) {
    return (double)(float)x;
}
static inline double round_f64(double x) {
    return x;
}

/* Compare every point of the field against halo_expected; fail with the first mismatch. */
static inline void check_halo_fill(const stenc_field *field, const double *before,
                                   const stenc_bc bc[STENC_FACE_COUNT], const char *what) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(field, &L));
    field_box box = field_box_of(field);
    double *after = field_box_read(field, &box);
    double (*round)(double) = L.type == STENC_F32 ? round_f32 : round_f64;
    for (long k = -box.h[2]; k < box.n[2] + box.h[2]; k++)
        for (long j = -box.h[1]; j < box.n[1] + box.h[1]; j++)
            for (long i = -box.h[0]; i < box.n[0] + box.h[0]; i++) {
                long p[3] = {i, j, k};
                double want = halo_expected(&box, before, bc, p, round);
                double got = after[field_box_index(&box, i, j, k)];
                if (got != want)
                    fail_msg("%s: %s %dD %ldx%ldx%ld halo %d: point (%ld,%ld,%ld) is %.17g, "
                             "expected %.17g",
                             what, stenc_type_name(L.type), L.dims, box.n[0], box.n[1], box.n[2],
                             L.halo, i, j, k, got, want);
            }
    free(after);
}

/* A set of boundary conditions for the halo tests: each combination mixes kinds. Dirichlet
 * values are distinct per face; for integer fields (halo_bc_set_for) whole numbers. */
enum { HALO_BC_SETS = 5 };
static inline void halo_bc_set(int which, stenc_bc bc[STENC_FACE_COUNT]);
static inline void halo_bc_set_for(stenc_type type, int which, stenc_bc bc[STENC_FACE_COUNT]) {
    halo_bc_set(which, bc);
    if (type == STENC_I32 || type == STENC_U8)
        for (int f = 0; f < STENC_FACE_COUNT; f++)
            bc[f].value = 3 + 7 * f + which;
}
static inline void halo_bc_set(int which, stenc_bc bc[STENC_FACE_COUNT]) {
    static const stenc_bc_kind kinds[HALO_BC_SETS][STENC_FACE_COUNT] = {
        {STENC_BC_DIRICHLET, STENC_BC_DIRICHLET, STENC_BC_DIRICHLET, STENC_BC_DIRICHLET,
         STENC_BC_DIRICHLET, STENC_BC_DIRICHLET},
        {STENC_BC_NEUMANN, STENC_BC_NEUMANN, STENC_BC_NEUMANN, STENC_BC_NEUMANN, STENC_BC_NEUMANN,
         STENC_BC_NEUMANN},
        {STENC_BC_PERIODIC, STENC_BC_PERIODIC, STENC_BC_PERIODIC, STENC_BC_PERIODIC,
         STENC_BC_PERIODIC, STENC_BC_PERIODIC},
        {STENC_BC_DIRICHLET, STENC_BC_NEUMANN, STENC_BC_PERIODIC, STENC_BC_PERIODIC, STENC_BC_NONE,
         STENC_BC_DIRICHLET},
        {STENC_BC_PERIODIC, STENC_BC_PERIODIC, STENC_BC_NONE, STENC_BC_NEUMANN, STENC_BC_DIRICHLET,
         STENC_BC_NONE},
    };
    for (int f = 0; f < STENC_FACE_COUNT; f++) {
        bc[f].kind = kinds[which][f];
        bc[f].value = 0.1 + 0.7 * f + 0.01 * which; /* distinct per face, not exact in float */
    }
}

#endif /* STENC_FIELD_TEST_UTIL_H */
