/* Temporal blocking of stepping launchers (`step OUT -> IN;`): on the host, below; on a CUDA
 * device, device_steps chains the generated tstep kernels (docs/cuda.md, "Temporal blocking").
 *
 * NAME_steps makes nsteps steps, each filling IN's halo, sweeping the stencil from IN into OUT
 * and swapping the two. Made one by one, each step streams every field through memory once.
 * Here T steps share one trip: a wavefront along the slowest dimension (k in 3-D, j in 2-D).
 * For fronts f = 0, S, 2S, ... it makes, for t = 1..T in turn, slab [f - (t-1) r, + S) of step
 * t, where r is the stencil's reach: step t reads step t-1 up to r planes past its slab, and
 * step t-1 is r planes ahead. Step t is written over step t-2, in the storage of IN or OUT as
 * the plain steps would: every plane it overwrites has been read by each plane of step t-1 that
 * needs it, since those lie at most r ahead. Each slab's halo is filled as soon as it is made
 * (stenc_field_fill_halo_slab), with the rules of stenc_field_fill_halo, so both fields end bit
 * for bit as after the plain steps, halos included. What stays in the cache is about
 * (T - 1) r + S + 2 r planes of every field. */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../field/field_internal.h"
#include "stenc/graph.h"
#include "stenc/launch.h"
#include "stenc/tune.h"

/* How the degree T is chosen when STENC_STEPS_BLOCK is unset or `auto`. */
enum {
    STEPS_MAX_DEGREE = 8,         /* more steps per trip gain little once compute dominates */
    STEPS_FORCED_MAX = 64,        /* the largest STENC_STEPS_BLOCK taken */
    STEPS_SLAB_MAX = 1 << 20,     /* the largest STENC_STEPS_SLAB taken */
    STEPS_CACHE_MB_MAX = 1 << 20, /* the largest STENC_STEPS_CACHE_MB taken */
    /* The fewest points a slab (one parallel kernel call) holds, per thread: thinner slabs
     * spend more on starting the threads than they gain (16 threads, 384^3: 1 plane per slab
     * 0.83x the plain steps, 4 planes 1.39x; bench/cpu/RESULTS.md). */
    STEPS_SLAB_POINTS_PER_THREAD = 32768,
    /* Blocking is automatic with this many threads at most. Each slab's halo fill runs on one
     * thread and each slab is its own parallel loop: on 2 cores blocking gains 1.7-1.9x, on 16
     * it ranged from 0.63x to 1.6x over runs and slab sizes (bench/cpu/RESULTS.md).
     * STENC_STEPS_BLOCK still forces it. */
    STEPS_AUTO_MAX_THREADS = 4,
    /* The smallest device kernel that makes what the main one leaves (device_steps). */
    STEPS_DEVICE_MIN_REST = 3,
};
/* The last-level cache when nothing says: a common desktop L3. */
#define STEPS_CACHE_DEFAULT ((size_t)32 << 20)

/* Bytes of the last-level cache: STENC_STEPS_CACHE_MB when set, else what Linux says of cpu0's
 * L3 (sysfs, which counts what a VM's CPU really shares, where glibc's sysconf may report the
 * whole host's), else sysconf's, else STEPS_CACHE_DEFAULT. Fields that fit it whole are left to
 * the plain steps (already in cache); the wavefront's planes get half of it. */
static size_t read_cache_bytes(void) {
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    if (f) {
        unsigned long v = 0;
        char unit = 0;
        const int got = fscanf(f, "%lu%c", &v, &unit);
        fclose(f);
        if (got >= 1 && v > 0)
            return (size_t)v << (unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0);
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) return (size_t)l3;
#endif
    return STEPS_CACHE_DEFAULT;
}

static size_t cache_bytes(long cache_mb) {
    if (cache_mb > 0) return (size_t)cache_mb << 20;
    /* Read once per process, not per launch (the value cannot change); racing first launches
     * store the same value. */
    static _Atomic size_t known;
    size_t bytes = known;
    if (bytes == 0) known = bytes = read_cache_bytes();
    return bytes;
}

static int max_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static size_t slab_points(void) {
    return (size_t)STEPS_SLAB_POINTS_PER_THREAD * (size_t)max_threads();
}

static _Thread_local int last_degree;

int stenc_launch_steps_last_degree(void) {
    return last_degree;
}

