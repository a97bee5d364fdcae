/* Helpers for the tridiagonal tests: random diagonally dominant batches, the residual, and a
 * long-double Thomas reference written separately from the library's solver. */
#ifndef STENC_TESTS_TRIDIAG_CHECK_H
#define STENC_TESTS_TRIDIAG_CHECK_H

#include <float.h>

#include "stenc/tridiag.h"
#include "test_util.h"

/* A batch in double on the host; converted to the solve's type by tdg_batch_typed(). */
typedef struct tdg_batch {
    size_t n, batch;
    stenc_tridiag_layout layout;
    double *a, *b, *c, *d;
} tdg_batch;

static inline size_t tdg_index(const tdg_batch *t, size_t s, size_t i) {
    return t->layout == STENC_TRIDIAG_CONTIGUOUS ? s * t->n + i : i * t->batch + s;
}

/* |b| >= |a| + |c| + margin with margin in [0.5, 1.5) and random signs. a[0] and c[n-1] get
 * garbage on purpose: the solvers must ignore them. */
static inline tdg_batch tdg_batch_random(size_t n, size_t batch, stenc_tridiag_layout layout,
                                         uint64_t seed) {
    tdg_batch t = {n, batch, layout, NULL, NULL, NULL, NULL};
    size_t count = n * batch;
    t.a = malloc((count ? count : 1) * sizeof(double));
    t.b = malloc((count ? count : 1) * sizeof(double));
    t.c = malloc((count ? count : 1) * sizeof(double));
    t.d = malloc((count ? count : 1) * sizeof(double));
    test_rng rng = test_rng_seeded(seed);
    for (size_t s = 0; s < batch; s++)
        for (size_t i = 0; i < n; i++) {
            size_t k = tdg_index(&t, s, i);
            t.a[k] = test_rng_uniform(&rng, -1, 1);
            t.c[k] = test_rng_uniform(&rng, -1, 1);
            double margin = test_rng_uniform(&rng, 0.5, 1.5);
            double lo = i > 0 ? fabs(t.a[k]) : 0, hi = i + 1 < n ? fabs(t.c[k]) : 0;
            t.b[k] = (test_rng_u64(&rng) & 1 ? -1 : 1) * (lo + hi + margin);
            t.d[k] = test_rng_uniform(&rng, -1, 1);
        }
    return t;
}

static inline void tdg_batch_free(tdg_batch *t) {
    free(t->a), free(t->b), free(t->c), free(t->d);
}

/* The four arrays converted to `type`: one allocation of 4*n*batch elements, a b c d. */
static inline void *tdg_batch_typed(const tdg_batch *t, stenc_type type) {
    size_t count = t->n * t->batch, es = stenc_type_size(type);
    char *out = malloc(4 * (count ? count : 1) * es);
    const double *src[4] = {t->a, t->b, t->c, t->d};
    for (int arr = 0; arr < 4; arr++)
        for (size_t k = 0; k < count; k++) {
            if (type == STENC_F32)
                ((float *)out)[arr * count + k] = (float)src[arr][k];
            else
                ((double *)out)[arr * count + k] = src[arr][k];
        }
    return out;
}

static inline double tdg_load(const void *p, stenc_type type, size_t k) {
    return type == STENC_F32 ? (double)((const float *)p)[k] : ((const double *)p)[k];
}

/* Largest relative residual ||A x - d||_2 / ||d||_2 over the systems, in long double, with the
 * matrix as the solver saw it (rounded to `type`); *worst gets that system. */
static inline double tdg_max_residual(const tdg_batch *t, const void *typed, stenc_type type,
                                      const void *x, size_t *worst) {
    size_t count = t->n * t->batch;
    const char *base = typed;
    size_t es = stenc_type_size(type);
    const void *a = base, *b = base + count * es, *c = base + 2 * count * es,
               *d = base + 3 * count * es;
    double max_rel = 0;
    *worst = 0;
    for (size_t s = 0; s < t->batch; s++) {
        long double rr = 0, dd = 0;
        for (size_t i = 0; i < t->n; i++) {
            size_t k = tdg_index(t, s, i);
            long double r =
                (long double)tdg_load(b, type, k) * tdg_load(x, type, k) - tdg_load(d, type, k);
            if (i > 0)
                r += (long double)tdg_load(a, type, k) * tdg_load(x, type, tdg_index(t, s, i - 1));
            if (i + 1 < t->n)
                r += (long double)tdg_load(c, type, k) * tdg_load(x, type, tdg_index(t, s, i + 1));
            rr += r * r;
            long double dk = tdg_load(d, type, k);
            dd += dk * dk;
        }
        double rel = dd > 0 ? (double)sqrtl(rr / dd) : (double)sqrtl(rr);
        if (!(rel <= max_rel)) { /* NaN counts as worst */
            max_rel = isnan(rel) ? INFINITY : rel;
            *worst = s;
        }
    }
    return max_rel;
}

/* Reference solution in long double from the typed inputs (Thomas, written for the test). */
static inline long double *tdg_reference(const tdg_batch *t, const void *typed, stenc_type type) {
    size_t n = t->n, count = n * t->batch, es = stenc_type_size(type);
    const char *base = typed;
    const void *a = base, *b = base + count * es, *c = base + 2 * count * es,
               *d = base + 3 * count * es;
    long double *x = malloc((count ? count : 1) * sizeof *x);
    long double *w = malloc((n ? n : 1) * sizeof *w);
    for (size_t s = 0; s < t->batch; s++) {
        long double prev_w = 0, prev_x = 0;
        for (size_t i = 0; i < n; i++) {
            size_t k = tdg_index(t, s, i);
            long double ai = i ? tdg_load(a, type, k) : 0;
            long double ci = i + 1 < n ? tdg_load(c, type, k) : 0;
            long double den = tdg_load(b, type, k) - ai * prev_w;
            w[i] = prev_w = ci / den;
            x[k] = prev_x = (tdg_load(d, type, k) - ai * prev_x) / den;
        }
        for (size_t i = n - 1; i-- > 0;)
            x[tdg_index(t, s, i)] -= w[i] * x[tdg_index(t, s, i + 1)];
    }
    free(w);
    return x;
}

/* max |x - ref| / max |ref| over the whole batch (NaN gives INFINITY). */
static inline double tdg_max_rel_error(size_t count, const void *x, stenc_type type,
                                       const long double *ref) {
    long double num = 0, den = 0;
    for (size_t k = 0; k < count; k++) {
        long double e = fabsl((long double)tdg_load(x, type, k) - ref[k]);
        if (isnan(e)) return INFINITY;
        if (e > num) num = e;
        if (fabsl(ref[k]) > den) den = fabsl(ref[k]);
    }
    return den > 0 ? (double)(num / den) : (double)num;
}

static inline double tdg_eps(stenc_type type) {
    return type == STENC_F32 ? (double)FLT_EPSILON : DBL_EPSILON;
}

/* Fill n elements of `type` with NaN so that an element the solver forgets fails the test. */
static inline void tdg_poison(void *p, stenc_type type, size_t count) {
    for (size_t k = 0; k < count; k++) {
        if (type == STENC_F32)
            ((float *)p)[k] = NAN;
        else
            ((double *)p)[k] = NAN;
    }
}

#endif /* STENC_TESTS_TRIDIAG_CHECK_H */
