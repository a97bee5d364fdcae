/* The grammar of .stencil files. Actions build the AST in the file's arena; declarations of
 * dims and type are validated here, everything about names and offsets in check.c.
 *
 *   file     := (stencil | func)*
 *   func     := 'func' NAME '(' [NAME (',' NAME)*] ')' '=' expr ';'
 *   stencil  := 'stencil' NAME '{' item* '}'
 *   item     := 'dims' NUMBER ';' | 'type' NAME ';'
 *             | ('scalar'|'input'|'output'|'inout') NAME (',' NAME)* ';'
 *             | 'color' expr ';' | 'reduce' NAME NAME '=' expr ';'
 *             | 'step' NAME '->' NAME ';' | stmt
 *   stmt     := 'let' NAME '=' expr ';' | NAME ['[' exprs ']'] '=' expr ';'
 *             | 'if' '(' expr ')' block ['else' (block | if)]
 *   block    := '{' stmt* '}'
 *   expr     := ternary, || && (== !=) (< <= > >=) (+ -) (* / %) unary(- + !), primary
 *   primary  := NUMBER | NAME | NAME '[' exprs ']' | NAME '(' [exprs] ')' | '(' expr ')'
 */
%define api.pure full
%define parse.error custom
%locations
%define api.location.type {ast_loc}
%lex-param {yyscan_t scanner}
%parse-param {yyscan_t scanner} {parse_state *ps}

%code requires {
#include "ast.h"
typedef void *yyscan_t;
typedef struct parse_state parse_state;
/* A list under construction (names, offsets, arguments, statements). */
typedef struct parse_list {
    void **items;
    int n;
} parse_list;
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                                              \
    do {                                                                                         \
        if (N) {                                                                                 \
            (Cur).first_line = YYRHSLOC(Rhs, 1).first_line;                                      \
            (Cur).first_col = YYRHSLOC(Rhs, 1).first_col;                                        \
            (Cur).last_line = YYRHSLOC(Rhs, N).last_line;                                        \
            (Cur).last_col = YYRHSLOC(Rhs, N).last_col;                                          \
        } else {                                                                                 \
            (Cur).first_line = (Cur).last_line = YYRHSLOC(Rhs, 0).last_line;                     \
            (Cur).first_col = YYRHSLOC(Rhs, 0).last_col + 1;                                     \
            (Cur).last_col = YYRHSLOC(Rhs, 0).last_col;                                          \
        }                                                                                        \
    } while (0)
}

%code {
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "parse_internal.h"

int yylex(YYSTYPE *lval, YYLTYPE *lloc, yyscan_t scanner);
static void yyerror(YYLTYPE *loc, yyscan_t scanner, parse_state *ps, const char *msg);

static ast_expr *mk_number(parse_state *ps, char *text, ast_loc loc);
static ast_expr *mk_ref(parse_state *ps, char *name, parse_list *offsets, ast_loc loc);
static ast_expr *mk_unary(parse_state *ps, ast_op op, ast_expr *e, ast_loc loc);
static ast_expr *mk_binary(parse_state *ps, ast_op op, ast_expr *l, ast_expr *r, ast_loc loc);
static ast_expr *mk_ternary(parse_state *ps, ast_expr *c, ast_expr *a, ast_expr *b,
                            ast_loc loc);
static ast_expr *mk_call(parse_state *ps, char *name, ast_loc name_loc, parse_list *args,
                         ast_loc loc);
static ast_stmt *mk_stmt(parse_state *ps, ast_stmt_kind kind, ast_loc loc);
static ast_block *mk_block(parse_state *ps, parse_list *stmts, ast_loc loc);
static parse_list *list_add(parse_state *ps, parse_list *list, void *item);
static void begin_stencil(parse_state *ps, char *name, ast_loc loc);
static void end_stencil(parse_state *ps, ast_loc loc, int ok);
static void set_dims(parse_state *ps, const char *text, ast_loc loc);
static void set_type(parse_state *ps, const char *name, ast_loc loc);
static void add_decls(parse_state *ps, ast_decl_kind kind, parse_list *names);
static void add_elem(parse_state *ps, const char *name, ast_loc loc, parse_list *names);
static void elem_not_input(parse_state *ps, const char *what, const char *name, ast_loc loc);
static void add_stmt(parse_state *ps, ast_stmt *s);
static void note_depth(parse_state *ps, int depth, ast_loc loc);
static void add_func(parse_state *ps, char *name, ast_loc loc, parse_list *params,
                     ast_expr *body);
static void set_step(parse_state *ps, char *out, ast_loc out_loc, char *in, ast_loc in_loc);
static void set_order(parse_state *ps, const char *word, ast_loc word_loc, const char *how,
                      ast_loc how_loc);
static void add_solve(parse_state *ps, char *name, ast_loc name_loc, const char *along,
                      ast_loc along_loc, char *dim, ast_loc dim_loc, ast_block *coefs,
                      ast_loc loc);
}

