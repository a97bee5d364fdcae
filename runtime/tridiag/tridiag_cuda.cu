// The CUDA half of the batched tridiagonal solvers.
//
// Kernels (all one-block-per-group-of-systems unless said otherwise):
//   tpcr      THOMAS_PCR: each thread runs Thomas-like elimination over a chunk of rows held in
//             shared memory, leaving two boundary equations per chunk; one warp solves the
//             reduced system of chunk ends (the same partition again, then PCR in registers
//             with shuffles; PCR in shared memory when the system has more than 128 chunks);
//             each thread then substitutes back. Several small systems share a block. With one
//             chunk per system it is plain Thomas from shared memory.
//   crpcr     CR (bank-padded, in place) down to `switch` equations, PCR on those, CR back
//             substitution. switch 1 is plain CR, switch >= n is plain PCR.
//   pcrthomas PCR until the system splits into `switch` interleaved subsystems, then one thread
//             per subsystem runs Thomas.
//             Tiles move as 16-byte vectors when the arrays allow it.
//   thomas_il one thread per system on interleaved data: every load and store is coalesced;
//             c' and d' in shared memory when they fit (thomas_il_smem), else in scratch.
//   gp_*      systems larger than shared memory: the chunk elimination of tpcr over tiles of
//             global memory, a recursive solve of the reduced system, then back substitution.
// The chapter's kernels pad to the next power of two with identity rows (a=0, b=1, c=0, d=0),
// which decouple exactly, so any n works. Interleaved batches too small for thomas_il are
// transposed, solved contiguously and transposed back.
//
// Divisions are reciprocals (recip: hardware approximation and Newton steps) times the
// dividend. Zero pivots: every division checks its divisor and every solution is checked for being
// finite; a failing system's index goes into a device flag with atomicMin (one atomic per
// failing system or thread, none on the good path).
//
// Scratch and the waiting call's flag are per context (tdg_cache, under tridiag_key).
#include <cstdint>
#include <new>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "tridiag_internal.h"

namespace {

// ---- tunables ----------------------------------------------------------------------------

struct tdg_policy {
    static constexpr int block_threads = 128; // threads a tpcr block aims for
    static constexpr int max_threads = 1024;  // CUDA's per-block limit
    // THOMAS_PCR rows per thread (switch). Float: 16, the best in every benchmark case but
    // n = 4096 (32 is 4-10% faster there). Double: 8 up to n = 1024 (the reduced system then has at
    // most 128 chunks and is solved by one warp), 7-12% faster than 16 there (1.5% slower at
    // 1024 x 16384); 16 above (4096: 21% faster than 8). H100, bench/tridiag/RESULTS.md.
    static constexpr int thomas_pcr_rows_f32 = 16;
    static constexpr int thomas_pcr_rows_f64_small = 8;
    static constexpr int thomas_pcr_small_max_n = 1024;
    static constexpr int thomas_pcr_rows_f64 = 16;
    static constexpr int cr_pcr_switch = 128;       // CR_PCR: chapter's best switch point
    static constexpr int pcr_thomas_switch = 64;    // PCR_THOMAS: subsystems for Thomas
    static constexpr int chapter_max_threads = 512; // block size cap for crpcr / pcrthomas
    static constexpr int global_rows = 16;          // gp_*: rows per thread
    static constexpr int global_threads = 128;      // gp_*: threads per block
    static constexpr int interleaved_threads = 128;
    // Interleaved one-thread-per-system Thomas needs many systems and short ones: at n = 1024
    // the transpose + THOMAS_PCR path measured 2x faster, at n <= 256 Thomas won.
    static constexpr long long interleaved_min_batch = 8192;
    static constexpr int interleaved_max_n = 512;
    static constexpr int transpose_tile = 32;
    static constexpr int transpose_rows = 8;
    static constexpr size_t default_smem = 48 * 1024; // above this a kernel must opt in
    // tpcr tile loads and stores: 16-byte vectors when aligned, `tile_unroll` of them per
    // thread in flight before any is used (one memory round trip instead of one per row).
    static constexpr int vector_bytes = 16;
    static constexpr int tile_unroll = 4;
    static constexpr int small_block_threads = 256;
    static constexpr int big_block_unroll = 2;
    // Interleaved Thomas with c' and d' kept in shared memory (no scratch traffic) while
    // 2 * n * il_smem_threads * sizeof(T) <= il_smem_max; il_unroll rows loaded ahead.
    static constexpr int il_smem_threads = 64;
    static constexpr size_t il_smem_max = 64 * 1024;
    static constexpr int il_unroll = 4;
    // THOMAS_PCR solves its reduced system (two equations per chunk) with one warp while each
    // lane's share of it is at most this many rows (up to 128 chunks: n <= 2048 at 16 rows per
    // thread): the lane reduces its share to two equations, PCR on those runs in registers.
    // Beyond, the lanes' serial chains would outlast PCR in shared memory by all the system's
    // threads, which is kept for that case.
    static constexpr int warp_reduced_rows = 8;
    // Scratch grows to 5/4 of the request, so that slowly growing sizes do not reallocate.
    static constexpr size_t scratch_slack_num = 5, scratch_slack_den = 4;
};

// ---- device helpers ----------------------------------------------------------------------

// One pad element per 32 removes CR's power-of-two-stride bank conflicts (chapter 11.4.5).
__device__ __forceinline__ int padi(int i) {
    return i + (i >> 5);
}
__host__ __device__ inline int padded_len(int n) {
    return n + ((n - 1) >> 5) + 1;
}

template <class T> __device__ __forceinline__ bool bad_pivot(T v) {
    return !(fabs(v) > T(0)) || isinf(v);
}

// 1/x for the eliminations: the hardware approximation refined by Newton steps (within about an
// ulp of 1/x) instead of IEEE division, whose longer sequence sits on every dependency chain.
// Zero, infinite and NaN divisors give NaN or infinity; bad_pivot reports them beforehand.
__device__ __forceinline__ float recip(float x) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return fmaf(r, fmaf(-x, r, 1.0f), r);
}
__device__ __forceinline__ double recip(double x) {
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    r = fma(r, fma(-x, r, 1.0), r);
    return fma(r, fma(-x, r, 1.0), r);
}

__device__ __forceinline__ void flag_system(unsigned long long *flag, long long sys) {
    atomicMin(flag, (unsigned long long)sys);
}

// Rows [0, L) of a chunk, row i at index at(i) of A, B, C, D. Leaves interior rows as
//   a'_i x_0 + x_i + c'_i x_{L-1} = d'_i   (a', c', d' in A, C, D; B unchanged)
// and returns the chunk's boundary equations in out[0] (first row: on x_{-1}, x_0, x_{L-1})
// and out[1] (last row: on x_0, x_{L-1}, x_L). Rows 0 and L-1 keep their original values.
// Each loop loads the next row before it works on the current one (the stores to the same
// arrays would otherwise keep the compiler from hoisting the loads off the dependency chain).
template <class T, class At>
__device__ void chunk_reduce(T *A, T *B, T *C, T *D, At at, int L, T out[2][4], bool &bad) {
    if (L <= 2) {
#pragma unroll
        for (int q = 0; q < 2; q++)
            if (q < L) {
                int k = at(q);
                out[q][0] = A[k], out[q][1] = B[k], out[q][2] = C[k], out[q][3] = D[k];
            }
        return;
    }
    // Forward: eliminate the sub-diagonal of rows 1 .. L-2, keeping the coupling to x_0.
    int k = at(1);
    T b1 = B[k];
    bad |= bad_pivot(b1);
    T r = recip(b1);
    T ap = A[k] * r, cp = C[k] * r, dp = D[k] * r;
    A[k] = ap, C[k] = cp, D[k] = dp;
    int kn = at(2);
    T an = A[kn], bn = B[kn], cn = C[kn], dn = D[kn];
    for (int i = 2; i < L - 1; i++) {
        k = kn;
        const T ai = an, bi = bn, ci = cn, di = dn;
        kn = at(i + 1);
        an = A[kn], bn = B[kn], cn = C[kn], dn = D[kn];
        T piv = bi - ai * cp;
        bad |= bad_pivot(piv);
        r = recip(piv);
        ap = -ai * ap * r;
        cp = ci * r;
        dp = (di - ai * dp) * r;
        A[k] = ap, C[k] = cp, D[k] = dp;
    }
    // (an, bn, cn, dn) is row L-1 now.
    out[1][0] = -an * ap;
    out[1][1] = bn - an * cp;
    out[1][2] = cn;
    out[1][3] = dn - an * dp;
    // Backward: eliminate the super-diagonal of rows L-3 .. 1 in favour of x_{L-1}.
    if (L >= 4) {
        kn = at(L - 3);
        an = A[kn], cn = C[kn], dn = D[kn];
        for (int i = L - 3; i >= 1; i--) {
            k = kn;
            const T ai = an, ci = cn, di = dn;
            if (i > 1) {
                kn = at(i - 1);
                an = A[kn], cn = C[kn], dn = D[kn];
            }
            dp = di - ci * dp;
            ap = ai - ci * ap;
            cp = -ci * cp;
            A[k] = ap, C[k] = cp, D[k] = dp;
        }
    }
    // Here ap, cp, dp are row 1's final coefficients.
    k = at(0);
    T c0 = C[k];
    out[0][0] = A[k];
    out[0][1] = B[k] - c0 * ap;
    out[0][2] = -c0 * cp;
    out[0][3] = D[k] - c0 * dp;
}

