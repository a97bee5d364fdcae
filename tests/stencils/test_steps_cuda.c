/* NAME_steps on a CUDA device, where generated kernels make several steps per trip (temporal
 * blocking, docs/cuda.md), against the same steps made one by one on the host with the
 * generated C kernel (stenc_field_fill_halo, one launch, stenc_field_swap) and against
 * NAME_steps on the device with STENC_STEPS_BLOCK=1: every byte of every field's allocation
 * (interior, halo and padding, from random contents) equal. The .cu files are built with
 * -fmad=false, so the GPU rounds like the C kernel. Radius 1 and 2, 2-D and 3-D, float and
 * double, odd sizes (1x1x1, smaller than a tile, wider than a block, more planes than a
 * chunk), halo = radius and radius + 1, 0 to 16 steps, every mix of Dirichlet and Neumann
 * faces (blocked: degree >= 2 from 3 steps on) and periodic or NONE faces (degree 1).
 * The degrees each stencil has may change: the test only asks for 2 <= degree <=
 * STENC_STEPS_BLOCK, short of nsteps (the last step is a plain one). Another input that is
 * IN itself takes the plain steps. GPU test: skipped without a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "st_box27.h"
#include "st_box9.h"
#include "st_cross2d.h"
#include "st_heat3d.h"
#include "st_kindex.h"
#include "st_star2_2d.h"
#include "st_star2_3d.h"
#include "stenc/tune.h"
#include "test_util.h"

static stenc_ctx *gpu, *host;

enum { MAX_FIELDS = 4 };

/* A stepping stencil: f[0] steps in, f[1] out, f[2..] the others in launcher order. */
typedef struct steps_case {
    const char *name;
    int dims, radius;
    /* 0: the device may or may not block it (st_kindex reads k): only its bits are checked */
    int must_block;
    /* 1: blocked with nothing asked (docs/cuda.md, "Temporal blocking"): the 2-D stencils, and the
     * 3-D stars of radius 1 that read IN alone */
    int unasked;
    stenc_type type;
    const char *field_names[MAX_FIELDS]; /* as declared; NULL past the last field */
    unsigned axes[MAX_FIELDS];           /* lower-dimensional fields: the dimensions they span */
    stenc_status (*steps)(stenc_ctx *ctx, stenc_field **f, long nsteps, const stenc_bc *bc);
    stenc_status (*once)(stenc_ctx *ctx, stenc_field **f);
} steps_case;

static stenc_status heat_steps(stenc_ctx *ctx, stenc_field **f, long n, const stenc_bc *bc) {
    return st_heat3d_steps(ctx, 0.4, 0.1, f[0], f[1], n, bc);
}
static stenc_status heat_once(stenc_ctx *ctx, stenc_field **f) {
    return st_heat3d(ctx, 0.4, 0.1, f[0], f[1]);
}
static stenc_status box27_steps(stenc_ctx *ctx, stenc_field **f, long n, const stenc_bc *bc) {
    return st_box27_steps(ctx, 0.03, f[0], f[2], f[3], f[1], n, bc);
}
static stenc_status box27_once(stenc_ctx *ctx, stenc_field **f) {
    return st_box27(ctx, 0.03, f[0], f[2], f[3], f[1]);
}
static stenc_status star3_steps(stenc_ctx *ctx, stenc_field **f, long n, const stenc_bc *bc) {
    return st_star2_3d_steps(ctx, 0.05, f[0], f[1], f[2], n, bc);
}
static stenc_status star3_once(stenc_ctx *ctx, stenc_field **f) {
    return st_star2_3d(ctx, 0.05, f[0], f[1], f[2]);
}
static stenc_status box9_steps(stenc_ctx *ctx, stenc_field **f, long n, const stenc_bc *bc) {
    return st_box9_steps(ctx, 0.01, 0.8, f[0], f[2], f[1], n, bc);
}
static stenc_status box9_once(stenc_ctx *ctx, stenc_field **f) {
    return st_box9(ctx, 0.01, 0.8, f[0], f[2], f[1]);
}
static stenc_status star2_steps(stenc_ctx *ctx, stenc_field **f, long n, const stenc_bc *bc) {
    return st_star2_2d_steps(ctx, 0.06, f[0], f[1], n, bc);
}
static stenc_status star2_once(stenc_ctx *ctx, stenc_field **f) {
    return st_star2_2d(ctx, 0.06, f[0], f[1]);
}
static stenc_status cross_steps(stenc_ctx *ctx, stenc_field **f, long n, const stenc_bc *bc) {
    return st_cross2d_steps(ctx, 0.1, f[0], f[2], f[1], n, bc);
}
static stenc_status cross_once(stenc_ctx *ctx, stenc_field **f) {
    return st_cross2d(ctx, 0.1, f[0], f[2], f[1]);
}
static stenc_status kindex_steps(stenc_ctx *ctx, stenc_field **f, long n, const stenc_bc *bc) {
    return st_kindex_steps(ctx, 0.2, f[0], f[1], n, bc);
}
static stenc_status kindex_once(stenc_ctx *ctx, stenc_field **f) {
    return st_kindex(ctx, 0.2, f[0], f[1]);
}

