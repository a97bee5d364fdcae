/* Generated launchers' argument checks (runtime/launch): each bad argument fails with the
 * right status and a message naming the stencil and the field, and leaves the outputs alone.
 * Uses the project's stencils: heat3d (3-D float, x read at radius 1) and jacobi2d (2-D
 * double). */
#include "test_util.h"

#include "heat3d.h"
#include "jacobi2d.h"

typedef struct fixture {
    stenc_ctx *ctx;
    stenc_field *x, *y; /* heat3d's fields, 6x5x4, halo 1 */
} fixture;

static const double poison = 99.0;

static stenc_field *field3(stenc_ctx *ctx, stenc_type type, size_t nx, size_t ny, size_t nz,
                           int halo) {
    stenc_field *f = NULL;
    assert_stenc_ok(stenc_field_create(ctx, &f, type, 3, nx, ny, nz, halo));
    assert_stenc_ok(stenc_field_fill(f, poison));
    return f;
}

static int setup(void **state) {
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx || stenc_ctx_create(&fx->ctx, STENC_DEVICE_CPU) != STENC_OK) return -1;
    if (stenc_field_create(fx->ctx, &fx->x, STENC_F32, 3, 6, 5, 4, 1) != STENC_OK) return -1;
    if (stenc_field_create(fx->ctx, &fx->y, STENC_F32, 3, 6, 5, 4, 1) != STENC_OK) return -1;
    if (stenc_field_fill(fx->x, 1.0) != STENC_OK || stenc_field_fill(fx->y, poison) != STENC_OK)
        return -1;
    *state = fx;
    return 0;
}

static int teardown(void **state) {
    fixture *fx = *state;
    stenc_field_free(fx->x);
    stenc_field_free(fx->y);
    stenc_ctx_destroy(fx->ctx);
    free(fx);
    return 0;
}

/* The call failed with `status`, the message holds `text`, and y is still poisoned. */
static void expect_failure(stenc_status got, stenc_status status, const char *text,
                           const stenc_field *untouched) {
    if (got != status)
        fail_msg("status %s, want %s (%s)", stenc_status_string(got), stenc_status_string(status),
                 stenc_last_error());
    if (!strstr(stenc_last_error(), text))
        fail_msg("message '%s' lacks '%s'", stenc_last_error(), text);
    if (untouched) {
        double v;
        assert_stenc_ok(stenc_field_get(untouched, 2, 2, 2, &v));
        assert_true(v == poison);
    }
}

static void test_null_arguments(void **state) {
    fixture *fx = *state;
    expect_failure(heat3d(NULL, 0.5, 0.1, fx->x, fx->y), STENC_ERR_INVALID_ARGUMENT,
                   "heat3d: ctx is NULL", fx->y);
    expect_failure(heat3d(fx->ctx, 0.5, 0.1, NULL, fx->y), STENC_ERR_INVALID_ARGUMENT,
                   "heat3d: field 'x' is NULL", fx->y);
    expect_failure(heat3d(fx->ctx, 0.5, 0.1, fx->x, NULL), STENC_ERR_INVALID_ARGUMENT,
                   "heat3d: field 'y' is NULL", NULL);
}

static void test_dims_and_type(void **state) {
    fixture *fx = *state;
    stenc_field *flat = NULL;
    assert_stenc_ok(stenc_field_create(fx->ctx, &flat, STENC_F32, 2, 6, 5, 1, 1));
    expect_failure(heat3d(fx->ctx, 0.5, 0.1, flat, fx->y), STENC_ERR_SHAPE,
                   "heat3d: field 'x' is 2-D but the stencil is 3-D", fx->y);
    stenc_field_free(flat);
    stenc_field *dbl = field3(fx->ctx, STENC_F64, 6, 5, 4, 1);
    expect_failure(heat3d(fx->ctx, 0.5, 0.1, fx->x, dbl), STENC_ERR_SHAPE,
                   "heat3d: field 'y' holds double but the stencil was generated for float", dbl);
    stenc_field_free(dbl);
}

static void test_extents(void **state) {
    fixture *fx = *state;
    stenc_field *shorter = field3(fx->ctx, STENC_F32, 6, 5, 3, 1);
    expect_failure(heat3d(fx->ctx, 0.5, 0.1, fx->x, shorter), STENC_ERR_SHAPE,
                   "heat3d: field 'y' has interior 6x5x3 but 'x' has 6x5x4", shorter);
    stenc_field_free(shorter);
}

static void test_halo(void **state) {
    fixture *fx = *state;
    stenc_field *bare = field3(fx->ctx, STENC_F32, 6, 5, 4, 0);
    expect_failure(heat3d(fx->ctx, 0.5, 0.1, bare, fx->y), STENC_ERR_SHAPE,
                   "heat3d: field 'x' has halo 0 but the stencil reads x[-1,0,0]", fx->y);
    /* Outputs need no halo. */
    assert_stenc_ok(heat3d(fx->ctx, 0.5, 0.1, fx->x, bare));
    stenc_field_free(bare);
}

static void test_aliasing(void **state) {
    fixture *fx = *state;
    expect_failure(heat3d(fx->ctx, 0.5, 0.1, fx->y, fx->y), STENC_ERR_INVALID_ARGUMENT,
                   "heat3d: output 'y' is the same field as input 'x'", fx->y);
    stenc_field *u = NULL, *f = NULL;
    assert_stenc_ok(stenc_field_create(fx->ctx, &u, STENC_F64, 2, 7, 3, 1, 1));
    assert_stenc_ok(stenc_field_create(fx->ctx, &f, STENC_F64, 2, 7, 3, 1, 1));
    expect_failure(jacobi2d(fx->ctx, 1.0, u, f, u), STENC_ERR_INVALID_ARGUMENT,
                   "jacobi2d: output 'u_new' is the same field as input 'u'", NULL);
    /* The same field as two inputs is fine. */
    stenc_field *out = NULL;
    assert_stenc_ok(stenc_field_create(fx->ctx, &out, STENC_F64, 2, 7, 3, 1, 0));
    assert_stenc_ok(jacobi2d(fx->ctx, 1.0, u, u, out));
    stenc_field_free(u);
    stenc_field_free(f);
    stenc_field_free(out);
}

static void test_other_context(void **state) {
    fixture *fx = *state;
    stenc_ctx *other = NULL;
    assert_stenc_ok(stenc_ctx_create(&other, STENC_DEVICE_CPU));
    expect_failure(heat3d(other, 0.5, 0.1, fx->x, fx->y), STENC_ERR_INVALID_ARGUMENT,
                   "heat3d: field 'x' belongs to another context", fx->y);
    stenc_ctx_destroy(other);
}

/* A good call still works after all the failures, and scalars arrive converted: with x = 1
 * everywhere, y = a + 6b. */
static void test_success(void **state) {
    fixture *fx = *state;
    assert_stenc_ok(heat3d(fx->ctx, 0.5, 0.25, fx->x, fx->y));
    for (long k = 0; k < 4; k++)
        for (long j = 0; j < 5; j++)
            for (long i = 0; i < 6; i++) {
                double v;
                assert_stenc_ok(stenc_field_get(fx->y, i, j, k, &v));
                assert_true(v == 2.0);
            }
    double halo_value;
    assert_stenc_ok(stenc_field_get(fx->y, -1, 0, 0, &halo_value));
    assert_true(halo_value == poison);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_null_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dims_and_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_extents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_halo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aliasing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_context, setup, teardown),
        cmocka_unit_test_setup_teardown(test_success, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
