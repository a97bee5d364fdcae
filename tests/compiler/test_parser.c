/* The parser on valid input: every construct, the tree it builds (precedence, locations,
 * literals), and every stencil of the project. */
#include "test_util.h"

#include <dirent.h>

#include "fe_test.h"

#define SRC_DIR STENC_SOURCE_DIR

static fe_result run_file(const char *path) {
    size_t len;
    char *text = fe_slurp(path, &len);
    fe_result r = fe_run_len(text, len);
    free(text);
    return r;
}

static const ast_decl *decl(const ast_stencil *st, const char *name) {
    const ast_decl *d = ast_find_decl(st, name);
    if (!d) fail_msg("no declaration '%s'", name);
    return d;
}

static void test_all_constructs(void **state) {
    (void)state;
    fe_result r = run_file(SRC_DIR "/tests/compiler/good/all_constructs.stencil");
    if (r.errors || r.warnings) fail_msg("%s", r.messages);
    assert_int_equal(r.file->nstencils, 2);
    const ast_stencil *st = r.file->stencils[0];
    assert_string_equal(st->name, "everything");
    assert_int_equal(st->dims, 3);
    assert_int_equal(st->type, AST_TYPE_DOUBLE);
    assert_int_equal(st->ndecls, 7);
    assert_int_equal(decl(st, "c")->kind, AST_DECL_SCALAR);
    assert_int_equal(decl(st, "c")->position, 1);
    assert_int_equal(decl(st, "w")->kind, AST_DECL_INPUT);
    assert_int_equal(decl(st, "w")->position, 1);
    assert_int_equal(decl(st, "m")->kind, AST_DECL_OUTPUT);
    assert_int_equal(decl(st, "m")->position, 2);
    /* the name's location: line 9 "    input  x, w;", w at column 15 */
    assert_int_equal(decl(st, "w")->loc.first_line, 9);
    assert_int_equal(decl(st, "w")->loc.first_col, 15);
    assert_int_equal(st->body.nstmts, 5);
    assert_int_equal(st->body.stmts[0]->kind, AST_STMT_LET);
    assert_int_equal(st->body.stmts[2]->kind, AST_STMT_IF);
    assert_int_equal(st->nlets, 3);
    /* else if: an else block holding one if, which has its own else */
    const ast_stmt *s = st->body.stmts[2];
    assert_non_null(s->u.if_.else_block);
    assert_int_equal(s->u.if_.else_block->nstmts, 1);
    const ast_stmt *elif = s->u.if_.else_block->stmts[0];
    assert_int_equal(elif->kind, AST_STMT_IF);
    assert_non_null(elif->u.if_.else_block);
    assert_int_equal(elif->u.if_.then_block.nstmts, 2);
    assert_int_equal(elif->u.if_.then_block.stmts[0]->u.let.id, 2);
    /* || binds looser than &&, && looser than comparisons */
    const ast_expr *cond = s->u.if_.cond;
    assert_int_equal(cond->kind, AST_EXPR_BINARY);
    assert_int_equal(cond->u.binary.op, AST_OP_OR);
    assert_int_equal(cond->u.binary.lhs->u.binary.op, AST_OP_OR);
    assert_int_equal(cond->u.binary.lhs->u.binary.lhs->u.binary.op, AST_OP_AND);
    /* m = y + z * 2 - 007 / -x[0,0,1]:  (y + (z*2)) - (7 / (-x)) */
    const ast_expr *m = st->body.stmts[4]->u.assign.value;
    assert_int_equal(m->u.binary.op, AST_OP_SUB);
    assert_int_equal(m->u.binary.lhs->u.binary.op, AST_OP_ADD);
    assert_int_equal(m->u.binary.lhs->u.binary.rhs->u.binary.op, AST_OP_MUL);
    const ast_expr *div = m->u.binary.rhs;
    assert_int_equal(div->u.binary.op, AST_OP_DIV);
    assert_string_equal(div->u.binary.lhs->u.number.text, "7"); /* not octal */
    assert_true(div->u.binary.lhs->u.number.is_integer);
    assert_int_equal(div->u.binary.rhs->kind, AST_EXPR_UNARY);
    const ast_expr *xr = div->u.binary.rhs->u.unary.operand;
    assert_int_equal(xr->u.ref.sym, AST_SYM_INPUT);
    assert_int_equal(xr->u.ref.offset[2], 1);
    /* its location: line 24 "    m = y + z * 2 - 007 / -x[0,0,1];" x[0,0,1] at 28..35 */
    assert_int_equal(xr->loc.first_line, 24);
    assert_int_equal(xr->loc.first_col, 28);
    assert_int_equal(xr->loc.last_col, 35);
    /* y read after assignment resolves to the output */
    assert_int_equal(m->u.binary.lhs->u.binary.lhs->u.ref.sym, AST_SYM_OUTPUT);
    /* the second stencil on one line, 1-D, unary + on an offset */
    const ast_stencil *st2 = r.file->stencils[1];
    assert_string_equal(st2->name, "second");
    assert_int_equal(st2->dims, 1);
    const ast_expr *b = st2->body.stmts[0]->u.assign.value;
    assert_int_equal(b->u.binary.lhs->u.ref.offset[0], -1);
    assert_int_equal(b->u.binary.rhs->u.ref.offset[0], 1);
    fe_result_free(&r);
}

