/* MLSSOR (stenc/sor.h) against references written here, another way:
 *  - the sweep's definition run point by point: per phase and layer, the whole grid in
 *    lexicographic order, a point updated when the classes of its coordinates (found by
 *    their residue mod n, not by the runtime's intervals) are the phase's; bit for bit, every
 *    element, halo included, at awkward sizes, random data, float and double, both directions;
 *  - with one layer and a subdomain larger than the grid, a plain lexicographic SOR loop;
 *  - convergence to a discrete solution known in advance (f = A u* for a random u*);
 *  - the errors.
 * `test_mlssor gpu` runs the sweeps on a CUDA device and compares them with the host's bit for
 * bit (skipped without a device). */
#include "test_util.h"

static stenc_ctx *host_ctx, *gpu_ctx;
static int use_gpu;

/* A dense copy of a field's interior with a margin of one (its halo) all round. */
typedef struct grid {
    long nx, ny;
    stenc_type type;
    void *v;
} grid;

static size_t esize(stenc_type t) {
    return t == STENC_F32 ? sizeof(float) : sizeof(double);
}

static double grid_get(const grid *g, long i, long j) {
    size_t at = (size_t)((j + 1) * (g->nx + 2) + i + 1);
    return g->type == STENC_F32 ? ((float *)g->v)[at] : ((double *)g->v)[at];
}

static grid grid_of(const stenc_field *f) {
    stenc_field_layout l;
    assert_stenc_ok(stenc_field_get_layout(f, &l));
    grid g = {(long)l.n[0], (long)l.n[1], l.type, NULL};
    g.v = calloc((size_t)((g.nx + 2) * (g.ny + 2)), esize(l.type));
    assert_non_null(g.v);
    for (long j = -1; j <= g.ny; j++)
        for (long i = -1; i <= g.nx; i++) {
            double x;
            assert_stenc_ok(stenc_field_get(f, i, j, 0, &x));
            size_t at = (size_t)((j + 1) * (g.nx + 2) + i + 1);
            if (g.type == STENC_F32)
                ((float *)g.v)[at] = (float)x;
            else
                ((double *)g.v)[at] = x;
        }
    return g;
}

/* The class of coordinate x at layer d: 0 (A) when its residue r = x mod n lies in
 * [d, n-2-d], else 1 (B). */
static int class_of(long x, long n, long d) {
    long r = ((x % n) + n) % n;
    return (r >= d && r <= n - 2 - d) ? 0 : 1;
}

/* The update at physical (i, j), in the order stenc/sor.h gives. */
#define REF_UPDATE(T)                                                                              \
    do {                                                                                           \
        T *v = (T *)g->v;                                                                          \
        const long w = g->nx + 2;                                                                  \
        const size_t c = (size_t)((j + 1) * w + i + 1);                                            \
        T t = f ? (T)h2 * ((const T *)f->v)[c] : (T)0;                                             \
        t = t + v[c - 1];                                                                          \
        t = t + v[c + 1];                                                                          \
        t = t + v[c - w];                                                                          \
        t = t + v[c + w];                                                                          \
        v[c] = (T)(1.0 - omega) * v[c] + (T)(omega * 0.25) * t;                                    \
    } while (0)

static void ref_update(grid *g, const grid *f, long i, long j, double h2, double omega) {
    if (g->type == STENC_F32)
        REF_UPDATE(float);
    else
        REF_UPDATE(double);
}

