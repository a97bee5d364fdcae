// bench_input_kinds: kernels with lower-dimensional inputs (stencils/lower_dims.stencil) and
// integer inputs (stencils/int_inputs.stencil) on the GPU, every CUDA variant, against (1) the
// device copy rate measured in the same run, over the bytes the full arrays must move (the
// bound: stretched2d double 16 B/point, u in and v out; planecoef3d float 8 B/point;
// material2d double 21 B/point, u, an int32 and a uint8 in, v out; masked3d float 9 B/point),
// and (2) for the lower-dimensional ones, the same kernels with the coefficients copied out to
// full fields (lower_dims_full.stencil), the users' workaround; then staggered arrays
// (stencils/staggered.stencil): node_avg3d (cells to nodes, float, 8 B/point: c in, nd out,
// over the (n+1)^3 nodes) and face_flux2d (faces normal to i, double, 16 B/point: u in, fx out,
// a division per point, over (n+1) x n faces). 2-D kernels at 8192^2, 3-D at 512^3 (--quick:
// 1024^2, 64^3; --staggered-only N: the staggered kernels alone, node_avg3d at N^3 cells). Timing:
// CUDA events on the context's stream, one launch, after a warm-up, median of --reps (default 20).
// Correctness in the same run: every output point of every variant and of the peer against the C
// kernel on the host, bit for bit (-fmad=false). Prints key=value lines, then a table.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "face_flux2d.h"
#include "masked3d.h"
#include "material2d.h"
#include "planecoef3d.h"
#include "planecoef3d_full.h"
#include "bench_util.h"
#include "stenc/stenc.h"
#include "stretched2d.h"
#include "stretched2d_full.h"
#include "node_avg3d.h"

static int reps = 20;

// Median ms of one launch on ctx's stream, after a warm-up (bench_util.h).
template <class F> static double time_ms(stenc_ctx *ctx, F launch) {
    return bench_median_ms((cudaStream_t)stenc_ctx_cuda_stream(ctx), launch, reps);
}

static double copy_gbs(stenc_ctx *ctx, size_t bytes) {
    void *a, *b;
    BENCH_CUDA_CHECK(cudaMalloc(&a, bytes));
    BENCH_CUDA_CHECK(cudaMalloc(&b, bytes));
    BENCH_CUDA_CHECK(cudaMemset(a, 1, bytes));
    cudaStream_t s = (cudaStream_t)stenc_ctx_cuda_stream(ctx);
    double ms = time_ms(
        ctx, [&] { BENCH_CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s)); });
    BENCH_CUDA_CHECK(cudaFree(a));
    BENCH_CUDA_CHECK(cudaFree(b));
    return 2.0 * (double)bytes / ms * 1e-6;
}

// Deterministic values in [lo, hi) over the whole box (halo included) of a host field of T,
// written through its layout (millions of points).
template <class T> static void fill(stenc_field *f, unsigned seed, double lo, double hi) {
    stenc_field_layout l;
    BENCH_STENC_CHECK(stenc_field_get_layout(f, &l));
    T *base = (T *)stenc_field_host_origin(f) - l.origin_elems;
    unsigned long long x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t e = 0; e < l.alloc_elems; e++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        base[e] = (T)(lo + (hi - lo) * (double)(x >> 11) * 0x1p-53);
    }
}

// The lower-dimensional field `line` spread over a full field: full(i, j, k) = line at the
// indices it spans (axes: bit d for dimension d), halo included.
template <class T> static void spread(stenc_field *full, const stenc_field *line, unsigned axes) {
    stenc_field_layout l, m;
    BENCH_STENC_CHECK(stenc_field_get_layout(full, &l));
    BENCH_STENC_CHECK(stenc_field_get_layout(line, &m));
    T *dst = (T *)stenc_field_host_origin(full);
    const T *src = (const T *)stenc_field_host_origin(line);
    const long h = l.halo, hk = l.dims > 2 ? h : 0;
    for (long k = -hk; k < (long)l.n[2] + hk; k++)
        for (long j = -h; j < (long)l.n[1] + h; j++)
            for (long i = -h; i < (long)l.n[0] + h; i++) {
                long at[3] = {i, j, k}, off = 0;
                for (int d = 0, p = 0; d < 3; d++)
                    if (axes >> d & 1) off += at[d] * m.stride[p++];
                dst[i + j * l.stride[1] + k * l.stride[2]] = src[off];
            }
}

