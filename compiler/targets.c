/* targets: the table of emission targets (targets.h). */
#include "targets.h"

#include <string.h>

#include "emit_cuda.h"

static const emit_output c_outputs[] = {
    {"c/stencil.h.tmpl", ".h"},
    {"c/stencil_c.c.tmpl", "_c.c"},
};

static const emit_output cuda_outputs[] = {
    {"cuda/stencil_cuda.cu.tmpl", "_cuda.cu"},
};

const emit_target_desc emit_targets[] = {
    {"c", EMIT_TARGET_C, 0, NULL, c_outputs, 2, 0, NULL},
    {"cuda", EMIT_TARGET_CUDA, EMIT_TARGET_C, "its launcher and host kernel are the c target's",
     cuda_outputs, 1, 1, emit_cuda_data},
};
const int emit_ntargets = sizeof emit_targets / sizeof emit_targets[0];

const emit_target_desc *emit_target_named(const char *name, size_t len) {
    for (int t = 0; t < emit_ntargets; t++)
        if (strlen(emit_targets[t].name) == len && strncmp(emit_targets[t].name, name, len) == 0)
            return &emit_targets[t];
    return NULL;
}
