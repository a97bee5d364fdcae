/* The stenc program itself: each malformed file in bad/ fails with its expected diagnostic and
 * writes nothing; --info prints the right figures; bad options exit with status 2. */
#include "test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fe_test.h"

#define SRC_DIR STENC_SOURCE_DIR

typedef struct run_result {
    int exited; /* 1 when it exited normally (not killed by a signal) */
    int status; /* its exit status */
    char *out;  /* stdout */
    char *err;  /* stderr */
} run_result;

static char *slurp_or_empty(const char *path) {
    char *text = NULL;
    size_t len;
    if (fe_read_file(path, &text, &len, stderr) != 0) return strdup("");
    return text;
}

/* Run stenc with the NULL-terminated arguments, capturing its output. */
static run_result run_stenc(const char *const *args) {
    char out_path[] = "/tmp/stenc_cli_out_XXXXXX", err_path[] = "/tmp/stenc_cli_err_XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    if (out_fd < 0 || err_fd < 0) abort();
    const char *argv[64] = {STENC_EXE};
    int n = 1;
    for (; args[n - 1] && n < 63; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execv(STENC_EXE, (char *const *)argv);
        _exit(127);
    }
    int wstatus = 0;
    waitpid(pid, &wstatus, 0);
    close(out_fd);
    close(err_fd);
    run_result r = {WIFEXITED(wstatus), WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1,
                    slurp_or_empty(out_path), slurp_or_empty(err_path)};
    if (!WIFEXITED(wstatus)) r.status = -WTERMSIG(wstatus);
    unlink(out_path);
    unlink(err_path);
    return r;
}

static void run_free(run_result *r) {
    free(r->out);
    free(r->err);
}

static int dir_is_empty(const char *path) {
    DIR *dir = opendir(path);
    if (!dir) return 1;
    int empty = 1;
    struct dirent *ent;
    while ((ent = readdir(dir)))
        if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, "..")) empty = 0;
    closedir(dir);
    return empty;
}

static void remove_dir(const char *path) {
    DIR *dir = opendir(path);
    if (!dir) return;
    struct dirent *ent;
    char file[2048];
    while ((ent = readdir(dir))) {
        if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, "..")) continue;
        snprintf(file, sizeof file, "%s/%s", path, ent->d_name);
        unlink(file);
    }
    closedir(dir);
    rmdir(path);
}

/* Every file in bad/ holds one or more "# expect: L:C: error: message" lines. */
/* Every `# expect: L:C: message` line of a bad file must appear in stderr as
 * `path:L:C: message`. Returns the number of expectations. */
static int check_expectations(const char *path, const char *err) {
    size_t len;
    char *text = fe_slurp(path, &len);
    assert_non_null(text);
    int expects = 0;
    for (const char *line = strstr(text, "# expect: "); line;
         line = strstr(line + 1, "# expect: ")) {
        const char *end = strchr(line, '\n');
        char want[2048];
        int wlen = (int)((end ? end : line + strlen(line)) - (line + 10));
        snprintf(want, sizeof want, "%s:%.*s", path, wlen, line + 10);
        if (!strstr(err, want)) fail_msg("%s: missing diagnostic\n  %s\nin:\n%s", path, want, err);
        expects++;
    }
    free(text);
    return expects;
}

static void test_bad_files(void **state) {
    (void)state;
    DIR *dir = opendir(SRC_DIR "/tests/compiler/bad");
    assert_non_null(dir);
    int files = 0;
    struct dirent *ent;
    while ((ent = readdir(dir))) {
        size_t n = strlen(ent->d_name);
        if (n < 9 || strcmp(ent->d_name + n - 8, ".stencil") != 0) continue;
        char path[1024], out_dir[] = "/tmp/stenc_cli_dir_XXXXXX";
        snprintf(path, sizeof path, "%s/tests/compiler/bad/%s", SRC_DIR, ent->d_name);
        assert_non_null(mkdtemp(out_dir));
        const char *args[] = {"-o", out_dir, path, NULL};
        run_result r = run_stenc(args);
        if (!r.exited || r.status != 1)
            fail_msg("%s: exit status %d (want 1), stderr:\n%s", path, r.status, r.err);
        if (!dir_is_empty(out_dir)) fail_msg("%s: wrote output despite errors", path);
        remove_dir(out_dir);
        if (check_expectations(path, r.err) == 0) fail_msg("%s has no '# expect:' line", path);
        run_free(&r);
        files++;
    }
    closedir(dir);
    assert_true(files >= 30);
}

