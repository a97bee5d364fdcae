/* Multigrid transfers on the CPU: analytic answers (full weighting of a quadratic, injection,
 * interpolation of a multilinear function), random data against the separable / scatter
 * references of mg_reference.h, both grid conventions, 1-3-D, float and double, and the
 * error paths. */
#include "mg_reference.h"

static const stenc_type types[] = {STENC_F32, STENC_F64};
static const stenc_mg_grid grids[] = {STENC_MG_GRID_INTERIOR, STENC_MG_GRID_VERTEX};

/* Coarse extents to try per convention; the fine extent follows. Odd and small on purpose. */
static const long coarse_interior[] = {1, 2, 3, 6, 7};
static const long coarse_vertex[] = {2, 3, 4, 5, 9};
enum { N_SIZES = 5 };

static long fine_of(stenc_mg_grid grid, long nc) {
    return grid == STENC_MG_GRID_INTERIOR ? 2 * nc + 1 : 2 * nc - 1;
}

static long coarse_at(stenc_mg_grid grid, int idx) {
    return grid == STENC_MG_GRID_INTERIOR ? coarse_interior[idx % N_SIZES]
                                          : coarse_vertex[idx % N_SIZES];
}

static stenc_field *make(stenc_ctx *ctx, stenc_type t, int dims, const long n[3], int halo) {
    stenc_field *f = NULL;
    assert_stenc_ok(
        stenc_field_create(ctx, &f, t, dims, (size_t)n[0], (size_t)n[1], (size_t)n[2], halo));
    return f;
}

/* Shapes for a case: coarse extents from three different entries of the size list. */
static void shapes(stenc_mg_grid grid, int dims, int variant, long nc[3], long nf[3]) {
    for (int d = 0; d < 3; d++) {
        nc[d] = d < dims ? coarse_at(grid, variant + 2 * d) : 1;
        nf[d] = d < dims ? fine_of(grid, nc[d]) : 1;
    }
}

/* The polynomial of one dimension: p_d(x) = a + b x + c x^2 with small integer coefficients. */
static const double poly[3][3] = {{1, 2, 1}, {-3, 1, 2}, {2, -1, 1}};

static double poly_at(int d, double x) {
    return poly[d][0] + poly[d][1] * x + poly[d][2] * x * x;
}

/* Full weighting (1/4 [1 2 1] in index units) of p_d at x: p_d(x) + c/2. */
static double poly_restricted(int d, double x) {
    return poly_at(d, x) + poly[d][2] / 2;
}

static double tolerance(stenc_type t, double magnitude) {
    return t == STENC_F32 ? 4 * 0x1p-24 * magnitude : 0.0;
}

static void test_full_weighting_of_a_quadratic(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    for (int ti = 0; ti < 2; ti++)
        for (int gi = 0; gi < 2; gi++)
            for (int dims = 1; dims <= 3; dims++)
                for (int variant = 0; variant < N_SIZES; variant++) {
                    const stenc_mg_grid grid = grids[gi];
                    const long s = grid == STENC_MG_GRID_INTERIOR ? 1 : 0;
                    long nc[3], nf[3];
                    shapes(grid, dims, variant, nc, nf);
                    stenc_field *fine = make(ctx, types[ti], dims, nf, variant % 3);
                    stenc_field *coarse = make(ctx, types[ti], dims, nc, 1);
                    /* Fine point i sits at x = i + s; its value is prod_d p_d(x_d). */
                    for (long k = 0; k < nf[2]; k++)
                        for (long j = 0; j < nf[1]; j++)
                            for (long i = 0; i < nf[0]; i++) {
                                const long f[3] = {i, j, k};
                                double v = 1;
                                for (int d = 0; d < dims; d++)
                                    v *= poly_at(d, (double)(f[d] + s));
                                assert_stenc_ok(stenc_field_set(fine, i, j, k, v));
                            }
                    assert_stenc_ok(stenc_field_fill(coarse, -99.0));
                    assert_stenc_ok(stenc_mg_restrict(coarse, fine, grid, STENC_MG_FULL_WEIGHTING));
                    for (long k = -(dims > 2); k < nc[2] + (dims > 2); k++)
                        for (long j = -(dims > 1); j < nc[1] + (dims > 1); j++)
                            for (long i = -1; i < nc[0] + 1; i++) {
                                const long c[3] = {i, j, k};
                                int halo = 0, boundary = 0;
                                double want = 1;
                                for (int d = 0; d < dims; d++) {
                                    if (c[d] < 0 || c[d] >= nc[d]) halo = 1;
                                    if (c[d] == 0 || c[d] == nc[d] - 1) boundary = 1;
                                }
                                /* Coarse point I sits at fine x = 2I + 2s. */
                                for (int d = 0; d < dims; d++) {
                                    double x = (double)(2 * c[d] + 2 * s);
                                    want *= grid == STENC_MG_GRID_VERTEX && boundary
                                                ? poly_at(d, x)
                                                : poly_restricted(d, x);
                                }
                                if (halo) want = -99.0; /* the halo is left alone */
                                double got;
                                assert_stenc_ok(stenc_field_get(coarse, i, j, k, &got));
                                if (fabs(got - want) > tolerance(types[ti], fabs(want) + 1))
                                    fail_msg("%s grid %d dims %d coarse %ldx%ldx%ld at "
                                             "(%ld,%ld,%ld): got %.17g want %.17g",
                                             stenc_type_name(types[ti]), gi, dims, nc[0], nc[1],
                                             nc[2], i, j, k, got, want);
                            }
                    stenc_field_free(fine);
                    stenc_field_free(coarse);
                }
    stenc_ctx_destroy(ctx);
}

