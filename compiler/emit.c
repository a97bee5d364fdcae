/* The emitter: fills the templates of each target with what differs from stencil to stencil.
 *
 * It works in three steps. First it names everything the generated code declares (one C
 * identifier per scalar, field pointer, row pointer, stride, load, let and output value),
 * avoiding C keywords, library names and the templates' own identifiers. Then it prints the
 * body's statements as C in the stencil's precision, with #line directives back to the
 * .stencil file, and builds the data tree the templates read (see docs/templates.md). Last it
 * renders every template into memory and only then writes the files, each to a temporary name
 * renamed into place, so that a failure leaves nothing half-written. */
#include "emit.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "targets.h"
#include "emit_names.h"
#include "template.h"

/* The source tree's templates/, compiled in by compiler/CMakeLists.txt. */
#ifndef STENC_SOURCE_TEMPLATE_DIR
#ifdef STENC_TEMPLATE_BUILD_DIR
#define STENC_SOURCE_TEMPLATE_DIR STENC_TEMPLATE_BUILD_DIR
#else
#define STENC_SOURCE_TEMPLATE_DIR "templates"
#endif
#endif

/* Generated lines longer than this are wrapped where emit.c builds lists. */
enum { WRAP_COLUMN = 100 };

/* Brackets an expression may nest in generated code before a subexpression is taken out into
 * a temporary: clang stops at 256 brackets (-fbracket-depth), and the templates and nested
 * ifs (at most AST_MAX_IF_DEPTH) need their share. */
enum { HOIST_BRACKETS = 32 };

/* The marker a template or the body leaves where line numbering must return to the generated
 * file; replaced after rendering by "#line N \"file\"". */
#define RESUME_MARKER "#line STENC_RESUME"

static char *str_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* ---- names --------------------------------------------------------------------------------- */

/* Every identifier generated code derives from a user's name (a scalar, an array, a let, a
 * reduction) ends in '_': x becomes x_, its row pointer x_row_, its read at offset -1 x_m1_.
 * User names cannot end in '_' or start with '_' or stenc_ (check.c), no identifier of the
 * templates or of the headers they include does (besides stenc_/STENC_/__ ones), so no user
 * name can clash with C, C++, CUDA, a library or the templates, whatever it is. */
typedef struct names {
    char **items;
    size_t count, cap;
} names;

static int names_has(const names *n, const char *s) {
    for (size_t i = 0; i < n->count; i++)
        if (strcmp(n->items[i], s) == 0) return 1;
    return 0;
}

/* Keep `id` (malloc'd) with the names, unchanged: identifiers derived from the stencil's name,
 * which check.c vets instead, and those claim() made. */
static const char *keep_name(names *n, char *id) {
    if (n->count == n->cap) {
        n->cap = n->cap ? 2 * n->cap : 64;
        n->items = realloc(n->items, n->cap * sizeof *n->items);
        if (!n->items) {
            fputs("stenc: out of memory\n", stderr);
            exit(2);
        }
    }
    n->items[n->count++] = id;
    return id;
}

/* Claim the identifier for `base`: base_, or base_2_, base_3_, ... when two derivations meet
 * (the read of x at offset -1 and a user's own x_m1 both want x_m1_). Owned by `n`. */
static const char *claim(names *n, const char *base) {
    tmpl_buf b = {0};
    tmpl_buf_printf(&b, "%s_", base);
    for (int suffix = 2; names_has(n, b.data); suffix++) {
        tmpl_buf_free(&b);
        tmpl_buf_printf(&b, "%s_%d_", base, suffix);
    }
    return keep_name(n, b.data);
}

static void names_free(names *n) {
    for (size_t i = 0; i < n->count; i++)
        free(n->items[i]);
    free(n->items);
}

/* ---- the emitter's state ------------------------------------------------------------------- */

typedef struct emitter {
    const km_kernel *km;
    const emit_options *opt;
    const char *ctype; /* "float" / "double" */
    int is_float;
    names names;
    /* C identifiers, indexed like km->arrays / km->reads / lets by id */
    const char **value_name; /* scalar, centre read of an input, output value */
    const char **data_name, **row_name, **sj_name, **sk_name; /* fields */
    const char **read_name;
    const char **let_name;
    /* colours and reductions (see the section "colours and reductions" below) */
    const char **reduce_name, **reduce_acc, **reduce_out; /* by reduce id */
    const char *kernel_name, *args_name, *desc_name;
    int presumed_line;   /* the line the C compiler believes the next body line has; 0: unknown */
    int bracket;         /* brackets open in the expression being printed */
    tmpl_buf *hoist;     /* declarations of subexpressions taken out of it (see print_expr) */
    int nhoisted;        /* stenc_h<N> temporaries declared so far */
    int line_directives; /* the body being printed has #line directives */
    int uses_real;       /* the body calls stenc_real() (templates define it only then) */
    int failed;          /* an unsupported construct was met */
    FILE *err;
    int calls[AST_FUNC_COUNT]; /* the built-in functions the body calls */
} emitter;

static void emit_error(emitter *e, ast_loc loc, const char *what) {
    fprintf(e->err, "%s:%d:%d: error: %s\n",
            e->opt->source_path ? e->opt->source_path : e->km->name, loc.first_line, loc.first_col,
            what);
    e->failed = 1;
}