%union {
    char *str;
    ast_expr *expr;
    ast_stmt *stmt;
    ast_block *block;
    parse_list *list;
    ast_decl *decl;
}

%token <str> IDENT "identifier"
%token <str> NUMBER "number"
%token STENCIL "'stencil'" DIMS "'dims'" TYPE "'type'" SCALAR "'scalar'" INPUT "'input'"
%token OUTPUT "'output'" INOUT "'inout'" LET "'let'" IF "'if'" ELSE "'else'"
%token COLOR "'color'" REDUCE "'reduce'" FUNC "'func'" STEP "'step'" ARROW "'->'"
%token SOLVE "'solve'"
%token LE "'<='" GE "'>='" EQ "'=='" NE "'!='" AND "'&&'" OR "'||'"

%type <expr> expr
%type <stmt> stmt if_stmt
%type <block> block else_part
%type <list> names axes decl_names exprs args stmts params
%type <decl> axis
%type <decl> decl_name

%right '?' ':'
%left OR
%left AND
%left EQ NE
%left '<' '>' LE GE
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

%%

file
    : %empty
    | file stencil
    | file funcdef
    ;

funcdef
    : FUNC IDENT '(' params ')' '=' expr ';' { add_func(ps, $2, @2, $4, $7); }
    | FUNC error ';'
    ;

params
    : %empty                 { $$ = NULL; }
    | names                  { $$ = $1; }
    ;

stencil
    : stencil_head items '}'        { end_stencil(ps, @3, 1); }
    | stencil_head items error '}'  { end_stencil(ps, @4, 0); }
    | error '}'                     { end_stencil(ps, @2, 0); }
    ;

stencil_head
    : STENCIL IDENT '{'             { begin_stencil(ps, $2, @2); }
    ;

items
    : %empty
    | items item
    ;

item
    : DIMS NUMBER ';'        { set_dims(ps, $2, @2); }
    | TYPE IDENT ';'         { set_type(ps, $2, @2); }
    | SCALAR names ';'       { add_decls(ps, AST_DECL_SCALAR, $2); }
    | INPUT decl_names ';'   { add_decls(ps, AST_DECL_INPUT, $2); }
    | INPUT IDENT decl_names ';' { add_elem(ps, $2, @2, $3); add_decls(ps, AST_DECL_INPUT, $3); }
    | OUTPUT decl_names ';'  { add_decls(ps, AST_DECL_OUTPUT, $2); }
    | OUTPUT IDENT decl_names ';' {
          elem_not_input(ps, "an output", $2, @2);
          add_decls(ps, AST_DECL_OUTPUT, $3);
      }
    | INOUT decl_names ';'   { add_decls(ps, AST_DECL_INOUT, $2); }
    | INOUT IDENT decl_names ';' {
          elem_not_input(ps, "an inout", $2, @2);
          add_decls(ps, AST_DECL_INOUT, $3);
      }
    | COLOR expr ';'         {
          ast_stmt *s = mk_stmt(ps, AST_STMT_COLOR, @$);
          s->u.color.expr = $2;
          add_stmt(ps, s);
      }
    | REDUCE IDENT IDENT '=' expr ';' {
          ast_stmt *s = mk_stmt(ps, AST_STMT_REDUCE, @$);
          s->u.reduce.op = $2;
          s->u.reduce.op_loc = @2;
          s->u.reduce.name = $3;
          s->u.reduce.name_loc = @3;
          s->u.reduce.value = $5;
          add_stmt(ps, s);
      }
    | STEP IDENT ARROW IDENT ';' { set_step(ps, $2, @2, $4, @4); }
    | IDENT IDENT ';'        { set_order(ps, $1, @1, $2, @2); }
    | SOLVE IDENT IDENT IDENT block { add_solve(ps, $2, @2, $3, @3, $4, @4, $5, @$); }
    | stmt                   { add_stmt(ps, $1); }
    ;

decl_names
    : decl_name                  { $$ = list_add(ps, NULL, $1); }
    | decl_names ',' decl_name   { $$ = list_add(ps, $1, $3); }
    ;

decl_name
    : IDENT                  {
          ast_decl *d = ast_alloc(ps->arena, sizeof *d);
          d->name = $1;
          d->loc = @1;
          $$ = d;
      }
    | IDENT '[' axes ']'     {
          ast_decl *d = ast_alloc(ps->arena, sizeof *d);
          d->name = $1;
          d->loc = @1;
          d->axis_list = (const ast_decl *const *)$3->items;
          d->naxes = $3->n;
          d->axes_loc = @2;
          d->axes_loc.last_line = @4.last_line;
          d->axes_loc.last_col = @4.last_col;
          $$ = d;
      }
    ;

