/* The CPU solver: the Thomas algorithm (LU without pivoting), OpenMP over systems. The
 * contiguous layout walks one system per iteration; the interleaved layout walks a group of
 * systems row by row, so that the inner loop runs over unit-stride system indices and
 * vectorises. The forward pass keeps the modified rhs in x and the modified upper diagonal in
 * a per-thread scratch buffer. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tridiag_internal.h"

/* Systems per group in the interleaved walk: wide enough for SIMD and cache lines. */
enum { TDG_CPU_GROUP = 64 };

/* A pivot that is zero, NaN or infinite makes the system fail. */
#define TDG_BAD_PIVOT(v) (!(fabs((double)(v)) > 0.0) || isinf(v))

#define TDG_DEFINE_THOMAS(T, SUF)                                                                  \
    /* One contiguous system; returns 1 when it failed. */                                         \
    static int thomas_one_##SUF(size_t n, const T *a, const T *b, const T *c, const T *d, T *x,    \
                                T *cp) {                                                           \
        int bad = 0;                                                                               \
        T beta = b[0];                                                                             \
        bad |= TDG_BAD_PIVOT(beta);                                                                \
        cp[0] = n > 1 ? c[0] / beta : (T)0;                                                        \
        x[0] = d[0] / beta;                                                                        \
        for (size_t i = 1; i < n; i++) {                                                           \
            beta = b[i] - a[i] * cp[i - 1];                                                        \
            bad |= TDG_BAD_PIVOT(beta);                                                            \
            cp[i] = i + 1 < n ? c[i] / beta : (T)0;                                                \
            x[i] = (d[i] - a[i] * x[i - 1]) / beta;                                                \
        }                                                                                          \
        bad |= !isfinite(x[n - 1]);                                                                \
        for (size_t i = n - 1; i-- > 0;) {                                                         \
            x[i] -= cp[i] * x[i + 1];                                                              \
            bad |= !isfinite(x[i]);                                                                \
        }                                                                                          \
        return bad;                                                                                \
    }                                                                                              \
                                                                                                   \
    /* Systems s0 .. s0+g-1 of an interleaved batch; bad[k] set for failing system s0+k. */        \
    static void thomas_group_##SUF(size_t n, size_t batch, size_t s0, size_t g, const T *a,        \
                                   const T *b, const T *c, const T *d, T *x, T *cp,                \
                                   unsigned char *bad) {                                           \
        for (size_t k = 0; k < g; k++) {                                                           \
            T beta = b[s0 + k];                                                                    \
            bad[k] = (unsigned char)TDG_BAD_PIVOT(beta);                                           \
            cp[k] = n > 1 ? c[s0 + k] / beta : (T)0;                                               \
            x[s0 + k] = d[s0 + k] / beta;                                                          \
        }                                                                                          \
        for (size_t i = 1; i < n; i++) {                                                           \
            size_t row = i * batch + s0, prev = row - batch;                                       \
            T *cpi = cp + i * g, *cpm = cpi - g;                                                   \
            int last = i + 1 == n;                                                                 \
            for (size_t k = 0; k < g; k++) {                                                       \
                T beta = b[row + k] - a[row + k] * cpm[k];                                         \
                bad[k] |= (unsigned char)TDG_BAD_PIVOT(beta);                                      \
                cpi[k] = last ? (T)0 : c[row + k] / beta;                                          \
                x[row + k] = (d[row + k] - a[row + k] * x[prev + k]) / beta;                       \
            }                                                                                      \
        }                                                                                          \
        for (size_t k = 0; k < g; k++)                                                             \
            bad[k] |= (unsigned char)!isfinite(x[(n - 1) * batch + s0 + k]);                       \
        for (size_t i = n - 1; i-- > 0;) {                                                         \
            size_t row = i * batch + s0, next = row + batch;                                       \
            const T *cpi = cp + i * g;                                                             \
            for (size_t k = 0; k < g; k++) {                                                       \
                x[row + k] -= cpi[k] * x[next + k];                                                \
                bad[k] |= (unsigned char)!isfinite(x[row + k]);                                    \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static stenc_status solve_##SUF(const tdg_problem *p, uint64_t *first_bad) {                   \
        const T *a = p->a, *b = p->b, *c = p->c, *d = p->d;                                        \
        T *x = p->x;                                                                               \
        size_t n = p->n, batch = p->batch;                                                         \
        int interleaved = p->layout == STENC_TRIDIAG_INTERLEAVED;                                  \
        size_t group = TDG_CPU_GROUP;                                                              \
        if (interleaved) {                                                                         \
            /* Enough groups for every thread when the batch is small. */                          \
            size_t threads = 1;                                                                    \
            OMP_THREADS(threads);                                                                  \
            size_t fair = (batch + threads - 1) / threads;                                         \
            if (fair < group) group = fair;                                                        \
        }                                                                                          \
        size_t units = interleaved ? (batch + group - 1) / group : batch;                          \
        size_t scratch_len = interleaved ? n * group : n;                                          \
        uint64_t first = TDG_NONE;                                                                 \
        int oom = 0;                                                                               \
        _Pragma("omp parallel reduction(min : first) reduction(| : oom)") {                        \
            T *cp = stenc_host_alloc(scratch_len * sizeof(T));                                     \
            unsigned char bad[TDG_CPU_GROUP];                                                      \
            if (!cp) oom = 1;                                                                      \
            _Pragma("omp for schedule(dynamic, 1)") for (size_t u = 0; u < units; u++) {           \
                if (!cp) continue;                                                                 \
                if (interleaved) {                                                                 \
                    size_t s0 = u * group, g = batch - s0 < group ? batch - s0 : group;            \
                    thomas_group_##SUF(n, batch, s0, g, a, b, c, d, x, cp, bad);                   \
                    for (size_t k = 0; k < g; k++)                                                 \
                        if (bad[k] && s0 + k < first) first = s0 + k;                              \
                } else if (thomas_one_##SUF(n, a + u * n, b + u * n, c + u * n, d + u * n,         \
                                            x + u * n, cp) &&                                      \
                           u < first) {                                                            \
                    first = u;                                                                     \
                }                                                                                  \
            }                                                                                      \
            stenc_host_free(cp);                                                                   \
        }                                                                                          \
        if (oom)                                                                                   \
            return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY,                                            \
                               "stenc_tridiag: no memory for %zu scratch elements per thread",     \
                               scratch_len);                                                       \
        *first_bad = first;                                                                        \
        return STENC_OK;                                                                           \
    }

#ifdef _OPENMP
#define OMP_THREADS(var) ((var) = (size_t)omp_get_max_threads())
#else
#define OMP_THREADS(var) ((void)(var))
#endif

TDG_DEFINE_THOMAS(float, f32)
TDG_DEFINE_THOMAS(double, f64)

stenc_status tdg_cpu_solve(const tdg_problem *p, uint64_t *first_bad) {
    return p->type == STENC_F32 ? solve_f32(p, first_bad) : solve_f64(p, first_bad);
}
