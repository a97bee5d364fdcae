/* The syntax tree of a .stencil file: what the parser builds, the checker resolves and
 * annotates, the analyser measures and the emitter prints.
 *
 * Ownership: every node, string and array of one file lives in that file's arena
 * (ast_file.arena) and is freed at once by ast_file_free(). Nodes are never freed one by one,
 * which keeps parser error recovery leak-free.
 *
 * Fields marked "checker" are filled by check_file() (check.h) and are only meaningful when it
 * reported no errors; fields marked "analyser" are filled by analyze_stencil() (analyze.h). */
#ifndef STENC_COMPILER_AST_H
#define STENC_COMPILER_AST_H

#include <stddef.h>

/* Most dimensions a stencil may have. */
#define AST_MAX_DIMS 3
/* The largest offset of a staggered array's extent (`output fx[i+1, j];`). */
#define AST_MAX_STAGGER 16
/* Largest |offset| allowed in any dimension: a sane bound on halo widths. */
#define AST_MAX_RADIUS 8
/* Deepest nesting of expressions and statements, so that recursive passes cannot overflow the
 * stack. A 1000-term sum is still fine. */
#define AST_MAX_DEPTH 1000
/* Deepest nesting of if statements: each is a level of braces in generated code, and C
 * compilers limit brackets (clang: 256, templates and expressions included). */
#define AST_MAX_IF_DEPTH 64
/* Longest identifier, in bytes. */
#define AST_MAX_NAME 255
/* Longest stencil name: its longest file name, NAME_cuda.cu, must fit the 255 bytes of a file
 * name. */
#define AST_MAX_STENCIL_NAME (255 - 8)
/* Most declarations (scalars, inputs, outputs, inouts) of one stencil: the CUDA kernels take
 * them all as one parameter block, which must stay under the 32 KiB kernel-parameter limit. */
#define AST_MAX_DECLS 1024
/* Most arrays (inputs, outputs, inouts) of one stencil: the launch check's limit,
 * STENC_LAUNCH_MAX_FIELDS of stenc/launch.h (test_checker asserts they agree). */
#define AST_MAX_FIELDS 256
/* Most reductions of one stencil: the CUDA sweep keeps a partial of each per thread in shared
 * memory, which must fit 48 KiB for a warp of 32 threads. */
#define AST_MAX_REDUCES 64

/* A range in the source: 1-based line and byte column of the first character, and of the last
 * character (inclusive). An empty range (e.g. end of file) has last_col == first_col - 1. */
typedef struct ast_loc {
    int first_line, first_col;
    int last_line, last_col;
} ast_loc;

/* ---- element type ------------------------------------------------------------------------ */

typedef enum ast_type {
    AST_TYPE_NONE = 0, /* not declared */
    AST_TYPE_FLOAT,
    AST_TYPE_DOUBLE
} ast_type;

/* "float" / "double" / "none". */
const char *ast_type_name(ast_type type);

/* The element type of an input: the stencil's own (REAL), or integers (`input int32 mat;`),
 * read as values of the stencil's type. */
typedef enum ast_elem { AST_ELEM_REAL = 0, AST_ELEM_I32, AST_ELEM_U8 } ast_elem;

/* "int32" / "uint8" ("real" for AST_ELEM_REAL). */
const char *ast_elem_name(ast_elem elem);
/* 4, 8, or 0 for AST_TYPE_NONE. */
int ast_type_size(ast_type type);

/* ---- declarations ------------------------------------------------------------------------ */

typedef enum ast_decl_kind {
    AST_DECL_SCALAR = 1, /* scalar a;  passed by value at launch */
    AST_DECL_INPUT,      /* input x;   array read at constant offsets */
    AST_DECL_OUTPUT,     /* output y;  array written at the centre point */
    AST_DECL_INOUT       /* inout u;   read at offsets and written at the centre, in place */
} ast_decl_kind;

