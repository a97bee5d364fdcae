/* targets: the table of emission targets (targets.h). */
#include "targets.h"

#include <string.h>

#include "emit_cuda.h"

static const emit_output c_outputs[] = {
    {"c/stencil.h.tmpl", ".h"},
    {"c/stencil_c.c.tmpl", "_c.c"},
};

/* Tile sizes of the OpenMP loops: points per task in 1-D, rows (j) per task in 2-D and 3-D,
 * planes (k) per task in 3-D. */
static const emit_param c_params[] = {
    {"tile_i", "4096"}, {"tile_j", "8"}, {"tile_k", "4"}, {NULL, NULL}};

static const char *const c_declared[] = {"%s_variant", "%s_variant_name", "%s_c", "%s_args",
                                         "%s_desc",    "%s_colors",       NULL};
static const char *const c_declared_upper[] = {"%s_HALO",     "%s_TILE_I",   "%s_TILE_J",
                                               "%s_TILE_K",   "%s_COLORS",   "%s_PERIOD_I",
                                               "%s_PERIOD_J", "%s_PERIOD_K", "STENC_GENERATED_%s_H",
                                               NULL};
static const char *const c_exported[] = {"%s", "%s_variant", "%s_variant_name", NULL};

static const emit_output cuda_outputs[] = {
    {"cuda/stencil_cuda.cu.tmpl", "_cuda.cu"},
};

static const char *const cuda_declared[] = {
    "%s_cuda_variants", "%s_direct", "%s_stream", "%s_sweep", "%s_combine", "%s_wave",
    "%s_tstep",         "%s_cuda_tsteps", NULL};
static const char *const cuda_exported[] = {"%s_cuda_variants", "%s_cuda_tsteps", NULL};

static const emit_output opencl_outputs[] = {
    {"opencl/stencil_opencl.c.tmpl", "_opencl.c"},
};
static const char *const opencl_declared[] = {"%s_program",           "%s_opencl_run",
                                              "%s_opencl_auto",       "%s_opencl_wg_64",
                                              "%s_opencl_wg_256",     "%s_opencl_wg_64x1",
                                              "%s_opencl_wg_32x4",    "%s_opencl_wg_128x2",
                                              "%s_opencl_wg_32x4x1",  "%s_opencl_wg_64x4x1",
                                              "%s_opencl_wg_128x1x1", "%s_opencl_list",
                                              "%s_opencl_variants",   NULL};
static const char *const opencl_declared_upper[] = {"%s_OCL_SCALARS", "%s_OCL_VARIANT", NULL};
static const char *const opencl_exported[] = {"%s_opencl_variants", NULL};

const emit_target_desc emit_targets[] = {
    {"c", NULL, NULL, c_outputs, 2, 0, "STENC_TARGET_C", NULL, c_params, c_declared,
     c_declared_upper, c_exported, NULL, "c/syntax.tmpl"},
    {"cuda", "c", "its launcher and host kernel are the c target's", cuda_outputs, 1, 1,
     "STENC_TARGET_CUDA", "STENC_DEVICE_CUDA", NULL, cuda_declared, NULL, cuda_exported,
     emit_cuda_data, NULL},
    {"opencl", "c", "its launcher and host kernel are the c target's", opencl_outputs, 1, 1,
     "STENC_TARGET_OPENCL", "STENC_DEVICE_OPENCL", NULL, opencl_declared, opencl_declared_upper,
     opencl_exported, NULL, NULL},
};
const int emit_ntargets = sizeof emit_targets / sizeof emit_targets[0];

const emit_target_desc *emit_target_named(const char *name, size_t len) {
    for (int t = 0; t < emit_ntargets; t++)
        if (strlen(emit_targets[t].name) == len && strncmp(emit_targets[t].name, name, len) == 0)
            return &emit_targets[t];
    return NULL;
}

unsigned emit_target_bit(const emit_target_desc *target) {
    return 1u << (target - emit_targets);
}

unsigned emit_target_closure(const emit_target_desc *target) {
    unsigned bits = 0;
    for (int depth = 0; target && depth < emit_ntargets && !(bits & emit_target_bit(target));
         depth++) {
        bits |= emit_target_bit(target);
        target = target->needs ? emit_target_named(target->needs, strlen(target->needs)) : NULL;
    }
    return bits;
}
