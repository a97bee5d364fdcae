// The CUDA half of line solves: the identity equations at the non-interior positions of the
// scratch arrays, the uniform coefficients' arrays, and v's halo put back after the solve.
// One block per row of the allocation (grid-stride over rows), its threads over the row's
// columns: all of them in a halo row, the few outside the interior in an interior row.
#include "cuda_check.h"
#include "lines_internal.h"

namespace {

constexpr int kLinesBlock = 128;      // threads per row; an interior row has few outside columns
constexpr int kLinesBlocksPerSm = 32; // grid cap; the grid-stride loop over rows does the rest

template <typename T>
__global__ void fill_uniform_kernel(lns_geometry g, T *array, T inside, T outside) {
    const size_t total = g.rows * g.planes;
    for (size_t row = blockIdx.x; row < total; row += gridDim.x) {
        const int interior = lns_row_interior(&g, row);
        T *line = array + row * g.pitch;
        for (size_t c = threadIdx.x; c < g.pitch; c += blockDim.x)
            line[c] = interior && c >= g.lead && c < g.lead + g.n0 ? inside : outside;
    }
}

template <typename T>
__global__ void fill_identity_kernel(lns_geometry g, T *lower, T *diag, T *upper, T *rhs,
                                     const T *v) {
    const size_t total = g.rows * g.planes;
    for (size_t row = blockIdx.x; row < total; row += gridDim.x) {
        const int interior = lns_row_interior(&g, row);
        const size_t count = lns_outside_count(&g, interior), base = row * g.pitch;
        for (size_t t = threadIdx.x; t < count; t += blockDim.x) {
            const size_t c = lns_outside_column(&g, interior, t), q = base + c;
            if (lower) lower[q] = T(0);
            if (diag) diag[q] = T(1);
            if (upper) upper[q] = T(0);
            if (rhs) rhs[q] = lns_is_padding(&g, c) ? T(0) : v[q];
        }
    }
}

template <typename T> __global__ void restore_halo_kernel(lns_geometry g, T *v, const T *rhs) {
    const size_t total = g.rows * g.planes;
    for (size_t row = blockIdx.x; row < total; row += gridDim.x) {
        const int interior = lns_row_interior(&g, row);
        const size_t count = lns_outside_count(&g, interior), base = row * g.pitch;
        for (size_t t = threadIdx.x; t < count; t += blockDim.x) {
            const size_t c = lns_outside_column(&g, interior, t);
            if (!lns_is_padding(&g, c)) v[base + c] = rhs[base + c];
        }
    }
}

unsigned row_blocks(const stenc_ctx *ctx, const lns_geometry *g) {
    const size_t total = g->rows * g->planes, cap = (size_t)ctx->sm_count * kLinesBlocksPerSm;
    const size_t blocks = total < cap ? total : cap;
    return blocks ? (unsigned)blocks : 1u;
}

template <typename T>
stenc_status fill_uniform(stenc_ctx *ctx, const lns_geometry *g, void *array, double inside,
                          double outside) {
    fill_uniform_kernel<T><<<row_blocks(ctx, g), kLinesBlock, 0, stenc_stream(ctx)>>>(
        *g, static_cast<T *>(array), (T)inside, (T)outside);
    STENC_CUDA_CHECK_LAUNCH("fill_uniform_kernel");
    return STENC_OK;
}

template <typename T>
stenc_status fill_identity(stenc_ctx *ctx, const lns_geometry *g, void *lower, void *diag,
                           void *upper, void *rhs, const void *v) {
    fill_identity_kernel<T><<<row_blocks(ctx, g), kLinesBlock, 0, stenc_stream(ctx)>>>(
        *g, static_cast<T *>(lower), static_cast<T *>(diag), static_cast<T *>(upper),
        static_cast<T *>(rhs), static_cast<const T *>(v));
    STENC_CUDA_CHECK_LAUNCH("fill_identity_kernel");
    return STENC_OK;
}

template <typename T>
stenc_status restore_halo(stenc_ctx *ctx, const lns_geometry *g, void *v, const void *rhs) {
    restore_halo_kernel<T><<<row_blocks(ctx, g), kLinesBlock, 0, stenc_stream(ctx)>>>(
        *g, static_cast<T *>(v), static_cast<const T *>(rhs));
    STENC_CUDA_CHECK_LAUNCH("restore_halo_kernel");
    return STENC_OK;
}

} // namespace

extern "C" {

stenc_status lns_cuda_fill_uniform(stenc_ctx *ctx, const lns_geometry *g, stenc_type type,
                                   void *array, double inside, double outside) {
    return type == STENC_F32 ? fill_uniform<float>(ctx, g, array, inside, outside)
                             : fill_uniform<double>(ctx, g, array, inside, outside);
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

} // extern "C"