/* An environment variable holding a number from 1 to max, or `auto`: *value 0 for `auto` or
 * unset, else the number. */
static stenc_status count_from_env(const char *stencil, const char *name, const char *what,
                                   long max, long *value) {
    const char *env = getenv(name);
    *value = 0;
    if (!env || !*env || strcmp(env, "auto") == 0) return STENC_OK;
    char *end = NULL;
    errno = 0;
    long v = strtol(env, &end, 10);
    if (errno || *end || v < 1 || v > max)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s_steps: environment variable %s='%s' is not 'auto' or a number of "
                           "%s from 1 to %ld",
                           stencil, name, env, what, max);
    *value = v;
    return STENC_OK;
}

/* Bytes of an element of argument a. */
static size_t arg_elem_size(const stenc_launch_desc *desc, int a) {
    const int t = desc->args[a].int_type ? desc->args[a].int_type : (int)desc->type;
    return stenc_type_size((stenc_type)t);
}

/* What both the host's and the device's blocking need: the cases the plain steps handle, with
 * IN and OUT alike (the plain steps' swap refuses others) and no other argument that is IN or
 * OUT or a view of them (its values would change from step to step). */
static int blockable_fields(const stenc_launch_desc *desc, const stenc_launch_stepper *stepper,
                            const stenc_field *const fields[], const stenc_field *in,
                            const stenc_field *out, const stenc_bc bc[STENC_FACE_COUNT]) {
    if (desc->dims < 2) return 0;
    for (int a = 0; a < desc->nargs; a++) {
        if (desc->args[a].kind == STENC_ARG_INOUT) return 0; /* updated in place every step */
        const stenc_field *storage = fields[a];              /* a view reads its parent's storage */
        while (storage && storage->parent)
            storage = storage->parent;
        if (a != stepper->in && a != stepper->out && (storage == in || storage == out)) return 0;
    }
    if (stenc_field_is_view(in) || stenc_field_is_view(out)) return 0;
    if (stenc_field_location(in) != stenc_field_location(out)) return 0;
    const stenc_field_layout *li = &in->layout, *lo = &out->layout;
    if (li->type != lo->type || li->dims != lo->dims || li->halo != lo->halo ||
        memcmp(li->n, lo->n, sizeof li->n) != 0 ||
        memcmp(li->stride, lo->stride, sizeof li->stride))
        return 0;
    for (int f = 0; f < 2 * desc->dims; f++)
        if ((unsigned)bc[f].kind > STENC_BC_PERIODIC) return 0; /* the fill says why */
    return 1;
}

/* On the host: a slowest dimension whose halo is filled from planes already made. */
static int blockable(const stenc_launch_desc *desc, const stenc_launch_stepper *stepper,
                     const stenc_field *const fields[], const stenc_field *in,
                     const stenc_field *out, const stenc_bc bc[STENC_FACE_COUNT]) {
    if (!stepper->blockable || stenc_field_location(in) != STENC_ON_HOST ||
        !blockable_fields(desc, stepper, fields, in, out, bc))
        return 0;
    const int s = desc->dims - 1;
    return bc[2 * s].kind != STENC_BC_PERIODIC && bc[2 * s + 1].kind != STENC_BC_PERIODIC;
}

/* On a CUDA device: the kernels resolve Dirichlet and Neumann faces only (a periodic face
 * would need the far side of the grid, a face left alone the halo of every step). */
static int device_blockable(const stenc_launch_desc *desc, const stenc_launch_stepper *stepper,
                            const stenc_field *const fields[], const stenc_field *in,
                            const stenc_field *out, const stenc_bc bc[STENC_FACE_COUNT]) {
    if (!stepper->cuda || stepper->cuda->count < 1 || stenc_field_location(in) != STENC_ON_DEVICE ||
        !blockable_fields(desc, stepper, fields, in, out, bc))
        return 0;
    for (int f = 0; f < 2 * desc->dims; f++)
        if (bc[f].kind != STENC_BC_DIRICHLET && bc[f].kind != STENC_BC_NEUMANN) return 0;
    return 1;
}

/* Swap IN and OUT, and the views the kernels index them by. */
static stenc_status swap_steps(stenc_field *in, stenc_field *out,
                               const stenc_launch_stepper *stepper, stenc_launch_field *views) {
    STENC_TRY(stenc_field_swap(in, out));
    const stenc_launch_field t = views[stepper->in];
    views[stepper->in] = views[stepper->out];
    views[stepper->out] = t;
    return STENC_OK;
}

