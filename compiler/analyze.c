/* The analyser: one walk over a checked stencil that collects the distinct reads, each
 * input's offsets and halo, the index variables used, and the flop count (see analyze.h for
 * the counting rules). */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

#include "divide.h"

typedef struct analyser {
    km_kernel *km;
    int capreads;
    int failed; /* out of memory */
} analyser;

static int same_offset(const km_offset *a, const km_offset *b) {
    return memcmp(a->d, b->d, sizeof a->d) == 0;
}

/* The read of (array, offset): its index in km->reads, added on first sight. */
static int add_read(analyser *an, int array, const int offset[AST_MAX_DIMS]) {
    km_kernel *km = an->km;
    km_offset off;
    memcpy(off.d, offset, sizeof off.d);
    for (int r = 0; r < km->nreads; r++) {
        if (km->reads[r].array == array && same_offset(&km->reads[r].offset, &off)) {
            km->reads[r].count++;
            return r;
        }
    }
    if (km->nreads == an->capreads) {
        int cap = an->capreads ? 2 * an->capreads : 16;
        km_read *grown = realloc(km->reads, (size_t)cap * sizeof *grown);
        if (!grown) {
            an->failed = 1;
            return -1;
        }
        km->reads = grown;
        an->capreads = cap;
    }
    km->reads[km->nreads] = (km_read){.array = array, .offset = off, .count = 1};
    return km->nreads++;
}

static long max_long(long a, long b) {
    return a > b ? a : b;
}

static int is_arithmetic(ast_op op) {
    return op == AST_OP_ADD || op == AST_OP_SUB || op == AST_OP_MUL || op == AST_OP_DIV ||
           op == AST_OP_MOD;
}

/* Record the reads in `e` and return its flops. */
static long walk_expr(analyser *an, const ast_expr *e) {
    km_kernel *km = an->km;
    switch (e->kind) {
    case AST_EXPR_NUMBER:
        return 0;
    case AST_EXPR_REF:
        if (e->u.ref.sym == AST_SYM_INPUT || e->u.ref.sym == AST_SYM_INOUT) {
            int array = km_find_array(km, e->u.ref.name);
            add_read(an, array, e->u.ref.offset);
        } else if (e->u.ref.sym == AST_SYM_INDEX) {
            km->uses_index[e->u.ref.index] = 1;
        }
        if (e->u.ref.decl) {
            int array = km_find_array(km, e->u.ref.name);
            if (array >= 0) km->arrays[array].reads++;
        }
        return 0;
    case AST_EXPR_UNARY:
        return (e->u.unary.op == AST_OP_NEG ? 1 : 0) + walk_expr(an, e->u.unary.operand);
    case AST_EXPR_BINARY: {
        float c;
        if (divide_literal(e, km->type_size == 4, &c)) {
            int d = 0;
            while (d < km->ndivisors && memcmp(&km->divisors[d], &c, sizeof c) != 0)
                d++;
            if (d == km->ndivisors && d < KM_MAX_DIVISORS) km->divisors[km->ndivisors++] = c;
        }
        return (is_arithmetic(e->u.binary.op) ? 1 : 0) + walk_expr(an, e->u.binary.lhs) +
               walk_expr(an, e->u.binary.rhs);
    }
    case AST_EXPR_TERNARY: {
        km->has_branches = 1;
        long cond = walk_expr(an, e->u.ternary.cond);
        long a = walk_expr(an, e->u.ternary.then_expr);
        long b = walk_expr(an, e->u.ternary.else_expr);
        return cond + max_long(a, b);
    }
    case AST_EXPR_CALL: {
        long flops = 1;
        for (int a = 0; a < e->u.call.nargs; a++)
            flops += walk_expr(an, e->u.call.args[a]);
        return flops;
    }
    }
    return 0;
}

static long walk_block(analyser *an, const ast_block *b);

