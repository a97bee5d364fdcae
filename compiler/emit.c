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
#include "divide.h"
#include "emit_names.h"
#include "syntax.h"
#include "template.h"

/* The source tree's templates/, compiled in by compiler/CMakeLists.txt. */
#ifndef STENC_SOURCE_TEMPLATE_DIR
#ifdef STENC_TEMPLATE_BUILD_DIR
#define STENC_SOURCE_TEMPLATE_DIR STENC_TEMPLATE_BUILD_DIR
#else
#define STENC_SOURCE_TEMPLATE_DIR "templates"
#endif
#endif

/* Brackets an expression may nest in generated code before a subexpression is taken out into
 * a temporary: clang stops at 256 brackets (-fbracket-depth), and the templates and nested
 * ifs (at most AST_MAX_IF_DEPTH) need their share. */
enum { HOIST_BRACKETS = 32 };

/* The marker the body leaves on a line of its own where line numbering must return to the
 * generated file; replaced after rendering by the form `line` naming that file. */
#define RESUME_MARKER "@stenc-resume-lines@"

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
    const char *ctype; /* the stencil's type (form `real`) */
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
    const char *solved_name; /* a line solve's array, a launcher parameter (NULL without) */
    int presumed_line;   /* the line the C compiler believes the next body line has; 0: unknown */
    int bracket;         /* brackets open in the expression being printed */
    tmpl_buf *hoist;     /* declarations of subexpressions taken out of it (see print_expr) */
    int nhoisted;        /* stenc_h<N> temporaries declared so far */
    int line_directives; /* the body being printed has #line directives */
    int uses_real;       /* the body calls stenc_real() (templates define it only then) */
    int uses_div_const;  /* the body calls stenc_div_const() (likewise) */
    /* divide_plan()'s answers by km->divisors' index, made when first needed (~50 ms each) */
    int divisor_planned[KM_MAX_DIVISORS];
    divide_const divisor_plan[KM_MAX_DIVISORS];
    unsigned index_dims; /* bit d: the body reads the position or the extent of dimension d */
    int failed;          /* an unsupported construct was met */
    FILE *err;
    int calls[AST_FUNC_COUNT]; /* the built-in functions the body calls */
    /* The body being printed is the host kernel's (`body_select`): ifs as selects where
     * if_selectable() says so, max and min through the templates' helpers (form select_fn_*). */
    int selects;
    int select_calls[AST_FUNC_COUNT]; /* the helpers that body calls */
    int nselects;                     /* ifs it prints as selects */
    const syn_forms *syn;             /* the statement syntax (see say()) */
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
    if (km->st->solve) e->solved_name = claim(&e->names, km->st->solve->decl->name);
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

/* Render syntax form `form` (templates/c/syntax.tmpl) with string pairs key, value, ...,
 * NULL, appending to `b`. */
static void say(emitter *e, tmpl_buf *b, const char *form, ...) {
    va_list pairs;
    va_start(pairs, form);
    if (syn_vsay(e->syn, b, e->err, form, pairs)) e->failed = 1;
    va_end(pairs);
}

static const char *flag(int on) {
    return on ? "1" : "";
}

/* The form of each operator, by ast_op. */
static const char *op_form(ast_op op) {
    switch (op) {
    case AST_OP_NEG:
        return "op_neg";
    case AST_OP_NOT:
        return "op_not";
    case AST_OP_ADD:
        return "op_add";
    case AST_OP_SUB:
        return "op_sub";
    case AST_OP_MUL:
        return "op_mul";
    case AST_OP_DIV:
        return "op_div";
    case AST_OP_LT:
        return "op_lt";
    case AST_OP_LE:
        return "op_le";
    case AST_OP_GT:
        return "op_gt";
    case AST_OP_GE:
        return "op_ge";
    case AST_OP_EQ:
        return "op_eq";
    case AST_OP_NE:
        return "op_ne";
    case AST_OP_AND:
        return "op_and";
    case AST_OP_OR:
        return "op_or";
    case AST_OP_MOD:
        break;
    }
    return NULL;
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
        say(e, b, "zero", "float", flag(e->is_float), NULL);
        return;
    }
    /* In a double stencil a suffixed number is a float widened to double (docs/language.md):
     * the cast keeps C from computing `2.f - 0.3f` in float, and C++ (CUDA) from picking the
     * float overload of `exp(0.3f)`. */
    say(e, b, "number", "widen", flag(!e->is_float && x->u.number.is_float), "text", text,
        "integer", flag(x->u.number.is_integer), "suffix",
        flag(e->is_float && !x->u.number.is_float), NULL);
}

/* An index variable as a value of the stencil's type; outside the stencil's dims a position
 * is 0 and an extent 1. The conversion goes through stenc_real() (each target's templates
 * define it) rather than a cast: gcc 12 folds `0.0f - (float)j` into `-(float)j`, -0 for
 * j = 0 where IEEE arithmetic gives +0, and a call keeps its operand out of that fold. */
static void print_index(emitter *e, tmpl_buf *b, ast_index index) {
    int dim = index % 3;
    int is_extent = index >= AST_INDEX_NI;
    if (dim >= e->km->dims) {
        say(e, b, "outside", "extent", flag(is_extent), "float", flag(e->is_float), NULL);
        return;
    }
    say(e, b, "index", "name", ast_index_name(index), NULL);
    e->uses_real = 1;
    e->index_dims |= 1u << dim;
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

/* `x` printed inside one more pair of brackets (a call's, a conversion's, parentheses). */
static void print_nested(emitter *e, tmpl_buf *b, const ast_expr *x, ast_vtype want, int min_prec);

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
    tmpl_buf inner = {0};
    if (want == AST_VT_REAL) {
        e->uses_real = 1;
        print_nested(e, &inner, x, x->vtype, PREC_TERNARY);
        say(e, b, "to_real", "value", tmpl_buf_str(&inner), NULL);
        tmpl_buf_free(&inner);
        return;
    }
    int paren = PREC_EQ < min_prec;
    if (paren) e->bracket++;
    print_expr(e, &inner, x, PREC_REL);
    tmpl_buf truth = {0};
    say(e, &truth, "to_truth", "value", tmpl_buf_str(&inner), NULL);
    if (paren) {
        e->bracket--;
        say(e, b, "paren", "value", tmpl_buf_str(&truth), NULL);
    } else {
        tmpl_buf_puts(b, tmpl_buf_str(&truth));
    }
    tmpl_buf_free(&inner);
    tmpl_buf_free(&truth);
}

