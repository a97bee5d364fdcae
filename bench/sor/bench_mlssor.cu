// bench_mlssor: Di et al.'s Table II and their claim, on our hardware. The 2-D Laplace problem of
// examples/sor (u = sin(pi x) on the top edge, 0 on the others, f = 0, u = 0 to start, N^2
// unknowns, h = 1/(N+1)) solved to a relative residual |r|/|r0| < tol (default 1e-6) by
//   rb      red-black SOR, the generated gs_redblack (colour 0 then 1: one iteration);
//   mlN     MLSSOR (stenc_mlssor_sweep) with subdomain N and K = N/2 layers, forward and
//           backward sweeps alternating (a layer is one iteration);
//   ssor    SSOR: MLSSOR with one tile covering the grid and K = 1, which is exactly the
//           lexicographic forward sweep then the backward one (a sweep is one iteration);
//   lex     SOR in lexicographic order: the generated ordered sweep sor_lex (DOACROSS on the
//           GPU), bitwise the sequential loop (a sweep is one iteration);
// all with omega = 2 / (1 + sin(pi h)), in double. The residual (the generated residual_norm)
// is taken every --every iterations (default 32, a whole number of sweeps for every method),
// so counts are multiples of it. A method stops unconverged at --max-iters or --max-seconds.
//
// Per method: iterations to tol; the median time of one iteration (CUDA events around --every
// iterations, after a warm-up, median of 5); time to tol = the two multiplied; the measured solve
// (checks included); its ratio to rb's. Runs on the GPU (default) or the host's cores (--host).
// Correctness in the same run (GPU): MLSSOR on the device against the host, bit for bit.
// Prints key=value lines, then a table.
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
#include "gs_redblack.h"
#include "residual_norm.h"
#include "sor_lex.h"
#include "stenc/stenc.h"

