/* The checker. For each stencil: the header (dims, type, declarations), then the body in
 * order with a stack of visible lets and, per output, whether it is assigned on the current
 * path. At an if, both branches start from the state before it and the state after is their
 * intersection, so "assigned on every path" falls out of the walk. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "color.h"

/* A neighbour read (offset != 0) of an inout array, to be proven against the colouring. */
typedef struct inout_read {
    const ast_decl *decl;
    int offset[AST_MAX_DIMS];
    ast_loc loc; /* its first occurrence */
} inout_read;

typedef struct checker {
    diag *d;
    ast_stencil *st;
    int dims;        /* the stencil's dims, or 0 when unknown (no offset checks) */
    ast_stmt **lets; /* visible lets, innermost last */
    int nlets, caplets;
    int noutputs, ninouts;
    unsigned char *inout_assigned; /* per inout position: assigned anywhere */
    unsigned char *assigned;       /* per output position: assigned on the current path */
    unsigned char *ever;           /* per output position: assigned anywhere */
    inout_read *inout_reads;       /* distinct neighbour reads of inout arrays */
    int ninout_reads, capinout_reads;
} checker;

static const char *const reserved[] = {
    /* the language */
    "stencil",
    "dims",
    "type",
    "scalar",
    "input",
    "output",
    "inout",
    "let",
    "if",
    "else",
    "color",
    "reduce",
    "float",
    "double",
    /* C and the C++ of CUDA sources */
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "enum",
    "extern",
    "for",
    "goto",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "bool",
    "true",
    "false",
    "class",
    "new",
    "delete",
    "this",
    "template",
    "namespace",
    "operator",
    "private",
    "public",
    "protected",
    "virtual",
    "friend",
    "typename",
    "using",
    "nullptr",
    "main",
    /* C functions that generated code calls */
    "fmin",
    "fmax",
    "fminf",
    "fmaxf",
    "sqrtf",
    "expf",
    "logf",
    "sinf",
    "cosf",
    "tanf",
    "fabsf",
    "powf",
    "floorf",
    "ceilf",
};

int check_reserved_name(const char *name) {
    if (name[0] == '_' || strncmp(name, "stenc_", 6) == 0) return 1;
    if (ast_func_lookup(name) >= 0) return 1;
    for (int x = 0; x < AST_INDEX_COUNT; x++)
        if (strcmp(name, ast_index_name((ast_index)x)) == 0) return 1;
    for (size_t r = 0; r < sizeof reserved / sizeof reserved[0]; r++)
        if (strcmp(name, reserved[r]) == 0) return 1;
    return 0;
}

static int lookup_index(const char *name) {
    for (int x = 0; x < AST_INDEX_COUNT; x++)
        if (strcmp(name, ast_index_name((ast_index)x)) == 0) return x;
    return -1;
}

static ast_stmt *lookup_let(const checker *c, const char *name) {
    for (int n = c->nlets - 1; n >= 0; n--)
        if (strcmp(c->lets[n]->u.let.name, name) == 0) return c->lets[n];
    return NULL;
}

static void push_let(checker *c, ast_stmt *s) {
    if (c->nlets == c->caplets) {
        int cap = c->caplets ? 2 * c->caplets : 16;
        ast_stmt **grown = realloc(c->lets, (size_t)cap * sizeof *grown);
        if (!grown) {
            fputs("stenc: out of memory\n", stderr);
            abort();
        }
        c->lets = grown;
        c->caplets = cap;
    }
    c->lets[c->nlets++] = s;
}

/* Lets leaving scope: warn about the unused ones. */
static void pop_lets(checker *c, int mark) {
    for (int n = mark; n < c->nlets && !c->st->has_error; n++)
        if (c->lets[n]->u.let.reads == 0)
            diag_warning(c->d, c->lets[n]->u.let.name_loc, "'%s' is defined but never used",
                         c->lets[n]->u.let.name);
    c->nlets = mark;
}

/* ---- offsets ----------------------------------------------------------------------------- */

