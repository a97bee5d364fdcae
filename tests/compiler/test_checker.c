/* The checker and the parser's diagnostics: one case per message, asserting its text, its
 * line:column and the number of errors. */
#include "test_util.h"

#include "check.h"
#include "color.h"
#include "stenc/launch.h"
#include "diag.h"
#include "fe_test.h"

/* Lines 1-6 of most cases; the body starts on line 7. */
#define HDR "stencil s {\ndims 2;\ntype float;\nscalar a;\ninput x;\noutput y;\n"

typedef struct check_case {
    const char *src;
    int errors;         /* expected number of errors */
    const char *expect; /* a substring of the diagnostics, "t.stencil:L:C: kind: message" */
} check_case;

static const check_case cases[] = {
    {HDR "y = a*x + zz;\n}", 1, "t.stencil:7:11: error: 'zz' is not declared in stencil 's'"},
    {HDR "z = x;\ny = a*x;\n}", 1, "t.stencil:7:1: error: 'z' is not declared in stencil 's'"},
    {HDR "x = a;\ny = x;\n}", 1,
     "t.stencil:7:1: error: cannot assign to input 'x': only outputs and inouts are written"},
    {HDR "a = 1;\ny = a*x;\n}", 1,
     "t.stencil:7:1: error: cannot assign to scalar 'a': only outputs and inouts are written"},
    {HDR "y = a*x;\ny = y[1,0];\n}", 1,
     "t.stencil:8:5: error: output 'y' can only be read at the centre point"},
    {HDR "y = y + a*x;\n}", 1, "t.stencil:7:5: error: output 'y' is read before it is assigned"},
    {HDR "if (x > a) { y = x; }\n}", 1,
     "t.stencil:7:1: error: output 'y' is not assigned on every path: this 'if' assigns it but "
     "has no 'else' that does"},
    {HDR "if (x > a) { y = x; } else if (x < 0) { y = 0; }\n}", 1,
     "t.stencil:7:1: error: output 'y' is not assigned on every path: this 'if' assigns it in "
     "one branch only"},
    {HDR "let t = a*x;\n}", 1, "t.stencil:6:8: error: output 'y' is never assigned"},
    {HDR "y = a*x[1,0,0];\n}", 1,
     "t.stencil:7:7: error: 'x' has 3 offsets, but stencil 's' has 2 dimensions"},
    {HDR "y = a*x[1];\n}", 1,
     "t.stencil:7:7: error: 'x' has 1 offset, but stencil 's' has 2 dimensions"},
    {"stencil s {\ndims 2;\ntype float;\ninput x;\nscalar x;\noutput y;\ny = x;\n}", 1,
     "t.stencil:5:8: error: 'x' is already declared at 4:7"},
    {HDR "let x = 2;\ny = a*x;\n}", 1,
     "t.stencil:7:5: error: let 'x' shadows the input 'x' declared at 5:7"},
    {HDR "let t = x;\nif (t > 0) { let t = 1; y = t; } else { y = a*t; }\n}", 1,
     "t.stencil:8:18: error: 't' is already defined at 7:5"},
    {HDR "y = a*x;\n}\n" HDR "y = a*x;\n}", 1,
     "t.stencil:9:9: error: stencil 's' is already defined at 1:9"},
    {HDR "y = a*x[i,0];\n}", 1, "t.stencil:7:9: error: an offset must be an integer constant"},
    {HDR "y = a*x[0.5,0];\n}", 1,
     "t.stencil:7:9: error: an offset must be an integer constant, not '0.5'"},
    {HDR "y = a*x[9,0];\n}", 1,
     "t.stencil:7:9: error: offset 9 is beyond the largest supported radius (8)"},
    {HDR "y = a*x[0,-9];\n}", 1,
     "t.stencil:7:11: error: offset -9 is beyond the largest supported radius (8)"},
    {HDR "y = a*foo(x);\n}", 1, "t.stencil:7:7: error: unknown function 'foo'"},
    {HDR "y = a*pow(x);\n}", 1, "t.stencil:7:7: error: 'pow' takes 2 arguments, not 1"},
    {HDR "y = a*sqrt(x, x);\n}", 1, "t.stencil:7:7: error: 'sqrt' takes 1 argument, not 2"},
    {HDR "y = a*sqrt + x;\n}", 1,
     "t.stencil:7:7: error: 'sqrt' is a function: call it as sqrt(...)"},
    {HDR "y = a*x*k;\n}", 1,
     "t.stencil:7:9: error: 'k' needs dims 3 or more, but stencil 's' has dims 2"},
    {"stencil s {\ndims 1;\ntype float;\ninput x;\noutput y;\ny = x*nj;\n}", 1,
     "t.stencil:6:7: error: 'nj' needs dims 2 or more, but stencil 's' has dims 1"},
    {HDR "let t = a*x;\nt = 2;\ny = t;\n}", 1,
     "t.stencil:8:1: error: cannot assign to 't': let temporaries are read-only"},
    {HDR "y = a*t;\nlet t = x;\n}", 1, "t.stencil:7:7: error: 't' is not declared in stencil 's'"},
    {HDR "if (x > 0) { let t = 1; y = t; } else { y = a*x; }\ny = y + t;\n}", 1,
     "t.stencil:8:9: error: 't' is not declared in stencil 's'"},
    {"stencil s {\ntype float;\ninput x;\noutput y;\ny = x;\n}", 1,
     "t.stencil:1:9: error: stencil 's' has no 'dims' declaration"},
    {"stencil s {\ndims 4;\ntype float;\ninput x;\noutput y;\ny = x;\n}", 1,
     "t.stencil:2:6: error: 'dims' must be 1, 2 or 3, not '4'"},
    {"stencil s {\ndims 2;\ndims 2;\ntype float;\ninput x;\noutput y;\ny = x;\n}", 1,
     "t.stencil:3:6: error: 'dims' is declared twice in stencil 's' (first at 2:6)"},
    {"stencil s {\ndims 2;\ninput x;\noutput y;\ny = x;\n}", 1,
     "t.stencil:1:9: error: stencil 's' has no 'type' declaration"},
    {"stencil s {\ndims 2;\ntype int;\ninput x;\noutput y;\ny = x;\n}", 1,
     "t.stencil:3:6: error: unknown type 'int': the type is 'float' or 'double'"},
    {"stencil s {\ndims 1;\ntype float;\ninput x;\n}", 1,
     "t.stencil:1:9: error: stencil 's' has no output (no output, inout or reduce)"},
    {"stencil s {\ndims 1;\ntype float;\ninput sqrt;\noutput y;\ny = 1;\n}", 1,
     "t.stencil:4:7: error: 'sqrt' is a reserved name"},
    {HDR "let i = 2;\ny = a*x*i;\n}", 1, "t.stencil:7:5: error: 'i' is a reserved name"},
    {HDR "y = a[1,0]*x;\n}", 1, "t.stencil:7:5: error: scalar 'a' takes no offsets"},
    {HDR "y[1,0] = a*x;\n}", 1,
     "t.stencil:7:1: error: output 'y' can only be written at the centre point"},
    /* inout, colours, reductions */
    {HDR "inout u;\ny = a*x;\nu = 2*u;\n}", 0, ""},
    {HDR "inout u;\ny = a*x + u;\n}", 0,
     "t.stencil:7:7: warning: inout 'u' is never assigned (declare it as an input)"},
    {HDR "inout u;\nu = u[1,0];\ny = a*x;\n}", 1,
     "t.stencil:8:5: error: inout 'u' is read at offset [1,0], but stencil 's' has no 'color'"},
    {HDR "inout u;\ncolor (i + j) % 2;\n"
         "u = 0.25*(a*x + u[-1,0] + u[1,0] + u[0,-1] + u[0,1]);\ny = u;\n}",
     0, ""},
    {HDR "inout u;\ncolor (i + j) % 2;\n"
         "u = 0.25*(a*x + u[-1,0] + u[1,0] + u[0,-1] + u[0,1]) + u[1,1];\ny = u;\n}",
     1,
     "t.stencil:9:56: error: the read of inout 'u' at offset [1,1] can touch a point of its own "
     "colour: point [0,0] and point [1,1] both have colour 0"},
    {HDR "inout u;\ncolor (i + j) % 2;\nu = u[2,0];\ny = a*x;\n}", 1,
     "t.stencil:9:5: error: the read of inout 'u' at offset [2,0]"},
    {HDR "inout u;\ncolor i % 3;\nu = u[-1,0] + u[1,0] + u[-2,0] + u[2,0];\ny = a*x;\n}", 0, ""},
    {HDR "inout u;\ncolor i % 3;\nu = u[3,0];\ny = a*x;\n}", 1,
     "t.stencil:9:5: error: the read of inout 'u' at offset [3,0]"},
    /* Euclidean %: (i - 1) % 2 is periodic, and so is the negative offset read */
    {HDR "inout u;\ncolor (i - 1 + 3*j) % 2;\nu = u[-1,0] + u[0,-1];\ny = a*x;\n}", 0, ""},
    {HDR "inout u;\ncolor (i + j) % 2 + j;\nu = u[1,0];\ny = a*x;\n}", 1,
     "t.stencil:8:7: error: the colour expression is not periodic in j"},
    {HDR "inout u;\ncolor (i + nj) % 2;\nu = u[1,0];\ny = a*x;\n}", 1,
     "t.stencil:8:12: error: 'nj' cannot appear in a colour expression"},
    {HDR "inout u;\ncolor (i + j) % 2.0;\nu = u[1,0];\ny = a*x;\n}", 1,
     "t.stencil:8:17: error: a colour expression takes integer literals, not '2.0'"},
    {HDR "inout u;\ncolor (i + k) % 2;\nu = u[1,0];\ny = a*x;\n}", 1,
     "t.stencil:8:12: error: 'k' needs dims 3 or more, but stencil 's' has dims 2"},
    {"stencil s {\ndims 3;\ntype double;\ninout u;\ncolor (i%16 + j%16 + k%17) % 64;\nu = 2*u;\n}",
     1,
     "t.stencil:5:7: error: the colour expression's period box (16 x 16 x 17) is too large (more "
     "than 4096 points)"},
    {HDR "inout u;\ncolor (i + j) % 2;\nu[0,1] = u;\ny = a*x;\n}", 1,
     "t.stencil:9:1: error: inout 'u' can only be written at the centre point (offset 0)"},
    {HDR "y = a*x;\nreduce sum r2 = y*y;\nreduce max m = fabs(x);\nreduce min n = x;\n}", 0, ""},
    {"stencil s {\ndims 1;\ntype float;\ninput x;\nreduce sum t = x;\n}", 0, ""},
    {"stencil s {\ndims 1;\ntype float;\nreduce sum t = i;\n}", 1,
     "t.stencil:1:9: error: stencil 's' reduces over no array"},
    {HDR "y = a*x;\nreduce mean r2 = y;\n}", 1,
     "t.stencil:8:8: error: unknown reduction 'mean' (sum, max or min)"},
    {HDR "y = a*x;\nreduce sum y = x;\n}", 1,
     "t.stencil:8:12: error: reduction 'y' has the name of the output declared at 6:8"},
    {HDR "y = a*x;\nreduce sum i = x;\n}", 1, "t.stencil:8:12: error: 'i' is a reserved name"},
    {HDR "reduce sum t = x;\ny = a*t;\n}", 1,
     "t.stencil:8:7: error: 't' is a reduction: the launcher returns it, the body cannot read it"},
    {HDR "y = a*x;\nreduce sum t = y + q;\n}", 1, "t.stencil:8:20: error: 'q' is not declared"},
    {HDR "y = a*x % 2;\n}", 1, "t.stencil:7:5: error: '%' is only allowed in colour expressions"},
    {HDR "y = a*x\n}", 1, "t.stencil:7:8: error: expected ';' at the end of the statement"},
    {HDR "y = a*x +* 2;\n}", 1, "t.stencil:7:10: error: expected an expression before '*'"},
    {HDR "y = a*x; )\n}", 1, "t.stencil:7:10: error: unexpected ')'"},
    {HDR "y = (a*x;\n}", 1, "t.stencil:7:9: error: expected ')' before ';'"},
    {HDR "y = a*x;\n/* never closed\n", 1,
     "t.stencil:8:1: error: unterminated comment: '/*' without '*/'"},
    {HDR "y = a*x @ 2;\n}", 1, "t.stencil:7:9: error: unexpected character '@'"},
    {HDR "y = a*x & 2;\n}", 1, "t.stencil:7:9: error: unexpected '&' (did you mean '&&'?)"},
    {HDR "y = a*2x;\n}", 1, "t.stencil:7:7: error: malformed number '2x'"},
    {HDR "y = a*x*1e999;\n}", 1,
     "t.stencil:7:9: error: number '1e999' is out of range for a double"},
    {HDR "y = a*x;\n", 1, "t.stencil:8:1: error: expected '}' before end of file"},
    {"stencil {\n}", 1, "t.stencil:1:9: error: expected identifier before '{'"},
    {HDR "y = x;\n}", 0, "t.stencil:4:8: warning: scalar 'a' is never used"},
    {HDR "let t = x;\ny = a*x;\n}", 0, "t.stencil:7:5: warning: 't' is defined but never used"},
    {"", 0, "t.stencil:1:1: warning: the file defines no stencil"},
    /* Functions of the file, defined after the stencil (line 9 on). */
    {HDR "y = f(x);\n}\nfunc f(a) = g(a);\nfunc g(b) = f(b);", 1,
     "t.stencil:9:6: error: function 'f' calls itself (f -> g -> f): functions cannot be "
     "recursive"},
    {HDR "y = f(x);\n}\nfunc f(b) = b + a;", 1,
     "t.stencil:9:17: error: 'a' is not a parameter of function 'f'"},
    {HDR "y = f(x, x);\n}\nfunc f(b) = b;", 1, "t.stencil:7:5: error: 'f' takes 1 argument, not 2"},
    {HDR "y = x;\n}\nfunc sqrt(b) = b;", 1,
     "t.stencil:9:6: error: 'sqrt' is a built-in function; give yours another name"},
    {HDR "y = f(x);\n}\nfunc f(b) = b;\nfunc f(c) = c;", 1,
     "t.stencil:10:6: error: function 'f' is already defined at 9:6"},
    {HDR "y = f(x);\n}\nfunc f(b) = b[1,0];", 1,
     "t.stencil:9:13: error: parameter 'b' takes no offsets"},
    {HDR "y = f(x);\n}\nfunc f(b, b) = b;", 1,
     "t.stencil:9:11: error: parameter 'b' of 'f' is named twice"},
    {HDR "y = squ(x);\n}\nfunc sq(b) = b * b;", 1,
     "t.stencil:7:5: error: unknown function 'squ'; did you mean 'sq'?"},
    {HDR "y = x;\n}\nfunc f(b) = b;", 0, "t.stencil:9:6: warning: function 'f' is never called"},
    {HDR "y = f(x);\n}\nfunc f(b) = b % 2;", 1,
     "t.stencil:9:13: error: '%' is only allowed in colour expressions"},
    {"func f(q) = g(q) + g(q);\nfunc g(q) = h(q) + h(q);\nfunc h(q) = m(q) + m(q);\n"
     "func m(q) = n(q) + n(q);\nfunc n(q) = o(q) + o(q);\nfunc o(q) = p(q) + p(q);\n"
     "func p(q) = r(q) + r(q);\nfunc r(q) = s2(q) + s2(q);\nfunc s2(q) = t(q) + t(q);\n"
     "func t(q) = w(q) + w(q);\nfunc w(q) = z(q) + z(q);\nfunc z(q) = q * q + q * q;\n"
     "stencil s {\ndims 1;\ntype float;\ninput x;\noutput y;\ny = f(f(f(x)));\n}",
     1, "t.stencil:18:7: error: inlining 'f' here makes an expression too large"},
    /* step OUT -> IN */
    {HDR "step x -> y;\ny = a*x;\n}", 2,
     "t.stencil:7:6: error: 'step x -> y': 'x' is input, not an output"},
    {HDR "step y -> q;\ny = a*x;\n}", 1,
     "t.stencil:7:11: error: 'step y -> q': 'q' is not declared, not an input"},
    {HDR "step y -> x;\nstep y -> x;\ny = a*x;\n}", 1,
     "t.stencil:8:6: error: 'step' is declared twice in stencil 's' (first at 7:6)"},
    {HDR "step y -> x;\ny = a*x;\nreduce sum r = y;\n}", 1,
     "t.stencil:7:6: error: 'step' in a stencil with 'reduce'"},
};