static void test_injection_takes_the_coincident_point(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    test_rng rng = test_rng_seeded(11);
    for (int ti = 0; ti < 2; ti++)
        for (int gi = 0; gi < 2; gi++)
            for (int dims = 1; dims <= 3; dims++) {
                const stenc_mg_grid grid = grids[gi];
                const long s = grid == STENC_MG_GRID_INTERIOR ? 1 : 0;
                long nc[3], nf[3];
                shapes(grid, dims, 3, nc, nf);
                stenc_field *fine = make(ctx, types[ti], dims, nf, 0);
                stenc_field *coarse = make(ctx, types[ti], dims, nc, 0);
                for (long k = 0; k < nf[2]; k++)
                    for (long j = 0; j < nf[1]; j++)
                        for (long i = 0; i < nf[0]; i++)
                            assert_stenc_ok(
                                stenc_field_set(fine, i, j, k, test_rng_uniform(&rng, -1, 1)));
                assert_stenc_ok(stenc_mg_restrict(coarse, fine, grid, STENC_MG_INJECTION));
                for (long k = 0; k < nc[2]; k++)
                    for (long j = 0; j < nc[1]; j++)
                        for (long i = 0; i < nc[0]; i++) {
                            double got, want;
                            assert_stenc_ok(stenc_field_get(coarse, i, j, k, &got));
                            assert_stenc_ok(stenc_field_get(fine, 2 * i + s,
                                                            dims > 1 ? 2 * j + s : 0,
                                                            dims > 2 ? 2 * k + s : 0, &want));
                            assert_true(got == want);
                        }
                stenc_field_free(fine);
                stenc_field_free(coarse);
            }
    stenc_ctx_destroy(ctx);
}

/* The multilinear function prod_d (a_d + b_d x_d), which interpolation reproduces exactly. */
static const double lin[3][2] = {{3, 2}, {-1, 3}, {2, -1}};

static double linear_at(int dims, const double x[3]) {
    double v = 1;
    for (int d = 0; d < dims; d++)
        v *= lin[d][0] + lin[d][1] * x[d];
    return v;
}

