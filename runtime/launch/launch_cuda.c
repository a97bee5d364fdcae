/* Variant selection for generated CUDA kernels (stenc_launch_select, stenc/launch.h): an
 * explicit choice, else the tune cache, else (tuning on) timing every variant on the real
 * fields, else the default. Plain C: the variants' run functions hold all the CUDA code, and
 * timing goes through stenc_timer (CUDA events on the context's stream). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "stenc/graph.h"
#include "stenc/launch.h"
#include "stenc/tune.h"

/* Tuning: warm-up runs, then the median of this many timed runs per variant. */
enum { TUNE_WARMUP_RUNS = 1, TUNE_TIMED_RUNS = 5 };

static int find_variant(const stenc_launch_variants *vs, const char *name) {
    for (int v = 0; v < vs->count; v++)
        if (strcmp(vs->list[v].name, name) == 0) return v;
    return -1;
}

const char *stenc_launch_variant_name(const stenc_launch_variants *vs, int index) {
    if (!vs || index < 0 || index >= vs->count) return NULL;
    return vs->list[index].name;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stenc_status time_variant(stenc_ctx *ctx, stenc_timer *timer, const stenc_launch_variant *v,
                                 const stenc_launch_shape *shape, const stenc_launch_field *f,
                                 const double *scalars, const stenc_launch_op *op, double *ms) {
    for (int r = 0; r < TUNE_WARMUP_RUNS; r++)
        STENC_TRY(v->run(ctx, shape, f, scalars, op));
    double t[TUNE_TIMED_RUNS];
    for (int r = 0; r < TUNE_TIMED_RUNS; r++) {
        STENC_TRY(stenc_timer_start(timer));
        STENC_TRY(v->run(ctx, shape, f, scalars, op));
        STENC_TRY(stenc_timer_stop(timer, &t[r]));
    }
    qsort(t, TUNE_TIMED_RUNS, sizeof t[0], compare_double);
    *ms = t[TUNE_TIMED_RUNS / 2];
    return STENC_OK;
}

/* Time every variant and return the fastest in *best. */
static stenc_status tune(stenc_ctx *ctx, const stenc_launch_variants *vs,
                         const stenc_launch_shape *shape, const stenc_launch_field *f,
                         const double *scalars, const stenc_launch_op *op, int *best,
                         double *best_ms) {
    stenc_timer *timer;
    STENC_TRY(stenc_timer_create(ctx, &timer));
    *best = 0;
    *best_ms = -1;
    for (int v = 0; v < vs->count; v++) {
        double ms;
        stenc_status st = time_variant(ctx, timer, &vs->list[v], shape, f, scalars, op, &ms);
        if (st != STENC_OK) {
            stenc_timer_destroy(timer);
            return st;
        }
        if (*best_ms < 0 || ms < *best_ms) *best = v, *best_ms = ms;
    }
    stenc_timer_destroy(timer);
    return STENC_OK;
}

stenc_status stenc_launch_select(stenc_ctx *ctx, const stenc_launch_variants *vs,
                                 const char *variant, const stenc_launch_shape *shape,
                                 const stenc_launch_field *f, const double *scalars,
                                 const stenc_launch_op *op) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_launch_select"));
    STENC_REQUIRE(vs && shape && f && op, "stenc_launch_select: NULL argument");
    STENC_REQUIRE(vs->count > 0, "%s: no CUDA variants", vs->stencil);
    if (variant) {
        int v = find_variant(vs, variant);
        if (v < 0) {
            char names[1024] = "";
            size_t used = 0;
            for (int w = 0; w < vs->count && used < sizeof names; w++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", w ? ", " : "",
                                         vs->list[w].name);
            return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: no variant '%s' (variants: %s)",
                               vs->stencil, variant, names);
        }
        return vs->list[v].run(ctx, shape, f, scalars, op);
    }
    if (vs->flags & STENC_VARIANTS_FIXED) return vs->list[0].run(ctx, shape, f, scalars, op);
    char key[512], name[128];
    int found = 0;
    STENC_TRY(stenc_tune_key(ctx, vs->stencil, vs->digest, shape->n, vs->type, key, sizeof key));
    STENC_TRY(stenc_tune_lookup(ctx, key, name, sizeof name, &found));
    if (found) {
        int v = find_variant(vs, name);
        if (v >= 0) return vs->list[v].run(ctx, shape, f, scalars, op);
        /* A stale entry (a variant this build no longer has): tune again or use the default. */
    }
    /* Timing waits for the device, which a recording (stenc/graph.h) cannot contain. */
    if (stenc_tune_get_mode(ctx) == STENC_TUNE_OFF || stenc_graph_recording(ctx))
        return vs->list[0].run(ctx, shape, f, scalars, op);
    int best;
    double best_ms;
    STENC_TRY(tune(ctx, vs, shape, f, scalars, op, &best, &best_ms));
    STENC_TRY(vs->list[best].run(ctx, shape, f, scalars, op));
    return stenc_tune_store(ctx, key, vs->list[best].name, best_ms);
}

/* ---- the scratch buffer of generated kernels ----------------------------------------------- */

typedef struct launch_scratch {
    void *ptr;
    size_t bytes;
} launch_scratch;

static void release_scratch(stenc_ctx *ctx, void *state) {
    launch_scratch *s = state;
    if (s->ptr) stenc_free(ctx, s->ptr);
    free(s);
}

stenc_status stenc_launch_scratch(stenc_ctx *ctx, size_t bytes, void **ptr) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_launch_scratch"));
    STENC_REQUIRE(ptr, "stenc_launch_scratch: ptr is NULL");
    static const stenc_cache_key scratch_key = {"launch scratch"};
    launch_scratch *s = stenc_ctx_cache_get(ctx, &scratch_key);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_launch_scratch: out of memory");
        STENC_TRY(stenc_ctx_cache_set(ctx, &scratch_key, s, release_scratch)); /* s released */
    }
    if (s->bytes < bytes || !s->ptr) {
        /* stenc_free waits for the work that may still use the old buffer (cudaFree). */
        if (s->ptr) stenc_free(ctx, s->ptr);
        s->ptr = NULL, s->bytes = 0;
        size_t want = bytes > 4096 ? bytes : 4096;
        STENC_TRY(stenc_malloc(ctx, &s->ptr, want));
        s->bytes = want;
    }
    *ptr = s->ptr;
    return STENC_OK;
}
