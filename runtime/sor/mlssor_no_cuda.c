/* MLSSOR's CUDA half in a build without CUDA: no field can live on a device, so this is
 * unreachable through the public API; it still answers properly. */
#include "mlssor_internal.h"

stenc_status mls_cuda_sweep(stenc_ctx *ctx, const mls_sweep *s) {
    (void)ctx, (void)s;
    return STENC_ERROR(STENC_ERR_NO_DEVICE,
                       "stenc_mlssor_sweep: this libstenc was built without CUDA");
}
