// Multigrid transfers, the CUDA half: one thread per output point, in gather form. The terms
// are added in the order of the CPU kernels (transfer.c) and every weight is a power of two,
// so the results are bitwise those of the CPU.
#include "cuda_check.h"
#include "mg_internal.h"

namespace {

// Threads per block: a warp along i for coalesced rows, several rows per block.
struct TransferPolicy {
    static constexpr int block_x = 32;
    static constexpr int block_y = 8;
};

// What a kernel needs of one field: its interior origin and row/plane strides.
template <typename T> struct Grid {
    T *origin;
    ptrdiff_t s1, s2;
};

struct Shape {
    long n[3];     // extents of the output field
    int used[3];   // 1 for the used dimensions
    long shift[3]; // coarse point I sits on fine point 2I + shift (mg_internal.h)
    int vertex;    // boundary handling of STENC_MG_GRID_VERTEX
};

__device__ inline double restrict_weight(int used, long d) {
    if (!used) return 1.0;
    return d == 0 ? 0.5 : 0.25;
}

template <typename T>
__global__ void restrict_kernel(Grid<T> coarse, Grid<const T> fine, Shape sh, int inject_all) {
    const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    const long j = blockIdx.y * (long)blockDim.y + threadIdx.y;
    const long k = blockIdx.z;
    if (i >= sh.n[0] || j >= sh.n[1]) return;
    const long ci[3] = {i, j, k};
    const ptrdiff_t fs[3] = {1, fine.s1, fine.s2};
    int inject = inject_all;
    ptrdiff_t centre = 0;
    for (int d = 0; d < 3; d++) {
        if (!sh.used[d]) continue;
        centre += (2 * ci[d] + sh.shift[d]) * fs[d];
        if (sh.vertex && (ci[d] == 0 || ci[d] == sh.n[d] - 1)) inject = 1;
    }
    double v = 0.0;
    if (inject) {
        v = (double)fine.origin[centre];
    } else {
        for (long dk = -sh.used[2]; dk <= sh.used[2]; dk++)
            for (long dj = -sh.used[1]; dj <= sh.used[1]; dj++)
                for (long di = -sh.used[0]; di <= sh.used[0]; di++) {
                    double w = restrict_weight(sh.used[2], dk) * restrict_weight(sh.used[1], dj) *
                               restrict_weight(sh.used[0], di);
                    v += w * (double)fine.origin[centre + di + dj * fine.s1 + dk * fine.s2];
                }
    }
    coarse.origin[i + j * coarse.s1 + k * coarse.s2] = (T)v;
}

__device__ inline void prolong_span(int used, long fi, long shift, long *first, int *count) {
    long t = fi - shift; // twice the coarse coordinate
    if (!used) {
        *first = 0;
        *count = 1;
    } else if (t % 2 == 0) {
        *first = t / 2;
        *count = 1;
    } else {
        *first = (t - 1) / 2;
        *count = 2;
    }
}

template <typename T> __global__ void prolong_kernel(Grid<T> fine, Grid<const T> coarse, Shape sh) {
    const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    const long j = blockIdx.y * (long)blockDim.y + threadIdx.y;
    const long k = blockIdx.z;
    if (i >= sh.n[0] || j >= sh.n[1]) return;
    const long fi[3] = {i, j, k};
    long first[3];
    int count[3];
    for (int d = 0; d < 3; d++) {
        prolong_span(sh.used[d], fi[d], sh.shift[d], &first[d], &count[d]);
        if (sh.used[d] && sh.vertex && (fi[d] == 0 || fi[d] == sh.n[d] - 1)) return;
    }
    double v = 0.0;
    for (int ek = 0; ek < count[2]; ek++)
        for (int ej = 0; ej < count[1]; ej++)
            for (int ei = 0; ei < count[0]; ei++) {
                double w = (1.0 / count[2]) * (1.0 / count[1]) * (1.0 / count[0]);
                v += w * (double)coarse.origin[(first[0] + ei) + (first[1] + ej) * coarse.s1 +
                                               (first[2] + ek) * coarse.s2];
            }
    T *at = fine.origin + i + j * fine.s1 + k * fine.s2;
    *at = (T)((double)*at + v);
}

Shape shape_of(const stenc_mg_view *out, stenc_mg_grid grid, const long shift[3]) {
    Shape sh;
    for (int d = 0; d < 3; d++) {
        sh.n[d] = (long)out->layout.n[d];
        sh.used[d] = d < out->layout.dims;
        sh.shift[d] = shift[d];
    }
    sh.vertex = grid == STENC_MG_GRID_VERTEX;
    return sh;
}

template <typename T> Grid<T> grid_of(const stenc_mg_view *v) {
    return Grid<T>{static_cast<T *>(v->origin), v->layout.stride[1], v->layout.stride[2]};
}

stenc_status launch_shape(const char *fn, const Shape &sh, dim3 *blocks, dim3 *threads) {
    *threads = dim3(TransferPolicy::block_x, TransferPolicy::block_y, 1);
    const long gx = (sh.n[0] + TransferPolicy::block_x - 1) / TransferPolicy::block_x;
    const long gy = (sh.n[1] + TransferPolicy::block_y - 1) / TransferPolicy::block_y;
    if (gx > 2147483647L || gy > 65535L || sh.n[2] > 65535L)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: field of %ldx%ldx%ld points exceeds the CUDA grid limits", fn,
                           sh.n[0], sh.n[1], sh.n[2]);
    *blocks = dim3((unsigned)gx, (unsigned)gy, (unsigned)sh.n[2]);
    return STENC_OK;
}

