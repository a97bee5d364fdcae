// bench_steps_cuda: the stepping launchers (`step OUT -> IN;`) on a CUDA device, with temporal
// blocking (kernels making T steps per trip through memory) against the plain steps (one halo
// fill, one sweep and a swap per step) and against the copy rate, in one precision (built
// twice: bench_steps_cuda_float, bench_steps_cuda_double, against the stencils generated in
// that precision). heat3d_steps at 512^3 (--n3), Dirichlet 0 on every face and Neumann on every
// face; jacobi2d_steps at 8192^2 (--n2), Dirichlet 0; 8 and 16 steps (--steps 8,16); --quick:
// 64^3 and 1024^2, 3 runs. --only an5d_j2d5pt or an5d_star3d1r: two stencils of AN5D's suite
// (an5d_peers.stencil), as heat3d and jacobi2d, for a comparison with AN5D's kernels.
//
// Per stencil: the copy rate (cudaMemcpy device to device of a buffer of one field's interior,
// GB/s read + written) and the single-sweep bound, copy rate / bytes per point (heat3d: x read,
// y written; jacobi2d: u and f read, u_new written; `stenc --info`). Per case: the plain steps
// (STENC_STEPS_BLOCK=1), every generated kernel (STENC_STEPS_KERNEL=tstep_t4_32x32, ...: its
// degree and tile), the default (both unset: the context's tune cache entry once a tuned row of the
// same size has stored one, else the table's default) and the tuned choice (stenc_tune on for the
// first call, whose choice the timed calls take from a fresh cache file): effective Gpts/s = points
// * steps / time, against the bound and against the plain steps. Timing: stenc's timer (CUDA events
// on the context's stream) around one NAME_steps call, median of --reps runs (5) after a warm-up.
// Correctness in the same run: from the same start (random values over interior and halo of both
// fields), every blocked run's two fields, interior and halo, copied back to the host, bit for bit
// against the plain steps' (built with -fmad=false, like the library's kernels). One key=value line
// per case, then a table; exit 1 on a mismatch, 77 without a CUDA device.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
#include "stenc/stenc.h"

#include "an5d_j2d5pt.h"
#include "an5d_star3d1r.h"
#include "heat3d.h"
#include "jacobi2d.h"

#if BENCH_DOUBLE
typedef double real;
static const char *const kPrecision = "double";
static const stenc_type kType = STENC_F64;
#else
typedef float real;
static const char *const kPrecision = "float";
static const stenc_type kType = STENC_F32;
#endif

// The stencils' temporally blocked kernels (generated), each forced by STENC_STEPS_KERNEL.
extern "C" const stenc_launch_tsteps heat3d_cuda_tsteps, jacobi2d_cuda_tsteps,
    an5d_j2d5pt_cuda_tsteps, an5d_star3d1r_cuda_tsteps;
static const double kHeatR = 0.1; // heat3d: a = 1 - 6r, b = r

enum { MAX_FIELDS = 3 };

// One stepping stencil: its fields in launcher order, IN and OUT among them.
struct Stencil {
    const char *name;
    int dims;
    int nfields, in, out;
    int arrays_per_pt; // arrays a sweep moves per point: bytes per point / sizeof(T)
    double lo[MAX_FIELDS], hi[MAX_FIELDS]; // start values, uniform in [lo, hi)
    stenc_status (*steps)(stenc_ctx *, stenc_field *const *, size_t n, long nsteps,
                          const stenc_bc *);
    const stenc_launch_tsteps *kernels;
};

static stenc_status run_heat3d(stenc_ctx *ctx, stenc_field *const *f, size_t, long nsteps,
                               const stenc_bc *bc) {
    return heat3d_steps(ctx, 1 - 6 * kHeatR, kHeatR, f[0], f[1], nsteps, bc);
}

// h = 1 / (n + 1): the unit square.
static stenc_status run_jacobi2d(stenc_ctx *ctx, stenc_field *const *f, size_t n, long nsteps,
                                 const stenc_bc *bc) {
    const double h = 1.0 / (double)(n + 1);
    return jacobi2d_steps(ctx, h * h, f[0], f[1], f[2], nsteps, bc);
}

