/* The random stencil generator and its evaluator (see gen_stencil.h). The tree here is not the
 * compiler's AST on purpose: a bug shared by the compiler and its own tree walk would hide. */
#include "gen_stencil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- random numbers (splitmix64: the same sequence everywhere) ---------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int below(rng *r, int n) {
    return (int)(rnd(r) % (uint64_t)n);
}
static int chance(rng *r, int percent) {
    return below(r, 100) < percent;
}
static int between(rng *r, int lo, int hi) {
    return lo + below(r, hi - lo + 1);
}

/* ---- the tree ---------------------------------------------------------------------------- */

enum { N_NUM = 1, N_SCALAR, N_FIELD, N_LET, N_INDEX, N_UNARY, N_BINARY, N_TERNARY, N_CALL };
enum {
    OP_NEG = 1,
    OP_PLUS,
    OP_NOT,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_EQ,
    OP_NE,
    OP_AND,
    OP_OR
};
enum {
    F_SQRT,
    F_EXP,
    F_LOG,
    F_SIN,
    F_COS,
    F_TAN,
    F_FABS,
    F_ABS,
    F_FLOOR,
    F_CEIL,
    F_MIN,
    F_MAX,
    F_POW,
    F_COUNT
};
static const char *const func_name[F_COUNT] = {"sqrt", "exp",   "log",  "sin", "cos", "tan", "fabs",
                                               "abs",  "floor", "ceil", "min", "max", "pow"};
static const char *const op_text[] = {"",  "-",  "+", "!",  "+",  "-",  "*",  "/",
                                      "<", "<=", ">", ">=", "==", "!=", "&&", "||"};

typedef struct node {
    int kind, op;        /* op: OP_* (unary, binary), F_* (call), index 0..5 (N_INDEX) */
    int ref;             /* scalar / field / let index */
    int off[3];          /* N_FIELD */
    int centre;          /* N_FIELD: written without offsets */
    char text[48];       /* N_NUM: as printed */
    double val_d, val_f; /* N_NUM: the value in a double and in a float stencil */
    struct node *a[3];
} node;

enum { S_LET = 1, S_ASSIGN, S_IF, S_REDUCE, S_DECL, S_SOLVE };

typedef struct block {
    struct stmt **s;
    int n, cap;
} block;

typedef struct stmt {
    int kind;
    int ref; /* let id, field (S_SOLVE: the one solved), reduction id, or declaration index */
    node *e;
    node *coef[4]; /* S_SOLVE: lower, diag, upper, rhs */
    block then_b, else_b;
    int has_else;
} stmt;

struct gs_stencil {
    gs_info info;
    char name[GS_NAME];
    char scalar[GS_MAX_SCALARS][GS_NAME];
    char field[GS_MAX_FIELDS][GS_NAME];
    char let[GS_MAX_LETS][GS_NAME];
    int nlets;
    int let_uses[GS_MAX_LETS];
    char reduce[GS_MAX_REDUCES][GS_NAME];
    int named[GS_MAX_FIELDS]; /* declared with its dimensions in brackets: dx[i], fx[i+1, j] */
    int color_kind;           /* 0 none, 1 linear (c.i + c.j + c.k + add) mod m, 2 parity bits */
    int order;                /* 0 none, 1 forward, -1 backward (no colour, no reduction) */
    int ccoef[3], cadd, cmod;
    block body;
    char *text;
    /* allocation: every node and statement, freed together */
    void **mem;
    int nmem, capmem;
};

static void *alloc(gs_stencil *st, size_t bytes) {
    if (st->nmem == st->capmem) {
        st->capmem = st->capmem ? 2 * st->capmem : 256;
        st->mem = realloc(st->mem, (size_t)st->capmem * sizeof *st->mem);
        if (!st->mem) abort();
    }
    void *p = calloc(1, bytes);
    if (!p) abort();
    st->mem[st->nmem++] = p;
    return p;
}

static void push(block *b, stmt *s) {
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 8;
        b->s = realloc(b->s, (size_t)b->cap * sizeof *b->s);
        if (!b->s) abort();
    }
    b->s[b->n++] = s;
}

static void insert_at(block *b, int at, stmt *s) {
    push(b, s);
    memmove(b->s + at + 1, b->s + at, (size_t)(b->n - 1 - at) * sizeof *b->s);
    b->s[at] = s;
}

static void free_block(block *b) {
    for (int n = 0; n < b->n; n++) {
        free_block(&b->s[n]->then_b);
        free_block(&b->s[n]->else_b);
    }
    free(b->s);
}

void gs_free(gs_stencil *st) {
    if (!st) return;
    free_block(&st->body);
    for (int n = 0; n < st->nmem; n++)
        free(st->mem[n]);
    free(st->mem);
    free(st->text);
    free(st);
}

const gs_info *gs_get_info(const gs_stencil *st) {
    return &st->info;
}
const char *gs_text(const gs_stencil *st) {
    return st->text;
}

/* ---- flags ------------------------------------------------------------------------------- */

static const char *const flag_name[] = {
    "cnames", "logic",        "boolmul", "widelit", "radius8",  "subnormal", "fsuffix",
    "unused", "stencilnames", "lowdim",  "stagger", "intinput", "solve",     "order"};
#define NFLAGS ((int)(sizeof flag_name / sizeof flag_name[0]))

long gs_parse_flags(const char *text) {
    if (!text || !*text || !strcmp(text, "default")) return GS_DEFAULT_FLAGS;
    if (!strcmp(text, "all")) return GS_ALL_FLAGS;
    if (!strcmp(text, "none")) return 0;
    unsigned flags = GS_DEFAULT_FLAGS;
    int explicit_set = text[0] != '+' && text[0] != '-';
    if (explicit_set) flags = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int sign = 1;
        if (*tok == '+' || *tok == '-') sign = *tok++ == '+';
        int found = -1;
        for (int f = 0; f < NFLAGS; f++)
            if (!strcmp(tok, flag_name[f])) found = f;
        if (found < 0) return -1;
        if (sign)
            flags |= 1u << found;
        else
            flags &= ~(1u << found);
    }
    return flags;
}

const char *gs_flags_text(unsigned flags) {
    static char buf[256];
    buf[0] = 0;
    for (int f = 0; f < NFLAGS; f++)
        if (flags & (1u << f)) {
            if (buf[0]) strcat(buf, ",");
            strcat(buf, flag_name[f]);
        }
    return buf[0] ? buf : "none";
}

/* ---- names ------------------------------------------------------------------------------- */

/* Identifiers that mean something to C, C++, CUDA, libc or the generated code. The checker
 * reserves some (check_reserved_name() filters them); every other one must work. */
