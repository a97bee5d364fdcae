// The fixed kernels of the later passes for u64 keys (sort_kernels.cuh, run_fixed_pass), in a
// translation unit of their own so that they compile beside sort_cuda.cu.
#include "sort_kernels.cuh"

namespace stsort_kernels {
STSORT_FOR_KINDS(template STSORT_FIXED_KERNEL, uint64_t)
} // namespace stsort_kernels
