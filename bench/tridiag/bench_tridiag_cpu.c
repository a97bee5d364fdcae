/* CPU half of the tridiagonal benchmark: the OpenMP Thomas solver against the CPU's copy
 * bandwidth (a parallel memcpy), in the same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "stenc/tridiag.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of `reps` timings of the copy of `bytes` bytes, split over the OpenMP threads. */
static double copy_gbs(char *dst, const char *src, size_t bytes, int reps) {
    double t[32];
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
#pragma omp parallel
        {
            int nt = 1, id = 0;
#ifdef _OPENMP
            nt = omp_get_num_threads(), id = omp_get_thread_num();
#endif
            size_t per = (bytes + nt - 1) / nt, lo = per * id,
                   hi = lo + per > bytes ? bytes : lo + per;
            if (lo < hi) memcpy(dst + lo, src + lo, hi - lo);
        }
        t[r] = now_s() - t0;
    }
    qsort(t, reps, sizeof *t, cmp_double);
    return 2.0 * bytes / t[reps / 2] / 1e9;
}

int bench_tridiag_cpu(void) {
    stenc_ctx *ctx;
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) return 1;
    const size_t n = 1024, batch = 16384, count = n * batch;
    double *buf = malloc(5 * count * sizeof(double));
    if (!buf) return 1;
    for (size_t k = 0; k < 5 * count; k++)
        buf[k] = (double)(k % 7);
    double gbs_copy =
        copy_gbs((char *)(buf + 4 * count), (const char *)buf, count * sizeof(double), 9);
    printf("cpu: %s, copy bandwidth %.1f GB/s (read+write, parallel memcpy)\n",
           stenc_ctx_device_name(ctx), gbs_copy);
    for (int type = STENC_F32; type <= STENC_F64; type++) {
        size_t es = type == STENC_F32 ? 4 : 8;
        /* Diagonally dominant: |a|, |c| <= 0.5, b in [3, 4). */
        for (size_t k = 0; k < 4 * count; k++) {
            double v = (double)(k % 4096) / 4096.0 + (k / count == 1 ? 3.0 : -0.5);
            if (type == STENC_F32)
                ((float *)buf)[k] = (float)v;
            else
                buf[k] = v;
        }
        char *base = (char *)buf;
        for (int layout = 0; layout < 2; layout++) {
            double t[9];
            for (int r = 0; r < 9; r++) {
                double t0 = now_s();
                stenc_status st =
                    stenc_tridiag_solve(ctx, (stenc_type)type, (stenc_tridiag_layout)layout, n,
                                        batch, base, base + count * es, base + 2 * count * es,
                                        base + 3 * count * es, base + 4 * count * es, NULL);
                t[r] = now_s() - t0;
                if (st != STENC_OK) {
                    printf("cpu solve failed: %s\n", stenc_last_error());
                    return 1;
                }
            }
            qsort(t, 9, sizeof *t, cmp_double);
            double s = t[4], gbs = 5.0 * count * es / s / 1e9;
            printf("name=tridiag target=cpu precision=%s layout=%s n=%zu batch=%zu algo=thomas "
                   "gunk_s=%.3f gbs=%.1f ratio_floor=%.3f ratio_cusparse=nan\n",
                   type == STENC_F32 ? "float" : "double", layout ? "interleaved" : "contiguous", n,
                   batch, count / s / 1e9, gbs, gbs / gbs_copy);
        }
    }
    free(buf);
    stenc_ctx_destroy(ctx);
    return 0;
}
