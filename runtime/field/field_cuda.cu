// The CUDA half of fields: staged transfers of the device copy, and halo fills on the device.
#include <cstring>
#include <mutex>

#include "cuda_check.h"
#include "field_internal.h"

// ---- staged transfers ------------------------------------------------------------------------
// Pageable memory cannot be copied asynchronously, so large transfers go through two pinned
// buffers: the host copies chunk c into one while the DMA engine moves chunk c-1 from the
// other. The buffers are shared by every field of the process (pinned memory is scarce and
// slow to allocate), guarded by a mutex, and kept until the process exits.

namespace {

struct staging_pool {
    std::mutex lock;
    int device = -1; // CUDA ordinal the buffers were made for; -1 until first use
    void *buffer[2] = {nullptr, nullptr};
    cudaEvent_t done[2] = {nullptr, nullptr}; // last copy out of / into buffer[b] finished
};

staging_pool pool;

// Allocate the pool for ctx's device on first use. Call with the lock held.
stenc_status pool_prepare(const stenc_ctx *ctx) {
    if (pool.device == ctx->cuda_device) return STENC_OK;
    if (pool.device != -1)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_field: staging buffers belong to device %d, not %d", pool.device,
                           ctx->cuda_device);
    for (int b = 0; b < 2; b++) {
        STENC_CUDA_TRY(
            cudaHostAlloc(&pool.buffer[b], STENC_FIELD_STAGING_CHUNK, cudaHostAllocDefault));
        STENC_CUDA_TRY(cudaEventCreateWithFlags(&pool.done[b], cudaEventDisableTiming));
    }
    pool.device = ctx->cuda_device;
    return STENC_OK;
}

size_t chunk_bytes(size_t total, size_t offset) {
    size_t left = total - offset;
    return left < STENC_FIELD_STAGING_CHUNK ? left : STENC_FIELD_STAGING_CHUNK;
}

stenc_status staged_upload(stenc_ctx *ctx, char *dst, const char *src, size_t bytes) {
    std::lock_guard<std::mutex> guard(pool.lock);
    STENC_TRY(pool_prepare(ctx));
    cudaStream_t stream = stenc_stream(ctx);
    int b = 0;
    for (size_t off = 0; off < bytes; off += STENC_FIELD_STAGING_CHUNK, b ^= 1) {
        size_t len = chunk_bytes(bytes, off);
        STENC_CUDA_TRY(cudaEventSynchronize(pool.done[b])); // buffer b is free again
        std::memcpy(pool.buffer[b], src + off, len);
        STENC_CUDA_TRY(
            cudaMemcpyAsync(dst + off, pool.buffer[b], len, cudaMemcpyHostToDevice, stream));
        STENC_CUDA_TRY(cudaEventRecord(pool.done[b], stream));
    }
    STENC_CUDA_TRY(cudaStreamSynchronize(stream));
    return STENC_OK;
}

stenc_status staged_download(stenc_ctx *ctx, char *dst, const char *src, size_t bytes) {
    std::lock_guard<std::mutex> guard(pool.lock);
    STENC_TRY(pool_prepare(ctx));
    cudaStream_t stream = stenc_stream(ctx);
    // Chunk c goes through buffer c % 2; chunk c+1 is queued before chunk c is unpacked.
    auto queue = [&](size_t off, int buf) -> stenc_status {
        STENC_CUDA_TRY(cudaMemcpyAsync(pool.buffer[buf], src + off, chunk_bytes(bytes, off),
                                       cudaMemcpyDeviceToHost, stream));
        STENC_CUDA_TRY(cudaEventRecord(pool.done[buf], stream));
        return STENC_OK;
    };
    STENC_TRY(queue(0, 0));
    int b = 0;
    for (size_t off = 0; off < bytes; off += STENC_FIELD_STAGING_CHUNK, b ^= 1) {
        size_t next = off + STENC_FIELD_STAGING_CHUNK;
        if (next < bytes) STENC_TRY(queue(next, b ^ 1));
        STENC_CUDA_TRY(cudaEventSynchronize(pool.done[b]));
        std::memcpy(dst + off, pool.buffer[b], chunk_bytes(bytes, off));
    }
    return STENC_OK;
}

} // namespace

extern "C" stenc_status stenc_field_cuda_upload(stenc_field *field) {
    size_t bytes = stenc_field_bytes(field);
    if (bytes < STENC_FIELD_STAGING_MIN)
        return stenc_cuda_upload(field->ctx, field->device, field->host, bytes);
    return staged_upload(field->ctx, static_cast<char *>(field->device),
                         static_cast<const char *>(field->host), bytes);
}

extern "C" stenc_status stenc_field_cuda_download(stenc_field *field) {
    size_t bytes = stenc_field_bytes(field);
    if (bytes < STENC_FIELD_STAGING_MIN)
        return stenc_cuda_download(field->ctx, field->host, field->device, bytes);
    return staged_download(field->ctx, static_cast<char *>(field->host),
                           static_cast<const char *>(field->device), bytes);
}

