/* The reftest harness: one case of a generated stencil against a reference function.
 *
 * Each side gets its own set of fields with the same layout and the same random contents,
 * halos included: the generated side on the caller's context (on the device when it is a CUDA
 * context), the reference side on a private CPU context, so that a reference never sees device
 * memory and its timing is a host timing. Launches run colour by colour; after each, the
 * generated fields come back to the host and every array is compared whole. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"

/* Bounds on what a case may ask for: keep allocations of timings small and counts sane. */
#define REFTEST_MAX_REPEAT 1000
#define REFTEST_MAX_WARMUP 1000

void stenc_reftest_options_init(stenc_reftest_options *opt) {
    if (!opt) return;
    memset(opt, 0, sizeof *opt);
    opt->lo = -1.0;
    opt->hi = 1.0;
    opt->seed = 1;
    opt->warmup = 1;
    opt->repeat = 5;
}

/* ---- random data: the same sequence on every platform --------------------------------------- */

static double rng_uniform(uint64_t *state, double lo, double hi) {
    return lo + (hi - lo) * (double)(stenc_splitmix64(state) >> 11) * 0x1.0p-53;
}

/* The whole allocation of a host field: interior, halo and row padding. */
static void *alloc_base(const stenc_field *f, const stenc_field_layout *L) {
    return (char *)stenc_field_host_origin(f) - L->origin_elems * stenc_type_size(L->type);
}

static void fill_random(stenc_field *f, uint64_t *state, double lo, double hi) {
    stenc_field_layout L;
    stenc_field_get_layout(f, &L);
    void *base = alloc_base(f, &L);
    for (size_t e = 0; e < L.alloc_elems; e++) {
        double v = rng_uniform(state, lo, hi);
        if (L.type == STENC_F32)
            ((float *)base)[e] = (float)v;
        else
            ((double *)base)[e] = v;
    }
}

/* dst := src, bit for bit, halo and padding included (same layout). */
static void copy_whole(stenc_field *dst, const stenc_field *src) {
    stenc_field_layout L;
    stenc_field_get_layout(src, &L);
    memcpy(alloc_base(dst, &L), alloc_base(src, &L), L.alloc_elems * stenc_type_size(L.type));
}

/* ---- one case -------------------------------------------------------------------------------- */

typedef struct reftest_case {
    const stenc_reftest_stencil *s;
    stenc_reftest_fn reference;
    const stenc_reftest_options *opt;
    stenc_ctx *ctx, *ref_ctx;
    const char *variant;
    stenc_field **gen, **ref; /* s->narrays each */
    stenc_reftest_array *arrays;
    double *scalars;
    double *gen_results, *ref_results;
    stenc_reftest_call call;
} reftest_case;

static stenc_status check_args(const stenc_reftest_stencil *s, stenc_reftest_fn reference,
                               const stenc_reftest_options *opt, const stenc_ctx *ctx,
                               const size_t n[3], const stenc_reftest_result *result) {
    static const char fn[] = "stenc_reftest_run";
    STENC_REQUIRE(s && reference && opt && n && result, "%s: an argument is NULL", fn);
    STENC_REQUIRE(s->name && s->launch && s->variant_name, "%s: the stencil is incomplete", fn);
    STENC_REQUIRE(s->dims >= 1 && s->dims <= 3, "%s: %s has dims %d", fn, s->name, s->dims);
    STENC_REQUIRE(s->type == STENC_F32 || s->type == STENC_F64, "%s: %s has type %s", fn, s->name,
                  stenc_type_name(s->type));
    /* Every stencil has an array: the compiler rejects a reduction over none. */
    STENC_REQUIRE(s->halo >= 0 && s->ncolors >= 0 && s->nscalars >= 0 && s->narrays >= 1 &&
                      s->nresults >= 0,
                  "%s: %s has a negative count or no array", fn, s->name);
    STENC_REQUIRE((s->nscalars == 0 || s->scalar_names) && s->arrays &&
                      (s->nresults == 0 || s->result_names),
                  "%s: %s lacks a table of names", fn, s->name);
    STENC_TRY(stenc_ctx_check(ctx, fn));
    STENC_TRY(stenc_tolerance_check(&opt->tolerance, "stenc_reftest_run: tolerance"));
    STENC_TRY(stenc_tolerance_check(&opt->reduce_tolerance, "stenc_reftest_run: reduce_tolerance"));
    STENC_REQUIRE(isfinite(opt->lo) && isfinite(opt->hi) && opt->lo <= opt->hi,
                  "%s: the range [%g, %g) is not a finite interval", fn, opt->lo, opt->hi);
    STENC_REQUIRE(opt->warmup >= 0 && opt->warmup <= REFTEST_MAX_WARMUP && opt->repeat >= 1 &&
                      opt->repeat <= REFTEST_MAX_REPEAT,
                  "%s: warmup %d (0..%d) or repeat %d (1..%d) out of range", fn, opt->warmup,
                  REFTEST_MAX_WARMUP, opt->repeat, REFTEST_MAX_REPEAT);
    for (int d = s->dims; d < 3; d++)
        STENC_REQUIRE(n[d] == 1, "%s: %s is %d-D, so n[%d] must be 1, not %zu", fn, s->name,
                      s->dims, d, n[d]);
    return STENC_OK;
}