enum {
    CASE_HEAT3D,
    CASE_BOX27,
    CASE_STAR2_3D,
    CASE_BOX9,
    CASE_STAR2_2D,
    CASE_CROSS2D,
    CASE_KINDEX,
    NCASES
};

/* In the order of the enum above. */
static const steps_case cases[NCASES] = {
    {"st_heat3d", 3, 1, 1, 1, STENC_F64, {"x", "y"}, {0}, heat_steps, heat_once},
    {"st_box27",
     3,
     1,
     1,
     0,
     STENC_F32,
     {"x", "y", "c", "w"},
     {0, 0, 0, 4u},
     box27_steps,
     box27_once},
    {"st_star2_3d", 3, 2, 1, 0, STENC_F64, {"u", "v", "g"}, {0}, star3_steps, star3_once},
    {"st_box9", 2, 1, 1, 1, STENC_F64, {"u", "un", "f"}, {0}, box9_steps, box9_once},
    {"st_star2_2d", 2, 2, 1, 1, STENC_F32, {"u", "v"}, {0}, star2_steps, star2_once},
    {"st_cross2d", 2, 2, 1, 1, STENC_F32, {"u", "v", "f"}, {0}, cross_steps, cross_once},
    {"st_kindex", 3, 1, 0, 0, STENC_F32, {"x", "y"}, {0}, kindex_steps, kindex_once},
};

/* The number of fields of a case: its named ones. */
static int nfields(const steps_case *c) {
    int a = 0;
    while (a < MAX_FIELDS && c->field_names[a])
        a++;
    return a;
}

/* ---- faces ------------------------------------------------------------------------------ */

/* Face sets. The first FACES_BLOCKED are Dirichlet and Neumann only, which the device blocks;
 * the others have a periodic or NONE face, whose steps are made one by one. */
enum {
    FACES_DIRICHLET, /* a value per face */
    FACES_NEUMANN,   /* 2-D: the unused k faces say PERIODIC, which must not matter */
    FACES_DIR_I,     /* Dirichlet along i, Neumann along the slowest; j mixed in 3-D */
    FACES_NEU_I,     /* the reverse */
    FACES_LOHI,      /* each dimension Neumann below and Dirichlet above, or the reverse */
    FACES_BLOCKED,   /* (count) */
    FACES_PERIODIC_I = FACES_BLOCKED, /* periodic across every dimension but the slowest */
    FACES_PERIODIC_J,                 /* 3-D: periodic along j only; 2-D: along both */
    FACES_PERIODIC_S,                 /* periodic along the slowest */
    FACES_NONE,                       /* faces left alone: their halo keeps whatever it held */
    NFACES
};

static const char *const face_names[NFACES] = {"dirichlet",
                                               "neumann",
                                               "dirichlet-i/neumann-slowest",
                                               "neumann-i/dirichlet-slowest",
                                               "lo/hi mix",
                                               "periodic-i",
                                               "periodic-j",
                                               "periodic-slowest",
                                               "none"};

static void face_set(int which, int dims, stenc_bc bc[STENC_FACE_COUNT]) {
    const stenc_bc none = {STENC_BC_NONE, 0}, per = {STENC_BC_PERIODIC, 0},
                   neu = {STENC_BC_NEUMANN, 0};
    const int s = dims - 1;
    for (int f = 0; f < STENC_FACE_COUNT; f++)
        bc[f] = (stenc_bc){STENC_BC_DIRICHLET, 0.25 * f - 0.625};
    switch (which) {
    case FACES_DIRICHLET:
        break;
    case FACES_NEUMANN:
        for (int f = 0; f < 2 * dims; f++)
            bc[f] = neu;
        for (int f = 2 * dims; f < STENC_FACE_COUNT; f++)
            bc[f] = per;
        break;
    case FACES_DIR_I:
        bc[2 * s] = bc[2 * s + 1] = neu;
        if (dims == 3) bc[STENC_FACE_J_HI] = neu;
        break;
    case FACES_NEU_I:
        bc[STENC_FACE_I_LO] = bc[STENC_FACE_I_HI] = neu;
        if (dims == 3) bc[STENC_FACE_J_LO] = neu;
        break;
    case FACES_LOHI:
        for (int d = 0; d < dims; d++)
            bc[2 * d + d % 2] = neu;
        break;
    case FACES_PERIODIC_I:
        for (int d = 0; d < s; d++)
            bc[2 * d] = bc[2 * d + 1] = per;
        bc[2 * s] = neu;
        break;
    case FACES_PERIODIC_J:
        bc[STENC_FACE_J_LO] = bc[STENC_FACE_J_HI] = per;
        if (dims == 2)
            bc[STENC_FACE_I_LO] = bc[STENC_FACE_I_HI] = per;
        else
            bc[STENC_FACE_I_HI] = bc[STENC_FACE_K_LO] = neu;
        break;
    case FACES_PERIODIC_S:
        bc[STENC_FACE_I_LO] = neu;
        bc[2 * s] = bc[2 * s + 1] = per;
        break;
    default: /* FACES_NONE */
        bc[STENC_FACE_I_HI] = none, bc[STENC_FACE_J_LO] = neu, bc[2 * s] = none;
        break;
    }
}

