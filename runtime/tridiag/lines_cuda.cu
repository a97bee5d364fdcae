// The CUDA half of line solves: the identity equations at the non-interior positions of the
// scratch arrays, the uniform coefficients' arrays, v's halo put back after the solve, and the
// transposes of lines that the solver would otherwise transpose itself (lns_lines).
// The fill and the write-back run a thread per position written (lns_frame_at numbers them),
// so that the grid fits the few thousand positions around a field's interior: those two
// launches around every solve are latency, and a block per row left most threads idle.
#include "cuda_check.h"
#include "lines_internal.h"
#include "stenc/launch.h"

namespace {

constexpr int kLinesBlock = 256;      // threads per block, one position each
constexpr int kLinesBlocksPerSm = 16; // grid cap; a grid-stride loop does the rest
// Transposes: kTile x kTile tiles through shared memory (one column of padding: no bank
// conflicts), kTileRows rows of threads, as the solver's own transpose.
constexpr int kTile = 32;
constexpr int kTileRows = 8;
constexpr int kTilePerThread = kTile / kTileRows;
constexpr int kTileBlocksPerSm = 32;

template <typename T>
__global__ void fill_uniform_kernel(lns_geometry g, lns_lines l, size_t total, T *array, T inside,
                                    T outside) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total; e += stride) {
        size_t row = e / g.pitch, c = e - row * g.pitch; // the allocation's order (l.n == 0)
        if (l.n) {                                       // element i of line s at s * n + i
            const size_t s = e / l.n, i = e - s * l.n;
            row = i * (l.batch / g.pitch) + s / g.pitch;
            c = s % g.pitch;
        }
        array[e] = lns_row_interior(&g, row) && c >= g.lead && c < g.lead + g.n0 ? inside : outside;
    }
}

template <typename T>
__global__ void fill_identity_kernel(lns_geometry g, lns_frame f, T *lower, T *diag, T *upper,
                                     T *rhs, const T *v) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < f.count; t += stride) {
        size_t c;
        const size_t q = lns_frame_at(&f, t, &c);
        if (lower) lower[q] = T(0);
        if (diag) diag[q] = T(1);
        if (upper) upper[q] = T(0);
        rhs[q] = lns_is_padding(&g, c) ? T(0) : v[q];
    }
}

template <typename T> __global__ void restore_halo_kernel(lns_frame f, T *v, const T *rhs) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < f.count; t += stride) {
        size_t c;
        const size_t q = lns_frame_at(&f, t, &c);
        v[q] = rhs[q];
    }
}

template <typename T> struct equations {
    const T *src[4];
    T *dst[4];
};

// Allocation element (i, s) of lines l, i < n, s < batch, is i * batch + s. A tile covers
// lines [s0, s0 + kTile) and elements [i0, i0 + kTile); the threads read along s (the
// allocation's order) and write along i (the transposed lines'). Each thread classifies the
// elements it reads once, for all four arrays.
template <typename T>
__global__ void transpose_in_kernel(lns_geometry g, lns_lines l, equations<T> eq, const T *v) {
    __shared__ T tile[kTile][kTile + 1];
    const size_t tiles_s = (l.batch + kTile - 1) / kTile, rows_per_i = l.batch / g.pitch;
    const size_t tiles = tiles_s * ((l.n + kTile - 1) / kTile);
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const size_t i0 = t / tiles_s * kTile, s0 = t % tiles_s * kTile;
        const size_t s = s0 + threadIdx.x, s_row = s / g.pitch, col = s - s_row * g.pitch;
        int kind[kTilePerThread];
#pragma unroll
        for (int e = 0; e < kTilePerThread; e++) {
            const size_t i = i0 + threadIdx.y + e * kTileRows;
            kind[e] =
                i < l.n && s < l.batch ? lns_kind(&g, (uint32_t)(i * rows_per_i + s_row), col) : -1;
        }
        for (int q = 0; q < 4; q++) {
            if (!eq.dst[q]) continue; // the same in every thread: the barriers stay uniform
#pragma unroll
            for (int e = 0; e < kTilePerThread; e++) {
                if (kind[e] < 0) continue;
                const size_t at = (i0 + threadIdx.y + e * kTileRows) * l.batch + s;
                T x = q == STENC_SOLVE_DIAG ? T(1) : T(0); // the identity equation
                if (kind[e] == LNS_INTERIOR)
                    x = eq.src[q][at];
                else if (q == STENC_SOLVE_RHS && kind[e] == LNS_HALO)
                    x = v[at];
                tile[threadIdx.y + e * kTileRows][threadIdx.x] = x;
            }
            __syncthreads();
#pragma unroll
            for (int e = 0; e < kTilePerThread; e++) {
                const size_t line = s0 + threadIdx.y + e * kTileRows, i = i0 + threadIdx.x;
                if (line < l.batch && i < l.n)
                    eq.dst[q][line * l.n + i] = tile[threadIdx.x][threadIdx.y + e * kTileRows];
            }
            __syncthreads();
        }
    }
}

