/* targets: the table of emission targets. A target is one row: the name --target gives it,
 * the target it needs, its template files and the file each becomes, whether the tuner keys
 * its kernels by their code, the runtime's names for it, its tunables as data, and the data
 * its templates need beyond what emit.c gives every target. Adding a target is a template
 * folder and a row here (docs/templates.md). */
#ifndef STENC_COMPILER_TARGETS_H
#define STENC_COMPILER_TARGETS_H

#include <stddef.h>

#include "analyze.h"
#include "emit_names.h"
#include "template.h"

typedef struct emit_output {
    const char *template_name; /* relative to the template root */
    const char *suffix;        /* appended to the stencil's name */
} emit_output;

/* A template key and its value, set in the data of every stencil the target emits. */
typedef struct emit_param {
    const char *key, *value;
} emit_param;

typedef struct emit_target_desc {
    const char *name;      /* as --target spells it; also a template flag, true when selected */
    const char *needs;     /* the target whose files it relies on, selected with it; or NULL */
    const char *needs_why; /* for the message when a caller selects it alone */
    const emit_output *outputs;
    int noutputs;
    /* 1: its kernels come in variants that the tuner times; the digest of its rendered
     * files (template key `digest`) keys the tuning cache. */
    int tuned;
    const char *launch_bit; /* the runtime's STENC_TARGET_* bit of its kernels (stenc/launch.h) */
    /* A device target: the runtime's stenc_device whose fields its kernels take
     * (STENC_DEVICE_CUDA); the C launcher dispatches launches on such a context to the
     * target's variants, NAME_<target>_variants. NULL for the host target. */
    const char *device;
    const emit_param *params; /* its tunables as data, ended by {NULL, NULL}; or NULL */
    /* The identifiers its files declare from a stencil's name, as printf patterns of the name
     * ("%s_args") and of its upper-case form ("%s_HALO"), each list ended by NULL: the checker
     * refuses a stencil name whose identifiers the included headers declare too, and two
     * stencils whose `exported` identifiers (external linkage) would be the same. */
    const char *const *declared;
    const char *const *declared_upper;
    const char *const *exported;
    /* The keys its templates need beyond emit.c's common data; NULL when none. */
    void (*add_data)(const km_kernel *km, const emit_symbols *sym, tmpl_value *d);
    /* The forms the statements are written in (syntax.h), relative to the template root, or
     * NULL: the first selected target that has them gives the statements of all. */
    const char *syntax;
} emit_target_desc;

extern const emit_target_desc emit_targets[];
extern const int emit_ntargets;

/* The target called name[0..len), or NULL. */
const emit_target_desc *emit_target_named(const char *name, size_t len);

/* A target's bit in a set of targets (emit_options.targets): 1 << its row. */
unsigned emit_target_bit(const emit_target_desc *target);

/* The bits of `target` and of the targets it needs, transitively. */
unsigned emit_target_closure(const emit_target_desc *target);

#endif /* STENC_COMPILER_TARGETS_H */
