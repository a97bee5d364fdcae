/* stenc: the whole public API. Include this one header. */
#ifndef STENC_STENC_H
#define STENC_STENC_H

#include "stenc/core.h"
#include "stenc/field.h"
#include "stenc/launch.h"
#include "stenc/tune.h"
#include "stenc/accum.h"
#include "stenc/multigrid.h"
#include "stenc/reduce.h"
#include "stenc/sor.h"
#include "stenc/sort.h"
#include "stenc/hash.h"
#include "stenc/nelder_mead.h"
#include "stenc/tridiag.h"
#include "stenc/graph.h"
#include "stenc/opencl.h"
#include "stenc/io.h"
#include "stenc/reftest.h"

#endif /* STENC_STENC_H */
