/* The parser: .stencil text to an ast_file (flex scanner lexer.l, bison grammar parser.y,
 * both reentrant). */
#ifndef STENC_COMPILER_PARSE_H
#define STENC_COMPILER_PARSE_H

#include <stddef.h>

#include "ast.h"
#include "diag.h"

/* Parse `len` bytes of `text` (NUL bytes allowed) into a new file named `path`. Syntax errors
 * go to `d`, and the parser recovers to report as many as it can; stencils it could not parse
 * cleanly have has_error set. Always returns a file; free it with ast_file_free(). */
ast_file *parse_source(const char *path, const char *text, size_t len, diag *d);

#endif /* STENC_COMPILER_PARSE_H */
