/* Fields on the CPU: layout and alignment, every accessor and its error paths, and halo fills
 * checked against an independent recursive formula (field_test_util.h). */
#include "field_test_util.h"

static stenc_ctx *cpu_ctx(void) {
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    return ctx;
}

static void expect_error(stenc_status got, stenc_status want, const char *needle) {
    assert_int_equal(got, want);
    if (!strstr(stenc_last_error(), needle))
        fail_msg("message '%s' does not mention '%s'", stenc_last_error(), needle);
}

static const stenc_type types[] = {STENC_F32, STENC_F64};

static void test_create_rejects_bad_arguments(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    stenc_field *f = (stenc_field *)&f; /* must be reset to NULL on failure */
    expect_error(stenc_field_create(NULL, &f, STENC_F32, 1, 4, 1, 1, 1), STENC_ERR_INVALID_ARGUMENT,
                 "ctx is NULL");
    assert_null(f);
    expect_error(stenc_field_create(ctx, NULL, STENC_F32, 1, 4, 1, 1, 1),
                 STENC_ERR_INVALID_ARGUMENT, "stenc_field_create");
    expect_error(stenc_field_create(ctx, &f, (stenc_type)99, 1, 4, 1, 1, 1),
                 STENC_ERR_INVALID_ARGUMENT, "invalid type");
    expect_error(stenc_field_create(ctx, &f, STENC_U32, 1, 4, 1, 1, 1), STENC_ERR_UNSUPPORTED,
                 "u32");
    expect_error(stenc_field_create(ctx, &f, STENC_F32, 0, 4, 1, 1, 1), STENC_ERR_SHAPE,
                 "dims = 0");
    expect_error(stenc_field_create(ctx, &f, STENC_F32, 4, 4, 1, 1, 1), STENC_ERR_SHAPE,
                 "dims = 4");
    expect_error(stenc_field_create(ctx, &f, STENC_F32, 2, 4, 4, 1, -1), STENC_ERR_SHAPE,
                 "halo = -1");
    expect_error(stenc_field_create(ctx, &f, STENC_F32, 2, 4, 4, 1, 17), STENC_ERR_SHAPE,
                 "halo = 17");
    expect_error(stenc_field_create(ctx, &f, STENC_F32, 3, 4, 0, 4, 1), STENC_ERR_SHAPE,
                 "extent y = 0");
    expect_error(stenc_field_create(ctx, &f, STENC_F32, 1, 0, 1, 1, 1), STENC_ERR_SHAPE,
                 "extent x = 0");
    expect_error(stenc_field_create(ctx, &f, STENC_F32, 1, 4, 2, 1, 1), STENC_ERR_SHAPE, "ny = 1");
    expect_error(stenc_field_create(ctx, &f, STENC_F64, 2, 4, 3, 5, 1), STENC_ERR_SHAPE, "nz = 1");
    /* Sizes that overflow size_t, or that no pointer can span, fail cleanly, never crash. */
    expect_error(stenc_field_create(ctx, &f, STENC_F32, 1, SIZE_MAX - 5, 1, 1, 2),
                 STENC_ERR_OUT_OF_MEMORY, "too large");
    expect_error(stenc_field_create(ctx, &f, STENC_F64, 3, (size_t)1 << 22, (size_t)1 << 22,
                                    (size_t)1 << 22, 1),
                 STENC_ERR_OUT_OF_MEMORY, "too large");
    expect_error(stenc_field_create(ctx, &f, STENC_F32, 2, (size_t)1 << 31, (size_t)1 << 30, 1, 0),
                 STENC_ERR_OUT_OF_MEMORY, "too large");
    expect_error(stenc_field_create(ctx, &f, STENC_F64, 2, 5, SIZE_MAX - 1, 1, 1),
                 STENC_ERR_OUT_OF_MEMORY, "too large");
    assert_null(f);
    stenc_field_free(NULL); /* allowed */
    stenc_ctx_destroy(ctx);
}

/* Every row, halo rows included, starts its interior on a STENC_FIELD_ALIGN boundary; rows
 * and planes do not overlap; the whole box lies inside the allocation; contents start at 0. */