namespace {

struct Method {
    std::string name;
    long subdomain; // 0: red-black; -1: SSOR (one tile)
};

struct Problem {
    stenc_ctx *ctx;
    long n;
    double h2, omega;
    stenc_field *u, *f, *r;
};

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void sync(const Problem &p) {
    BENCH_STENC_CHECK(stenc_ctx_synchronize(p.ctx));
}

// u = 0 inside, the boundary values in the halo: a fresh field where the problem's lives.
void reset(Problem &p) {
    if (p.u) BENCH_STENC_CHECK(stenc_field_free(p.u));
    BENCH_STENC_CHECK(stenc_field_create(p.ctx, &p.u, STENC_F64, 2, p.n, p.n, 1, 1));
    const double hh = 1.0 / (double)(p.n + 1);
    for (long i = 0; i < p.n; i++)
        BENCH_STENC_CHECK(stenc_field_set(p.u, i, p.n, 0, sin(M_PI * (double)(i + 1) * hh)));
    if (stenc_ctx_device(p.ctx) != STENC_DEVICE_CPU) BENCH_STENC_CHECK(stenc_field_upload(p.u));
}

// `iters` iterations of a method (a multiple of its sweep length).
void iterate(Problem &p, const Method &m, long iters, long *layers_done) {
    if (m.subdomain == -3) { // the ordered sweep: lexicographic SOR, bitwise the loop nest
        for (long it = 0; it < iters; it++)
            BENCH_STENC_CHECK(sor_lex(p.ctx, p.h2, p.omega, p.u, p.f));
        return;
    }
    if (m.subdomain == 0) {
        for (long it = 0; it < iters; it++) {
            BENCH_STENC_CHECK(gs_redblack(p.ctx, 0, p.h2, p.omega, p.u, p.f));
            BENCH_STENC_CHECK(gs_redblack(p.ctx, 1, p.h2, p.omega, p.u, p.f));
        }
        return;
    }
    const long sub = m.subdomain > 0 ? m.subdomain : p.n + 1;
    const long K = m.subdomain > 0 ? sub / 2 : 1;
    for (long it = 0; it < iters; it += K) {
        const stenc_sweep_dir dir =
            (*layers_done / K) % 2 ? STENC_SWEEP_BACKWARD : STENC_SWEEP_FORWARD;
        BENCH_STENC_CHECK(stenc_mlssor_sweep(p.u, p.f, p.h2, p.omega, sub, (int)K, dir));
        *layers_done += K;
    }
}

double residual(Problem &p) {
    double r2, rmax;
    BENCH_STENC_CHECK(residual_norm(p.ctx, 1.0 / p.h2, p.u, p.f, p.r, &r2, &rmax));
    return sqrt(r2);
}

// Median seconds of `every` iterations: CUDA events on the device, the wall clock on the host.
double iteration_block_s(Problem &p, const Method &m, long every) {
    long layers = 0;
    const bool gpu = stenc_ctx_device(p.ctx) == STENC_DEVICE_CUDA;
    if (gpu) {
        cudaStream_t s = (cudaStream_t)stenc_ctx_cuda_stream(p.ctx);
        return 1e-3 * bench_median_ms(
                          s, [&] { iterate(p, m, every, &layers); }, 5);
    }
    std::vector<double> t;
    iterate(p, m, every, &layers);
    for (int r = 0; r < 5; r++) {
        double t0 = now_s();
        iterate(p, m, every, &layers);
        t.push_back(now_s() - t0);
    }
    std::sort(t.begin(), t.end());
    return t[2];
}

// A small grid, MLSSOR on the device and on the host, bit for bit.
long check_against_host(stenc_ctx *dev, stenc_ctx *host) {
    const long nx = 1000, ny = 777;
    long mismatches = 0;
    for (long sub : {8L, 32L}) {
        stenc_field *hu, *du, *hf, *df;
        BENCH_STENC_CHECK(stenc_field_create(host, &hu, STENC_F64, 2, nx, ny, 1, 1));
        BENCH_STENC_CHECK(stenc_field_create(host, &hf, STENC_F64, 2, nx, ny, 1, 1));
        BENCH_STENC_CHECK(stenc_field_create(dev, &du, STENC_F64, 2, nx, ny, 1, 1));
        BENCH_STENC_CHECK(stenc_field_create(dev, &df, STENC_F64, 2, nx, ny, 1, 1));
        std::vector<double> a((size_t)(nx * ny)), b((size_t)(nx * ny));
        unsigned long long x = 12345 + (unsigned long long)sub;
        for (auto &v : a) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            v = (double)(x >> 11) * 0x1p-53;
        }
        BENCH_STENC_CHECK(stenc_field_copy_from(hu, a.data()));
        BENCH_STENC_CHECK(stenc_field_copy_from(du, a.data()));
        BENCH_STENC_CHECK(stenc_field_copy_from(hf, a.data()));
        BENCH_STENC_CHECK(stenc_field_copy_from(df, a.data()));
        BENCH_STENC_CHECK(stenc_field_upload(du));
        BENCH_STENC_CHECK(stenc_field_upload(df));
        for (int s = 0; s < 3; s++) {
            const stenc_sweep_dir dir = s % 2 ? STENC_SWEEP_BACKWARD : STENC_SWEEP_FORWARD;
            BENCH_STENC_CHECK(stenc_mlssor_sweep(hu, hf, 1e-3, 1.9, sub, 0, dir));
            BENCH_STENC_CHECK(stenc_mlssor_sweep(du, df, 1e-3, 1.9, sub, 0, dir));
        }
        BENCH_STENC_CHECK(stenc_field_download(du));
        BENCH_STENC_CHECK(stenc_field_copy_to(hu, a.data()));
        BENCH_STENC_CHECK(stenc_field_copy_to(du, b.data()));
        for (size_t e = 0; e < a.size(); e++)
            mismatches += memcmp(&a[e], &b[e], sizeof(double)) != 0;
        for (stenc_field *f : {hu, du, hf, df})
            BENCH_STENC_CHECK(stenc_field_free(f));
    }
    return mismatches;
}

} // namespace