static void print_nested(emitter *e, tmpl_buf *b, const ast_expr *x, ast_vtype want, int min_prec) {
    e->bracket++;
    print_as(e, b, x, want, min_prec);
    e->bracket--;
}

/* Take `x` out of the expression being printed: declare it as the next stenc_h<N> in
 * e->hoist (after whatever its own printing takes out) and print that name instead. The
 * language has no side effects, so evaluating it before the statement changes no result. */
static void hoist_expr(emitter *e, tmpl_buf *b, const ast_expr *x) {
    int open = e->bracket;
    e->bracket = 0;
    tmpl_buf sub = {0}, name = {0};
    print_expr(e, &sub, x, PREC_TERNARY);
    e->bracket = open;
    char id[16];
    snprintf(id, sizeof id, "%d", e->nhoisted++);
    say(e, &name, "hoisted", "id", id, NULL);
    say(e, e->hoist, "hoist", "truth", flag(x->vtype == AST_VT_BOOL), "type", e->ctype, "name",
        tmpl_buf_str(&name), "value", tmpl_buf_str(&sub), NULL);
    tmpl_buf_puts(e->hoist, "\n");
    tmpl_buf_puts(b, tmpl_buf_str(&name));
    tmpl_buf_free(&sub);
    tmpl_buf_free(&name);
}

/* What the target calls built-in function `fn` (form fn_<name>), for double; in the host
 * kernel's body the helper of form select_fn_<name> where the syntax has one. */
static void function_name(emitter *e, tmpl_buf *b, const ast_func_info *fn, int f) {
    char form[32];
    snprintf(form, sizeof form, "select_fn_%s", fn->name);
    if (e->selects && syn_has(e->syn, form)) {
        e->select_calls[f] = 1;
        say(e, b, form, NULL);
        return;
    }
    snprintf(form, sizeof form, "fn_%s", fn->name);
    say(e, b, form, NULL);
}

/* The text of operator `op`. */
static void print_op(emitter *e, tmpl_buf *b, ast_op op) {
    say(e, b, op_form(op), NULL);
}

/* How `x` is printed when divide_literal() takes it (compiler/divide.h): the plan of
 * stenc_div_const() (stenc/divide.h), or NULL for the target's `/`. The CUDA target defines
 * stenc_div_const() as a reciprocal and a correction, which its IEEE division with the call to
 * its slow path is not; the others as `/`. */
static const divide_const *division_plan(emitter *e, const ast_expr *x) {
    float c;
    if (!divide_literal(x, e->is_float, &c)) return NULL;
    for (int d = 0; d < e->km->ndivisors; d++) {
        if (memcmp(&e->km->divisors[d], &c, sizeof c) != 0) continue;
        if (!e->divisor_planned[d]) /* 1: planned, 2: refused */
            e->divisor_planned[d] = divide_plan(c, &e->divisor_plan[d]) ? 1 : 2;
        return e->divisor_planned[d] == 1 ? &e->divisor_plan[d] : NULL;
    }
    return NULL; /* past the model's KM_MAX_DIVISORS */
}

/* `x / k->c` as stenc_div_const(x, c, y, yd, lo, hi), the constants in hexadecimal (exact). */
static void print_division(emitter *e, tmpl_buf *b, const ast_expr *x, const divide_const *k) {
    tmpl_buf dividend = {0};
    print_nested(e, &dividend, x, AST_VT_REAL, PREC_TERNARY);
    char c[32], y[32], yd[32], lo[32], hi[32];
    snprintf(c, sizeof c, "%af", (double)k->c);
    snprintf(y, sizeof y, "%af", (double)k->y);
    snprintf(yd, sizeof yd, "%a", k->yd);
    snprintf(lo, sizeof lo, "%af", (double)k->lo);
    snprintf(hi, sizeof hi, "%af", (double)k->hi);
    say(e, b, "div_const", "x", tmpl_buf_str(&dividend), "c", c, "y", y, "yd", yd, "lo", lo, "hi",
        hi, NULL);
    e->uses_div_const = 1;
    tmpl_buf_free(&dividend);
}

