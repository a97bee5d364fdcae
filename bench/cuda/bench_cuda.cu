// bench_cuda: every generated CUDA variant of every stencil in stencils/, the tuned choice,
// a hand-written naive heat3d kernel (the anchor's, bench/anchors/anchors.cu) and the
// cudaMemcpy device-to-device copy rate, all in one run, in one precision (this file is built
// twice: bench_cuda_float, bench_cuda_double, each against the stencils generated in that
// precision). 3-D stencils at 512^3, 2-D at 8192^2 (--quick: 64^3 and 1024^2); --sizes
// N1,N2,... runs the stencils at each N^3 and (16N)^2 instead, for throughput against size
// (bench/plot.sh). --quiet: no progress lines (on stderr, when it is a terminal).
//
// For each case: Gpts/s, GB/s from the analyser's bytes per point ((inputs + outputs) x
// sizeof(T)), and that rate over the copy rate measured in the same run (the bytes-per-point
// bound). Timing: CUDA events on the context's stream around one launch, after a warm-up,
// median of --reps runs. Correctness in the same run: every interior point of every output
// against the generated C kernel run on the host on the same inputs (bit for bit: the .cu is
// built with -fmad=false), and the naive kernel against it too. Prints key=value lines, then
// a table.
//
// Solver stencils (--solvers runs only these): a red-black sweep of gs_redblack at 8192^2, an
// 8-colour sweep of gs27_8color at 512^3, and residual_norm (a reduction) at 8192^2. A colour
// sweep is measured against the bytes it must move: per array, the distinct 32-byte sectors
// holding a point of the colour or a neighbour it reads (reads and writes counted apart), over
// the sweep's colours (sector_bytes below; docs/cuda.md). Checked bit for bit against the C
// kernel after one full sweep from the same data; residual_norm's r2 against the C target's.
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "progress.h"
#include "stenc/stenc.h"

#include "euler_flux.h"
#include "gs27_8color.h"
#include "gs_redblack.h"
#include "heat3d.h"
#include "jacobi2d.h"
#include "life.h"
#include "residual2d.h"
#include "residual_norm.h"
#include "varcoef27.h"
#include "wave_r2.h"

// Defined by the generated CUDA code; their digests are part of the tuning keys.
extern "C" const stenc_launch_variants heat3d_cuda_variants, varcoef27_cuda_variants,
    euler_flux_cuda_variants, wave_r2_cuda_variants, jacobi2d_cuda_variants,
    residual2d_cuda_variants, life_cuda_variants;

#if BENCH_DOUBLE
typedef double real;
static const char *const kPrecision = "double";
static const stenc_type kType = STENC_F64;
#else
typedef float real;
static const char *const kPrecision = "float";
static const stenc_type kType = STENC_F32;
#endif

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_STENC(call)                                                                          \
    do {                                                                                           \
        stenc_status s_ = (call);                                                                  \
        if (s_ != STENC_OK) {                                                                      \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, stenc_last_error());     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef stenc_status (*run_fn)(stenc_ctx *, const char *, const double *, stenc_field *const *);

static stenc_status r_heat3d(stenc_ctx *c, const char *v, const double *s, stenc_field *const *f) {
    return heat3d_variant(c, v, s[0], s[1], f[0], f[1]);
}
static stenc_status r_jacobi2d(stenc_ctx *c, const char *v, const double *s,
                               stenc_field *const *f) {
    return jacobi2d_variant(c, v, s[0], f[0], f[1], f[2]);
}
static stenc_status r_residual2d(stenc_ctx *c, const char *v, const double *s,
                                 stenc_field *const *f) {
    return residual2d_variant(c, v, s[0], f[0], f[1], f[2]);
}
static stenc_status r_varcoef27(stenc_ctx *c, const char *v, const double *,
                                stenc_field *const *f) {
    return varcoef27_variant(c, v, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9],
                             f[10], f[11], f[12], f[13], f[14], f[15], f[16], f[17], f[18], f[19],
                             f[20], f[21], f[22], f[23], f[24], f[25], f[26], f[27], f[28]);
}
static stenc_status r_life(stenc_ctx *c, const char *v, const double *, stenc_field *const *f) {
    return life_variant(c, v, f[0], f[1]);
}
static stenc_status r_euler_flux(stenc_ctx *c, const char *v, const double *s,
                                 stenc_field *const *f) {
    return euler_flux_variant(c, v, s[0], s[1], s[2], s[3], f[0], f[1], f[2], f[3], f[4], f[5],
                              f[6], f[7]);
}
static stenc_status r_wave_r2(stenc_ctx *c, const char *v, const double *s, stenc_field *const *f) {
    return wave_r2_variant(c, v, s[0], f[0], f[1], f[2]);
}