/* An offset is an integer literal with any number of unary minus signs. */
static int fold_offset(checker *c, const ast_expr *e, int *value) {
    int sign = 1;
    const ast_expr *at = e;
    while (at->kind == AST_EXPR_UNARY && at->u.unary.op == AST_OP_NEG) {
        sign = -sign;
        at = at->u.unary.operand;
    }
    if (at->kind != AST_EXPR_NUMBER) {
        diag_error(c->d, e->loc, "an offset must be an integer constant");
        return 0;
    }
    if (!at->u.number.is_integer) {
        diag_error(c->d, e->loc, "an offset must be an integer constant, not '%s'",
                   at->u.number.text);
        return 0;
    }
    double v = at->u.number.value;
    if (v > AST_MAX_RADIUS) {
        diag_error(c->d, e->loc, "offset %s%.0f is beyond the largest supported radius (%d)",
                   sign < 0 ? "-" : "", v < 1e15 ? v : 1e15, AST_MAX_RADIUS);
        return 0;
    }
    *value = sign * (int)v;
    return 1;
}

/* Fold the offsets of a reference to array `name`; 1 when all are valid constants. */
static int fold_offsets(checker *c, const char *name, ast_expr **exprs, int n, ast_loc loc,
                        int offset[AST_MAX_DIMS]) {
    for (int k = 0; k < AST_MAX_DIMS; k++)
        offset[k] = 0;
    if (n == 0) return 1; /* the centre */
    int ok = 1;
    if (c->dims > 0 && n != c->dims) {
        diag_error(c->d, loc, "'%s' has %d offset%s, but stencil '%s' has %d dimension%s", name, n,
                   n == 1 ? "" : "s", c->st->name, c->dims, c->dims == 1 ? "" : "s");
        ok = 0;
    }
    for (int k = 0; k < n; k++) {
        int v = 0;
        if (!fold_offset(c, exprs[k], &v))
            ok = 0;
        else if (k < AST_MAX_DIMS)
            offset[k] = v;
    }
    return ok;
}

static int is_centre(const int offset[AST_MAX_DIMS]) {
    for (int k = 0; k < AST_MAX_DIMS; k++)
        if (offset[k] != 0) return 0;
    return 1;
}

/* "[1,-1]": an offset as written, with the stencil's number of dimensions. */
static void format_offset(char *buf, size_t size, const int offset[AST_MAX_DIMS], int dims) {
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int k = 0; k < dims && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%d", k ? "," : "", offset[k]);
    if (used < size) snprintf(buf + used, size - used, "]");
}

static void note_inout_read(checker *c, const ast_decl *d, const int offset[AST_MAX_DIMS],
                            ast_loc loc) {
    if (is_centre(offset)) return;
    for (int n = 0; n < c->ninout_reads; n++)
        if (c->inout_reads[n].decl == d &&
            memcmp(c->inout_reads[n].offset, offset, sizeof c->inout_reads[n].offset) == 0)
            return;
    if (c->ninout_reads == c->capinout_reads) {
        int cap = c->capinout_reads ? 2 * c->capinout_reads : 16;
        inout_read *grown = realloc(c->inout_reads, (size_t)cap * sizeof *grown);
        if (!grown) {
            fputs("stenc: out of memory\n", stderr);
            abort();
        }
        c->inout_reads = grown;
        c->capinout_reads = cap;
    }
    inout_read *r = &c->inout_reads[c->ninout_reads++];
    r->decl = d;
    memcpy(r->offset, offset, sizeof r->offset);
    r->loc = loc;
}

/* The reduce statement named `name` (reductions stand at the top level), or NULL. */
static const ast_stmt *find_reduce(const ast_stencil *st, const char *name) {
    for (int n = 0; n < st->body.nstmts; n++) {
        const ast_stmt *s = st->body.stmts[n];
        if (s->kind == AST_STMT_REDUCE && strcmp(s->u.reduce.name, name) == 0) return s;
    }
    return NULL;
}

/* ---- expressions ------------------------------------------------------------------------- */

static void check_expr(checker *c, ast_expr *e);

static void no_offsets(checker *c, const ast_expr *e, const char *what) {
    if (e->u.ref.noffsets > 0)
        diag_error(c->d, e->loc, "%s '%s' takes no offsets", what, e->u.ref.name);
}

