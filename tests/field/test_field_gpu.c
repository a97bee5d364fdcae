/* Fields on a CUDA device: halo fills on the device against the host fill and the formula,
 * upload/download round trips at odd and large sizes (staged and not), location errors, and
 * swap of device-resident fields. */
#include "field_test_util.h"

static stenc_ctx *gpu_ctx(void) {
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CUDA));
    return ctx;
}

static void test_device_halo_fill_matches_host(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    field_device_halo_fills(ctx, 0, "device fill");
    stenc_ctx_destroy(ctx);
}

static void test_upload_download_round_trips(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    test_rng rng = test_rng_seeded(21);
    field_device_round_trip(ctx, STENC_F32, 1, 1, 1, 1, 0, &rng);
    field_device_round_trip(ctx, STENC_F64, 1, 17, 1, 1, 2, &rng);
    field_device_round_trip(ctx, STENC_F32, 2, 33, 7, 1, 1, &rng);
    field_device_round_trip(ctx, STENC_F64, 3, 33, 7, 5, 2, &rng);
    /* Around the staging threshold and over many chunks with a ragged last chunk. */
    field_device_round_trip(ctx, STENC_F32, 2, 1023, 255, 1, 1, &rng);
    field_device_round_trip(ctx, STENC_F64, 3, 301, 257, 99, 2, &rng);
    field_device_round_trip(ctx, STENC_F32, 3, 513, 511, 67, 1, &rng);
    stenc_ctx_destroy(ctx);
}

static void test_host_accessors_refuse_device_fields(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F32, 2, 9, 5, 1, 1));
    assert_stenc_ok(stenc_field_upload(f));
    assert_stenc_ok(stenc_field_upload(f)); /* no-op */
    double v;
    float buf[45];
    assert_int_equal(stenc_field_get(f, 0, 0, 0, &v), STENC_ERR_LOCATION);
    assert_non_null(strstr(stenc_last_error(), "stenc_field_get"));
    assert_int_equal(stenc_field_set(f, 0, 0, 0, 1), STENC_ERR_LOCATION);
    assert_int_equal(stenc_field_fill(f, 1), STENC_ERR_LOCATION);
    assert_int_equal(stenc_field_copy_from(f, buf), STENC_ERR_LOCATION);
    assert_int_equal(stenc_field_copy_to(f, buf), STENC_ERR_LOCATION);
    assert_non_null(strstr(stenc_last_error(), "lives on the device"));
    assert_stenc_ok(stenc_field_download(f));
    assert_stenc_ok(stenc_field_download(f)); /* no-op */
    assert_stenc_ok(stenc_field_get(f, 0, 0, 0, &v));
    stenc_field_free(f);
    stenc_ctx_destroy(ctx);
}

static void test_swap_on_the_device(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    stenc_field *a, *b;
    assert_stenc_ok(stenc_field_create(ctx, &a, STENC_F64, 3, 19, 6, 5, 1));
    assert_stenc_ok(stenc_field_create(ctx, &b, STENC_F64, 3, 19, 6, 5, 1));
    assert_stenc_ok(stenc_field_fill(a, 1.0));
    assert_stenc_ok(stenc_field_fill(b, 2.0));
    assert_stenc_ok(stenc_field_upload(a));
    assert_stenc_ok(stenc_field_upload(b));
    void *da = stenc_field_device_origin(a), *db = stenc_field_device_origin(b);
    assert_stenc_ok(stenc_field_swap(a, b));
    assert_ptr_equal(stenc_field_device_origin(a), db);
    assert_ptr_equal(stenc_field_device_origin(b), da);
    /* A device fill after the swap lands in the storage a now owns. */
    stenc_bc bc[STENC_FACE_COUNT];
    halo_bc_set(0, bc);
    assert_stenc_ok(stenc_field_fill_halo(a, bc));
    assert_stenc_ok(stenc_field_download(a));
    assert_stenc_ok(stenc_field_download(b));
    double v;
    assert_stenc_ok(stenc_field_get(a, 4, 3, 2, &v));
    assert_true(v == 2.0);
    assert_stenc_ok(stenc_field_get(a, -1, 3, 2, &v));
    assert_true(v == bc[STENC_FACE_I_LO].value);
    assert_stenc_ok(stenc_field_get(b, 4, 3, 2, &v));
    assert_true(v == 1.0);
    assert_stenc_ok(stenc_field_get(b, -1, 3, 2, &v));
    assert_true(v == 1.0);
    /* One field on each side: the locations travel with the storage. */
    assert_stenc_ok(stenc_field_upload(a));
    assert_stenc_ok(stenc_field_swap(a, b));
    assert_int_equal(stenc_field_location(a), STENC_ON_HOST);
    assert_int_equal(stenc_field_location(b), STENC_ON_DEVICE);
    assert_stenc_ok(stenc_field_get(a, 0, 0, 0, &v));
    assert_true(v == 1.0);
    stenc_field_free(a);
    stenc_field_free(b);
    stenc_ctx_destroy(ctx);
}

/* A device-resident field freed twice, or used after its free, is reported (its device copy
 * is freed once); a field whose context went first keeps its device copy (leaked) and its free
 * says so. */
static void test_freed_device_field(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F32, 2, 33, 7, 1, 1));
    assert_stenc_ok(stenc_field_upload(f));
    assert_stenc_ok(stenc_field_free(f));
    assert_int_equal(stenc_field_free(f), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "not a live field"));
    assert_int_equal(stenc_field_download(f), STENC_ERR_INVALID_ARGUMENT);
    stenc_bc bc[STENC_FACE_COUNT];
    halo_bc_set(0, bc);
    assert_int_equal(stenc_field_fill_halo(f, bc), STENC_ERR_INVALID_ARGUMENT);
    assert_null(stenc_field_device_origin(f));
    assert_stenc_ok(stenc_ctx_destroy(ctx));

    ctx = gpu_ctx();
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F32, 1, 5, 1, 1, 0));
    assert_stenc_ok(stenc_field_upload(f));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
    assert_int_equal(stenc_field_upload(f), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_field_free(f), STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "leaked"));
}

int main(void) {
    TEST_REQUIRE_GPU_OR_SKIP();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_halo_fill_matches_host),
        cmocka_unit_test(test_upload_download_round_trips),
        cmocka_unit_test(test_host_accessors_refuse_device_fields),
        cmocka_unit_test(test_swap_on_the_device),
        cmocka_unit_test(test_freed_device_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
