// Line solves written in the language (stencils/lines.stencil: adi_x, adi_y) against the same
// half steps by hand: an explicit kernel writing the right-hand side into a dense array, then
// stenc_tridiag_solve on dense coefficient arrays, as examples/adi does. Also the solver alone
// on the launcher's shape (lines of the whole allocation, halo and padding included; along j
// contiguous, as the launch solves them after its own transpose, docs/tridiag.md "Line solves
// on CUDA"), which splits a launch's time into the solve and the rest (the coefficient
// kernel, the identity rows and the halo write-back or the transposes, and the wait for the
// singular check).
//
// Floors: a half step must read u and write v once (16 bytes a point in double); the solver
// reads four arrays and writes one at best (40 bytes). Ratios are times over the hand's.
// Usage: bench_lines [N...] (default 1023 2047 4095 8191)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "adi_x.h"
#include "adi_y.h"
#include "bench_util.h"
#include "stenc/stenc.h"

namespace {

// The explicit half step by hand (examples/adi/adi_rhs.cu): dir 1 differences along j.
__global__ void rhs_kernel(int dir, const double *u, double *out, int n, double r) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    long long k = (long long)j * n + i;
    double lo, hi;
    if (dir == 1) {
        lo = j > 0 ? u[k - n] : 0.0;
        hi = j < n - 1 ? u[k + n] : 0.0;
    } else {
        lo = i > 0 ? u[k - 1] : 0.0;
        hi = i < n - 1 ? u[k + 1] : 0.0;
    }
    out[k] = u[k] + r * (lo - 2.0 * u[k] + hi);
}

double *device_filled(size_t count, double value) {
    std::vector<double> h(count, value);
    double *d = nullptr;
    BENCH_CUDA_CHECK(cudaMalloc(&d, count * sizeof(double)));
    BENCH_CUDA_CHECK(cudaMemcpy(d, h.data(), count * sizeof(double), cudaMemcpyHostToDevice));
    return d;
}