// The reverse: the threads read the transposed solution along i and write v along s, interior
// points only.
template <typename T>
__global__ void transpose_out_kernel(lns_geometry g, lns_lines l, const T *xt, T *v) {
    __shared__ T tile[kTile][kTile + 1];
    const size_t tiles_i = (l.n + kTile - 1) / kTile, rows_per_i = l.batch / g.pitch;
    const size_t tiles = tiles_i * ((l.batch + kTile - 1) / kTile);
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const size_t s0 = t / tiles_i * kTile, i0 = t % tiles_i * kTile;
#pragma unroll
        for (int e = 0; e < kTilePerThread; e++) {
            const size_t line = s0 + threadIdx.y + e * kTileRows, i = i0 + threadIdx.x;
            if (line < l.batch && i < l.n)
                tile[threadIdx.y + e * kTileRows][threadIdx.x] = xt[line * l.n + i];
        }
        __syncthreads();
        const size_t s = s0 + threadIdx.x, s_row = s / g.pitch, col = s - s_row * g.pitch;
#pragma unroll
        for (int e = 0; e < kTilePerThread; e++) {
            const size_t i = i0 + threadIdx.y + e * kTileRows;
            if (s < l.batch && i < l.n &&
                lns_kind(&g, (uint32_t)(i * rows_per_i + s_row), col) == LNS_INTERIOR)
                v[i * l.batch + s] = tile[threadIdx.x][threadIdx.y + e * kTileRows];
        }
        __syncthreads();
    }
}

// Blocks for `count` positions, one a thread, at most kLinesBlocksPerSm per SM.
unsigned blocks_for(const stenc_ctx *ctx, size_t count) {
    const size_t cap = (size_t)ctx->sm_count * kLinesBlocksPerSm;
    size_t blocks = (count + kLinesBlock - 1) / kLinesBlock;
    if (blocks > cap) blocks = cap;
    return blocks ? (unsigned)blocks : 1u;
}

// Blocks for the tiles of lines l, one each, at most kTileBlocksPerSm per SM.
unsigned tile_blocks(const stenc_ctx *ctx, const lns_lines *l) {
    const size_t tiles = ((l->n + kTile - 1) / kTile) * ((l->batch + kTile - 1) / kTile);
    const size_t cap = (size_t)ctx->sm_count * kTileBlocksPerSm;
    const size_t blocks = tiles < cap ? tiles : cap;
    return blocks ? (unsigned)blocks : 1u;
}

template <typename T>
stenc_status fill_uniform(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l, void *array,
                          double inside, double outside) {
    const size_t total = g->pitch * g->rows * g->planes;
    const lns_lines order = l ? *l : lns_lines{0, 0};
    fill_uniform_kernel<T><<<blocks_for(ctx, total), kLinesBlock, 0, stenc_stream(ctx)>>>(
        *g, order, total, static_cast<T *>(array), (T)inside, (T)outside);
    STENC_CUDA_CHECK_LAUNCH("fill_uniform_kernel");
    return STENC_OK;
}