/* x's own text, without the parentheses its context may need. */
static void print_bare(emitter *e, tmpl_buf *b, const ast_expr *x, int prec) {
    tmpl_buf op = {0}, lhs = {0}, rhs = {0}, third = {0};
    switch (x->kind) {
    case AST_EXPR_NUMBER:
        print_number(e, b, x);
        break;
    case AST_EXPR_REF:
        print_ref(e, b, x);
        break;
    case AST_EXPR_UNARY: {
        const ast_expr *operand = x->u.unary.operand;
        print_op(e, &op, x->u.unary.op);
        print_as(e, &lhs, operand, x->u.unary.op == AST_OP_NOT ? AST_VT_BOOL : AST_VT_REAL,
                 PREC_UNARY);
        /* "- -x" must not become "--x" (a space, not brackets, which nest). */
        const int space = x->u.unary.op == AST_OP_NEG && operand->kind == AST_EXPR_UNARY &&
                          operand->u.unary.op == AST_OP_NEG;
        say(e, b, "unary", "op", tmpl_buf_str(&op), "space", flag(space), "value",
            tmpl_buf_str(&lhs), NULL);
        break;
    }
    case AST_EXPR_BINARY: {
        ast_op bop = x->u.binary.op;
        if (!op_form(bop)) {
            emit_error(e, x->loc, "'%' is not supported in expressions");
            break;
        }
        const divide_const *plan = division_plan(e, x);
        if (plan) {
            print_division(e, b, x->u.binary.lhs, plan);
            break;
        }
        /* && and || take truth values; arithmetic and comparisons take numbers. */
        ast_vtype want = bop == AST_OP_AND || bop == AST_OP_OR ? AST_VT_BOOL : AST_VT_REAL;
        print_as(e, &lhs, x->u.binary.lhs, want, operand_prec(bop, x->u.binary.lhs, prec));
        print_op(e, &op, bop);
        print_as(e, &rhs, x->u.binary.rhs, want, operand_prec(bop, x->u.binary.rhs, prec + 1));
        say(e, b, "binary", "lhs", tmpl_buf_str(&lhs), "op", tmpl_buf_str(&op), "rhs",
            tmpl_buf_str(&rhs), NULL);
        break;
    }
    case AST_EXPR_TERNARY:
        /* A compound condition keeps its parentheses, for the reader. */
        print_as(e, &lhs, x->u.ternary.cond, AST_VT_BOOL, PREC_UNARY);
        print_as(e, &rhs, x->u.ternary.then_expr, x->vtype, PREC_TERNARY);
        print_as(e, &third, x->u.ternary.else_expr, x->vtype, PREC_TERNARY);
        say(e, b, "ternary", "cond", tmpl_buf_str(&lhs), "if_true", tmpl_buf_str(&rhs), "if_false",
            tmpl_buf_str(&third), NULL);
        break;
    case AST_EXPR_CALL: {
        const ast_func_info *fn = ast_func_get((ast_func)x->u.call.func);
        if (!fn) {
            emit_error(e, x->loc, "internal error: an unchecked call reached the emitter");
            break;
        }
        e->calls[x->u.call.func] = 1;
        tmpl_value *data = tmpl_new_map();
        tmpl_buf name = {0};
        function_name(e, &name, fn, x->u.call.func);
        tmpl_set_str(data, "function", tmpl_buf_str(&name));
        tmpl_buf_free(&name);
        tmpl_set_bool(data, "float", e->is_float);
        tmpl_value *args = tmpl_set_list(data, "args");
        for (int a = 0; a < x->u.call.nargs; a++) {
            tmpl_buf arg = {0};
            print_nested(e, &arg, x->u.call.args[a], AST_VT_REAL, PREC_TERNARY);
            tmpl_append_str(args, tmpl_buf_str(&arg));
            tmpl_buf_free(&arg);
        }
        if (syn_render(e->syn, "call", data, b, e->err)) e->failed = 1;
        tmpl_free(data);
        break;
    }
    }
    tmpl_buf_free(&op);
    tmpl_buf_free(&lhs);
    tmpl_buf_free(&rhs);
    tmpl_buf_free(&third);
}

static void print_expr(emitter *e, tmpl_buf *b, const ast_expr *x, int min_prec) {
    if (e->hoist && e->bracket >= HOIST_BRACKETS && x->kind != AST_EXPR_NUMBER &&
        x->kind != AST_EXPR_REF) {
        hoist_expr(e, b, x);
        return;
    }
    int prec = expr_prec(x);
    if (prec >= min_prec) {
        print_bare(e, b, x, prec);
        return;
    }
    tmpl_buf inner = {0};
    e->bracket++;
    print_bare(e, &inner, x, prec);
    e->bracket--;
    say(e, b, "paren", "value", tmpl_buf_str(&inner), NULL);
    tmpl_buf_free(&inner);
}

/* ---- statements ---------------------------------------------------------------------------- */

/* Indentation is layout, not syntax: four spaces a level. */
static void indent(tmpl_buf *b, int depth) {
    for (int d = 0; d < depth; d++)
        tmpl_buf_puts(b, "    ");
}

/* Start a line of the body that comes from source line `line` (0: no source line). */
static void begin_line(emitter *e, tmpl_buf *b, int depth, int line) {
    if (line > 0 && e->line_directives && e->presumed_line != line) {
        char number[16];
        snprintf(number, sizeof number, "%d", line);
        say(e, b, "line", "line", number, "file", e->opt->source_path, NULL);
        tmpl_buf_puts(b, "\n");
        e->presumed_line = line;
    }
    indent(b, depth);
}

static void end_line(emitter *e, tmpl_buf *b) {
    tmpl_buf_puts(b, "\n");
    if (e->presumed_line) e->presumed_line++;
}

/* A line holding just form `form` (else, open, close), with no source line. */
static void form_line(emitter *e, tmpl_buf *b, int depth, const char *form) {
    begin_line(e, b, depth, 0);
    say(e, b, form, NULL);
    end_line(e, b);
}

static void print_block(emitter *e, tmpl_buf *b, const ast_block *blk, int depth);
static void print_stmt(emitter *e, tmpl_buf *b, const ast_stmt *s, int depth);

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

/* 1 if printing the condition of `s` takes parts of it out (hoist_expr). */
static int condition_hoists(emitter *e, const ast_stmt *s) {
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
    return hoisted;
}

/* `y = y;` (or `u = u;`): the value assigned is the output's or inout's own current value. */
static int is_self_assignment(const ast_stmt *s) {
    const ast_expr *v = s->u.assign.value;
    return v->kind == AST_EXPR_REF && v->u.ref.decl == s->u.assign.decl &&
           (v->u.ref.sym == AST_SYM_OUTPUT ||
            (v->u.ref.sym == AST_SYM_INOUT && v->u.ref.offset[0] == 0 && v->u.ref.offset[1] == 0 &&
             v->u.ref.offset[2] == 0));
}

/* ---- ifs as selects (the host kernel) -------------------------------------------------------- */

/* A node that is no call, or a call of fabs, abs, min or max: a few vector instructions. */
static int cheap_node(const ast_expr *x) {
    return x->kind != AST_EXPR_CALL || x->u.call.func == AST_FUNC_FABS ||
           x->u.call.func == AST_FUNC_ABS || x->u.call.func == AST_FUNC_MIN ||
           x->u.call.func == AST_FUNC_MAX;
}

/* 1 if `x` calls no function but fabs, abs, min and max: the arm of an if printed as selects is
 * computed even where it is not taken. */