// Interior points of device field `got` that differ bitwise from host field `want`.
template <class T> static long mismatches(stenc_field *got, const stenc_field *want) {
    stenc_field_layout l;
    BENCH_STENC_CHECK(stenc_field_get_layout(want, &l));
    const size_t n = l.n[0] * l.n[1] * l.n[2];
    std::vector<T> a(n), b(n);
    BENCH_STENC_CHECK(stenc_field_download(got));
    BENCH_STENC_CHECK(stenc_field_copy_to(got, a.data()));
    BENCH_STENC_CHECK(stenc_field_copy_to(want, b.data()));
    BENCH_STENC_CHECK(stenc_field_upload(got));
    long bad = 0;
    for (size_t p = 0; p < n; p++)
        bad += memcmp(&a[p], &b[p], sizeof(T)) != 0;
    return bad;
}

struct Row {
    std::string name, variant;
    double ms, gpts, frac, vs_full;
    long bad;
};
static std::vector<Row> rows;

static void report(const char *name, const char *variant, const char *size, double ms, double pts,
                   int bytes_pt, double copy, double full_ms, long bad) {
    const double gpts = pts / ms * 1e-6, frac = gpts * bytes_pt / copy;
    printf("name=%s variant=%s size=%s ms=%.4f gpts=%.1f bytes_per_pt=%d copy_gbs=%.0f "
           "frac_of_bound=%.3f speedup_vs_full=%.3f mismatches=%ld\n",
           name, variant, size, ms, gpts, bytes_pt, copy, frac, full_ms / ms, bad);
    fflush(stdout);
    rows.push_back({name, variant, ms, gpts, frac, full_ms / ms, bad});
}