enum { MAX_FIELDS = 29 };

struct Case {
    const char *name;
    int dims, halo, ninputs, noutputs;
    double scalars[4];
    run_fn run;
    const char *(*variant_name)(int);
    const stenc_launch_variants *variants; // for the tuning key's digest
    double lo[4], hi[4]; // input value ranges (first four inputs; the rest use the last);
                         // lo==hi==-2: 0/1 cells
};

static const Case kCases[] = {
    {"heat3d",
     3,
     1,
     1,
     1,
     {0.22, 0.13},
     r_heat3d,
     heat3d_variant_name,
     &heat3d_cuda_variants,
     {-1},
     {1}},
    {"varcoef27",
     3,
     1,
     28,
     1,
     {0},
     r_varcoef27,
     varcoef27_variant_name,
     &varcoef27_cuda_variants,
     {-1},
     {1}},
    {"euler_flux",
     3,
     1,
     4,
     4,
     {0.4, 0.1, 0.5, 0.05},
     r_euler_flux,
     euler_flux_variant_name,
     &euler_flux_cuda_variants,
     {0.8, -0.3, -0.3, 2.0},
     {1.2, 0.3, 0.3, 3.0}},
    {"wave_r2",
     3,
     2,
     2,
     1,
     {0.1},
     r_wave_r2,
     wave_r2_variant_name,
     &wave_r2_cuda_variants,
     {-1},
     {1}},
    {"jacobi2d",
     2,
     1,
     2,
     1,
     {1.0 / 289},
     r_jacobi2d,
     jacobi2d_variant_name,
     &jacobi2d_cuda_variants,
     {-1},
     {1}},
    {"residual2d",
     2,
     1,
     2,
     1,
     {289.0},
     r_residual2d,
     residual2d_variant_name,
     &residual2d_cuda_variants,
     {-1},
     {1}},
    {"life", 2, 1, 1, 1, {0}, r_life, life_variant_name, &life_cuda_variants, {-2}, {-2}},
};

struct Row {
    std::string stencil, variant;
    double ms, gpts, gbs, frac;
    long bad;
};
static std::vector<Row> rows;

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static uint64_t hash64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Uniform values over the whole allocation (halo and padding included) of a host field.
static void fill(stenc_field *f, uint64_t seed, double lo, double hi, bool cells) {
    stenc_field_layout L;
    CHECK_STENC(stenc_field_get_layout(f, &L));
    real *base = (real *)stenc_field_host_origin(f) - L.origin_elems;
    long n = (long)L.alloc_elems;
#pragma omp parallel for schedule(static)
    for (long t = 0; t < n; t++) {
        double u = (double)(hash64(seed * 0x100000001B3ull + (uint64_t)t) >> 11) * 0x1.0p-53;
        base[t] = cells ? (real)(u < 0.4) : (real)(lo + (hi - lo) * u);
    }
}

