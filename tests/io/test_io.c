/* Field I/O on the CPU without outside readers: .npy and HDF5 round trips (bitwise, halo
 * untouched), the exact .npy header, crafted bad .npy files, argument errors of every call,
 * the .pvd collection after every add, and the HDF5 stubs of a build without HDF5. The
 * independent readers (NumPy, XML, h5py, h5dump) are in test_io_npy, test_io_vtk, test_io_hdf5. */
#include "io_test_util.h"

static stenc_ctx *cpu_ctx(void) {
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CPU));
    return ctx;
}

static void expect_error(stenc_status got, stenc_status want, const char *needle) {
    if (got != want)
        fail_msg("status %s, expected %s (%s)", stenc_status_string(got), stenc_status_string(want),
                 stenc_last_error());
    if (!strstr(stenc_last_error(), needle))
        fail_msg("message '%s' does not mention '%s'", stenc_last_error(), needle);
}

/* ---- .npy -------------------------------------------------------------------------------- */

static void test_npy_round_trips(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    for (int c = 0; c < IO_CASES; c++) {
        char name[128], path[1200];
        io_case_name(&io_cases[c], name, sizeof name);
        io_path(path, sizeof path, "rt_%s.npy", name);
        stenc_field *src = io_make_field(ctx, &io_cases[c], 100 + (uint64_t)c, NULL);
        assert_stenc_ok(stenc_io_npy_write(path, src));
        stenc_field *dst = io_filled_field(ctx, &io_cases[c], -7.0);
        assert_stenc_ok(stenc_io_npy_read(path, dst));
        io_expect_field(dst, src, -7.0, name);
        stenc_field_free(src);
        stenc_field_free(dst);
    }
    stenc_ctx_destroy(ctx);
}

/* The header byte for byte: NumPy's format 1.0, padded so that the data starts at 64. */
static void test_npy_header_bytes(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    static const struct {
        io_case c;
        const char *dict;
    } want[] = {
        {{STENC_F64, 3, {5, 9, 11}, 2},
         "{'descr': '<f8', 'fortran_order': False, 'shape': (11, 9, 5), }"},
        {{STENC_F32, 2, {13, 7, 1}, 0},
         "{'descr': '<f4', 'fortran_order': False, 'shape': (7, 13), }"},
        {{STENC_F32, 1, {37, 1, 1}, 1},
         "{'descr': '<f4', 'fortran_order': False, 'shape': (37,), }"},
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        char path[1200];
        io_path(path, sizeof path, "header_%zu.npy", w);
        stenc_field *f = io_make_field(ctx, &want[w].c, 7, NULL);
        assert_stenc_ok(stenc_io_npy_write(path, f));
        size_t bytes;
        unsigned char *data = (unsigned char *)io_read_file(path, &bytes);
        assert_memory_equal(data, "\x93NUMPY\x01\x00", 8);
        size_t header_len = data[8] | (size_t)data[9] << 8;
        assert_int_equal((10 + header_len) % 64, 0);
        assert_int_equal(data[10 + header_len - 1], '\n');
        size_t dict_len = strlen(want[w].dict);
        assert_memory_equal(data + 10, want[w].dict, dict_len);
        for (size_t b = 10 + dict_len; b < 10 + header_len - 1; b++)
            assert_int_equal(data[b], ' ');
        size_t count = want[w].c.n[0] * want[w].c.n[1] * want[w].c.n[2];
        assert_int_equal(bytes, 10 + header_len + count * stenc_type_size(want[w].c.type));
        /* The first value, little-endian, straight after the header. */
        double v0;
        assert_stenc_ok(stenc_field_get(f, 0, 0, 0, &v0));
        if (want[w].c.type == STENC_F32) {
            float x = (float)v0;
            assert_memory_equal(data + 10 + header_len, &x, 4);
        } else {
            assert_memory_equal(data + 10 + header_len, &v0, 8);
        }
        free(data);
        stenc_field_free(f);
    }
    stenc_ctx_destroy(ctx);
}

/* A .npy file from its parts: version, header dict (padded like NumPy's), data bytes. */
static void craft_npy(const char *path, int major, const char *dict, const void *data,
                      size_t data_bytes) {
    size_t preamble = major == 1 ? 10 : 12, dict_len = strlen(dict);
    size_t total = (preamble + dict_len + 1 + 63) / 64 * 64;
    size_t header_len = total - preamble;
    unsigned char *buf = calloc(1, total + data_bytes);
    assert_non_null(buf);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    for (size_t b = 0; b < preamble - 8; b++)
        buf[8 + b] = (unsigned char)(header_len >> (8 * b));
    memcpy(buf + preamble, dict, dict_len);
    memset(buf + preamble + dict_len, ' ', header_len - dict_len - 1);
    buf[total - 1] = '\n';
    if (data_bytes) memcpy(buf + total, data, data_bytes);
    io_write_bytes(path, buf, total + data_bytes);
    free(buf);
}