/* Find the summary row of `kernel` in --info output and read its numbers. */
static void info_row(const char *out, const char *kernel, int *dims, char *type, long *flops,
                     long *bytes) {
    char key[64];
    snprintf(key, sizeof key, "\n%s ", kernel);
    const char *row = strstr(out, key);
    if (!row) fail_msg("no row for %s in:\n%s", kernel, out);
    double ai;
    if (sscanf(row + strlen(key), "%d %15s %ld %ld %lf", dims, type, flops, bytes, &ai) != 5)
        fail_msg("cannot read the row of %s", kernel);
    assert_true(ai > 0.99 * (double)*flops / (double)*bytes &&
                ai < 1.01 * (double)*flops / (double)*bytes);
}

static void test_info_heat3d(void **state) {
    (void)state;
    const char *args[] = {"--info", SRC_DIR "/stencils/heat3d.stencil", NULL};
    run_result r = run_stenc(args);
    assert_true(r.exited);
    assert_int_equal(r.status, 0);
    int dims;
    char type[16];
    long flops, bytes;
    info_row(r.out, "heat3d", &dims, type, &flops, &bytes);
    assert_int_equal(dims, 3);
    assert_string_equal(type, "float");
    assert_int_equal(flops, 8);
    assert_int_equal(bytes, 8);
    /* the access pattern: 7 offsets of x, halo 1 on both sides of every dimension */
    const char *offs = strstr(r.out, "offsets of x:");
    assert_non_null(offs);
    int count = 0;
    for (const char *p = offs; *p && *p != '\n'; p++)
        count += *p == '[';
    assert_int_equal(count, 7);
    assert_non_null(strstr(offs, "[-1,0,0]"));
    assert_non_null(strstr(offs, "[0,0,1]"));
    assert_non_null(strstr(r.out, "halo of the kernel: i 1/1 j 1/1 k 1/1"));
    run_free(&r);

    const char *dbl[] = {"--info", "--precision", "double", SRC_DIR "/stencils/heat3d.stencil",
                         NULL};
    r = run_stenc(dbl);
    assert_int_equal(r.status, 0);
    info_row(r.out, "heat3d", &dims, type, &flops, &bytes);
    assert_string_equal(type, "double");
    assert_int_equal(flops, 8);
    assert_int_equal(bytes, 16);
    run_free(&r);
}

static void test_info_bytes(void **state) {
    (void)state;
    const char *args[] = {"--info", SRC_DIR "/stencils/euler_flux.stencil",
                          SRC_DIR "/stencils/varcoef27.stencil", NULL};
    run_result r = run_stenc(args);
    assert_int_equal(r.status, 0);
    int dims;
    char type[16];
    long flops, bytes;
    info_row(r.out, "euler_flux", &dims, type, &flops, &bytes);
    assert_int_equal(bytes, 32); /* 4 inputs + 4 outputs, float */
    info_row(r.out, "varcoef27", &dims, type, &flops, &bytes);
    assert_int_equal(bytes, 116); /* 28 inputs + 1 output, float */
    assert_int_equal(flops, 53);
    run_free(&r);
}

/* --info lists a float stencil's divisions by literals (docs/cuda.md, "Division by a
 * constant"), and a double stencil, which keeps its divisions, lists none. */
static void test_info_divisions(void **state) {
    (void)state;
    const char *args[] = {"--info", SRC_DIR "/tests/stencils/divide.stencil", NULL};
    run_result r = run_stenc(args);
    assert_int_equal(r.status, 0);
    const char *f = strstr(r.out, "stencil divide_const_f:");
    assert_non_null(f);
    assert_non_null(strstr(f, "divisions by literals: / 118, / -0.3, / 3e-30, / 7e+30\n"));
    const char *d = strstr(r.out, "stencil divide_d:"), *next = strstr(d, "\nstencil ");
    const char *in_d = strstr(d, "divisions by literals");
    assert_true(in_d == NULL || (next && in_d > next));
    run_free(&r);
    /* powers of two stay `/`, which nvcc makes a multiply; a constant quotient is folded */
    char path[] = "/tmp/stenc_cli_div_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] = "stencil pow2 { dims 1; type float; input a; output b;\n"
                        "    b = a / 4 + a / -0.5 + a / 3 + 1 / 7.0; }\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    const char *pow2[] = {"--info", path, NULL};
    r = run_stenc(pow2);
    unlink(path);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "divisions by literals: / 3\n"));
    run_free(&r);
}

