/* func: checking the file's functions and inlining their calls (func.h). */
#include "func.h"

#include <stdlib.h>
#include <string.h>

/* Expressions one inlined call may grow into: a guard against definitions that double their
 * size at each level (f(x) = g(x) + g(x), g(x) = h(x) + h(x), ...). */
enum { INLINE_NODE_BUDGET = 100000 };

static ast_funcdef *find_func(const ast_file *file, const char *name) {
    for (int f = 0; f < file->nfuncs; f++)
        if (strcmp(file->funcs[f]->name, name) == 0) return file->funcs[f];
    return NULL;
}

static int param_index(const ast_funcdef *f, const char *name) {
    for (int p = 0; p < f->nparams; p++)
        if (strcmp(f->params[p], name) == 0) return p;
    return -1;
}

/* "unknown function 'x'" with the nearest name among the built-ins and the file's functions. */
static void unknown_function(const ast_file *file, diag *d, const ast_expr *call) {
    const char **names = calloc((size_t)(AST_FUNC_COUNT + file->nfuncs), sizeof *names);
    int n = 0;
    for (int k = 0; names && k < AST_FUNC_COUNT; k++)
        names[n++] = ast_func_get((ast_func)k)->name;
    for (int f = 0; names && f < file->nfuncs; f++)
        names[n++] = file->funcs[f]->name;
    const char *close = names ? diag_closest(call->u.call.name, names, n) : NULL;
    if (close)
        diag_error(d, call->u.call.name_loc, "unknown function '%s'; did you mean '%s'?",
                   call->u.call.name, close);
    else
        diag_error(d, call->u.call.name_loc, "unknown function '%s'", call->u.call.name);
    free(names);
}

/* ---- definitions ------------------------------------------------------------------------- */

/* The expression of `f` sees its parameters (without offsets), literals and functions. */
static int check_body(const ast_file *file, diag *d, const ast_funcdef *f, const ast_expr *e) {
    int ok = 1;
    switch (e->kind) {
    case AST_EXPR_NUMBER:
        return 1;
    case AST_EXPR_REF:
        if (param_index(f, e->u.ref.name) < 0) {
            diag_error(d, e->loc,
                       "'%s' is not a parameter of function '%s' (a function sees its parameters "
                       "alone; pass the value as an argument)",
                       e->u.ref.name, f->name);
            return 0;
        }
        if (e->u.ref.noffsets > 0) {
            diag_error(d, e->loc, "parameter '%s' takes no offsets (pass x[1,0] as the argument)",
                       e->u.ref.name);
            return 0;
        }
        return 1;
    case AST_EXPR_UNARY:
        return check_body(file, d, f, e->u.unary.operand);
    case AST_EXPR_BINARY:
        ok = check_body(file, d, f, e->u.binary.lhs);
        return check_body(file, d, f, e->u.binary.rhs) && ok;
    case AST_EXPR_TERNARY:
        ok = check_body(file, d, f, e->u.ternary.cond);
        ok = check_body(file, d, f, e->u.ternary.then_expr) && ok;
        return check_body(file, d, f, e->u.ternary.else_expr) && ok;
    case AST_EXPR_CALL: {
        for (int a = 0; a < e->u.call.nargs; a++)
            ok = check_body(file, d, f, e->u.call.args[a]) && ok;
        const int builtin = ast_func_lookup(e->u.call.name);
        const ast_funcdef *g = builtin < 0 ? find_func(file, e->u.call.name) : NULL;
        if (builtin < 0 && !g) {
            unknown_function(file, d, e);
            return 0;
        }
        const int arity = g ? g->nparams : ast_func_get((ast_func)builtin)->arity;
        if (e->u.call.nargs != arity) {
            diag_error(d, e->loc, "'%s' takes %d argument%s, not %d", e->u.call.name, arity,
                       arity == 1 ? "" : "s", e->u.call.nargs);
            return 0;
        }
        return ok;
    }
    }
    return ok;
}