static void test_npy_reads_other_writers(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    const io_case c = {STENC_F64, 2, {3, 2, 1}, 1};
    const double values[6] = {1, -2, 3.5, 0.25, -0.0, 1e300};
    stenc_field *want;
    assert_stenc_ok(stenc_field_create(ctx, &want, STENC_F64, 2, 3, 2, 1, 1));
    assert_stenc_ok(stenc_field_copy_from(want, values));
    /* Version 2.0, double quotes, keys in another order, no trailing comma, odd spacing. */
    const char *dicts[] = {
        "{\"shape\": (2, 3), \"fortran_order\": False, \"descr\": \"<f8\"}",
        "{'descr':'<f8','fortran_order':False,'shape':(2,3)}",
        "{ 'fortran_order' : False , 'shape' : ( 2 , 3 , ) , 'descr' : '<f8' , }",
    };
    for (int major = 1; major <= 3; major++)
        for (size_t d = 0; d < sizeof dicts / sizeof dicts[0]; d++) {
            char path[1200];
            io_path(path, sizeof path, "other_v%d_%zu.npy", major, d);
            craft_npy(path, major, dicts[d], values, sizeof values);
            stenc_field *got = io_filled_field(ctx, &c, 9.0);
            assert_stenc_ok(stenc_io_npy_read(path, got));
            io_expect_field(got, want, 9.0, dicts[d]);
            stenc_field_free(got);
        }
    stenc_field_free(want);
    stenc_ctx_destroy(ctx);
}

/* A read that fails must name the problem and leave the field as it was. */
static void expect_read_error(stenc_field *f, const char *path, stenc_status want,
                              const char *needle) {
    assert_stenc_ok(stenc_field_fill(f, 5.0));
    expect_error(stenc_io_npy_read(path, f), want, needle);
    double v;
    assert_stenc_ok(stenc_field_get(f, 0, 0, 0, &v));
    assert_true(v == 5.0);
}