static void expect_usage_error(const char *const *args, const char *message) {
    run_result r = run_stenc(args);
    if (!r.exited || r.status != 2 || !strstr(r.err, message))
        fail_msg("%s ...: status %d, stderr:\n%s\n(want 2 and \"%s\")",
                 args[0] ? args[0] : "(no arguments)", r.status, r.err, message);
    run_free(&r);
}

static void test_options(void **state) {
    (void)state;
    const char *heat = SRC_DIR "/stencils/heat3d.stencil";
    expect_usage_error((const char *[]){NULL}, "no input files");
    expect_usage_error((const char *[]){"--frobnicate", heat, NULL},
                       "unknown option '--frobnicate'");
    expect_usage_error((const char *[]){"--precision", "half", heat, NULL},
                       "--precision is float or double, not 'half'");
    expect_usage_error((const char *[]){"--target", "cuda,fortran", heat, NULL},
                       "unknown target 'fortran'");
    /* cuda implies c: the launcher and the host kernel live in NAME_c.c */
    run_result lr =
        run_stenc((const char *[]){"--target", "cuda", "--list-outputs", "-o", "out", heat, NULL});
    assert_int_equal(lr.status, 0);
    assert_non_null(strstr(lr.out, "out/heat3d.h"));
    assert_non_null(strstr(lr.out, "out/heat3d_c.c"));
    assert_non_null(strstr(lr.out, "out/heat3d_cuda.cu"));
    run_free(&lr);
    expect_usage_error((const char *[]){"--target=c,hip", heat, NULL}, "unknown target 'hip'");
    /* --target options add up (stenc_add_stencils passes one per target) */
    lr = run_stenc((const char *[]){"--target", "c", "--target", "cuda", "--target=opencl",
                                    "--list-outputs", "-o", "out", heat, NULL});
    assert_int_equal(lr.status, 0);
    assert_non_null(strstr(lr.out, "out/heat3d_c.c"));
    assert_non_null(strstr(lr.out, "out/heat3d_cuda.cu"));
    assert_non_null(strstr(lr.out, "out/heat3d_opencl.c"));
    run_free(&lr);
    /* opencl implies c too */
    lr = run_stenc(
        (const char *[]){"--target", "opencl", "--list-outputs", "-o", "out", heat, NULL});
    assert_int_equal(lr.status, 0);
    assert_non_null(strstr(lr.out, "out/heat3d_c.c"));
    assert_non_null(strstr(lr.out, "out/heat3d_opencl.c"));
    assert_null(strstr(lr.out, "cuda"));
    run_free(&lr);
    expect_usage_error((const char *[]){heat, "-o", NULL}, "option '-o' needs a value");
    run_result r = run_stenc((const char *[]){"--version", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "stenc 0.1.0"));
    run_free(&r);
    r = run_stenc((const char *[]){"--help", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: stenc"));
    assert_non_null(strstr(r.out, "Targets: c cuda (with c) opencl (with c)")); /* the table */
    run_free(&r);
    r = run_stenc((const char *[]){"/nonexistent/x.stencil", NULL});
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "cannot read '/nonexistent/x.stencil'"));
    run_free(&r);
}