static void test_prolongation_reproduces_multilinear_functions(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    test_rng rng = test_rng_seeded(12);
    for (int ti = 0; ti < 2; ti++)
        for (int gi = 0; gi < 2; gi++)
            for (int dims = 1; dims <= 3; dims++)
                for (int variant = 0; variant < N_SIZES; variant++) {
                    const stenc_mg_grid grid = grids[gi];
                    const long s = grid == STENC_MG_GRID_INTERIOR ? 1 : 0;
                    const int vertex = grid == STENC_MG_GRID_VERTEX;
                    long nc[3], nf[3];
                    shapes(grid, dims, variant, nc, nf);
                    stenc_field *fine = make(ctx, types[ti], dims, nf, 1);
                    stenc_field *coarse = make(ctx, types[ti], dims, nc, vertex ? 0 : 1);
                    /* Coarse values, halo ring included on the interior grid: f at x = 2I+2s. */
                    const long cm = vertex ? 0 : 1;
                    for (long k = -cm * (dims > 2); k < nc[2] + cm * (dims > 2); k++)
                        for (long j = -cm * (dims > 1); j < nc[1] + cm * (dims > 1); j++)
                            for (long i = -cm; i < nc[0] + cm; i++) {
                                const double x[3] = {(double)(2 * i + 2 * s),
                                                     (double)(2 * j + 2 * s),
                                                     (double)(2 * k + 2 * s)};
                                assert_stenc_ok(
                                    stenc_field_set(coarse, i, j, k, linear_at(dims, x)));
                            }
                    /* The fine field starts with small random integers; its halo with a marker. */
                    assert_stenc_ok(stenc_field_fill(fine, 1234.0));
                    long n_f = nf[0] * nf[1] * nf[2];
                    double *start = malloc((size_t)n_f * sizeof *start);
                    for (long p = 0; p < n_f; p++)
                        start[p] = (double)(long)test_rng_uniform(&rng, -50, 50);
                    for (long k = 0; k < nf[2]; k++)
                        for (long j = 0; j < nf[1]; j++)
                            for (long i = 0; i < nf[0]; i++)
                                assert_stenc_ok(stenc_field_set(
                                    fine, i, j, k, start[(k * nf[1] + j) * nf[0] + i]));
                    assert_stenc_ok(stenc_mg_prolong_add(fine, coarse, grid));
                    for (long k = -(dims > 2); k < nf[2] + (dims > 2); k++)
                        for (long j = -(dims > 1); j < nf[1] + (dims > 1); j++)
                            for (long i = -1; i < nf[0] + 1; i++) {
                                const long f[3] = {i, j, k};
                                int halo = 0, boundary = 0;
                                for (int d = 0; d < dims; d++) {
                                    if (f[d] < 0 || f[d] >= nf[d]) halo = 1;
                                    if (f[d] == 0 || f[d] == nf[d] - 1) boundary = 1;
                                }
                                const double x[3] = {(double)(i + s), (double)(j + s),
                                                     (double)(k + s)};
                                double want;
                                if (halo)
                                    want = 1234.0;
                                else if (vertex && boundary)
                                    want = start[(k * nf[1] + j) * nf[0] + i];
                                else
                                    want = start[(k * nf[1] + j) * nf[0] + i] + linear_at(dims, x);
                                double got;
                                assert_stenc_ok(stenc_field_get(fine, i, j, k, &got));
                                if (got != want)
                                    fail_msg("%s grid %d dims %d fine %ldx%ldx%ld at "
                                             "(%ld,%ld,%ld): got %.17g want %.17g",
                                             stenc_type_name(types[ti]), gi, dims, nf[0], nf[1],
                                             nf[2], i, j, k, got, want);
                            }
                    free(start);
                    stenc_field_free(fine);
                    stenc_field_free(coarse);
                }
    stenc_ctx_destroy(ctx);
}

static void fill_random(stenc_field *f, test_rng *rng, int with_halo) {
    stenc_field_layout l;
    assert_stenc_ok(stenc_field_get_layout(f, &l));
    const long h = with_halo ? l.halo : 0;
    const long hj = l.dims > 1 ? h : 0, hk = l.dims > 2 ? h : 0;
    for (long k = -hk; k < (long)l.n[2] + hk; k++)
        for (long j = -hj; j < (long)l.n[1] + hj; j++)
            for (long i = -h; i < (long)l.n[0] + h; i++)
                assert_stenc_ok(stenc_field_set(f, i, j, k, test_rng_uniform(rng, -1, 1)));
}

/* Compare a host field's interior with a reference: float within 1 ulp of the rounded
 * reference, double within a few units of 2^-53. */
static void expect_close(const stenc_field *f, ref_grid *ref, stenc_type t, const char *what) {
    for (long k = 0; k < ref->n[2]; k++)
        for (long j = 0; j < ref->n[1]; j++)
            for (long i = 0; i < ref->n[0]; i++) {
                double got;
                assert_stenc_ok(stenc_field_get(f, i, j, k, &got));
                long double want = *ref_at(ref, i, j, k);
                int ok = t == STENC_F32
                             ? test_ulp_distance_f32((float)got, (float)want) <= 1
                             : fabsl((long double)got - want) <= 8 * 0x1p-53L * (fabsl(want) + 1);
                if (!ok)
                    fail_msg("%s %s at (%ld,%ld,%ld): got %.17g want %.17Lg", what,
                             stenc_type_name(t), i, j, k, got, want);
            }
}