static void test_case(void **state) {
    const check_case *c = *state;
    fe_result r = fe_run(c->src);
    if (!strstr(r.messages, c->expect) || r.errors != c->errors)
        fail_msg("source:\n%s\nexpected %d error(s) and \"%s\", got %d:\n%s", c->src, c->errors,
                 c->expect, r.errors, r.messages);
    fe_result_free(&r);
}

/* The colour analysis: the number of colours, the period, and every colour of a box of points
 * against the expression computed here with Euclidean %. */
static long emod(long a, long m) {
    return ((a % m) + m) % m;
}

static void test_color_analysis(void **state) {
    (void)state;
    static const struct {
        const char *expr;
        int dims, ncolors, period[3];
        long (*colour)(long i, long j, long k);
    } cases[] = {
        {"(i + j) % 2", 2, 2, {2, 2, 1}, NULL},
        {"i%2 + 2*(j%2) + 4*(k%2)", 3, 8, {2, 2, 2}, NULL},
        {"(i + 2*j + 3*k) % 5", 3, 5, {5, 5, 5}, NULL},
        {"((i - 7) % 3 * 2 + i) % 4", 1, 4, {12, 1, 1}, NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char src[512];
        snprintf(src, sizeof src,
                 "stencil s {\ndims %d;\ntype double;\ninout u;\ncolor %s;\nu = 2*u;\n}",
                 cases[c].dims, cases[c].expr);
        fe_result r = fe_run(src);
        if (r.errors) fail_msg("%s: %s", cases[c].expr, r.messages);
        const ast_stencil *st = r.file->stencils[0];
        assert_int_equal(st->ncolors, cases[c].ncolors);
        for (int d = 0; d < 3; d++)
            assert_int_equal(st->color_period[d], cases[c].period[d]);
        for (long k = -3; k < (cases[c].dims > 2 ? 9 : 1); k++)
            for (long j = -3; j < (cases[c].dims > 1 ? 9 : 1); j++)
                for (long i = -30; i < 30; i++) {
                    long want = c == 0   ? emod(i + j, 2)
                                : c == 1 ? emod(i, 2) + 2 * emod(j, 2) + 4 * emod(k, 2)
                                : c == 2 ? emod(i + 2 * j + 3 * k, 5)
                                         : emod(emod(i - 7, 3) * 2 + i, 4);
                    if (color_at(st, i, j, k) != want)
                        fail_msg("%s at (%ld,%ld,%ld): %d, want %ld", cases[c].expr, i, j, k,
                                 color_at(st, i, j, k), want);
                }
        fe_result_free(&r);
    }
}

/* The 27-point stencil: accepted in 8 colours, rejected in red-black with its first unsafe
 * offset. */
static void test_27_point_colourings(void **state) {
    (void)state;
    char body[4096] = "";
    for (int dk = -1; dk <= 1; dk++)
        for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++) {
                char term[32];
                snprintf(term, sizeof term, "%s u[%d,%d,%d]", body[0] ? " +" : "", di, dj, dk);
                strcat(body, term);
            }
    char src[8192];
    snprintf(src, sizeof src,
             "stencil s {\ndims 3;\ntype double;\ninout u;\ncolor i%%2 + 2*(j%%2) + 4*(k%%2);\n"
             "u = (%s) / 27;\n}",
             body);
    fe_result r = fe_run(src);
    if (r.errors) fail_msg("8 colours: %s", r.messages);
    fe_result_free(&r);
    snprintf(src, sizeof src,
             "stencil s {\ndims 3;\ntype double;\ninout u;\ncolor (i + j + k) %% 2;\n"
             "u = (%s) / 27;\n}",
             body);
    r = fe_run(src);
    /* the 12 edge neighbours have an even offset sum: the same colour */
    assert_int_equal(r.errors, 12);
    assert_non_null(strstr(r.messages, "error: the read of inout 'u' at offset [0,-1,-1] can "
                                       "touch a point of its own colour"));
    assert_null(strstr(r.messages, "offset [1,0,0]"));
    assert_null(strstr(r.messages, "offset [1,1,1]"));
    fe_result_free(&r);
}

