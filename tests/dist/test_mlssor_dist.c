/* MLSSOR on distributed fields under mpirun (1, 2, 3 and 4 ranks; ctest label mpi): several
 * alternating sweeps of every rank's part against the same sweeps of the whole global field by
 * one process (whose sweep test_mlssor checks against the definition), bit for bit at every
 * interior point and the boundary layer, for splits along i, along j and both, halos from one
 * exchange per phase to one per sweep, odd sizes, float and double, with and without f; then
 * the errors, which every rank must return alike. With argument "gpu" the fields live on the
 * device (exit 77 without one). */
#include <mpi.h>

#include "stenc/dist.h"
#include "stenc/sor.h"
#include "test_util.h"
#include "mpi_check.h"

static int on_gpu;
static int world_rank, world_size;

/* Values of global points (halo indices too), different per point and seed, exact in float. */
static double value_at(long i, long j, uint64_t seed) {
    test_rng rng = test_rng_seeded(seed ^ ((uint64_t)(i + 1000) * 1000003u + (uint64_t)(j + 1000)));
    return (double)(int64_t)(test_rng_u64(&rng) % 4097) / 1024.0 - 2.0;
}

/* Every point of the field, halo included, from value_at at its global index. */
static void fill(stenc_field *fld, const size_t lo[2], uint64_t seed) {
    stenc_field_layout L;
    assert_int_equal(stenc_field_get_layout(fld, &L), STENC_OK);
    const long h = (long)L.halo;
    for (long j = -h; j < (long)L.n[1] + h; j++)
        for (long i = -h; i < (long)L.n[0] + h; i++)
            assert_int_equal(
                stenc_field_set(fld, i, j, 0, value_at((long)lo[0] + i, (long)lo[1] + j, seed)),
                STENC_OK);
}

typedef struct sweep_case {
    size_t n[2];
    int procs[3];
    long sub;
    int layers;
    int halo_u, halo_f; /* halo_f 0: no f */
    stenc_type type;
} sweep_case;

/* Collective: one case, 3 sweeps (forward, backward, forward). */
static void run_case(stenc_ctx *ctx, stenc_ctx *self, const sweep_case *c) {
    const size_t n[3] = {c->n[0], c->n[1], 1};
    stenc_decomp *dp = NULL;
    check_status_all(stenc_decomp_create(&dp, ctx, 2, n, c->procs, NULL), STENC_OK, "decomp");
    stenc_decomp_info info;
    stenc_decomp_get_info(dp, &info);
    stenc_field *u = NULL, *f = NULL, *gu = NULL, *gf = NULL;
    check_status_all(stenc_field_create_dist(ctx, &u, dp, c->type, c->halo_u), STENC_OK, "u");
    if (c->halo_f)
        check_status_all(stenc_field_create_dist(ctx, &f, dp, c->type, c->halo_f), STENC_OK, "f");
    assert_int_equal(stenc_field_create(self, &gu, c->type, 2, n[0], n[1], 1, 1), STENC_OK);
    if (c->halo_f)
        assert_int_equal(stenc_field_create(self, &gf, c->type, 2, n[0], n[1], 1, 1), STENC_OK);
    const size_t zero[2] = {0, 0};
    fill(u, info.lo, 11); /* the boundary layer included, also past shared faces' corners */
    fill(gu, zero, 11);
    if (f) fill(f, info.lo, 12), fill(gf, zero, 12);
    if (on_gpu) {
        stenc_field_upload(u), stenc_field_upload(gu);
        if (f) stenc_field_upload(f), stenc_field_upload(gf);
    }
    const double h2 = 1.0 / 64, omega = 1.625;
    char what[300];
    snprintf(what, sizeof what, "%zux%zu over %dx%d ranks, n %ld, K %d, halos %d/%d, %s", n[0],
             n[1], info.procs[0], info.procs[1], c->sub, c->layers, c->halo_u, c->halo_f,
             c->type == STENC_F32 ? "float" : "double");
    for (int s = 0; s < 3; s++) {
        const stenc_sweep_dir dir = s % 2 ? STENC_SWEEP_BACKWARD : STENC_SWEEP_FORWARD;
        check_status_all(stenc_mlssor_sweep(u, f, h2, omega, c->sub, c->layers, dir), STENC_OK,
                         what);
        assert_int_equal(stenc_mlssor_sweep(gu, gf, h2, omega, c->sub, c->layers, dir), STENC_OK);
    }
    if (on_gpu) stenc_field_download(u), stenc_field_download(gu);
    /* This rank's interior, and its boundary layer on physical faces (read, never written). */
    int ok = 1;
    char msg[500] = "";
    const long nx = (long)info.local[0], ny = (long)info.local[1];
    for (long j = -1; j <= ny && ok; j++)
        for (long i = -1; i <= nx && ok; i++) {
            const long gi = (long)info.lo[0] + i, gj = (long)info.lo[1] + j;
            const int inside = i >= 0 && i < nx && j >= 0 && j < ny;
            const int boundary = gi == -1 || gi == (long)n[0] || gj == -1 || gj == (long)n[1];
            if (!inside && !boundary) continue;
            double a, b;
            stenc_field_get(u, i, j, 0, &a);
            stenc_field_get(gu, gi, gj, 0, &b);
            if (memcmp(&a, &b, sizeof a) != 0) {
                ok = 0;
                snprintf(msg, sizeof msg, "%s: point (%ld,%ld) here %.17g, one process %.17g", what,
                         gi, gj, a, b);
            }
        }
    check_all(ok, msg);
    stenc_field_free(u), stenc_field_free(f), stenc_field_free(gu), stenc_field_free(gf);
    stenc_decomp_destroy(dp);
}