static void test_npy_read_errors(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    const io_case c2 = {STENC_F32, 2, {13, 7, 1}, 2};
    char good[1200], path[1200];
    io_path(good, sizeof good, "good_13x7.npy");
    stenc_field *src = io_make_field(ctx, &c2, 3, NULL);
    assert_stenc_ok(stenc_io_npy_write(good, src));
    size_t bytes;
    char *file = io_read_file(good, &bytes);

    stenc_field *f = io_filled_field(ctx, &c2, 0.0), *other;
    /* Shape, rank and type mismatches. */
    assert_stenc_ok(stenc_field_create(ctx, &other, STENC_F32, 2, 7, 13, 1, 0));
    expect_read_error(other, good, STENC_ERR_SHAPE,
                      "has shape (7, 13), the 2-D field needs (13, 7)");
    stenc_field_free(other);
    assert_stenc_ok(stenc_field_create(ctx, &other, STENC_F32, 3, 13, 7, 1, 0));
    expect_read_error(other, good, STENC_ERR_SHAPE, "needs (1, 7, 13)");
    stenc_field_free(other);
    assert_stenc_ok(stenc_field_create(ctx, &other, STENC_F32, 1, 91, 1, 1, 0));
    expect_read_error(other, good, STENC_ERR_SHAPE, "needs (91,)");
    stenc_field_free(other);
    assert_stenc_ok(stenc_field_create(ctx, &other, STENC_F64, 2, 13, 7, 1, 0));
    expect_read_error(other, good, STENC_ERR_SHAPE, "dtype '<f4' (float32), the field is double");
    stenc_field_free(other);

    /* Truncated: data, header, preamble, magic; empty; extra bytes. */
    io_path(path, sizeof path, "truncated.npy");
    io_write_bytes(path, file, bytes - 1);
    expect_read_error(f, path, STENC_ERR_IO, "truncated: 363 of its 364 data bytes");
    io_write_bytes(path, file, 100);
    expect_read_error(f, path, STENC_ERR_IO, "truncated");
    io_write_bytes(path, file, 40);
    expect_read_error(f, path, STENC_ERR_IO, "header ends past the end");
    io_write_bytes(path, file, 9);
    expect_read_error(f, path, STENC_ERR_IO, "less than a .npy preamble");
    io_write_bytes(path, file, 3);
    expect_read_error(f, path, STENC_ERR_IO, "less than a .npy preamble");
    io_write_bytes(path, file, 0);
    expect_read_error(f, path, STENC_ERR_IO, "truncated: 0 bytes");
    char *longer = malloc(bytes + 4);
    assert_non_null(longer);
    memcpy(longer, file, bytes);
    memset(longer + bytes, 0, 4);
    io_write_bytes(path, longer, bytes + 4);
    expect_read_error(f, path, STENC_ERR_IO, "4 bytes after the data");
    free(longer);

    /* Bad magic, unknown versions. */
    io_path(path, sizeof path, "bad_magic.npy");
    file[1] = 'n';
    io_write_bytes(path, file, bytes);
    expect_read_error(f, path, STENC_ERR_IO, "not a .npy file");
    file[1] = 'N';
    file[6] = 4;
    io_write_bytes(path, file, bytes);
    expect_read_error(f, path, STENC_ERR_UNSUPPORTED, "version 4.0");
    file[6] = 1;
    file[7] = 1;
    io_write_bytes(path, file, bytes);
    expect_read_error(f, path, STENC_ERR_UNSUPPORTED, "version 1.1");
    file[7] = 0;

    /* Headers: big-endian, Fortran order, other dtypes, malformed. */
    static const struct {
        const char *dict;
        stenc_status status;
        const char *needle;
    } bad[] = {
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (7, 13), }", STENC_ERR_UNSUPPORTED,
         "big-endian data (dtype '>f4')"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (7, 13), }", STENC_ERR_UNSUPPORTED,
         "Fortran order"},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (7, 13), }", STENC_ERR_SHAPE,
         "dtype '<i4' (another type)"},
        {"{'descr': '<f4', 'fortran_order': False}", STENC_ERR_IO,
         "expected the keys descr, fortran_order and shape"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (7, 13), 'x': 1}", STENC_ERR_IO,
         "malformed header"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (7, 13)}", STENC_ERR_IO,
         "once each"},
        {"{'descr': '<f4', 'fortran_order': false, 'shape': (7, 13)}", STENC_ERR_IO,
         "expected True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (7 13)}", STENC_ERR_IO,
         "expected ',' or ')' in the shape"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (7, -13)}", STENC_ERR_IO,
         "expected an extent"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999, 13)}",
         STENC_ERR_IO, "fits in size_t"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (7, 13)}", STENC_ERR_IO,
         "expected a quoted string"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (7, 13)} x", STENC_ERR_IO,
         "nothing after the closing '}'"},
        {"['descr', '<f4']", STENC_ERR_IO, "expected '{'"},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        io_path(path, sizeof path, "bad_header_%zu.npy", b);
        craft_npy(path, 1, bad[b].dict, file + 128, 364);
        expect_read_error(f, path, bad[b].status, bad[b].needle);
    }
    /* A header length that no real file has. */
    io_path(path, sizeof path, "huge_header.npy");
    unsigned char huge[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0, 0, 0, 0x40};
    io_write_bytes(path, huge, sizeof huge);
    expect_read_error(f, path, STENC_ERR_IO, "corrupt");

    /* Missing file, a folder, NULL and stale arguments. */
    io_path(path, sizeof path, "no_such_file.npy");
    expect_read_error(f, path, STENC_ERR_IO, "No such file or directory");
    expect_read_error(f, io_work_dir, STENC_ERR_IO, "not a regular file");
    expect_error(stenc_io_npy_read(NULL, f), STENC_ERR_INVALID_ARGUMENT, "path is NULL");
    expect_error(stenc_io_npy_read(good, NULL), STENC_ERR_INVALID_ARGUMENT, "stenc_io_npy_read");
    stenc_field *freed;
    assert_stenc_ok(stenc_field_create(ctx, &freed, STENC_F32, 2, 13, 7, 1, 0));
    assert_stenc_ok(stenc_field_free(freed));
    expect_error(stenc_io_npy_read(good, freed), STENC_ERR_INVALID_ARGUMENT, "not a live field");
    free(file);
    stenc_field_free(f);
    stenc_field_free(src);
    stenc_ctx_destroy(ctx);
}

/* Names in `dir` that contain ".tmp" (a temporary left behind). */
static int temporaries_in(const char *dir) {
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '\\.tmp'", dir);
    return io_run("%s", cmd) == 0;
}

static void test_npy_write_errors(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    const io_case c = {STENC_F64, 1, {37, 1, 1}, 0};
    stenc_field *f = io_make_field(ctx, &c, 5, NULL);
    char path[1200];
    io_path(path, sizeof path, "missing_dir/x.npy");
    expect_error(stenc_io_npy_write(path, f), STENC_ERR_IO, "cannot write");
    expect_error(stenc_io_npy_write(NULL, f), STENC_ERR_INVALID_ARGUMENT, "path is NULL");
    expect_error(stenc_io_npy_write(path, NULL), STENC_ERR_INVALID_ARGUMENT, "stenc_io_npy_write");
    /* Over an existing file: replaced whole, no temporary left. */
    io_path(path, sizeof path, "replaced.npy");
    io_write_bytes(path, "old", 3);
    assert_stenc_ok(stenc_io_npy_write(path, f));
    size_t bytes;
    free(io_read_file(path, &bytes));
    assert_int_equal(bytes, 128 + 37 * 8);
    assert_false(temporaries_in(io_work_dir));
    stenc_field_free(f);
    stenc_ctx_destroy(ctx);
}