static void test_literals_and_ternary(void **state) {
    (void)state;
    fe_result r = fe_run("stencil s { dims 1; type float; input x; output y;\n"
                         "y = x > 0 ? 2 : x < -1 ? 0.25 : 1e-3; }");
    if (r.errors) fail_msg("%s", r.messages);
    const ast_expr *e = r.file->stencils[0]->body.stmts[0]->u.assign.value;
    assert_int_equal(e->kind, AST_EXPR_TERNARY);
    assert_true(e->u.ternary.then_expr->u.number.value == 2.0);
    assert_int_equal(e->u.ternary.else_expr->kind, AST_EXPR_TERNARY); /* right associative */
    const ast_expr *inner = e->u.ternary.else_expr;
    assert_true(inner->u.ternary.then_expr->u.number.value == 0.25);
    assert_false(inner->u.ternary.then_expr->u.number.is_integer);
    assert_true(inner->u.ternary.else_expr->u.number.value == 1e-3);
    assert_string_equal(inner->u.ternary.else_expr->u.number.text, "1e-3");
    fe_result_free(&r);
}

static void test_index_variables_and_calls(void **state) {
    (void)state;
    fe_result r = fe_run("stencil s { dims 2; type float; input x; output y;\n"
                         "y = pow(x, 2) + i*nj + max(x, j); }");
    if (r.errors) fail_msg("%s", r.messages);
    const ast_expr *e = r.file->stencils[0]->body.stmts[0]->u.assign.value;
    const ast_expr *call = e->u.binary.lhs->u.binary.lhs;
    assert_int_equal(call->kind, AST_EXPR_CALL);
    assert_int_equal(call->u.call.func, AST_FUNC_POW);
    assert_int_equal(call->u.call.nargs, 2);
    const ast_expr *inj = e->u.binary.lhs->u.binary.rhs;
    assert_int_equal(inj->u.binary.lhs->u.ref.sym, AST_SYM_INDEX);
    assert_int_equal(inj->u.binary.lhs->u.ref.index, AST_INDEX_I);
    assert_int_equal(inj->u.binary.rhs->u.ref.index, AST_INDEX_NJ);
    fe_result_free(&r);
}

/* Every .stencil file of the project parses and checks without errors or warnings. */
static void test_project_stencils(void **state) {
    (void)state;
    DIR *dir = opendir(SRC_DIR "/stencils");
    assert_non_null(dir);
    int files = 0, stencils = 0;
    struct dirent *ent;
    while ((ent = readdir(dir))) {
        size_t n = strlen(ent->d_name);
        if (n < 9 || strcmp(ent->d_name + n - 8, ".stencil") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/stencils/%s", SRC_DIR, ent->d_name);
        fe_result r = run_file(path);
        if (r.errors || r.warnings) fail_msg("%s:\n%s", path, r.messages);
        assert_true(r.file->nstencils >= 1);
        stencils += r.file->nstencils;
        files++;
        fe_result_free(&r);
    }
    closedir(dir);
    assert_true(files >= 6);
    assert_true(stencils >= files + 1); /* poisson2d.stencil holds two */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_constructs),
        cmocka_unit_test(test_literals_and_ternary),
        cmocka_unit_test(test_index_variables_and_calls),
        cmocka_unit_test(test_project_stencils),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
