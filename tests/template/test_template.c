/* The template engine: substitution, loops, nesting, conditionals, whitespace control, and
 * every error with its file:line. Expected outputs are written out by hand. */
#include "test_util.h"

#include <unistd.h>

#include "syntax.h"
#include "template.h"

/* Render `text` with `data`; returns the output (caller frees) or NULL on error, with the
 * diagnostics in *diag (caller frees). */
static char *render(const char *text, const tmpl_value *data, char **diag) {
    size_t diag_len = 0;
    FILE *err = open_memstream(diag, &diag_len);
    assert_non_null(err);
    char *result = NULL;
    tmpl *t = tmpl_parse("t.tmpl", text, err);
    if (t) {
        tmpl_buf out = {0};
        if (tmpl_render(t, data, &out, err) == 0) result = strdup(tmpl_buf_str(&out));
        tmpl_buf_free(&out);
        tmpl_destroy(t);
    }
    fclose(err);
    return result;
}

static void expect_output(const char *text, const tmpl_value *data, const char *expected) {
    char *diag = NULL;
    char *got = render(text, data, &diag);
    if (!got) fail_msg("render failed: %s", diag);
    assert_string_equal(got, expected);
    assert_string_equal(diag, "");
    free(got);
    free(diag);
}

static void expect_error(const char *text, const tmpl_value *data, const char *expected_diag) {
    char *diag = NULL;
    char *got = render(text, data, &diag);
    if (got) fail_msg("expected an error, got output '%s'", got);
    if (!strstr(diag, expected_diag)) fail_msg("diagnostic '%s' lacks '%s'", diag, expected_diag);
    free(diag);
}

static void test_substitution(void **state) {
    (void)state;
    tmpl_value *d = tmpl_new_map();
    tmpl_set_str(d, "name", "heat3d");
    tmpl_set_fmt(d, "n", "%d-%s", 42, "x");
    tmpl_value *m = tmpl_set_map(d, "type");
    tmpl_set_str(m, "c", "float");
    expect_output("", d, "");
    expect_output("plain text\n", d, "plain text\n");
    expect_output("stenc_status {{name}}(void);", d, "stenc_status heat3d(void);");
    expect_output("{{ name }}{{name}} {{n}}", d, "heat3dheat3d 42-x");
    expect_output("{{type.c}} *p;", d, "float *p;");
    tmpl_set_str(d, "name", "replaced");
    expect_output("{{name}}", d, "replaced");
    /* A lone brace is text. */
    expect_output("{ a } {x} }}", d, "{ a } {x} }}");
    /* Braces around a tag are text: a C initialiser from a value. */
    expect_output("{{{name}}}, {{{{n}}}}", d, "{replaced}, {{42-x}}");
    tmpl_free(d);
}

static void test_loops(void **state) {
    (void)state;
    tmpl_value *d = tmpl_new_map();
    tmpl_set_str(d, "type", "double");
    tmpl_value *args = tmpl_set_list(d, "args");
    const char *names[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++)
        tmpl_set_str(tmpl_append_map(args), "name", names[i]);
    tmpl_value *words = tmpl_set_list(d, "words");
    tmpl_append_str(words, "x");
    tmpl_append_str(words, "y");
    tmpl_set_list(d, "empty");
    expect_output("f({{#each args}}{{type}} {{name}}{{#unless @last}}, {{/unless}}{{/each}})", d,
                  "f(double a, double b, double c)");
    expect_output("{{#each args}}{{@index}}{{#if @first}}F{{/if}}{{/each}}", d, "0F12");
    expect_output("{{#each words}}[{{this}}]{{/each}}", d, "[x][y]");
    expect_output("<{{#each empty}}never{{/each}}>", d, "<>");
    tmpl_free(d);
}

static void test_nesting(void **state) {
    (void)state;
    tmpl_value *d = tmpl_new_map();
    tmpl_set_str(d, "stencil", "s");
    tmpl_value *arrays = tmpl_set_list(d, "arrays");
    for (int a = 0; a < 2; a++) {
        tmpl_value *arr = tmpl_append_map(arrays);
        tmpl_set_fmt(arr, "name", "u%d", a);
        tmpl_value *offs = tmpl_set_list(arr, "offsets");
        for (int o = 0; o <= a; o++)
            tmpl_set_fmt(tmpl_append_map(offs), "name", "o%d", o);
    }
    /* Inner names shadow nothing here; `stencil` resolves from the top scope, `name` from the
     * innermost item that has it. */
    expect_output("{{#each arrays}}{{name}}:{{#each offsets}}{{stencil}}.{{name}}{{@index}};"
                  "{{/each}}|{{/each}}",
                  d, "u0:s.o00;|u1:s.o00;s.o11;|");
    tmpl_free(d);
}