/* `input dx[i];`, `output fx[i+1, j];`: the dimensions an array spans, each with its extent's
 * offset against the launch's reference grid (check.c). */
axes
    : axis                   { $$ = list_add(ps, NULL, $1); }
    | axes ',' axis          { $$ = list_add(ps, $1, $3); }
    ;

axis
    : IDENT                  {
          ast_decl *d = ast_alloc(ps->arena, sizeof *d);
          d->name = $1;
          d->loc = @1;
          $$ = d;
      }
    | IDENT '+' NUMBER       {
          ast_decl *d = ast_alloc(ps->arena, sizeof *d);
          d->name = $1;
          d->loc = @1;
          d->stagger_text = $3;
          d->stagger_sign = 1;
          d->stagger_loc = @2;
          d->stagger_loc.last_line = @3.last_line;
          d->stagger_loc.last_col = @3.last_col;
          $$ = d;
      }
    | IDENT '-' NUMBER       {
          ast_decl *d = ast_alloc(ps->arena, sizeof *d);
          d->name = $1;
          d->loc = @1;
          d->stagger_text = $3;
          d->stagger_sign = -1;
          d->stagger_loc = @2;
          d->stagger_loc.last_line = @3.last_line;
          d->stagger_loc.last_col = @3.last_col;
          $$ = d;
      }
    ;

names
    : IDENT                  {
          ast_decl *d = ast_alloc(ps->arena, sizeof *d);
          d->name = $1;
          d->loc = @1;
          $$ = list_add(ps, NULL, d);
      }
    | names ',' IDENT        {
          ast_decl *d = ast_alloc(ps->arena, sizeof *d);
          d->name = $3;
          d->loc = @3;
          $$ = list_add(ps, $1, d);
      }
    ;

stmt
    : LET IDENT '=' expr ';' {
          $$ = mk_stmt(ps, AST_STMT_LET, @$);
          $$->u.let.name = $2;
          $$->u.let.name_loc = @2;
          $$->u.let.init = $4;
          $$->depth = $4->depth + 1;
      }
    | IDENT '=' expr ';'     {
          $$ = mk_stmt(ps, AST_STMT_ASSIGN, @$);
          $$->u.assign.name = $1;
          $$->u.assign.name_loc = @1;
          $$->u.assign.value = $3;
          $$->depth = $3->depth + 1;
      }
    | IDENT '[' exprs ']' '=' expr ';' {
          $$ = mk_stmt(ps, AST_STMT_ASSIGN, @$);
          $$->u.assign.name = $1;
          $$->u.assign.name_loc = @1;
          $$->u.assign.offset_exprs = (ast_expr **)$3->items;
          $$->u.assign.noffsets = $3->n;
          $$->u.assign.value = $6;
          $$->depth = $6->depth + 1;
      }
    | if_stmt                { $$ = $1; }
    | error ';'              { $$ = NULL; }
    ;

if_stmt
    : IF '(' expr ')' block else_part {
          $$ = mk_stmt(ps, AST_STMT_IF, @$);
          $$->u.if_.cond = $3;
          $$->u.if_.then_block = *$5;
          $$->u.if_.else_block = $6;
          int depth = $3->depth;
          for (int n = 0; n < $5->nstmts; n++)
              if ($5->stmts[n]->depth > depth) depth = $5->stmts[n]->depth;
          for (int n = 0; $6 && n < $6->nstmts; n++)
              if ($6->stmts[n]->depth > depth) depth = $6->stmts[n]->depth;
          $$->depth = depth + 1;
          note_depth(ps, $$->depth, @1);
      }
    ;

else_part
    : %empty                 { $$ = NULL; }
    | ELSE block             { $$ = $2; }
    | ELSE if_stmt           { $$ = mk_block(ps, list_add(ps, NULL, $2), @2); }
    ;

block
    : '{' stmts '}'          { $$ = mk_block(ps, $2, @$); }
    | '{' stmts error '}'    { $$ = mk_block(ps, $2, @$); }
    ;

stmts
    : %empty                 { $$ = NULL; }
    | stmts stmt             { $$ = $2 ? list_add(ps, $1, $2) : $1; }
    ;