int main(int argc, char **argv) {
    long n = 8192, every = 32, max_iters = 200000;
    double tol = 1e-6, omega = 0, max_seconds = 1e30;
    bool on_host = false;
    std::string methods = "rb,ml4,ml8,ml16,ml32";
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc)
            n = atol(argv[++a]);
        else if (!strcmp(argv[a], "--tol") && a + 1 < argc)
            tol = atof(argv[++a]);
        else if (!strcmp(argv[a], "--every") && a + 1 < argc)
            every = atol(argv[++a]);
        else if (!strcmp(argv[a], "--max-iters") && a + 1 < argc)
            max_iters = atol(argv[++a]);
        else if (!strcmp(argv[a], "--methods") && a + 1 < argc)
            methods = argv[++a];
        else if (!strcmp(argv[a], "--max-seconds") && a + 1 < argc)
            max_seconds = atof(argv[++a]);
        else if (!strcmp(argv[a], "--omega") && a + 1 < argc)
            omega = atof(argv[++a]);
        else if (!strcmp(argv[a], "--host"))
            on_host = true;
        else {
            fprintf(
                stderr,
                "usage: bench_mlssor [--host] [--n N] [--tol T] [--every I] "
                "[--max-iters I] [--max-seconds S] [--omega W] [--methods rb,ssor,lex,mlN,...]\n");
            return 2;
        }
    }
    std::vector<Method> ms;
    for (size_t at = 0; at < methods.size();) {
        size_t end = methods.find(',', at);
        if (end == std::string::npos) end = methods.size();
        std::string w = methods.substr(at, end - at);
        at = end + 1;
        long sub = w == "rb"               ? 0
                   : w == "ssor"           ? -1
                   : w == "lex"            ? -3
                   : w.rfind("ml", 0) == 0 ? atol(w.c_str() + 2)
                                           : -2;
        if (sub == -2 || (sub > 0 && (sub < 2 || every % (sub / 2) != 0))) {
            fprintf(stderr, "bench_mlssor: bad method '%s' (or --every not a multiple of its K)\n",
                    w.c_str());
            return 2;
        }
        ms.push_back({w, sub});
    }
    if (!on_host && stenc_cuda_device_count() == 0) {
        printf("no CUDA device: skipped (--host runs on the CPU)\n");
        return 77;
    }
    stenc_ctx *host;
    BENCH_STENC_CHECK(stenc_ctx_create(&host, STENC_DEVICE_CPU));
    Problem p{};
    if (on_host) {
        p.ctx = host;
    } else {
        BENCH_STENC_CHECK(stenc_ctx_create(&p.ctx, STENC_DEVICE_CUDA));
        const long bad = check_against_host(p.ctx, host);
        printf("case=check_device_vs_host grid=1000x777 subdomains=8,32 mismatches=%ld\n", bad);
        if (bad) return 1;
    }
    p.n = n;
    p.h2 = 1.0 / ((double)(n + 1) * (double)(n + 1));
    p.omega = omega > 0 ? omega : 2.0 / (1.0 + sin(M_PI / (double)(n + 1)));
    BENCH_STENC_CHECK(stenc_field_create(p.ctx, &p.f, STENC_F64, 2, n, n, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(p.ctx, &p.r, STENC_F64, 2, n, n, 1, 1));
    if (!on_host) {
        BENCH_STENC_CHECK(stenc_field_upload(p.f));
        BENCH_STENC_CHECK(stenc_field_upload(p.r));
    }
    const char *where = on_host ? "host" : "gpu";
    struct Row {
        std::string name;
        long iters;
        double it_ms, tol_s, solve_s, rel;
    };
    std::vector<Row> rows;
    for (const Method &m : ms) {
        reset(p);
        const double t_block = iteration_block_s(p, m, every);
        reset(p);
        const double r0 = residual(p);
        long iters = 0, layers = 0;
        double rel = 1;
        sync(p);
        const double t0 = now_s();
        while (iters < max_iters && rel >= tol && now_s() - t0 < max_seconds) {
            iterate(p, m, every, &layers);
            iters += every;
            rel = residual(p) / r0; // waits for the device
        }
        const double solve = now_s() - t0;
        const double it_ms = 1e3 * t_block / (double)every;
        rows.push_back({m.name, iters, it_ms, iters * it_ms * 1e-3, solve, rel});
        printf("case=%s where=%s n=%ld tol=%g omega=%.9f iters=%ld reached=%d rel_residual=%.3e "
               "ms_per_iter=%.4f s_to_tol=%.3f solve_s=%.3f\n",
               m.name.c_str(), where, n, tol, p.omega, iters, rel < tol, rel, it_ms,
               iters * it_ms * 1e-3, solve);
        fflush(stdout);
    }
    double rb_s = 0;
    for (const Row &r : rows)
        if (r.name == "rb") rb_s = r.tol_s;
    printf("\n%-8s %10s %12s %12s %12s %14s\n", "method", "iters", "ms/iter", "s to tol", "solve s",
           "time / rb");
    for (const Row &r : rows)
        printf("%-8s %10ld %12.4f %12.3f %12.3f %14s\n", r.name.c_str(), r.iters, r.it_ms, r.tol_s,
               r.solve_s, rb_s > 0 ? std::to_string(r.tol_s / rb_s).substr(0, 5).c_str() : "-");
    for (stenc_field *f : {p.u, p.f, p.r})
        BENCH_STENC_CHECK(stenc_field_free(f));
    if (p.ctx != host) BENCH_STENC_CHECK(stenc_ctx_destroy(p.ctx));
    BENCH_STENC_CHECK(stenc_ctx_destroy(host));
    return 0;
}
