/* syn: a target language's syntax as named one-line templates ("forms"), read from a file of
 * the target's templates (templates/c/syntax.tmpl). The emitter walks a stencil's statements
 * and expressions and renders every piece of code text through a form, so that the compiler
 * holds the structure (precedence, parentheses, hoisting, #line bookkeeping) and the
 * templates hold the text.
 *
 * The file: blank lines, comment lines ({{! ... }} alone on a line), and forms
 *     NAME: TEMPLATE
 * where TEMPLATE is the rest of the line, in the template language of template.h. */
#ifndef STENC_SYNTAX_H
#define STENC_SYNTAX_H

#include <stdarg.h>
#include <stdio.h>

#include "template.h"

typedef struct syn_forms syn_forms;

/* Read the forms of `path`; every name of `required` (NULL-terminated) must be there. NULL
 * after a message on `err` ("path:line: error: ..."). */
syn_forms *syn_load(const char *path, const char *const *required, FILE *err);
void syn_free(syn_forms *forms);

/* 1 when the forms have one called `name`. */
int syn_has(const syn_forms *forms, const char *name);

/* Append form `name` rendered with `data` to `out`. Nonzero after a message on `err`. */
int syn_render(const syn_forms *forms, const char *name, const tmpl_value *data, tmpl_buf *out,
               FILE *err);

/* The same with string values: key, value, key, value, ..., NULL. A flag is "1" or "". */
int syn_say(const syn_forms *forms, tmpl_buf *out, FILE *err, const char *name, ...);
int syn_vsay(const syn_forms *forms, tmpl_buf *out, FILE *err, const char *name, va_list pairs);

#endif /* STENC_SYNTAX_H */
