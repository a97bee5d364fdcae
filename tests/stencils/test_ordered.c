/* Ordered sweeps (stencils/ordered.stencil) against the sequential loop nest written here
 * (PolyBench's seidel-2d; a backward Gauss-Seidel sweep in 3-D), every point bit for bit
 * (both built without contraction), at odd sizes, on random data with random halos, several
 * sweeps: with one OpenMP thread (the generated loop) and with several (the wavefront); and a
 * backward radius-2 sweep in 2-D. With argument "gpu" or "opencl": every CUDA variant (the
 * DOACROSS bands, the launch per hyperplane) or the OpenCL wavefront against the host loop
 * (exit 77 without such a device). */
#include <omp.h>
#include <string.h>

#include "gs7_backward.h"
#include "point_check.h"
#include "seidel2d.h"
#include "sor_lex.h"
#include "star2_backward.h"

static const int thread_counts[] = {1, 2, 3};

static void test_seidel2d(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, STENC_DEVICE_CPU), STENC_OK);
    const size_t sizes[][2] = {{37, 23}, {1, 9}, {8, 1}, {101, 64}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
            const long ni = (long)sizes[s][0], nj = (long)sizes[s][1];
            stenc_field *a, *want;
            assert_int_equal(
                stenc_field_create(ctx, &a, STENC_F64, 2, (size_t)ni, (size_t)nj, 1, 1), STENC_OK);
            assert_int_equal(
                stenc_field_create(ctx, &want, STENC_F64, 2, (size_t)ni, (size_t)nj, 1, 1),
                STENC_OK);
            test_rng r1 = test_rng_seeded(30 + s), r2 = r1;
            point_fill(a, &r1, -1, 1);
            point_fill(want, &r2, -1, 1);
            for (int sweep = 0; sweep < 3; sweep++) {
                /* PolyBench seidel-2d, its row index j slowest */
                for (long j = 0; j < nj; j++)
                    for (long i = 0; i < ni; i++)
                        stenc_field_set(
                            want, i, j, 0,
                            (point_at(want, i - 1, j - 1, 0) + point_at(want, i, j - 1, 0) +
                             point_at(want, i + 1, j - 1, 0) + point_at(want, i - 1, j, 0) +
                             point_at(want, i, j, 0) + point_at(want, i + 1, j, 0) +
                             point_at(want, i - 1, j + 1, 0) + point_at(want, i, j + 1, 0) +
                             point_at(want, i + 1, j + 1, 0)) /
                                9.0);
                omp_set_num_threads(thread_counts[t]);
                assert_int_equal(seidel2d(ctx, a), STENC_OK);
            }
            char what[96];
            snprintf(what, sizeof what, "seidel2d %ldx%ld, %d thread(s)", ni, nj, thread_counts[t]);
            assert_true(point_same(a, want, 1, what));
            stenc_field_free(a);
            stenc_field_free(want);
        }
    stenc_ctx_destroy(ctx);
}

/* star2_backward's loop: rows and points in decreasing order, radius 2 both ways. */
static void star2_loop(stenc_field *u, long ni, long nj) {
    for (long j = nj - 1; j >= 0; j--)
        for (long i = ni - 1; i >= 0; i--)
            stenc_field_set(u, i, j, 0,
                            0.125 * (point_at(u, i - 2, j, 0) + point_at(u, i - 1, j, 0) +
                                     point_at(u, i + 1, j, 0) + point_at(u, i + 2, j, 0) +
                                     point_at(u, i, j - 2, 0) + point_at(u, i, j - 1, 0) +
                                     point_at(u, i, j + 1, 0) + point_at(u, i, j + 2, 0)));
}