static void test_conditionals(void **state) {
    (void)state;
    tmpl_value *d = tmpl_new_map();
    tmpl_set_bool(d, "yes", 1);
    tmpl_set_bool(d, "no", 0);
    tmpl_set_list(d, "empty");
    tmpl_append_str(tmpl_set_list(d, "full"), "x");
    tmpl_set_map(d, "map");
    expect_output("{{#if yes}}A{{else}}B{{/if}}", d, "A");
    expect_output("{{#if no}}A{{else}}B{{/if}}", d, "B");
    expect_output("{{#if no}}A{{/if}}", d, "");
    expect_output("{{#unless no}}A{{else}}B{{/unless}}", d, "A");
    expect_output("{{#if empty}}A{{else}}B{{/if}}{{#if full}}C{{/if}}{{#if map}}D{{/if}}", d,
                  "BCD");
    expect_output("{{#if yes}}{{#if no}}1{{else}}{{#unless no}}2{{/unless}}{{/if}}{{/if}}", d, "2");
    tmpl_free(d);
}

static void test_comments_and_whitespace(void **state) {
    (void)state;
    tmpl_value *d = tmpl_new_map();
    tmpl_set_bool(d, "yes", 1);
    tmpl_value *l = tmpl_set_list(d, "stmts");
    tmpl_append_str(l, "a = 1;");
    tmpl_append_str(l, "b = 2;");
    tmpl_set_str(d, "body", "x = 1;\nif (x) {\n    y = 2;\n}\n\nz = 3;");
    expect_output("a{{! ignored }}b", d, "ab");
    /* Standalone section tags and comments vanish with their line. */
    expect_output(
        "{\n    {{! comment line }}\n    {{#each stmts}}\n    {{this}}\n    {{/each}}\n}\n", d,
        "{\n    a = 1;\n    b = 2;\n}\n");
    expect_output("{\n  {{#if yes}}\n  t\n  {{else}}\n  f\n  {{/if}}\n}", d, "{\n  t\n}");
    /* Not standalone when sharing the line with text or another tag. */
    expect_output("x {{#if yes}}t{{/if}}\n", d, "x t\n");
    /* Multi-line values take the indentation of their line; blank lines stay empty. */
    expect_output(
        "void f(void) {\n    {{body}}\n}\n", d,
        "void f(void) {\n    x = 1;\n    if (x) {\n        y = 2;\n    }\n\n    z = 3;\n}\n");
    /* A standalone tag on the last line without a newline. */
    expect_output("a\n{{#if yes}}\nb\n{{/if}}", d, "a\nb\n");
    tmpl_free(d);
}

static void test_errors(void **state) {
    (void)state;
    tmpl_value *d = tmpl_new_map();
    tmpl_set_str(d, "s", "v");
    tmpl_set_list(d, "list");
    tmpl_append_str(tmpl_set_list(tmpl_append_map(tmpl_set_list(d, "one")), "inner"), "x");
    expect_error("line1\n{{nope}}", d, "t.tmpl:2: error: unknown variable 'nope'");
    expect_error("a\nb\n{{#each list}}\n{{/each}}\n{{#if missing}}x{{/if}}", d,
                 "t.tmpl:5: error: unknown variable 'missing'");
    expect_error("{{#each one}}\n{{#each inner}}\n{{gone}}{{/each}}{{/each}}", d,
                 "t.tmpl:3: error: unknown variable 'gone'");
    expect_error("{{#if s}}\n\n{{what is this}}\n{{/if}}", d,
                 "t.tmpl:3: error: unknown tag '{{what is this}}'");
    expect_error("\n{{#loop s}}{{/loop}}", d, "t.tmpl:2: error: unknown section tag '{{#loop s}}'");
    expect_error("{{s}}\n{{#each list}}\nbody\n", d,
                 "t.tmpl:2: error: unterminated section '{{#each list}}' (no '{{/each}}')");
    expect_error("{{#if s}}\n{{#each list}}\n{{/if}}", d,
                 "t.tmpl:3: error: '{{/if}}' does not match '{{#each list}}' opened at line 2");
    expect_error("x\n\n\n{{/if}}", d, "t.tmpl:4: error: '{{/if}}' closes no open section");
    expect_error("{{#each list}}{{else}}{{/each}}", d, "t.tmpl:1: error: '{{else}}' outside");
    expect_error("\n\n  {{s", d, "t.tmpl:3: error: unterminated tag");
    expect_error("{{#if}}{{/if}}", d, "t.tmpl:1: error: '{{#if}}' needs one variable name");
    expect_error("\n{{list}}", d, "t.tmpl:2: error: a list is not text: 'list'");
    expect_error("{{#each s}}{{/each}}", d, "t.tmpl:1: error: #each needs a list: 's'");
    expect_error("\n{{! see {{name}} }}", d, "t.tmpl:2: error: a comment cannot contain '{{'");
    expect_error("{{@index}}", d, "t.tmpl:1: error: unknown variable '@index'");
    tmpl_free(d);
}