// With x_0 and x_{L-1} known, the interior rows give their unknowns; all go into D.
template <class T, class At>
__device__ void chunk_substitute(const T *A, const T *C, T *D, At at, int L, T x0, T xl,
                                 bool &bad) {
    D[at(0)] = x0;
    if (L >= 2) D[at(L - 1)] = xl;
    for (int i = 1; i < L - 1; i++) {
        int k = at(i);
        T xi = D[k] - A[k] * x0 - C[k] * xl;
        bad |= !isfinite(xi);
        D[k] = xi;
    }
    bad |= !isfinite(x0) || !isfinite(xl);
}

// Number of reduced equations of n rows cut into chunks of m rows: two per chunk, one for a
// trailing chunk of one row.
__host__ __device__ inline int reduced_rows(int n, int m) {
    int p = (n + m - 1) / m, last = n - (p - 1) * m;
    return 2 * (p - 1) + (last >= 2 ? 2 : 1);
}

// One PCR step over rows [0, rows) of a system stored contiguously in src (4 arrays at stride
// `ld`), written to dst. Threads tid, tid+nt, ... take the rows.
template <class T>
__device__ void pcr_step(const T *src, T *dst, int ld, int rows, int s, int tid, int nt,
                         bool &bad) {
    const T *a = src, *b = src + ld, *c = src + 2 * ld, *d = src + 3 * ld;
    for (int r = tid; r < rows; r += nt) {
        T k1 = 0, k2 = 0, am = 0, cm = 0, dm = 0, ap = 0, cp = 0, dp = 0;
        if (r - s >= 0) {
            T bm = b[r - s];
            bad |= bad_pivot(bm);
            k1 = a[r] * recip(bm), am = a[r - s], cm = c[r - s], dm = d[r - s];
        }
        if (r + s < rows) {
            T bp = b[r + s];
            bad |= bad_pivot(bp);
            k2 = c[r] * recip(bp), ap = a[r + s], cp = c[r + s], dp = d[r + s];
        }
        dst[r] = -am * k1;
        dst[ld + r] = b[r] - cm * k1 - ap * k2;
        dst[2 * ld + r] = -cp * k2;
        dst[3 * ld + r] = d[r] - dm * k1 - dp * k2;
    }
}

// PCR to completion on `rows` equations with ping-pong buffers buf[0], buf[1] (4*ld each).
// Leaves x in buf[0]'s d array. All threads of the block must call it.
template <class T>
__device__ void pcr_solve(T *buf0, T *buf1, int ld, int rows, int tid, int nt, bool &bad) {
    T *src = buf0, *dst = buf1;
    for (int s = 1; s < rows; s <<= 1) {
        pcr_step(src, dst, ld, rows, s, tid, nt, bad);
        __syncthreads();
        T *t = src;
        src = dst, dst = t;
    }
    for (int r = tid; r < rows; r += nt) {
        T b = src[ld + r];
        bad |= bad_pivot(b);
        buf0[3 * ld + r] = src[3 * ld + r] * recip(b);
    }
    __syncthreads();
}

// The reduced system of a group of w lanes (w a power of two <= 32, the group aligned to w
// lanes of one warp, `mask` the participating lanes of this warp): `rows` equations, row r at
// A..D[padi(r)]. Lane lt eliminates rows [lt*mr, lt*mr + mr) to their two end equations (with
// mr = 2: the rows themselves); PCR solves the 2w end equations in registers with shuffles,
// each row normalised to b = 1 (one reciprocal per row and step, three values per neighbour);
// the lane substitutes back. The solution ends in D. No block barrier: the partition method a
// second time, instead of log2(rows) barrier-separated PCR steps in shared memory.
template <class T>
__device__ void warp_reduced_solve(T *A, T *B, T *C, T *D, int rows, int mr, int w, int lt,
                                   unsigned mask, bool &bad) {
    const int r0 = lt * mr, L = max(0, min(mr, rows - r0));
    auto at = [&](int i) { return padi(r0 + i); };
    // Rows past the end are identity rows (a=0, b=1, c=0, d=0); they decouple exactly.
    T e[2][4] = {{T(0), T(1), T(0), T(0)}, {T(0), T(1), T(0), T(0)}};
    if (L > 0) chunk_reduce(A, B, C, D, at, L, e, bad);
#pragma unroll
    for (int q = 0; q < 2; q++) {
        bad |= bad_pivot(e[q][1]);
        T rb = recip(e[q][1]);
        e[q][0] *= rb, e[q][2] *= rb, e[q][3] *= rb;
    }
    // Row (a, 1, c, d) absorbs its neighbours m (at -s) and p (at +s), each (a, c, d); an
    // absent neighbour (has_m, has_p false) is all zero.
    auto combine = [&](T(&row)[4], const T(&m)[3], bool has_m, const T(&p)[3], bool has_p) {
        const T ma = has_m ? m[0] : T(0), mc = has_m ? m[1] : T(0), md = has_m ? m[2] : T(0);
        const T pa = has_p ? p[0] : T(0), pc = has_p ? p[1] : T(0), pd = has_p ? p[2] : T(0);
        T nb = T(1) - row[0] * mc - row[2] * pa;
        bad |= bad_pivot(nb);
        T rb = recip(nb);
        T na = -row[0] * ma * rb, nc = -row[2] * pc * rb;
        row[3] = (row[3] - row[0] * md - row[2] * pd) * rb;
        row[0] = na, row[2] = nc;
    };
    {
        // Stride 1: row 2lt's neighbours are lane lt-1's second row and this lane's second;
        // row 2lt+1's are this lane's first and lane lt+1's first.
        T m[3], p[3], own0[3] = {e[0][0], e[0][2], e[0][3]}, own1[3] = {e[1][0], e[1][2], e[1][3]};
#pragma unroll
        for (int j = 0; j < 3; j++) {
            m[j] = __shfl_up_sync(mask, own1[j], 1, w);
            p[j] = __shfl_down_sync(mask, own0[j], 1, w);
        }
        combine(e[0], m, lt > 0, own1, true);
        combine(e[1], own0, true, p, lt < w - 1);
    }
    // Stride 2t: row 2lt+q's neighbours are the rows q of lanes lt-t and lt+t.
    for (int t = 1; t < w; t <<= 1) {
        T m[2][3], p[2][3];
#pragma unroll
        for (int q = 0; q < 2; q++) {
            const T v[3] = {e[q][0], e[q][2], e[q][3]};
#pragma unroll
            for (int j = 0; j < 3; j++) {
                m[q][j] = __shfl_up_sync(mask, v[j], t, w);
                p[q][j] = __shfl_down_sync(mask, v[j], t, w);
            }
        }
#pragma unroll
        for (int q = 0; q < 2; q++)
            combine(e[q], m[q], lt >= t, p[q], lt + t < w);
    }
    if (L > 0) chunk_substitute(A, C, D, at, L, e[0][3], L >= 2 ? e[1][3] : e[0][3], bad);
}

// ---- THOMAS_PCR in shared memory ---------------------------------------------------------

// A vector of VW elements of T for 16-byte loads (VW = 1: T itself).
template <class T, int VW> struct vec_t { using type = T; };
template <> struct vec_t<float, 4> { using type = float4; };
template <> struct vec_t<double, 2> { using type = double2; };

