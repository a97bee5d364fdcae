/* Fields: layout, creation, host accessors, residence (upload/download) and swap.
 *
 * Layout: each row holds `lead` elements before interior i = 0 (lead = halo rounded up to the
 * alignment in elements), then the interior, then the high halo, and is padded to a multiple
 * of the alignment. The allocation is 128-byte aligned on the host and on the device, so the
 * first interior element of every row is aligned on both, with the same strides. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "field_internal.h"

#define STENC_FIELD_MAX_HALO 16

static const stenc_handle_kind field_kind = {"field"};

stenc_status stenc_field_check(const stenc_field *field, const char *fn, const char *what) {
    STENC_TRY(stenc_handle_check(field, &field_kind, fn, what));
    if (stenc_ctx_check(field->ctx, fn) != STENC_OK)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: the context of %s was destroyed (a context must outlive its "
                           "fields)",
                           fn, what);
    if (field->parent && !stenc_handle_live(field->parent, &field_kind))
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: %s is a view of a field that was freed (a field must outlive "
                           "its views)",
                           fn, what);
    return STENC_OK;
}

stenc_status stenc_field_require_owner(const stenc_field *field, const char *fn) {
    if (field->parent)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: the field is a view (stenc_field_view); call it on the field "
                           "that owns the storage",
                           fn);
    return STENC_OK;
}

static size_t round_up(size_t x, size_t to) {
    return (x + to - 1) / to * to;
}

static int dim_used(const stenc_field_layout *layout, int d) {
    return d < layout->dims;
}

/* Fill in the layout for a field of this type and shape; fails on size overflow. */
static stenc_status compute_layout(stenc_field_layout *L, stenc_type type, int dims,
                                   const size_t n[3], int halo) {
    size_t esize = stenc_type_size(type);
    size_t align = STENC_FIELD_ALIGN / esize; /* elements */
    size_t h = (size_t)halo;
    memset(L, 0, sizeof *L);
    L->type = type;
    L->dims = dims;
    L->halo = halo;
    for (int d = 0; d < 3; d++)
        L->n[d] = n[d];

    size_t lead = round_up(h, align);
    if (n[0] > SIZE_MAX - lead - h - align) goto overflow;
    size_t pitch = round_up(lead + n[0] + h, align);
    size_t rows = n[1], planes = n[2];
    if (dims >= 2) {
        if (n[1] > SIZE_MAX - 2 * h) goto overflow;
        rows += 2 * h;
    }
    if (dims >= 3) {
        if (n[2] > SIZE_MAX - 2 * h) goto overflow;
        planes += 2 * h;
    }
    size_t plane_elems, alloc_elems, bytes;
    if (!stenc_mul_size(pitch, rows, &plane_elems) ||
        !stenc_mul_size(plane_elems, planes, &alloc_elems) ||
        !stenc_mul_size(alloc_elems, esize, &bytes) || bytes > (size_t)PTRDIFF_MAX)
        goto overflow;
    L->stride[0] = 1;
    L->stride[1] = (ptrdiff_t)pitch;
    L->stride[2] = (ptrdiff_t)plane_elems;
    L->alloc_elems = alloc_elems;
    L->origin_elems = lead + (dims >= 2 ? h * pitch : 0) + (dims >= 3 ? h * plane_elems : 0);
    return STENC_OK;
overflow:
    return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY,
                       "stenc_field_create: a %s field of %zu x %zu x %zu with halo %d is too "
                       "large to address",
                       stenc_type_name(type), n[0], n[1], n[2], halo);
}

