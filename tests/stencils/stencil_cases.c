/* The stencil descriptions (stencil_cases.h) and the comparison helpers. */
#include "stencil_cases.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reference.h"

/* splitmix64, as in tests/common/test_util.h (kept local so the benchmark needs no cmocka). */
static uint64_t mix_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double mix_uniform(uint64_t *state, double lo, double hi) {
    return lo + (hi - lo) * (double)(mix_next(state) >> 11) * 0x1.0p-53;
}

/* Calls f(ptr, user) for every element of the box interior+halo, ptr to a float or double. */
#define FOR_EACH_BOX_POINT(field, L, body)                                                         \
    do {                                                                                           \
        long h0_ = (L).halo, h1_ = (L).dims >= 2 ? (L).halo : 0,                                   \
             h2_ = (L).dims >= 3 ? (L).halo : 0;                                                   \
        for (long k = -h2_; k < (long)(L).n[2] + h2_; k++)                                         \
            for (long j = -h1_; j < (long)(L).n[1] + h1_; j++)                                     \
                for (long i = -h0_; i < (long)(L).n[0] + h0_; i++) {                               \
                    ptrdiff_t off = i + j * (L).stride[1] + k * (L).stride[2];                     \
                    body;                                                                          \
                }                                                                                  \
    } while (0)

static void set_value(stenc_field *field, const stenc_field_layout *L, ptrdiff_t off, double v) {
    if (L->type == STENC_F32)
        ((float *)stenc_field_host_origin(field))[off] = (float)v;
    else
        ((double *)stenc_field_host_origin(field))[off] = v;
}

static double get_value(const stenc_field *field, const stenc_field_layout *L, ptrdiff_t off) {
    if (L->type == STENC_F32) return ((const float *)stenc_field_host_origin(field))[off];
    return ((const double *)stenc_field_host_origin(field))[off];
}

void stencil_fill_uniform(stenc_field *field, uint64_t seed, double lo, double hi) {
    stenc_field_layout L;
    stenc_field_get_layout(field, &L);
    uint64_t state = seed * 0x2545F4914F6CDD1Dull + 7;
    FOR_EACH_BOX_POINT(field, L, set_value(field, &L, off, mix_uniform(&state, lo, hi)));
}

size_t stencil_count_written_halo(const stenc_field *field) {
    stenc_field_layout L;
    stenc_field_get_layout(field, &L);
    size_t written = 0;
    FOR_EACH_BOX_POINT(field, L, {
        int interior =
            i >= 0 && i < (long)L.n[0] && j >= 0 && j < (long)L.n[1] && k >= 0 && k < (long)L.n[2];
        if (!interior && !isnan(get_value(field, &L, off))) written++;
    });
    return written;
}

static uint64_t ulps_f32(float a, float b) {
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0) ia = INT32_MIN - ia;
    if (ib < 0) ib = INT32_MIN - ib;
    int64_t d = (int64_t)ia - (int64_t)ib;
    return (uint64_t)(d < 0 ? -d : d);
}

static uint64_t ulps_f64(double a, double b) {
    int64_t ia, ib;
    memcpy(&ia, &a, 8);
    memcpy(&ib, &b, 8);
    if (ia < 0) ia = INT64_MIN - ia;
    if (ib < 0) ib = INT64_MIN - ib;
    return ia > ib ? (uint64_t)ia - (uint64_t)ib : (uint64_t)ib - (uint64_t)ia;
}

stenc_field *stencil_heat3d_steps_reference(double a, double b, const stenc_bc bc[6],
                                            stenc_field *x, stenc_field *y, int nsteps) {
    stenc_field *cur = x, *next = y;
    for (int s = 0; s < nsteps; s++) {
        if (stenc_field_fill_halo(cur, bc) != STENC_OK || ref_heat3d(a, b, cur, next) != STENC_OK)
            return NULL;
        stenc_field *t = cur;
        cur = next, next = t;
    }
    return cur;
}

size_t stencil_compare_interior(const stenc_field *got, const stenc_field *want, uint64_t max_ulps,
                                char *msg, size_t msg_size) {
    stenc_field_layout G, W;
    stenc_field_get_layout(got, &G);
    stenc_field_get_layout(want, &W);
    if (msg_size) msg[0] = '\0';
    if (G.type != W.type || G.n[0] != W.n[0] || G.n[1] != W.n[1] || G.n[2] != W.n[2]) {
        snprintf(msg, msg_size, "fields differ in type or shape");
        return (size_t)-1;
    }
    size_t bad = 0;
    for (long k = 0; k < (long)G.n[2]; k++)
        for (long j = 0; j < (long)G.n[1]; j++)
            for (long i = 0; i < (long)G.n[0]; i++) {
                double g = get_value(got, &G, i + j * G.stride[1] + k * G.stride[2]);
                double w = get_value(want, &W, i + j * W.stride[1] + k * W.stride[2]);
                uint64_t d = isnan(g) || isnan(w)  ? UINT64_MAX
                             : G.type == STENC_F32 ? ulps_f32((float)g, (float)w)
                                                   : ulps_f64(g, w);
                if (d <= max_ulps) continue;
                if (bad++ == 0)
                    snprintf(msg, msg_size, "(%ld,%ld,%ld): got %.9g, want %.9g (%llu ulps)", i, j,
                             k, g, w, (unsigned long long)d);
            }
    return bad;
}

stenc_status stencil_case_create(stenc_ctx *ctx, const stencil_case *c, const size_t n[3], int halo,
                                 stenc_field **fields) {
    int count = c->ninputs + c->noutputs;
    for (int a = 0; a < count; a++)
        fields[a] = NULL;
    for (int a = 0; a < count; a++) {
        stenc_status st =
            stenc_field_create(ctx, &fields[a], c->type, c->dims, n[0], n[1], n[2], halo);
        if (st != STENC_OK) {
            stencil_case_free(c, fields);
            return st;
        }
    }
    return STENC_OK;
}

