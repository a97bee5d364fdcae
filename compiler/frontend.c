/* Reading, parsing and checking one file. */
#include "frontend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diag.h"
#include "parse.h"

int fe_read_file(const char *path, char **text, size_t *len, FILE *err) {
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(err, "stenc: error: cannot read '%s': %s\n", path, strerror(errno));
        return 1;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        if (cap >= FE_MAX_FILE_BYTES) {
            fprintf(err, "stenc: error: '%s' is larger than %u bytes\n", path, FE_MAX_FILE_BYTES);
            free(buf);
            fclose(f);
            return 1;
        }
        cap *= 2;
        char *grown = realloc(buf, cap + 1);
        if (!grown) free(buf);
        buf = grown;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        fprintf(err, "stenc: error: cannot read '%s'%s\n", path, buf ? "" : ": out of memory");
        free(buf);
        return 1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

int fe_check_source(const char *path, const char *text, size_t len, FILE *err, ast_file **file,
                    int *warnings) {
    return fe_check_source_with(path, text, len, err, NULL, file, warnings);
}

int fe_check_source_with(const char *path, const char *text, size_t len, FILE *err,
                         const fe_options *opt, ast_file **file, int *warnings) {
    static const fe_options defaults = {0};
    if (!opt) opt = &defaults;
    diag d;
    diag_init(&d, path, text, len, err);
    d.werror = opt->warnings_as_errors;
    d.no_warnings = opt->no_warnings;
    d.color = opt->color;
    ast_file *f = parse_source(path, text, len, &d);
    check_file_as(f, &d, opt->precision);
    diag_flush(&d);
    *file = f;
    if (warnings) *warnings = d.warnings;
    return d.errors;
}