static void bench_stretched2d(stenc_ctx *dev, stenc_ctx *host, size_t n, double copy) {
    stenc_field *u, *dx, *dy, *v, *fdx, *fdy, *hv;
    BENCH_STENC_CHECK(stenc_field_create(dev, &u, STENC_F64, 2, n, n, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &dx, STENC_F64, 1, n, 1, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &dy, STENC_F64, 1, n, 1, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &v, STENC_F64, 2, n, n, 1, 0));
    BENCH_STENC_CHECK(stenc_field_create(dev, &fdx, STENC_F64, 2, n, n, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &fdy, STENC_F64, 2, n, n, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(host, &hv, STENC_F64, 2, n, n, 1, 0));
    fill<double>(u, 1, -1, 1), fill<double>(dx, 2, 0.5, 1.5), fill<double>(dy, 3, 0.5, 1.5);
    spread<double>(fdx, dx, 1u), spread<double>(fdy, dy, 2u);
    const double dt = 1e-3, nu = 0.5;
    // The reference: the C kernel on the host, on the same values (the host copies).
    {
        stenc_field *hu, *hdx, *hdy;
        BENCH_STENC_CHECK(stenc_field_create(host, &hu, STENC_F64, 2, n, n, 1, 1));
        BENCH_STENC_CHECK(stenc_field_create(host, &hdx, STENC_F64, 1, n, 1, 1, 1));
        BENCH_STENC_CHECK(stenc_field_create(host, &hdy, STENC_F64, 1, n, 1, 1, 1));
        fill<double>(hu, 1, -1, 1), fill<double>(hdx, 2, 0.5, 1.5), fill<double>(hdy, 3, 0.5, 1.5);
        BENCH_STENC_CHECK(stretched2d(host, dt, nu, hu, hdx, hdy, hv));
        stenc_field_free(hu), stenc_field_free(hdx), stenc_field_free(hdy);
    }
    stenc_field *all[6] = {u, dx, dy, v, fdx, fdy};
    for (stenc_field *f : all)
        BENCH_STENC_CHECK(stenc_field_upload(f));
    char size[32];
    snprintf(size, sizeof size, "%zux%zu", n, n);
    double full_ms =
        time_ms(dev, [&] { BENCH_STENC_CHECK(stretched2d_full(dev, dt, nu, u, fdx, fdy, v)); });
    long full_bad = mismatches<double>(v, hv);
    double pts = (double)n * (double)n;
    for (int i = 0; stretched2d_variant_name(i); i++) {
        const char *name = stretched2d_variant_name(i);
        double ms = time_ms(
            dev, [&] { BENCH_STENC_CHECK(stretched2d_variant(dev, name, dt, nu, u, dx, dy, v)); });
        report("stretched2d", name, size, ms, pts, 16, copy, full_ms, mismatches<double>(v, hv));
    }
    report("stretched2d_full", "tuned", size, full_ms, pts, 16, copy, full_ms, full_bad);
    for (stenc_field *f : all)
        stenc_field_free(f);
    stenc_field_free(hv);
}

static void bench_planecoef3d(stenc_ctx *dev, stenc_ctx *host, size_t n, double copy) {
    stenc_field *x, *a, *b, *y, *fa, *fb, *hy;
    BENCH_STENC_CHECK(stenc_field_create(dev, &x, STENC_F32, 3, n, n, n, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &a, STENC_F32, 2, n, n, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &b, STENC_F32, 1, n, 1, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &y, STENC_F32, 3, n, n, n, 0));
    BENCH_STENC_CHECK(stenc_field_create(dev, &fa, STENC_F32, 3, n, n, n, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &fb, STENC_F32, 3, n, n, n, 1));
    BENCH_STENC_CHECK(stenc_field_create(host, &hy, STENC_F32, 3, n, n, n, 0));
    fill<float>(x, 4, -1, 1), fill<float>(a, 5, -1, 1), fill<float>(b, 6, -1, 1);
    spread<float>(fa, a, 5u), spread<float>(fb, b, 2u);
    {
        stenc_field *hx, *ha, *hb;
        BENCH_STENC_CHECK(stenc_field_create(host, &hx, STENC_F32, 3, n, n, n, 1));
        BENCH_STENC_CHECK(stenc_field_create(host, &ha, STENC_F32, 2, n, n, 1, 1));
        BENCH_STENC_CHECK(stenc_field_create(host, &hb, STENC_F32, 1, n, 1, 1, 1));
        fill<float>(hx, 4, -1, 1), fill<float>(ha, 5, -1, 1), fill<float>(hb, 6, -1, 1);
        BENCH_STENC_CHECK(planecoef3d(host, hx, ha, hb, hy));
        stenc_field_free(hx), stenc_field_free(ha), stenc_field_free(hb);
    }
    stenc_field *all[6] = {x, a, b, y, fa, fb};
    for (stenc_field *f : all)
        BENCH_STENC_CHECK(stenc_field_upload(f));
    char size[32];
    snprintf(size, sizeof size, "%zu^3", n);
    double full_ms = time_ms(dev, [&] { BENCH_STENC_CHECK(planecoef3d_full(dev, x, fa, fb, y)); });
    long full_bad = mismatches<float>(y, hy);
    double pts = (double)n * (double)n * (double)n;
    for (int i = 0; planecoef3d_variant_name(i); i++) {
        const char *name = planecoef3d_variant_name(i);
        double ms =
            time_ms(dev, [&] { BENCH_STENC_CHECK(planecoef3d_variant(dev, name, x, a, b, y)); });
        report("planecoef3d", name, size, ms, pts, 8, copy, full_ms, mismatches<float>(y, hy));
    }
    report("planecoef3d_full", "tuned", size, full_ms, pts, 8, copy, full_ms, full_bad);
    for (stenc_field *f : all)
        stenc_field_free(f);
    stenc_field_free(hy);
}

// The integer-input kernels, every variant, against the C kernel on the host: no peer.
static void bench_int_inputs(stenc_ctx *dev, stenc_ctx *host, size_t n2, size_t n3, double copy) {
    stenc_field *u, *mat, *frozen, *v, *hu, *hmat, *hfrozen, *hv;
    BENCH_STENC_CHECK(stenc_field_create(dev, &u, STENC_F64, 2, n2, n2, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &mat, STENC_I32, 2, n2, n2, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &frozen, STENC_U8, 2, n2, n2, 1, 0));
    BENCH_STENC_CHECK(stenc_field_create(dev, &v, STENC_F64, 2, n2, n2, 1, 0));
    BENCH_STENC_CHECK(stenc_field_create(host, &hu, STENC_F64, 2, n2, n2, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(host, &hmat, STENC_I32, 2, n2, n2, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(host, &hfrozen, STENC_U8, 2, n2, n2, 1, 0));
    BENCH_STENC_CHECK(stenc_field_create(host, &hv, STENC_F64, 2, n2, n2, 1, 0));
    // materials 0 and 1, one cell in eight frozen
    fill<double>(u, 7, -1, 1), fill<double>(hu, 7, -1, 1);
    fill<int32_t>(mat, 8, 0, 2), fill<int32_t>(hmat, 8, 0, 2);
    fill<uint8_t>(frozen, 9, 0, 1.14), fill<uint8_t>(hfrozen, 9, 0, 1.14);
    BENCH_STENC_CHECK(material2d(host, 0.8, 3.5, 0.05, hu, hmat, hfrozen, hv));
    stenc_field *a2[4] = {u, mat, frozen, v};
    for (stenc_field *f : a2)
        BENCH_STENC_CHECK(stenc_field_upload(f));
    char size[32];
    snprintf(size, sizeof size, "%zux%zu", n2, n2);
    for (int i = 0; material2d_variant_name(i); i++) {
        const char *name = material2d_variant_name(i);
        double ms = time_ms(dev, [&] {
            BENCH_STENC_CHECK(material2d_variant(dev, name, 0.8, 3.5, 0.05, u, mat, frozen, v));
        });
        report("material2d", name, size, ms, (double)n2 * (double)n2, 21, copy, ms,
               mismatches<double>(v, hv));
    }
    for (stenc_field *f : a2)
        stenc_field_free(f);
    stenc_field_free(hu), stenc_field_free(hmat), stenc_field_free(hfrozen), stenc_field_free(hv);

    stenc_field *x, *mask, *zone, *y, *hx, *hmask, *hzone, *hy;
    BENCH_STENC_CHECK(stenc_field_create(dev, &x, STENC_F32, 3, n3, n3, n3, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &mask, STENC_U8, 3, n3, n3, n3, 0));
    BENCH_STENC_CHECK(stenc_field_create(dev, &zone, STENC_I32, 1, n3, 1, 1, 0));
    BENCH_STENC_CHECK(stenc_field_create(dev, &y, STENC_F32, 3, n3, n3, n3, 0));
    BENCH_STENC_CHECK(stenc_field_create(host, &hx, STENC_F32, 3, n3, n3, n3, 1));
    BENCH_STENC_CHECK(stenc_field_create(host, &hmask, STENC_U8, 3, n3, n3, n3, 0));
    BENCH_STENC_CHECK(stenc_field_create(host, &hzone, STENC_I32, 1, n3, 1, 1, 0));
    BENCH_STENC_CHECK(stenc_field_create(host, &hy, STENC_F32, 3, n3, n3, n3, 0));
    fill<float>(x, 10, -1, 1), fill<float>(hx, 10, -1, 1);
    fill<uint8_t>(mask, 11, 0, 3), fill<uint8_t>(hmask, 11, 0, 3);
    fill<int32_t>(zone, 12, -2, 2), fill<int32_t>(hzone, 12, -2, 2);
    BENCH_STENC_CHECK(masked3d(host, hx, hmask, hzone, hy));
    stenc_field *a3[4] = {x, mask, zone, y};
    for (stenc_field *f : a3)
        BENCH_STENC_CHECK(stenc_field_upload(f));
    snprintf(size, sizeof size, "%zu^3", n3);
    for (int i = 0; masked3d_variant_name(i); i++) {
        const char *name = masked3d_variant_name(i);
        double ms =
            time_ms(dev, [&] { BENCH_STENC_CHECK(masked3d_variant(dev, name, x, mask, zone, y)); });
        report("masked3d", name, size, ms, (double)n3 * (double)n3 * (double)n3, 9, copy, ms,
               mismatches<float>(y, hy));
    }
    for (stenc_field *f : a3)
        stenc_field_free(f);
    stenc_field_free(hx), stenc_field_free(hmask), stenc_field_free(hzone), stenc_field_free(hy);
}

// Staggered arrays, every variant, against the C kernel on the host: no peer (the user's
// workaround, padding by hand, moves the same bytes).
static void bench_staggered(stenc_ctx *dev, stenc_ctx *host, size_t n2, size_t n3, double copy) {
    stenc_field *c, *nd, *hc, *hnd;
    BENCH_STENC_CHECK(stenc_field_create(dev, &c, STENC_F32, 3, n3, n3, n3, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &nd, STENC_F32, 3, n3 + 1, n3 + 1, n3 + 1, 0));
    BENCH_STENC_CHECK(stenc_field_create(host, &hc, STENC_F32, 3, n3, n3, n3, 1));
    BENCH_STENC_CHECK(stenc_field_create(host, &hnd, STENC_F32, 3, n3 + 1, n3 + 1, n3 + 1, 0));
    fill<float>(c, 13, -1, 1), fill<float>(hc, 13, -1, 1);
    BENCH_STENC_CHECK(node_avg3d(host, hc, hnd));
    BENCH_STENC_CHECK(stenc_field_upload(c));
    BENCH_STENC_CHECK(stenc_field_upload(nd));
    char size[32];
    snprintf(size, sizeof size, "%zu^3", n3);
    const double nodes = (double)(n3 + 1) * (double)(n3 + 1) * (double)(n3 + 1);
    for (int i = 0; node_avg3d_variant_name(i); i++) {
        const char *name = node_avg3d_variant_name(i);
        double ms = time_ms(dev, [&] { BENCH_STENC_CHECK(node_avg3d_variant(dev, name, c, nd)); });
        report("node_avg3d", name, size, ms, nodes, 8, copy, ms, mismatches<float>(nd, hnd));
    }
    stenc_field_free(c), stenc_field_free(nd), stenc_field_free(hc), stenc_field_free(hnd);

    stenc_field *u, *dxf, *fx, *hu, *hdxf, *hfx;
    BENCH_STENC_CHECK(stenc_field_create(dev, &u, STENC_F64, 2, n2, n2, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(dev, &dxf, STENC_F64, 1, n2 + 1, 1, 1, 0));
    BENCH_STENC_CHECK(stenc_field_create(dev, &fx, STENC_F64, 2, n2 + 1, n2, 1, 0));
    BENCH_STENC_CHECK(stenc_field_create(host, &hu, STENC_F64, 2, n2, n2, 1, 1));
    BENCH_STENC_CHECK(stenc_field_create(host, &hdxf, STENC_F64, 1, n2 + 1, 1, 1, 0));
    BENCH_STENC_CHECK(stenc_field_create(host, &hfx, STENC_F64, 2, n2 + 1, n2, 1, 0));
    fill<double>(u, 14, -1, 1), fill<double>(hu, 14, -1, 1);
    fill<double>(dxf, 15, 0.5, 1.5), fill<double>(hdxf, 15, 0.5, 1.5);
    BENCH_STENC_CHECK(face_flux2d(host, 0.75, hu, hdxf, hfx));
    stenc_field *a2[3] = {u, dxf, fx};
    for (stenc_field *f : a2)
        BENCH_STENC_CHECK(stenc_field_upload(f));
    snprintf(size, sizeof size, "%zux%zu", n2, n2);
    const double faces = (double)(n2 + 1) * (double)n2;
    for (int i = 0; face_flux2d_variant_name(i); i++) {
        const char *name = face_flux2d_variant_name(i);
        double ms = time_ms(
            dev, [&] { BENCH_STENC_CHECK(face_flux2d_variant(dev, name, 0.75, u, dxf, fx)); });
        report("face_flux2d", name, size, ms, faces, 16, copy, ms, mismatches<double>(fx, hfx));
    }
    for (stenc_field *f : a2)
        stenc_field_free(f);
    stenc_field_free(hu), stenc_field_free(hdxf), stenc_field_free(hfx);
}

int main(int argc, char **argv) {
    int quick = 0;
    size_t n3_staggered = 0; // --staggered-only N: node_avg3d alone, at N^3 cells
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = 1;
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--staggered-only") && a + 1 < argc)
            n3_staggered = (size_t)atol(argv[++a]);
        else {
            fprintf(stderr, "usage: bench_input_kinds [--quick] [--reps N] [--staggered-only N]\n");
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
    const double copy = copy_gbs(dev, (size_t)1 << 30);
    printf("device=%s copy_gbs=%.0f\n", stenc_ctx_device_name(dev), copy);
    if (n3_staggered) {
        bench_staggered(dev, host, 64, n3_staggered, copy);
    } else {
        bench_stretched2d(dev, host, quick ? 1024 : 8192, copy);
        bench_planecoef3d(dev, host, quick ? 64 : 512, copy);
        bench_int_inputs(dev, host, quick ? 1024 : 8192, quick ? 64 : 512, copy);
        bench_staggered(dev, host, quick ? 1024 : 8192, quick ? 64 : 512, copy);
    }
    printf("\n%-18s %-24s %9s %8s %10s %9s %5s\n", "kernel", "variant", "ms", "Gpts/s", "of bound",
           "vs full", "bad");
    for (const Row &r : rows)
        printf("%-18s %-24s %9.4f %8.1f %9.1f%% %8.2fx %5ld\n", r.name.c_str(), r.variant.c_str(),
               r.ms, r.gpts, 100 * r.frac, r.vs_full, r.bad);
    stenc_ctx_destroy(host);
    stenc_ctx_destroy(dev);
    return 0;
}
