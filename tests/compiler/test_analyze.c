/* The analyser: flops, bytes and intensity counted by hand, offsets, halos, distinct reads. */
#include "test_util.h"

#include "fe_test.h"

/* Check and analyse the first stencil of `src`; fails the test on any error. */
static fe_result analyse(const char *src, ast_type override, km_kernel *km) {
    fe_result r = fe_run(src);
    if (r.errors) fail_msg("%s", r.messages);
    assert_int_equal(analyze_stencil(r.file->stencils[0], override, km), 0);
    return r;
}

static fe_result analyse_file(const char *path, ast_type override, km_kernel *km) {
    size_t len;
    char *text = fe_slurp(path, &len);
    fe_result r = fe_run_len(text, len);
    free(text);
    if (r.errors) fail_msg("%s", r.messages);
    assert_int_equal(analyze_stencil(r.file->stencils[0], override, km), 0);
    return r;
}

static long flops_of(const char *body) {
    char src[1024];
    snprintf(src, sizeof src,
             "stencil s { dims 2; type float; scalar a; input x; output y, z;\n%s\n}", body);
    km_kernel km;
    fe_result r = analyse(src, AST_TYPE_NONE, &km);
    long flops = km.flops;
    analyze_free(&km);
    fe_result_free(&r);
    return flops;
}

static void test_flop_rules(void **state) {
    (void)state;
    assert_int_equal(flops_of("y = x; z = a;"), 0);
    assert_int_equal(flops_of("y = x + a*x - x/a; z = -x;"), 5);
    assert_int_equal(flops_of("y = sqrt(x) + pow(x, a); z = max(x, a);"), 4); /* calls: 1 */
    /* comparisons and logic are free; the cheaper branch is not counted */
    assert_int_equal(flops_of("if (x > a && !(x < 0) || x == a) { y = x*x*x; } else { y = x; }"
                              " z = 1;"),
                     2);
    /* the condition's arithmetic counts; the else branch can be the expensive one */
    assert_int_equal(flops_of("if (x + 1 > a) { y = x; } else { y = x*x*x*x; } z = y;"), 4);
    assert_int_equal(flops_of("y = x > 0 ? sqrt(x) + 1 : 0; z = y;"), 2);
    /* a let costs once however often it is read */
    assert_int_equal(flops_of("let t = x*x + a; y = t + t; z = t;"), 3);
    /* nested: outer 1 + max(inner if 2, 0) */
    assert_int_equal(flops_of("if (x > 0) { if (x > 1) { y = x*x*x; } else { y = x; } } "
                              "else { y = 0; } z = x - 1;"),
                     3);
}

static void test_heat3d(void **state) {
    (void)state;
    km_kernel km;
    fe_result r = analyse_file(STENC_SOURCE_DIR "/stencils/heat3d.stencil", AST_TYPE_NONE, &km);
    assert_string_equal(km.name, "heat3d");
    assert_int_equal(km.dims, 3);
    assert_int_equal(km.type, AST_TYPE_FLOAT);
    assert_int_equal(km.flops, 8);
    assert_int_equal(km.bytes, 8);
    assert_true(km.intensity == 1.0);
    assert_int_equal(km.nscalars, 2);
    assert_int_equal(km.ninputs, 1);
    assert_int_equal(km.noutputs, 1);
    assert_int_equal(km.nreads, 7);
    int x = km_find_array(&km, "x");
    assert_true(x >= 0);
    assert_int_equal(km.arrays[x].noffsets, 7);
    /* sorted by k, then j, then i */
    static const int expect[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0},
                                     {1, 0, 0},  {0, 1, 0},  {0, 0, 1}};
    for (int o = 0; o < 7; o++)
        for (int d = 0; d < 3; d++)
            assert_int_equal(km.arrays[x].offsets[o].d[d], expect[o][d]);
    for (int d = 0; d < 3; d++) {
        assert_int_equal(km.arrays[x].halo_lo[d], 1);
        assert_int_equal(km.arrays[x].halo_hi[d], 1);
        assert_int_equal(km.halo_lo[d], 1);
    }
    assert_int_equal(km.radius, 1);
    analyze_free(&km);
    /* --precision double: twice the bytes, half the intensity */
    assert_int_equal(analyze_stencil(r.file->stencils[0], AST_TYPE_DOUBLE, &km), 0);
    assert_int_equal(km.type, AST_TYPE_DOUBLE);
    assert_int_equal(km.bytes, 16);
    assert_true(km.intensity == 0.5);
    analyze_free(&km);
    fe_result_free(&r);
}

