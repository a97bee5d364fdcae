/* Multigrid transfers and field reductions on a CUDA device, compared with the CPU path on
 * the same data: transfers bitwise (same order of exact-weight terms), reductions within the
 * compensated-summation bound and bitwise reproducible from call to call. */
#include "mg_reference.h"

static const stenc_type types[] = {STENC_F32, STENC_F64};

static stenc_ctx *gpu_ctx;

/* Interior and halo from a seeded generator, so that two fields can be given the same data. */
static void fill_seeded(stenc_field *f, uint64_t seed) {
    test_rng rng = test_rng_seeded(seed);
    stenc_field_layout l;
    assert_stenc_ok(stenc_field_get_layout(f, &l));
    const long h = l.halo, hj = l.dims > 1 ? h : 0, hk = l.dims > 2 ? h : 0;
    for (long k = -hk; k < (long)l.n[2] + hk; k++)
        for (long j = -hj; j < (long)l.n[1] + hj; j++)
            for (long i = -h; i < (long)l.n[0] + h; i++)
                assert_stenc_ok(stenc_field_set(f, i, j, k, test_rng_uniform(&rng, -1, 1)));
}

static stenc_field *make(stenc_type t, int dims, const long n[3], int halo) {
    stenc_field *f = NULL;
    assert_stenc_ok(
        stenc_field_create(gpu_ctx, &f, t, dims, (size_t)n[0], (size_t)n[1], (size_t)n[2], halo));
    return f;
}

/* The interiors of a host field and a (downloaded) device field are bitwise equal. */
static void expect_same_interior(const stenc_field *host, const stenc_field *dev,
                                 const char *what) {
    stenc_field_layout l;
    assert_stenc_ok(stenc_field_get_layout(host, &l));
    size_t bytes = l.n[0] * l.n[1] * l.n[2] * stenc_type_size(l.type);
    void *a = malloc(bytes), *b = malloc(bytes);
    assert_stenc_ok(stenc_field_copy_to(host, a));
    assert_stenc_ok(stenc_field_copy_to(dev, b));
    if (memcmp(a, b, bytes) != 0)
        fail_msg("%s: %s %zux%zux%zu differs between CPU and GPU", what, stenc_type_name(l.type),
                 l.n[0], l.n[1], l.n[2]);
    free(a);
    free(b);
}

static void test_transfers_match_cpu(void **state) {
    (void)state;
    static const long coarse_sizes[][3] = {{1, 1, 1}, {2, 3, 5}, {7, 6, 3}, {63, 31, 15}};
    for (int ti = 0; ti < 2; ti++)
        for (int gi = 0; gi < 2; gi++)
            for (int dims = 1; dims <= 3; dims++)
                for (int si = 0; si < 4; si++) {
                    const stenc_mg_grid grid = gi ? STENC_MG_GRID_VERTEX : STENC_MG_GRID_INTERIOR;
                    long nc[3], nf[3];
                    for (int d = 0; d < 3; d++) {
                        long c = coarse_sizes[si][d] + gi; /* the vertex grid needs >= 2 */
                        nc[d] = d < dims ? c : 1;
                        nf[d] = d < dims ? (gi ? 2 * c - 1 : 2 * c + 1) : 1;
                    }
                    stenc_field *fh = make(types[ti], dims, nf, 1),
                                *fd = make(types[ti], dims, nf, 1);
                    stenc_field *ch = make(types[ti], dims, nc, 1),
                                *cd = make(types[ti], dims, nc, 1);
                    fill_seeded(fh, 100 + si);
                    fill_seeded(fd, 100 + si);
                    assert_stenc_ok(stenc_field_fill(ch, NAN));
                    assert_stenc_ok(stenc_field_fill(cd, NAN)); /* poison: unwritten shows */
                    assert_stenc_ok(stenc_field_upload(fd));
                    assert_stenc_ok(stenc_field_upload(cd));
                    assert_int_equal(stenc_field_location(cd), STENC_ON_DEVICE);
                    for (int op = 0; op < 2; op++) {
                        assert_stenc_ok(stenc_mg_restrict(ch, fh, grid, (stenc_mg_restriction)op));
                        assert_stenc_ok(stenc_mg_restrict(cd, fd, grid, (stenc_mg_restriction)op));
                        assert_stenc_ok(stenc_field_download(cd));
                        expect_same_interior(ch, cd, op ? "injection" : "restriction");
                        assert_stenc_ok(stenc_field_upload(cd));
                    }
                    /* Prolongation from random coarse values, halo included. */
                    assert_stenc_ok(stenc_field_download(cd));
                    fill_seeded(ch, 200 + si);
                    fill_seeded(cd, 200 + si);
                    assert_stenc_ok(stenc_field_upload(cd));
                    assert_stenc_ok(stenc_mg_prolong_add(fh, ch, grid));
                    assert_stenc_ok(stenc_mg_prolong_add(fd, cd, grid));
                    assert_stenc_ok(stenc_field_download(fd));
                    expect_same_interior(fh, fd, "prolongation");
                    /* Mixed residence is an error. */
                    assert_int_equal(stenc_mg_prolong_add(fd, cd, grid), STENC_ERR_LOCATION);
                    stenc_field_free(fh);
                    stenc_field_free(fd);
                    stenc_field_free(ch);
                    stenc_field_free(cd);
                }
}