/* ---- .vti and .pvd ----------------------------------------------------------------------- */

static void test_vti_argument_errors(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    const io_case c = {STENC_F32, 2, {13, 7, 1}, 2}, c3 = {STENC_F32, 3, {13, 7, 1}, 2};
    stenc_field *u = io_make_field(ctx, &c, 1, NULL), *v = io_make_field(ctx, &c, 2, NULL);
    stenc_field *w = io_make_field(ctx, &c3, 3, NULL);
    char path[1200];
    io_path(path, sizeof path, "args.vti");
    const stenc_field *uv[] = {u, v}, *uw[] = {u, w}, *un[] = {u, NULL};
    const char *names[] = {"u", "v"}, *same[] = {"u", "u"}, *empty[] = {"u", ""},
               *ctrl[] = {"u", "a\nb"}, *nul[] = {"u", NULL};
    double origin[3] = {0, 0, 0}, spacing[3] = {1, 1, 1};
    const char *fn = "stenc_io_vti_write";
    expect_error(stenc_io_vti_write(NULL, 2, names, uv, NULL, NULL), STENC_ERR_INVALID_ARGUMENT,
                 "path is NULL");
    expect_error(stenc_io_vti_write(path, 0, names, uv, NULL, NULL), STENC_ERR_INVALID_ARGUMENT,
                 "count = 0");
    expect_error(stenc_io_vti_write(path, 2, NULL, uv, NULL, NULL), STENC_ERR_INVALID_ARGUMENT,
                 "names is NULL");
    expect_error(stenc_io_vti_write(path, 2, names, NULL, NULL, NULL), STENC_ERR_INVALID_ARGUMENT,
                 "fields is NULL");
    expect_error(stenc_io_vti_write(path, 2, names, un, NULL, NULL), STENC_ERR_INVALID_ARGUMENT,
                 "fields[1]");
    expect_error(stenc_io_vti_write(path, 2, nul, uv, NULL, NULL), STENC_ERR_INVALID_ARGUMENT,
                 "names[1] is NULL");
    expect_error(stenc_io_vti_write(path, 2, same, uv, NULL, NULL), STENC_ERR_INVALID_ARGUMENT,
                 "both 'u'");
    expect_error(stenc_io_vti_write(path, 2, empty, uv, NULL, NULL), STENC_ERR_INVALID_ARGUMENT,
                 "names[1] is empty");
    expect_error(stenc_io_vti_write(path, 2, ctrl, uv, NULL, NULL), STENC_ERR_INVALID_ARGUMENT,
                 "control character");
    expect_error(stenc_io_vti_write(path, 2, names, uw, NULL, NULL), STENC_ERR_SHAPE,
                 "field 'v' is 3-D 13 x 7 x 1, field 'u' is 2-D 13 x 7 x 1");
    spacing[1] = 0;
    expect_error(stenc_io_vti_write(path, 2, names, uv, origin, spacing),
                 STENC_ERR_INVALID_ARGUMENT, "spacing[1] = 0");
    spacing[1] = -1;
    expect_error(stenc_io_vti_write(path, 2, names, uv, origin, spacing),
                 STENC_ERR_INVALID_ARGUMENT, "spacing[1] = -1");
    spacing[1] = 1;
    origin[2] = NAN;
    expect_error(stenc_io_vti_write(path, 2, names, uv, origin, spacing),
                 STENC_ERR_INVALID_ARGUMENT, "origin[2] = nan");
    assert_false(io_file_exists(path)); /* nothing was written by any failed call */
    io_path(path, sizeof path, "missing_dir/x.vti");
    expect_error(stenc_io_vti_write(path, 2, names, uv, NULL, NULL), STENC_ERR_IO, fn);
    stenc_field_free(u);
    stenc_field_free(v);
    stenc_field_free(w);
    stenc_ctx_destroy(ctx);
}

static const char pvd_head[] = "<?xml version=\"1.0\"?>\n"
                               "<VTKFile type=\"Collection\" version=\"0.1\" "
                               "byte_order=\"LittleEndian\">\n"
                               "  <Collection>\n";
static const char pvd_tail[] = "  </Collection>\n</VTKFile>\n";

static void expect_pvd(const char *path, const char *entries) {
    char want[4096];
    snprintf(want, sizeof want, "%s%s%s", pvd_head, entries, pvd_tail);
    char *got = io_read_file(path, NULL);
    if (strcmp(got, want) != 0) fail_msg("%s is\n%s\nexpected\n%s", path, got, want);
    free(got);
}