static int is_cheap(const ast_expr *x) {
    return ast_expr_every(x, cheap_node);
}

/* 1 if `x` does arithmetic (+ - * /, negation, a call): what gcc computes only where the
 * source does. Sides that merely compare and pick values, gcc turns into selects itself, and
 * better than these (life.stencil ran 0.8x as selects, bench/cpu/RESULTS.md). */
static int computes(const ast_expr *x) {
    switch (x->kind) {
    case AST_EXPR_NUMBER:
    case AST_EXPR_REF:
        return 0;
    case AST_EXPR_UNARY:
        return x->u.unary.op == AST_OP_NEG || computes(x->u.unary.operand);
    case AST_EXPR_BINARY:
        return (x->u.binary.op >= AST_OP_ADD && x->u.binary.op <= AST_OP_DIV) ||
               computes(x->u.binary.lhs) || computes(x->u.binary.rhs);
    case AST_EXPR_TERNARY:
        return computes(x->u.ternary.cond) || computes(x->u.ternary.then_expr) ||
               computes(x->u.ternary.else_expr);
    case AST_EXPR_CALL:
        return 1;
    }
    return 0;
}

/* The array an assignment writes, or -1 for `y = y;`, which changes nothing. */
static int assigned_array(const emitter *e, const ast_stmt *s) {
    return is_self_assignment(s) ? -1 : km_find_array(e->km, s->u.assign.decl->name);
}

/* 1 if block `blk` (NULL: none) holds cheap lets and assignments only, each array assigned at
 * most once; counts the assignments and those that compute into *count and *computing. */
static int arm_selectable(const emitter *e, const ast_block *blk, unsigned char *seen, int *count,
                          int *computing) {
    memset(seen, 0, (size_t)e->km->narrays);
    for (int i = 0; blk && i < blk->nstmts; i++) {
        const ast_stmt *st = blk->stmts[i];
        const ast_expr *value = st->kind == AST_STMT_LET      ? st->u.let.init
                                : st->kind == AST_STMT_ASSIGN ? st->u.assign.value
                                                              : NULL;
        if (!value || !is_cheap(value)) return 0;
        *computing += computes(value);
        if (st->kind == AST_STMT_LET) continue;
        const int a = assigned_array(e, st);
        if (a < 0) continue;
        if (seen[a]++) return 0;
        ++*count;
    }
    return 1;
}

/* 1 if the host kernel prints if statement `s` as selects: both arms cheap lets and
 * assignments (no nested if), something assigned, and some arithmetic. gcc keeps a branch
 * whose arms compute (-ftrapping-math: it may not compute what the source computes only
 * conditionally), and a loop with a branch is not vectorised. */
static int if_selectable(const emitter *e, const ast_stmt *s) {
    if (!e->selects) return 0;
    unsigned char *seen = xcalloc((size_t)e->km->narrays, 1);
    int count = 0, computing = 0;
    const int ok = arm_selectable(e, &s->u.if_.then_block, seen, &count, &computing) &&
                   arm_selectable(e, s->u.if_.else_block, seen, &count, &computing) && count > 0 &&
                   computing > 0;
    free(seen);
    return ok;
}

/* Make `name` the text of array a's value in what is printed next: an output's value, and an
 * inout's centre (whose read is its value). */
static void set_value_name(emitter *e, int a, const char *name) {
    e->value_name[a] = name;
    if (e->km->arrays[a].kind != KM_INOUT) return;
    for (int r = 0; r < e->km->nreads; r++)
        if (e->km->reads[r].array == a && is_centre(&e->km->reads[r].offset))
            e->read_name[r] = name;
}

/* `const TYPE stenc_h<N> = VALUE;` (an int for a truth value) on a line from source `line`;
 * its name into *name. */
static void declare_temporary(emitter *e, tmpl_buf *b, tmpl_buf *name, const char *value, int truth,
                              int depth, int line) {
    char id[16];
    snprintf(id, sizeof id, "%d", e->nhoisted++);
    say(e, name, "hoisted", "id", id, NULL);
    begin_line(e, b, depth, line);
    say(e, b, "hoist", "truth", flag(truth), "type", e->ctype, "name", tmpl_buf_str(name), "value",
        value, NULL);
    end_line(e, b);
}

/* If statement `s` as selects (if_selectable): the condition and each arm's values into
 * temporaries, then each array assigned takes its arm's value by the condition. The language
 * has no side effects, so computing the arm not taken changes no result. */
static void print_if_select(emitter *e, tmpl_buf *b, const ast_stmt *s, int depth) {
    const int n = e->km->narrays, line = s->loc.first_line;
    const char **outer = xcalloc((size_t)n, sizeof *outer); /* the values before the if */
    tmpl_buf *arm[2] = {xcalloc((size_t)n, sizeof(tmpl_buf)), xcalloc((size_t)n, sizeof(tmpl_buf))};
    int *at = xcalloc((size_t)n, sizeof *at); /* each select's line: its first assignment's */
    memcpy(outer, e->value_name, (size_t)n * sizeof *outer);
    begin_line(e, b, depth, 0);
    say(e, b, "select_note", NULL);
    end_line(e, b);
    tmpl_buf text = {0}, cond = {0};
    print_statement_expr(e, b, &text, s->u.if_.cond, AST_VT_BOOL, depth, line);
    declare_temporary(e, b, &cond, tmpl_buf_str(&text), 1, depth, line);
    tmpl_buf_free(&text);
    for (int side = 0; side < 2; side++) {
        const ast_block *blk = side ? s->u.if_.else_block : &s->u.if_.then_block;
        for (int i = 0; blk && i < blk->nstmts; i++) {
            const ast_stmt *st = blk->stmts[i];
            const int a = st->kind == AST_STMT_ASSIGN ? assigned_array(e, st) : -1;
            if (st->kind == AST_STMT_LET) print_stmt(e, b, st, depth);
            if (a < 0) continue;
            print_statement_expr(e, b, &text, st->u.assign.value, AST_VT_REAL, depth,
                                 st->loc.first_line);
            declare_temporary(e, b, &arm[side][a], tmpl_buf_str(&text), 0, depth,
                              st->loc.first_line);
            tmpl_buf_free(&text);
            if (!at[a]) at[a] = st->loc.first_line;
            /* later reads in this arm see the value assigned */
            set_value_name(e, a, tmpl_buf_str(&arm[side][a]));
        }
        for (int a = 0; a < n; a++)
            set_value_name(e, a, outer[a]);
    }
    for (int a = 0; a < n; a++) {
        if (!arm[0][a].len && !arm[1][a].len) continue;
        say(e, &text, "ternary", "cond", tmpl_buf_str(&cond), "if_true",
            arm[0][a].len ? tmpl_buf_str(&arm[0][a]) : outer[a], "if_false",
            arm[1][a].len ? tmpl_buf_str(&arm[1][a]) : outer[a], NULL);
        begin_line(e, b, depth, at[a]);
        say(e, b, "assign", "name", outer[a], "value", tmpl_buf_str(&text), NULL);
        end_line(e, b);
        tmpl_buf_free(&text);
    }
    for (int a = 0; a < n; a++) {
        tmpl_buf_free(&arm[0][a]);
        tmpl_buf_free(&arm[1][a]);
    }
    free(arm[0]);
    free(arm[1]);
    free(at);
    free(outer);
    tmpl_buf_free(&cond);
    e->nselects++;
}

