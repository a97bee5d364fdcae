/* emit_cuda: what the cuda target's templates (templates/cuda/) need beyond the data emit.c
 * builds for every target: the kernels' loads in their three forms (vector rows, scalar
 * fallback, 2.5-D streaming), the row / column / plane buffers, and the variant table.
 *
 * The CUDA kernels see every stencil as 3-D: (i, mid, outer), the outer dimension being the
 * one they march or block along. A 3-D stencil maps (i, j, k) to it unchanged, a 2-D one
 * (i, j) to (i, -, j), a 1-D one (i) to (i, -, -). See docs/cuda.md. */
#ifndef STENC_COMPILER_EMIT_CUDA_H
#define STENC_COMPILER_EMIT_CUDA_H

#include "analyze.h"
#include "template.h"

/* Add the cuda keys (all named cu_*) to the template data `d`. read_name[r] is the C local of
 * km->reads[r], value_name[a] the C name of km->arrays[a] (emit.c's names). */
void emit_cuda_data(const km_kernel *km, const char *const *read_name,
                    const char *const *value_name, tmpl_value *d);

#endif /* STENC_COMPILER_EMIT_CUDA_H */
