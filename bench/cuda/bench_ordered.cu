// bench_ordered: an ordered (lexicographic) SOR sweep of the 5-point Poisson operator
// (stencils/ordered.stencil, sor_lex) against a red-black sweep of the same update
// (gs_redblack: colour 0 then colour 1), per sweep, on the GPU (every variant: the DOACROSS
// bands of 64 and of 128 rows, and a launch per hyperplane) and on the host's cores (the loop nest
// with one thread, hyperplanes with several), against the bytes-moved bound of one sweep (u read
// and written, f read: 24 B per point) over the device copy rate. Sizes N^2 (default 8192 on the
// GPU, 2048 on the host; --n, --host-n). Timing: the wall clock around whole sweeps, after a
// warm-up, median of --reps (default 5). Correctness in the same run: each device variant
// against the host loop, bit for bit. Prints key=value lines, then a table.
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gs_redblack.h"
#include "sor_lex.h"
#include "bench_util.h"
#include "stenc/stenc.h"

static int reps = 5;

// Median seconds of one call of `sweep`, after a warm-up; `sync` waits for the device.
template <class F, class S> static double median_s(F sweep, S sync) {
    sweep();
    sync();
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        auto t0 = std::chrono::steady_clock::now();
        sweep();
        sync();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static void fill(stenc_field *f, unsigned seed) {
    stenc_field_layout l;
    BENCH_STENC_CHECK(stenc_field_get_layout(f, &l));
    double *base = (double *)stenc_field_host_origin(f) - l.origin_elems;
    unsigned long long x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t e = 0; e < l.alloc_elems; e++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        base[e] = (double)(x >> 11) * 0x1p-53;
    }
}