static stenc_status run_j2d5pt(stenc_ctx *ctx, stenc_field *const *f, size_t, long nsteps,
                               const stenc_bc *bc) {
    return an5d_j2d5pt_steps(ctx, f[0], f[1], nsteps, bc);
}

static stenc_status run_star3d1r(stenc_ctx *ctx, stenc_field *const *f, size_t, long nsteps,
                                 const stenc_bc *bc) {
    return an5d_star3d1r_steps(ctx, f[0], f[1], nsteps, bc);
}

// The AN5D stencils (an5d_peers.stencil) run only when --only names them: their figures are
// compared with AN5D's own kernels (bench/cuda/RESULTS.md, "Against AN5D").
static const Stencil kStencils[] = {
    {"heat3d", 3, 2, 0, 1, 2, {0, 0}, {1, 1}, run_heat3d, &heat3d_cuda_tsteps},
    {"jacobi2d", 2, 3, 0, 2, 3, {-1, -1, -1}, {1, 1, 1}, run_jacobi2d, &jacobi2d_cuda_tsteps},
    {"an5d_j2d5pt", 2, 2, 0, 1, 2, {0, 0}, {1, 1}, run_j2d5pt, &an5d_j2d5pt_cuda_tsteps},
    {"an5d_star3d1r", 3, 2, 0, 1, 2, {0, 0}, {1, 1}, run_star3d1r, &an5d_star3d1r_cuda_tsteps},
};

struct Bc {
    const char *name;
    stenc_bc faces[STENC_FACE_COUNT];
};
static const Bc kDirichlet = {"dirichlet",
                              {{STENC_BC_DIRICHLET, 0},
                               {STENC_BC_DIRICHLET, 0},
                               {STENC_BC_DIRICHLET, 0},
                               {STENC_BC_DIRICHLET, 0},
                               {STENC_BC_DIRICHLET, 0},
                               {STENC_BC_DIRICHLET, 0}}};
static const Bc kNeumann = {"neumann",
                            {{STENC_BC_NEUMANN, 0},
                             {STENC_BC_NEUMANN, 0},
                             {STENC_BC_NEUMANN, 0},
                             {STENC_BC_NEUMANN, 0},
                             {STENC_BC_NEUMANN, 0},
                             {STENC_BC_NEUMANN, 0}}};

struct Row {
    std::string stencil, bc, variant;
    size_t n;
    long steps;
    int degree;
    double ms, gpts, of_bound, vs_plain;
    long bad;
};
static std::vector<Row> rows;

static stenc_ctx *ctx;
static stenc_timer *timer;
static cudaStream_t stream;
static int reps = 5;

static uint64_t hash64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Median milliseconds of `reps` runs of f(), timed one by one with stenc's timer; the caller
// has warmed up.
template <class F> static double median_ms(F f) {
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        double ms = 0;
        BENCH_STENC_CHECK(stenc_timer_start(timer));
        f();
        BENCH_STENC_CHECK(stenc_timer_stop(timer, &ms));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// Copy rate in GB/s (read + written) of a device-to-device cudaMemcpy of `bytes`.
static double copy_gbs(size_t bytes) {
    void *a, *b;
    BENCH_CUDA_CHECK(cudaMalloc(&a, bytes));
    BENCH_CUDA_CHECK(cudaMalloc(&b, bytes));
    BENCH_CUDA_CHECK(cudaMemset(a, 1, bytes));
    auto copy = [&] {
        BENCH_CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream));
    };
    copy(); // warm-up
    const double ms = median_ms(copy);
    BENCH_CUDA_CHECK(cudaFree(a));
    BENCH_CUDA_CHECK(cudaFree(b));
    return 2.0 * (double)bytes / ms * 1e-6;
}

// A field's whole allocation (halo and padding included) on the device.
static real *device_base(const stenc_field *f, size_t *count) {
    stenc_field_layout L;
    BENCH_STENC_CHECK(stenc_field_get_layout(f, &L));
    *count = L.alloc_elems;
    return (real *)stenc_field_device_origin(f) - L.origin_elems;
}

static void download_all(const stenc_field *f, std::vector<real> &host) {
    size_t count;
    const real *base = device_base(f, &count);
    host.resize(count);
    BENCH_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), base, count * sizeof(real), cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Points of interior and halo (row padding aside) where two copies of f's allocation differ,
