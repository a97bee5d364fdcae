/* The front end as one call: read a .stencil file, parse it and check it. What main.c and the
 * tests use. */
#ifndef STENC_COMPILER_FRONTEND_H
#define STENC_COMPILER_FRONTEND_H

#include <stddef.h>
#include <stdio.h>

#include "ast.h"

/* Largest .stencil file read, in bytes. */
#define FE_MAX_FILE_BYTES (16u << 20)

/* Read a whole file into *text (malloc'd, NUL-terminated, may contain NULs) and *len.
 * Returns 0, or 1 after printing "stenc: error: cannot read 'path': why" to err. */
int fe_read_file(const char *path, char **text, size_t *len, FILE *err);

/* How diagnostics are made and shown. */
typedef struct fe_options {
    ast_type precision;     /* --precision (decides whether literals fit); AST_TYPE_NONE:
                               each stencil's own type */
    int warnings_as_errors; /* -Werror */
    int no_warnings;        /* -w */
    int color;              /* colour the diagnostics */
} fe_options;

/* Parse and check `len` bytes of `text` named `path`; diagnostics go to err. Returns the
 * number of errors; *file receives the tree either way (free with ast_file_free()), and
 * *warnings (when not NULL) the number of warnings. `opt` may be NULL (the defaults: no
 * override, warnings shown, no colour). */
int fe_check_source_with(const char *path, const char *text, size_t len, FILE *err,
                         const fe_options *opt, ast_file **file, int *warnings);
/* The same with the defaults. */
int fe_check_source(const char *path, const char *text, size_t len, FILE *err, ast_file **file,
                    int *warnings);

#endif /* STENC_COMPILER_FRONTEND_H */
