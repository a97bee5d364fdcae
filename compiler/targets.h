/* targets: the table of emission targets. A target is one row: the name --target gives it,
 * the targets it needs, its template files and the file each becomes, whether the tuner keys
 * its kernels by their code, and the data its templates need beyond what emit.c gives every
 * target. Adding a target is a template folder and a row here. */
#ifndef STENC_COMPILER_TARGETS_H
#define STENC_COMPILER_TARGETS_H

#include <stddef.h>

#include "analyze.h"
#include "emit_names.h"
#include "template.h"

typedef enum { EMIT_TARGET_C = 1, EMIT_TARGET_CUDA = 2 } emit_target;

typedef struct emit_output {
    const char *template_name; /* relative to the template root */
    const char *suffix;        /* appended to the stencil's name */
} emit_output;

typedef struct emit_target_desc {
    const char *name;      /* as --target spells it; also a template flag, true when selected */
    unsigned bit;          /* EMIT_TARGET_* */
    unsigned needs;        /* targets whose files it relies on, selected with it */
    const char *needs_why; /* for the message when a caller selects it alone */
    const emit_output *outputs;
    int noutputs;
    /* 1: its kernels come in variants that the tuner times; the digest of its rendered
     * files (template key `digest`) keys the tuning cache. */
    int tuned;
    /* The keys its templates need beyond emit.c's common data; NULL when none. */
    void (*add_data)(const km_kernel *km, const emit_symbols *sym, tmpl_value *d);
} emit_target_desc;

extern const emit_target_desc emit_targets[];
extern const int emit_ntargets;

/* The target called name[0..len), or NULL. */
const emit_target_desc *emit_target_named(const char *name, size_t len);

#endif /* STENC_COMPILER_TARGETS_H */