/* ---- fields ----------------------------------------------------------------------------- */

/* The whole allocation of the host copy: interior, halo and row padding. */
static unsigned char *storage(const stenc_field *f, stenc_field_layout *L, size_t *bytes) {
    assert_stenc_ok(stenc_field_get_layout(f, L));
    const size_t elem = stenc_type_size(L->type);
    *bytes = L->alloc_elems * elem;
    return (unsigned char *)stenc_field_host_origin(f) - L->origin_elems * elem;
}

typedef struct field_set {
    int nfields;
    stenc_field *f[MAX_FIELDS];
} field_set;

/* The starting contents of a set: every byte of each field's allocation. */
typedef struct snapshot {
    int nfields;
    unsigned char *bytes[MAX_FIELDS];
    size_t size[MAX_FIELDS];
} snapshot;

static field_set make_set(stenc_ctx *ctx, const steps_case *c, const size_t n[3], int halo) {
    field_set s = {nfields(c), {NULL}};
    for (int a = 0; a < nfields(c); a++) {
        if (c->axes[a] == 4u) /* w[k]: one value per plane */
            assert_stenc_ok(stenc_field_create(ctx, &s.f[a], c->type, 1, n[2], 1, 1, 0));
        else
            assert_stenc_ok(stenc_field_create(ctx, &s.f[a], c->type, c->dims, n[0], n[1],
                                               c->dims == 3 ? n[2] : 1, halo));
    }
    return s;
}

static void free_set(field_set *s) {
    for (int a = 0; a < s->nfields; a++)
        assert_stenc_ok(stenc_field_free(s->f[a]));
}

/* Random values over the whole allocation of a host set, kept to load other sets with. */
enum { INTERIOR, HALO, PADDING, NREGIONS };
static int locate(const stenc_field_layout *L, size_t e, long p[3]);

/* Random values over every field's whole allocation, kept as the start of a run. IN's and
 * OUT's row padding (f[0], f[1]) get the same values: a device kernel making d steps swaps
 * their storage once where the plain steps swap d times, so the padding, which nothing writes,
 * may end in the other field (docs/cuda.md); a write into it still shows. */
static snapshot randomize(const field_set *s, uint64_t seed) {
    snapshot snap = {s->nfields, {NULL}, {0}};
    test_rng rng = test_rng_seeded(seed);
    for (int a = 0; a < s->nfields; a++) {
        stenc_field_layout L;
        unsigned char *p = storage(s->f[a], &L, &snap.size[a]);
        for (size_t e = 0; e < L.alloc_elems; e++) {
            long at[3];
            const double v = test_rng_uniform(&rng, -1, 1);
            if (a == 1 && locate(&L, e, at) == PADDING) continue; /* f[0]'s, below */
            if (L.type == STENC_F32)
                ((float *)p)[e] = (float)v;
            else
                ((double *)p)[e] = v;
        }
        if (a == 1) {
            size_t bytes0;
            stenc_field_layout L0;
            const unsigned char *p0 = storage(s->f[0], &L0, &bytes0);
            const size_t elem = stenc_type_size(L.type);
            for (size_t e = 0; e < L.alloc_elems; e++) {
                long at[3];
                if (locate(&L, e, at) == PADDING) memcpy(p + e * elem, p0 + e * elem, elem);
            }
        }
        snap.bytes[a] = malloc(snap.size[a]);
        assert_non_null(snap.bytes[a]);
        memcpy(snap.bytes[a], p, snap.size[a]);
    }
    return snap;
}

static void free_snapshot(snapshot *snap) {
    for (int a = 0; a < snap->nfields; a++)
        free(snap->bytes[a]);
}

/* Put the snapshot's bytes in every field of s, then move them where the context computes. */
static void load(field_set *s, const snapshot *snap) {
    for (int a = 0; a < s->nfields; a++) {
        assert_stenc_ok(stenc_field_download(s->f[a]));
        stenc_field_layout L;
        size_t bytes;
        unsigned char *p = storage(s->f[a], &L, &bytes);
        assert_int_equal(bytes, snap->size[a]); /* the same layout on the host and the device */
        memcpy(p, snap->bytes[a], bytes);
        assert_stenc_ok(stenc_field_upload(s->f[a])); /* nothing to do on the CPU context */
    }
}

static void download(field_set *s) {
    for (int a = 0; a < s->nfields; a++)
        assert_stenc_ok(stenc_field_download(s->f[a]));
}

