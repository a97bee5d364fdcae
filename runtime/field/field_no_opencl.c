/* The OpenCL half of fields in a build without OpenCL: no OpenCL context, and so no field on
 * an OpenCL device, can exist; this only reports that. */
#include "field_internal.h"

stenc_status stenc_field_ocl_fill_halo_dim(stenc_field *field, int dim, const stenc_bc *lo,
                                           const stenc_bc *hi) {
    (void)field, (void)dim, (void)lo, (void)hi;
    return STENC_ERROR(STENC_ERR_NO_DEVICE,
                       "stenc_field_fill_halo: this libstenc was built without OpenCL");
}
