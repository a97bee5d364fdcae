/* The CUDA kernels of the built-in objectives: the same objectives and core as the CPU path
 * (objectives.h, stenc/nelder_mead_core.h), compiled by nvcc. */
#include "objectives.h"

STENC_NM_BUILTIN_SOLVERS(STENC_NM_DEFINE_SOLVER_DIMS)