/* An if statement; `is_else_if`: the else branch of the enclosing one, whose line it closes. */
static void print_if(emitter *e, tmpl_buf *b, const ast_stmt *s, int depth, int is_else_if) {
    if (!is_else_if && if_selectable(e, s)) {
        print_if_select(e, b, s, depth);
        return;
    }
    if (is_else_if && condition_hoists(e, s)) {
        /* the parts taken out must go into the else block, before the if */
        form_line(e, b, depth, "else");
        print_if(e, b, s, depth + 1, 0);
        form_line(e, b, depth, "close");
        return;
    }
    tmpl_buf cond = {0};
    print_statement_expr(e, b, &cond, s->u.if_.cond, AST_VT_BOOL, depth, s->loc.first_line);
    begin_line(e, b, depth, is_else_if ? 0 : s->loc.first_line);
    say(e, b, is_else_if ? "else_if" : "if", "cond", tmpl_buf_str(&cond), NULL);
    tmpl_buf_free(&cond);
    end_line(e, b);
    print_block(e, b, &s->u.if_.then_block, depth + 1);
    const ast_block *other = s->u.if_.else_block;
    if (other) {
        if (other->nstmts == 1 && other->stmts[0]->kind == AST_STMT_IF) {
            print_if(e, b, other->stmts[0], depth, 1);
            return;
        }
        form_line(e, b, depth, "else");
        print_block(e, b, other, depth + 1);
    }
    form_line(e, b, depth, "close");
}

