/* NAME_steps with temporal blocking (runtime/launch/steps.c) against the same steps made one
 * by one with stenc_field_fill_halo, a single launch and stenc_field_swap: every byte of every
 * field's allocation (interior, halo and padding, from random contents) equal, for radius 1 and
 * 2, 2-D and 3-D, float and double, odd sizes (some thinner than a slab or than the degree),
 * 0, 1, 2, 7 and 16 steps, every kind of face, degrees and slabs forced through
 * STENC_STEPS_BLOCK and STENC_STEPS_SLAB, one and two OpenMP threads. Cases that cannot be
 * blocked (periodic along the slowest dimension, a body reading k) must report degree 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "st_box27.h"
#include "st_box9.h"
#include "st_heat3d.h"
#include "st_kindex.h"
#include "st_star2_2d.h"
#include "st_star2_3d.h"
#include "stenc/stenc.h"
#include "test_util.h"

static stenc_ctx *ctx;

enum { MAX_FIELDS = 4 };

/* A stepping stencil: f[0] steps in, f[1] out, f[2..] the others in launcher order. */
typedef struct steps_case {
    const char *name;
    int dims, radius, blockable;
    stenc_type type;
    int nfields;
    unsigned axes[MAX_FIELDS]; /* lower-dimensional fields: the dimensions they span */
    stenc_status (*steps)(stenc_field **f, long nsteps, const stenc_bc *bc);
    stenc_status (*once)(stenc_field **f);
} steps_case;

static stenc_status heat_steps(stenc_field **f, long n, const stenc_bc *bc) {
    return st_heat3d_steps(ctx, 0.4, 0.1, f[0], f[1], n, bc);
}
static stenc_status heat_once(stenc_field **f) {
    return st_heat3d(ctx, 0.4, 0.1, f[0], f[1]);
}
static stenc_status box27_steps(stenc_field **f, long n, const stenc_bc *bc) {
    return st_box27_steps(ctx, 0.03, f[0], f[2], f[3], f[1], n, bc);
}
static stenc_status box27_once(stenc_field **f) {
    return st_box27(ctx, 0.03, f[0], f[2], f[3], f[1]);
}
static stenc_status star3_steps(stenc_field **f, long n, const stenc_bc *bc) {
    return st_star2_3d_steps(ctx, 0.05, f[0], f[1], f[2], n, bc);
}
static stenc_status star3_once(stenc_field **f) {
    return st_star2_3d(ctx, 0.05, f[0], f[1], f[2]);
}
static stenc_status box9_steps(stenc_field **f, long n, const stenc_bc *bc) {
    return st_box9_steps(ctx, 0.01, 0.8, f[0], f[2], f[1], n, bc);
}
static stenc_status box9_once(stenc_field **f) {
    return st_box9(ctx, 0.01, 0.8, f[0], f[2], f[1]);
}
static stenc_status star2_steps(stenc_field **f, long n, const stenc_bc *bc) {
    return st_star2_2d_steps(ctx, 0.06, f[0], f[1], n, bc);
}
static stenc_status star2_once(stenc_field **f) {
    return st_star2_2d(ctx, 0.06, f[0], f[1]);
}
static stenc_status kindex_steps(stenc_field **f, long n, const stenc_bc *bc) {
    return st_kindex_steps(ctx, 0.2, f[0], f[1], n, bc);
}
static stenc_status kindex_once(stenc_field **f) {
    return st_kindex(ctx, 0.2, f[0], f[1]);
}

static const steps_case cases[] = {
    {"st_heat3d", 3, 1, 1, STENC_F64, 2, {0}, heat_steps, heat_once},
    {"st_box27", 3, 1, 1, STENC_F32, 4, {0, 0, 0, 4u}, box27_steps, box27_once},
    {"st_star2_3d", 3, 2, 1, STENC_F64, 3, {0}, star3_steps, star3_once},
    {"st_box9", 2, 1, 1, STENC_F64, 3, {0}, box9_steps, box9_once},
    {"st_star2_2d", 2, 2, 1, STENC_F32, 2, {0}, star2_steps, star2_once},
    {"st_kindex", 3, 1, 0, STENC_F32, 2, {0}, kindex_steps, kindex_once},
};

