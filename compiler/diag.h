/* Diagnostics: "file:line:col: error: message", then the source line and a caret line
 * (^~~~ under the offending range), the way C compilers print them. */
#ifndef STENC_COMPILER_DIAG_H
#define STENC_COMPILER_DIAG_H

#include <stddef.h>
#include <stdio.h>

#include "ast.h"

typedef struct diag {
    const char *path; /* printed as given */
    const char *src;  /* the source text (not owned; may contain NUL bytes) */
    size_t len;
    FILE *out;      /* where messages go */
    int errors;     /* errors reported so far */
    int warnings;   /* warnings reported so far */
    int max_errors; /* after this many errors, one "too many errors" line and then silence */
    int muted;      /* set once max_errors was reached */
    struct diag_entry *pending; /* messages not yet written, flushed in source order */
    int npending, cappending;
} diag;

/* Errors reported per file before the compiler stops looking at it. */
#define DIAG_MAX_ERRORS 50

/* Messages are collected and written, sorted by line and column, by diag_flush(): the
 * parser and the checker find errors in different orders, users read files top to bottom. */
void diag_init(diag *d, const char *path, const char *src, size_t len, FILE *out);

/* Write the collected messages to d->out in source order and forget them. Call before the
 * source text goes away. */
void diag_flush(diag *d);

/* Report an error / a warning at `loc` (printf-style message, no trailing newline). */
void diag_error(diag *d, ast_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void diag_warning(diag *d, ast_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif /* STENC_COMPILER_DIAG_H */