static void test_star2_backward(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, STENC_DEVICE_CPU), STENC_OK);
    const size_t sizes[][2] = {{37, 23}, {1, 9}, {8, 1}, {70, 67}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
            const long ni = (long)sizes[s][0], nj = (long)sizes[s][1];
            stenc_field *u, *want;
            assert_int_equal(
                stenc_field_create(ctx, &u, STENC_F64, 2, (size_t)ni, (size_t)nj, 1, 2), STENC_OK);
            assert_int_equal(
                stenc_field_create(ctx, &want, STENC_F64, 2, (size_t)ni, (size_t)nj, 1, 2),
                STENC_OK);
            test_rng r1 = test_rng_seeded(40 + s), r2 = r1;
            point_fill(u, &r1, -1, 1);
            point_fill(want, &r2, -1, 1);
            for (int sweep = 0; sweep < 2; sweep++) {
                star2_loop(want, ni, nj);
                omp_set_num_threads(thread_counts[t]);
                assert_int_equal(star2_backward(ctx, u), STENC_OK);
            }
            char what[96];
            snprintf(what, sizeof what, "star2_backward %ldx%ld, %d thread(s)", ni, nj,
                     thread_counts[t]);
            assert_true(point_same(u, want, 1, what));
            stenc_field_free(u);
            stenc_field_free(want);
        }
    stenc_ctx_destroy(ctx);
}

static void test_gs7_backward(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, STENC_DEVICE_CPU), STENC_OK);
    /* the last: several tiles of the host's tiled wavefront along t and k */
    const size_t sizes[][3] = {{13, 7, 9}, {1, 1, 5}, {33, 4, 3}, {150, 9, 37}};
    const double h2 = 0.01;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
            const long ni = (long)sizes[s][0], nj = (long)sizes[s][1], nk = (long)sizes[s][2];
            stenc_field *u, *f, *want;
            assert_int_equal(
                stenc_field_create(ctx, &u, STENC_F32, 3, (size_t)ni, (size_t)nj, (size_t)nk, 1),
                STENC_OK);
            assert_int_equal(
                stenc_field_create(ctx, &want, STENC_F32, 3, (size_t)ni, (size_t)nj, (size_t)nk, 1),
                STENC_OK);
            assert_int_equal(
                stenc_field_create(ctx, &f, STENC_F32, 3, (size_t)ni, (size_t)nj, (size_t)nk, 0),
                STENC_OK);
            test_rng r1 = test_rng_seeded(40 + s), r2 = r1;
            point_fill(u, &r1, -1, 1);
            point_fill(want, &r2, -1, 1);
            point_fill(f, &r1, -1, 1);
            for (int sweep = 0; sweep < 2; sweep++) {
                for (long k = nk - 1; k >= 0; k--) /* backward: k, j, i descending */
                    for (long j = nj - 1; j >= 0; j--)
                        for (long i = ni - 1; i >= 0; i--) {
#define W(di, dj, dk) ((float)point_at(want, i + (di), j + (dj), k + (dk)))
                            const float v =
                                ((float)h2 * (float)point_at(f, i, j, k) + W(-1, 0, 0) +
                                 W(1, 0, 0) + W(0, -1, 0) + W(0, 1, 0) + W(0, 0, -1) + W(0, 0, 1)) /
                                6.0f;
#undef W
                            stenc_field_set(want, i, j, k, v);
                        }
                omp_set_num_threads(thread_counts[t]);
                assert_int_equal(gs7_backward(ctx, h2, f, u), STENC_OK);
            }
            char what[96];
            snprintf(what, sizeof what, "gs7_backward %ldx%ldx%ld, %d thread(s)", ni, nj, nk,
                     thread_counts[t]);
            assert_true(point_same(u, want, 1, what));
            stenc_field_free(u), stenc_field_free(f), stenc_field_free(want);
        }
    stenc_ctx_destroy(ctx);
}

/* The device of test_ordered_on_device. */
static stenc_device device_kind = STENC_DEVICE_CUDA;

/* The 2-D stencils on the device by every variant (CUDA: the DOACROSS bands and the launch
 * per hyperplane; OpenCL: its wavefront) against the host loop, bit for bit after several
 * sweeps, at odd sizes, across bands of 32 rows. */
