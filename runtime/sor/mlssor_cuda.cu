// MLSSOR, the CUDA half: one kernel per phase, one thread per tile, as in Di et al.
//
// A thread copies its tile's points and their neighbours (at most (n+1)^2 values) into a
// private slice of shared memory, runs the tile's K layers there, and writes back the points it
// updated. Tiles of a phase never read what another writes, so the private copies need no
// synchronisation at all. The slices are interleaved (value e of thread t at e*threads + t): the
// threads of a warp step through their tiles in step, so they hit consecutive words, free of bank
// conflicts. Every product and sum is rounded on its own (no FMA), as on the CPU: the two agree bit
// for bit.
#include "cuda_check.h"
#include "mlssor_internal.h"

namespace {

// Threads per block, by the bytes of one tile's slice: enough blocks per SM for latency, within
// the opt-in shared memory of an H100 (227 KB per block).
constexpr int max_threads = 128;
constexpr size_t target_block_bytes = 48 * 1024;

__device__ inline float mul_rn(float a, float b) {
    return __fmul_rn(a, b);
}
__device__ inline double mul_rn(double a, double b) {
    return __dmul_rn(a, b);
}
__device__ inline float add_rn(float a, float b) {
    return __fadd_rn(a, b);
}
__device__ inline double add_rn(double a, double b) {
    return __dadd_rn(a, b);
}

struct Phase {
    long nx, ny, ox, oy, n;
    int K;
    int ci, cj;
    long p0, q0, np, ntiles;
    ptrdiff_t pitch_u, pitch_f;
};

template <typename T, bool BACKWARD>
__global__ void phase_kernel(T *__restrict__ u, const T *__restrict__ f, Phase ph, T a, T b, T h2) {
    extern __shared__ unsigned char smem_raw[];
    T *slice = reinterpret_cast<T *>(smem_raw) + threadIdx.x;
    const int stride = blockDim.x;
    const long tile = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (tile >= ph.ntiles) return;
    const long p = ph.p0 + tile % ph.np, q = ph.q0 + tile / ph.np;
    long fx0, fx1, fy0, fy1;
    mls_footprint(ph.n, ph.K, ph.ci, p, &fx0, &fx1);
    mls_footprint(ph.n, ph.K, ph.cj, q, &fy0, &fy1);
    mls_clip(ph.ox, ph.nx, &fx0, &fx1);
    mls_clip(ph.oy, ph.ny, &fy0, &fy1);
    if (fx0 > fx1 || fy0 > fy1) return;
    // The copy: the footprint and one point around it (the halo at the grid's edge).
    const long rx0 = fx0 - 1, ry0 = fy0 - 1;
    const int w = (int)(fx1 - fx0 + 3), h = (int)(fy1 - fy0 + 3);
    // Logical (lx, ly) to physical offsets: a backward sweep runs the mirrored grid.
    auto phys = [&](long lx, long ly, ptrdiff_t pitch) -> ptrdiff_t {
        const long x = BACKWARD ? ph.nx - 1 - lx : lx;
        const long y = BACKWARD ? ph.ny - 1 - ly : ly;
        return (ptrdiff_t)y * pitch + x;
    };
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++)
            slice[(r * w + c) * stride] = u[phys(rx0 + c, ry0 + r, ph.pitch_u)];
    // Physical north/south in logical steps: j-1 is logical +1 in a backward sweep. The point
    // just updated (logical west) stays in a register: no shared-memory round trip on the chain.
    const int south = BACKWARD ? w : -w;
    for (long d = 0; d < ph.K; d++) {
        long ilo, ihi, jlo, jhi;
        mls_interval(ph.n, ph.ci, p, d, &ilo, &ihi);
        mls_interval(ph.n, ph.cj, q, d, &jlo, &jhi);
        mls_clip(ph.ox, ph.nx, &ilo, &ihi);
        mls_clip(ph.oy, ph.ny, &jlo, &jhi);
        const int len = (int)(ihi - ilo + 1);
        for (long ly = jlo; ly <= jhi; ly++) {
            int e = (int)((ly - ry0) * w + (ilo - rx0));
            // f along the logical row: physical x falls as lx rises in a backward sweep
            const T *frow = f ? f + phys(ilo, ly, ph.pitch_f) : nullptr;
            T west = slice[(e - 1) * stride];
            for (int c = 0; c < len; c++, e++) {
                const T east = slice[(e + 1) * stride];
                T t = frow ? mul_rn(h2, __ldg(BACKWARD ? frow - c : frow + c)) : T(0);
                t = add_rn(t, BACKWARD ? east : west); // physical i-1
                t = add_rn(t, BACKWARD ? west : east); // physical i+1
                t = add_rn(t, slice[(e + south) * stride]);
                t = add_rn(t, slice[(e - south) * stride]);
                west = add_rn(mul_rn(a, slice[e * stride]), mul_rn(b, t));
                slice[e * stride] = west;
            }
        }
    }
    // Back: only the points this tile updated (a footprint corner may belong to no layer).
    for (long ly = fy0; ly <= fy1; ly++) {
        long jd0, jd1;
        mls_layers(ph.n, ph.K, ph.cj, q, ly + ph.oy, &jd0, &jd1);
        for (long lx = fx0; lx <= fx1; lx++) {
            long id0, id1;
            mls_layers(ph.n, ph.K, ph.ci, p, lx + ph.ox, &id0, &id1);
            if (mls_max(id0, jd0) <= mls_min(id1, jd1))
                u[phys(lx, ly, ph.pitch_u)] = slice[((ly - ry0) * w + (lx - rx0)) * stride];
        }
    }
}