static void print_stmt(emitter *e, tmpl_buf *b, const ast_stmt *s, int depth) {
    tmpl_buf value = {0};
    int line = s->loc.first_line;
    switch (s->kind) {
    case AST_STMT_LET:
        print_statement_expr(e, b, &value, s->u.let.init, AST_VT_REAL, depth, line);
        begin_line(e, b, depth, line);
        /* An unused let (the checker warned) must not fail -Wunused-variable. */
        say(e, b, "let", "type", e->ctype, "name", let_name(e, s), "value", tmpl_buf_str(&value),
            "unused", flag(s->u.let.reads == 0), NULL);
        end_line(e, b);
        break;
    case AST_STMT_ASSIGN:
        if (is_self_assignment(s)) { /* y = y: no change, and clang's -Wself-assign */
            begin_line(e, b, depth, line);
            say(e, b, "unchanged", "name", s->u.assign.name, NULL);
            end_line(e, b);
            break;
        }
        print_statement_expr(e, b, &value, s->u.assign.value, AST_VT_REAL, depth, line);
        begin_line(e, b, depth, line);
        say(e, b, "assign", "name", e->value_name[km_find_array(e->km, s->u.assign.decl->name)],
            "value", tmpl_buf_str(&value), NULL);
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
        say(e, b, "reduce", "type", e->ctype, "name", e->reduce_name[s->u.reduce.id], "value",
            tmpl_buf_str(&value), NULL);
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

/* The load of read r (form `load`): its row pointer, whether the array spans i, and a term
 * per other dimension of the offset: sign, magnitude, and the stride (none for i). An array
 * that does not span a dimension has stride 0 there, and its row pointer follows j and k. */
static void format_load(emitter *e, tmpl_buf *b, const km_read *rd) {
    const unsigned axes = e->km->arrays[rd->array].axes;
    tmpl_value *data = tmpl_new_map();
    /* an integer input is read as a value of the stencil's type */
    tmpl_set_bool(data, "cast", e->km->arrays[rd->array].elem != AST_ELEM_REAL);
    tmpl_set_str(data, "type", e->ctype);
    tmpl_set_str(data, "row", e->row_name[rd->array]);
    tmpl_set_bool(data, "span_i", !axes || axes & 1);
    tmpl_value *terms = tmpl_set_list(data, "terms");
    const char *strides[3] = {"", e->sj_name[rd->array], e->sk_name[rd->array]};
    for (int dim = 0; dim < e->km->dims; dim++) {
        const int d = rd->offset.d[dim];
        if (!d) continue;
        tmpl_value *t = tmpl_append_map(terms);
        tmpl_set_str(t, "sign", d < 0 ? "-" : "+");
        tmpl_set_fmt(t, "abs", "%d", abs(d));
        tmpl_set_bool(t, "one", abs(d) == 1);
        tmpl_set_str(t, "stride", strides[dim]);
    }
    if (syn_render(e->syn, "load", data, b, e->err)) e->failed = 1;
    tmpl_free(data);
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

static int arg_index(const km_kernel *km, int a);

/* Ordered sweeps and `step OUT -> IN;`. The launchers' parameter lists are the c target's
 * partials (params.tmpl, ...), which read the fields' step_const. */
static void set_sweep_data(emitter *e, tmpl_value *d) {
    const km_kernel *km = e->km;
    tmpl_set_bool(d, "ordered", km->order != 0);
    tmpl_set_fmt(d, "order_forward", "%d", km->order > 0);
    tmpl_set_fmt(d, "wave_j", "%d", km->wave[1]);
    tmpl_set_fmt(d, "wave_k", "%d", km->wave[2]);
    /* The host's tiled wavefront (templates/c/ordered.tmpl): tiles of rows (2-D) or planes (3-D)
     * by hyperplanes t = i + W1 j + W2 k, at least as wide in t as an inout's read reaches (and
     * 128), so that a tile's reads stay in the tiles next to it (exact at any width; this is for
     * locality). */
    int tile_t = 128;
    for (int r = 0; r < km->nreads; r++) {
        const km_read *rd = &km->reads[r];
        if (km->arrays[rd->array].kind != KM_INOUT || km->dims < 2) continue;
        int t = 0;
        for (int dim = 0; dim < km->dims; dim++)
            t += km->wave[dim] * rd->offset.d[dim];
        tile_t = abs(t) > tile_t ? abs(t) : tile_t;
    }
    tmpl_set_fmt(d, "wave_tile_t", "%d", tile_t);
    tmpl_set_bool(d, "steps", km->step_in >= 0);
    if (km->step_in >= 0) {
        tmpl_set_str(d, "step_in", e->value_name[km->step_in]);
        tmpl_set_str(d, "step_out", e->value_name[km->step_out]);
        tmpl_set_str(d, "step_in_decl", km->arrays[km->step_in].name);
        tmpl_set_str(d, "step_out_decl", km->arrays[km->step_out].name);
        tmpl_set_fmt(d, "step_in_arg", "%d", arg_index(km, km->step_in));
        tmpl_set_fmt(d, "step_out_arg", "%d", arg_index(km, km->step_out));
    }
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
        tmpl_value *row = tmpl_append_map(rows);
        tmpl_value *cells = tmpl_set_list(row, "cells");
        for (int i = 0; i < p[0]; i++) {
            char cell[16];
            snprintf(cell, sizeof cell, "%d", km->color_table[i + p[0] * r]);
            tmpl_append_str(cells, cell);
        }
        tmpl_set_fmt(row, "rj", "%d", r % p[1]);
        tmpl_set_fmt(row, "rk", "%d", r / p[1]);
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

/* What the launch check and the launcher's parameters need of field km->arrays[a]. */
static void field_keys(emitter *e, tmpl_value *f, int a) {
    const km_kernel *km = e->km;
    const km_array *arr = &km->arrays[a];
    tmpl_set_str(f, "decl", arr->name);
    tmpl_set_str(f, "name", e->value_name[a]);
    tmpl_set_bool(f, "is_input", arr->kind == KM_INPUT);
    tmpl_set_bool(f, "step_const", arr->kind == KM_INPUT && a != km->step_in);
    tmpl_set_bool(f, "is_inout", arr->kind == KM_INOUT);
    tmpl_set_str(f, "data", e->data_name[a]);
    tmpl_set_str(f, "row", e->row_name[a]);
    tmpl_set_str(f, "sj", e->sj_name[a]);
    tmpl_set_str(f, "sk", e->sk_name[a]);
    /* Lower-dimensional inputs: the dimensions they span, for the launch check; rows of
     * one without i are single elements, not aligned rows. */
    tmpl_set_bool(f, "lower", arr->axes != 0);
    tmpl_set_fmt(f, "axes", "%u", arr->axes);
    /* Integer inputs: their own element type (form `element`), and the launch check's. */
    if (arr->elem != AST_ELEM_REAL) {
        tmpl_buf elem = {0};
        say(e, &elem, "element", "i32", flag(arr->elem == AST_ELEM_I32), NULL);
        tmpl_set_str(f, "type", tmpl_buf_str(&elem));
        tmpl_buf_free(&elem);
    }
    tmpl_value *stagger = tmpl_set_list(f, "stagger");
    for (int dim = 0; dim < 3; dim++) {
        char e_d[16];
        snprintf(e_d, sizeof e_d, "%d", arr->stagger[dim]);
        tmpl_append_str(stagger, e_d);
    }
    tmpl_set_bool(f, "is_i32", arr->elem == AST_ELEM_I32);
    tmpl_set_bool(f, "is_u8", arr->elem == AST_ELEM_U8);
    int reads_at_offsets = arr->kind == KM_INPUT || arr->kind == KM_INOUT;
    tmpl_set_fmt(f, "halo", "%d", reads_at_offsets ? array_halo(arr, km->dims) : 0);
    tmpl_buf b = {0};
    if (reads_at_offsets) widest_read(&b, arr, km->dims);
    tmpl_set_str(f, "widest_read", tmpl_buf_str(&b));
    tmpl_buf_free(&b);
}

/* The rank of field km->arrays[a] among the launcher's field parameters: the kernel's fields
 * in order, without a line solve's coefficients and with its array at its declared rank. */
static int arg_index(const km_kernel *km, int a) {
    const ast_solve *sv = km->st->solve;
    int rank = 0;
    for (int b = 0; b < a; b++)
        rank += km->arrays[b].kind != KM_SCALAR && !km->arrays[b].decl->solve_slot;
    return sv && rank >= sv->field ? rank + 1 : rank;
}

/* The launcher's field parameters (`args`): for most stencils the kernel's fields; a line
 * solve's launcher takes the array it solves instead of the coefficients its kernel writes. */
static void set_args(emitter *e, tmpl_value *d) {
    const km_kernel *km = e->km;
    const ast_solve *sv = km->st->solve;
    tmpl_value *args = tmpl_set_list(d, "args");
    int nargs = 0;
    for (int a = 0; a <= km->narrays; a++) {
        if (sv && nargs == sv->field) {
            tmpl_value *f = tmpl_append_map(args);
            tmpl_set_str(f, "decl", sv->decl->name);
            tmpl_set_str(f, "name", e->solved_name);
            tmpl_set_bool(f, "is_input", 0);
            tmpl_set_bool(f, "is_inout", 0);
            tmpl_set_bool(f, "step_const", 0);
            tmpl_set_bool(f, "is_i32", 0);
            tmpl_set_bool(f, "is_u8", 0);
            tmpl_set_str(f, "axes", "0");
            tmpl_set_str(f, "halo", "0");
            tmpl_set_str(f, "widest_read", "");
            tmpl_value *stagger = tmpl_set_list(f, "stagger");
            for (int dim = 0; dim < 3; dim++)
                tmpl_append_str(stagger, "0");
            nargs++;
        }
        if (a == km->narrays) break;
        const km_array *arr = &km->arrays[a];
        if (arr->kind == KM_SCALAR || arr->decl->solve_slot) continue;
        field_keys(e, tmpl_append_map(args), a);
        nargs++;
    }
    tmpl_set_fmt(d, "nargs", "%d", nargs);
    tmpl_set_bool(d, "solve", sv != NULL);
    if (!sv) return;
    tmpl_set_fmt(d, "solve_dim", "%d", sv->dim);
    tmpl_set_str(d, "solve_along", sv->along);
    tmpl_set_str(d, "solve_decl", sv->decl->name);
    tmpl_set_fmt(d, "solve_arg", "%d", sv->field);
    tmpl_set_fmt(d, "solve_uniform", "%u", sv->uniform);
    /* The coefficients that are the same at every point, computed once per launch: each
     * value, after the declarations its printing takes out (hoist_expr). */
    tmpl_value *uniform = tmpl_set_list(d, "uniform");
    e->nhoisted = 0;
    e->line_directives = 0;
    for (int q = 0; q < AST_SOLVE_SLOTS; q++) {
        if (!(sv->uniform >> q & 1)) continue;
        tmpl_buf pre = {0}, text = {0};
        print_statement_expr(e, &pre, &text, sv->value[q], AST_VT_REAL, 1, 0);
        tmpl_value *u = tmpl_append_map(uniform);
        tmpl_set_fmt(u, "slot", "%d", q);
        tmpl_set_str(u, "pre", tmpl_buf_str(&pre));
        tmpl_set_str(u, "value", tmpl_buf_str(&text));
        tmpl_buf_free(&pre);
        tmpl_buf_free(&text);
    }
}

static tmpl_value *build_data(emitter *e) {
    const km_kernel *km = e->km;
    tmpl_value *d = tmpl_new_map();
    tmpl_set_str(d, "name", km->name);
    tmpl_buf up = {0};
    upper_case(&up, km->name);
    tmpl_set_str(d, "NAME", tmpl_buf_str(&up));
    tmpl_buf_free(&up);
    tmpl_set_str(d, "version", STENC_VERSION);
    tmpl_set_str(d, "source", e->opt->source_path ? e->opt->source_path : "(unnamed)");
    tmpl_set_fmt(d, "dims", "%d", km->dims);
    tmpl_set_bool(d, "dims1", km->dims == 1);
    tmpl_set_bool(d, "dims2", km->dims == 2);
    tmpl_set_bool(d, "dims3", km->dims == 3);
    tmpl_set_str(d, "type", e->ctype);
    tmpl_set_bool(d, "float", e->is_float);
    tmpl_set_bool(d, "line_directives", e->opt->line_directives && e->opt->source_path);
    /* The selected targets: the launch table's bits, the device targets the launcher
     * dispatches to, and each target's tunables. */
    tmpl_value *bits = tmpl_set_list(d, "target_bits");
    tmpl_value *devices = tmpl_set_list(d, "device_targets");
    for (int t = 0; t < emit_ntargets; t++) {
        const emit_target_desc *target = &emit_targets[t];
        if (!(e->opt->targets & emit_target_bit(target))) continue;
        tmpl_append_str(bits, target->launch_bit);
        if (target->device) {
            tmpl_value *dv = tmpl_append_map(devices);
            tmpl_set_str(dv, "target", target->name);
            tmpl_set_str(dv, "device", target->device);
        }
        for (const emit_param *p = target->params; p && p->key; p++)
            tmpl_set_str(d, p->key, p->value);
    }
    int halo = 0;
    for (int dim = 0; dim < km->dims; dim++) {
        if (km->halo_lo[dim] > halo) halo = km->halo_lo[dim];
        if (km->halo_hi[dim] > halo) halo = km->halo_hi[dim];
    }
    /* A line solve's array holds its boundary values in a halo of at least 1: NAME_HALO, the
     * one halo that fits every field (the reference-test harness makes all fields with it). */
    if (km->st->solve && halo < 1) halo = 1;
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
        field_keys(e, f, a);
        tmpl_set_fmt(f, "index", "%d", nfields++);
        tmpl_set_bool(f, "coef", arr->decl->solve_slot != 0);
        tmpl_set_fmt(f, "slot", "%d", arr->decl->solve_slot - 1);
        tmpl_set_fmt(f, "arg_index", "%d", arg_index(km, a));
        tmpl_set_bool(f, "used", arr->kind != KM_INPUT || arr->noffsets > 0);
        views_used |= arr->kind != KM_INPUT || arr->noffsets > 0;
        tmpl_set_str(f, "data", e->data_name[a]);
        tmpl_set_str(f, "row", e->row_name[a]);
        tmpl_set_str(f, "sj", e->sj_name[a]);
        tmpl_set_str(f, "sk", e->sk_name[a]);
        /* Lower-dimensional inputs: the dimensions they span, for the launch check; rows of
         * one without i are single elements, not aligned rows. */
        tmpl_set_bool(f, "lower", arr->axes != 0);
        tmpl_set_fmt(f, "axes", "%u", arr->axes);
        tmpl_set_bool(f, "aligned", arr->axes == 0 || (arr->axes & 1));
        int reads_at_offsets = arr->kind == KM_INPUT || arr->kind == KM_INOUT;
        tmpl_buf b = {0};
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

    /* The body three times: with #line directives when they are on (`body`); without, for
     * code that a program builds from a string at run time (`body_plain`); and for the host
     * kernel, with selects that gcc vectorises (`body_select`, print_if_select). Only the
     * host's changes: the CUDA kernels keep their branches and fmax, as tuned. */
    static const char *const body_keys[] = {"body", "body_plain", "body_select"};
    for (int form = 0; form < 3; form++) {
        tmpl_buf body = {0};
        const int lines = form != 1 && e->opt->line_directives && e->opt->source_path;
        e->presumed_line = 0;
        e->line_directives = lines;
        e->nhoisted = 0;
        e->selects = form == 2;
        print_block(e, &body, e->km->body, 0);
        e->selects = 0;
        if (lines) tmpl_buf_puts(&body, RESUME_MARKER "\n");
        /* The body's last newline belongs to the template line holding {{body}}. */
        if (body.len && body.data[body.len - 1] == '\n') body.data[--body.len] = '\0';
        tmpl_set_str(d, body_keys[form], tmpl_buf_str(&body));
        tmpl_buf_free(&body);
    }
    tmpl_set_bool(d, "select_max", e->select_calls[AST_FUNC_MAX]);
    tmpl_set_bool(d, "select_min", e->select_calls[AST_FUNC_MIN]);
    tmpl_set_bool(d, "select_nan", e->select_calls[AST_FUNC_MAX] || e->select_calls[AST_FUNC_MIN]);
    tmpl_set_bool(d, "selects",
                  e->nselects || e->select_calls[AST_FUNC_MAX] || e->select_calls[AST_FUNC_MIN]);
    tmpl_set_bool(d, "uses_real", e->uses_real);
    tmpl_set_bool(d, "uses_div_const", e->uses_div_const);
    /* The stepping launcher's wavefront runs the kernel on slabs of the slowest dimension, whose
     * positions it then sees from the slab's start: a body that reads that index (or extent)
     * takes its steps one by one. */
    tmpl_set_bool(d, "step_blockable", !(e->index_dims >> (e->km->dims - 1) & 1u));
    /* Distributed steps run the kernel over boxes grown into the halo, whose indices a body
     * reading them would see shifted. */
    tmpl_set_bool(d, "step_index_free", e->index_dims == 0);
    /* The built-in functions called, by their double names (the body calls `sqrtf` in a float
     * stencil: form `call`). */
    tmpl_value *calls = tmpl_set_list(d, "calls");
    for (int f = 0; f < AST_FUNC_COUNT; f++) {
        if (!e->calls[f]) continue;
        const ast_func_info *fn = ast_func_get((ast_func)f);
        tmpl_value *cv = tmpl_append_map(calls);
        tmpl_buf name = {0};
        function_name(e, &name, fn, f);
        tmpl_set_str(cv, "base", tmpl_buf_str(&name));
        tmpl_buf_free(&name);
    }

    set_sweep_data(e, d);
    set_colors_and_reductions(e, d);
    set_args(e, d);
    /* The c target's stepping launcher names the cuda target's blocked kernels when there are
     * some (emit_cuda.c sets it then). */
    tmpl_set_bool(d, "cu_tsteps", 0);
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
static void resume_lines(emitter *e, tmpl_buf *text, const char *file_name) {
    tmpl_buf out = {0};
    int line = 1;
    const char *p = tmpl_buf_str(text);
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, RESUME_MARKER, strlen(RESUME_MARKER)) == 0) {
            char number[16];
            snprintf(number, sizeof number, "%d", line + 1);
            say(e, &out, "line", "line", number, "file", file_name, NULL);
            tmpl_buf_puts(&out, "\n");
        } else
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
            resume_lines(e, &text, name.data); /* as the file is written */
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
        resume_lines(e, &texts[f], name.data);
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

/* The forms every statement and expression is printed with. */
static const char *const required_forms[] = {
    "number", "zero",   "outside", "index",     "to_real",     "to_truth", "paren",
    "unary",  "binary", "ternary", "call",      "op_neg",      "op_not",   "op_add",
    "op_sub", "op_mul", "op_div",  "op_lt",     "op_le",       "op_gt",    "op_ge",
    "op_eq",  "op_ne",  "op_and",  "op_or",     "hoist",       "hoisted",  "load",
    "line",   "let",    "assign",  "unchanged", "reduce",      "if",       "else_if",
    "else",   "close",  "real",    "element",   "select_note", NULL};

/* The syntax of the first selected target that gives one. */
static syn_forms *load_syntax(emitter *e) {
    for (int t = 0; t < emit_ntargets; t++) {
        if (!(e->opt->targets & emit_target_bit(&emit_targets[t])) || !emit_targets[t].syntax)
            continue;
        tmpl_buf path = {0};
        tmpl_buf_printf(&path, "%s/%s", e->opt->template_dir, emit_targets[t].syntax);
        syn_forms *forms = syn_load(tmpl_buf_str(&path), required_forms, e->err);
        for (int f = 0; forms && f < AST_FUNC_COUNT; f++) {
            char form[32];
            snprintf(form, sizeof form, "fn_%s", ast_func_get((ast_func)f)->name);
            if (!syn_has(forms, form)) {
                fprintf(e->err, "%s: error: no form '%s'\n", tmpl_buf_str(&path), form);
                syn_free(forms);
                forms = NULL;
            }
        }
        tmpl_buf_free(&path);
        return forms;
    }
    fprintf(e->err, "stenc: error: no selected target gives the syntax of statements\n");
    return NULL;
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
    syn_forms *syn = load_syntax(&e);
    if (!syn) return 1;
    e.syn = syn;
    tmpl_buf ctype = {0};
    say(&e, &ctype, "real", "float", flag(e.is_float), NULL);
    e.ctype = tmpl_buf_str(&ctype);
    assign_names(&e);
    tmpl_value *data = build_data(&e);
    int rc = e.failed ? 1 : emit_files(&e, data);
    tmpl_free(data);
    syn_free(syn);
    tmpl_buf_free(&ctype);
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