/* "scalar" / "input" / "output" / "inout". */
const char *ast_decl_kind_name(ast_decl_kind kind);

typedef struct ast_decl {
    ast_decl_kind kind;
    const char *name;
    ast_loc loc;      /* the name in its declaration */
    int position;     /* 0-based rank among the stencil's declarations of the same kind, in source
                         order: the order of the launcher's parameters of that kind */
    int reads;        /* checker: number of reads in the body (0 = unused) */
    ast_elem elem;    /* `input int32 mat;`: integers; AST_ELEM_REAL otherwise */
    ast_loc elem_loc; /* the element type's name, when written */
    /* `input dx[i];`: the index names in brackets, as written (naxes 0 without brackets) */
    const struct ast_decl *const *axis_list; /* name and loc of each; NULL without brackets */
    int naxes;
    ast_loc axes_loc; /* the brackets and what they hold */
    /* checker: the stencil dimensions the array spans, bit d for dimension d (i = bit 0); 0
     * when it spans all of them (no brackets, or all indices named) */
    unsigned axes;
    /* An item of axis_list: `i+1` gives "1" and sign 1 (NULL text without an offset). */
    const char *stagger_text;
    int stagger_sign;
    ast_loc stagger_loc; /* the sign and the number */
    /* checker: the array's extent against the launch's reference grid, per stencil dimension
     * (`output fx[i+1, j];`: {1, 0, 0}); 0 where it does not span */
    int stagger[AST_MAX_DIMS];
    /* checker: 1 + the coefficient slot (AST_SOLVE_LOWER..RHS) of an output the checker made
     * for a line solve (check.c, lower_solve); 0 for a declared array */
    int solve_slot;
} ast_decl;

/* ---- expressions ------------------------------------------------------------------------- */

typedef enum ast_expr_kind {
    AST_EXPR_NUMBER = 1, /* 2, 0.25, 1e-3 */
    AST_EXPR_REF,        /* a name, optionally with offsets: x, x[1,0,0], a, dx, i, nj */
    AST_EXPR_UNARY,      /* -e, !e  (a unary + is dropped by the parser) */
    AST_EXPR_BINARY,     /* e op e */
    AST_EXPR_TERNARY,    /* c ? a : b */
    AST_EXPR_CALL        /* f(args) */
} ast_expr_kind;

typedef enum ast_op {
    AST_OP_NEG = 1, /* unary - */
    AST_OP_NOT,     /* unary ! */
    AST_OP_ADD,
    AST_OP_SUB,
    AST_OP_MUL,
    AST_OP_DIV,
    AST_OP_MOD, /* %: Euclidean modulo, only in colour expressions (the checker rejects it
                   elsewhere) */
    AST_OP_LT,
    AST_OP_LE,
    AST_OP_GT,
    AST_OP_GE,
    AST_OP_EQ,
    AST_OP_NE,
    AST_OP_AND, /* && */
    AST_OP_OR   /* || */
} ast_op;

/* The operator as written in the language and in C: "-", "!", "+", "&&", ... */
const char *ast_op_text(ast_op op);
/* 1 for the operators whose result is a truth value: comparisons, && and ||. */
int ast_op_is_bool(ast_op op);

/* What a name refers to (checker). */
typedef enum ast_sym {
    AST_SYM_UNRESOLVED = 0,
    AST_SYM_SCALAR, /* ref.decl is the scalar */
    AST_SYM_INPUT,  /* ref.decl is the input; ref.offset holds the offset */
    AST_SYM_OUTPUT, /* ref.decl is the output; always the centre, always after an assignment:
                       the value assigned last, not memory */
    AST_SYM_LET,    /* ref.let is the let statement */
    AST_SYM_INDEX,  /* ref.index is the index variable */
    AST_SYM_INOUT   /* ref.decl is the inout; ref.offset holds the offset. At the centre: the
                       current value (memory until the body assigns it, then the value
                       assigned last); elsewhere: memory, of a point of another colour */
} ast_sym;