static long walk_stmt(analyser *an, const ast_stmt *s) {
    switch (s->kind) {
    case AST_STMT_LET:
        return walk_expr(an, s->u.let.init);
    case AST_STMT_ASSIGN:
        return walk_expr(an, s->u.assign.value);
    case AST_STMT_IF: {
        an->km->has_branches = 1;
        long cond = walk_expr(an, s->u.if_.cond);
        long a = walk_block(an, &s->u.if_.then_block);
        long b = s->u.if_.else_block ? walk_block(an, s->u.if_.else_block) : 0;
        return cond + max_long(a, b);
    }
    case AST_STMT_REDUCE:
        if (s->u.reduce.id >= 0 && s->u.reduce.id < an->km->nreduces)
            an->km->reduces[s->u.reduce.id] =
                (km_reduce){.name = s->u.reduce.name, .op = s->u.reduce.rop};
        return walk_expr(an, s->u.reduce.value);
    case AST_STMT_COLOR:
        return 0; /* not evaluated per point: the launch iterates over one colour */
    }
    return 0;
}

static long walk_block(analyser *an, const ast_block *b) {
    long flops = 0;
    for (int n = 0; n < b->nstmts; n++)
        flops += walk_stmt(an, b->stmts[n]);
    return flops;
}

/* Offsets sorted by k, then j, then i: the order of memory. */
static int compare_offsets(const void *pa, const void *pb) {
    const km_offset *a = pa, *b = pb;
    for (int k = AST_MAX_DIMS - 1; k >= 0; k--)
        if (a->d[k] != b->d[k]) return a->d[k] < b->d[k] ? -1 : 1;
    return 0;
}

/* Per input: its distinct offsets and halo, from the reads. A point p of the launch reads
 * element p + o of an input; the launch covers the reference grid plus km->stagger, the
 * input the grid plus its own stagger, so the halo above is what the reads pass beyond. */
static int collect_offsets(km_kernel *km) {
    for (int a = 0; a < km->narrays; a++) {
        km_array *arr = &km->arrays[a];
        if (arr->kind != KM_INPUT && arr->kind != KM_INOUT) continue;
        int n = 0;
        for (int r = 0; r < km->nreads; r++)
            n += km->reads[r].array == a;
        if (n == 0) continue;
        km_offset *offsets = malloc((size_t)n * sizeof *offsets);
        if (!offsets) return 1;
        n = 0;
        for (int r = 0; r < km->nreads; r++)
            if (km->reads[r].array == a) offsets[n++] = km->reads[r].offset;
        qsort(offsets, (size_t)n, sizeof *offsets, compare_offsets);
        arr->offsets = offsets;
        arr->noffsets = n;
        km->inputs_read += arr->kind == KM_INPUT;
        for (int o = 0; o < n; o++) {
            for (int k = 0; k < AST_MAX_DIMS; k++) {
                int v = offsets[o].d[k];
                const int spans = k < km->dims && (!arr->axes || arr->axes >> k & 1);
                const int above = spans ? v + km->stagger[k] - arr->stagger[k] : v;
                if (-v > arr->halo_lo[k]) arr->halo_lo[k] = -v;
                if (above > arr->halo_hi[k]) arr->halo_hi[k] = above;
                if (arr->halo_lo[k] > km->halo_lo[k]) km->halo_lo[k] = arr->halo_lo[k];
                if (arr->halo_hi[k] > km->halo_hi[k]) km->halo_hi[k] = arr->halo_hi[k];
                if (abs(v) > km->radius) km->radius = abs(v);
            }
        }
    }
    return 0;
}

int km_find_read(const km_kernel *km, int array, const int offset[AST_MAX_DIMS]) {
    for (int r = 0; r < km->nreads; r++)
        if (km->reads[r].array == array &&
            memcmp(km->reads[r].offset.d, offset, sizeof km->reads[r].offset.d) == 0)
            return r;
    return -1;
}

int km_find_array(const km_kernel *km, const char *name) {
    for (int a = 0; a < km->narrays; a++)
        if (strcmp(km->arrays[a].name, name) == 0) return a;
    return -1;
}

