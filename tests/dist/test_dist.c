/* Distributed fields under mpirun (1, 2, 4 ranks; ctest label mpi): decompositions, halo
 * exchange against stenc_field_fill_halo() of the whole global field held by one process,
 * exact global reductions against sums known exactly and against one rank's result, gather
 * and scatter, heat3d steps bitwise equal to one process's, and bad input that must fail with
 * the same status on every rank.
 *
 * Every check is collective (check_all): a rank never leaves a test early while the others
 * wait in MPI. With argument "gpu" the fields live on the device (exit 77 without one). */
#include <mpi.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gs_redblack.h"
#include "heat3d.h"
#include "jacobi2d.h"
#include "dot3d.h"
#include "residual_norm.h"
#include "seidel2d.h"
#include "stretched2d.h"
#include "stenc/dist.h"
#include "stenc/io.h"
#include "stenc/multiblock.h"
#include "test_util.h"
#include "mpi_check.h"

static int on_gpu;
static int world_rank, world_size;

static stenc_ctx *make_ctx(MPI_Comm comm) {
    stenc_ctx *ctx = NULL;
    stenc_status st =
        stenc_ctx_create_mpi(&ctx, comm, on_gpu ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU);
    check_status_all(st, STENC_OK, "stenc_ctx_create_mpi");
    return ctx;
}

/* A value for global point (i, j, k) that no other point shares, exact in float. */
static double global_value(long i, long j, long k, uint64_t seed) {
    uint64_t s =
        seed ^ ((uint64_t)(i + 64) * 1000003u + (uint64_t)(j + 64) * 10007u + (uint64_t)(k + 64));
    test_rng rng = test_rng_seeded(s);
    return (double)(int64_t)(test_rng_u64(&rng) % 2000001) / 1024.0 - 976.0;
}

/* global_value for a field of `type`: a whole number of it for the integer types. */
static double typed_value(stenc_type type, long i, long j, long k, uint64_t seed) {
    const double v = global_value(i, j, k, seed);
    if (type == STENC_U8) return fmod(fabs(v) * 1024.0, 200.0);
    if (type == STENC_I32) return v * 1024.0;
    return v;
}

static void fill_local(stenc_field *f, const stenc_decomp_info *info, uint64_t seed) {
    stenc_field_layout L;
    assert_int_equal(stenc_field_get_layout(f, &L), STENC_OK);
    for (size_t k = 0; k < L.n[2]; k++)
        for (size_t j = 0; j < L.n[1]; j++)
            for (size_t i = 0; i < L.n[0]; i++)
                assert_int_equal(stenc_field_set(f, (long)i, (long)j, (long)k,
                                                 typed_value(L.type, (long)(info->lo[0] + i),
                                                             (long)(info->lo[1] + j),
                                                             (long)(info->lo[2] + k), seed)),
                                 STENC_OK);
}

/* Collective: this rank's part of `local` equals, bit for bit, the same box of `global` (a
 * field of the whole grid held by this process); `what` leads the first mismatch's message. */
static void check_part_matches(const stenc_field *local, const stenc_decomp_info *info,
                               const stenc_field *global, const char *what) {
    int ok = 1;
    char msg[300] = "";
    for (size_t k = 0; k < info->local[2] && ok; k++)
        for (size_t j = 0; j < info->local[1] && ok; j++)
            for (size_t i = 0; i < info->local[0] && ok; i++) {
                double a, b;
                stenc_field_get(local, (long)i, (long)j, (long)k, &a);
                stenc_field_get(global, (long)(info->lo[0] + i), (long)(info->lo[1] + j),
                                (long)(info->lo[2] + k), &b);
                if (memcmp(&a, &b, sizeof a) != 0) {
                    ok = 0;
                    snprintf(msg, sizeof msg,
                             "%s: point (%zu,%zu,%zu) here %.17g, one process %.17g", what,
                             info->lo[0] + i, info->lo[1] + j, info->lo[2] + k, a, b);
                }
            }
    check_all(ok, msg);
}

/* ---- decompositions ------------------------------------------------------------------------ */