template <typename T>
stenc_status fill_identity(stenc_ctx *ctx, const lns_geometry *g, void *lower, void *diag,
                           void *upper, void *rhs, const void *v) {
    const lns_frame f = lns_frame_outside(g);
    fill_identity_kernel<T><<<blocks_for(ctx, f.count), kLinesBlock, 0, stenc_stream(ctx)>>>(
        *g, f, static_cast<T *>(lower), static_cast<T *>(diag), static_cast<T *>(upper),
        static_cast<T *>(rhs), static_cast<const T *>(v));
    STENC_CUDA_CHECK_LAUNCH("fill_identity_kernel");
    return STENC_OK;
}

template <typename T>
stenc_status restore_halo(stenc_ctx *ctx, const lns_geometry *g, void *v, const void *rhs) {
    const lns_frame f = lns_frame_halo(g);
    restore_halo_kernel<T><<<blocks_for(ctx, f.count), kLinesBlock, 0, stenc_stream(ctx)>>>(
        f, static_cast<T *>(v), static_cast<const T *>(rhs));
    STENC_CUDA_CHECK_LAUNCH("restore_halo_kernel");
    return STENC_OK;
}

template <typename T>
stenc_status transpose_in(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                          const void *const src[4], void *const dst[4], const void *v) {
    equations<T> eq;
    for (int q = 0; q < 4; q++) {
        eq.src[q] = static_cast<const T *>(src[q]);
        eq.dst[q] = static_cast<T *>(dst[q]);
    }
    transpose_in_kernel<T><<<tile_blocks(ctx, l), dim3(kTile, kTileRows), 0, stenc_stream(ctx)>>>(
        *g, *l, eq, static_cast<const T *>(v));
    STENC_CUDA_CHECK_LAUNCH("transpose_in_kernel");
    return STENC_OK;
}

template <typename T>
stenc_status transpose_out(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                           const void *xt, void *v) {
    transpose_out_kernel<T><<<tile_blocks(ctx, l), dim3(kTile, kTileRows), 0, stenc_stream(ctx)>>>(
        *g, *l, static_cast<const T *>(xt), static_cast<T *>(v));
    STENC_CUDA_CHECK_LAUNCH("transpose_out_kernel");
    return STENC_OK;
}

} // namespace

extern "C" {

stenc_status lns_cuda_fill_uniform(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                                   stenc_type type, void *array, double inside, double outside) {
    return type == STENC_F32 ? fill_uniform<float>(ctx, g, l, array, inside, outside)
                             : fill_uniform<double>(ctx, g, l, array, inside, outside);
}

stenc_status lns_cuda_fill_identity(stenc_ctx *ctx, const lns_geometry *g, stenc_type type,
                                    void *lower, void *diag, void *upper, void *rhs,
                                    const void *v) {
    return type == STENC_F32 ? fill_identity<float>(ctx, g, lower, diag, upper, rhs, v)
                             : fill_identity<double>(ctx, g, lower, diag, upper, rhs, v);
}

stenc_status lns_cuda_restore_halo(stenc_ctx *ctx, const lns_geometry *g, stenc_type type, void *v,
                                   const void *rhs) {
    return type == STENC_F32 ? restore_halo<float>(ctx, g, v, rhs)
                             : restore_halo<double>(ctx, g, v, rhs);
}

stenc_status lns_cuda_transpose_in(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                                   stenc_type type, const void *const src[4], void *const dst[4],
                                   const void *v) {
    return type == STENC_F32 ? transpose_in<float>(ctx, g, l, src, dst, v)
                             : transpose_in<double>(ctx, g, l, src, dst, v);
}

stenc_status lns_cuda_transpose_out(stenc_ctx *ctx, const lns_geometry *g, const lns_lines *l,
                                    stenc_type type, const void *xt, void *v) {
    return type == STENC_F32 ? transpose_out<float>(ctx, g, l, xt, v)
                             : transpose_out<double>(ctx, g, l, xt, v);
}

} // extern "C"