stenc_status stenc_field_create(stenc_ctx *ctx, stenc_field **out, stenc_type type, int dims,
                                size_t nx, size_t ny, size_t nz, int halo) {
    STENC_REQUIRE(out != NULL, "stenc_field_create: field pointer is NULL");
    *out = NULL;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_field_create"));
    STENC_REQUIRE((unsigned)type < STENC_TYPE_COUNT, "stenc_field_create: invalid type %d",
                  (int)type);
    if (type != STENC_F32 && type != STENC_F64 && type != STENC_I32 && type != STENC_U8)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_field_create: type %s; fields hold float, double, i32 or u8",
                           stenc_type_name(type));
    if (dims < 1 || dims > 3)
        return STENC_ERROR(STENC_ERR_SHAPE, "stenc_field_create: dims = %d, must be 1, 2 or 3",
                           dims);
    if (halo < 0 || halo > STENC_FIELD_MAX_HALO)
        return STENC_ERROR(STENC_ERR_SHAPE, "stenc_field_create: halo = %d, must be 0..%d", halo,
                           STENC_FIELD_MAX_HALO);
    const size_t n[3] = {nx, ny, nz};
    for (int d = 0; d < 3; d++) {
        if (d < dims && n[d] == 0)
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "stenc_field_create: extent %c = 0 (shape %zu x %zu x %zu); "
                               "extents must be at least 1",
                               "xyz"[d], nx, ny, nz);
        if (d >= dims && n[d] != 1)
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "stenc_field_create: a %d-D field needs n%c = 1, got %zu", dims,
                               "xyz"[d], n[d]);
    }

    stenc_field_layout layout;
    STENC_TRY(compute_layout(&layout, type, dims, n, halo));
    stenc_field *field = calloc(1, sizeof *field);
    if (!field) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_field_create: no memory");
    field->ctx = ctx;
    field->layout = layout;
    field->elem_size = stenc_type_size(type);
    field->location = STENC_ON_HOST;
    size_t bytes = stenc_field_bytes(field);
    field->host = stenc_host_alloc(bytes);
    if (!field->host) {
        free(field);
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY,
                           "stenc_field_create: %zu bytes of host memory for a %zu x %zu x %zu "
                           "field",
                           bytes, nx, ny, nz);
    }
    memset(field->host, 0, bytes);
    stenc_status status = stenc_handle_add(field, &field_kind, "stenc_field_create");
    if (status != STENC_OK) {
        stenc_host_free(field->host);
        free(field);
        return status;
    }
    *out = field;
    return STENC_OK;
}

stenc_status stenc_field_view(stenc_field **out, const stenc_field *parent, const size_t lo[3],
                              const size_t n[3]) {
    STENC_REQUIRE(out != NULL, "stenc_field_view: view pointer is NULL");
    *out = NULL;
    STENC_TRY(stenc_field_check(parent, "stenc_field_view", "parent"));
    STENC_REQUIRE(lo != NULL && n != NULL, "stenc_field_view: lo or n is NULL");
    STENC_REQUIRE(!parent->parent, "stenc_field_view: the parent is a view itself");
    const stenc_field_layout *P = &parent->layout;
    ptrdiff_t offset = 0;
    for (int d = 0; d < 3; d++) {
        const size_t extent = d < P->dims ? P->n[d] : 1;
        if (n[d] == 0 || lo[d] > extent || n[d] > extent - lo[d])
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "stenc_field_view: box from (%zu, %zu, %zu) of %zu x %zu x %zu "
                               "is empty or leaves the interior %zu x %zu x %zu",
                               lo[0], lo[1], lo[2], n[0], n[1], n[2], P->n[0], P->n[1], P->n[2]);
        offset += (ptrdiff_t)lo[d] * P->stride[d];
    }
    /* Generated kernels assume every row starts on the alignment (STENC_ASSUME_ALIGNED). */
    const size_t align = STENC_FIELD_ALIGN / parent->elem_size;
    if (lo[0] % align != 0)
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "stenc_field_view: the box starts at i = %zu; rows of a view start "
                           "on the %d-byte alignment, a multiple of %zu points",
                           lo[0], STENC_FIELD_ALIGN, align);
    stenc_field *view = calloc(1, sizeof *view);
    if (!view) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_field_view: no memory");
    *view = *parent;
    view->dist_ops = NULL; /* a view's reductions and launches are local to this rank */
    view->dist = NULL;
    view->parent = parent;
    view->host = view->device = NULL;
    for (int d = 0; d < 3; d++)
        view->layout.n[d] = n[d];
    view->layout.origin_elems = P->origin_elems + (size_t)offset;
    for (int d = 0; d < 3; d++)
        view->index_offset[d] = parent->index_offset[d] + lo[d];
    stenc_status status = stenc_handle_add(view, &field_kind, "stenc_field_view");
    if (status != STENC_OK) {
        free(view);
        return status;
    }
    *out = view;
    return STENC_OK;
}

