/* Generated CPU kernels (stenc_stencils) against the hand-written references, and the
 * launchers' argument checks.
 *
 * Equality: bit for bit (max_ulps = 0). Both sides are C compiled by the same compiler with
 * the project's flags (-std=c11, so no FMA contraction), in the stencil's precision, with the
 * scalars converted the same way, literals in the stencil's type and every expression in the
 * .stencil's order, so any difference is a bug in one of them, not rounding. */
#include <ctype.h>

#include "test_util.h"

#include "heat3d.h"
#include "stencil_cases.h"

enum { CPU_MAX_ULPS = 0 };

static stenc_ctx *ctx;

static int setup(void **state) {
    (void)state;
    return stenc_ctx_create(&ctx, STENC_DEVICE_CPU) == STENC_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    stenc_ctx_destroy(ctx);
    return 0;
}

/* Run generated and reference on the same random inputs; compare every interior point of
 * every output, and check that the generated kernel left the outputs' halos alone. */
static void compare_case(const stencil_case *c, const size_t n[3], int halo, uint64_t seed) {
    stenc_field *gen[STENCIL_CASE_MAX_FIELDS], *ref[STENCIL_CASE_MAX_FIELDS];
    assert_stenc_ok(stencil_case_create(ctx, c, n, halo, gen));
    for (int a = 0; a < c->ninputs; a++)
        ref[a] = gen[a];
    for (int o = 0; o < c->noutputs; o++)
        assert_stenc_ok(stenc_field_create(ctx, &ref[c->ninputs + o], c->type, c->dims, n[0], n[1],
                                           n[2], halo));
    c->randomize(gen, c->ninputs, seed);
    for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++) {
        assert_stenc_ok(stenc_field_fill(gen[o], NAN));
        assert_stenc_ok(stenc_field_fill(ref[o], NAN));
    }
    assert_stenc_ok(c->generated(ctx, c->scalars, gen));
    assert_stenc_ok(c->reference(ctx, c->scalars, ref));
    for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++) {
        char msg[256];
        size_t bad = stencil_compare_interior(gen[o], ref[o], CPU_MAX_ULPS, msg, sizeof msg);
        if (bad)
            fail_msg("%s %zux%zux%zu halo %d, output %s: %zu point(s) differ, first %s", c->name,
                     n[0], n[1], n[2], halo, c->field_names[o], bad, msg);
        size_t halo_written = stencil_count_written_halo(gen[o]);
        if (halo_written)
            fail_msg("%s %zux%zux%zu halo %d: %zu halo point(s) of output %s were written", c->name,
                     n[0], n[1], n[2], halo, halo_written, c->field_names[o]);
    }
    for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++)
        stenc_field_free(ref[o]);
    stencil_case_free(c, gen);
}

/* Odd sizes in every dimension the stencil has: 1, 2, primes, 2^k+-1, and skewed boxes. */
static const size_t shapes[][3] = {{1, 1, 1},  {2, 2, 2},  {17, 1, 3}, {1, 17, 2},
                                   {33, 7, 5}, {5, 3, 19}, {31, 9, 1}, {65, 2, 4}};

static void run_case(const char *name) {
    const stencil_case *c = stencil_case_find(name);
    assert_non_null(c);
    assert_non_null(c->generated);
    uint64_t seed = 1;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int extra = 0; extra <= 1; extra++) {
            size_t n[3] = {shapes[s][0], c->dims >= 2 ? shapes[s][1] : 1,
                           c->dims >= 3 ? shapes[s][2] : 1};
            compare_case(c, n, c->halo + extra, seed++);
        }
}

static void test_heat3d(void **state) {
    (void)state, run_case("heat3d");
}
static void test_jacobi2d(void **state) {
    (void)state, run_case("jacobi2d");
}
static void test_residual2d(void **state) {
    (void)state, run_case("residual2d");
}
static void test_varcoef27(void **state) {
    (void)state, run_case("varcoef27");
}
static void test_life(void **state) {
    (void)state, run_case("life");
}
static void test_euler_flux(void **state) {
    (void)state, run_case("euler_flux");
}
static void test_wave_r2(void **state) {
    (void)state, run_case("wave_r2");
}

/* ---- launcher errors --------------------------------------------------------------------- */

/* `word` occurs in `text` as a whole identifier. */
static int mentions(const char *text, const char *word) {
    size_t len = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int before = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = !(isalnum((unsigned char)p[len]) || p[len] == '_');
        if (before && after) return 1;
    }
    return 0;
}