/* Fields, scalars and the call of a case; everything zeroed first so that release() works
 * after any failure. */
static stenc_status setup(reftest_case *c, const size_t n[3]) {
    const stenc_reftest_stencil *s = c->s;
    const size_t na = (size_t)s->narrays + 1, nr = (size_t)s->nresults + 1;
    c->gen = calloc(na, sizeof *c->gen);
    c->ref = calloc(na, sizeof *c->ref);
    c->arrays = calloc(na, sizeof *c->arrays);
    c->scalars = calloc((size_t)s->nscalars + 1, sizeof *c->scalars);
    c->gen_results = calloc(nr, sizeof *c->gen_results);
    c->ref_results = calloc(nr, sizeof *c->ref_results);
    if (!c->gen || !c->ref || !c->arrays || !c->scalars || !c->gen_results || !c->ref_results)
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_reftest_run: out of host memory");
    STENC_TRY(stenc_ctx_create(&c->ref_ctx, STENC_DEVICE_CPU));

    /* Mixing the extents into the seed gives each size its own data. */
    uint64_t state = c->opt->seed ^ (n[0] * 0x100000001B3ull + n[1] * 0x9E3779B1ull + n[2]);
    for (int a = 0; a < s->narrays; a++) {
        STENC_TRY(
            stenc_field_create(c->ctx, &c->gen[a], s->type, s->dims, n[0], n[1], n[2], s->halo));
        STENC_TRY(stenc_field_create(c->ref_ctx, &c->ref[a], s->type, s->dims, n[0], n[1], n[2],
                                     s->halo));
        fill_random(c->gen[a], &state, c->opt->lo, c->opt->hi);
        copy_whole(c->ref[a], c->gen[a]);
        c->arrays[a].name = s->arrays[a].name;
        c->arrays[a].kind = s->arrays[a].kind;
        c->arrays[a].origin = stenc_field_host_origin(c->ref[a]);
    }
    for (int v = 0; v < s->nscalars; v++)
        c->scalars[v] =
            c->opt->scalars ? c->opt->scalars[v] : rng_uniform(&state, c->opt->lo, c->opt->hi);

    stenc_reftest_call *call = &c->call;
    call->stencil = s->name;
    call->dims = s->dims;
    call->type = s->type;
    call->halo = s->halo;
    call->ncolors = s->ncolors;
    call->nscalars = s->nscalars;
    call->scalars = c->scalars;
    call->narrays = s->narrays;
    call->arrays = c->arrays;
    call->nresults = s->nresults;
    call->results = c->ref_results;
    stenc_field_layout L; /* every array has it */
    STENC_TRY(stenc_field_get_layout(c->ref[0], &L));
    for (int d = 0; d < 3; d++) {
        call->n[d] = (ptrdiff_t)n[d];
        call->stride[d] = L.stride[d];
    }
    return STENC_OK;
}

static void release(reftest_case *c) {
    for (int a = 0; c->s && a < c->s->narrays; a++) {
        if (c->gen) stenc_field_free(c->gen[a]);
        if (c->ref) stenc_field_free(c->ref[a]);
    }
    stenc_ctx_destroy(c->ref_ctx);
    free(c->gen);
    free(c->ref);
    free(c->arrays);
    free(c->scalars);
    free(c->gen_results);
    free(c->ref_results);
}

static stenc_status move_all(reftest_case *c, stenc_location where) {
    for (int a = 0; a < c->s->narrays; a++)
        STENC_TRY(where == STENC_ON_DEVICE ? stenc_field_upload(c->gen[a])
                                           : stenc_field_download(c->gen[a]));
    return STENC_OK;
}

/* Results start as NaN on both sides: a side that does not write one is caught. */
static void clear_results(double *results, int count) {
    for (int v = 0; v < count; v++)
        results[v] = NAN;
}

static stenc_status launch_generated(reftest_case *c, int color) {
    clear_results(c->gen_results, c->s->nresults);
    return c->s->launch(c->ctx, c->variant, color, c->scalars, c->gen, c->gen_results);
}

/* The reference must explain a failure; one that returns a status without a message gets
 * one, so that the report never shows a stale error. */
static stenc_status launch_reference(reftest_case *c, int color) {
    c->call.color = color;
    clear_results(c->ref_results, c->s->nresults);
    stenc_clear_error();
    stenc_status st = c->reference(&c->call);
    if (st != STENC_OK && stenc_last_error()[0] == '\0')
        return STENC_ERROR(st, "the reference of %s returned '%s' without a message", c->s->name,
                           stenc_status_string(st));
    return st;
}

