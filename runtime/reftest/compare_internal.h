/* What reftest.c shares with the comparisons below it (compare.c). Not installed. */
#ifndef STENC_COMPARE_INTERNAL_H
#define STENC_COMPARE_INTERNAL_H

#include "internal.h"
#include "stenc/reftest.h"

/* Raise each component of *max to e's where e's is larger. */
static inline void stenc_rt_keep_max(stenc_value_error *max, const stenc_value_error *e) {
    if (e->abs > max->abs) max->abs = e->abs;
    if (e->rel > max->rel) max->rel = e->rel;
    if (e->ulp > max->ulp) max->ulp = e->ulp;
}

#endif /* STENC_COMPARE_INTERNAL_H */
