/* Helpers shared by the field tests on the CPU and on devices (CUDA, OpenCL): the halo box of
 * a field as a dense array of doubles, random contents, the halo-fill rule written as a
 * recursion (independently of the library's dimension-by-dimension loops), and the checks of
 * device-resident fields that every device kind runs. */
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
                if (got != want && !(isnan(got) && isnan(want))) /* NaN: a copied one */
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

/* ---- device-resident fields: the checks every device kind runs ------------------------------ */

static inline size_t field_alloc_bytes(const stenc_field *f) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    return L.alloc_elems * stenc_type_size(L.type);
}

/* Start of the whole host (device) allocation, halo and padding included. */
static inline char *field_host_base(const stenc_field *f) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    return (char *)stenc_field_host_origin(f) - L.origin_elems * stenc_type_size(L.type);
}
static inline char *field_device_base(const stenc_field *f) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    return (char *)stenc_field_device_origin(f) - L.origin_elems * stenc_type_size(L.type);
}

/* A round trip on ctx's device: what reaches the device is checked with a raw stenc_download
 * (not the field's own path), then the host copy is poisoned and the field downloaded back. */
static inline void field_device_round_trip(stenc_ctx *ctx, stenc_type type, int dims, size_t nx,
                                           size_t ny, size_t nz, int halo, test_rng *rng) {
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, type, dims, nx, ny, nz, halo));
    const size_t bytes = field_alloc_bytes(f);
    char *base = field_host_base(f);
    /* Random bytes over the whole allocation (a multiple of 128 bytes): halo and padding must
     * travel too. */
    for (size_t b = 0; b + 8 <= bytes; b += 8) {
        const uint64_t x = test_rng_u64(rng);
        memcpy(base + b, &x, 8);
    }
    char *saved = malloc(bytes), *raw = malloc(bytes);
    assert_non_null(saved);
    assert_non_null(raw);
    memcpy(saved, base, bytes);
    assert_null(stenc_field_device_origin(f)); /* no device copy before the first upload */
    assert_stenc_ok(stenc_field_upload(f));
    assert_int_equal(stenc_field_location(f), STENC_ON_DEVICE);
    char *dbase = field_device_base(f);
    assert_int_equal((uintptr_t)dbase % STENC_FIELD_ALIGN, 0);
    memset(raw, 0, bytes);
    assert_stenc_ok(stenc_download(ctx, raw, dbase, bytes));
    if (memcmp(raw, saved, bytes) != 0)
        fail_msg("upload of %zu bytes (%zux%zux%zu) differs", bytes, nx, ny, nz);
    memset(base, 0xA5, bytes);
    assert_stenc_ok(stenc_field_download(f));
    if (memcmp(base, saved, bytes) != 0)
        fail_msg("download of %zu bytes (%zux%zux%zu) differs", bytes, nx, ny, nz);
    /* The device copy is allocated once. */
    void *dorigin = stenc_field_device_origin(f);
    assert_stenc_ok(stenc_field_upload(f));
    assert_ptr_equal(stenc_field_device_origin(f), dorigin);
    assert_stenc_ok(stenc_field_download(f));
    free(saved);
    free(raw);
    assert_stenc_ok(stenc_field_free(f));
}

/* Values whose bits a fill must keep: signed zeros, subnormals, infinities, NaNs (one with a
 * payload, written as bits). Float and double fields only. */
static inline void field_plant_special_values(stenc_field *f) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    if (L.type != STENC_F32 && L.type != STENC_F64) return;
    const double specials[] = {-0.0, 1e-310, -1e-40, NAN, -NAN, INFINITY, -INFINITY};
    const long last[3] = {(long)L.n[0] - 1, (long)L.n[1] - 1, (long)L.n[2] - 1};
    for (size_t s = 0; s < sizeof specials / sizeof *specials; s++)
        assert_stenc_ok(stenc_field_set(f, s % 2 ? last[0] : 0, s % 3 ? last[1] : 0,
                                        s % 2 ? 0 : last[2], specials[s]));
    char *origin = stenc_field_host_origin(f);
    if (L.type == STENC_F32) {
        const uint32_t nan_bits = 0x7fc01234u;
        memcpy(origin, &nan_bits, 4);
    } else {
        const uint64_t nan_bits = 0x7ff8000000abcdefull;
        memcpy(origin, &nan_bits, 8);
    }
}

/* Halo fills on ctx's device against the recursion and, bit for bit, against the host fill:
 * every type, 1-3 dimensions, odd shapes (halo wider than the interior included), halos 1-3,
 * every HALO_BC_SETS combination. With `specials`, float fields also hold special values. */
static inline void field_device_halo_fills(stenc_ctx *ctx, int specials, const char *what) {
    static const stenc_type types[] = {STENC_F32, STENC_F64, STENC_I32, STENC_U8};
    static const size_t shapes[][3] = {{1, 1, 1}, {2, 3, 1}, {17, 2, 3}, {33, 7, 5}, {67, 13, 9}};
    static const int halos[] = {1, 2, 3};
    for (size_t t = 0; t < 4; t++)
        for (int dims = 1; dims <= 3; dims++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
                for (size_t h = 0; h < 3; h++)
                    for (int set = 0; set < HALO_BC_SETS; set++) {
                        const size_t n[3] = {shapes[s][0], dims >= 2 ? shapes[s][1] : 1,
                                             dims >= 3 ? shapes[s][2] : 1};
                        stenc_field *dev, *host;
                        assert_stenc_ok(stenc_field_create(ctx, &dev, types[t], dims, n[0], n[1],
                                                           n[2], halos[h]));
                        assert_stenc_ok(stenc_field_create(ctx, &host, types[t], dims, n[0], n[1],
                                                           n[2], halos[h]));
                        test_rng r1 = test_rng_seeded(100 + set), r2 = r1;
                        field_randomize(dev, &r1);
                        field_randomize(host, &r2);
                        if (specials) {
                            field_plant_special_values(dev);
                            field_plant_special_values(host);
                        }
                        field_box box = field_box_of(dev);
                        double *before = field_box_read(dev, &box);
                        stenc_bc bc[STENC_FACE_COUNT];
                        halo_bc_set_for(types[t], set, bc);
                        assert_stenc_ok(stenc_field_upload(dev));
                        assert_int_equal(stenc_field_location(dev), STENC_ON_DEVICE);
                        assert_stenc_ok(stenc_field_fill_halo(dev, bc));
                        assert_stenc_ok(stenc_field_fill_halo(host, bc));
                        assert_stenc_ok(stenc_field_download(dev));
                        assert_int_equal(stenc_field_location(dev), STENC_ON_HOST);
                        check_halo_fill(dev, before, bc, what);
                        if (memcmp(field_host_base(dev), field_host_base(host),
                                   field_alloc_bytes(dev)) != 0)
                            fail_msg("%s: %s %dD %zux%zux%zu halo %d set %d: the bits differ from "
                                     "the host fill's",
                                     what, stenc_type_name(types[t]), dims, n[0], n[1], n[2],
                                     halos[h], set);
                        free(before);
                        assert_stenc_ok(stenc_field_free(dev));
                        assert_stenc_ok(stenc_field_free(host));
                    }
}

#endif /* STENC_FIELD_TEST_UTIL_H */