// Interior points of `got` that differ from `want` (bitwise; NaN counts as different).
static long compare(const stenc_field *got, const stenc_field *want) {
    stenc_field_layout G, W;
    CHECK_STENC(stenc_field_get_layout(got, &G));
    CHECK_STENC(stenc_field_get_layout(want, &W));
    const real *g = (const real *)stenc_field_host_origin(got);
    const real *w = (const real *)stenc_field_host_origin(want);
    long bad = 0;
#pragma omp parallel for collapse(2) reduction(+ : bad)
    for (long k = 0; k < (long)G.n[2]; k++)
        for (long j = 0; j < (long)G.n[1]; j++)
            for (long i = 0; i < (long)G.n[0]; i++) {
                real a = g[i + j * G.stride[1] + k * G.stride[2]];
                real b = w[i + j * W.stride[1] + k * W.stride[2]];
                if (memcmp(&a, &b, sizeof a) != 0) bad++;
            }
    return bad;
}

// The anchor's naive kernel (bench/anchors/anchors.cu, heat7_naive) on the field layout.
__global__ void heat3d_naive(real a, real b, const real *__restrict__ x, real *__restrict__ y,
                             int nx, int ny, int nz, long sy, long sz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
        k = blockIdx.z;
    if (i >= nx || j >= ny || k >= nz) return;
    long c = i + j * sy + k * sz;
    y[c] = a * x[c] + b * (x[c - 1] + x[c + 1] + x[c - sy] + x[c + sy] + x[c - sz] + x[c + sz]);
}

struct Timer {
    cudaEvent_t e0, e1;
    cudaStream_t stream;
    explicit Timer(stenc_ctx *ctx) : stream((cudaStream_t)stenc_ctx_cuda_stream(ctx)) {
        CHECK_CUDA(cudaEventCreate(&e0));
        CHECK_CUDA(cudaEventCreate(&e1));
    }
    ~Timer() {
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
    template <class F> double median_ms(F launch, int reps) {
        launch(); // warm-up
        CHECK_CUDA(cudaStreamSynchronize(stream));
        std::vector<double> t;
        for (int r = 0; r < reps; r++) {
            CHECK_CUDA(cudaEventRecord(e0, stream));
            launch();
            CHECK_CUDA(cudaEventRecord(e1, stream));
            CHECK_CUDA(cudaEventSynchronize(e1));
            float ms;
            CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
            t.push_back(ms);
        }
        return median(t);
    }
};

static double copy_gbs(stenc_ctx *ctx, size_t bytes, int reps) {
    void *a, *b;
    CHECK_CUDA(cudaMalloc(&a, bytes));
    CHECK_CUDA(cudaMalloc(&b, bytes));
    CHECK_CUDA(cudaMemset(a, 1, bytes));
    Timer timer(ctx);
    double ms = timer.median_ms(
        [&] { CHECK_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, timer.stream)); },
        reps);
    CHECK_CUDA(cudaFree(a));
    CHECK_CUDA(cudaFree(b));
    return 2.0 * (double)bytes / ms * 1e-6;
}

static void report(const Case &c, const char *size, const char *variant, double ms, double pts,
                   int bytes_pt, double copy, long bad) {
    double gpts = pts / ms * 1e-6, gbs = gpts * bytes_pt;
    printf("name=%s target=cuda variant=%s precision=%s size=%s ms=%.4f gpts=%.1f gbs=%.0f "
           "bytes_per_pt=%d copy_gbs=%.0f frac_of_bound=%.3f mismatches=%ld\n",
           c.name, variant, kPrecision, size, ms, gpts, gbs, bytes_pt, copy, gbs / copy, bad);
    fflush(stdout);
    rows.push_back({c.name, variant, ms, gpts, gbs, gbs / copy, bad});
}

// ---- solver stencils ------------------------------------------------------------------------

typedef int (*colour_fn)(long i, long j, long k);
static int colour_redblack(long i, long j, long) {
    return (int)((i + j) % 2);
}
static int colour_eight(long i, long j, long k) {
    return (int)(i % 2 + 2 * (j % 2) + 4 * (k % 2));
}

struct Offset {
    int d[3];
};

