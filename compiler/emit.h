/* emit: the last stage. It turns one checked, analysed stencil into source files by filling
 * the templates of each target (templates/<target>/) with what differs from stencil to
 * stencil: names, argument lists, strides, loads, halo widths and the body's statements.
 *
 * Outputs for stencil NAME, in opt->out_dir:
 *   target c:    NAME.h (the C API: the launcher's prototype) and NAME_c.c (the launcher and
 *                the OpenMP kernel)
 *   target cuda: NAME_cuda.cu (the CUDA kernels' variants), with the c target's files
 * The targets, their files and data are the table of targets.c.
 * Each file is written to a temporary name and renamed when complete, so a failure leaves no
 * partial file behind. */
#ifndef STENC_COMPILER_EMIT_H
#define STENC_COMPILER_EMIT_H

#include <stdio.h>

#include "analyze.h"
#include "ast.h"
#include "targets.h"

typedef struct emit_options {
    const char *out_dir;      /* where the files go; must exist */
    const char *template_dir; /* the template root (holding c/, cuda/) */
    unsigned targets;         /* emit_target_bit()s of the selected targets (targets.h) */
    int line_directives;      /* 1: #line directives back to the .stencil file */
    const char *source_path;  /* the .stencil file as #line and comments name it; use a
                                 relative path for committed output */
} emit_options;

/* Emit all files of one stencil. On failure, print a diagnostic to `err` (naming the template
 * file and line when a template is at fault), remove partial output and return nonzero. */
int emit_stencil(const km_kernel *km, const emit_options *opt, FILE *err);

/* The output file names of stencil `name` for `targets`, one per call: index 0, 1, ... until
 * it returns 0. Writes "NAME.h", "NAME_c.c", ... into buf (for --list-outputs). */
int emit_output_name(const char *name, unsigned targets, int index, char *buf, size_t size);

/* The template root when --template-dir is not given: env STENC_TEMPLATE_DIR, else
 * <dir of argv0>/../share/stenc/templates when it exists (installed), else the source tree's
 * templates/ (STENC_SOURCE_TEMPLATE_DIR, compiled in). The result stays valid until the next
 * call. */
const char *emit_default_template_dir(const char *argv0);

#endif /* STENC_COMPILER_EMIT_H */