// ---- halo fills ------------------------------------------------------------------------------
// One thread per halo point of one dimension: (layer m, side, a, b) where a, b run over the
// whole allocated range of the other two dimensions, the same rule as the host fill (halo.c).

namespace {

constexpr int kHaloFillBlock = 256;      // threads per block; the fill is pure memory traffic
constexpr int kHaloFillBlocksPerSm = 32; // grid cap; the grid-stride loop covers the rest

struct halo_dim_args {
    int kind_lo, kind_hi; // stenc_bc_kind of the two faces
    double value_lo, value_hi;
    long n, h;            // extent and halo along the filled dimension
    long h1, n1, h2, n2;  // halo and extent of the two other dimensions (halo 0 if unused)
    ptrdiff_t sd, s1, s2; // strides
};

__device__ long source_index(int kind, long idx, long n) {
    if (kind == STENC_BC_NEUMANN) return idx < 0 ? 0 : n - 1;
    return ((idx % n) + n) % n; // periodic
}

template <typename T> __global__ void fill_halo_dim_kernel(T *origin, halo_dim_args args) {
    const long len1 = args.n1 + 2 * args.h1, len2 = args.n2 + 2 * args.h2;
    const long total = 2 * args.h * len1 * len2;
    for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < total;
         t += (long)gridDim.x * blockDim.x) {
        long a = t % len1, rest = t / len1;
        long b = rest % len2;
        rest /= len2;
        const int hi_side = (int)(rest % 2);
        const long m = rest / 2 + 1;
        T *line = origin + (a - args.h1) * args.s1 + (b - args.h2) * args.s2;
        const int kind = hi_side ? args.kind_hi : args.kind_lo;
        const long idx = hi_side ? args.n - 1 + m : -m;
        if (kind == STENC_BC_DIRICHLET)
            line[idx * args.sd] = (T)(hi_side ? args.value_hi : args.value_lo);
        else if (kind != STENC_BC_NONE)
            line[idx * args.sd] = line[source_index(kind, idx, args.n) * args.sd];
    }
}

} // namespace

extern "C" stenc_status stenc_field_cuda_fill_halo_dim(stenc_field *field, int d,
                                                       const stenc_bc *lo, const stenc_bc *hi) {
    const stenc_field_layout &L = field->layout;
    const int o1 = d == 0 ? 1 : 0, o2 = d == 2 ? 1 : 2;
    halo_dim_args args;
    args.kind_lo = lo->kind;
    args.kind_hi = hi->kind;
    args.value_lo = lo->value;
    args.value_hi = hi->value;
    args.n = (long)L.n[d];
    args.h = L.halo;
    args.h1 = o1 < L.dims ? L.halo : 0;
    args.h2 = o2 < L.dims ? L.halo : 0;
    args.n1 = (long)L.n[o1];
    args.n2 = (long)L.n[o2];
    args.sd = L.stride[d];
    args.s1 = L.stride[o1];
    args.s2 = L.stride[o2];
    const long total = 2 * args.h * (args.n1 + 2 * args.h1) * (args.n2 + 2 * args.h2);
    // Enough blocks to fill the device a few times over; the grid-stride loop does the rest.
    const long max_blocks = (long)field->ctx->sm_count * kHaloFillBlocksPerSm;
    long blocks = (total + kHaloFillBlock - 1) / kHaloFillBlock;
    if (blocks > max_blocks) blocks = max_blocks;
    if (blocks < 1) blocks = 1;
    cudaStream_t stream = stenc_stream(field->ctx);
    if (L.type == STENC_F32) {
        fill_halo_dim_kernel<float><<<(unsigned)blocks, kHaloFillBlock, 0, stream>>>(
            static_cast<float *>(stenc_field_device_origin(field)), args);
        STENC_CUDA_CHECK_LAUNCH("fill_halo_dim_kernel<float>");
    } else if (L.type == STENC_I32) {
        fill_halo_dim_kernel<int><<<(unsigned)blocks, kHaloFillBlock, 0, stream>>>(
            static_cast<int *>(stenc_field_device_origin(field)), args);
        STENC_CUDA_CHECK_LAUNCH("fill_halo_dim_kernel<int>");
    } else if (L.type == STENC_U8) {
        fill_halo_dim_kernel<unsigned char><<<(unsigned)blocks, kHaloFillBlock, 0, stream>>>(
            static_cast<unsigned char *>(stenc_field_device_origin(field)), args);
        STENC_CUDA_CHECK_LAUNCH("fill_halo_dim_kernel<unsigned char>");
    } else {
        fill_halo_dim_kernel<double><<<(unsigned)blocks, kHaloFillBlock, 0, stream>>>(
            static_cast<double *>(stenc_field_device_origin(field)), args);
        STENC_CUDA_CHECK_LAUNCH("fill_halo_dim_kernel<double>");
    }
    return STENC_OK;
}