static void check_layout(stenc_ctx *ctx, stenc_type type, int dims, size_t nx, size_t ny, size_t nz,
                         int halo) {
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, type, dims, nx, ny, nz, halo));
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    assert_int_equal(L.type, type);
    assert_int_equal(L.dims, dims);
    assert_int_equal(L.halo, halo);
    assert_int_equal(L.n[0], nx);
    assert_int_equal(L.n[1], ny);
    assert_int_equal(L.n[2], nz);
    assert_int_equal(L.stride[0], 1);
    long h1 = dims >= 2 ? halo : 0, h2 = dims >= 3 ? halo : 0;
    assert_true(L.stride[1] >= (ptrdiff_t)(nx + 2 * (size_t)halo));
    assert_true(L.stride[2] >= L.stride[1] * (ptrdiff_t)(ny + 2 * (size_t)h1));
    size_t esize = stenc_type_size(type);
    char *origin = stenc_field_host_origin(f);
    assert_int_equal((uintptr_t)(origin - L.origin_elems * esize) % STENC_FIELD_ALIGN, 0);
    assert_null(stenc_field_device_origin(f));
    assert_int_equal(stenc_field_location(f), STENC_ON_HOST);
    assert_ptr_equal(stenc_field_ctx(f), ctx);
    /* The lowest and highest addressable points lie inside the allocation. */
    ptrdiff_t lowest = -(ptrdiff_t)halo - h1 * L.stride[1] - h2 * L.stride[2];
    ptrdiff_t highest = (ptrdiff_t)(nx - 1 + halo) + (ptrdiff_t)(ny - 1 + h1) * L.stride[1] +
                        (ptrdiff_t)(nz - 1 + h2) * L.stride[2];
    assert_true((ptrdiff_t)L.origin_elems + lowest >= 0);
    assert_true((ptrdiff_t)L.origin_elems + highest < (ptrdiff_t)L.alloc_elems);
    for (long k = -h2; k < (long)nz + h2; k++)
        for (long j = -h1; j < (long)ny + h1; j++) {
            char *row = origin + (j * L.stride[1] + k * L.stride[2]) * (ptrdiff_t)esize;
            if ((uintptr_t)row % STENC_FIELD_ALIGN != 0)
                fail_msg("%s %dD %zux%zux%zu halo %d: row (j=%ld, k=%ld) starts at offset %zu",
                         stenc_type_name(type), dims, nx, ny, nz, halo, j, k,
                         (size_t)((uintptr_t)row % STENC_FIELD_ALIGN));
            for (long i = -halo; i < (long)nx + halo; i++) {
                double v = -1;
                assert_stenc_ok(stenc_field_get(f, i, j, k, &v));
                assert_true(v == 0.0);
            }
        }
    stenc_field_free(f);
}

static void test_layout_is_aligned_for_every_row(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    static const size_t sizes[] = {1, 2, 3, 17, 31, 32, 33, 65};
    static const int halos[] = {0, 1, 2, 3, 16};
    for (size_t t = 0; t < 2; t++)
        for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
            for (size_t h = 0; h < sizeof halos / sizeof *halos; h++) {
                size_t n = sizes[a], m = sizes[(a + 3) % 8], p = sizes[(a + 5) % 8];
                check_layout(ctx, types[t], 1, n, 1, 1, halos[h]);
                check_layout(ctx, types[t], 2, n, m, 1, halos[h]);
                if (n * m * p <= 4000) check_layout(ctx, types[t], 3, n, m, p, halos[h]);
            }
    stenc_ctx_destroy(ctx);
}

/* set writes exactly the element the layout formula names, get reads it back, and points
 * outside interior+halo are refused in every dimension. */
