/* Argument checks shared by the transfers and the reductions: a field as a plain view. */
#include "mg_internal.h"

stenc_status stenc_mg_view_of(const char *fn, const char *what, const stenc_field *field,
                              stenc_mg_view *view) {
    STENC_TRY(stenc_field_check(field, fn, what));
    STENC_TRY(stenc_field_get_layout(field, &view->layout));
    if (view->layout.type != STENC_F32 && view->layout.type != STENC_F64)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "%s: %s has type %s; only float and double", fn,
                           what, stenc_type_name(view->layout.type));
    const int on_device = stenc_field_location(field) == STENC_ON_DEVICE;
    /* The kernels are CPU and CUDA ones; another device's memory must not reach them. */
    if (on_device) STENC_TRY(stenc_ctx_require_cpu_or_cuda(stenc_field_ctx(field), fn));
    view->origin = on_device ? stenc_field_device_origin(field) : stenc_field_host_origin(field);
    if (view->origin == NULL)
        return STENC_ERROR(STENC_ERR_INTERNAL, "%s: %s has no storage where it lives", fn, what);
    return STENC_OK;
}

stenc_status stenc_mg_view_pair(const char *fn, const char *what_a, const stenc_field *a,
                                const char *what_b, const stenc_field *b, stenc_mg_view *va,
                                stenc_mg_view *vb) {
    STENC_TRY(stenc_mg_view_of(fn, what_a, a, va));
    STENC_TRY(stenc_mg_view_of(fn, what_b, b, vb));
    STENC_REQUIRE(stenc_field_ctx(a) == stenc_field_ctx(b),
                  "%s: %s and %s belong to different contexts", fn, what_a, what_b);
    if (stenc_field_location(a) != stenc_field_location(b))
        return STENC_ERROR(STENC_ERR_LOCATION, "%s: %s lives on the %s but %s on the %s", fn,
                           what_a, stenc_field_location(a) == STENC_ON_DEVICE ? "device" : "host",
                           what_b, stenc_field_location(b) == STENC_ON_DEVICE ? "device" : "host");
    if (va->layout.type != vb->layout.type)
        return STENC_ERROR(STENC_ERR_SHAPE, "%s: %s is %s but %s is %s", fn, what_a,
                           stenc_type_name(va->layout.type), what_b,
                           stenc_type_name(vb->layout.type));
    if (va->layout.dims != vb->layout.dims)
        return STENC_ERROR(STENC_ERR_SHAPE, "%s: %s is %d-D but %s is %d-D", fn, what_a,
                           va->layout.dims, what_b, vb->layout.dims);
    return STENC_OK;
}