int analyze_stencil(const ast_stencil *st, ast_type type_override, km_kernel *km) {
    memset(km, 0, sizeof *km);
    km->st = st;
    km->body = &st->body;
    km->name = st->name;
    km->dims = st->dims;
    km->type = type_override != AST_TYPE_NONE ? type_override : st->type;
    km->type_size = ast_type_size(km->type);
    km->nlets = st->nlets;
    km->arrays = calloc((size_t)st->ndecls + 1, sizeof *km->arrays);
    if (!km->arrays) return 1;
    km->narrays = st->ndecls;
    for (int n = 0; n < st->ndecls; n++) {
        const ast_decl *d = st->decls[n];
        km_array *arr = &km->arrays[n];
        arr->name = d->name;
        arr->kind = (km_array_kind)d->kind;
        arr->decl = d;
        arr->axes = d->axes;
        arr->elem = d->elem;
        arr->position = d->position;
        memcpy(arr->stagger, d->stagger, sizeof arr->stagger);
        if ((d->kind == AST_DECL_OUTPUT || d->kind == AST_DECL_INOUT))
            memcpy(km->stagger, d->stagger, sizeof km->stagger); /* one for all (check.c) */
        km->nscalars += d->kind == AST_DECL_SCALAR;
        km->ninputs += d->kind == AST_DECL_INPUT;
        km->noutputs += d->kind == AST_DECL_OUTPUT;
        km->ninouts += d->kind == AST_DECL_INOUT;
    }
    km->nreduces = st->nreduces;
    km->reduces = calloc((size_t)st->nreduces + 1, sizeof *km->reduces);
    if (!km->reduces) {
        analyze_free(km);
        return 1;
    }
    km->ncolors = st->ncolors;
    km->step_out = km->step_in = -1;
    memcpy(km->color_period, st->color_period, sizeof km->color_period);
    km->color_table = st->color_table;
    analyser an = {.km = km};
    if (st->step_out_decl && st->step_in_decl) {
        km->step_out = km_find_array(km, st->step_out_decl->name);
        km->step_in = km_find_array(km, st->step_in_decl->name);
    }
    km->flops = walk_block(&an, &st->body);
    if (an.failed || collect_offsets(km)) {
        analyze_free(km);
        return 1;
    }
    /* wave = (1, R_i + 1, (R_i + 1) R_j + R_i + 1), R the inouts' largest |offset| per
     * dimension: then wave . o has the lexicographic sign of every offset o read. */
    km->order = st->order;
    if (km->order) {
        int r[AST_MAX_DIMS] = {0, 0, 0};
        for (int a = 0; a < km->narrays; a++) {
            if (km->arrays[a].kind != KM_INOUT) continue;
            for (int o = 0; o < km->arrays[a].noffsets; o++)
                for (int d = 0; d < AST_MAX_DIMS; d++) {
                    const int v = abs(km->arrays[a].offsets[o].d[d]);
                    if (v > r[d]) r[d] = v;
                }
        }
        km->wave[0] = 1;
        km->wave[1] = km->dims > 1 ? r[0] + 1 : 0;
        km->wave[2] = km->dims > 2 ? (r[0] + 1) * r[1] + r[0] + 1 : 0;
        /* In 2-D the smallest weight that orders every inout offset: fewer hyperplanes, so a
         * shorter chain (t = i + j for the 5-point star rather than i + 2j). Every offset with
         * dj != 0 must land strictly on the side of its order: di + w*dj has dj's sign. */
        if (km->dims == 2) {
            int w = 1;
            for (int a = 0; a < km->narrays; a++) {
                if (km->arrays[a].kind != KM_INOUT) continue;
                for (int o = 0; o < km->arrays[a].noffsets; o++) {
                    const int di = km->arrays[a].offsets[o].d[0],
                              dj = km->arrays[a].offsets[o].d[1];
                    while (dj && (dj > 0 ? di + w * dj <= 0 : di + w * dj >= 0))
                        w++;
                }
            }
            km->wave[1] = w;
        }
    }
    /* A lower-dimensional input is one element per line (or plane) of points, which stays in
     * cache across them: it moves no bytes per point worth counting. */
    long input_bytes = 0;
    for (int a = 0; a < km->narrays; a++) {
        const km_array *arr = &km->arrays[a];
        if (arr->kind != KM_INPUT || arr->noffsets == 0 || arr->axes) continue;
        input_bytes += arr->elem == AST_ELEM_I32 ? 4 : arr->elem == AST_ELEM_U8 ? 1 : km->type_size;
    }
    km->bytes = input_bytes + (long)(2 * km->ninouts + km->noutputs) * km->type_size;
    km->intensity = km->bytes > 0 ? (double)km->flops / (double)km->bytes : 0.0;
    return 0;
}

void analyze_free(km_kernel *km) {
    if (!km) return;
    for (int a = 0; a < km->narrays; a++)
        free(km->arrays[a].offsets);
    free(km->arrays);
    free(km->reads);
    free(km->reduces);
    memset(km, 0, sizeof *km);
}
