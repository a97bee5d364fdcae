/* .vti and .pvd files written by stenc, read by Python's xml.etree: the grid, and every
 * PointData array decoded from base64 against the values the test wrote to a text side file,
 * for several fields of mixed types per file at awkward sizes. Skipped without python3. */
#include "io_test_util.h"

static void test_xml_reads_vti(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    for (int c = 0; c < IO_CASES; c++) {
        /* Three fields of this shape: the case's type, the other type, the case's again. */
        io_case cases[3] = {io_cases[c], io_cases[c], io_cases[c]};
        cases[1].type = cases[0].type == STENC_F32 ? STENC_F64 : STENC_F32;
        cases[1].halo = 2 - cases[0].halo;
        const char *names[3] = {"u", "rho & <p>", "v\"w"};
        stenc_field *fields[3];
        char name[128], vti[1200], expected[3][1200], arrays[3][1400];
        io_case_name(&io_cases[c], name, sizeof name);
        io_path(vti, sizeof vti, "%s.vti", name);
        for (int f = 0; f < 3; f++) {
            io_path(expected[f], sizeof expected[f], "%s_%d.txt", name, f);
            fields[f] =
                io_make_field(ctx, &cases[f], 400 + 3 * (uint64_t)c + (uint64_t)f, expected[f]);
            int len = snprintf(arrays[f], sizeof arrays[f], "'%s:%s:%s'", names[f],
                               io_dtype(cases[f].type), expected[f]);
            assert_true(len > 0 && (size_t)len < sizeof arrays[f]);
        }
        const stenc_field *cfields[3] = {fields[0], fields[1], fields[2]};
        double origin[3] = {-1.5, 0.1, 1e-3 * c}, spacing[3] = {0.25, 1.0 / 3.0, 2.0 + c};
        assert_stenc_ok(stenc_io_vti_write(vti, 3, names, cfields, origin, spacing));
        io_check("check_vti.py",
                 "vti '%s' %zu,%zu,%zu %.17g,%.17g,%.17g %.17g,%.17g,%.17g %s %s %s", vti,
                 cases[0].n[0], cases[0].n[1], cases[0].n[2], origin[0], origin[1], origin[2],
                 spacing[0], spacing[1], spacing[2], arrays[0], arrays[1], arrays[2]);
        /* One field, default grid. */
        assert_stenc_ok(stenc_io_vti_write(vti, 1, names, cfields, NULL, NULL));
        io_check("check_vti.py", "vti '%s' %zu,%zu,%zu 0,0,0 1,1,1 %s", vti, cases[0].n[0],
                 cases[0].n[1], cases[0].n[2], arrays[0]);
        for (int f = 0; f < 3; f++)
            stenc_field_free(fields[f]);
    }
    stenc_ctx_destroy(ctx);
}

/* A time series: a .vti per step, each added to the .pvd, which parses after every add. */
static void test_xml_reads_pvd_series(void **state) {
    (void)state;
    stenc_ctx *ctx;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    const io_case c = {STENC_F32, 3, {5, 9, 11}, 2};
    char pvd_path[1200], entries[2000] = "";
    io_path(pvd_path, sizeof pvd_path, "series.pvd");
    stenc_io_pvd *pvd;
    assert_stenc_ok(stenc_io_pvd_open(&pvd, pvd_path));
    io_check("check_vti.py", "pvd '%s'", pvd_path);
    for (int step = 0; step < 4; step++) {
        char file[64], vti[1200], expected[1200], array[1300];
        snprintf(file, sizeof file, "series_%04d.vti", step);
        io_path(vti, sizeof vti, "%s", file);
        io_path(expected, sizeof expected, "series_%04d.txt", step);
        stenc_field *f = io_make_field(ctx, &c, 500 + (uint64_t)step, expected);
        const char *names[] = {"T"};
        const stenc_field *fields[] = {f};
        assert_stenc_ok(stenc_io_vti_write(vti, 1, names, fields, NULL, NULL));
        double time = 0.125 * step;
        assert_stenc_ok(stenc_io_pvd_add(pvd, time, file));
        size_t used = strlen(entries);
        snprintf(entries + used, sizeof entries - used, " %.17g:%s", time, file);
        io_check("check_vti.py", "pvd '%s'%s", pvd_path, entries);
        int len = snprintf(array, sizeof array, "'T:float32:%s'", expected);
        assert_true(len > 0 && (size_t)len < sizeof array);
        io_check("check_vti.py", "vti '%s' 5,9,11 0,0,0 1,1,1 %s", vti, array);
        stenc_field_free(f);
    }
    assert_stenc_ok(stenc_io_pvd_close(pvd));
    io_check("check_vti.py", "pvd '%s'%s", pvd_path, entries);
    stenc_ctx_destroy(ctx);
}

int main(void) {
    if (!io_python_has("xml.etree.ElementTree base64 struct")) {
        printf("SKIPPED: no python3 (python: '%s')\n", STENC_TEST_PYTHON);
        return STENC_TEST_SKIP;
    }
    io_work_init("test_io_vtk");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xml_reads_vti),
        cmocka_unit_test(test_xml_reads_pvd_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
