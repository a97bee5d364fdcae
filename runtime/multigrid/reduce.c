/* Reductions on fields, the C half: checks, dispatch, and the OpenMP kernel.
 *
 * The interior, in its natural order, is cut into chunks of STENC_REDUCE_CHUNK points. Each
 * chunk is summed in order into a compensated (sum, compensation) pair; the pairs, stored per
 * chunk, are then combined in chunk order by one thread. Threads only decide who computes a
 * chunk, never how it is summed, so the result does not depend on the thread count.
 */
#include <math.h>

#include "mg_internal.h"
#include "stenc/accum.h"
#include "stenc/reduce.h"

typedef stenc_acc reduce_acc;

static inline void acc_add(reduce_acc *acc, double x, double e) {
    stenc_acc_sum_add2(acc, x, e);
}

/* The rounding error of a*b, exactly: a*b == p + two_prod_err(a, b, p) for p = fl(a*b). */
static inline double two_prod_err(double a, double b, double p) {
#ifdef FP_FAST_FMA
    return fma(a, b, -p);
#else
    /* Dekker's splitting: no fma in hardware for this build, and libm's soft fma is slow. */
    const double split = 134217729.0; /* 2^27 + 1 */
    double ta = split * a, tb = split * b;
    double ah = ta - (ta - a), al = a - ah;
    double bh = tb - (tb - b), bl = b - bh;
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
}

static inline double max_abs(double m, double x) {
    double v = fabs(x);
    if (isnan(m) || isnan(v)) return NAN;
    return v > m ? v : m;
}

/* One run of `len` consecutive points of a row: a at offset oa, b at offset ob. */
static void reduce_span(reduce_acc *acc, stenc_reduce_kind kind, const stenc_mg_view *a,
                        ptrdiff_t oa, const stenc_mg_view *b, ptrdiff_t ob, long len) {
    const int f32 = a->layout.type == STENC_F32;
    for (long i = 0; i < len; i++) {
        double x = stenc_mg_load(a, oa + i);
        if (kind == STENC_REDUCE_SUM) {
            acc_add(acc, x, 0.0);
        } else if (kind == STENC_REDUCE_MAX_ABS) {
            acc->s = max_abs(acc->s, x);
        } else {
            double y = stenc_mg_load(b, ob + i);
            double p = x * y; /* exact for widened floats */
            acc_add(acc, p, f32 ? 0.0 : two_prod_err(x, y, p));
        }
    }
}

/* Offset of interior point i of row `row` (row = j + k*ny) in view v. */
static ptrdiff_t offset_of(const stenc_mg_view *v, size_t i, size_t row) {
    size_t ny = v->layout.n[1];
    return (ptrdiff_t)i + (ptrdiff_t)(row % ny) * v->layout.stride[1] +
           (ptrdiff_t)(row / ny) * v->layout.stride[2];
}

static reduce_acc reduce_chunk(stenc_reduce_kind kind, const stenc_mg_view *a,
                               const stenc_mg_view *b, size_t first, size_t end) {
    reduce_acc acc = {0.0, 0.0};
    const size_t nx = a->layout.n[0];
    size_t row = first / nx, i = first % nx;
    for (size_t l = first; l < end; row++, i = 0) {
        size_t len = nx - i < end - l ? nx - i : end - l;
        reduce_span(&acc, kind, a, offset_of(a, i, row), b, b ? offset_of(b, i, row) : 0,
                    (long)len);
        l += len;
    }
    return acc;
}

