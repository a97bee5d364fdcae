/* The CUDA solver for the smoothing objective: mesh_smooth_solver_cuda(). */
#include "smooth_objective.h"

STENC_NM_DEFINE_SOLVER_DIMS(mesh_smooth_solver, smooth_objective, 2, 2)