expr
    : NUMBER                 { $$ = mk_number(ps, $1, @1); }
    | IDENT                  { $$ = mk_ref(ps, $1, NULL, @1); }
    | IDENT '[' exprs ']'    { $$ = mk_ref(ps, $1, $3, @$); }
    | IDENT '(' args ')'     { $$ = mk_call(ps, $1, @1, $3, @$); }
    | '(' expr ')'           { $$ = $2; }
    | '-' expr %prec UNARY   { $$ = mk_unary(ps, AST_OP_NEG, $2, @$); }
    | '+' expr %prec UNARY   { $$ = $2; $$->loc = @$; }
    | '!' expr %prec UNARY   { $$ = mk_unary(ps, AST_OP_NOT, $2, @$); }
    | expr '+' expr          { $$ = mk_binary(ps, AST_OP_ADD, $1, $3, @$); }
    | expr '-' expr          { $$ = mk_binary(ps, AST_OP_SUB, $1, $3, @$); }
    | expr '*' expr          { $$ = mk_binary(ps, AST_OP_MUL, $1, $3, @$); }
    | expr '/' expr          { $$ = mk_binary(ps, AST_OP_DIV, $1, $3, @$); }
    | expr '%' expr          { $$ = mk_binary(ps, AST_OP_MOD, $1, $3, @$); }
    | expr '<' expr          { $$ = mk_binary(ps, AST_OP_LT, $1, $3, @$); }
    | expr LE expr           { $$ = mk_binary(ps, AST_OP_LE, $1, $3, @$); }
    | expr '>' expr          { $$ = mk_binary(ps, AST_OP_GT, $1, $3, @$); }
    | expr GE expr           { $$ = mk_binary(ps, AST_OP_GE, $1, $3, @$); }
    | expr EQ expr           { $$ = mk_binary(ps, AST_OP_EQ, $1, $3, @$); }
    | expr NE expr           { $$ = mk_binary(ps, AST_OP_NE, $1, $3, @$); }
    | expr AND expr          { $$ = mk_binary(ps, AST_OP_AND, $1, $3, @$); }
    | expr OR expr           { $$ = mk_binary(ps, AST_OP_OR, $1, $3, @$); }
    | expr '?' expr ':' expr { $$ = mk_ternary(ps, $1, $3, $5, @$); }
    ;

exprs
    : expr                   { $$ = list_add(ps, NULL, $1); }
    | exprs ',' expr         { $$ = list_add(ps, $1, $3); }
    ;

args
    : %empty                 { $$ = NULL; }
    | exprs                  { $$ = $1; }
    ;

%%

#include "lexer.h"

/* ---- syntax errors ----------------------------------------------------------------------- */

/* A token kind as users read it: 'stencil', ';', identifier, end of file. */
static void symbol_text(yysymbol_kind_t kind, char *buf, size_t size) {
    const char *name = yysymbol_name(kind);
    if (kind == YYSYMBOL_YYEOF) name = "end of file";
    size_t n = strlen(name);
    if (n >= 2 && name[0] == '"' && name[n - 1] == '"') { /* bison quotes aliases */
        name++;
        n -= 2;
    }
    snprintf(buf, size, "%.*s", (int)n, name);
}

