/* stenc fields: 1-3-D arrays of float or double (or of integers, i32 and u8, for the integer
 * inputs of generated stencils) with a halo of ghost layers.
 *
 * Layout. Element (i, j, k) of the interior, 0 <= i < nx etc., is at
 *     origin + i + j*stride[1] + k*stride[2]
 * where origin points at interior element (0, 0, 0); halo elements are at negative indices
 * and at indices >= n, down to -halo and up to n-1+halo. Rows are padded so that the first
 * interior element of every row is aligned to STENC_FIELD_ALIGN bytes, on the host and on
 * the device alike (the same strides on both).
 *
 * Residence. A field's current data lives on the host or on the device. A field starts on
 * the host; stenc_field_upload() moves it to the device (allocating the device copy once),
 * stenc_field_download() moves it back. Host accessors (get/set/fill/copy) need the field on
 * the host and return STENC_ERR_LOCATION otherwise; kernels and halo fills run where the
 * field lives.
 */
#ifndef STENC_FIELD_H
#define STENC_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "stenc/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STENC_FIELD_ALIGN 128 /* bytes; one CUDA memory transaction, two CPU cache lines */

typedef struct stenc_field stenc_field;

typedef enum stenc_location { STENC_ON_HOST = 0, STENC_ON_DEVICE } stenc_location;

/* Everything a kernel needs to index a field. Strides are in elements. */
typedef struct stenc_field_layout {
    stenc_type type;     /* STENC_F32, STENC_F64, STENC_I32 or STENC_U8 */
    int dims;            /* 1, 2 or 3 */
    size_t n[3];         /* interior extents; 1 for unused dimensions */
    int halo;            /* ghost layers on each side of every used dimension */
    ptrdiff_t stride[3]; /* stride[0] == 1; stride[1] row pitch; stride[2] plane pitch */
    size_t alloc_elems;  /* elements allocated, halo and padding included */
    size_t origin_elems; /* offset of interior (0,0,0) from the start of the allocation */
} stenc_field_layout;

/* Create a host-resident field of dims 1-3 with interior nx*ny*nz (every extent >= 1; ny, nz
 * must be 1 for unused dimensions), `halo` ghost layers (0-16), and type STENC_F32 or STENC_F64,
 * or STENC_I32 or STENC_U8 for the integer inputs of generated stencils (values given to the
 * accessors and Dirichlet fills must then be whole numbers of the type:
 * STENC_ERR_INVALID_ARGUMENT; reductions refuse them).
 * The contents start at zero, halo included. The field belongs to ctx, which must outlive it. */
stenc_status stenc_field_create(stenc_ctx *ctx, stenc_field **field, stenc_type type, int dims,
                                size_t nx, size_t ny, size_t nz, int halo);
/* NULL is allowed; a field freed already is STENC_ERR_INVALID_ARGUMENT. A field with a device
 * copy whose context was destroyed first is freed on the host and reports the leaked copy. */
stenc_status stenc_field_free(stenc_field *field);

stenc_status stenc_field_get_layout(const stenc_field *field, stenc_field_layout *layout);
stenc_location stenc_field_location(const stenc_field *field);
stenc_ctx *stenc_field_ctx(const stenc_field *field);

/* Pointer to interior element (0,0,0) of the host copy / the device copy (NULL if the field
 * has no device copy yet). For generated launchers and hand-written kernels. */
void *stenc_field_host_origin(const stenc_field *field);
void *stenc_field_device_origin(const stenc_field *field);

/* Move the data to the device (allocating its copy on first use) or back to the host. Both
 * are no-ops when the field already lives there, and on a CPU context (where the host is the
 * device). Transfers of 1 MiB or more go through pinned staging buffers. Blocking. */
stenc_status stenc_field_upload(stenc_field *field);
stenc_status stenc_field_download(stenc_field *field);

/* Host accessors; (i,j,k) may address halo points (-halo <= i < nx+halo). */
stenc_status stenc_field_fill(stenc_field *field, double value); /* interior and halo */
stenc_status stenc_field_set(stenc_field *field, long i, long j, long k, double value);
stenc_status stenc_field_get(const stenc_field *field, long i, long j, long k, double *value);

/* Copy the interior from / to a dense array of nx*ny*nz elements of the field's type,
 * i fastest. */
stenc_status stenc_field_copy_from(stenc_field *field, const void *src);
stenc_status stenc_field_copy_to(const stenc_field *field, void *dst);

/* Exchange the storage of two fields of the same type, shape and halo (a time step's
 * "new becomes old"). O(1). */
stenc_status stenc_field_swap(stenc_field *a, stenc_field *b);

/* A view: the box lo[d] <= i < lo[d] + n[d] of a field's interior (unused dimensions: lo 0,
 * n 1), as a field of that interior sharing the parent's storage. lo[0] must be a multiple of
 * STENC_FIELD_ALIGN bytes (32 floats, 16 doubles), where generated kernels expect rows to
 * start (STENC_ERR_SHAPE otherwise). Launches on a view colour points by their index in the
 * parent (and in the global grid, for a distributed parent). Its halo is the parent's
 * halo width, read from the parent's points around the box, so a generated launcher run on
 * views computes that box alone (stenc_dist_overlap runs the interior, then the boundary shell).
 * A view follows its parent's residence and swaps; it cannot be moved, filled, swapped or
 * accessed point by point (STENC_ERR_INVALID_ARGUMENT), nor be the parent of a view. Free it
 * with stenc_field_free() before its parent. */
stenc_status stenc_field_view(stenc_field **view, const stenc_field *parent, const size_t lo[3],
                              const size_t n[3]);

/* ---- halo fills -------------------------------------------------------------------------- */

typedef enum stenc_bc_kind {
    STENC_BC_NONE = 0,  /* leave this face's halo alone */
    STENC_BC_DIRICHLET, /* halo = value (a constant, Dirichlet) */
    STENC_BC_NEUMANN,   /* every halo layer copies the boundary interior layer (zero gradient) */
    STENC_BC_PERIODIC   /* halo wraps around; both faces of the dimension must say so */
} stenc_bc_kind;

typedef enum stenc_face {
    STENC_FACE_I_LO = 0,
    STENC_FACE_I_HI,
    STENC_FACE_J_LO,
    STENC_FACE_J_HI,
    STENC_FACE_K_LO,
    STENC_FACE_K_HI,
    STENC_FACE_COUNT
} stenc_face;

typedef struct stenc_bc {
    stenc_bc_kind kind;
    double value; /* STENC_BC_DIRICHLET only */
} stenc_bc;

/* Fill the halo of every used face, faces of unused dimensions are ignored. Faces are
 * filled in the order i, j, k so that edges and corners get consistent values. Runs where
 * the field lives; on the device it is queued on the ctx's stream (asynchronous). */
stenc_status stenc_field_fill_halo(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT]);

#ifdef __cplusplus
}
#endif

#endif /* STENC_FIELD_H */
