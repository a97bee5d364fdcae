/* HDF5 files written by stenc, read by h5py and by h5dump: shape, type, attributes and every
 * element, for fields at awkward sizes at the root and in time-step groups. Skipped when stenc
 * was built without HDF5 or when neither h5py nor h5dump is installed. */
#include "io_test_util.h"

static void check_dataset(const char *h5, const char *dset, const io_case *c, const char *expected,
                          long step, double time) {
    char shape[64], extents[64], step_args[96] = "";
    io_case_shape(c, shape, sizeof shape);
    if (c->dims == 1)
        snprintf(extents, sizeof extents, "%zu", c->n[0]);
    else if (c->dims == 2)
        snprintf(extents, sizeof extents, "%zu,%zu", c->n[0], c->n[1]);
    else
        snprintf(extents, sizeof extents, "%zu,%zu,%zu", c->n[0], c->n[1], c->n[2]);
    if (step >= 0) snprintf(step_args, sizeof step_args, " %ld %.17g", step, time);
    io_check("check_h5.py", "'%s' '%s' %s %s %s '%s'%s", h5, dset, io_dtype(c->type), shape,
             extents, expected, step_args);
}

static void test_h5py_and_h5dump_read_stenc_files(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    char h5_path[1200];
    io_path(h5_path, sizeof h5_path, "fields.h5");
    stenc_io_h5 *h5;
    assert_stenc_ok(stenc_io_h5_open(&h5, h5_path, STENC_IO_CREATE));
    char expected[IO_CASES][1200], names[IO_CASES][128];
    for (int c = 0; c < IO_CASES; c++) {
        io_case_name(&io_cases[c], names[c], sizeof names[c]);
        io_path(expected[c], sizeof expected[c], "%s.txt", names[c]);
        stenc_field *f = io_make_field(ctx, &io_cases[c], 600 + (uint64_t)c, expected[c]);
        assert_stenc_ok(stenc_io_h5_write(h5, names[c], f));
        /* The same field in a step group under a short name. */
        const char *step_names[] = {"q"};
        const stenc_field *fields[] = {f};
        assert_stenc_ok(stenc_io_h5_write_step(h5, 7 * c, 0.1 * c, 1, step_names, fields));
        stenc_field_free(f);
    }
    assert_stenc_ok(stenc_io_h5_close(h5));
    for (int c = 0; c < IO_CASES; c++) {
        char dset[64];
        check_dataset(h5_path, names[c], &io_cases[c], expected[c], -1, 0);
        snprintf(dset, sizeof dset, "/step_%08d/q", 7 * c);
        check_dataset(h5_path, dset, &io_cases[c], expected[c], 7 * c, 0.1 * c);
    }
    stenc_ctx_destroy(ctx);
}

/* h5py writes a big-endian dataset of known values; stenc reads it (HDF5 converts). */
static void test_stenc_reads_h5py_files(void **state) {
    (void)state;
    if (!io_python_has("h5py numpy")) skip();
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    char h5_path[1200];
    io_path(h5_path, sizeof h5_path, "from_h5py.h5");
    int rc = io_run("'%s' -c \"import h5py, numpy as np; f = h5py.File('%s', 'w'); "
                    "v = np.arange(5 * 9 * 11, dtype='>f8').reshape(11, 9, 5) * 0.5; "
                    "f['grp/v'] = v; f['w'] = v.astype('<f4'); f.close()\"",
                    STENC_TEST_PYTHON, h5_path);
    assert_int_equal(rc, 0);
    stenc_io_h5 *h5;
    assert_stenc_ok(stenc_io_h5_open(&h5, h5_path, STENC_IO_READ));
    stenc_field *d, *s;
    assert_stenc_ok(stenc_field_create(ctx, &d, STENC_F64, 3, 5, 9, 11, 1));
    assert_stenc_ok(stenc_field_create(ctx, &s, STENC_F32, 3, 5, 9, 11, 2));
    assert_stenc_ok(stenc_io_h5_read(h5, "grp/v", d));
    assert_stenc_ok(stenc_io_h5_read(h5, "w", s));
    for (long k = 0; k < 11; k++)
        for (long j = 0; j < 9; j++)
            for (long i = 0; i < 5; i++) {
                double vd, vs, want = 0.5 * (double)(i + 5 * j + 45 * k);
                assert_stenc_ok(stenc_field_get(d, i, j, k, &vd));
                assert_stenc_ok(stenc_field_get(s, i, j, k, &vs));
                if (vd != want || vs != want)
                    fail_msg("(%ld,%ld,%ld): %g and %g, expected %g", i, j, k, vd, vs, want);
            }
    assert_stenc_ok(stenc_io_h5_close(h5));
    stenc_field_free(d);
    stenc_field_free(s);
    stenc_ctx_destroy(ctx);
}

int main(void) {
    if (!stenc_io_have_hdf5()) {
        printf("SKIPPED: libstenc was built without HDF5\n");
        return STENC_TEST_SKIP;
    }
    if (!STENC_TEST_PYTHON[0] ||
        io_run("'%s' '%s/check_h5.py' --probe", STENC_TEST_PYTHON, STENC_TEST_IO_SOURCE_DIR) != 0) {
        printf("SKIPPED: neither h5py nor h5dump is installed (python: '%s')\n", STENC_TEST_PYTHON);
        return STENC_TEST_SKIP;
    }
    io_work_init("test_io_hdf5");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h5py_and_h5dump_read_stenc_files),
        cmocka_unit_test(test_stenc_reads_h5py_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