/* The collection is complete after every call, entries in call order, names escaped. */
static void test_pvd_is_valid_after_every_add(void **state) {
    (void)state;
    char path[1200];
    io_path(path, sizeof path, "series.pvd");
    stenc_io_pvd *pvd = (stenc_io_pvd *)&pvd;
    expect_error(stenc_io_pvd_open(&pvd, NULL), STENC_ERR_INVALID_ARGUMENT, "path is NULL");
    assert_null(pvd);
    expect_error(stenc_io_pvd_open(NULL, path), STENC_ERR_INVALID_ARGUMENT, "pvd pointer is NULL");
    assert_stenc_ok(stenc_io_pvd_open(&pvd, path));
    expect_pvd(path, "");
    assert_stenc_ok(stenc_io_pvd_add(pvd, 0.0, "out_0000.vti"));
    expect_pvd(path, "    <DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"out_0000.vti\"/>\n");
    assert_stenc_ok(stenc_io_pvd_add(pvd, 0.1, "sub/a&b \"c\" <d>.vti"));
    assert_stenc_ok(stenc_io_pvd_add(pvd, -2.5e-300, "x.vti"));
    const char *three =
        "    <DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"out_0000.vti\"/>\n"
        "    <DataSet timestep=\"0.10000000000000001\" group=\"\" part=\"0\" "
        "file=\"sub/a&amp;b &quot;c&quot; &lt;d&gt;.vti\"/>\n"
        "    <DataSet timestep=\"-2.5e-300\" group=\"\" part=\"0\" "
        "file=\"x.vti\"/>\n";
    expect_pvd(path, three);
    expect_error(stenc_io_pvd_add(pvd, NAN, "y.vti"), STENC_ERR_INVALID_ARGUMENT, "not finite");
    expect_error(stenc_io_pvd_add(pvd, INFINITY, "y.vti"), STENC_ERR_INVALID_ARGUMENT,
                 "not finite");
    expect_error(stenc_io_pvd_add(pvd, 1.0, NULL), STENC_ERR_INVALID_ARGUMENT, "file is NULL");
    expect_error(stenc_io_pvd_add(pvd, 1.0, ""), STENC_ERR_INVALID_ARGUMENT, "file is empty");
    expect_error(stenc_io_pvd_add(NULL, 1.0, "y.vti"), STENC_ERR_INVALID_ARGUMENT, "pvd");
    expect_pvd(path, three); /* failed adds change nothing */
    assert_stenc_ok(stenc_io_pvd_close(pvd));
    expect_pvd(path, three);
    expect_error(stenc_io_pvd_add(pvd, 1.0, "y.vti"), STENC_ERR_INVALID_ARGUMENT, "not a live");
    expect_error(stenc_io_pvd_close(pvd), STENC_ERR_INVALID_ARGUMENT, "not a live");
    assert_stenc_ok(stenc_io_pvd_close(NULL));
    io_path(path, sizeof path, "missing_dir/x.pvd");
    expect_error(stenc_io_pvd_open(&pvd, path), STENC_ERR_IO, "No such file or directory");
    assert_null(pvd);
}

/* ---- HDF5 -------------------------------------------------------------------------------- */

static void test_h5_round_trips(void **state) {
    (void)state;
    if (!stenc_io_have_hdf5()) skip();
    stenc_ctx *ctx = cpu_ctx();
    char path[1200];
    io_path(path, sizeof path, "round_trip.h5");
    stenc_io_h5 *h5;
    assert_stenc_ok(stenc_io_h5_open(&h5, path, STENC_IO_CREATE));
    stenc_field *src[IO_CASES];
    for (int c = 0; c < IO_CASES; c++) {
        char name[128];
        io_case_name(&io_cases[c], name, sizeof name);
        src[c] = io_make_field(ctx, &io_cases[c], 200 + (uint64_t)c, NULL);
        assert_stenc_ok(stenc_io_h5_write(h5, name, src[c]));
    }
    /* Steps: the same name in several groups. */
    for (long step = 0; step < 3; step++) {
        const char *names[] = {"a", "b"};
        const stenc_field *fields[] = {src[(int)step], src[(int)step + 5]};
        assert_stenc_ok(
            stenc_io_h5_write_step(h5, step * 10, 0.5 * (double)step, 2, names, fields));
    }
    assert_stenc_ok(stenc_io_h5_close(h5));

    /* Read back from a file opened read-only, then appended to. */
    for (int mode = 0; mode < 2; mode++) {
        assert_stenc_ok(stenc_io_h5_open(&h5, path, mode ? STENC_IO_APPEND : STENC_IO_READ));
        for (int c = 0; c < IO_CASES; c++) {
            char name[128];
            io_case_name(&io_cases[c], name, sizeof name);
            stenc_field *dst = io_filled_field(ctx, &io_cases[c], -3.0);
            assert_stenc_ok(stenc_io_h5_read(h5, name, dst));
            io_expect_field(dst, src[c], -3.0, name);
            stenc_field_free(dst);
        }
        for (long step = 0; step < 3; step++) {
            char dset[64];
            snprintf(dset, sizeof dset, "step_%08ld/b", step * 10);
            stenc_field *dst = io_filled_field(ctx, &io_cases[step + 5], 4.0);
            assert_stenc_ok(stenc_io_h5_read(h5, dset, dst));
            io_expect_field(dst, src[step + 5], 4.0, dset);
            stenc_field_free(dst);
        }
        if (mode) { /* append one more step, read it back */
            const char *names[] = {"late"};
            const stenc_field *fields[] = {src[0]};
            assert_stenc_ok(stenc_io_h5_write_step(h5, 99, 9.5, 1, names, fields));
            stenc_field *dst = io_filled_field(ctx, &io_cases[0], 1.0);
            assert_stenc_ok(stenc_io_h5_read(h5, "/step_00000099/late", dst));
            io_expect_field(dst, src[0], 1.0, "late");
            stenc_field_free(dst);
        }
        assert_stenc_ok(stenc_io_h5_close(h5));
    }
    /* APPEND creates a missing file. */
    io_path(path, sizeof path, "appended_new.h5");
    remove(path);
    assert_stenc_ok(stenc_io_h5_open(&h5, path, STENC_IO_APPEND));
    assert_stenc_ok(stenc_io_h5_write(h5, "u", src[1]));
    assert_stenc_ok(stenc_io_h5_close(h5));
    assert_true(io_file_exists(path));
    for (int c = 0; c < IO_CASES; c++)
        stenc_field_free(src[c]);
    stenc_ctx_destroy(ctx);
}

