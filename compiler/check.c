/* The checker. For each stencil: the header (dims, type, declarations), then the body in
 * order with a stack of visible lets and, per output, whether it is assigned on the current
 * path. At an if, both branches start from the state before it and the state after is their
 * intersection, so "assigned on every path" falls out of the walk. */
#include "check.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "color.h"
#include "func.h"
#include "targets.h"

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
    ast_type type;   /* the element type code is generated in (--precision, else the
                        stencil's); AST_TYPE_NONE when unknown (no range checks) */
    ast_stmt **lets; /* visible lets, innermost last */
    int nlets, caplets;
    int noutputs, ninouts;
    unsigned char *inout_assigned; /* per inout position: assigned anywhere */
    unsigned char *assigned;       /* per output position: assigned on the current path */
    unsigned char *ever;           /* per output position: assigned anywhere */
    int if_depth;                  /* ifs around the statement being checked */
    const ast_stmt **lost_at;      /* per output position: the last if after which it was
                                      assigned on some paths only (NULL: none) */
    inout_read *inout_reads;       /* distinct neighbour reads of inout arrays */
    int ninout_reads, capinout_reads;
} checker;

/* ---- names ------------------------------------------------------------------------------- */

/* Words the stencil language gives a meaning: its keywords (float and double are read as names
 * by the grammar), besides the built-in functions and index variables. */
static const char *const language_words[] = {
    "stencil", "dims",  "type",   "scalar", "input",  "output", "inout", "let",  "if",
    "else",    "color", "reduce", "float",  "double", "func",   "step",  "solve"};

/* Keywords of C (C23 included) and C++ (C++20, alternative tokens and contextual words that
 * start a declaration), and the CUDA built-in variables: a stencil's name becomes a function of
 * the generated C and CUDA code. */
static const char *const c_cxx_cuda_words[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "final", "float", "for", "friend",
    "goto", "if", "import", "inline", "int", "long", "main", "module", "mutable", "namespace",
    "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "override", "private",
    "protected", "public", "register", "reinterpret_cast", "requires", "restrict", "return",
    "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
    "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "typeof", "typeof_unqual", "union", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "while", "xor", "xor_eq",
    /* CUDA */
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};

/* Identifiers the generated code's headers declare, the headers they reach, and the symbols
 * the libraries a program links export (scripts/gen_reserved_names.py). */
#include "reserved_names.inc"

static int in_list(const char *name, const char *const *list, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (strcmp(name, list[k]) == 0) return 1;
    return 0;
}

static int compare_names(const void *key, const void *item) {
    return strcmp((const char *)key, *(const char *const *)item);
}

static int in_sorted(const char *name, const char *const *list, size_t n) {
    return bsearch(name, list, n, sizeof *list, compare_names) != NULL;
}

#define COUNT(list) (sizeof list / sizeof list[0])

const char *check_name_reserved(const char *name) {
    if (in_list(name, language_words, COUNT(language_words)))
        return "it is a keyword of the stencil language";
    if (ast_func_lookup(name) >= 0) return "it is a built-in function";
    for (int x = 0; x < AST_INDEX_COUNT; x++)
        if (strcmp(name, ast_index_name((ast_index)x)) == 0) return "it is an index variable";
    if (name[0] == '_') return "names starting with '_' are reserved for C and C++";
    if (strncmp(name, "stenc_", 6) == 0 || strncmp(name, "STENC_", 6) == 0)
        return "names starting with 'stenc_' are reserved for the generated code";
    size_t n = strlen(name);
    if (n > 0 && name[n - 1] == '_')
        return "names ending in '_' are reserved (the generated code names each value NAME_)";
    if (strstr(name, "__")) return "names containing '__' are reserved for C++";
    return NULL;
}

int check_reserved_name(const char *name) {
    return check_name_reserved(name) != NULL;
}

