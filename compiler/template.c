/* The template engine: parse a template once into a tree of nodes (text, variable, each,
 * if/unless), checking that every section is closed, then render the tree against a data tree
 * with a stack of scopes (one per #each item). See template.h for the language. */
#include "template.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("stenc: out of memory\n", stderr);
        exit(2);
    }
    return q;
}

static char *xstrndup(const char *s, size_t n) {
    char *d = xrealloc(NULL, n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* ---- tmpl_buf ------------------------------------------------------------------------------ */

/* Room for n more characters and the terminating NUL. */
static void reserve(tmpl_buf *b, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->data = xrealloc(b->data, cap);
        b->cap = cap;
    }
}

void tmpl_buf_append(tmpl_buf *b, const char *s, size_t n) {
    reserve(b, n);
    if (n) memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void tmpl_buf_puts(tmpl_buf *b, const char *s) {
    tmpl_buf_append(b, s, strlen(s));
}

static void buf_vprintf(tmpl_buf *b, const char *fmt, va_list args) {
    va_list copy;
    va_copy(copy, args);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) return;
    reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, args);
    b->len += (size_t)n;
}

void tmpl_buf_printf(tmpl_buf *b, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    buf_vprintf(b, fmt, args);
    va_end(args);
}

const char *tmpl_buf_str(const tmpl_buf *b) {
    return b->data ? b->data : "";
}

