/* tmpl: the small text-template engine the emitter fills in (templates/TARGET/NAME.tmpl).
 *
 * A template is text with tags in double braces:
 *     {{name}}                  the string value of `name` (dotted paths: {{a.b}})
 *     {{#each list}}...{{/each}} the body once per item; inside, an item's fields are names,
 *                               {{this}} is a string item, {{@index}} counts from 0, and
 *                               @first / @last can be tested with #if / #unless
 *     {{#if name}}...{{else}}...{{/if}}   and {{#unless name}}...{{/unless}}
 *     {{#wrap}}...{{/wrap}}     the body's non-blank lines, trimmed, as one comma-separated
 *                               list, broken before column 100 and continued under its start
 *     {{> name}}                 the template name.tmpl from this template's folder, rendered
 *                               where the tag stands, in its scope, and put in as a value is
 *                               (its last newline dropped, its lines indented like the tag's)
 *     {{! a comment }}
 * A name is looked up in the innermost item first, then outwards to the top-level map.
 * A value is true when it is a non-empty string or list, or a map.
 *
 * Whitespace: a line holding only a section tag (#each, /each, #if, else, /if, #unless,
 * /unless, #wrap, /wrap) or a comment, plus blanks, disappears from the output together with
 * its newline, so that section tags can be indented like code without leaving blank lines. A
 * multi-line value inserted after some indentation has all of its lines indented the same way.
 *
 * Errors (unknown tag, unknown variable, unterminated section or tag, a list where a string
 * was needed) are reported as "file:line: error: ..." on the given stream.
 */
#ifndef STENC_TEMPLATE_H
#define STENC_TEMPLATE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* ---- growable string -------------------------------------------------------------------- */

typedef struct tmpl_buf {
    char *data; /* always NUL-terminated once anything was appended; NULL before */
    size_t len;
    size_t cap;
} tmpl_buf;

void tmpl_buf_append(tmpl_buf *b, const char *s, size_t n);
void tmpl_buf_puts(tmpl_buf *b, const char *s);
void tmpl_buf_printf(tmpl_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The contents ("" when empty); stays owned by the buffer. */
const char *tmpl_buf_str(const tmpl_buf *b);
void tmpl_buf_free(tmpl_buf *b);

/* Append the whole file at `path` to `b`: 0, or -1 when it cannot be opened, -2 when it
 * cannot be read (b then holds what was read; the caller reports and frees). */
int tmpl_buf_read_file(tmpl_buf *b, const char *path);

/* ---- data: a tree of strings, lists and maps -------------------------------------------- */

typedef struct tmpl_value tmpl_value;

tmpl_value *tmpl_new_map(void);
void tmpl_free(tmpl_value *v); /* frees the whole tree; NULL allowed */

/* Set a field of a map (replacing an earlier value of the same key). */
void tmpl_set_str(tmpl_value *map, const char *key, const char *s);
void tmpl_set_fmt(tmpl_value *map, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void tmpl_set_bool(tmpl_value *map, const char *key, int flag); /* "1" or "" */
tmpl_value *tmpl_set_list(tmpl_value *map, const char *key);    /* new empty list */
tmpl_value *tmpl_set_map(tmpl_value *map, const char *key);     /* new empty map */

/* Append to a list. */
tmpl_value *tmpl_append_map(tmpl_value *list);
void tmpl_append_str(tmpl_value *list, const char *s);
size_t tmpl_list_len(const tmpl_value *list);

/* ---- templates --------------------------------------------------------------------------- */

typedef struct tmpl tmpl;

/* Parse template text. `name` is used in messages. NULL (after printing) on a syntax error. */
tmpl *tmpl_parse(const char *name, const char *text, FILE *err);
/* Read and parse a file; the path is the name used in messages. */
tmpl *tmpl_load(const char *path, FILE *err);
void tmpl_destroy(tmpl *t);

/* Render with `data` (a map), appending to `out`. Returns 0, or nonzero after printing an
 * error; `out` then holds partial output that the caller must discard. */
int tmpl_render(const tmpl *t, const tmpl_value *data, tmpl_buf *out, FILE *err);

#endif /* STENC_TEMPLATE_H */