// bitwise.
static long mismatches(const stenc_field *f, const std::vector<real> &got,
                       const std::vector<real> &want) {
    stenc_field_layout L;
    BENCH_STENC_CHECK(stenc_field_get_layout(f, &L));
    const long h = L.halo;
    const long k_lo = L.dims == 3 ? -h : 0, k_hi = L.dims == 3 ? (long)L.n[2] + h : 1;
    const long j_lo = L.dims >= 2 ? -h : 0, j_hi = L.dims >= 2 ? (long)L.n[1] + h : 1;
    long bad = 0;
#pragma omp parallel for collapse(2) reduction(+ : bad)
    for (long k = k_lo; k < k_hi; k++)
        for (long j = j_lo; j < j_hi; j++)
            for (long i = -h; i < (long)L.n[0] + h; i++) {
                const ptrdiff_t e =
                    (ptrdiff_t)L.origin_elems + i + j * L.stride[1] + k * L.stride[2];
                if (memcmp(&got[(size_t)e], &want[(size_t)e], sizeof(real)) != 0) bad++;
            }
    return bad;
}

// The fields of one stencil, their start state kept on the device to reset them from.
struct Fields {
    const Stencil *s;
    size_t n, pts;
    stenc_field *f[MAX_FIELDS];
    real *start[MAX_FIELDS];
    std::vector<real> want[MAX_FIELDS], got; // the plain steps' IN and OUT; a blocked run's

