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
    FILE *out;       /* where messages go */
    int errors;      /* errors reported so far */
    int warnings;    /* warnings reported so far */
    int max_errors;  /* after this many errors, one "too many errors" line and then silence */
    int muted;       /* set once max_errors was reached */
    int werror;      /* warnings are errors (-Werror) */
    int no_warnings; /* warnings are not reported (-w) */
    int color;       /* colour the output (ANSI escapes, as gcc and clang do) */
    int last_kept;   /* the last error or warning was kept, so a note may follow it */
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
/* A note about the error or warning reported just before (e.g. "'u' declared here"); printed
 * right after it, and dropped when that message was not printed. */
void diag_note(diag *d, ast_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The closest of `n` candidate names to `name` by edit distance, close enough to be a likely
 * misspelling (at most a third of the name's length, and at least 1; names of one or two
 * characters get no suggestion); NULL when none is. */
const char *diag_closest(const char *name, const char *const *candidates, int n);

#endif /* STENC_COMPILER_DIAG_H */