static const char *const region_names[NREGIONS] = {"interior", "halo", "padding"};

/* Where element e of an allocation lies: (i,j,k) from the interior's origin, and whether that
 * is the interior, the halo or row padding. */
static int locate(const stenc_field_layout *L, size_t e, long p[3]) {
    const size_t s1 = L->dims > 1 ? (size_t)L->stride[1] : L->alloc_elems;
    const size_t s2 = L->dims > 2 ? (size_t)L->stride[2] : L->alloc_elems;
    const size_t o = L->origin_elems;
    p[0] = (long)(e % s1) - (long)(o % s1);
    p[1] = (long)(e % s2 / s1) - (long)(o % s2 / s1);
    p[2] = (long)(e / s2) - (long)(o / s2);
    int interior = 1, halo = 1;
    for (int d = 0; d < L->dims; d++) {
        interior &= p[d] >= 0 && p[d] < (long)L->n[d];
        halo &= p[d] >= -L->halo && p[d] < (long)L->n[d] + L->halo;
    }
    return interior ? INTERIOR : halo ? HALO : PADDING;
}

static double element(const unsigned char *p, stenc_type type, size_t e) {
    return type == STENC_F32 ? (double)((const float *)p)[e] : ((const double *)p)[e];
}

/* Every byte of every field the same (both sets on the host), else a message naming the
 * first differing byte of the first field that differs, and for each of interior, halo and
 * padding how many elements differ and the first of them, with both values. */
static void expect_same(const steps_case *c, const field_set *got, const field_set *want,
                        const char *against, const char *what) {
    for (int a = 0; a < nfields(c); a++) {
        stenc_field_layout L, Lw;
        size_t bytes, bytes_w;
        const unsigned char *g = storage(got->f[a], &L, &bytes);
        const unsigned char *w = storage(want->f[a], &Lw, &bytes_w);
        assert_int_equal(bytes, bytes_w);
        if (memcmp(g, w, bytes) == 0) continue;
        size_t b = 0;
        while (g[b] == w[b])
            b++;
        const size_t elem = stenc_type_size(L.type);
        size_t count[NREGIONS] = {0}, first[NREGIONS] = {0};
        for (size_t e = 0; e < L.alloc_elems; e++) {
            long p[3];
            if (memcmp(g + e * elem, w + e * elem, elem) == 0) continue;
            const int r = locate(&L, e, p);
            if (count[r]++ == 0) first[r] = e;
        }
        char detail[3][160] = {"", "", ""};
        for (int r = 0; r < NREGIONS; r++) {
            long p[3];
            if (!count[r]) continue;
            locate(&L, first[r], p);
            snprintf(detail[r], sizeof detail[r],
                     "; %zu in the %s, first (%ld,%ld,%ld): %.17g instead of %.17g", count[r],
                     region_names[r], p[0], p[1], p[2], element(g, L.type, first[r]),
                     element(w, L.type, first[r]));
        }
        fail_msg("%s: field %s differs from %s from byte %zu of %zu%s%s%s (%s)", c->name,
                 c->field_names[a], against, b, bytes, detail[0], detail[1], detail[2], what);
    }
}

/* ---- runs ------------------------------------------------------------------------------- */

/* STENC_STEPS_BLOCK: 0 unsets it (the default kernel's degree). */
static void set_block(long degree) {
    if (degree == 0) {
        assert_int_equal(unsetenv("STENC_STEPS_BLOCK"), 0);
        return;
    }
    char text[32];
    snprintf(text, sizeof text, "%ld", degree);
    assert_int_equal(setenv("STENC_STEPS_BLOCK", text, 1), 0);
}

static void expect_ok(stenc_status st, const char *call, const char *what) {
    if (st != STENC_OK) fail_msg("%s (%s): %s", call, what, stenc_last_error());
}

/* One size, halo and face set of a case: its starting contents, the host's plain steps made
 * up to each count in turn, and the device's steps against them. */
typedef struct run {
    const steps_case *c;
    size_t n[3];
    int halo, faces;
    stenc_bc bc[STENC_FACE_COUNT];
    snapshot start;
    field_set ref, dev; /* the host's plain steps (CPU context); the device's */
    long made;          /* steps made so far in ref */
} run;

/* degree < 0: not known yet. */
static void describe(const run *r, long nsteps, long block, int degree, char *text, size_t cap) {
    char env[24] = "unset", deg[24] = "?";
    if (block) snprintf(env, sizeof env, "%ld", block);
    if (degree >= 0) snprintf(deg, sizeof deg, "%d", degree);
    snprintf(text, cap, "%zux%zux%zu halo %d, faces %s, %ld steps, STENC_STEPS_BLOCK %s, degree %s",
             r->n[0], r->n[1], r->n[2], r->halo, face_names[r->faces], nsteps, env, deg);
}