/* Run `call` with stderr going to a file; fail if anything was printed. */
#define EXPECT_SILENT(call)                                                                        \
    do {                                                                                           \
        char log_[1200];                                                                           \
        io_path(log_, sizeof log_, "stderr.log");                                                  \
        fflush(stderr);                                                                            \
        int saved_ = dup(2);                                                                       \
        assert_non_null(freopen(log_, "w", stderr));                                               \
        call;                                                                                      \
        fflush(stderr);                                                                            \
        dup2(saved_, 2);                                                                           \
        close(saved_);                                                                             \
        size_t printed_;                                                                           \
        free(io_read_file(log_, &printed_));                                                       \
        if (printed_) fail_msg("%s printed %zu bytes to stderr", #call, printed_);                 \
    } while (0)

/* Integer fields (i32, u8): .npy and HDF5 round trips bitwise, the .npy dtype and the VTK
 * type in the files' text, and a float file refused by an integer field. */
static void test_integer_fields_round_trip(void **state) {
    (void)state;
    stenc_ctx *ctx = cpu_ctx();
    const stenc_type types[2] = {STENC_I32, STENC_U8};
    const char *descr[2] = {"'descr': '<i4'", "'descr': '|u1'"};
    const char *vtk[2] = {"type=\"Int32\"", "type=\"UInt8\""};
    test_rng rng = test_rng_seeded(77);
    for (int t = 0; t < 2; t++) {
        stenc_field *src, *dst;
        assert_stenc_ok(stenc_field_create(ctx, &src, types[t], 3, 7, 5, 3, 1));
        assert_stenc_ok(stenc_field_create(ctx, &dst, types[t], 3, 7, 5, 3, 1));
        assert_stenc_ok(stenc_field_fill(dst, 9));
        for (long k = 0; k < 3; k++)
            for (long j = 0; j < 5; j++)
                for (long i = 0; i < 7; i++) {
                    double v = floor(test_rng_uniform(&rng, 0, 256));
                    if (types[t] == STENC_I32) v = (v - 128) * 16777211.0; /* beyond 2^24 */
                    assert_stenc_ok(stenc_field_set(src, i, j, k, v));
                }
        char path[1200];
        io_path(path, sizeof path, "int_%d.npy", t);
        assert_stenc_ok(stenc_io_npy_write(path, src));
        assert_stenc_ok(stenc_io_npy_read(path, dst));
        io_expect_field(dst, src, 9, stenc_type_name(types[t]));
        char head[128] = "";
        FILE *fp = fopen(path, "rb");
        assert_non_null(fp);
        assert_true(fread(head, 1, sizeof head - 1, fp) > 0);
        fclose(fp);
        if (!strstr(head + 10, descr[t])) fail_msg("npy header %s lacks %s", head + 10, descr[t]);
        io_path(path, sizeof path, "int_%d.vti", t);
        const char *names[1] = {"mat"};
        const stenc_field *fields[1] = {src};
        const double origin[3] = {0, 0, 0}, spacing[3] = {1, 1, 1};
        assert_stenc_ok(stenc_io_vti_write(path, 1, names, fields, origin, spacing));
        char text[4096] = "";
        fp = fopen(path, "rb");
        assert_non_null(fp);
        assert_true(fread(text, 1, sizeof text - 1, fp) > 0);
        fclose(fp);
        if (!strstr(text, vtk[t])) fail_msg("vti lacks %s", vtk[t]);
        if (stenc_io_have_hdf5()) {
            io_path(path, sizeof path, "int_%d.h5", t);
            stenc_io_h5 *h5;
            assert_stenc_ok(stenc_io_h5_open(&h5, path, STENC_IO_CREATE));
            assert_stenc_ok(stenc_io_h5_write(h5, "mat", src));
            assert_stenc_ok(stenc_io_h5_close(h5));
            assert_stenc_ok(stenc_field_fill(dst, 9));
            assert_stenc_ok(stenc_io_h5_open(&h5, path, STENC_IO_READ));
            assert_stenc_ok(stenc_io_h5_read(h5, "mat", dst));
            io_expect_field(dst, src, 9, "h5");
            /* a float field cannot take an integer dataset */
            stenc_field *wrong;
            assert_stenc_ok(stenc_field_create(ctx, &wrong, STENC_F32, 3, 7, 5, 3, 0));
            expect_error(stenc_io_h5_read(h5, "mat", wrong), STENC_ERR_SHAPE, "the field is float");
            stenc_field_free(wrong);
            assert_stenc_ok(stenc_io_h5_close(h5));
        }
        stenc_field_free(src);
        stenc_field_free(dst);
    }
    stenc_ctx_destroy(ctx);
}

static void test_h5_errors(void **state) {
    (void)state;
    if (!stenc_io_have_hdf5()) skip();
    stenc_ctx *ctx = cpu_ctx();
    const io_case c = {STENC_F64, 3, {5, 9, 11}, 2};
    stenc_field *f = io_make_field(ctx, &c, 9, NULL);
    char path[1200], missing[1200];
    io_path(path, sizeof path, "errors.h5");
    io_path(missing, sizeof missing, "no_such_file.h5");
    stenc_io_h5 *h5 = (stenc_io_h5 *)&h5;
    /* HDF5 would print its error stack; the library must not. */
    EXPECT_SILENT(
        expect_error(stenc_io_h5_open(&h5, missing, STENC_IO_READ), STENC_ERR_IO, "cannot open"));
    assert_null(h5);
    expect_error(stenc_io_h5_open(&h5, NULL, STENC_IO_READ), STENC_ERR_INVALID_ARGUMENT,
                 "path is NULL");
    expect_error(stenc_io_h5_open(NULL, path, STENC_IO_READ), STENC_ERR_INVALID_ARGUMENT,
                 "file pointer is NULL");
    expect_error(stenc_io_h5_open(&h5, path, (stenc_io_mode)7), STENC_ERR_INVALID_ARGUMENT,
                 "invalid mode 7");
    io_path(missing, sizeof missing, "missing_dir/x.h5");
    EXPECT_SILENT(expect_error(stenc_io_h5_open(&h5, missing, STENC_IO_CREATE), STENC_ERR_IO,
                               "cannot create"));
    io_write_bytes(path, "not hdf5", 8);
    EXPECT_SILENT(expect_error(stenc_io_h5_open(&h5, path, STENC_IO_READ), STENC_ERR_IO, "HDF5:"));

    assert_stenc_ok(stenc_io_h5_open(&h5, path, STENC_IO_CREATE));
    assert_stenc_ok(stenc_io_h5_write(h5, "u", f));
    EXPECT_SILENT(
        expect_error(stenc_io_h5_write(h5, "u", f), STENC_ERR_IO, "dataset 'u' exists already"));
    expect_error(stenc_io_h5_write(h5, "a/b", f), STENC_ERR_INVALID_ARGUMENT, "no '/'");
    expect_error(stenc_io_h5_write(h5, ".", f), STENC_ERR_INVALID_ARGUMENT, "not a dataset name");
    expect_error(stenc_io_h5_write(h5, "", f), STENC_ERR_INVALID_ARGUMENT, "name is empty");
    expect_error(stenc_io_h5_write(h5, NULL, f), STENC_ERR_INVALID_ARGUMENT, "name is NULL");
    expect_error(stenc_io_h5_write(h5, "v", NULL), STENC_ERR_INVALID_ARGUMENT, "field");
    expect_error(stenc_io_h5_write(NULL, "v", f), STENC_ERR_INVALID_ARGUMENT, "file");
    const char *names[] = {"u", "u"}, *one[] = {"u"};
    const stenc_field *fields[] = {f, f}, *nulls[] = {NULL};
    expect_error(stenc_io_h5_write_step(h5, -1, 0, 1, one, fields), STENC_ERR_INVALID_ARGUMENT,
                 "step = -1");
    expect_error(stenc_io_h5_write_step(h5, 1, NAN, 1, one, fields), STENC_ERR_INVALID_ARGUMENT,
                 "time = nan");
    expect_error(stenc_io_h5_write_step(h5, 1, 0, 0, one, fields), STENC_ERR_INVALID_ARGUMENT,
                 "count = 0");
    expect_error(stenc_io_h5_write_step(h5, 1, 0, 2, names, fields), STENC_ERR_INVALID_ARGUMENT,
                 "both 'u'");
    expect_error(stenc_io_h5_write_step(h5, 1, 0, 1, one, nulls), STENC_ERR_INVALID_ARGUMENT,
                 "fields[0]");
    expect_error(stenc_io_h5_write_step(h5, 1, 0, 1, NULL, fields), STENC_ERR_INVALID_ARGUMENT,
                 "names is NULL");
    assert_stenc_ok(stenc_io_h5_write_step(h5, 1, 0.5, 1, one, fields));
    EXPECT_SILENT(expect_error(stenc_io_h5_write_step(h5, 1, 0.5, 1, one, fields), STENC_ERR_IO,
                               "group 'step_00000001' exists already"));

    /* Reads: missing dataset, wrong shape, wrong type, wrong rank. */
    stenc_field *g;
    EXPECT_SILENT(expect_error(stenc_io_h5_read(h5, "nope", f), STENC_ERR_IO, "no dataset 'nope'"));
    EXPECT_SILENT(
        expect_error(stenc_io_h5_read(h5, "step_00000002/u", f), STENC_ERR_IO, "no dataset"));
    assert_stenc_ok(stenc_field_create(ctx, &g, STENC_F64, 3, 5, 9, 12, 0));
    expect_error(stenc_io_h5_read(h5, "u", g), STENC_ERR_SHAPE,
                 "has shape (11, 9, 5), the 3-D field needs (12, 9, 5)");
    stenc_field_free(g);
    assert_stenc_ok(stenc_field_create(ctx, &g, STENC_F64, 2, 5, 9, 1, 0));
    expect_error(stenc_io_h5_read(h5, "u", g), STENC_ERR_SHAPE, "the 2-D field needs (9, 5)");
    stenc_field_free(g);
    assert_stenc_ok(stenc_field_create(ctx, &g, STENC_F32, 3, 5, 9, 11, 0));
    expect_error(stenc_io_h5_read(h5, "u", g), STENC_ERR_SHAPE,
                 "holds float64, the field is float");
    stenc_field_free(g);
    expect_error(stenc_io_h5_read(h5, NULL, f), STENC_ERR_INVALID_ARGUMENT, "path is NULL");
    expect_error(stenc_io_h5_read(h5, "u", NULL), STENC_ERR_INVALID_ARGUMENT, "field");
    assert_stenc_ok(stenc_io_h5_close(h5));
    expect_error(stenc_io_h5_write(h5, "w", f), STENC_ERR_INVALID_ARGUMENT, "not a live");
    expect_error(stenc_io_h5_close(h5), STENC_ERR_INVALID_ARGUMENT, "not a live");
    assert_stenc_ok(stenc_io_h5_close(NULL));

    /* A file opened read-only refuses writes. */
    assert_stenc_ok(stenc_io_h5_open(&h5, path, STENC_IO_READ));
    expect_error(stenc_io_h5_write(h5, "w", f), STENC_ERR_INVALID_ARGUMENT, "STENC_IO_READ");
    expect_error(stenc_io_h5_write_step(h5, 5, 0, 1, one, fields), STENC_ERR_INVALID_ARGUMENT,
                 "STENC_IO_READ");
    assert_stenc_ok(stenc_io_h5_close(h5));
    stenc_field_free(f);
    stenc_ctx_destroy(ctx);
}

/* Without HDF5 the calls exist and say why they cannot work. */
static void test_h5_without_hdf5(void **state) {
    (void)state;
    if (stenc_io_have_hdf5()) skip();
    stenc_io_h5 *h5 = (stenc_io_h5 *)&h5;
    expect_error(stenc_io_h5_open(&h5, "x.h5", STENC_IO_CREATE), STENC_ERR_UNSUPPORTED,
                 "built without HDF5");
    assert_null(h5);
    expect_error(stenc_io_h5_write(NULL, "u", NULL), STENC_ERR_UNSUPPORTED, "built without HDF5");
    expect_error(stenc_io_h5_write_step(NULL, 0, 0, 0, NULL, NULL), STENC_ERR_UNSUPPORTED,
                 "built without HDF5");
    expect_error(stenc_io_h5_read(NULL, "u", NULL), STENC_ERR_UNSUPPORTED, "built without HDF5");
    assert_stenc_ok(stenc_io_h5_close(NULL));
}

int main(void) {
    io_work_init("test_io");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_npy_round_trips),
        cmocka_unit_test(test_npy_header_bytes),
        cmocka_unit_test(test_npy_reads_other_writers),
        cmocka_unit_test(test_npy_read_errors),
        cmocka_unit_test(test_npy_write_errors),
        cmocka_unit_test(test_vti_argument_errors),
        cmocka_unit_test(test_pvd_is_valid_after_every_add),
        cmocka_unit_test(test_h5_round_trips),
        cmocka_unit_test(test_integer_fields_round_trip),
        cmocka_unit_test(test_h5_errors),
        cmocka_unit_test(test_h5_without_hdf5),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
