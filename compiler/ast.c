/* The syntax tree's memory (one arena per file) and its small tables: type names, operators,
 * index variables and built-in functions. */
#include "ast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arena chunks: big enough that a large stencil needs few of them. */
enum { ARENA_CHUNK = 64 * 1024 };

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, size;
    max_align_t data[]; /* aligned for any node */
} arena_chunk;

struct ast_arena {
    arena_chunk *head;
};

ast_arena *ast_arena_create(void) {
    ast_arena *a = calloc(1, sizeof *a);
    if (!a) {
        fputs("stenc: out of memory\n", stderr);
        abort();
    }
    return a;
}

void ast_arena_destroy(ast_arena *arena) {
    if (!arena) return;
    for (arena_chunk *c = arena->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(arena);
}

void *ast_alloc(ast_arena *arena, size_t bytes) {
    const size_t align = sizeof(max_align_t);
    bytes = (bytes + align - 1) / align * align;
    arena_chunk *c = arena->head;
    if (!c || c->size - c->used < bytes) {
        size_t size = bytes > ARENA_CHUNK ? bytes : ARENA_CHUNK;
        c = malloc(sizeof *c + size);
        if (!c) {
            fputs("stenc: out of memory\n", stderr);
            abort();
        }
        c->size = size;
        c->used = 0;
        c->next = arena->head;
        arena->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += bytes;
    memset(p, 0, bytes);
    return p;
}

char *ast_strndup(ast_arena *arena, const char *s, size_t n) {
    char *p = ast_alloc(arena, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* Arrays grow by doubling at powers of two, so the capacity need not be stored. */
void ast_push(ast_arena *arena, void ***items, int *count, void *item) {
    int n = *count;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        int cap = n == 0 ? 4 : 2 * n;
        void **grown = ast_alloc(arena, (size_t)cap * sizeof *grown);
        if (n) memcpy(grown, *items, (size_t)n * sizeof *grown);
        *items = grown;
    }
    (*items)[n] = item;
    *count = n + 1;
}

void ast_file_free(ast_file *file) {
    if (!file) return;
    ast_arena_destroy(file->arena); /* the file itself lives in its arena */
}

const ast_decl *ast_find_decl(const ast_stencil *st, const char *name) {
    for (int i = 0; i < st->ndecls; i++)
        if (strcmp(st->decls[i]->name, name) == 0) return st->decls[i];
    return NULL;
}

int ast_expr_every(const ast_expr *x, int (*node_ok)(const ast_expr *node)) {
    if (!node_ok(x)) return 0;
    switch (x->kind) {
    case AST_EXPR_NUMBER:
    case AST_EXPR_REF:
        return 1;
    case AST_EXPR_UNARY:
        return ast_expr_every(x->u.unary.operand, node_ok);
    case AST_EXPR_BINARY:
        return ast_expr_every(x->u.binary.lhs, node_ok) && ast_expr_every(x->u.binary.rhs, node_ok);
    case AST_EXPR_TERNARY:
        return ast_expr_every(x->u.ternary.cond, node_ok) &&
               ast_expr_every(x->u.ternary.then_expr, node_ok) &&
               ast_expr_every(x->u.ternary.else_expr, node_ok);
    case AST_EXPR_CALL:
        for (int a = 0; a < x->u.call.nargs; a++)
            if (!ast_expr_every(x->u.call.args[a], node_ok)) return 0;
        return 1;
    }
    return 0;
}

const char *ast_elem_name(ast_elem elem) {
    return elem == AST_ELEM_I32 ? "int32" : elem == AST_ELEM_U8 ? "uint8" : "real";
}

const char *ast_type_name(ast_type type) {
    switch (type) {
    case AST_TYPE_FLOAT:
        return "float";
    case AST_TYPE_DOUBLE:
        return "double";
    default:
        return "none";
    }
}

int ast_type_size(ast_type type) {
    return type == AST_TYPE_FLOAT ? 4 : type == AST_TYPE_DOUBLE ? 8 : 0;
}

const char *ast_decl_kind_name(ast_decl_kind kind) {
    switch (kind) {
    case AST_DECL_SCALAR:
        return "scalar";
    case AST_DECL_INPUT:
        return "input";
    case AST_DECL_OUTPUT:
        return "output";
    case AST_DECL_INOUT:
        return "inout";
    }
    return "?";
}

int ast_op_is_bool(ast_op op) {
    switch (op) {
    case AST_OP_LT:
    case AST_OP_LE:
    case AST_OP_GT:
    case AST_OP_GE:
    case AST_OP_EQ:
    case AST_OP_NE:
    case AST_OP_AND:
    case AST_OP_OR:
        return 1;
    default:
        return 0;
    }
}

const char *ast_op_text(ast_op op) {
    switch (op) {
    case AST_OP_NEG:
        return "-";
    case AST_OP_NOT:
        return "!";
    case AST_OP_ADD:
        return "+";
    case AST_OP_SUB:
        return "-";
    case AST_OP_MUL:
        return "*";
    case AST_OP_DIV:
        return "/";
    case AST_OP_MOD:
        return "%";
    case AST_OP_LT:
        return "<";
    case AST_OP_LE:
        return "<=";
    case AST_OP_GT:
        return ">";
    case AST_OP_GE:
        return ">=";
    case AST_OP_EQ:
        return "==";
    case AST_OP_NE:
        return "!=";
    case AST_OP_AND:
        return "&&";
    case AST_OP_OR:
        return "||";
    }
    return "?";
}

const char *ast_index_name(ast_index index) {
    static const char *const names[AST_INDEX_COUNT] = {"i", "j", "k", "ni", "nj", "nk"};
    return (unsigned)index < AST_INDEX_COUNT ? names[index] : "?";
}

const char *ast_solve_slot_name(ast_solve_slot slot) {
    static const char *const names[AST_SOLVE_SLOTS] = {"lower", "diag", "upper", "rhs"};
    return (unsigned)slot < AST_SOLVE_SLOTS ? names[slot] : "?";
}

static const ast_func_info funcs[AST_FUNC_COUNT] = {
    [AST_FUNC_SQRT] = {"sqrt", 1}, [AST_FUNC_EXP] = {"exp", 1}, [AST_FUNC_LOG] = {"log", 1},
    [AST_FUNC_SIN] = {"sin", 1},   [AST_FUNC_COS] = {"cos", 1}, [AST_FUNC_TAN] = {"tan", 1},
    [AST_FUNC_FABS] = {"fabs", 1}, [AST_FUNC_ABS] = {"abs", 1}, [AST_FUNC_MIN] = {"min", 2},
    [AST_FUNC_MAX] = {"max", 2},   [AST_FUNC_POW] = {"pow", 2}, [AST_FUNC_FLOOR] = {"floor", 1},
    [AST_FUNC_CEIL] = {"ceil", 1},
};

const ast_func_info *ast_func_get(ast_func func) {
    return (unsigned)func < AST_FUNC_COUNT ? &funcs[func] : NULL;
}

int ast_func_lookup(const char *name) {
    for (int f = 0; f < AST_FUNC_COUNT; f++)
        if (strcmp(funcs[f].name, name) == 0) return f;
    return -1;
}