static void test_get_set_address_every_point(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    for (size_t t = 0; t < 2; t++)
        for (int dims = 1; dims <= 3; dims++) {
            size_t n[3] = {7, dims >= 2 ? 5 : 1, dims >= 3 ? 3 : 1};
            int halo = 2;
            stenc_field *f;
            assert_stenc_ok(stenc_field_create(ctx, &f, types[t], dims, n[0], n[1], n[2], halo));
            stenc_field_layout L;
            assert_stenc_ok(stenc_field_get_layout(f, &L));
            field_box box = field_box_of(f);
            for (long k = -box.h[2]; k < box.n[2] + box.h[2]; k++)
                for (long j = -box.h[1]; j < box.n[1] + box.h[1]; j++)
                    for (long i = -box.h[0]; i < box.n[0] + box.h[0]; i++) {
                        double v = (double)field_box_index(&box, i, j, k) + 0.5;
                        assert_stenc_ok(stenc_field_set(f, i, j, k, v));
                        ptrdiff_t off = i + j * L.stride[1] + k * L.stride[2];
                        double raw = types[t] == STENC_F32
                                         ? ((float *)stenc_field_host_origin(f))[off]
                                         : ((double *)stenc_field_host_origin(f))[off];
                        assert_true(raw == v);
                    }
            for (long k = -box.h[2]; k < box.n[2] + box.h[2]; k++)
                for (long j = -box.h[1]; j < box.n[1] + box.h[1]; j++)
                    for (long i = -box.h[0]; i < box.n[0] + box.h[0]; i++) {
                        double v;
                        assert_stenc_ok(stenc_field_get(f, i, j, k, &v));
                        assert_true(v == (double)field_box_index(&box, i, j, k) + 0.5);
                    }
            /* One step outside, on each side of each dimension (unused ones accept only 0). */
            for (int d = 0; d < 3; d++)
                for (int side = 0; side < 2; side++) {
                    long p[3] = {0, 0, 0};
                    p[d] = side ? box.n[d] + box.h[d] : -box.h[d] - 1;
                    double v;
                    expect_error(stenc_field_set(f, p[0], p[1], p[2], 1.0),
                                 STENC_ERR_INVALID_ARGUMENT, "outside the field");
                    expect_error(stenc_field_get(f, p[0], p[1], p[2], &v),
                                 STENC_ERR_INVALID_ARGUMENT, "outside the field");
                }
            expect_error(stenc_field_get(f, 0, 0, 0, NULL), STENC_ERR_INVALID_ARGUMENT,
                         "value pointer is NULL");
            stenc_field_free(f);
        }
    stenc_ctx_destroy(ctx);
}

static void test_fill_and_dense_copies(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    test_rng rng = test_rng_seeded(11);
    for (size_t t = 0; t < 2; t++)
        for (int dims = 1; dims <= 3; dims++) {
            size_t n[3] = {33, dims >= 2 ? 7 : 1, dims >= 3 ? 5 : 1};
            size_t count = n[0] * n[1] * n[2], esize = stenc_type_size(types[t]);
            stenc_field *f;
            assert_stenc_ok(stenc_field_create(ctx, &f, types[t], dims, n[0], n[1], n[2], 1));
            /* fill covers interior and halo */
            assert_stenc_ok(stenc_field_fill(f, 0.3));
            field_box box = field_box_of(f);
            double *all = field_box_read(f, &box);
            double want = types[t] == STENC_F32 ? (double)0.3f : 0.3;
            for (size_t e = 0; e < box.count; e++)
                assert_true(all[e] == want);
            free(all);
            /* copy_from / copy_to: a dense array, i fastest; the halo is left alone */
            char *src = malloc(count * esize), *back = malloc(count * esize);
            assert_non_null(src);
            assert_non_null(back);
            for (size_t e = 0; e < count; e++) {
                double v = test_rng_uniform(&rng, -1, 1);
                if (types[t] == STENC_F32)
                    ((float *)src)[e] = (float)v;
                else
                    ((double *)src)[e] = v;
            }
            assert_stenc_ok(stenc_field_copy_from(f, src));
            for (size_t e = 0; e < count; e++) {
                long i = (long)(e % n[0]), j = (long)(e / n[0] % n[1]),
                     k = (long)(e / (n[0] * n[1]));
                double v, s = types[t] == STENC_F32 ? ((float *)src)[e] : ((double *)src)[e];
                assert_stenc_ok(stenc_field_get(f, i, j, k, &v));
                assert_true(v == s);
            }
            double halo_v;
            assert_stenc_ok(stenc_field_get(f, -1, 0, 0, &halo_v));
            assert_true(halo_v == want);
            memset(back, 0xff, count * esize);
            assert_stenc_ok(stenc_field_copy_to(f, back));
            assert_memory_equal(src, back, count * esize);
            expect_error(stenc_field_copy_from(f, NULL), STENC_ERR_INVALID_ARGUMENT,
                         "source array is NULL");
            expect_error(stenc_field_copy_to(f, NULL), STENC_ERR_INVALID_ARGUMENT,
                         "destination array is NULL");
            free(src);
            free(back);
            stenc_field_free(f);
        }
    stenc_ctx_destroy(ctx);
}