/* The kernel of the largest degree from lo to hi, NULL when there is none. */
static const stenc_launch_tstep_variant *tstep_between(const stenc_launch_tsteps *list, long lo,
                                                       long hi) {
    const stenc_launch_tstep_variant *best = NULL;
    for (int v = 0; v < list->count; v++) {
        const long d = list->list[v].degree;
        if (d >= lo && d <= hi && (!best || d > best->degree)) best = &list->list[v];
    }
    return best;
}

/* Tuning the device's stepping: plain steps and each kernel timed on scratch copies of IN
 * and OUT (the user's fields are not touched), per step, after a warm-up, the median of
 * TUNE_STEPS_RUNS; the fastest is the tune cache's entry for NAME_steps at this size. */
enum { TUNE_STEPS_RUNS = 3, TUNE_PLAIN_STEPS = 4 };
#define TUNE_STEPS_PLAIN "plain"

static int compare_ms(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Milliseconds per step of plain steps (kernel NULL) or of kernel k, on views v. */
static stenc_status time_steps(stenc_ctx *ctx, stenc_timer *timer,
                               const stenc_launch_tsteps *kernels,
                               const stenc_launch_tstep_variant *k, stenc_field *scratch_in,
                               const stenc_launch_shape *shape, const stenc_launch_field *v,
                               const double *scalars, const stenc_bc bc[STENC_FACE_COUNT],
                               double *ms_per_step) {
    const stenc_launch_op op = {0, NULL, NULL};
    double t[TUNE_STEPS_RUNS];
    for (int r = -1; r < TUNE_STEPS_RUNS; r++) { /* r = -1: the warm-up */
        double ms = 0;
        STENC_TRY(stenc_timer_start(timer));
        if (k) {
            STENC_TRY(k->run(ctx, shape, v, scalars, bc, scratch_in->layout.halo));
        } else {
            for (int s = 0; s < TUNE_PLAIN_STEPS; s++) {
                STENC_TRY(stenc_field_fill_halo(scratch_in, bc));
                STENC_TRY(stenc_launch_select(ctx, kernels->plain, NULL, shape, v, scalars, &op));
            }
        }
        STENC_TRY(stenc_timer_stop(timer, &ms));
        if (r >= 0) t[r] = ms / (k ? k->degree : TUNE_PLAIN_STEPS);
    }
    qsort(t, TUNE_STEPS_RUNS, sizeof t[0], compare_ms);
    *ms_per_step = t[TUNE_STEPS_RUNS / 2];
    return STENC_OK;
}

/* Time the plain steps and every kernel; *best is the fastest kernel, NULL for the plain
 * steps; the choice is stored under key. */
static stenc_status tune_steps(stenc_ctx *ctx, const stenc_launch_stepper *stepper,
                               const stenc_field *in, const stenc_launch_shape *shape,
                               const stenc_launch_field *views, const double *scalars,
                               const stenc_bc bc[STENC_FACE_COUNT], const char *key,
                               const stenc_launch_tstep_variant **best) {
    const stenc_launch_tsteps *kernels = stepper->cuda;
    const stenc_field_layout *L = &in->layout;
    stenc_field *scratch[2] = {NULL, NULL};
    stenc_timer *timer = NULL;
    stenc_status st = STENC_OK;
    for (int f = 0; f < 2 && st == STENC_OK; f++) {
        st = stenc_field_create(ctx, &scratch[f], L->type, L->dims, L->n[0], L->n[1], L->n[2],
                                L->halo);
        if (st == STENC_OK) st = stenc_field_fill(scratch[f], 0.5);
        if (st == STENC_OK) st = stenc_field_upload(scratch[f]);
        if (st == STENC_OK && memcmp(scratch[f]->layout.stride, L->stride, sizeof L->stride))
            st = STENC_ERROR(STENC_ERR_INTERNAL, "stepping tuner: scratch layout differs");
    }
    if (st == STENC_OK) st = stenc_timer_create(ctx, &timer);
    stenc_launch_field v[STENC_LAUNCH_MAX_FIELDS];
    memcpy(v, views, sizeof v[0] * (size_t)STENC_LAUNCH_MAX_FIELDS);
    if (st == STENC_OK) {
        v[stepper->in].origin = stenc_field_device_origin(scratch[0]);
        v[stepper->out].origin = stenc_field_device_origin(scratch[1]);
    }
    double best_ms = 0;
    *best = NULL;
    if (st == STENC_OK)
        st = time_steps(ctx, timer, kernels, NULL, scratch[0], shape, v, scalars, bc, &best_ms);
    for (int k = 0; k < kernels->count && st == STENC_OK; k++) {
        double ms = 0;
        st = time_steps(ctx, timer, kernels, &kernels->list[k], scratch[0], shape, v, scalars, bc,
                        &ms);
        if (st == STENC_OK && ms < best_ms) best_ms = ms, *best = &kernels->list[k];
    }
    if (st == STENC_OK)
        st = stenc_tune_store(ctx, key, *best ? (*best)->name : TUNE_STEPS_PLAIN, best_ms);
    stenc_timer_destroy(timer);
    for (int f = 0; f < 2; f++)
        stenc_field_free(scratch[f]);
    return st;
}

/* The kernel of the whole runs when nothing asks for one: the tune cache's entry for these
 * steps, else the tuner's choice when tuning is on, else the first kernel if the table is
 * automatic. NULL: the plain steps. */
static stenc_status tuned_kernel(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                 const stenc_launch_stepper *stepper, const stenc_field *in,
                                 const stenc_launch_shape *shape, const stenc_launch_field *views,
                                 const double *scalars, const stenc_bc bc[STENC_FACE_COUNT],
                                 const stenc_launch_tstep_variant **main) {
    const stenc_launch_tsteps *kernels = stepper->cuda;
    *main = NULL;
    char stencil[256], key[512], name[128];
    snprintf(stencil, sizeof stencil, "%s_steps", desc->name);
    int found = 0;
    STENC_TRY(stenc_tune_key(ctx, stencil, kernels->plain ? kernels->plain->digest : NULL, shape->n,
                             desc->type, key, sizeof key));
    STENC_TRY(stenc_tune_lookup(ctx, key, name, sizeof name, &found));
    if (found && strcmp(name, TUNE_STEPS_PLAIN) == 0) return STENC_OK;
    for (int v = 0; found && v < kernels->count; v++)
        if (strcmp(kernels->list[v].name, name) == 0) *main = &kernels->list[v];
    if (*main) return STENC_OK; /* else a stale entry: as if there were none */
    if (kernels->plain && stenc_tune_get_mode(ctx) != STENC_TUNE_OFF &&
        !stenc_graph_recording(ctx)) {
        const stenc_status st = tune_steps(ctx, stepper, in, shape, views, scalars, bc, key, main);
        /* no room for the scratch copies: the untuned choice, stored nowhere (the next call
         * may have room) */
        if (st != STENC_ERR_OUT_OF_MEMORY) return st;
    }
    *main = kernels->automatic ? &kernels->list[0] : NULL;
    return STENC_OK;
}

/* Steps 1..nsteps-1 (at most) on a CUDA device, `degree` (0: the default kernel's) per kernel;
 * the launcher makes the rest. Each kernel reads IN's interior, writes OUT's and IN's halo (as
 * the fill before the step after next would), and the fields are swapped: after the
 * launcher's last plain step both fields hold what the plain steps leave, interior and halo
 * (docs/cuda.md, "Temporal blocking"). A kernel of degree d swaps once where the plain steps
 * swap d times, so the fields' storage (and the row padding in it, which nothing writes) may
 * end exchanged. */
static stenc_status device_steps(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                 const stenc_launch_stepper *stepper,
                                 const stenc_field *const fields[], stenc_field *in,
                                 stenc_field *out, const double *scalars, long nsteps,
                                 const stenc_bc bc[STENC_FACE_COUNT], long degree, long *made) {
    stenc_launch_field views[STENC_LAUNCH_MAX_FIELDS];
    stenc_launch_shape shape;
    if (stenc_launch_check(desc, ctx, fields, views, &shape) != STENC_OK ||
        shape.location != STENC_ON_DEVICE || stenc_ctx_device(ctx) != STENC_DEVICE_CUDA)
        return STENC_OK; /* the plain steps report it, after the first fill as ever */
    const stenc_launch_tsteps *kernels = stepper->cuda;
    /* the kernel of the whole runs: STENC_STEPS_KERNEL's, else the largest degree up to
     * STENC_STEPS_BLOCK's, else the tuned one (tuned_kernel) */
    const stenc_launch_tstep_variant *main = NULL;
    const char *named = getenv("STENC_STEPS_KERNEL");
    if (named && *named) {
        for (int v = 0; v < kernels->count && !main; v++)
            if (strcmp(kernels->list[v].name, named) == 0) main = &kernels->list[v];
        if (!main)
            return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                               "%s_steps: environment variable STENC_STEPS_KERNEL='%s' names no "
                               "kernel of this stencil (the first is '%s')",
                               desc->name, named, kernels->list[0].name);
    }
    if (!degree && !(named && *named))
        STENC_TRY(tuned_kernel(desc, ctx, stepper, in, &shape, views, scalars, bc, &main));
    for (int v = 0; v < kernels->count && degree; v++) {
        const stenc_launch_tstep_variant *k = &kernels->list[v];
        if (k->degree <= degree && (!main || k->degree > main->degree)) main = k;
    }
    if (!main || main->degree < 2) return STENC_OK;
    const long max = main->degree;
    /* the first fill, which refuses a Dirichlet value the type cannot hold */
    STENC_TRY(stenc_field_fill_halo(in, bc));
    long left = nsteps - 1;
    int first = 0;
    /* Runs of the main kernel, then the largest kernels that fit what is left, down to degree
     * 3 (2 where the main one is 2: in 2-D, t2 ran at 0.93x the plain steps in float, t3 at
     * 1.29x; bench/cuda/RESULTS.md); the rest plain. Where one more run of the main kernel would
     * leave fewer than that, a larger kernel that fits takes them all (3-D, 7 steps with t3:
     * t3 and t4, not t3, t3 and a plain step), up to STENC_STEPS_BLOCK's degree when set. */
    const long lo = max < STEPS_DEVICE_MIN_REST ? max : STEPS_DEVICE_MIN_REST;
    const long cap = degree ? degree : LONG_MAX;
    for (;;) {
        const stenc_launch_tstep_variant *k = left >= max ? main : tstep_between(kernels, lo, left);
        if (left > max && left < max + lo) {
            const stenc_launch_tstep_variant *all =
                tstep_between(kernels, max + 1, left < cap ? left : cap);
            if (all) k = all;
        }
        if (!k) break;
        STENC_TRY(k->run(ctx, &shape, views, scalars, bc, in->layout.halo));
        STENC_TRY(swap_steps(in, out, stepper, views));
        *made += k->degree;
        left -= k->degree;
        if (!first) first = k->degree;
    }
    if (first) last_degree = first;
    return STENC_OK;
}

