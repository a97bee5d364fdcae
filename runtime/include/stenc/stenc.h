/* stenc: the whole public API. Include this one header. */
#ifndef STENC_STENC_H
#define STENC_STENC_H

#include "stenc/core.h"
#include "stenc/field.h"
#include "stenc/tune.h"

#endif /* STENC_STENC_H */