/* Calls of the file's functions in e, into `callees` (indices, no repeats). */
static void collect_callees(const ast_file *file, const ast_expr *e, int *callees, int *n) {
    switch (e->kind) {
    case AST_EXPR_UNARY:
        collect_callees(file, e->u.unary.operand, callees, n);
        return;
    case AST_EXPR_BINARY:
        collect_callees(file, e->u.binary.lhs, callees, n);
        collect_callees(file, e->u.binary.rhs, callees, n);
        return;
    case AST_EXPR_TERNARY:
        collect_callees(file, e->u.ternary.cond, callees, n);
        collect_callees(file, e->u.ternary.then_expr, callees, n);
        collect_callees(file, e->u.ternary.else_expr, callees, n);
        return;
    case AST_EXPR_CALL:
        for (int a = 0; a < e->u.call.nargs; a++)
            collect_callees(file, e->u.call.args[a], callees, n);
        for (int f = 0; f < file->nfuncs; f++)
            if (ast_func_lookup(e->u.call.name) < 0 &&
                strcmp(file->funcs[f]->name, e->u.call.name) == 0) {
                int seen = 0;
                for (int k = 0; k < *n; k++)
                    seen |= callees[k] == f;
                if (!seen) callees[(*n)++] = f;
                break;
            }
        return;
    default:
        return;
    }
}

/* Depth-first over the call graph: a function on the path that is reached again closes a
 * cycle, reported at its definition with the path. state: 0 new, 1 on the path, 2 done. */
static void find_cycles(const ast_file *file, diag *d, int f, int *state, int *path, int depth,
                        int **callees, const int *ncallees) {
    state[f] = 1;
    path[depth] = f;
    for (int c = 0; c < ncallees[f]; c++) {
        const int g = callees[f][c];
        if (state[g] == 1) {
            char chain[512] = "";
            int start = depth;
            while (start > 0 && path[start] != g)
                start--;
            for (int k = start; k <= depth; k++)
                snprintf(chain + strlen(chain), sizeof chain - strlen(chain), "%s -> ",
                         file->funcs[path[k]]->name);
            snprintf(chain + strlen(chain), sizeof chain - strlen(chain), "%s",
                     file->funcs[g]->name);
            diag_error(d, file->funcs[g]->loc,
                       "function '%s' calls itself (%s): functions cannot be recursive",
                       file->funcs[g]->name, chain);
            for (int k = start; k <= depth; k++)
                file->funcs[path[k]]->bad = 1;
        } else if (state[g] == 0) {
            find_cycles(file, d, g, state, path, depth + 1, callees, ncallees);
        }
    }
    state[f] = 2;
}

void func_check_defs(ast_file *file, diag *d) {
    const int n = file->nfuncs;
    for (int f = 0; f < n; f++) {
        ast_funcdef *fn = file->funcs[f];
        fn->bad = 0;
        fn->uses = 0;
        if (ast_func_lookup(fn->name) >= 0) {
            diag_error(d, fn->loc, "'%s' is a built-in function; give yours another name",
                       fn->name);
            fn->bad = 1;
        }
        for (int g = 0; g < f; g++)
            if (strcmp(file->funcs[g]->name, fn->name) == 0) {
                diag_error(d, fn->loc, "function '%s' is already defined at %d:%d", fn->name,
                           file->funcs[g]->loc.first_line, file->funcs[g]->loc.first_col);
                fn->bad = 1;
                break;
            }
        for (int p = 0; p < fn->nparams; p++)
            for (int q = 0; q < p; q++)
                if (strcmp(fn->params[p], fn->params[q]) == 0) {
                    diag_error(d, fn->param_locs[p], "parameter '%s' of '%s' is named twice",
                               fn->params[p], fn->name);
                    fn->bad = 1;
                }
        if (fn->body->depth > AST_MAX_DEPTH || !check_body(file, d, fn, fn->body)) fn->bad = 1;
    }
    int **callees = calloc((size_t)n + 1, sizeof *callees);
    int *ncallees = calloc((size_t)n + 1, sizeof *ncallees);
    int *state = calloc((size_t)n + 1, sizeof *state);
    int *path = calloc((size_t)n + 1, sizeof *path);
    if (!callees || !ncallees || !state || !path) {
        fputs("stenc: out of memory\n", stderr);
        abort();
    }
    for (int f = 0; f < n; f++) {
        callees[f] = calloc((size_t)n + 1, sizeof **callees);
        if (!callees[f]) {
            fputs("stenc: out of memory\n", stderr);
            abort();
        }
        if (file->funcs[f]->body->depth <= AST_MAX_DEPTH)
            collect_callees(file, file->funcs[f]->body, callees[f], &ncallees[f]);
    }
    for (int f = 0; f < n; f++)
        if (state[f] == 0) find_cycles(file, d, f, state, path, 0, callees, ncallees);
    /* A function that calls a bad one is not inlined either (its calls would be 0). */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int f = 0; f < n; f++)
            for (int c = 0; c < ncallees[f] && !file->funcs[f]->bad; c++)
                if (file->funcs[callees[f][c]]->bad) file->funcs[f]->bad = changed = 1;
    }
    for (int f = 0; f < n; f++)
        free(callees[f]);
    free(callees);
    free(ncallees);
    free(state);
    free(path);
}

