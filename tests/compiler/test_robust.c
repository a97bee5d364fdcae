/* The front end never crashes, hangs or leaks: every prefix of every valid .stencil file, random
 * byte mutations, deep nesting, huge numbers and binary garbage. Under ASan/UBSan (the CI's
 * sanitizer build) memory errors fail the test too. A sample also goes through the stenc
 * program, whose exit status must be 0 or 1, never a signal. */
#include "test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fe_test.h"

typedef struct corpus {
    char *text[64];
    size_t len[64];
    int n;
} corpus;

static void load_dir(corpus *c, const char *dirname) {
    DIR *dir = opendir(dirname);
    assert_non_null(dir);
    struct dirent *ent;
    while ((ent = readdir(dir)) && c->n < 64) {
        size_t n = strlen(ent->d_name);
        if (n < 9 || strcmp(ent->d_name + n - 8, ".stencil") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dirname, ent->d_name);
        c->text[c->n] = fe_slurp(path, &c->len[c->n]);
        c->n++;
    }
    closedir(dir);
}

static corpus valid_files(void) {
    corpus c = {0};
    load_dir(&c, STENC_SOURCE_DIR "/stencils");
    load_dir(&c, STENC_SOURCE_DIR "/tests/compiler/good");
    assert_true(c.n >= 7);
    return c;
}

static void corpus_free(corpus *c) {
    for (int n = 0; n < c->n; n++)
        free(c->text[n]);
}

/* Run the front end (and the analyser when it accepts) on len bytes. Returns its errors. */
static int front_end(const char *text, size_t len) {
    fe_result r = fe_run_len(text, len);
    assert_true(r.errors >= 0);
    if (r.errors == 0) {
        for (int s = 0; s < r.file->nstencils; s++) {
            km_kernel km;
            assert_int_equal(analyze_stencil(r.file->stencils[s], AST_TYPE_NONE, &km), 0);
            analyze_free(&km);
        }
    }
    int errors = r.errors;
    fe_result_free(&r);
    return errors;
}

static void test_every_prefix(void **state) {
    (void)state;
    corpus c = valid_files();
    for (int f = 0; f < c.n; f++) {
        /* the whole file is valid; the truncations must merely not crash */
        assert_int_equal(front_end(c.text[f], c.len[f]), 0);
        for (size_t len = 0; len < c.len[f]; len++) {
            char *copy = malloc(len + 1); /* exactly len bytes: ASan sees any over-read */
            memcpy(copy, c.text[f], len);
            front_end(copy, len);
            free(copy);
        }
    }
    corpus_free(&c);
}

static void test_random_mutations(void **state) {
    (void)state;
    corpus c = valid_files();
    test_rng rng = test_rng_seeded(2026);
    static const char interesting[] = "{}[]();,=+-*/%<>!&|?:#\n\"'\\.0123456789eiklx \x00\x80\xff";
    for (int round = 0; round < 3000; round++) {
        int f = (int)(test_rng_u64(&rng) % (uint64_t)c.n);
        size_t len = c.len[f];
        char *copy = malloc(len + 8);
        memcpy(copy, c.text[f], len);
        int edits = 1 + (int)(test_rng_u64(&rng) % 4);
        for (int e = 0; e < edits && len > 0; e++) {
            size_t at = (size_t)(test_rng_u64(&rng) % len);
            uint64_t kind = test_rng_u64(&rng) % 3;
            char byte = test_rng_u64(&rng) % 2
                            ? (char)test_rng_u64(&rng)
                            : interesting[test_rng_u64(&rng) % (sizeof interesting - 1)];
            if (kind == 0) {
                copy[at] = byte; /* replace */
            } else if (kind == 1) {
                memmove(copy + at, copy + at + 1, len - at - 1); /* delete */
                len--;
            } else if (len < c.len[f] + 4) {
                memmove(copy + at + 1, copy + at, len - at); /* insert */
                copy[at] = byte;
                len++;
            }
        }
        front_end(copy, len);
        free(copy);
    }
    corpus_free(&c);
}

static char *repeat(const char *head, const char *unit, int count, const char *tail) {
    size_t n = strlen(head) + strlen(unit) * (size_t)count + strlen(tail);
    char *s = malloc(n + 1), *p = s;
    p += sprintf(p, "%s", head);
    for (int k = 0; k < count; k++)
        p += sprintf(p, "%s", unit);
    sprintf(p, "%s", tail);
    return s;
}

