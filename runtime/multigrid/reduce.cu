// Reductions on fields, the CUDA half: a deterministic two-pass block reduction.
//
// Pass 1: block b owns tile b, the ReducePolicy::tile consecutive interior points (natural
// order, i fastest) from b*tile on. Thread t sums points t, t+threads, ... of the tile in that
// order into a compensated (sum, compensation) pair; the block then combines the pairs in a
// fixed shared-memory tree and writes one pair per tile. Pass 2: one block combines the tile
// pairs the same way (thread t takes tiles t, t+final_threads, ...). The order depends only
// on the field's size, so repeated calls give bitwise equal results.
#include <cmath>

#include <math_constants.h>

#include "cuda_check.h"
#include "mg_internal.h"
#include "stenc/accum.h"

namespace {

struct ReducePolicy {
    static constexpr int threads = 256; // pass 1 block size
    static constexpr int items = 16;    // points per thread per tile
    static constexpr int tile = threads * items;
    static constexpr int final_threads = 256; // pass 2 block size
};

typedef stenc_acc Acc; // stenc/accum.h: naive sum (or the max) and its summed rounding errors

// How to step a point's (i, j, k) by `threads` in the interior's natural order.
struct Walk {
    size_t total;
    size_t n0, n1;
    size_t d0, d1, d2; // `threads` in mixed radix (n0, n1, *)
};

template <typename T> struct Operand {
    const T *origin;
    ptrdiff_t s1, s2;
};

__device__ inline double max_abs(double m, double x) {
    double v = fabs(x);
    if (isnan(m) || isnan(v)) return CUDART_NAN;
    return v > m ? v : m;
}

template <int KIND> __device__ inline Acc combine(Acc a, Acc b) {
    if constexpr (KIND == STENC_REDUCE_MAX_ABS) {
        return Acc{max_abs(a.s, b.s), 0.0};
    } else {
        stenc_acc_sum_merge(&a, &b);
        return a;
    }
}

template <typename T, int KIND>
__device__ inline void accumulate(Acc &acc, const Operand<T> &a, const Operand<T> &b, ptrdiff_t oa,
                                  ptrdiff_t ob) {
    const double x = (double)a.origin[oa];
    if constexpr (KIND == STENC_REDUCE_SUM) {
        stenc_acc_sum_add2(&acc, x, 0.0);
    } else if constexpr (KIND == STENC_REDUCE_MAX_ABS) {
        acc.s = max_abs(acc.s, x);
    } else {
        const double y = (double)b.origin[ob];
        const double p = __dmul_rn(x, y); // never fused into the sum below
        const double perr = fma(x, y, -p);
        stenc_acc_sum_add2(&acc, p, perr);
    }
}

template <int KIND> __device__ inline Acc block_combine(Acc acc, Acc *shared, int nthreads) {
    const int t = threadIdx.x;
    shared[t] = acc;
    __syncthreads();
    for (int stride = nthreads / 2; stride > 0; stride /= 2) {
        if (t < stride) shared[t] = combine<KIND>(shared[t], shared[t + stride]);
        __syncthreads();
    }
    return shared[0];
}

template <typename T, int KIND>
__global__ void __launch_bounds__(ReducePolicy::threads)
    reduce_tiles(Operand<T> a, Operand<T> b, Walk w, Acc *partial) {
    __shared__ Acc shared[ReducePolicy::threads];
    Acc acc{0.0, 0.0};
    size_t l = (size_t)blockIdx.x * ReducePolicy::tile + threadIdx.x;
    if (l < w.total) {
        size_t i = l % w.n0, row = l / w.n0;
        size_t j = row % w.n1, k = row / w.n1;
        for (int m = 0; m < ReducePolicy::items && l < w.total; m++) {
            accumulate<T, KIND>(acc, a, b, (ptrdiff_t)i + (ptrdiff_t)j * a.s1 + (ptrdiff_t)k * a.s2,
                                (ptrdiff_t)i + (ptrdiff_t)j * b.s1 + (ptrdiff_t)k * b.s2);
            l += ReducePolicy::threads;
            i += w.d0;
            if (i >= w.n0) i -= w.n0, j++;
            j += w.d1;
            if (j >= w.n1) j -= w.n1, k++;
            k += w.d2;
        }
    }
    Acc r = block_combine<KIND>(acc, shared, ReducePolicy::threads);
    if (threadIdx.x == 0) partial[blockIdx.x] = r;
}

template <int KIND>
__global__ void __launch_bounds__(ReducePolicy::final_threads)
    reduce_partials(const Acc *partial, size_t count, double *result) {
    __shared__ Acc shared[ReducePolicy::final_threads];
    Acc acc{0.0, 0.0};
    for (size_t p = threadIdx.x; p < count; p += ReducePolicy::final_threads)
        acc = combine<KIND>(acc, partial[p]);
    Acc r = block_combine<KIND>(acc, shared, ReducePolicy::final_threads);
    if (threadIdx.x == 0) {
        if constexpr (KIND == STENC_REDUCE_MAX_ABS)
            *result = r.s;
        else
            *result = isfinite(r.s) ? r.s + r.c : r.s; // inf stays inf, not inf - inf
    }
}

template <typename T> Operand<T> operand_of(const stenc_mg_view *v) {
    return Operand<T>{static_cast<const T *>(v->origin), v->layout.stride[1], v->layout.stride[2]};
}

// Launch both passes into `scratch` (tiles pairs, then the result) and fetch the result.
template <typename T, int KIND>
stenc_status run_passes(stenc_ctx *ctx, const stenc_mg_view *va, const stenc_mg_view *vb,
                        const Walk &w, size_t tiles, void *scratch, double *result) {
    Acc *partial = static_cast<Acc *>(scratch);
    double *dresult = reinterpret_cast<double *>(partial + tiles);
    const Operand<T> a = operand_of<T>(va), b = operand_of<T>(vb ? vb : va);
    reduce_tiles<T, KIND>
        <<<(unsigned)tiles, ReducePolicy::threads, 0, stenc_stream(ctx)>>>(a, b, w, partial);
    STENC_CUDA_CHECK_LAUNCH("reduce_tiles");
    reduce_partials<KIND>
        <<<1, ReducePolicy::final_threads, 0, stenc_stream(ctx)>>>(partial, tiles, dresult);
    STENC_CUDA_CHECK_LAUNCH("reduce_partials");
    double host = 0.0;
    STENC_CUDA_TRY(
        cudaMemcpyAsync(&host, dresult, sizeof host, cudaMemcpyDeviceToHost, stenc_stream(ctx)));
    STENC_CUDA_TRY(cudaStreamSynchronize(stenc_stream(ctx)));
    *result = host;
    return STENC_OK;
}

template <typename T>
stenc_status run_typed(stenc_ctx *ctx, stenc_reduce_kind kind, const stenc_mg_view *a,
                       const stenc_mg_view *b, const Walk &w, size_t tiles, void *scratch,
                       double *result) {
    switch (kind) {
    case STENC_REDUCE_SUM:
        return run_passes<T, STENC_REDUCE_SUM>(ctx, a, b, w, tiles, scratch, result);
    case STENC_REDUCE_DOT:
        return run_passes<T, STENC_REDUCE_DOT>(ctx, a, b, w, tiles, scratch, result);
    case STENC_REDUCE_MAX_ABS:
        return run_passes<T, STENC_REDUCE_MAX_ABS>(ctx, a, b, w, tiles, scratch, result);
    }
    return STENC_ERROR(STENC_ERR_INTERNAL, "stenc field reduction: unknown kind %d", (int)kind);
}

} // namespace

