/* Views of fields for the reference kernels, and the checks that keep them in bounds. */
#ifndef STENC_TEST_REF_COMMON_H
#define STENC_TEST_REF_COMMON_H

#include <stddef.h>

#include "reference.h"

/* Origin pointer and strides of one field: REF_AT(v, i, j, k) is element (i, j, k). */
typedef struct ref_f32 {
    float *o;
    ptrdiff_t s1, s2;
} ref_f32;
typedef struct ref_f64 {
    double *o;
    ptrdiff_t s1, s2;
} ref_f64;

#define REF_AT(v, i, j, k) ((v).o[(i) + (ptrdiff_t)(j) * (v).s1 + (ptrdiff_t)(k) * (v).s2])

static inline ref_f32 ref_view_f32(const stenc_field *f) {
    stenc_field_layout L;
    stenc_field_get_layout(f, &L);
    ref_f32 v = {(float *)stenc_field_host_origin(f), L.stride[1], L.stride[2]};
    return v;
}

static inline ref_f64 ref_view_f64(const stenc_field *f) {
    stenc_field_layout L;
    stenc_field_get_layout(f, &L);
    ref_f64 v = {(double *)stenc_field_host_origin(f), L.stride[1], L.stride[2]};
    return v;
}

/* All `count` fields non-NULL, on the host, of `type` and `dims`, of the shape of the first,
 * and with at least `halo` ghost layers for the first `inputs` of them. */
stenc_status ref_check(const char *name, stenc_type type, int dims, int halo, int inputs, int count,
                       const stenc_field *const *fields);

/* Interior extents of a checked field. */
static inline void ref_extents(const stenc_field *f, long *ni, long *nj, long *nk) {
    stenc_field_layout L;
    stenc_field_get_layout(f, &L);
    *ni = (long)L.n[0], *nj = (long)L.n[1], *nk = (long)L.n[2];
}

#endif /* STENC_TEST_REF_COMMON_H */