// `total` elements (whole systems of n rows) from global memory into the padded smem arrays,
// system g at g*np, a[0] and c[n-1] zeroed, as vectors of VW elements (VW divides n and the
// pointers are VW-element aligned; VW = 1: scalars), U per thread loaded before any is stored.
template <class T, int VW, int U>
__device__ __forceinline__ void tile_load(int n, int np, int total, const T *__restrict__ a,
                                          const T *__restrict__ b, const T *__restrict__ c,
                                          const T *d, T *A, T *B, T *C, T *D) {
    using V = typename vec_t<T, VW>::type;
    const int nv = total / VW, step = blockDim.x;
    const V *va = reinterpret_cast<const V *>(a), *vb = reinterpret_cast<const V *>(b);
    const V *vc = reinterpret_cast<const V *>(c), *vd = reinterpret_cast<const V *>(d);
    for (int v0 = threadIdx.x; v0 < nv; v0 += U * step) {
        V ra[U], rb[U], rc[U], rd[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            int v = v0 + u * step;
            if (v < nv) ra[u] = va[v], rb[u] = vb[v], rc[u] = vc[v], rd[u] = vd[v];
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            int v = v0 + u * step;
            if (v >= nv) break;
            const int k = v * VW, g = k / n, i0 = k - g * n;
            const T *pa = reinterpret_cast<const T *>(&ra[u]);
            const T *pb = reinterpret_cast<const T *>(&rb[u]);
            const T *pc = reinterpret_cast<const T *>(&rc[u]);
            const T *pd = reinterpret_cast<const T *>(&rd[u]);
#pragma unroll
            for (int j = 0; j < VW; j++) {
                int i = i0 + j, s = g * np + padi(i);
                A[s] = i > 0 ? pa[j] : T(0);
                B[s] = pb[j];
                C[s] = i < n - 1 ? pc[j] : T(0);
                D[s] = pd[j];
            }
        }
    }
}

// The solution (in D) back to global memory, the same way tile_load reads.
template <class T, int VW>
__device__ __forceinline__ void tile_store(int n, int np, int total, const T *D, T *x) {
    using V = typename vec_t<T, VW>::type;
    const int nv = total / VW;
    V *vx = reinterpret_cast<V *>(x);
    for (int v = threadIdx.x; v < nv; v += blockDim.x) {
        const int k = v * VW, g = k / n, i0 = k - g * n;
        V r;
        T *pr = reinterpret_cast<T *>(&r);
#pragma unroll
        for (int j = 0; j < VW; j++)
            pr[j] = D[g * np + padi(i0 + j)];
        vx[v] = r;
    }
}

struct tpcr_shape {
    int m;    // rows per thread
    int tps;  // threads per system: the chunks, rounded up to a power of two below 32 and to a
              // multiple of 32 above, so that a system's first w lanes are one aligned group
    int spb;  // systems per block
    int np;   // padded smem stride of one system
    int rmax; // reduced-system capacity per system (padded)
    int w;    // lanes of the warp-level reduced solve: min(tps, 32)
    int mr;   // its reduced rows per lane; 0: PCR on the reduced system in shared memory
    size_t smem;
};

// Shared memory: A,B,C,D (spb * np each), the reduced systems (4*spb*rmax, twice for the
// ping-pong of PCR in shared memory), then spb failure flags.
template <class T> __host__ size_t tpcr_smem(int np, int rmax, int spb, bool block_pcr) {
    return (size_t)spb * (4 * (size_t)np + (block_pcr ? 8 : 4) * (size_t)rmax) * sizeof(T) +
           spb * sizeof(int);
}

// MAXT: the most threads a launch uses. Blocks of up to small_block_threads get the registers
// for tile_unroll vectors in flight; larger blocks (up to max_threads) fewer (big_block_unroll)
// so that the kernel does not spill.
template <class T, int VW, int MAXT>
__global__ void __launch_bounds__(MAXT)
    tpcr_kernel(int n, long long batch, tpcr_shape sh, const T *__restrict__ a,
                const T *__restrict__ b, const T *__restrict__ c, const T *d, T *x,
                unsigned long long *flag) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *A = reinterpret_cast<T *>(smem_raw);
    const int np = sh.np, spb = sh.spb, tps = sh.tps, m = sh.m, rmax = sh.rmax;
    const bool block_pcr = sh.mr == 0;
    T *B = A + spb * np, *C = B + spb * np, *D = C + spb * np;
    T *R0 = D + spb * np, *R1 = R0 + 4 * spb * rmax;
    int *sbad = reinterpret_cast<int *>(R0 + (block_pcr ? 8 : 4) * spb * rmax);
    const long long sys0 = (long long)blockIdx.x * spb;
    const int nsys = (int)min((long long)spb, batch - sys0);
    const long long base = sys0 * n;
    const int total = nsys * n;
    if (threadIdx.x < spb) sbad[threadIdx.x] = 0;
    constexpr int U = MAXT <= tdg_policy::small_block_threads ? tdg_policy::tile_unroll
                                                              : tdg_policy::big_block_unroll;
    tile_load<T, VW, U>(n, np, total, a + base, b + base, c + base, d + base, A, B, C, D);
    __syncthreads();

    const int g = threadIdx.x / tps, lt = threadIdx.x - g * tps;
    const int r0 = lt * m, L = max(0, min(m, n - r0));
    const bool active = g < nsys && L > 0;
    bool bad = false;
    auto at = [&](int i) { return g * np + padi(r0 + i); };
    // Reduced rows of system g live at stride spb*rmax in R0 (as one ld-strided system each),
    // padded for the warp-level solve (its lanes read chunks at a stride of mr rows), packed
    // for PCR in shared memory.
    const int ld = spb * rmax;
    T *Rg0 = R0 + g * rmax, *Rg1 = R1 + g * rmax;
    auto ridx = [&](int r) { return block_pcr ? r : padi(r); };
    if (active) {
        T out[2][4];
        chunk_reduce(A, B, C, D, at, L, out, bad);
#pragma unroll
        for (int q = 0; q < 2; q++)
            if (q == 0 || L >= 2)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    Rg0[j * ld + ridx(2 * lt + q)] = out[q][j];
    }
    __syncthreads();
    const int rows = reduced_rows(n, m);
    if (!block_pcr) {
        const int wbase = threadIdx.x & ~31, wn = min(32, (int)blockDim.x - wbase);
        const bool solver = g < nsys && lt < sh.w;
        const unsigned mask = __ballot_sync(wn == 32 ? 0xffffffffu : (1u << wn) - 1, solver);
        if (solver)
            warp_reduced_solve(Rg0, Rg0 + ld, Rg0 + 2 * ld, Rg0 + 3 * ld, rows, sh.mr, sh.w, lt,
                               mask, bad);
        __syncthreads();
    } else {
        // PCR on each system's reduced rows; every thread of the block joins the barriers.
        const T *src = Rg0;
        T *dst = Rg1;
        for (int s = 1; s < rows; s <<= 1) {
            if (g < nsys) pcr_step(src, dst, ld, rows, s, lt, tps, bad);
            __syncthreads();
            const T *t = src;
            src = dst, dst = const_cast<T *>(t);
        }
        if (g < nsys)
            for (int r = lt; r < rows; r += tps) {
                T bb = src[ld + r];
                bad |= bad_pivot(bb);
                Rg0[3 * ld + r] = src[3 * ld + r] * recip(bb);
            }
        __syncthreads();
    }
    if (active) {
        T x0 = Rg0[3 * ld + ridx(2 * lt)], xl = L >= 2 ? Rg0[3 * ld + ridx(2 * lt + 1)] : x0;
        chunk_substitute(A, C, D, at, L, x0, xl, bad);
    }
    if (bad) atomicOr(&sbad[g], 1);
    __syncthreads();
    tile_store<T, VW>(n, np, total, D, x + base);
    if (threadIdx.x < nsys && sbad[threadIdx.x]) flag_system(flag, sys0 + threadIdx.x);
}

// ---- the chapter's kernels: CR-PCR (CR, PCR) and PCR-Thomas --------------------------------

