/* syn: see syntax.h. */
#include "syntax.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct syn_form {
    char *name;
    tmpl *text;
} syn_form;

struct syn_forms {
    syn_form *items;
    size_t count;
};

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) {
        fputs("stenc: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

static const syn_form *find(const syn_forms *forms, const char *name, size_t len) {
    for (size_t f = 0; f < forms->count; f++)
        if (strlen(forms->items[f].name) == len && memcmp(forms->items[f].name, name, len) == 0)
            return &forms->items[f];
    return NULL;
}

void syn_free(syn_forms *forms) {
    if (!forms) return;
    for (size_t f = 0; f < forms->count; f++) {
        free(forms->items[f].name);
        tmpl_destroy(forms->items[f].text);
    }
    free(forms->items);
    free(forms);
}

/* Parse one form line "NAME: TEMPLATE" (without its newline); nonzero after a message. */
static int add_form(syn_forms *forms, const char *path, int line, const char *s, size_t n,
                    FILE *err) {
    size_t name_len = 0;
    while (name_len < n && (isalnum((unsigned char)s[name_len]) || s[name_len] == '_'))
        name_len++;
    if (name_len == 0 || name_len + 1 >= n || s[name_len] != ':' || s[name_len + 1] != ' ') {
        fprintf(err, "%s:%d: error: expected 'NAME: TEMPLATE'\n", path, line);
        return 1;
    }
    if (find(forms, s, name_len)) {
        fprintf(err, "%s:%d: error: form '%.*s' defined twice\n", path, line, (int)name_len, s);
        return 1;
    }
    tmpl_buf label = {0}, text = {0};
    tmpl_buf_printf(&label, "%s:%d", path, line);
    tmpl_buf_append(&text, s + name_len + 2, n - name_len - 2);
    tmpl *t = tmpl_parse(tmpl_buf_str(&label), tmpl_buf_str(&text), err);
    tmpl_buf_free(&label);
    tmpl_buf_free(&text);
    if (!t) return 1;
    forms->items = xrealloc(forms->items, (forms->count + 1) * sizeof *forms->items);
    char *name = xrealloc(NULL, name_len + 1);
    memcpy(name, s, name_len);
    name[name_len] = '\0';
    forms->items[forms->count++] = (syn_form){name, t};
    return 0;
}

syn_forms *syn_load(const char *path, const char *const *required, FILE *err) {
    tmpl_buf file = {0};
    const int rc = tmpl_buf_read_file(&file, path);
    if (rc) {
        fprintf(err, "%s: error: cannot %s the syntax forms\n", path, rc == -1 ? "open" : "read");
        tmpl_buf_free(&file);
        return NULL;
    }
    syn_forms *forms = xrealloc(NULL, sizeof *forms);
    forms->items = NULL;
    forms->count = 0;
    int line = 1;
    for (const char *p = tmpl_buf_str(&file); *p; line++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *q = p;
        while (q < p + n && isspace((unsigned char)*q))
            q++;
        int blank = q == p + n;
        int comment = n >= 4 && memcmp(p, "{{!", 3) == 0 && memcmp(p + n - 2, "}}", 2) == 0;
        if (!blank && !comment && add_form(forms, path, line, p, n, err)) goto fail;
        p += n + (nl != NULL);
    }
    for (const char *const *r = required; r && *r; r++)
        if (!find(forms, *r, strlen(*r))) {
            fprintf(err, "%s: error: no form '%s'\n", path, *r);
            goto fail;
        }
    tmpl_buf_free(&file);
    return forms;
fail:
    tmpl_buf_free(&file);
    syn_free(forms);
    return NULL;
}

int syn_has(const syn_forms *forms, const char *name) {
    return find(forms, name, strlen(name)) != NULL;
}

int syn_render(const syn_forms *forms, const char *name, const tmpl_value *data, tmpl_buf *out,
               FILE *err) {
    const syn_form *form = find(forms, name, strlen(name));
    if (!form) {
        fprintf(err, "stenc: error: no syntax form '%s'\n", name);
        return 1;
    }
    tmpl_buf text = {0};
    int rc = tmpl_render(form->text, data, &text, err);
    if (!rc) tmpl_buf_puts(out, tmpl_buf_str(&text));
    tmpl_buf_free(&text);
    return rc;
}

int syn_vsay(const syn_forms *forms, tmpl_buf *out, FILE *err, const char *name, va_list pairs) {
    tmpl_value *data = tmpl_new_map();
    for (const char *key; (key = va_arg(pairs, const char *));)
        tmpl_set_str(data, key, va_arg(pairs, const char *));
    int rc = syn_render(forms, name, data, out, err);
    tmpl_free(data);
    return rc;
}

int syn_say(const syn_forms *forms, tmpl_buf *out, FILE *err, const char *name, ...) {
    va_list pairs;
    va_start(pairs, name);
    int rc = syn_vsay(forms, out, err, name, pairs);
    va_end(pairs);
    return rc;
}