static void test_null_fields_are_errors(void **state) {
    (void)state;
    stenc_field_layout L;
    double v;
    float buf[4];
    stenc_bc bc[STENC_FACE_COUNT] = {{STENC_BC_NONE, 0}};
    expect_error(stenc_field_get_layout(NULL, &L), STENC_ERR_INVALID_ARGUMENT, "field is NULL");
    expect_error(stenc_field_fill(NULL, 1), STENC_ERR_INVALID_ARGUMENT, "stenc_field_fill");
    expect_error(stenc_field_set(NULL, 0, 0, 0, 1), STENC_ERR_INVALID_ARGUMENT, "stenc_field_set");
    expect_error(stenc_field_get(NULL, 0, 0, 0, &v), STENC_ERR_INVALID_ARGUMENT, "stenc_field_get");
    expect_error(stenc_field_copy_from(NULL, buf), STENC_ERR_INVALID_ARGUMENT, "copy_from");
    expect_error(stenc_field_copy_to(NULL, buf), STENC_ERR_INVALID_ARGUMENT, "copy_to");
    expect_error(stenc_field_upload(NULL), STENC_ERR_INVALID_ARGUMENT, "stenc_field_upload");
    expect_error(stenc_field_download(NULL), STENC_ERR_INVALID_ARGUMENT, "stenc_field_download");
    expect_error(stenc_field_swap(NULL, NULL), STENC_ERR_INVALID_ARGUMENT, "stenc_field_swap");
    expect_error(stenc_field_fill_halo(NULL, bc), STENC_ERR_INVALID_ARGUMENT, "field is NULL");
    assert_null(stenc_field_host_origin(NULL));
    assert_null(stenc_field_device_origin(NULL));
    assert_null(stenc_field_ctx(NULL));
    assert_int_equal(stenc_field_location(NULL), STENC_ON_HOST);

    stenc_ctx *ctx = cpu_ctx();
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F32, 1, 4, 1, 1, 1));
    expect_error(stenc_field_get_layout(f, NULL), STENC_ERR_INVALID_ARGUMENT, "layout is NULL");
    expect_error(stenc_field_fill_halo(f, NULL), STENC_ERR_INVALID_ARGUMENT, "bc is NULL");
    expect_error(stenc_field_swap(f, NULL), STENC_ERR_INVALID_ARGUMENT, "field b is NULL");
    stenc_field_free(f);
    stenc_ctx_destroy(ctx);
}

/* On a CPU context there is no device: upload and download leave the field on the host. */
static void test_residence_on_a_cpu_context(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, STENC_F64, 2, 9, 4, 1, 1));
    assert_stenc_ok(stenc_field_set(f, 3, 2, 0, 2.5));
    assert_stenc_ok(stenc_field_upload(f));
    assert_int_equal(stenc_field_location(f), STENC_ON_HOST);
    assert_null(stenc_field_device_origin(f));
    assert_stenc_ok(stenc_field_download(f));
    double v;
    assert_stenc_ok(stenc_field_get(f, 3, 2, 0, &v));
    assert_true(v == 2.5);
    stenc_field_free(f);
    stenc_ctx_destroy(ctx);
}