/* Call the generated launcher with field `slot` replaced by `bad`; it must fail with
 * `want` (or, when want_alt != STENC_OK, with want_alt), name the field in its message, and
 * leave every output as it was (poisoned with NaN). */
static void expect_launch_error(const stencil_case *c, stenc_field **fields, int slot,
                                stenc_field *bad, stenc_status want, stenc_status want_alt,
                                const char *what) {
    stenc_field *args[STENCIL_CASE_MAX_FIELDS];
    for (int a = 0; a < c->ninputs + c->noutputs; a++)
        args[a] = fields[a];
    args[slot] = bad;
    for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++)
        assert_stenc_ok(stenc_field_fill(fields[o], NAN));
    stenc_clear_error();
    stenc_status st = c->generated(ctx, c->scalars, args);
    if (st != want && !(want_alt != STENC_OK && st == want_alt))
        fail_msg("%s, %s (field %s): status '%s', expected '%s' (%s)", c->name, what,
                 c->field_names[slot], stenc_status_string(st), stenc_status_string(want),
                 stenc_last_error());
    if (!mentions(stenc_last_error(), c->field_names[slot]))
        fail_msg("%s, %s: message '%s' does not name field '%s'", c->name, what, stenc_last_error(),
                 c->field_names[slot]);
    for (int o = c->ninputs; o < c->ninputs + c->noutputs; o++) {
        char msg[64];
        /* compare with itself: 0 mismatches only if nothing is NaN; we want all NaN */
        stenc_field_layout L;
        assert_stenc_ok(stenc_field_get_layout(fields[o], &L));
        size_t interior = L.n[0] * L.n[1] * L.n[2];
        if (stencil_compare_interior(fields[o], fields[o], 0, msg, sizeof msg) != interior)
            fail_msg("%s, %s: output %s was written by a failing launch", c->name, what,
                     c->field_names[o]);
    }
}

static stenc_field *make(const stencil_case *c, stenc_type type, int dims, size_t nx, size_t ny,
                         size_t nz, int halo) {
    stenc_field *f;
    assert_stenc_ok(stenc_field_create(ctx, &f, type, dims, nx, ny, nz, halo));
    return f;
    (void)c;
}

static void test_launcher_errors(void **state) {
    (void)state;
    int count;
    const stencil_case *cases = stencil_cases(&count);
    for (int ci = 0; ci < count; ci++) {
        const stencil_case *c = &cases[ci];
        size_t n[3] = {9, c->dims >= 2 ? 6 : 1, c->dims >= 3 ? 5 : 1};
        stenc_field *f[STENCIL_CASE_MAX_FIELDS];
        assert_stenc_ok(stencil_case_create(ctx, c, n, c->halo, f));
        c->randomize(f, c->ninputs, 3);
        int last = c->ninputs + c->noutputs - 1;
        stenc_type other = c->type == STENC_F32 ? STENC_F64 : STENC_F32;

        /* a NULL field, first input and last output */
        expect_launch_error(c, f, 0, NULL, STENC_ERR_INVALID_ARGUMENT, STENC_OK, "NULL input");
        expect_launch_error(c, f, last, NULL, STENC_ERR_INVALID_ARGUMENT, STENC_OK, "NULL output");
        /* wrong type */
        stenc_field *bad = make(c, other, c->dims, n[0], n[1], n[2], c->halo);
        expect_launch_error(c, f, last, bad, STENC_ERR_SHAPE, STENC_OK, "wrong type");
        stenc_field_free(bad);
        /* wrong dims (a 3-D field of the same points for a 2-D stencil, 2-D for 3-D) */
        int wrong_dims = c->dims == 3 ? 2 : 3;
        bad = make(c, c->type, wrong_dims, n[0], n[1], wrong_dims == 3 ? 1 : 1, c->halo);
        expect_launch_error(c, f, 0, bad, STENC_ERR_SHAPE, STENC_OK, "wrong dims");
        stenc_field_free(bad);
        /* mismatched shapes, in i and in the last dimension */
        bad = make(c, c->type, c->dims, n[0] + 1, n[1], n[2], c->halo);
        expect_launch_error(c, f, last, bad, STENC_ERR_SHAPE, STENC_OK, "mismatched nx");
        stenc_field_free(bad);
        size_t m[3] = {n[0], n[1], n[2]};
        m[c->dims - 1] -= 1;
        bad = make(c, c->type, c->dims, m[0], m[1], m[2], c->halo);
        expect_launch_error(c, f, c->ninputs > 1 ? 1 : 0, bad, STENC_ERR_SHAPE, STENC_OK,
                            "mismatched extent");
        stenc_field_free(bad);
        /* too small a halo on the input read at offsets */
        bad = make(c, c->type, c->dims, n[0], n[1], n[2], c->halo - 1);
        expect_launch_error(c, f, 0, bad, STENC_ERR_SHAPE, STENC_OK, "halo too small");
        stenc_field_free(bad);
        /* aliasing: an output that is also an input */
        expect_launch_error(c, f, c->ninputs, f[0], STENC_ERR_INVALID_ARGUMENT, STENC_ERR_SHAPE,
                            "output aliases an input");
        /* aliasing: two outputs that are the same field */
        if (c->noutputs > 1)
            expect_launch_error(c, f, last, f[c->ninputs], STENC_ERR_INVALID_ARGUMENT,
                                STENC_ERR_SHAPE, "two outputs alias");
        /* a NULL context */
        stenc_status st = c->generated(NULL, c->scalars, f);
        assert_int_equal(st, STENC_ERR_INVALID_ARGUMENT);
        assert_true(mentions(stenc_last_error(), "ctx"));
        stencil_case_free(c, f);
    }
}