// Bytes one launch of colour `color` moves at least through one array: the distinct 32-byte
// sectors holding a point (i + o) for a point i of the colour and o in `offs`, times 32. Rows
// are aligned (STENC_FIELD_ALIGN), so the sector of element i is floor(i / (32 / sizeof(T))).
// Rows of the same pattern (which offsets land, at which colour residues) are counted once.
static double sector_bytes(int dims, const size_t n[3], int period[3], colour_fn colour, int color,
                           const std::vector<Offset> &offs) {
    const long spt = 32 / (long)sizeof(real);
    const long h = 2; // wide enough for every offset used here
    std::map<std::vector<int>, long> memo;
    double sectors = 0;
    const long j_lo = dims >= 2 ? -h : 0, j_hi = dims >= 2 ? (long)n[1] + h : 1;
    const long k_lo = dims >= 3 ? -h : 0, k_hi = dims >= 3 ? (long)n[2] + h : 1;
    for (long k = k_lo; k < k_hi; k++)
        for (long j = j_lo; j < j_hi; j++) {
            std::vector<int> key;
            for (const Offset &o : offs) {
                long jj = j - o.d[1], kk = k - o.d[2];
                bool in = jj >= 0 && jj < (long)n[1] && kk >= 0 && kk < (long)n[2];
                key.push_back(in ? (int)(jj % period[1] + period[1] * (kk % period[2])) : -1);
            }
            auto it = memo.find(key);
            if (it == memo.end()) {
                std::vector<char> hit((size_t)((long)n[0] + 2 * h + 2 * spt) / spt + 2, 0);
                long count = 0;
                for (size_t q = 0; q < offs.size(); q++) {
                    if (key[q] < 0) continue;
                    long jj = j - offs[q].d[1], kk = k - offs[q].d[2];
                    for (long i = 0; i < (long)n[0]; i++) {
                        if (colour(i, jj, kk) != color) continue;
                        long e = i + offs[q].d[0];
                        long sct = (e >= 0 ? e / spt : -((-e + spt - 1) / spt)) + 1 + h / spt + 1;
                        if (!hit[(size_t)sct]) hit[(size_t)sct] = 1, count++;
                    }
                }
                it = memo.emplace(key, count).first;
            }
            sectors += (double)it->second;
        }
    return sectors * 32.0;
}

// Dense interior copies, for resetting an inout between checks.
static std::vector<real> interior(const stenc_field *f, const size_t n[3]) {
    std::vector<real> v(n[0] * n[1] * n[2]);
    CHECK_STENC(stenc_field_copy_to(f, v.data()));
    return v;
}

static void report_solver(const char *name, const char *size, const char *variant, double ms,
                          double pts, double bytes, double copy, long bad, const char *extra) {
    double gpts = pts / ms * 1e-6, gbs = bytes / ms * 1e-6;
    printf("name=%s target=cuda variant=%s precision=%s size=%s ms=%.4f gpts=%.2f gbs=%.0f "
           "bound_bytes=%.4g copy_gbs=%.0f frac_of_bound=%.3f mismatches=%ld%s\n",
           name, variant, kPrecision, size, ms, gpts, gbs, bytes, copy, gbs / copy, bad, extra);
    fflush(stdout);
    rows.push_back({name, variant, ms, gpts, gbs, gbs / copy, bad});
}

