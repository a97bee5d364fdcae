/* The CUDA tridiagonal solvers: every algorithm and switch point, both layouts and precisions,
 * awkward sizes up to 100000 and batches up to 65536, against the residual bound and the CPU
 * Thomas solve; poisoned outputs; inputs untouched; in place; singular systems named.
 * `test_tridiag_gpu quick` runs a smaller set (for memcheck), `race` a smaller one still. */
#include "tridiag_check.h"

/* Bounds, in units of epsilon: ||Ax-d||/||d|| per system, and max|x-x_cpu|/max|x_cpu|. */
#define RESIDUAL_EPS 256.0
#define AGREE_EPS 512.0

static int quick, race; /* smaller sets for memcheck and racecheck */
static stenc_ctx *gpu, *cpu;

typedef struct algo_case {
    stenc_tridiag_algo algo;
    int switch_size;
} algo_case;

static const algo_case algos[] = {
    {STENC_TRIDIAG_AUTO, 0},       {STENC_TRIDIAG_THOMAS, 0},      {STENC_TRIDIAG_CR, 0},
    {STENC_TRIDIAG_PCR, 0},        {STENC_TRIDIAG_CR_PCR, 0},      {STENC_TRIDIAG_CR_PCR, 2},
    {STENC_TRIDIAG_CR_PCR, 33},    {STENC_TRIDIAG_PCR_THOMAS, 0},  {STENC_TRIDIAG_PCR_THOMAS, 1},
    {STENC_TRIDIAG_PCR_THOMAS, 8}, {STENC_TRIDIAG_THOMAS_PCR, 0},  {STENC_TRIDIAG_THOMAS_PCR, 1},
    {STENC_TRIDIAG_THOMAS_PCR, 3}, {STENC_TRIDIAG_THOMAS_PCR, 33},
};
/* 993: THOMAS_PCR's last chunk has one row, and so has the last lane's share of the reduced
 * system in the warp-level solve; 1000, 1024, 1025: 4 or 5 reduced rows per lane there; 4096
 * and 100000 (its reduced system): PCR on the reduced system in shared memory. */
static const size_t sizes[] = {1, 2, 3, 5, 31, 32, 33, 200, 993, 1000, 1024, 1025, 4096, 100000};
static const size_t batches[] = {1, 3, 64, 1000, 65536};

static void *dev_upload(const void *host, size_t bytes) {
    void *p = NULL;
    assert_stenc_ok(stenc_malloc(gpu, &p, bytes ? bytes : 1));
    assert_stenc_ok(stenc_upload(gpu, p, host, bytes));
    return p;
}

