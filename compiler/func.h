/* func: the file's functions, `func NAME(a, b) = EXPR;`. Their definitions are checked once
 * per file (names, parameters, what the expression may see, recursion), and each call in a
 * stencil's body is replaced by the function's expression with the arguments in place of the
 * parameters, before the stencil is checked: the rest of the compiler never sees a call of
 * the file's functions. */
#ifndef STENC_COMPILER_FUNC_H
#define STENC_COMPILER_FUNC_H

#include "ast.h"
#include "diag.h"

/* Check every definition of `file`; a bad one is marked (its calls become 0, silently). */
void func_check_defs(ast_file *file, diag *d);

/* Inline the calls of the file's functions in `st`'s body, and list them in st->inlined. */
void func_inline(ast_file *file, ast_stencil *st, diag *d);

/* Warn about functions that no stencil calls. After every stencil was inlined. */
void func_warn_unused(const ast_file *file, diag *d);

#endif /* STENC_COMPILER_FUNC_H */