void func_warn_unused(const ast_file *file, diag *d) {
    for (int f = 0; f < file->nfuncs; f++)
        if (!file->funcs[f]->bad && file->funcs[f]->uses == 0)
            diag_warning(d, file->funcs[f]->loc, "function '%s' is never called",
                         file->funcs[f]->name);
}

/* ---- inlining ---------------------------------------------------------------------------- */

typedef struct inliner {
    ast_file *file;
    ast_stencil *st;
    diag *d;
    long budget; /* nodes the current top-level expression may still grow by */
    int nesting; /* calls being inlined around the current one: 0 for a call the stencil wrote */
} inliner;

static ast_expr *new_expr(inliner *in, const ast_expr *like) {
    ast_expr *e = ast_alloc(in->file->arena, sizeof *e);
    *e = *like;
    return e;
}

/* The literal 0 in place of a call that could not be inlined (after its error). */
static ast_expr *zero(inliner *in, ast_loc loc) {
    ast_expr *e = ast_alloc(in->file->arena, sizeof *e);
    e->kind = AST_EXPR_NUMBER;
    e->loc = loc;
    e->depth = 1;
    e->u.number.value = 0;
    e->u.number.text = "0";
    e->u.number.is_integer = 1;
    return e;
}

static int deeper(const ast_expr *a, const ast_expr *b) {
    return a->depth > b->depth ? a->depth : b->depth;
}

static ast_expr *expand(inliner *in, ast_expr *e);

/* A copy of `e` (a function's expression) with args[p] in place of parameter p; with f NULL,
 * a plain copy (of an argument, for one use of its parameter). */