// Load one system padded to N rows with identity rows; idx maps a row to its smem slot.
template <class T, class Idx>
__device__ void load_padded(int n, int N, const T *a, const T *b, const T *c, const T *d, T *A,
                            T *B, T *C, T *D, Idx idx) {
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        int k = idx(i);
        bool in = i < n;
        A[k] = in && i > 0 ? a[i] : T(0);
        B[k] = in ? b[i] : T(1);
        C[k] = in && i < n - 1 ? c[i] : T(0);
        D[k] = in ? d[i] : T(0);
    }
}

// Smem: A,B,C,D padded (4*padded_len(N)), then PCR ping-pong 8*S, then one flag.
template <class T>
__global__ void crpcr_kernel(int n, int N, int S, const T *__restrict__ a, const T *__restrict__ b,
                             const T *__restrict__ c, const T *d, T *x, unsigned long long *flag) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int np = padded_len(N);
    T *A = reinterpret_cast<T *>(smem_raw), *B = A + np, *C = B + np, *D = C + np;
    T *P0 = D + np, *P1 = P0 + 4 * S;
    int *sbad = reinterpret_cast<int *>(P1 + 4 * S);
    const long long sys = blockIdx.x, off = sys * n;
    const int tid = threadIdx.x, nt = blockDim.x;
    if (tid == 0) *sbad = 0;
    load_padded(n, N, a + off, b + off, c + off, d + off, A, B, C, D, padi);
    __syncthreads();
    bool bad = false;
    int size = N, s = 1;
    // CR forward reduction: equations 2s*k + 2s - 1 absorb their neighbours at +-s.
    while (size > S) {
        for (int k = tid; k < size / 2; k += nt) {
            int i = 2 * s * k + 2 * s - 1, im = i - s, ip = i + s;
            int ki = padi(i), km = padi(im);
            T bm = B[km];
            bad |= bad_pivot(bm);
            T k1 = A[ki] * recip(bm);
            T na = -A[km] * k1, nb = B[ki] - C[km] * k1, nc = 0, nd = D[ki] - D[km] * k1;
            if (ip < N) {
                int kp = padi(ip);
                T bp = B[kp];
                bad |= bad_pivot(bp);
                T k2 = C[ki] * recip(bp);
                nb -= A[kp] * k2;
                nc = -C[kp] * k2;
                nd -= D[kp] * k2;
            }
            A[ki] = na, B[ki] = nb, C[ki] = nc, D[ki] = nd;
        }
        s *= 2;
        size /= 2;
        __syncthreads();
    }
    // PCR on the intermediate system: rows s*k + s - 1, copied to a contiguous buffer.
    for (int k = tid; k < size; k += nt) {
        int ki = padi(s * k + s - 1);
        P0[k] = A[ki], P0[S + k] = B[ki], P0[2 * S + k] = C[ki], P0[3 * S + k] = D[ki];
    }
    __syncthreads();
    pcr_solve(P0, P1, S, size, tid, nt, bad);
    for (int k = tid; k < size; k += nt)
        D[padi(s * k + s - 1)] = P0[3 * S + k];
    __syncthreads();
    // CR back substitution: the equations eliminated at stride s, from coarse to fine.
    while (s > 1) {
        s /= 2;
        for (int k = tid; k < N / (2 * s); k += nt) {
            int i = 2 * s * k + s - 1, ki = padi(i);
            T xm = i - s >= 0 ? D[padi(i - s)] : T(0), xp = D[padi(i + s)];
            T bi = B[ki];
            bad |= bad_pivot(bi);
            D[ki] = (D[ki] - A[ki] * xm - C[ki] * xp) * recip(bi);
        }
        __syncthreads();
    }
    for (int i = tid; i < n; i += nt) {
        T xi = D[padi(i)];
        bad |= !isfinite(xi);
        x[off + i] = xi;
    }
    if (bad) atomicOr(sbad, 1);
    __syncthreads();
    if (tid == 0 && *sbad) flag_system(flag, sys);
}

// Smem: two ping-pong systems of N rows (8N), then one flag.
template <class T>
__global__ void pcrthomas_kernel(int n, int N, int S, const T *__restrict__ a,
                                 const T *__restrict__ b, const T *__restrict__ c, const T *d, T *x,
                                 unsigned long long *flag) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *P0 = reinterpret_cast<T *>(smem_raw), *P1 = P0 + 4 * N;
    int *sbad = reinterpret_cast<int *>(P1 + 4 * N);
    const long long sys = blockIdx.x, off = sys * n;
    const int tid = threadIdx.x, nt = blockDim.x;
    if (tid == 0) *sbad = 0;
    load_padded(n, N, a + off, b + off, c + off, d + off, P0, P0 + N, P0 + 2 * N, P0 + 3 * N,
                [](int i) { return i; });
    __syncthreads();
    bool bad = false;
    T *src = P0, *dst = P1;
    // PCR steps until the system splits into S interleaved subsystems.
    for (int s = 1; s < S; s <<= 1) {
        pcr_step(src, dst, N, N, s, tid, nt, bad);
        __syncthreads();
        T *t = src;
        src = dst, dst = t;
    }
    T *A = src, *B = src + N, *C = src + 2 * N, *D = src + 3 * N;
    // Thomas on subsystem j: rows j, j+S, ...; strided access is free of bank conflicts.
    for (int j = tid; j < S; j += nt) {
        T beta = B[j];
        bad |= bad_pivot(beta);
        T r = recip(beta);
        T cp = C[j] * r, dp = D[j] * r;
        C[j] = cp, D[j] = dp;
        for (int i = j + S; i < N; i += S) {
            beta = B[i] - A[i] * cp;
            bad |= bad_pivot(beta);
            r = recip(beta);
            cp = C[i] * r;
            dp = (D[i] - A[i] * dp) * r;
            C[i] = cp, D[i] = dp;
        }
        T xn = dp;
        for (int i = N - S + j - S; i >= 0; i -= S) {
            xn = D[i] - C[i] * xn;
            D[i] = xn;
        }
    }
    __syncthreads();
    for (int i = tid; i < n; i += nt) {
        T xi = D[i];
        bad |= !isfinite(xi);
        x[off + i] = xi;
    }
    if (bad) atomicOr(sbad, 1);
    __syncthreads();
    if (tid == 0 && *sbad) flag_system(flag, sys);
}

// ---- one thread per system on interleaved data -------------------------------------------

// The reciprocal of thomas_il_kernel: recip in float (14% faster than IEEE division at 256 x
// 65536), IEEE division in double (recip measured 12% slower there; H100, 2026-11-21).
template <class T> __device__ __forceinline__ T il_recip(T x) {
    if constexpr (sizeof(T) == 4)
        return recip(x);
    else
        return T(1) / x;
}

// The modified rhs goes into x, the modified super-diagonal into cp (n*batch scratch).
template <class T>
__global__ void thomas_il_kernel(int n, long long batch, const T *__restrict__ a,
                                 const T *__restrict__ b, const T *__restrict__ c, const T *d, T *x,
                                 T *__restrict__ cps, unsigned long long *flag) {
    long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= batch) return;
    bool bad = false;
    T beta = b[s];
    bad |= bad_pivot(beta);
    T r0 = il_recip(beta);
    T cp = n > 1 ? c[s] * r0 : T(0), dp = d[s] * r0;
    cps[s] = cp;
    x[s] = dp;
#pragma unroll 4
    for (int i = 1; i < n; i++) {
        long long k = (long long)i * batch + s;
        beta = b[k] - a[k] * cp;
        bad |= bad_pivot(beta);
        T r = il_recip(beta);
        cp = i < n - 1 ? c[k] * r : T(0);
        dp = (d[k] - a[k] * dp) * r;
        cps[k] = cp;
        x[k] = dp;
    }
    T xn = dp;
    bad |= !isfinite(xn);
#pragma unroll 4
    for (int i = n - 2; i >= 0; i--) {
        long long k = (long long)i * batch + s;
        xn = x[k] - cps[k] * xn;
        bad |= !isfinite(xn);
        x[k] = xn;
    }
    if (bad) flag_system(flag, s);
}

