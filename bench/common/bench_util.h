// What the CUDA benchmarks share: checked calls that stop the benchmark with a message (a
// benchmark is a program, not the library: exiting is its right answer to a failed call), and
// the median of timed repetitions with CUDA events after a warm-up.
#ifndef STENC_BENCH_UTIL_H
#define STENC_BENCH_UTIL_H

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "stenc/core.h"

#define BENCH_CUDA_CHECK(x)                                                                        \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define BENCH_STENC_CHECK(x)                                                                       \
    do {                                                                                           \
        if ((x) != STENC_OK) {                                                                     \
            printf("stenc error: %s (at %s:%d)\n", stenc_last_error(), __FILE__, __LINE__);        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// Median milliseconds of `reps` runs of f() on `stream`, after `warmups` untimed runs.
template <class F> double bench_median_ms(cudaStream_t stream, F f, int reps, int warmups = 1) {
    cudaEvent_t a, b;
    BENCH_CUDA_CHECK(cudaEventCreate(&a));
    BENCH_CUDA_CHECK(cudaEventCreate(&b));
    for (int w = 0; w < warmups; w++)
        f();
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<float> t;
    for (int r = 0; r < reps; r++) {
        BENCH_CUDA_CHECK(cudaEventRecord(a, stream));
        f();
        BENCH_CUDA_CHECK(cudaEventRecord(b, stream));
        BENCH_CUDA_CHECK(cudaEventSynchronize(b));
        float ms;
        BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    BENCH_CUDA_CHECK(cudaGetLastError());
    BENCH_CUDA_CHECK(cudaEventDestroy(a));
    BENCH_CUDA_CHECK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

#endif // STENC_BENCH_UTIL_H