static void *xcalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size);
    if (!p) {
        fputs("stenc: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

static int is_centre(const km_offset *o) {
    return o->d[0] == 0 && o->d[1] == 0 && o->d[2] == 0;
}

/* Name everything, user names first so that they keep their spelling when they can. */
static void assign_names(emitter *e) {
    const km_kernel *km = e->km;
    int n = km->narrays;
    e->value_name = xcalloc((size_t)n, sizeof *e->value_name);
    e->data_name = xcalloc((size_t)n, sizeof *e->data_name);
    e->row_name = xcalloc((size_t)n, sizeof *e->row_name);
    e->sj_name = xcalloc((size_t)n, sizeof *e->sj_name);
    e->sk_name = xcalloc((size_t)n, sizeof *e->sk_name);
    e->read_name = xcalloc((size_t)km->nreads, sizeof *e->read_name);
    e->let_name = xcalloc((size_t)e->km->nlets, sizeof *e->let_name);
    e->reduce_name = xcalloc((size_t)km->nreduces, sizeof *e->reduce_name);
    e->reduce_acc = xcalloc((size_t)km->nreduces, sizeof *e->reduce_acc);
    e->reduce_out = xcalloc((size_t)km->nreduces, sizeof *e->reduce_out);

    tmpl_buf b = {0};
    e->kernel_name = keep_name(&e->names, str_printf("%s_c", km->name));
    e->args_name = keep_name(&e->names, str_printf("%s_args", km->name));
    e->desc_name = keep_name(&e->names, str_printf("%s_desc", km->name));

    for (int a = 0; a < n; a++)
        e->value_name[a] = claim(&e->names, km->arrays[a].name);
    for (int a = 0; a < n; a++) {
        if (km->arrays[a].kind == KM_SCALAR) continue;
        const char *base = km->arrays[a].name;
        const char *parts[4] = {"data", "row", "sj", "sk"};
        const char **slots[4] = {&e->data_name[a], &e->row_name[a], &e->sj_name[a], &e->sk_name[a]};
        for (int p = 0; p < 4; p++) {
            tmpl_buf_printf(&b, "%s_%s", base, parts[p]);
            *slots[p] = claim(&e->names, b.data);
            tmpl_buf_free(&b);
        }
    }
    for (int id = 0; id < km->nreduces; id++) {
        const char *name = km->reduces[id].name;
        e->reduce_name[id] = claim(&e->names, name);
        tmpl_buf_printf(&b, "%s_acc", name);
        e->reduce_acc[id] = claim(&e->names, b.data);
        tmpl_buf_free(&b);
        tmpl_buf_printf(&b, "%s_out", name);
        e->reduce_out[id] = claim(&e->names, b.data);
        tmpl_buf_free(&b);
    }
    for (int r = 0; r < km->nreads; r++) {
        const km_read *rd = &km->reads[r];
        if (is_centre(&rd->offset)) {
            e->read_name[r] = e->value_name[rd->array];
            continue;
        }
        tmpl_buf_puts(&b, km->arrays[rd->array].name);
        for (int d = 0; d < km->dims; d++) {
            tmpl_buf_puts(&b, "_");
            emit_offset_suffix(&b, rd->offset.d[d]);
        }
        e->read_name[r] = claim(&e->names, b.data);
        tmpl_buf_free(&b);
    }
}

/* Lets are named when their statement is printed, in source order. */
static const char *let_name(emitter *e, const ast_stmt *let) {
    int id = let->u.let.id;
    if (!e->let_name[id]) e->let_name[id] = claim(&e->names, let->u.let.name);
    return e->let_name[id];
}

/* ---- expressions --------------------------------------------------------------------------- */

/* C precedence levels, low to high. */
enum {
    PREC_TERNARY = 1,
    PREC_OR,
    PREC_AND,
    PREC_EQ,
    PREC_REL,
    PREC_ADD,
    PREC_MUL,
    PREC_UNARY,
    PREC_PRIMARY
};

static int binary_prec(ast_op op) {
    switch (op) {
    case AST_OP_OR:
        return PREC_OR;
    case AST_OP_AND:
        return PREC_AND;
    case AST_OP_EQ:
    case AST_OP_NE:
        return PREC_EQ;
    case AST_OP_LT:
    case AST_OP_LE:
    case AST_OP_GT:
    case AST_OP_GE:
        return PREC_REL;
    case AST_OP_ADD:
    case AST_OP_SUB:
        return PREC_ADD;
    default:
        return PREC_MUL;
    }
}

static int expr_prec(const ast_expr *x) {
    switch (x->kind) {
    case AST_EXPR_TERNARY:
        return PREC_TERNARY;
    case AST_EXPR_BINARY:
        return binary_prec(x->u.binary.op);
    case AST_EXPR_UNARY:
        return PREC_UNARY;
    default:
        return PREC_PRIMARY;
    }
}

static void print_expr(emitter *e, tmpl_buf *b, const ast_expr *x, int min_prec);

static int is_comparison(int prec) {
    return prec == PREC_EQ || prec == PREC_REL;
}

/* The precedence an operand of `op` must have to print without parentheses: C's rules, plus
 * parentheses where gcc's -Wparentheses and -Wlogical-not-parentheses want them (&& inside
 * ||, a comparison inside a comparison, !x compared). */
static int operand_prec(ast_op op, const ast_expr *operand, int min_prec) {
    int op_prec = binary_prec(op), prec = expr_prec(operand);
    if (op == AST_OP_OR && prec == PREC_AND) return PREC_PRIMARY;
    if (is_comparison(op_prec) && (is_comparison(prec) || (operand->kind == AST_EXPR_UNARY &&
                                                           operand->u.unary.op == AST_OP_NOT)))
        return PREC_PRIMARY;
    return min_prec;
}

/* A literal as written, made a floating constant of the stencil's type ("2" -> "2.0f" in a
 * float stencil; an f suffix stays, as in C). One that rounds to zero in its type (the checker
 * warned) is printed as zero, which C compilers would otherwise warn about. */
static void print_number(emitter *e, tmpl_buf *b, const ast_expr *x) {
    const char *text = x->u.number.text;
    int in_float = e->is_float || x->u.number.is_float;
    double value = in_float ? (double)strtof(text, NULL) : strtod(text, NULL);
    const char *digit = strpbrk(text, "123456789");
    if (value == 0 && digit && digit < text + strcspn(text, "eE")) {
        tmpl_buf_puts(b, e->is_float ? "0.0f" : "0.0");
        return;
    }
    /* In a double stencil a suffixed number is a float widened to double (docs/language.md):
     * the cast keeps C from computing `2.f - 0.3f` in float, and C++ (CUDA) from picking the
     * float overload of `exp(0.3f)`. */
    int widen = !e->is_float && x->u.number.is_float;
    if (widen) tmpl_buf_puts(b, "(double)");
    tmpl_buf_puts(b, text);
    if (x->u.number.is_integer) tmpl_buf_puts(b, ".0");
    if (e->is_float && !x->u.number.is_float) tmpl_buf_puts(b, "f");
}

/* An index variable as a value of the stencil's type; outside the stencil's dims a position
 * is 0 and an extent 1. The conversion goes through stenc_real() (each target's templates
 * define it) rather than a cast: gcc 12 folds `0.0f - (float)j` into `-(float)j`, -0 for
 * j = 0 where IEEE arithmetic gives +0, and a call keeps its operand out of that fold. */
static void print_index(emitter *e, tmpl_buf *b, ast_index index) {
    int dim = index % 3;
    int is_extent = index >= AST_INDEX_NI;
    if (dim >= e->km->dims) {
        tmpl_buf_puts(b, is_extent ? "1.0" : "0.0");
        if (e->is_float) tmpl_buf_puts(b, "f");
        return;
    }
    tmpl_buf_printf(b, "stenc_real(%s)", ast_index_name(index));
    e->uses_real = 1;
}

static void print_ref(emitter *e, tmpl_buf *b, const ast_expr *x) {
    switch (x->u.ref.sym) {
    case AST_SYM_SCALAR:
    case AST_SYM_OUTPUT:
        tmpl_buf_puts(b, e->value_name[km_find_array(e->km, x->u.ref.decl->name)]);
        return;
    case AST_SYM_INPUT:
    case AST_SYM_INOUT: /* the centre of an inout is its current value (read_name = value) */
        tmpl_buf_puts(b, e->read_name[km_find_read(e->km, km_find_array(e->km, x->u.ref.name),
                                                   x->u.ref.offset)]);
        return;
    case AST_SYM_LET:
        tmpl_buf_puts(b, let_name(e, x->u.ref.let));
        return;
    case AST_SYM_INDEX:
        print_index(e, b, x->u.ref.index);
        return;
    case AST_SYM_UNRESOLVED:
        break;
    }
    emit_error(e, x->loc, "internal error: an unresolved name reached the emitter");
}

/* Print `x` as a value of type `want`, stating the conversion the language implies: a truth
 * value (BOOL) used as a number is converted to the stencil's type (stenc_real(), as for index
 * variables), and a number used as a truth value is compared with zero. C would convert
 * implicitly, but gcc's -Wint-in-bool-context and CUDA's overloads of sqrt & co. (host-only for
 * int) make the explicit form the portable one. */
static void print_as(emitter *e, tmpl_buf *b, const ast_expr *x, ast_vtype want, int min_prec) {
    if (x->vtype == want) {
        print_expr(e, b, x, min_prec);
        return;
    }
    if (want == AST_VT_REAL) {
        e->uses_real = 1;
        tmpl_buf_puts(b, "stenc_real(");
        e->bracket++;
        print_expr(e, b, x, PREC_TERNARY);
        e->bracket--;
        tmpl_buf_puts(b, ")");
        return;
    }
    int paren = PREC_EQ < min_prec;
    if (paren) tmpl_buf_puts(b, "("), e->bracket++;
    print_expr(e, b, x, PREC_REL);
    tmpl_buf_puts(b, " != 0");
    if (paren) tmpl_buf_puts(b, ")"), e->bracket--;
}

/* Take `x` out of the expression being printed: declare it as the next stenc_h<N> in
 * e->hoist (after whatever its own printing takes out) and print that name instead. The
 * language has no side effects, so evaluating it before the statement changes no result. */
static void hoist_expr(emitter *e, tmpl_buf *b, const ast_expr *x) {
    int open = e->bracket;
    e->bracket = 0;
    tmpl_buf sub = {0};
    print_expr(e, &sub, x, PREC_TERNARY);
    e->bracket = open;
    int id = e->nhoisted++;
    tmpl_buf_printf(e->hoist, "const %s stenc_h%d = %s;\n",
                    x->vtype == AST_VT_BOOL ? "int" : e->ctype, id, tmpl_buf_str(&sub));
    tmpl_buf_free(&sub);
    tmpl_buf_printf(b, "stenc_h%d", id);
}

static void print_expr(emitter *e, tmpl_buf *b, const ast_expr *x, int min_prec) {
    if (e->hoist && e->bracket >= HOIST_BRACKETS && x->kind != AST_EXPR_NUMBER &&
        x->kind != AST_EXPR_REF) {
        hoist_expr(e, b, x);
        return;
    }
    int prec = expr_prec(x);
    int paren = prec < min_prec;
    if (paren) tmpl_buf_puts(b, "("), e->bracket++;
    switch (x->kind) {
    case AST_EXPR_NUMBER:
        print_number(e, b, x);
        break;
    case AST_EXPR_REF:
        print_ref(e, b, x);
        break;
    case AST_EXPR_UNARY: {
        tmpl_buf_puts(b, ast_op_text(x->u.unary.op));
        const ast_expr *operand = x->u.unary.operand;
        /* "- -x" must not become "--x" (a space, not brackets, which nest). */
        if (x->u.unary.op == AST_OP_NEG && operand->kind == AST_EXPR_UNARY &&
            operand->u.unary.op == AST_OP_NEG)
            tmpl_buf_puts(b, " ");
        print_as(e, b, operand, x->u.unary.op == AST_OP_NOT ? AST_VT_BOOL : AST_VT_REAL,
                 PREC_UNARY);
        break;
    }
    case AST_EXPR_BINARY: {
        ast_op op = x->u.binary.op;
        if (op == AST_OP_MOD) {
            emit_error(e, x->loc, "'%' is not supported in expressions");
            break;
        }
        /* && and || take truth values; arithmetic and comparisons take numbers. */
        ast_vtype want = op == AST_OP_AND || op == AST_OP_OR ? AST_VT_BOOL : AST_VT_REAL;
        print_as(e, b, x->u.binary.lhs, want, operand_prec(op, x->u.binary.lhs, prec));
        tmpl_buf_printf(b, " %s ", ast_op_text(op));
        print_as(e, b, x->u.binary.rhs, want, operand_prec(op, x->u.binary.rhs, prec + 1));
        break;
    }
    case AST_EXPR_TERNARY:
        /* A compound condition keeps its parentheses, for the reader. */
        print_as(e, b, x->u.ternary.cond, AST_VT_BOOL, PREC_UNARY);
        tmpl_buf_puts(b, " ? ");
        print_as(e, b, x->u.ternary.then_expr, x->vtype, PREC_TERNARY);
        tmpl_buf_puts(b, " : ");
        print_as(e, b, x->u.ternary.else_expr, x->vtype, PREC_TERNARY);
        break;
    case AST_EXPR_CALL: {
        const ast_func_info *fn = ast_func_get((ast_func)x->u.call.func);
        if (!fn) {
            emit_error(e, x->loc, "internal error: an unchecked call reached the emitter");
            break;
        }
        tmpl_buf_printf(b, "%s%s(", fn->c_name, e->is_float ? "f" : "");
        e->calls[x->u.call.func] = 1;
        e->bracket++;
        for (int a = 0; a < x->u.call.nargs; a++) {
            if (a) tmpl_buf_puts(b, ", ");
            print_as(e, b, x->u.call.args[a], AST_VT_REAL, PREC_TERNARY);
        }
        e->bracket--;
        tmpl_buf_puts(b, ")");
        break;
    }
    }
    if (paren) tmpl_buf_puts(b, ")"), e->bracket--;
}

/* ---- statements ---------------------------------------------------------------------------- */

static void indent(tmpl_buf *b, int depth) {
    for (int d = 0; d < depth; d++)
        tmpl_buf_puts(b, "    ");
}

/* Start a line of the body that comes from source line `line` (0: no source line). */
static void begin_line(emitter *e, tmpl_buf *b, int depth, int line) {
    if (line > 0 && e->line_directives && e->presumed_line != line) {
        tmpl_buf_printf(b, "#line %d \"%s\"\n", line, e->opt->source_path);
        e->presumed_line = line;
    }
    indent(b, depth);
}

static void end_line(emitter *e, tmpl_buf *b) {
    tmpl_buf_puts(b, "\n");
    if (e->presumed_line) e->presumed_line++;
}

static void print_block(emitter *e, tmpl_buf *b, const ast_block *blk, int depth);

/* The expression of a statement from source line `line`, as `want`, into *text; the
 * declarations it takes out (hoist_expr) are written to `b` first, one line each. */
static void print_statement_expr(emitter *e, tmpl_buf *b, tmpl_buf *text, const ast_expr *x,
                                 ast_vtype want, int depth, int line) {
    tmpl_buf pre = {0};
    e->hoist = &pre;
    e->bracket = 0;
    print_as(e, text, x, want, PREC_TERNARY);
    e->hoist = NULL;
    for (const char *p = tmpl_buf_str(&pre); *p;) {
        const char *nl = strchr(p, '\n');
        begin_line(e, b, depth, line);
        tmpl_buf_append(b, p, (size_t)(nl - p));
        end_line(e, b);
        p = nl + 1;
    }
    tmpl_buf_free(&pre);
}

static void print_if(emitter *e, tmpl_buf *b, const ast_stmt *s, int depth, int is_else_if) {
    tmpl_buf cond = {0};
    if (is_else_if) { /* "} else if (": hoisted parts must go into the else block */
        tmpl_buf probe = {0}, pre = {0};
        int named = e->nhoisted;
        e->hoist = &pre;
        e->bracket = 0;
        print_as(e, &probe, s->u.if_.cond, AST_VT_BOOL, PREC_TERNARY);
        e->hoist = NULL;
        e->nhoisted = named;
        int hoisted = pre.len > 0;
        tmpl_buf_free(&probe);
        tmpl_buf_free(&pre);
        if (hoisted) {
            tmpl_buf_puts(b, "{");
            end_line(e, b);
            print_if(e, b, s, depth + 1, 0);
            begin_line(e, b, depth, 0);
            tmpl_buf_puts(b, "}");
            end_line(e, b);
            return;
        }
    }
    print_statement_expr(e, b, &cond, s->u.if_.cond, AST_VT_BOOL, depth, s->loc.first_line);
    if (!is_else_if) begin_line(e, b, depth, s->loc.first_line);
    tmpl_buf_printf(b, "if (%s) {", tmpl_buf_str(&cond));
    tmpl_buf_free(&cond);
    end_line(e, b);
    print_block(e, b, &s->u.if_.then_block, depth + 1);
    const ast_block *other = s->u.if_.else_block;
    if (other) {
        begin_line(e, b, depth, 0);
        tmpl_buf_puts(b, "} else ");
        if (other->nstmts == 1 && other->stmts[0]->kind == AST_STMT_IF) {
            print_if(e, b, other->stmts[0], depth, 1);
            return;
        }
        tmpl_buf_puts(b, "{");
        end_line(e, b);
        print_block(e, b, other, depth + 1);
    }
    begin_line(e, b, depth, 0);
    tmpl_buf_puts(b, "}");
    end_line(e, b);
}

/* `y = y;` (or `u = u;`): the value assigned is the output's or inout's own current value. */
static int is_self_assignment(const ast_stmt *s) {
    const ast_expr *v = s->u.assign.value;
    return v->kind == AST_EXPR_REF && v->u.ref.decl == s->u.assign.decl &&
           (v->u.ref.sym == AST_SYM_OUTPUT ||
            (v->u.ref.sym == AST_SYM_INOUT && v->u.ref.offset[0] == 0 && v->u.ref.offset[1] == 0 &&
             v->u.ref.offset[2] == 0));
}

static void print_stmt(emitter *e, tmpl_buf *b, const ast_stmt *s, int depth) {
    tmpl_buf value = {0};
    int line = s->loc.first_line;
    switch (s->kind) {
    case AST_STMT_LET:
        print_statement_expr(e, b, &value, s->u.let.init, AST_VT_REAL, depth, line);
        begin_line(e, b, depth, line);
        tmpl_buf_printf(b, "const %s %s = %s;", e->ctype, let_name(e, s), tmpl_buf_str(&value));
        /* An unused let (the checker warned) must not fail -Wunused-variable. */
        if (s->u.let.reads == 0) tmpl_buf_printf(b, " (void)%s;", let_name(e, s));
        end_line(e, b);
        break;
    case AST_STMT_ASSIGN:
        if (is_self_assignment(s)) { /* y = y: no change, and clang's -Wself-assign */
            begin_line(e, b, depth, line);
            tmpl_buf_printf(b, "/* %s = %s: unchanged */", s->u.assign.name, s->u.assign.name);
            end_line(e, b);
            break;
        }
        print_statement_expr(e, b, &value, s->u.assign.value, AST_VT_REAL, depth, line);
        begin_line(e, b, depth, line);
        tmpl_buf_printf(b, "%s = %s;", e->value_name[km_find_array(e->km, s->u.assign.decl->name)],
                        tmpl_buf_str(&value));
        end_line(e, b);
        break;
    case AST_STMT_IF:
        print_if(e, b, s, depth, 0);
        break;
    case AST_STMT_COLOR:
        break; /* the loop nest iterates over the launch's colour */
    case AST_STMT_REDUCE:
        /* the value at this point; point.tmpl adds it to the tile's accumulator */
        print_statement_expr(e, b, &value, s->u.reduce.value, AST_VT_REAL, depth, line);
        begin_line(e, b, depth, line);
        tmpl_buf_printf(b, "const %s %s = %s;", e->ctype, e->reduce_name[s->u.reduce.id],
                        tmpl_buf_str(&value));
        end_line(e, b);
        break;
    }
    tmpl_buf_free(&value);
}

static void print_block(emitter *e, tmpl_buf *b, const ast_block *blk, int depth) {
    for (int i = 0; i < blk->nstmts; i++)
        print_stmt(e, b, blk->stmts[i], depth);
}

/* ---- the data tree ------------------------------------------------------------------------- */

/* "x[-1,0,0]" for a read at `o`. */
/* "x[-1,0]", "dx[1]": a read as written, with the offsets of the dimensions the array spans
 * (axes; 0: all). */
static void format_read(tmpl_buf *b, const char *array, unsigned axes, const km_offset *o,
                        int dims) {
    tmpl_buf_printf(b, "%s[", array);
    for (int d = 0, shown = 0; d < dims; d++)
        if (!axes || axes >> d & 1) tmpl_buf_printf(b, "%s%d", shown++ ? "," : "", o->d[d]);
    tmpl_buf_puts(b, "]");
}

static int array_halo(const km_array *a, int dims) {
    int h = 0;
    for (int d = 0; d < dims; d++) {
        if (a->halo_lo[d] > h) h = a->halo_lo[d];
        if (a->halo_hi[d] > h) h = a->halo_hi[d];
    }
    return h;
}

/* A read that needs the array's whole halo, preferring the i direction, then j, then k. */
static void widest_read(tmpl_buf *b, const km_array *a, int dims) {
    int h = array_halo(a, dims);
    if (h == 0) return;
    for (int d = 0; d < dims; d++)
        for (int o = 0; o < a->noffsets; o++)
            if (abs(a->offsets[o].d[d]) == h) {
                format_read(b, a->name, a->axes, &a->offsets[o], dims);
                return;
            }
}

/* "i -1..+1, j -1..+1": the footprint's extent in each dimension it reaches beyond the point. */
static void footprint(tmpl_buf *b, const km_array *a, int dims) {
    static const char axis[3] = {'i', 'j', 'k'};
    int shown = 0;
    for (int d = 0; d < dims; d++) {
        if (!a->halo_lo[d] && !a->halo_hi[d]) continue;
        tmpl_buf_printf(b, "%s%c %d..%+d", shown++ ? ", " : "", axis[d], -a->halo_lo[d],
                        a->halo_hi[d]);
    }
}

/* The load of read r: "x_row[i - 1 + x_sj]"; "dy_row[0 + 1 * dy_sj]"-like for an array that
 * does not span i (its row pointer follows j and k alone, its strides are 0 where it does not
 * span a dimension). */
static void format_load(emitter *e, tmpl_buf *b, const km_read *rd) {
    const unsigned axes = e->km->arrays[rd->array].axes;
    /* an integer input is read as a value of the stencil's type */
    if (e->km->arrays[rd->array].elem != AST_ELEM_REAL) tmpl_buf_printf(b, "(%s)", e->ctype);
    tmpl_buf_printf(b, "%s[%s", e->row_name[rd->array], !axes || axes & 1 ? "i" : "0");
    const int *d = rd->offset.d;
    if (d[0]) tmpl_buf_printf(b, " %c %d", d[0] < 0 ? '-' : '+', abs(d[0]));
    const char *strides[3] = {NULL, e->sj_name[rd->array], e->sk_name[rd->array]};
    for (int dim = 1; dim < e->km->dims; dim++) {
        if (!d[dim]) continue;
        tmpl_buf_printf(b, " %c ", d[dim] < 0 ? '-' : '+');
        if (abs(d[dim]) != 1) tmpl_buf_printf(b, "%d * ", abs(d[dim]));
        tmpl_buf_puts(b, strides[dim]);
    }
    tmpl_buf_puts(b, "]");
}

/* Join items as "a, b, c", breaking lines before WRAP_COLUMN with a hanging indent that lines
 * up with `column` (where the list starts on its first line). */
static void wrap_list(tmpl_buf *b, const char *const *items, int count, int column) {
    int col = column;
    for (int i = 0; i < count; i++) {
        int len = (int)strlen(items[i]);
        if (i) {
            if (col + 2 + len + 3 > WRAP_COLUMN) { /* room for ") {" */
                tmpl_buf_puts(b, ",\n");
                for (int c = 0; c < column; c++)
                    tmpl_buf_puts(b, " ");
                col = column;
            } else {
                tmpl_buf_puts(b, ", ");
                col += 2;
            }
        }
        tmpl_buf_puts(b, items[i]);
        col += len;
    }
}

static char *str_printf(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    va_list copy;
    va_copy(copy, args);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    char *s = xcalloc((size_t)n + 1, 1);
    vsnprintf(s, (size_t)n + 1, fmt, args);
    va_end(args);
    return s;
}

/* Set `key` to a wrapped, comma-separated list of items[0..count), freeing the items. */
static void set_wrapped(tmpl_value *map, const char *key, char **items, int count, int column,
                        const char *open, const char *close) {
    tmpl_buf b = {0};
    tmpl_buf_puts(&b, open);
    wrap_list(&b, (const char *const *)items, count, column);
    tmpl_buf_puts(&b, close);
    tmpl_set_str(map, key, tmpl_buf_str(&b));
    tmpl_buf_free(&b);
    for (int i = 0; i < count; i++)
        free(items[i]);
    free(items);
}

static void set_signatures(emitter *e, tmpl_value *d) {
    const km_kernel *km = e->km;
    int n = km->narrays;
    /* The launcher: ctx, scalars as double, fields in declaration order. */
    int nr = km->nreduces;
    char **params = xcalloc((size_t)n + (size_t)nr + 2, sizeof *params);
    int np = 0;
    params[np++] = str_printf("stenc_ctx *ctx");
    if (km->ncolors) params[np++] = str_printf("int color");
    for (int a = 0; a < n; a++)
        if (km->arrays[a].kind == KM_SCALAR)
            params[np++] = str_printf("double %s", e->value_name[a]);
    for (int a = 0; a < n; a++)
        if (km->arrays[a].kind != KM_SCALAR)
            params[np++] =
                str_printf("%sstenc_field *%s", km->arrays[a].kind == KM_INPUT ? "const " : "",
                           e->value_name[a]);
    for (int r = 0; r < nr; r++)
        params[np++] = str_printf("double *%s", e->reduce_name[r]);
    int column = (int)strlen("stenc_status ") + (int)strlen(km->name) + 1;
    set_wrapped(d, "params", params, np, column, "", "");

    /* The kernel: shape, fields, scalars in the stencil's type. */
    char **kparams = xcalloc((size_t)n + (size_t)nr + 3, sizeof *kparams);
    int nk = 0;
    kparams[nk++] = str_printf("const stenc_launch_shape *shape");
    kparams[nk++] = str_printf("const stenc_launch_field *views");
    if (km->ncolors) kparams[nk++] = str_printf("int color");
    for (int a = 0; a < n; a++)
        if (km->arrays[a].kind == KM_SCALAR)
            kparams[nk++] = str_printf("%s %s", e->ctype, e->value_name[a]);
    for (int r = 0; r < nr; r++)
        kparams[nk++] = str_printf("double *%s", e->reduce_out[r]);
    if (nr) kparams[nk++] = str_printf("double *stenc_terms");
    column =
        (int)strlen(nr ? "static stenc_status " : "static void ") + (int)strlen(e->kernel_name) + 1;
    set_wrapped(d, "kernel_params", kparams, nk, column, "", "");

    /* The kernel call in the launcher, converting scalars. */
    char **call = xcalloc((size_t)n + (size_t)nr + 3, sizeof *call);
    int nc = 0;
    call[nc++] = str_printf("&shape");
    call[nc++] = str_printf("views");
    if (km->ncolors) call[nc++] = str_printf("color");
    for (int a = 0; a < n; a++)
        if (km->arrays[a].kind == KM_SCALAR)
            call[nc++] = str_printf("(%s)%s", e->ctype, e->value_name[a]);
    for (int r = 0; r < nr; r++)
        call[nc++] = str_printf("%s", e->reduce_name[r]);
    if (nr) call[nc++] = str_printf("stenc_terms");
    char *open = str_printf("%s(", e->kernel_name);
    set_wrapped(d, "kernel_call", call, nc, 4 + (int)strlen(open), open, ")");
    free(open);

    /* cuda: the launcher with a variant, the plain launcher's call of it, the scalars. */
    char **vparams = xcalloc((size_t)n + (size_t)nr + 3, sizeof *vparams);
    char **fwd = xcalloc((size_t)n + (size_t)nr + 3, sizeof *fwd);
    char **sinit = xcalloc((size_t)n + 1, sizeof *sinit);
    int nv = 0, nf = 0, ns = 0;
    vparams[nv++] = str_printf("stenc_ctx *ctx");
    vparams[nv++] = str_printf("const char *stenc_variant");
    fwd[nf++] = str_printf("ctx");
    fwd[nf++] = str_printf("NULL");
    if (km->ncolors) {
        vparams[nv++] = str_printf("int color");
        fwd[nf++] = str_printf("color");
    }
    for (int a = 0; a < n; a++)
        if (km->arrays[a].kind == KM_SCALAR) {
            vparams[nv++] = str_printf("double %s", e->value_name[a]);
            fwd[nf++] = str_printf("%s", e->value_name[a]);
            sinit[ns++] = str_printf("%s", e->value_name[a]);
        }
    for (int a = 0; a < n; a++)
        if (km->arrays[a].kind != KM_SCALAR) {
            vparams[nv++] =
                str_printf("%sstenc_field *%s", km->arrays[a].kind == KM_INPUT ? "const " : "",
                           e->value_name[a]);
            fwd[nf++] = str_printf("%s", e->value_name[a]);
        }
    for (int r = 0; r < nr; r++) {
        vparams[nv++] = str_printf("double *%s", e->reduce_name[r]);
        fwd[nf++] = str_printf("%s", e->reduce_name[r]);
    }
    column = (int)strlen("stenc_status ") + (int)strlen(km->name) + (int)strlen("_variant(");
    set_wrapped(d, "variant_params", vparams, nv, column, "", "");
    char *vopen = str_printf("%s_variant(", km->name);
    set_wrapped(d, "variant_call", fwd, nf, 11 + (int)strlen(vopen), vopen, ")");
    free(vopen);
    set_wrapped(d, "scalar_init", sinit, ns, 40, "{", "}");

    /* `step OUT -> IN;`: the stepping launcher's parameters (the launcher's, IN not const,
     * then nsteps and the boundary conditions of IN's halo) and its call of the launcher. */
    tmpl_set_bool(d, "ordered", km->order != 0);
    tmpl_set_fmt(d, "order_forward", "%d", km->order > 0);
    tmpl_set_fmt(d, "wave_j", "%d", km->wave[1]);
    tmpl_set_fmt(d, "wave_k", "%d", km->wave[2]);
    tmpl_set_bool(d, "steps", km->step_in >= 0);
    if (km->step_in >= 0) {
        char **sp = xcalloc((size_t)n + 4, sizeof *sp), **sc = xcalloc((size_t)n + 2, sizeof *sc);
        int nsp = 0, nsc = 0;
        sp[nsp++] = str_printf("stenc_ctx *ctx");
        sc[nsc++] = str_printf("ctx");
        for (int a = 0; a < n; a++)
            if (km->arrays[a].kind == KM_SCALAR) {
                sp[nsp++] = str_printf("double %s", e->value_name[a]);
                sc[nsc++] = str_printf("%s", e->value_name[a]);
            }
        for (int a = 0; a < n; a++)
            if (km->arrays[a].kind != KM_SCALAR) {
                const int constant = km->arrays[a].kind == KM_INPUT && a != km->step_in;
                sp[nsp++] =
                    str_printf("%sstenc_field *%s", constant ? "const " : "", e->value_name[a]);
                sc[nsc++] = str_printf("%s", e->value_name[a]);
            }
        sp[nsp++] = str_printf("long nsteps");
        sp[nsp++] = str_printf("const stenc_bc bc[STENC_FACE_COUNT]");
        column = (int)strlen("stenc_status ") + (int)strlen(km->name) + (int)strlen("_steps(");
        set_wrapped(d, "steps_params", sp, nsp, column, "", "");
        char *sopen = str_printf("%s(", km->name);
        set_wrapped(d, "steps_call", sc, nsc, 41 + (int)strlen(sopen), sopen, ")");
        free(sopen);
        tmpl_set_str(d, "step_in", e->value_name[km->step_in]);
        tmpl_set_str(d, "step_out", e->value_name[km->step_out]);
        tmpl_set_str(d, "step_in_decl", km->arrays[km->step_in].name);
        tmpl_set_str(d, "step_out_decl", km->arrays[km->step_out].name);
    }

    /* The fields array in the launcher. */
    char **init = xcalloc((size_t)n + 1, sizeof *init);
    int ni = 0;
    for (int a = 0; a < n; a++)
        if (km->arrays[a].kind != KM_SCALAR) init[ni++] = str_printf("%s", e->value_name[a]);
    char count[16];
    snprintf(count, sizeof count, "%d", ni);
    column = (int)strlen("    const stenc_field *const fields[] = {") + (int)strlen(count);
    set_wrapped(d, "fields_init", init, ni, column, "{", "}");
}

static void upper_case(tmpl_buf *b, const char *s) {
    for (; *s; s++) {
        char c = (char)toupper((unsigned char)*s);
        tmpl_buf_append(b, &c, 1);
    }
}

/* ---- colours and reductions (C target) ----------------------------------------------------- */

/* The keys of templates/c/row.tmpl and the reduction parts of stencil_c.c.tmpl:
 *   colored, ncolors, period_i/j/k, color_rows (the period box as C rows, one per (j, k)
 *   residue), color_row (the row of the box for the current j, k), row_begin / row_end (the
 *   i range of one row), row_first (the first i of residue stenc_r in it), reduces (local, acc,
 *   out, op, decl), nreduces, ntiles and tile_index (the fixed tiles of the summation order). */
static void set_colors_and_reductions(emitter *e, tmpl_value *d) {
    const km_kernel *km = e->km;
    const int *p = km->color_period;
    tmpl_set_bool(d, "colored", km->ncolors > 0);
    tmpl_set_fmt(d, "ncolors", "%d", km->ncolors);
    tmpl_set_fmt(d, "period_i", "%d", km->ncolors ? p[0] : 1);
    tmpl_set_fmt(d, "period_j", "%d", km->ncolors ? p[1] : 1);
    tmpl_set_fmt(d, "period_k", "%d", km->ncolors ? p[2] : 1);
    tmpl_value *rows = tmpl_set_list(d, "color_rows");
    for (int r = 0; km->ncolors && r < p[1] * p[2]; r++) {
        tmpl_buf b = {0};
        for (int i = 0; i < p[0]; i++)
            tmpl_buf_printf(&b, "%s%d", i ? ", " : "", km->color_table[i + p[0] * r]);
        tmpl_value *row = tmpl_append_map(rows);
        tmpl_set_str(row, "cells", tmpl_buf_str(&b));
        tmpl_set_fmt(row, "rj", "%d", r % p[1]);
        tmpl_set_fmt(row, "rk", "%d", r / p[1]);
        tmpl_buf_free(&b);
    }
    static const char *const ops[] = {"sum", "sum", "max", "min"};
    static const char *const OPS[] = {"SUM", "SUM", "MAX", "MIN"};
    tmpl_value *reduces = tmpl_set_list(d, "reduces");
    /* For stenc_launch_reduce_finish: 's' (sum), 'x' (max) or 'n' (min) per reduction. */
    char *reduce_ops = xcalloc((size_t)km->nreduces + 1, 1);
    for (int id = 0; id < km->nreduces; id++) {
        const km_reduce *rd = &km->reduces[id];
        tmpl_value *r = tmpl_append_map(reduces);
        tmpl_set_str(r, "decl", rd->name);
        tmpl_set_str(r, "op", ops[rd->op]);
        tmpl_set_str(r, "OP", OPS[rd->op]);
        tmpl_set_bool(r, "is_sum", rd->op == AST_REDUCE_SUM);
        tmpl_set_str(r, "local", e->reduce_name[id]);
        tmpl_set_str(r, "acc", e->reduce_acc[id]);
        tmpl_set_str(r, "out", e->reduce_out[id]);
        tmpl_set_fmt(r, "index", "%d", id);
        reduce_ops[id] = "ssxn"[rd->op];
    }
    tmpl_set_str(d, "reduce_ops", reduce_ops);
    free(reduce_ops);
    tmpl_set_fmt(d, "nreduces", "%d", km->nreduces);
}

static tmpl_value *build_data(emitter *e) {
    const km_kernel *km = e->km;
    tmpl_value *d = tmpl_new_map();
    tmpl_set_str(d, "name", km->name);
    tmpl_buf up = {0};
    upper_case(&up, km->name);
    tmpl_set_str(d, "NAME", tmpl_buf_str(&up));
    tmpl_set_fmt(d, "guard", "STENC_GENERATED_%s_H", tmpl_buf_str(&up));
    tmpl_buf_free(&up);
    tmpl_set_str(d, "version", STENC_VERSION);
    tmpl_set_str(d, "source", e->opt->source_path ? e->opt->source_path : "(unnamed)");
    tmpl_set_fmt(d, "dims", "%d", km->dims);
    tmpl_set_bool(d, "dims1", km->dims == 1);
    tmpl_set_bool(d, "dims2", km->dims == 2);
    tmpl_set_bool(d, "dims3", km->dims == 3);
    tmpl_set_str(d, "type", e->ctype);
    tmpl_set_str(d, "stenc_type", e->is_float ? "STENC_F32" : "STENC_F64");
    tmpl_set_bool(d, "line_directives", e->opt->line_directives && e->opt->source_path);
    /* The selected targets: the launch table's bits, the device targets the launcher
     * dispatches to, and each target's tunables. */
    tmpl_buf bits = {0};
    tmpl_value *devices = tmpl_set_list(d, "device_targets");
    for (int t = 0; t < emit_ntargets; t++) {
        const emit_target_desc *target = &emit_targets[t];
        if (!(e->opt->targets & emit_target_bit(target))) continue;
        tmpl_buf_printf(&bits, "%s%s", bits.len ? " | " : "", target->launch_bit);
        if (target->device) {
            tmpl_value *dv = tmpl_append_map(devices);
            tmpl_set_str(dv, "target", target->name);
            tmpl_set_str(dv, "device", target->device);
        }
        for (const emit_param *p = target->params; p && p->key; p++)
            tmpl_set_str(d, p->key, p->value);
    }
    tmpl_set_str(d, "targets", tmpl_buf_str(&bits));
    tmpl_buf_free(&bits);
    int halo = 0;
    for (int dim = 0; dim < km->dims; dim++) {
        if (km->halo_lo[dim] > halo) halo = km->halo_lo[dim];
        if (km->halo_hi[dim] > halo) halo = km->halo_hi[dim];
    }
    tmpl_set_fmt(d, "halo", "%d", halo);
    tmpl_set_fmt(d, "flops", "%ld", km->flops);
    tmpl_set_fmt(d, "bytes", "%ld", km->bytes);
    tmpl_set_fmt(d, "intensity", "%.2f", km->intensity);
    tmpl_set_str(d, "kernel", e->kernel_name);
    tmpl_set_str(d, "args_table", e->args_name);
    tmpl_set_str(d, "desc", e->desc_name);

    tmpl_value *scalars = tmpl_set_list(d, "scalars");
    tmpl_value *fields = tmpl_set_list(d, "fields");
    tmpl_value *inputs = tmpl_set_list(d, "inputs");
    tmpl_value *outputs = tmpl_set_list(d, "outputs");
    tmpl_value *inouts = tmpl_set_list(d, "inouts");
    int nfields = 0, views_used = 0;
    for (int a = 0; a < km->narrays; a++) {
        const km_array *arr = &km->arrays[a];
        if (arr->kind == KM_SCALAR) {
            tmpl_value *s = tmpl_append_map(scalars);
            tmpl_set_str(s, "name", e->value_name[a]);
            tmpl_set_str(s, "decl", arr->name);
            tmpl_set_bool(s, "used", arr->reads > 0);
            continue;
        }
        tmpl_value *f = tmpl_append_map(fields);
        tmpl_set_str(f, "decl", arr->name);
        tmpl_set_str(f, "name", e->value_name[a]);
        tmpl_set_fmt(f, "index", "%d", nfields++);
        tmpl_set_bool(f, "is_input", arr->kind == KM_INPUT);
        tmpl_set_str(f, "arg_kind",
                     arr->kind == KM_INPUT   ? "STENC_ARG_INPUT"
                     : arr->kind == KM_INOUT ? "STENC_ARG_INOUT"
                                             : "STENC_ARG_OUTPUT");
        tmpl_set_bool(f, "used", arr->kind != KM_INPUT || arr->noffsets > 0);
        views_used |= arr->kind != KM_INPUT || arr->noffsets > 0;
        tmpl_set_str(f, "data", e->data_name[a]);
        tmpl_set_str(f, "row", e->row_name[a]);
        tmpl_set_str(f, "sj", e->sj_name[a]);
        tmpl_set_str(f, "sk", e->sk_name[a]);
        /* Lower-dimensional inputs: the dimensions they span, for the launch check; rows of
         * one without i are single elements, not aligned rows. */
        tmpl_set_bool(f, "lower", arr->axes != 0);
        tmpl_set_fmt(f, "axes", "%uu", arr->axes);
        /* Integer inputs: their own element type, and the launch check's. */
        if (arr->elem != AST_ELEM_REAL)
            tmpl_set_str(f, "type", arr->elem == AST_ELEM_I32 ? "int32_t" : "uint8_t");
        tmpl_set_str(f, "int_type",
                     arr->elem == AST_ELEM_I32  ? "STENC_I32"
                     : arr->elem == AST_ELEM_U8 ? "STENC_U8"
                                                : "0");
        tmpl_set_bool(f, "aligned", arr->axes == 0 || (arr->axes & 1));
        int reads_at_offsets = arr->kind == KM_INPUT || arr->kind == KM_INOUT;
        tmpl_set_fmt(f, "halo", "%d", reads_at_offsets ? array_halo(arr, km->dims) : 0);
        tmpl_buf b = {0};
        if (reads_at_offsets) widest_read(&b, arr, km->dims);
        tmpl_set_str(f, "widest_read", tmpl_buf_str(&b));
        tmpl_buf_free(&b);
        if (arr->kind == KM_INOUT) {
            tmpl_value *io = tmpl_append_map(inouts);
            tmpl_set_str(io, "decl", arr->name);
            tmpl_set_str(io, "local", e->value_name[a]);
            tmpl_set_str(io, "row", e->row_name[a]);
        }
        if (reads_at_offsets) {
            tmpl_value *in = tmpl_append_map(inputs);
            tmpl_set_str(in, "decl", arr->name);
            tmpl_set_str(in, "kind", arr->kind == KM_INOUT ? " (inout)" : "");
            tmpl_set_fmt(in, "noffsets", "%d", arr->noffsets);
            tmpl_set_fmt(in, "halo", "%d", array_halo(arr, km->dims));
            if (arr->noffsets) footprint(&b, arr, km->dims);
            tmpl_set_str(in, "footprint", tmpl_buf_str(&b));
            tmpl_buf_free(&b);
        } else if (arr->kind == KM_OUTPUT) {
            tmpl_value *out = tmpl_append_map(outputs);
            tmpl_set_str(out, "decl", arr->name);
            tmpl_set_str(out, "local", e->value_name[a]);
            tmpl_set_str(out, "row", e->row_name[a]);
        }
    }
    tmpl_set_fmt(d, "nfields", "%d", nfields);
    tmpl_set_bool(d, "views_used", views_used);

    tmpl_value *reads = tmpl_set_list(d, "reads");
    for (int r = 0; r < km->nreads; r++) {
        /* an inout's centre is its current value, declared by point.tmpl from `inouts` */
        if (km->arrays[km->reads[r].array].kind == KM_INOUT && is_centre(&km->reads[r].offset))
            continue;
        tmpl_value *rv = tmpl_append_map(reads);
        tmpl_buf b = {0};
        tmpl_set_str(rv, "local", e->read_name[r]);
        format_read(&b, km->arrays[km->reads[r].array].name, km->arrays[km->reads[r].array].axes,
                    &km->reads[r].offset, km->dims);
        tmpl_set_str(rv, "read", tmpl_buf_str(&b));
        tmpl_buf_free(&b);
        format_load(e, &b, &km->reads[r]);
        tmpl_set_str(rv, "load", tmpl_buf_str(&b));
        tmpl_buf_free(&b);
    }

    /* The body twice: with #line directives when they are on (`body`), and without, for code
     * that a program builds from a string at run time (`body_plain`). */
    for (int plain = 0; plain < 2; plain++) {
        tmpl_buf body = {0};
        const int lines = !plain && e->opt->line_directives && e->opt->source_path;
        e->presumed_line = 0;
        e->line_directives = lines;
        e->nhoisted = 0;
        print_block(e, &body, e->km->body, 0);
        if (lines) tmpl_buf_puts(&body, RESUME_MARKER "\n");
        /* The body's last newline belongs to the template line holding {{body}}. */
        if (body.len && body.data[body.len - 1] == '\n') body.data[--body.len] = '\0';
        tmpl_set_str(d, plain ? "body_plain" : "body", tmpl_buf_str(&body));
        tmpl_buf_free(&body);
    }
    tmpl_set_bool(d, "uses_real", e->uses_real);
    /* The built-in functions called, as the body names them (`sqrtf` in float) and as the
     * language does (`sqrt`). */
    tmpl_value *calls = tmpl_set_list(d, "calls");
    for (int f = 0; f < AST_FUNC_COUNT; f++) {
        if (!e->calls[f]) continue;
        const ast_func_info *fn = ast_func_get((ast_func)f);
        tmpl_value *cv = tmpl_append_map(calls);
        tmpl_set_fmt(cv, "c_name", "%s%s", fn->c_name, e->is_float ? "f" : "");
        tmpl_set_str(cv, "base", fn->c_name);
    }

    set_signatures(e, d);
    set_colors_and_reductions(e, d);
    /* Each target: a flag of its name, and the data of its own templates (targets.c). */
    const emit_symbols sym = {(const char *const *)e->read_name, (const char *const *)e->value_name,
                              (const char *const *)e->reduce_name,
                              (const char *const *)e->reduce_acc};
    for (int t = 0; t < emit_ntargets; t++) {
        const int selected = (e->opt->targets & emit_target_bit(&emit_targets[t])) != 0;
        tmpl_set_bool(d, emit_targets[t].name, selected);
        if (selected && emit_targets[t].add_data) emit_targets[t].add_data(km, &sym, d);
    }
    return d;
}

/* ---- rendering and writing ----------------------------------------------------------------- */

/* Replace each RESUME_MARKER line by a #line directive naming the generated file again. */
static void resume_lines(tmpl_buf *text, const char *file_name) {
    tmpl_buf out = {0};
    int line = 1;
    const char *p = tmpl_buf_str(text);
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, RESUME_MARKER, strlen(RESUME_MARKER)) == 0)
            tmpl_buf_printf(&out, "#line %d \"%s\"\n", line + 1, file_name);
        else
            tmpl_buf_append(&out, p, n);
        p += n;
        line++;
    }
    tmpl_buf_free(text);
    *text = out;
}