// The same with c' and d' in shared memory (2 * n * blockDim.x elements, row i of thread t
// at i * blockDim.x + t): the minimum traffic, 4 reads and 1 write per unknown. Rows are
// loaded il_unroll at a time, the next group while the current one is eliminated. x is
// written only in the backward pass, after every d has been read, so x may be d.
template <class T>
__global__ void thomas_il_smem_kernel(int n, long long batch, const T *__restrict__ a,
                                      const T *__restrict__ b, const T *__restrict__ c, const T *d,
                                      T *x, unsigned long long *flag) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    constexpr int U = tdg_policy::il_unroll;
    const int nt = blockDim.x, t = threadIdx.x;
    T *CP = reinterpret_cast<T *>(smem_raw), *DP = CP + (size_t)n * nt;
    const long long s = (long long)blockIdx.x * nt + t;
    if (s >= batch) return;
    T na[U], nb[U], nc[U], nd[U];
    auto load = [&](int i0) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            int i = i0 + u;
            if (i < n) {
                long long k = (long long)i * batch + s;
                na[u] = a[k], nb[u] = b[k], nc[u] = c[k], nd[u] = d[k];
            }
        }
    };
    load(0);
    bool bad = false;
    T cp = 0, dp = 0;
    for (int i0 = 0; i0 < n; i0 += U) {
        T ra[U], rb[U], rc[U], rd[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            ra[u] = na[u], rb[u] = nb[u], rc[u] = nc[u], rd[u] = nd[u];
        if (i0 + U < n) load(i0 + U);
#pragma unroll
        for (int u = 0; u < U; u++) {
            int i = i0 + u;
            if (i < n) {
                T ai = i > 0 ? ra[u] : T(0);
                T beta = rb[u] - ai * cp;
                bad |= bad_pivot(beta);
                T r = recip(beta);
                cp = i < n - 1 ? rc[u] * r : T(0);
                dp = (rd[u] - ai * dp) * r;
                CP[(size_t)i * nt + t] = cp;
                DP[(size_t)i * nt + t] = dp;
            }
        }
    }
    T xn = dp;
    bad |= !isfinite(xn);
    x[(long long)(n - 1) * batch + s] = xn;
    for (int i = n - 2; i >= 0; i--) {
        xn = DP[(size_t)i * nt + t] - CP[(size_t)i * nt + t] * xn;
        bad |= !isfinite(xn);
        x[(long long)i * batch + s] = xn;
    }
    if (bad) flag_system(flag, s);
}

// ---- multi-block partition for systems larger than shared memory ------------------------

// Tile of rows [t0, t0 + rows) of system `sys` into smem; a[0] and c[n-1] zeroed.
template <class T>
__device__ void gp_load(int n, long long sys, int t0, int rows, const T *a, const T *b, const T *c,
                        const T *d, T *A, T *B, T *C, T *D) {
    const long long base = sys * n + t0;
    for (int k = threadIdx.x; k < rows; k += blockDim.x) {
        int i = t0 + k, s = padi(k);
        A[s] = i > 0 ? a[base + k] : T(0);
        B[s] = b[base + k];
        C[s] = i < n - 1 ? c[base + k] : T(0);
        D[s] = d[base + k];
    }
}

// Reduced system of each system: R rows at red + sys*R (4 arrays at stride batch*R).
template <class T>
__global__ void gp_reduce_kernel(int n, int m, int tiles, int R, const T *__restrict__ a,
                                 const T *__restrict__ b, const T *__restrict__ c, const T *d,
                                 T *red, long long red_ld, unsigned long long *flag) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int tile_rows = m * blockDim.x, np = padded_len(tile_rows);
    T *A = reinterpret_cast<T *>(smem_raw), *B = A + np, *C = B + np, *D = C + np;
    const long long sys = blockIdx.x / tiles;
    const int tile = blockIdx.x - (int)(sys * tiles), t0 = tile * tile_rows;
    const int rows = min(tile_rows, n - t0);
    gp_load(n, sys, t0, rows, a, b, c, d, A, B, C, D);
    __syncthreads();
    const int r0 = threadIdx.x * m, L = max(0, min(m, rows - r0));
    if (L == 0) return;
    bool bad = false;
    T out[2][4];
    chunk_reduce(
        A, B, C, D, [&](int i) { return padi(r0 + i); }, L, out, bad);
    const long long q = (long long)tile * blockDim.x + threadIdx.x, at = sys * R + 2 * q;
#pragma unroll
    for (int h = 0; h < 2; h++)
        if (h == 0 || L >= 2)
#pragma unroll
            for (int j = 0; j < 4; j++)
                red[j * red_ld + at + h] = out[h][j];
    if (bad) flag_system(flag, sys);
}

template <class T>
__global__ void gp_finish_kernel(int n, int m, int tiles, int R, const T *__restrict__ a,
                                 const T *__restrict__ b, const T *__restrict__ c, const T *d,
                                 const T *__restrict__ xr, T *x, unsigned long long *flag) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int tile_rows = m * blockDim.x, np = padded_len(tile_rows);
    T *A = reinterpret_cast<T *>(smem_raw), *B = A + np, *C = B + np, *D = C + np;
    const long long sys = blockIdx.x / tiles;
    const int tile = blockIdx.x - (int)(sys * tiles), t0 = tile * tile_rows;
    const int rows = min(tile_rows, n - t0);
    gp_load(n, sys, t0, rows, a, b, c, d, A, B, C, D);
    __syncthreads();
    const int r0 = threadIdx.x * m, L = max(0, min(m, rows - r0));
    bool bad = false;
    if (L > 0) {
        T out[2][4];
        auto at_row = [&](int i) { return padi(r0 + i); };
        chunk_reduce(A, B, C, D, at_row, L, out, bad); // the same arithmetic as gp_reduce
        const long long q = (long long)tile * blockDim.x + threadIdx.x, at = sys * R + 2 * q;
        T x0 = xr[at], xl = L >= 2 ? xr[at + 1] : x0;
        chunk_substitute(A, C, D, at_row, L, x0, xl, bad);
    }
    __syncthreads();
    const long long base = sys * n + t0;
    for (int k = threadIdx.x; k < rows; k += blockDim.x)
        x[base + k] = D[padi(k)];
    if (bad) flag_system(flag, sys);
}

// ---- transpose between the layouts -------------------------------------------------------

// out[c][r] = in[r][c] for an rows x cols row-major matrix.
template <class T>
__global__ void transpose_kernel(const T *__restrict__ in, T *__restrict__ out, long long rows,
                                 long long cols) {
    constexpr int TS = tdg_policy::transpose_tile, TR = tdg_policy::transpose_rows;
    __shared__ T tile[TS][TS + 1];
    const long long tx = (cols + TS - 1) / TS, ntiles = tx * ((rows + TS - 1) / TS);
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        long long r0 = (t / tx) * TS, c0 = (t % tx) * TS;
        for (int j = threadIdx.y; j < TS; j += TR) {
            long long r = r0 + j, cc = c0 + threadIdx.x;
            if (r < rows && cc < cols) tile[j][threadIdx.x] = in[r * cols + cc];
        }
        __syncthreads();
        for (int j = threadIdx.y; j < TS; j += TR) {
            long long cc = c0 + j, r = r0 + threadIdx.x;
            if (r < rows && cc < cols) out[cc * rows + r] = tile[threadIdx.x][j];
        }
        __syncthreads();
    }
}

// ---- host side ---------------------------------------------------------------------------