// A coloured in-place sweep: all colours in turn, timed as one, per variant; then checked.
// fields[0] is the inout; `run` launches one colour with a variant.
template <class Run>
static int bench_sweep(stenc_ctx *ctx, const char *name, int dims, const size_t n[3], int nfields,
                       int ncolors, int period[3], colour_fn colour,
                       const std::vector<Offset> &u_reads, Run run,
                       const char *(*variant_name)(int), double copy, int reps,
                       void (*fill_field)(stenc_field *, int)) {
    char size[32];
    snprintf(size, sizeof size, dims == 3 ? "%zu^3" : "%zu^2", n[0]);
    std::vector<stenc_field *> f(nfields);
    for (int a = 0; a < nfields; a++) {
        CHECK_STENC(stenc_field_create(ctx, &f[a], kType, dims, n[0], n[1], n[2], 1));
        fill_field(f[a], a);
    }
    // The reference: one full sweep of the C kernel on a copy of u.
    stenc_field *uref;
    CHECK_STENC(stenc_field_create(ctx, &uref, kType, dims, n[0], n[1], n[2], 1));
    fill_field(uref, 0);
    const std::vector<real> u0 = interior(f[0], n);
    std::vector<stenc_field *> g = f;
    g[0] = uref;
    double t0 = omp_get_wtime();
    for (int c = 0; c < ncolors; c++)
        CHECK_STENC(run(ctx, "c", c, g.data()));
    printf("# %s: C kernel on the host, one sweep %.3f s\n", name, omp_get_wtime() - t0);
    for (int a = 0; a < nfields; a++)
        CHECK_STENC(stenc_field_upload(f[a]));

    // The bound: per colour, u read (its reads), u written (the colour), every other array
    // read at the colour's points; summed over the colours.
    double bytes = 0, pts = (double)n[0] * n[1] * n[2];
    const std::vector<Offset> centre = {{{0, 0, 0}}};
    for (int c = 0; c < ncolors; c++) {
        bytes += sector_bytes(dims, n, period, colour, c, u_reads);
        bytes += sector_bytes(dims, n, period, colour, c, centre) * nfields; // u written + inputs
    }
    printf("# %s: bytes-moved bound of one %d-colour sweep %.4g B (%.1f B per point; a sweep "
           "without colours would move %d B per point)\n",
           name, ncolors, bytes, bytes / pts, (nfields + 1) * (int)sizeof(real));

    Timer timer(ctx);
    int failures = 0;
    const char *vname;
    for (int v = 0; (vname = variant_name(v)) != nullptr; v++) {
        double ms = timer.median_ms(
            [&] {
                for (int c = 0; c < ncolors; c++)
                    CHECK_STENC(run(ctx, vname, c, f.data()));
            },
            reps);
        // the check: from the original u, one sweep, bit for bit against the C kernel
        CHECK_STENC(stenc_field_download(f[0]));
        CHECK_STENC(stenc_field_copy_from(f[0], u0.data()));
        CHECK_STENC(stenc_field_upload(f[0]));
        for (int c = 0; c < ncolors; c++)
            CHECK_STENC(run(ctx, vname, c, f.data()));
        CHECK_STENC(stenc_field_download(f[0]));
        long bad = compare(f[0], uref);
        CHECK_STENC(stenc_field_upload(f[0]));
        failures += bad != 0;
        char extra[64];
        snprintf(extra, sizeof extra, " colours=%d", ncolors);
        report_solver(name, size, vname, ms, pts, bytes, copy, bad, extra);
    }
    stenc_field_free(uref);
    for (int a = 0; a < nfields; a++)
        stenc_field_free(f[a]);
    return failures;
}

static void fill_pm1(stenc_field *f, int a) {
    fill(f, 2000 + (uint64_t)a, -1, 1, false);
}
static void fill_gs27(stenc_field *f, int a) {
    if (a == 14)
        fill(f, 2000 + (uint64_t)a, 4, 6, false);
    else if (a >= 1 && a <= 27)
        fill(f, 2000 + (uint64_t)a, -0.2, 0.2, false);
    else
        fill(f, 2000 + (uint64_t)a, -1, 1, false);
}

