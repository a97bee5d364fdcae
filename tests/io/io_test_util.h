/* Helpers of the I/O tests: fields at awkward sizes filled with seeded values (and a halo of
 * sentinels that must never reach a file), the expected values written to a plain text side
 * file for independent readers, files crafted byte by byte, and running the Python checkers. */
#ifndef STENC_IO_TEST_UTIL_H
#define STENC_IO_TEST_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

/* Set by tests/io/CMakeLists.txt. */
#ifndef STENC_TEST_PYTHON
#define STENC_TEST_PYTHON ""
#endif
#ifndef STENC_TEST_IO_SOURCE_DIR
#define STENC_TEST_IO_SOURCE_DIR "."
#endif
#ifndef STENC_TEST_IO_WORK_DIR
#define STENC_TEST_IO_WORK_DIR "."
#endif

#define IO_HALO_SENTINEL 1.0e30 /* halo value; a reader that sees it read the halo */

typedef struct io_case {
    stenc_type type;
    int dims;
    size_t n[3];
    int halo;
} io_case;

/* Awkward sizes: 1-D 37, 2-D 13x7, 3-D 5x9x11, and degenerate ones, halo 0 and 2, both types. */
static const io_case io_cases[] = {
    {STENC_F32, 1, {37, 1, 1}, 0}, {STENC_F64, 1, {37, 1, 1}, 2}, {STENC_F64, 1, {1, 1, 1}, 2},
    {STENC_F32, 2, {13, 7, 1}, 2}, {STENC_F64, 2, {13, 7, 1}, 0}, {STENC_F32, 2, {1, 6, 1}, 2},
    {STENC_F32, 3, {5, 9, 11}, 0}, {STENC_F64, 3, {5, 9, 11}, 2}, {STENC_F32, 3, {5, 9, 11}, 2},
    {STENC_F64, 3, {1, 1, 1}, 0},  {STENC_F64, 3, {3, 1, 2}, 2},
};
enum { IO_CASES = sizeof io_cases / sizeof io_cases[0] };

static inline const char *io_dtype(stenc_type type) {
    return type == STENC_F32 ? "float32" : "float64";
}

/* "11,9,5": the NumPy shape, slowest first, for the checkers' command lines. */
static inline void io_case_shape(const io_case *c, char *buf, size_t cap) {
    if (c->dims == 1)
        snprintf(buf, cap, "%zu", c->n[0]);
    else if (c->dims == 2)
        snprintf(buf, cap, "%zu,%zu", c->n[1], c->n[0]);
    else
        snprintf(buf, cap, "%zu,%zu,%zu", c->n[2], c->n[1], c->n[0]);
}

static inline void io_case_name(const io_case *c, char *buf, size_t cap) {
    snprintf(buf, cap, "%s_%dd_%zux%zux%zu_h%d", io_dtype(c->type), c->dims, c->n[0], c->n[1],
             c->n[2], c->halo);
}

/* The folder this test executable writes to, created on first use. */
static char io_work_dir[1024];

static inline void io_work_init(const char *test_name) {
    snprintf(io_work_dir, sizeof io_work_dir, "%s/%s", STENC_TEST_IO_WORK_DIR, test_name);
    /* Every folder on the way, so that a test binary also runs from a copied build tree. */
    for (char *p = io_work_dir + 1;; p++)
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            int made = mkdir(io_work_dir, 0755) == 0 || errno == EEXIST;
            *p = c;
            if (!made) {
                fprintf(stderr, "cannot create %s: %s\n", io_work_dir, strerror(errno));
                exit(1);
            }
            if (c == '\0') break;
        }
}

