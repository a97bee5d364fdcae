/* stenc_div_const() on the device (stenc/divide.h, the code the CUDA target's kernels inline)
 * against the device's IEEE division, __fdiv_rn, on every float, for divisors of every kind.
 * Skipped without a CUDA device. */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "stenc/divide.h"

extern "C" {
#include "divide.h"
}

namespace {

struct tally {
    unsigned long long bad;
    unsigned first; /* the smallest bit pattern that differs */
};

__global__ void check_all(divide_const k, tally *t) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t b = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; b < (UINT64_C(1) << 32);
         b += stride) {
        const float x = __uint_as_float((unsigned)b);
        const float got = stenc_div_const(x, k.c, k.y, k.yd, k.lo, k.hi);
        const float want = __fdiv_rn(x, k.c);
        if (__float_as_uint(got) != __float_as_uint(want) && !(isnan(got) && isnan(want))) {
            atomicAdd(&t->bad, 1ull);
            atomicMin(&t->first, (unsigned)b);
        }
    }
}

} // namespace

int main(void) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIPPED: no CUDA device\n");
        return 77;
    }
    const float divisors[] = {118.0f,   -0.3f,      3e-30f,      7e30f, 0x1p-124f,
                              0x1p124f, 0x1.8p123f, 1.0f / 3.0f, 0.5f,  -5.1f};
    tally *t = NULL;
    if (cudaMalloc(&t, sizeof *t) != cudaSuccess) return 1;
    int failed = 0;
    for (size_t d = 0; d < sizeof divisors / sizeof divisors[0]; d++) {
        divide_const k;
        if (!divide_plan(divisors[d], &k)) {
            printf("FAIL: no plan for %a\n", (double)divisors[d]);
            failed = 1;
            continue;
        }
        const tally zero = {0, 0xffffffffu};
        tally got;
        if (cudaMemcpy(t, &zero, sizeof zero, cudaMemcpyHostToDevice) != cudaSuccess) return 1;
        check_all<<<4096, 256>>>(k, t);
        if (cudaMemcpy(&got, t, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) {
            printf("FAIL: %s\n", cudaGetErrorString(cudaGetLastError()));
            return 1;
        }
        printf("%s: c = %a: %llu of 2^32 dividends differ", got.bad ? "FAIL" : "ok", (double)k.c,
               got.bad);
        if (got.bad) printf(", first bit pattern 0x%08x", got.first);
        printf("\n");
        failed |= got.bad != 0;
    }
    cudaFree(t);
    return failed;
}