/* Face sets; the last one is periodic along the slowest dimension (k in 3-D, j in 2-D). */
enum { NBC = 5 };
static void face_set(int which, int dims, stenc_bc bc[STENC_FACE_COUNT]) {
    const stenc_bc none = {STENC_BC_NONE, 0}, per = {STENC_BC_PERIODIC, 0},
                   neu = {STENC_BC_NEUMANN, 0};
    const int s = dims - 1;
    for (int f = 0; f < STENC_FACE_COUNT; f++)
        bc[f] = (stenc_bc){STENC_BC_DIRICHLET, 0.25 * f - 0.5};
    switch (which) {
    case 0: /* Dirichlet everywhere, a value per face */
        break;
    case 1: /* Neumann everywhere */
        for (int f = 0; f < STENC_FACE_COUNT; f++)
            bc[f] = neu;
        break;
    case 2: /* periodic across, Neumann below and Dirichlet above along the slowest */
        for (int d = 0; d < s; d++)
            bc[2 * d] = bc[2 * d + 1] = per;
        bc[2 * s] = neu;
        break;
    case 3: /* faces left alone: their halo keeps whatever it held */
        bc[0] = none, bc[3] = neu, bc[2 * s] = none;
        if (dims == 3) bc[2] = none;
        break;
    default: /* periodic along the slowest: never blocked */
        bc[0] = neu;
        bc[2 * s] = bc[2 * s + 1] = per;
        break;
    }
}

/* The whole allocation: interior, halo and row padding. */
static unsigned char *storage(const stenc_field *f, size_t *bytes) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    const size_t elem = stenc_type_size(L.type);
    *bytes = L.alloc_elems * elem;
    return (unsigned char *)stenc_field_host_origin(f) - L.origin_elems * elem;
}

static void randomize(stenc_field *f, test_rng *rng) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    size_t bytes;
    unsigned char *p = storage(f, &bytes);
    for (size_t e = 0; e < L.alloc_elems; e++) {
        const double v = test_rng_uniform(rng, -1, 1);
        if (L.type == STENC_F32)
            ((float *)p)[e] = (float)v;
        else
            ((double *)p)[e] = v;
    }
}

typedef struct field_set {
    stenc_field *f[MAX_FIELDS];
} field_set;

static field_set make_set(const steps_case *c, const size_t n[3], int halo, uint64_t seed) {
    field_set s = {{NULL}};
    test_rng rng = test_rng_seeded(seed);
    for (int a = 0; a < c->nfields; a++) {
        if (c->axes[a] == 4u) /* w[k]: one value per plane */
            assert_stenc_ok(stenc_field_create(ctx, &s.f[a], c->type, 1, n[2], 1, 1, 0));
        else
            assert_stenc_ok(stenc_field_create(ctx, &s.f[a], c->type, c->dims, n[0], n[1],
                                               c->dims == 3 ? n[2] : 1, halo));
        randomize(s.f[a], &rng);
    }
    return s;
}

static void free_set(const steps_case *c, field_set *s) {
    for (int a = 0; a < c->nfields; a++)
        assert_stenc_ok(stenc_field_free(s->f[a]));
}

/* Every byte of every field the same, else a message naming the first difference. */
static void expect_same(const steps_case *c, const field_set *got, const field_set *want,
                        const char *what) {
    for (int a = 0; a < c->nfields; a++) {
        size_t bytes, bytes_w;
        const unsigned char *g = storage(got->f[a], &bytes), *w = storage(want->f[a], &bytes_w);
        assert_int_equal(bytes, bytes_w);
        for (size_t b = 0; b < bytes; b++)
            if (g[b] != w[b])
                fail_msg("%s: field %d differs from the plain steps at byte %zu of %zu (%s)",
                         c->name, a, b, bytes, what);
    }
}

static void set_env(const char *name, long value) {
    char text[32];
    snprintf(text, sizeof text, "%ld", value);
    assert_int_equal(setenv(name, text, 1), 0);
}