static void test_random_data_against_references(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    test_rng rng = test_rng_seeded(13);
    for (int ti = 0; ti < 2; ti++)
        for (int gi = 0; gi < 2; gi++)
            for (int dims = 1; dims <= 3; dims++)
                for (int variant = 0; variant < N_SIZES; variant++) {
                    const stenc_mg_grid grid = grids[gi];
                    long nc[3], nf[3];
                    shapes(grid, dims, variant, nc, nf);
                    stenc_field *fine = make(ctx, types[ti], dims, nf, 1 + variant % 2);
                    stenc_field *coarse = make(ctx, types[ti], dims, nc, 1);
                    fill_random(fine, &rng, 1);
                    for (int op = 0; op < 2; op++) {
                        assert_stenc_ok(stenc_field_fill(coarse, NAN));
                        assert_stenc_ok(
                            stenc_mg_restrict(coarse, fine, grid, (stenc_mg_restriction)op));
                        ref_grid want =
                            ref_restrict(fine, dims, nc, grid, (stenc_mg_restriction)op);
                        expect_close(coarse, &want, types[ti], op ? "injection" : "restriction");
                        free(want.v);
                    }
                    /* Prolongation: random coarse values, halo included. */
                    fill_random(coarse, &rng, 1);
                    ref_grid before = ref_from_field(fine, 0);
                    ref_grid inc = ref_prolong(coarse, dims, nf, grid);
                    for (long p = 0; p < nf[0] * nf[1] * nf[2]; p++) {
                        /* The field stores the sum rounded to its type. */
                        long double sum = before.v[p] + inc.v[p];
                        inc.v[p] = types[ti] == STENC_F32 ? (long double)(float)sum : sum;
                    }
                    assert_stenc_ok(stenc_mg_prolong_add(fine, coarse, grid));
                    expect_close(fine, &inc, types[ti], "prolongation");
                    free(before.v);
                    free(inc.v);
                    stenc_field_free(fine);
                    stenc_field_free(coarse);
                }
    stenc_ctx_destroy(ctx);
}

static void test_coarse_extent(void **state) {
    (void)state;
    size_t nc = 0;
    assert_stenc_ok(stenc_mg_coarse_extent(STENC_MG_GRID_INTERIOR, 7, &nc));
    assert_int_equal(nc, 3);
    assert_stenc_ok(stenc_mg_coarse_extent(STENC_MG_GRID_VERTEX, 9, &nc));
    assert_int_equal(nc, 5);
    assert_stenc_ok(stenc_mg_coarse_extent(STENC_MG_GRID_VERTEX, 3, &nc));
    assert_int_equal(nc, 2);
    /* 2^10-1 coarsens to 1, 2^10+1 to 3, level by level. */
    size_t n = 1023;
    int levels = 0;
    while (stenc_mg_coarse_extent(STENC_MG_GRID_INTERIOR, n, &nc) == STENC_OK)
        n = nc, levels++;
    assert_int_equal(n, 1);
    assert_int_equal(levels, 9);
    n = 1025;
    levels = 0;
    while (stenc_mg_coarse_extent(STENC_MG_GRID_VERTEX, n, &nc) == STENC_OK)
        n = nc, levels++;
    assert_int_equal(n, 2);
    assert_int_equal(levels, 10);
    nc = 77;
    assert_int_equal(stenc_mg_coarse_extent(STENC_MG_GRID_INTERIOR, 1, &nc), STENC_ERR_SHAPE);
    assert_int_equal(stenc_mg_coarse_extent(STENC_MG_GRID_VERTEX, 8, &nc), STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "8 fine points"));
    assert_int_equal(nc, 77);
    assert_int_equal(stenc_mg_coarse_extent((stenc_mg_grid)5, 7, &nc), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_mg_coarse_extent(STENC_MG_GRID_VERTEX, 7, NULL),
                     STENC_ERR_INVALID_ARGUMENT);
}

/* Every coarse value (interior and halo) still equals `value`. */
static void expect_untouched(const stenc_field *f, double value) {
    stenc_field_layout l;
    assert_stenc_ok(stenc_field_get_layout(f, &l));
    for (long k = 0; k < (long)l.n[2]; k++)
        for (long j = 0; j < (long)l.n[1]; j++)
            for (long i = -l.halo; i < (long)l.n[0] + l.halo; i++) {
                double v;
                assert_stenc_ok(stenc_field_get(f, i, j, k, &v));
                assert_true(v == value);
            }
}