/* Index variables: position of the point inside the interior (from 0) and interior extents. */
typedef enum ast_index {
    AST_INDEX_I = 0,
    AST_INDEX_J,
    AST_INDEX_K,
    AST_INDEX_NI,
    AST_INDEX_NJ,
    AST_INDEX_NK,
    AST_INDEX_COUNT
} ast_index;

/* "i", "j", "k", "ni", "nj", "nk". */
const char *ast_index_name(ast_index index);

/* Built-in functions, all on the stencil's floating type. */
typedef enum ast_func {
    AST_FUNC_SQRT = 0,
    AST_FUNC_EXP,
    AST_FUNC_LOG,
    AST_FUNC_SIN,
    AST_FUNC_COS,
    AST_FUNC_TAN,
    AST_FUNC_FABS,
    AST_FUNC_ABS, /* same as fabs (never the integer abs) */
    AST_FUNC_MIN,
    AST_FUNC_MAX,
    AST_FUNC_POW,
    AST_FUNC_FLOOR,
    AST_FUNC_CEIL,
    AST_FUNC_COUNT
} ast_func;

/* A built-in function; what a target calls for it is its syntax form fn_<name>
 * (templates/c/syntax.tmpl: fn_min is fmin). */
typedef struct ast_func_info {
    const char *name; /* as written in a .stencil file */
    int arity;        /* exact number of arguments */
} ast_func_info;

/* The table entry of a built-in; NULL for an out-of-range value. */
const ast_func_info *ast_func_get(ast_func func);
/* Look a built-in up by name; returns -1 when there is none. */
int ast_func_lookup(const char *name);

typedef struct ast_stmt ast_stmt;
typedef struct ast_expr ast_expr;

/* The type of an expression's value (checker). Arithmetic, references, literals and calls are
 * REAL (the stencil's type); comparisons and && || ! are BOOL (0 or 1). Where a BOOL meets
 * arithmetic or a function argument it is converted to REAL, and a REAL in a condition means
 * "!= 0", so that the generated code states every conversion (see emit.c). */
typedef enum ast_vtype { AST_VT_REAL = 0, AST_VT_BOOL } ast_vtype;

struct ast_expr {
    ast_expr_kind kind;
    ast_loc loc;     /* the whole expression */
    int depth;       /* 1 for a leaf, 1 + deepest child otherwise */
    ast_vtype vtype; /* checker */
    union {
        struct {
            double value;     /* the literal's value as a double (finite): with an f suffix,
                                 the float nearest the decimal, as in C */
            const char *text; /* as written: "1e-3", "2", "1.5f" */
            int is_integer;   /* written without '.', 'e' or 'E' */
            int is_float;     /* written with an f or F suffix */
        } number;
        struct {
            const char *name;
            ast_expr **offset_exprs;  /* the offsets as written, NULL when there were no []  */
            int noffsets;             /* number of offset expressions (0 without []) */
            ast_sym sym;              /* checker */
            const ast_decl *decl;     /* checker: SCALAR, INPUT, OUTPUT */
            const ast_stmt *let;      /* checker: LET (the AST_STMT_LET node) */
            ast_index index;          /* checker: INDEX */
            int offset[AST_MAX_DIMS]; /* checker: INPUT, INOUT: the constant offset (i, j, k);
                                         unused dimensions are 0. Zero for other symbols. */
        } ref;
        struct {
            ast_op op;
            ast_expr *operand;
        } unary;
        struct {
            ast_op op;
            ast_expr *lhs, *rhs;
        } binary;
        struct {
            ast_expr *cond, *then_expr, *else_expr;
        } ternary;
        struct {
            const char *name;
            ast_loc name_loc;
            ast_expr **args;
            int nargs;
            int func; /* checker: an ast_func, -1 before checking or when unknown */
        } call;
    } u;
};

/* ---- statements -------------------------------------------------------------------------- */