static int bench_solvers(stenc_ctx *ctx, bool quick, double copy, int reps, const char *only) {
    int failures = 0;
    const size_t n2 = quick ? 512 : 8192, n3 = quick ? 64 : 512;
    if (!only || !strcmp(only, "gs_redblack")) {
        size_t n[3] = {n2, n2, 1};
        int period[3] = {2, 2, 1};
        std::vector<Offset> reads = {
            {{0, 0, 0}}, {{-1, 0, 0}}, {{1, 0, 0}}, {{0, -1, 0}}, {{0, 1, 0}}};
        auto run = [](stenc_ctx *c, const char *v, int color, stenc_field **f) {
            return gs_redblack_variant(c, v, color, 1.0 / 289, 1.3, f[0], f[1]);
        };
        failures += bench_sweep(ctx, "gs_redblack", 2, n, 2, 2, period, colour_redblack, reads, run,
                                gs_redblack_variant_name, copy, reps, fill_pm1);
    }
    if (!only || !strcmp(only, "gs27_8color")) {
        size_t n[3] = {n3, n3, n3};
        int period[3] = {2, 2, 2};
        std::vector<Offset> reads;
        for (int k = -1; k <= 1; k++)
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++)
                    reads.push_back({{i, j, k}});
        auto run = [](stenc_ctx *c, const char *v, int color, stenc_field **f) {
            return gs27_8color_variant(c, v, color, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7],
                                       f[8], f[9], f[10], f[11], f[12], f[13], f[14], f[15], f[16],
                                       f[17], f[18], f[19], f[20], f[21], f[22], f[23], f[24],
                                       f[25], f[26], f[27], f[28]);
        };
        failures += bench_sweep(ctx, "gs27_8color", 3, n, 29, 8, period, colour_eight, reads, run,
                                gs27_8color_variant_name, copy, reps, fill_gs27);
    }
    if (!only || !strcmp(only, "residual_norm")) {
        // A reduction: u, f read, r written, r2 and rmax returned; 24 B per point in double.
        size_t n[3] = {n2, n2, 1};
        char size[32];
        snprintf(size, sizeof size, "%zu^2", n2);
        stenc_field *f[3], *rc;
        for (int a = 0; a < 3; a++) {
            CHECK_STENC(stenc_field_create(ctx, &f[a], kType, 2, n[0], n[1], 1, 1));
            fill_pm1(f[a], a);
        }
        CHECK_STENC(stenc_field_create(ctx, &rc, kType, 2, n[0], n[1], 1, 1));
        double c_r2, c_rmax;
        CHECK_STENC(residual_norm_variant(ctx, "c", 289.0, f[0], f[1], rc, &c_r2, &c_rmax));
        for (int a = 0; a < 3; a++)
            CHECK_STENC(stenc_field_upload(f[a]));
        Timer timer(ctx);
        const double pts = (double)n[0] * n[1], bytes = 3.0 * sizeof(real) * pts;
        const char *vname;
        for (int v = 0; (vname = residual_norm_variant_name(v)) != nullptr; v++) {
            double r2 = 0, rmax = 0, r2b = 0, rmaxb = 0;
            double ms = timer.median_ms(
                [&] {
                    CHECK_STENC(
                        residual_norm_variant(ctx, vname, 289.0, f[0], f[1], f[2], &r2, &rmax));
                },
                reps);
            CHECK_STENC(residual_norm_variant(ctx, vname, 289.0, f[0], f[1], f[2], &r2b, &rmaxb));
            CHECK_STENC(stenc_field_download(f[2]));
            long bad = compare(f[2], rc);
            CHECK_STENC(stenc_field_upload(f[2]));
            bool same = !memcmp(&r2, &r2b, sizeof r2) && rmax == rmaxb;
            double rel = fabs(r2 - c_r2) / fabs(c_r2);
            // The C target and the GPU sum in different orders, each within ~2^-52 of the exact
            // sum.
            bool close = rel <= 8.0 * 0x1.0p-53 && rmax == c_rmax;
            if (bad || !same || !close) failures++, bad += !same + !close;
            char extra[160];
            snprintf(extra, sizeof extra, " r2=%.17g c_r2=%.17g rel_diff=%.2e repeat_bitwise=%s",
                     r2, c_r2, rel, same ? "yes" : "NO");
            report_solver("residual_norm", size, vname, ms, pts, bytes, copy, bad, extra);
        }
        for (int a = 0; a < 3; a++)
            stenc_field_free(f[a]);
        stenc_field_free(rc);
    }
    return failures;
}

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    bool quick = false, solvers_only = false;
    int reps = 20;
    const char *only = nullptr;
    std::vector<size_t> sides; // 3-D sides; a 2-D stencil runs at 16 times the side, squared
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--sizes") && a + 1 < argc) {
            for (const char *p = argv[++a]; *p;) {
                char *end;
                const unsigned long v = strtoul(p, &end, 10);
                if (end == p || v < 8 || v > 1024 || (*end && *end != ',')) {
                    fprintf(stderr, "--sizes takes 3-D sides of 8..1024 separated by commas\n");
                    return 2;
                }
                sides.push_back(v);
                p = *end ? end + 1 : end;
            }
        } else if (!strcmp(argv[a], "--quick"))
            quick = true, reps = 3;
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--only") && a + 1 < argc)
            only = argv[++a];
        else if (!strcmp(argv[a], "--solvers"))
            solvers_only = true;
    }
    stenc_ctx *ctx;
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CUDA) != STENC_OK) {
        printf("SKIPPED: no CUDA device (%s)\n", stenc_last_error());
        return 77;
    }
    printf("device=\"%s\" precision=%s reps=%d\n", stenc_ctx_device_name(ctx), kPrecision, reps);
    const size_t side0 = quick ? 64 : 512;
    if (sides.empty()) sides.push_back(side0);
    // The copy rate on a buffer the size of one 512^3 field (well beyond the 50 MB L2).
    const double copy = copy_gbs(ctx, side0 * side0 * side0 * sizeof(real), reps);
    printf("name=copy target=cudaMemcpyD2D precision=%s bytes=%zu gbs=%.0f\n", kPrecision,
           side0 * side0 * side0 * sizeof(real), copy);
    Timer timer(ctx);
    int failures = 0;
    progress prog;
    progress_begin(&prog, "bench_cuda");
    double work_done = 0, work_total = 0; // 3-D points of the cases, over the sizes
    for (size_t side : sides)
        work_total += (double)side * side * side * (sizeof kCases / sizeof kCases[0]);

    std::vector<std::pair<size_t, const Case *>> runs; // every case at every size
    for (size_t side : sides)
        for (const Case &c : kCases)
            runs.push_back({side, &c});
    for (const auto &run : runs) {
        const Case &c = *run.second;
        const size_t n3 = run.first, n2 = 16 * run.first;
        progress_update(&prog, work_done, work_total);
        work_done += (double)n3 * n3 * n3;
        if (solvers_only || (only && strcmp(only, c.name))) continue;
        size_t n[3] = {c.dims == 3 ? n3 : n2, c.dims == 3 ? n3 : n2, c.dims == 3 ? n3 : 1};
        char size[32];
        snprintf(size, sizeof size, c.dims == 3 ? "%zu^3" : "%zu^2", n[0]);
        const double pts = (double)n[0] * n[1] * n[2];
        const int bytes_pt = (c.ninputs + c.noutputs) * (int)sizeof(real);
        const int nf = c.ninputs + c.noutputs;
        stenc_field *f[MAX_FIELDS], *ref[MAX_FIELDS];
        for (int a = 0; a < nf; a++) {
            CHECK_STENC(stenc_field_create(ctx, &f[a], kType, c.dims, n[0], n[1], n[2], c.halo));
            ref[a] = f[a];
        }
        for (int a = 0; a < c.ninputs; a++) {
            int r = a < 4 ? a : 3;
            bool cells = c.lo[0] == -2;
            double lo = c.lo[r], hi = c.hi[r];
            if (c.lo[r] == 0 && c.hi[r] == 0) lo = c.lo[0], hi = c.hi[0];
            fill(f[a], 1000 + a, lo, hi, cells);
        }
        // The generated C kernel on the host: the check for everything below.
        for (int o = c.ninputs; o < nf; o++) {
            CHECK_STENC(stenc_field_create(ctx, &ref[o], kType, c.dims, n[0], n[1], n[2], c.halo));
            CHECK_STENC(stenc_field_fill(ref[o], NAN));
        }
        double t0 = omp_get_wtime();
        CHECK_STENC(c.run(ctx, "c", c.scalars, ref));
        printf("# %s: C kernel on the host %.3f s\n", c.name, omp_get_wtime() - t0);
        for (int a = 0; a < nf; a++)
            CHECK_STENC(stenc_field_upload(f[a]));

        auto check = [&]() {
            long bad = 0;
            for (int o = c.ninputs; o < nf; o++) {
                CHECK_STENC(stenc_field_download(f[o]));
                bad += compare(f[o], ref[o]);
                CHECK_STENC(stenc_field_fill(f[o], NAN)); // poison for the next case
                CHECK_STENC(stenc_field_upload(f[o]));
            }
            if (bad) failures++;
            return bad;
        };
        // Every variant.
        const char *name;
        for (int v = 0; (name = c.variant_name(v)) != nullptr; v++) {
            double ms = timer.median_ms([&] { CHECK_STENC(c.run(ctx, name, c.scalars, f)); }, reps);
            report(c, size, name, ms, pts, bytes_pt, copy, check());
        }
        // The tuned choice: time every variant (stenc_tune FORCE), then the launcher's pick.
        CHECK_STENC(stenc_tune(ctx, STENC_TUNE_FORCE));
        CHECK_STENC(c.run(ctx, nullptr, c.scalars, f));
        CHECK_STENC(stenc_tune(ctx, STENC_TUNE_OFF));
        char key[512], chosen[128] = "?";
        int found = 0;
        CHECK_STENC(stenc_tune_key(ctx, c.name, c.variants->digest, n, kType, key, sizeof key));
        CHECK_STENC(stenc_tune_lookup(ctx, key, chosen, sizeof chosen, &found));
        double ms = timer.median_ms([&] { CHECK_STENC(c.run(ctx, nullptr, c.scalars, f)); }, reps);
        std::string label = std::string("tuned:") + chosen;
        report(c, size, label.c_str(), ms, pts, bytes_pt, copy, check());
        // The naive anchor kernel, heat3d only.
        if (!strcmp(c.name, "heat3d")) {
            stenc_field_layout L;
            CHECK_STENC(stenc_field_get_layout(f[0], &L));
            const real *x = (const real *)stenc_field_device_origin(f[0]);
            real *y = (real *)stenc_field_device_origin(f[1]);
            dim3 blk(32, 8),
                grd((unsigned)(n[0] + 31) / 32, (unsigned)(n[1] + 7) / 8, (unsigned)n[2]);
            ms = timer.median_ms(
                [&] {
                    heat3d_naive<<<grd, blk, 0, timer.stream>>>(
                        (real)c.scalars[0], (real)c.scalars[1], x, y, (int)n[0], (int)n[1],
                        (int)n[2], (long)L.stride[1], (long)L.stride[2]);
                    CHECK_CUDA(cudaGetLastError());
                },
                reps);
            report(c, size, "naive_anchor_32x8", ms, pts, bytes_pt, copy, check());
        }
        for (int o = c.ninputs; o < nf; o++)
            stenc_field_free(ref[o]);
        for (int a = 0; a < nf; a++)
            stenc_field_free(f[a]);
    }

    failures += bench_solvers(ctx, quick, copy, reps, only);

    printf("\n%-11s %-26s %9s %8s %7s %9s %s\n", "stencil", "variant", "ms", "Gpts/s", "GB/s",
           "of bound", "check");
    for (const Row &r : rows)
        printf("%-11s %-26s %9.4f %8.1f %7.0f %8.1f%% %s\n", r.stencil.c_str(), r.variant.c_str(),
               r.ms, r.gpts, r.gbs, 100 * r.frac, r.bad ? "MISMATCH" : "ok");
    printf("copy (cudaMemcpy D2D, read+write): %.0f GB/s; %s\n", copy, kPrecision);
    stenc_ctx_destroy(ctx);
    return failures ? 1 : 0;
}