/* A path in the work folder. */
static inline void io_path(char *buf, size_t cap, const char *fmt, ...) {
    char name[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(name, sizeof name, fmt, args);
    va_end(args);
    int len = snprintf(buf, cap, "%s/%s", io_work_dir, name);
    if (len < 0 || (size_t)len >= cap) fail_msg("path %s/%s is too long", io_work_dir, name);
}

/* A value of `type` with a random sign and magnitude over many binades; now and then an exact
 * zero, a negative zero or (for float) a subnormal, so that bit patterns are tested too. */
static inline double io_value(test_rng *rng, stenc_type type) {
    uint64_t pick = test_rng_u64(rng) % 64;
    if (pick == 0) return 0.0;
    if (pick == 1) return -0.0;
    if (pick == 2) return type == STENC_F32 ? (double)1.0e-40f : 4.9e-324;
    double v = test_rng_uniform(rng, -1, 1) * ldexp(1.0, (int)(test_rng_u64(rng) % 81) - 40);
    return type == STENC_F32 ? (double)(float)v : v;
}

/* A field of case c with seeded interior values and the sentinel in the halo. When `expected`
 * is not NULL the interior is also written there as text, one value per line, C order (k
 * slowest), with 17 digits: what an independent reader must find. */
static inline stenc_field *io_make_field(stenc_ctx *ctx, const io_case *c, uint64_t seed,
                                         const char *expected) {
    stenc_field *f;
    assert_stenc_ok(
        stenc_field_create(ctx, &f, c->type, c->dims, c->n[0], c->n[1], c->n[2], c->halo));
    assert_stenc_ok(stenc_field_fill(f, IO_HALO_SENTINEL));
    FILE *out = expected ? fopen(expected, "w") : NULL;
    if (expected) assert_non_null(out);
    test_rng rng = test_rng_seeded(seed);
    for (long k = 0; k < (long)c->n[2]; k++)
        for (long j = 0; j < (long)c->n[1]; j++)
            for (long i = 0; i < (long)c->n[0]; i++) {
                double v = io_value(&rng, c->type);
                assert_stenc_ok(stenc_field_set(f, i, j, k, v));
                if (out) fprintf(out, "%.17g\n", v);
            }
    if (out) assert_int_equal(fclose(out), 0);
    return f;
}

/* A field of case c whose interior and halo are all `value`. */
static inline stenc_field *io_filled_field(stenc_ctx *ctx, const io_case *c, double value) {
    stenc_field *f;
    assert_stenc_ok(
        stenc_field_create(ctx, &f, c->type, c->dims, c->n[0], c->n[1], c->n[2], c->halo));
    assert_stenc_ok(stenc_field_fill(f, value));
    return f;
}

/* Compare two host fields of one shape point by point, bitwise: the interior of `got` must be
 * that of `want`, and its halo must still be `halo_value` everywhere. */
static inline void io_expect_field(const stenc_field *got, const stenc_field *want,
                                   double halo_value, const char *what) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(got, &L));
    long h[3];
    for (int d = 0; d < 3; d++)
        h[d] = d < L.dims ? L.halo : 0;
    for (long k = -h[2]; k < (long)L.n[2] + h[2]; k++)
        for (long j = -h[1]; j < (long)L.n[1] + h[1]; j++)
            for (long i = -h[0]; i < (long)L.n[0] + h[0]; i++) {
                int interior = i >= 0 && j >= 0 && k >= 0 && i < (long)L.n[0] && j < (long)L.n[1] &&
                               k < (long)L.n[2];
                double g, w = halo_value;
                assert_stenc_ok(stenc_field_get(got, i, j, k, &g));
                if (interior) assert_stenc_ok(stenc_field_get(want, i, j, k, &w));
                if (memcmp(&g, &w, sizeof g) != 0)
                    fail_msg("%s: %s point (%ld,%ld,%ld) is %.17g, expected %.17g", what,
                             interior ? "interior" : "halo", i, j, k, g, w);
            }
}

/* Write a file from raw bytes (to craft bad or unusual inputs). */
static inline void io_write_bytes(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, bytes, f), bytes);
    assert_int_equal(fclose(f), 0);
}

/* The whole file as a new NUL-terminated buffer (*bytes gets its size). */
static inline char *io_read_file(const char *path, size_t *bytes) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s: %s", path, strerror(errno));
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    char *data = malloc((size_t)size + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
    data[size] = '\0';
    fclose(f);
    if (bytes) *bytes = (size_t)size;
    return data;
}

static inline int io_file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Run a shell command; its exit status, or -1 when it did not exit normally. */
static inline int io_run(const char *fmt, ...) {
    char cmd[4096];
    va_list args;
    va_start(args, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, args);
    va_end(args);
    fflush(stdout);
    fflush(stderr);
    int rc = system(cmd);
    if (rc == -1 || !WIFEXITED(rc)) return -1;
    return WEXITSTATUS(rc);
}

/* Run a checker script of tests/io with the configured Python; fail the test unless it
 * passes. Its output (what differs) goes to the test log. */
static inline void io_check(const char *script, const char *args_fmt, ...) {
    char args[3000];
    va_list ap;
    va_start(ap, args_fmt);
    vsnprintf(args, sizeof args, args_fmt, ap);
    va_end(ap);
    int rc = io_run("'%s' '%s/%s' %s", STENC_TEST_PYTHON, STENC_TEST_IO_SOURCE_DIR, script, args);
    if (rc != 0) fail_msg("%s %s: exit status %d", script, args, rc);
}

/* 1 when the configured Python imports every module in `modules` ("numpy h5py"). */
static inline int io_python_has(const char *modules) {
    if (!STENC_TEST_PYTHON[0]) return 0;
    char imports[256];
    snprintf(imports, sizeof imports, "%s", modules);
    for (char *p = imports; *p; p++)
        if (*p == ' ') *p = ',';
    return io_run("'%s' -c 'import %s' >/dev/null 2>&1", STENC_TEST_PYTHON, imports) == 0;
}

#endif /* STENC_IO_TEST_UTIL_H */