static const char *const c_names[] = {"y0",
                                      "y1",
                                      "yn",
                                      "j0",
                                      "j1",
                                      "jn",
                                      "float2",
                                      "float4",
                                      "double2",
                                      "dim3",
                                      "int3",
                                      "V",
                                      "S_HALO",
                                      "size_t",
                                      "NULL",
                                      "INFINITY",
                                      "NAN",
                                      "and",
                                      "or",
                                      "not",
                                      "xor",
                                      "bitand",
                                      "decltype",
                                      "throw",
                                      "asm",
                                      "static_cast",
                                      "round",
                                      "strlen",
                                      "exp2",
                                      "signbit",
                                      "printf",
                                      "malloc",
                                      "free",
                                      "errno",
                                      "stdin",
                                      "assert",
                                      "offsetof",
                                      "restrict",
                                      "inline",
                                      "auto",
                                      "register",
                                      "volatile",
                                      "template",
                                      "typename",
                                      "namespace",
                                      "new",
                                      "delete",
                                      "this",
                                      "operator",
                                      "nullptr",
                                      "true",
                                      "false",
                                      "bool",
                                      "threadIdx",
                                      "blockIdx",
                                      "blockDim",
                                      "gridDim",
                                      "warpSize",
                                      "atomicAdd",
                                      "fmaf",
                                      "exp10",
                                      "lgamma",
                                      "erf",
                                      "hypot",
                                      "cbrt",
                                      "fmod",
                                      "modf",
                                      "ldexp",
                                      "isnan",
                                      "isinf",
                                      "M_PI",
                                      "HUGE_VAL",
                                      "FLT_MAX",
                                      "DBL_EPSILON",
                                      "EOF",
                                      "FILE",
                                      "ptrdiff_t",
                                      "uint64_t",
                                      "int32_t",
                                      "ctx",
                                      "status",
                                      "shape",
                                      "views",
                                      "fields",
                                      "color",
                                      "row",
                                      "data",
                                      "acc",
                                      "tile",
                                      "jt",
                                      "kt",
                                      "j_end",
                                      "i_end",
                                      "real",
                                      "half",
                                      "alignas",
                                      "alignof",
                                      "static_assert",
                                      "thread_local",
                                      "constexpr",
                                      "concept",
                                      "requires",
                                      "co_await",
                                      "export",
                                      "import",
                                      "module",
                                      "final",
                                      "override",
                                      "friend",
                                      "virtual",
                                      "mutable",
                                      "explicit",
                                      "private",
                                      "public",
                                      "wchar_t",
                                      "char8_t",
                                      "noexcept",
                                      "typeid",
                                      "dynamic_cast",
                                      "catch",
                                      "try",
                                      "using",
                                      "union",
                                      "goto",
                                      "sizeof",
                                      "cudaStream_t",
                                      "std",
                                      "clock",
                                      "time",
                                      "rand",
                                      "exit",
                                      "abort",
                                      "signal",
                                      "expm1",
                                      "log1p",
                                      "log2",
                                      "rint",
                                      "trunc",
                                      "copysign",
                                      "fma",
                                      "atan2",
                                      "asin",
                                      "tanh",
                                      "float_t",
                                      "INT_MAX",
                                      "complex",
                                      "I",
                                      "cbrtf",
                                      "powf",
                                      "i0",
                                      "k1",
                                      "err",
                                      "out",
                                      "in",
                                      "x_m1",
                                      "u_row",
                                      "x_data",
                                      "x_sj",
                                      "x_p1_0",
                                      "r2_acc",
                                      "TILE_J",
                                      "ni_",
                                      "nj0",
                                      "block",
                                      "grid",
                                      "stream",
                                      "scratch",
                                      "results",
                                      "scalars",
                                      "op",
                                      "variant",
                                      "shared",
                                      "smem",
                                      "tid",
                                      "lane",
                                      "warp",
                                      "idx",
                                      "bid",
                                      "sum",
                                      "value",
                                      "index",
                                      "point",
                                      "ok",
                                      "cell",
                                      "lattice",
                                      "plane",
                                      "slab",
                                      "col",
                                      "buf",
                                      "tmp",
                                      "lo",
                                      "hi",
                                      "n",
                                      "nn",
                                      "s",
                                      "f",
                                      "c",
                                      "d",
                                      "e",
                                      "h",
                                      "p",
                                      "q",
                                      "t",
                                      "v",
                                      "w",
                                      "x",
                                      "y",
                                      "z",
                                      "nx",
                                      "ny",
                                      "nz",
                                      "main",
                                      "int",
                                      "for",
                                      "stenc_x",
                                      "_t",
                                      "float",
                                      "double",
                                      "stencil",
                                      "let",
                                      "color",
                                      "reduce",
                                      "max",
                                      "fabs",
                                      "i",
                                      "nk",
                                      "sqrtf",
                                      "fminf"};
#define NC_NAMES ((int)(sizeof c_names / sizeof c_names[0]))

int gs_c_name_count(void) {
    return NC_NAMES;
}
const char *gs_c_name(int index) {
    return c_names[index];
}

typedef struct gen {
    gs_stencil *st;
    rng r;
    rng x; /* the array shapes and element types, and whether to solve (lowdim, stagger,
              intinput, solve): a stream of their own, so that the rest of a seed's stencil is
              what it was before those classes */
    unsigned flags;
    char used[96][GS_NAME]; /* every name taken in this stencil */
    int nused;
    int vis[GS_MAX_LETS]; /* lets visible here */
    int nvis;
    unsigned assigned; /* bit per field: an output definitely assigned here */
    int max_radius;
    int nodes; /* left in the expression being built */
    int has_writable;
} gen;

static int taken(gen *g, const char *name) {
    for (int n = 0; n < g->nused; n++)
        if (!strcmp(g->used[n], name)) return 1;
    return 0;
}

static void new_name(gen *g, char *out, const char *plain_prefix) {
    for (int attempt = 0;; attempt++) {
        char cand[GS_NAME];
        int r = below(&g->r, 100);
        if ((g->flags & GS_CNAMES) && r < 35 && attempt < 20) {
            snprintf(cand, sizeof cand, "%s", c_names[below(&g->r, NC_NAMES)]);
        } else if (r < 45 && r >= 37) { /* a long name, sometimes the longest allowed */
            int len = chance(&g->r, 10) ? 255 : between(&g->r, 8, 40);
            for (int k = 0; k < len; k++)
                cand[k] =
                    "abcdefghpqrstuvwxz_0123456789"[k == 0 ? below(&g->r, 18) : below(&g->r, 29)];
            cand[len] = 0;
        } else {
            snprintf(cand, sizeof cand, "%s%d", plain_prefix, below(&g->r, 100));
        }
        if (check_reserved_name(cand) || taken(g, cand)) continue;
        snprintf(out, GS_NAME, "%s", cand);
        snprintf(g->used[g->nused++], GS_NAME, "%s", cand);
        return;
    }
}

/* ---- expressions ------------------------------------------------------------------------- */

enum { P_TERN = 1, P_OR, P_AND, P_EQ, P_REL, P_ADD, P_MUL, P_UNARY, P_PRIMARY };

static int prec(const node *e) {
    switch (e->kind) {
    case N_TERNARY:
        return P_TERN;
    case N_UNARY:
        return P_UNARY;
    case N_BINARY:
        switch (e->op) {
        case OP_OR:
            return P_OR;
        case OP_AND:
            return P_AND;
        case OP_EQ:
        case OP_NE:
            return P_EQ;
        case OP_LT:
        case OP_LE:
        case OP_GT:
        case OP_GE:
            return P_REL;
        case OP_ADD:
        case OP_SUB:
            return P_ADD;
        default:
            return P_MUL;
        }
    default:
        return P_PRIMARY;
    }
}

/* The value depends on something known only at run time (so the C compiler cannot fold a
 * call of it with a more exact libm than the evaluator's). */
static int varying(const node *e) {
    switch (e->kind) {
    case N_NUM:
        return 0;
    case N_UNARY:
        return varying(e->a[0]);
    case N_BINARY:
        return varying(e->a[0]) || varying(e->a[1]);
    case N_TERNARY:
        return varying(e->a[1]) && varying(e->a[2]);
    case N_CALL:
        return varying(e->a[0]) || (e->a[1] && varying(e->a[1]));
    default:
        return 1;
    }
}

static node *mk(gen *g, int kind, int op) {
    node *e = alloc(g->st, sizeof *e);
    e->kind = kind;
    e->op = op;
    return e;
}

static void literal(gen *g, node *e) {
    static const char *const fixed[] = {
        "0",   "1",    "2",   "3",       "10",      "007",
        "0.5", ".25",  "1.",  "0.1",     "1e-3",    "2.5E+4",
        "1e2", "3.75", "0.3", "6.02e23", "1.0e-30", "12345678901234567890",
        "4",   "0.0",  "1E0", "100",     "65504",   "16777217"};
    int is_float = g->st->info.is_float;
    int r = below(&g->r, 100);
    int fsuffix = 0;
    if (r < 55) {
        snprintf(e->text, sizeof e->text, "%s",
                 fixed[below(&g->r, (int)(sizeof fixed / sizeof fixed[0]))]);
    } else if (r < 80) { /* a random decimal with 1 to 17 significant digits */
        double v = ldexp((double)(rnd(&g->r) >> 11), -53) * pow(10, between(&g->r, -3, 3));
        snprintf(e->text, sizeof e->text, "%.*g", between(&g->r, 1, 17), v);
        if (strchr(e->text, 'e') && strchr(e->text, '-') == NULL && chance(&g->r, 50))
            e->text[strchr(e->text, 'e') - e->text] = 'E';
    } else if (r < 88) { /* an integer */
        snprintf(e->text, sizeof e->text, "%d", below(&g->r, 1000));
    } else if (r < 92 && (!is_float || (g->flags & GS_WIDE_LIT))) {
        /* the extremes of the type (float: the largest finite, the least normal, subnormals) */
        static const char *const wide_d[] = {
            "1e300", "1.7976931348623157e308", "1e-300", "3.4028236e38", "1e39", "1e-40", "1e-46"};
        static const char *const wide_f[] = {
            "3.4028234e38", "3.40282346e38", "1.1754944e-38", "1e-40", "1.4e-45", "1e38", "2e-38"};
        snprintf(e->text, sizeof e->text, "%s", (is_float ? wide_f : wide_d)[below(&g->r, 7)]);
    } else if (r < 95 && !is_float && (g->flags & GS_SUBNORMAL)) {
        static const char *const sub[] = {"4.9e-324", "5e-324", "2.2250738585072009e-308", "1e-310",
                                          "2.5e-320"};
        snprintf(e->text, sizeof e->text, "%s", sub[below(&g->r, 5)]);
    } else if (g->flags & GS_FSUFFIX) {
        static const char *const fl[] = {"1.5f",  "0.1f",    "2.f",  ".5f",
                                         "1e-3f", "3.4e38f", "0.3F", "1e10f"};
        snprintf(e->text, sizeof e->text, "%s", fl[below(&g->r, 8)]);
        fsuffix = 1;
    } else {
        snprintf(e->text, sizeof e->text, "%d", below(&g->r, 10));
    }
    /* C reads "0.1f" straight to float; the compiler emits float literals that way. */
    char digits[48];
    snprintf(digits, sizeof digits, "%s", e->text);
    if (fsuffix) digits[strlen(digits) - 1] = 0;
    e->val_f = (double)strtof(digits, NULL);
    e->val_d = fsuffix ? e->val_f : strtod(digits, NULL);
}

