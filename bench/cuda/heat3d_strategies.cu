// Hand-written CUDA kernels for heat3d, one per strategy, to find out what the H100 allows
// before the strategies become templates: the naive one-thread-per-point kernel (the anchor's
// baseline), a direct kernel that marches a few points along k in registers, and a 2.5-D
// streaming kernel with the current plane in shared memory and k-neighbours in registers.
// Prints key=value lines, then a table. Correctness: every interior point against a CPU
// reference in double.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e));  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// Field-like layout: halo 1, rows padded so that interior rows start 128-byte aligned.
struct Grid {
    int nx, ny, nz;
    long sy, sz, origin, total;
};

template <typename T> static Grid make_grid(int nx, int ny, int nz) {
    Grid g;
    g.nx = nx, g.ny = ny, g.nz = nz;
    long align = 128 / sizeof(T);
    long front = align; // >= halo, keeps interior (0,j,k) aligned
    g.sy = (front + nx + 1 + align - 1) / align * align;
    g.sz = g.sy * (ny + 2);
    g.origin = front + g.sy + g.sz;
    g.total = g.sz * (nz + 2);
    return g;
}

template <typename T>
__global__ void heat_naive(const T *__restrict__ x, T *__restrict__ y, Grid g, T a, T b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z;
    if (i >= g.nx || j >= g.ny) return;
    long c = g.origin + i + j * g.sy + k * g.sz;
    y[c] = a * x[c] +
           b * (x[c - 1] + x[c + 1] + x[c - g.sy] + x[c + g.sy] + x[c - g.sz] + x[c + g.sz]);
}

// Direct, KPT points per thread along k: the k-neighbours come from registers.
template <typename T, int KPT>
__global__ void heat_direct_k(const T *__restrict__ x, T *__restrict__ y, Grid g, T a, T b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k0 = blockIdx.z * KPT;
    if (i >= g.nx || j >= g.ny) return;
    long c = g.origin + i + j * g.sy + (long)k0 * g.sz;
    T below = __ldg(&x[c - g.sz]), centre = __ldg(&x[c]);
    int kend = min(KPT, g.nz - k0);
#pragma unroll
    for (int kk = 0; kk < KPT; kk++) {
        if (kk >= kend) break;
        T above = __ldg(&x[c + g.sz]);
        T side = __ldg(&x[c - 1]) + __ldg(&x[c + 1]) + __ldg(&x[c - g.sy]) + __ldg(&x[c + g.sy]);
        y[c] = a * centre + b * (below + above + side);
        below = centre;
        centre = above;
        c += g.sz;
    }
}