static void test_decomp_covers_grid(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    const size_t sizes[][3] = {{13, 7, 5}, {64, 3, 9}, {5, 5, 5}, {1000, 1, 1}};
    for (int c = 0; c < 4; c++)
        for (int dims = 1; dims <= 3; dims++) {
            size_t n[3] = {sizes[c][0], dims > 1 ? sizes[c][1] : 1, dims > 2 ? sizes[c][2] : 1};
            stenc_decomp *d = NULL;
            stenc_status st = stenc_decomp_create(&d, ctx, dims, n, NULL, NULL);
            /* A split that leaves a rank without points must fail everywhere. */
            int could = 1, p = world_size, fits = 0;
            (void)could, (void)p;
            if (st != STENC_OK) {
                check_status_all(st, STENC_ERR_SHAPE, "decomposition too fine");
                continue;
            }
            fits = 1;
            stenc_decomp_info info;
            assert_int_equal(stenc_decomp_get_info(d, &info), STENC_OK);
            check_all(info.procs[0] * info.procs[1] * info.procs[2] == world_size, "procs product");
            /* Count, on rank 0, how often every global point is owned. */
            unsigned long long box[6] = {info.lo[0],    info.lo[1],    info.lo[2],
                                         info.local[0], info.local[1], info.local[2]};
            unsigned long long *all = malloc(sizeof box * (size_t)world_size);
            MPI_Allgather(box, 6, MPI_UNSIGNED_LONG_LONG, all, 6, MPI_UNSIGNED_LONG_LONG,
                          MPI_COMM_WORLD);
            size_t total = n[0] * n[1] * n[2];
            unsigned char *owned = calloc(total, 1);
            int ok = 1;
            size_t smallest = total, largest = 0;
            for (int r = 0; r < world_size; r++) {
                const unsigned long long *b = all + 6 * r;
                for (int dd = 0; dd < 3; dd++) {
                    smallest = b[3 + dd] < smallest ? b[3 + dd] : smallest;
                    largest = b[3 + dd] > largest ? b[3 + dd] : largest;
                }
                for (size_t k = 0; k < b[5]; k++)
                    for (size_t j = 0; j < b[4]; j++)
                        for (size_t i = 0; i < b[3]; i++) {
                            size_t g = (b[0] + i) + n[0] * ((b[1] + j) + n[1] * (b[2] + k));
                            if (g >= total)
                                ok = 0;
                            else
                                owned[g]++;
                        }
            }
            for (size_t g = 0; g < total; g++)
                if (owned[g] != 1) ok = 0;
            check_all(ok && smallest >= 1 && fits, "every point owned by exactly one rank");
            free(owned);
            free(all);
            assert_int_equal(stenc_decomp_destroy(d), STENC_OK);
        }
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- halo exchange ----------------------------------------------------------------------- */

/* Exchange a distributed field and compare every halo point (faces only with FACES) with
 * the halo that stenc_field_fill_halo() gives the whole global field in one process. */
static void exchange_case(stenc_ctx *ctx, stenc_ctx *self, int dims, const size_t n[3],
                          stenc_type type, int halo, const stenc_bc bc[6], unsigned flags,
                          int split_begin, uint64_t seed) {
    int periodic[3] = {0, 0, 0};
    for (int d = 0; d < dims; d++)
        periodic[d] = bc[2 * d].kind == STENC_BC_PERIODIC;
    stenc_decomp *dp = NULL;
    stenc_status st = stenc_decomp_create(&dp, ctx, dims, n, NULL, periodic);
    if (st != STENC_OK) { /* too many ranks for this grid: fine, if every rank says so */
        check_status_all(st, STENC_ERR_SHAPE, "decomposition");
        return;
    }
    stenc_field *f = NULL;
    st = stenc_field_create_dist(ctx, &f, dp, type, halo);
    if (st != STENC_OK) {
        check_status_all(st, STENC_ERR_SHAPE, "field wider halo than a part");
        stenc_decomp_destroy(dp);
        return;
    }
    stenc_decomp_info info;
    assert_int_equal(stenc_decomp_get_info(dp, &info), STENC_OK);
    /* Garbage in the halo first, so that a halo point the exchange forgets shows. */
    assert_int_equal(stenc_field_fill(f, type == STENC_U8 ? 251.0 : -12345.0), STENC_OK);
    fill_local(f, &info, seed);
    if (on_gpu) assert_int_equal(stenc_field_upload(f), STENC_OK);
    if (split_begin) {
        st = stenc_field_exchange_begin(f, bc, flags);
        check_status_all(st, STENC_OK, "exchange_begin");
        check_status_all(stenc_field_exchange_begin(f, bc, flags), STENC_ERR_INVALID_ARGUMENT,
                         "a second begin");
        st = stenc_field_exchange_end(f);
        check_status_all(st, STENC_OK, "exchange_end");
    } else {
        st = stenc_field_exchange(f, bc, flags);
        check_status_all(st, STENC_OK, "exchange");
    }
    if (on_gpu) assert_int_equal(stenc_field_download(f), STENC_OK);

    /* The reference: the global field, in this process, filled by stenc_field_fill_halo. */
    stenc_field *g = NULL;
    assert_int_equal(stenc_field_create(self, &g, type, dims, n[0], n[1], n[2], halo), STENC_OK);
    for (size_t k = 0; k < n[2]; k++)
        for (size_t j = 0; j < n[1]; j++)
            for (size_t i = 0; i < n[0]; i++)
                assert_int_equal(
                    stenc_field_set(g, (long)i, (long)j, (long)k,
                                    typed_value(type, (long)i, (long)j, (long)k, seed)),
                    STENC_OK);
    assert_int_equal(stenc_field_fill_halo(g, bc), STENC_OK);
    stenc_field_layout L;
    stenc_field_get_layout(f, &L);
    const long h[3] = {halo, dims > 1 ? halo : 0, dims > 2 ? halo : 0};
    int ok = 1;
    char msg[400] = "";
    for (long k = -h[2]; k < (long)L.n[2] + h[2] && ok; k++)
        for (long j = -h[1]; j < (long)L.n[1] + h[1] && ok; j++)
            for (long i = -h[0]; i < (long)L.n[0] + h[0] && ok; i++) {
                const int out = (i < 0 || i >= (long)L.n[0]) + (j < 0 || j >= (long)L.n[1]) +
                                (k < 0 || k >= (long)L.n[2]);
                if ((flags & STENC_EXCHANGE_FACES) && out > 1) continue; /* edges, corners */
                double got = 0, want = 0;
                stenc_field_get(f, i, j, k, &got);
                stenc_field_get(g, (long)info.lo[0] + i, (long)info.lo[1] + j, (long)info.lo[2] + k,
                                &want);
                if (memcmp(&got, &want, sizeof got) != 0) {
                    ok = 0;
                    snprintf(msg, sizeof msg,
                             "%dD %zux%zux%zu %s halo %d flags %u: local (%ld,%ld,%ld) = %g, "
                             "global (%ld,%ld,%ld) = %g",
                             dims, n[0], n[1], n[2], stenc_type_name(type), halo, flags, i, j, k,
                             got, (long)info.lo[0] + i, (long)info.lo[1] + j, (long)info.lo[2] + k,
                             want);
                }
            }
    check_all(ok, msg);
    stenc_field_free(g);
    assert_int_equal(stenc_field_free(f), STENC_OK);
    assert_int_equal(stenc_decomp_destroy(dp), STENC_OK);
}

static void test_exchange_matches_global_fill(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    stenc_ctx *self = NULL;
    assert_int_equal(stenc_ctx_create(&self, STENC_DEVICE_CPU), STENC_OK);
    const stenc_bc D = {STENC_BC_DIRICHLET, 3.5}, N = {STENC_BC_NEUMANN, 0},
                   P = {STENC_BC_PERIODIC, 0}, Z = {STENC_BC_NONE, 0};
    const stenc_bc cases[][6] = {
        {D, N, N, D, D, D}, {P, P, P, P, P, P}, {N, N, P, P, D, N}, {P, P, D, N, P, P}};
    const size_t sizes[][3] = {{13, 7, 6}, {9, 10, 11}, {33, 5, 4}};
    uint64_t seed = 1;
    for (int c = 0; c < 4; c++)
        for (int s = 0; s < 3; s++)
            for (int dims = 1; dims <= 3; dims++)
                for (int halo = 1; halo <= 2; halo++)
                    for (int t = 0; t < 2; t++) {
                        stenc_bc bc[6];
                        memcpy(bc, cases[c], sizeof bc);
                        for (int f = 2 * dims; f < 6; f++)
                            bc[f] = Z;
                        const size_t n[3] = {sizes[s][0], dims > 1 ? sizes[s][1] : 1,
                                             dims > 2 ? sizes[s][2] : 1};
                        const stenc_type type = t ? STENC_F64 : STENC_F32;
                        exchange_case(ctx, self, dims, n, type, halo, bc, 0, (int)(seed & 1), seed);
                        seed++;
                        exchange_case(ctx, self, dims, n, type, halo, bc, STENC_EXCHANGE_FACES,
                                      (int)(seed & 1), seed);
                        seed++;
                    }
    /* A halo of 3 on a small grid. */
    const size_t n3[3] = {17, 12, 9};
    exchange_case(ctx, self, 3, n3, STENC_F64, 3, cases[2], 0, 1, 99);
    /* Integer fields (i32 and u8: 4- and 1-byte elements), Dirichlet values whole numbers. */
    for (int c = 0; c < 4; c++)
        for (int t = 0; t < 2; t++) {
            stenc_bc bc[6];
            memcpy(bc, cases[c], sizeof bc);
            for (int f = 0; f < 6; f++)
                if (bc[f].kind == STENC_BC_DIRICHLET) bc[f].value = 3;
            const stenc_type type = t ? STENC_U8 : STENC_I32;
            exchange_case(ctx, self, 3, sizes[1], type, 2, bc, 0, c & 1, 200 + (uint64_t)c);
            const size_t n2[3] = {sizes[2][0], sizes[2][1], 1};
            exchange_case(ctx, self, 2, n2, type, 1, bc, STENC_EXCHANGE_FACES, 0,
                          300 + (uint64_t)c);
        }
    stenc_ctx_destroy(self);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- reductions -------------------------------------------------------------------------- */

static void test_reductions_exact_and_rank_independent(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    stenc_ctx *self = NULL; /* one rank holding the whole grid: the result to match bitwise */
    int self_rank_ok = 1;
    (void)self_rank_ok;
    stenc_status st =
        stenc_ctx_create_mpi(&self, MPI_COMM_SELF, on_gpu ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU);
    check_status_all(st, STENC_OK, "ctx on MPI_COMM_SELF");
    const size_t n[3] = {37, 19, 11};
    for (int t = 0; t < 2; t++) {
        const stenc_type type = t ? STENC_F64 : STENC_F32;
        stenc_decomp *dp = NULL, *dp1 = NULL;
        check_status_all(stenc_decomp_create(&dp, ctx, 3, n, NULL, NULL), STENC_OK, "decomp");
        check_status_all(stenc_decomp_create(&dp1, self, 3, n, NULL, NULL), STENC_OK, "decomp 1");
        stenc_field *a = NULL, *b = NULL, *a1 = NULL, *b1 = NULL;
        check_status_all(stenc_field_create_dist(ctx, &a, dp, type, 1), STENC_OK, "a");
        check_status_all(stenc_field_create_dist(ctx, &b, dp, type, 2), STENC_OK, "b");
        check_status_all(stenc_field_create_dist(self, &a1, dp1, type, 0), STENC_OK, "a1");
        check_status_all(stenc_field_create_dist(self, &b1, dp1, type, 1), STENC_OK, "b1");
        stenc_decomp_info info, info1;
        stenc_decomp_get_info(dp, &info);
        stenc_decomp_get_info(dp1, &info1);
        fill_local(a, &info, 11);
        fill_local(b, &info, 22);
        fill_local(a1, &info1, 11);
        fill_local(b1, &info1, 22);
        /* Exact references: the values are k/1024 with integer k, so sums of them (and of their
         * products, k/2^20) are exact in int64 arithmetic. */
        int64_t sum_a = 0, dot_ab = 0, ss_a = 0;
        double max_a = 0;
        for (size_t k = 0; k < n[2]; k++)
            for (size_t j = 0; j < n[1]; j++)
                for (size_t i = 0; i < n[0]; i++) {
                    const double x = global_value((long)i, (long)j, (long)k, 11);
                    const double y = global_value((long)i, (long)j, (long)k, 22);
                    const int64_t xi = (int64_t)(x * 1024), yi = (int64_t)(y * 1024);
                    sum_a += xi;
                    dot_ab += xi * yi;
                    ss_a += xi * xi;
                    max_a = fabs(x) > max_a ? fabs(x) : max_a;
                }
        if (on_gpu) {
            stenc_field_upload(a), stenc_field_upload(b), stenc_field_upload(a1),
                stenc_field_upload(b1);
        }
        double r[5], r1[5];
        check_status_all(stenc_field_sum(a, &r[0]), STENC_OK, "sum");
        check_status_all(stenc_field_dot(a, b, &r[1]), STENC_OK, "dot");
        check_status_all(stenc_field_sum_squares(a, &r[2]), STENC_OK, "sum_squares");
        check_status_all(stenc_field_norm_max(a, &r[3]), STENC_OK, "norm_max");
        check_status_all(stenc_field_norm2(a, &r[4]), STENC_OK, "norm2");
        stenc_field_sum(a1, &r1[0]), stenc_field_dot(a1, b1, &r1[1]);
        stenc_field_sum_squares(a1, &r1[2]), stenc_field_norm_max(a1, &r1[3]);
        stenc_field_norm2(a1, &r1[4]);
        const double exact[4] = {(double)sum_a / 1024.0, (double)dot_ab / 1048576.0,
                                 (double)ss_a / 1048576.0, max_a};
        char msg[300];
        snprintf(msg, sizeof msg, "%s: sum %.17g (exact %.17g) dot %.17g (%.17g) ss %.17g (%.17g)",
                 stenc_type_name(type), r[0], exact[0], r[1], exact[1], r[2], exact[2]);
        check_all(r[0] == exact[0] && r[1] == exact[1] && r[2] == exact[2] && r[3] == exact[3] &&
                      r[4] == sqrt(exact[2]),
                  msg);
        check_all(memcmp(r, r1, sizeof r) == 0, "the same bits as one rank holding the whole grid");
        /* Every rank holds the same result. */
        double r0[5];
        memcpy(r0, r, sizeof r);
        MPI_Bcast(r0, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        check_all(memcmp(r, r0, sizeof r) == 0, "every rank the same result");
        stenc_field_free(a), stenc_field_free(b), stenc_field_free(a1), stenc_field_free(b1);
        stenc_decomp_destroy(dp), stenc_decomp_destroy(dp1);
    }
    stenc_ctx_destroy(self);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* Cancellation and special values: a compensated or naive sum loses the small terms. */
static void test_reduction_cancellation_and_specials(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    const size_t n[3] = {8, 3, 5};
    stenc_decomp *dp = NULL;
    check_status_all(stenc_decomp_create(&dp, ctx, 3, n, NULL, NULL), STENC_OK, "decomp");
    stenc_field *f = NULL;
    check_status_all(stenc_field_create_dist(ctx, &f, dp, STENC_F64, 1), STENC_OK, "field");
    stenc_decomp_info info;
    stenc_decomp_get_info(dp, &info);
    /* Global point p holds 1e300 at p = 0, -1e300 at the last point, 2^-1000 at p = 5 and 1
     * elsewhere: the exact sum is (points - 3) + 2^-1000, whose nearest double is points - 3,
     * where a naive or compensated sum in rank order gives 0 or loses the ones. Pass 1 puts
     * 3 * 2^-60 at p = 9; pass 2 a NaN at p = 11. */
    const size_t total = n[0] * n[1] * n[2];
    for (int pass = 0; pass < 3; pass++) {
        stenc_field_layout L;
        stenc_field_get_layout(f, &L);
        if (on_gpu) stenc_field_download(f);
        for (size_t k = 0; k < L.n[2]; k++)
            for (size_t j = 0; j < L.n[1]; j++)
                for (size_t i = 0; i < L.n[0]; i++) {
                    size_t g =
                        (info.lo[0] + i) + n[0] * ((info.lo[1] + j) + n[1] * (info.lo[2] + k));
                    double v = 1.0;
                    if (g == 0) v = 1e300;
                    if (g == total - 1) v = -1e300;
                    if (g == 5) v = ldexp(1.0, -1000);
                    if (pass == 1 && g == 9) v = ldexp(3.0, -60);
                    if (pass == 2 && g == 11) v = NAN;
                    stenc_field_set(f, (long)i, (long)j, (long)k, v);
                }
        if (on_gpu) stenc_field_upload(f);
        double sum = 0, mx = 0;
        check_status_all(stenc_field_sum(f, &sum), STENC_OK, "sum");
        check_status_all(stenc_field_norm_max(f, &mx), STENC_OK, "norm_max");
        double want = (double)(total - 3);
        if (pass == 1) want = (double)(total - 4) + ldexp(3.0, -60); /* total-4 ones + 3*2^-60 */
        char msg[200];
        snprintf(msg, sizeof msg, "pass %d: sum %.17g want %.17g, max %g", pass, sum, want, mx);
        if (pass < 2)
            check_all(sum == want && mx == 1e300, msg);
        else
            check_all(isnan(sum) && isnan(mx), msg);
    }
    stenc_field_free(f);
    stenc_decomp_destroy(dp);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- gather and scatter ------------------------------------------------------------------ */

static void test_gather_scatter(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    const size_t n[3] = {11, 6, 7};
    stenc_decomp *dp = NULL;
    check_status_all(stenc_decomp_create(&dp, ctx, 3, n, NULL, NULL), STENC_OK, "decomp");
    stenc_field *f = NULL;
    check_status_all(stenc_field_create_dist(ctx, &f, dp, STENC_F32, 1), STENC_OK, "field");
    const size_t total = n[0] * n[1] * n[2];
    float *global = malloc(total * sizeof *global), *back = calloc(total, sizeof *back);
    test_rng rng = test_rng_seeded(5);
    for (size_t p = 0; p < total; p++)
        global[p] = (float)test_rng_uniform(&rng, -1, 1);
    const int root = world_size - 1;
    if (on_gpu) stenc_field_upload(f);
    check_status_all(stenc_field_scatter(f, root, world_rank == root ? global : NULL), STENC_OK,
                     "scatter");
    check_status_all(stenc_field_gather(f, root, world_rank == root ? back : NULL), STENC_OK,
                     "gather");
    int ok = world_rank != root || memcmp(global, back, total * sizeof *back) == 0;
    check_all(ok, "gather(scatter(x)) == x on the root");
    /* Each rank's part is the global array's box. */
    stenc_decomp_info info;
    stenc_decomp_get_info(dp, &info);
    if (on_gpu) stenc_field_download(f);
    ok = 1;
    for (size_t k = 0; k < info.local[2]; k++)
        for (size_t j = 0; j < info.local[1]; j++)
            for (size_t i = 0; i < info.local[0]; i++) {
                double v;
                stenc_field_get(f, (long)i, (long)j, (long)k, &v);
                size_t g = (info.lo[0] + i) + n[0] * ((info.lo[1] + j) + n[1] * (info.lo[2] + k));
                if ((float)v != global[g]) ok = 0;
            }
    check_all(ok, "scattered parts");
    check_status_all(stenc_field_gather(f, world_size, back), STENC_ERR_INVALID_ARGUMENT,
                     "bad root");
    free(global), free(back);
    stenc_field_free(f);
    stenc_decomp_destroy(dp);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- multigrid transfers between distributed levels ------------------------------------------ */

/* A distributed field of dp filled with global_value(seed) (on the device when on_gpu), and
 * the whole grid's ordinary field on `self` with the same values. */
static void make_level(stenc_ctx *ctx, stenc_ctx *self, const stenc_decomp *dp, stenc_type type,
                       uint64_t seed, stenc_field **part, stenc_field **whole) {
    stenc_decomp_info info;
    stenc_decomp_get_info(dp, &info);
    check_status_all(stenc_field_create_dist(ctx, part, dp, type, 1), STENC_OK, "level part");
    assert_int_equal(
        stenc_field_create(self, whole, type, info.dims, info.n[0], info.n[1], info.n[2], 1),
        STENC_OK);
    fill_local(*part, &info, seed);
    for (size_t k = 0; k < info.n[2]; k++)
        for (size_t j = 0; j < info.n[1]; j++)
            for (size_t i = 0; i < info.n[0]; i++)
                stenc_field_set(*whole, (long)i, (long)j, (long)k,
                                global_value((long)i, (long)j, (long)k, seed));
    if (on_gpu) stenc_field_upload(*part), stenc_field_upload(*whole);
}

static void check_level(stenc_field *part, const stenc_decomp *dp, stenc_field *whole,
                        const char *what) {
    stenc_decomp_info info;
    stenc_decomp_get_info(dp, &info);
    if (on_gpu) stenc_field_download(part), stenc_field_download(whole);
    check_part_matches(part, &info, whole, what);
    if (on_gpu) stenc_field_upload(part), stenc_field_upload(whole);
}

/* Restriction (full weighting, injection) and prolongation between a distributed level and
 * its stenc_decomp_coarsen() level, in 2-D and 3-D, float and double, at odd sizes whose
 * parts start at odd and even indices, against stenc_mg_restrict / _prolong_add on the whole
 * grids held by one process: every point, bit for bit. Then agglomeration: the fine level
 * gathered into an ordinary field on the last rank and scattered back. */
static void test_multigrid_transfers_match_whole_grid(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    stenc_ctx *self = NULL;
    assert_int_equal(stenc_ctx_create(&self, on_gpu ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU),
                     STENC_OK);
    const size_t sizes[2][3] = {{45, 21, 1}, {23, 11, 13}};
    const stenc_bc bc[6] = {{STENC_BC_DIRICHLET, 0.5},  {STENC_BC_DIRICHLET, -2.0},
                            {STENC_BC_DIRICHLET, 0.25}, {STENC_BC_DIRICHLET, 1.0},
                            {STENC_BC_DIRICHLET, 3.0},  {STENC_BC_DIRICHLET, -1.5}};
    for (int dims = 2; dims <= 3; dims++)
        for (int t = 0; t < 2; t++) {
            const stenc_type type = t ? STENC_F64 : STENC_F32;
            stenc_decomp *fd = NULL, *cd = NULL;
            check_status_all(stenc_decomp_create(&fd, ctx, dims, sizes[dims - 2], NULL, NULL),
                             STENC_OK, "fine decomp");
            check_status_all(stenc_decomp_coarsen(&cd, fd), STENC_OK, "stenc_decomp_coarsen");
            stenc_decomp_info fi, ci;
            stenc_decomp_get_info(fd, &fi);
            stenc_decomp_get_info(cd, &ci);
            int ok = 1;
            for (int d = 0; d < dims; d++) /* coarse I on fine 2I+1: this rank's own points */
                ok &= ci.n[d] == (fi.n[d] - 1) / 2 && ci.lo[d] == fi.lo[d] / 2 &&
                      2 * ci.lo[d] + 1 >= fi.lo[d] &&
                      2 * (ci.lo[d] + ci.local[d] - 1) + 1 < fi.lo[d] + fi.local[d];
            check_all(ok, "coarse parts sit on the fine parts");

            stenc_field *f = NULL, *gf = NULL, *c = NULL, *gc = NULL;
            make_level(ctx, self, fd, type, 41, &f, &gf);
            make_level(ctx, self, cd, type, 42, &c, &gc);
            for (int op = 0; op < 2; op++) {
                const stenc_mg_restriction r = op ? STENC_MG_INJECTION : STENC_MG_FULL_WEIGHTING;
                check_status_all(stenc_dist_mg_restrict(c, f, r), STENC_OK, "dist restrict");
                assert_int_equal(stenc_mg_restrict(gc, gf, STENC_MG_GRID_INTERIOR, r), STENC_OK);
                check_level(c, cd, gc, op ? "restriction (injection)" : "restriction");
            }
            assert_int_equal(stenc_field_fill_halo(gc, bc), STENC_OK);
            check_status_all(stenc_dist_mg_prolong_add(f, c, bc), STENC_OK, "dist prolong");
            assert_int_equal(stenc_mg_prolong_add(gf, gc, STENC_MG_GRID_INTERIOR), STENC_OK);
            check_level(f, fd, gf, "prolongation");

            /* Agglomeration: gather onto the last rank, change it there, scatter back. */
            const int root = world_size - 1;
            stenc_field *whole = NULL;
            if (world_rank == root) {
                assert_int_equal(
                    stenc_field_create(self, &whole, type, dims, fi.n[0], fi.n[1], fi.n[2], 0),
                    STENC_OK);
                if (on_gpu) stenc_field_upload(whole);
            }
            check_status_all(stenc_field_gather_field(f, root, whole), STENC_OK, "gather_field");
            check_all(world_rank != root ||
                          stenc_mg_prolong_add(whole, gc, STENC_MG_GRID_INTERIOR) == STENC_OK,
                      "prolongation on the root");
            assert_int_equal(stenc_mg_prolong_add(gf, gc, STENC_MG_GRID_INTERIOR), STENC_OK);
            check_status_all(stenc_field_scatter_field(f, root, whole), STENC_OK, "scatter_field");
            check_level(f, fd, gf, "gathered, prolonged on the root, scattered");
            /* A whole field of the wrong shape fails on every rank, and writes nothing. */
            stenc_field *wrong = NULL;
            if (world_rank == root)
                assert_int_equal(
                    stenc_field_create(self, &wrong, type, dims, fi.n[0] + 1, fi.n[1], fi.n[2], 0),
                    STENC_OK);
            check_status_all(stenc_field_gather_field(f, root, wrong), STENC_ERR_SHAPE,
                             "gather_field, wrong shape");
            check_status_all(stenc_field_scatter_field(f, root, wrong), STENC_ERR_SHAPE,
                             "scatter_field, wrong shape");
            check_level(f, fd, gf, "after refused calls");
            /* Levels that are not a coarsening of each other. */
            check_status_all(stenc_dist_mg_restrict(f, f, STENC_MG_FULL_WEIGHTING), STENC_ERR_SHAPE,
                             "restrict onto the fine decomposition");
            check_status_all(stenc_dist_mg_prolong_add(c, f, bc), STENC_ERR_SHAPE,
                             "prolong from the fine level");
            stenc_field_free(wrong), stenc_field_free(whole);
            stenc_field_free(f), stenc_field_free(gf), stenc_field_free(c), stenc_field_free(gc);
            stenc_decomp_destroy(cd), stenc_decomp_destroy(fd);
        }

    /* Coarsening refused on every rank: an even extent; a grid too small for the ranks (3
     * points over 2 ranks, 5 over 4: some own no coarse point); a periodic dimension. */
    stenc_decomp *fd = NULL, *cd = NULL;
    const size_t even[3] = {10, 9, 1}, small[3] = {world_size == 2 ? 3 : 5, 3, 1};
    const int along_i[3] = {world_size, 1, 1}, periodic[3] = {0, 1, 0};
    check_status_all(stenc_decomp_create(&fd, ctx, 2, even, along_i, NULL), STENC_OK, "decomp");
    check_status_all(stenc_decomp_coarsen(&cd, fd), STENC_ERR_SHAPE, "coarsen an even extent");
    check_all(cd == NULL, "no decomposition after a refusal");
    stenc_decomp_destroy(fd);
    if (world_size > 1) {
        check_status_all(stenc_decomp_create(&fd, ctx, 2, small, along_i, NULL), STENC_OK,
                         "decomp");
        check_status_all(stenc_decomp_coarsen(&cd, fd), STENC_ERR_SHAPE,
                         "coarsen onto ranks that would own no point");
        stenc_decomp_destroy(fd);
    }
    check_status_all(stenc_decomp_create(&fd, ctx, 2, small, NULL, periodic), STENC_OK, "decomp");
    check_status_all(stenc_decomp_coarsen(&cd, fd), STENC_ERR_UNSUPPORTED, "coarsen periodic");
    stenc_decomp_destroy(fd);
    stenc_ctx_destroy(self);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- heat3d: generated launchers on distributed fields -------------------------------------- */

typedef struct heat_step {
    stenc_ctx *ctx;
    double a, b;
} heat_step;

static stenc_status heat_launch(void *user, stenc_field *const v[]) {
    const heat_step *hs = user;
    return heat3d(hs->ctx, hs->a, hs->b, v[0], v[1]);
}

static void test_heat3d_matches_one_process(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    stenc_ctx *self = NULL;
    assert_int_equal(stenc_ctx_create(&self, on_gpu ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU),
                     STENC_OK);
    const size_t n[3] = {70, 18, 13}; /* 70: an inner box even with i in the shell */
    const int steps = 7;
    const stenc_bc bc[6] = {{STENC_BC_DIRICHLET, 1.0},  {STENC_BC_NEUMANN, 0},
                            {STENC_BC_PERIODIC, 0},     {STENC_BC_PERIODIC, 0},
                            {STENC_BC_DIRICHLET, -2.0}, {STENC_BC_DIRICHLET, 0.5}};
    const int periodic[3] = {0, 1, 0};
    /* overlap 0: exchange, then launch; 1: stenc_dist_overlap with FACES; 2: with corners. */
    for (int overlap = 0; overlap < 3; overlap++) {
        stenc_decomp *dp = NULL;
        check_status_all(stenc_decomp_create(&dp, ctx, 3, n, NULL, periodic), STENC_OK, "decomp");
        stenc_decomp_info info;
        stenc_decomp_get_info(dp, &info);
        stenc_field *x = NULL, *y = NULL, *gx = NULL, *gy = NULL;
        check_status_all(stenc_field_create_dist(ctx, &x, dp, STENC_F32, 1), STENC_OK, "x");
        check_status_all(stenc_field_create_dist(ctx, &y, dp, STENC_F32, 1), STENC_OK, "y");
        assert_int_equal(stenc_field_create(self, &gx, STENC_F32, 3, n[0], n[1], n[2], 1),
                         STENC_OK);
        assert_int_equal(stenc_field_create(self, &gy, STENC_F32, 3, n[0], n[1], n[2], 1),
                         STENC_OK);
        fill_local(x, &info, 7);
        for (size_t k = 0; k < n[2]; k++)
            for (size_t j = 0; j < n[1]; j++)
                for (size_t i = 0; i < n[0]; i++)
                    stenc_field_set(gx, (long)i, (long)j, (long)k,
                                    global_value((long)i, (long)j, (long)k, 7));
        if (on_gpu) {
            stenc_field_upload(x), stenc_field_upload(y), stenc_field_upload(gx),
                stenc_field_upload(gy);
        }
        for (int s = 0; s < steps; s++) {
            stenc_status st;
            if (overlap) {
                stenc_field *const xy[2] = {x, y};
                heat_step hs = {ctx, 0.4, 0.1};
                st = stenc_dist_overlap(x, bc, overlap == 1 ? STENC_EXCHANGE_FACES : 0, HEAT3D_HALO,
                                        2, xy, heat_launch, &hs);
                check_status_all(st, STENC_OK, "stenc_dist_overlap");
            } else {
                st = stenc_field_exchange(x, bc, 0);
                check_status_all(st, STENC_OK, "exchange");
                check_status_all(heat3d(ctx, 0.4, 0.1, x, y), STENC_OK, "heat3d");
            }
            stenc_field_swap(x, y);
            assert_int_equal(stenc_field_fill_halo(gx, bc), STENC_OK);
            assert_int_equal(heat3d(self, 0.4, 0.1, gx, gy), STENC_OK);
            stenc_field_swap(gx, gy);
        }
        if (on_gpu) stenc_field_download(x), stenc_field_download(gx);
        check_part_matches(x, &info, gx, "heat3d");
        double n2 = 0;
        check_status_all(stenc_field_norm2(x, &n2), STENC_OK, "norm2");
        stenc_field_free(x), stenc_field_free(y);
        stenc_field_free(gx), stenc_field_free(gy);
        stenc_decomp_destroy(dp);
    }
    stenc_ctx_destroy(self);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- stepping launchers on distributed fields (deep halos) ---------------------------------- */

/* Every byte of the allocations of a and b (interior, halo, padding) the same on this rank. */
static int same_storage(const stenc_field *a, const stenc_field *b) {
    stenc_field_layout La, Lb;
    stenc_field_get_layout(a, &La), stenc_field_get_layout(b, &Lb);
    if (La.alloc_elems != Lb.alloc_elems || La.origin_elems != Lb.origin_elems) return 0;
    const size_t elem = stenc_type_size(La.type);
    const unsigned char *pa =
        (const unsigned char *)stenc_field_host_origin(a) - La.origin_elems * elem;
    const unsigned char *pb =
        (const unsigned char *)stenc_field_host_origin(b) - Lb.origin_elems * elem;
    return memcmp(pa, pb, La.alloc_elems * elem) == 0;
}

/* One stepping case: NAME_steps on distributed fields against (1) the same steps made by hand
 * on them (exchange, launch, swap), every byte of both fields on every rank, and (2) the
 * steps of one process on the whole grid (stenc_field_fill_halo, launch, swap), every
 * interior point; and the degree: H / R steps per exchange (at most nsteps - 2) where the
 * halo allows and the part is not split along i on the host. */
typedef struct dist_steps_case {
    const char *name;
    int dims;
    stenc_type type;
    size_t n[3];
    int procs[3], periodic[3];
    stenc_bc bc[6];
} dist_steps_case;

static stenc_status steps_of(const dist_steps_case *c, stenc_ctx *ctx, stenc_field *const *f,
                             long nsteps) {
    if (c->dims == 3) return heat3d_steps(ctx, 0.4, 0.1, f[0], f[1], nsteps, c->bc);
    return jacobi2d_steps(ctx, 0.01, f[0], f[2], f[1], nsteps, c->bc);
}

static stenc_status once_of(const dist_steps_case *c, stenc_ctx *ctx, stenc_field *const *f) {
    if (c->dims == 3) return heat3d(ctx, 0.4, 0.1, f[0], f[1]);
    return jacobi2d(ctx, 0.01, f[0], f[2], f[1]);
}

static void dist_steps_one(stenc_ctx *ctx, stenc_ctx *self, const dist_steps_case *c, int halo,
                           int f_halo, long nsteps) {
    stenc_decomp *dp = NULL;
    check_status_all(stenc_decomp_create(&dp, ctx, c->dims, c->n, c->procs, c->periodic), STENC_OK,
                     "decomp");
    stenc_decomp_info info;
    stenc_decomp_get_info(dp, &info);
    const int nf = c->dims == 3 ? 2 : 3; /* x, y (and f) */
    stenc_field *a[3] = {NULL}, *b[3] = {NULL}, *g[3] = {NULL};
    for (int q = 0; q < nf; q++) {
        const int h = q == 2 ? f_halo : halo;
        check_status_all(stenc_field_create_dist(ctx, &a[q], dp, c->type, h), STENC_OK, "a");
        check_status_all(stenc_field_create_dist(ctx, &b[q], dp, c->type, h), STENC_OK, "b");
        assert_int_equal(
            stenc_field_create(self, &g[q], c->type, c->dims, c->n[0], c->n[1], c->n[2], h),
            STENC_OK);
        fill_local(a[q], &info, 11 + (uint64_t)q), fill_local(b[q], &info, 11 + (uint64_t)q);
        for (size_t k = 0; k < c->n[2]; k++)
            for (size_t j = 0; j < c->n[1]; j++)
                for (size_t i = 0; i < c->n[0]; i++)
                    stenc_field_set(g[q], (long)i, (long)j, (long)k,
                                    global_value((long)i, (long)j, (long)k, 11 + (uint64_t)q));
    }
    /* f: its neighbours' values in its halo, as any distributed launch needs */
    const stenc_bc keep[6] = {{STENC_BC_NONE, 0}, {STENC_BC_NONE, 0}, {STENC_BC_NONE, 0},
                              {STENC_BC_NONE, 0}, {STENC_BC_NONE, 0}, {STENC_BC_NONE, 0}};
    stenc_bc fbc[6];
    for (int f = 0; f < 6; f++)
        fbc[f] = c->bc[f].kind == STENC_BC_PERIODIC ? c->bc[f] : keep[f];
    for (int q = 0; q < nf; q++)
        if (on_gpu) stenc_field_upload(a[q]), stenc_field_upload(b[q]), stenc_field_upload(g[q]);
    if (nf == 3) {
        check_status_all(stenc_field_exchange(a[2], fbc, 0), STENC_OK, "exchange f");
        check_status_all(stenc_field_exchange(b[2], fbc, 0), STENC_OK, "exchange f");
    }
    char what[200];
    snprintf(what, sizeof what, "%s: halo %d (f %d), %ld steps, ranks %dx%dx%d", c->name, halo,
             f_halo, nsteps, info.procs[0], info.procs[1], info.procs[2]);
    check_status_all(steps_of(c, ctx, a, nsteps), STENC_OK, what);
    const int degree = stenc_launch_steps_last_degree();
    for (long s = 0; s < nsteps; s++) {
        check_status_all(stenc_field_exchange(b[0], c->bc, 0), STENC_OK, "exchange");
        check_status_all(once_of(c, ctx, b), STENC_OK, "launch");
        stenc_field_swap(b[0], b[1]);
        assert_int_equal(stenc_field_fill_halo(g[0], c->bc), STENC_OK);
        assert_int_equal(once_of(c, self, g), STENC_OK);
        stenc_field_swap(g[0], g[1]);
    }
    for (int q = 0; q < nf; q++)
        if (on_gpu)
            stenc_field_download(a[q]), stenc_field_download(b[q]), stenc_field_download(g[q]);
    char msg[300];
    for (int q = 0; q < 2; q++) {
        snprintf(msg, sizeof msg, "%s: field %d differs from the steps made by hand", what, q);
        check_all(same_storage(a[q], b[q]), msg);
    }
    check_part_matches(a[0], &info, g[0], what);
    /* the degree: H / R per exchange, bounded by f's halo and nsteps - 2 */
    long want = halo;
    if (nf == 3 && f_halo + 1 < halo) want = f_halo + 1; /* f is read at its centre alone */
    if (nsteps - 2 < want) want = nsteps - 2;
    if (!on_gpu && (info.procs[0] > 1 || info.periodic[0])) want = 1;
    if (want < 2) want = 1;
    snprintf(msg, sizeof msg, "%s: degree %d, expected %ld", what, degree, want);
    check_all(degree == want, msg);
    for (int q = 0; q < nf; q++)
        stenc_field_free(a[q]), stenc_field_free(b[q]), stenc_field_free(g[q]);
    stenc_decomp_destroy(dp);
}

static void test_steps_deep_halos(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    stenc_ctx *self = NULL;
    assert_int_equal(stenc_ctx_create(&self, on_gpu ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU),
                     STENC_OK);
    const stenc_bc dir = {STENC_BC_DIRICHLET, 0.75}, neu = {STENC_BC_NEUMANN, 0},
                   per = {STENC_BC_PERIODIC, 0};
    const dist_steps_case cases[] = {
        {"heat3d",
         3,
         STENC_F32,
         {37, 19, 23},
         {0, 0, 0},
         {0, 1, 0},
         {dir, neu, per, per, {STENC_BC_DIRICHLET, -2.0}, neu}},
        {"heat3d split along i",
         3,
         STENC_F32,
         {37, 19, 23},
         {0, 1, 1},
         {0, 0, 0},
         {neu, dir, dir, neu, neu, neu}},
        {"jacobi2d",
         2,
         STENC_F64,
         {41, 29, 1},
         {0, 0, 0},
         {1, 0, 0},
         {per, per, dir, neu, {STENC_BC_NONE, 0}, {STENC_BC_NONE, 0}}},
    };
    dist_steps_case split_i = cases[1];
    split_i.procs[0] = world_size, split_i.procs[1] = split_i.procs[2] = 1;
    static const long nsteps[] = {0, 1, 3, 4, 9};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const dist_steps_case *c = k == 1 ? &split_i : &cases[k];
        for (int halo = 1; halo <= 4; halo++)
            for (size_t s = 0; s < sizeof nsteps / sizeof nsteps[0]; s++)
                dist_steps_one(ctx, self, c, halo, c->dims == 2 && halo == 4 ? 2 : halo, nsteps[s]);
    }
    stenc_ctx_destroy(self);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- red-black SOR: colours of global indices ----------------------------------------------- */

typedef struct rb_step {
    stenc_ctx *ctx;
    int color;
    double h2, omega;
} rb_step;

static stenc_status rb_launch(void *user, stenc_field *const v[]) {
    const rb_step *s = user;
    return gs_redblack(s->ctx, s->color, s->h2, s->omega, v[0], v[1]);
}

/* Sweeps of red-black Gauss-Seidel (gs_redblack, colour (i + j) % 2) on a 2-D grid split over
 * the ranks, where parts start at odd global indices: bitwise the sweeps of one process on the
 * whole grid, plain and through stenc_dist_overlap (whose views start at odd offsets too). */
static void test_redblack_sor_matches_one_process(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    stenc_ctx *self = NULL;
    assert_int_equal(stenc_ctx_create(&self, on_gpu ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU),
                     STENC_OK);
    const size_t n[3] = {75, 37, 1}; /* odd: parts of 19 and 18 points, starting odd and even */
    const stenc_bc bc[6] = {{STENC_BC_DIRICHLET, 1.0},  {STENC_BC_DIRICHLET, 0.0},
                            {STENC_BC_DIRICHLET, 0.25}, {STENC_BC_NEUMANN, 0},
                            {STENC_BC_NONE, 0},         {STENC_BC_NONE, 0}};
    for (int overlap = 0; overlap < 2; overlap++) {
        stenc_decomp *dp = NULL;
        check_status_all(stenc_decomp_create(&dp, ctx, 2, n, NULL, NULL), STENC_OK, "decomp");
        stenc_decomp_info info;
        stenc_decomp_get_info(dp, &info);
        stenc_field *u = NULL, *f = NULL, *gu = NULL, *gf = NULL;
        check_status_all(stenc_field_create_dist(ctx, &u, dp, STENC_F64, 1), STENC_OK, "u");
        check_status_all(stenc_field_create_dist(ctx, &f, dp, STENC_F64, 1), STENC_OK, "f");
        assert_int_equal(stenc_field_create(self, &gu, STENC_F64, 2, n[0], n[1], 1, 1), STENC_OK);
        assert_int_equal(stenc_field_create(self, &gf, STENC_F64, 2, n[0], n[1], 1, 1), STENC_OK);
        fill_local(u, &info, 31);
        fill_local(f, &info, 32);
        for (size_t j = 0; j < n[1]; j++)
            for (size_t i = 0; i < n[0]; i++) {
                stenc_field_set(gu, (long)i, (long)j, 0, global_value((long)i, (long)j, 0, 31));
                stenc_field_set(gf, (long)i, (long)j, 0, global_value((long)i, (long)j, 0, 32));
            }
        if (on_gpu) {
            stenc_field_upload(u), stenc_field_upload(f), stenc_field_upload(gu),
                stenc_field_upload(gf);
        }
        for (int sweep = 0; sweep < 4; sweep++)
            for (int c = 0; c < GS_REDBLACK_COLORS; c++) {
                rb_step rs = {ctx, c, 1e-3, 1.5};
                stenc_status st;
                if (overlap) {
                    stenc_field *const uf[2] = {u, f};
                    st = stenc_dist_overlap(u, bc, STENC_EXCHANGE_FACES, 1, 2, uf, rb_launch, &rs);
                } else {
                    st = stenc_field_exchange(u, bc, 0);
                    if (st == STENC_OK) st = gs_redblack(ctx, c, 1e-3, 1.5, u, f);
                }
                check_status_all(st, STENC_OK, "red-black sweep");
                assert_int_equal(stenc_field_fill_halo(gu, bc), STENC_OK);
                assert_int_equal(gs_redblack(self, c, 1e-3, 1.5, gu, gf), STENC_OK);
            }
        if (on_gpu) stenc_field_download(u), stenc_field_download(gu);
        check_part_matches(u, &info, gu, overlap ? "red-black, overlapped" : "red-black");
        stenc_field_free(u), stenc_field_free(f), stenc_field_free(gu), stenc_field_free(gf);
        stenc_decomp_destroy(dp);
    }
    stenc_ctx_destroy(self);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* python3 and the checking script, as configured; absent on a machine the binary was carried
 * to (then the files are written but not read back, and the test says so). */
static int readers_present(const char *script) {
    const int ok = strlen(STENC_TEST_PYTHON) > 0 && access(STENC_TEST_PYTHON, X_OK) == 0 &&
                   access(script, R_OK) == 0;
    if (!ok) printf("no python3 or %s here: files not read back\n", script);
    return ok;
}

/* ---- .pvti output ---------------------------------------------------------------------------- */

/* Two fields (float and double) of a 3-D split grid written as a .pvti with one piece per rank,
 * read back by tests/dist/check_pvti.py (Python's XML parser, no VTK and no stenc) against the
 * global arrays, which rank 0 writes raw from global_value(). Skipped without python3. */
static void test_pvti_pieces(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    const size_t n[3] = {11, 7, 6};
    stenc_decomp *dp = NULL;
    check_status_all(stenc_decomp_create(&dp, ctx, 3, n, NULL, NULL), STENC_OK, "decomp");
    stenc_decomp_info info;
    stenc_decomp_get_info(dp, &info);
    stenc_field *a = NULL, *b = NULL;
    check_status_all(stenc_field_create_dist(ctx, &a, dp, STENC_F32, 0), STENC_OK, "a");
    check_status_all(stenc_field_create_dist(ctx, &b, dp, STENC_F64, 2), STENC_OK, "b");
    fill_local(a, &info, 41);
    fill_local(b, &info, 42);
    if (on_gpu) stenc_field_upload(a), stenc_field_upload(b);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/pvti_np%d%s", STENC_TEST_DIST_WORK_DIR, world_size,
             on_gpu ? "_gpu" : "");
    int made = 1; /* the build's folder, or /tmp where that is not writable (a carried binary) */
    if (world_rank == 0) {
        char cmd[8300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' 2>/dev/null", dir, dir);
        if (system(cmd) != 0) {
            snprintf(dir, sizeof dir, "/tmp/stenc_test_dist_np%d%s", world_size,
                     on_gpu ? "_gpu" : "");
            snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
            made = system(cmd) == 0;
        }
    }
    MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    check_all(made, "make the folder");
    char pvti[4200];
    snprintf(pvti, sizeof pvti, "%s/fields.pvti", dir);
    const char *names[2] = {"a & <float>", "b"};
    const stenc_field *fields[2] = {a, b};
    const double origin[3] = {0.5, -1, 2}, spacing[3] = {0.25, 0.5, 1};
    check_status_all(stenc_dist_vti_write(pvti, 2, names, fields, origin, spacing), STENC_OK,
                     "stenc_dist_vti_write");
    check_status_all(stenc_dist_vti_write("x.vti", 2, names, fields, origin, spacing),
                     STENC_ERR_INVALID_ARGUMENT, "a path without .pvti");
    int ok = 1;
    if (world_rank == 0 && readers_present(STENC_TEST_CHECK_PVTI)) {
        const size_t total = n[0] * n[1] * n[2];
        float *ga = malloc(total * sizeof *ga);
        double *gb = malloc(total * sizeof *gb);
        for (size_t k = 0; k < n[2]; k++)
            for (size_t j = 0; j < n[1]; j++)
                for (size_t i = 0; i < n[0]; i++) {
                    const size_t g = i + n[0] * (j + n[1] * k);
                    ga[g] = (float)global_value((long)i, (long)j, (long)k, 41);
                    gb[g] = global_value((long)i, (long)j, (long)k, 42);
                }
        char path_a[4200], path_b[4200], cmd[17200];
        snprintf(path_a, sizeof path_a, "%s/a.raw", dir);
        snprintf(path_b, sizeof path_b, "%s/b.raw", dir);
        FILE *fa = fopen(path_a, "wb"), *fb = fopen(path_b, "wb");
        ok = fa && fb && fwrite(ga, sizeof *ga, total, fa) == total &&
             fwrite(gb, sizeof *gb, total, fb) == total;
        if (fa) fclose(fa);
        if (fb) fclose(fb);
        snprintf(cmd, sizeof cmd,
                 "'%s' '%s' '%s' %zu,%zu,%zu %d 'a & <float>:float32:%s' 'b:float64:%s'",
                 STENC_TEST_PYTHON, STENC_TEST_CHECK_PVTI, pvti, n[0], n[1], n[2], world_size,
                 path_a, path_b);
        ok = ok && system(cmd) == 0;
        free(ga), free(gb);
    }
    check_all(ok, "check_pvti.py");

    /* HDF5: step 3 gathered on the last rank, read back by h5py / h5dump (check_h5.py). */
    if (stenc_io_have_hdf5()) {
        const int root = world_size - 1;
        char h5[4200];
        snprintf(h5, sizeof h5, "%s/fields.h5", dir);
        stenc_io_h5 *file = NULL;
        if (world_rank == root)
            check_all(stenc_io_h5_open(&file, h5, STENC_IO_CREATE) == STENC_OK, "open");
        else
            check_all(1, "");
        const char *h5names[2] = {"a", "b"};
        check_status_all(stenc_dist_h5_write_step(file, root, 3, 0.5, 2, h5names, fields), STENC_OK,
                         "stenc_dist_h5_write_step");
        check_status_all(stenc_dist_h5_write_step(file, root, 3, 0.5, 2, h5names, fields),
                         STENC_ERR_IO, "the same step again");
        ok = 1;
        if (world_rank == root) {
            ok = stenc_io_h5_close(file) == STENC_OK;
            char expected[4200], cmd[17200];
            snprintf(expected, sizeof expected, "%s/b.txt", dir);
            FILE *fp = fopen(expected, "w");
            ok = ok && fp;
            for (size_t k = 0; fp && k < n[2]; k++)
                for (size_t j = 0; j < n[1]; j++)
                    for (size_t i = 0; i < n[0]; i++)
                        fprintf(fp, "%.17g\n", global_value((long)i, (long)j, (long)k, 42));
            if (fp) fclose(fp);
            snprintf(cmd, sizeof cmd,
                     "'%s' '%s' '%s' step_00000003/b float64 %zu,%zu,%zu %zu,%zu,%zu '%s' 3 0.5",
                     STENC_TEST_PYTHON, STENC_TEST_CHECK_H5, h5, n[2], n[1], n[0], n[0], n[1], n[2],
                     expected);
            const int rc = readers_present(STENC_TEST_CHECK_H5) ? system(cmd) : 0;
            ok = ok && (rc == 0 || (WIFEXITED(rc) && WEXITSTATUS(rc) == 77));
        }
        check_all(ok, "check_h5.py");
    }
    /* Parallel HDF5: every rank writes its part of step 4 collectively; the file, closed and
     * opened again by rank 0 alone, holds the global arrays. Without it: refused everywhere. */
    {
        char h5[4200];
        snprintf(h5, sizeof h5, "%s/parallel.h5", dir);
        stenc_io_h5 *file = (stenc_io_h5 *)&file;
        const stenc_status opened = stenc_dist_h5_open(&file, ctx, h5, STENC_IO_CREATE);
        if (!stenc_dist_have_parallel_h5()) {
            check_status_all(opened, STENC_ERR_UNSUPPORTED,
                             "stenc_dist_h5_open without parallel HDF5");
            check_all(file == NULL, "no file");
        } else {
            check_status_all(opened, STENC_OK, "stenc_dist_h5_open");
            const char *h5names[2] = {"a", "b"};
            check_status_all(stenc_dist_h5_write_step(file, -7, 4, 1.25, 2, h5names, fields),
                             STENC_OK, "parallel stenc_dist_h5_write_step");
            check_status_all(stenc_dist_h5_write_step(file, 0, 4, 1.25, 2, h5names, fields),
                             STENC_ERR_IO, "the same step again, in parallel");
            check_status_all(stenc_io_h5_write(file, "c", a), STENC_ERR_INVALID_ARGUMENT,
                             "the serial call on a parallel file");
            check_status_all(stenc_io_h5_close(file), STENC_OK, "close (collective)");
            ok = 1;
            if (world_rank == 0) { /* read back serially, into whole fields */
                stenc_ctx *self = NULL;
                stenc_field *ga = NULL, *gb = NULL;
                ok = stenc_ctx_create(&self, STENC_DEVICE_CPU) == STENC_OK &&
                     stenc_field_create(self, &ga, STENC_F32, 3, n[0], n[1], n[2], 0) == STENC_OK &&
                     stenc_field_create(self, &gb, STENC_F64, 3, n[0], n[1], n[2], 0) == STENC_OK &&
                     stenc_io_h5_open(&file, h5, STENC_IO_READ) == STENC_OK;
                ok = ok && stenc_io_h5_read(file, "step_00000004/a", ga) == STENC_OK &&
                     stenc_io_h5_read(file, "step_00000004/b", gb) == STENC_OK &&
                     stenc_io_h5_close(file) == STENC_OK;
                for (size_t k = 0; ok && k < n[2]; k++)
                    for (size_t j = 0; ok && j < n[1]; j++)
                        for (size_t i = 0; ok && i < n[0]; i++) {
                            double va = 0, vb = 0;
                            const double want = global_value((long)i, (long)j, (long)k, 42);
                            stenc_field_get(ga, (long)i, (long)j, (long)k, &va);
                            stenc_field_get(gb, (long)i, (long)j, (long)k, &vb);
                            ok = va == (double)(float)global_value((long)i, (long)j, (long)k, 41) &&
                                 vb == want;
                            if (!ok)
                                print_error("parallel.h5 at (%zu,%zu,%zu): a %.9g, b %.17g\n", i, j,
                                            k, va, vb);
                        }
                stenc_field_free(ga), stenc_field_free(gb);
                stenc_ctx_destroy(self);
                /* And by h5py / h5dump, against the values the gathered step's check wrote. */
                char expected[4200], cmd[17200];
                snprintf(expected, sizeof expected, "%s/b.txt", dir);
                snprintf(cmd, sizeof cmd,
                         "'%s' '%s' '%s' step_00000004/b float64 %zu,%zu,%zu %zu,%zu,%zu '%s' 4 "
                         "1.25",
                         STENC_TEST_PYTHON, STENC_TEST_CHECK_H5, h5, n[2], n[1], n[0], n[0], n[1],
                         n[2], expected);
                const int rc = ok && stenc_io_have_hdf5() && readers_present(STENC_TEST_CHECK_H5)
                                   ? system(cmd)
                                   : 0;
                ok = ok && (rc == 0 || (WIFEXITED(rc) && WEXITSTATUS(rc) == 77));
            }
            check_all(ok, "parallel.h5 read back");
        }
    }
    stenc_field_free(a), stenc_field_free(b);
    stenc_decomp_destroy(dp);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- multi-block: an L-shaped domain -----------------------------------------------------------
 */

/* Three 2-D blocks: A = [0,13) x [0,11), B = [13,22) x [0,11) beside it, and C above A, stored
 * with its axes swapped and its j reversed: C(i, j) is global (12 - j, 11 + i). */
enum { LX = 22, LY = 18 };
static const size_t l_blocks[3][3] = {{13, 11, 1}, {9, 11, 1}, {7, 13, 1}};
static const stenc_mb_patch l_patches[2] = {
    {{0, 1}, {STENC_FACE_I_HI, STENC_FACE_I_LO}, {0, 1, 2}, {0, 0, 0}},
    {{0, 2}, {STENC_FACE_J_HI, STENC_FACE_I_LO}, {1, 0, 2}, {1, 0, 0}},
};

static void l_global(int block, long i, long j, long *x, long *y) {
    *x = block == 0 ? i : block == 1 ? 13 + i : 12 - j;
    *y = block == 2 ? 11 + i : j;
}

static int in_l(long x, long y) {
    return x >= 0 && y >= 0 && x < LX && y < LY && !(x >= 13 && y >= 11);
}

typedef struct jac_step {
    stenc_ctx *ctx;
} jac_step;

static stenc_status jac_launch(void *user, stenc_field *const v[]) {
    const jac_step *s = user;
    return jacobi2d(s->ctx, 0.0, v[0], v[1], v[2]);
}

/* Jacobi steps (jacobi2d) on the L across two patches, one of them with permuted and reversed
 * axes, against a plain loop over the L in one global array. The values are multiples of
 * 2^-10 and each step divides by 4, so every sum is exact in any order: the blocks must match
 * the loop bit for bit, whatever their rank and axes. Also: the partitioner's owners, the
 * global sum, and the same status everywhere for bad structures. */
static void test_multiblock_l_shape(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    stenc_mb *mb = NULL;
    check_status_all(stenc_mb_create(&mb, ctx, 2, 3, l_blocks, 2, l_patches, NULL, 1), STENC_OK,
                     "stenc_mb_create");
    /* Largest first to the least loaded: A (143 points), B (99), C (91). */
    const int want[3][3] = {{0, 0, 0}, {0, 1, 1}, {0, 1, 2}};
    const int *w = want[world_size == 1 ? 0 : world_size == 2 ? 1 : 2];
    check_all(stenc_mb_owner(mb, 0) == w[0] && stenc_mb_owner(mb, 1) == w[1] &&
                  stenc_mb_owner(mb, 2) == w[2],
              "partitioner owners");
    stenc_mb_field *u = NULL, *un = NULL, *f = NULL;
    check_status_all(stenc_mb_field_create(&u, mb, STENC_F64, 1), STENC_OK, "u");
    check_status_all(stenc_mb_field_create(&un, mb, STENC_F64, 1), STENC_OK, "u_new");
    check_status_all(stenc_mb_field_create(&f, mb, STENC_F64, 1), STENC_OK, "f");
    static double ref[LY + 2][LX + 2], next[LY + 2][LX + 2]; /* a border of the wall value */
    for (long y = -1; y <= LY; y++)
        for (long x = -1; x <= LX; x++)
            ref[y + 1][x + 1] = in_l(x, y) ? global_value(x, y, 0, 51) : 0.5;
    for (int l = 0; l < stenc_mb_local_count(mb); l++) {
        int b;
        stenc_field *blk = stenc_mb_field_block(u, l, &b);
        for (long j = 0; j < (long)l_blocks[b][1]; j++)
            for (long i = 0; i < (long)l_blocks[b][0]; i++) {
                long x, y;
                l_global(b, i, j, &x, &y);
                stenc_field_set(blk, i, j, 0, ref[y + 1][x + 1]);
            }
    }
    if (on_gpu) stenc_mb_field_upload(u), stenc_mb_field_upload(un), stenc_mb_field_upload(f);
    stenc_bc walls[6];
    for (int k = 0; k < 6; k++)
        walls[k] = (stenc_bc){STENC_BC_DIRICHLET, 0.5};
    jac_step js = {ctx};
    for (int step = 0; step < 5; step++) {
        check_status_all(stenc_mb_exchange(u, walls, STENC_EXCHANGE_FACES), STENC_OK,
                         "stenc_mb_exchange");
        stenc_mb_field *const ufn[3] = {u, f, un};
        check_status_all(stenc_mb_foreach(3, ufn, jac_launch, &js), STENC_OK, "foreach");
        for (int l = 0; l < stenc_mb_local_count(mb); l++)
            assert_int_equal(stenc_field_swap(stenc_mb_field_block(u, l, NULL),
                                              stenc_mb_field_block(un, l, NULL)),
                             STENC_OK);
        for (long y = 0; y < LY; y++)
            for (long x = 0; x < LX; x++)
                next[y + 1][x + 1] = in_l(x, y) ? 0.25 * (ref[y + 1][x] + ref[y + 1][x + 2] +
                                                          ref[y][x + 1] + ref[y + 2][x + 1])
                                                : 0.5;
        for (long y = 0; y < LY; y++)
            for (long x = 0; x < LX; x++)
                ref[y + 1][x + 1] = next[y + 1][x + 1];
    }
    if (on_gpu) stenc_mb_field_download(u);
    int ok = 1;
    char msg[200] = "";
    double exact = 0;
    for (long y = 0; y < LY; y++)
        for (long x = 0; x < LX; x++)
            if (in_l(x, y)) exact += ref[y + 1][x + 1];
    for (int l = 0; l < stenc_mb_local_count(mb) && ok; l++) {
        int b;
        stenc_field *blk = stenc_mb_field_block(u, l, &b);
        for (long j = 0; j < (long)l_blocks[b][1] && ok; j++)
            for (long i = 0; i < (long)l_blocks[b][0] && ok; i++) {
                long x, y;
                double v;
                l_global(b, i, j, &x, &y);
                stenc_field_get(blk, i, j, 0, &v);
                if (v != ref[y + 1][x + 1]) {
                    ok = 0;
                    snprintf(msg, sizeof msg,
                             "block %d (%ld,%ld) = global (%ld,%ld): %.17g, want %.17g", b, i, j, x,
                             y, v, ref[y + 1][x + 1]);
                }
            }
    }
    check_all(ok, msg);
    if (on_gpu) stenc_mb_field_upload(u);
    double sum = 0;
    check_status_all(stenc_mb_field_sum(u, &sum), STENC_OK, "sum");
    snprintf(msg, sizeof msg, "sum %.17g, exact %.17g", sum, exact);
    check_all(sum == exact, msg);
    stenc_mb_field_free(u), stenc_mb_field_free(un), stenc_mb_field_free(f);
    assert_int_equal(stenc_mb_destroy(mb), STENC_OK);

    /* Bad structures: the same status on every rank, nothing made. */
    const size_t short_b[3][3] = {{13, 11, 1}, {9, 10, 1}, {7, 13, 1}};
    stenc_mb *bad = (stenc_mb *)&bad;
    check_status_all(stenc_mb_create(&bad, ctx, 2, 3, short_b, 2, l_patches, NULL, 1),
                     STENC_ERR_SHAPE, "a patch whose sizes do not match");
    check_all(bad == NULL, "no structure made");
    const stenc_mb_patch twice[2] = {
        l_patches[0], {{0, 2}, {STENC_FACE_I_HI, STENC_FACE_I_LO}, {0, 1, 2}, {0, 0, 0}}};
    check_status_all(stenc_mb_create(&bad, ctx, 2, 3, l_blocks, 2, twice, NULL, 1),
                     STENC_ERR_INVALID_ARGUMENT, "a face on two patches");
    const stenc_mb_patch tilted[1] = {
        {{0, 1}, {STENC_FACE_I_HI, STENC_FACE_I_LO}, {1, 0, 2}, {0, 0, 0}}};
    check_status_all(stenc_mb_create(&bad, ctx, 2, 3, l_blocks, 1, tilted, NULL, 1),
                     STENC_ERR_INVALID_ARGUMENT, "a normal axis mapped to a tangential one");
    check_status_all(stenc_mb_create(&bad, ctx, 2, 3, l_blocks, 2, l_patches, NULL, 0),
                     world_size > 3 ? STENC_ERR_SHAPE : STENC_OK, "more ranks than blocks");
    stenc_mb_destroy(bad == (stenc_mb *)&bad ? NULL : bad);

    /* A periodic patch: one block meeting itself across i, halo 2, against
     * stenc_field_fill_halo with periodic i (every rank but the owner idles). */
    const size_t one[1][3] = {{17, 10, 1}};
    const stenc_mb_patch wrap[1] = {
        {{0, 0}, {STENC_FACE_I_LO, STENC_FACE_I_HI}, {0, 1, 2}, {0, 0, 0}}};
    stenc_mb *ring = NULL;
    check_status_all(stenc_mb_create(&ring, ctx, 2, 1, one, 1, wrap, NULL, 1), STENC_OK, "ring");
    stenc_mb_field *r = NULL;
    check_status_all(stenc_mb_field_create(&r, ring, STENC_F32, 2), STENC_OK, "ring field");
    stenc_ctx *self = NULL;
    assert_int_equal(stenc_ctx_create(&self, STENC_DEVICE_CPU), STENC_OK);
    stenc_field *g = NULL;
    assert_int_equal(stenc_field_create(self, &g, STENC_F32, 2, 17, 10, 1, 2), STENC_OK);
    for (long j = 0; j < 10; j++)
        for (long i = 0; i < 17; i++) {
            const double v = global_value(i, j, 0, 61);
            stenc_field_set(g, i, j, 0, v);
            if (stenc_mb_local_count(ring))
                stenc_field_set(stenc_mb_field_block(r, 0, NULL), i, j, 0, v);
        }
    const stenc_bc nb = {STENC_BC_NEUMANN, 0}, pb = {STENC_BC_PERIODIC, 0};
    const stenc_bc ring_bc[6] = {nb, nb, nb, nb, nb, nb}, ref_bc[6] = {pb, pb, nb, nb, nb, nb};
    if (on_gpu) stenc_mb_field_upload(r);
    check_status_all(stenc_mb_exchange(r, ring_bc, 0), STENC_OK, "ring exchange");
    if (on_gpu) stenc_mb_field_download(r);
    assert_int_equal(stenc_field_fill_halo(g, ref_bc), STENC_OK);
    ok = 1;
    for (int l = 0; l < stenc_mb_local_count(ring); l++)
        for (long j = 0; j < 10; j++) /* the i faces, all four layers */
            for (long i = -2; i < 19; i++) {
                double a, b;
                stenc_field_get(stenc_mb_field_block(r, l, NULL), i, j, 0, &a);
                stenc_field_get(g, i, j, 0, &b);
                if (a != b) ok = 0;
            }
    check_all(ok, "periodic patch against a periodic fill");
    check_status_all(stenc_mb_exchange(r, ref_bc, 0), STENC_ERR_INVALID_ARGUMENT,
                     "periodic boundary conditions on a multi-block field");
    stenc_field_free(g);
    stenc_ctx_destroy(self);
    stenc_mb_field_free(r);
    stenc_mb_destroy(ring);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* The halos of the L's blocks, two layers wide, after an exchange with edges and corners: every
 * halo point, edges and corners included, holds the point of the L it stands for, or the wall
 * value outside the L (at the re-entrant corner too), on the host and the device, whatever
 * the owners; with STENC_EXCHANGE_FACES the face halos hold the same. In 2-D, and in 3-D with
 * the L extruded along k (its k faces free: walls). */
/* Where point (i, j, k) of block b (halo indices allowed) lies in the global grid, g[], and
 * whether that point is in the domain. */
typedef int (*mb_map_fn)(int b, long i, long j, long k, long g[3]);

/* Fill every local block's interior (and nothing else: the halo keeps 1e9) with
 * global_value(g, seed), exchange with `flags` and check every halo point `h` wide, edges and
 * corners too unless flags say FACES, against the point it stands for or the wall value. */
static void check_mb_halos(stenc_mb *mb, const size_t (*n)[3], int dims, stenc_type type, int h,
                           unsigned flags, mb_map_fn map, double wall, const char *what) {
    stenc_bc walls[6];
    for (int f = 0; f < 6; f++)
        walls[f] = (stenc_bc){STENC_BC_DIRICHLET, wall};
    stenc_mb_field *u = NULL;
    check_status_all(stenc_mb_field_create(&u, mb, type, h), STENC_OK, "u");
    const long hz = dims == 3 ? h : 0;
    long g[3];
    for (int l = 0; l < stenc_mb_local_count(mb); l++) {
        int b;
        stenc_field *blk = stenc_mb_field_block(u, l, &b);
        stenc_field_fill(blk, 1e9); /* what no exchange writes */
        for (long k = 0; k < (long)n[b][2]; k++)
            for (long j = 0; j < (long)n[b][1]; j++)
                for (long i = 0; i < (long)n[b][0]; i++) {
                    map(b, i, j, k, g);
                    stenc_field_set(blk, i, j, k, global_value(g[0], g[1], g[2], 61));
                }
    }
    if (on_gpu) stenc_mb_field_upload(u);
    check_status_all(stenc_mb_exchange(u, walls, flags), STENC_OK, "stenc_mb_exchange");
    if (on_gpu) stenc_mb_field_download(u);
    int ok = 1;
    char msg[300] = "";
    for (int l = 0; l < stenc_mb_local_count(mb) && ok; l++) {
        int b;
        stenc_field *blk = stenc_mb_field_block(u, l, &b);
        const long n0 = (long)n[b][0], n1 = (long)n[b][1], n2 = (long)n[b][2];
        for (long k = -hz; k < n2 + hz && ok; k++)
            for (long j = -h; j < n1 + h && ok; j++)
                for (long i = -h; i < n0 + h && ok; i++) {
                    const int outside =
                        (i < 0 || i >= n0) + (j < 0 || j >= n1) + (k < 0 || k >= n2);
                    if (outside == 0 || ((flags & STENC_EXCHANGE_FACES) && outside > 1)) continue;
                    const int inside = map(b, i, j, k, g);
                    double want = inside ? global_value(g[0], g[1], g[2], 61) : wall;
                    if (type == STENC_F32) want = (double)(float)want;
                    double got = 0;
                    stenc_field_get(blk, i, j, k, &got);
                    if (got != want) {
                        ok = 0;
                        snprintf(msg, sizeof msg,
                                 "%s: block %d halo (%ld,%ld,%ld) = global (%ld,%ld,%ld): %.17g, "
                                 "want %.17g",
                                 what, b, i, j, k, g[0], g[1], g[2], got, want);
                    }
                }
    }
    check_all(ok, msg);
    stenc_mb_field_free(u);
}

/* The L of test_multiblock_l_shape, extruded along k over `l_nz` points (1 in 2-D). */
static long l_nz = 1;
static int l_map(int b, long i, long j, long k, long g[3]) {
    l_global(b, i, j, &g[0], &g[1]);
    g[2] = k;
    return in_l(g[0], g[1]) && k >= 0 && k < l_nz;
}

/* A box of 13 x 13 x 11 points cut into 2 x 2 x 2 blocks at these bounds. */
static const long box_cut[3][3] = {{0, 7, 13}, {0, 5, 13}, {0, 6, 11}};
static int box_map(int b, long i, long j, long k, long g[3]) {
    const long at[3] = {i, j, k};
    int inside = 1;
    for (int d = 0; d < 3; d++) {
        g[d] = box_cut[d][(b >> d) & 1] + at[d];
        inside &= g[d] >= 0 && g[d] < box_cut[d][2];
    }
    return inside;
}

/* Halos two layers wide after exchanges with edges and corners: every halo point holds the
 * point of the domain it stands for, or the wall value outside it, on the host and the device,
 * whatever the owners; with STENC_EXCHANGE_FACES the face halos hold the same.
 * - The L (re-entrant corner included) in 2-D, and extruded along k in 3-D (k faces free).
 * - The box cut into 2 x 2 x 2 unequal blocks joined by 12 patches: the corners at the middle
 *   vertex come from the diagonally opposite block, which takes three rounds. */
static void test_multiblock_corners(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    for (int dims = 2; dims <= 3; dims++)
        for (int faces = 0; faces < 2; faces++) {
            size_t n[3][3];
            l_nz = dims == 3 ? 5 : 1;
            for (int b = 0; b < 3; b++)
                for (int d = 0; d < 3; d++)
                    n[b][d] = d < 2 ? l_blocks[b][d] : (size_t)l_nz;
            stenc_mb *mb = NULL;
            check_status_all(stenc_mb_create(&mb, ctx, dims, 3, n, 2, l_patches, NULL, 1), STENC_OK,
                             "stenc_mb_create");
            check_mb_halos(mb, n, dims, STENC_F64, 2, faces ? STENC_EXCHANGE_FACES : 0, l_map,
                           -0.75, dims == 2 ? "L, 2-D" : "L, 3-D");
            check_status_all(stenc_mb_destroy(mb), STENC_OK, "stenc_mb_destroy");
        }
    size_t n[8][3];
    stenc_mb_patch patches[12];
    int np = 0;
    for (int b = 0; b < 8; b++)
        for (int d = 0; d < 3; d++) {
            const int c = (b >> d) & 1;
            n[b][d] = (size_t)(box_cut[d][c + 1] - box_cut[d][c]);
            if (c == 0)
                patches[np++] = (stenc_mb_patch){{b, b + (1 << d)},
                                                 {(stenc_face)(2 * d + 1), (stenc_face)(2 * d)},
                                                 {0, 1, 2},
                                                 {0, 0, 0}};
        }
    stenc_mb *mb = NULL;
    check_status_all(stenc_mb_create(&mb, ctx, 3, 8, n, 12, patches, NULL, 1), STENC_OK,
                     "stenc_mb_create");
    check_mb_halos(mb, n, 3, STENC_F32, 2, 0, box_map, 0.125, "2x2x2 box");
    check_status_all(stenc_mb_destroy(mb), STENC_OK, "stenc_mb_destroy");
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- bad input: the same status on every rank, nothing written, no deadlock ---------------- */

static void test_bad_input_agrees(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    const size_t n[3] = {16, 12, 10}, m[3] = {16, 12, 11}; /* k: 5+5 and 6+5 on 2 ranks */
    stenc_decomp *dp = NULL, *dq = NULL;
    check_status_all(stenc_decomp_create(&dp, ctx, 3, n, NULL, NULL), STENC_OK, "decomp n");
    check_status_all(stenc_decomp_create(&dq, ctx, 3, m, NULL, NULL), STENC_OK, "decomp m");

    /* Two fields of one launch decomposed differently. With 2 ranks split along k both have
     * the same local interior on some ranks and not on others; the status must not differ. */
    stenc_field *x = NULL, *y = NULL, *z = NULL;
    check_status_all(stenc_field_create_dist(ctx, &x, dp, STENC_F32, 1), STENC_OK, "x");
    check_status_all(stenc_field_create_dist(ctx, &y, dq, STENC_F32, 1), STENC_OK, "y");
    check_status_all(stenc_field_create_dist(ctx, &z, dp, STENC_F32, 1), STENC_OK, "z");
    stenc_field_fill(y, 42.0);
    check_status_all(heat3d(ctx, 1, 1, x, y), STENC_ERR_SHAPE, "launch on two decompositions");
    double v = 0;
    stenc_field_get(y, 0, 0, 0, &v);
    check_all(v == 42.0, "nothing written");
    check_status_all(heat3d(ctx, 1, 1, x, z), STENC_OK, "the same decomposition launches");
    double dot = 0;
    check_status_all(stenc_field_dot(x, y, &dot), STENC_ERR_SHAPE, "dot over two decompositions");
    check_status_all(stenc_field_swap(x, y), STENC_ERR_SHAPE, "swap over two decompositions");

    /* A lower-dimensional input on distributed fields: refused everywhere, nothing written. */
    {
        const size_t n2[3] = {13, 9, 1};
        stenc_decomp *d2 = NULL;
        stenc_field *u2 = NULL, *v2 = NULL, *dx = NULL, *dy = NULL;
        check_status_all(stenc_decomp_create(&d2, ctx, 2, n2, NULL, NULL), STENC_OK, "2-D");
        check_status_all(stenc_field_create_dist(ctx, &u2, d2, STENC_F64, 1), STENC_OK, "u");
        check_status_all(stenc_field_create_dist(ctx, &v2, d2, STENC_F64, 1), STENC_OK, "v");
        stenc_field_create(ctx, &dx, STENC_F64, 1, 13, 1, 1, 1);
        stenc_field_create(ctx, &dy, STENC_F64, 1, 9, 1, 1, 1);
        stenc_field_fill(v2, 42.0);
        check_status_all(stretched2d(ctx, 0.1, 0.1, u2, dx, dy, v2), STENC_ERR_UNSUPPORTED,
                         "lower-dimensional input on distributed fields");
        /* An ordered sweep on a distributed field: refused everywhere. */
        check_status_all(seidel2d(ctx, v2), STENC_ERR_UNSUPPORTED, "ordered sweep, distributed");
        double w2 = 0;
        stenc_field_get(v2, 0, 0, 0, &w2);
        check_all(w2 == 42.0, "nothing written");
        stenc_field_free(dx), stenc_field_free(dy), stenc_field_free(u2), stenc_field_free(v2);
        stenc_decomp_destroy(d2);
    }

    /* Mismatched communicators: a decomposition of another context's communicator. */
    MPI_Comm split;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &split);
    stenc_ctx *other = make_ctx(split);
    stenc_field *w = NULL;
    stenc_status st = stenc_field_create_dist(other, &w, dp, STENC_F32, 1);
    /* One rank: the split communicator holds the same rank, congruent with the world. */
    check_status_all(st, world_size == 1 ? STENC_OK : STENC_ERR_INVALID_ARGUMENT,
                     "a decomposition of another communicator");
    check_all(world_size == 1 || w == NULL, "no field made");
    stenc_field_free(w);
    stenc_ctx_destroy(other);
    MPI_Comm_free(&split);

    /* More ranks than points along the only dimension; a halo wider than a part. */
    const size_t tiny[3] = {(size_t)world_size > 1 ? (size_t)world_size - 1 : 0, 1, 1};
    stenc_decomp *dt = NULL;
    st = stenc_decomp_create(&dt, ctx, 1, tiny, NULL, NULL);
    check_status_all(st, world_size > 1 ? STENC_ERR_SHAPE : STENC_ERR_INVALID_ARGUMENT,
                     "more ranks than points");
    const size_t narrow[3] = {(size_t)(2 * world_size), 1, 1};
    check_status_all(stenc_decomp_create(&dt, ctx, 1, narrow, NULL, NULL), STENC_OK, "narrow");
    stenc_field *wide = NULL;
    check_status_all(stenc_field_create_dist(ctx, &wide, dt, STENC_F64, 3),
                     world_size > 1 ? STENC_ERR_SHAPE : STENC_OK, "halo wider than a part");
    stenc_field_free(wide);
    stenc_decomp_destroy(dt);
    /* procs that do not multiply to the ranks. */
    const int procs[3] = {world_size + 1, 1, 1};
    check_status_all(stenc_decomp_create(&dt, ctx, 3, n, procs, NULL), STENC_ERR_INVALID_ARGUMENT,
                     "procs product");
    /* Periodic boundary conditions on a decomposition that is not periodic. */
    const stenc_bc per[6] = {{STENC_BC_PERIODIC, 0}, {STENC_BC_PERIODIC, 0}, {STENC_BC_NEUMANN, 0},
                             {STENC_BC_NEUMANN, 0},  {STENC_BC_NEUMANN, 0},  {STENC_BC_NEUMANN, 0}};
    check_status_all(stenc_field_exchange(x, per, 0), STENC_ERR_INVALID_ARGUMENT,
                     "periodic bc on a non-periodic decomposition");
    check_status_all(stenc_field_exchange_end(x), STENC_ERR_INVALID_ARGUMENT, "end without begin");

    stenc_field_free(x), stenc_field_free(y), stenc_field_free(z);
    stenc_decomp_destroy(dp), stenc_decomp_destroy(dq);
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- reductions of generated kernels -----------------------------------------------------------
 */

/* global_value() is a multiple of 1/1024: its value times 1024, exactly. */
static int64_t value_1024(long i, long j, long k, uint64_t seed) {
    return (int64_t)(global_value(i, j, k, seed) * 1024.0);
}

/* A stencil's `reduce` on distributed fields is global and the same bits on 1, 2 or 4 ranks,
 * against references computed exactly in integers: residual_norm (2-D double: sum of r*r, max
 * of |r|) and dot3d (3-D float: sum of x*y rounded to float, min and max of x), at odd sizes.
 * On views of distributed fields (stenc_dist_overlap's) a reduce is refused. */
static void test_generated_reduce_global(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    char msg[300];
    {
        const size_t n[3] = {37, 23, 1};
        stenc_decomp *dp = NULL;
        check_status_all(stenc_decomp_create(&dp, ctx, 2, n, NULL, NULL), STENC_OK, "2-D");
        stenc_decomp_info info;
        stenc_decomp_get_info(dp, &info);
        stenc_field *u = NULL, *f = NULL, *r = NULL;
        check_status_all(stenc_field_create_dist(ctx, &u, dp, STENC_F64, 1), STENC_OK, "u");
        check_status_all(stenc_field_create_dist(ctx, &f, dp, STENC_F64, 1), STENC_OK, "f");
        check_status_all(stenc_field_create_dist(ctx, &r, dp, STENC_F64, 1), STENC_OK, "r");
        fill_local(u, &info, 71);
        fill_local(f, &info, 72);
        if (on_gpu) stenc_field_upload(u), stenc_field_upload(f), stenc_field_upload(r);
        const stenc_bc zero = {STENC_BC_DIRICHLET, 0}, none = {STENC_BC_NONE, 0};
        const stenc_bc bc[6] = {zero, zero, zero, zero, none, none};
        check_status_all(stenc_field_exchange(u, bc, 0), STENC_OK, "exchange");
        double r2 = -1, rmax = -1;
        check_status_all(residual_norm(ctx, 1.0, u, f, r, &r2, &rmax), STENC_OK,
                         "residual_norm on distributed fields");
        /* r * 1024 is an integer K below 2^23, r*r = K^2 / 2^20 exactly, and the sum of the
         * K^2 fits 64 bits: its conversion to double is the sum rounded once. */
        int64_t sum = 0, top = 0;
        for (long j = 0; j < (long)n[1]; j++)
            for (long i = 0; i < (long)n[0]; i++) {
                int64_t around = 0;
                const long di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
                for (int q = 0; q < 4; q++) {
                    const long x = i + di[q], y = j + dj[q];
                    if (x >= 0 && x < (long)n[0] && y >= 0 && y < (long)n[1])
                        around += value_1024(x, y, 0, 71);
                }
                const int64_t K = value_1024(i, j, 0, 72) - (4 * value_1024(i, j, 0, 71) - around);
                sum += K * K;
                top = (K < 0 ? -K : K) > top ? (K < 0 ? -K : K) : top;
            }
        const double want2 = (double)sum / 1048576.0, wantmax = (double)top / 1024.0;
        snprintf(msg, sizeof msg, "residual_norm: r2 %.17g (want %.17g), rmax %.17g (want %.17g)",
                 r2, want2, rmax, wantmax);
        check_all(r2 == want2 && rmax == wantmax, msg);
        /* A view of the parts: refused on every rank, nothing written. */
        stenc_field *uv = NULL, *fv = NULL, *rv = NULL;
        const size_t lo[3] = {0, 0, 0};
        assert_int_equal(stenc_field_view(&uv, u, lo, info.local), STENC_OK);
        assert_int_equal(stenc_field_view(&fv, f, lo, info.local), STENC_OK);
        assert_int_equal(stenc_field_view(&rv, r, lo, info.local), STENC_OK);
        double vr2 = -1, vmax = -1;
        check_status_all(residual_norm(ctx, 1.0, uv, fv, rv, &vr2, &vmax), STENC_ERR_UNSUPPORTED,
                         "reduce on views of distributed fields");
        check_all(vr2 == -1 && vmax == -1, "nothing written");
        stenc_field_free(uv), stenc_field_free(fv), stenc_field_free(rv);
        stenc_field_free(u), stenc_field_free(f), stenc_field_free(r);
        stenc_decomp_destroy(dp);
    }
    {
        const size_t n[3] = {13, 9, 11};
        stenc_decomp *dp = NULL;
        check_status_all(stenc_decomp_create(&dp, ctx, 3, n, NULL, NULL), STENC_OK, "3-D");
        stenc_decomp_info info;
        stenc_decomp_get_info(dp, &info);
        stenc_field *x = NULL, *y = NULL;
        check_status_all(stenc_field_create_dist(ctx, &x, dp, STENC_F32, 0), STENC_OK, "x");
        check_status_all(stenc_field_create_dist(ctx, &y, dp, STENC_F32, 0), STENC_OK, "y");
        fill_local(x, &info, 81);
        fill_local(y, &info, 82);
        if (on_gpu) stenc_field_upload(x), stenc_field_upload(y);
        double dot = -1, xmin = -1, xmax = -1;
        check_status_all(dot3d(ctx, x, y, &dot, &xmin, &xmax), STENC_OK, "dot3d on distributed");
        /* x*y rounded to float is a multiple of 2^-20 below 2^20: times 2^20 an integer. */
        int64_t sum = 0;
        double lo_x = INFINITY, hi_x = -INFINITY;
        for (long k = 0; k < (long)n[2]; k++)
            for (long j = 0; j < (long)n[1]; j++)
                for (long i = 0; i < (long)n[0]; i++) {
                    const float a = (float)global_value(i, j, k, 81),
                                b = (float)global_value(i, j, k, 82);
                    const float p = (float)((double)a * (double)b);
                    sum += (int64_t)((double)p * 1048576.0);
                    lo_x = a < lo_x ? a : lo_x;
                    hi_x = a > hi_x ? a : hi_x;
                }
        const double want = (double)sum / 1048576.0;
        snprintf(msg, sizeof msg, "dot3d: dot %.17g (want %.17g), x in [%g, %g] (want [%g, %g])",
                 dot, want, xmin, xmax, lo_x, hi_x);
        check_all(dot == want && xmin == lo_x && xmax == hi_x, msg);
        stenc_field_free(x), stenc_field_free(y);
        stenc_decomp_destroy(dp);
    }
    assert_int_equal(stenc_ctx_destroy(ctx), STENC_OK);
}

/* ---- the exchange's paths on the device ------------------------------------------------------ */

/* Device fields: how many faces come through CUDA IPC (none with STENC_MPI_IPC=0, and none
 * on the host); a part left on the host while a neighbour that reads it through IPC has its
 * part on the device is refused on both, not exchanged wrongly; with every part uploaded
 * again the exchange works. (test_exchange_matches_global_fill and the stepping tests check
 * the values on whichever path the machine gives.) */
static void test_ipc_paths(void **state) {
    (void)state;
    stenc_ctx *ctx = make_ctx(MPI_COMM_WORLD);
    const size_t n[3] = {12, 9, 4 * (size_t)world_size};
    stenc_decomp *dp = NULL;
    check_status_all(stenc_decomp_create(&dp, ctx, 3, n, NULL, NULL), STENC_OK, "decomp");
    stenc_field *f = NULL;
    check_status_all(stenc_field_create_dist(ctx, &f, dp, STENC_F32, 1), STENC_OK, "field");
    const int faces = stenc_field_ipc_faces(f);
    const char *env = getenv("STENC_MPI_IPC");
    const int off = !on_gpu || (env && strcmp(env, "0") == 0);
    check_all(faces >= 0 && (!off || faces == 0), "IPC faces where IPC is off");
    int most = 0;
    MPI_Allreduce(&faces, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (world_rank == 0) printf("faces through CUDA IPC: up to %d per rank\n", most);
    const stenc_bc bc[6] = {{STENC_BC_NEUMANN, 0}, {STENC_BC_NEUMANN, 0}, {STENC_BC_NEUMANN, 0},
                            {STENC_BC_NEUMANN, 0}, {STENC_BC_NEUMANN, 0}, {STENC_BC_NEUMANN, 0}};
    check_all(stenc_field_ipc_faces(NULL) == -1, "no field: -1");
    if (most > 0) {
        /* Rank 0's part stays on the host. */
        if (world_rank != 0) stenc_field_upload(f);
        const stenc_status st = stenc_field_exchange(f, bc, 0);
        const int near0 = world_rank == 0 && faces > 0;
        char msg[300];
        snprintf(msg, sizeof msg, "a part on the host beside IPC neighbours: %s (%s)",
                 stenc_status_string(st), stenc_last_error());
        check_all(st == STENC_OK || st == STENC_ERR_INVALID_ARGUMENT, msg);
        check_all(!near0 || st == STENC_ERR_INVALID_ARGUMENT, msg);
        if (world_rank == 0) stenc_field_upload(f);
        check_status_all(stenc_field_exchange(f, bc, 0), STENC_OK, "every part uploaded");
    }
    check_status_all(stenc_field_free(f), STENC_OK, "free");
    check_status_all(stenc_decomp_destroy(dp), STENC_OK, "decomp destroy");
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
    if (argc > 2) cmocka_set_test_filter(argv[2]); /* a pattern: for compute-sanitizer */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decomp_covers_grid),
        cmocka_unit_test(test_exchange_matches_global_fill),
        cmocka_unit_test(test_reductions_exact_and_rank_independent),
        cmocka_unit_test(test_reduction_cancellation_and_specials),
        cmocka_unit_test(test_gather_scatter),
        cmocka_unit_test(test_multigrid_transfers_match_whole_grid),
        cmocka_unit_test(test_heat3d_matches_one_process),
        cmocka_unit_test(test_steps_deep_halos),
        cmocka_unit_test(test_redblack_sor_matches_one_process),
        cmocka_unit_test(test_pvti_pieces),
        cmocka_unit_test(test_multiblock_l_shape),
        cmocka_unit_test(test_multiblock_corners),
        cmocka_unit_test(test_bad_input_agrees),
        cmocka_unit_test(test_ipc_paths),
        cmocka_unit_test(test_generated_reduce_global),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