typedef struct ectx {
    int boolean; /* the value is used as a truth value (if, ?:, !, &&, ||) */
    int top;     /* the whole right-hand side of a let, an assignment or a reduce */
} ectx;

static node *expr(gen *g, int depth, ectx c);

/* An offset for a read of field f (inouts: only of another colour, or the centre). */
static void pick_offset(gen *g, node *e, int f) {
    gs_stencil *st = g->st;
    int dims = st->info.dims;
    int inout = st->info.kind[f] == GS_INOUT;
    for (int attempt = 0;; attempt++) {
        int r = below(&g->r, 100);
        int rad = r < 70 ? 1 : r < 92 ? 2 : g->max_radius;
        int zero = 1;
        for (int d = 0; d < 3; d++) {
            e->off[d] = d < dims && chance(&g->r, 60) ? between(&g->r, -rad, rad) : 0;
            zero &= e->off[d] == 0;
        }
        if (zero || !inout || st->order) break;
        if (attempt > 50 || !st->color_kind) {
            memset(e->off, 0, sizeof e->off);
            break;
        }
        int differs;
        if (st->color_kind == 1) {
            long s = 0;
            for (int d = 0; d < 3; d++)
                s += (long)st->ccoef[d] * e->off[d];
            differs = ((s % st->cmod) + st->cmod) % st->cmod != 0;
        } else {
            differs = 0;
            for (int d = 0; d < dims; d++)
                differs |= e->off[d] % 2 != 0;
        }
        if (differs) break;
    }
    int zero = !e->off[0] && !e->off[1] && !e->off[2];
    e->centre = zero && chance(&g->r, 70);
    /* A lower-dimensional input has no offset along the dimensions it does not span (drawn all
     * the same: the stream stays the seed's). */
    for (int d = 0; d < 3; d++)
        if (st->info.axes[f] && !(st->info.axes[f] >> d & 1)) e->off[d] = 0;
    for (int d = 0; d < 3; d++) {
        int a = abs(e->off[d]);
        if (a > st->info.radius) st->info.radius = a;
    }
}

static node *leaf(gen *g) {
    gs_stencil *st = g->st;
    for (;;) {
        int r = below(&g->r, 100);
        if (r < 18) {
            node *e = mk(g, N_NUM, 0);
            literal(g, e);
            return e;
        }
        if (r < 30 && st->info.nscalars) {
            node *e = mk(g, N_SCALAR, 0);
            e->ref = below(&g->r, st->info.nscalars);
            return e;
        }
        if (r < 70 && st->info.nfields) {
            int f = below(&g->r, st->info.nfields);
            if (st->info.kind[f] == GS_OUTPUT && !(g->assigned & (1u << f))) continue;
            node *e = mk(g, N_FIELD, 0);
            e->ref = f;
            if (st->info.kind[f] == GS_OUTPUT)
                e->centre = 1; /* outputs: the value assigned last, at the centre only */
            else
                pick_offset(g, e, f);
            return e;
        }
        if (r < 85 && g->nvis) {
            node *e = mk(g, N_LET, 0);
            e->ref = g->vis[below(&g->r, g->nvis)];
            st->let_uses[e->ref]++;
            return e;
        }
        if (r >= 85) {
            node *e = mk(g, N_INDEX, 0);
            int d = below(&g->r, st->info.dims);
            e->op = d + (chance(&g->r, 50) ? 3 : 0);
            return e;
        }
    }
}

static node *arith(gen *g, int depth) {
    ectx c = {0, 0};
    return expr(g, depth, c);
}

static node *expr(gen *g, int depth, ectx c) {
    int allow_bool = c.boolean || c.top || (g->flags & GS_LOGIC_ARITH);
    g->nodes--;
    if (depth <= 0 || g->nodes <= 0 || chance(&g->r, 25)) {
        node *e = leaf(g);
        if (c.boolean && chance(&g->r, 70)) { /* mostly a comparison as a condition */
            node *cmp = mk(g, N_BINARY, between(&g->r, OP_LT, OP_NE));
            cmp->a[0] = e;
            cmp->a[1] = leaf(g);
            return cmp;
        }
        return e;
    }
    int r = below(&g->r, 100);
    node *e;
    if (r < 40) {
        e = mk(g, N_BINARY, between(&g->r, OP_ADD, OP_DIV));
        e->a[0] = arith(g, depth - 1);
        e->a[1] = arith(g, depth - 1);
        if (c.boolean && e->op == OP_MUL && !(g->flags & GS_BOOL_MUL)) e->op = OP_ADD;
    } else if (r < 47) {
        e = mk(g, N_UNARY, chance(&g->r, 80) ? OP_NEG : OP_PLUS);
        e->a[0] = arith(g, depth - 1);
    } else if (r < 62 && allow_bool) {
        int lr = below(&g->r, 100);
        if (lr < 55) {
            e = mk(g, N_BINARY, between(&g->r, OP_LT, OP_NE));
            e->a[0] = arith(g, depth - 1);
            e->a[1] = arith(g, depth - 1);
        } else {
            ectx b = {1, 0};
            e = mk(g, lr < 80 ? N_BINARY : N_UNARY,
                   lr < 80 ? (chance(&g->r, 50) ? OP_AND : OP_OR) : OP_NOT);
            e->a[0] = expr(g, depth - 1, b);
            if (lr < 80) e->a[1] = expr(g, depth - 1, b);
        }
    } else if (r < 72) {
        e = mk(g, N_TERNARY, 0);
        ectx b = {1, 0};
        e->a[0] = expr(g, depth - 1, b);
        ectx branch = {c.boolean, c.top};
        e->a[1] = expr(g, depth - 1, branch);
        e->a[2] = expr(g, depth - 1, branch);
    } else if (r < 92) {
        e = mk(g, N_CALL, below(&g->r, F_COUNT));
        int nargs = e->op >= F_MIN ? 2 : 1;
        for (int a = 0; a < nargs; a++) {
            e->a[a] = arith(g, depth - 1);
            if (!varying(e->a[a])) { /* keep the call out of the C compiler's folding */
                node *sum = mk(g, N_BINARY, OP_ADD);
                sum->a[0] = e->a[a];
                node *v;
                do
                    v = leaf(g);
                while (v->kind == N_NUM);
                sum->a[1] = v;
                e->a[a] = sum;
            }
        }
    } else {
        e = leaf(g);
    }
    return e;
}

/* ---- printing ---------------------------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s) abort();
    }
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}

static void print_offset(gen *g, sbuf *b, int v) {
    int r = below(&g->r, 10);
    if (v < 0)
        put(b, "%d", v);
    else if (r < 7)
        put(b, "%d", v);
    else if (r < 9)
        put(b, "+%d", v);
    else
        put(b, v ? "- -%d" : "-%d", v);
}

static void print_expr(gen *g, sbuf *b, const node *e, int min_prec) {
    gs_stencil *st = g->st;
    int p = prec(e);
    int paren = p < min_prec || chance(&g->r, 4);
    if (paren) put(b, "(");
    switch (e->kind) {
    case N_NUM:
        put(b, "%s", e->text);
        break;
    case N_SCALAR:
        put(b, "%s", st->scalar[e->ref]);
        break;
    case N_LET:
        put(b, "%s", st->let[e->ref]);
        break;
    case N_INDEX:
        put(b, "%s", (const char *[]){"i", "j", "k", "ni", "nj", "nk"}[e->op]);
        break;
    case N_FIELD:
        put(b, "%s", st->field[e->ref]);
        if (!e->centre) {
            /* One offset per dimension the array spans; the draws of the others are made (and
             * printed nowhere) so that the stream stays the seed's. */
            unsigned axes = st->info.axes[e->ref];
            sbuf skip = {0};
            put(b, "[");
            for (int d = 0, shown = 0; d < st->info.dims; d++) {
                int spans = !axes || (axes >> d & 1);
                const char *sep = d && chance(&g->r, 80) ? "," : " , ";
                if (spans && shown++) put(b, "%s", sep);
                print_offset(g, spans ? b : &skip, e->off[d]);
            }
            put(b, "]");
            free(skip.s);
        }
        break;
    case N_UNARY: {
        put(b, "%s", op_text[e->op]);
        const node *o = e->a[0];
        /* "- -x", not "--x" (which is no operator of the language either) */
        if (o->kind == N_UNARY || (o->kind == N_NUM && o->text[0] == '-')) put(b, " ");
        print_expr(g, b, o, P_UNARY);
        break;
    }
    case N_BINARY:
        print_expr(g, b, e->a[0], p);
        put(b, chance(&g->r, 90) ? " %s " : "%s", op_text[e->op]);
        print_expr(g, b, e->a[1], p + 1);
        break;
    case N_TERNARY:
        print_expr(g, b, e->a[0], P_OR);
        put(b, " ? ");
        print_expr(g, b, e->a[1], P_OR);
        put(b, " : ");
        print_expr(g, b, e->a[2], P_TERN);
        break;
    case N_CALL:
        put(b, "%s(", func_name[e->op]);
        print_expr(g, b, e->a[0], P_TERN);
        if (e->op >= F_MIN) {
            put(b, ", ");
            print_expr(g, b, e->a[1], P_TERN);
        }
        put(b, ")");
        break;
    }
    if (paren) put(b, ")");
}