/* The automatic degree: the largest up to STEPS_MAX_DEGREE whose planes fit the cache budget;
 * 1 when the fields fit whole or not even two steps' planes do. */
static long auto_degree(size_t plane_bytes, size_t total_bytes, long reach, long slab,
                        long cache_mb) {
    const size_t cache = cache_bytes(cache_mb), budget = cache / 2;
    if (total_bytes <= cache || max_threads() > STEPS_AUTO_MAX_THREADS) return 1;
    long degree = 1;
    for (long t = 2; t <= STEPS_MAX_DEGREE; t++)
        if ((size_t)((t - 1) * reach + slab + 2 * reach) * plane_bytes <= budget) degree = t;
    return degree;
}

/* ---- steps on fields distributed over MPI ranks ------------------------------------------- */

/* Each step made one by one exchanges IN's halo (stenc_field_exchange: shared faces from the
 * neighbours, physical ones by bc, edges and corners included), launches, and swaps. With a
 * halo of H >= 2R (R the reach of IN's reads), a group of T = H / R steps shares one exchange
 * (deep halos): step t of a group is made over the part grown by (T - t) R across every shared
 * face, from values the exchange brought and the steps before made there, which are the values
 * the neighbours make in their own parts, bit for bit; physical faces are filled by bc before
 * each step. A group's writes reach (T - 1) R into OUT's halo and its reads T R into IN's, and
 * another input's reads reach its own, so T is also bounded by the other inputs' halos. The
 * last two steps are made one by one: both fields end as after the steps made one by one,
 * halos included. Host kernels assume aligned rows, so on the host a part with a shared face
 * along i (not grown there) exchanges at every step. Every rank agrees on each group's status,
 * so that no rank waits in an exchange another has left. */