// 2.5-D streaming: a BX x BY tile of the (i,j) plane in shared memory with a one-point rim,
// marching along k over KCHUNK planes; k-neighbours in registers; the next plane's centre is
// loaded before the current plane is computed, so loads stay in flight.
template <typename T, int BX, int BY, int KCHUNK>
__global__ void __launch_bounds__(BX *BY)
    heat_stream(const T *__restrict__ x, T *__restrict__ y, Grid g, T a, T b) {
    __shared__ T plane[BY + 2][BX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.x * BX + tx, j = blockIdx.y * BY + ty;
    int k0 = blockIdx.z * KCHUNK;
    int kend = min(k0 + KCHUNK, g.nz);
    bool inside = i < g.nx && j < g.ny;
    int ic = min(i, g.nx - 1), jc = min(j, g.ny - 1); // clamp loads of idle threads
    long c = g.origin + ic + jc * g.sy + (long)k0 * g.sz;
    T below = __ldg(&x[c - g.sz]);
    T centre = __ldg(&x[c]);
    for (int k = k0; k < kend; k++) {
        T above = __ldg(&x[c + g.sz]);
        // rim: edge threads also load the neighbour outside the tile
        T west = 0, east = 0, south = 0, north = 0;
        if (tx == 0) west = __ldg(&x[c - 1]);
        if (tx == BX - 1 || i == g.nx - 1) east = __ldg(&x[c + 1]);
        if (ty == 0) south = __ldg(&x[c - g.sy]);
        if (ty == BY - 1 || j == g.ny - 1) north = __ldg(&x[c + g.sy]);
        __syncthreads(); // previous plane fully read
        plane[ty + 1][tx + 1] = centre;
        if (tx == 0) plane[ty + 1][0] = west;
        if (tx == BX - 1 || i == g.nx - 1) plane[ty + 1][tx + 2] = east;
        if (ty == 0) plane[0][tx + 1] = south;
        if (ty == BY - 1 || j == g.ny - 1) plane[ty + 2][tx + 1] = north;
        __syncthreads();
        if (inside)
            y[c] = a * centre + b * (below + above + plane[ty + 1][tx] + plane[ty + 1][tx + 2] +
                                     plane[ty][tx + 1] + plane[ty + 2][tx + 1]);
        below = centre;
        centre = above;
        c += g.sz;
    }
}

// V consecutive points along i per thread, read with one aligned vector load per row; KPT
// points along k. Written as a generator would: the plain expression per point, fully
// unrolled, leaving it to the compiler to load each address once.
template <typename T, int V> struct Vec;
template <> struct Vec<float, 1> { typedef float type; };
template <> struct Vec<float, 2> { typedef float2 type; };
template <> struct Vec<float, 4> { typedef float4 type; };
template <> struct Vec<double, 1> { typedef double type; };
template <> struct Vec<double, 2> { typedef double2 type; };

template <typename T, int V> __device__ __forceinline__ void load_vec(const T *p, T *out) {
    typedef typename Vec<T, V>::type VT;
    VT v = __ldg(reinterpret_cast<const VT *>(p));
    memcpy(out, &v, sizeof v);
}
template <typename T, int V> __device__ __forceinline__ void store_vec(T *p, const T *in) {
    typedef typename Vec<T, V>::type VT;
    VT v;
    memcpy(&v, in, sizeof v);
    *reinterpret_cast<VT *>(p) = v;
}

template <typename T, int V, int KPT>
__global__ void heat_vec(const T *__restrict__ x, T *__restrict__ y, Grid g, T a, T b) {
    int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * V;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k0 = blockIdx.z * KPT;
    if (i0 >= g.nx || j >= g.ny) return;
    long base = g.origin + i0 + j * g.sy + (long)k0 * g.sz;
    if (i0 + V <= g.nx && k0 + KPT <= g.nz) {
#pragma unroll
        for (int kk = 0; kk < KPT; kk++) {
            long c = base + kk * g.sz;
            T row[V + 2], s[V], n[V], lo[V], hi[V], out[V];
            load_vec<T, V>(x + c, row + 1);
            row[0] = __ldg(x + c - 1);
            row[V + 1] = __ldg(x + c + V);
            load_vec<T, V>(x + c - g.sy, s);
            load_vec<T, V>(x + c + g.sy, n);
            load_vec<T, V>(x + c - g.sz, lo);
            load_vec<T, V>(x + c + g.sz, hi);
#pragma unroll
            for (int e = 0; e < V; e++)
                out[e] = a * row[e + 1] + b * (row[e] + row[e + 2] + s[e] + n[e] + lo[e] + hi[e]);
            store_vec<T, V>(y + c, out);
        }
    } else {
        for (int kk = 0; kk < KPT && k0 + kk < g.nz; kk++)
            for (int e = 0; e < V && i0 + e < g.nx; e++) {
                long c = base + kk * g.sz + e;
                y[c] = a * x[c] + b * (x[c - 1] + x[c + 1] + x[c - g.sy] + x[c + g.sy] +
                                       x[c - g.sz] + x[c + g.sz]);
            }
    }
}

template <typename T> __global__ void fill_random(T *x, long n, unsigned seed) {
    long t = blockIdx.x * (long)blockDim.x + threadIdx.x;
    for (; t < n; t += (long)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)t * 2654435761u ^ seed;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
        x[t] = (T)((h & 0xffffff) / 16777216.0 - 0.5);
    }
}

struct Result {
    const char *name;
    double ms, gpts, gbs, err;
};