static void check_case(stenc_type type, stenc_tridiag_layout layout, size_t n, size_t batch,
                       algo_case ac, uint64_t seed) {
    tdg_batch t = tdg_batch_random(n, batch, layout, seed);
    size_t count = n * batch, es = stenc_type_size(type), bytes = count * es;
    char *in = tdg_batch_typed(&t, type);
    char *d_in = dev_upload(in, 4 * bytes);
    char *x = malloc(bytes), *x_cpu = malloc(bytes), *back = malloc(4 * bytes);
    tdg_poison(x, type, count);
    void *d_x = dev_upload(x, bytes); /* poisoned */
    stenc_tridiag_options opt = {ac.algo, ac.switch_size, NULL};
    const char *what = stenc_tridiag_algo_name(ac.algo);
    stenc_status st = stenc_tridiag_solve(gpu, type, layout, n, batch, d_in, d_in + bytes,
                                          d_in + 2 * bytes, d_in + 3 * bytes, d_x, &opt);
    if (st != STENC_OK)
        fail_msg("%s/%d %s n=%zu batch=%zu: %s", what, ac.switch_size, stenc_type_name(type), n,
                 batch, stenc_last_error());
    assert_stenc_ok(stenc_download(gpu, x, d_x, bytes));
    assert_stenc_ok(stenc_download(gpu, back, d_in, 4 * bytes));
    assert_memory_equal(back, in, 4 * bytes); /* inputs untouched */

    size_t worst;
    double res = tdg_max_residual(&t, in, type, x, &worst);
    if (!(res <= RESIDUAL_EPS * tdg_eps(type)))
        fail_msg("%s/%d %s %s n=%zu batch=%zu: residual %g in system %zu", what, ac.switch_size,
                 stenc_type_name(type), layout ? "interleaved" : "contiguous", n, batch, res,
                 worst);
    assert_stenc_ok(stenc_tridiag_solve(cpu, type, layout, n, batch, in, in + bytes, in + 2 * bytes,
                                        in + 3 * bytes, x_cpu, NULL));
    long double *ref = malloc((count ? count : 1) * sizeof *ref);
    for (size_t k = 0; k < count; k++)
        ref[k] = tdg_load(x_cpu, type, k);
    double agree = tdg_max_rel_error(count, x, type, ref);
    if (!(agree <= AGREE_EPS * tdg_eps(type)))
        fail_msg("%s/%d %s n=%zu batch=%zu: differs from CPU Thomas by %g", what, ac.switch_size,
                 stenc_type_name(type), n, batch, agree);

    /* In place: d becomes x. */
    st = stenc_tridiag_solve_inplace(gpu, type, layout, n, batch, d_in, d_in + bytes,
                                     d_in + 2 * bytes, d_in + 3 * bytes, &opt);
    if (st != STENC_OK) fail_msg("in place %s: %s", what, stenc_last_error());
    assert_stenc_ok(stenc_download(gpu, back, d_in, 4 * bytes));
    assert_memory_equal(back, in, 3 * bytes);
    agree = tdg_max_rel_error(count, back + 3 * bytes, type, ref);
    if (!(agree <= AGREE_EPS * tdg_eps(type)))
        fail_msg("in place %s n=%zu batch=%zu: differs by %g", what, n, batch, agree);

    free(ref);
    stenc_free(gpu, d_in);
    stenc_free(gpu, d_x);
    free(x), free(x_cpu), free(back), free(in);
    tdg_batch_free(&t);
}

static void test_gpu_all_algorithms(void **state) {
    (void)state;
    const size_t max_unknowns = quick ? 1 << 14 : 1 << 21;
    uint64_t seed = 100;
    for (size_t ai = 0; ai < sizeof algos / sizeof *algos; ai++)
        for (int type = STENC_F32; type <= STENC_F64; type++)
            for (int layout = 0; layout < 2; layout++)
                for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
                    for (size_t bi = 0; bi < sizeof batches / sizeof *batches; bi++) {
                        size_t n = sizes[si], batch = batches[bi];
                        if (bi > 0 && n * batch > max_unknowns) continue;
                        if (race && (algos[ai].switch_size || (n != 33 && n != 200 && n != 1000) ||
                                     batch != 3))
                            continue;
                        check_case((stenc_type)type, (stenc_tridiag_layout)layout, n, batch,
                                   algos[ai], seed++);
                    }
}

/* Many interleaved systems: the one-thread-per-system Thomas path AUTO picks. */
static void test_gpu_large_interleaved_batch(void **state) {
    (void)state;
    if (race) skip();
    size_t n = quick ? 5 : 64, batch = quick ? 9000 : 65536;
    for (int type = STENC_F32; type <= STENC_F64; type++)
        check_case((stenc_type)type, STENC_TRIDIAG_INTERLEAVED, n, batch,
                   (algo_case){STENC_TRIDIAG_AUTO, 0}, 7 + type);
}

