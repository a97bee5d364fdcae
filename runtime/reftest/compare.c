/* The comparison core of reftest: ULP distances, tolerances, and the comparison of two fields
 * point by point. Values of either precision travel as double (a float widens exactly); the
 * type says in which precision ULPs are counted and bits compared. */
#include <math.h>
#include <string.h>

#include "compare_internal.h"

/* The position of x on the line of representable values, with +0 and -0 both at 0: IEEE
 * sign-magnitude bits turned into a signed integer that increases with the value. */
static int64_t ordinal_f32(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    int64_t magnitude = (int64_t)(bits & 0x7fffffffu);
    return (bits >> 31) ? -magnitude : magnitude;
}

static int64_t ordinal_f64(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int64_t magnitude = (int64_t)(bits & 0x7fffffffffffffffu);
    return (bits >> 63) ? -magnitude : magnitude;
}

/* |a - b| of two ordinals; below 2^64, since a NaN never reaches here. */
static uint64_t ordinal_distance(int64_t a, int64_t b) {
    return a >= b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

uint64_t stenc_ulp_distance_f32(float a, float b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
    return ordinal_distance(ordinal_f32(a), ordinal_f32(b));
}

uint64_t stenc_ulp_distance_f64(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
    return ordinal_distance(ordinal_f64(a), ordinal_f64(b));
}

stenc_value_error stenc_value_error_of(stenc_type type, double got, double want) {
    stenc_value_error e = {0.0, 0.0, 0};
    if (isnan(got) || isnan(want)) {
        if (!(isnan(got) && isnan(want))) e = (stenc_value_error){INFINITY, INFINITY, UINT64_MAX};
        return e;
    }
    if (got == want) return e;
    e.abs = fabs(got - want);
    /* want == 0 or infinite: no finite relative error describes the difference. */
    e.rel = (want == 0 || isinf(want)) ? INFINITY : e.abs / fabs(want);
    e.ulp = type == STENC_F32 ? stenc_ulp_distance_f32((float)got, (float)want)
                              : stenc_ulp_distance_f64(got, want);
    return e;
}

static int same_bits(stenc_type type, double got, double want) {
    if (type == STENC_F32) {
        float g = (float)got, w = (float)want;
        return memcmp(&g, &w, sizeof g) == 0;
    }
    return memcmp(&got, &want, sizeof got) == 0;
}

int stenc_tolerance_match(const stenc_tolerance *tol, stenc_type type, double got, double want) {
    if (isnan(got) || isnan(want)) return isnan(got) && isnan(want);
    if (!tol || tol->use == 0) return same_bits(type, got, want);
    if (got == want) return 1;
    if (isinf(got) || isinf(want)) return 0; /* an infinity is no number's neighbour here */
    stenc_value_error e = stenc_value_error_of(type, got, want);
    return ((tol->use & STENC_TOL_ABS) && e.abs <= tol->abs) ||
           ((tol->use & STENC_TOL_REL) && e.rel <= tol->rel) ||
           ((tol->use & STENC_TOL_ULP) && e.ulp <= tol->ulp);
}

stenc_status stenc_tolerance_check(const stenc_tolerance *tol, const char *what) {
    if (!what) what = "tolerance";
    STENC_REQUIRE(tol, "%s is NULL", what);
    STENC_REQUIRE((tol->use & ~(STENC_TOL_ABS | STENC_TOL_REL | STENC_TOL_ULP)) == 0,
                  "%s: unknown bits 0x%x in use", what, tol->use);
    STENC_REQUIRE(!(tol->use & STENC_TOL_ABS) || tol->abs >= 0,
                  "%s: the absolute tolerance %g is negative or NaN", what, tol->abs);
    STENC_REQUIRE(!(tol->use & STENC_TOL_REL) || tol->rel >= 0,
                  "%s: the relative tolerance %g is negative or NaN", what, tol->rel);
    return STENC_OK;
}

static stenc_status same_layout(const stenc_field_layout *g, const stenc_field_layout *w) {
    int same = g->type == w->type && g->dims == w->dims && g->halo == w->halo;
    for (int d = 0; d < 3; d++)
        same = same && g->n[d] == w->n[d] && g->stride[d] == w->stride[d];
    if (!same)
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "stenc_compare_fields: the fields differ in layout (%s %d-D "
                           "%zux%zux%zu halo %d against %s %d-D %zux%zux%zu halo %d)",
                           stenc_type_name(g->type), g->dims, g->n[0], g->n[1], g->n[2], g->halo,
                           stenc_type_name(w->type), w->dims, w->n[0], w->n[1], w->n[2], w->halo);
    return STENC_OK;
}

stenc_status stenc_compare_fields(const stenc_field *got, const stenc_field *want,
                                  const stenc_tolerance *tol, stenc_compare_stats *stats) {
    static const char fn[] = "stenc_compare_fields";
    STENC_TRY(stenc_field_check(got, fn, "got"));
    STENC_TRY(stenc_field_check(want, fn, "want"));
    STENC_TRY(stenc_tolerance_check(tol, "stenc_compare_fields: tol"));
    STENC_REQUIRE(stats, "%s: stats is NULL", fn);
    STENC_REQUIRE(stenc_field_location(got) == STENC_ON_HOST &&
                      stenc_field_location(want) == STENC_ON_HOST,
                  "%s: both fields must be on the host (stenc_field_download)", fn);
    stenc_field_layout g, w;
    STENC_TRY(stenc_field_get_layout(got, &g));
    STENC_TRY(stenc_field_get_layout(want, &w));
    STENC_TRY(same_layout(&g, &w));

    const char *gbase = stenc_field_host_origin(got), *wbase = stenc_field_host_origin(want);
    const size_t esize = stenc_type_size(g.type);
    long lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = d < g.dims ? -(long)g.halo : 0;
        hi[d] = d < g.dims ? (long)g.n[d] + g.halo : 1;
    }
    stenc_compare_stats s;
    memset(&s, 0, sizeof s);
    for (long k = lo[2]; k < hi[2]; k++)
        for (long j = lo[1]; j < hi[1]; j++)
            for (long i = lo[0]; i < hi[0]; i++) {
                const ptrdiff_t off = (i + j * g.stride[1] + k * g.stride[2]) * (ptrdiff_t)esize;
                double gv, wv;
                if (g.type == STENC_F32) {
                    float gf, wf;
                    memcpy(&gf, gbase + off, sizeof gf);
                    memcpy(&wf, wbase + off, sizeof wf);
                    gv = gf, wv = wf;
                } else {
                    memcpy(&gv, gbase + off, sizeof gv);
                    memcpy(&wv, wbase + off, sizeof wv);
                }
                stenc_value_error e = stenc_value_error_of(g.type, gv, wv);
                stenc_rt_keep_max(&s.max, &e);
                s.points++;
                if (stenc_tolerance_match(tol, g.type, gv, wv)) continue;
                if (s.mismatches++ == 0) {
                    s.first[0] = i, s.first[1] = j, s.first[2] = k;
                    s.got = gv, s.want = wv, s.first_err = e;
                }
            }
    *stats = s;
    return STENC_OK;
}