static void test_project_bytes(void **state) {
    (void)state;
    km_kernel km;
    /* euler_flux: 4 inputs + 4 outputs, float */
    fe_result r = analyse_file(STENC_SOURCE_DIR "/stencils/euler_flux.stencil", AST_TYPE_NONE, &km);
    assert_int_equal(km.bytes, 32);
    assert_int_equal(km.halo_lo[2], 0); /* a 2-D flux in a 3-D field: no k halo */
    assert_int_equal(km.halo_hi[0], 1);
    assert_true(km.has_branches);
    analyze_free(&km);
    fe_result_free(&r);
    /* varcoef27: 28 inputs + 1 output, float; 27 products and 26 sums */
    r = analyse_file(STENC_SOURCE_DIR "/stencils/varcoef27.stencil", AST_TYPE_NONE, &km);
    assert_int_equal(km.bytes, 116);
    assert_int_equal(km.flops, 53);
    assert_int_equal(km.arrays[km_find_array(&km, "u")].noffsets, 27);
    analyze_free(&km);
    fe_result_free(&r);
    /* wave_r2: radius 2 */
    r = analyse_file(STENC_SOURCE_DIR "/stencils/wave_r2.stencil", AST_TYPE_NONE, &km);
    assert_int_equal(km.radius, 2);
    assert_int_equal(km.halo_lo[1], 2);
    assert_int_equal(km.bytes, 12);
    analyze_free(&km);
    fe_result_free(&r);
}

static void test_reads_and_halos(void **state) {
    (void)state;
    km_kernel km;
    fe_result r = analyse("stencil s { dims 2; type double; input x, w, unused; output y;\n"
                          "y = x[-2,0] + x[1,3] + x[-2,0] + w + i*nj; }",
                          AST_TYPE_NONE, &km);
    assert_int_equal(r.warnings, 1); /* 'unused' */
    assert_int_equal(km.nreads, 3);  /* x[-2,0] once */
    assert_int_equal(km.reads[0].count, 2);
    assert_int_equal(km.reads[0].offset.d[0], -2);
    const ast_expr *sum = r.file->stencils[0]->body.stmts[0]->u.assign.value;
    /* ((((x[-2,0] + x[1,3]) + x[-2,0]) + w) + i*nj): the two x[-2,0] share a read */
    const ast_expr *first = sum->u.binary.lhs->u.binary.lhs->u.binary.lhs->u.binary.lhs;
    const ast_expr *third = sum->u.binary.lhs->u.binary.lhs->u.binary.rhs;
    int x = km_find_array(&km, "x");
    assert_int_equal(km_find_read(&km, x, first->u.ref.offset), 0);
    assert_int_equal(km_find_read(&km, x, third->u.ref.offset), 0);
    assert_int_equal(
        km_find_read(&km, x,
                     sum->u.binary.lhs->u.binary.lhs->u.binary.lhs->u.binary.rhs->u.ref.offset),
        1);
    const int nowhere[3] = {5, 5, 0};
    assert_int_equal(km_find_read(&km, x, nowhere), -1);
    assert_int_equal(km.arrays[x].halo_lo[0], 2);
    assert_int_equal(km.arrays[x].halo_hi[0], 1);
    assert_int_equal(km.arrays[x].halo_lo[1], 0);
    assert_int_equal(km.arrays[x].halo_hi[1], 3);
    assert_int_equal(km.radius, 3);
    /* an unused input is not loaded: (x, w) + y = 3 * 8 bytes */
    assert_int_equal(km.inputs_read, 2);
    assert_int_equal(km.bytes, 24);
    assert_true(km.uses_index[AST_INDEX_I]);
    assert_true(km.uses_index[AST_INDEX_NJ]);
    assert_false(km.uses_index[AST_INDEX_J]);
    analyze_free(&km);
    fe_result_free(&r);
}

/* The reductions, by id in source order, with their operators: the launcher's results[]. */
static void test_reductions_in_the_model(void **state) {
    (void)state;
    km_kernel km;
    fe_result r = analyse("stencil s { dims 2; type double; input x; output y;\n"
                          "y = x; reduce max big = x; reduce sum total = x * x;\n"
                          "reduce min small = -x; }",
                          AST_TYPE_NONE, &km);
    assert_int_equal(km.nreduces, 3);
    assert_string_equal(km.reduces[0].name, "big");
    assert_int_equal(km.reduces[0].op, AST_REDUCE_MAX);
    assert_string_equal(km.reduces[1].name, "total");
    assert_int_equal(km.reduces[1].op, AST_REDUCE_SUM);
    assert_string_equal(km.reduces[2].name, "small");
    assert_int_equal(km.reduces[2].op, AST_REDUCE_MIN);
    assert_ptr_equal(km.body, &r.file->stencils[0]->body);
    analyze_free(&km);
    fe_result_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flop_rules),
        cmocka_unit_test(test_heat3d),
        cmocka_unit_test(test_project_bytes),
        cmocka_unit_test(test_reads_and_halos),
        cmocka_unit_test(test_reductions_in_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