static void check_ref(checker *c, ast_expr *e) {
    const char *name = e->u.ref.name;
    ast_stmt *let = lookup_let(c, name);
    if (let) {
        no_offsets(c, e, "let temporary");
        e->u.ref.sym = AST_SYM_LET;
        e->u.ref.let = let;
        let->u.let.reads++;
        return;
    }
    ast_decl *d = (ast_decl *)ast_find_decl(c->st, name);
    if (d) {
        d->reads++;
        e->u.ref.decl = d;
        switch (d->kind) {
        case AST_DECL_SCALAR:
            no_offsets(c, e, "scalar");
            e->u.ref.sym = AST_SYM_SCALAR;
            return;
        case AST_DECL_INPUT:
            if (fold_offsets(c, name, e->u.ref.offset_exprs, e->u.ref.noffsets, e->loc,
                             e->u.ref.offset))
                e->u.ref.sym = AST_SYM_INPUT;
            return;
        case AST_DECL_OUTPUT: {
            int offset[AST_MAX_DIMS];
            if (!fold_offsets(c, name, e->u.ref.offset_exprs, e->u.ref.noffsets, e->loc, offset))
                return;
            if (!is_centre(offset)) {
                diag_error(c->d, e->loc,
                           "output '%s' can only be read at the centre point (offset 0), after "
                           "it is assigned",
                           name);
                return;
            }
            if (!c->assigned[d->position]) {
                diag_error(c->d, e->loc, "output '%s' is read before it is assigned", name);
                return;
            }
            e->u.ref.sym = AST_SYM_OUTPUT;
            return;
        }
        case AST_DECL_INOUT:
            if (fold_offsets(c, name, e->u.ref.offset_exprs, e->u.ref.noffsets, e->loc,
                             e->u.ref.offset)) {
                e->u.ref.sym = AST_SYM_INOUT;
                note_inout_read(c, d, e->u.ref.offset, e->loc);
            }
            return;
        }
        return;
    }
    if (find_reduce(c->st, name)) {
        diag_error(c->d, e->loc,
                   "'%s' is a reduction: the launcher returns it, the body cannot read it", name);
        return;
    }
    int index = lookup_index(name);
    if (index >= 0) {
        no_offsets(c, e, "index variable");
        int need = index == AST_INDEX_K || index == AST_INDEX_NK   ? 3
                   : index == AST_INDEX_J || index == AST_INDEX_NJ ? 2
                                                                   : 1;
        if (c->dims > 0 && c->dims < need) {
            diag_error(c->d, e->loc, "'%s' needs dims %d or more, but stencil '%s' has dims %d",
                       name, need, c->st->name, c->dims);
            return;
        }
        e->u.ref.sym = AST_SYM_INDEX;
        e->u.ref.index = (ast_index)index;
        return;
    }
    if (ast_func_lookup(name) >= 0) {
        diag_error(c->d, e->loc, "'%s' is a function: call it as %s(...)", name, name);
        return;
    }
    diag_error(c->d, e->loc, "'%s' is not declared in stencil '%s'", name, c->st->name);
}

static void check_call(checker *c, ast_expr *e) {
    for (int a = 0; a < e->u.call.nargs; a++)
        check_expr(c, e->u.call.args[a]);
    const char *name = e->u.call.name;
    int f = ast_func_lookup(name);
    if (f < 0) {
        diag_error(c->d, e->u.call.name_loc,
                   "unknown function '%s' (the functions are sqrt exp log sin cos tan fabs abs "
                   "min max pow floor ceil)",
                   name);
        return;
    }
    const ast_func_info *info = ast_func_get((ast_func)f);
    if (e->u.call.nargs != info->arity) {
        diag_error(c->d, e->loc, "'%s' takes %d argument%s, not %d", name, info->arity,
                   info->arity == 1 ? "" : "s", e->u.call.nargs);
        return;
    }
    e->u.call.func = f;
}

static void check_expr(checker *c, ast_expr *e) {
    switch (e->kind) {
    case AST_EXPR_NUMBER:
        return;
    case AST_EXPR_REF:
        check_ref(c, e);
        return;
    case AST_EXPR_CALL:
        check_call(c, e);
        return;
    case AST_EXPR_UNARY:
        check_expr(c, e->u.unary.operand);
        return;
    case AST_EXPR_BINARY:
        check_expr(c, e->u.binary.lhs);
        check_expr(c, e->u.binary.rhs);
        if (e->u.binary.op == AST_OP_MOD)
            diag_error(c->d, e->loc, "'%%' is only allowed in colour expressions");
        return;
    case AST_EXPR_TERNARY:
        check_expr(c, e->u.ternary.cond);
        check_expr(c, e->u.ternary.then_expr);
        check_expr(c, e->u.ternary.else_expr);
        return;
    }
}

/* ---- statements -------------------------------------------------------------------------- */

static void check_block(checker *c, ast_block *b);

