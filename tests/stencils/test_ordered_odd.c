/* Ordered sweeps whose DOACROSS kernel stages and exchanges in unusual amounts
 * (ordered_odd.stencil): two inouts and an input read in rows before and after the point
 * (backward, float); a lower-dimensional input and an integer mask (forward, double); radius 3;
 * an output, a staggered input and an old read a row after and a column before (backward,
 * float). The reference is the C target's sequential loop with one thread (test_ordered checks
 * that loop against loops written by hand). On the host: 2 and 3 threads (the tiled wavefront);
 * with "gpu": every CUDA variant; with "opencl": the OpenCL wavefront. Bit for bit, interior and
 * halo, after several sweeps, at odd sizes: rows longer than the kernel's windows, several
 * bands of 64 and of 128 rows, short last bands, one row, one column. */
#include <omp.h>
#include <string.h>

#include "lowdim_mask.h"
#include "point_check.h"
#include "stag_out.h"
#include "two_inouts.h"
#include "wide_r3.h"

static stenc_device device_kind = STENC_DEVICE_CPU;

enum { SWEEPS = 3 };
static const size_t sizes[][2] = {{37, 23}, {300, 97}, {1, 40}, {70, 1}, {131, 64}, {45, 261}};

/* The fields of one stencil's case, made alike (same seeds) on `ctx`. */
typedef struct odd_case {
    stenc_field *f[4];
    int nf;
} odd_case;

static odd_case make_case(stenc_ctx *ctx, int which, size_t ni, size_t nj, uint64_t seed) {
    odd_case c = {{NULL, NULL, NULL, NULL}, 0};
    if (which == 0) { /* two_inouts: f (halo 2), a, b */
        c.f[c.nf++] = point_make(ctx, STENC_F32, 2, ni, nj, 1, 2, -1, 1, seed);
        c.f[c.nf++] = point_make(ctx, STENC_F32, 2, ni, nj, 1, 1, -1, 1, seed + 1);
        c.f[c.nf++] = point_make(ctx, STENC_F32, 2, ni, nj, 1, 2, -1, 1, seed + 2);
    } else if (which == 1) { /* lowdim_mask: dx[i] (halo 1), mask (no halo), u */
        c.f[c.nf++] = point_make(ctx, STENC_F64, 1, ni, 1, 1, 1, 0.5, 2, seed);
        c.f[c.nf++] = point_make(ctx, STENC_U8, 2, ni, nj, 1, 0, 0, 3, seed + 1);
        c.f[c.nf++] = point_make(ctx, STENC_F64, 2, ni, nj, 1, 1, -1, 1, seed + 2);
    } else if (which == 2) { /* wide_r3: u (halo 3) */
        c.f[c.nf++] = point_make(ctx, STENC_F64, 2, ni, nj, 1, 3, -1, 1, seed);
    } else { /* stag_out: dx[i] (no halo), c[i+1, j] (no halo), u, r */
        c.f[c.nf++] = point_make(ctx, STENC_F32, 1, ni, 1, 1, 0, 0.5, 2, seed);
        c.f[c.nf++] = point_make(ctx, STENC_F32, 2, ni + 1, nj, 1, 0, -1, 1, seed + 1);
        c.f[c.nf++] = point_make(ctx, STENC_F32, 2, ni, nj, 1, 1, -1, 1, seed + 2);
        c.f[c.nf++] = point_make(ctx, STENC_F32, 2, ni, nj, 1, 0, -1, 1, seed + 3);
    }
    return c;
}

static stenc_status sweep(stenc_ctx *ctx, int which, const char *variant, odd_case *c) {
    if (which == 0) return two_inouts_variant(ctx, variant, c->f[0], c->f[1], c->f[2]);
    if (which == 1) return lowdim_mask_variant(ctx, variant, c->f[0], c->f[1], c->f[2]);
    if (which == 2) return wide_r3_variant(ctx, variant, c->f[0]);
    return stag_out_variant(ctx, variant, c->f[0], c->f[1], c->f[2], c->f[3]);
}

static const char *variant_name(int which, int v) {
    return which == 0   ? two_inouts_variant_name(v)
           : which == 1 ? lowdim_mask_variant_name(v)
           : which == 2 ? wide_r3_variant_name(v)
                        : stag_out_variant_name(v);
}

static void test_ordered_odd(void **state) {
    (void)state;
    static const char *const names[] = {"two_inouts", "lowdim_mask", "wide_r3", "stag_out"};
    stenc_ctx *ctx = NULL, *host = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device_kind), STENC_OK);
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    const int on_device = device_kind != STENC_DEVICE_CPU;
    for (int which = 0; which < 4; which++) {
        /* the runs: 2 and 3 host threads, CUDA's variants, or OpenCL's default */
        int runs = on_device ? 1 : 2;
        if (device_kind == STENC_DEVICE_CUDA)
            for (runs = 0; variant_name(which, runs);)
                runs++;
        for (int v = 0; v < runs; v++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                const size_t ni = sizes[s][0], nj = sizes[s][1];
                const char *variant =
                    device_kind == STENC_DEVICE_CUDA ? variant_name(which, v) : NULL;
                const uint64_t seed = 1000 + 10 * s + 100 * (uint64_t)which;
                odd_case got = make_case(ctx, which, ni, nj, seed);
                odd_case want = make_case(host, which, ni, nj, seed);
                for (int sweep_no = 0; sweep_no < SWEEPS; sweep_no++) {
                    omp_set_num_threads(on_device ? 1 : v + 2);
                    assert_int_equal(sweep(ctx, which, variant, &got), STENC_OK);
                    omp_set_num_threads(1);
                    assert_int_equal(sweep(host, which, NULL, &want), STENC_OK);
                }
                for (int q = 0; q < got.nf; q++) {
                    if (on_device) assert_int_equal(stenc_field_download(got.f[q]), STENC_OK);
                    char what[128];
                    snprintf(what, sizeof what, "%s %zux%zu field %d (%s, run %d)", names[which],
                             ni, nj, q, variant ? variant : "default", v);
                    assert_true(point_same(got.f[q], want.f[q], 1, what));
                    stenc_field_free(got.f[q]), stenc_field_free(want.f[q]);
                }
            }
    }
    stenc_ctx_destroy(host);
    stenc_ctx_destroy(ctx);
}

int main(int argc, char **argv) {
    const int on_device = point_device_arg(argc, argv, &device_kind);
    if (on_device == STENC_TEST_SKIP) return STENC_TEST_SKIP;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_ordered_odd)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