static void test_matches_one_process(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL, *self = NULL;
    check_status_all(
        stenc_ctx_create_mpi(&ctx, MPI_COMM_WORLD, on_gpu ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU),
        STENC_OK, "context");
    assert_int_equal(stenc_ctx_create(&self, on_gpu ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU),
                     STENC_OK);
    const int P = world_size;
    /* Splits along j, along i, and 2x2 on 4 ranks. */
    const int splits[][2] = {{1, P}, {P, 1}, {2, 2}};
    /* sub, layers, halo_u, halo_f, type, and what each side has past procs * halo points (odd
     * and even, so that parts start at odd and even indices). */
    const struct {
        long sub;
        int layers, halo_u, halo_f;
        stenc_type type;
        size_t extra[2];
    } base[] = {
        /* phases per exchange: (margin + 1) / (n - 1), margin = min(halo_u - 1, halo_f), at
         * most 4; the cases marked "exact" sit on that limit */
        {2, 1, 2, 1, STENC_F64, {5, 4}},    /* 2 per exchange, exact */
        {3, 1, 2, 0, STENC_F32, {0, 3}},    /* 1, exact; odd subdomain, no f */
        {5, 2, 4, 3, STENC_F64, {2, 9}},    /* 1, exact */
        {5, 0, 8, 7, STENC_F32, {3, 1}},    /* 2, exact */
        {5, 2, 16, 15, STENC_F64, {1, 6}},  /* 4: one exchange per sweep, exact */
        {8, 3, 15, 14, STENC_F64, {7, 2}},  /* 2 */
        {8, 4, 16, 0, STENC_F32, {4, 5}},   /* 2, no f */
        {17, 8, 16, 15, STENC_F64, {6, 3}}, /* 1, exact: the largest subdomain at halo 16 */
        {6, 3, 16, 5, STENC_F32, {1, 1}},   /* 1: f's halo is the limit */
    };
    int cases = 0;
    for (int sp = 0; sp < 3; sp++) {
        if ((sp == 1 && P == 1) || (sp == 2 && P != 4)) continue;
        for (size_t k = 0; k < sizeof base / sizeof base[0]; k++) {
            sweep_case c = {{0, 0},         {splits[sp][0], splits[sp][1], 1},
                            base[k].sub,    base[k].layers,
                            base[k].halo_u, base[k].halo_f,
                            base[k].type};
            for (int d = 0; d < 2; d++) /* parts at least a halo wide, and not too small */
                c.n[d] =
                    (size_t)c.procs[d] * (size_t)(c.halo_u > 9 ? c.halo_u : 9) + base[k].extra[d];
            run_case(ctx, self, &c);
            cases++;
        }
    }
    check_all(cases > 0, "no case ran");
    stenc_ctx_destroy(self);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

static void expect_all(stenc_status got, stenc_status want, const char *needle) {
    char msg[700];
    snprintf(msg, sizeof msg, "status %s, expected %s; message '%s' should name '%s'",
             stenc_status_string(got), stenc_status_string(want), stenc_last_error(), needle);
    check_all(got == want && strstr(stenc_last_error(), needle) != NULL, msg);
}

static void test_errors_agree(void **state) {
    (void)state;
    stenc_ctx *ctx = NULL;
    check_status_all(
        stenc_ctx_create_mpi(&ctx, MPI_COMM_WORLD, on_gpu ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU),
        STENC_OK, "context");
    const size_t n[3] = {20 * (size_t)world_size, 20 * (size_t)world_size, 1};
    stenc_decomp *dp = NULL, *other = NULL, *periodic = NULL;
    const int procs_j[3] = {1, world_size, 1}, procs_i[3] = {world_size, 1, 1}, wrap[3] = {0, 1, 0};
    check_status_all(stenc_decomp_create(&dp, ctx, 2, n, procs_j, NULL), STENC_OK, "decomp");
    check_status_all(stenc_decomp_create(&other, ctx, 2, n, procs_i, NULL), STENC_OK,
                     "other decomp");
    check_status_all(stenc_decomp_create(&periodic, ctx, 2, n, procs_j, wrap), STENC_OK,
                     "periodic decomp");
    stenc_field *u = NULL, *f = NULL, *g = NULL, *w = NULL, *local = NULL;
    check_status_all(stenc_field_create_dist(ctx, &u, dp, STENC_F64, 5), STENC_OK, "u");
    check_status_all(stenc_field_create_dist(ctx, &f, dp, STENC_F64, 1), STENC_OK, "f");
    check_status_all(stenc_field_create_dist(ctx, &g, other, STENC_F64, 5), STENC_OK, "g");
    check_status_all(stenc_field_create_dist(ctx, &w, periodic, STENC_F64, 5), STENC_OK, "w");
    assert_int_equal(stenc_field_create(ctx, &local, STENC_F64, 2, n[0], 20, 1, 1), STENC_OK);
    if (on_gpu) {
        stenc_field_upload(u), stenc_field_upload(f), stenc_field_upload(g);
        stenc_field_upload(w), stenc_field_upload(local);
    }
    if (world_size > 1) {
        /* halo 5 and subdomain 8 across a shared face: too shallow for one phase */
        expect_all(stenc_mlssor_sweep(u, NULL, 1, 1.5, 8, 0, STENC_SWEEP_FORWARD), STENC_ERR_SHAPE,
                   "needs halos of at least 7 on u");
        /* f's halo 1 is too shallow for subdomain 4 (it needs 2; u's 5 would do) */
        expect_all(stenc_mlssor_sweep(u, f, 1, 1.5, 4, 0, STENC_SWEEP_FORWARD), STENC_ERR_SHAPE,
                   "f's 1");
    }
    /* split alike but one periodic: another decomposition */
    expect_all(stenc_mlssor_sweep(u, w, 1, 1.5, 2, 0, STENC_SWEEP_FORWARD), STENC_ERR_SHAPE,
               "another decomposition");
    /* periodic along j */
    expect_all(stenc_mlssor_sweep(w, NULL, 1, 1.5, 2, 0, STENC_SWEEP_FORWARD),
               STENC_ERR_UNSUPPORTED, "periodic along j");
    /* one distributed, the other not */
    expect_all(stenc_mlssor_sweep(u, local, 1, 1.5, 4, 0, STENC_SWEEP_FORWARD), STENC_ERR_SHAPE,
               "not split alike");
    /* one rank alone passes a bad omega: every rank fails with its status */
    const double omega = world_rank == world_size - 1 ? 2.5 : 1.5;
    expect_all(stenc_mlssor_sweep(u, NULL, 1, omega, 2, 0, STENC_SWEEP_FORWARD),
               STENC_ERR_INVALID_ARGUMENT, "omega");
    stenc_field_free(local);
    stenc_field_free(u), stenc_field_free(f), stenc_field_free(g), stenc_field_free(w);
    stenc_decomp_destroy(dp), stenc_decomp_destroy(other), stenc_decomp_destroy(periodic);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && stenc_cuda_device_count() == 0) {
        if (world_rank == 0) printf("no CUDA device: skipped\n");
        MPI_Finalize();
        return STENC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_one_process),
        cmocka_unit_test(test_errors_agree),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