/* The host's plain steps, made on from r->made to nsteps. */
static void host_steps_to(run *r, long nsteps) {
    char what[200];
    describe(r, nsteps, 0, 1, what, sizeof what);
    for (; r->made < nsteps; r->made++) {
        expect_ok(stenc_field_fill_halo(r->ref.f[0], r->bc), "host fill_halo", what);
        expect_ok(r->c->once(host, r->ref.f), "host launch", what);
        expect_ok(stenc_field_swap(r->ref.f[0], r->ref.f[1]), "host swap", what);
    }
}

/* NAME_steps on the device with STENC_STEPS_BLOCK = block (0: unset) against the host's plain
 * steps, every byte, and the degree reported: 1 when these steps cannot be blocked; else, for
 * a stencil the device must block, at least 2, at most the one asked for, and short of
 * nsteps (the last step is a plain one). A remainder shorter than 3 (the smallest kernel made
 * after the main one) is made by plain steps, so 3 steps may be made one by one; 5 or more are
 * blocked. */
static void device_steps(run *r, long nsteps, long block) {
    const steps_case *c = r->c;
    host_steps_to(r, nsteps);
    load(&r->dev, &r->start);
    set_block(block);
    char what[200];
    describe(r, nsteps, block, -1, what, sizeof what);
    expect_ok(c->steps(gpu, r->dev.f, nsteps, r->bc), "device steps", what);
    const int degree = stenc_launch_steps_last_degree();
    download(&r->dev); /* waits for the kernels, and reports their errors */
    describe(r, nsteps, block, degree, what, sizeof what);
    const int blocks =
        r->faces < FACES_BLOCKED && nsteps >= 3 && block != 1 && (block || c->unasked);
    const int must = blocks && nsteps >= 5;
    if (!blocks && degree != 1)
        fail_msg("%s: steps made %d per trip where they must be made one by one (%s)", c->name,
                 degree, what);
    if (blocks && c->must_block &&
        (degree < (must ? 2 : 1) || (block && degree > block) || degree > nsteps - 1))
        fail_msg("%s: degree %d, expected 2..%ld (%s)", c->name, degree,
                 block && block < nsteps - 1 ? block : nsteps - 1, what);
    expect_same(c, &r->dev, &r->ref, "the host's plain steps", what);
}

static void run_begin(run *r, const steps_case *c, const size_t n[3], int halo, int faces) {
    *r = (run){.c = c, .n = {n[0], n[1], n[2]}, .halo = halo, .faces = faces};
    face_set(faces, c->dims, r->bc);
    r->ref = make_set(host, c, n, halo);
    r->dev = make_set(gpu, c, n, halo);
    r->start = randomize(&r->ref, 7919u * (uint64_t)faces + 104729u * n[0] + 131u * n[1] + n[2]);
}

static void run_end(run *r) {
    free_set(&r->ref), free_set(&r->dev);
    free_snapshot(&r->start);
}

/* ---- cases ------------------------------------------------------------------------------ */

typedef struct size_case {
    size_t n[3];
    int large; /* a subset of steps and degrees only, to keep the test short */
} size_case;

/* Odd sizes: a single point, slowest extents under every degree, smaller than a tile; then
 * wider than a block (32 along i and j in 3-D, 512 along i in 2-D), taller than a block (256
 * along j in 2-D), more planes than a chunk (128 along k); last, tiles that lie wholly inside
 * the interior in-plane, and planes away from the outer ends (the kernels' fast path). */
static const size_case sizes3[] = {{{1, 1, 1}, 0},     {{5, 3, 2}, 0},   {{17, 11, 19}, 0},
                                   {{3, 2, 33}, 0},    {{37, 41, 9}, 1}, {{13, 6, 300}, 1},
                                   {{33, 35, 131}, 1}, {{83, 77, 29}, 1}};
static const size_case sizes2[] = {{{1, 1, 1}, 0},     {{7, 2, 1}, 0},    {{33, 9, 1}, 0},
                                   {{2, 65, 1}, 0},    {{1100, 9, 1}, 1}, {{7, 600, 1}, 1},
                                   {{513, 257, 1}, 1}, {{777, 70, 1}, 1}};
enum { NSIZES = sizeof sizes3 / sizeof sizes3[0] };

static const long step_counts[] = {0, 1, 2, 3, 7, 16}, large_step_counts[] = {1, 3, 7, 16};
static const long blocks[] = {0, 2, 3, 4, 8}; /* 0: STENC_STEPS_BLOCK unset */
enum { NSTEPS = 6, NLARGE_STEPS = 4, NBLOCKS = 5 };

/* Small sizes: every face set, step count and degree. Large ones: every face set and a few
 * step counts, with the default degree and one forced degree in turn. */