/* Compare after the launch of `color` (-1: not coloured); records the first mismatch. */
static stenc_status compare_launch(reftest_case *c, int color, stenc_reftest_result *r) {
    const stenc_reftest_stencil *s = c->s;
    size_t mismatches = 0;
    for (int a = 0; a < s->narrays; a++) {
        stenc_compare_stats st;
        STENC_TRY(stenc_compare_fields(c->gen[a], c->ref[a], &c->opt->tolerance, &st));
        r->points += st.points;
        stenc_rt_keep_max(&r->max, &st.max);
        if (st.mismatches > 0 && mismatches == 0) {
            stenc_reftest_mismatch *m = &r->first;
            m->what = s->arrays[a].name;
            m->is_result = 0;
            m->color = color;
            memcpy(m->point, st.first, sizeof m->point);
            m->got = st.got, m->want = st.want, m->err = st.first_err;
        }
        mismatches += st.mismatches;
    }
    for (int v = 0; v < s->nresults; v++) {
        const double got = c->gen_results[v], want = c->ref_results[v];
        stenc_value_error e = stenc_value_error_of(STENC_F64, got, want);
        stenc_rt_keep_max(&r->max_result, &e);
        if (stenc_tolerance_match(&c->opt->reduce_tolerance, STENC_F64, got, want)) continue;
        if (mismatches++ == 0) {
            stenc_reftest_mismatch *m = &r->first;
            memset(m, 0, sizeof *m);
            m->what = s->result_names[v];
            m->is_result = 1;
            m->color = color;
            m->got = got, m->want = want, m->err = e;
        }
    }
    r->mismatches = mismatches;
    return STENC_OK;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of `repeat` timed sweeps (one launch per colour) after `warmup` untimed ones. */
static stenc_status time_side(reftest_case *c, int generated, double *median_ms) {
    const int ncolors = c->s->ncolors > 0 ? c->s->ncolors : 1;
    const int total = c->opt->warmup + c->opt->repeat;
    double *ms = calloc((size_t)c->opt->repeat, sizeof *ms);
    stenc_timer *timer = NULL;
    if (!ms) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_reftest_run: out of host memory");
    stenc_status st = stenc_timer_create(generated ? c->ctx : c->ref_ctx, &timer);
    for (int run = 0; st == STENC_OK && run < total; run++) {
        st = stenc_timer_start(timer);
        for (int col = 0; st == STENC_OK && col < ncolors; col++)
            st = generated ? launch_generated(c, col) : launch_reference(c, col);
        double elapsed = 0;
        if (st == STENC_OK) st = stenc_timer_stop(timer, &elapsed);
        if (st == STENC_OK && run >= c->opt->warmup) ms[run - c->opt->warmup] = elapsed;
    }
    if (st == STENC_OK) {
        qsort(ms, (size_t)c->opt->repeat, sizeof *ms, cmp_double);
        const int h = c->opt->repeat / 2;
        *median_ms = c->opt->repeat % 2 ? ms[h] : 0.5 * (ms[h - 1] + ms[h]);
    }
    stenc_timer_destroy(timer);
    free(ms);
    return st;
}

static stenc_status run_case(reftest_case *c, const size_t n[3], stenc_reftest_result *r) {
    STENC_TRY(setup(c, n));
    const int colored = c->s->ncolors > 0;
    const int ncolors = colored ? c->s->ncolors : 1;
    for (int col = 0; col < ncolors; col++) {
        STENC_TRY(move_all(c, STENC_ON_DEVICE));
        STENC_TRY(launch_generated(c, col));
        STENC_TRY(launch_reference(c, col));
        STENC_TRY(move_all(c, STENC_ON_HOST));
        STENC_TRY(compare_launch(c, colored ? col : -1, r));
        if (r->mismatches > 0) break;
    }
    r->passed = r->mismatches == 0;
    STENC_TRY(move_all(c, STENC_ON_DEVICE));
    STENC_TRY(time_side(c, 1, &r->gen_ms));
    STENC_TRY(time_side(c, 0, &r->ref_ms));
    return STENC_OK;
}

stenc_status stenc_reftest_run(const stenc_reftest_stencil *s, stenc_reftest_fn reference,
                               const stenc_reftest_options *opt, stenc_ctx *ctx,
                               const char *variant, const size_t n[3],
                               stenc_reftest_result *result) {
    STENC_TRY(check_args(s, reference, opt, ctx, n, result));
    reftest_case c;
    memset(&c, 0, sizeof c);
    c.s = s, c.reference = reference, c.opt = opt, c.ctx = ctx, c.variant = variant;
    stenc_reftest_result r;
    memset(&r, 0, sizeof r);
    stenc_status st = run_case(&c, n, &r);
    release(&c);
    if (st == STENC_OK) *result = r;
    return st;
}