/* ---- statements -------------------------------------------------------------------------- */

static stmt *new_stmt(gen *g, int kind) {
    stmt *s = alloc(g->st, sizeof *s);
    s->kind = kind;
    return s;
}

static int depth_for(gen *g) {
    return chance(&g->r, 5) ? 7 : between(&g->r, 1, 4);
}

static node *rhs(gen *g) {
    g->nodes = chance(&g->r, 5) ? 200 : 24;
    ectx c = {0, 1};
    return expr(g, depth_for(g), c);
}

/* A writable field (output or inout), or -1. */
static int pick_writable(gen *g) {
    gs_stencil *st = g->st;
    int w[GS_MAX_FIELDS], n = 0;
    for (int f = 0; f < st->info.nfields; f++)
        if (st->info.kind[f] != GS_INPUT) w[n++] = f;
    return n ? w[below(&g->r, n)] : -1;
}

static stmt *assign(gen *g, int f) {
    stmt *s = new_stmt(g, S_ASSIGN);
    s->ref = f;
    s->e = rhs(g);
    if (g->st->info.kind[f] == GS_OUTPUT) g->assigned |= 1u << f;
    return s;
}

static void gen_block(gen *g, block *b, int depth, int top, const int *force_at, int nforce);

static stmt *gen_if(gen *g, int depth) {
    stmt *s = new_stmt(g, S_IF);
    g->nodes = 16;
    ectx c = {1, 0};
    s->e = expr(g, between(&g->r, 1, 3), c);
    unsigned before = g->assigned;
    gen_block(g, &s->then_b, depth + 1, 0, NULL, 0);
    unsigned then_assigned = g->assigned;
    g->assigned = before;
    s->has_else = chance(&g->r, 60);
    if (s->has_else) {
        gen_block(g, &s->else_b, depth + 1, 0, NULL, 0);
        g->assigned = then_assigned & g->assigned; /* assigned on both paths */
    } else {
        g->assigned = before;
    }
    return s;
}

/* force_at[f]: the top-level statement index at which writable field f gets an unconditional
 * assignment (-1: none), so every output is assigned on every path. */
static void gen_block(gen *g, block *b, int depth, int top, const int *force_at, int nforce) {
    gs_stencil *st = g->st;
    int nvis_before = g->nvis;
    int first_let = st->nlets;
    int count = top ? between(&g->r, 2, 7) : between(&g->r, 1, 4);
    for (int k = 0; k < count || (top && k <= nforce); k++) {
        for (int f = 0; top && f < st->info.nfields; f++)
            if (force_at[f] == k) push(b, assign(g, f));
        if (k >= count) continue;
        int r = below(&g->r, 100);
        if (r < 30 && st->nlets < GS_MAX_LETS - 8 && g->nused < 80) {
            stmt *s = new_stmt(g, S_LET);
            s->ref = st->nlets++;
            s->e = rhs(g);
            new_name(g, st->let[s->ref], "t");
            g->vis[g->nvis++] = s->ref;
            push(b, s);
        } else if (r < 65 && g->has_writable) {
            int f = pick_writable(g);
            push(b, assign(g, f));
        } else if (r < 85 && depth < 3 && g->has_writable) {
            push(b, gen_if(g, depth));
        } else if (top && !st->order && st->info.nreduces < 4 && g->nused < 80) {
            stmt *s = new_stmt(g, S_REDUCE);
            s->ref = st->info.nreduces++;
            st->info.reduce_op[s->ref] = (gs_reduce_op)between(&g->r, GS_SUM, GS_MIN);
            s->e = rhs(g);
            new_name(g, st->reduce[s->ref], "r");
            push(b, s);
        }
    }
    /* Every let is read: an unread one gets a statement that reads it. */
    for (int l = first_let; l < st->nlets; l++) {
        if (st->let_uses[l]) continue;
        node *ref = mk(g, N_LET, 0);
        ref->ref = l;
        st->let_uses[l]++;
        node *sum = mk(g, N_BINARY, OP_ADD);
        sum->a[0] = ref;
        g->nodes = 6;
        sum->a[1] = arith(g, 2);
        stmt *s;
        if (g->has_writable) {
            s = new_stmt(g, S_ASSIGN);
            s->ref = pick_writable(g);
            if (st->info.kind[s->ref] == GS_OUTPUT && top) g->assigned |= 1u << s->ref;
        } else { /* a pure reduction: lets are only at the top level */
            s = new_stmt(g, S_REDUCE);
            s->ref = st->info.nreduces++;
            st->info.reduce_op[s->ref] = GS_SUM;
            new_name(g, st->reduce[s->ref], "r");
        }
        s->e = sum;
        push(b, s);
    }
    g->nvis = nvis_before;
}

/* ---- the stencil ------------------------------------------------------------------------- */

static void print_block(gen *g, sbuf *b, const block *blk, int indent);

static void print_decl(gen *g, sbuf *b, int d, int indent) {
    gs_stencil *st = g->st;
    static const char *const kw[] = {"", "input", "output", "inout"};
    static const char *const elem[] = {"", " int32", " uint8"};
    put(b, "%*s", indent, "");
    if (d < 0) {
        put(b, "scalar %s;\n", st->scalar[-d - 1]);
        return;
    }
    put(b, "%s%s %s", kw[st->info.kind[d]], elem[st->info.elem[d]], st->field[d]);
    if (st->named[d]) { /* its dimensions, each with its extent's offset: [i+1, k] */
        rng *x = &g->x;
        put(b, "[");
        for (int k = 0, shown = 0; k < st->info.dims; k++) {
            if (st->info.axes[d] && !(st->info.axes[d] >> k & 1)) continue;
            int s = st->info.stagger[d][k];
            put(b, "%s%c", shown++ ? (chance(x, 80) ? ", " : ",") : "", "ijk"[k]);
            if (s || chance(x, 10))
                put(b, chance(x, 80) ? "%c%s%d" : " %c %s%d", s < 0 ? '-' : '+',
                    chance(x, 5) ? "0" : "", abs(s));
        }
        put(b, "]");
    }
    put(b, ";\n");
}

static void print_stmt(gen *g, sbuf *b, const stmt *s, int indent) {
    gs_stencil *st = g->st;
    static const char *const rop[] = {"", "sum", "max", "min"};
    switch (s->kind) {
    case S_DECL:
        print_decl(g, b, s->ref, indent);
        return;
    case S_LET:
        put(b, "%*slet %s = ", indent, "", st->let[s->ref]);
        break;
    case S_ASSIGN:
        put(b, "%*s%s", indent, "", st->field[s->ref]);
        if (chance(&g->r, 10)) {
            put(b, "[");
            for (int d = 0; d < st->info.dims; d++)
                put(b, d ? ",0" : "0");
            put(b, "]");
        }
        put(b, " = ");
        break;
    case S_REDUCE:
        put(b, "%*sreduce %s %s = ", indent, "", rop[st->info.reduce_op[s->ref]],
            st->reduce[s->ref]);
        break;
    case S_SOLVE: { /* the four coefficients in any order */
        static const char *const coef[] = {"lower", "diag", "upper", "rhs"};
        int order[4] = {0, 1, 2, 3};
        for (int q = 3; q > 0; q--) {
            int o = below(&g->r, q + 1), t = order[q];
            order[q] = order[o];
            order[o] = t;
        }
        put(b, "%*ssolve %s along %c {\n", indent, "", st->field[s->ref],
            "ijk"[st->info.solve - 1]);
        for (int q = 0; q < 4; q++) {
            put(b, "%*s%s = ", indent + 4, "", coef[order[q]]);
            print_expr(g, b, s->coef[order[q]], P_TERN);
            put(b, ";\n");
        }
        put(b, "%*s}\n", indent, "");
        return;
    }
    case S_IF:
        put(b, "%*sif (", indent, "");
        print_expr(g, b, s->e, P_TERN);
        put(b, ") {\n");
        print_block(g, b, &s->then_b, indent + 4);
        put(b, "%*s}", indent, "");
        if (s->has_else) {
            put(b, " else {\n");
            print_block(g, b, &s->else_b, indent + 4);
            put(b, "%*s}", indent, "");
        }
        put(b, "\n");
        return;
    }
    print_expr(g, b, s->e, P_TERN);
    put(b, ";\n");
}

static void print_block(gen *g, sbuf *b, const block *blk, int indent) {
    for (int n = 0; n < blk->n; n++)
        print_stmt(g, b, blk->s[n], indent);
}

