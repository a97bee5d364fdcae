/* Batched Nelder-Mead on the CPU: convergence of the built-in objectives, stop reasons,
 * non-finite values, argument errors (nm_cases.h). */
#include "nm_cases.h"

int main(void) {
    nm_test_device = STENC_DEVICE_CPU;
    const struct CMUnitTest tests[] = {NM_COMMON_TESTS};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
