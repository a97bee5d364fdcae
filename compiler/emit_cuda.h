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
#include "emit_names.h"
#include "template.h"

/* Add the cuda keys (all named cu_*) to the template data `d`, with emit.c's names `sym`: the
 * cuda row's data hook in targets.c.
 *
 * Stencils with a colour, an inout or a reduction get the sweep kernel instead of the direct
 * and streaming ones (key cu_sweep): one point per thread on the lattice of one cell of the
 * colouring's period box, block partial reductions combined in block order. */
void emit_cuda_data(const km_kernel *km, const emit_symbols *sym, tmpl_value *d);

#endif /* STENC_COMPILER_EMIT_CUDA_H */