stenc_status stenc_field_free(stenc_field *field) {
    if (!field) return STENC_OK;
    /* The registry first: a field freed already is reported, never read. */
    STENC_TRY(stenc_handle_remove(field, &field_kind, "stenc_field_free", "field"));
    if (field->parent) { /* a view: no storage of its own */
        free(field);
        return STENC_OK;
    }
    stenc_status status = STENC_OK;
    if (field->dist_ops && field->dist_ops->release)
        field->dist_ops->release(field->dist, field->ctx);
    if (field->device) {
        /* Device memory is freed on its context's stream, so that context must be live. */
        if (stenc_ctx_live(field->ctx))
            status = stenc_free(field->ctx, field->device);
        else
            status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                                 "stenc_field_free: the field's context was destroyed first, so "
                                 "its device copy could not be freed (leaked)");
    }
    stenc_host_free(field->host);
    free(field);
    return status;
}

stenc_status stenc_field_get_layout(const stenc_field *field, stenc_field_layout *layout) {
    STENC_TRY(stenc_field_check(field, "stenc_field_get_layout", "field"));
    STENC_REQUIRE(layout != NULL, "stenc_field_get_layout: layout is NULL");
    *layout = field->layout;
    return STENC_OK;
}

/* Accessors return their NULL-argument value for a field that is not live (and record why). */
static int accessible(const stenc_field *field, const char *fn) {
    return field && stenc_field_check(field, fn, "field") == STENC_OK;
}

stenc_location stenc_field_location(const stenc_field *field) {
    if (!accessible(field, "stenc_field_location")) return STENC_ON_HOST;
    return field->parent ? field->parent->location : field->location;
}

stenc_ctx *stenc_field_ctx(const stenc_field *field) {
    return accessible(field, "stenc_field_ctx") ? field->ctx : NULL;
}

static void *origin_in(const stenc_field *field, void *base) {
    return (char *)base + field->layout.origin_elems * field->elem_size;
}

/* A view reads its parent's storage as it is now (a swap of the parent moves it). */
static const stenc_field *owner(const stenc_field *field) {
    return field->parent ? field->parent : field;
}

void *stenc_field_host_origin(const stenc_field *field) {
    if (!accessible(field, "stenc_field_host_origin")) return NULL;
    return origin_in(field, owner(field)->host);
}

void *stenc_field_device_origin(const stenc_field *field) {
    if (!accessible(field, "stenc_field_device_origin") || !owner(field)->device) return NULL;
    return origin_in(field, owner(field)->device);
}

/* ---- residence --------------------------------------------------------------------------- */

/* OpenCL: the device copy moves whole with the core's blocking copies. */
static stenc_status plain_upload(stenc_field *field) {
    return stenc_upload(field->ctx, field->device, field->host, stenc_field_bytes(field));
}

static stenc_status plain_download(stenc_field *field) {
    return stenc_download(field->ctx, field->host, field->device, stenc_field_bytes(field));
}

static const stenc_field_device_ops cuda_half = {stenc_field_cuda_upload, stenc_field_cuda_download,
                                                 stenc_field_cuda_fill_halo_dim};
static const stenc_field_device_ops opencl_half = {plain_upload, plain_download,
                                                   stenc_field_ocl_fill_halo_dim};

const stenc_field_device_ops *stenc_field_device_ops_of(const stenc_field *field) {
    switch (field->ctx->device) {
    case STENC_DEVICE_CUDA:
        return &cuda_half;
    case STENC_DEVICE_OPENCL:
        return &opencl_half;
    default:
        return NULL;
    }
}

stenc_status stenc_field_upload(stenc_field *field) {
    STENC_TRY(stenc_field_check(field, "stenc_field_upload", "field"));
    STENC_TRY(stenc_field_require_owner(field, "stenc_field_upload"));
    const stenc_field_device_ops *ops = stenc_field_device_ops_of(field);
    /* A CPU context has no device: the field stays where kernels will look for it. */
    if (field->location == STENC_ON_DEVICE || !ops) return STENC_OK;
    if (!field->device)
        STENC_TRY(stenc_malloc(field->ctx, &field->device, stenc_field_bytes(field)));
    STENC_TRY(ops->upload(field));
    field->location = STENC_ON_DEVICE;
    return STENC_OK;
}