typedef stenc_status (*ordered2d_fn)(stenc_ctx *, const char *, stenc_field *);
static stenc_status seidel2d_by(stenc_ctx *ctx, const char *variant, stenc_field *a) {
    return seidel2d_variant(ctx, variant, a);
}
static stenc_status star2_by(stenc_ctx *ctx, const char *variant, stenc_field *u) {
    return star2_backward_variant(ctx, variant, u);
}

static void test_ordered2d_variants(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device_kind), STENC_OK);
    /* rows longer than the DOACROSS ring (64 values), and more bands of 32 rows than an H100
     * holds blocks at once (so blocks take several, by ticket: that size only for DOACROSS, as
     * a launch per hyperplane would take 60,000 launches) */
    const size_t sizes[][2] = {{37, 23}, {1, 9},    {130, 3},  {61, 100},
                               {5, 130}, {300, 97}, {3, 60001}};
    const ordered2d_fn fns[2] = {seidel2d_by, star2_by};
    const char *(*names[2])(int) = {seidel2d_variant_name, star2_backward_variant_name};
    const int halo[2] = {1, 2};
    for (int st = 0; st < 2; st++)
        for (int v = 0; device_kind != STENC_DEVICE_CUDA || names[st](v); v++) {
            const char *variant = device_kind == STENC_DEVICE_CUDA ? names[st](v) : NULL;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                const long ni = (long)sizes[s][0], nj = (long)sizes[s][1];
                if (nj > 1000 && !(variant && !strncmp(variant, "doacross", 8))) continue;
                stenc_field *a, *want;
                assert_int_equal(
                    stenc_field_create(ctx, &a, STENC_F64, 2, (size_t)ni, (size_t)nj, 1, halo[st]),
                    STENC_OK);
                assert_int_equal(stenc_field_create(ctx, &want, STENC_F64, 2, (size_t)ni,
                                                    (size_t)nj, 1, halo[st]),
                                 STENC_OK);
                test_rng r1 = test_rng_seeded(70 + s), r2 = r1;
                point_fill(a, &r1, -1, 1);
                point_fill(want, &r2, -1, 1);
                assert_int_equal(stenc_field_upload(a), STENC_OK);
                omp_set_num_threads(1);
                for (int sweep = 0; sweep < 3; sweep++) {
                    assert_int_equal(fns[st](ctx, variant, a), STENC_OK);
                    assert_int_equal(fns[st](ctx, NULL, want), STENC_OK); /* the host loop */
                }
                assert_int_equal(stenc_field_download(a), STENC_OK);
                char what[128];
                snprintf(what, sizeof what, "%s %ldx%ld on the device (%s)",
                         st ? "star2_backward" : "seidel2d", ni, nj, variant ? variant : "auto");
                assert_true(point_same(a, want, 1, what));
                stenc_field_free(a), stenc_field_free(want);
            }
            if (device_kind != STENC_DEVICE_CUDA) break;
        }
    stenc_ctx_destroy(ctx);
}

/* On the device (the CUDA or OpenCL wavefront: a launch per hyperplane): the host loop's bits,
 * after several sweeps, at odd sizes, for both stencils. */