void stencil_case_free(const stencil_case *c, stenc_field **fields) {
    for (int a = 0; a < c->ninputs + c->noutputs; a++) {
        stenc_field_free(fields[a]);
        fields[a] = NULL;
    }
}

/* ---- randomizers ------------------------------------------------------------------------- */

static void random_signed(stenc_field *const *in, int nin, uint64_t seed) {
    for (int a = 0; a < nin; a++)
        stencil_fill_uniform(in[a], seed + (uint64_t)a, -1, 1);
}

static void random_cells(stenc_field *const *in, int nin, uint64_t seed) {
    (void)nin;
    stenc_field_layout L;
    stenc_field_get_layout(in[0], &L);
    uint64_t state = seed;
    FOR_EACH_BOX_POINT(in[0], L, set_value(in[0], &L, off, mix_uniform(&state, 0, 1) < 0.4));
}

/* A gas at rest-ish with pressure noise, so that the smoothing sensor is on at some points
 * and off at others (sensor_min sits inside the sensor's range). */
static void random_gas(stenc_field *const *in, int nin, uint64_t seed) {
    (void)nin;
    stencil_fill_uniform(in[0], seed + 0, 0.8, 1.2);  /* ro */
    stencil_fill_uniform(in[1], seed + 1, -0.3, 0.3); /* rovx */
    stencil_fill_uniform(in[2], seed + 2, -0.3, 0.3); /* rovy */
    stencil_fill_uniform(in[3], seed + 3, 2.0, 3.0);  /* roe */
}

/* ---- runners ----------------------------------------------------------------------------- */

static stenc_status ref_heat3d_run(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    (void)ctx;
    return ref_heat3d(s[0], s[1], f[0], f[1]);
}
static stenc_status ref_jacobi2d_run(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    (void)ctx;
    return ref_jacobi2d(s[0], f[0], f[1], f[2]);
}
static stenc_status ref_residual2d_run(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    (void)ctx;
    return ref_residual2d(s[0], f[0], f[1], f[2]);
}
static stenc_status ref_varcoef27_run(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    (void)ctx, (void)s;
    return ref_varcoef27(f[0], (const stenc_field *const *)&f[1], f[28]);
}
static stenc_status ref_life_run(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    (void)ctx, (void)s;
    return ref_life(f[0], f[1]);
}
static stenc_status ref_euler_flux_run(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    (void)ctx;
    return ref_euler_flux(s[0], s[1], s[2], s[3], f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
}
static stenc_status ref_wave_r2_run(stenc_ctx *ctx, const double *s, stenc_field *const *f) {
    (void)ctx;
    return ref_wave_r2(s[0], f[0], f[1], f[2]);
}

#define VARCOEF_NAMES                                                                              \
    "u", "cmmm", "c0mm", "cpmm", "cm0m", "c00m", "cp0m", "cmpm", "c0pm", "cppm", "cmm0", "c0m0",   \
        "cpm0", "cm00", "c000", "cp00", "cmp0", "c0p0", "cpp0", "cmmp", "c0mp", "cpmp", "cm0p",    \
        "c00p", "cp0p", "cmpp", "c0pp", "cppp", "y"

static stencil_case cases[] = {
    {"heat3d",
     STENC_F32,
     3,
     1,
     2,
     1,
     1,
     {"a", "b"},
     {"x", "y"},
     {0.22, 0.13},
     random_signed,
     ref_heat3d_run,
     NULL},
    {"jacobi2d",
     STENC_F64,
     2,
     1,
     1,
     2,
     1,
     {"h2"},
     {"u", "f", "u_new"},
     {1.0 / 289},
     random_signed,
     ref_jacobi2d_run,
     NULL},
    {"residual2d",
     STENC_F64,
     2,
     1,
     1,
     2,
     1,
     {"inv_h2"},
     {"u", "f", "r"},
     {289.0},
     random_signed,
     ref_residual2d_run,
     NULL},
    {"varcoef27",
     STENC_F32,
     3,
     1,
     0,
     28,
     1,
     {NULL},
     {VARCOEF_NAMES},
     {0},
     random_signed,
     ref_varcoef27_run,
     NULL},
    {"life",
     STENC_F32,
     2,
     1,
     0,
     1,
     1,
     {NULL},
     {"cell", "next"},
     {0},
     random_cells,
     ref_life_run,
     NULL},
    {"euler_flux",
     STENC_F32,
     3,
     1,
     4,
     4,
     4,
     {"gm1", "dt_dx", "k2", "sensor_min"},
     {"ro", "rovx", "rovy", "roe", "dro", "drovx", "drovy", "droe"},
     {0.4, 0.1, 0.5, 0.05},
     random_gas,
     ref_euler_flux_run,
     NULL},
    {"wave_r2",
     STENC_F32,
     3,
     2,
     1,
     2,
     1,
     {"c2"},
     {"u", "u_prev", "u_next"},
     {0.1},
     random_signed,
     ref_wave_r2_run,
     NULL},
};

const stencil_case *stencil_cases(int *count) {
    static int linked = 0;
    if (!linked) {
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
            cases[c].generated = stencil_generated_runner(cases[c].name);
        linked = 1;
    }
    *count = (int)(sizeof cases / sizeof *cases);
    return cases;
}

const stencil_case *stencil_case_find(const char *name) {
    int count;
    const stencil_case *all = stencil_cases(&count);
    for (int c = 0; c < count; c++)
        if (strcmp(all[c].name, name) == 0) return &all[c];
    return NULL;
}
