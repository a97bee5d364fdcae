/* Field I/O of device-resident fields: files written from the device are byte for byte those
 * written from an identical host field, the field stays on the device, and reads into a
 * device field update its device copy (interior only, halo untouched). Skipped without a CUDA
 * device. */
#include "io_test_util.h"

static void expect_same_file(const char *a, const char *b) {
    size_t na, nb;
    char *da = io_read_file(a, &na), *db = io_read_file(b, &nb);
    if (na != nb || memcmp(da, db, na) != 0) fail_msg("%s and %s differ", a, b);
    free(da);
    free(db);
}

/* Download a device field to check it, then put it back on the device. */
static void expect_device_field(stenc_field *got, const stenc_field *want, double halo,
                                const char *what) {
    assert_int_equal(stenc_field_location(got), STENC_ON_DEVICE);
    assert_stenc_ok(stenc_field_download(got));
    io_expect_field(got, want, halo, what);
    assert_stenc_ok(stenc_field_upload(got));
}

static void test_device_fields(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CUDA));
    /* The shared cases, and one above the 1 MiB staging threshold of field transfers. */
    io_case cases[IO_CASES + 1];
    memcpy(cases, io_cases, sizeof io_cases);
    cases[IO_CASES] = (io_case){STENC_F64, 3, {67, 45, 51}, 2};
    for (int c = 0; c < IO_CASES + 1; c++) {
        char name[128], host_path[1200], dev_path[1200];
        io_case_name(&cases[c], name, sizeof name);
        stenc_field *host = io_make_field(ctx, &cases[c], 700 + (uint64_t)c, NULL);
        stenc_field *dev = io_make_field(ctx, &cases[c], 700 + (uint64_t)c, NULL);
        assert_stenc_ok(stenc_field_upload(dev));
        const char *names[] = {"u"};
        const stenc_field *from_host[] = {host}, *from_dev[] = {dev};

        /* .npy and .vti: same bytes from either place; the field stays on the device. */
        io_path(host_path, sizeof host_path, "%s_host.npy", name);
        io_path(dev_path, sizeof dev_path, "%s_dev.npy", name);
        assert_stenc_ok(stenc_io_npy_write(host_path, host));
        assert_stenc_ok(stenc_io_npy_write(dev_path, dev));
        assert_int_equal(stenc_field_location(dev), STENC_ON_DEVICE);
        expect_same_file(host_path, dev_path);
        stenc_field *dst = io_filled_field(ctx, &cases[c], -7.0);
        assert_stenc_ok(stenc_field_upload(dst));
        assert_stenc_ok(stenc_io_npy_read(dev_path, dst));
        expect_device_field(dst, host, -7.0, name);

        io_path(host_path, sizeof host_path, "%s_host.vti", name);
        io_path(dev_path, sizeof dev_path, "%s_dev.vti", name);
        assert_stenc_ok(stenc_io_vti_write(host_path, 1, names, from_host, NULL, NULL));
        assert_stenc_ok(stenc_io_vti_write(dev_path, 1, names, from_dev, NULL, NULL));
        assert_int_equal(stenc_field_location(dev), STENC_ON_DEVICE);
        expect_same_file(host_path, dev_path);

        if (stenc_io_have_hdf5()) {
            io_path(dev_path, sizeof dev_path, "%s_dev.h5", name);
            stenc_io_h5 *h5;
            assert_stenc_ok(stenc_io_h5_open(&h5, dev_path, STENC_IO_CREATE));
            assert_stenc_ok(stenc_io_h5_write(h5, "u", dev));
            assert_stenc_ok(stenc_io_h5_write_step(h5, 1, 0.5, 1, names, from_dev));
            assert_int_equal(stenc_field_location(dev), STENC_ON_DEVICE);
            stenc_field *back = io_filled_field(ctx, &cases[c], 3.0);
            assert_stenc_ok(stenc_io_h5_read(h5, "u", back)); /* onto the host */
            io_expect_field(back, host, 3.0, name);
            assert_stenc_ok(stenc_field_download(dst));
            assert_stenc_ok(stenc_field_fill(dst, -7.0));
            assert_stenc_ok(stenc_field_upload(dst));
            assert_stenc_ok(stenc_io_h5_read(h5, "step_00000001/u", dst)); /* onto the device */
            expect_device_field(dst, host, -7.0, name);
            assert_stenc_ok(stenc_io_h5_close(h5));
            stenc_field_free(back);
        }
        stenc_field_free(dst);
        stenc_field_free(host);
        stenc_field_free(dev);
    }
    stenc_ctx_destroy(ctx);
}

int main(void) {
    TEST_REQUIRE_GPU_OR_SKIP();
    io_work_init("test_io_gpu");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