static double median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <typename T> static void run_all(int n, int reps, std::vector<Result> &results) {
    Grid g = make_grid<T>(n, n, n);
    T *x, *y;
    CHECK(cudaMalloc(&x, g.total * sizeof(T)));
    CHECK(cudaMalloc(&y, g.total * sizeof(T)));
    fill_random<<<1024, 256>>>(x, g.total, 12345u);
    CHECK(cudaGetLastError());
    std::vector<T> hx(g.total), hy(g.total);
    CHECK(cudaMemcpy(hx.data(), x, g.total * sizeof(T), cudaMemcpyDeviceToHost));
    const double a = 0.4, b = 0.1;
    // CPU reference in double, on a sample of planes (all of them is slow on the host).
    auto check = [&](double &max_err) {
        CHECK(cudaMemcpy(hy.data(), y, g.total * sizeof(T), cudaMemcpyDeviceToHost));
        max_err = 0;
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) {
                    long c = g.origin + i + j * g.sy + k * g.sz;
                    double r = a * hx[c] + b * ((double)hx[c - 1] + hx[c + 1] + hx[c - g.sy] +
                                                hx[c + g.sy] + hx[c - g.sz] + hx[c + g.sz]);
                    double e = fabs(r - (double)hy[c]);
                    if (!(e <= max_err)) max_err = e; // NaN propagates as failure
                }
    };
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    auto time = [&](const char *name, auto launch) {
        CHECK(cudaMemset(y, 0xff, g.total * sizeof(T))); // poison: NaN everywhere
        launch();
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        double err;
        check(err);
        std::vector<float> t;
        for (int r = 0; r < reps; r++) {
            CHECK(cudaEventRecord(e0));
            launch();
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            float ms;
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            t.push_back(ms);
        }
        double ms = median(t);
        double pts = (double)n * n * n;
        results.push_back({name, ms, pts / ms * 1e-6, 2.0 * sizeof(T) * pts / ms * 1e-6, err});
        printf("name=heat3d strategy=%s precision=%s size=%d^3 ms=%.4f gpts=%.1f gbs=%.0f "
               "max_err=%.2e\n",
               name, sizeof(T) == 4 ? "float" : "double", n, ms, pts / ms * 1e-6,
               2.0 * sizeof(T) * pts / ms * 1e-6, err);
    };
    T ta = (T)a, tb = (T)b;
    time("naive_32x8", [&] {
        heat_naive<<<dim3((n + 31) / 32, (n + 7) / 8, n), dim3(32, 8)>>>(x, y, g, ta, tb);
    });
    time("naive_128x2", [&] {
        heat_naive<<<dim3((n + 127) / 128, (n + 1) / 2, n), dim3(128, 2)>>>(x, y, g, ta, tb);
    });
    time("direct_k4_32x8", [&] {
        heat_direct_k<T, 4>
            <<<dim3((n + 31) / 32, (n + 7) / 8, (n + 3) / 4), dim3(32, 8)>>>(x, y, g, ta, tb);
    });
    time("direct_k8_32x8", [&] {
        heat_direct_k<T, 8>
            <<<dim3((n + 31) / 32, (n + 7) / 8, (n + 7) / 8), dim3(32, 8)>>>(x, y, g, ta, tb);
    });
    time("direct_k8_64x4", [&] {
        heat_direct_k<T, 8>
            <<<dim3((n + 63) / 64, (n + 3) / 4, (n + 7) / 8), dim3(64, 4)>>>(x, y, g, ta, tb);
    });
    time("direct_k16_32x4", [&] {
        heat_direct_k<T, 16>
            <<<dim3((n + 31) / 32, (n + 3) / 4, (n + 15) / 16), dim3(32, 4)>>>(x, y, g, ta, tb);
    });
    time("stream_32x8_k32", [&] {
        heat_stream<T, 32, 8, 32>
            <<<dim3((n + 31) / 32, (n + 7) / 8, (n + 31) / 32), dim3(32, 8)>>>(x, y, g, ta, tb);
    });
    time("stream_32x16_k64", [&] {
        heat_stream<T, 32, 16, 64>
            <<<dim3((n + 31) / 32, (n + 15) / 16, (n + 63) / 64), dim3(32, 16)>>>(x, y, g, ta, tb);
    });
    time("stream_64x8_k64", [&] {
        heat_stream<T, 64, 8, 64>
            <<<dim3((n + 63) / 64, (n + 7) / 8, (n + 63) / 64), dim3(64, 8)>>>(x, y, g, ta, tb);
    });

    auto vec = [&](const char *name, auto kernel, int V, int KPT, int bx, int by) {
        time(name, [&] {
            kernel<<<dim3((n / V + bx - 1) / bx, (n + by - 1) / by, (n + KPT - 1) / KPT),
                     dim3(bx, by)>>>(x, y, g, ta, tb);
        });
    };
    vec("vec1_k4_32x8", heat_vec<T, 1, 4>, 1, 4, 32, 8);
    vec("vec2_k4_32x8", heat_vec<T, 2, 4>, 2, 4, 32, 8);
    vec("vec2_k8_32x4", heat_vec<T, 2, 8>, 2, 8, 32, 4);
    vec("vec2_k4_64x4", heat_vec<T, 2, 4>, 2, 4, 64, 4);
    vec("vec2_k2_32x8", heat_vec<T, 2, 2>, 2, 2, 32, 8);
    if (sizeof(T) == 4) {
        vec("vec4_k4_32x8", heat_vec < T, sizeof(T) == 4 ? 4 : 2, 4 >, sizeof(T) == 4 ? 4 : 2, 4,
            32, 8);
        vec("vec4_k2_32x8", heat_vec < T, sizeof(T) == 4 ? 4 : 2, 2 >, sizeof(T) == 4 ? 4 : 2, 2,
            32, 8);
        vec("vec4_k4_16x8", heat_vec < T, sizeof(T) == 4 ? 4 : 2, 4 >, sizeof(T) == 4 ? 4 : 2, 4,
            16, 8);
    }
    // the copy bound in the same run
    std::vector<float> t;
    for (int r = 0; r < reps; r++) {
        CHECK(cudaEventRecord(e0));
        CHECK(cudaMemcpy(y, x, g.total * sizeof(T), cudaMemcpyDeviceToDevice));
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    double ms = median(t);
    double gbs = 2.0 * g.total * sizeof(T) / ms * 1e-6;
    printf("name=copy target=cuda precision=%s bytes=%ld gbs=%.0f bound_gpts=%.1f\n",
           sizeof(T) == 4 ? "float" : "double", (long)(g.total * sizeof(T)), gbs,
           gbs * 1e3 / (2.0 * sizeof(T)) * 1e-3);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 512;
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    std::vector<Result> r32, r64;
    run_all<float>(n, reps, r32);
    run_all<double>(n, reps, r64);
    return 0;
}