stenc_status stenc_field_download(stenc_field *field) {
    STENC_TRY(stenc_field_check(field, "stenc_field_download", "field"));
    STENC_TRY(stenc_field_require_owner(field, "stenc_field_download"));
    if (field->location == STENC_ON_HOST) return STENC_OK;
    /* On failure the host copy is undefined and the field stays on the device. */
    STENC_TRY(stenc_field_device_ops_of(field)->download(field));
    field->location = STENC_ON_HOST;
    return STENC_OK;
}

/* ---- host accessors ---------------------------------------------------------------------- */

static stenc_status require_host(const stenc_field *field, const char *fn) {
    STENC_TRY(stenc_field_check(field, fn, "field"));
    STENC_TRY(stenc_field_require_owner(field, fn));
    if (field->location != STENC_ON_HOST)
        return STENC_ERROR(STENC_ERR_LOCATION,
                           "%s: the field lives on the device; call stenc_field_download first",
                           fn);
    return STENC_OK;
}

/* Offset of (i, j, k) from the origin, or an error when the point is outside interior+halo. */
static stenc_status point_offset(const stenc_field *field, long i, long j, long k,
                                 ptrdiff_t *offset, const char *fn) {
    const stenc_field_layout *L = &field->layout;
    const long idx[3] = {i, j, k};
    ptrdiff_t off = 0;
    for (int d = 0; d < 3; d++) {
        long lo = dim_used(L, d) ? -(long)L->halo : 0;
        /* n[d] fits in a ptrdiff_t (the allocation does), so the comparison is exact. */
        long long hi = dim_used(L, d) ? (long long)L->n[d] + L->halo : 1;
        if (idx[d] < lo || (long long)idx[d] >= hi)
            return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                               "%s: point (%ld, %ld, %ld) is outside the field (%zu x %zu x %zu, "
                               "halo %d)",
                               fn, i, j, k, L->n[0], L->n[1], L->n[2], L->halo);
        off += (ptrdiff_t)idx[d] * L->stride[d];
    }
    *offset = off;
    return STENC_OK;
}

stenc_status stenc_field_value_fits(stenc_type type, double value, const char *fn) {
    if (stenc_type_is_real(type)) return STENC_OK;
    const double lo = type == STENC_U8 ? 0.0 : -2147483648.0;
    const double hi = type == STENC_U8 ? 255.0 : 2147483647.0;
    if (!(value >= lo && value <= hi) || value != floor(value))
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: %.17g is not a value of %s (%.0f..%.0f)", fn, value,
                           stenc_type_name(type), lo, hi);
    return STENC_OK;
}

/* Element `off` of an allocation of `type` at `p`, as a double, and back (value checked). */
static double value_at(stenc_type type, const void *p, ptrdiff_t off) {
    switch (type) {
    case STENC_F32:
        return ((const float *)p)[off];
    case STENC_I32:
        return ((const int32_t *)p)[off];
    case STENC_U8:
        return ((const uint8_t *)p)[off];
    default:
        return ((const double *)p)[off];
    }
}
static void value_put(stenc_type type, void *p, ptrdiff_t off, double value) {
    switch (type) {
    case STENC_F32:
        ((float *)p)[off] = (float)value;
        break;
    case STENC_I32:
        ((int32_t *)p)[off] = (int32_t)value;
        break;
    case STENC_U8:
        ((uint8_t *)p)[off] = (uint8_t)value;
        break;
    default:
        ((double *)p)[off] = value;
    }
}

stenc_status stenc_field_fill(stenc_field *field, double value) {
    STENC_TRY(require_host(field, "stenc_field_fill"));
    STENC_TRY(stenc_field_value_fits(field->layout.type, value, "stenc_field_fill"));
    size_t count = field->layout.alloc_elems;
    if (field->layout.type == STENC_F32) {
        float *p = field->host, v = (float)value;
        for (size_t e = 0; e < count; e++)
            p[e] = v;
    } else if (field->layout.type == STENC_F64) {
        double *p = field->host;
        for (size_t e = 0; e < count; e++)
            p[e] = value;
    } else {
        for (size_t e = 0; e < count; e++)
            value_put(field->layout.type, field->host, (ptrdiff_t)e, value);
    }
    return STENC_OK;
}