typedef struct ast_block {
    ast_stmt **stmts;
    int nstmts;
    ast_loc loc; /* from '{' to '}' (the stencil's whole body for the top level) */
} ast_block;

typedef enum ast_stmt_kind {
    AST_STMT_LET = 1, /* let name = expr;  read-only, visible until the end of its block */
    AST_STMT_ASSIGN,  /* output = expr;  */
    AST_STMT_IF,      /* if (cond) { ... } [else { ... } | else if ...] */
    AST_STMT_COLOR,   /* color expr;  top level only, at most once (see color.h) */
    AST_STMT_REDUCE   /* reduce sum|max|min name = expr;  top level only */
} ast_stmt_kind;

/* The operation of a reduce statement. */
typedef enum ast_reduce_op {
    AST_REDUCE_NONE = 0, /* unknown (an error was reported) */
    AST_REDUCE_SUM,
    AST_REDUCE_MAX,
    AST_REDUCE_MIN
} ast_reduce_op;

struct ast_stmt {
    ast_stmt_kind kind;
    ast_loc loc; /* the whole statement */
    int depth;   /* deepest nesting inside, as for expressions */
    union {
        struct {
            const char *name;
            ast_loc name_loc;
            ast_expr *init;
            int id;    /* checker: 0-based, unique within the stencil, in source order */
            int reads; /* checker: number of reads (0 = unused, a warning) */
        } let;
        struct {
            const char *name; /* the array assigned */
            ast_loc name_loc;
            ast_expr **offset_exprs; /* y[0,0,0] = ... is allowed; NULL for plain y */
            int noffsets;
            ast_expr *value;
            const ast_decl *decl; /* checker: the output */
        } assign;
        struct {
            ast_expr *cond;
            ast_block then_block;
            ast_block *else_block; /* NULL without else; "else if" is an else block holding
                                      one AST_STMT_IF */
        } if_;
        struct {
            ast_expr *expr;
        } color;
        struct {
            const char *op; /* "sum", "max", "min" as written (unchecked) */
            ast_loc op_loc;
            const char *name;
            ast_loc name_loc;
            ast_expr *value;
            ast_reduce_op rop; /* checker */
            int id;            /* checker: 0-based rank among the stencil's reductions, in
                                  source order: the order of the launcher's outputs */
        } reduce;
    } u;
};

/* ---- line solves ------------------------------------------------------------------------- */

/* The coefficients of a line solve, in the order of stenc_launch_solve's slots. */
typedef enum ast_solve_slot {
    AST_SOLVE_LOWER = 0,
    AST_SOLVE_DIAG,
    AST_SOLVE_UPPER,
    AST_SOLVE_RHS,
    AST_SOLVE_SLOTS
} ast_solve_slot;

/* "lower", "diag", "upper", "rhs". */
const char *ast_solve_slot_name(ast_solve_slot slot);

/* `solve v along i { lower = ...; diag = ...; upper = ...; rhs = ...; }`: the tridiagonal
 * system lower*v[p-1] + diag*v[p] + upper*v[p+1] = rhs along every line of v in one
 * direction. The parser keeps it aside from the body; the checker lowers it: each coefficient
 * that varies becomes an output of the kernel (a declaration with solve_slot set, appended to
 * decls, and an assignment appended to the body), v leaves decls (the runtime writes it), and
 * the coefficients that are the same at every point are computed once per launch. */
typedef struct ast_solve {
    const char *name; /* the array solved */
    ast_loc name_loc;
    const char *along; /* the direction: "i", "j" or "k" */
    ast_loc along_loc;
    ast_block coefs; /* the statements between the braces, as written */
    ast_loc loc;     /* the whole statement */
    int before;      /* body statements before it */
    /* checker: */
    const ast_decl *decl; /* v, no longer in decls */
    int field;            /* v's rank among the launcher's field parameters */
    int dim;              /* 0, 1 or 2 */
    unsigned uniform;     /* bit q: coefficient q is the same at every point, value[q] */
    ast_expr *value[AST_SOLVE_SLOTS];
} ast_solve;

