// Batched tridiagonal solvers on the GPU against cuSPARSE gtsv2StridedBatch and
// gtsvInterleavedBatch (Thomas), measured in the same run; then the CPU solver against the CPU
// copy bandwidth. Prints key=value lines, then a table, then AUTO against the better cuSPARSE
// routine. Every timed result (cuSPARSE's too) is checked by its residual on the device.
//   bench_tridiag [quick]     (quick: the cases of at most 2^20 unknowns)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#include "bench_util.h"
#include "progress.h"
#include "stenc/tridiag.h"

extern "C" int bench_tridiag_cpu(void);

#define CS(x)                                                                                      \
    do {                                                                                           \
        cusparseStatus_t s_ = (x);                                                                 \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                       \
            printf("cuSPARSE error %d at %s:%d\n", (int)s_, __FILE__, __LINE__);                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const int kReps = 21;
static cudaStream_t stream;

template <class F> static double median_ms(F f, int reps = kReps) {
    return bench_median_ms(stream, f, reps, 2);
}

// Diagonally dominant random systems; layout-aware zero a[0] and c[n-1] (cuSPARSE wants them).
template <class T>
__global__ void fill(T *a, T *b, T *c, T *d, int n, long long batch, int interleaved) {
    long long total = (long long)n * batch;
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total;
         k += (long long)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)k * 2654435761u ^ 0x9e3779b9u;
        h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
        float u = (h & 0xffff) / 65536.0f, v = (h >> 16) / 65536.0f;
        long long i = interleaved ? k / batch : k % n;
        a[k] = i == 0 ? T(0) : T(u - 0.5f);
        c[k] = i == n - 1 ? T(0) : T(v - 0.5f);
        b[k] = T(1.5f + u + v);
        d[k] = T(u * v - 0.25f);
    }
}

// The largest relative residual ||Ax-d||_2/||d||_2 over the systems, in double, one thread per
// system (a different computation from the solvers'); NaN counts as infinite. *worst holds the
// bits of a non-negative double, so that an integer atomicMax orders them.
template <class T>
__global__ void max_residual(const T *a, const T *b, const T *c, const T *d, const T *x, int n,
                             long long batch, int interleaved, unsigned long long *worst) {
    long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (s >= batch) return;
    auto at = [&](long long i) { return interleaved ? i * batch + s : s * n + i; };
    double rr = 0, dd = 0;
    for (int i = 0; i < n; i++) {
        long long k = at(i);
        double r = (double)b[k] * x[k] - d[k];
        if (i > 0) r += (double)a[k] * x[at(i - 1)];
        if (i < n - 1) r += (double)c[k] * x[at(i + 1)];
        rr += r * r, dd += (double)d[k] * d[k];
    }
    double rel = sqrt(rr / dd);
    if (!(rel <= INFINITY)) rel = INFINITY;
    atomicMax(worst, (unsigned long long)__double_as_longlong(rel));
}