static void print_color(gen *g, sbuf *b) {
    gs_stencil *st = g->st;
    static const char *const var[] = {"i", "j", "k"};
    put(b, "    color ");
    if (st->color_kind == 2) {
        put(b, "i%%2");
        for (int d = 1; d < st->info.dims; d++)
            put(b, " + %d*(%s %% 2)", 1 << d, var[d]);
    } else {
        put(b, "(");
        int first = 1;
        for (int d = 0; d < 3; d++) {
            int c = st->ccoef[d];
            if (!c) continue;
            if (first)
                put(b, c < 0 ? "-" : "");
            else
                put(b, c < 0 ? " - " : " + ");
            first = 0;
            if (abs(c) != 1)
                put(b, "%d*%s", abs(c), var[d]);
            else
                put(b, "%s", var[d]);
        }
        if (st->cadd) put(b, " + %d", st->cadd);
        put(b, ") %% %d", st->cmod);
    }
    put(b, ";\n");
}

/* An extent's offset against the reference grid: mostly a face or node more or an interior
 * face less, sometimes farther (docs/language.md allows -16..16). */
static int draw_stagger(rng *x) {
    int r = below(x, 100);
    if (r < 40) return 0;
    if (r < 68) return 1;
    if (r < 84) return -1;
    if (r < 91) return 2;
    if (r < 95) return -2;
    if (r < 98) return chance(x, 50) ? between(x, 3, 4) : -between(x, 3, 4);
    return between(x, 5, 16);
}

/* The arrays' dimensions, extents and element types, from g->x alone. Written arrays share the
 * launch's stagger; only inputs may span fewer dimensions or hold integers, and some array
 * must span every dimension. */
static void gen_shapes(gen *g) {
    gs_stencil *st = g->st;
    gs_info *in = &st->info;
    rng *x = &g->x;
    const unsigned all = (1u << in->dims) - 1;
    if ((g->flags & GS_STAGGER) && g->has_writable && !in->solve && chance(x, 35))
        for (int d = 0; d < in->dims; d++)
            in->launch_stagger[d] = draw_stagger(x);
    int full_input = -1;
    for (int f = 0; f < in->nfields; f++) {
        unsigned axes = all;
        if (in->kind[f] != GS_INPUT) {
            memcpy(in->stagger[f], in->launch_stagger, sizeof in->stagger[f]);
        } else {
            if ((g->flags & GS_LOWDIM) && in->dims > 1 && chance(x, 35))
                axes = (unsigned)between(x, 1, (int)all - 1); /* a proper subset */
            if ((g->flags & GS_INT_INPUT) && chance(x, 20))
                in->elem[f] = chance(x, 50) ? GS_I32 : GS_U8;
            if ((g->flags & GS_STAGGER) && chance(x, 30))
                for (int d = 0; d < in->dims; d++)
                    if (axes >> d & 1) in->stagger[f][d] = draw_stagger(x);
            if (axes == all && full_input < 0) full_input = f;
        }
        in->axes[f] = axes == all ? 0 : axes;
        /* every dimension named is the same as none: [i, j] */
        st->named[f] = (g->flags & (GS_LOWDIM | GS_STAGGER)) && chance(x, 8);
        if (in->solve && in->kind[f] == GS_OUTPUT) st->named[f] = 0; /* no brackets at all */
    }
    if (!g->has_writable && full_input < 0 && in->nfields) in->axes[0] = 0;
}

static void note_reads(gs_info *in, const node *e, int lo[][3], int hi[][3]) {
    if (!e) return;
    if (e->kind == N_FIELD && in->kind[e->ref] != GS_OUTPUT)
        for (int d = 0; d < in->dims; d++) {
            int f = e->ref, above = e->off[d] + in->launch_stagger[d] - in->stagger[f][d];
            if (in->axes[f] && !(in->axes[f] >> d & 1)) continue;
            if (-e->off[d] > lo[f][d]) lo[f][d] = -e->off[d];
            if (above > hi[f][d]) hi[f][d] = above;
        }
    for (int a = 0; a < 3; a++)
        note_reads(in, e->a[a], lo, hi);
}

static void note_block_reads(gs_info *in, const block *b, int lo[][3], int hi[][3]) {
    for (int n = 0; n < b->n; n++) {
        note_reads(in, b->s[n]->e, lo, hi);
        for (int q = 0; q < 4; q++)
            note_reads(in, b->s[n]->coef[q], lo, hi);
        note_block_reads(in, &b->s[n]->then_b, lo, hi);
        note_block_reads(in, &b->s[n]->else_b, lo, hi);
    }
}

/* The halo each array's reads need: below, what they reach below element 0; above, what they
 * reach past its own extent, max(0, offset + the launch's stagger - the array's). An input
 * that would need more than 14 (fields have at most 16) takes the launch's stagger. Then the
 * least reference extents at which every array has a point. */
static void settle_halos(gs_stencil *st) {
    gs_info *in = &st->info;
    for (int pass = 0; pass < 2; pass++) {
        int lo[GS_MAX_FIELDS][3] = {{0}}, hi[GS_MAX_FIELDS][3] = {{0}}, again = 0;
        note_block_reads(in, &st->body, lo, hi);
        for (int f = 0; f < in->nfields; f++) {
            in->halo_need[f] = 0;
            for (int d = 0; d < in->dims; d++) {
                if (lo[f][d] > in->halo_need[f]) in->halo_need[f] = lo[f][d];
                if (hi[f][d] > in->halo_need[f]) in->halo_need[f] = hi[f][d];
            }
            if (in->halo_need[f] > 14) {
                for (int d = 0; d < in->dims; d++)
                    if (!in->axes[f] || (in->axes[f] >> d & 1))
                        in->stagger[f][d] = in->launch_stagger[d];
                again = 1;
            }
        }
        if (!again) break;
    }
    for (int d = 0; d < 3; d++) {
        in->min_extent[d] = 1;
        for (int f = 0; f < in->nfields; f++)
            if (1 - in->stagger[f][d] > in->min_extent[d])
                in->min_extent[d] = 1 - in->stagger[f][d];
    }
    for (int f = 0; f < in->nfields; f++)
        for (int d = 0; d < in->dims; d++)
            st->named[f] |= in->axes[f] != 0 || in->stagger[f][d] != 0;
}

/* One expression that reads every scalar and input (NULL without any). */
static node *every_read(gen *g) {
    gs_info *in = &g->st->info;
    node *sum = NULL;
    for (int s = 0; s < in->nscalars; s++) {
        node *e = mk(g, N_SCALAR, 0);
        e->ref = s;
        if (sum) {
            node *add = mk(g, N_BINARY, OP_ADD);
            add->a[0] = sum;
            add->a[1] = e;
            e = add;
        }
        sum = e;
    }
    for (int f = 0; f < in->nfields; f++) {
        if (in->kind[f] != GS_INPUT) continue;
        node *e = mk(g, N_FIELD, 0);
        e->ref = f;
        e->centre = 1;
        if (sum) {
            node *add = mk(g, N_BINARY, OP_SUB);
            add->a[0] = sum;
            add->a[1] = e;
            e = add;
        }
        sum = e;
    }
    return sum;
}

static node *num(gen *g, const char *text) {
    node *e = mk(g, N_NUM, 0);
    snprintf(e->text, sizeof e->text, "%s", text);
    e->val_f = (double)strtof(text, NULL);
    e->val_d = strtod(text, NULL);
    return e;
}

static node *op2(gen *g, int kind, int op, node *a, node *b) {
    node *e = mk(g, kind, op);
    e->a[0] = a;
    e->a[1] = b;
    return e;
}

/* min(max(e, -lim), lim): finite whatever e is (fmax and fmin drop a NaN). */
static node *clamp(gen *g, node *e, const char *lim) {
    node *neg = mk(g, N_UNARY, OP_NEG);
    neg->a[0] = num(g, lim);
    return op2(g, N_CALL, F_MIN, op2(g, N_CALL, F_MAX, e, neg), num(g, lim));
}

/* An expression for a coefficient: any (inputs at offsets, lets, index variables), of the
 * scalars and literals alone (the compiler computes it once, on the host), or a literal. */
static node *coef_source(gen *g, int uniform) {
    gs_info *in = &g->st->info;
    if (uniform && in->nscalars && chance(&g->r, 70)) {
        node *e = mk(g, N_SCALAR, 0);
        e->ref = below(&g->r, in->nscalars);
        return chance(&g->r, 50) ? e : op2(g, N_BINARY, OP_MUL, e, e);
    }
    if (uniform) return num(g, chance(&g->r, 50) ? "0.75" : "3");
    g->nodes = chance(&g->r, 10) ? 60 : 16;
    return arith(g, between(&g->r, 1, 4));
}

/* A line solve (docs/language.md, "Line solves"): lets, then `solve v along d { ... }` with a
 * diagonally dominant system, so that the reference Thomas solve and the runtime's agree
 * within rounding: |lower|, |upper| <= 1 and |diag| >= 2.5; every coefficient finite. */