/* One configuration: blocked against plain, every byte, and the degree reported. */
static void check_one(const steps_case *c, const size_t n[3], int halo, long nsteps, int which,
                      long degree, long slab) {
    stenc_bc bc[STENC_FACE_COUNT];
    face_set(which, c->dims, bc);
    const uint64_t seed = 1000003u * (uint64_t)nsteps + 7919u * (uint64_t)which + n[0] + n[2];
    field_set blocked = make_set(c, n, halo, seed), plain = make_set(c, n, halo, seed);
    set_env("STENC_STEPS_BLOCK", degree);
    set_env("STENC_STEPS_SLAB", slab);
    assert_stenc_ok(c->steps(blocked.f, nsteps, bc));
    const int blocks = c->blockable && which != NBC - 1 && nsteps >= 2;
    const long want = blocks ? (degree < nsteps ? degree : nsteps) : 1;
    char what[160];
    snprintf(what, sizeof what, "%zux%zux%zu halo %d, %ld steps, faces %d, degree %ld, slab %ld",
             n[0], n[1], n[2], halo, nsteps, which, degree, slab);
    if (stenc_launch_steps_last_degree() != want)
        fail_msg("%s: degree %d, expected %ld (%s)", c->name, stenc_launch_steps_last_degree(),
                 want, what);
    for (long s = 0; s < nsteps; s++) {
        assert_stenc_ok(stenc_field_fill_halo(plain.f[0], bc));
        assert_stenc_ok(c->once(plain.f));
        assert_stenc_ok(stenc_field_swap(plain.f[0], plain.f[1]));
    }
    expect_same(c, &blocked, &plain, what);
    free_set(c, &blocked), free_set(c, &plain);
}

static void run_case(const steps_case *c, int threads) {
#ifdef _OPENMP
    omp_set_num_threads(threads);
#else
    (void)threads;
#endif
    /* Odd sizes; slowest extents of 1 and 2 lie under every degree and slab. */
    static const size_t sizes3[][3] = {{1, 1, 1}, {5, 3, 2}, {13, 6, 9}, {17, 11, 19}, {3, 2, 33}};
    static const size_t sizes2[][3] = {{1, 1, 1}, {7, 2, 1}, {33, 9, 1}, {19, 41, 1}, {2, 65, 1}};
    static const long nsteps[] = {0, 1, 2, 7, 16};
    static const long degrees[][2] = {{2, 1}, {3, 2}, {5, 1}, {16, 3}, {4, 64}};
    for (int z = 0; z < 5; z++) {
        const size_t *n = c->dims == 3 ? sizes3[z] : sizes2[z];
        const int halo = c->radius + z % 2; /* some wider than the stencil reads */
        for (int s = 0; s < 5; s++)
            for (int which = 0; which < NBC; which++)
                for (int d = 0; d < 5; d++)
                    check_one(c, n, halo, nsteps[s], which, degrees[d][0], degrees[d][1]);
    }
}

static void test_blocked_one_thread(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], 1);
}

static void test_blocked_two_threads(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], 2);
}

/* Automatic degree: a field that fits the cache takes its steps one by one; one that does not
 * is blocked, with the same bits. STENC_STEPS_BLOCK=1 turns blocking off. */