static void ref_sweep(grid *g, const grid *f, double h2, double omega, long n, int K,
                      int backward) {
    static const int phase[4][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    for (int ph = 0; ph < 4; ph++)
        for (long d = 0; d < K; d++)
            for (long lj = 0; lj < g->ny; lj++)
                for (long li = 0; li < g->nx; li++) {
                    if (class_of(li, n, d) != phase[ph][0] || class_of(lj, n, d) != phase[ph][1])
                        continue;
                    long i = backward ? g->nx - 1 - li : li, j = backward ? g->ny - 1 - lj : lj;
                    ref_update(g, f, i, j, h2, omega);
                }
}

static stenc_field *make_field(stenc_ctx *ctx, stenc_type t, long nx, long ny, int halo,
                               test_rng *rng) {
    stenc_field *f = NULL;
    assert_stenc_ok(stenc_field_create(ctx, &f, t, 2, (size_t)nx, (size_t)ny, 1, halo));
    if (rng)
        for (long j = -halo; j < ny + halo; j++)
            for (long i = -halo; i < nx + halo; i++)
                assert_stenc_ok(stenc_field_set(f, i, j, 0,
                                                t == STENC_F32
                                                    ? (double)(float)test_rng_uniform(rng, -1, 1)
                                                    : test_rng_uniform(rng, -1, 1)));
    return f;
}

/* Every element of the grid, halo included, equals the field's, bit for bit. */
static void expect_equal(const grid *want, const stenc_field *got, const char *what) {
    grid g = grid_of(got);
    size_t bytes = (size_t)((want->nx + 2) * (want->ny + 2)) * esize(want->type);
    if (memcmp(want->v, g.v, bytes) != 0) {
        for (long j = -1; j <= want->ny; j++)
            for (long i = -1; i <= want->nx; i++)
                if (grid_get(want, i, j) != grid_get(&g, i, j))
                    fail_msg("%s: %s %ldx%ld differs first at (%ld, %ld): %.17g, want %.17g", what,
                             stenc_type_name(want->type), want->nx, want->ny, i, j,
                             grid_get(&g, i, j), grid_get(want, i, j));
    }
    free(g.v);
}

static const long sizes[][2] = {{1, 1},   {1, 7},   {9, 1},   {2, 2},
                                {13, 29}, {37, 23}, {64, 64}, {101, 3}};

/* Sweeps (n, K, direction, with or without f) of random fields: the runtime on the host
 * against ref_sweep. */
static void test_against_definition(void **state) {
    (void)state;
    test_rng rng = test_rng_seeded(1001);
    static const long subdomains[] = {2, 3, 4, 5, 8, 16};
    for (int ti = 0; ti < 2; ti++) {
        const stenc_type t = ti ? STENC_F64 : STENC_F32;
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            const long nx = sizes[si][0], ny = sizes[si][1];
            for (size_t ni = 0; ni < sizeof subdomains / sizeof *subdomains; ni++) {
                const long n = subdomains[ni];
                for (int K = 1; K <= n / 2; K++) {
                    const int backward = (int)(test_rng_u64(&rng) & 1), with_f = K != 2;
                    const int halo = 1 + (int)(test_rng_u64(&rng) % 2);
                    const double omega = test_rng_uniform(&rng, 0.5, 1.95), h2 = 1.0 / 64;
                    stenc_field *u = make_field(host_ctx, t, nx, ny, halo, &rng);
                    stenc_field *f = with_f ? make_field(host_ctx, t, nx, ny, 1, &rng) : NULL;
                    grid gu = grid_of(u), gf = {0};
                    if (f) gf = grid_of(f);
                    /* two sweeps: the second starts from what the first left */
                    for (int rep = 0; rep < 2; rep++) {
                        const int bw = backward ^ rep;
                        ref_sweep(&gu, f ? &gf : NULL, h2, omega, n, K, bw);
                        assert_stenc_ok(
                            stenc_mlssor_sweep(u, f, h2, omega, n, K == n / 2 && rep ? 0 : K,
                                               bw ? STENC_SWEEP_BACKWARD : STENC_SWEEP_FORWARD));
                    }
                    char what[96];
                    snprintf(what, sizeof what, "n %ld, K %d, %s first%s", n, K,
                             backward ? "backward" : "forward", with_f ? "" : ", f NULL");
                    expect_equal(&gu, u, what);
                    free(gu.v), free(gf.v);
                    stenc_field_free(u), stenc_field_free(f);
                }
            }
        }
    }
}

/* One layer, one tile covering the grid: a plain SOR sweep in lexicographic order, forward
 * then backward (SSOR), written as the textbook loop. */