/* Every error of a file is reported, in source order, not just the first. */
static void test_all_errors_reported_in_order(void **state) {
    (void)state;
    fe_result r = fe_run(HDR "y = a*q1;\nlet t = q2 + x[0,0,0];\ny = t + q3;\n}\n"
                             "stencil s2 {\ndims 2;\ntype float;\nscalar a;\ninput x;\noutput y;\n"
                             "y = a*x +;\ny = zz;\n}");
    const char *expected[] = {"7:7: error: 'q1'",
                              "8:9: error: 'q2'",
                              "8:14: error: 'x' has 3",
                              "9:9: error: 'q3'",
                              "17:10: error: expected an expression",
                              "18:5: error: 'zz'"};
    const char *at = r.messages;
    for (size_t n = 0; n < sizeof expected / sizeof expected[0]; n++) {
        const char *found = strstr(at, expected[n]);
        if (!found) fail_msg("missing or out of order: %s\nin:\n%s", expected[n], r.messages);
        at = found + 1;
    }
    assert_int_equal(r.errors, 6);
    fe_result_free(&r);
}

/* The caret line marks the whole offending range. */
static void test_caret_under_range(void **state) {
    (void)state;
    fe_result r = fe_run(HDR "y = a*x + zzz;\n}");
    assert_non_null(strstr(r.messages, "\n    y = a*x + zzz;\n              ^~~\n"));
    fe_result_free(&r);
    r = fe_run(HDR "\ty = a*x[1,0,0];\n}");
    assert_non_null(strstr(r.messages, "\n    \ty = a*x[1,0,0];\n    \t      ^~~~~~~~\n"));
    fe_result_free(&r);
}