void tmpl_buf_free(tmpl_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* ---- data ---------------------------------------------------------------------------------- */

typedef enum { VAL_STR, VAL_LIST, VAL_MAP } val_kind;

struct tmpl_value {
    val_kind kind;
    char *str;          /* VAL_STR */
    size_t count, cap;  /* VAL_LIST items, VAL_MAP entries */
    tmpl_value **items; /* VAL_LIST items, VAL_MAP values */
    char **keys;        /* VAL_MAP */
};

static tmpl_value *new_value(val_kind kind) {
    tmpl_value *v = xrealloc(NULL, sizeof *v);
    memset(v, 0, sizeof *v);
    v->kind = kind;
    return v;
}

tmpl_value *tmpl_new_map(void) {
    return new_value(VAL_MAP);
}

void tmpl_free(tmpl_value *v) {
    if (!v) return;
    for (size_t i = 0; i < v->count; i++) {
        tmpl_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

/* Append an item; a map takes ownership of `key`. */
static void push_item(tmpl_value *v, tmpl_value *item, char *key) {
    if (v->count == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 8;
        v->items = xrealloc(v->items, v->cap * sizeof *v->items);
        if (v->kind == VAL_MAP) v->keys = xrealloc(v->keys, v->cap * sizeof *v->keys);
    }
    v->items[v->count] = item;
    if (v->kind == VAL_MAP) v->keys[v->count] = key;
    v->count++;
}

static const tmpl_value *map_get(const tmpl_value *map, const char *key, size_t keylen) {
    if (!map || map->kind != VAL_MAP) return NULL;
    for (size_t i = 0; i < map->count; i++)
        if (strlen(map->keys[i]) == keylen && memcmp(map->keys[i], key, keylen) == 0)
            return map->items[i];
    return NULL;
}

static void map_put(tmpl_value *map, const char *key, tmpl_value *v) {
    for (size_t i = 0; i < map->count; i++) {
        if (strcmp(map->keys[i], key) == 0) {
            tmpl_free(map->items[i]);
            map->items[i] = v;
            return;
        }
    }
    push_item(map, v, xstrndup(key, strlen(key)));
}

static tmpl_value *new_str(const char *s) {
    tmpl_value *v = new_value(VAL_STR);
    v->str = xstrndup(s, strlen(s));
    return v;
}

void tmpl_set_str(tmpl_value *map, const char *key, const char *s) {
    map_put(map, key, new_str(s));
}

void tmpl_set_fmt(tmpl_value *map, const char *key, const char *fmt, ...) {
    tmpl_buf b = {0};
    va_list args;
    va_start(args, fmt);
    buf_vprintf(&b, fmt, args);
    va_end(args);
    tmpl_set_str(map, key, tmpl_buf_str(&b));
    tmpl_buf_free(&b);
}

void tmpl_set_bool(tmpl_value *map, const char *key, int flag) {
    tmpl_set_str(map, key, flag ? "1" : "");
}

tmpl_value *tmpl_set_list(tmpl_value *map, const char *key) {
    tmpl_value *v = new_value(VAL_LIST);
    map_put(map, key, v);
    return v;
}

tmpl_value *tmpl_set_map(tmpl_value *map, const char *key) {
    tmpl_value *v = new_value(VAL_MAP);
    map_put(map, key, v);
    return v;
}

tmpl_value *tmpl_append_map(tmpl_value *list) {
    tmpl_value *v = new_value(VAL_MAP);
    push_item(list, v, NULL);
    return v;
}

void tmpl_append_str(tmpl_value *list, const char *s) {
    push_item(list, new_str(s), NULL);
}

size_t tmpl_list_len(const tmpl_value *list) {
    return list ? list->count : 0;
}

/* ---- parsing ------------------------------------------------------------------------------- */

typedef enum {
    NODE_TEXT,
    NODE_VAR,
    NODE_EACH,
    NODE_IF,
    NODE_UNLESS,
    NODE_WRAP,
    NODE_PARTIAL
} node_kind;

typedef struct node node;
typedef struct node_list {
    node **items;
    size_t count, cap;
} node_list;

struct node {
    node_kind kind;
    int line;        /* of the tag (of the first character for text) */
    char *text;      /* NODE_TEXT: the text; otherwise the name */
    size_t text_len; /* NODE_TEXT */
    node_list body;  /* sections */
    node_list other; /* NODE_IF / NODE_UNLESS: the {{else}} part */
    int in_else;     /* while parsing: appending to `other` */
    tmpl *partial;   /* NODE_PARTIAL: the included template, parsed */
    int quoted;      /* NODE_PARTIAL: put in as a C string literal ("as c-string") */
};

struct tmpl {
    char *name;
    node_list root;
};

static void list_push(node_list *l, node *n) {
    if (l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->items = xrealloc(l->items, l->cap * sizeof *l->items);
    }
    l->items[l->count++] = n;
}

static void free_nodes(node_list *l) {
    for (size_t i = 0; i < l->count; i++) {
        tmpl_destroy(l->items[i]->partial);
        free_nodes(&l->items[i]->body);
        free_nodes(&l->items[i]->other);
        free(l->items[i]->text);
        free(l->items[i]);
    }
    free(l->items);
}

static node *new_node(node_kind kind, int line, const char *text, size_t len) {
    node *n = xrealloc(NULL, sizeof *n);
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->line = line;
    n->text = xstrndup(text, len);
    n->text_len = len;
    return n;
}

static int count_lines(const char *from, const char *to) {
    int lines = 0;
    for (; from < to; from++)
        lines += *from == '\n';
    return lines;
}

static int is_name_char(char c) {
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '@';
}

static int is_name(const char *s, size_t n) {
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_name_char(s[i])) return 0;
    return 1;
}

static const char *const section_words[] = {"each", "if", "unless", "wrap"};
static const node_kind section_kinds[] = {NODE_EACH, NODE_IF, NODE_UNLESS, NODE_WRAP};
enum { SECTION_WORDS = 4 };

/* The section keyword at `s` ("each", "if", "unless", "wrap") followed by a blank or the end,
 * or -1. */
static int section_word(const char *s, size_t n, size_t *word_len) {
    for (int w = 0; w < SECTION_WORDS; w++) {
        size_t len = strlen(section_words[w]);
        if (n >= len && memcmp(s, section_words[w], len) == 0 &&
            (n == len || isspace((unsigned char)s[len]))) {
            *word_len = len;
            return w;
        }
    }
    return -1;
}

static const char *kind_word(node_kind k) {
    for (int w = 0; w < SECTION_WORDS; w++)
        if (section_kinds[w] == k) return section_words[w];
    return "?";
}

/* A tag that may stand alone on its line: everything but a variable. */
static int is_block_tag(const char *s, size_t n) {
    return n > 0 &&
           (s[0] == '#' || s[0] == '/' || s[0] == '!' || (n == 4 && memcmp(s, "else", 4) == 0));
}

typedef struct parser {
    const char *name;
    const char *text;
    FILE *err;
    node *stack[64];
    int depth;
    int nesting; /* partials around this template: a partial that includes itself stops */
} parser;

enum { PARTIAL_NESTING = 8 };

static tmpl *parse_text(const char *name, const char *text, FILE *err, int nesting);
static tmpl *load_file(const char *path, FILE *err, int nesting);

static node_list *current_list(parser *p, tmpl *t) {
    if (p->depth == 0) return &t->root;
    node *top = p->stack[p->depth - 1];
    return top->in_else ? &top->other : &top->body;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
parse_error(parser *p, int line, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fprintf(p->err, "%s:%d: error: ", p->name, line);
    vfprintf(p->err, fmt, args);
    fputc('\n', p->err);
    va_end(args);
    return 1;
}

/* Handle one tag with trimmed contents s[0..n). */
static int parse_tag(parser *p, tmpl *t, const char *s, size_t n, int line) {
    if (n > 0 && s[0] == '!') {
        /* A comment ends at the first closing braces; a tag inside would end it early. */
        for (size_t c = 0; c + 1 < n; c++)
            if (s[c] == '{' && s[c + 1] == '{')
                return parse_error(p, line,
                                   "a comment cannot contain '{{' (it ends at the first '}}')");
        return 0;
    }
    char shown[80];
    snprintf(shown, sizeof shown, "%.*s", (int)(n < 60 ? n : 60), s);
    if (n > 0 && s[0] == '#') {
        size_t wl = 0;
        int w = section_word(s + 1, n - 1, &wl);
        if (w < 0) return parse_error(p, line, "unknown section tag '{{%s}}'", shown);
        const char *arg = s + 1 + wl;
        size_t an = n - 1 - wl;
        while (an && isspace((unsigned char)*arg))
            arg++, an--;
        if (section_kinds[w] == NODE_WRAP && an)
            return parse_error(p, line, "'{{%s}}' takes no name", shown);
        if (section_kinds[w] != NODE_WRAP && !is_name(arg, an))
            return parse_error(p, line, "'{{%s}}' needs one variable name", shown);
        if (p->depth == (int)(sizeof p->stack / sizeof p->stack[0]))
            return parse_error(p, line, "sections nested too deeply at '{{%s}}'", shown);
        node *sec = new_node(section_kinds[w], line, arg, an);
        list_push(current_list(p, t), sec);
        p->stack[p->depth++] = sec;
        return 0;
    }
    if (n > 0 && s[0] == '/') {
        size_t wl = 0;
        int w = section_word(s + 1, n - 1, &wl);
        if (w < 0 || wl != n - 1)
            return parse_error(p, line, "unknown closing tag '{{%s}}'", shown);
        if (p->depth == 0) return parse_error(p, line, "'{{%s}}' closes no open section", shown);
        node *top = p->stack[p->depth - 1];
        if (top->kind != section_kinds[w]) {
            char opened[80];
            snprintf(opened, sizeof opened, "{{#%s%s%s}}", kind_word(top->kind),
                     top->text[0] ? " " : "", top->text);
            fprintf(p->err, "%s:%d: error: '{{%s}}' does not match '%s' opened at line %d\n",
                    p->name, line, shown, opened, top->line);
            return 1;
        }
        p->depth--;
        return 0;
    }
    if (n > 0 && s[0] == '>') { /* a partial: NAME.tmpl beside this template */
        const char *arg = s + 1;
        size_t an = n - 1;
        while (an && isspace((unsigned char)*arg))
            arg++, an--;
        /* "NAME as c-string": the partial's text as the lines of a C string literal */
        static const char as_string[] = " as c-string";
        const size_t as_len = sizeof as_string - 1;
        int quoted = 0;
        if (an > as_len && memcmp(arg + an - as_len, as_string, as_len) == 0) {
            quoted = 1;
            an -= as_len;
            while (an && isspace((unsigned char)arg[an - 1]))
                an--;
        }
        if (!is_name(arg, an) || memchr(arg, '.', an))
            return parse_error(p, line, "'{{%s}}' needs one template name", shown);
        if (p->nesting >= PARTIAL_NESTING)
            return parse_error(p, line, "partials nested more than %d deep at '{{%s}}'",
                               PARTIAL_NESTING, shown);
        const char *slash = strrchr(p->name, '/');
        size_t dir = slash ? (size_t)(slash - p->name + 1) : 0;
        tmpl_buf path = {0};
        tmpl_buf_printf(&path, "%.*s%.*s.tmpl", (int)dir, p->name, (int)an, arg);
        tmpl *inc = load_file(tmpl_buf_str(&path), p->err, p->nesting + 1);
        tmpl_buf_free(&path);
        if (!inc) return parse_error(p, line, "in the partial '{{%s}}'", shown);
        node *part = new_node(NODE_PARTIAL, line, arg, an);
        part->partial = inc;
        part->quoted = quoted;
        list_push(current_list(p, t), part);
        return 0;
    }
    if (n == 4 && memcmp(s, "else", 4) == 0) {
        node *top = p->depth ? p->stack[p->depth - 1] : NULL;
        if (!top || top->kind == NODE_EACH || top->kind == NODE_WRAP || top->in_else)
            return parse_error(p, line, "'{{%s}}' outside an {{#if}} or {{#unless}}", shown);
        top->in_else = 1;
        return 0;
    }
    if (!is_name(s, n)) return parse_error(p, line, "unknown tag '{{%s}}'", shown);
    list_push(current_list(p, t), new_node(NODE_VAR, line, s, n));
    return 0;
}

/* 1 if only blanks lie between the start of the line and `at`. */
static int blank_before(const char *text, const char *at, const char **line_start) {
    const char *q = at;
    while (q > text && (q[-1] == ' ' || q[-1] == '\t'))
        q--;
    *line_start = q;
    return q == text || q[-1] == '\n';
}

/* 1 if only blanks follow `at` up to the end of its line; *next is past the newline. */
static int blank_after(const char *at, const char **next) {
    const char *q = at;
    while (*q == ' ' || *q == '\t' || *q == '\r')
        q++;
    if (*q == '\n')
        q++;
    else if (*q != '\0')
        return 0;
    *next = q;
    return 1;
}

tmpl *tmpl_parse(const char *name, const char *text, FILE *err) {
    return parse_text(name, text, err, 0);
}

static tmpl *parse_text(const char *name, const char *text, FILE *err, int nesting) {
    tmpl *t = xrealloc(NULL, sizeof *t);
    memset(t, 0, sizeof *t);
    t->name = xstrndup(name, strlen(name));
    parser p = {.name = t->name, .text = text, .err = err, .nesting = nesting};
    const char *pos = text;
    int line = 1;
    for (;;) {
        const char *open = strstr(pos, "{{");
        /* "{{{x}}}": a brace of the text, then the tag {{x}}, then a brace, so that a template
         * can write a C initialiser such as {1, 2} from a value. */
        while (open && open[2] == '{')
            open++;
        const char *text_end = open ? open : pos + strlen(pos);
        const char *resume = NULL;
        const char *close = NULL;
        const char *s = NULL;
        size_t n = 0;
        if (open) {
            close = strstr(open + 2, "}}");
            int tag_line = line + count_lines(pos, open);
            if (!close) {
                parse_error(&p, tag_line, "unterminated tag '{{' (no '}}')");
                goto fail;
            }
            s = open + 2;
            const char *e = close;
            while (s < e && isspace((unsigned char)*s))
                s++;
            while (e > s && isspace((unsigned char)e[-1]))
                e--;
            n = (size_t)(e - s);
            resume = close + 2;
            const char *line_start, *next;
            if (is_block_tag(s, n) && blank_before(text, open, &line_start) &&
                blank_after(resume, &next)) {
                text_end = line_start;
                resume = next;
            }
        }
        if (text_end > pos)
            list_push(current_list(&p, t),
                      new_node(NODE_TEXT, line, pos, (size_t)(text_end - pos)));
        if (!open) break;
        int tag_line = line + count_lines(pos, open);
        if (parse_tag(&p, t, s, n, tag_line)) goto fail;
        line += count_lines(pos, resume);
        pos = resume;
    }
    if (p.depth > 0) {
        node *top = p.stack[p.depth - 1];
        fprintf(err, "%s:%d: error: unterminated section '{{#%s%s%s}}' (no '{{/%s}}')\n", t->name,
                top->line, kind_word(top->kind), top->text[0] ? " " : "", top->text,
                kind_word(top->kind));
        goto fail;
    }
    return t;
fail:
    tmpl_destroy(t);
    return NULL;
}

tmpl *tmpl_load(const char *path, FILE *err) {
    return load_file(path, err, 0);
}

int tmpl_buf_read_file(tmpl_buf *b, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        tmpl_buf_append(b, chunk, got);
    int failed = ferror(f);
    fclose(f);
    return failed ? -2 : 0;
}

static tmpl *load_file(const char *path, FILE *err, int nesting) {
    tmpl_buf b = {0};
    const int rc = tmpl_buf_read_file(&b, path);
    if (rc) {
        fprintf(err, "%s: error: cannot %s template\n", path, rc == -1 ? "open" : "read");
        tmpl_buf_free(&b);
        return NULL;
    }
    tmpl *t = parse_text(path, tmpl_buf_str(&b), err, nesting);
    tmpl_buf_free(&b);
    return t;
}

void tmpl_destroy(tmpl *t) {
    if (!t) return;
    free_nodes(&t->root);
    free(t->name);
    free(t);
}

/* ---- rendering ----------------------------------------------------------------------------- */

typedef struct scope {
    const tmpl_value *item;
    size_t index, count; /* within its #each; count 0 for the top-level scope */
} scope;

typedef struct renderer {
    const tmpl *t;
    FILE *err;
    tmpl_buf *out;
    scope scopes[64];
    int depth;
    /* Where `out` will stand in the final text, for {{#wrap}}: the column of its first
     * character, and the indentation its later lines will be given when it is put in (a
     * partial's text takes its tag's indentation). */
    size_t first_column, indent;
} renderer;

static int render_error(renderer *r, int line, const char *what, const char *name) {
    fprintf(r->err, "%s:%d: error: %s '%s'\n", r->t->name, line, what, name);
    return 1;
}

static tmpl_value loop_flag_true = {.kind = VAL_STR, .str = (char *)"1"};
static tmpl_value loop_flag_false = {.kind = VAL_STR, .str = (char *)""};

/* Resolve a (possibly dotted) name; NULL if unknown. `index_buf` holds @index's text. */
static const tmpl_value *lookup(renderer *r, const char *name, tmpl_value *index_val,
                                char *index_buf) {
    if (name[0] == '@') {
        const scope *loop = NULL;
        for (int d = r->depth - 1; d >= 0 && !loop; d--)
            if (r->scopes[d].count) loop = &r->scopes[d];
        if (!loop) return NULL;
        if (strcmp(name, "@first") == 0)
            return loop->index == 0 ? &loop_flag_true : &loop_flag_false;
        if (strcmp(name, "@last") == 0)
            return loop->index + 1 == loop->count ? &loop_flag_true : &loop_flag_false;
        if (strcmp(name, "@index") == 0) {
            snprintf(index_buf, 32, "%zu", loop->index);
            index_val->kind = VAL_STR;
            index_val->str = index_buf;
            return index_val;
        }
        return NULL;
    }
    if (strcmp(name, "this") == 0) return r->depth ? r->scopes[r->depth - 1].item : NULL;
    const char *dot = strchr(name, '.');
    size_t first_len = dot ? (size_t)(dot - name) : strlen(name);
    const tmpl_value *v = NULL;
    for (int d = r->depth - 1; d >= 0 && !v; d--)
        v = map_get(r->scopes[d].item, name, first_len);
    while (v && dot) {
        const char *seg = dot + 1;
        dot = strchr(seg, '.');
        v = map_get(v, seg, dot ? (size_t)(dot - seg) : strlen(seg));
    }
    return v;
}

static int truthy(const tmpl_value *v) {
    switch (v->kind) {
    case VAL_STR:
        return v->str[0] != '\0';
    case VAL_LIST:
        return v->count > 0;
    case VAL_MAP:
        return 1;
    }
    return 0;
}

/* Append `s`, repeating the current line's indentation after each inner newline. */
static void put_indented(tmpl_buf *out, const char *s) {
    size_t line_start = out->len;
    while (line_start > 0 && out->data[line_start - 1] != '\n')
        line_start--;
    size_t indent = 0;
    while (line_start + indent < out->len &&
           (out->data[line_start + indent] == ' ' || out->data[line_start + indent] == '\t'))
        indent++;
    char *prefix = xstrndup(out->data ? out->data + line_start : "", indent);
    if ((!*s || *s == '\n') && line_start + indent == out->len) {
        out->len = line_start; /* no line of blanks where nothing follows the indentation */
        if (out->data) out->data[out->len] = '\0';
    }
    for (const char *p = s; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (p != s && indent && *p != '\n') tmpl_buf_puts(out, prefix);
        tmpl_buf_append(out, p, n);
        p += n;
    }
    free(prefix);
}

static int render_nodes(renderer *r, const node_list *nodes);

/* The column in the final text at which the next character of r->out will stand. */
static size_t final_column(const renderer *r) {
    const char *data = tmpl_buf_str(r->out);
    const char *nl = strrchr(data, '\n');
    return nl ? r->indent + (size_t)(data + r->out->len - nl - 1) : r->first_column + r->out->len;
}

/* The indentation of r->out's current line, which put_indented repeats. */
static size_t line_indent(const renderer *r) {
    const char *data = tmpl_buf_str(r->out);
    const char *nl = strrchr(data, '\n');
    const char *p = nl ? nl + 1 : data;
    size_t n = 0;
    while (p[n] == ' ' || p[n] == '\t')
        n++;
    return n;
}

/* {{#wrap}}: each non-blank line of the body, trimmed, is an item; the items are joined with
 * ", ", and a line breaks before an item that would pass WRAP_COLUMN (keeping room for a
 * closing ") {"), continuing under the first item. */
enum { WRAP_COLUMN = 100, WRAP_ROOM = 3 };

static int render_wrap(renderer *r, const node *n) {
    tmpl_buf body = {0};
    tmpl_buf_append(&body, "", 0);
    renderer inner = *r;
    inner.out = &body;
    inner.first_column = 0;
    inner.indent = 0;
    int rc = render_nodes(&inner, &n->body);
    if (!rc) {
        const size_t start = final_column(r);
        const size_t pad = start - r->indent;
        size_t column = start;
        int items = 0;
        for (const char *p = body.data; *p;) {
            const char *nl = strchr(p, '\n');
            const char *end = nl ? nl : p + strlen(p);
            const char *a = p, *b = end;
            while (a < b && isspace((unsigned char)*a))
                a++;
            while (b > a && isspace((unsigned char)b[-1]))
                b--;
            p = nl ? nl + 1 : end;
            const size_t len = (size_t)(b - a);
            if (!len) continue;
            if (items++) {
                if (column + 2 + len + WRAP_ROOM > WRAP_COLUMN) {
                    tmpl_buf_puts(r->out, ",\n");
                    for (size_t c = 0; c < pad; c++)
                        tmpl_buf_puts(r->out, " ");
                    column = start;
                } else {
                    tmpl_buf_puts(r->out, ", ");
                    column += 2;
                }
            }
            tmpl_buf_append(r->out, a, len);
            column += len;
        }
    }
    tmpl_buf_free(&body);
    return rc;
}

/* `text` as a C string literal, one "line\n" per line (a program that builds code from a
 * string at run time embeds it so): backslashes, quotes and control characters escaped. */
static void quote_lines(tmpl_buf *out, const char *text) {
    tmpl_buf_append(out, "", 0);
    for (const char *p = text; *p;) {
        tmpl_buf_puts(out, "\"");
        for (; *p && *p != '\n'; p++) {
            const unsigned char c = (unsigned char)*p;
            if (c == '\\' || c == '"')
                tmpl_buf_printf(out, "\\%c", c);
            else if (c == '\t')
                tmpl_buf_puts(out, "\\t");
            else if (c < 0x20 || c == 0x7f)
                tmpl_buf_printf(out, "\\%03o", c);
            else
                tmpl_buf_append(out, (const char *)p, 1);
        }
        tmpl_buf_puts(out, "\\n\"");
        if (*p == '\n') {
            p++;
            if (*p) tmpl_buf_puts(out, "\n");
        }
    }
    if (!*text) tmpl_buf_puts(out, "\"\"");
}

static int render_node(renderer *r, const node *n) {
    tmpl_value index_val;
    char index_buf[32];
    if (n->kind == NODE_TEXT) {
        tmpl_buf_append(r->out, n->text, n->text_len);
        return 0;
    }
    if (n->kind == NODE_PARTIAL) {
        /* Rendered in the scopes of the tag, then put in as a value would be: its last newline
         * belongs to the line holding the tag, its other lines take that line's indentation. */
        tmpl_buf text = {0};
        tmpl_buf_append(&text, "", 0);
        renderer inner = *r;
        inner.t = n->partial;
        inner.out = &text;
        inner.first_column = final_column(r);
        inner.indent = r->indent + line_indent(r);
        int rc = render_nodes(&inner, &n->partial->root);
        if (!rc) {
            if (text.len && text.data[text.len - 1] == '\n') text.data[--text.len] = '\0';
            if (n->quoted) {
                tmpl_buf lit = {0};
                quote_lines(&lit, text.data);
                tmpl_buf_free(&text);
                text = lit;
            }
            put_indented(r->out, text.data);
        }
        tmpl_buf_free(&text);
        return rc;
    }
    if (n->kind == NODE_WRAP) return render_wrap(r, n);
    const tmpl_value *v = lookup(r, n->text, &index_val, index_buf);
    if (!v) return render_error(r, n->line, "unknown variable", n->text);
    switch (n->kind) {
    case NODE_VAR:
        if (v->kind != VAL_STR)
            return render_error(
                r, n->line,
                v->kind == VAL_LIST ? "a list is not text:" : "a map is not text:", n->text);
        put_indented(r->out, v->str);
        return 0;
    case NODE_IF:
    case NODE_UNLESS: {
        int take = truthy(v) == (n->kind == NODE_IF);
        return render_nodes(r, take ? &n->body : &n->other);
    }
    case NODE_EACH:
        if (v->kind != VAL_LIST) return render_error(r, n->line, "#each needs a list:", n->text);
        if (r->depth == (int)(sizeof r->scopes / sizeof r->scopes[0]))
            return render_error(r, n->line, "#each nested too deeply:", n->text);
        for (size_t i = 0; i < v->count; i++) {
            r->scopes[r->depth++] = (scope){v->items[i], i, v->count};
            int rc = render_nodes(r, &n->body);
            r->depth--;
            if (rc) return rc;
        }
        return 0;
    case NODE_TEXT:
    case NODE_WRAP:
    case NODE_PARTIAL:
        break;
    }
    return 0;
}

static int render_nodes(renderer *r, const node_list *nodes) {
    for (size_t i = 0; i < nodes->count; i++)
        if (render_node(r, nodes->items[i])) return 1;
    return 0;
}

int tmpl_render(const tmpl *t, const tmpl_value *data, tmpl_buf *out, FILE *err) {
    renderer r = {.t = t, .err = err, .out = out};
    r.scopes[r.depth++] = (scope){data, 0, 0};
    tmpl_buf_append(out, "", 0);
    return render_nodes(&r, &t->root);
}
