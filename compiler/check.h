/* The checker: resolves every name of a parsed file, folds offsets to constants, and reports
 * what a stencil must not do (see docs/language.md, "Errors"). Fills the AST's "checker"
 * fields. */
#ifndef STENC_COMPILER_CHECK_H
#define STENC_COMPILER_CHECK_H

#include "ast.h"
#include "diag.h"

/* Check every stencil of `file`; diagnostics go to `d`. Stencils with a syntax error
 * (has_error) are checked too, so that their other errors are found, but must not be
 * analysed. Returns the number of errors this call reported. */
int check_file(ast_file *file, diag *d);
/* The same for code generated in `precision` (the --precision override; AST_TYPE_NONE: each
 * stencil's own type), which decides whether literals fit. */
int check_file_as(ast_file *file, diag *d, ast_type precision);

/* Why `name` may not name a declaration, a let or a reduction, or NULL when it may: keywords
 * of the language, built-in functions, index variables, and the spellings generated code
 * reserves (a leading '_', stenc_ or STENC_, a trailing '_', '__'). Every other name is
 * mangled (NAME_) in generated code, so C, C++, CUDA and library names are allowed. */
const char *check_name_reserved(const char *name);
/* 1 when check_name_reserved(name) gives a reason. */
int check_reserved_name(const char *name);

/* Why `name` may not name a stencil, or NULL when it may. A stencil's name is not mangled: it
 * becomes the launcher function, derived identifiers (NAME_variant, NAME_HALO, ...) and file
 * names, so it must avoid, besides the reserved spellings above, C, C++ and CUDA keywords, the
 * identifiers declared by the headers that generated code includes, and the names of those
 * headers. The reason is valid until the next call. */
const char *check_stencil_name_conflict(const char *name);

/* Stencils that cannot be built together (one stenc run): names[later] claims an identifier or
 * a file name that names[first] claims too (stencils a and a_variant; Heat and heat), other
 * than by being the same name. report() is called once per clash, first < later. */
typedef void (*check_clash_fn)(void *ctx, int first, int later, const char *what);
void check_stencil_clashes(const char *const *names, int n, check_clash_fn report, void *ctx);

#endif /* STENC_COMPILER_CHECK_H */