static stenc_status reduce_cpu(stenc_reduce_kind kind, const stenc_mg_view *a,
                               const stenc_mg_view *b, double *result) {
    const size_t total = a->layout.n[0] * a->layout.n[1] * a->layout.n[2];
    const size_t chunks = (total + STENC_REDUCE_CHUNK - 1) / STENC_REDUCE_CHUNK;
    reduce_acc *part = stenc_host_alloc(chunks * sizeof *part);
    if (!part)
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_field reduction: %zu partial sums",
                           chunks);
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < chunks; c++) {
        size_t first = c * STENC_REDUCE_CHUNK;
        size_t end = first + STENC_REDUCE_CHUNK < total ? first + STENC_REDUCE_CHUNK : total;
        part[c] = reduce_chunk(kind, a, b, first, end);
    }
    reduce_acc acc = {0.0, 0.0};
    for (size_t c = 0; c < chunks; c++) {
        if (kind == STENC_REDUCE_MAX_ABS)
            acc.s = max_abs(acc.s, part[c].s);
        else
            acc_add(&acc, part[c].s, part[c].c);
    }
    stenc_host_free(part);
    /* A non-finite naive sum is the honest answer (inf stays inf); the compensation of an
     * infinite sum would be NaN. */
    *result = kind == STENC_REDUCE_MAX_ABS || !isfinite(acc.s) ? acc.s : acc.s + acc.c;
    return STENC_OK;
}

static stenc_status reduce(const char *fn, stenc_reduce_kind kind, const stenc_field *fa,
                           const stenc_field *fb, double *result) {
    STENC_REQUIRE(result != NULL, "%s: result is NULL", fn);
    stenc_mg_view a, b;
    if (fb) {
        STENC_TRY(stenc_mg_view_pair(fn, "a", fa, "b", fb, &a, &b));
        if (stenc_field_decomp_signature(fa) != stenc_field_decomp_signature(fb))
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: a and b are split over the ranks differently (another "
                               "decomposition, or one is distributed and the other not)",
                               fn);
        for (int d = 0; d < 3; d++)
            if (a.layout.n[d] != b.layout.n[d])
                return STENC_ERROR(STENC_ERR_SHAPE,
                                   "%s: a is %zux%zux%zu but b is %zux%zux%zu (interior)", fn,
                                   a.layout.n[0], a.layout.n[1], a.layout.n[2], b.layout.n[0],
                                   b.layout.n[1], b.layout.n[2]);
    } else {
        STENC_TRY(stenc_mg_view_of(fn, "field", fa, &a));
        if (kind == STENC_REDUCE_DOT) b = a;
    }
    const stenc_field_dist_ops *dist = stenc_field_dist_ops_of(fa);
    if (dist) return dist->reduce((int)kind, fa, fb, result); /* global, over every rank */
    const stenc_mg_view *pb = kind == STENC_REDUCE_DOT ? &b : NULL;
    if (a.layout.n[0] * a.layout.n[1] * a.layout.n[2] == 0) {
        *result = 0.0;
        return STENC_OK;
    }
    if (stenc_field_location(fa) == STENC_ON_DEVICE)
        return stenc_mg_cuda_reduce(stenc_field_ctx(fa), kind, &a, pb, result);
    return reduce_cpu(kind, &a, pb, result);
}

stenc_status stenc_field_sum(const stenc_field *field, double *result) {
    return reduce("stenc_field_sum", STENC_REDUCE_SUM, field, NULL, result);
}

stenc_status stenc_field_sum_squares(const stenc_field *field, double *result) {
    return reduce("stenc_field_sum_squares", STENC_REDUCE_DOT, field, NULL, result);
}

stenc_status stenc_field_norm2(const stenc_field *field, double *result) {
    STENC_REQUIRE(result != NULL, "stenc_field_norm2: result is NULL");
    double ss = 0.0;
    STENC_TRY(reduce("stenc_field_norm2", STENC_REDUCE_DOT, field, NULL, &ss));
    *result = sqrt(ss);
    return STENC_OK;
}

stenc_status stenc_field_norm_max(const stenc_field *field, double *result) {
    return reduce("stenc_field_norm_max", STENC_REDUCE_MAX_ABS, field, NULL, result);
}

stenc_status stenc_field_dot(const stenc_field *a, const stenc_field *b, double *result) {
    STENC_REQUIRE(b != NULL, "stenc_field_dot: b is NULL");
    return reduce("stenc_field_dot", STENC_REDUCE_DOT, a, b, result);
}
