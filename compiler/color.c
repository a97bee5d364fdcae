/* Colour analysis (see color.h): validate the expression, derive its period per dimension,
 * tabulate one period box, and check reads against it. */
#include "color.h"

#include <string.h>

static const char *const axis_name[AST_MAX_DIMS] = {"i", "j", "k"};

/* Periods of a node per dimension. per: the period of its value (0: not periodic). ring: the
 * period of its value modulo any m, where a bare index variable counts as period 1 because the
 * enclosing `% m` contributes m for it (the ring operations + - * commute with mod m). */
typedef struct periods {
    long per[AST_MAX_DIMS];
    long ring[AST_MAX_DIMS];
} periods;

/* Periods above this are too large whatever they are: stop growing them (no overflow). */
enum { PERIOD_CAP = COLOR_MAX_PERIOD + 1 };

static long gcd(long a, long b) {
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* lcm of two periods, 0 (not periodic) absorbing, capped at PERIOD_CAP. */
static long lcm_capped(long a, long b) {
    if (a == 0 || b == 0) return 0;
    long l = a / gcd(a, b) * b;
    return l > PERIOD_CAP ? PERIOD_CAP : l;
}

/* Euclidean modulo for m > 0. */
static long emod(long a, long m) {
    long r = a % m;
    return r < 0 ? r + m : r;
}

/* Evaluate at (i, j, k) = x; 0 on overflow. The expression was validated. */
static int eval(const ast_expr *e, const long x[AST_MAX_DIMS], long *out) {
    long a, b;
    switch (e->kind) {
    case AST_EXPR_NUMBER:
        *out = (long)e->u.number.value;
        return 1;
    case AST_EXPR_REF:
        *out = x[e->u.ref.index];
        return 1;
    case AST_EXPR_UNARY:
        if (!eval(e->u.unary.operand, x, &a)) return 0;
        return !__builtin_sub_overflow(0L, a, out);
    case AST_EXPR_BINARY:
        if (!eval(e->u.binary.lhs, x, &a) || !eval(e->u.binary.rhs, x, &b)) return 0;
        switch (e->u.binary.op) {
        case AST_OP_ADD:
            return !__builtin_add_overflow(a, b, out);
        case AST_OP_SUB:
            return !__builtin_sub_overflow(a, b, out);
        case AST_OP_MUL:
            return !__builtin_mul_overflow(a, b, out);
        case AST_OP_MOD:
            *out = emod(a, b);
            return 1;
        default:
            return 0;
        }
    default:
        return 0;
    }
}

static int uses_index(const ast_expr *e) {
    switch (e->kind) {
    case AST_EXPR_REF:
        return 1;
    case AST_EXPR_UNARY:
        return uses_index(e->u.unary.operand);
    case AST_EXPR_BINARY:
        return uses_index(e->u.binary.lhs) || uses_index(e->u.binary.rhs);
    default:
        return 0;
    }
}

/* Check that `e` is a colour expression; resolve its index variables (ref.sym, ref.index) and
 * compute its periods. Returns 0 after reporting an error. */
static int validate(const ast_stencil *st, ast_expr *e, periods *p, diag *d) {
    for (int dim = 0; dim < AST_MAX_DIMS; dim++)
        p->per[dim] = p->ring[dim] = 1;
    switch (e->kind) {
    case AST_EXPR_NUMBER:
        if (!e->u.number.is_integer || e->u.number.value > 1e15) {
            diag_error(d, e->loc, "a colour expression takes integer literals, not '%s'",
                       e->u.number.text);
            return 0;
        }
        return 1;
    case AST_EXPR_REF: {
        const char *name = e->u.ref.name;
        for (int dim = 0; dim < AST_MAX_DIMS; dim++) {
            if (strcmp(name, axis_name[dim]) != 0) continue;
            if (e->u.ref.noffsets > 0) {
                diag_error(d, e->loc, "index variable '%s' takes no offsets", name);
                return 0;
            }
            if (dim >= st->dims) {
                diag_error(d, e->loc, "'%s' needs dims %d or more, but stencil '%s' has dims %d",
                           name, dim + 1, st->name, st->dims);
                return 0;
            }
            e->u.ref.sym = AST_SYM_INDEX;
            e->u.ref.index = (ast_index)dim;
            p->per[dim] = 0;
            return 1;
        }
        diag_error(d, e->loc,
                   "'%s' cannot appear in a colour expression (only i, j, k, integer literals, "
                   "+ - * and %%)",
                   name);
        return 0;
    }
    case AST_EXPR_UNARY:
        if (e->u.unary.op != AST_OP_NEG) break;
        return validate(st, e->u.unary.operand, p, d);
    case AST_EXPR_BINARY: {
        ast_op op = e->u.binary.op;
        if (op != AST_OP_ADD && op != AST_OP_SUB && op != AST_OP_MUL && op != AST_OP_MOD) break;
        periods a, b;
        int ok = validate(st, e->u.binary.lhs, &a, d);
        ok = validate(st, e->u.binary.rhs, &b, d) && ok;
        if (!ok) return 0;
        if (op == AST_OP_MOD) {
            long m = 0;
            const long origin[AST_MAX_DIMS] = {0, 0, 0};
            if (uses_index(e->u.binary.rhs) || !eval(e->u.binary.rhs, origin, &m) || m < 1) {
                diag_error(d, e->u.binary.rhs->loc,
                           "the right operand of '%%' in a colour expression must be a positive "
                           "integer constant");
                return 0;
            }
            long mc = m > PERIOD_CAP ? PERIOD_CAP : m;
            for (int dim = 0; dim < AST_MAX_DIMS; dim++) {
                p->per[dim] = a.per[dim] ? a.per[dim] : lcm_capped(mc, a.ring[dim]);
                p->ring[dim] = p->per[dim];
            }
            return 1;
        }
        for (int dim = 0; dim < AST_MAX_DIMS; dim++) {
            p->per[dim] = lcm_capped(a.per[dim], b.per[dim]);
            p->ring[dim] = lcm_capped(a.ring[dim], b.ring[dim]);
        }
        return 1;
    }
    default:
        break;
    }
    diag_error(d, e->loc,
               "a colour expression is integer arithmetic over i, j, k: integer literals, + - * "
               "and %% only");
    return 0;
}

int color_analyze(ast_stencil *st, const ast_expr *expr, ast_arena *arena, diag *d) {
    ast_expr *e = (ast_expr *)expr; /* validate() resolves the index variables in place */
    periods p;
    if (st->dims < 1 || st->dims > AST_MAX_DIMS || !validate(st, e, &p, d)) return 0;
    int period[AST_MAX_DIMS] = {1, 1, 1};
    long box = 1;
    for (int dim = 0; dim < st->dims; dim++) {
        if (p.per[dim] == 0) {
            diag_error(d, e->loc,
                       "the colour expression is not periodic in %s: use %s only inside '%% N' "
                       "(as in (i + j) %% 2)",
                       axis_name[dim], axis_name[dim]);
            return 0;
        }
        if (p.per[dim] > COLOR_MAX_PERIOD) {
            diag_error(d, e->loc,
                       "the colour expression's period in %s is too large (more than %d)",
                       axis_name[dim], COLOR_MAX_PERIOD);
            return 0;
        }
        period[dim] = (int)p.per[dim];
        box *= p.per[dim];
    }
    if (box > COLOR_MAX_BOX) {
        diag_error(d, e->loc,
                   "the colour expression's period box (%d x %d x %d) is too large (more than %d "
                   "points)",
                   period[0], period[1], period[2], COLOR_MAX_BOX);
        return 0;
    }
    unsigned char *table = ast_alloc(arena, (size_t)box);
    unsigned char seen[COLOR_MAX_COLORS] = {0};
    int ncolors = 0;
    for (long at = 0; at < box; at++) {
        long x[AST_MAX_DIMS] = {at % period[0], at / period[0] % period[1],
                                at / period[0] / period[1]};
        long v;
        if (!eval(e, x, &v)) {
            diag_error(d, e->loc, "the colour expression overflows at (%ld,%ld,%ld)", x[0], x[1],
                       x[2]);
            return 0;
        }
        if (v < 0 || v >= COLOR_MAX_COLORS) {
            diag_error(d, e->loc,
                       "the colour expression is %ld at (%ld,%ld,%ld): colours are 0..%d (use "
                       "'%%' to keep it in range)",
                       v, x[0], x[1], x[2], COLOR_MAX_COLORS - 1);
            return 0;
        }
        table[at] = (unsigned char)v;
        seen[v] = 1;
        if (v + 1 > ncolors) ncolors = (int)v + 1;
    }
    for (int c = 0; c < ncolors; c++) {
        if (!seen[c]) {
            diag_error(d, e->loc,
                       "the colour expression never takes the value %d, but takes %d: the "
                       "colours must be 0, 1, ..., n-1",
                       c, ncolors - 1);
            return 0;
        }
    }
    st->ncolors = ncolors;
    memcpy(st->color_period, period, sizeof period);
    st->color_table = table;
    return 1;
}

int color_at(const ast_stencil *st, long i, long j, long k) {
    const int *p = st->color_period;
    return st->color_table[emod(i, p[0]) + p[0] * (emod(j, p[1]) + p[1] * emod(k, p[2]))];
}

int color_offset_is_safe(const ast_stencil *st, const int offset[AST_MAX_DIMS],
                         int witness[AST_MAX_DIMS]) {
    const int *p = st->color_period;
    for (int k = 0; k < p[2]; k++)
        for (int j = 0; j < p[1]; j++)
            for (int i = 0; i < p[0]; i++) {
                if (color_at(st, i, j, k) !=
                    color_at(st, i + offset[0], j + offset[1], k + offset[2]))
                    continue;
                witness[0] = i, witness[1] = j, witness[2] = k;
                return 0;
            }
    return 1;
}