/* After too many errors the front end stops instead of flooding the terminal. */
static void test_error_limit(void **state) {
    (void)state;
    char *src = malloc(200000);
    strcpy(src, HDR);
    for (int n = 0; n < 500; n++)
        strcat(src, "y = q;\n");
    strcat(src, "}");
    fe_result r = fe_run(src);
    assert_int_equal(r.errors, 50); /* what is shown is what is counted */
    assert_non_null(strstr(r.messages, "t.stencil: error: too many errors (50), stopping"));
    /* 50 messages with their source and caret lines, then the last line */
    int lines = 0;
    for (const char *p = r.messages; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 50 * 3 + 1);
    fe_result_free(&r);
    free(src);
}

/* Limits that keep generated code buildable: declarations (the CUDA parameter block) and
 * reductions (the sweep's shared memory), each accepted at the limit and rejected above. */
static char *stencil_with(int scalars, int reductions) {
    size_t size = 256 + (size_t)scalars * 16 + (size_t)reductions * 40;
    char *src = malloc(size), *p = src;
    p += sprintf(p, "stencil s { dims 1; type double; input x;\n");
    for (int k = 0; k < scalars; k++)
        p += sprintf(p, "scalar a%d;\n", k);
    for (int k = 0; k < reductions; k++)
        p += sprintf(p, "reduce sum r%d = x;\n", k);
    sprintf(p, "}\n");
    return src;
}