template <typename T>
stenc_status restrict_typed(stenc_ctx *ctx, const stenc_mg_view *coarse, const stenc_mg_view *fine,
                            stenc_mg_grid grid, const long shift[3], stenc_mg_restriction op) {
    const Shape sh = shape_of(coarse, grid, shift);
    dim3 blocks, threads;
    STENC_TRY(launch_shape("stenc_mg_restrict", sh, &blocks, &threads));
    restrict_kernel<T><<<blocks, threads, 0, stenc_stream(ctx)>>>(
        grid_of<T>(coarse), grid_of<const T>(fine), sh, op == STENC_MG_INJECTION);
    STENC_CUDA_CHECK_LAUNCH("restrict_kernel");
    return STENC_OK;
}

template <typename T>
stenc_status prolong_typed(stenc_ctx *ctx, const stenc_mg_view *fine, const stenc_mg_view *coarse,
                           stenc_mg_grid grid, const long shift[3]) {
    const Shape sh = shape_of(fine, grid, shift);
    dim3 blocks, threads;
    STENC_TRY(launch_shape("stenc_mg_prolong_add", sh, &blocks, &threads));
    prolong_kernel<T>
        <<<blocks, threads, 0, stenc_stream(ctx)>>>(grid_of<T>(fine), grid_of<const T>(coarse), sh);
    STENC_CUDA_CHECK_LAUNCH("prolong_kernel");
    return STENC_OK;
}

} // namespace

extern "C" stenc_status stenc_mg_cuda_restrict(stenc_ctx *ctx, const stenc_mg_view *coarse,
                                               const stenc_mg_view *fine, stenc_mg_grid grid,
                                               const long shift[3], stenc_mg_restriction op) {
    if (coarse->layout.type == STENC_F32)
        return restrict_typed<float>(ctx, coarse, fine, grid, shift, op);
    return restrict_typed<double>(ctx, coarse, fine, grid, shift, op);
}

extern "C" stenc_status stenc_mg_cuda_prolong_add(stenc_ctx *ctx, const stenc_mg_view *fine,
                                                  const stenc_mg_view *coarse, stenc_mg_grid grid,
                                                  const long shift[3]) {
    if (fine->layout.type == STENC_F32) return prolong_typed<float>(ctx, fine, coarse, grid, shift);
    return prolong_typed<double>(ctx, fine, coarse, grid, shift);
}