/* A solve that waits after one that met a singular system: the cached flag was reset. */
static void assert_good_solve_ok(stenc_type type) {
    size_t n = 5, batch = 3, bytes = n * batch * stenc_type_size(type);
    tdg_batch t = tdg_batch_random(n, batch, STENC_TRIDIAG_CONTIGUOUS, 9);
    char *in = tdg_batch_typed(&t, type);
    char *d_in = dev_upload(in, 4 * bytes);
    void *d_x = NULL;
    assert_stenc_ok(stenc_malloc(gpu, &d_x, bytes));
    assert_stenc_ok(stenc_tridiag_solve(gpu, type, STENC_TRIDIAG_CONTIGUOUS, n, batch, d_in,
                                        d_in + bytes, d_in + 2 * bytes, d_in + 3 * bytes, d_x,
                                        NULL));
    stenc_free(gpu, d_in);
    stenc_free(gpu, d_x);
    free(in);
    tdg_batch_free(&t);
}

static void test_gpu_singular_is_named(void **state) {
    (void)state;
    if (race) skip();
    for (size_t ai = 0; ai < sizeof algos / sizeof *algos; ai++)
        for (int layout = 0; layout < 2; layout++)
            for (int type = STENC_F32; type <= STENC_F64; type++) {
                size_t n = race ? 64 : 1000, batch = 100, count = n * batch;
                size_t es = stenc_type_size(type);
                size_t bytes = count * es;
                tdg_batch t = tdg_batch_random(n, batch, (stenc_tridiag_layout)layout, 5);
                size_t k = tdg_index(&t, 41, n / 2 + 17);
                t.a[k] = t.b[k] = t.c[k] = 0;
                k = tdg_index(&t, 77, 3);
                t.a[k] = t.b[k] = t.c[k] = 0;
                char *in = tdg_batch_typed(&t, (stenc_type)type);
                char *d_in = dev_upload(in, 4 * bytes);
                void *d_x = NULL;
                assert_stenc_ok(stenc_malloc(gpu, &d_x, bytes));
                stenc_tridiag_options opt = {algos[ai].algo, algos[ai].switch_size, NULL};
                stenc_status st = stenc_tridiag_solve(
                    gpu, (stenc_type)type, (stenc_tridiag_layout)layout, n, batch, d_in,
                    d_in + bytes, d_in + 2 * bytes, d_in + 3 * bytes, d_x, &opt);
                if (st != STENC_ERR_SINGULAR || !strstr(stenc_last_error(), "system 41 "))
                    fail_msg("%s: status %d, message '%s'", stenc_tridiag_algo_name(opt.algo),
                             (int)st, stenc_last_error());
                assert_good_solve_ok((stenc_type)type);
                stenc_tridiag_report *report;
                assert_stenc_ok(stenc_tridiag_report_create(gpu, &report));
                opt.report = report;
                assert_stenc_ok(stenc_tridiag_solve(
                    gpu, (stenc_type)type, (stenc_tridiag_layout)layout, n, batch, d_in,
                    d_in + bytes, d_in + 2 * bytes, d_in + 3 * bytes, d_x, &opt));
                size_t first = 0;
                assert_int_equal(stenc_tridiag_report_check(report, &first), STENC_ERR_SINGULAR);
                assert_int_equal(first, 41);
                assert_stenc_ok(stenc_tridiag_report_check(report, &first));
                stenc_tridiag_report_destroy(report);
                stenc_free(gpu, d_in);
                stenc_free(gpu, d_x);
                free(in);
                tdg_batch_free(&t);
            }
}

static int setup(void **state) {
    (void)state;
    return stenc_ctx_create(&gpu, STENC_DEVICE_CUDA) != STENC_OK ||
           stenc_ctx_create(&cpu, STENC_DEVICE_CPU) != STENC_OK;
}

static int teardown(void **state) {
    (void)state;
    stenc_ctx_destroy(gpu);
    stenc_ctx_destroy(cpu);
    return 0;
}

int main(int argc, char **argv) {
    TEST_REQUIRE_GPU_OR_SKIP();
    race = argc > 1 && strcmp(argv[1], "race") == 0;
    quick = race || (argc > 1 && strcmp(argv[1], "quick") == 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_all_algorithms),
        cmocka_unit_test(test_gpu_large_interleaved_batch),
        cmocka_unit_test(test_gpu_singular_is_named),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