static void test_load(void **state) {
    (void)state;
    char path[] = "/tmp/stenc_tmpl_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("hello {{who}}\n{{#each x}}\n", f);
    fclose(f);
    char *diag = NULL;
    size_t diag_len = 0;
    FILE *err = open_memstream(&diag, &diag_len);
    assert_null(tmpl_load(path, err));
    fflush(err);
    char expected[128];
    snprintf(expected, sizeof expected, "%s:2: error: unterminated section", path);
    assert_non_null(strstr(diag, expected));
    fclose(err);
    free(diag);
    remove(path);

    diag = NULL;
    err = open_memstream(&diag, &diag_len);
    assert_null(tmpl_load("/nonexistent/dir/x.tmpl", err));
    fclose(err);
    assert_non_null(strstr(diag, "/nonexistent/dir/x.tmpl: error: cannot open"));
    free(diag);
}

/* Write `text` to dir/name. */
static void write_text(const char *dir, const char *name, const char *text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Load dir/name and render it with `data`: the output, or NULL with the diagnostics. */
static char *load_render(const char *dir, const char *name, const tmpl_value *data, char **diag) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t diag_len = 0;
    FILE *err = open_memstream(diag, &diag_len);
    char *result = NULL;
    tmpl *t = tmpl_load(path, err);
    if (t) {
        tmpl_buf out = {0};
        if (tmpl_render(t, data, &out, err) == 0) result = strdup(tmpl_buf_str(&out));
        tmpl_buf_free(&out);
        tmpl_destroy(t);
    }
    fclose(err);
    return result;
}

/* {{> name}}: name.tmpl beside the template, in the scope of the tag (an #each item's fields),
 * its last newline dropped and its lines indented like the tag's line; partials in partials;
 * errors name the partial's file and line; a partial that includes itself stops. */
static void test_partials(void **state) {
    (void)state;
    char dir[] = "/tmp/stenc_partials_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_text(dir, "main.tmpl",
               "begin\n{{#each rows}}\n    {{> row}}\n{{/each}}\nend {{> tail}}\n");
    write_text(dir, "row.tmpl", "row {{name}} of {{title}}:\n  {{> cell}}\n");
    write_text(dir, "cell.tmpl", "cell {{@index}}\n");
    write_text(dir, "tail.tmpl", "{{title}}\n");
    tmpl_value *d = tmpl_new_map();
    tmpl_set_str(d, "title", "T");
    tmpl_value *rows = tmpl_set_list(d, "rows");
    tmpl_set_str(tmpl_append_map(rows), "name", "a");
    tmpl_set_str(tmpl_append_map(rows), "name", "b");
    char *diag = NULL;
    char *got = load_render(dir, "main.tmpl", d, &diag);
    if (!got) fail_msg("render failed: %s", diag);
    assert_string_equal(
        got, "begin\n    row a of T:\n      cell 0\n    row b of T:\n      cell 1\nend T\n");
    free(got), free(diag);

    /* "as c-string": the partial's lines as a C string literal, escaped, indented like the
     * tag's line; compiled here by the C compiler that compiles this test. */
    write_text(dir, "quoted.tmpl", "static const char s[] =\n    {{> src as c-string}};\n");
    write_text(dir, "src.tmpl", "a \"{{title}}\" \\ b\n\n\tc\n");
    diag = NULL;
    got = load_render(dir, "quoted.tmpl", d, &diag);
    if (!got) fail_msg("render failed: %s", diag);
    assert_string_equal(got, "static const char s[] =\n    \"a \\\"T\\\" \\\\ b\\n\"\n    "
                             "\"\\n\"\n    \"\\tc\\n\";\n");
    static const char s[] = "a \"T\" \\ b\n"
                            "\n"
                            "\tc\n";
    assert_string_equal(s, "a \"T\" \\ b\n\n\tc\n"); /* what the literal above means */
    free(got), free(diag);

    /* A partial that puts nothing on an indented line, or starts with an empty line (here an
     * empty partial inside another): the line holds no blanks. */
    write_text(dir, "blank.tmpl", "{\n    {{> outer}}\n    {{> none}}\n}\n");
    write_text(dir, "outer.tmpl", "{{> none}}\nx;\n");
    write_text(dir, "none.tmpl", "{{#if missing_flag}}never{{/if}}\n");
    tmpl_set_bool(d, "missing_flag", 0);
    diag = NULL;
    got = load_render(dir, "blank.tmpl", d, &diag);
    if (!got) fail_msg("render failed: %s", diag);
    assert_string_equal(got, "{\n\n    x;\n\n}\n");
    free(got), free(diag);

    /* A missing partial, an error inside one, a bad name, and a partial including itself. */
    write_text(dir, "missing.tmpl", "x\n{{> nowhere}}\n");
    write_text(dir, "broken.tmpl", "{{> bad}}");
    write_text(dir, "bad.tmpl", "one\n{{#if}}\n");
    write_text(dir, "name.tmpl", "{{> ../etc}}");
    write_text(dir, "loop.tmpl", "{{> loop}}");
    const char *cases[][2] = {
        {"missing.tmpl", "nowhere.tmpl: error: cannot open template"},
        {"missing.tmpl", "missing.tmpl:2: error: in the partial"},
        {"broken.tmpl", "bad.tmpl:2: error: '{{#if}}' needs one variable"},
        {"name.tmpl", "name.tmpl:1: error: '{{> ../etc}}' needs one template"},
        {"loop.tmpl", "error: partials nested more than 8 deep"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        diag = NULL;
        got = load_render(dir, cases[c][0], d, &diag);
        if (got) fail_msg("%s: expected an error, got '%s'", cases[c][0], got);
        if (!strstr(diag, cases[c][1]))
            fail_msg("%s: diagnostic '%s' lacks '%s'", cases[c][0], diag, cases[c][1]);
        free(diag);
    }
    tmpl_free(d);
    const char *names[] = {"main", "row",  "cell",   "tail", "missing", "broken", "bad",
                           "name", "loop", "quoted", "src",  "blank",   "outer",  "none"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s.tmpl", dir, names[n]);
        remove(path);
    }
    rmdir(dir);
}

/* {{#wrap}}: the body's lines as items joined by ", ", a break before an item that would pass
 * column 100 less 3 (room for ") {"), continuation lines under the first item, also when the
 * list is in a partial put in after indentation. The expected breaks are counted by hand. */
static void test_wrap(void **state) {
    (void)state;
    tmpl_value *d = tmpl_new_map();
    tmpl_set_str(d, "x", "1");
    tmpl_value *items = tmpl_set_list(d, "items");
    for (int i = 1; i <= 8; i++) {
        char item[32];
        snprintf(item, sizeof item, "item_number_%02d", i); /* 14 characters */
        tmpl_append_str(items, item);
    }
    expect_output("f({{#wrap}}\na\n{{#if x}}\nb\n{{/if}}\n{{#unless x}}\nno\n{{/unless}}\n"
                  "   c d  \n\n{{/wrap}});\n",
                  d, "f(a, b, c d);\n");
    expect_output("f({{#wrap}}{{/wrap}})", d, "f()");
    /* From column 3, items end at 17, 33, 49, 65, 81, 97 (97 + 3 <= 100); the 7th breaks. */
    expect_output("fn({{#wrap}}\n{{#each items}}\n{{this}}\n{{/each}}\n{{/wrap}})", d,
                  "fn(item_number_01, item_number_02, item_number_03, item_number_04, "
                  "item_number_05, item_number_06,\n   item_number_07, item_number_08)");
    /* From column 4 the 6th would end at 98, leaving 2 columns: it breaks. */
    expect_output("fnx({{#wrap}}\n{{#each items}}\n{{this}}\n{{/each}}\n{{/wrap}})", d,
                  "fnx(item_number_01, item_number_02, item_number_03, item_number_04, "
                  "item_number_05,\n    item_number_06, item_number_07, item_number_08)");

    char dir[] = "/tmp/stenc_wrap_XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* the list starts at column 10 ("    x = g("): items end at 24, 40, 56, 72, 88; the 6th
     * (88 + 2 + 14 + 3 > 100) breaks, and so on */
    write_text(dir, "main.tmpl", "{\n    x = {{> call}};\n}\n");
    write_text(dir, "call.tmpl", "g({{#wrap}}\n{{#each items}}\n{{this}}\n{{/each}}\n{{/wrap}})\n");
    char *diag = NULL;
    char *got = load_render(dir, "main.tmpl", d, &diag);
    if (!got) fail_msg("render failed: %s", diag);
    assert_string_equal(got, "{\n    x = g(item_number_01, item_number_02, item_number_03, "
                             "item_number_04, item_number_05,\n"
                             "          item_number_06, item_number_07, item_number_08);\n}\n");
    free(got), free(diag);
    char path[256];
    snprintf(path, sizeof path, "%s/main.tmpl", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/call.tmpl", dir);
    remove(path);
    rmdir(dir);

    expect_error("{{#wrap x}}{{/wrap}}", d, "t.tmpl:1: error: '{{#wrap x}}' takes no name");
    expect_error("{{#wrap}}a{{else}}b{{/wrap}}", d, "'{{else}}' outside an {{#if}}");
    expect_error("\n{{#wrap}}a", d, "t.tmpl:2: error: unterminated section '{{#wrap}}'");
    expect_error("{{#wrap}}{{/each}}", d, "'{{/each}}' does not match '{{#wrap}}'");
    tmpl_free(d);
}

/* The forms of syntax.h: a file of "NAME: TEMPLATE" lines, blank and comment lines skipped;
 * each error says where. */
static void test_syntax(void **state) {
    (void)state;
    char dir[] = "/tmp/stenc_syntax_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/syntax.tmpl", dir);
    static const char *const required[] = {"let", "op_add", NULL};
    size_t len = 0;
    char *diag = NULL;

    write_text(dir, "syntax.tmpl",
               "{{! a comment line }}\n\nlet: const {{type}} {{name}} = {{value}};\n"
               "op_add: +\ncall: {{f}}({{#each args}}{{#unless @first}}, {{/unless}}{{this}}"
               "{{/each}})\n");
    FILE *err = open_memstream(&diag, &len);
    syn_forms *forms = syn_load(path, required, err);
    assert_non_null(forms);
    tmpl_buf out = {0};
    assert_int_equal(
        syn_say(forms, &out, err, "let", "type", "float", "name", "x_", "value", "1.0f", NULL), 0);
    assert_int_equal(syn_say(forms, &out, err, "op_add", NULL), 0);
    tmpl_value *d = tmpl_new_map();
    tmpl_set_str(d, "f", "fmin");
    tmpl_value *args = tmpl_set_list(d, "args");
    tmpl_append_str(args, "a");
    tmpl_append_str(args, "b");
    assert_int_equal(syn_render(forms, "call", d, &out, err), 0);
    assert_string_equal(tmpl_buf_str(&out), "const float x_ = 1.0f;+fmin(a, b)");
    assert_int_not_equal(syn_say(forms, &out, err, "nothing", NULL), 0);
    assert_int_not_equal(syn_say(forms, &out, err, "let", NULL), 0); /* no `type` */
    tmpl_free(d);
    tmpl_buf_free(&out);
    syn_free(forms);
    fclose(err);
    assert_non_null(strstr(diag, "no syntax form 'nothing'"));
    assert_non_null(strstr(diag, "unknown variable 'type'"));
    free(diag);

    const char *cases[][2] = {
        {"let: a\nop_add +\n", ":2: error: expected 'NAME: TEMPLATE'"},
        {"let: a\nop_add: +\nlet: b\n", ":3: error: form 'let' defined twice"},
        {"let: a\n", "error: no form 'op_add'"},
        {"op_add: +\nlet: {{#if x}}\n", ":2:1: error: unterminated section"},
        {"let:\n", ":1: error: expected 'NAME: TEMPLATE'"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        write_text(dir, "syntax.tmpl", cases[c][0]);
        diag = NULL;
        err = open_memstream(&diag, &len);
        forms = syn_load(path, required, err);
        fclose(err);
        if (forms) fail_msg("case %zu: expected an error", c);
        if (!strstr(diag, cases[c][1]))
            fail_msg("case %zu: diagnostic '%s' lacks '%s'", c, diag, cases[c][1]);
        free(diag);
    }
    remove(path);
    diag = NULL;
    err = open_memstream(&diag, &len);
    assert_null(syn_load(path, required, err));
    fclose(err);
    assert_non_null(strstr(diag, "cannot open the syntax forms"));
    free(diag);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_substitution),
        cmocka_unit_test(test_loops),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_conditionals),
        cmocka_unit_test(test_comments_and_whitespace),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_partials),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_syntax),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