static ast_expr *substitute(inliner *in, const ast_expr *e, const ast_funcdef *f,
                            ast_expr *const *args) {
    if (--in->budget < 0) return NULL;
    if (e->kind == AST_EXPR_REF && f) { /* a parameter (f's expression sees no other name) */
        const ast_expr *arg = args[param_index(f, e->u.ref.name)];
        return substitute(in, arg, NULL, NULL); /* a copy: each use gets its own nodes */
    }
    ast_expr *c = new_expr(in, e);
    switch (e->kind) {
    case AST_EXPR_UNARY:
        if (!(c->u.unary.operand = substitute(in, e->u.unary.operand, f, args))) return NULL;
        c->depth = c->u.unary.operand->depth + 1;
        break;
    case AST_EXPR_BINARY:
        c->u.binary.lhs = substitute(in, e->u.binary.lhs, f, args);
        c->u.binary.rhs = c->u.binary.lhs ? substitute(in, e->u.binary.rhs, f, args) : NULL;
        if (!c->u.binary.rhs) return NULL;
        c->depth = deeper(c->u.binary.lhs, c->u.binary.rhs) + 1;
        break;
    case AST_EXPR_TERNARY:
        c->u.ternary.cond = substitute(in, e->u.ternary.cond, f, args);
        c->u.ternary.then_expr =
            c->u.ternary.cond ? substitute(in, e->u.ternary.then_expr, f, args) : NULL;
        c->u.ternary.else_expr =
            c->u.ternary.then_expr ? substitute(in, e->u.ternary.else_expr, f, args) : NULL;
        if (!c->u.ternary.else_expr) return NULL;
        c->depth = deeper(c->u.ternary.cond, c->u.ternary.then_expr);
        c->depth =
            (c->depth > c->u.ternary.else_expr->depth ? c->depth : c->u.ternary.else_expr->depth) +
            1;
        break;
    case AST_EXPR_CALL:
        c->u.call.args =
            ast_alloc(in->file->arena, sizeof *c->u.call.args * (size_t)(e->u.call.nargs + 1));
        c->depth = 1;
        for (int a = 0; a < e->u.call.nargs; a++) {
            if (!(c->u.call.args[a] = substitute(in, e->u.call.args[a], f, args))) return NULL;
            if (c->u.call.args[a]->depth + 1 > c->depth) c->depth = c->u.call.args[a]->depth + 1;
        }
        break;
    case AST_EXPR_REF:
        if (e->u.ref.noffsets > 0) { /* an argument x[1,0]: its offsets, copied */
            c->u.ref.offset_exprs = ast_alloc(in->file->arena, sizeof *c->u.ref.offset_exprs *
                                                                   (size_t)e->u.ref.noffsets);
            for (int o = 0; o < e->u.ref.noffsets; o++)
                if (!(c->u.ref.offset_exprs[o] =
                          substitute(in, e->u.ref.offset_exprs[o], NULL, NULL)))
                    return NULL;
        }
        break;
    case AST_EXPR_NUMBER:
        break;
    }
    return c;
}

static void note_inlined(inliner *in, const char *name) {
    for (int k = 0; k < in->st->ninlined; k++)
        if (strcmp(in->st->inlined[k], name) == 0) return;
    ast_push(in->file->arena, (void ***)&in->st->inlined, &in->st->ninlined, (void *)name);
}

/* e with every call of the file's functions in it inlined (e itself may be replaced). */
static ast_expr *expand(inliner *in, ast_expr *e) {
    switch (e->kind) {
    case AST_EXPR_UNARY:
        e->u.unary.operand = expand(in, e->u.unary.operand);
        e->depth = e->u.unary.operand->depth + 1;
        return e;
    case AST_EXPR_BINARY:
        e->u.binary.lhs = expand(in, e->u.binary.lhs);
        e->u.binary.rhs = expand(in, e->u.binary.rhs);
        e->depth = deeper(e->u.binary.lhs, e->u.binary.rhs) + 1;
        return e;
    case AST_EXPR_TERNARY: {
        e->u.ternary.cond = expand(in, e->u.ternary.cond);
        e->u.ternary.then_expr = expand(in, e->u.ternary.then_expr);
        e->u.ternary.else_expr = expand(in, e->u.ternary.else_expr);
        const int d = deeper(e->u.ternary.cond, e->u.ternary.then_expr);
        e->depth = (d > e->u.ternary.else_expr->depth ? d : e->u.ternary.else_expr->depth) + 1;
        return e;
    }
    case AST_EXPR_REF:
        for (int o = 0; o < e->u.ref.noffsets; o++)
            e->u.ref.offset_exprs[o] = expand(in, e->u.ref.offset_exprs[o]);
        return e;
    case AST_EXPR_NUMBER:
        return e;
    case AST_EXPR_CALL:
        break;
    }
    int depth = 1;
    for (int a = 0; a < e->u.call.nargs; a++) {
        e->u.call.args[a] = expand(in, e->u.call.args[a]);
        if (e->u.call.args[a]->depth + 1 > depth) depth = e->u.call.args[a]->depth + 1;
    }
    e->depth = depth;
    if (ast_func_lookup(e->u.call.name) >= 0) return e; /* a built-in: the checker's */
    ast_funcdef *f = find_func(in->file, e->u.call.name);
    if (!f) { /* reported here, with the nearest of the built-ins and the file's functions */
        unknown_function(in->file, in->d, e);
        return zero(in, e->loc);
    }
    f->uses++; /* called, even where the call is wrong */
    if (f->bad) return zero(in, e->loc);
    if (e->u.call.nargs != f->nparams) {
        diag_error(in->d, e->loc, "'%s' takes %d argument%s, not %d", f->name, f->nparams,
                   f->nparams == 1 ? "" : "s", e->u.call.nargs);
        diag_note(in->d, f->loc, "'%s' is defined here", f->name);
        return zero(in, e->loc);
    }
    /* The arguments in place of the parameters, then the calls that brings in (no cycle:
     * the definitions were checked). Too large anywhere inside: one error, at the call the
     * stencil wrote. */
    if (in->budget < 0) return zero(in, e->loc);
    in->nesting++;
    ast_expr *body = substitute(in, f->body, f, e->u.call.args);
    if (body && in->budget >= 0) body = expand(in, body);
    in->nesting--;
    if (!body || in->budget < 0 || body->depth > AST_MAX_DEPTH) {
        if (in->nesting > 0) {
            in->budget = -1; /* the outermost call reports */
            return zero(in, e->loc);
        }
        diag_error(in->d, e->loc,
                   "inlining '%s' here makes an expression too large (more than %d operations "
                   "or %d levels deep)",
                   f->name, INLINE_NODE_BUDGET, AST_MAX_DEPTH);
        in->budget = INLINE_NODE_BUDGET; /* the rest of the expression starts afresh */
        return zero(in, e->loc);
    }
    note_inlined(in, f->name);
    return body;
}