static void gen_solve(gen *g) {
    gs_stencil *st = g->st;
    gs_info *in = &st->info;
    int nlets = below(&g->r, 4);
    for (int l = 0; l < nlets && st->nlets < GS_MAX_LETS; l++) {
        stmt *s = new_stmt(g, S_LET);
        s->ref = st->nlets++;
        s->e = rhs(g);
        new_name(g, st->let[s->ref], "t");
        g->vis[g->nvis++] = s->ref;
        push(&st->body, s);
    }
    stmt *s = new_stmt(g, S_SOLVE);
    for (int f = 0; f < in->nfields; f++)
        if (in->kind[f] == GS_OUTPUT) s->ref = f;
    static const char *const scale[] = {"0.5", "-0.5", "1", "-1", "0.25", ".9"};
    static const char *const base[] = {"2.5", "4", "3", "10"};
    for (int q = 0; q < 4; q++) {
        int r = below(&g->r, 100), uniform = r < 25;
        node *e;
        if (q == 1) { /* diag: +-(base + |bounded|) */
            e = op2(g, N_BINARY, OP_ADD, num(g, base[below(&g->r, 4)]), mk(g, N_CALL, F_FABS));
            e->a[1]->a[0] = clamp(g, coef_source(g, uniform), "8");
            if (chance(&g->r, 20)) {
                node *neg = mk(g, N_UNARY, OP_NEG);
                neg->a[0] = e;
                e = neg;
            }
        } else if (q == 3) { /* rhs: anything finite */
            e = clamp(g, coef_source(g, uniform), chance(&g->r, 50) ? "1e6" : "2");
        } else if (r < 12) { /* a literal of at most 1 */
            e = num(g, scale[below(&g->r, 6)]);
        } else { /* lower, upper: scale * min(max(e, -1), 1), or the sine of it */
            e = clamp(g, coef_source(g, uniform), "1");
            if (varying(e) && chance(&g->r, 30)) {
                node *sine = mk(g, N_CALL, chance(&g->r, 50) ? F_SIN : F_COS);
                sine->a[0] = e;
                e = sine;
            }
            e = op2(g, N_BINARY, OP_MUL, num(g, scale[below(&g->r, 6)]), e);
        }
        s->coef[q] = e;
    }
    /* Every let read, and without GS_UNUSED every scalar and input, through the rhs. */
    node *extra = g->flags & GS_UNUSED ? NULL : every_read(g);
    for (int l = 0; l < st->nlets; l++) {
        if (st->let_uses[l]) continue;
        node *ref = mk(g, N_LET, 0);
        ref->ref = l;
        st->let_uses[l]++;
        extra = extra ? op2(g, N_BINARY, OP_ADD, extra, ref) : ref;
    }
    if (extra) s->coef[3]->a[0]->a[0] = op2(g, N_BINARY, OP_ADD, s->coef[3]->a[0]->a[0], extra);
    push(&st->body, s);
}

/* The body of a sweep: a colour, statements, every output assigned on every path. */
static void gen_sweep(gen *g, int ninout) {
    gs_stencil *st = g->st;
    gs_info *in = &st->info;
    /* An order (drawn from g.x: g.r's stencils stay those of their seeds): a sweep with inouts,
     * in place in the loop's order, with neither colour nor reduction. */
    st->order =
        (g->flags & GS_ORDER) && ninout && chance(&g->x, 25) ? (chance(&g->x, 50) ? 1 : -1) : 0;
    /* A colour: always possible, likely with inouts (their neighbours need one). */
    if (chance(&g->r, ninout ? 75 : 15)) {
        if (chance(&g->r, 40)) {
            st->color_kind = 2;
            in->ncolors = 1 << in->dims;
        } else {
            st->color_kind = 1;
            st->cmod = between(&g->r, 2, 4);
            int unit = below(&g->r, in->dims); /* one coefficient +-1: every residue occurs */
            for (int d = 0; d < in->dims; d++)
                st->ccoef[d] = d == unit ? (chance(&g->r, 80) ? 1 : -1) : between(&g->r, -2, 2);
            st->cadd = below(&g->r, 3);
            in->ncolors = st->cmod;
        }
        if (st->order) st->color_kind = 0, in->ncolors = 0; /* drawn all the same */
    }

    /* Outputs assigned unconditionally at a random top-level position; inouts usually. */
    int force_at[GS_MAX_FIELDS], nforce = between(&g->r, 0, 6);
    for (int f = 0; f < in->nfields; f++) {
        int must = in->kind[f] == GS_OUTPUT ||
                   (in->kind[f] == GS_INOUT && (!(g->flags & GS_UNUSED) || chance(&g->r, 90)));
        force_at[f] = must ? below(&g->r, nforce + 1) : -1;
    }
    if (!g->has_writable) { /* a pure reduction */
        st->info.nreduces = 1;
        st->info.reduce_op[0] = (gs_reduce_op)between(&g->r, GS_SUM, GS_MIN);
        new_name(g, st->reduce[0], "r");
        stmt *s = new_stmt(g, S_REDUCE);
        s->ref = 0;
        s->e = rhs(g);
        push(&st->body, s);
    }
    gen_block(g, &st->body, 0, 1, force_at, nforce);

    /* Without GS_UNUSED every scalar and input is read: append a use where missing. */
    if (!(g->flags & GS_UNUSED)) {
        node *sum = every_read(g);
        if (sum) {
            stmt *s;
            int w = pick_writable(g);
            if (w >= 0) {
                s = new_stmt(g, S_ASSIGN);
                s->ref = w;
            } else {
                s = new_stmt(g, S_REDUCE);
                s->ref = st->info.nreduces++;
                st->info.reduce_op[s->ref] = GS_MAX;
                new_name(g, st->reduce[s->ref], "r");
            }
            s->e = sum;
            if (chance(&g->r, 50) || w < 0)
                push(&st->body, s);
            else /* first: later statements may overwrite it, but it is still a read */
                insert_at(&st->body, 0, s);
        }
    }
}

gs_stencil *gs_generate(uint64_t seed, unsigned flags, const char *name) {
    gs_stencil *st = calloc(1, sizeof *st);
    if (!st) abort();
    gen g = {.st = st,
             .r = {seed * 0x2545F4914F6CDD1Dull + 0x1234567ull},
             .x = {seed * 0xD1342543DE82EF95ull + 0x7F4A7C15ull},
             .flags = flags};
    gs_info *in = &st->info;
    in->dims = between(&g.r, 1, 3);
    in->is_float = chance(&g.r, 50);
    g.max_radius = in->dims == 3 && !(flags & GS_RADIUS8_3D) ? 4 : 8;
    if (name)
        snprintf(st->name, sizeof st->name, "%s", name);
    else
        snprintf(st->name, sizeof st->name, "rs_%llu", (unsigned long long)seed);
    in->name = st->name;
    snprintf(g.used[g.nused++], GS_NAME, "%s", st->name);

    in->nscalars = below(&g.r, GS_MAX_SCALARS + 1);
    for (int s = 0; s < in->nscalars; s++)
        new_name(&g, st->scalar[s], "a");
    int ninputs = below(&g.r, 4), nout = below(&g.r, 4),
        ninout = chance(&g.r, 35) ? between(&g.r, 1, 2) : 0;
    /* A line solve (drawn from g.x): one output, no inout. */
    in->solve = (flags & GS_SOLVE) && chance(&g.x, 10) ? 1 + below(&g.x, in->dims) : 0;
    if (in->solve) {
        nout = 1;
        ninout = 0;
    }
    if (ninputs + nout + ninout == 0) ninputs = 1;
    int kinds[GS_MAX_FIELDS], nk = 0;
    for (int f = 0; f < ninputs; f++)
        kinds[nk++] = GS_INPUT;
    for (int f = 0; f < nout; f++)
        kinds[nk++] = GS_OUTPUT;
    for (int f = 0; f < ninout; f++)
        kinds[nk++] = GS_INOUT;
    for (int f = nk - 1; f > 0; f--) { /* declaration order: any interleaving */
        int o = below(&g.r, f + 1), t = kinds[f];
        kinds[f] = kinds[o];
        kinds[o] = t;
    }
    in->nfields = nk;
    for (int f = 0; f < nk; f++) {
        in->kind[f] = (gs_field_kind)kinds[f];
        new_name(&g, st->field[f], kinds[f] == GS_INPUT ? "x" : kinds[f] == GS_OUTPUT ? "w" : "u");
        in->field_name[f] = st->field[f];
        if (kinds[f] != GS_INPUT) g.has_writable = 1;
    }
    gen_shapes(&g);

    if (in->solve)
        gen_solve(&g);
    else
        gen_sweep(&g, ninout);
    settle_halos(st);

    /* Declarations go anywhere among the top-level items (they may follow their uses). */
    int ndecl = in->nscalars + nk;
    for (int d = 0; d < ndecl; d++) {
        stmt *s = new_stmt(&g, S_DECL);
        s->ref = d < in->nscalars ? -(d + 1) : d - in->nscalars;
        int at = chance(&g.r, 80) ? d : between(&g.r, d, st->body.n);
        if (at > st->body.n) at = st->body.n;
        insert_at(&st->body, at, s);
    }
    /* Declarations of one kind must keep their order: re-sort them in place. */
    {
        int slot_s = 0, slot_f = 0;
        for (int n = 0; n < st->body.n; n++) {
            stmt *s = st->body.s[n];
            if (s->kind != S_DECL) continue;
            if (s->ref < 0)
                s->ref = -(++slot_s);
            else
                s->ref = slot_f++;
        }
    }

    sbuf b = {0};
    put(&b, "# random stencil, seed %llu, flags %s\n", (unsigned long long)seed,
        gs_flags_text(flags));
    put(&b, "stencil %s {\n", st->name);
    int order = below(&g.r, 3);
    if (order == 0)
        put(&b, "    dims %d;\n    type %s;\n", in->dims, in->is_float ? "float" : "double");
    if (order == 1)
        put(&b, "    type %s;\n    dims %d;\n", in->is_float ? "float" : "double", in->dims);
    int color_first = chance(&g.r, 50); /* the colour may come before or after its uses */
    if (st->color_kind && color_first) print_color(&g, &b);
    print_block(&g, &b, &st->body, 4);
    if (st->color_kind && !color_first) print_color(&g, &b);
    if (st->order) put(&b, "    order %s;\n", st->order > 0 ? "forward" : "backward");
    if (order == 2) put(&b, "    dims %d; type %s;\n", in->dims, in->is_float ? "float" : "double");
    /* A stepping pair now and then (drawn from g.x, after all else, so that g.r's stencils stay
     * those of their seeds): it adds the NAME_steps launcher and the CUDA tstep kernels, which
     * must compile too; the single launch is unchanged. Not with colours, reductions or a line
     * solve (the checker refuses them). */
    if (!st->color_kind && !in->nreduces && !in->solve && !st->order && chance(&g.x, 30)) {
        int outs[GS_MAX_FIELDS], ins[GS_MAX_FIELDS], no = 0, ni = 0;
        for (int f = 0; f < in->nfields; f++)
            if (in->kind[f] == GS_OUTPUT) outs[no++] = f;
        const int out = no ? outs[below(&g.x, no)] : -1;
        /* IN holds the stencil's type over OUT's extent: every dimension, the same stagger */
        for (int f = 0; f < in->nfields && out >= 0; f++) {
            int alike = in->kind[f] == GS_INPUT && in->elem[f] == GS_REAL &&
                        (!in->axes[f] || in->axes[f] == (1u << in->dims) - 1);
            for (int d = 0; d < in->dims && alike; d++)
                alike = in->stagger[f][d] == in->stagger[out][d];
            if (alike) ins[ni++] = f;
        }
        if (ni) put(&b, "    step %s -> %s;\n", st->field[out], st->field[ins[below(&g.x, ni)]]);
    }
    put(&b, "}\n");
    st->text = b.s;
    return st;
}