static void run_case(const steps_case *c) {
    for (int z = 0; z < NSIZES; z++) {
        const size_case *sz = c->dims == 3 ? &sizes3[z] : &sizes2[z];
        const int halo = c->radius + z % 2; /* some wider than the stencil reads */
        for (int faces = 0; faces < NFACES; faces++) {
            run r;
            run_begin(&r, c, sz->n, halo, faces);
            const int count = sz->large ? NLARGE_STEPS : NSTEPS;
            for (int s = 0; s < count; s++) {
                const long nsteps = sz->large ? large_step_counts[s] : step_counts[s];
                device_steps(&r, nsteps, 1);
                if (sz->large) {
                    device_steps(&r, nsteps, 0);
                    device_steps(&r, nsteps, blocks[1 + (faces + s) % (NBLOCKS - 1)]);
                } else {
                    for (int d = 0; d < NBLOCKS; d++)
                        device_steps(&r, nsteps, blocks[d]);
                }
            }
            run_end(&r);
        }
    }
    assert_int_equal(unsetenv("STENC_STEPS_BLOCK"), 0);
}

static void test_heat3d(void **state) {
    (void)state;
    run_case(&cases[CASE_HEAT3D]);
}
static void test_box27(void **state) {
    (void)state;
    run_case(&cases[CASE_BOX27]);
}
static void test_star2_3d(void **state) {
    (void)state;
    run_case(&cases[CASE_STAR2_3D]);
}
static void test_box9(void **state) {
    (void)state;
    run_case(&cases[CASE_BOX9]);
}
static void test_star2_2d(void **state) {
    (void)state;
    run_case(&cases[CASE_STAR2_2D]);
}
static void test_cross2d(void **state) {
    (void)state;
    run_case(&cases[CASE_CROSS2D]);
}
static void test_kindex(void **state) {
    (void)state;
    run_case(&cases[CASE_KINDEX]);
}

/* STENC_STEPS_BLOCK=1 on the device: degree 1, and the bits of the plain steps made by hand
 * on the device (stenc_field_fill_halo, one launch, stenc_field_swap) and on the host. Unset,
 * the same steps are blocked where the case says (`unasked`) and made one by one elsewhere, with
 * the same bits. */
static void test_block_one(void **state) {
    (void)state;
    for (int i = 0; i < NCASES; i++) {
        const steps_case *c = &cases[i];
        const size_t *n = c->dims == 3 ? sizes3[4].n : sizes2[4].n;
        const long nsteps = 7;
        run r;
        run_begin(&r, c, n, c->radius + 1, FACES_DIR_I);
        field_set by_hand = make_set(gpu, c, n, r.halo);
        load(&by_hand, &r.start);
        char what[200];
        describe(&r, nsteps, 1, 1, what, sizeof what);
        for (long s = 0; s < nsteps; s++) {
            expect_ok(stenc_field_fill_halo(by_hand.f[0], r.bc), "device fill_halo", what);
            expect_ok(c->once(gpu, by_hand.f), "device launch", what);
            expect_ok(stenc_field_swap(by_hand.f[0], by_hand.f[1]), "device swap", what);
        }
        download(&by_hand);
        device_steps(&r, nsteps, 1);
        if (stenc_launch_steps_last_degree() != 1)
            fail_msg("%s: STENC_STEPS_BLOCK=1 gave degree %d (%s)", c->name,
                     stenc_launch_steps_last_degree(), what);
        expect_same(c, &r.dev, &by_hand, "the plain steps made by hand on the device", what);
        expect_same(c, &by_hand, &r.ref, "the host's plain steps", what);
        device_steps(&r, nsteps, 0);
        if (c->must_block && c->unasked && stenc_launch_steps_last_degree() < 2)
            fail_msg("%s: not blocked with STENC_STEPS_BLOCK unset, degree %d", c->name,
                     stenc_launch_steps_last_degree());
        if (!c->unasked && stenc_launch_steps_last_degree() != 1)
            fail_msg("%s: blocked unasked, degree %d", c->name, stenc_launch_steps_last_degree());
        free_set(&by_hand);
        run_end(&r);
    }
    assert_int_equal(unsetenv("STENC_STEPS_BLOCK"), 0);
}

/* Another input that is the stepped field itself (st_box9's f, st_box27's c given IN), or a
 * view of the whole of it: each plain step reads it after the swap, which a kernel making
 * several steps cannot, so the steps are made one by one, with the bits of the plain steps. */