static stenc_status dist_steps(const stenc_launch_desc *desc, stenc_ctx *ctx,
                               const stenc_launch_stepper *stepper,
                               const stenc_field *const fields[], stenc_field *in, stenc_field *out,
                               const double *scalars, long nsteps,
                               const stenc_bc bc[STENC_FACE_COUNT], long degree, long *made) {
    static const char fn[] = "stenc_launch_steps_blocked";
    const stenc_field_dist_ops *ops = stenc_field_dist_ops_of(in);
    if (!ops || !ops->exchange || !ops->shared_faces)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s_steps: '%s' is a view or a part not made by "
                           "stenc_field_create_dist: its halo cannot be exchanged",
                           desc->name, desc->args[stepper->in].name);
    stenc_launch_field views[STENC_LAUNCH_MAX_FIELDS];
    stenc_launch_shape shape;
    stenc_status st = stenc_launch_check(desc, ctx, fields, views, &shape);
    if (st == STENC_OK && shape.location == STENC_ON_DEVICE &&
        (stenc_ctx_device(ctx) != STENC_DEVICE_CUDA || !stepper->cuda_variants))
        st = STENC_ERROR(STENC_ERR_UNSUPPORTED,
                         "%s_steps: distributed fields on a device step with the CUDA kernels "
                         "only (device '%s')",
                         desc->name, stenc_ctx_device_name(ctx));
    STENC_TRY(ops->agree(in, st, fn));
    int shared[STENC_FACE_COUNT];
    ops->shared_faces(in, shared);
    const long reach = desc->args[stepper->in].halo;
    long group = reach > 0 ? in->layout.halo / reach : 1;
    for (int a = 0; a < desc->nargs && reach > 0; a++) {
        if (a == stepper->in || a == stepper->out || desc->args[a].kind != STENC_ARG_INPUT)
            continue;
        const long t = (fields[a]->layout.halo - desc->args[a].halo) / reach + 1;
        if (t < group) group = t;
    }
    if (degree && degree < group) group = degree;
    if (!stepper->index_free || !blockable_fields(desc, stepper, fields, in, out, bc)) group = 1;
    if (shape.location == STENC_ON_HOST && (shared[0] || shared[1])) group = 1;
    stenc_bc physical[STENC_FACE_COUNT];
    for (int f = 0; f < STENC_FACE_COUNT; f++)
        physical[f] = shared[f] ? (stenc_bc){STENC_BC_NONE, 0} : bc[f];
    const stenc_launch_op op = {0, NULL, NULL};
    int first = 0;
    for (long done = 0; done < nsteps;) {
        const long left = nsteps - done;
        const long steps = group > 1 && left > 2 ? (left - 2 < group ? left - 2 : group) : 1;
        st = ops->exchange(in, bc, 0);
        for (long t = 1; t <= steps && st == STENC_OK; t++) {
            if (t > 1) st = stenc_field_fill_halo(in, physical);
            /* the part grown by (steps - t) R across the shared faces */
            stenc_launch_shape grown = shape;
            stenc_launch_field v[STENC_LAUNCH_MAX_FIELDS];
            memcpy(v, views, sizeof v[0] * (size_t)desc->nargs);
            const long ext = (steps - t) * reach;
            for (int d = 0; d < desc->dims && ext > 0; d++) {
                const long lo = shared[2 * d] ? ext : 0, hi = shared[2 * d + 1] ? ext : 0;
                grown.n[d] += (size_t)(lo + hi);
                grown.index_offset[d] -= (size_t)lo;
                for (int a = 0; a < desc->nargs; a++)
                    v[a].origin = (char *)v[a].origin -
                                  lo * v[a].stride[d] * (ptrdiff_t)arg_elem_size(desc, a);
            }
            if (st != STENC_OK) break;
            if (shape.location == STENC_ON_HOST)
                stepper->kernel(&grown, v, scalars);
            else
                st =
                    stenc_launch_select(ctx, stepper->cuda_variants, NULL, &grown, v, scalars, &op);
            if (st == STENC_OK) st = swap_steps(in, out, stepper, views);
        }
        STENC_TRY(ops->agree(in, st, fn));
        if (!first) first = (int)steps;
        done += steps;
        *made = done;
    }
    last_degree = first > 1 ? first : 1;
    return STENC_OK;
}

