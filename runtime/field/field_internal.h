/* The inside of a stenc_field, and the bridge between the C half of the field module
 * (field.c, halo.c) and its device halves: CUDA (field_cuda.cu, or field_no_cuda.c without
 * CUDA) and OpenCL (field_opencl.c, or field_no_opencl.c without OpenCL). Not installed. */
#ifndef STENC_FIELD_INTERNAL_H
#define STENC_FIELD_INTERNAL_H

#include "internal.h"
#include "stenc/field.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stenc_field {
    stenc_ctx *ctx;
    stenc_field_layout layout;
    size_t elem_size;        /* bytes per element */
    void *host;              /* start of the host allocation (alloc_elems elements) */
    void *device;            /* start of the device allocation, NULL until the first upload */
    stenc_location location; /* where the current data lives */
    /* A distributed field (runtime/dist): its part there, and how to release and reduce it.
     * NULL for a field of one process. */
    const stenc_field_dist_ops *dist_ops;
    void *dist;
    uint64_t decomp_sig; /* equal for fields split alike over the same ranks; 0 when local */
    /* A view (stenc_field_view) owns no storage: it reads its parent's, at layout.origin_elems,
     * and lives where the parent lives. NULL for a field that owns its storage. */
    const stenc_field *parent;
    /* Global index of interior point (0,0,0): the part's place in a decomposition, plus a
     * view's place in its parent. Colours are of global indices. */
    size_t index_offset[3];
};

/* STENC_ERR_INVALID_ARGUMENT for a view: calls that move or fill storage need its owner. */
stenc_status stenc_field_require_owner(const stenc_field *field, const char *fn);

/* Bytes of the whole allocation, halo and padding included. */
static inline size_t stenc_field_bytes(const stenc_field *field) {
    return field->layout.alloc_elems * field->elem_size;
}

/* Copy the interior between the field's current data, on the host or on the device, and a
 * dense array of nx*ny*nz elements, i fastest, without changing where the field lives (for
 * runtime/io). A device field goes through a temporary host copy of its interior span;
 * blocking. `fn` names the public call in messages. */
stenc_status stenc_field_interior_get(const stenc_field *field, void *dense, const char *fn);
/* STENC_OK when `value` is one of `type`'s (integers: whole and in range), else
 * STENC_ERR_INVALID_ARGUMENT naming fn. */
stenc_status stenc_field_value_fits(stenc_type type, double value, const char *fn);
stenc_status stenc_field_interior_put(stenc_field *field, const void *dense, const char *fn);

/* What stenc_field_fill_halo writes at positions [lo, hi) of the slowest dimension (dims - 1),
 * on a host field with checked bc whose slowest dimension is not periodic, for the stepping
 * launchers' wavefront (runtime/launch/steps.c), which fills each step's halo slab by slab
 * in increasing order as the step is made: the other dimensions' faces on those positions
 * (lo may be -halo, hi n + halo); then, when [lo, hi) reaches position 0 (or n - 1), the
 * slowest dimension's low (high) face, from the values already filled. Slabs that cover
 * [0, n) once, in order, fill the halo bit for bit as stenc_field_fill_halo does. */
void stenc_field_fill_halo_slab(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT], long lo,
                                long hi);

/* Transfers at or above this size go through pinned staging buffers, in chunks of
 * STENC_FIELD_STAGING_CHUNK bytes, two buffers in flight; smaller ones are one plain copy. */
#define STENC_FIELD_STAGING_MIN ((size_t)1 << 20)
#define STENC_FIELD_STAGING_CHUNK ((size_t)4 << 20)

/* The device half of fields on one kind of device. The device copy itself is stenc_malloc'd
 * and stenc_free'd on the field's context; these move it and fill its halos. */
typedef struct stenc_field_device_ops {
    /* Whole-allocation copies between field->host and field->device; blocking. */
    stenc_status (*upload)(stenc_field *field);
    stenc_status (*download)(stenc_field *field);
    /* Fill the halos of dimension `dim` (0, 1, 2) on the device; the arguments are already
     * checked. Ordered on the context's stream (queue), asynchronous. */
    stenc_status (*fill_halo_dim)(stenc_field *field, int dim, const stenc_bc *lo,
                                  const stenc_bc *hi);
} stenc_field_device_ops;

/* The device half of the field's context; NULL on a CPU context, which has no device. */
const stenc_field_device_ops *stenc_field_device_ops_of(const stenc_field *field);

/* The CUDA half. Without CUDA these return STENC_ERR_NO_DEVICE. Copies of 1 MiB or more are
 * staged through pinned memory. */
stenc_status stenc_field_cuda_upload(stenc_field *field);
stenc_status stenc_field_cuda_download(stenc_field *field);
stenc_status stenc_field_cuda_fill_halo_dim(stenc_field *field, int dim, const stenc_bc *lo,
                                            const stenc_bc *hi);

/* The OpenCL half's halo fill (its copies are plain stenc_upload/stenc_download). Without
 * OpenCL it returns STENC_ERR_NO_DEVICE. */
stenc_status stenc_field_ocl_fill_halo_dim(stenc_field *field, int dim, const stenc_bc *lo,
                                           const stenc_bc *hi);

#ifdef __cplusplus
}
#endif

#endif /* STENC_FIELD_INTERNAL_H */