static void input_is_in(const steps_case *c, int as_view) {
    const size_t *n = c->dims == 3 ? sizes3[2].n : sizes2[2].n;
    const size_t lo[3] = {0, 0, 0}, box[3] = {n[0], n[1], c->dims == 3 ? n[2] : 1};
    const long nsteps = 7;
    run r;
    run_begin(&r, c, n, c->radius, FACES_DIRICHLET);
    load(&r.dev, &r.start);
    stenc_field *dev[MAX_FIELDS], *ref[MAX_FIELDS];
    memcpy(dev, r.dev.f, sizeof dev), memcpy(ref, r.ref.f, sizeof ref);
    dev[2] = dev[0], ref[2] = ref[0];
    if (as_view) {
        assert_stenc_ok(stenc_field_view(&dev[2], dev[0], lo, box));
        assert_stenc_ok(stenc_field_view(&ref[2], ref[0], lo, box));
    }
    char what[200];
    describe(&r, nsteps, 4, -1, what, sizeof what);
    for (long s = 0; s < nsteps; s++) {
        expect_ok(stenc_field_fill_halo(ref[0], r.bc), "host fill_halo", what);
        expect_ok(c->once(host, ref), "host launch", what);
        expect_ok(stenc_field_swap(ref[0], ref[1]), "host swap", what);
    }
    set_block(4);
    expect_ok(c->steps(gpu, dev, nsteps, r.bc), "device steps", what);
    const int degree = stenc_launch_steps_last_degree();
    describe(&r, nsteps, 4, degree, what, sizeof what);
    if (as_view) {
        assert_stenc_ok(stenc_field_free(dev[2]));
        assert_stenc_ok(stenc_field_free(ref[2]));
    }
    download(&r.dev);
    if (degree != 1)
        fail_msg("%s: %s given as IN and %s as %s, made %d steps per trip (%s)", c->name,
                 c->field_names[0], as_view ? "a view of it" : "itself", c->field_names[2], degree,
                 what);
    expect_same(c, &r.dev, &r.ref, "the host's plain steps", what);
    run_end(&r);
    assert_int_equal(unsetenv("STENC_STEPS_BLOCK"), 0);
}

static void test_input_is_in(void **state) {
    (void)state;
    input_is_in(&cases[CASE_BOX9], 0);
    input_is_in(&cases[CASE_BOX27], 0);
}

static void test_input_is_view_of_in(void **state) {
    (void)state;
    input_is_in(&cases[CASE_BOX9], 1);
    input_is_in(&cases[CASE_BOX27], 1);
}

static int setup(void **state) {
    (void)state;
    /* only STENC_STEPS_BLOCK matters on the device; stray settings of the others must not */
    unsetenv("STENC_STEPS_BLOCK"), unsetenv("STENC_STEPS_SLAB"), unsetenv("STENC_STEPS_CACHE_MB");
    if (stenc_ctx_create(&gpu, STENC_DEVICE_CUDA) != STENC_OK) return -1;
    if (stenc_tune(gpu, STENC_TUNE_OFF) != STENC_OK) return -1;
    return stenc_ctx_create(&host, STENC_DEVICE_CPU) == STENC_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    stenc_ctx_destroy(host);
    return stenc_ctx_destroy(gpu) == STENC_OK ? 0 : -1;
}

/* STENC_STEPS_KERNEL names the kernel of the whole runs: each kernel of st_heat3d, st_star2_3d
 * (blocked unasked only where `unasked` says) and st_cross2d, the stars with both register-queue
 * and ring kernels, on every blocked face set, at a size smaller than the tiles' reach and one
 * with inner blocks (the fast path), with the bits of the plain steps; a name of no kernel is
 * refused, naming the variable, before anything is written. */
extern const stenc_launch_tsteps st_heat3d_cuda_tsteps, st_star2_3d_cuda_tsteps,
    st_cross2d_cuda_tsteps;
static void each_kernel(const steps_case *c, const stenc_launch_tsteps *k, const size_t n[2][3]) {
    assert_true(k->count >= 2);
    assert_int_equal(k->automatic, c->unasked);
    for (int v = 0; v < k->count; v++)
        for (int z = 0; z < 2; z++)
            for (int faces = 0; faces < FACES_BLOCKED; faces++) {
                run r;
                run_begin(&r, c, n[z], c->radius + (faces + z) % 2, faces);
                const long nsteps = 2 * k->list[v].degree + 1 + (faces + v) % 3;
                host_steps_to(&r, nsteps);
                load(&r.dev, &r.start);
                set_block(0);
                assert_int_equal(setenv("STENC_STEPS_KERNEL", k->list[v].name, 1), 0);
                char what[200];
                describe(&r, nsteps, 0, k->list[v].degree, what, sizeof what);
                expect_ok(c->steps(gpu, r.dev.f, nsteps, r.bc), "device steps", what);
                if (stenc_launch_steps_last_degree() != k->list[v].degree)
                    fail_msg("STENC_STEPS_KERNEL=%s: degree %d", k->list[v].name,
                             stenc_launch_steps_last_degree());
                download(&r.dev);
                char kernel[240];
                snprintf(kernel, sizeof kernel, "%s, STENC_STEPS_KERNEL=%s", what, k->list[v].name);
                expect_same(c, &r.dev, &r.ref, "the host's plain steps", kernel);
                run_end(&r);
            }
    assert_int_equal(unsetenv("STENC_STEPS_KERNEL"), 0);
}