static void test_one_tile_is_ssor(void **state) {
    (void)state;
    test_rng rng = test_rng_seeded(77);
    const long nx = 23, ny = 17;
    const double h2 = 0.01, omega = 1.6;
    stenc_field *u = make_field(host_ctx, STENC_F64, nx, ny, 1, &rng);
    stenc_field *f = make_field(host_ctx, STENC_F64, nx, ny, 1, &rng);
    double a[19][25], b[19][25]; /* [j+1][i+1] */
    for (long j = -1; j <= ny; j++)
        for (long i = -1; i <= nx; i++) {
            assert_stenc_ok(stenc_field_get(u, i, j, 0, &a[j + 1][i + 1]));
            assert_stenc_ok(stenc_field_get(f, i, j, 0, &b[j + 1][i + 1]));
        }
    for (int dir = 0; dir < 2; dir++) {
        for (long s = 0; s < nx * ny; s++) {
            long p = dir ? nx * ny - 1 - s : s, i = p % nx + 1, j = p / nx + 1;
            a[j][i] = (1 - omega) * a[j][i] +
                      omega * 0.25 *
                          (h2 * b[j][i] + a[j][i - 1] + a[j][i + 1] + a[j - 1][i] + a[j + 1][i]);
        }
        assert_stenc_ok(stenc_mlssor_sweep(u, f, h2, omega, 24, 1,
                                           dir ? STENC_SWEEP_BACKWARD : STENC_SWEEP_FORWARD));
    }
    for (long j = 0; j < ny; j++)
        for (long i = 0; i < nx; i++) {
            double x;
            assert_stenc_ok(stenc_field_get(u, i, j, 0, &x));
            if (x != a[j + 1][i + 1])
                fail_msg("(%ld, %ld): %.17g, want %.17g", i, j, x, a[j + 1][i + 1]);
        }
    stenc_field_free(u), stenc_field_free(f);
}

/* -laplace(u) = f with f = A u* / h2 for a random u* (boundary 0): alternating sweeps must
 * reach u* itself, for several subdomains. */
static void test_converges(void **state) {
    (void)state;
    const long nx = 31, ny = 26;
    const double h2 = 1.0 / (32.0 * 32.0);
    test_rng rng = test_rng_seeded(5);
    double *want = malloc(sizeof(double) * (size_t)(nx * ny));
    assert_non_null(want);
    for (long e = 0; e < nx * ny; e++)
        want[e] = test_rng_uniform(&rng, -1, 1);
    stenc_field *f = make_field(host_ctx, STENC_F64, nx, ny, 1, NULL);
    for (long j = 0; j < ny; j++)
        for (long i = 0; i < nx; i++) {
#define W(ii, jj) ((ii) < 0 || (jj) < 0 || (ii) >= nx || (jj) >= ny ? 0.0 : want[(jj)*nx + (ii)])
            double au = 4 * W(i, j) - W(i - 1, j) - W(i + 1, j) - W(i, j - 1) - W(i, j + 1);
#undef W
            assert_stenc_ok(stenc_field_set(f, i, j, 0, au / h2));
        }
    static const long subdomains[] = {4, 8, 16};
    for (size_t s = 0; s < 3; s++) {
        stenc_field *u = make_field(host_ctx, STENC_F64, nx, ny, 1, NULL);
        double err = 1;
        for (int it = 0; it < 2000 && err > 1e-11; it++) {
            assert_stenc_ok(
                stenc_mlssor_sweep(u, f, h2, 1.8, subdomains[s], 0,
                                   it % 2 ? STENC_SWEEP_BACKWARD : STENC_SWEEP_FORWARD));
            err = 0;
            for (long j = 0; j < ny; j++)
                for (long i = 0; i < nx; i++) {
                    double x;
                    assert_stenc_ok(stenc_field_get(u, i, j, 0, &x));
                    err = fmax(err, fabs(x - want[j * nx + i]));
                }
        }
        if (!(err <= 1e-11))
            fail_msg("subdomain %ld: error %g after 2000 sweeps", subdomains[s], err);
        stenc_field_free(u);
    }
    stenc_field_free(f);
    free(want);
}

