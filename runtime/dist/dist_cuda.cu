// The CUDA half of runtime/dist: packing halo boxes and exact reductions on the device.
#include <cstring>

#include "cuda_check.h"
#include "dist_internal.h"

namespace {

template <typename T>
__global__ void box_kernel(T *origin, ptrdiff_t s1, ptrdiff_t s2, long lo0, long lo1, long lo2,
                           long c0, long c1, long c2, T *buffer, int unpack) {
    const size_t total = (size_t)c0 * (size_t)c1 * (size_t)c2;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
         t += (size_t)gridDim.x * blockDim.x) {
        const long i = (long)(t % (size_t)c0), j = (long)((t / (size_t)c0) % (size_t)c1),
                   k = (long)(t / ((size_t)c0 * (size_t)c1));
        T *p = origin + (lo0 + i) + (lo1 + j) * s1 + (lo2 + k) * s2;
        if (unpack)
            *p = buffer[t];
        else
            buffer[t] = *p;
    }
}

template <typename T>
__global__ void gather_kernel(const T *base, ptrdiff_t s0, ptrdiff_t s1, ptrdiff_t s2, long c0,
                              long c1, long c2, T *buffer) {
    const size_t total = (size_t)c0 * (size_t)c1 * (size_t)c2;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
         t += (size_t)gridDim.x * blockDim.x) {
        const long x = (long)(t % (size_t)c0), y = (long)((t / (size_t)c0) % (size_t)c1),
                   z = (long)(t / ((size_t)c0 * (size_t)c1));
        buffer[t] = base[x * s0 + y * s1 + z * s2];
    }
}

// Each thread adds its terms into a window of 4 limbs in registers, as long as they fall in
// it; others go to the block's accumulator in shared memory with atomics. The block's
// accumulator is then added to the global one: integer additions, so the order is free.
constexpr int kThreads = 256;
constexpr int kWindow = 4;

__device__ void add_pieces(long long *window, int *base, unsigned long long *shared, double x,
                           int *count) {
    if (x == 0.0) return;
    if (!isfinite(x)) {
        atomicAdd(&shared[isnan(x) ? XSUM_NAN : x > 0 ? XSUM_PINF : XSUM_NINF], 1ull);
        return;
    }
    int limb;
    uint32_t piece[3];
    const int sign = xsum_split(x, &limb, piece);
    if (*base < 0) *base = limb > XSUM_LIMBS - kWindow ? XSUM_LIMBS - kWindow : limb;
    for (int p = 0; p < 3; p++) {
        const long long v = sign * (long long)piece[p];
        const int w = limb + p - *base;
        if (w >= 0 && w < kWindow)
            window[w] += v;
        else
            atomicAdd(&shared[limb + p], (unsigned long long)v);
    }
    // 2^30 terms per window fit a limb; flush well before.
    if (++*count == (1 << 28)) {
        for (int w = 0; w < kWindow; w++) {
            atomicAdd(&shared[*base + w], (unsigned long long)window[w]);
            window[w] = 0;
        }
        *count = 0;
    }
}

template <typename T>
__global__ void reduce_kernel(int kind, size_t n0, size_t n1, size_t n2, const T *a, ptrdiff_t as1,
                              ptrdiff_t as2, const T *b, ptrdiff_t bs1, ptrdiff_t bs2,
                              unsigned long long *global, unsigned long long *global_max) {
    __shared__ unsigned long long acc[XSUM_WORDS];
    __shared__ unsigned long long block_max;
    for (int w = threadIdx.x; w < XSUM_WORDS; w += blockDim.x)
        acc[w] = 0;
    if (threadIdx.x == 0) block_max = 0;
    __syncthreads();
    long long window[kWindow] = {0, 0, 0, 0};
    int base = -1, count = 0;
    unsigned long long my_max = 0;
    const size_t total = n0 * n1 * n2;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
         t += (size_t)gridDim.x * blockDim.x) {
        const size_t i = t % n0, j = (t / n0) % n1, k = t / (n0 * n1);
        const double x = (double)a[i + j * as1 + k * as2];
        if (kind == DIST_SUM) {
            add_pieces(window, &base, acc, x, &count);
        } else if (kind == DIST_DOT) {
            const double y = (double)b[i + j * bs1 + k * bs2];
            const double p = x * y;
            add_pieces(window, &base, acc, p, &count);
            if (isfinite(p)) add_pieces(window, &base, acc, fma(x, y, -p), &count);
        } else {
            unsigned long long bits =
                (unsigned long long)__double_as_longlong(x) & 0x7fffffffffffffffull;
            my_max = bits > my_max ? bits : my_max;
        }
    }
    if (base >= 0)
        for (int w = 0; w < kWindow; w++)
            if (window[w]) atomicAdd(&acc[base + w], (unsigned long long)window[w]);
    if (kind == DIST_MAX_ABS) atomicMax(&block_max, my_max);
    __syncthreads();
    for (int w = threadIdx.x; w < XSUM_WORDS; w += blockDim.x)
        if (acc[w]) atomicAdd(&global[w], acc[w]);
    if (threadIdx.x == 0 && kind == DIST_MAX_ABS) atomicMax(global_max, block_max);
}

} // namespace

