/* MLSSOR's inside (stenc/sor.h): the tile geometry, shared by the CPU half (mlssor.c) and the
 * CUDA half (mlssor_cuda.cu; mlssor_no_cuda.c without CUDA). Not installed.
 *
 * Coordinates here are logical: the sweep's own, in which a backward sweep is a forward one
 * (physical i = nx-1-i for backward, likewise j). Class 0 is A (shrinking), 1 is B (growing).
 * The tiles are those of the global grid: local logical index x is tile coordinate x + ox
 * (ox = 0 for a field of one process; a distributed part's box sits elsewhere in the global
 * grid, and the backward mirror is the global grid's). */
#ifndef STENC_MLSSOR_INTERNAL_H
#define STENC_MLSSOR_INTERNAL_H

#include <stddef.h>

#include "internal.h"
#include "stenc/sor.h"

#ifdef __CUDACC__
#define MLS_HD __host__ __device__
#else
#define MLS_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One sweep, checked: the box of nx x ny points that it updates, row pitches (elements),
 * origins at the box's first point where the fields live (f NULL: zero right-hand side), the
 * box's place among the global tiles (ox, oy), and the phases [phase_lo, phase_hi) it runs. */
typedef struct mls_sweep {
    long nx, ny;
    long ox, oy;
    int phase_lo, phase_hi;
    ptrdiff_t pitch_u, pitch_f;
    long n; /* subdomain */
    int K;  /* layers */
    int backward;
    double h2, omega;
    stenc_type type;
    void *u;
    const void *f;
} mls_sweep;

/* The four phases' classes (along i, along j), in the order they run. */
#define MLS_PHASES 4
MLS_HD static inline int mls_phase_class(int phase, int axis) {
    return axis == 0 ? phase >> 1 : phase & 1; /* (A,A), (A,B), (B,A), (B,B) */
}

MLS_HD static inline long mls_min(long a, long b) {
    return a < b ? a : b;
}
MLS_HD static inline long mls_max(long a, long b) {
    return a > b ? a : b;
}

/* floor(a / b) for b > 0. */
MLS_HD static inline long mls_floor_div(long a, long b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The unclipped interval [lo, hi] of class c, tile p, at layer d. */
MLS_HD static inline void mls_interval(long n, int c, long p, long d, long *lo, long *hi) {
    *lo = c == 0 ? p * n + d : p * n + n - 1 - d;
    *hi = c == 0 ? p * n + n - 2 - d : p * n + n - 1 + d;
}

/* [lo, hi] in tile coordinates to the box's local ones, clipped to [0, len-1] (empty when
 * lo > hi after); `off` is the box's first point in tile coordinates. */
MLS_HD static inline void mls_clip(long off, long len, long *lo, long *hi) {
    *lo = mls_max(*lo - off, 0);
    *hi = mls_min(*hi - off, len - 1);
}

/* The union over the K layers: layer 0 for A, layer K-1 for B. */
MLS_HD static inline void mls_footprint(long n, int K, int c, long p, long *lo, long *hi) {
    mls_interval(n, c, p, c == 0 ? 0 : K - 1, lo, hi);
}

/* The tiles of class c whose footprint meets [off, off+len-1]: p in [*pmin, *pmax]. */
MLS_HD static inline void mls_tile_range(long n, int K, int c, long off, long len, long *pmin,
                                         long *pmax) {
    long lo0, hi0;
    mls_footprint(n, K, c, 0, &lo0, &hi0);
    *pmin = -mls_floor_div(hi0 - off, n); /* smallest p with p*n + hi0 >= off */
    *pmax = mls_floor_div(off + len - 1 - lo0, n);
}

/* The layers [*dlo, *dhi] at which point x (tile coordinates) is in tile p of class c (empty when
 * dlo > dhi). */
MLS_HD static inline void mls_layers(long n, int K, int c, long p, long x, long *dlo, long *dhi) {
    if (c == 0) {
        *dlo = 0;
        *dhi = mls_min(mls_min(x - p * n, p * n + n - 2 - x), K - 1);
    } else {
        long m = x - (p * n + n - 1);
        *dlo = m < 0 ? -m : m;
        *dhi = K - 1;
    }
}

/* The CUDA half: one phase per kernel, queued on the context's stream. */
stenc_status mls_cuda_sweep(stenc_ctx *ctx, const mls_sweep *s);

#ifdef __cplusplus
}
#endif

#endif /* STENC_MLSSOR_INTERNAL_H */
