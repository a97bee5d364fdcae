/* Fields on a CUDA device: halo fills on the device against the host fill and the formula,
 * upload/download round trips at odd and large sizes (staged and not), location errors, and
 * swap of device-resident fields. */
#include "field_test_util.h"

static stenc_ctx *gpu_ctx(void) {
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CUDA));
    return ctx;
}

static size_t alloc_bytes(const stenc_field *f) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    return L.alloc_elems * stenc_type_size(L.type);
}

/* Start of the whole host allocation (halo and padding included). */
static char *host_base(const stenc_field *f) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    return (char *)stenc_field_host_origin(f) - L.origin_elems * stenc_type_size(L.type);
}

static void test_device_halo_fill_matches_host(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    static const stenc_type types[] = {STENC_F32, STENC_F64, STENC_I32, STENC_U8};
    static const size_t shapes[][3] = {{1, 1, 1}, {2, 3, 1}, {17, 2, 3}, {33, 7, 5}, {67, 13, 9}};
    static const int halos[] = {1, 2, 3};
    for (size_t t = 0; t < 4; t++)
        for (int dims = 1; dims <= 3; dims++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
                for (size_t h = 0; h < 3; h++)
                    for (int set = 0; set < HALO_BC_SETS; set++) {
                        size_t n[3] = {shapes[s][0], dims >= 2 ? shapes[s][1] : 1,
                                       dims >= 3 ? shapes[s][2] : 1};
                        stenc_field *dev, *host;
                        assert_stenc_ok(stenc_field_create(ctx, &dev, types[t], dims, n[0], n[1],
                                                           n[2], halos[h]));
                        assert_stenc_ok(stenc_field_create(ctx, &host, types[t], dims, n[0], n[1],
                                                           n[2], halos[h]));
                        test_rng r1 = test_rng_seeded(100 + set), r2 = r1;
                        field_randomize(dev, &r1);
                        field_randomize(host, &r2);
                        field_box box = field_box_of(dev);
                        double *before = field_box_read(dev, &box);
                        stenc_bc bc[STENC_FACE_COUNT];
                        halo_bc_set_for(types[t], set, bc);
                        assert_stenc_ok(stenc_field_upload(dev));
                        assert_int_equal(stenc_field_location(dev), STENC_ON_DEVICE);
                        assert_stenc_ok(stenc_field_fill_halo(dev, bc));
                        assert_stenc_ok(stenc_field_fill_halo(host, bc));
                        assert_stenc_ok(stenc_field_download(dev));
                        assert_int_equal(stenc_field_location(dev), STENC_ON_HOST);
                        check_halo_fill(dev, before, bc, "device fill");
                        assert_memory_equal(host_base(dev), host_base(host), alloc_bytes(dev));
                        free(before);
                        stenc_field_free(dev);
                        stenc_field_free(host);
                    }
    stenc_ctx_destroy(ctx);
}

/* Round trips: what reaches the device is checked with a raw stenc_download (not the
 * field's own path), then the host copy is poisoned and the field downloaded back. */
static void round_trip(stenc_ctx *ctx, stenc_type type, int dims, size_t nx, size_t ny, size_t nz,
                       int halo, test_rng *rng) {
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, type, dims, nx, ny, nz, halo));
    size_t bytes = alloc_bytes(f);
    char *base = host_base(f);
    /* Random bytes over the whole allocation: halo and padding must travel too. */
    for (size_t b = 0; b + 8 <= bytes; b += 8) {
        uint64_t x = test_rng_u64(rng);
        memcpy(base + b, &x, 8);
    }
    char *saved = malloc(bytes), *raw = malloc(bytes);
    assert_non_null(saved);
    assert_non_null(raw);
    memcpy(saved, base, bytes);
    assert_stenc_ok(stenc_field_upload(f));
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    char *dbase = (char *)stenc_field_device_origin(f) - L.origin_elems * stenc_type_size(type);
    assert_int_equal((uintptr_t)dbase % STENC_FIELD_ALIGN, 0);
    memset(raw, 0, bytes);
    assert_stenc_ok(stenc_download(ctx, raw, dbase, bytes));
    if (memcmp(raw, saved, bytes) != 0)
        fail_msg("upload of %zu bytes (%zux%zux%zu) differs", bytes, nx, ny, nz);
    memset(base, 0xA5, bytes);
    assert_stenc_ok(stenc_field_download(f));
    if (memcmp(base, saved, bytes) != 0)
        fail_msg("download of %zu bytes (%zux%zux%zu) differs", bytes, nx, ny, nz);
    /* The device copy is allocated once. */
    void *dorigin = stenc_field_device_origin(f);
    assert_stenc_ok(stenc_field_upload(f));
    assert_ptr_equal(stenc_field_device_origin(f), dorigin);
    assert_stenc_ok(stenc_field_download(f));
    free(saved);
    free(raw);
    stenc_field_free(f);
}

static void test_upload_download_round_trips(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    test_rng rng = test_rng_seeded(21);
    round_trip(ctx, STENC_F32, 1, 1, 1, 1, 0, &rng);
    round_trip(ctx, STENC_F64, 1, 17, 1, 1, 2, &rng);
    round_trip(ctx, STENC_F32, 2, 33, 7, 1, 1, &rng);
    round_trip(ctx, STENC_F64, 3, 33, 7, 5, 2, &rng);
    /* Around the staging threshold and over many chunks with a ragged last chunk. */
    round_trip(ctx, STENC_F32, 2, 1023, 255, 1, 1, &rng);
    round_trip(ctx, STENC_F64, 3, 301, 257, 99, 2, &rng);
    round_trip(ctx, STENC_F32, 3, 513, 511, 67, 1, &rng);
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