extern "C" stenc_status stenc_mg_cuda_reduce(stenc_ctx *ctx, stenc_reduce_kind kind,
                                             const stenc_mg_view *a, const stenc_mg_view *b,
                                             double *result) {
    const size_t n0 = a->layout.n[0], n1 = a->layout.n[1];
    Walk w;
    w.total = n0 * n1 * a->layout.n[2];
    w.n0 = n0;
    w.n1 = n1;
    w.d0 = ReducePolicy::threads % n0;
    w.d1 = (ReducePolicy::threads / n0) % n1;
    w.d2 = (ReducePolicy::threads / n0) / n1;
    const size_t tiles = (w.total + ReducePolicy::tile - 1) / ReducePolicy::tile;
    if (tiles > 2147483647u)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc field reduction: %zu points exceed the CUDA grid limits",
                           w.total);
    void *scratch = NULL;
    STENC_CUDA_TRY(
        cudaMallocAsync(&scratch, tiles * sizeof(Acc) + sizeof(double), stenc_stream(ctx)));
    stenc_status st = a->layout.type == STENC_F32
                          ? run_typed<float>(ctx, kind, a, b, w, tiles, scratch, result)
                          : run_typed<double>(ctx, kind, a, b, w, tiles, scratch, result);
    // Freed in stream order, after the passes, whether they succeeded or not.
    cudaError_t freed = cudaFreeAsync(scratch, stenc_stream(ctx));
    if (st == STENC_OK && freed != cudaSuccess)
        return STENC_ERROR(STENC_ERR_CUDA, "stenc field reduction: cudaFreeAsync failed: %s",
                           cudaGetErrorString(freed));
    return st;
}