/* ---- evaluation -------------------------------------------------------------------------- */

int gs_field_shape(const gs_info *info, int f, const long n[3], long ext[3]) {
    int p = 0;
    for (int d = 0; d < info->dims; d++)
        if (!info->axes[f] || (info->axes[f] >> d & 1)) ext[p++] = n[d] + info->stagger[f][d];
    for (int d = p; d < 3; d++)
        ext[d] = 1;
    return p;
}

size_t gs_field_points(const gs_info *info, int f, const long n[3], int halo) {
    long ext[3];
    int fdims = gs_field_shape(info, f, n, ext);
    size_t p = 1;
    for (int d = 0; d < 3; d++)
        p *= (size_t)(ext[d] + (d < fdims ? 2 * halo : 0));
    return p;
}

size_t gs_field_index(const gs_info *info, int f, const long n[3], int halo, long a, long b,
                      long c) {
    long ext[3], h[3];
    int fdims = gs_field_shape(info, f, n, ext);
    for (int d = 0; d < 3; d++)
        h[d] = d < fdims ? halo : 0;
    long w0 = ext[0] + 2 * h[0], w1 = ext[1] + 2 * h[1];
    return (size_t)((a + h[0]) + w0 * ((b + h[1]) + w1 * (c + h[2])));
}

static long emod(long a, long m) {
    return ((a % m) + m) % m;
}

int gs_color_at(const gs_stencil *st, long i, long j, long k) {
    long p[3] = {i, j, k};
    if (st->color_kind == 1) {
        long s = st->cadd;
        for (int d = 0; d < 3; d++)
            s += st->ccoef[d] * p[d];
        return (int)emod(s, st->cmod);
    }
    if (st->color_kind == 2) {
        int c = 0;
        for (int d = 0; d < st->info.dims; d++)
            c |= (int)emod(p[d], 2) << d;
        return c;
    }
    return 0;
}

typedef struct point {
    const gs_stencil *st;
    const long *n;    /* the reference grid */
    const long *size; /* the launch's extents: ni, nj, nk */
    long pos[3];
    const double *scalars;       /* already in the stencil's type */
    gs_field *before;            /* the fields at the start of the launch (ordered: the fields) */
    double local[GS_MAX_FIELDS]; /* outputs: last value assigned; inouts: current value */
    double let[GS_MAX_LETS];
    double red[GS_MAX_REDUCES];
    double coef[4]; /* a line solve's coefficients at the point */
    int loose;      /* a min or max met zeros of both signs: the sign of its zero is unspecified */
} point;

static double rt(const point *p, double v) {
    return p->st->info.is_float ? (double)(float)v : v;
}

static double eval(point *p, const node *e) {
    const gs_stencil *st = p->st;
    int fl = st->info.is_float;
    switch (e->kind) {
    case N_NUM:
        return fl ? e->val_f : e->val_d;
    case N_SCALAR:
        return p->scalars[e->ref];
    case N_LET:
        return p->let[e->ref];
    case N_INDEX:
        return rt(p, (double)(e->op < 3 ? p->pos[e->op] : p->size[e->op - 3]));
    case N_FIELD: {
        int f = e->ref;
        if (st->info.kind[f] == GS_OUTPUT) return p->local[f];
        if (st->info.kind[f] == GS_INOUT && !e->off[0] && !e->off[1] && !e->off[2])
            return p->local[f];
        /* Point p reads element p + o of the array, in the dimensions it spans, whatever its
         * extent; an integer is converted to the stencil's type. */
        const gs_field *fd = &p->before[f];
        long at[3] = {0, 0, 0};
        for (int d = 0, q = 0; d < st->info.dims; d++)
            if (!st->info.axes[f] || (st->info.axes[f] >> d & 1)) at[q++] = p->pos[d] + e->off[d];
        double v = fd->data[gs_field_index(&st->info, f, p->n, fd->halo, at[0], at[1], at[2])];
        return st->info.elem[f] != GS_REAL ? rt(p, v) : v;
    }
    case N_UNARY: {
        double a = eval(p, e->a[0]);
        return e->op == OP_NEG ? -a : e->op == OP_NOT ? (a == 0 ? 1.0 : 0.0) : a;
    }
    case N_BINARY: {
        double a = eval(p, e->a[0]);
        if (e->op == OP_AND && a == 0) return 0;
        if (e->op == OP_OR && a != 0) return 1;
        double b = eval(p, e->a[1]);
        switch (e->op) {
        case OP_ADD:
            return rt(p, a + b);
        case OP_SUB:
            return rt(p, a - b);
        case OP_MUL:
            return rt(p, a * b);
        case OP_DIV:
            return rt(p, a / b);
        case OP_LT:
            return a < b;
        case OP_LE:
            return a <= b;
        case OP_GT:
            return a > b;
        case OP_GE:
            return a >= b;
        case OP_EQ:
            return a == b;
        case OP_NE:
            return a != b;
        default: /* && || with a deciding second operand */
            return b != 0;
        }
    }
    case N_TERNARY:
        return eval(p, e->a[0]) != 0 ? eval(p, e->a[1]) : eval(p, e->a[2]);
    case N_CALL: {
        double a = eval(p, e->a[0]);
        double b = e->op >= F_MIN ? eval(p, e->a[1]) : 0;
        float af = (float)a, bf = (float)b;
        /* C leaves the sign of fmax(+0, -0) open, and gcc swaps the operands of fmax freely */
        if (e->op >= F_MIN && e->op <= F_MAX && a == 0 && b == 0 && signbit(a) != signbit(b))
            p->loose = 1;
        switch (e->op) {
        case F_SQRT:
            return fl ? sqrtf(af) : sqrt(a);
        case F_EXP:
            return fl ? expf(af) : exp(a);
        case F_LOG:
            return fl ? logf(af) : log(a);
        case F_SIN:
            return fl ? sinf(af) : sin(a);
        case F_COS:
            return fl ? cosf(af) : cos(a);
        case F_TAN:
            return fl ? tanf(af) : tan(a);
        case F_FABS:
        case F_ABS:
            return fabs(a);
        case F_FLOOR:
            return floor(a);
        case F_CEIL:
            return ceil(a);
        case F_MIN:
            return fl ? fminf(af, bf) : fmin(a, b);
        case F_MAX:
            return fl ? fmaxf(af, bf) : fmax(a, b);
        default:
            return fl ? powf(af, bf) : pow(a, b);
        }
    }
    }
    return 0;
}