static cudaStream_t stream_of(const dist_stream *s) {
    return (cudaStream_t)s->stream;
}

extern "C" stenc_status dist_cuda_stream_create(dist_stream *s) {
    cudaStream_t stream;
    cudaEvent_t ready, done;
    // The highest priority: the exchange's pack and unpack kernels get SMs as soon as blocks
    // of a large kernel on the context's stream retire, instead of after all of them.
    int least = 0, greatest = 0;
    STENC_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    STENC_CUDA_TRY(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
    s->stream = stream;
    STENC_CUDA_TRY(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    s->ready = ready;
    STENC_CUDA_TRY(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    s->done = done;
    return STENC_OK;
}

extern "C" void dist_cuda_stream_destroy(dist_stream *s) {
    if (s->stream) {
        cudaStreamSynchronize(stream_of(s));
        cudaStreamDestroy(stream_of(s));
    }
    if (s->ready) cudaEventDestroy((cudaEvent_t)s->ready);
    if (s->done) cudaEventDestroy((cudaEvent_t)s->done);
    s->stream = s->ready = s->done = NULL;
}

extern "C" stenc_status dist_cuda_mark_ready(stenc_ctx *ctx, dist_stream *s) {
    STENC_CUDA_TRY(cudaEventRecord((cudaEvent_t)s->ready, stenc_stream(ctx)));
    return STENC_OK;
}

extern "C" stenc_status dist_cuda_wait_ready(dist_stream *s) {
    STENC_CUDA_TRY(cudaStreamWaitEvent(stream_of(s), (cudaEvent_t)s->ready, 0));
    return STENC_OK;
}

extern "C" stenc_status dist_cuda_join(stenc_ctx *ctx, dist_stream *s) {
    STENC_CUDA_TRY(cudaEventRecord((cudaEvent_t)s->done, stream_of(s)));
    STENC_CUDA_TRY(cudaStreamWaitEvent(stenc_stream(ctx), (cudaEvent_t)s->done, 0));
    return STENC_OK;
}

extern "C" stenc_status dist_cuda_sync(dist_stream *s) {
    STENC_CUDA_TRY(cudaStreamSynchronize(stream_of(s)));
    return STENC_OK;
}

extern "C" stenc_status dist_cuda_box(dist_stream *s, const dist_box *box, void *buffer,
                                      int unpack) {
    const size_t total = dist_box_points(box);
    if (total == 0) return STENC_OK;
    const int threads = 256;
    const size_t want = (total + threads - 1) / threads;
    const int blocks = (int)(want < 4096 ? want : 4096);
    if (box->elem == 1)
        box_kernel<unsigned char><<<blocks, threads, 0, stream_of(s)>>>(
            (unsigned char *)box->origin, box->stride[1], box->stride[2], box->lo[0], box->lo[1],
            box->lo[2], box->count[0], box->count[1], box->count[2], (unsigned char *)buffer,
            unpack);
    else if (box->elem == 4)
        box_kernel<float><<<blocks, threads, 0, stream_of(s)>>>(
            (float *)box->origin, box->stride[1], box->stride[2], box->lo[0], box->lo[1],
            box->lo[2], box->count[0], box->count[1], box->count[2], (float *)buffer, unpack);
    else
        box_kernel<double><<<blocks, threads, 0, stream_of(s)>>>(
            (double *)box->origin, box->stride[1], box->stride[2], box->lo[0], box->lo[1],
            box->lo[2], box->count[0], box->count[1], box->count[2], (double *)buffer, unpack);
    STENC_CUDA_CHECK_LAUNCH("stenc halo box copy");
    return STENC_OK;
}

extern "C" stenc_status dist_cuda_gather(dist_stream *s, const dist_gather *g, void *buffer) {
    const size_t total = (size_t)g->count[0] * (size_t)g->count[1] * (size_t)g->count[2];
    if (total == 0) return STENC_OK;
    const size_t want = (total + 255) / 256;
    const int blocks = (int)(want < 4096 ? want : 4096);
    if (g->elem == 1)
        gather_kernel<unsigned char><<<blocks, 256, 0, stream_of(s)>>>(
            (const unsigned char *)g->base, g->step[0], g->step[1], g->step[2], g->count[0],
            g->count[1], g->count[2], (unsigned char *)buffer);
    else if (g->elem == 4)
        gather_kernel<float><<<blocks, 256, 0, stream_of(s)>>>(
            (const float *)g->base, g->step[0], g->step[1], g->step[2], g->count[0], g->count[1],
            g->count[2], (float *)buffer);
    else
        gather_kernel<double><<<blocks, 256, 0, stream_of(s)>>>(
            (const double *)g->base, g->step[0], g->step[1], g->step[2], g->count[0], g->count[1],
            g->count[2], (double *)buffer);
    STENC_CUDA_CHECK_LAUNCH("stenc multi-block gather");
    return STENC_OK;
}

static_assert(sizeof(cudaIpcMemHandle_t) == DIST_IPC_HANDLE_BYTES, "IPC handle size");

extern "C" stenc_status dist_cuda_ipc_alloc(void **ptr, size_t bytes,
                                            unsigned char handle[DIST_IPC_HANDLE_BYTES]) {
    *ptr = NULL;
    STENC_CUDA_TRY(cudaMalloc(ptr, bytes ? bytes : 1));
    cudaIpcMemHandle_t h;
    const cudaError_t err = cudaIpcGetMemHandle(&h, *ptr);
    if (err != cudaSuccess) {
        cudaFree(*ptr);
        *ptr = NULL;
        (void)cudaGetLastError();
        return stenc_set_error(STENC_ERR_CUDA, __FILE__, __LINE__,
                               "exchange buffer for CUDA IPC: %s", cudaGetErrorString(err));
    }
    memcpy(handle, &h, sizeof h);
    return STENC_OK;
}

extern "C" void dist_cuda_ipc_free(void *ptr) {
    if (ptr) cudaFree(ptr);
}

extern "C" int dist_cuda_bus_id(char bus[DIST_BUS_ID_BYTES]) {
    int dev = 0;
    memset(bus, 0, DIST_BUS_ID_BYTES);
    const int ok = cudaGetDevice(&dev) == cudaSuccess &&
                   cudaDeviceGetPCIBusId(bus, DIST_BUS_ID_BYTES - 1, dev) == cudaSuccess;
    (void)cudaGetLastError();
    return ok;
}

extern "C" void *dist_cuda_ipc_open(const unsigned char handle[DIST_IPC_HANDLE_BYTES],
                                    const char bus[DIST_BUS_ID_BYTES]) {
    int here = 0, there = 0, can = 0;
    if (cudaGetDevice(&here) != cudaSuccess ||
        cudaDeviceGetByPCIBusId(&there, bus) != cudaSuccess ||
        (there != here && (cudaDeviceCanAccessPeer(&can, here, there) != cudaSuccess || !can))) {
        (void)cudaGetLastError();
        return NULL;
    }
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    void *ptr = NULL;
    if (cudaIpcOpenMemHandle(&ptr, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) ptr = NULL;
    (void)cudaGetLastError();
    return ptr;
}

extern "C" void dist_cuda_ipc_close(void *ptr) {
    if (ptr) cudaIpcCloseMemHandle(ptr);
    (void)cudaGetLastError();
}

extern "C" stenc_status dist_cuda_host_alloc(void **ptr, size_t bytes) {
    STENC_CUDA_TRY(cudaMallocHost(ptr, bytes ? bytes : 1));
    return STENC_OK;
}

extern "C" void dist_cuda_host_free(void *ptr) {
    if (ptr) cudaFreeHost(ptr);
}

extern "C" stenc_status dist_cuda_copy(dist_stream *s, void *dst, const void *src, size_t bytes,
                                       int to_device) {
    if (bytes == 0) return STENC_OK;
    STENC_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes,
                                   to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                                   stream_of(s)));
    return STENC_OK;
}

extern "C" stenc_status dist_cuda_reduce(stenc_ctx *ctx, int kind, stenc_type type,
                                         const size_t n[3], const void *a,
                                         const ptrdiff_t a_stride[3], const void *b,
                                         const ptrdiff_t b_stride[3], xsum *acc,
                                         uint64_t *max_bits) {
    void *scratch = NULL;
    const size_t bytes = (XSUM_WORDS + 1) * sizeof(unsigned long long);
    STENC_TRY(stenc_malloc(ctx, &scratch, bytes));
    unsigned long long *global = (unsigned long long *)scratch;
    stenc_status status = STENC_OK;
    cudaStream_t stream = stenc_stream(ctx);
    cudaError_t err = cudaMemsetAsync(global, 0, bytes, stream);
    const size_t total = n[0] * n[1] * n[2];
    const size_t want = (total + kThreads - 1) / kThreads;
    const int blocks = (int)(want < 2048 ? (want ? want : 1) : 2048);
    if (err == cudaSuccess) {
        if (type == STENC_F32)
            reduce_kernel<float><<<blocks, kThreads, 0, stream>>>(
                kind, n[0], n[1], n[2], (const float *)a, a_stride[1], a_stride[2],
                (const float *)b, b_stride[1], b_stride[2], global, global + XSUM_WORDS);
        else
            reduce_kernel<double><<<blocks, kThreads, 0, stream>>>(
                kind, n[0], n[1], n[2], (const double *)a, a_stride[1], a_stride[2],
                (const double *)b, b_stride[1], b_stride[2], global, global + XSUM_WORDS);
        err = cudaGetLastError();
    }
    unsigned long long host[XSUM_WORDS + 1];
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(host, global, bytes, cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess)
        status =
            stenc_set_error(STENC_ERR_CUDA, __FILE__, __LINE__,
                            "stenc_field reduction on the device: %s", cudaGetErrorString(err));
    stenc_free(ctx, scratch);
    if (status != STENC_OK) return status;
    for (int w = 0; w < XSUM_WORDS; w++)
        acc->w[w] = (int64_t)host[w];
    xsum_normalize(acc);
    *max_bits = host[XSUM_WORDS];
    return STENC_OK;
}
