/* The argument checks shared by the reference kernels. */
#include "ref_common.h"

stenc_status ref_check(const char *name, stenc_type type, int dims, int halo, int inputs, int count,
                       const stenc_field *const *fields) {
    stenc_field_layout first;
    for (int a = 0; a < count; a++) {
        stenc_field_layout L;
        if (!fields[a])
            return stenc_set_error(STENC_ERR_INVALID_ARGUMENT, __FILE__, __LINE__,
                                   "%s: field %d is NULL", name, a);
        stenc_field_get_layout(fields[a], &L);
        if (a == 0) first = L;
        if (stenc_field_location(fields[a]) != STENC_ON_HOST)
            return stenc_set_error(STENC_ERR_LOCATION, __FILE__, __LINE__,
                                   "%s: field %d is not on the host", name, a);
        if (L.type != type || L.dims != dims || L.n[0] != first.n[0] || L.n[1] != first.n[1] ||
            L.n[2] != first.n[2] || (a < inputs && L.halo < halo))
            return stenc_set_error(STENC_ERR_SHAPE, __FILE__, __LINE__,
                                   "%s: field %d does not fit (%s, %dD, %zux%zux%zu, halo %d)",
                                   name, a, stenc_type_name(L.type), L.dims, L.n[0], L.n[1], L.n[2],
                                   L.halo);
    }
    return STENC_OK;
}