int main(int argc, char **argv) {
    long n = 8192, hn = 2048, rows = 0;
    const char *const variants[] = {"doacross_r2", "doacross_r4", "wavefront_256"};
    const char *const names[] = {"sor_lex (DOACROSS, 64 rows)", "sor_lex (DOACROSS, 128 rows)",
                                 "sor_lex (launch/hyperplane)"};
    const char *rows_variant = variants[0];
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc)
            n = atol(argv[++a]);
        else if (!strcmp(argv[a], "--rows") && a + 1 < argc)
            rows = atol(argv[++a]);
        else if (!strcmp(argv[a], "--variant") && a + 1 < argc)
            rows_variant = argv[++a];
        else if (!strcmp(argv[a], "--host-n") && a + 1 < argc)
            hn = atol(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else {
            fprintf(
                stderr,
                "usage: bench_ordered [--n N] [--host-n N] [--reps R] [--rows NJ [--variant V]]\n");
            return 2;
        }
    }
    if (stenc_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    stenc_ctx *dev, *host;
    BENCH_STENC_CHECK(stenc_ctx_create(&dev, STENC_DEVICE_CUDA));
    BENCH_STENC_CHECK(stenc_ctx_create(&host, STENC_DEVICE_CPU));
    cudaStream_t stream = (cudaStream_t)stenc_ctx_cuda_stream(dev);
    // the copy rate
    void *ca, *cb;
    const size_t bytes = (size_t)1 << 30;
    BENCH_CUDA_CHECK(cudaMalloc(&ca, bytes));
    BENCH_CUDA_CHECK(cudaMalloc(&cb, bytes));
    BENCH_CUDA_CHECK(cudaMemset(ca, 1, bytes));
    const double copy_ms = bench_median_ms(
        stream, [&] { cudaMemcpyAsync(cb, ca, bytes, cudaMemcpyDeviceToDevice, stream); }, reps);
    const double copy_gbs = 2.0 * (double)bytes / copy_ms * 1e-6;
    cudaFree(ca), cudaFree(cb);
    const double h2 = 1e-4, omega = 1.0;
    printf("device=%s copy_gbs=%.0f host_threads=%d\n", stenc_ctx_device_name(dev), copy_gbs,
           omp_get_max_threads());
    struct Row {
        const char *where, *what;
        long n;
        double ms;
    };
    if (rows > 0) { // one shape, the DOACROSS sweep only: ni = n, nj = rows
        stenc_field *u, *f;
        BENCH_STENC_CHECK(stenc_field_create(dev, &u, STENC_F64, 2, n, rows, 1, 1));
        BENCH_STENC_CHECK(stenc_field_create(dev, &f, STENC_F64, 2, n, rows, 1, 0));
        fill(u, 1), fill(f, 2);
        BENCH_STENC_CHECK(stenc_field_upload(u));
        BENCH_STENC_CHECK(stenc_field_upload(f));
        const double lex = median_s(
            [&] { BENCH_STENC_CHECK(sor_lex_variant(dev, rows_variant, h2, omega, u, f)); },
            [&] { cudaStreamSynchronize(stream); });
        printf("shape=%ldx%ld variant=%s ms_per_sweep=%.3f\n", n, rows, rows_variant, lex * 1e3);
        stenc_field_free(u), stenc_field_free(f);
        stenc_ctx_destroy(host);
        stenc_ctx_destroy(dev);
        return 0;
    }
    std::vector<Row> rows_out;
    // the device
    {
        stenc_field *u, *f, *hu, *hf;
        BENCH_STENC_CHECK(stenc_field_create(dev, &u, STENC_F64, 2, n, n, 1, 1));
        BENCH_STENC_CHECK(stenc_field_create(dev, &f, STENC_F64, 2, n, n, 1, 0));
        fill(u, 1), fill(f, 2);
        BENCH_STENC_CHECK(stenc_field_upload(u));
        BENCH_STENC_CHECK(stenc_field_upload(f));
        auto sync = [&] { cudaStreamSynchronize(stream); };
        for (int v = 0; v < 3; v++) {
            const double ms =
                1e3 *
                median_s(
                    [&] { BENCH_STENC_CHECK(sor_lex_variant(dev, variants[v], h2, omega, u, f)); },
                    sync);
            rows_out.push_back({"device", names[v], n, ms});
        }
        const double rb = median_s(
            [&] {
                BENCH_STENC_CHECK(gs_redblack(dev, 0, h2, omega, u, f));
                BENCH_STENC_CHECK(gs_redblack(dev, 1, h2, omega, u, f));
            },
            sync);
        rows_out.push_back({"device", "gs_redblack (2 colours)", n, rb * 1e3});
        // correctness: one sweep from the same data on both sides, each device variant
        BENCH_STENC_CHECK(stenc_field_create(host, &hu, STENC_F64, 2, n, n, 1, 1));
        BENCH_STENC_CHECK(stenc_field_create(host, &hf, STENC_F64, 2, n, n, 1, 0));
        fill(hu, 3), fill(hf, 2);
        omp_set_num_threads(1);
        BENCH_STENC_CHECK(sor_lex(host, h2, omega, hu, hf));
        std::vector<double> a((size_t)n * n), b((size_t)n * n);
        BENCH_STENC_CHECK(stenc_field_copy_to(hu, b.data()));
        for (const char *variant : variants) {
            BENCH_STENC_CHECK(stenc_field_download(u));
            fill(u, 3);
            BENCH_STENC_CHECK(stenc_field_upload(u));
            BENCH_STENC_CHECK(sor_lex_variant(dev, variant, h2, omega, u, f));
            BENCH_STENC_CHECK(stenc_field_download(u));
            BENCH_STENC_CHECK(stenc_field_copy_to(u, a.data()));
            long bad = 0;
            for (size_t p = 0; p < a.size(); p++)
                bad += memcmp(&a[p], &b[p], sizeof(double)) != 0;
            printf("check=device_vs_host_loop variant=%s n=%ld mismatches=%ld\n", variant, n, bad);
        }
        stenc_field_free(u), stenc_field_free(f), stenc_field_free(hu), stenc_field_free(hf);
    }
    // the host, one thread and all
    const int all = omp_get_num_procs();
    for (int threads : {1, all}) {
        omp_set_num_threads(threads);
        stenc_field *u, *f;
        BENCH_STENC_CHECK(stenc_field_create(host, &u, STENC_F64, 2, hn, hn, 1, 1));
        BENCH_STENC_CHECK(stenc_field_create(host, &f, STENC_F64, 2, hn, hn, 1, 0));
        fill(u, 1), fill(f, 2);
        auto none = [] {};
        const double lex =
            median_s([&] { BENCH_STENC_CHECK(sor_lex(host, h2, omega, u, f)); }, none);
        const double rb = median_s(
            [&] {
                BENCH_STENC_CHECK(gs_redblack(host, 0, h2, omega, u, f));
                BENCH_STENC_CHECK(gs_redblack(host, 1, h2, omega, u, f));
            },
            none);
        static char where[2][32];
        snprintf(where[threads == 1 ? 0 : 1], 32, "host %d thread%s", threads,
                 threads == 1 ? "" : "s");
        rows_out.push_back({where[threads == 1 ? 0 : 1], "sor_lex", hn, lex * 1e3});
        rows_out.push_back({where[threads == 1 ? 0 : 1], "gs_redblack (2 colours)", hn, rb * 1e3});
        stenc_field_free(u), stenc_field_free(f);
    }
    for (const Row &r : rows_out) {
        const double bound_ms = 24.0 * (double)r.n * (double)r.n / (copy_gbs * 1e9) * 1e3;
        printf("where=\"%s\" kernel=\"%s\" n=%ld ms_per_sweep=%.3f frac_of_device_bound=%.4f\n",
               r.where, r.what, r.n, r.ms, bound_ms / r.ms);
    }
    printf("\n%-16s %-28s %6s %12s %12s\n", "where", "kernel", "n", "ms/sweep", "of bound");
    for (const Row &r : rows_out) {
        const double bound_ms = 24.0 * (double)r.n * (double)r.n / (copy_gbs * 1e9) * 1e3;
        printf("%-16s %-28s %6ld %12.3f %11.2f%%\n", r.where, r.what, r.n, r.ms,
               100 * bound_ms / r.ms);
    }
    stenc_ctx_destroy(host);
    stenc_ctx_destroy(dev);
    return 0;
}