_Static_assert(AST_MAX_FIELDS == STENC_LAUNCH_MAX_FIELDS,
               "the compiler accepts exactly the arrays a launch can take");

/* A stencil of `arrays` outputs. */
static char *stencil_with_arrays(int arrays) {
    char *src = malloc(256 + (size_t)arrays * 24), *p = src;
    p += sprintf(p, "stencil s { dims 1; type float; input x;\n");
    for (int k = 1; k < arrays; k++)
        p += sprintf(p, "output o%d; o%d = x;\n", k, k);
    sprintf(p, "}\n");
    return src;
}

static void test_limits(void **state) {
    (void)state;
    for (int arrays = AST_MAX_FIELDS; arrays <= AST_MAX_FIELDS + 1; arrays++) {
        char *src = stencil_with_arrays(arrays);
        fe_result r = fe_run(src);
        assert_int_equal(r.errors, arrays > AST_MAX_FIELDS);
        if (r.errors) assert_non_null(strstr(r.messages, "declares more than 256 arrays"));
        fe_result_free(&r);
        free(src);
    }
    struct {
        int scalars, reductions, errors;
        const char *expect;
    } cases[] = {
        {AST_MAX_DECLS - 1, 1, 0, NULL},
        {AST_MAX_DECLS, 1, 1, "declares 1025 scalars and arrays; at most 1024 are supported"},
        {0, AST_MAX_REDUCES, 0, NULL},
        {0, AST_MAX_REDUCES + 1, 1, "has more than 64 reductions"},
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        char *src = stencil_with(cases[n].scalars, cases[n].reductions);
        fe_result r = fe_run(src);
        if (r.errors != cases[n].errors ||
            (cases[n].expect && !strstr(r.messages, cases[n].expect)))
            fail_msg("case %zu: %d errors:\n%.2000s", n, r.errors, r.messages);
        fe_result_free(&r);
        free(src);
    }
}