/* ---- stencils and files ------------------------------------------------------------------ */

typedef struct ast_stencil {
    const char *name;
    ast_loc loc;      /* the name after 'stencil' */
    ast_loc end_loc;  /* the closing '}' */
    int dims;         /* 1, 2 or 3 once checked; 0 when not declared */
    ast_loc dims_loc; /* the value after 'dims' */
    ast_type type;    /* AST_TYPE_NONE when not declared */
    ast_loc type_loc;
    ast_decl **decls; /* scalars, inputs, outputs in source order */
    int ndecls;
    ast_block body;        /* the statements, in source order */
    int nlets;             /* checker: number of let statements (ids 0..nlets-1) */
    int nreduces;          /* checker: number of reduce statements (ids 0..nreduces-1) */
    const ast_stmt *color; /* the color statement, NULL without one */
    /* checker, when `color` is set and was proven race-free: the colour of interior point
     * (i, j, k) is color_table[(i mod p0) + p0*((j mod p1) + p1*(k mod p2))] with
     * p = color_period (1 in unused dimensions), a value in 0..ncolors-1. */
    int ncolors;
    int color_period[AST_MAX_DIMS];
    const unsigned char *color_table;
    int has_error;        /* parser: a syntax error was recovered inside this stencil */
    const char **inlined; /* checker: the file's functions its body calls, first call first */
    int ninlined;
    /* `step OUT -> IN;`: NULL without one. The checker resolves them to declarations. */
    const char *step_out, *step_in;
    ast_loc step_out_loc, step_in_loc;
    const ast_decl *step_out_decl, *step_in_decl;
    /* `order forward;` (1) or `order backward;` (-1): an in-place sweep in lexicographic
     * order (k slowest); 0 without one. */
    int order;
    ast_loc order_loc;
    /* `solve v along i { ... }`: NULL without one (at most one per stencil). */
    ast_solve *solve;
} ast_stencil;

typedef struct ast_arena ast_arena;

/* A function of the file: `func NAME(a, b) = EXPR;`. Pure: the expression sees its parameters,
 * literals and functions alone. Calls are inlined by the checker (func.c). */
typedef struct ast_funcdef {
    const char *name;
    ast_loc loc; /* the name */
    const char **params;
    ast_loc *param_locs;
    int nparams;
    ast_expr *body;
    int bad;  /* checker: an error was reported in it; calls become 0 without another */
    int uses; /* checker: calls inlined, over all stencils */
} ast_funcdef;

typedef struct ast_file {
    const char *path; /* as given on the command line, used in diagnostics */
    ast_stencil **stencils;
    int nstencils;
    ast_funcdef **funcs; /* in source order */
    int nfuncs;
    ast_arena *arena; /* owns everything above */
} ast_file;

/* ---- construction (parser) and destruction ----------------------------------------------- */

ast_arena *ast_arena_create(void);
void ast_arena_destroy(ast_arena *arena);
/* Zeroed memory from the arena; never returns NULL (aborts the process on exhaustion, which
 * is the one place the compiler may stop: it is a command-line program, not a library). */
void *ast_alloc(ast_arena *arena, size_t bytes);
char *ast_strndup(ast_arena *arena, const char *s, size_t n);
/* Append `item` to a growable array of pointers held in the arena. */
void ast_push(ast_arena *arena, void ***items, int *count, void *item);

/* Release a file and everything in it. NULL is allowed. */
void ast_file_free(ast_file *file);

/* Find a declaration by name in a stencil; NULL when absent. */
const ast_decl *ast_find_decl(const ast_stencil *st, const char *name);

/* 1 when `node_ok` holds for `x` and every subexpression of it (operands, a ternary's three
 * parts, a call's arguments). */
int ast_expr_every(const ast_expr *x, int (*node_ok)(const ast_expr *node));

#endif /* STENC_COMPILER_AST_H */