static void check_let(checker *c, ast_stmt *s) {
    const char *name = s->u.let.name;
    check_expr(c, s->u.let.init); /* before the let is visible: `let t = t` is an error */
    const ast_decl *d = ast_find_decl(c->st, name);
    const ast_stmt *other = lookup_let(c, name);
    if (check_reserved_name(name)) {
        diag_error(c->d, s->u.let.name_loc, "'%s' is a reserved name", name);
    } else if (d) {
        diag_error(c->d, s->u.let.name_loc, "let '%s' shadows the %s '%s' declared at %d:%d", name,
                   ast_decl_kind_name(d->kind), name, d->loc.first_line, d->loc.first_col);
    } else if (other) {
        diag_error(c->d, s->u.let.name_loc, "'%s' is already defined at %d:%d", name,
                   other->u.let.name_loc.first_line, other->u.let.name_loc.first_col);
    }
    s->u.let.id = c->st->nlets++;
    push_let(c, s);
}

static void check_assign(checker *c, ast_stmt *s) {
    const char *name = s->u.assign.name;
    ast_loc at = s->u.assign.name_loc;
    check_expr(c, s->u.assign.value);
    if (lookup_let(c, name)) {
        diag_error(c->d, at, "cannot assign to '%s': let temporaries are read-only", name);
        return;
    }
    const ast_decl *d = ast_find_decl(c->st, name);
    if (!d) {
        if (lookup_index(name) >= 0 || ast_func_lookup(name) >= 0)
            diag_error(c->d, at, "cannot assign to '%s'", name);
        else
            diag_error(c->d, at, "'%s' is not declared in stencil '%s'", name, c->st->name);
        return;
    }
    if (d->kind == AST_DECL_INPUT || d->kind == AST_DECL_SCALAR) {
        diag_error(c->d, at, "cannot assign to %s '%s': only outputs and inouts are written",
                   ast_decl_kind_name(d->kind), name);
        return;
    }
    if (d->kind == AST_DECL_INOUT) {
        int offset[AST_MAX_DIMS];
        c->inout_assigned[d->position] = 1;
        if (!fold_offsets(c, name, s->u.assign.offset_exprs, s->u.assign.noffsets, at, offset))
            return;
        if (!is_centre(offset)) {
            diag_error(c->d, at, "inout '%s' can only be written at the centre point (offset 0)",
                       name);
            return;
        }
        s->u.assign.decl = d;
        return;
    }
    /* Even a faulty assignment counts as one, so that no "never assigned" error follows. */
    c->assigned[d->position] = 1;
    c->ever[d->position] = 1;
    int offset[AST_MAX_DIMS];
    if (!fold_offsets(c, name, s->u.assign.offset_exprs, s->u.assign.noffsets, at, offset)) return;
    if (!is_centre(offset)) {
        diag_error(c->d, at, "output '%s' can only be written at the centre point (offset 0)",
                   name);
        return;
    }
    s->u.assign.decl = d;
    c->assigned[d->position] = 1;
    c->ever[d->position] = 1;
}

static void check_if(checker *c, ast_stmt *s) {
    check_expr(c, s->u.if_.cond);
    size_t n = (size_t)c->noutputs;
    unsigned char *before = malloc(n + 1), *after_then = malloc(n + 1);
    if (!before || !after_then) {
        fputs("stenc: out of memory\n", stderr);
        abort();
    }
    memcpy(before, c->assigned, n);
    check_block(c, &s->u.if_.then_block);
    memcpy(after_then, c->assigned, n);
    memcpy(c->assigned, before, n);
    if (s->u.if_.else_block) check_block(c, s->u.if_.else_block);
    for (size_t o = 0; o < n; o++)
        c->assigned[o] = c->assigned[o] && after_then[o];
    free(before);
    free(after_then);
}