static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, parse_state *ps) {
    (void)scanner;
    enum { MAX_EXPECTED = 5 };
    yysymbol_kind_t expected[MAX_EXPECTED];
    int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
    yysymbol_kind_t la = yypcontext_token(ctx);
    ast_loc loc = *yypcontext_location(ctx);
    if (ps->cur) ps->cur->has_error = 1; /* its later errors may be consequences */
    if (la == YYSYMBOL_YYEOF && ps->eof_in_comment) return 0; /* already reported */
    if (ps->bad_before_tok) return 0; /* the scanner just reported the real problem */
    /* A misspelt keyword: where a keyword was expected (`stencl s {`), or an identifier that
     * starts an item and is followed by a name or number (`inpt u;`, `dim 3;`). */
    static const char *const keywords[] = {"stencil", "dims",  "type", "scalar",
                                           "input",   "output", "inout", "let",
                                           "if",      "else",  "color", "reduce",
                                           "func",    "step",   "solve"};
    enum { NKEYWORDS = sizeof keywords / sizeof keywords[0] };
    if (la == YYSYMBOL_IDENT && ps->tok_starts_item) {
        const char *close = diag_closest(ps->tok_text, keywords, NKEYWORDS);
        if (close && yypcontext_expected_tokens(ctx, NULL, 0) >= 0) {
            int expected_keyword = 0;
            yysymbol_kind_t exp[YYNTOKENS];
            int nexp = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
            for (int e = 0; e < nexp; e++) {
                char want[64];
                snprintf(want, sizeof want, "'%s'", close);
                if (strcmp(yysymbol_name(exp[e]), want) == 0) expected_keyword = 1;
            }
            if (expected_keyword) {
                diag_error(ps->d, loc, "unknown keyword '%s'; did you mean '%s'?", ps->tok_text,
                           close);
                return 0;
            }
        }
    }
    if ((la == YYSYMBOL_IDENT || la == YYSYMBOL_NUMBER) && ps->prev_tok_kind == 1 &&
        ps->prev_starts_item) {
        const char *close = diag_closest(ps->prev_tok_text, keywords, NKEYWORDS);
        if (close) {
            diag_error(ps->d, ps->prev_tok, "unknown keyword '%s'; did you mean '%s'?",
                       ps->prev_tok_text, close);
            return 0;
        }
    }
    /* Look at every expected token, not only the few that are listed in the message. */
    yysymbol_kind_t all[YYNTOKENS];
    int nall = yypcontext_expected_tokens(ctx, all, YYNTOKENS);
    int wants_semicolon = 0, wants_expr = 0;
    const char *closer = NULL; /* a missing ')', ']' or '}' */
    for (int e = 0; e < nall; e++) {
        const char *name = yysymbol_name(all[e]);
        if (strcmp(name, "';'") == 0) wants_semicolon = 1;
        if (all[e] == YYSYMBOL_NUMBER) wants_expr = 1;
        if (!closer && (strcmp(name, "')'") == 0 || strcmp(name, "']'") == 0 ||
                        strcmp(name, "'}'") == 0))
            closer = name;
    }
    /* A missing ';' at the end of a line is reported where it belongs, after the last token. */
    if (wants_semicolon && ps->prev_tok.last_line > 0 &&
        (la == YYSYMBOL_YYEOF || loc.first_line > ps->prev_tok.last_line)) {
        ast_loc at = {ps->prev_tok.last_line, ps->prev_tok.last_col + 1,
                      ps->prev_tok.last_line, ps->prev_tok.last_col + 1};
        diag_error(ps->d, at, "expected ';' at the end of the statement");
        return 0;
    }
    char found[96];
    if (la == YYSYMBOL_YYEOF)
        snprintf(found, sizeof found, "end of file");
    else if (ps->tok_kind == 1)
        snprintf(found, sizeof found, "identifier '%s'", ps->tok_text);
    else if (ps->tok_kind == 2)
        snprintf(found, sizeof found, "number '%s'", ps->tok_text);
    else
        snprintf(found, sizeof found, "'%s'", ps->tok_text);
    if (la == YYSYMBOL_SCALAR || la == YYSYMBOL_INPUT || la == YYSYMBOL_OUTPUT ||
        la == YYSYMBOL_INOUT || la == YYSYMBOL_DIMS || la == YYSYMBOL_TYPE) {
        diag_error(ps->d, loc, "%s must be declared at the top level of the stencil, not inside "
                   "a statement or a block", found);
        return 0;
    }
    if (wants_expr) {
        diag_error(ps->d, loc, "expected an expression before %s", found);
        return 0;
    }
    int la_ends = la == YYSYMBOL_YYEOF || strcmp(yysymbol_name(la), "';'") == 0 ||
                  strcmp(yysymbol_name(la), "','") == 0;
    if (closer && la_ends) {
        diag_error(ps->d, loc, "expected %s before %s", closer, found);
        return 0;
    }
    if (n <= 0) {
        diag_error(ps->d, loc, "unexpected %s", found);
        return 0;
    }
    char list[256] = "";
    size_t used = 0;
    for (int e = 0; e < n && used < sizeof list; e++) {
        char sym[64];
        symbol_text(expected[e], sym, sizeof sym);
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                 e == 0 ? "" : e == n - 1 ? " or " : ", ", sym);
    }
    diag_error(ps->d, loc, "expected %s before %s", list, found);
    return 0;
}

/* Bison's own errors: only "memory exhausted", when the nesting overflows its stack. */
static void yyerror(YYLTYPE *loc, yyscan_t scanner, parse_state *ps, const char *msg) {
    (void)scanner;
    diag_error(ps->d, *loc, "%s: the input is nested too deeply", msg);
}

/* ---- building the tree ------------------------------------------------------------------- */

static void note_depth(parse_state *ps, int depth, ast_loc loc) {
    if (depth > AST_MAX_DEPTH && !ps->depth_reported) {
        ps->depth_reported = 1;
        diag_error(ps->d, loc, "nested too deeply (more than %d levels)", AST_MAX_DEPTH);
    }
    if (depth > AST_MAX_DEPTH && ps->cur) ps->cur->has_error = 1;
}

static ast_expr *mk_expr(parse_state *ps, ast_expr_kind kind, ast_loc loc, int depth) {
    ast_expr *e = ast_alloc(ps->arena, sizeof *e);
    e->kind = kind;
    e->loc = loc;
    e->depth = depth;
    note_depth(ps, depth, loc);
    return e;
}

static int max_depth(ast_expr **items, int n) {
    int depth = 0;
    for (int k = 0; k < n; k++)
        if (items[k]->depth > depth) depth = items[k]->depth;
    return depth;
}

/* A literal's value: any finite double, subnormals included (strtod reports their underflow
 * with ERANGE too); with an f suffix the float nearest the decimal, as C reads 0.1f. Whether it
 * fits the stencil's type is the checker's question, once --precision is known. */