int next_pow2(int n) {
    int p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

template <class K> stenc_status opt_in(K kernel, size_t smem) {
    if (smem > tdg_policy::default_smem)
        STENC_CUDA_TRY(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    return STENC_OK;
}

struct tdg_cache;

template <class T> struct solve_args {
    int n;
    long long batch;
    const T *a, *b, *c, *d;
    T *x;
    unsigned long long *flag;
    tdg_cache *cache;
};

// ---- per-context state: scratch, the singular flag ---------------------------------------

// Kept in the context's slot of tridiag_key and freed with it. The scratch is one device
// buffer, used as a stack: a call computes what it needs (scratch_need), grows the buffer
// when it is too small, and its stages take and give back slices in LIFO order. Calls on a
// context are ordered on its stream, so one call's slices are free for the next.
struct tdg_cache {
    void *scratch;
    size_t cap, used;
    unsigned long long *flag;      // device; TDG_NONE between calls
    unsigned long long *host_flag; // pinned; the flag is copied here before the sync
};

constexpr size_t scratch_align = 256;

size_t align_up(size_t v) {
    return (v + scratch_align - 1) / scratch_align * scratch_align;
}

void cache_release(stenc_ctx *ctx, void *state) {
    tdg_cache *k = static_cast<tdg_cache *>(state);
    cudaStreamSynchronize(stenc_stream(ctx)); // nothing may still use the buffers
    cudaFree(k->scratch);
    cudaFree(k->flag);
    cudaFreeHost(k->host_flag);
    delete k;
}

const stenc_cache_key tridiag_key = {"tridiag"};

stenc_status cache_get(stenc_ctx *ctx, tdg_cache **out) {
    tdg_cache *k = static_cast<tdg_cache *>(stenc_ctx_cache_get(ctx, &tridiag_key));
    if (!k) {
        k = new (std::nothrow) tdg_cache{};
        if (!k) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_tridiag: no host memory");
        stenc_status st = STENC_OK;
        cudaError_t e = cudaMalloc((void **)&k->flag, sizeof *k->flag);
        if (e == cudaSuccess) e = cudaMallocHost((void **)&k->host_flag, sizeof *k->host_flag);
        if (e == cudaSuccess)
            e = cudaMemsetAsync(k->flag, 0xff, sizeof *k->flag, stenc_stream(ctx));
        if (e != cudaSuccess) {
            st = STENC_ERROR(
                e == cudaErrorMemoryAllocation ? STENC_ERR_OUT_OF_MEMORY : STENC_ERR_CUDA,
                "stenc_tridiag: creating the per-context state: %s", cudaGetErrorString(e));
            cudaFree(k->flag);
            cudaFreeHost(k->host_flag);
            delete k;
            return st;
        }
        STENC_TRY(
            stenc_ctx_cache_set(ctx, &tridiag_key, k, cache_release)); // k released on failure
    }
    *out = k;
    return STENC_OK;
}

// Make the scratch at least `bytes` long; the old buffer may still be in use on the stream.
stenc_status scratch_reserve(stenc_ctx *ctx, tdg_cache *k, size_t bytes) {
    k->used = 0;
    if (bytes <= k->cap) return STENC_OK;
    STENC_CUDA_TRY(cudaStreamSynchronize(stenc_stream(ctx)));
    STENC_CUDA_TRY(cudaFree(k->scratch));
    k->scratch = nullptr, k->cap = 0;
    size_t want = bytes / tdg_policy::scratch_slack_den * tdg_policy::scratch_slack_num;
    if (want < bytes) want = bytes;
    if (cudaMalloc(&k->scratch, want) != cudaSuccess) {
        cudaGetLastError();
        want = bytes; // the slack is a convenience; retry without it
        STENC_CUDA_TRY(cudaMalloc(&k->scratch, want));
    }
    k->cap = want;
    return STENC_OK;
}

// A slice of `count` elements from the scratch stack; give it back with scratch_pop.
template <class T> stenc_status scratch_push(tdg_cache *k, T **p, size_t count) {
    size_t bytes = align_up(count * sizeof(T));
    if (k->used + bytes > k->cap)
        return STENC_ERROR(STENC_ERR_INTERNAL,
                           "stenc_tridiag: scratch plan too small (%zu + %zu > %zu)", k->used,
                           bytes, k->cap);
    *p = reinterpret_cast<T *>(static_cast<char *>(k->scratch) + k->used);
    k->used += bytes;
    return STENC_OK;
}
template <class T> void scratch_pop(tdg_cache *k, size_t count) {
    k->used -= align_up(count * sizeof(T));
}

// ---- host side: shapes and dispatch ------------------------------------------------------

// The THOMAS_PCR shape for rows-per-thread m; false when one system does not fit.
template <class T>
bool tpcr_plan(const stenc_ctx *ctx, int n, long long batch, int m, tpcr_shape *sh) {
    // A chunk of one row leaves one reduced equation, not two: chunks have at least 2 rows.
    if (m < 2) m = 2;
    if (m > n) m = n;
    if ((n + m - 1) / m > tdg_policy::max_threads)
        m = (n + tdg_policy::max_threads - 1) / tdg_policy::max_threads;
    sh->m = m;
    const int chunks = (n + m - 1) / m;
    sh->tps = chunks <= 32 ? next_pow2(chunks) : (chunks + 31) / 32 * 32;
    sh->np = padded_len(n) | 1; // odd stride: consecutive systems start in different banks
    sh->rmax = padded_len(2 * sh->tps);
    sh->w = sh->tps < 32 ? sh->tps : 32;
    const int mr = (reduced_rows(n, m) + sh->w - 1) / sh->w;
    sh->mr = mr <= 2 ? 2 : mr <= tdg_policy::warp_reduced_rows ? mr : 0;
    int spb = tdg_policy::block_threads / sh->tps;
    if (spb < 1) spb = 1;
    if (spb > batch) spb = (int)batch;
    // Small systems share a block, but not so much shared memory that only one block fits.
    while (spb > 1 && tpcr_smem<T>(sh->np, sh->rmax, spb, sh->mr == 0) > tdg_policy::default_smem)
        spb--;
    sh->spb = spb;
    sh->smem = tpcr_smem<T>(sh->np, sh->rmax, spb, sh->mr == 0);
    return sh->smem <= ctx->smem_optin;
}

bool aligned_to(const void *p, size_t bytes) {
    return (uintptr_t)p % bytes == 0;
}

template <class T, int VW, int MAXT>
stenc_status launch_tpcr_bounded(stenc_ctx *ctx, const solve_args<T> &p, const tpcr_shape &sh) {
    STENC_TRY(opt_in(tpcr_kernel<T, VW, MAXT>, sh.smem));
    long long blocks = (p.batch + sh.spb - 1) / sh.spb;
    if (blocks > INT32_MAX)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "stenc_tridiag: %lld blocks exceed the grid",
                           blocks);
    tpcr_kernel<T, VW, MAXT><<<(unsigned)blocks, sh.spb * sh.tps, sh.smem, stenc_stream(ctx)>>>(
        p.n, p.batch, sh, p.a, p.b, p.c, p.d, p.x, p.flag);
    STENC_CUDA_CHECK_LAUNCH("tpcr_kernel");
    return STENC_OK;
}

template <class T, int VW>
stenc_status launch_tpcr(stenc_ctx *ctx, const solve_args<T> &p, const tpcr_shape &sh) {
    if (sh.spb * sh.tps <= tdg_policy::small_block_threads)
        return launch_tpcr_bounded<T, VW, tdg_policy::small_block_threads>(ctx, p, sh);
    return launch_tpcr_bounded<T, VW, tdg_policy::max_threads>(ctx, p, sh);
}

// Vector tile loads when every array is 16-byte aligned and a vector never straddles two
// systems (VW divides n); else one element at a time, still tile_unroll in flight.
template <class T>
stenc_status run_tpcr(stenc_ctx *ctx, const solve_args<T> &p, const tpcr_shape &sh) {
    constexpr int VB = tdg_policy::vector_bytes, VW = VB / (int)sizeof(T);
    if (p.n % VW == 0 && aligned_to(p.a, VB) && aligned_to(p.b, VB) && aligned_to(p.c, VB) &&
        aligned_to(p.d, VB) && aligned_to(p.x, VB))
        return launch_tpcr<T, VW>(ctx, p, sh);
    return launch_tpcr<T, 1>(ctx, p, sh);
}

template <class T> size_t crpcr_smem(int N, int S) {
    return (4 * (size_t)padded_len(N) + 8 * (size_t)S) * sizeof(T) + sizeof(int);
}
template <class T> size_t pcrthomas_smem(int N) {
    return 8 * (size_t)N * sizeof(T) + sizeof(int);
}

int chapter_threads(int N) {
    int t = N / 2;
    if (t < 32) t = 32;
    return t > tdg_policy::chapter_max_threads ? tdg_policy::chapter_max_threads : t;
}

// The intermediate-system capacity of CR_PCR: CR halves N until it is <= switch.
int crpcr_intermediate(int N, int sw) {
    int size = N;
    while (size > sw)
        size /= 2;
    return size < 1 ? 1 : size;
}

// 1 when the chapter algorithm `algo` fits in one block's shared memory for size n.
template <class T> bool chapter_fits(const stenc_ctx *ctx, stenc_tridiag_algo algo, int n, int sw) {
    int N = next_pow2(n);
    if (algo == STENC_TRIDIAG_PCR_THOMAS) return pcrthomas_smem<T>(N) <= ctx->smem_optin;
    return crpcr_smem<T>(N, crpcr_intermediate(N, sw)) <= ctx->smem_optin;
}

int chapter_switch(stenc_tridiag_algo algo, int n, int sw) {
    int N = next_pow2(n);
    switch (algo) {
    case STENC_TRIDIAG_CR:
        return 1;
    case STENC_TRIDIAG_PCR:
        return N;
    case STENC_TRIDIAG_CR_PCR:
        return sw > 0 ? sw : tdg_policy::cr_pcr_switch;
    default: { // PCR_THOMAS: a power of two number of subsystems, at most N
        int s = sw > 0 ? sw : tdg_policy::pcr_thomas_switch;
        s = next_pow2(s);
        return s > N ? N : s;
    }
    }
}

template <class T>
stenc_status run_chapter(stenc_ctx *ctx, stenc_tridiag_algo algo, const solve_args<T> &p, int sw) {
    int N = next_pow2(p.n), S = chapter_switch(algo, p.n, sw), threads = chapter_threads(N);
    if (p.batch > INT32_MAX)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "stenc_tridiag: batch %lld too large for %s",
                           p.batch, stenc_tridiag_algo_name(algo));
    if (algo == STENC_TRIDIAG_PCR_THOMAS) {
        size_t smem = pcrthomas_smem<T>(N);
        STENC_TRY(opt_in(pcrthomas_kernel<T>, smem));
        pcrthomas_kernel<T><<<(unsigned)p.batch, threads, smem, stenc_stream(ctx)>>>(
            p.n, N, S, p.a, p.b, p.c, p.d, p.x, p.flag);
        STENC_CUDA_CHECK_LAUNCH("pcrthomas_kernel");
        return STENC_OK;
    }
    int I = crpcr_intermediate(N, S);
    size_t smem = crpcr_smem<T>(N, I);
    STENC_TRY(opt_in(crpcr_kernel<T>, smem));
    crpcr_kernel<T><<<(unsigned)p.batch, threads, smem, stenc_stream(ctx)>>>(p.n, N, I, p.a, p.b,
                                                                             p.c, p.d, p.x, p.flag);
    STENC_CUDA_CHECK_LAUNCH("crpcr_kernel");
    return STENC_OK;
}