const char *check_stencil_name_conflict(const char *name) {
    static char why[AST_MAX_NAME + 200];
    if (strlen(name) > AST_MAX_STENCIL_NAME) {
        snprintf(why, sizeof why,
                 "it is %zu bytes long, and its files (NAME_cuda.cu) must fit the 255 bytes of a "
                 "file name: at most %d",
                 strlen(name), AST_MAX_STENCIL_NAME);
        return why;
    }
    const char *reserved = check_name_reserved(name);
    if (reserved && !in_list(name, language_words, COUNT(language_words))) return reserved;
    if (in_list(name, c_cxx_cuda_words, COUNT(c_cxx_cuda_words)) ||
        in_list(name, language_words, COUNT(language_words)))
        return "it is a keyword or built-in name of C, C++ or CUDA";
    if (in_sorted(name, reserved_header_identifiers, COUNT(reserved_header_identifiers)))
        return "the headers that generated code includes declare it";
    if (in_sorted(name, reserved_link_symbols, COUNT(reserved_link_symbols)))
        return "the C library or a runtime library that programs link exports it (the launcher "
               "would replace it)";
    if (in_sorted(name, reserved_header_files, COUNT(reserved_header_files))) {
        snprintf(why, sizeof why,
                 "its header '%s.h' would hide the system header of that name from generated "
                 "code",
                 name);
        return why;
    }
    char upper[AST_MAX_NAME + 1];
    size_t n = strlen(name);
    if (n > AST_MAX_NAME) return NULL; /* reported as too long by the scanner */
    for (size_t k = 0; k <= n; k++)
        upper[k] = (char)toupper((unsigned char)name[k]);
    /* every identifier a target's files declare from the name (targets.c) */
    for (int t = 0; t < emit_ntargets; t++)
        for (int upper_case = 0; upper_case < 2; upper_case++) {
            const char *const *list =
                upper_case ? emit_targets[t].declared_upper : emit_targets[t].declared;
            for (int k = 0; list && list[k]; k++) {
                char id[AST_MAX_NAME + 40];
                snprintf(id, sizeof id, list[k], upper_case ? upper : name);
                if (in_sorted(id, reserved_header_identifiers,
                              COUNT(reserved_header_identifiers))) {
                    snprintf(why, sizeof why,
                             "generated code would declare '%s', which the headers it includes "
                             "declare too",
                             id);
                    return why;
                }
            }
        }
    return NULL;
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

/* One identifier (or lower-cased file name) a stencil claims in a build. */
typedef struct claim {
    char *text;
    int owner;   /* index of the stencil */
    int is_file; /* the file name, compared without case */
} claim;

static int compare_claims(const void *pa, const void *pb) {
    const claim *a = pa, *b = pb;
    int c = strcmp(a->text, b->text);
    if (c) return c;
    if (a->is_file != b->is_file) return a->is_file - b->is_file;
    return a->owner - b->owner;
}

static char *xstrdup(const char *text) {
    char *copy = strdup(text);
    if (!copy) {
        fputs("stenc: out of memory\n", stderr);
        abort();
    }
    return copy;
}

void check_stencil_clashes(const char *const *names, int n, check_clash_fn report, void *ctx) {
    size_t per = 3; /* NAME_HALO, the file name, and the exported identifiers below */
    for (int t = 0; t < emit_ntargets; t++)
        for (int e = 0; emit_targets[t].exported && emit_targets[t].exported[e]; e++)
            per++;
    claim *claims = calloc((size_t)n * per + 1, sizeof *claims);
    if (!claims) {
        fputs("stenc: out of memory\n", stderr);
        abort();
    }
    int count = 0;
    for (int k = 0; k < n; k++) {
        size_t len = strlen(names[k]);
        if (len > AST_MAX_NAME) continue;
        char upper[AST_MAX_NAME + 1], lower[AST_MAX_NAME + 1], id[AST_MAX_NAME + 40];
        for (size_t c = 0; c <= len; c++) {
            upper[c] = (char)toupper((unsigned char)names[k][c]);
            lower[c] = (char)tolower((unsigned char)names[k][c]);
        }
        /* What a program sees of a stencil: its functions, its header's macros (the guard is
         * the upper-case name), and its file names (case-blind file systems exist). */
        for (int t = 0; t < emit_ntargets; t++)
            for (int e = 0; emit_targets[t].exported && emit_targets[t].exported[e]; e++) {
                snprintf(id, sizeof id, emit_targets[t].exported[e], names[k]);
                claims[count++] = (claim){xstrdup(id), k, 0};
            }
        snprintf(id, sizeof id, "%s_HALO", upper);
        claims[count++] = (claim){xstrdup(id), k, 0};
        claims[count++] = (claim){xstrdup(lower), k, 1};
    }
    qsort(claims, (size_t)count, sizeof *claims, compare_claims);
    /* Each clashing pair is reported once, for the first identifier found. */
    int *reported = calloc((size_t)n + 1, sizeof *reported); /* later -> first + 1 */
    if (!reported) {
        fputs("stenc: out of memory\n", stderr);
        abort();
    }
    for (int a = 0; a + 1 < count; a++) {
        for (int b = a + 1; b < count && strcmp(claims[a].text, claims[b].text) == 0; b++) {
            if (claims[a].is_file != claims[b].is_file || claims[a].owner == claims[b].owner)
                continue;
            int first = claims[a].owner < claims[b].owner ? claims[a].owner : claims[b].owner;
            int later = claims[a].owner < claims[b].owner ? claims[b].owner : claims[a].owner;
            const char *x = names[first], *y = names[later];
            if (strcmp(x, y) == 0 || reported[later] == first + 1) continue;
            reported[later] = first + 1;
            char what[2 * AST_MAX_NAME + 120];
            if (claims[a].is_file)
                snprintf(what, sizeof what,
                         "its files differ from those of stencil '%s' only in case", x);
            else
                snprintf(what, sizeof what, "it and stencil '%s' would both declare '%s'", x,
                         claims[a].text);
            report(ctx, first, later, what);
        }
    }
    free(reported);
    for (int k = 0; k < count; k++)
        free(claims[k].text);
    free(claims);
}

/* ---- suggestions and notes -------------------------------------------------------------- */

/* "'u' declared here" after an error about declaration `d`. */
static void note_declared(checker *c, const ast_decl *d) {
    diag_note(c->d, d->loc, "'%s' declared here", d->name);
}

/* A visible name close to `name` (a declaration, a let in scope, an index variable the
 * stencil's dims allow), or NULL. */
static const char *suggest_name(const checker *c, const char *name) {
    int n = c->st->ndecls + c->nlets + AST_INDEX_COUNT;
    const char **candidates = malloc((size_t)n * sizeof *candidates);
    if (!candidates) return NULL;
    int k = 0;
    for (int m = 0; m < c->st->ndecls; m++)
        candidates[k++] = c->st->decls[m]->name;
    for (int m = 0; m < c->nlets; m++)
        candidates[k++] = c->lets[m]->u.let.name;
    for (int x = 0; x < AST_INDEX_COUNT; x++)
        if (c->dims == 0 || x % 3 < c->dims) candidates[k++] = ast_index_name((ast_index)x);
    const char *best = diag_closest(name, candidates, k);
    free(candidates);
    return best;
}

/* "'xx' is not declared in stencil 's' (did you mean 'x'?)" */
static void report_undeclared(checker *c, ast_loc loc, const char *name) {
    const char *close = suggest_name(c, name);
    if (close) {
        diag_error(c->d, loc, "'%s' is not declared in stencil '%s'; did you mean '%s'?", name,
                   c->st->name, close);
        const ast_decl *d = ast_find_decl(c->st, close);
        if (d) note_declared(c, d);
    } else {
        diag_error(c->d, loc, "'%s' is not declared in stencil '%s'", name, c->st->name);
    }
}

/* The keyword of a statement, for a caret that does not cover many lines. */
static ast_loc keyword_loc(ast_loc loc, int length) {
    ast_loc at = {loc.first_line, loc.first_col, loc.first_line, loc.first_col + length - 1};
    return at;
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

static int popcount3(unsigned axes) {
    return (axes & 1) + (axes >> 1 & 1) + (axes >> 2 & 1);
}

/* Fold the offsets of a reference to array `name`; 1 when all are valid constants. `axes`
 * (0: every dimension) says which dimensions the offsets, in order, stand for. */
static int fold_offsets_on(checker *c, const char *name, unsigned axes, ast_expr **exprs, int n,
                           ast_loc loc, int offset[AST_MAX_DIMS]) {
    for (int k = 0; k < AST_MAX_DIMS; k++)
        offset[k] = 0;
    if (n == 0) return 1; /* the centre */
    int ok = 1;
    if (axes && n != popcount3(axes)) {
        diag_error(c->d, loc, "'%s' has %d offset%s, but it spans %d dimension%s of stencil '%s'",
                   name, n, n == 1 ? "" : "s", popcount3(axes), popcount3(axes) == 1 ? "" : "s",
                   c->st->name);
        ok = 0;
    } else if (!axes && c->dims > 0 && n != c->dims) {
        diag_error(c->d, loc, "'%s' has %d offset%s, but stencil '%s' has %d dimension%s", name, n,
                   n == 1 ? "" : "s", c->st->name, c->dims, c->dims == 1 ? "" : "s");
        ok = 0;
    }
    for (int k = 0, dim = 0; k < n; k++) {
        int v = 0;
        while (axes && dim < AST_MAX_DIMS && !(axes >> dim & 1))
            dim++;
        if (!fold_offset(c, exprs[k], &v))
            ok = 0;
        else if (ok && dim < AST_MAX_DIMS)
            offset[dim] = v;
        dim++;
    }
    return ok;
}

static int fold_offsets(checker *c, const char *name, ast_expr **exprs, int n, ast_loc loc,
                        int offset[AST_MAX_DIMS]) {
    return fold_offsets_on(c, name, 0, exprs, n, loc, offset);
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
            if (fold_offsets_on(c, name, d->axes, e->u.ref.offset_exprs, e->u.ref.noffsets, e->loc,
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
                note_declared(c, d);
                return;
            }
            if (!c->assigned[d->position]) {
                diag_error(c->d, e->loc, "output '%s' is read before it is assigned", name);
                note_declared(c, d);
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
    if (c->st->solve && c->st->solve->decl && strcmp(name, c->st->solve->name) == 0) {
        diag_error(c->d, e->loc,
                   "'%s' is the array the stencil solves for: its values are the solution, which "
                   "the coefficients cannot read (read it in another stencil)",
                   name);
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
    report_undeclared(c, e->loc, name);
}

static void check_call(checker *c, ast_expr *e) {
    for (int a = 0; a < e->u.call.nargs; a++)
        check_expr(c, e->u.call.args[a]);
    const char *name = e->u.call.name;
    int f = ast_func_lookup(name);
    if (f < 0) {
        const char *names[AST_FUNC_COUNT];
        for (int k = 0; k < AST_FUNC_COUNT; k++)
            names[k] = ast_func_get((ast_func)k)->name;
        const char *close = diag_closest(name, names, AST_FUNC_COUNT);
        if (close)
            diag_error(c->d, e->u.call.name_loc, "unknown function '%s'; did you mean '%s'?", name,
                       close);
        else
            diag_error(c->d, e->u.call.name_loc,
                       "unknown function '%s' (the functions are sqrt exp log sin cos tan fabs "
                       "abs min max pow floor ceil)",
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

/* A literal must be finite in the type it is computed in: the stencil's, or float for a
 * literal with an f suffix (as in C). One that rounds to zero there is a warning. */
static void check_number(checker *c, const ast_expr *e) {
    const char *text = e->u.number.text;
    int in_float = c->type == AST_TYPE_FLOAT || e->u.number.is_float;
    double exact = strtod(text, NULL); /* the decimal, as near as a double gets */
    if (in_float && !e->u.number.is_float && isinf(strtof(text, NULL)) && isfinite(exact)) {
        diag_error(c->d, e->loc,
                   "number '%.40s' is out of range for float (largest %.9g), the type of "
                   "stencil '%s'",
                   text, (double)FLT_MAX, c->st->name);
        return;
    }
    double value = in_float ? (double)strtof(text, NULL) : exact;
    int nonzero_text = strpbrk(text, "123456789") != NULL &&
                       strpbrk(text, "123456789") < text + strcspn(text, "eE");
    if (value == 0 && nonzero_text)
        diag_warning(c->d, e->loc, "number '%.40s' rounds to zero in %s", text,
                     in_float ? "float" : "double");
}

/* Check `e` and set its value type (see ast_vtype). */
static void check_expr(checker *c, ast_expr *e) {
    e->vtype = AST_VT_REAL;
    switch (e->kind) {
    case AST_EXPR_NUMBER:
        if (c->type != AST_TYPE_NONE || e->u.number.is_float) check_number(c, e);
        return;
    case AST_EXPR_REF:
        check_ref(c, e);
        return;
    case AST_EXPR_CALL:
        check_call(c, e);
        return;
    case AST_EXPR_UNARY:
        check_expr(c, e->u.unary.operand);
        if (e->u.unary.op == AST_OP_NOT) e->vtype = AST_VT_BOOL;
        return;
    case AST_EXPR_BINARY:
        check_expr(c, e->u.binary.lhs);
        check_expr(c, e->u.binary.rhs);
        if (e->u.binary.op == AST_OP_MOD)
            diag_error(c->d, e->loc, "'%%' is only allowed in colour expressions");
        if (ast_op_is_bool(e->u.binary.op)) e->vtype = AST_VT_BOOL;
        return;
    case AST_EXPR_TERNARY:
        check_expr(c, e->u.ternary.cond);
        check_expr(c, e->u.ternary.then_expr);
        check_expr(c, e->u.ternary.else_expr);
        if (e->u.ternary.then_expr->vtype == AST_VT_BOOL &&
            e->u.ternary.else_expr->vtype == AST_VT_BOOL)
            e->vtype = AST_VT_BOOL;
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
    const char *reserved = check_name_reserved(name);
    if (reserved) {
        diag_error(c->d, s->u.let.name_loc, "'%s' is a reserved name: %s", name, reserved);
    } else if (d) {
        diag_error(c->d, s->u.let.name_loc, "let '%s' shadows the %s '%s' declared at %d:%d", name,
                   ast_decl_kind_name(d->kind), name, d->loc.first_line, d->loc.first_col);
        note_declared(c, d);
    } else if (other) {
        diag_error(c->d, s->u.let.name_loc, "'%s' is already defined at %d:%d", name,
                   other->u.let.name_loc.first_line, other->u.let.name_loc.first_col);
        diag_note(c->d, other->u.let.name_loc, "'%s' first defined here", name);
    }
    s->u.let.id = c->st->nlets++;
    push_let(c, s);
}

static void check_assign(checker *c, ast_stmt *s) {
    const char *name = s->u.assign.name;
    ast_loc at = s->u.assign.name_loc;
    check_expr(c, s->u.assign.value);
    const ast_stmt *let = lookup_let(c, name);
    if (let) {
        diag_error(c->d, at, "cannot assign to '%s': let temporaries are read-only", name);
        diag_note(c->d, let->u.let.name_loc, "'%s' defined here", name);
        return;
    }
    const ast_decl *d = ast_find_decl(c->st, name);
    if (!d) {
        if (lookup_index(name) >= 0 || ast_func_lookup(name) >= 0)
            diag_error(c->d, at, "cannot assign to '%s'", name);
        else
            report_undeclared(c, at, name);
        return;
    }
    if (d->kind == AST_DECL_INPUT || d->kind == AST_DECL_SCALAR) {
        diag_error(c->d, at, "cannot assign to %s '%s': only outputs and inouts are written",
                   ast_decl_kind_name(d->kind), name);
        note_declared(c, d);
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
            note_declared(c, d);
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
        note_declared(c, d);
        return;
    }
    s->u.assign.decl = d;
    c->assigned[d->position] = 1;
    c->ever[d->position] = 1;
}

static void check_if(checker *c, ast_stmt *s) {
    check_expr(c, s->u.if_.cond);
    if (++c->if_depth == AST_MAX_IF_DEPTH + 1) {
        const ast_loc at = keyword_loc(s->loc, 2);
        diag_error(c->d, at, "if statements are nested more than %d deep", AST_MAX_IF_DEPTH);
    }
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
    c->if_depth--;
    for (size_t o = 0; o < n; o++) {
        if (!before[o] && c->assigned[o] != after_then[o]) c->lost_at[o] = s;
        c->assigned[o] = c->assigned[o] && after_then[o];
    }
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
    if (s->u.reduce.id == AST_MAX_REDUCES)
        diag_error(c->d, at, "stencil '%s' has more than %d reductions", c->st->name,
                   AST_MAX_REDUCES);
    const ast_decl *d = ast_find_decl(c->st, name);
    const ast_stmt *let = lookup_let(c, name);
    const ast_stmt *first = find_reduce(c->st, name);
    const char *reserved = check_name_reserved(name);
    if (reserved) {
        diag_error(c->d, at, "'%s' is a reserved name: %s", name, reserved);
    } else if (d) {
        diag_error(c->d, at, "reduction '%s' has the name of the %s declared at %d:%d", name,
                   ast_decl_kind_name(d->kind), d->loc.first_line, d->loc.first_col);
        note_declared(c, d);
    } else if (let) {
        diag_error(c->d, at, "'%s' is already defined at %d:%d", name,
                   let->u.let.name_loc.first_line, let->u.let.name_loc.first_col);
        diag_note(c->d, let->u.let.name_loc, "'%s' first defined here", name);
    } else if (first && first != s) {
        diag_error(c->d, at, "reduction '%s' is already defined at %d:%d", name,
                   first->u.reduce.name_loc.first_line, first->u.reduce.name_loc.first_col);
        diag_note(c->d, first->u.reduce.name_loc, "'%s' first defined here", name);
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

/* ---- line solves ------------------------------------------------------------------------- */

/* Whether a coefficient is the same at every point: literals, scalars, and built-in functions
 * and operators of them. Arrays, index variables, lets and the file's functions vary (a let
 * or a function of scalars alone is not worth the analysis: the kernel computes it). */
static int is_uniform(const ast_stencil *st, const ast_expr *e) {
    switch (e->kind) {
    case AST_EXPR_NUMBER:
        return 1;
    case AST_EXPR_REF: {
        const ast_decl *d = ast_find_decl(st, e->u.ref.name);
        return !e->u.ref.offset_exprs && d && d->kind == AST_DECL_SCALAR;
    }
    case AST_EXPR_UNARY:
        return e->u.unary.op != AST_OP_NOT && is_uniform(st, e->u.unary.operand);
    case AST_EXPR_BINARY:
        return !ast_op_is_bool(e->u.binary.op) && e->u.binary.op != AST_OP_MOD &&
               is_uniform(st, e->u.binary.lhs) && is_uniform(st, e->u.binary.rhs);
    case AST_EXPR_TERNARY:
        return 0; /* its condition is a truth value: left to the kernel */
    case AST_EXPR_CALL:
        if (ast_func_lookup(e->u.call.name) < 0) return 0;
        for (int a = 0; a < e->u.call.nargs; a++)
            if (!is_uniform(st, e->u.call.args[a])) return 0;
        return 1;
    }
    return 0;
}

/* What may not go with a solve, and where its coefficients come from. */
static void check_solve_company(checker *c) {
    ast_stencil *st = c->st;
    ast_solve *sv = st->solve;
    ast_loc kw = keyword_loc(sv->loc, 5);
    if (sv->before < st->body.nstmts) {
        diag_error(c->d, st->body.stmts[sv->before]->loc,
                   "a statement after 'solve' in stencil '%s': the solve is the last statement "
                   "(what follows would need the solution at neighbouring points: write it in "
                   "another stencil)",
                   st->name);
        diag_note(c->d, kw, "the solve is here");
    }
    for (int n = 0; n < st->body.nstmts; n++) {
        const ast_stmt *s = st->body.stmts[n];
        if (s->kind == AST_STMT_COLOR || s->kind == AST_STMT_REDUCE)
            diag_error(c->d, s->loc,
                       "'%s' in stencil '%s', which solves along lines: a solve updates every "
                       "point of '%s' and returns nothing else",
                       s->kind == AST_STMT_COLOR ? "color" : "reduce", st->name, sv->name);
    }
    if (st->order)
        diag_error(c->d, st->order_loc,
                   "'order' with 'solve': a line solve is not an in-place sweep (it writes '%s', "
                   "an output)",
                   sv->name);
    if (st->step_out)
        diag_error(c->d, st->step_out_loc,
                   "'step' with 'solve' is not supported: launch the solves one by one");
}

/* The block `{ lower = ...; diag = ...; upper = ...; rhs = ...; }`: each exactly once. */
static void collect_coefs(checker *c, const ast_stmt *coef[AST_SOLVE_SLOTS]) {
    ast_solve *sv = c->st->solve;
    static const char *const names[AST_SOLVE_SLOTS] = {"lower", "diag", "upper", "rhs"};
    int bad = 0; /* a statement that is no coefficient: likely the one missing */
    for (int n = 0; n < sv->coefs.nstmts; n++) {
        const ast_stmt *s = sv->coefs.stmts[n];
        if (s->kind != AST_STMT_ASSIGN || s->u.assign.offset_exprs) {
            diag_error(c->d, s->loc,
                       "a solve's block holds its four coefficients, each assigned once: "
                       "lower = ...; diag = ...; upper = ...; rhs = ...; (lets go before the "
                       "solve)");
            bad = 1;
            continue;
        }
        int slot = -1;
        for (int q = 0; q < AST_SOLVE_SLOTS; q++)
            if (strcmp(s->u.assign.name, names[q]) == 0) slot = q;
        if (slot < 0) {
            const char *close = diag_closest(s->u.assign.name, names, AST_SOLVE_SLOTS);
            diag_error(c->d, s->u.assign.name_loc,
                       "unknown coefficient '%s' in a solve%s%s%s (lower, diag, upper, rhs)",
                       s->u.assign.name, close ? "; did you mean '" : "", close ? close : "",
                       close ? "'?" : "");
            bad = 1;
            continue;
        }
        if (coef[slot]) {
            diag_error(c->d, s->u.assign.name_loc,
                       "'%s' is given twice in the solve (first at %d:%d)", names[slot],
                       coef[slot]->u.assign.name_loc.first_line,
                       coef[slot]->u.assign.name_loc.first_col);
            continue;
        }
        coef[slot] = s;
    }
    for (int q = 0; q < AST_SOLVE_SLOTS && !bad; q++)
        if (!coef[q])
            diag_error(c->d, keyword_loc(sv->loc, 5),
                       "'solve %s' does not give '%s' (a solve gives lower, diag, upper and rhs)",
                       sv->name, names[q]);
}

/* Validate `solve v along d { ... }` and lower it (ast_solve): v leaves decls, and each
 * coefficient that varies becomes an output named stenc_<slot> with its assignment at the end
 * of the body. Runs before the declarations are checked, so that those outputs are checked as
 * any others. */
static void lower_solve(checker *c, ast_arena *arena) {
    ast_stencil *st = c->st;
    ast_solve *sv = st->solve;
    if (!sv || sv->decl) return; /* none, or lowered by an earlier check */
    for (int n = 0; n < sv->coefs.nstmts; n++)
        if (sv->coefs.stmts[n]->depth > AST_MAX_DEPTH) return; /* the parser reported it */
    check_solve_company(c);
    sv->dim = lookup_index(sv->along);
    if (sv->dim < 0 || sv->dim > AST_INDEX_K) {
        diag_error(c->d, sv->along_loc, "'along %s': the direction of the lines is i, j or k",
                   sv->along);
        sv->dim = 0;
    } else if (st->dims > 0 && sv->dim >= st->dims) {
        diag_error(c->d, sv->along_loc, "'along %s' in stencil '%s', which has dims %d", sv->along,
                   st->name, st->dims);
        sv->dim = 0;
    }
    const ast_stmt *coef[AST_SOLVE_SLOTS] = {0};
    collect_coefs(c, coef);
    /* v: an output of every dimension, the only array the stencil writes */
    int at = -1, fields = 0;
    for (int n = 0; n < st->ndecls; n++) {
        if (strcmp(st->decls[n]->name, sv->name) == 0 && at < 0) {
            at = n;
            sv->field = fields;
        }
        fields += st->decls[n]->kind != AST_DECL_SCALAR;
    }
    /* Without the array the solve is not lowered: what is unassigned or unused after it is a
     * consequence, not news (as after a syntax error). */
    if (at < 0) {
        report_undeclared(c, sv->name_loc, sv->name);
        st->has_error = 1;
        return;
    }
    ast_decl *v = st->decls[at];
    if (v->kind != AST_DECL_OUTPUT) {
        diag_error(c->d, sv->name_loc, "'solve %s': '%s' is %s %s, not an output", sv->name,
                   sv->name, v->kind == AST_DECL_INPUT ? "an" : "a", ast_decl_kind_name(v->kind));
        note_declared(c, v);
        st->has_error = 1;
        return;
    }
    if (v->naxes) {
        diag_error(c->d, v->axes_loc,
                   "'%s' is solved for along lines: it spans every dimension of the stencil and "
                   "is not staggered (no brackets)",
                   v->name);
    }
    for (int n = 0; n < st->ndecls; n++) {
        const ast_decl *d = st->decls[n];
        if (d == v || (d->kind != AST_DECL_OUTPUT && d->kind != AST_DECL_INOUT)) continue;
        diag_error(c->d, d->loc,
                   "stencil '%s' solves for '%s', so it writes no other array: give %s '%s' a "
                   "stencil of its own",
                   st->name, v->name, ast_decl_kind_name(d->kind), d->name);
    }
    sv->decl = v;
    memmove(&st->decls[at], &st->decls[at + 1], sizeof *st->decls * (size_t)(st->ndecls - at - 1));
    st->ndecls--;
    for (int n = 0; n < st->ndecls; n++)
        if (st->decls[n]->kind == AST_DECL_OUTPUT && st->decls[n]->position > v->position)
            st->decls[n]->position--;
    int outputs = 0;
    for (int n = 0; n < st->ndecls; n++)
        outputs += st->decls[n]->kind == AST_DECL_OUTPUT;
    for (int q = 0; q < AST_SOLVE_SLOTS; q++) {
        if (!coef[q]) continue;
        ast_expr *value = coef[q]->u.assign.value;
        if (q != AST_SOLVE_RHS && is_uniform(st, value)) {
            sv->uniform |= 1u << q;
            sv->value[q] = value;
            continue;
        }
        ast_decl *d = ast_alloc(arena, sizeof *d);
        size_t len = strlen("stenc_") + strlen(ast_solve_slot_name((ast_solve_slot)q));
        char *name = ast_alloc(arena, len + 1);
        snprintf(name, len + 1, "stenc_%s", ast_solve_slot_name((ast_solve_slot)q));
        d->kind = AST_DECL_OUTPUT;
        d->name = name;
        d->loc = coef[q]->u.assign.name_loc;
        d->position = outputs++;
        d->solve_slot = q + 1;
        ast_push(arena, (void ***)&st->decls, &st->ndecls, d);
        ast_stmt *s = ast_alloc(arena, sizeof *s);
        *s = *coef[q];
        s->u.assign.name = name;
        ast_push(arena, (void ***)&st->body.stmts, &st->body.nstmts, s);
    }
}

/* ---- stencils ---------------------------------------------------------------------------- */

/* `step OUT -> IN;`: OUT an output, IN an input; a stepping launcher swaps them after each
 * step, so the stencil may not reduce (whose step's values would it return?) nor have a colour
 * (a step is every colour). */
static void check_step(checker *c, int reduces) {
    ast_stencil *st = c->st;
    st->step_out_decl = st->step_in_decl = NULL;
    if (!st->step_out) return;
    const ast_decl *out = ast_find_decl(st, st->step_out), *in = ast_find_decl(st, st->step_in);
    int ok = 1;
    if (!out || out->kind != AST_DECL_OUTPUT) {
        diag_error(c->d, st->step_out_loc, "'step %s -> %s': '%s' is %s, not an output",
                   st->step_out, st->step_in, st->step_out,
                   out ? ast_decl_kind_name(out->kind) : "not declared");
        ok = 0;
    }
    if (!in || in->kind != AST_DECL_INPUT) {
        diag_error(c->d, st->step_in_loc, "'step %s -> %s': '%s' is %s, not an input", st->step_out,
                   st->step_in, st->step_in, in ? ast_decl_kind_name(in->kind) : "not declared");
        ok = 0;
    }
    if (reduces) {
        diag_error(c->d, st->step_out_loc,
                   "'step' in a stencil with 'reduce': a stepping launch returns no reduction");
        ok = 0;
    }
    for (int n = 0; n < st->body.nstmts; n++)
        if (st->body.stmts[n]->kind == AST_STMT_COLOR) {
            diag_error(c->d, st->step_out_loc,
                       "'step' in a coloured stencil: launch each colour, then swap, yourself");
            ok = 0;
        }
    if (ok) st->step_out_decl = out, st->step_in_decl = in;
}

/* The offset of an extent in brackets (`i+1`): an integer of at most AST_MAX_STAGGER. */
static int stagger_of(checker *c, const ast_decl *d, const ast_decl *ax, int *out) {
    *out = 0;
    if (!ax->stagger_text) return 1;
    const char *t = ax->stagger_text;
    if (strspn(t, "0123456789") != strlen(t) || strlen(t) > 3 || atoi(t) > AST_MAX_STAGGER) {
        diag_error(c->d, ax->stagger_loc,
                   "the extent of '%s' along '%s' is the reference grid's plus or minus an "
                   "integer from 0 to %d, not '%s'",
                   d->name, ax->name, AST_MAX_STAGGER, t);
        return 0;
    }
    *out = ax->stagger_sign * atoi(t);
    return 1;
}

/* `input dx[i];`: an input spanning some of the stencil's dimensions, named by their index
 * variables in increasing order. `output fx[i+1, j];`: an array staggered against the
 * launch's reference grid, its extent that grid's plus the offset along each dimension.
 * Outputs and inouts are written at every point of the launch: they span all dimensions. */
static void check_axes(checker *c, ast_decl *d) {
    d->axes = 0;
    memset(d->stagger, 0, sizeof d->stagger);
    if (!d->axis_list) return;
    unsigned axes = 0;
    int last = -1, ok = 1;
    int stagger[AST_MAX_DIMS] = {0};
    for (int a = 0; a < d->naxes; a++) {
        const ast_decl *ax = d->axis_list[a];
        int dim = -1;
        for (int k = 0; k < AST_MAX_DIMS; k++)
            if (strcmp(ax->name, ast_index_name((ast_index)k)) == 0) dim = k;
        if (dim < 0) {
            diag_error(c->d, ax->loc,
                       "'%s' in the dimensions of %s '%s' is not an index: name the "
                       "dimensions it spans by i, j and k (input %s[i];)",
                       ax->name, ast_decl_kind_name(d->kind), d->name, d->name);
            ok = 0;
        } else if (c->dims > 0 && dim >= c->dims) {
            diag_error(c->d, ax->loc, "%s '%s' spans '%s', but stencil '%s' has %d dimension%s",
                       ast_decl_kind_name(d->kind), d->name, ax->name, c->st->name, c->dims,
                       c->dims == 1 ? "" : "s");
            ok = 0;
        } else if (dim <= last) {
            diag_error(c->d, ax->loc,
                       "'%s' %s in the dimensions of %s '%s': name each once, in the order "
                       "i, j, k",
                       ax->name, axes >> dim & 1 ? "repeats" : "is out of order",
                       ast_decl_kind_name(d->kind), d->name);
            ok = 0;
        } else {
            axes |= 1u << dim;
            last = dim;
            if (!stagger_of(c, d, ax, &stagger[dim])) ok = 0;
        }
    }
    if (!ok) return;
    const int full = c->dims > 0 && axes == (1u << c->dims) - 1;
    if (!full && d->kind != AST_DECL_INPUT) {
        diag_error(c->d, d->axes_loc,
                   "%s '%s' spans fewer dimensions than the stencil: only an input may (an %s "
                   "is written at every point)",
                   ast_decl_kind_name(d->kind), d->name, ast_decl_kind_name(d->kind));
        return;
    }
    d->axes = full ? 0 : axes;
    memcpy(d->stagger, stagger, sizeof stagger);
}

/* "[i+1, j]": a staggered array's dimensions as they would be declared. */
static void format_stagger(char *buf, size_t size, const ast_decl *d, int dims) {
    size_t len = (size_t)snprintf(buf, size, "[");
    for (int k = 0, shown = 0; k < dims && len < size; k++) {
        if (d->axes && !(d->axes >> k & 1)) continue;
        len += (size_t)snprintf(buf + len, size - len, "%s%s", shown++ ? ", " : "",
                                ast_index_name((ast_index)k));
        if (d->stagger[k] && len < size)
            len += (size_t)snprintf(buf + len, size - len, "%+d", d->stagger[k]);
    }
    if (len < size) snprintf(buf + len, size - len, "]");
}

/* The launch runs over the extent of the arrays it writes: they must share one. */
static void check_staggers(checker *c) {
    const ast_stencil *st = c->st;
    const ast_decl *first = NULL;
    for (int n = 0; n < st->ndecls; n++) {
        const ast_decl *d = st->decls[n];
        if (d->kind != AST_DECL_OUTPUT && d->kind != AST_DECL_INOUT) continue;
        if (!first) {
            first = d;
            continue;
        }
        if (memcmp(d->stagger, first->stagger, sizeof d->stagger) != 0) {
            char mine[64], theirs[64];
            format_stagger(mine, sizeof mine, d, c->dims);
            format_stagger(theirs, sizeof theirs, first, c->dims);
            diag_error(c->d, d->loc,
                       "%s '%s' has the extent %s but %s '%s' has %s: the launch runs over the "
                       "extent of the arrays it writes, which must be one (write the other in "
                       "a stencil of its own)",
                       ast_decl_kind_name(d->kind), d->name, mine, ast_decl_kind_name(first->kind),
                       first->name, theirs);
            diag_note(c->d, first->loc, "'%s' declared here", first->name);
            return;
        }
    }
    if (st->step_in_decl && memcmp(st->step_in_decl->stagger, st->step_out_decl->stagger,
                                   sizeof st->step_in_decl->stagger) != 0)
        diag_error(c->d, st->step_in_loc,
                   "'step %s -> %s': '%s' and '%s' have different extents (staggered arrays)",
                   st->step_out, st->step_in, st->step_in, st->step_out);
}

static void check_decls(checker *c) {
    ast_stencil *st = c->st;
    for (int n = 0; n < st->ndecls; n++) {
        ast_decl *d = st->decls[n];
        /* Counted whatever its name: the parser gave it a position among its kind. */
        if (d->kind == AST_DECL_OUTPUT) c->noutputs++;
        if (d->kind == AST_DECL_INOUT) c->ninouts++;
        /* the outputs a line solve's coefficients became have names of the generated code */
        const char *reserved = d->solve_slot ? NULL : check_name_reserved(d->name);
        if (reserved) {
            diag_error(c->d, d->loc, "'%s' is a reserved name: %s", d->name, reserved);
            continue;
        }
        check_axes(c, d);
        for (int m = 0; m < n; m++) {
            if (strcmp(st->decls[m]->name, d->name) == 0) {
                diag_error(c->d, d->loc, "'%s' is already declared at %d:%d", d->name,
                           st->decls[m]->loc.first_line, st->decls[m]->loc.first_col);
                diag_note(c->d, st->decls[m]->loc, "'%s' first declared here", d->name);
                break;
            }
        }
    }
    if (st->ndecls > AST_MAX_DECLS)
        diag_error(c->d, st->decls[AST_MAX_DECLS]->loc,
                   "stencil '%s' declares %d scalars and arrays; at most %d are supported",
                   st->name, st->ndecls, AST_MAX_DECLS);
    for (int n = 0, arrays = 0; n < st->ndecls; n++) {
        if (st->decls[n]->kind == AST_DECL_SCALAR || ++arrays != AST_MAX_FIELDS + 1) continue;
        diag_error(c->d, st->decls[n]->loc,
                   "stencil '%s' declares more than %d arrays (inputs, outputs and inouts)",
                   st->name, AST_MAX_FIELDS);
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
    /* The launch takes its extents from an array that spans every dimension. */
    int lower = 0, full = c->noutputs + c->ninouts;
    const ast_decl *first_lower = NULL;
    for (int n = 0; n < st->ndecls; n++) {
        const ast_decl *d = st->decls[n];
        if (d->kind != AST_DECL_INPUT) continue;
        if (d->axes) {
            if (!lower++) first_lower = d;
        } else {
            full++;
        }
    }
    if (lower && !full)
        diag_error(c->d, first_lower->loc,
                   "every array of stencil '%s' spans fewer dimensions than it has: declare one "
                   "that spans all, whose interior the launch runs over",
                   st->name);
    check_step(c, reduces);
    if (st->step_in_decl && st->step_in_decl->elem != AST_ELEM_REAL) {
        diag_error(c->d, st->step_in_loc,
                   "'step %s -> %s': '%s' holds %s, but the output it takes holds the stencil's "
                   "type",
                   st->step_out, st->step_in, st->step_in, ast_elem_name(st->step_in_decl->elem));
        st->step_out_decl = st->step_in_decl = NULL;
    }
    if (st->step_in_decl && st->step_in_decl->axes) {
        diag_error(c->d, st->step_in_loc,
                   "'step %s -> %s': '%s' spans fewer dimensions than the output it takes",
                   st->step_out, st->step_in, st->step_in);
        st->step_out_decl = st->step_in_decl = NULL;
    }
    check_staggers(c);
}

static int body_depth(const ast_block *b) {
    int depth = 0;
    for (int n = 0; n < b->nstmts; n++)
        if (b->stmts[n]->depth > depth) depth = b->stmts[n]->depth;
    return depth;
}

/* `order forward|backward;`: an in-place sweep in lexicographic order; its neighbour reads of
 * inouts are its dependences. Not with a colour (a sweep is ordered or coloured), a reduction
 * (the parallel wavefront would add in another order than the loop) or steps. */
static int check_order(checker *c, int reduces) {
    ast_stencil *st = c->st;
    if (!st->order) return 0;
    if (st->color)
        diag_error(c->d, st->order_loc,
                   "'order' in a coloured stencil: a sweep is either ordered (every point, in "
                   "lexicographic order) or coloured (one colour per launch)");
    if (c->ninouts == 0)
        diag_error(c->d, st->order_loc,
                   "'order' in stencil '%s', which has no inout: an ordered sweep updates an "
                   "inout in place",
                   st->name);
    if (reduces)
        diag_error(c->d, st->order_loc,
                   "'order' with 'reduce' is not supported: the parallel sweep would add the "
                   "values in another order than the loop");
    if (st->step_out)
        diag_error(c->d, st->order_loc,
                   "'order' with 'step' is not supported: launch the sweeps "
                   "yourself");
    return 1;
}

/* The colouring, and every neighbour read of an inout array against it. */
static void check_colors(checker *c, ast_arena *arena) {
    ast_stencil *st = c->st;
    char off[64];
    int reduces = 0;
    for (int n = 0; n < st->body.nstmts; n++)
        reduces += st->body.stmts[n]->kind == AST_STMT_REDUCE;
    if (check_order(c, reduces)) return; /* its neighbour reads are its dependences */
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
                   "inout '%s' is read at offset %s, but stencil '%s' has no 'color' and no "
                   "'order': without one an inout can only be read at the centre",
                   r->decl->name, off, st->name);
    }
}

static void check_stencil(diag *d, ast_file *file, ast_stencil *st, ast_type precision) {
    ast_arena *arena = file->arena;
    checker c = {.d = d,
                 .st = st,
                 .dims = st->dims > 0 ? st->dims : 0,
                 .type = precision != AST_TYPE_NONE ? precision : st->type};
    st->nlets = 0;
    st->nreduces = 0;
    st->color = NULL;
    st->ncolors = 0;
    st->color_table = NULL;
    lower_solve(&c, arena);
    check_decls(&c);
    /* The parser already reported a body too deep to walk recursively. */
    if (body_depth(&st->body) > AST_MAX_DEPTH) return;
    st->inlined = NULL;
    st->ninlined = 0;
    func_inline(file, st, d);
    if (body_depth(&st->body) > AST_MAX_DEPTH) {
        diag_error(d, st->loc,
                   "with its functions inlined, the body of '%s' nests more than %d levels",
                   st->name, AST_MAX_DEPTH);
        return;
    }
    c.assigned = calloc((size_t)c.noutputs + 1, 1);
    c.ever = calloc((size_t)c.noutputs + 1, 1);
    c.inout_assigned = calloc((size_t)c.ninouts + 1, 1);
    c.lost_at = calloc((size_t)c.noutputs + 1, sizeof *c.lost_at);
    if (!c.assigned || !c.ever || !c.inout_assigned || !c.lost_at) {
        fputs("stenc: out of memory\n", stderr);
        abort();
    }
    check_block(&c, &st->body);
    /* a solve's coefficients that are the same at every point, outside the body */
    for (int q = 0; st->solve && q < AST_SOLVE_SLOTS; q++)
        if (st->solve->uniform >> q & 1) check_expr(&c, st->solve->value[q]);
    check_colors(&c, arena);
    /* After a syntax error statements are missing: what is unassigned or unused is likely a
     * consequence, not news. */
    for (int n = 0; n < st->ndecls && !st->has_error; n++) {
        const ast_decl *dc = st->decls[n];
        if (dc->kind == AST_DECL_OUTPUT && !c.assigned[dc->position]) {
            const ast_stmt *lost = c.lost_at[dc->position];
            if (lost) {
                /* The if where some paths assign it and others do not: its keyword. */
                const ast_loc at = keyword_loc(lost->loc, 2);
                diag_error(
                    d, at, "output '%s' is not assigned on every path: this 'if' assigns it %s",
                    dc->name,
                    lost->u.if_.else_block ? "in one branch only" : "but has no 'else' that does");
                diag_note(d, dc->loc, "'%s' declared here", dc->name);
            } else if (c.ever[dc->position]) {
                diag_error(d, dc->loc, "output '%s' is not assigned on every path", dc->name);
            } else {
                diag_error(d, dc->loc, "output '%s' is never assigned", dc->name);
            }
        }
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
    free(c.lost_at);
}

int check_file(ast_file *file, diag *d) {
    return check_file_as(file, d, AST_TYPE_NONE);
}

int check_file_as(ast_file *file, diag *d, ast_type precision) {
    int before = d->errors;
    func_check_defs(file, d);
    for (int n = 0; n < file->nstencils; n++) {
        ast_stencil *st = file->stencils[n];
        for (int m = 0; m < n; m++) {
            if (strcmp(file->stencils[m]->name, st->name) == 0) {
                diag_error(d, st->loc, "stencil '%s' is already defined at %d:%d", st->name,
                           file->stencils[m]->loc.first_line, file->stencils[m]->loc.first_col);
                break;
            }
        }
        const char *conflict = check_stencil_name_conflict(st->name);
        if (conflict) diag_error(d, st->loc, "'%s' cannot name a stencil: %s", st->name, conflict);
        check_stencil(d, file, st, precision);
    }
    func_warn_unused(file, d);
    if (file->nstencils == 0 && d->errors == before) {
        ast_loc start = {1, 1, 1, 0};
        diag_warning(d, start, "the file defines no stencil");
    }
    return d->errors - before;
}