static void test_kernel_env(void **state) {
    (void)state;
    const size_t n3[2][3] = {{37, 41, 23}, {83, 77, 29}}, n2[2][3] = {{300, 37, 1}, {777, 70, 1}};
    each_kernel(&cases[CASE_HEAT3D], &st_heat3d_cuda_tsteps, n3);
    each_kernel(&cases[CASE_STAR2_3D], &st_star2_3d_cuda_tsteps, n3);
    each_kernel(&cases[CASE_CROSS2D], &st_cross2d_cuda_tsteps, n2);
    const steps_case *c = &cases[CASE_HEAT3D];
    const size_t n[3] = {37, 41, 23};
    run r;
    run_begin(&r, c, n, c->radius, FACES_DIR_I);
    load(&r.dev, &r.start);
    assert_int_equal(setenv("STENC_STEPS_KERNEL", "tstep_t99", 1), 0);
    assert_int_equal(c->steps(gpu, r.dev.f, 9, r.bc), STENC_ERR_INVALID_ARGUMENT);
    if (!strstr(stenc_last_error(), "STENC_STEPS_KERNEL"))
        fail_msg("the message does not name STENC_STEPS_KERNEL: %s", stenc_last_error());
    download(&r.dev);
    field_set untouched = make_set(host, c, n, r.halo);
    load(&untouched, &r.start);
    expect_same(c, &r.dev, &untouched, "the start (a refused kernel name)", "refused");
    free_set(&untouched);
    assert_int_equal(unsetenv("STENC_STEPS_KERNEL"), 0);
    run_end(&r);
}

/* The tuned choice (stenc/tune.h): with tuning on, NAME_steps times the plain steps and every
 * kernel on scratch fields and stores its choice under the key "NAME_steps#digest|size|...";
 * the result keeps the bits of the plain steps. With tuning off, an entry naming a kernel
 * makes the steps with it, and "plain" one by one. */
extern const stenc_launch_variants st_heat3d_cuda_variants;
static void test_tuned(void **state) {
    (void)state;
    const steps_case *c = &cases[CASE_HEAT3D];
    const size_t n[3] = {37, 41, 23};
    char path[] = "/tmp/stenc_steps_tune_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(setenv("STENC_TUNE_CACHE", path, 1), 0);
    set_block(0);
    assert_int_equal(unsetenv("STENC_STEPS_KERNEL"), 0);
    char key[512];
    assert_stenc_ok(stenc_tune_key(gpu, "st_heat3d_steps", st_heat3d_cuda_variants.digest, n,
                                   c->type, key, sizeof key));
    static const struct {
        const char *entry; /* NULL: tune */
        int degree;
    } tries[] = {{NULL, -1}, {"tstep_t3_32x32", 3}, {"plain", 1}, {"tstep_t4_32x32", 4}};
    for (size_t t = 0; t < sizeof tries / sizeof tries[0]; t++) {
        run r;
        run_begin(&r, c, n, c->radius, FACES_DIR_I);
        const long nsteps = 13;
        host_steps_to(&r, nsteps);
        load(&r.dev, &r.start);
        if (tries[t].entry) {
            assert_stenc_ok(stenc_tune(gpu, STENC_TUNE_OFF));
            assert_stenc_ok(stenc_tune_store(gpu, key, tries[t].entry, 1.0));
        } else {
            assert_stenc_ok(stenc_tune(gpu, STENC_TUNE_FORCE));
        }
        char what[200];
        describe(&r, nsteps, 0, tries[t].degree, what, sizeof what);
        expect_ok(c->steps(gpu, r.dev.f, nsteps, r.bc), "device steps", what);
        const int degree = stenc_launch_steps_last_degree();
        download(&r.dev);
        expect_same(c, &r.dev, &r.ref, "the host's plain steps", what);
        char name[128];
        int found = 0;
        assert_stenc_ok(stenc_tune_lookup(gpu, key, name, sizeof name, &found));
        if (!found) fail_msg("no tune cache entry for %s", key);
        if (tries[t].entry && degree != tries[t].degree)
            fail_msg("tune cache entry %s: degree %d", tries[t].entry, degree);
        if (!tries[t].entry && (strcmp(name, "plain") == 0) != (degree == 1))
            fail_msg("tuned to '%s' but made %d steps per kernel", name, degree);
        run_end(&r);
    }
    assert_stenc_ok(stenc_tune(gpu, STENC_TUNE_OFF));
    assert_int_equal(unsetenv("STENC_TUNE_CACHE"), 0);
    remove(path);
}

int main(int argc, char **argv) {
    TEST_REQUIRE_GPU_OR_SKIP();
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heat3d),      cmocka_unit_test(test_box27),
        cmocka_unit_test(test_star2_3d),    cmocka_unit_test(test_box9),
        cmocka_unit_test(test_star2_2d),    cmocka_unit_test(test_cross2d),
        cmocka_unit_test(test_kindex),      cmocka_unit_test(test_block_one),
        cmocka_unit_test(test_kernel_env),  cmocka_unit_test(test_tuned),
        cmocka_unit_test(test_input_is_in), cmocka_unit_test(test_input_is_view_of_in),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
