/* A build without CUDA has no CUDA backend: stenc_hash_create reports STENC_ERR_NO_DEVICE. */
#include "hash_backend.h"

const hash_backend *hash_cuda_backend(void) {
    return NULL;
}