stenc_status stenc_field_set(stenc_field *field, long i, long j, long k, double value) {
    STENC_TRY(require_host(field, "stenc_field_set"));
    ptrdiff_t off = 0;
    STENC_TRY(point_offset(field, i, j, k, &off, "stenc_field_set"));
    STENC_TRY(stenc_field_value_fits(field->layout.type, value, "stenc_field_set"));
    value_put(field->layout.type, origin_in(field, field->host), off, value);
    return STENC_OK;
}

stenc_status stenc_field_get(const stenc_field *field, long i, long j, long k, double *value) {
    STENC_TRY(require_host(field, "stenc_field_get"));
    STENC_REQUIRE(value != NULL, "stenc_field_get: value pointer is NULL");
    ptrdiff_t off = 0;
    STENC_TRY(point_offset(field, i, j, k, &off, "stenc_field_get"));
    *value = value_at(field->layout.type, origin_in(field, field->host), off);
    return STENC_OK;
}

/* Copy the interior row by row between a copy of the field's allocation whose interior (0,0,0)
 * is at `origin` and a dense array; to_field picks the way. */
static void copy_interior(const stenc_field *field, char *origin, void *dense, int to_field) {
    const stenc_field_layout *L = &field->layout;
    size_t row_bytes = L->n[0] * field->elem_size;
    char *d = dense;
    for (size_t k = 0; k < L->n[2]; k++)
        for (size_t j = 0; j < L->n[1]; j++) {
            char *row = origin + ((ptrdiff_t)j * L->stride[1] + (ptrdiff_t)k * L->stride[2]) *
                                     (ptrdiff_t)field->elem_size;
            if (to_field)
                memcpy(row, d, row_bytes);
            else
                memcpy(d, row, row_bytes);
            d += row_bytes;
        }
}

stenc_status stenc_field_copy_from(stenc_field *field, const void *src) {
    STENC_TRY(require_host(field, "stenc_field_copy_from"));
    STENC_REQUIRE(src != NULL, "stenc_field_copy_from: source array is NULL");
    copy_interior(field, origin_in(field, field->host), (void *)src, 1);
    return STENC_OK;
}

stenc_status stenc_field_copy_to(const stenc_field *field, void *dst) {
    STENC_TRY(require_host(field, "stenc_field_copy_to"));
    STENC_REQUIRE(dst != NULL, "stenc_field_copy_to: destination array is NULL");
    copy_interior(field, origin_in(field, field->host), dst, 0);
    return STENC_OK;
}

/* ---- interior transfers wherever the field lives (field_internal.h) ---------------------- */

/* Bytes from interior (0,0,0) to one past the last interior element: the smallest contiguous
 * piece of the allocation that holds the whole interior. */
static size_t interior_span_bytes(const stenc_field *field) {
    const stenc_field_layout *L = &field->layout;
    size_t last =
        (L->n[2] - 1) * (size_t)L->stride[2] + (L->n[1] - 1) * (size_t)L->stride[1] + L->n[0];
    return last * field->elem_size;
}

/* A host copy of the device's interior span, so that rows can be gathered or scattered with
 * the host loop; the caller frees *span. */
static stenc_status download_span(const stenc_field *field, char **span, const char *fn) {
    size_t bytes = interior_span_bytes(field);
    *span = malloc(bytes);
    if (!*span)
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY,
                           "%s: no memory for a %zu-byte host copy of the device field", fn, bytes);
    stenc_status status = stenc_download(field->ctx, *span, origin_in(field, field->device), bytes);
    if (status != STENC_OK) {
        free(*span);
        *span = NULL;
    }
    return status;
}

stenc_status stenc_field_interior_get(const stenc_field *field, void *dense, const char *fn) {
    STENC_TRY(stenc_field_check(field, fn, "field"));
    STENC_TRY(stenc_field_require_owner(field, fn));
    STENC_REQUIRE(dense != NULL, "%s: destination array is NULL", fn);
    if (field->location == STENC_ON_HOST) {
        copy_interior(field, origin_in(field, field->host), dense, 0);
        return STENC_OK;
    }
    char *span;
    STENC_TRY(download_span(field, &span, fn));
    copy_interior(field, span, dense, 0);
    free(span);
    return STENC_OK;
}