static ast_expr *mk_number(parse_state *ps, char *text, ast_loc loc) {
    ast_expr *e = mk_expr(ps, AST_EXPR_NUMBER, loc, 1);
    size_t len = strlen(text);
    int is_float = len > 1 && (text[len - 1] == 'f' || text[len - 1] == 'F');
    double v;
    if (is_float) {
        float f = strtof(text, NULL);
        v = isfinite(f) ? (double)f : HUGE_VAL;
    } else {
        v = strtod(text, NULL);
    }
    if (!isfinite(v)) {
        diag_error(ps->d, loc, "number '%.40s' is out of range for a %s", text,
                   is_float ? "float" : "double");
        v = 0;
    }
    int is_integer = strpbrk(text, ".eE") == NULL;
    if (is_integer) /* "007" -> "7": C would read a leading 0 as octal */
        while (text[0] == '0' && text[1] != '\0') text++;
    e->u.number.value = v;
    e->u.number.text = text;
    e->u.number.is_integer = is_integer;
    e->u.number.is_float = is_float;
    return e;
}

static ast_expr *mk_ref(parse_state *ps, char *name, parse_list *offsets, ast_loc loc) {
    ast_expr **items = offsets ? (ast_expr **)offsets->items : NULL;
    int n = offsets ? offsets->n : 0;
    ast_expr *e = mk_expr(ps, AST_EXPR_REF, loc, 1 + max_depth(items, n));
    e->u.ref.name = name;
    e->u.ref.offset_exprs = items;
    e->u.ref.noffsets = n;
    return e;
}

static ast_expr *mk_unary(parse_state *ps, ast_op op, ast_expr *operand, ast_loc loc) {
    ast_expr *e = mk_expr(ps, AST_EXPR_UNARY, loc, operand->depth + 1);
    e->u.unary.op = op;
    e->u.unary.operand = operand;
    return e;
}

static ast_expr *mk_binary(parse_state *ps, ast_op op, ast_expr *l, ast_expr *r, ast_loc loc) {
    int depth = (l->depth > r->depth ? l->depth : r->depth) + 1;
    ast_expr *e = mk_expr(ps, AST_EXPR_BINARY, loc, depth);
    e->u.binary.op = op;
    e->u.binary.lhs = l;
    e->u.binary.rhs = r;
    return e;
}

static ast_expr *mk_ternary(parse_state *ps, ast_expr *c, ast_expr *a, ast_expr *b,
                            ast_loc loc) {
    ast_expr *parts[3] = {c, a, b};
    ast_expr *e = mk_expr(ps, AST_EXPR_TERNARY, loc, max_depth(parts, 3) + 1);
    e->u.ternary.cond = c;
    e->u.ternary.then_expr = a;
    e->u.ternary.else_expr = b;
    return e;
}

static ast_expr *mk_call(parse_state *ps, char *name, ast_loc name_loc, parse_list *args,
                         ast_loc loc) {
    ast_expr **items = args ? (ast_expr **)args->items : NULL;
    int n = args ? args->n : 0;
    ast_expr *e = mk_expr(ps, AST_EXPR_CALL, loc, 1 + max_depth(items, n));
    e->u.call.name = name;
    e->u.call.name_loc = name_loc;
    e->u.call.args = items;
    e->u.call.nargs = n;
    e->u.call.func = -1;
    return e;
}

static ast_stmt *mk_stmt(parse_state *ps, ast_stmt_kind kind, ast_loc loc) {
    ast_stmt *s = ast_alloc(ps->arena, sizeof *s);
    s->kind = kind;
    s->loc = loc;
    s->depth = 1;
    return s;
}

static ast_block *mk_block(parse_state *ps, parse_list *stmts, ast_loc loc) {
    ast_block *b = ast_alloc(ps->arena, sizeof *b);
    if (stmts) {
        b->stmts = (ast_stmt **)stmts->items;
        b->nstmts = stmts->n;
    }
    b->loc = loc;
    return b;
}

static parse_list *list_add(parse_state *ps, parse_list *list, void *item) {
    if (!list) list = ast_alloc(ps->arena, sizeof *list);
    ast_push(ps->arena, &list->items, &list->n, item);
    return list;
}

/* Items outside any stencil (after a syntax error in a header) go to a scratch stencil that
 * is never kept. */
static ast_stencil *current(parse_state *ps) {
    if (!ps->cur) {
        ps->cur = ast_alloc(ps->arena, sizeof *ps->cur);
        ps->cur->name = "";
        ps->cur->has_error = 1;
    }
    return ps->cur;
}

static void begin_stencil(parse_state *ps, char *name, ast_loc loc) {
    ast_stencil *st = ast_alloc(ps->arena, sizeof *st);
    st->name = name;
    st->loc = loc;
    st->body.loc = loc;
    ps->cur = st;
    ps->depth_reported = 0;
}