/* -Werror fails on a warning and writes nothing, -w hides warnings, --color paints. */
static void test_warning_options(void **state) {
    (void)state;
    char path[] = "/tmp/stenc_cli_warn_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char src[] = "stencil s { dims 1; type float; scalar a; input x; output y; "
                              "y = x; }\n";
    assert_int_equal(write(fd, src, sizeof src - 1), (ssize_t)(sizeof src - 1));
    close(fd);
    run_result r = run_stenc((const char *[]){"--check", path, NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "warning: scalar 'a' is never used"));
    assert_null(strstr(r.err, "\033["));
    run_free(&r);
    r = run_stenc((const char *[]){"--check", "-Werror", path, NULL});
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "error: scalar 'a' is never used [-Werror]"));
    run_free(&r);
    r = run_stenc((const char *[]){"--check", "-w", path, NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    run_free(&r);
    r = run_stenc((const char *[]){"--check", "--color=always", path, NULL});
    assert_non_null(strstr(r.err, "\033[01;35mwarning: \033[m"));
    run_free(&r);
    r = run_stenc((const char *[]){"--check", "--color=never", path, NULL});
    assert_null(strstr(r.err, "\033["));
    run_free(&r);
    unlink(path);
}

/* --check writes nothing; a bad file among good ones stops all output; names are unique
 * across files. */
static void test_all_or_nothing(void **state) {
    (void)state;
    char out_dir[] = "/tmp/stenc_cli_dir_XXXXXX";
    assert_non_null(mkdtemp(out_dir));
    run_result r = run_stenc(
        (const char *[]){"--check", "-o", out_dir, SRC_DIR "/stencils/heat3d.stencil", NULL});
    assert_int_equal(r.status, 0);
    assert_true(dir_is_empty(out_dir));
    run_free(&r);
    r = run_stenc((const char *[]){"-o", out_dir, SRC_DIR "/stencils/heat3d.stencil",
                                   SRC_DIR "/tests/compiler/bad/undeclared.stencil", NULL});
    assert_int_equal(r.status, 1);
    assert_true(dir_is_empty(out_dir));
    run_free(&r);
    r = run_stenc((const char *[]){"--check", SRC_DIR "/stencils/heat3d.stencil",
                                   SRC_DIR "/stencils/heat3d.stencil", NULL});
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "stencil 'heat3d' is already defined in"));
    run_free(&r);
    /* a clean file is emitted */
    r = run_stenc((const char *[]){"-o", out_dir, SRC_DIR "/stencils/heat3d.stencil", NULL});
    if (r.status != 0) fail_msg("%s", r.err);
    assert_false(dir_is_empty(out_dir));
    run_free(&r);
    remove_dir(out_dir);
}

/* The digest in the CUDA variant table (a key of the tuning cache) is FNV-1a 64 of the file
 * with the digest left empty, and differs between two stencils of the same name. */
static char *emit_cuda_file(const char *dir, const char *body, const char *tag) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.stencil", dir, tag);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "stencil lap { dims 2; type double; input x; output y; y = %s; }\n", body);
    fclose(f);
    char out[1024];
    snprintf(out, sizeof out, "%s/%s", dir, tag);
    assert_int_equal(mkdir(out, 0700), 0);
    run_result r = run_stenc((const char *[]){"--target", "cuda", "-o", out, path, NULL});
    if (r.status != 0) fail_msg("%s", r.err);
    run_free(&r);
    char file[1100];
    snprintf(file, sizeof file, "%s/lap_cuda.cu", out);
    return slurp_or_empty(file);
}

static void check_digest(char *text, char digest[17]) {
    char *table = strstr(text, "lap_cuda_variants = {");
    assert_non_null(table);
    char *end = strstr(table, "};");
    assert_non_null(end);
    char *q = end;
    while (q > table && *q != '"')
        q--;
    assert_true(q - table > 17 && q[-17] == '"');
    memcpy(digest, q - 16, 16);
    digest[16] = '\0';
    for (int i = 0; i < 16; i++)
        assert_non_null(strchr("0123456789abcdef", digest[i]));
    memmove(q - 16, q, strlen(q) + 1); /* the text with an empty digest */
    unsigned long long h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        h ^= *c;
        h *= 0x100000001b3ull;
    }
    char want[17];
    snprintf(want, sizeof want, "%016llx", h);
    assert_string_equal(digest, want);
}

static void test_tuning_digest(void **state) {
    (void)state;
    char dir[] = "/tmp/stenc_cli_digest_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *a = emit_cuda_file(dir, "x[-1,0] + x[1,0] - 2*x", "a");
    char *b = emit_cuda_file(dir, "x[-1,0] + x[1,0] - 2*x", "b");
    char *c = emit_cuda_file(dir, "x[0,-1] + x[0,1] - 2*x", "c");
    char da[17], db[17], dc[17];
    check_digest(a, da);
    check_digest(b, db);
    check_digest(c, dc);
    assert_string_not_equal(da, dc);
    /* a and b differ only in the source file's name (comments, #line) */
    assert_string_not_equal(da, db);
    free(a), free(b), free(c);
    char *again = emit_cuda_file(dir, "x[0,-1] + x[0,1] - 2*x", "c2");
    char d2[17];
    check_digest(again, d2);
    free(again);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_files),       cmocka_unit_test(test_info_heat3d),
        cmocka_unit_test(test_info_bytes),      cmocka_unit_test(test_info_divisions),
        cmocka_unit_test(test_options),         cmocka_unit_test(test_all_or_nothing),
        cmocka_unit_test(test_warning_options), cmocka_unit_test(test_tuning_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
