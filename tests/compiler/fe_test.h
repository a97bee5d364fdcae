/* Helpers for the compiler's tests: run the front end on a string and keep its diagnostics. */
#ifndef STENC_FE_TEST_H
#define STENC_FE_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "ast.h"
#include "frontend.h"

typedef struct fe_result {
    ast_file *file;
    int errors, warnings;
    char *messages; /* everything the front end printed (malloc'd, NUL-terminated) */
} fe_result;

/* Parse and check `src` as file "t.stencil". */
static inline fe_result fe_run_len(const char *src, size_t len) {
    fe_result r = {0};
    size_t size = 0;
    FILE *err = open_memstream(&r.messages, &size);
    if (!err) abort();
    r.errors = fe_check_source("t.stencil", src, len, err, &r.file, &r.warnings);
    fclose(err);
    return r;
}

static inline fe_result fe_run(const char *src) {
    return fe_run_len(src, strlen(src));
}

static inline void fe_result_free(fe_result *r) {
    ast_file_free(r->file);
    free(r->messages);
    memset(r, 0, sizeof *r);
}

/* Read a file of the source tree; aborts when it cannot (the test is broken, not the code).
 * Not inlined: inlined, gcc 12 at -O3 mistakes the returned buffer for the address of the
 * local `text` and reports a dangling pointer in every caller. */
static __attribute__((noinline, unused)) char *fe_slurp(const char *path, size_t *len) {
    char *text = NULL;
    if (fe_read_file(path, &text, len, stderr) != 0) abort();
    return text;
}

#endif /* STENC_FE_TEST_H */