/* Render template `rel` (relative to the template root) with `data` into `out`. */
static int render_file(emitter *e, const char *rel, const tmpl_value *data, tmpl_buf *out) {
    tmpl_buf path = {0};
    tmpl_buf_printf(&path, "%s/%s", e->opt->template_dir, rel);
    tmpl *t = tmpl_load(path.data, e->err);
    tmpl_buf_free(&path);
    if (!t) return 1;
    int rc = tmpl_render(t, data, out, e->err);
    tmpl_destroy(t);
    return rc;
}

/* The files of the selected targets, in table order: index 0, 1, ...; NULL past the last. */
static const emit_output *selected_output(unsigned targets, int index) {
    int seen = 0;
    for (int t = 0; t < emit_ntargets; t++) {
        if (!(targets & emit_target_bit(&emit_targets[t]))) continue;
        for (int f = 0; f < emit_targets[t].noutputs; f++)
            if (seen++ == index) return &emit_targets[t].outputs[f];
    }
    return NULL;
}

int emit_output_name(const char *name, unsigned targets, int index, char *buf, size_t size) {
    const emit_output *out = selected_output(targets, index);
    if (out) snprintf(buf, size, "%s%s", name, out->suffix);
    return out != NULL;
}

/* Write `text` to a temporary file of a short name of its own in the output directory (a name
 * built from `path` could exceed the 255-byte limit of a file name), then rename it to `path`
 * with the permissions an ordinary file gets. */