stenc_status stenc_launch_steps_blocked(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                        const stenc_launch_stepper *stepper,
                                        const stenc_field *const fields[], stenc_field *in,
                                        stenc_field *out, const double *scalars, long nsteps,
                                        const stenc_bc bc[STENC_FACE_COUNT], long *made) {
    STENC_REQUIRE(desc && stepper && fields && in && out && bc && made,
                  "stenc_launch_steps_blocked: NULL argument");
    *made = 0;
    last_degree = 1;
    long degree = 0, slab = 0, cache_mb = 0;
    STENC_TRY(count_from_env(desc->name, "STENC_STEPS_BLOCK", "steps per sweep", STEPS_FORCED_MAX,
                             &degree));
    STENC_TRY(
        count_from_env(desc->name, "STENC_STEPS_SLAB", "planes per slab", STEPS_SLAB_MAX, &slab));
    STENC_TRY(count_from_env(desc->name, "STENC_STEPS_CACHE_MB", "megabytes of cache",
                             STEPS_CACHE_MB_MAX, &cache_mb));
    if (stenc_field_decomp_signature(in) != 0)
        return dist_steps(desc, ctx, stepper, fields, in, out, scalars, nsteps, bc, degree, made);
    if (degree == 1) return STENC_OK;
    if (device_blockable(desc, stepper, fields, in, out, bc))
        return nsteps < 3 ? STENC_OK
                          : device_steps(desc, ctx, stepper, fields, in, out, scalars, nsteps, bc,
                                         degree, made);
    if (nsteps < 2 || !blockable(desc, stepper, fields, in, out, bc)) return STENC_OK;
    stenc_launch_field views[STENC_LAUNCH_MAX_FIELDS];
    stenc_launch_shape shape;
    if (stenc_launch_check(desc, ctx, fields, views, &shape) != STENC_OK ||
        shape.location != STENC_ON_HOST)
        return STENC_OK; /* the plain steps report it, after the first fill as ever */

    const int s = desc->dims - 1;
    const long n = (long)shape.n[s];
    const long reach = desc->args[stepper->in].halo;
    const size_t plane_points = shape.n[0] * (s == 2 ? shape.n[1] : 1);
    if (slab == 0) slab = (long)((slab_points() + plane_points - 1) / plane_points);
    size_t plane_bytes = 0;
    for (int a = 0; a < desc->nargs; a++)
        plane_bytes += (size_t)views[a].stride[s] * arg_elem_size(desc, a);
    if (degree == 0)
        degree = auto_degree(plane_bytes, plane_bytes * (size_t)n, reach, slab, cache_mb);
    if (degree > nsteps) degree = nsteps;
    if (degree < 2) return STENC_OK;

    STENC_TRY(stenc_field_fill_halo(in, bc));
    /* Step g lives in buffers[g % 2]: the plain steps' IN for even g, OUT for odd. */
    stenc_field *const buffers[2] = {in, out};
    char *const origin[2] = {views[stepper->in].origin, views[stepper->out].origin};
    stenc_launch_field slab_views[STENC_LAUNCH_MAX_FIELDS];
    stenc_launch_shape slab_shape = shape;
    for (long g0 = 0; g0 < nsteps; g0 += degree) {
        const long levels = nsteps - g0 < degree ? nsteps - g0 : degree;
        for (long front = 0; front - (levels - 1) * reach < n; front += slab) {
            for (long t = 1; t <= levels; t++) {
                long lo = front - (t - 1) * reach, hi = lo + slab;
                if (lo < 0) lo = 0;
                if (hi > n) hi = n;
                if (lo >= hi) continue;
                const long g = g0 + t; /* the step made: from step g - 1 */
                for (int a = 0; a < desc->nargs; a++) {
                    char *base = views[a].origin;
                    if (a == stepper->in) base = origin[(g - 1) % 2];
                    if (a == stepper->out) base = origin[g % 2];
                    slab_views[a] = views[a];
                    slab_views[a].origin =
                        base + lo * views[a].stride[s] * (ptrdiff_t)arg_elem_size(desc, a);
                }
                slab_shape.n[s] = (size_t)(hi - lo);
                stepper->kernel(&slab_shape, slab_views, scalars);
                if (g < nsteps) stenc_field_fill_halo_slab(buffers[g % 2], bc, lo, hi);
            }
        }
    }
    /* The plain steps swap nsteps times. */
    if (nsteps % 2) STENC_TRY(stenc_field_swap(in, out));
    *made = nsteps;
    last_degree = (int)degree;
    return STENC_OK;
}