/* Outputs and inouts with reserved names still hold their parser-given slots: the checker's
 * per-output arrays once were sized without them and overflowed (ASan saw it; a Release build
 * aborted at 24 such outputs). */
static void test_reserved_outputs(void **state) {
    (void)state;
    enum { COUNT = 40 };
    char src[COUNT * 48 + 256], *p = src;
    p += sprintf(p, "stencil s { dims 1; type float; input x; output y;\n");
    for (int k = 0; k < COUNT; k++)
        p += sprintf(p, "%s _r%d; %s ok%d;\n", k % 2 ? "output" : "inout", k,
                     k % 2 ? "output" : "inout", k);
    p += sprintf(p, "y = x;\n");
    for (int k = 0; k < COUNT; k++)
        p += sprintf(p, "_r%d = x; ok%d = x;\n", k, k);
    sprintf(p, "}\n");
    fe_result r = fe_run(src);
    assert_int_equal(r.errors, COUNT);
    assert_non_null(strstr(r.messages, "'_r39' is a reserved name"));
    fe_result_free(&r);
}

/* Every expression gets a value type: comparisons and logic are truth values, the rest numbers;
 * a ternary is a truth value only when both branches are. */
static void test_value_types(void **state) {
    (void)state;
    static const struct {
        const char *expr;
        ast_vtype vtype;
    } cases[] = {
        {"x", AST_VT_REAL},
        {"x > a", AST_VT_BOOL},
        {"!(a*x)", AST_VT_BOOL},
        {"x && a", AST_VT_BOOL},
        {"(x < a) * 2", AST_VT_REAL},
        {"sqrt(x > 0)", AST_VT_REAL},
        {"x ? x < a : !a", AST_VT_BOOL},
        {"x ? x < a : a", AST_VT_REAL},
        {"-(x == a)", AST_VT_REAL},
        {"1.5f", AST_VT_REAL},
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        char src[256];
        snprintf(src, sizeof src, HDR "y = %s;\n}", cases[n].expr);
        fe_result r = fe_run(src);
        assert_int_equal(r.errors, 0);
        const ast_stencil *st = r.file->stencils[0];
        const ast_stmt *assign = st->body.stmts[st->body.nstmts - 1];
        assert_int_equal(assign->kind, AST_STMT_ASSIGN);
        if (assign->u.assign.value->vtype != cases[n].vtype)
            fail_msg("'%s': type %d, want %d", cases[n].expr, assign->u.assign.value->vtype,
                     cases[n].vtype);
        fe_result_free(&r);
    }
}