void run_case(stenc_ctx *ctx, int n) {
    cudaStream_t stream = (cudaStream_t)stenc_ctx_cuda_stream(ctx);
    const double r = 0.3;
    const int reps = n <= 2047 ? 50 : 15;
    // the language: fields with halo 1
    stenc_field *u, *v;
    BENCH_STENC_CHECK(stenc_field_create(ctx, &u, STENC_F64, 2, n, n, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(ctx, &v, STENC_F64, 2, n, n, 1, 1));
    BENCH_STENC_CHECK(stenc_field_fill(u, 0.5));
    BENCH_STENC_CHECK(stenc_field_fill(v, 0));
    BENCH_STENC_CHECK(stenc_field_upload(u));
    BENCH_STENC_CHECK(stenc_field_upload(v));
    // each launch waits for its singular check (the default), or records into a report
    stenc_tridiag_report *report;
    BENCH_STENC_CHECK(stenc_tridiag_report_create(ctx, &report));
    double t[2][2]; // [deferred][dir]
    for (int deferred = 0; deferred < 2; deferred++) {
        BENCH_STENC_CHECK(stenc_tridiag_defer_lines(ctx, deferred ? report : nullptr));
        t[deferred][0] = bench_median_ms(
            stream, [&] { BENCH_STENC_CHECK(adi_x(ctx, r, u, v)); }, reps);
        t[deferred][1] = bench_median_ms(
            stream, [&] { BENCH_STENC_CHECK(adi_y(ctx, r, u, v)); }, reps);
    }
    BENCH_STENC_CHECK(stenc_tridiag_defer_lines(ctx, nullptr));
    BENCH_STENC_CHECK(stenc_tridiag_report_check(report, nullptr));
    stenc_field_layout l;
    BENCH_STENC_CHECK(stenc_field_get_layout(v, &l));
    const size_t pitch = (size_t)l.stride[1], rows = l.n[1] + 2, alloc = l.alloc_elems;
    // by hand: dense arrays, the waiting solve (as the launcher waits)
    const size_t count = (size_t)n * n;
    double *a = device_filled(count, -r), *b = device_filled(count, 1 + 2 * r);
    double *du = device_filled(count, 0.5), *tmp = device_filled(count, 0),
           *x = device_filled(count, 0);
    dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
    stenc_tridiag_options opt = {STENC_TRIDIAG_AUTO, 0, nullptr};
    auto hand = [&](int dir, stenc_tridiag_layout layout) {
        rhs_kernel<<<grid, block, 0, stream>>>(dir, du, tmp, n, r);
        BENCH_STENC_CHECK(stenc_tridiag_solve(ctx, STENC_F64, layout, n, n, a, b, a, tmp, x, &opt));
    };
    double h[2][2];
    for (int deferred = 0; deferred < 2; deferred++) {
        opt.report = deferred ? report : nullptr;
        h[deferred][0] = bench_median_ms(
            stream, [&] { hand(1, STENC_TRIDIAG_CONTIGUOUS); }, reps);
        h[deferred][1] = bench_median_ms(
            stream, [&] { hand(0, STENC_TRIDIAG_INTERLEAVED); }, reps);
    }
    BENCH_STENC_CHECK(stenc_tridiag_report_check(report, nullptr));
    stenc_tridiag_report_destroy(report);
    // the solver alone on the launcher's shape
    double *pa = device_filled(alloc, -r), *pb = device_filled(alloc, 1 + 2 * r);
    double *pd = device_filled(alloc, 0.5), *px = device_filled(alloc, 0);
    const double s_x = bench_median_ms(
        stream,
        [&] {
            BENCH_STENC_CHECK(stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_CONTIGUOUS, pitch,
                                                  rows, pa, pb, pa, pd, px, nullptr));
        },
        reps);
    const double s_y = bench_median_ms(
        stream,
        [&] {
            BENCH_STENC_CHECK(stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_CONTIGUOUS, rows,
                                                  pitch, pa, pb, pa, pd, px, nullptr));
        },
        reps);
    // rows per thread of THOMAS_PCR on both shapes (0: the default)
    if (getenv("BENCH_LINES_SWEEP")) {
        const int sws[] = {0, 12, 16, 17, 20, 24, 32, 33, 40};
        for (int sw : sws) {
            stenc_tridiag_options o = {STENC_TRIDIAG_AUTO, sw, nullptr};
            const double on_shape = bench_median_ms(
                stream,
                [&] {
                    BENCH_STENC_CHECK(stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_CONTIGUOUS,
                                                          pitch, rows, pa, pb, pa, pd, px, &o));
                },
                reps);
            const double dense = bench_median_ms(
                stream,
                [&] {
                    BENCH_STENC_CHECK(stenc_tridiag_solve(ctx, STENC_F64, STENC_TRIDIAG_CONTIGUOUS,
                                                          n, n, a, b, a, tmp, x, &o));
                },
                reps);
            printf("bench=lines_sweep n=%d switch=%d shape_ms=%.4f dense_ms=%.4f\n", n, sw,
                   on_shape, dense);
        }
    }
    const double s_dir[2] = {s_x, s_y};
    for (int deferred = 0; deferred < 2; deferred++)
        for (int dir = 0; dir < 2; dir++)
            printf("bench=lines n=%d dir=%c check=%s stencil_ms=%.4f hand_ms=%.4f ratio=%.3f "
                   "solver_on_shape_ms=%.4f rest_ms=%.4f\n",
                   n, "xy"[dir], deferred ? "deferred" : "wait", t[deferred][dir], h[deferred][dir],
                   t[deferred][dir] / h[deferred][dir], s_dir[dir], t[deferred][dir] - s_dir[dir]);
    for (int deferred = 0; deferred < 2; deferred++)
        printf("  %5d %-8s | x: %8.4f ms vs %8.4f (%.2fx) | y: %8.4f vs %8.4f (%.2fx) | solver on "
               "the shape: x %8.4f, y %8.4f\n",
               n, deferred ? "deferred" : "wait", t[deferred][0], h[deferred][0],
               t[deferred][0] / h[deferred][0], t[deferred][1], h[deferred][1],
               t[deferred][1] / h[deferred][1], s_x, s_y);
    double *all[] = {a, b, du, tmp, x, pa, pb, pd, px};
    for (double *p : all)
        cudaFree(p);
    stenc_field_free(u), stenc_field_free(v);
}

} // namespace

int main(int argc, char **argv) {
    stenc_ctx *ctx;
    if (stenc_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return 0;
    }
    BENCH_STENC_CHECK(stenc_ctx_create(&ctx, STENC_DEVICE_CUDA));
    printf("device: %s\n", stenc_ctx_device_name(ctx));
    std::vector<int> sizes = {1023, 2047, 4095, 8191};
    if (argc > 1) sizes.clear();
    for (int k = 1; k < argc; k++)
        sizes.push_back(atoi(argv[k]));
    printf(
        "      n check    | adi_x launch vs by hand (rhs kernel + solve) | adi_y ... | the solver "
        "alone on the launch's shape (the allocation's lines)\n");
    for (int n : sizes)
        run_case(ctx, n);
    stenc_ctx_destroy(ctx);
    return 0;
}