static void test_errors(void **state) {
    (void)state;
    stenc_ctx *ctx, *other;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    assert_stenc_ok(stenc_ctx_create(&other, STENC_DEVICE_CPU));
    const long f98[3] = {9, 8, 1}, c44[3] = {4, 4, 1}, c55[3] = {5, 5, 1}, f99[3] = {9, 9, 1},
               f999[3] = {9, 9, 9}, c444[3] = {4, 4, 4};
    stenc_field *fine_bad = make(ctx, STENC_F64, 2, f98, 1);
    stenc_field *fine = make(ctx, STENC_F64, 2, f99, 1);
    stenc_field *fine32 = make(ctx, STENC_F32, 2, f99, 1);
    stenc_field *fine3d = make(ctx, STENC_F64, 3, f999, 1);
    stenc_field *coarse = make(ctx, STENC_F64, 2, c44, 1);
    stenc_field *coarse0 = make(ctx, STENC_F64, 2, c44, 0);
    stenc_field *coarse5 = make(ctx, STENC_F64, 2, c55, 0);
    stenc_field *coarse3d = make(ctx, STENC_F64, 3, c444, 1);
    stenc_field *coarse_other = make(other, STENC_F64, 2, c44, 1);
    assert_stenc_ok(stenc_field_fill(coarse, 7.0));

    /* 8 points do not coarsen; the message names both shapes; the output is untouched. */
    assert_int_equal(
        stenc_mg_restrict(coarse, fine_bad, STENC_MG_GRID_INTERIOR, STENC_MG_FULL_WEIGHTING),
        STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "9x8"));
    assert_non_null(strstr(stenc_last_error(), "4x4"));
    assert_non_null(strstr(stenc_last_error(), "stenc_mg_restrict"));
    expect_untouched(coarse, 7.0);
    assert_int_equal(stenc_mg_prolong_add(fine_bad, coarse, STENC_MG_GRID_INTERIOR),
                     STENC_ERR_SHAPE);
    /* 9 -> 5 is the vertex relation, not the interior one, and the other way round. */
    assert_int_equal(
        stenc_mg_restrict(coarse5, fine, STENC_MG_GRID_INTERIOR, STENC_MG_FULL_WEIGHTING),
        STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "2*n_coarse+1"));
    assert_stenc_ok(stenc_mg_restrict(coarse5, fine, STENC_MG_GRID_VERTEX, STENC_MG_INJECTION));
    assert_int_equal(stenc_mg_restrict(coarse, fine, STENC_MG_GRID_VERTEX, STENC_MG_INJECTION),
                     STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "2*n_coarse-1"));
    /* Types and dims must agree. */
    assert_int_equal(
        stenc_mg_restrict(coarse, fine32, STENC_MG_GRID_INTERIOR, STENC_MG_FULL_WEIGHTING),
        STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "float"));
    assert_int_equal(stenc_mg_prolong_add(fine3d, coarse, STENC_MG_GRID_INTERIOR), STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "3-D"));
    assert_stenc_ok(stenc_mg_prolong_add(fine3d, coarse3d, STENC_MG_GRID_INTERIOR));
    /* Interior-grid prolongation needs the coarse boundary in a halo; the vertex grid not. */
    assert_int_equal(stenc_mg_prolong_add(fine, coarse0, STENC_MG_GRID_INTERIOR), STENC_ERR_SHAPE);
    assert_non_null(strstr(stenc_last_error(), "halo 0"));
    assert_stenc_ok(stenc_mg_prolong_add(fine, coarse5, STENC_MG_GRID_VERTEX));
    /* Arguments. */
    assert_int_equal(stenc_mg_restrict(NULL, fine, STENC_MG_GRID_INTERIOR, STENC_MG_FULL_WEIGHTING),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(
        stenc_mg_restrict(coarse, NULL, STENC_MG_GRID_INTERIOR, STENC_MG_FULL_WEIGHTING),
        STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_mg_prolong_add(NULL, coarse, STENC_MG_GRID_INTERIOR),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_mg_restrict(coarse, fine, (stenc_mg_grid)2, STENC_MG_FULL_WEIGHTING),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(
        stenc_mg_restrict(coarse, fine, STENC_MG_GRID_INTERIOR, (stenc_mg_restriction)9),
        STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_mg_prolong_add(fine, coarse, (stenc_mg_grid)-1),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(
        stenc_mg_restrict(coarse_other, fine, STENC_MG_GRID_INTERIOR, STENC_MG_FULL_WEIGHTING),
        STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "different contexts"));
    expect_untouched(coarse, 7.0);
    /* And the matching call works. */
    assert_stenc_ok(
        stenc_mg_restrict(coarse, fine, STENC_MG_GRID_INTERIOR, STENC_MG_FULL_WEIGHTING));

    stenc_field *all[] = {fine_bad, fine,    fine32,   fine3d,      coarse,
                          coarse0,  coarse5, coarse3d, coarse_other};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        stenc_field_free(all[i]);
    stenc_ctx_destroy(ctx);
    stenc_ctx_destroy(other);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_weighting_of_a_quadratic),
        cmocka_unit_test(test_injection_takes_the_coincident_point),
        cmocka_unit_test(test_prolongation_reproduces_multilinear_functions),
        cmocka_unit_test(test_random_data_against_references),
        cmocka_unit_test(test_coarse_extent),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