template <class T>
stenc_status solve_contiguous(stenc_ctx *ctx, const solve_args<T> &p, stenc_tridiag_algo algo,
                              int sw);

// Systems too large for one block: reduce tiles to chunk-end equations, solve those, finish.
template <class T>
stenc_status run_global(stenc_ctx *ctx, const solve_args<T> &p, stenc_tridiag_algo algo, int sw) {
    const int m = tdg_policy::global_rows, threads = tdg_policy::global_threads;
    const int tile_rows = m * threads, tiles = (p.n + tile_rows - 1) / tile_rows;
    const int R = reduced_rows(p.n, m);
    const long long blocks = (long long)tiles * p.batch, red_ld = (long long)R * p.batch;
    if (blocks > INT32_MAX)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "stenc_tridiag: %lld tiles exceed the grid",
                           blocks);
    T *red = nullptr;
    STENC_TRY(scratch_push(p.cache, &red, 5 * (size_t)red_ld));
    size_t smem = 4 * (size_t)padded_len(tile_rows) * sizeof(T);
    STENC_TRY(opt_in(gp_reduce_kernel<T>, smem));
    STENC_TRY(opt_in(gp_finish_kernel<T>, smem));
    gp_reduce_kernel<T><<<(unsigned)blocks, threads, smem, stenc_stream(ctx)>>>(
        p.n, m, tiles, R, p.a, p.b, p.c, p.d, red, red_ld, p.flag);
    STENC_CUDA_CHECK_LAUNCH("gp_reduce_kernel");
    solve_args<T> q = {
        R,      p.batch, red, red + red_ld, red + 2 * red_ld, red + 3 * red_ld, red + 4 * red_ld,
        p.flag, p.cache};
    STENC_TRY(solve_contiguous(ctx, q, algo, sw));
    gp_finish_kernel<T><<<(unsigned)blocks, threads, smem, stenc_stream(ctx)>>>(
        p.n, m, tiles, R, p.a, p.b, p.c, p.d, red + 4 * red_ld, p.x, p.flag);
    STENC_CUDA_CHECK_LAUNCH("gp_finish_kernel");
    scratch_pop<T>(p.cache, 5 * (size_t)red_ld);
    return STENC_OK;
}

// The rows per thread THOMAS_PCR uses (THOMAS on contiguous data: one chunk per system).
// A chunk count just past a power of two (129 chunks for n = 2064 at 16 rows) costs a
// thread-count step and, past 128, the reduced solve in shared memory instead of one warp:
// then a few more rows per thread bring the count back to the power of two (17 rows there:
// 19% faster at 2064 x 2049 double, 9% at 4112 x 4097; bench/logs/h100_2026-11-26_lines.txt).
template <class T> int tpcr_rows(stenc_tridiag_algo algo, int n, int sw) {
    if (algo == STENC_TRIDIAG_THOMAS) return n;
    if (sw > 0) return sw;
    const int m = sizeof(T) == 4                            ? tdg_policy::thomas_pcr_rows_f32
                  : n <= tdg_policy::thomas_pcr_small_max_n ? tdg_policy::thomas_pcr_rows_f64_small
                                                            : tdg_policy::thomas_pcr_rows_f64;
    const int chunks = (n + m - 1) / m, pow2 = (int)(next_pow2(chunks + 1) / 2);
    if (chunks > pow2 && pow2 >= 32 && 8 * chunks <= 9 * pow2) return (n + pow2 - 1) / pow2;
    return m;
}

// 1 when solve_contiguous runs in one kernel (no run_global, no scratch).
template <class T>
bool contiguous_fits(const stenc_ctx *ctx, int n, long long batch, stenc_tridiag_algo algo,
                     int sw) {
    switch (algo) {
    case STENC_TRIDIAG_CR:
    case STENC_TRIDIAG_PCR:
    case STENC_TRIDIAG_CR_PCR:
    case STENC_TRIDIAG_PCR_THOMAS:
        return chapter_fits<T>(ctx, algo, n, chapter_switch(algo, n, sw));
    default: {
        tpcr_shape sh;
        return tpcr_plan<T>(ctx, n, batch, tpcr_rows<T>(algo, n, sw), &sh) &&
               (algo != STENC_TRIDIAG_THOMAS || sh.tps == 1);
    }
    }
}

// The algorithm run_global hands the reduced system to.
stenc_tridiag_algo global_algo(stenc_tridiag_algo algo) {
    return algo == STENC_TRIDIAG_THOMAS ? STENC_TRIDIAG_THOMAS_PCR : algo;
}

template <class T>
stenc_status solve_contiguous(stenc_ctx *ctx, const solve_args<T> &p, stenc_tridiag_algo algo,
                              int sw) {
    if (!contiguous_fits<T>(ctx, p.n, p.batch, algo, sw))
        return run_global(ctx, p, global_algo(algo), sw);
    switch (algo) {
    case STENC_TRIDIAG_CR:
    case STENC_TRIDIAG_PCR:
    case STENC_TRIDIAG_CR_PCR:
    case STENC_TRIDIAG_PCR_THOMAS:
        return run_chapter(ctx, algo, p, sw);
    default: {
        tpcr_shape sh;
        tpcr_plan<T>(ctx, p.n, p.batch, tpcr_rows<T>(algo, p.n, sw), &sh);
        return run_tpcr(ctx, p, sh);
    }
    }
}

// Scratch bytes solve_contiguous takes (the stack of run_global's reduced systems).
template <class T>
size_t contiguous_need(const stenc_ctx *ctx, int n, long long batch, stenc_tridiag_algo algo,
                       int sw) {
    size_t need = 0;
    while (!contiguous_fits<T>(ctx, n, batch, algo, sw)) {
        algo = global_algo(algo);
        n = reduced_rows(n, tdg_policy::global_rows);
        need += align_up(5 * (size_t)n * batch * sizeof(T));
    }
    return need;
}

template <class T>
stenc_status transpose(stenc_ctx *ctx, const T *in, T *out, long long rows, long long cols) {
    constexpr int TS = tdg_policy::transpose_tile;
    long long tiles = ((rows + TS - 1) / TS) * ((cols + TS - 1) / TS);
    unsigned grid = (unsigned)(tiles < 65535 * 8 ? tiles : 65535 * 8);
    transpose_kernel<T>
        <<<grid, dim3(TS, tdg_policy::transpose_rows), 0, stenc_stream(ctx)>>>(in, out, rows, cols);
    STENC_CUDA_CHECK_LAUNCH("transpose_kernel");
    return STENC_OK;
}

