/* The CUDA half of fields in a build without CUDA: a field can never reach the device (a CUDA
 * context cannot be created), so these only report that. */
#include "field_internal.h"

#define NO_CUDA(fn) STENC_ERROR(STENC_ERR_NO_DEVICE, "%s: this libstenc was built without CUDA", fn)

stenc_status stenc_field_cuda_upload(stenc_field *field) {
    (void)field;
    return NO_CUDA("stenc_field_upload");
}
stenc_status stenc_field_cuda_download(stenc_field *field) {
    (void)field;
    return NO_CUDA("stenc_field_download");
}
stenc_status stenc_field_cuda_fill_halo_dim(stenc_field *field, int dim, const stenc_bc *lo,
                                            const stenc_bc *hi) {
    (void)field, (void)dim, (void)lo, (void)hi;
    return NO_CUDA("stenc_field_fill_halo");
}