static void test_auto_degree(void **state) {
    (void)state;
    const steps_case *c = &cases[0];
    stenc_bc bc[STENC_FACE_COUNT];
    face_set(2, 3, bc);
    assert_int_equal(unsetenv("STENC_STEPS_BLOCK"), 0);
    assert_int_equal(unsetenv("STENC_STEPS_SLAB"), 0);
    /* the budget the machine's cache would give, fixed so that the sizes below mean the same */
    assert_int_equal(setenv("STENC_STEPS_CACHE_MB", "16", 1), 0);
    omp_set_num_threads(2); /* blocking is automatic with few threads only */
    const size_t small[3] = {9, 8, 7}, large[3] = {129, 131, 67}; /* 9 MB per field */
    field_set a = make_set(c, small, 1, 5), b = make_set(c, small, 1, 5);
    assert_stenc_ok(c->steps(a.f, 3, bc));
    assert_int_equal(stenc_launch_steps_last_degree(), 1);
    free_set(c, &a), free_set(c, &b);
    a = make_set(c, large, 1, 6), b = make_set(c, large, 1, 6);
    assert_stenc_ok(c->steps(a.f, 9, bc));
    assert_true(stenc_launch_steps_last_degree() > 1);
    for (int s = 0; s < 9; s++) {
        assert_stenc_ok(stenc_field_fill_halo(b.f[0], bc));
        assert_stenc_ok(c->once(b.f));
        assert_stenc_ok(stenc_field_swap(b.f[0], b.f[1]));
    }
    expect_same(c, &a, &b, "automatic degree");
    assert_int_equal(setenv("STENC_STEPS_BLOCK", "1", 1), 0);
    assert_stenc_ok(c->steps(a.f, 2, bc));
    assert_int_equal(stenc_launch_steps_last_degree(), 1);
    assert_int_equal(unsetenv("STENC_STEPS_BLOCK"), 0);
    /* a budget far above the fields' bytes: they fit, and take the plain steps */
    assert_int_equal(setenv("STENC_STEPS_CACHE_MB", "1024", 1), 0);
    assert_stenc_ok(c->steps(a.f, 2, bc));
    assert_int_equal(stenc_launch_steps_last_degree(), 1);
    assert_int_equal(unsetenv("STENC_STEPS_CACHE_MB"), 0);
    /* many threads: the plain steps unless forced (thin slabs, which would block otherwise) */
    assert_int_equal(setenv("STENC_STEPS_CACHE_MB", "16", 1), 0);
    assert_int_equal(setenv("STENC_STEPS_SLAB", "1", 1), 0);
    omp_set_num_threads(16);
    assert_stenc_ok(c->steps(a.f, 9, bc));
    assert_int_equal(stenc_launch_steps_last_degree(), 1);
    assert_int_equal(setenv("STENC_STEPS_BLOCK", "4", 1), 0);
    assert_stenc_ok(c->steps(a.f, 9, bc));
    assert_int_equal(stenc_launch_steps_last_degree(), 4);
    assert_int_equal(unsetenv("STENC_STEPS_BLOCK"), 0);
    assert_int_equal(unsetenv("STENC_STEPS_CACHE_MB"), 0);
    assert_int_equal(unsetenv("STENC_STEPS_SLAB"), 0);
    omp_set_num_threads(2);
    free_set(c, &a), free_set(c, &b);
}

/* A bad STENC_STEPS_BLOCK, STENC_STEPS_SLAB or STENC_STEPS_CACHE_MB is refused, naming the
 * variable, before anything is written. */
static void test_bad_env(void **state) {
    (void)state;
    const steps_case *c = &cases[3];
    stenc_bc bc[STENC_FACE_COUNT];
    face_set(0, 2, bc);
    const size_t n[3] = {5, 4, 1};
    field_set a = make_set(c, n, 1, 9), b = make_set(c, n, 1, 9);
    static const char *bad[][2] = {{"STENC_STEPS_BLOCK", "0"},    {"STENC_STEPS_BLOCK", "65"},
                                   {"STENC_STEPS_BLOCK", "4x"},   {"STENC_STEPS_BLOCK", "-2"},
                                   {"STENC_STEPS_SLAB", "0"},     {"STENC_STEPS_SLAB", "many"},
                                   {"STENC_STEPS_CACHE_MB", "0"}, {"STENC_STEPS_CACHE_MB", "1e3"}};
    for (size_t v = 0; v < sizeof bad / sizeof bad[0]; v++) {
        assert_int_equal(unsetenv("STENC_STEPS_BLOCK"), 0);
        assert_int_equal(unsetenv("STENC_STEPS_SLAB"), 0);
        assert_int_equal(unsetenv("STENC_STEPS_CACHE_MB"), 0);
        assert_int_equal(setenv(bad[v][0], bad[v][1], 1), 0);
        assert_int_equal(c->steps(a.f, 3, bc), STENC_ERR_INVALID_ARGUMENT);
        if (!strstr(stenc_last_error(), bad[v][0]))
            fail_msg("the message does not name %s: %s", bad[v][0], stenc_last_error());
        expect_same(c, &a, &b, "refused");
    }
    assert_int_equal(unsetenv("STENC_STEPS_BLOCK"), 0);
    assert_int_equal(unsetenv("STENC_STEPS_SLAB"), 0);
    assert_int_equal(unsetenv("STENC_STEPS_CACHE_MB"), 0);
    free_set(c, &a), free_set(c, &b);
}

static int setup(void **state) {
    (void)state;
    return stenc_ctx_create(&ctx, STENC_DEVICE_CPU) == STENC_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return stenc_ctx_destroy(ctx) == STENC_OK ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocked_one_thread),
        cmocka_unit_test(test_blocked_two_threads),
        cmocka_unit_test(test_auto_degree),
        cmocka_unit_test(test_bad_env),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
