/* stenc: the command line. Reads every file, reports every error, and only when all files
 * are clean analyses the stencils and prints (--info) or emits them.
 *
 * Exit status: 0 success, 1 errors in the input files (or emission failed), 2 bad usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "ast.h"
#include "check.h"
#include "diag.h"
#include "frontend.h"
#include "info.h"
#include "emit.h"

typedef struct options {
    const char *out_dir;
    const char *template_dir;
    unsigned targets;
    ast_type precision; /* AST_TYPE_NONE: each stencil's own */
    int info, check, line_directives, list_outputs;
    fe_options fe; /* -Werror, -w, colour, --precision */
    int color;     /* --color: -1 auto (a terminal and no NO_COLOR), 0 never, 1 always */
    const char **files;
    int nfiles;
} options;

static void usage(FILE *out) {
    fputs("usage: stenc [options] FILE...\n"
          "Compile .stencil files into C kernels and their launchers.\n"
          "\n"
          "  -o DIR, --output DIR write the generated files to DIR (default: .)\n"
          "  --target LIST        targets, comma-separated (default: c); the list is below\n"
          "  --precision TYPE     float or double, for every stencil (overrides 'type')\n"
          "  --template-dir DIR   the template root, a folder per target\n"
          "  --info               print flops, bytes, intensity and access patterns; no output\n"
          "  --check              parse and check only; no output\n"
          "  --list-outputs       print the names of the files that would be written\n"
          "  --no-line            no #line directives in the generated code\n"
          "  -Werror              treat warnings as errors\n"
          "  -w                   do not report warnings\n"
          "  --color=WHEN         colour diagnostics: auto (default: on a terminal, unless\n"
          "                       NO_COLOR is set), always or never\n"
          "  --version            print the version\n"
          "  -h, --help           print this help\n"
          "\n"
          "Options with a value also take the forms --name=VALUE and -oDIR; -- ends the\n"
          "options. Without --template-dir the templates are found in $STENC_TEMPLATE_DIR, else\n"
          "beside the installed program (share/stenc/templates), else in the source tree.\n"
          "\n"
          "Exit status: 0 success, 1 errors in the input, 2 bad command line.\n",
          out);
    fputs("\nTargets:", out);
    for (int t = 0; t < emit_ntargets; t++)
        fprintf(out, " %s%s%s%s", emit_targets[t].name, emit_targets[t].needs ? " (with " : "",
                emit_targets[t].needs ? emit_targets[t].needs : "",
                emit_targets[t].needs ? ")" : "");
    fputs("\n", out);
}

static int bad_usage(const char *fmt, const char *arg) {
    fputs("stenc: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(stenc --help lists the options)\n", stderr);
    return 2;
}

/* Add the targets of `list` (and those they need) to *targets: `--target c --target cuda`
 * selects both, as `--target c,cuda` does. */