static void end_stencil(parse_state *ps, ast_loc loc, int ok) {
    ast_stencil *st = ps->cur;
    ps->cur = NULL;
    if (!st || st->name[0] == '\0') return;
    st->end_loc = loc;
    st->body.loc.last_line = loc.last_line;
    st->body.loc.last_col = loc.last_col;
    if (!ok) st->has_error = 1;
    ast_push(ps->arena, (void ***)&ps->file->stencils, &ps->file->nstencils, st);
}

static void add_func(parse_state *ps, char *name, ast_loc loc, parse_list *params,
                     ast_expr *body) {
    ast_funcdef *f = ast_alloc(ps->arena, sizeof *f);
    f->name = name;
    f->loc = loc;
    f->nparams = params ? params->n : 0;
    f->params = ast_alloc(ps->arena, sizeof *f->params * (size_t)(f->nparams + 1));
    f->param_locs = ast_alloc(ps->arena, sizeof *f->param_locs * (size_t)(f->nparams + 1));
    for (int p = 0; p < f->nparams; p++) {
        const ast_decl *d = params->items[p];
        f->params[p] = d->name;
        f->param_locs[p] = d->loc;
    }
    f->body = body;
    note_depth(ps, body->depth, loc);
    ast_push(ps->arena, (void ***)&ps->file->funcs, &ps->file->nfuncs, f);
}

static void set_step(parse_state *ps, char *out, ast_loc out_loc, char *in, ast_loc in_loc) {
    ast_stencil *st = current(ps);
    if (st->step_out) {
        diag_error(ps->d, out_loc, "'step' is declared twice in stencil '%s' (first at %d:%d)",
                   st->name, st->step_out_loc.first_line, st->step_out_loc.first_col);
        return;
    }
    st->step_out = out, st->step_out_loc = out_loc;
    st->step_in = in, st->step_in_loc = in_loc;
}

static void set_dims(parse_state *ps, const char *text, ast_loc loc) {
    ast_stencil *st = current(ps);
    if (st->dims_loc.first_line) {
        diag_error(ps->d, loc, "'dims' is declared twice in stencil '%s' (first at %d:%d)",
                   st->name, st->dims_loc.first_line, st->dims_loc.first_col);
        return;
    }
    st->dims_loc = loc;
    if (strcmp(text, "1") == 0 || strcmp(text, "2") == 0 || strcmp(text, "3") == 0) {
        st->dims = text[0] - '0';
    } else {
        diag_error(ps->d, loc, "'dims' must be 1, 2 or 3, not '%.40s'", text);
        st->dims = -1; /* declared but invalid: no further "missing dims" error */
    }
}

static void set_type(parse_state *ps, const char *name, ast_loc loc) {
    ast_stencil *st = current(ps);
    if (st->type_loc.first_line) {
        diag_error(ps->d, loc, "'type' is declared twice in stencil '%s' (first at %d:%d)",
                   st->name, st->type_loc.first_line, st->type_loc.first_col);
        return;
    }
    st->type_loc = loc;
    if (strcmp(name, "float") == 0) {
        st->type = AST_TYPE_FLOAT;
    } else if (strcmp(name, "double") == 0) {
        st->type = AST_TYPE_DOUBLE;
    } else {
        diag_error(ps->d, loc, "unknown type '%s': the type is 'float' or 'double'", name);
        st->type = AST_TYPE_NONE;
    }
}

/* `order forward;` / `order backward;`: a word that is not a keyword, so that `order` stays
 * free as a name. */
static void set_order(parse_state *ps, const char *word, ast_loc word_loc, const char *how,
                      ast_loc how_loc) {
    ast_stencil *st = current(ps);
    if (strcmp(word, "order") != 0) {
        /* `inpt u;`: a misspelt keyword, most likely */
        static const char *const words[] = {"dims",  "type",  "scalar", "input", "output",
                                            "inout", "color", "reduce", "step",  "order",  "solve"};
        const char *close = diag_closest(word, words, (int)(sizeof words / sizeof words[0]));
        if (close && strcmp(close, "order") != 0)
            diag_error(ps->d, word_loc, "unknown keyword '%s'; did you mean '%s'?", word, close);
        else
            diag_error(ps->d, word_loc,
                       "'%.40s %.40s;' is no declaration or statement (did you mean 'order "
                       "forward;'?)",
                       word, how);
        return;
    }
    if (st->order) {
        diag_error(ps->d, word_loc, "'order' is declared twice in stencil '%s' (first at %d:%d)",
                   st->name, st->order_loc.first_line, st->order_loc.first_col);
        return;
    }
    st->order_loc = word_loc;
    if (strcmp(how, "forward") == 0)
        st->order = 1;
    else if (strcmp(how, "backward") == 0)
        st->order = -1;
    else
        diag_error(ps->d, how_loc, "unknown order '%.40s': 'forward' or 'backward'", how);
}