static void test_swap_exchanges_storage_and_checks_shapes(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx(), *other = cpu_ctx();
    stenc_field *a, *b;
    assert_stenc_ok(stenc_field_create(ctx, &a, STENC_F32, 3, 5, 4, 3, 1));
    assert_stenc_ok(stenc_field_create(ctx, &b, STENC_F32, 3, 5, 4, 3, 1));
    assert_stenc_ok(stenc_field_fill(a, 1.0));
    assert_stenc_ok(stenc_field_fill(b, 2.0));
    void *origin_a = stenc_field_host_origin(a), *origin_b = stenc_field_host_origin(b);
    assert_stenc_ok(stenc_field_swap(a, b));
    assert_ptr_equal(stenc_field_host_origin(a), origin_b);
    assert_ptr_equal(stenc_field_host_origin(b), origin_a);
    double va, vb;
    assert_stenc_ok(stenc_field_get(a, -1, 3, 2, &va));
    assert_stenc_ok(stenc_field_get(b, 4, -1, 3, &vb));
    assert_true(va == 2.0 && vb == 1.0);
    assert_stenc_ok(stenc_field_swap(a, a));
    assert_ptr_equal(stenc_field_host_origin(a), origin_b);

    struct {
        stenc_ctx *ctx;
        stenc_type type;
        int dims;
        size_t nx, ny, nz;
        int halo;
        const char *needle;
    } bad[] = {
        {ctx, STENC_F64, 3, 5, 4, 3, 1, "double"}, {ctx, STENC_F32, 3, 5, 4, 2, 1, "x 2 halo"},
        {ctx, STENC_F32, 3, 6, 4, 3, 1, "6 x 4"},  {ctx, STENC_F32, 3, 5, 4, 3, 2, "halo 2"},
        {ctx, STENC_F32, 2, 5, 4, 1, 1, "2D"},     {other, STENC_F32, 3, 5, 4, 3, 1, "contexts"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof *bad; c++) {
        stenc_field *x;
        assert_stenc_ok(stenc_field_create(bad[c].ctx, &x, bad[c].type, bad[c].dims, bad[c].nx,
                                           bad[c].ny, bad[c].nz, bad[c].halo));
        expect_error(stenc_field_swap(a, x), STENC_ERR_SHAPE, bad[c].needle);
        assert_ptr_equal(stenc_field_host_origin(a), origin_b); /* untouched */
        stenc_field_free(x);
    }
    stenc_field_free(a);
    stenc_field_free(b);
    stenc_ctx_destroy(ctx);
    stenc_ctx_destroy(other);
}

/* Halo fills at odd sizes, halos 1 and 2 (and 3 > n, where periodic wraps more than once),
 * float and double, against halo_expected(). */
static void test_halo_fills_match_the_formula(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    test_rng rng = test_rng_seeded(5);
    static const size_t shapes[][3] = {{1, 1, 1}, {2, 3, 1}, {17, 2, 3}, {33, 7, 5}, {5, 1, 2}};
    static const int halos[] = {1, 2, 3};
    int checked = 0;
    static const stenc_type all_types[] = {STENC_F32, STENC_F64, STENC_I32, STENC_U8};
    for (size_t t = 0; t < 4; t++)
        for (int dims = 1; dims <= 3; dims++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
                for (size_t h = 0; h < 3; h++)
                    for (int set = 0; set < HALO_BC_SETS; set++) {
                        size_t n[3] = {shapes[s][0], dims >= 2 ? shapes[s][1] : 1,
                                       dims >= 3 ? shapes[s][2] : 1};
                        stenc_field *f;
                        assert_stenc_ok(stenc_field_create(ctx, &f, all_types[t], dims, n[0], n[1],
                                                           n[2], halos[h]));
                        field_randomize(f, &rng);
                        field_box box = field_box_of(f);
                        double *before = field_box_read(f, &box);
                        stenc_bc bc[STENC_FACE_COUNT];
                        halo_bc_set_for(all_types[t], set, bc);
                        assert_stenc_ok(stenc_field_fill_halo(f, bc));
                        check_halo_fill(f, before, bc, "host fill");
                        free(before);
                        stenc_field_free(f);
                        checked++;
                    }
    assert_int_equal(checked, 4 * 3 * 5 * 3 * HALO_BC_SETS);
    stenc_ctx_destroy(ctx);
}

/* Integer fields (i32, u8): values in and out through every accessor, refused when not a
 * whole number of the type (nothing written), dense copies, and a Dirichlet value that the type
 * cannot hold refused by the halo fill. */
static void test_integer_fields(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    stenc_field *a, *b;
    assert_stenc_ok(stenc_field_create(ctx, &a, STENC_I32, 2, 5, 3, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &b, STENC_U8, 3, 4, 3, 2, 2));
    assert_int_equal(stenc_type_size(STENC_U8), 1);
    assert_string_equal(stenc_type_name(STENC_U8), "u8");
    assert_false(stenc_type_is_real(STENC_I32));
    assert_stenc_ok(stenc_field_set(a, 4, 2, 0, -2147483648.0));
    assert_stenc_ok(stenc_field_set(a, -1, 0, 0, 2147483647.0));
    assert_stenc_ok(stenc_field_set(b, 3, 2, 1, 255));
    double v = 0;
    assert_stenc_ok(stenc_field_get(a, 4, 2, 0, &v));
    assert_true(v == -2147483648.0);
    assert_stenc_ok(stenc_field_get(a, -1, 0, 0, &v));
    assert_true(v == 2147483647.0);
    assert_stenc_ok(stenc_field_get(b, 3, 2, 1, &v));
    assert_true(v == 255);
    expect_error(stenc_field_set(a, 0, 0, 0, 0.5), STENC_ERR_INVALID_ARGUMENT,
                 "not a value of i32");
    expect_error(stenc_field_set(a, 0, 0, 0, 2147483648.0), STENC_ERR_INVALID_ARGUMENT, "i32");
    expect_error(stenc_field_set(b, 0, 0, 0, 256), STENC_ERR_INVALID_ARGUMENT, "u8");
    expect_error(stenc_field_set(b, 0, 0, 0, -1), STENC_ERR_INVALID_ARGUMENT, "u8");
    expect_error(stenc_field_set(b, 0, 0, 0, NAN), STENC_ERR_INVALID_ARGUMENT, "u8");
    expect_error(stenc_field_fill(b, 1.5), STENC_ERR_INVALID_ARGUMENT, "u8");
    assert_stenc_ok(stenc_field_get(b, 3, 2, 1, &v));
    assert_true(v == 255); /* the refused fill wrote nothing */
    assert_stenc_ok(stenc_field_fill(b, 7));
    uint8_t dense[4 * 3 * 2];
    assert_stenc_ok(stenc_field_copy_to(b, dense));
    for (size_t p = 0; p < sizeof dense; p++)
        assert_int_equal(dense[p], 7);
    for (size_t p = 0; p < sizeof dense; p++)
        dense[p] = (uint8_t)(3 * p);
    assert_stenc_ok(stenc_field_copy_from(b, dense));
    assert_stenc_ok(stenc_field_get(b, 1, 2, 1, &v));
    assert_true(v == 3 * (1 + 4 * (2 + 3 * 1)));
    stenc_bc bc[STENC_FACE_COUNT];
    halo_bc_set(0, bc); /* Dirichlet 0.1, ...: not whole numbers */
    expect_error(stenc_field_fill_halo(a, bc), STENC_ERR_INVALID_ARGUMENT, "Dirichlet value");
    double sum = 0;
    expect_error(stenc_field_sum(a, &sum), STENC_ERR_UNSUPPORTED, "i32");
    stenc_field_free(a);
    stenc_field_free(b);
    stenc_ctx_destroy(ctx);
}

static void test_halo_fill_errors(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    stenc_field *f1, *f2;
    assert_stenc_ok(stenc_field_create(ctx, &f1, STENC_F32, 1, 8, 1, 1, 1));
    assert_stenc_ok(stenc_field_create(ctx, &f2, STENC_F64, 2, 8, 3, 1, 2));
    stenc_bc bc[STENC_FACE_COUNT];
    halo_bc_set(0, bc);
    bc[STENC_FACE_J_LO].kind = STENC_BC_PERIODIC; /* j-hi is Dirichlet */
    expect_error(stenc_field_fill_halo(f2, bc), STENC_ERR_INVALID_ARGUMENT, "j-lo is periodic");
    /* A failed fill leaves the halo untouched. */
    double v;
    assert_stenc_ok(stenc_field_get(f2, -1, 0, 0, &v));
    assert_true(v == 0.0);
    stenc_bc bad_kind[STENC_FACE_COUNT];
    halo_bc_set(0, bad_kind);
    bad_kind[STENC_FACE_I_HI].kind = (stenc_bc_kind)9;
    expect_error(stenc_field_fill_halo(f1, bad_kind), STENC_ERR_INVALID_ARGUMENT,
                 "i-hi has unknown");
    assert_stenc_ok(stenc_field_get(f1, -1, 0, 0, &v));
    assert_true(v == 0.0);
    /* Faces of unused dimensions are ignored, even when they would be wrong. */
    assert_stenc_ok(stenc_field_fill_halo(f1, bc));
    assert_stenc_ok(stenc_field_get(f1, -1, 0, 0, &v));
    assert_true(v == (double)(float)bc[STENC_FACE_I_LO].value);
    stenc_field_free(f1);
    stenc_field_free(f2);
    stenc_ctx_destroy(ctx);
}

/* Views: a box of a parent's storage for launches alone. Checked: the box and its alignment,
 * the storage they share (through the parent's origin and a swap), and every call a view
 * refuses. */
static void test_views(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    stenc_field *p = NULL, *q = NULL, *v = (stenc_field *)&v, *w = NULL;
    assert_stenc_ok(stenc_field_create(ctx, &p, STENC_F32, 3, 70, 9, 7, 2));
    assert_stenc_ok(stenc_field_create(ctx, &q, STENC_F32, 3, 70, 9, 7, 2));
    const size_t lo[3] = {32, 3, 1}, n[3] = {38, 5, 6};
    const size_t odd[3] = {1, 0, 0}, wide[3] = {40, 5, 6}, zero[3] = {38, 0, 6};
    expect_error(stenc_field_view(&v, p, odd, n), STENC_ERR_SHAPE, "alignment");
    assert_null(v);
    expect_error(stenc_field_view(&v, p, lo, wide), STENC_ERR_SHAPE, "leaves the interior");
    expect_error(stenc_field_view(&v, p, lo, zero), STENC_ERR_SHAPE, "empty");
    expect_error(stenc_field_view(&v, NULL, lo, n), STENC_ERR_INVALID_ARGUMENT, "parent");
    assert_stenc_ok(stenc_field_view(&v, p, lo, n));
    expect_error(stenc_field_view(&w, v, lo, n), STENC_ERR_INVALID_ARGUMENT, "a view itself");
    /* Its layout and origin: the parent's point lo is the view's (0,0,0), the halo the same. */
    stenc_field_layout L, P;
    assert_stenc_ok(stenc_field_get_layout(v, &L));
    assert_stenc_ok(stenc_field_get_layout(p, &P));
    assert_int_equal(L.n[0], 38), assert_int_equal(L.n[1], 5), assert_int_equal(L.n[2], 6);
    assert_int_equal(L.halo, 2);
    assert_int_equal(L.stride[1], P.stride[1]), assert_int_equal(L.stride[2], P.stride[2]);
    assert_stenc_ok(stenc_field_set(p, 32, 3, 1, 7.0));
    assert_stenc_ok(stenc_field_set(q, 32, 3, 1, 9.0));
    assert_true(*(float *)stenc_field_host_origin(v) == 7.0f);
    assert_stenc_ok(stenc_field_swap(p, q)); /* the view follows its parent's storage */
    assert_true(*(float *)stenc_field_host_origin(v) == 9.0f);
    assert_int_equal(stenc_field_location(v), STENC_ON_HOST);
    /* What a view refuses. */
    double x = 0;
    stenc_bc bc[STENC_FACE_COUNT] = {{STENC_BC_NEUMANN, 0}, {STENC_BC_NEUMANN, 0},
                                     {STENC_BC_NEUMANN, 0}, {STENC_BC_NEUMANN, 0},
                                     {STENC_BC_NEUMANN, 0}, {STENC_BC_NEUMANN, 0}};
    float dense[38 * 5 * 6] = {0};
    expect_error(stenc_field_set(v, 0, 0, 0, 1.0), STENC_ERR_INVALID_ARGUMENT, "a view");
    expect_error(stenc_field_get(v, 0, 0, 0, &x), STENC_ERR_INVALID_ARGUMENT, "a view");
    expect_error(stenc_field_fill(v, 1.0), STENC_ERR_INVALID_ARGUMENT, "a view");
    expect_error(stenc_field_copy_from(v, dense), STENC_ERR_INVALID_ARGUMENT, "a view");
    expect_error(stenc_field_copy_to(v, dense), STENC_ERR_INVALID_ARGUMENT, "a view");
    expect_error(stenc_field_upload(v), STENC_ERR_INVALID_ARGUMENT, "a view");
    expect_error(stenc_field_download(v), STENC_ERR_INVALID_ARGUMENT, "a view");
    expect_error(stenc_field_fill_halo(v, bc), STENC_ERR_INVALID_ARGUMENT, "a view");
    expect_error(stenc_field_swap(v, q), STENC_ERR_INVALID_ARGUMENT, "a view");
    /* A view outliving its parent is reported, not read. */
    assert_stenc_ok(stenc_field_free(p));
    expect_error(stenc_field_get_layout(v, &L), STENC_ERR_INVALID_ARGUMENT, "was freed");
    assert_stenc_ok(stenc_field_free(v));
    assert_stenc_ok(stenc_field_free(q));
    assert_stenc_ok(stenc_ctx_destroy(ctx));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects_bad_arguments),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_layout_is_aligned_for_every_row),
        cmocka_unit_test(test_get_set_address_every_point),
        cmocka_unit_test(test_fill_and_dense_copies),
        cmocka_unit_test(test_null_fields_are_errors),
        cmocka_unit_test(test_residence_on_a_cpu_context),
        cmocka_unit_test(test_swap_exchanges_storage_and_checks_shapes),
        cmocka_unit_test(test_halo_fills_match_the_formula),
        cmocka_unit_test(test_halo_fill_errors),
        cmocka_unit_test(test_integer_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