stenc_status stenc_field_interior_put(stenc_field *field, const void *dense, const char *fn) {
    STENC_TRY(stenc_field_check(field, fn, "field"));
    STENC_TRY(stenc_field_require_owner(field, fn));
    STENC_REQUIRE(dense != NULL, "%s: source array is NULL", fn);
    if (field->location == STENC_ON_HOST) {
        copy_interior(field, origin_in(field, field->host), (void *)dense, 1);
        return STENC_OK;
    }
    /* The span also holds halo and padding between rows: they go back up unchanged. */
    char *span;
    STENC_TRY(download_span(field, &span, fn));
    copy_interior(field, span, (void *)dense, 1);
    stenc_status status =
        stenc_upload(field->ctx, origin_in(field, field->device), span, interior_span_bytes(field));
    free(span);
    return status;
}

stenc_status stenc_field_swap(stenc_field *a, stenc_field *b) {
    STENC_TRY(stenc_field_check(a, "stenc_field_swap", "field a"));
    STENC_TRY(stenc_field_check(b, "stenc_field_swap", "field b"));
    STENC_TRY(stenc_field_require_owner(a, "stenc_field_swap"));
    STENC_TRY(stenc_field_require_owner(b, "stenc_field_swap"));
    if (a == b) return STENC_OK;
    const stenc_field_layout *la = &a->layout, *lb = &b->layout;
    if (a->decomp_sig != b->decomp_sig) /* before the local shapes, which differ by rank */
        return STENC_ERROR(STENC_ERR_SHAPE, "stenc_field_swap: the fields are split differently "
                                            "over the ranks (or one is distributed and the "
                                            "other not)");
    if (a->ctx != b->ctx)
        return STENC_ERROR(STENC_ERR_SHAPE, "stenc_field_swap: the fields belong to different "
                                            "contexts");
    if (la->type != lb->type || la->dims != lb->dims || la->halo != lb->halo ||
        la->n[0] != lb->n[0] || la->n[1] != lb->n[1] || la->n[2] != lb->n[2])
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "stenc_field_swap: a is %s %dD %zu x %zu x %zu halo %d, b is %s %dD "
                           "%zu x %zu x %zu halo %d",
                           stenc_type_name(la->type), la->dims, la->n[0], la->n[1], la->n[2],
                           la->halo, stenc_type_name(lb->type), lb->dims, lb->n[0], lb->n[1],
                           lb->n[2], lb->halo);
    /* Same type, shape and halo give the same layout, so only the storage moves. */
    void *host = a->host, *device = a->device;
    stenc_location location = a->location;
    a->host = b->host, a->device = b->device, a->location = b->location;
    b->host = host, b->device = device, b->location = location;
    return STENC_OK;
}

void stenc_field_set_dist(stenc_field *field, const stenc_field_dist_ops *ops, void *dist,
                          uint64_t decomp_sig, const size_t index_offset[3]) {
    field->dist_ops = ops;
    field->dist = dist;
    field->decomp_sig = decomp_sig;
    for (int d = 0; d < 3; d++)
        field->index_offset[d] = index_offset[d];
}

void stenc_field_index_offset(const stenc_field *field, size_t offset[3]) {
    const int live = stenc_field_live(field);
    for (int d = 0; d < 3; d++)
        offset[d] = live ? field->index_offset[d] : 0;
}

void *stenc_field_dist(const stenc_field *field) {
    return stenc_field_live(field) ? field->dist : NULL;
}

const stenc_field_dist_ops *stenc_field_dist_ops_of(const stenc_field *field) {
    return stenc_field_live(field) ? field->dist_ops : NULL;
}

uint64_t stenc_field_decomp_signature(const stenc_field *field) {
    return stenc_field_live(field) ? field->decomp_sig : 0;
}

int stenc_field_is_view(const stenc_field *field) {
    return stenc_field_live(field) && field->parent != NULL;
}

int stenc_field_live(const stenc_field *field) {
    return stenc_handle_live(field, &field_kind);
}
