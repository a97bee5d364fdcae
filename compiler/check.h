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

/* 1 when `name` may not name a declaration or a let: keywords, built-in functions, index
 * variables, C keywords, and names that generated code reserves (stenc_*, leading '_'). */
int check_reserved_name(const char *name);

#endif /* STENC_COMPILER_CHECK_H */