static int parse_targets(const char *list, unsigned *targets) {
    const char *p = list;
    while (1) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const emit_target_desc *t = emit_target_named(p, n);
        if (t) {
            *targets |= emit_target_closure(t); /* cuda's launcher and host kernel are c's */
        } else {
            char name[64], known[160] = "";
            snprintf(name, sizeof name, "%.*s", (int)(n < 40 ? n : 40), p);
            for (int k = 0; k < emit_ntargets; k++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         k == 0                   ? ""
                         : k + 1 == emit_ntargets ? " and "
                                                  : ", ",
                         emit_targets[k].name);
            char msg[sizeof name + sizeof known + 64];
            snprintf(msg, sizeof msg, "unknown target '%s' (the targets are %s)", name, known);
            return bad_usage("%s", msg);
        }
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

/* Parse argv into *opt; returns 0, or the exit status (2 bad usage, -1 done: help/version). */
static int parse_args(int argc, char **argv, options *opt) {
    opt->out_dir = ".";
    opt->color = -1;
    opt->targets = emit_target_bit(emit_target_named("c", 1));
    opt->line_directives = 1;
    opt->files = calloc((size_t)argc, sizeof *opt->files);
    if (!opt->files) return 2;
    int only_files = 0, targets_given = 0;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (only_files || arg[0] != '-' || strcmp(arg, "-") == 0) {
            opt->files[opt->nfiles++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_files = 1;
            continue;
        }
        /* Options with a value: "-o DIR", "-oDIR", "--name VALUE", "--name=VALUE". */
        const char *names[] = {"-o", "--output", "--target", "--precision", "--template-dir"};
        const char *value = NULL;
        int which = -1;
        for (int n = 0; n < 5 && which < 0; n++) {
            size_t len = strlen(names[n]);
            if (strcmp(arg, names[n]) == 0) {
                if (a + 1 >= argc) return bad_usage("option '%s' needs a value", arg);
                value = argv[++a];
                which = n;
            } else if (strncmp(arg, names[n], len) == 0 &&
                       (n == 0 ? arg[len] != '\0' : arg[len] == '=')) {
                value = arg + len + (n == 0 ? 0 : 1);
                which = n;
            }
        }
        if (which >= 0 && value[0] == '\0')
            return bad_usage("option '%s' needs a value", names[which]);
        switch (which) {
        case 0:
        case 1:
            opt->out_dir = value;
            continue;
        case 2: {
            if (!targets_given) opt->targets = 0; /* the first --target replaces the default */
            targets_given = 1;
            int status = parse_targets(value, &opt->targets);
            if (status) return status;
            continue;
        }
        case 3:
            if (strcmp(value, "float") == 0)
                opt->precision = opt->fe.precision = AST_TYPE_FLOAT;
            else if (strcmp(value, "double") == 0)
                opt->precision = opt->fe.precision = AST_TYPE_DOUBLE;
            else
                return bad_usage("--precision is float or double, not '%s'", value);
            continue;
        case 4:
            opt->template_dir = value;
            continue;
        default:
            break;
        }
        if (strcmp(arg, "--info") == 0) {
            opt->info = 1;
        } else if (strcmp(arg, "--check") == 0) {
            opt->check = 1;
        } else if (strcmp(arg, "--list-outputs") == 0) {
            opt->list_outputs = 1;
        } else if (strcmp(arg, "--no-line") == 0) {
            opt->line_directives = 0;
        } else if (strcmp(arg, "-Werror") == 0) {
            opt->fe.warnings_as_errors = 1;
        } else if (strcmp(arg, "-w") == 0) {
            opt->fe.no_warnings = 1;
        } else if (strcmp(arg, "--color") == 0 || strcmp(arg, "--color=always") == 0) {
            opt->color = 1;
        } else if (strcmp(arg, "--color=never") == 0) {
            opt->color = 0;
        } else if (strcmp(arg, "--color=auto") == 0) {
            opt->color = -1;
        } else if (strcmp(arg, "--version") == 0) {
            printf("stenc %s\n", STENC_VERSION);
            return -1;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return -1;
        } else {
            return bad_usage("unknown option '%s'", arg);
        }
    }
    if (opt->nfiles == 0) return bad_usage("%s", "no input files");
    if (opt->color < 0) {
        const char *no_color = getenv("NO_COLOR"); /* no-color.org: set and not empty */
        opt->color = isatty(fileno(stderr)) && !(no_color && no_color[0]);
    }
    opt->fe.color = opt->color;
    return 0;
}

typedef struct unit {
    const char *path;
    char *text;
    size_t len;
    ast_file *file;
} unit;

/* The stencils of one run, in order, for the checks across files. */
typedef struct run_stencils {
    unit *units;
    const ast_stencil **st;
    int *unit_of;
    diag *diags; /* one per unit */
    int n;
} run_stencils;

static void report_clash(void *ctx, int first, int later, const char *what) {
    run_stencils *r = ctx;
    const ast_stencil *a = r->st[first], *b = r->st[later];
    diag *d = &r->diags[r->unit_of[later]];
    diag_error(d, b->loc, "stencil '%s' cannot be built with stencil '%s': %s", b->name, a->name,
               what);
    diag_note(d, a->loc, "stencil '%s' defined here%s%s", a->name,
              r->unit_of[first] == r->unit_of[later] ? "" : " in ",
              r->unit_of[first] == r->unit_of[later] ? "" : r->units[r->unit_of[first]].path);
}

/* Stencil names must be unique across all files (each becomes a C function and file names),
 * and no two may claim the same identifier or file name (check_stencil_clashes). */
static int check_unique_names(unit *units, int nunits, int color) {
    int errors = 0, total = 0;
    for (int u = 0; u < nunits; u++)
        total += units[u].file ? units[u].file->nstencils : 0;
    run_stencils r = {.units = units};
    r.st = calloc((size_t)total + 1, sizeof *r.st);
    r.unit_of = calloc((size_t)total + 1, sizeof *r.unit_of);
    r.diags = calloc((size_t)nunits + 1, sizeof *r.diags);
    const char **names = calloc((size_t)total + 1, sizeof *names);
    if (!r.st || !r.unit_of || !r.diags || !names) {
        fputs("stenc: error: out of memory\n", stderr);
        free(r.st), free(r.unit_of), free(r.diags), free(names);
        return 1;
    }
    for (int u = 0; u < nunits; u++) {
        diag_init(&r.diags[u], units[u].path, units[u].text, units[u].len, stderr);
        r.diags[u].color = color;
        for (int s = 0; units[u].file && s < units[u].file->nstencils; s++) {
            const ast_stencil *st = units[u].file->stencils[s];
            for (int t = 0; t < r.n; t++) {
                const ast_stencil *other = r.st[t];
                if (r.unit_of[t] != u && strcmp(other->name, st->name) == 0)
                    diag_error(&r.diags[u], st->loc, "stencil '%s' is already defined in %s:%d:%d",
                               st->name, units[r.unit_of[t]].path, other->loc.first_line,
                               other->loc.first_col);
            }
            r.st[r.n] = st;
            r.unit_of[r.n] = u;
            names[r.n++] = st->name;
        }
    }
    check_stencil_clashes(names, r.n, report_clash, &r);
    for (int u = 0; u < nunits; u++) {
        diag_flush(&r.diags[u]);
        errors += r.diags[u].errors;
    }
    free(r.st), free(r.unit_of), free(r.diags), free(names);
    return errors;
}

static void remove_outputs(const options *opt, const km_kernel *kms, int n) {
    for (int k = 0; k < n; k++) {
        char name[512], path[4096];
        for (int i = 0; emit_output_name(kms[k].name, opt->targets, i, name, sizeof name); i++) {
            snprintf(path, sizeof path, "%s/%s", opt->out_dir, name);
            remove(path);
        }
    }
}

static int emit_all(const char *argv0, const options *opt, unit *units, const km_kernel *kms,
                    int nkms) {
    if (mkdir(opt->out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "stenc: error: cannot create '%s': %s\n", opt->out_dir, strerror(errno));
        return 1;
    }
    emit_options eo = {.out_dir = opt->out_dir,
                       .template_dir =
                           opt->template_dir ? opt->template_dir : emit_default_template_dir(argv0),
                       .targets = opt->targets,
                       .line_directives = opt->line_directives};
    for (int k = 0; k < nkms; k++) {
        eo.source_path = NULL;
        for (int u = 0; units[u].path; u++)
            for (int s = 0; units[u].file && s < units[u].file->nstencils; s++)
                if (units[u].file->stencils[s] == kms[k].st) eo.source_path = units[u].path;
        if (emit_stencil(&kms[k], &eo, stderr) != 0) {
            remove_outputs(opt, kms, k); /* all or nothing */
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    options opt = {0};
    int status = parse_args(argc, argv, &opt);
    if (status != 0) {
        free(opt.files);
        return status < 0 ? 0 : status;
    }
    unit *units = calloc((size_t)opt.nfiles + 1, sizeof *units);
    if (!units) return 1;
    int errors = 0, nstencils = 0;
    for (int u = 0; u < opt.nfiles; u++) {
        units[u].path = opt.files[u];
        if (fe_read_file(units[u].path, &units[u].text, &units[u].len, stderr)) {
            errors++;
            continue;
        }
        errors += fe_check_source_with(units[u].path, units[u].text, units[u].len, stderr, &opt.fe,
                                       &units[u].file, NULL);
        nstencils += units[u].file->nstencils;
    }
    errors += check_unique_names(units, opt.nfiles, opt.color);

    km_kernel *kms = calloc((size_t)nstencils + 1, sizeof *kms);
    int nkms = 0;
    if (!kms) errors++;
    for (int u = 0; errors == 0 && u < opt.nfiles; u++) {
        for (int s = 0; s < units[u].file->nstencils; s++) {
            if (analyze_stencil(units[u].file->stencils[s], opt.precision, &kms[nkms]) != 0) {
                fputs("stenc: error: out of memory\n", stderr);
                errors++;
                break;
            }
            nkms++;
        }
    }

    int exit_code = errors ? 1 : 0;
    if (errors) {
        fprintf(stderr, "stenc: %d error%s; no files written\n", errors, errors == 1 ? "" : "s");
    } else if (opt.info) {
        info_print_table(stdout, kms, nkms);
        for (int k = 0; k < nkms; k++)
            info_print_kernel(stdout, &kms[k]);
    } else if (opt.list_outputs) {
        for (int k = 0; k < nkms; k++) {
            char name[512];
            for (int i = 0; emit_output_name(kms[k].name, opt.targets, i, name, sizeof name); i++)
                printf("%s/%s\n", opt.out_dir, name);
        }
    } else if (!opt.check) {
        exit_code = emit_all(argv[0], &opt, units, kms, nkms);
    }

    for (int k = 0; k < nkms; k++)
        analyze_free(&kms[k]);
    free(kms);
    for (int u = 0; u < opt.nfiles; u++) {
        ast_file_free(units[u].file);
        free(units[u].text);
    }
    free(units);
    free(opt.files);
    return exit_code;
}