static void expect_error(stenc_status got, stenc_status want, const char *needle) {
    if (got != want)
        fail_msg("status %s, want %s (%s)", stenc_status_string(got), stenc_status_string(want),
                 stenc_last_error());
    if (!strstr(stenc_last_error(), needle))
        fail_msg("message '%s' lacks '%s'", stenc_last_error(), needle);
}

static void test_errors(void **state) {
    (void)state;
    stenc_field *u = make_field(host_ctx, STENC_F64, 8, 8, 1, NULL);
    stenc_field *f = make_field(host_ctx, STENC_F64, 8, 8, 0, NULL);
    stenc_field *f32 = make_field(host_ctx, STENC_F32, 8, 8, 1, NULL);
    stenc_field *small = make_field(host_ctx, STENC_F64, 8, 7, 1, NULL);
    stenc_field *nohalo = make_field(host_ctx, STENC_F64, 8, 8, 0, NULL);
    stenc_field *u3 = NULL, *ints = NULL;
    assert_stenc_ok(stenc_field_create(host_ctx, &u3, STENC_F64, 3, 4, 4, 4, 1));
    assert_stenc_ok(stenc_field_create(host_ctx, &ints, STENC_I32, 2, 8, 8, 1, 1));
    const stenc_sweep_dir fw = STENC_SWEEP_FORWARD;
    expect_error(stenc_mlssor_sweep(NULL, f, 1, 1, 4, 0, fw), STENC_ERR_INVALID_ARGUMENT, "u");
    expect_error(stenc_mlssor_sweep(u3, NULL, 1, 1, 4, 0, fw), STENC_ERR_SHAPE, "3-D");
    expect_error(stenc_mlssor_sweep(ints, NULL, 1, 1, 4, 0, fw), STENC_ERR_UNSUPPORTED, "i32");
    expect_error(stenc_mlssor_sweep(nohalo, NULL, 1, 1, 4, 0, fw), STENC_ERR_SHAPE, "halo");
    expect_error(stenc_mlssor_sweep(u, f32, 1, 1, 4, 0, fw), STENC_ERR_SHAPE, "float");
    expect_error(stenc_mlssor_sweep(u, small, 1, 1, 4, 0, fw), STENC_ERR_SHAPE, "8x7");
    expect_error(stenc_mlssor_sweep(u, f, 1, 0, 4, 0, fw), STENC_ERR_INVALID_ARGUMENT, "omega");
    expect_error(stenc_mlssor_sweep(u, f, 1, 2, 4, 0, fw), STENC_ERR_INVALID_ARGUMENT, "omega");
    expect_error(stenc_mlssor_sweep(u, f, 1, NAN, 4, 0, fw), STENC_ERR_INVALID_ARGUMENT, "omega");
    expect_error(stenc_mlssor_sweep(u, f, 0, 1, 4, 0, fw), STENC_ERR_INVALID_ARGUMENT, "h2");
    expect_error(stenc_mlssor_sweep(u, f, INFINITY, 1, 4, 0, fw), STENC_ERR_INVALID_ARGUMENT, "h2");
    expect_error(stenc_mlssor_sweep(u, f, 1, 1, 1, 0, fw), STENC_ERR_INVALID_ARGUMENT, "subdomain");
    expect_error(stenc_mlssor_sweep(u, f, 1, 1, 4, 3, fw), STENC_ERR_INVALID_ARGUMENT, "1..2");
    expect_error(stenc_mlssor_sweep(u, f, 1, 1, 4, -1, fw), STENC_ERR_INVALID_ARGUMENT, "layers");
    expect_error(stenc_mlssor_sweep(u, f, 1, 1, 4, 0, (stenc_sweep_dir)7),
                 STENC_ERR_INVALID_ARGUMENT, "direction");
    /* a failed call leaves u alone */
    double x;
    assert_stenc_ok(stenc_field_get(u, 3, 3, 0, &x));
    assert_true(x == 0.0);
    stenc_field *fs[] = {u, f, f32, small, nohalo, u3, ints};
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++)
        stenc_field_free(fs[i]);
}

