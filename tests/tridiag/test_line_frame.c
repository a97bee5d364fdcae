/* What the GPU kernels of line solves find from an index alone (runtime/tridiag/
 * lines_internal.h), against a walk of the whole allocation that classifies each element by
 * its (i, j, k) from stenc/field.h's layout: the numbering of the positions around a field's
 * interior (lns_frame_at, a thread per position), the non-interior positions (identity
 * equations) and v's halo (the write-back), each in allocation order, with their columns; and
 * the kind of every element of the lines the transposing kernels walk (lns_kind), along j and
 * k. 1-, 2- and 3-D fields, float and double (different row alignments), halos 1 to 3,
 * extents 1, 2, primes and 2^k +- 1. */
#include "lines_internal.h"
#include "test_util.h"

enum { LF_INTERIOR = LNS_INTERIOR, LF_HALO = LNS_HALO, LF_PADDING = LNS_PADDING };

/* What element q of a field of layout L is, from its coordinates. */
static int lf_kind(const stenc_field_layout *L, size_t q) {
    const size_t pitch = (size_t)L->stride[1], plane = (size_t)L->stride[2];
    const long h = L->halo, lead = (long)(L->origin_elems % pitch);
    const long i = (long)(q % pitch) - lead;
    const long j = (long)(q % plane / pitch) - (L->dims >= 2 ? h : 0);
    const long k = (long)(q / plane) - (L->dims >= 3 ? h : 0);
    if (i >= 0 && i < (long)L->n[0] && j >= 0 && j < (long)L->n[1] && k >= 0 && k < (long)L->n[2])
        return LF_INTERIOR;
    return i >= -h && i < (long)L->n[0] + h ? LF_HALO : LF_PADDING;
}

/* Frame f numbers exactly the elements whose kind is in `kinds` (bits), in allocation order. */
static void lf_check(const stenc_field_layout *L, const lns_frame *f, unsigned kinds,
                     const char *what) {
    const size_t pitch = (size_t)L->stride[1];
    size_t t = 0;
    for (size_t q = 0; q < L->alloc_elems; q++) {
        if (!(kinds >> lf_kind(L, q) & 1)) continue;
        if (t >= f->count)
            fail_msg("%s %d-D %zux%zux%zu halo %d %s: %zu positions, but element %zu is one", what,
                     L->dims, L->n[0], L->n[1], L->n[2], L->halo, stenc_type_name(L->type),
                     f->count, q);
        size_t col = SIZE_MAX;
        const size_t got = lns_frame_at(f, t, &col);
        if (got != q || col != q % pitch)
            fail_msg("%s %d-D %zux%zux%zu halo %d %s: position %zu is element %zu (column %zu), "
                     "expected %zu (column %zu)",
                     what, L->dims, L->n[0], L->n[1], L->n[2], L->halo, stenc_type_name(L->type), t,
                     got, col, q, q % pitch);
        t++;
    }
    if (t != f->count)
        fail_msg("%s %d-D %zux%zux%zu halo %d %s: %zu positions, expected %zu", what, L->dims,
                 L->n[0], L->n[1], L->n[2], L->halo, stenc_type_name(L->type), f->count, t);
}

/* lns_kind of every element of lines l (element i of line s at i * batch + s) is its kind. */
static void lf_check_lines(const stenc_field_layout *L, const lns_geometry *g, size_t n,
                           size_t batch) {
    assert_int_equal(n * batch, L->alloc_elems);
    assert_int_equal(batch % g->pitch, 0);
    for (size_t i = 0; i < n; i++)
        for (size_t s = 0; s < batch; s++) {
            const uint32_t row = (uint32_t)(i * (batch / g->pitch) + s / g->pitch);
            const int got = lns_kind(g, row, s % g->pitch), want = lf_kind(L, i * batch + s);
            if (got != want)
                fail_msg("lines %zu x %zu of %d-D %zux%zux%zu halo %d: element %zu of line %zu "
                         "is kind %d, expected %d",
                         n, batch, L->dims, L->n[0], L->n[1], L->n[2], L->halo, i, s, got, want);
        }
}

static void test_frames(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    static const size_t sizes[] = {1, 2, 3, 7, 15, 16, 17, 31, 33};
    const size_t ns = sizeof sizes / sizeof *sizes;
    int cases = 0;
    for (int dims = 1; dims <= 3; dims++)
        for (int ti = STENC_F32; ti <= STENC_F64; ti++)
            for (int halo = 1; halo <= 3; halo++)
                for (size_t a = 0; a < ns; a++)
                    for (size_t b = 0; b < (dims >= 2 ? ns : 1); b++)
                        for (size_t c = 0; c < (dims >= 3 ? ns : 1); c += 2) {
                            const size_t n[3] = {sizes[a], dims >= 2 ? sizes[b] : 1,
                                                 dims >= 3 ? sizes[c] : 1};
                            stenc_field *f = NULL;
                            assert_stenc_ok(stenc_field_create(ctx, &f, (stenc_type)ti, dims, n[0],
                                                               n[1], n[2], halo));
                            stenc_field_layout L;
                            assert_stenc_ok(stenc_field_get_layout(f, &L));
                            const lns_geometry g = lns_geometry_of(&L);
                            const lns_frame outside = lns_frame_outside(&g);
                            const lns_frame halo_frame = lns_frame_halo(&g);
                            lf_check(&L, &outside, 1u << LF_HALO | 1u << LF_PADDING, "outside");
                            lf_check(&L, &halo_frame, 1u << LF_HALO, "halo");
                            lf_check_lines(&L, &g, g.rows * g.planes, g.pitch); /* j */
                            if (dims == 3)                                      /* k */
                                lf_check_lines(&L, &g, g.planes, g.pitch * g.rows);
                            stenc_field_free(f);
                            cases++;
                        }
    assert_true(cases > 1000);
    stenc_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_frames)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