    Fields(const Stencil &st, size_t side) : s(&st), n(side) {
        const size_t ny = side, nz = st.dims == 3 ? side : 1;
        pts = side * ny * nz;
        for (int a = 0; a < st.nfields; a++) {
            BENCH_STENC_CHECK(stenc_field_create(ctx, &f[a], kType, st.dims, side, ny, nz, 1));
            stenc_field_layout L;
            BENCH_STENC_CHECK(stenc_field_get_layout(f[a], &L));
            real *base = (real *)stenc_field_host_origin(f[a]) - L.origin_elems;
            const double lo = st.lo[a], hi = st.hi[a];
#pragma omp parallel for schedule(static)
            for (long t = 0; t < (long)L.alloc_elems; t++) {
                const uint64_t bits = hash64((uint64_t)(a + 1) * 0x100000001B3ull + (uint64_t)t);
                base[t] = (real)(lo + (hi - lo) * (double)(bits >> 11) * 0x1.0p-53);
            }
            BENCH_STENC_CHECK(stenc_field_upload(f[a]));
            size_t count;
            const real *dev = device_base(f[a], &count);
            BENCH_CUDA_CHECK(cudaMalloc(&start[a], count * sizeof(real)));
            BENCH_CUDA_CHECK(cudaMemcpyAsync(start[a], dev, count * sizeof(real),
                                             cudaMemcpyDeviceToDevice, stream));
        }
        BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    ~Fields() {
        for (int a = 0; a < s->nfields; a++) {
            cudaFree(start[a]);
            stenc_field_free(f[a]);
        }
    }
    // Back to the start state (the steps swap IN and OUT: each handle gets its own start).
    void reset() {
        for (int a = 0; a < s->nfields; a++) {
            size_t count;
            real *dev = device_base(f[a], &count);
            BENCH_CUDA_CHECK(cudaMemcpyAsync(dev, start[a], count * sizeof(real),
                                             cudaMemcpyDeviceToDevice, stream));
        }
    }
    void run(long nsteps, const Bc &bc) {
        BENCH_STENC_CHECK(s->steps(ctx, f, n, nsteps, bc.faces));
    }
    void keep_reference() {
        download_all(f[s->in], want[0]);
        download_all(f[s->out], want[1]);
    }
    // Mismatches of IN and OUT against the plain steps'.
    long compare() {
        download_all(f[s->in], got);
        long bad = mismatches(f[s->in], got, want[0]);
        download_all(f[s->out], got);
        return bad + mismatches(f[s->out], got, want[1]);
    }
};

// STENC_STEPS_BLOCK=block, or unset for 0; STENC_STEPS_KERNEL=kernel, or unset for NULL.
static void set_block(int block, const char *kernel = NULL) {
    if (kernel)
        setenv("STENC_STEPS_KERNEL", kernel, 1);
    else
        unsetenv("STENC_STEPS_KERNEL");
    if (!block) {
        unsetenv("STENC_STEPS_BLOCK");
        return;
    }
    char text[16];
    snprintf(text, sizeof text, "%d", block);
    setenv("STENC_STEPS_BLOCK", text, 1);
}

// From the start state: one run (the warm-up, and the check against the plain steps'
// fields unless this is the plain run), then the timed runs.
struct Measured {
    int degree;
    double ms;
    long bad;
};
static Measured measure(Fields &fs, long nsteps, const Bc &bc, int block, bool plain,
                        const char *kernel = NULL) {
    set_block(block, kernel);
    fs.reset();
    fs.run(nsteps, bc);
    Measured m;
    m.degree = stenc_launch_steps_last_degree();
    m.bad = 0;
    if (plain)
        fs.keep_reference();
    else
        m.bad = fs.compare();
    m.ms = median_ms([&] { fs.run(nsteps, bc); });
    return m;
}

static void report(const Fields &fs, const Bc &bc, long nsteps, const char *variant, int block,
                   const Measured &m, double bound, double plain_gpts) {
    const double gpts = (double)fs.pts * (double)nsteps / m.ms * 1e-6;
    const double vs_plain = plain_gpts > 0 ? gpts / plain_gpts : 1.0;
    char blk[16] = "unset";
    if (block) snprintf(blk, sizeof blk, "%d", block);
    printf("case=%s type=%s n=%zu bc=%s steps=%ld variant=%s block=%s degree=%d ms=%.4f "
           "gpts=%.2f of_bound=%.3f vs_plain=%.3f mismatches=%ld check=%s\n",
           fs.s->name, kPrecision, fs.n, bc.name, nsteps, variant, blk, m.degree, m.ms, gpts,
           gpts / bound, vs_plain, m.bad, m.bad ? "FAIL" : "ok");
    fflush(stdout);
    rows.push_back({fs.s->name, bc.name, variant, fs.n, nsteps, m.degree, m.ms, gpts, gpts / bound,
                    vs_plain, m.bad});
}

// One stencil, one face set, one number of steps: plain, each kernel (STENC_STEPS_KERNEL),
// default.
static int bench_case(Fields &fs, const Bc &bc, long nsteps, double bound) {
    int failures = 0;
    const Measured plain = measure(fs, nsteps, bc, 1, true);
    const double plain_gpts = (double)fs.pts * (double)nsteps / plain.ms * 1e-6;
    report(fs, bc, nsteps, "plain", 1, plain, bound, 0);
    for (int k = 0; k < fs.s->kernels->count; k++) {
        const char *name = fs.s->kernels->list[k].name;
        const Measured m = measure(fs, nsteps, bc, 0, false, name);
        report(fs, bc, nsteps, name + 6 /* past "tstep_" */, 0, m, bound, plain_gpts);
        failures += m.bad != 0;
    }
    const Measured def = measure(fs, nsteps, bc, 0, false);
    report(fs, bc, nsteps, "default", 0, def, bound, plain_gpts);
    failures += def.bad != 0;
    // Tuned: the first (unchecked-time) run times the plain steps and every kernel on scratch
    // fields and keeps the fastest in the cache (a fresh file per process), the timed runs use it.
    BENCH_STENC_CHECK(stenc_tune(ctx, STENC_TUNE_FORCE));
    const Measured tuned = measure(fs, nsteps, bc, 0, false);
    BENCH_STENC_CHECK(stenc_tune(ctx, STENC_TUNE_OFF));
    report(fs, bc, nsteps, "tuned", 0, tuned, bound, plain_gpts);
    failures += tuned.bad != 0;
    return failures;
}

// "8,16" -> {8, 16}; empty on a malformed list.
static std::vector<long> parse_steps(const char *text) {
    std::vector<long> v;
    for (const char *p = text; *p;) {
        char *end;
        const long s = strtol(p, &end, 10);
        if (end == p || s < 1 || (*end && *end != ',')) return {};
        v.push_back(s);
        p = *end ? end + 1 : end;
    }
    return v;
}

int main(int argc, char **argv) {
    bool quick = false;
    size_t n3 = 0, n2 = 0;
    std::vector<long> steps = {8, 16};
    const char *only = nullptr;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = true;
        else if (!strcmp(argv[a], "--n3") && a + 1 < argc)
            n3 = strtoul(argv[++a], nullptr, 10);
        else if (!strcmp(argv[a], "--n2") && a + 1 < argc)
            n2 = strtoul(argv[++a], nullptr, 10);
        else if (!strcmp(argv[a], "--steps") && a + 1 < argc)
            steps = parse_steps(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--only") && a + 1 < argc)
            only = argv[++a];
        else {
            fprintf(stderr,
                    "usage: %s [--quick] [--n3 N] [--n2 N] [--steps S1,S2,...] "
                    "[--reps R] [--only heat3d|jacobi2d|an5d_j2d5pt|an5d_star3d1r]\n",
                    argv[0]);
            return 2;
        }
    }
    if (steps.empty() || reps < 1) {
        fprintf(stderr, "--steps takes counts >= 1 separated by commas; --reps at least 1\n");
        return 2;
    }
    if (quick && reps == 5) reps = 3;
    if (!n3) n3 = quick ? 64 : 512;
    if (!n2) n2 = quick ? 1024 : 8192;
    // The tuned runs' cache: a fresh file, not the user's.
    char cache[] = "/tmp/bench_steps_tune_XXXXXX";
    const int cache_fd = mkstemp(cache);
    if (cache_fd >= 0) close(cache_fd);
    setenv("STENC_TUNE_CACHE", cache, 1);
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CUDA) != STENC_OK) {
        printf("SKIPPED: no CUDA device (%s)\n", stenc_last_error());
        return 77;
    }
    stream = (cudaStream_t)stenc_ctx_cuda_stream(ctx);
    BENCH_STENC_CHECK(stenc_timer_create(ctx, &timer));
    printf("device=\"%s\" type=%s reps=%d\n", stenc_ctx_device_name(ctx), kPrecision, reps);

    int failures = 0;
    struct Bound {
        const char *stencil;
        size_t n;
        double copy, gpts;
    };
    std::vector<Bound> bounds;
    for (const Stencil &s : kStencils) {
        if (only ? strcmp(only, s.name) != 0 : strncmp(s.name, "an5d_", 5) == 0) continue;
        const size_t n = s.dims == 3 ? n3 : n2;
        Fields fs(s, n);
        const double copy = copy_gbs(fs.pts * sizeof(real));
        const int bytes_pt = s.arrays_per_pt * (int)sizeof(real);
        const double bound = copy / bytes_pt;
        printf("case=copy type=%s stencil=%s n=%zu bytes=%zu gbs=%.0f bytes_per_pt=%d "
               "bound_gpts=%.2f\n",
               kPrecision, s.name, n, fs.pts * sizeof(real), copy, bytes_pt, bound);
        bounds.push_back({s.name, n, copy, bound});
        for (long nsteps : steps) {
            failures += bench_case(fs, kDirichlet, nsteps, bound);
            if (s.dims == 3) failures += bench_case(fs, kNeumann, nsteps, bound);
        }
    }

    printf("\n%-9s %-6s %-9s %5s %-11s %6s %9s %9s %8s %9s %8s  %s\n", "stencil", "n", "bc",
           "steps", "variant", "degree", "ms", "ms/step", "Gpts/s", "of bound", "vs plain",
           "check");
    for (const Row &r : rows)
        printf("%-9s %-6zu %-9s %5ld %-11s %6d %9.3f %9.4f %8.2f %8.1f%% %8.2f  %s\n",
               r.stencil.c_str(), r.n, r.bc.c_str(), r.steps, r.variant.c_str(), r.degree, r.ms,
               r.ms / (double)r.steps, r.gpts, 100 * r.of_bound, r.vs_plain, r.bad ? "FAIL" : "ok");
    for (const Bound &b : bounds)
        printf("%s %zu: copy (cudaMemcpy D2D, read+write) %.0f GB/s, single-sweep bound %.2f "
               "Gpts/s; %s\n",
               b.stencil, b.n, b.copy, b.gpts, kPrecision);
    stenc_timer_destroy(timer);
    stenc_ctx_destroy(ctx);
    return failures ? 1 : 0;
}