static void check_reduce(checker *c, ast_stmt *s) {
    const char *op = s->u.reduce.op, *name = s->u.reduce.name;
    ast_loc at = s->u.reduce.name_loc;
    check_expr(c, s->u.reduce.value);
    s->u.reduce.rop = strcmp(op, "sum") == 0   ? AST_REDUCE_SUM
                      : strcmp(op, "max") == 0 ? AST_REDUCE_MAX
                      : strcmp(op, "min") == 0 ? AST_REDUCE_MIN
                                               : AST_REDUCE_NONE;
    if (s->u.reduce.rop == AST_REDUCE_NONE)
        diag_error(c->d, s->u.reduce.op_loc, "unknown reduction '%s' (sum, max or min)", op);
    s->u.reduce.id = c->st->nreduces++;
    const ast_decl *d = ast_find_decl(c->st, name);
    const ast_stmt *let = lookup_let(c, name);
    const ast_stmt *first = find_reduce(c->st, name);
    if (check_reserved_name(name)) {
        diag_error(c->d, at, "'%s' is a reserved name", name);
    } else if (d) {
        diag_error(c->d, at, "reduction '%s' has the name of the %s declared at %d:%d", name,
                   ast_decl_kind_name(d->kind), d->loc.first_line, d->loc.first_col);
    } else if (let) {
        diag_error(c->d, at, "'%s' is already defined at %d:%d", name,
                   let->u.let.name_loc.first_line, let->u.let.name_loc.first_col);
    } else if (first && first != s) {
        diag_error(c->d, at, "reduction '%s' is already defined at %d:%d", name,
                   first->u.reduce.name_loc.first_line, first->u.reduce.name_loc.first_col);
    }
}

static void check_stmt(checker *c, ast_stmt *s) {
    switch (s->kind) {
    case AST_STMT_LET:
        check_let(c, s);
        return;
    case AST_STMT_ASSIGN:
        check_assign(c, s);
        return;
    case AST_STMT_IF:
        check_if(c, s);
        return;
    case AST_STMT_COLOR:
        if (c->st->color) {
            diag_error(c->d, s->loc, "'color' is declared twice in stencil '%s' (first at %d:%d)",
                       c->st->name, c->st->color->loc.first_line, c->st->color->loc.first_col);
            return;
        }
        c->st->color = s; /* analysed once the body is checked */
        return;
    case AST_STMT_REDUCE:
        check_reduce(c, s);
        return;
    }
}

static void check_block(checker *c, ast_block *b) {
    int mark = c->nlets;
    for (int n = 0; n < b->nstmts; n++)
        check_stmt(c, b->stmts[n]);
    pop_lets(c, mark);
}

/* ---- stencils ---------------------------------------------------------------------------- */

static void check_decls(checker *c) {
    ast_stencil *st = c->st;
    for (int n = 0; n < st->ndecls; n++) {
        ast_decl *d = st->decls[n];
        if (check_reserved_name(d->name)) {
            diag_error(c->d, d->loc, "'%s' is a reserved name", d->name);
            continue;
        }
        for (int m = 0; m < n; m++) {
            if (strcmp(st->decls[m]->name, d->name) == 0) {
                diag_error(c->d, d->loc, "'%s' is already declared at %d:%d", d->name,
                           st->decls[m]->loc.first_line, st->decls[m]->loc.first_col);
                break;
            }
        }
        if (d->kind == AST_DECL_OUTPUT) c->noutputs++;
        if (d->kind == AST_DECL_INOUT) c->ninouts++;
    }
    if (st->dims == 0)
        diag_error(c->d, st->loc, "stencil '%s' has no 'dims' declaration (dims 1, 2 or 3;)",
                   st->name);
    if (st->type == AST_TYPE_NONE && st->type_loc.first_line == 0)
        diag_error(c->d, st->loc,
                   "stencil '%s' has no 'type' declaration (type float; or type double;)",
                   st->name);
    /* A pure reduction writes nothing but is a stencil all the same. */
    int reduces = 0;
    for (int n = 0; n < st->body.nstmts; n++)
        reduces += st->body.stmts[n]->kind == AST_STMT_REDUCE;
    if (c->noutputs == 0 && c->ninouts == 0 && reduces == 0)
        diag_error(c->d, st->loc, "stencil '%s' has no output (no output, inout or reduce)",
                   st->name);
    /* The launch takes its extents from the fields: a reduction needs one. */
    int inputs = 0;
    for (int n = 0; n < st->ndecls; n++)
        inputs += st->decls[n]->kind == AST_DECL_INPUT;
    if (c->noutputs == 0 && c->ninouts == 0 && reduces > 0 && inputs == 0)
        diag_error(c->d, st->loc,
                   "stencil '%s' reduces over no array: declare the input, inout or output whose "
                   "interior it runs over",
                   st->name);
}

static int body_depth(const ast_block *b) {
    int depth = 0;
    for (int n = 0; n < b->nstmts; n++)
        if (b->stmts[n]->depth > depth) depth = b->stmts[n]->depth;
    return depth;
}