static void test_ordered_on_device(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device_kind), STENC_OK);
    const size_t s2[][2] = {{37, 23}, {1, 9}, {130, 3}};
    for (size_t s = 0; s < sizeof s2 / sizeof s2[0]; s++) {
        stenc_field *a, *want;
        assert_int_equal(stenc_field_create(ctx, &a, STENC_F64, 2, s2[s][0], s2[s][1], 1, 1),
                         STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &want, STENC_F64, 2, s2[s][0], s2[s][1], 1, 1),
                         STENC_OK);
        test_rng r1 = test_rng_seeded(50 + s), r2 = r1;
        point_fill(a, &r1, -1, 1);
        point_fill(want, &r2, -1, 1);
        assert_int_equal(stenc_field_upload(a), STENC_OK);
        omp_set_num_threads(1);
        for (int sweep = 0; sweep < 3; sweep++) {
            assert_int_equal(seidel2d(ctx, a), STENC_OK);
            assert_int_equal(seidel2d(ctx, want), STENC_OK); /* on the host: the loop */
        }
        assert_int_equal(stenc_field_download(a), STENC_OK);
        char what[96];
        snprintf(what, sizeof what, "seidel2d %zux%zu on the device", s2[s][0], s2[s][1]);
        assert_true(point_same(a, want, 1, what));
        stenc_field_free(a), stenc_field_free(want);
    }
    const size_t s3[][3] = {{13, 7, 9}, {2, 1, 5}, {33, 4, 3}};
    for (size_t s = 0; s < sizeof s3 / sizeof s3[0]; s++) {
        stenc_field *u, *f, *want;
        assert_int_equal(stenc_field_create(ctx, &u, STENC_F32, 3, s3[s][0], s3[s][1], s3[s][2], 1),
                         STENC_OK);
        assert_int_equal(
            stenc_field_create(ctx, &want, STENC_F32, 3, s3[s][0], s3[s][1], s3[s][2], 1),
            STENC_OK);
        assert_int_equal(stenc_field_create(ctx, &f, STENC_F32, 3, s3[s][0], s3[s][1], s3[s][2], 0),
                         STENC_OK);
        test_rng r1 = test_rng_seeded(60 + s), r2 = r1;
        point_fill(u, &r1, -1, 1);
        point_fill(want, &r2, -1, 1);
        point_fill(f, &r1, -1, 1);
        assert_int_equal(stenc_field_upload(u), STENC_OK);
        stenc_field *fd = NULL; /* f on the device too: the launch wants every field there */
        assert_int_equal(
            stenc_field_create(ctx, &fd, STENC_F32, 3, s3[s][0], s3[s][1], s3[s][2], 0), STENC_OK);
        size_t n = s3[s][0] * s3[s][1] * s3[s][2];
        float *dense = malloc(n * sizeof *dense);
        assert_int_equal(stenc_field_copy_to(f, dense), STENC_OK);
        assert_int_equal(stenc_field_copy_from(fd, dense), STENC_OK);
        free(dense);
        assert_int_equal(stenc_field_upload(fd), STENC_OK);
        for (int sweep = 0; sweep < 2; sweep++) {
            assert_int_equal(gs7_backward(ctx, 0.01, fd, u), STENC_OK);
            assert_int_equal(gs7_backward(ctx, 0.01, f, want), STENC_OK);
        }
        assert_int_equal(stenc_field_download(u), STENC_OK);
        char what[96];
        snprintf(what, sizeof what, "gs7_backward %zux%zux%zu on the device", s3[s][0], s3[s][1],
                 s3[s][2]);
        assert_true(point_same(u, want, 1, what));
        stenc_field_free(u), stenc_field_free(f), stenc_field_free(fd), stenc_field_free(want);
    }
    stenc_ctx_destroy(ctx);
}

/* sor_lex's loop: lexicographic SOR of the 5-point operator with a right-hand side f. */
static void sor_lex_loop(stenc_field *u, const stenc_field *f, long ni, long nj, double h2,
                         double omega) {
    for (long j = 0; j < nj; j++)
        for (long i = 0; i < ni; i++)
            stenc_field_set(u, i, j, 0,
                            (1 - omega) * point_at(u, i, j, 0) +
                                omega * 0.25 *
                                    (h2 * point_at(f, i, j, 0) + point_at(u, i - 1, j, 0) +
                                     point_at(u, i + 1, j, 0) + point_at(u, i, j - 1, 0) +
                                     point_at(u, i, j + 1, 0)));
}