/* Literals: subnormal doubles are values, f suffixes round to float, and the range checks follow
 * the type code is generated in (--precision included). */
static void test_literals(void **state) {
    (void)state;
    fe_result r = fe_run("stencil s { dims 1; type double; input x; output y;\n"
                         "y = x*4.9e-324 + 1e-320 + 0.1f; }");
    assert_int_equal(r.errors, 0);
    assert_int_equal(r.warnings, 0);
    const ast_expr *sum = r.file->stencils[0]->body.stmts[0]->u.assign.value;
    const ast_expr *tenth = sum->u.binary.rhs, *tiny = sum->u.binary.lhs->u.binary.rhs;
    assert_true(tenth->u.number.is_float);
    assert_true(tenth->u.number.value == (double)0.1f);
    assert_true(tiny->u.number.value == 1e-320);
    fe_result_free(&r);
    static const char src[] = "stencil s { dims 1; type double; input x; output y; y = x*1e39; }";
    fe_options as_float = {.precision = AST_TYPE_FLOAT};
    char *messages = NULL;
    size_t size = 0;
    FILE *err = open_memstream(&messages, &size);
    ast_file *file = NULL;
    int errors =
        fe_check_source_with("t.stencil", src, sizeof src - 1, err, &as_float, &file, NULL);
    fclose(err);
    assert_int_equal(errors, 1);
    assert_non_null(strstr(messages, "is out of range for float"));
    ast_file_free(file);
    free(messages);
}

