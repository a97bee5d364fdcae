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
    d->werror = 0;
    d->no_warnings = 0;
    d->color = 0;
    d->last_kept = 0;
    d->pending = NULL;
    d->npending = d->cappending = 0;
}

/* ANSI colours of gcc and clang: bold locus, red errors, magenta warnings, cyan notes, green
 * carets. */
#define COLOR_BOLD "\033[01m"
#define COLOR_ERROR "\033[01;31m"
#define COLOR_WARNING "\033[01;35m"
#define COLOR_NOTE "\033[01;36m"
#define COLOR_CARET "\033[01;32m"
#define COLOR_RESET "\033[m"

static void paint(const diag *d, FILE *o, const char *color) {
    if (d->color) fputs(color, o);
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
    paint(d, o, COLOR_CARET);
    fputc('^', o);
    for (int c = first; c < last; c++)
        fputc('~', o);
    paint(d, o, COLOR_RESET);
    fputc('\n', o);
}

/* Format one message (and its source line) into a malloc'd string. */
static char *format(diag *d, const char *kind, const char *color, ast_loc loc, const char *fmt,
                    va_list ap, const char *flag) {
    char *text = NULL;
    size_t size = 0;
    FILE *o = open_memstream(&text, &size);
    if (!o) return NULL;
    int line = loc.first_line > 0 ? loc.first_line : 1;
    int col = loc.first_col > 0 ? loc.first_col : 1;
    paint(d, o, COLOR_BOLD);
    fprintf(o, "%s:%d:%d: ", d->path, line, col);
    paint(d, o, COLOR_RESET);
    paint(d, o, color);
    fprintf(o, "%s: ", kind);
    paint(d, o, COLOR_RESET);
    vfprintf(o, fmt, ap);
    if (flag) fprintf(o, " [%s]", flag);
    fputc('\n', o);
    if (d->src) {
        int last = loc.last_line == line ? loc.last_col : 1 << 30; /* multi-line: to the end */
        show_range(d, o, line, col, last);
    }
    fclose(o);
    return text;
}

static void report(diag *d, const char *kind, const char *color, ast_loc loc, const char *fmt,
                   va_list ap, const char *flag) {
    char *text = format(d, kind, color, loc, fmt, ap, flag);
    d->last_kept = text != NULL;
    if (text)
        keep(d, loc.first_line > 0 ? loc.first_line : 1, loc.first_col > 0 ? loc.first_col : 1,
             text);
}

static void count_error(diag *d) {
    if (++d->errors >= d->max_errors && !d->muted) {
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

void diag_error(diag *d, ast_loc loc, const char *fmt, ...) {
    if (d->muted) { /* the file is no longer looked at: what follows is not counted either */
        d->last_kept = 0;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", COLOR_ERROR, loc, fmt, ap, NULL);
    va_end(ap);
    count_error(d);
}

void diag_warning(diag *d, ast_loc loc, const char *fmt, ...) {
    d->last_kept = 0;
    if (d->no_warnings) return;
    if (d->muted) return;
    va_list ap;
    va_start(ap, fmt);
    if (d->werror)
        report(d, "error", COLOR_ERROR, loc, fmt, ap, "-Werror");
    else
        report(d, "warning", COLOR_WARNING, loc, fmt, ap, NULL);
    va_end(ap);
    if (d->werror)
        count_error(d);
    else
        d->warnings++;
}

void diag_note(diag *d, ast_loc loc, const char *fmt, ...) {
    if (!d->last_kept || d->npending == 0) return;
    va_list ap;
    va_start(ap, fmt);
    char *note = format(d, "note", COLOR_NOTE, loc, fmt, ap, NULL);
    va_end(ap);
    if (!note) return;
    /* Appended to the message it belongs to, so that sorting keeps them together. */
    diag_entry *last = &d->pending[d->npending - 1];
    size_t a = strlen(last->text), b = strlen(note);
    char *joined = realloc(last->text, a + b + 1);
    if (joined) {
        memcpy(joined + a, note, b + 1);
        last->text = joined;
    }
    free(note);
}

/* Edit distance counting a swap of neighbours as one edit (optimal string alignment), with an
 * early exit once every entry of a row exceeds `limit`. */
static int distance(const char *a, const char *b, int limit) {
    int na = (int)strlen(a), nb = (int)strlen(b);
    if (abs(na - nb) > limit || na > AST_MAX_NAME || nb > AST_MAX_NAME) return limit + 1;
    int rows[3][AST_MAX_NAME + 2]; /* rows i-2, i-1, i, used in turn */
    for (int j = 0; j <= nb; j++)
        rows[0][j] = j;
    for (int i = 1; i <= na; i++) {
        int *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];
        int best = cur[0] = i;
        for (int j = 1; j <= nb; j++) {
            int v = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < v) v = prev[j] + 1;
            if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1;
            cur[j] = v;
            if (v < best) best = v;
        }
        if (best > limit) return limit + 1;
    }
    return rows[na % 3][nb];
}

const char *diag_closest(const char *name, const char *const *candidates, int n) {
    /* Names of one or two letters are too short for a guess to mean anything. */
    int limit = (int)strlen(name) < 3 ? 0 : (int)strlen(name) / 3 > 1 ? (int)strlen(name) / 3 : 1;
    if (limit == 0) return NULL;
    const char *best = NULL;
    int best_distance = limit + 1;
    for (int k = 0; k < n; k++) {
        if (!candidates[k] || strcmp(candidates[k], name) == 0) continue;
        int dist = distance(name, candidates[k], limit);
        if (dist < best_distance) {
            best_distance = dist;
            best = candidates[k];
        }
    }
    return best;
}