static int write_file(emitter *e, const char *path, const tmpl_buf *text) {
    tmpl_buf tmp = {0};
    tmpl_buf_printf(&tmp, "%s/.stenc-XXXXXX", e->opt->out_dir);
    int fd = mkstemp(tmp.data);
    mode_t mask = umask(0);
    umask(mask);
    if (fd >= 0 && fchmod(fd, 0666 & ~mask) != 0) {
        close(fd);
        remove(tmp.data);
        fd = -1;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (fd >= 0 && !f) close(fd);
    int ok = f != NULL;
    if (ok) ok = fwrite(tmpl_buf_str(text), 1, text->len, f) == text->len;
    if (f && fclose(f) != 0) ok = 0;
    if (ok && rename(tmp.data, path) != 0) ok = 0;
    if (!ok) {
        fprintf(e->err, "%s: error: cannot write: %s\n", path, strerror(errno));
        if (fd >= 0) remove(tmp.data);
    }
    tmpl_buf_free(&tmp);
    return !ok;
}

/* The tuned targets' digest, a key of the tuning cache: FNV-1a 64 of their files rendered with
 * an empty digest. It covers the stencil as compiled, its variant table and the templates, so
 * a stencil of the same name in another project, or an edited one, never reuses timings. */
static int set_digest(emitter *e, tmpl_value *data) {
    tmpl_set_str(data, "digest", "");
    uint64_t h = 14695981039346656037u;
    int rc = 0, tuned = 0;
    for (int t = 0; t < emit_ntargets && !rc; t++) {
        if (!(e->opt->targets & emit_target_bit(&emit_targets[t])) || !emit_targets[t].tuned)
            continue;
        tuned = 1;
        for (int f = 0; f < emit_targets[t].noutputs && !rc; f++) {
            tmpl_buf text = {0}, name = {0};
            rc = render_file(e, emit_targets[t].outputs[f].template_name, data, &text);
            tmpl_buf_printf(&name, "%s%s", e->km->name, emit_targets[t].outputs[f].suffix);
            resume_lines(&text, name.data); /* as the file is written */
            tmpl_buf_free(&name);
            for (size_t i = 0; i < text.len; i++)
                h = (h ^ (unsigned char)text.data[i]) * 1099511628211u;
            tmpl_buf_free(&text);
        }
    }
    if (tuned) tmpl_set_fmt(data, "digest", "%016" PRIx64, h);
    return rc;
}

enum { OUTPUT_FILES = 16 }; /* at most, over all targets */

static int emit_files(emitter *e, tmpl_value *data) {
    if (set_digest(e, data)) return 1;

    tmpl_buf texts[OUTPUT_FILES] = {{0}};
    char *paths[OUTPUT_FILES] = {0};
    int rc = 0;
    for (int f = 0; f < OUTPUT_FILES && !rc; f++) {
        const emit_output *out = selected_output(e->opt->targets, f);
        if (!out) break;
        rc = render_file(e, out->template_name, data, &texts[f]);
        const char *file_name = e->km->name;
        tmpl_buf name = {0};
        tmpl_buf_printf(&name, "%s%s", file_name, out->suffix);
        resume_lines(&texts[f], name.data);
        paths[f] = str_printf("%s/%s", e->opt->out_dir, name.data);
        tmpl_buf_free(&name);
    }
    /* Write only once every file rendered; remove what was written if a later write fails. */
    for (int f = 0; f < OUTPUT_FILES && !rc; f++) {
        if (!paths[f]) continue;
        if (write_file(e, paths[f], &texts[f])) {
            for (int g = 0; g < f; g++)
                if (paths[g]) remove(paths[g]);
            rc = 1;
        }
    }
    for (int f = 0; f < OUTPUT_FILES; f++) {
        tmpl_buf_free(&texts[f]);
        free(paths[f]);
    }
    return rc;
}

int emit_stencil(const km_kernel *km, const emit_options *opt, FILE *err) {
    for (int t = 0; t < emit_ntargets; t++) {
        const unsigned needs = emit_target_closure(&emit_targets[t]);
        if ((opt->targets & emit_target_bit(&emit_targets[t])) && (opt->targets & needs) != needs) {
            fprintf(err, "stenc: error: the %s target needs the %s target (%s), stencil '%s'\n",
                    emit_targets[t].name, emit_targets[t].needs, emit_targets[t].needs_why,
                    km->name);
            return 1;
        }
    }
    if (!opt->targets) {
        fprintf(err, "stenc: error: no target selected for stencil '%s'\n", km->name);
        return 1;
    }
    emitter e = {.km = km, .opt = opt, .err = err};
    e.is_float = km->type == AST_TYPE_FLOAT;
    e.ctype = e.is_float ? "float" : "double";
    assign_names(&e);
    tmpl_value *data = build_data(&e);
    int rc = e.failed ? 1 : emit_files(&e, data);
    tmpl_free(data);
    names_free(&e.names);
    free(e.value_name);
    free(e.data_name);
    free(e.row_name);
    free(e.sj_name);
    free(e.sk_name);
    free(e.read_name);
    free(e.let_name);
    free(e.reduce_name);
    free(e.reduce_acc);
    free(e.reduce_out);
    return rc;
}

/* ---- the template root --------------------------------------------------------------------- */

static int is_dir(const char *path) {
    struct stat s;
    return stat(path, &s) == 0 && S_ISDIR(s.st_mode);
}

const char *emit_default_template_dir(const char *argv0) {
    static char found[4096];
    const char *env = getenv("STENC_TEMPLATE_DIR");
    if (env && *env) return env;
    /* Next to the running executable: /proc/self/exe, else argv[0] when it names a path. */
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        argv0 = exe;
    }
    if (argv0) {
        const char *slash = strrchr(argv0, '/');
        if (slash) {
            snprintf(found, sizeof found, "%.*s/../share/stenc/templates", (int)(slash - argv0),
                     argv0);
            if (is_dir(found)) return found;
        }
    }
    return STENC_SOURCE_TEMPLATE_DIR;
}