static ast_expr *expand_top(inliner *in, ast_expr *e) {
    in->budget = INLINE_NODE_BUDGET;
    return e ? expand(in, e) : e;
}

static int inline_block(inliner *in, ast_block *b);

/* Returns the statement's new depth. */
static int inline_stmt(inliner *in, ast_stmt *s) {
    switch (s->kind) {
    case AST_STMT_LET:
        s->u.let.init = expand_top(in, s->u.let.init);
        s->depth = s->u.let.init->depth + 1;
        break;
    case AST_STMT_ASSIGN:
        for (int o = 0; o < s->u.assign.noffsets; o++)
            s->u.assign.offset_exprs[o] = expand_top(in, s->u.assign.offset_exprs[o]);
        s->u.assign.value = expand_top(in, s->u.assign.value);
        s->depth = s->u.assign.value->depth + 1;
        break;
    case AST_STMT_IF: {
        s->u.if_.cond = expand_top(in, s->u.if_.cond);
        int depth = s->u.if_.cond->depth;
        const int t = inline_block(in, &s->u.if_.then_block);
        depth = t > depth ? t : depth;
        if (s->u.if_.else_block) {
            const int e = inline_block(in, s->u.if_.else_block);
            depth = e > depth ? e : depth;
        }
        s->depth = depth + 1;
        break;
    }
    case AST_STMT_COLOR:
        s->u.color.expr = expand_top(in, s->u.color.expr);
        s->depth = s->u.color.expr->depth + 1;
        break;
    case AST_STMT_REDUCE:
        s->u.reduce.value = expand_top(in, s->u.reduce.value);
        s->depth = s->u.reduce.value->depth + 1;
        break;
    }
    return s->depth;
}

static int inline_block(inliner *in, ast_block *b) {
    int depth = 0;
    for (int n = 0; n < b->nstmts; n++) {
        if (!b->stmts[n]) continue;
        const int d = inline_stmt(in, b->stmts[n]);
        depth = d > depth ? d : depth;
    }
    return depth;
}

void func_inline(ast_file *file, ast_stencil *st, diag *d) {
    if (file->nfuncs == 0) return;
    inliner in = {file, st, d, INLINE_NODE_BUDGET, 0};
    inline_block(&in, &st->body);
}