/* The colouring, and every neighbour read of an inout array against it. */
static void check_colors(checker *c, ast_arena *arena) {
    ast_stencil *st = c->st;
    char off[64];
    if (st->color) {
        if (st->dims < 1) return; /* reported */
        if (!color_analyze(st, st->color->u.color.expr, arena, c->d)) return;
        for (int n = 0; n < c->ninout_reads; n++) {
            const inout_read *r = &c->inout_reads[n];
            int x[AST_MAX_DIMS];
            if (color_offset_is_safe(st, r->offset, x)) continue;
            int y[AST_MAX_DIMS];
            char at[64], there[64];
            for (int k = 0; k < AST_MAX_DIMS; k++)
                y[k] = x[k] + r->offset[k];
            format_offset(off, sizeof off, r->offset, st->dims);
            format_offset(at, sizeof at, x, st->dims);
            format_offset(there, sizeof there, y, st->dims);
            diag_error(c->d, r->loc,
                       "the read of inout '%s' at offset %s can touch a point of its own colour: "
                       "point %s and point %s both have colour %d",
                       r->decl->name, off, at, there, color_at(st, x[0], x[1], x[2]));
        }
        return;
    }
    for (int n = 0; n < c->ninout_reads; n++) {
        const inout_read *r = &c->inout_reads[n];
        format_offset(off, sizeof off, r->offset, st->dims > 0 ? st->dims : AST_MAX_DIMS);
        diag_error(c->d, r->loc,
                   "inout '%s' is read at offset %s, but stencil '%s' has no 'color': without "
                   "one an inout can only be read at the centre",
                   r->decl->name, off, st->name);
    }
}

static void check_stencil(diag *d, ast_stencil *st, ast_arena *arena) {
    checker c = {.d = d, .st = st, .dims = st->dims > 0 ? st->dims : 0};
    st->nlets = 0;
    st->nreduces = 0;
    st->color = NULL;
    st->ncolors = 0;
    st->color_table = NULL;
    check_decls(&c);
    /* The parser already reported a body too deep to walk recursively. */
    if (body_depth(&st->body) > AST_MAX_DEPTH) return;
    c.assigned = calloc((size_t)c.noutputs + 1, 1);
    c.ever = calloc((size_t)c.noutputs + 1, 1);
    c.inout_assigned = calloc((size_t)c.ninouts + 1, 1);
    if (!c.assigned || !c.ever || !c.inout_assigned) {
        fputs("stenc: out of memory\n", stderr);
        abort();
    }
    check_block(&c, &st->body);
    check_colors(&c, arena);
    /* After a syntax error statements are missing: what is unassigned or unused is likely a
     * consequence, not news. */
    for (int n = 0; n < st->ndecls && !st->has_error; n++) {
        const ast_decl *dc = st->decls[n];
        if (dc->kind == AST_DECL_OUTPUT && !c.assigned[dc->position])
            diag_error(d, dc->loc,
                       c.ever[dc->position] ? "output '%s' is not assigned on every path"
                                            : "output '%s' is never assigned",
                       dc->name);
        if ((dc->kind == AST_DECL_INPUT || dc->kind == AST_DECL_SCALAR) && dc->reads == 0)
            diag_warning(d, dc->loc, "%s '%s' is never used", ast_decl_kind_name(dc->kind),
                         dc->name);
        if (dc->kind == AST_DECL_INOUT && !c.inout_assigned[dc->position])
            diag_warning(d, dc->loc, "inout '%s' is never assigned (declare it as an input)",
                         dc->name);
    }
    free(c.lets);
    free(c.inout_reads);
    free(c.inout_assigned);
    free(c.assigned);
    free(c.ever);
}

int check_file(ast_file *file, diag *d) {
    int before = d->errors;
    for (int n = 0; n < file->nstencils; n++) {
        ast_stencil *st = file->stencils[n];
        for (int m = 0; m < n; m++) {
            if (strcmp(file->stencils[m]->name, st->name) == 0) {
                diag_error(d, st->loc, "stencil '%s' is already defined at %d:%d", st->name,
                           file->stencils[m]->loc.first_line, file->stencils[m]->loc.first_col);
                break;
            }
        }
        if (check_reserved_name(st->name))
            diag_error(d, st->loc, "'%s' is a reserved name", st->name);
        check_stencil(d, st, file->arena);
    }
    if (file->nstencils == 0 && d->errors == before) {
        ast_loc start = {1, 1, 1, 0};
        diag_warning(d, start, "the file defines no stencil");
    }
    return d->errors - before;
}