/* The GPU: the same sweeps on device fields, against the host's, bit for bit; and fields on
 * two sides. */
static void test_gpu_against_host(void **state) {
    (void)state;
    test_rng rng = test_rng_seeded(31337);
    static const long gsizes[][2] = {{1, 1}, {5, 300}, {37, 23}, {257, 131}, {300, 200}};
    static const long subdomains[] = {2, 4, 5, 8, 16, 32};
    for (int ti = 0; ti < 2; ti++) {
        const stenc_type t = ti ? STENC_F64 : STENC_F32;
        for (size_t si = 0; si < sizeof gsizes / sizeof *gsizes; si++)
            for (size_t ni = 0; ni < sizeof subdomains / sizeof *subdomains; ni++) {
                const long nx = gsizes[si][0], ny = gsizes[si][1], n = subdomains[ni];
                const int K = 1 + (int)(test_rng_u64(&rng) % (uint64_t)(n / 2));
                test_rng r2 = rng;
                stenc_field *hu = make_field(host_ctx, t, nx, ny, 1, &rng);
                stenc_field *hf = make_field(host_ctx, t, nx, ny, 1, &rng);
                stenc_field *du = make_field(gpu_ctx, t, nx, ny, 1, &r2);
                stenc_field *df = make_field(gpu_ctx, t, nx, ny, 1, &r2);
                assert_stenc_ok(stenc_field_upload(du));
                assert_stenc_ok(stenc_field_upload(df));
                for (int rep = 0; rep < 3; rep++) {
                    const stenc_sweep_dir dir =
                        rep % 2 ? STENC_SWEEP_BACKWARD : STENC_SWEEP_FORWARD;
                    assert_stenc_ok(stenc_mlssor_sweep(hu, hf, 0.003, 1.7, n, K, dir));
                    assert_stenc_ok(stenc_mlssor_sweep(du, df, 0.003, 1.7, n, K, dir));
                }
                assert_stenc_ok(stenc_field_download(du));
                grid want = grid_of(hu);
                char what[64];
                snprintf(what, sizeof what, "GPU, n %ld, K %d", n, K);
                expect_equal(&want, du, what);
                free(want.v);
                stenc_field_free(hu), stenc_field_free(hf), stenc_field_free(du),
                    stenc_field_free(df);
            }
    }
    /* u on the device, f on the host */
    stenc_field *du = make_field(gpu_ctx, STENC_F64, 8, 8, 1, NULL);
    stenc_field *hf = make_field(gpu_ctx, STENC_F64, 8, 8, 1, NULL);
    assert_stenc_ok(stenc_field_upload(du));
    expect_error(stenc_mlssor_sweep(du, hf, 1, 1, 4, 0, STENC_SWEEP_FORWARD), STENC_ERR_LOCATION,
                 "host");
    stenc_field_free(du), stenc_field_free(hf);
}

int main(int argc, char **argv) {
    use_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (use_gpu) TEST_REQUIRE_GPU_OR_SKIP();
    assert_stenc_ok(stenc_ctx_create(&host_ctx, STENC_DEVICE_CPU));
    int failed;
    if (use_gpu) {
        assert_stenc_ok(stenc_ctx_create(&gpu_ctx, STENC_DEVICE_CUDA));
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_gpu_against_host)};
        failed = cmocka_run_group_tests(tests, NULL, NULL);
        stenc_ctx_destroy(gpu_ctx);
    } else {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_against_definition),
            cmocka_unit_test(test_one_tile_is_ssor),
            cmocka_unit_test(test_converges),
            cmocka_unit_test(test_errors),
        };
        failed = cmocka_run_group_tests(tests, NULL, NULL);
    }
    stenc_ctx_destroy(host_ctx);
    return failed;
}
