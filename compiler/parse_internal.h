/* What the scanner and the grammar share: the parser's state. Not used outside parsing. */
#ifndef STENC_COMPILER_PARSE_INTERNAL_H
#define STENC_COMPILER_PARSE_INTERNAL_H

#include "ast.h"
#include "diag.h"

typedef struct parse_state {
    ast_file *file;
    ast_arena *arena;
    diag *d;
    int line, col;     /* position of the next byte the scanner reads */
    ast_loc tok;       /* the token returned last (the parser's lookahead) */
    ast_loc prev_tok;  /* the token before it */
    int tok_kind;      /* 0 none, 1 identifier, 2 number, 3 other, 4 end of file */
    char tok_text[48]; /* the text of `tok`, shortened */
    int prev_tok_kind; /* the same for `prev_tok` */
    char prev_tok_text[48];
    int tok_starts_item; /* `tok` follows ';', '{', '}' or nothing: it starts an item */
    int prev_starts_item;
    ast_loc comment_loc; /* where the open block comment started */
    ast_stencil *cur;    /* the stencil being parsed */
    int depth_reported;  /* the nesting limit was reported */
    int bad_pending;     /* the scanner reported a bad character since the last token */
    int bad_before_tok;  /* ... just before `tok`: a syntax error there is a consequence */
    int eof_in_comment;  /* the file ended inside a comment (reported once) */
} parse_state;

#endif /* STENC_COMPILER_PARSE_INTERNAL_H */
