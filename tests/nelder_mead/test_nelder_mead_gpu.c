/* Batched Nelder-Mead on the GPU: the CPU suite again on a CUDA context (nm_cases.h), and the
 * CPU and GPU results agree problem by problem. */
#include "nm_cases.h"

/* Run the same batch on both devices: the same stop reasons everywhere, and the same minimiser
 * within tolerance (the GPU fuses multiply-adds, so trajectories may part in the last bits). */
static void test_cpu_and_gpu_agree(void **state) {
    (void)state;
    struct {
        stenc_nm_builtin fn;
        int dim;
        double x_tol;
    } cases[] = {{STENC_NM_ROSENBROCK, 2, 1e-6},
                 {STENC_NM_WOOD, 4, 1e-6},
                 {STENC_NM_POWELL, 4, 1e-2},
                 {STENC_NM_ROSENBROCK, 5, 1e-3}};
    test_rng rng = test_rng_seeded(21);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        nm_host h[2];
        for (int d = 0; d < 2; d++)
            h[d] = nm_host_alloc(4099, cases[c].dim, 0);
        for (size_t i = 0; i < h[0].count * h[0].ld; i++)
            h[0].x0[i] = h[1].x0[i] = test_rng_uniform(&rng, -2, 2);
        /* a few per-problem failures that must agree exactly */
        h[0].x0[5 * h[0].ld] = h[1].x0[5 * h[1].ld] = NAN;
        stenc_nm_options o = nm_tight_options();
        for (int d = 0; d < 2; d++) {
            nm_test_device = d ? STENC_DEVICE_CUDA : STENC_DEVICE_CPU;
            assert_stenc_ok(nm_run(&h[d], cases[c].fn, NULL, &o));
        }
        nm_test_device = STENC_DEVICE_CUDA;
        size_t same = 0;
        for (size_t i = 0; i < h[0].count; i++) {
            assert_int_equal(h[0].stop[i], h[1].stop[i]);
            if (h[0].stop[i] != STENC_NM_STOP_SIZE) continue;
            int near = 1;
            for (int k = 0; k < cases[c].dim; k++)
                near &= fabs(h[0].x[i * h[0].ld + k] - h[1].x[i * h[1].ld + k]) < cases[c].x_tol;
            same += near;
        }
        assert_int_equal(h[1].stop[5], STENC_NM_STOP_DEGENERATE);
        /* both found the same minimum from (almost) every start */
        if (same * 100 < h[0].count * 97)
            fail_msg("fn %d dim %d: %zu of %zu agree", cases[c].fn, cases[c].dim, same, h[0].count);
        for (int d = 0; d < 2; d++)
            nm_host_free(&h[d]);
    }
}

int main(void) {
    TEST_REQUIRE_GPU_OR_SKIP();
    nm_test_device = STENC_DEVICE_CUDA;
    const struct CMUnitTest tests[] = {NM_COMMON_TESTS, cmocka_unit_test(test_cpu_and_gpu_agree)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