template <class T>
static double device_max_residual(const T *a, const T *b, const T *c, const T *d, const T *x, int n,
                                  long long batch, int interleaved, unsigned long long *worst) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(worst, 0, sizeof *worst, stream));
    max_residual<T><<<(unsigned)((batch + 127) / 128), 128, 0, stream>>>(a, b, c, d, x, n, batch,
                                                                         interleaved, worst);
    BENCH_CUDA_CHECK(cudaGetLastError());
    unsigned long long bits;
    BENCH_CUDA_CHECK(cudaMemcpyAsync(&bits, worst, sizeof bits, cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    double r;
    memcpy(&r, &bits, sizeof r);
    return r;
}

struct row {
    std::string precision, layout, algo;
    int n;
    long long batch;
    double ms, gunk, gbs, floor, vs_strided, vs_best, residual;
};
static std::vector<row> table;
static double copy_gbs;

template <class T>
static void run_case(stenc_ctx *ctx, cusparseHandle_t h, int n, long long batch, bool all_algos) {
    const char *prec = sizeof(T) == 4 ? "float" : "double";
    size_t count = (size_t)n * batch, bytes = count * sizeof(T);
    T *buf;
    BENCH_CUDA_CHECK(cudaMalloc(&buf, 7 * bytes));
    T *a = buf, *b = a + count, *c = b + count, *d = c + count, *x = d + count, *x0 = x + count;
    stenc_tridiag_report *report;
    BENCH_STENC_CHECK(stenc_tridiag_report_create(ctx, &report));
    unsigned long long *worst;
    BENCH_CUDA_CHECK(cudaMalloc(&worst, sizeof *worst));
    double min_bytes = 5.0 * bytes;
    for (int il = 0; il < 2; il++) {
        fill<T><<<1024, 256, 0, stream>>>(a, b, c, d, n, batch, il);
        BENCH_CUDA_CHECK(cudaGetLastError());
        BENCH_CUDA_CHECK(cudaMemcpyAsync(x0, d, bytes, cudaMemcpyDeviceToDevice, stream));
        // cuSPARSE solves in place: time (copy + solve) and subtract the copy.
        double copy_ms = median_ms([&] {
            BENCH_CUDA_CHECK(cudaMemcpyAsync(x, x0, bytes, cudaMemcpyDeviceToDevice, stream));
        });
        size_t bs1 = 0, bs2 = 0;
        if (sizeof(T) == 4) {
            CS(cusparseSgtsv2StridedBatch_bufferSizeExt(h, n, (float *)a, (float *)b, (float *)c,
                                                        (float *)x, (int)batch, n, &bs1));
            CS(cusparseSgtsvInterleavedBatch_bufferSizeExt(
                h, 0, n, (float *)a, (float *)b, (float *)c, (float *)x, (int)batch, &bs2));
        } else {
            CS(cusparseDgtsv2StridedBatch_bufferSizeExt(h, n, (double *)a, (double *)b, (double *)c,
                                                        (double *)x, (int)batch, n, &bs1));
            CS(cusparseDgtsvInterleavedBatch_bufferSizeExt(
                h, 0, n, (double *)a, (double *)b, (double *)c, (double *)x, (int)batch, &bs2));
        }
        void *ws;
        BENCH_CUDA_CHECK(cudaMalloc(&ws, std::max(bs1, bs2) + 16));
        double cus_ms =
            median_ms([&] {
                BENCH_CUDA_CHECK(cudaMemcpyAsync(x, x0, bytes, cudaMemcpyDeviceToDevice, stream));
                if (!il) {
                    if (sizeof(T) == 4)
                        CS(cusparseSgtsv2StridedBatch(h, n, (float *)a, (float *)b, (float *)c,
                                                      (float *)x, (int)batch, n, ws));
                    else
                        CS(cusparseDgtsv2StridedBatch(h, n, (double *)a, (double *)b, (double *)c,
                                                      (double *)x, (int)batch, n, ws));
                } else {
                    if (sizeof(T) == 4)
                        CS(cusparseSgtsvInterleavedBatch(h, 0, n, (float *)a, (float *)b,
                                                         (float *)c, (float *)x, (int)batch, ws));
                    else
                        CS(cusparseDgtsvInterleavedBatch(h, 0, n, (double *)a, (double *)b,
                                                         (double *)c, (double *)x, (int)batch, ws));
                }
            }) -
            copy_ms;
        BENCH_CUDA_CHECK(cudaFree(ws));
        double cus_res = device_max_residual(a, b, c, d, x, n, batch, il, worst);
        double cus_gunk = count / cus_ms / 1e6;
        table.push_back({prec, il ? "interleaved" : "contiguous",
                         il ? "cusparse_interleaved" : "cusparse_strided", n, batch, cus_ms,
                         cus_gunk, min_bytes / cus_ms / 1e6, min_bytes / cus_ms / 1e6 / copy_gbs, 1,
                         1, cus_res});
        printf("name=tridiag target=cusparse precision=%s layout=%s n=%d batch=%lld algo=%s "
               "gunk_s=%.3f gbs=%.1f ratio_floor=%.3f ratio_cusparse=1 residual=%.2e\n",
               prec, il ? "interleaved" : "contiguous", n, batch,
               il ? "gtsvInterleavedBatch" : "gtsv2StridedBatch", cus_gunk,
               min_bytes / cus_ms / 1e6, min_bytes / cus_ms / 1e6 / copy_gbs, cus_res);
        // (algo, switch_size): AUTO, THOMAS and a sweep of THOMAS_PCR's rows per thread
        // everywhere; every algorithm and the other switch points where all_algos.
        struct variant {
            stenc_tridiag_algo algo;
            int sw;
        };
        std::vector<variant> algos = {{STENC_TRIDIAG_AUTO, 0}};
        for (int sw : {4, 8, 16, 32})
            algos.push_back({STENC_TRIDIAG_THOMAS_PCR, sw});
        if (il) algos.push_back({STENC_TRIDIAG_THOMAS, 0});
        if (all_algos) {
            for (int k = STENC_TRIDIAG_THOMAS; k < STENC_TRIDIAG_ALGO_COUNT; k++)
                if (!(il && k == STENC_TRIDIAG_THOMAS)) algos.push_back({(stenc_tridiag_algo)k, 0});
            for (int sw : {32, 64, 256})
                algos.push_back({STENC_TRIDIAG_CR_PCR, sw});
            for (int sw : {16, 128, 256})
                algos.push_back({STENC_TRIDIAG_PCR_THOMAS, sw});
        }
        // Timings: `single` = one deferred call between two events (it includes the host's
        // submission of the launch); `copy_sub` = the deferred call timed exactly as cuSPARSE
        // is (a d->x copy, then the call, minus the copy alone); `sync` = the waiting call
        // (reads the singular-system flag back), single.
        enum timing { single, copy_sub, sync };
        for (auto [algo, sw] : algos) {
            // THOMAS on contiguous data is one thread per system: hopeless beyond small n.
            if (algo == STENC_TRIDIAG_THOMAS && !il && n > 1024) continue;
            for (int tm : {single, copy_sub, sync}) {
                if (tm != single && (algo != STENC_TRIDIAG_AUTO || sw)) continue;
                stenc_tridiag_options opt = {algo, sw, tm == sync ? nullptr : report};
                stenc_type type = sizeof(T) == 4 ? STENC_F32 : STENC_F64;
                stenc_tridiag_layout layout =
                    il ? STENC_TRIDIAG_INTERLEAVED : STENC_TRIDIAG_CONTIGUOUS;
                BENCH_CUDA_CHECK(cudaMemsetAsync(x, 0xff, bytes, stream)); // poison
                double ms = median_ms([&] {
                    if (tm == copy_sub)
                        BENCH_CUDA_CHECK(
                            cudaMemcpyAsync(x, x0, bytes, cudaMemcpyDeviceToDevice, stream));
                    BENCH_STENC_CHECK(
                        stenc_tridiag_solve(ctx, type, layout, n, batch, a, b, c, d, x, &opt));
                });
                if (tm == copy_sub) ms -= copy_ms;
                if (tm != sync) BENCH_STENC_CHECK(stenc_tridiag_report_check(report, nullptr));
                // Check the result of the timed runs.
                double res = device_max_residual(a, b, c, d, x, n, batch, il, worst);
                double gunk = count / ms / 1e6, gbs = min_bytes / ms / 1e6;
                std::string name = std::string(stenc_tridiag_algo_name(
                    algo == STENC_TRIDIAG_AUTO
                        ? stenc_tridiag_auto_algo(ctx, type, layout, n, batch)
                        : algo));
                if (algo == STENC_TRIDIAG_AUTO) name = "auto:" + name;
                if (sw) name += "/" + std::to_string(sw);
                if (tm == copy_sub) name += "[cs]";
                if (tm == sync) name += "+sync";
                printf("name=tridiag target=cuda precision=%s layout=%s n=%d batch=%lld algo=%s "
                       "timing=%s gunk_s=%.3f gbs=%.1f ratio_floor=%.3f ratio_cusparse=%.3f "
                       "residual=%.2e\n",
                       prec, il ? "interleaved" : "contiguous", n, batch, name.c_str(),
                       tm == single     ? "single"
                       : tm == copy_sub ? "copy_sub"
                                        : "sync",
                       gunk, gbs, gbs / copy_gbs, gunk / cus_gunk, res);
                table.push_back({prec, il ? "interleaved" : "contiguous", name, n, batch, ms, gunk,
                                 gbs, gbs / copy_gbs, gunk / cus_gunk, 0, res});
            }
        }
    }
    stenc_tridiag_report_destroy(report);
    BENCH_CUDA_CHECK(cudaFree(worst));
    BENCH_CUDA_CHECK(cudaFree(buf));
}

int main(int argc, char **argv) {
    progress_args(&argc, argv); // --quiet: no progress lines
    bool quick = argc > 1 && !strcmp(argv[1], "quick");
    stenc_ctx *ctx;
    BENCH_STENC_CHECK(stenc_ctx_create(&ctx, STENC_DEVICE_CUDA));
    stream = (cudaStream_t)stenc_ctx_cuda_stream(ctx);
    printf("device: %s\n", stenc_ctx_device_name(ctx));
    {
        size_t nb = (size_t)1 << 30;
        void *p, *q;
        BENCH_CUDA_CHECK(cudaMalloc(&p, nb));
        BENCH_CUDA_CHECK(cudaMalloc(&q, nb));
        BENCH_CUDA_CHECK(cudaMemsetAsync(p, 1, nb, stream));
        double ms = median_ms(
            [&] { BENCH_CUDA_CHECK(cudaMemcpyAsync(q, p, nb, cudaMemcpyDeviceToDevice, stream)); },
            9);
        copy_gbs = 2.0 * nb / ms / 1e6;
        BENCH_CUDA_CHECK(cudaFree(p));
        BENCH_CUDA_CHECK(cudaFree(q));
        printf("copy bandwidth: cudaMemcpy D2D %.0f GB/s (read+write)\n", copy_gbs);
    }
    {
        // What any call that waits for the GPU and reads a word back pays on top of its work:
        // an 8-byte copy into pinned memory and a stream synchronisation (the `sync` timings
        // of the waiting call include it).
        unsigned long long *dev, *host;
        BENCH_CUDA_CHECK(cudaMalloc(&dev, sizeof *dev));
        BENCH_CUDA_CHECK(cudaMallocHost(&host, sizeof *host));
        BENCH_CUDA_CHECK(cudaMemsetAsync(dev, 0, sizeof *dev, stream));
        double ms = median_ms([&] {
            BENCH_CUDA_CHECK(
                cudaMemcpyAsync(host, dev, sizeof *dev, cudaMemcpyDeviceToHost, stream));
            BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
        });
        printf("name=tridiag target=wait_floor what=copy8_d2h_pinned+stream_sync us=%.2f\n",
               ms * 1e3);
        BENCH_CUDA_CHECK(cudaFree(dev));
        BENCH_CUDA_CHECK(cudaFreeHost(host));
    }
    cusparseHandle_t h;
    CS(cusparseCreate(&h));
    CS(cusparseSetStream(h, stream));
    const int cases[][2] = {{1024, 1024}, {1024, 16384}, {256, 65536},
                            {64, 262144}, {4096, 4096},  {100000, 64}};
    progress prog; // counts the unknowns of the cases
    progress_begin(&prog, "bench_tridiag");
    double done = 0, total = 0;
    for (auto &cs : cases)
        total += (double)cs[0] * cs[1];
    for (auto &cs : cases) {
        progress_update(&prog, done, total);
        done += (double)cs[0] * cs[1];
        if (quick && cs[0] * (long long)cs[1] > (1 << 20)) continue;
        bool all = cs[0] == 1024 || quick;
        run_case<float>(ctx, h, cs[0], cs[1], all);
        run_case<double>(ctx, h, cs[0], cs[1], all);
    }
    CS(cusparseDestroy(h));
    printf("\n%-7s %-12s %7s %7s %-26s %9s %8s %8s %7s %8s %9s\n", "prec", "layout", "n", "batch",
           "algo", "ms", "Gunk/s", "GB/s", "floor", "vs_cusp", "residual");
    for (auto &r : table)
        printf("%-7s %-12s %7d %7lld %-26s %9.4f %8.2f %8.1f %7.3f %8.3f %9.2e\n",
               r.precision.c_str(), r.layout.c_str(), r.n, r.batch, r.algo.c_str(), r.ms, r.gunk,
               r.gbs, r.floor, r.vs_strided, r.residual);
    // AUTO against the better cuSPARSE routine at the same size (either layout).
    printf("\nAUTO vs cuSPARSE (same: this layout's routine; best: the better of the two)\n");
    printf("%-7s %-12s %7s %7s %-26s %8s %8s %8s %7s %7s\n", "prec", "layout", "n", "batch", "algo",
           "Gunk/s", "cusp", "best", "x_same", "x_best");
    for (auto &r : table) {
        if (r.algo.rfind("auto:", 0) != 0) continue;
        double same = 0, best = 0;
        for (auto &q : table)
            if (q.algo.rfind("cusparse", 0) == 0 && q.precision == r.precision && q.n == r.n &&
                q.batch == r.batch) {
                best = std::max(best, q.gunk);
                if (q.layout == r.layout) same = q.gunk;
            }
        printf("%-7s %-12s %7d %7lld %-26s %8.2f %8.2f %8.2f %7.2f %7.2f\n", r.precision.c_str(),
               r.layout.c_str(), r.n, r.batch, r.algo.c_str(), r.gunk, same, best, r.gunk / same,
               r.gunk / best);
    }
    stenc_ctx_destroy(ctx);
    return bench_tridiag_cpu();
}