/* `input int32 a, b;`: the element type of every input the statement declares. */
static void add_elem(parse_state *ps, const char *name, ast_loc loc, parse_list *names) {
    ast_elem elem = AST_ELEM_REAL;
    if (strcmp(name, "int32") == 0)
        elem = AST_ELEM_I32;
    else if (strcmp(name, "uint8") == 0)
        elem = AST_ELEM_U8;
    else
        diag_error(ps->d, loc,
                   "unknown element type '%.40s' of an input: 'int32' or 'uint8' (without one, "
                   "the stencil's type)",
                   name);
    for (int n = 0; n < names->n; n++) {
        ast_decl *d = names->items[n];
        d->elem = elem;
        d->elem_loc = loc;
    }
}

/* `output int32 y;`: outputs and inouts hold the stencil's type. */
static void elem_not_input(parse_state *ps, const char *what, const char *name, ast_loc loc) {
    diag_error(ps->d, loc,
               "'%.40s' before the names of %s: only inputs take an element type (outputs and "
               "inouts hold the stencil's type)",
               name, what);
}

static void add_decls(parse_state *ps, ast_decl_kind kind, parse_list *names) {
    ast_stencil *st = current(ps);
    for (int n = 0; n < names->n; n++) {
        ast_decl *d = names->items[n];
        d->kind = kind;
        d->position = 0;
        for (int k = 0; k < st->ndecls; k++)
            if (st->decls[k]->kind == kind) d->position++;
        ast_push(ps->arena, (void ***)&st->decls, &st->ndecls, d);
    }
}

/* `solve v along i { lower = ...; diag = ...; upper = ...; rhs = ...; }`: kept aside with the
 * number of statements before it; the checker validates it and lowers it (check.c). */
static void add_solve(parse_state *ps, char *name, ast_loc name_loc, const char *along,
                      ast_loc along_loc, char *dim, ast_loc dim_loc, ast_block *coefs,
                      ast_loc loc) {
    ast_stencil *st = current(ps);
    if (strcmp(along, "along") != 0) {
        diag_error(ps->d, along_loc, "'solve %.40s %.40s': expected 'along' and a dimension (i, j or k)",
                   name, along);
        st->has_error = 1;
        return;
    }
    if (st->solve) {
        diag_error(ps->d, loc, "stencil '%s' has a second 'solve' (the first is at %d:%d): one line solve per stencil",
                   st->name, st->solve->loc.first_line, st->solve->loc.first_col);
        return;
    }
    ast_solve *sv = ast_alloc(ps->arena, sizeof *sv);
    sv->name = name, sv->name_loc = name_loc;
    sv->along = dim, sv->along_loc = dim_loc;
    sv->coefs = *coefs;
    sv->loc = loc;
    sv->before = st->body.nstmts;
    for (int n = 0; n < coefs->nstmts; n++)
        note_depth(ps, coefs->stmts[n]->depth, coefs->stmts[n]->loc);
    st->solve = sv;
}

static void add_stmt(parse_state *ps, ast_stmt *s) {
    if (!s) return;
    ast_stencil *st = current(ps);
    note_depth(ps, s->depth, s->loc);
    ast_push(ps->arena, (void ***)&st->body.stmts, &st->body.nstmts, s);
}

ast_file *parse_source(const char *path, const char *text, size_t len, diag *d) {
    ast_arena *arena = ast_arena_create();
    ast_file *file = ast_alloc(arena, sizeof *file);
    file->arena = arena;
    file->path = ast_strndup(arena, path, strlen(path));
    parse_state ps = {.file = file, .arena = arena, .d = d, .line = 1, .col = 1};
    yyscan_t scanner;
    if (yylex_init_extra(&ps, &scanner) != 0) {
        fputs("stenc: out of memory\n", stderr);
        abort();
    }
    /* yy_scan_bytes copies the text, so NUL bytes in it are just unexpected characters. */
    YY_BUFFER_STATE buf = yy_scan_bytes(text, (int)(len > INT32_MAX ? INT32_MAX : len), scanner);
    if (yyparse(scanner, &ps) != 0 && d->errors == 0)
        diag_error(d, ps.tok, "the parser stopped"); /* not reached: every error is reported */
    yy_delete_buffer(buf, scanner);
    yylex_destroy(scanner);
    /* A stencil cut off by the end of the file still counts as having an error. */
    if (ps.cur && ps.cur->name[0]) {
        ps.cur->has_error = 1;
        ast_push(arena, (void ***)&file->stencils, &file->nstencils, ps.cur);
    }
    return file;
}