/* heat3d's `step y -> x`: heat3d_steps against the same steps made with stenc_field_fill_halo,
 * the hand-written reference kernel and a swap of the test's own pointers, bit for bit, at an
 * odd size with Dirichlet, Neumann and periodic faces; 0 steps change nothing; bad arguments
 * are refused before anything is written. */
static void test_heat3d_steps(void **state) {
    (void)state;
    const stencil_case *c = stencil_case_find("heat3d");
    assert_non_null(c);
    const size_t n[3] = {19, 7, 5};
    const stenc_bc bc[6] = {{STENC_BC_DIRICHLET, 1.5},  {STENC_BC_NEUMANN, 0},
                            {STENC_BC_PERIODIC, 0},     {STENC_BC_PERIODIC, 0},
                            {STENC_BC_DIRICHLET, -0.5}, {STENC_BC_NEUMANN, 0}};
    stenc_field *x = NULL, *y = NULL, *rx = NULL, *ry = NULL;
    assert_stenc_ok(stenc_field_create(ctx, &x, STENC_F32, 3, n[0], n[1], n[2], 1));
    assert_stenc_ok(stenc_field_create(ctx, &y, STENC_F32, 3, n[0], n[1], n[2], 1));
    assert_stenc_ok(stenc_field_create(ctx, &rx, STENC_F32, 3, n[0], n[1], n[2], 1));
    assert_stenc_ok(stenc_field_create(ctx, &ry, STENC_F32, 3, n[0], n[1], n[2], 1));
    c->randomize(&x, 1, 11);
    c->randomize(&rx, 1, 11);
    const double a = 0.4, b = 0.1;
    const long steps = 6;
    assert_stenc_ok(heat3d_steps(ctx, a, b, x, y, steps, bc));
    stenc_field *cur = stencil_heat3d_steps_reference(a, b, bc, rx, ry, (int)steps);
    assert_non_null(cur);
    char msg[256];
    size_t bad = stencil_compare_interior(x, cur, 0, msg, sizeof msg);
    if (bad) fail_msg("heat3d_steps: %zu point(s) differ from the reference, first %s", bad, msg);
    /* 0 steps: x as it was; bad arguments: refused, nothing written. */
    float saved[19 * 7 * 5];
    assert_stenc_ok(stenc_field_copy_to(x, saved));
    assert_stenc_ok(stenc_field_copy_from(rx, saved));
    assert_stenc_ok(heat3d_steps(ctx, a, b, x, y, 0, bc));
    assert_int_equal(stencil_compare_interior(x, rx, 0, msg, sizeof msg), 0);
    assert_int_equal(heat3d_steps(ctx, a, b, x, y, -1, bc), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(heat3d_steps(ctx, a, b, x, y, 2, NULL), STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stencil_compare_interior(x, rx, 0, msg, sizeof msg), 0);
    stenc_field_free(x), stenc_field_free(y), stenc_field_free(rx), stenc_field_free(ry);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heat3d),       cmocka_unit_test(test_jacobi2d),
        cmocka_unit_test(test_residual2d),   cmocka_unit_test(test_varcoef27),
        cmocka_unit_test(test_life),         cmocka_unit_test(test_euler_flux),
        cmocka_unit_test(test_wave_r2),      cmocka_unit_test(test_launcher_errors),
        cmocka_unit_test(test_heat3d_steps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
