/* .npy files written by stenc, read by NumPy: every element of fields at awkward sizes (float
 * and double, halo 0 and 2) against the values the test wrote to a text side file, and the
 * header (version 1.0, dtype, C order, 64-byte alignment) through numpy.lib.format. Also a
 * file written by NumPy itself, read by stenc. Skipped when python3 or numpy is missing. */
#include "io_test_util.h"

static void test_numpy_reads_stenc_files(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    for (int c = 0; c < IO_CASES; c++) {
        char name[128], npy[1200], expected[1200], shape[64];
        io_case_name(&io_cases[c], name, sizeof name);
        io_path(npy, sizeof npy, "%s.npy", name);
        io_path(expected, sizeof expected, "%s.txt", name);
        io_case_shape(&io_cases[c], shape, sizeof shape);
        stenc_field *f = io_make_field(ctx, &io_cases[c], 300 + (uint64_t)c, expected);
        assert_stenc_ok(stenc_io_npy_write(npy, f));
        io_check("check_npy.py", "'%s' '%s' %s %s", npy, expected, io_dtype(io_cases[c].type),
                 shape);
        stenc_field_free(f);
    }
    stenc_ctx_destroy(ctx);
}

/* NumPy writes a file of known values (i + 100 j + 10000 k, and its negative for float32);
 * stenc must read exactly them. */
static void test_stenc_reads_numpy_files(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    for (int c = 0; c < IO_CASES; c++) {
        const io_case *k = &io_cases[c];
        char npy[1200], shape[64];
        io_path(npy, sizeof npy, "from_numpy_%d.npy", c);
        io_case_shape(k, shape, sizeof shape);
        remove(npy);
        int rc = io_run("'%s' -c \"import numpy as np; s = (%s,); "
                        "a = np.indices(s[::-1]).astype('float64'); "
                        "v = sum(a[d] * 100.0 ** d for d in range(len(s))).T; "
                        "v = v if '%s' == 'float64' else -v; "
                        "np.save('%s', np.ascontiguousarray(v, dtype='%s'))\"",
                        STENC_TEST_PYTHON, shape, io_dtype(k->type), npy, io_dtype(k->type));
        assert_int_equal(rc, 0);
        stenc_field *f;
        assert_stenc_ok(
            stenc_field_create(ctx, &f, k->type, k->dims, k->n[0], k->n[1], k->n[2], k->halo));
        assert_stenc_ok(stenc_io_npy_read(npy, f));
        double sign = k->type == STENC_F64 ? 1 : -1;
        for (long kk = 0; kk < (long)k->n[2]; kk++)
            for (long j = 0; j < (long)k->n[1]; j++)
                for (long i = 0; i < (long)k->n[0]; i++) {
                    double v, want = sign * (i + 100.0 * j + 10000.0 * kk);
                    assert_stenc_ok(stenc_field_get(f, i, j, kk, &v));
                    if (v != want)
                        fail_msg("case %d: (%ld,%ld,%ld) is %g, expected %g", c, i, j, kk, v, want);
                }
        stenc_field_free(f);
    }
    stenc_ctx_destroy(ctx);
}

int main(void) {
    if (!io_python_has("numpy")) {
        printf("SKIPPED: no python3 with numpy (python: '%s')\n", STENC_TEST_PYTHON);
        return STENC_TEST_SKIP;
    }
    io_work_init("test_io_npy");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numpy_reads_stenc_files),
        cmocka_unit_test(test_stenc_reads_numpy_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