static void run_block(point *p, const block *b) {
    for (int n = 0; n < b->n; n++) {
        const stmt *s = b->s[n];
        switch (s->kind) {
        case S_LET:
            p->let[s->ref] = eval(p, s->e);
            break;
        case S_ASSIGN:
            p->local[s->ref] = eval(p, s->e);
            break;
        case S_REDUCE:
            p->red[s->ref] = eval(p, s->e);
            break;
        case S_SOLVE:
            for (int q = 0; q < 4; q++)
                p->coef[q] = eval(p, s->coef[q]);
            break;
        case S_IF:
            if (eval(p, s->e) != 0)
                run_block(p, &s->then_b);
            else if (s->has_else)
                run_block(p, &s->else_b);
            break;
        default:
            break;
        }
    }
}

/* The line solve (docs/language.md): along every line of v in its direction, at interior
 * positions of the other dimensions, lower*v[p-1] + diag*v[p] + upper*v[p+1] = rhs with v's
 * halo as the values beyond both ends; by Thomas's algorithm in long double, from the
 * coefficients in the stencil's type (coef: 4 per launch point, i fastest). Each value may be
 * off by what the solver's rounding gives: 32 ulps of the type of the line's magnitude (the
 * largest of its solution, right-hand sides and ends; the systems are diagonally dominant,
 * |diag| >= 2.5 >= |lower| + |upper| + 0.5, so errors do not grow; seen: 1.2 ulps). */
static void solve_lines(const gs_stencil *st, const long n[3], const long size[3],
                        const double *coef, int vf, const gs_field *before, gs_field *v) {
    const gs_info *in = &st->info;
    const int dim = in->solve - 1;
    const long m = size[dim];
    long double *cp = malloc((size_t)m * sizeof *cp), *rp = malloc((size_t)m * sizeof *rp);
    if (!cp || !rp) abort();
    const double eps = in->is_float ? 0x1p-23 : 0x1p-52;
    long pos[3];
    for (pos[2] = 0; pos[2] < (dim == 2 ? 1 : size[2]); pos[2]++)
        for (pos[1] = 0; pos[1] < (dim == 1 ? 1 : size[1]); pos[1]++)
            for (pos[0] = 0; pos[0] < (dim == 0 ? 1 : size[0]); pos[0]++) {
                long at[3] = {pos[0], pos[1], pos[2]};
                at[dim] = -1;
                double lo =
                    before->data[gs_field_index(in, vf, n, before->halo, at[0], at[1], at[2])];
                at[dim] = m;
                double hi =
                    before->data[gs_field_index(in, vf, n, before->halo, at[0], at[1], at[2])];
                double scale = fmax(fabs(lo), fabs(hi));
                for (long t = 0; t < m; t++) {
                    at[dim] = t;
                    const double *c = coef + 4 * (at[0] + size[0] * (at[1] + size[1] * at[2]));
                    long double a = c[0], b = c[1], u = c[2], r = c[3];
                    scale = fmax(scale, fabs(c[3]));
                    if (t == 0) r -= a * lo;
                    if (t == m - 1) r -= u * hi;
                    long double den = t ? b - a * cp[t - 1] : b;
                    cp[t] = u / den;
                    rp[t] = (r - (t ? a * rp[t - 1] : 0)) / den;
                }
                for (long t = m - 1; t >= 0; t--) {
                    if (t < m - 1) rp[t] -= cp[t] * rp[t + 1];
                    scale = fmax(scale, fabs((double)rp[t]));
                }
                for (long t = 0; t < m; t++) {
                    at[dim] = t;
                    size_t k = gs_field_index(in, vf, n, v->halo, at[0], at[1], at[2]);
                    v->data[k] = in->is_float ? (double)(float)rp[t] : (double)rp[t];
                    if (v->tol) v->tol[k] = 32 * eps * scale + 0x1p-1022; /* zeros: any sign */
                }
            }
    free(cp);
    free(rp);
}

void gs_eval_launch(const gs_stencil *st, const long n[3], int color, const double *scalars,
                    gs_field *fields, double *red, double *red_abs) {
    const gs_info *in = &st->info;
    gs_field before[GS_MAX_FIELDS];
    for (int f = 0; f < in->nfields; f++) {
        size_t pts = gs_field_points(in, f, n, fields[f].halo);
        before[f].halo = fields[f].halo;
        before[f].data = malloc(pts * sizeof(double));
        if (!before[f].data) abort();
        memcpy(before[f].data, fields[f].data, pts * sizeof(double));
    }
    double sc[GS_MAX_SCALARS];
    for (int s = 0; s < in->nscalars; s++)
        sc[s] = in->is_float ? (double)(float)scalars[s] : scalars[s];
    /* Reductions: sums compensated in long double (Neumaier), max / min exactly. A naive long
     * double sum is not enough: terms of 1e31 that cancel leave the small ones 2^40 apart. */
    long double sum[GS_MAX_REDUCES] = {0}, comp[GS_MAX_REDUCES] = {0};
    long terms[GS_MAX_REDUCES] = {0};
    double acc[GS_MAX_REDUCES], inf_sum[GS_MAX_REDUCES];
    int nonfinite[GS_MAX_REDUCES] = {0};
    for (int r = 0; r < in->nreduces; r++) {
        acc[r] = in->reduce_op[r] == GS_MAX ? -INFINITY : in->reduce_op[r] == GS_MIN ? INFINITY : 0;
        inf_sum[r] = 0;
        red_abs[r] = 0;
    }
    long size[3];
    for (int d = 0; d < 3; d++)
        size[d] = n[d] + in->launch_stagger[d];
    /* An ordered sweep reads the fields as they are being written: earlier points new. */
    point p = {
        .st = st, .n = n, .size = size, .scalars = sc, .before = st->order ? fields : before};
    double *coef = NULL; /* a line solve's coefficients, 4 per point */
    if (in->solve) {
        coef = malloc((size_t)(size[0] * size[1] * size[2]) * 4 * sizeof *coef);
        if (!coef) abort();
    }
    const int back = st->order < 0; /* backward: the loops run down */
    for (long kk = 0; kk < size[2]; kk++)
        for (long jj = 0; jj < size[1]; jj++)
            for (long ii = 0; ii < size[0]; ii++) {
                const long i = back ? size[0] - 1 - ii : ii, j = back ? size[1] - 1 - jj : jj,
                           k = back ? size[2] - 1 - kk : kk;
                if (st->color_kind && gs_color_at(st, i, j, k) != color) continue;
                p.pos[0] = i;
                p.pos[1] = j;
                p.pos[2] = k;
                p.loose = 0;
                for (int f = 0; f < in->nfields; f++)
                    p.local[f] =
                        in->kind[f] == GS_INOUT
                            ? before[f].data[gs_field_index(in, f, n, before[f].halo, i, j, k)]
                            : 0;
                run_block(&p, &st->body);
                if (coef) {
                    memcpy(coef + 4 * (i + size[0] * (j + size[1] * k)), p.coef, sizeof p.coef);
                    continue;
                }
                for (int f = 0; f < in->nfields; f++) {
                    if (in->kind[f] == GS_INPUT) continue;
                    size_t at = gs_field_index(in, f, n, fields[f].halo, i, j, k);
                    fields[f].data[at] = p.local[f];
                    if (fields[f].loose) fields[f].loose[at] = (unsigned char)p.loose;
                }
                for (int r = 0; r < in->nreduces; r++) {
                    double v = p.red[r];
                    if (in->reduce_op[r] == GS_SUM) {
                        if (isfinite(v)) {
                            long double t = sum[r] + v;
                            comp[r] += fabsl(sum[r]) >= fabsl((long double)v)
                                           ? (sum[r] - t) + v
                                           : ((long double)v - t) + sum[r];
                            sum[r] = t;
                            red_abs[r] += fabs(v);
                            terms[r]++;
                        } else {
                            inf_sum[r] += v; /* NaN or the infinities' sum */
                            nonfinite[r] = 1;
                        }
                    } else if (isnan(v) || isnan(acc[r])) {
                        acc[r] = NAN;
                    } else if (in->reduce_op[r] == GS_MAX ? v > acc[r] : v < acc[r]) {
                        acc[r] = v;
                    }
                }
            }
    for (int f = 0; coef && f < in->nfields; f++)
        if (in->kind[f] == GS_OUTPUT) solve_lines(st, n, size, coef, f, &before[f], &fields[f]);
    free(coef);
    for (int r = 0; r < in->nreduces; r++) {
        red[r] = in->reduce_op[r] != GS_SUM ? acc[r]
                 : nonfinite[r]             ? inf_sum[r]
                                            : (double)(sum[r] + comp[r]);
        red_abs[r] *= (double)terms[r];
    }
    for (int f = 0; f < in->nfields; f++)
        free(before[f].data);
}