#define HEAD "stencil s { dims 1; type float; input x; output y;\n"
#define HEAD_D "stencil s { dims 1; type double; input x; output y;\n"

/* Limits: deep nesting and huge inputs end in an error, not a stack overflow. */
static void test_extremes(void **state) {
    (void)state;
    struct {
        const char *head, *unit;
        int count;
        const char *tail;
        int want_errors; /* 1: must fail; 0: must pass */
    } cases[] = {
        {HEAD "y = ", "(", 200000, "x", 1},       /* the parser's stack */
        {HEAD "y = ", "-", 100000, "x; }", 1},    /* unary chain beyond the limit */
        {HEAD "y = ", "-", 900, "x; }", 0},       /* ... and within it */
        {HEAD "y = x", " + x", 100000, "; }", 1}, /* a long sum is deep on the left */
        {HEAD "y = x", " + x", 990, "; }", 0},
        {HEAD, "if (x > 0) { ", 5000, "", 1},         /* nested blocks, unclosed */
        {HEAD "y = x[", "-", 100000, "1]; }", 1},     /* in an offset */
        {HEAD "y = x*", "9", 38, "; }", 0},           /* a huge integer is still a float */
        {HEAD "y = x*", "9", 39, "; }", 1},           /* ... up to FLT_MAX */
        {HEAD_D "y = x*", "9", 300, "; }", 0},        /* ... and a double up to DBL_MAX */
        {HEAD "y = x[", "9", 5000, "]; }", 1},        /* ... but no offset */
        {HEAD "y = x*1e", "9", 400, "; }", 1},        /* out of range */
        {HEAD "let ", "v", 300, " = x; y = x; }", 1}, /* name too long */
        {HEAD "y = x; } ", "stencil", 20000, "", 1},  /* many truncated stencils */
        {"", "/*", 100000, "", 1},                    /* unterminated comments */
        {"", "#", 100000, "", 0},                     /* comments only */
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        char *src = repeat(cases[n].head, cases[n].unit, cases[n].count, cases[n].tail);
        int errors = front_end(src, strlen(src));
        if ((errors > 0) != cases[n].want_errors)
            fail_msg("case %zu: %d errors, want %s", n, errors,
                     cases[n].want_errors ? "some" : "none");
        free(src);
    }
    /* NUL bytes, and a megabyte of random bytes */
    static const char nul[] = HEAD "y = x;\0 }";
    assert_true(front_end(nul, sizeof nul - 1) > 0);
    test_rng rng = test_rng_seeded(7);
    size_t len = 1 << 20;
    char *junk = malloc(len);
    for (size_t k = 0; k < len; k++)
        junk[k] = (char)test_rng_u64(&rng);
    assert_true(front_end(junk, len) > 0);
    free(junk);
}

/* The program: exit status 0 or 1 on a sample of truncations and mutations, never a signal. */
static void test_program_sample(void **state) {
    (void)state;
    corpus c = valid_files();
    char path[] = "/tmp/stenc_robust_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    test_rng rng = test_rng_seeded(99);
    int runs = 0;
    for (int f = 0; f < c.n; f++) {
        for (size_t len = 0; len <= c.len[f]; len += 1 + c.len[f] / 12) {
            FILE *out = fopen(path, "wb");
            fwrite(c.text[f], 1, len, out);
            if (len % 2) fputc((int)(test_rng_u64(&rng) & 0xff), out);
            fclose(out);
            pid_t pid = fork();
            if (pid == 0) {
                int devnull = open("/dev/null", O_WRONLY);
                dup2(devnull, 1);
                dup2(devnull, 2);
                execl(STENC_EXE, STENC_EXE, "--check", path, (char *)NULL);
                _exit(127);
            }
            int status = 0;
            waitpid(pid, &status, 0);
            if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
                fail_msg("stenc on %zu bytes of file %d: %s %d", len, f,
                         WIFEXITED(status) ? "exit" : "signal",
                         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            runs++;
        }
    }
    unlink(path);
    assert_true(runs >= 50);
    corpus_free(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_random_mutations),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_program_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