// Interleaved Thomas keeps c' and d' in shared memory when they fit (il_smem_max).
template <class T> size_t il_smem_bytes(int n) {
    return 2 * (size_t)n * tdg_policy::il_smem_threads * sizeof(T);
}
template <class T> bool il_smem_fits(int n) {
    return il_smem_bytes<T>(n) <= tdg_policy::il_smem_max;
}

template <class T> stenc_status run_interleaved_thomas(stenc_ctx *ctx, const solve_args<T> &p) {
    if (il_smem_fits<T>(p.n)) {
        const int threads = tdg_policy::il_smem_threads;
        const size_t smem = il_smem_bytes<T>(p.n);
        STENC_TRY(opt_in(thomas_il_smem_kernel<T>, smem));
        long long blocks = (p.batch + threads - 1) / threads;
        if (blocks > INT32_MAX)
            return STENC_ERROR(STENC_ERR_UNSUPPORTED, "stenc_tridiag: %lld blocks exceed the grid",
                               blocks);
        thomas_il_smem_kernel<T><<<(unsigned)blocks, threads, smem, stenc_stream(ctx)>>>(
            p.n, p.batch, p.a, p.b, p.c, p.d, p.x, p.flag);
        STENC_CUDA_CHECK_LAUNCH("thomas_il_smem_kernel");
        return STENC_OK;
    }
    const int threads = tdg_policy::interleaved_threads;
    long long blocks = (p.batch + threads - 1) / threads;
    if (blocks > INT32_MAX)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "stenc_tridiag: %lld blocks exceed the grid",
                           blocks);
    T *cps = nullptr;
    STENC_TRY(scratch_push(p.cache, &cps, (size_t)p.n * p.batch));
    thomas_il_kernel<T><<<(unsigned)blocks, threads, 0, stenc_stream(ctx)>>>(
        p.n, p.batch, p.a, p.b, p.c, p.d, p.x, cps, p.flag);
    STENC_CUDA_CHECK_LAUNCH("thomas_il_kernel");
    scratch_pop<T>(p.cache, (size_t)p.n * p.batch);
    return STENC_OK;
}

// Interleaved data for a contiguous algorithm: transpose in, solve, transpose out.
template <class T>
stenc_status run_transposed(stenc_ctx *ctx, const solve_args<T> &p, stenc_tridiag_algo algo,
                            int sw) {
    size_t count = (size_t)p.n * p.batch;
    T *buf = nullptr;
    STENC_TRY(scratch_push(p.cache, &buf, 5 * count));
    const T *in[4] = {p.a, p.b, p.c, p.d};
    for (int k = 0; k < 4; k++)
        STENC_TRY(transpose(ctx, in[k], buf + k * count, p.n, p.batch));
    solve_args<T> q = {
        p.n,    p.batch, buf, buf + count, buf + 2 * count, buf + 3 * count, buf + 4 * count,
        p.flag, p.cache};
    STENC_TRY(solve_contiguous(ctx, q, algo, sw));
    STENC_TRY(transpose(ctx, (const T *)(buf + 4 * count), p.x, p.batch, p.n));
    scratch_pop<T>(p.cache, 5 * count);
    return STENC_OK;
}

stenc_tridiag_algo auto_algo(stenc_tridiag_layout layout, long long n, long long batch) {
    if (layout == STENC_TRIDIAG_INTERLEAVED && batch >= tdg_policy::interleaved_min_batch &&
        n <= tdg_policy::interleaved_max_n)
        return STENC_TRIDIAG_THOMAS;
    return STENC_TRIDIAG_THOMAS_PCR;
}

template <class T>
stenc_status solve_typed(stenc_ctx *ctx, const tdg_problem *p, unsigned long long *flag,
                         tdg_cache *k) {
    solve_args<T> args = {(int)p->n,
                          (long long)p->batch,
                          static_cast<const T *>(p->a),
                          static_cast<const T *>(p->b),
                          static_cast<const T *>(p->c),
                          static_cast<const T *>(p->d),
                          static_cast<T *>(p->x),
                          flag,
                          k};
    stenc_tridiag_algo algo =
        p->algo == STENC_TRIDIAG_AUTO ? auto_algo(p->layout, args.n, args.batch) : p->algo;
    const int sw = p->switch_size;
    size_t need;
    if (p->layout == STENC_TRIDIAG_CONTIGUOUS)
        need = contiguous_need<T>(ctx, args.n, args.batch, algo, sw);
    else if (algo == STENC_TRIDIAG_THOMAS)
        need = il_smem_fits<T>(args.n) ? 0 : align_up((size_t)args.n * args.batch * sizeof(T));
    else
        need = align_up(5 * (size_t)args.n * args.batch * sizeof(T)) +
               contiguous_need<T>(ctx, args.n, args.batch, algo, sw);
    STENC_TRY(scratch_reserve(ctx, k, need));
    if (p->layout == STENC_TRIDIAG_CONTIGUOUS) return solve_contiguous(ctx, args, algo, sw);
    if (algo == STENC_TRIDIAG_THOMAS) return run_interleaved_thomas(ctx, args);
    return run_transposed(ctx, args, algo, sw);
}

} // namespace

extern "C" {

stenc_tridiag_algo tdg_cuda_auto_algo(const stenc_ctx *ctx, stenc_type type,
                                      stenc_tridiag_layout layout, size_t n, size_t batch) {
    (void)ctx, (void)type;
    return auto_algo(layout, (long long)n, (long long)batch);
}

stenc_status tdg_cuda_flag_create(stenc_ctx *ctx, void **device_flag) {
    void *f = nullptr;
    STENC_CUDA_TRY(cudaMalloc(&f, sizeof(unsigned long long)));
    cudaError_t e = cudaMemsetAsync(f, 0xff, sizeof(unsigned long long), stenc_stream(ctx));
    if (e != cudaSuccess) {
        cudaFree(f);
        return STENC_ERROR(STENC_ERR_CUDA, "cudaMemsetAsync failed: %s", cudaGetErrorString(e));
    }
    *device_flag = f;
    return STENC_OK;
}

void tdg_cuda_flag_destroy(stenc_ctx *ctx, void *device_flag) {
    cudaStreamSynchronize(stenc_stream(ctx));
    cudaFree(device_flag);
}

stenc_status tdg_cuda_flag_take(stenc_ctx *ctx, void *device_flag, uint64_t *first_bad) {
    tdg_cache *k = nullptr;
    STENC_TRY(cache_get(ctx, &k));
    STENC_CUDA_TRY(cudaMemcpyAsync(k->host_flag, device_flag, sizeof *k->host_flag,
                                   cudaMemcpyDeviceToHost, stenc_stream(ctx)));
    STENC_CUDA_TRY(cudaStreamSynchronize(stenc_stream(ctx)));
    *first_bad = *k->host_flag;
    if (*first_bad != TDG_NONE)
        STENC_CUDA_TRY(cudaMemsetAsync(device_flag, 0xff, sizeof *k->host_flag, stenc_stream(ctx)));
    return STENC_OK;
}

// The waiting call uses the context's cached flag: one 8-byte copy into pinned memory and a
// stream synchronisation; the flag is reset (a memset) only after a failure.
stenc_status tdg_cuda_solve(stenc_ctx *ctx, const tdg_problem *p, void *device_flag,
                            uint64_t *first_bad) {
    *first_bad = TDG_NONE;
    tdg_cache *k = nullptr;
    STENC_TRY(cache_get(ctx, &k));
    const bool own = device_flag == nullptr;
    unsigned long long *flag = own ? k->flag : static_cast<unsigned long long *>(device_flag);
    stenc_status st = p->type == STENC_F32 ? solve_typed<float>(ctx, p, flag, k)
                                           : solve_typed<double>(ctx, p, flag, k);
    if (!own) return st;
    if (st != STENC_OK) {
        // Kernels launched before the failure may have set the flag: clear it for the next call.
        cudaMemsetAsync(flag, 0xff, sizeof *flag, stenc_stream(ctx));
        return st;
    }
    return tdg_cuda_flag_take(ctx, flag, first_bad);
}

} // extern "C"