template <typename T> stenc_status sweep(stenc_ctx *ctx, const mls_sweep *s) {
    cudaStream_t stream = stenc_stream(ctx);
    const size_t slice_bytes = (size_t)(s->n + 1) * (size_t)(s->n + 1) * sizeof(T);
    int threads = (int)(target_block_bytes / slice_bytes);
    threads = threads < 1 ? 1 : threads > max_threads ? max_threads : threads;
    int dev, optin;
    STENC_CUDA_TRY(cudaGetDevice(&dev));
    STENC_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (slice_bytes > (size_t)optin)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_mlssor_sweep: subdomain %ld needs %zu bytes of shared memory per "
                           "tile on this GPU, which has %d per block; use a smaller subdomain",
                           s->n, slice_bytes, optin);
    while ((size_t)threads * slice_bytes > (size_t)optin)
        threads--;
    const size_t smem = (size_t)threads * slice_bytes;
    auto kernel = s->backward ? phase_kernel<T, true> : phase_kernel<T, false>;
    STENC_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    for (int phase = s->phase_lo; phase < s->phase_hi; phase++) {
        Phase ph;
        ph.nx = s->nx, ph.ny = s->ny, ph.ox = s->ox, ph.oy = s->oy, ph.n = s->n, ph.K = s->K;
        ph.ci = mls_phase_class(phase, 0), ph.cj = mls_phase_class(phase, 1);
        long p1, q1;
        mls_tile_range(s->n, s->K, ph.ci, s->ox, s->nx, &ph.p0, &p1);
        mls_tile_range(s->n, s->K, ph.cj, s->oy, s->ny, &ph.q0, &q1);
        ph.np = p1 - ph.p0 + 1;
        if (ph.np <= 0 || q1 < ph.q0) continue; // no tile of this phase meets the grid
        ph.ntiles = ph.np * (q1 - ph.q0 + 1);
        ph.pitch_u = s->pitch_u, ph.pitch_f = s->pitch_f;
        const long blocks = (ph.ntiles + threads - 1) / threads;
        kernel<<<(unsigned)blocks, threads, smem, stream>>>(
            (T *)s->u, (const T *)s->f, ph, (T)(1.0 - s->omega), (T)(s->omega * 0.25), (T)s->h2);
        STENC_CUDA_CHECK_LAUNCH("the MLSSOR phase kernel");
    }
    return STENC_OK;
}

} // namespace

extern "C" stenc_status mls_cuda_sweep(stenc_ctx *ctx, const mls_sweep *s) {
    return s->type == STENC_F32 ? sweep<float>(ctx, s) : sweep<double>(ctx, s);
}
