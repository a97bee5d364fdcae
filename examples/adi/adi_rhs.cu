// The explicit half of an ADI step on CUDA: one thread per grid point.
#include <cuda_runtime.h>

#include "adi_rhs.h"

__global__ void adi_rhs_kernel(int dir, const double *u, double *out, int n, double half_r) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    long long k = (long long)j * n + i;
    double lo, hi;
    if (dir == 1) {
        lo = j > 0 ? u[k - n] : 0.0;
        hi = j < n - 1 ? u[k + n] : 0.0;
    } else {
        lo = i > 0 ? u[k - 1] : 0.0;
        hi = i < n - 1 ? u[k + 1] : 0.0;
    }
    out[k] = u[k] + half_r * (lo - 2.0 * u[k] + hi);
}

extern "C" int adi_rhs_cuda(int dir, const double *u, double *out, int n, double half_r,
                            void *stream) {
    dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
    adi_rhs_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(dir, u, out, n, half_r);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