/* The name rules of check.h, which the random-stencil generator relies on too. */
static void test_name_rules(void **state) {
    (void)state;
    static const char *const allowed[] = {"for",      "int",    "class", "y1",   "j0",     "float2",
                                          "dim3",     "size_t", "NULL",  "V",    "S_HALO", "and",
                                          "decltype", "main",   "round", "x_m1", "a_b"};
    for (size_t n = 0; n < sizeof allowed / sizeof allowed[0]; n++)
        if (check_name_reserved(allowed[n]))
            fail_msg("'%s' should name an array: %s", allowed[n], check_name_reserved(allowed[n]));
    static const char *const reserved[] = {"sqrt", "i",       "nk",      "input", "float",
                                           "_a",   "stenc_x", "STENC_X", "a_",    "a__b"};
    for (size_t n = 0; n < sizeof reserved / sizeof reserved[0]; n++)
        assert_non_null(check_name_reserved(reserved[n]));
    static const char *const bad_stencils[] = {
        "round",    "strlen",   "exp2",         "size_t",    "NULL",
        "INFINITY", "dim3",     "float2",       "and",       "decltype",
        "throw",    "asm",      "static_cast",  "main",      "math",
        "stdlib",   "features", "cuda_runtime", "threadIdx", "cudaMalloc",
        "y1",       "j0",       "printf",       "_s",        "s_"};
    for (size_t n = 0; n < sizeof bad_stencils / sizeof bad_stencils[0]; n++)
        if (!check_stencil_name_conflict(bad_stencils[n]))
            fail_msg("stencil name '%s' accepted", bad_stencils[n]);
    char longest[AST_MAX_STENCIL_NAME + 2];
    memset(longest, 's', sizeof longest - 1);
    longest[AST_MAX_STENCIL_NAME] = '\0'; /* NAME_cuda.cu: 255 bytes, the most a file name has */
    assert_null(check_stencil_name_conflict(longest));
    longest[AST_MAX_STENCIL_NAME] = 's';
    longest[AST_MAX_STENCIL_NAME + 1] = '\0';
    assert_non_null(strstr(check_stencil_name_conflict(longest), "must fit the 255 bytes"));
    static const char *const good_stencils[] = {"heat3d", "jacobi",     "x",   "pair",
                                                "vector", "laplace_2d", "Heat"};
    for (size_t n = 0; n < sizeof good_stencils / sizeof good_stencils[0]; n++)
        if (check_stencil_name_conflict(good_stencils[n]))
            fail_msg("stencil name '%s' rejected: %s", good_stencils[n],
                     check_stencil_name_conflict(good_stencils[n]));
}

/* Suggestions: a swap of neighbours is one edit; short names get none. */
static void test_closest(void **state) {
    (void)state;
    const char *names[] = {"value", "kap", "x", "input"};
    assert_string_equal(diag_closest("vlaue", names, 4), "value");
    assert_string_equal(diag_closest("kapa", names, 4), "kap");
    assert_string_equal(diag_closest("inpt", names, 4), "input");
    assert_null(diag_closest("y", names, 4));
    assert_null(diag_closest("zzzzz", names, 4));
    assert_null(diag_closest("value", names, 4)); /* the name itself is no suggestion */
}

int main(void) {
    enum { N = sizeof cases / sizeof cases[0], EXTRA = 11 };
    struct CMUnitTest tests[N + EXTRA];
    static char names[N][32];
    for (int n = 0; n < N; n++) {
        snprintf(names[n], sizeof names[n], "diagnostic_%02d", n);
        tests[n] = (struct CMUnitTest){names[n], test_case, NULL, NULL, (void *)&cases[n]};
    }
    tests[N] = (struct CMUnitTest)cmocka_unit_test(test_all_errors_reported_in_order);
    tests[N + 1] = (struct CMUnitTest)cmocka_unit_test(test_caret_under_range);
    tests[N + 2] = (struct CMUnitTest)cmocka_unit_test(test_error_limit);
    tests[N + 3] = (struct CMUnitTest)cmocka_unit_test(test_color_analysis);
    tests[N + 4] = (struct CMUnitTest)cmocka_unit_test(test_27_point_colourings);
    tests[N + 5] = (struct CMUnitTest)cmocka_unit_test(test_limits);
    tests[N + 6] = (struct CMUnitTest)cmocka_unit_test(test_value_types);
    tests[N + 7] = (struct CMUnitTest)cmocka_unit_test(test_literals);
    tests[N + 8] = (struct CMUnitTest)cmocka_unit_test(test_name_rules);
    tests[N + 9] = (struct CMUnitTest)cmocka_unit_test(test_closest);
    tests[N + 10] = (struct CMUnitTest)cmocka_unit_test(test_reserved_outputs);
    return _cmocka_run_group_tests("checker", tests, N + EXTRA, NULL, NULL);
}
