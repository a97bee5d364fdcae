/* Diagnostics with the source line and a caret under the range. Columns count bytes; a tab in
 * the source is copied into the caret line so that the caret stays aligned. */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct diag_entry {
    int line, col, seq;
    char *text;
} diag_entry;

/* Keep a formatted message for diag_flush(). */
static void keep(diag *d, int line, int col, char *text) {
    if (d->npending == d->cappending) {
        int cap = d->cappending ? 2 * d->cappending : 16;
        diag_entry *grown = realloc(d->pending, (size_t)cap * sizeof *grown);
        if (!grown) {
            fputs(text, d->out); /* no memory to sort: print as it comes */
            free(text);
            return;
        }
        d->pending = grown;
        d->cappending = cap;
    }
    d->pending[d->npending] = (diag_entry){line, col, d->npending, text};
    d->npending++;
}

static int compare_entries(const void *pa, const void *pb) {
    const diag_entry *a = pa, *b = pb;
    if (a->line != b->line) return a->line < b->line ? -1 : 1;
    if (a->col != b->col) return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void diag_flush(diag *d) {
    if (d->npending > 1)
        qsort(d->pending, (size_t)d->npending, sizeof *d->pending, compare_entries);
    for (int n = 0; n < d->npending; n++) {
        fputs(d->pending[n].text, d->out);
        free(d->pending[n].text);
    }
    free(d->pending);
    d->pending = NULL;
    d->npending = d->cappending = 0;
    fflush(d->out);
}

void diag_init(diag *d, const char *path, const char *src, size_t len, FILE *out) {
    d->path = path;
    d->src = src;
    d->len = len;
    d->out = out;
    d->errors = 0;
    d->warnings = 0;
    d->max_errors = DIAG_MAX_ERRORS;
    d->muted = 0;
    d->pending = NULL;
    d->npending = d->cappending = 0;
}

/* Print source line `line` (1-based) and the caret line for columns first..last. */
static void show_range(const diag *d, FILE *o, int line, int first, int last) {
    size_t pos = 0;
    for (int l = 1; l < line && pos < d->len; pos++)
        if (d->src[pos] == '\n') l++;
    size_t end = pos;
    while (end < d->len && d->src[end] != '\n')
        end++;
    if (end > pos && d->src[end - 1] == '\r') end--;
    fputs("    ", o);
    for (size_t p = pos; p < end; p++) {
        unsigned char c = (unsigned char)d->src[p];
        fputc(c == '\t' || c >= 0x20 ? (c == 0x7f ? '?' : c) : '?', o);
    }
    fputc('\n', o);
    int width = (int)(end - pos);
    if (first < 1) first = 1;
    if (first > width + 1) first = width + 1; /* at the end of the line (or of the file) */
    if (last < first) last = first;
    if (last > width && last > first) last = width > first ? width : first;
    fputs("    ", o);
    for (int c = 1; c < first; c++)
        fputc(d->src[pos + (size_t)c - 1] == '\t' ? '\t' : ' ', o);
    fputc('^', o);
    for (int c = first; c < last; c++)
        fputc('~', o);
    fputc('\n', o);
}

static void report(diag *d, const char *kind, ast_loc loc, const char *fmt, va_list ap) {
    char *text = NULL;
    size_t size = 0;
    FILE *o = open_memstream(&text, &size);
    if (!o) o = d->out;
    int line = loc.first_line > 0 ? loc.first_line : 1;
    int col = loc.first_col > 0 ? loc.first_col : 1;
    fprintf(o, "%s:%d:%d: %s: ", d->path, line, col, kind);
    vfprintf(o, fmt, ap);
    fputc('\n', o);
    if (d->src) {
        int last = loc.last_line == line ? loc.last_col : 1 << 30; /* multi-line: to the end */
        show_range(d, o, line, col, last);
    }
    if (o != d->out) {
        fclose(o);
        keep(d, line, col, text);
    }
}

void diag_error(diag *d, ast_loc loc, const char *fmt, ...) {
    if (d->muted) {
        d->errors++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", loc, fmt, ap);
    va_end(ap);
    if (++d->errors >= d->max_errors) {
        char *text = NULL;
        size_t size = 0;
        FILE *o = open_memstream(&text, &size);
        if (o) {
            fprintf(o, "%s: error: too many errors (%d), stopping\n", d->path, d->errors);
            fclose(o);
            keep(d, 1 << 30, 0, text);
        }
        d->muted = 1;
    }
}

void diag_warning(diag *d, ast_loc loc, const char *fmt, ...) {
    if (d->muted) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "warning", loc, fmt, ap);
    va_end(ap);
    d->warnings++;
}