typedef stenc_status (*reduce_fn)(const stenc_field *, double *);

static void test_reductions_match_cpu(void **state) {
    (void)state;
    static const struct {
        int dims;
        long n[3];
    } shapes[] = {{1, {1, 1, 1}},    {1, {2, 1, 1}}, {1, {1000003, 1, 1}}, {2, {1001, 999, 1}},
                  {3, {37, 41, 43}}, {3, {3, 1, 2}}, {2, {1, 300, 1}},     {3, {255, 257, 3}}};
    const reduce_fn fns[] = {stenc_field_sum, stenc_field_sum_squares, stenc_field_norm2,
                             stenc_field_norm_max};
    const char *names[] = {"sum", "sum of squares", "norm2", "max norm", "dot"};
    for (int ti = 0; ti < 2; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
            const long *n = shapes[si].n;
            const double total = (double)(n[0] * n[1] * n[2]);
            stenc_field *a = make(types[ti], shapes[si].dims, n, 2);
            stenc_field *b = make(types[ti], shapes[si].dims, n, 0);
            fill_seeded(a, 300 + si);
            fill_seeded(b, 400 + si);
            double cpu[5], gpu[5], again[5];
            for (int r = 0; r < 4; r++)
                assert_stenc_ok(fns[r](a, &cpu[r]));
            assert_stenc_ok(stenc_field_dot(a, b, &cpu[4]));
            assert_stenc_ok(stenc_field_upload(a));
            assert_stenc_ok(stenc_field_upload(b));
            for (int pass = 0; pass < 2; pass++) {
                double *out = pass ? again : gpu;
                for (int r = 0; r < 5; r++)
                    out[r] = NAN;
                for (int r = 0; r < 4; r++)
                    assert_stenc_ok(fns[r](a, &out[r]));
                assert_stenc_ok(stenc_field_dot(a, b, &out[4]));
            }
            assert_memory_equal(gpu, again, sizeof gpu); /* reproducible */
            assert_true(gpu[3] == cpu[3]);               /* the max is exact */
            for (int r = 0; r < 5; r++) {
                /* Both within ~1 rounding of the exact value: |terms| <= 1, so sum|terms| <= n. */
                double bound = 4 * 0x1p-53 * fabs(cpu[r]) + 8 * total * 0x1p-106 * total;
                if (!(fabs(gpu[r] - cpu[r]) <= bound))
                    fail_msg("%s %s over %.0f points: GPU %.17g CPU %.17g", names[r],
                             stenc_type_name(types[ti]), total, gpu[r], cpu[r]);
            }
            stenc_field_free(a);
            stenc_field_free(b);
        }
}

static void test_device_sum_does_not_drift(void **state) {
    (void)state;
    const long n[3] = {10000000, 1, 1};
    stenc_field *f = make(STENC_F64, 1, n, 1);
    assert_stenc_ok(stenc_field_fill(f, 0.1));
    assert_stenc_ok(stenc_field_upload(f));
    double got = NAN;
    assert_stenc_ok(stenc_field_sum(f, &got));
    assert_true(got == 1e7 * 0.1);
    stenc_field_free(f);
}

int main(void) {
    TEST_REQUIRE_GPU_OR_SKIP();
    if (stenc_ctx_create(&gpu_ctx, STENC_DEVICE_CUDA) != STENC_OK) {
        printf("cannot create a CUDA context: %s\n", stenc_last_error());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transfers_match_cpu),
        cmocka_unit_test(test_reductions_match_cpu),
        cmocka_unit_test(test_device_sum_does_not_drift),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    stenc_ctx_destroy(gpu_ctx);
    return failed;
}