/* sor_lex (an input f with no halo, read at the point; u read both ways) against its loop, bit
 * for bit after several sweeps: on the host with 1 to 3 threads, and on the device by every
 * variant, at odd sizes, with bands of 32 rows all full (the staged rows after the band end at
 * f's last row) and a long row. */
static void test_sor_lex(void **state) {
    (void)state;
    const int on_device = device_kind != STENC_DEVICE_CPU;
    stenc_ctx *ctx = NULL, *host = NULL;
    assert_int_equal(stenc_ctx_create(&ctx, device_kind), STENC_OK);
    assert_int_equal(stenc_ctx_create(&host, STENC_DEVICE_CPU), STENC_OK);
    const size_t sizes[][2] = {{37, 23}, {4099, 64}, {61, 97}, {1, 40}};
    const double h2 = 0.01, omega = 1.7;
    /* the runs: the host's thread counts, CUDA's variants, or OpenCL's one */
    int runs = on_device ? 1 : 3;
    if (device_kind == STENC_DEVICE_CUDA)
        for (runs = 0; sor_lex_variant_name(runs);)
            runs++;
    for (int v = 0; v < runs; v++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const char *variant = device_kind == STENC_DEVICE_CUDA ? sor_lex_variant_name(v) : NULL;
            const int threads = on_device ? 1 : v + 1;
            const long ni = (long)sizes[s][0], nj = (long)sizes[s][1];
            stenc_field *u, *f, *want, *hf;
            assert_int_equal(stenc_field_create(ctx, &u, STENC_F64, 2, ni, nj, 1, 1), STENC_OK);
            assert_int_equal(stenc_field_create(ctx, &f, STENC_F64, 2, ni, nj, 1, 0), STENC_OK);
            assert_int_equal(stenc_field_create(host, &want, STENC_F64, 2, ni, nj, 1, 1), STENC_OK);
            assert_int_equal(stenc_field_create(host, &hf, STENC_F64, 2, ni, nj, 1, 0), STENC_OK);
            test_rng r1 = test_rng_seeded(90 + s), r2 = r1;
            point_fill(u, &r1, -1, 1);
            point_fill(want, &r2, -1, 1);
            point_fill(f, &r1, -1, 1);
            point_fill(hf, &r2, -1, 1);
            if (on_device) {
                assert_int_equal(stenc_field_upload(u), STENC_OK);
                assert_int_equal(stenc_field_upload(f), STENC_OK);
            }
            omp_set_num_threads(threads);
            for (int sweep = 0; sweep < 3; sweep++) {
                assert_int_equal(sor_lex_variant(ctx, variant, h2, omega, u, f), STENC_OK);
                sor_lex_loop(want, hf, ni, nj, h2, omega);
            }
            if (on_device) assert_int_equal(stenc_field_download(u), STENC_OK);
            char what[128];
            snprintf(what, sizeof what, "sor_lex %ldx%ld (%s, %d thread(s))", ni, nj,
                     variant ? variant : "default", threads);
            assert_true(point_same(u, want, 1, what));
            stenc_field_free(u), stenc_field_free(f), stenc_field_free(want), stenc_field_free(hf);
        }
    stenc_ctx_destroy(host);
    stenc_ctx_destroy(ctx);
}

int main(int argc, char **argv) {
    const int on_device = point_device_arg(argc, argv, &device_kind);
    if (on_device == STENC_TEST_SKIP) return STENC_TEST_SKIP;
    if (on_device) {
        const struct CMUnitTest gpu[] = {cmocka_unit_test(test_ordered_on_device),
                                         cmocka_unit_test(test_ordered2d_variants),
                                         cmocka_unit_test(test_sor_lex)};
        return cmocka_run_group_tests(gpu, NULL, NULL);
    }
    device_kind = STENC_DEVICE_CPU;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seidel2d),
        cmocka_unit_test(test_star2_backward),
        cmocka_unit_test(test_gs7_backward),
        cmocka_unit_test(test_sor_lex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
