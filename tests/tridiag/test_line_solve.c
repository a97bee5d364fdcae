/* Line solves (stenc_launch_solve_begin/_end) without the compiler: a hand-made launch table,
 * coefficients written into the scratch views as a generated kernel would, and every interior
 * point checked against a long-double Thomas solve of each line with the halo values moved to
 * the right-hand side. v's halo must come out unchanged bit for bit (it holds -0.0 too, which
 * the solvers' identity rows alone turn into +0.0), its interior and padding start as NaN
 * (never read), and the scratch arrays' non-interior positions start as NaN (end must write
 * them). One context for every case, so the scratch and the pool of uniform arrays are reused
 * across shapes, types and values. The interior is also compared bit for bit with
 * stenc_tridiag_solve on the whole allocation's equations assembled here (identity rows
 * outside the interior), called as the launch's plan states (docs/tridiag.md, "Line solves on
 * CUDA"): the launch's own transposes and fills must give the solver's bits. Singular lines,
 * errors, host fields, and a few cases on an OpenCL device when there is one. With argument
 * "gpu" or "opencl": all of it on a CUDA or an OpenCL context with device fields (skipped
 * without such a device). */
#include "stenc/launch.h"
#include "test_util.h"

static stenc_ctx *ctx;
static int on_device;

/* Every target, so that the launch tables fit whichever context a case runs on. */
#define LT_TARGETS (STENC_TARGET_C | STENC_TARGET_CUDA | STENC_TARGET_OPENCL)

/* ---- the layout, written out from stenc/field.h's description ------------------------- */

enum { LT_INTERIOR, LT_HALO, LT_PADDING };

typedef struct lt_layout {
    size_t es, pitch, rows, planes, lead, h, origin;
    size_t n[3];
    int dims;
} lt_layout;

static lt_layout lt_layout_of(const stenc_field *f) {
    stenc_field_layout L;
    assert_stenc_ok(stenc_field_get_layout(f, &L));
    lt_layout t;
    t.es = stenc_type_size(L.type);
    t.h = (size_t)L.halo;
    t.dims = L.dims;
    for (int d = 0; d < 3; d++)
        t.n[d] = L.n[d];
    const size_t align = STENC_FIELD_ALIGN / t.es;
    t.lead = (t.h + align - 1) / align * align;
    t.pitch = (t.lead + t.n[0] + t.h + align - 1) / align * align;
    t.rows = L.dims >= 2 ? t.n[1] + 2 * t.h : 1;
    t.planes = L.dims >= 3 ? t.n[2] + 2 * t.h : 1;
    t.origin =
        t.lead + (L.dims >= 2 ? t.h * t.pitch : 0) + (L.dims >= 3 ? t.h * t.pitch * t.rows : 0);
    assert_int_equal(L.stride[1], t.pitch);
    assert_int_equal(L.stride[2], t.pitch * t.rows);
    assert_int_equal(L.alloc_elems, t.pitch * t.rows * t.planes);
    assert_int_equal(L.origin_elems, t.origin);
    return t;
}

static size_t lt_alloc(const lt_layout *t) {
    return t->pitch * t->rows * t->planes;
}

static int lt_kind(const lt_layout *t, size_t q) {
    const size_t c = q % t->pitch, r = q / t->pitch % t->rows, pl = q / (t->pitch * t->rows);
    if (c + t->h < t->lead || c >= t->lead + t->n[0] + t->h) return LT_PADDING;
    const int in_c = c >= t->lead && c < t->lead + t->n[0];
    const int in_r = t->dims < 2 || (r >= t->h && r < t->h + t->n[1]);
    const int in_p = t->dims < 3 || (pl >= t->h && pl < t->h + t->n[2]);
    return in_c && in_r && in_p ? LT_INTERIOR : LT_HALO;
}

/* Element (i, j, k), halo included (negative indices). */
static size_t lt_index(const lt_layout *t, long i, long j, long k) {
    return (size_t)((long)t->origin + i + j * (long)t->pitch + k * (long)(t->pitch * t->rows));
}

static double lt_load(const void *p, size_t es, size_t q) {
    return es == 4 ? (double)((const float *)p)[q] : ((const double *)p)[q];
}

static void lt_store(void *p, size_t es, size_t q, double value) {
    if (es == 4)
        ((float *)p)[q] = (float)value;
    else
        ((double *)p)[q] = value;
}

static double lt_round(stenc_type type, double value) {
    return type == STENC_F32 ? (double)(float)value : value;
}

/* ---- one launch --------------------------------------------------------------------------- */

typedef struct lt_case {
    stenc_type type;
    int dims;
    size_t n[3];
    int halo;
    int dim;
    unsigned uniform;
    int with_input;   /* an input before v, so that v is argument 1 */
    double values[3]; /* the uniform coefficients (for the bits of `uniform`) */
    int zero_line;    /* make the line at zero_at singular: lower, diag and upper 0 */
    long zero_at[3];
    int nan_halo;    /* a NaN in the halo just before the first line */
    int host_fields; /* in "gpu" or "opencl" mode: fields on the host of the device context */
    int same_bits;   /* compare with stenc_tridiag_solve on the assembled equations */
} lt_case;

/* Where the launch's scratch arrays were (to see the pool at work). */
typedef struct lt_result {
    stenc_status status;
    void *origin[4];
} lt_result;

static void lt_put_array(const stenc_launch_field *cf, const lt_layout *t, const double *dense,
                         int device) {
    const size_t alloc = lt_alloc(t);
    char *image = malloc(alloc * t->es);
    for (size_t q = 0; q < alloc; q++)
        lt_store(image, t->es, q, NAN);
    for (size_t k = 0; k < t->n[2]; k++)
        for (size_t j = 0; j < t->n[1]; j++)
            for (size_t i = 0; i < t->n[0]; i++)
                lt_store(image, t->es,
                         t->origin + i + j * (size_t)cf->stride[1] + k * (size_t)cf->stride[2],
                         dense[i + t->n[0] * (j + t->n[1] * k)]);
    char *start = (char *)cf->origin - t->origin * t->es;
    if (device)
        assert_stenc_ok(stenc_upload(ctx, start, image, alloc * t->es));
    else
        memcpy(start, image, alloc * t->es);
    free(image);
}

/* Solve one line in long double: a x[p-1] + b x[p] + c x[p+1] = d, a[0] and c[m-1] unused. */
static void lt_thomas(size_t m, const long double *a, const long double *b, const long double *c,
                      long double *d, long double *x) {
    long double *cp = malloc(m * sizeof *cp);
    long double beta = b[0];
    cp[0] = c[0] / beta;
    x[0] = d[0] / beta;
    for (size_t p = 1; p < m; p++) {
        beta = b[p] - a[p] * cp[p - 1];
        cp[p] = c[p] / beta;
        x[p] = (d[p] - a[p] * x[p - 1]) / beta;
    }
    for (size_t p = m - 1; p-- > 0;)
        x[p] -= cp[p] * x[p + 1];
    free(cp);
}

/* Every interior point of v against the reference; `before` holds v's halo values. */
static void lt_check_interior(const lt_case *c, const lt_layout *t, const char *before,
                              const char *after, double *const dense[4]) {
    const int dim = c->dim;
    const size_t m = t->n[dim];
    long double *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b),
                *cc = malloc(m * sizeof *cc), *d = malloc(m * sizeof *d),
                *x = malloc(m * sizeof *x);
    const double tol = c->type == STENC_F32 ? 1e-4 : 1e-12;
    size_t other[3] = {t->n[0], t->n[1], t->n[2]};
    other[dim] = 1;
    for (size_t k0 = 0; k0 < other[2]; k0++)
        for (size_t j0 = 0; j0 < other[1]; j0++)
            for (size_t i0 = 0; i0 < other[0]; i0++) {
                long at[3] = {(long)i0, (long)j0, (long)k0};
                for (size_t p = 0; p < m; p++) {
                    at[dim] = (long)p;
                    const size_t e =
                        (size_t)at[0] + t->n[0] * ((size_t)at[1] + t->n[1] * (size_t)at[2]);
                    a[p] = dense[0][e], b[p] = dense[1][e], cc[p] = dense[2][e], d[p] = dense[3][e];
                }
                at[dim] = -1;
                const long double lo = lt_load(before, t->es, lt_index(t, at[0], at[1], at[2]));
                at[dim] = (long)m;
                const long double hi = lt_load(before, t->es, lt_index(t, at[0], at[1], at[2]));
                d[0] -= a[0] * lo;
                d[m - 1] -= cc[m - 1] * hi;
                lt_thomas(m, a, b, cc, d, x);
                long double scale = 1;
                for (size_t p = 0; p < m; p++)
                    if (fabsl(x[p]) > scale) scale = fabsl(x[p]);
                for (size_t p = 0; p < m; p++) {
                    at[dim] = (long)p;
                    const double got = lt_load(after, t->es, lt_index(t, at[0], at[1], at[2]));
                    if (!(fabsl((long double)got - x[p]) <= tol * scale))
                        fail_msg(
                            "%s %d-D n=%zux%zux%zu halo %d along %c uniform %u: v(%ld,%ld,%ld) = "
                            "%.17g, expected %.17Lg",
                            stenc_type_name(c->type), t->dims, t->n[0], t->n[1], t->n[2], c->halo,
                            "ijk"[dim], c -> uniform, at[0], at[1], at[2], got, x[p]);
                }
            }
    free(a), free(b), free(cc), free(d), free(x);
}

/* The solver calls a launch makes over the whole allocation (runtime/tridiag/lines.c,
 * plan_of): `calls` batches of `batch` systems of n equations, the c-th `first + c * step`
 * elements in. Along j of a 3-D field the host solves plane by plane, a device all planes at
 * once. */
typedef struct lt_plan {
    stenc_tridiag_layout layout;
    size_t n, batch, calls, first, step;
} lt_plan;

static lt_plan lt_plan_of(const lt_layout *t, int dim, int device) {
    const size_t plane = t->pitch * t->rows;
    if (dim == 0)
        return (lt_plan){STENC_TRIDIAG_CONTIGUOUS, t->pitch, t->rows * t->planes, 1, 0, 0};
    if (dim == 2) return (lt_plan){STENC_TRIDIAG_INTERLEAVED, t->planes, plane, 1, 0, 0};
    if (t->planes == 1 || device)
        return (lt_plan){STENC_TRIDIAG_INTERLEAVED, t->rows * t->planes, t->pitch, 1, 0, 0};
    return (lt_plan){STENC_TRIDIAG_INTERLEAVED, t->rows, t->pitch, t->n[2], t->h * plane, plane};
}

/* v's interior after the launch (`after`) against stenc_tridiag_solve's, bit for bit, on the
 * equations of the whole allocation: dense[] inside, lower 0, diag 1, upper 0 and rhs v's
 * value (`before`) at the halo, rhs 0 at the padding. */
static void lt_check_same_bits(const lt_case *c, const lt_layout *t, const char *before,
                               const char *after, double *const dense[4], int device) {
    const size_t alloc = lt_alloc(t), bytes = alloc * t->es;
    char *host[5];
    void *arrays[5];
    for (int q = 0; q < 5; q++) {
        host[q] = malloc(bytes);
        assert_non_null(host[q]);
    }
    for (size_t e = 0; e < alloc; e++) {
        const int kind = lt_kind(t, e);
        const size_t i = e % t->pitch - t->lead,
                     j = t->dims >= 2 ? e / t->pitch % t->rows - t->h : 0,
                     k = t->dims >= 3 ? e / (t->pitch * t->rows) - t->h : 0;
        for (int q = 0; q < 4; q++) {
            double value = q == 1 ? 1 : 0;
            if (kind == LT_INTERIOR)
                value = dense[q][i + t->n[0] * (j + t->n[1] * k)];
            else if (q == 3 && kind == LT_HALO)
                value = lt_load(before, t->es, e);
            lt_store(host[q], t->es, e, value);
        }
        lt_store(host[4], t->es, e, NAN);
    }
    for (int q = 0; q < 5; q++) {
        if (!device) {
            arrays[q] = host[q];
            continue;
        }
        assert_stenc_ok(stenc_malloc(ctx, &arrays[q], bytes));
        assert_stenc_ok(stenc_upload(ctx, arrays[q], host[q], bytes));
    }
    const lt_plan pl = lt_plan_of(t, c->dim, device);
    for (size_t call = 0; call < pl.calls; call++) {
        const size_t off = (pl.first + call * pl.step) * t->es;
        const char *in[4];
        for (int q = 0; q < 4; q++)
            in[q] = (const char *)arrays[q] + off;
        assert_stenc_ok(stenc_tridiag_solve(ctx, c->type, pl.layout, pl.n, pl.batch, in[0], in[1],
                                            in[2], in[3], (char *)arrays[4] + off, NULL));
    }
    if (device) assert_stenc_ok(stenc_download(ctx, host[4], arrays[4], bytes));
    for (size_t e = 0; e < alloc; e++)
        if (lt_kind(t, e) == LT_INTERIOR && memcmp(after + e * t->es, host[4] + e * t->es, t->es))
            fail_msg("%s %d-D n=%zux%zux%zu halo %d along %c uniform %u: element %zu is %a, "
                     "stenc_tridiag_solve's %a",
                     stenc_type_name(c->type), t->dims, t->n[0], t->n[1], t->n[2], c->halo,
                     "ijk"[c->dim], c -> uniform, e, lt_load(after, t->es, e),
                     lt_load(host[4], t->es, e));
    for (int q = 0; q < 5; q++) {
        if (device) stenc_free(ctx, arrays[q]);
        free(host[q]);
    }
}

/* Build v (and an input), launch as a generated launcher would, check v. */
static lt_result lt_launch(const lt_case *c, uint64_t seed) {
    test_rng rng = test_rng_seeded(seed);
    lt_result res = {STENC_OK, {NULL, NULL, NULL, NULL}};
    stenc_field *v = NULL, *u = NULL;
    const int device = on_device && !c->host_fields;
    assert_stenc_ok(
        stenc_field_create(ctx, &v, c->type, c->dims, c->n[0], c->n[1], c->n[2], c->halo));
    const lt_layout t = lt_layout_of(v);
    const size_t alloc = lt_alloc(&t);
    /* v: random halo values (some -0.0), NaN in the interior and the padding. */
    char *host = (char *)stenc_field_host_origin(v) - t.origin * t.es;
    for (size_t q = 0; q < alloc; q++) {
        double value = NAN;
        if (lt_kind(&t, q) == LT_HALO) {
            value = test_rng_uniform(&rng, -2, 2);
            if ((test_rng_u64(&rng) & 7) == 0) value = -0.0;
        }
        lt_store(host, t.es, q, value);
    }
    if (c->nan_halo)
        lt_store(host, t.es,
                 lt_index(&t, c->dim == 0 ? -1 : 0, c->dim == 1 ? -1 : 0, c->dim == 2 ? -1 : 0),
                 NAN);
    char *before = malloc(alloc * t.es);
    memcpy(before, host, alloc * t.es);
    if (c->with_input) {
        assert_stenc_ok(
            stenc_field_create(ctx, &u, c->type, c->dims, c->n[0], c->n[1], c->n[2], 1));
        if (device) assert_stenc_ok(stenc_field_upload(u));
    }
    if (device) assert_stenc_ok(stenc_field_upload(v));

    const stenc_launch_arg args[2] = {
        {"u", STENC_ARG_INPUT, 1, "u[-1,0,0]", 0, 0, {0, 0, 0}},
        {"v", STENC_ARG_OUTPUT, 0, "", 0, 0, {0, 0, 0}},
    };
    const int nargs = c->with_input ? 2 : 1;
    const stenc_launch_desc desc = {"lines", c->dims, c->type, LT_TARGETS, nargs, args + 2 - nargs};
    const stenc_field *const fields[2] = {c->with_input ? u : v, v};
    stenc_launch_field views[2], coef[4];
    stenc_launch_shape shape;
    assert_stenc_ok(stenc_launch_check(&desc, ctx, fields, views, &shape));
    const stenc_launch_solve solve = {c->dim, nargs - 1, c->uniform};
    assert_stenc_ok(stenc_launch_solve_begin(&desc, ctx, &solve, fields, &shape, c->values, coef));
    for (int q = 0; q < 4; q++) {
        res.origin[q] = coef[q].origin;
        assert_int_equal(coef[q].stride[0], 1);
        assert_int_equal(coef[q].stride[1], t.pitch);
        assert_int_equal(coef[q].stride[2], t.pitch * t.rows);
    }

    /* The kernel's part: diagonally dominant coefficients at the interior points. */
    const size_t points = t.n[0] * t.n[1] * t.n[2];
    double *dense[4];
    for (int q = 0; q < 4; q++)
        dense[q] = malloc(points * sizeof(double));
    for (size_t e = 0; e < points; e++) {
        for (int q = 0; q < 3; q += 2)
            dense[q][e] = lt_round(c->type, c->uniform >> q & 1 ? c->values[q]
                                                                : test_rng_uniform(&rng, -1, 1));
        const double margin = test_rng_uniform(&rng, 0.5, 1.5);
        const double sign = test_rng_u64(&rng) & 1 ? -1 : 1;
        dense[1][e] = lt_round(
            c->type, c->uniform & 2 ? c->values[1]
                                    : sign * (fabs(dense[0][e]) + fabs(dense[2][e]) + margin));
        dense[3][e] = lt_round(c->type, test_rng_uniform(&rng, -1, 1));
    }
    if (c->zero_line) {
        size_t other[3] = {(size_t)c->zero_at[0], (size_t)c->zero_at[1], (size_t)c->zero_at[2]};
        for (size_t p = 0; p < t.n[c->dim]; p++) {
            other[c->dim] = p;
            const size_t e = other[0] + t.n[0] * (other[1] + t.n[1] * other[2]);
            dense[0][e] = dense[1][e] = dense[2][e] = 0;
        }
    }
    for (int q = 0; q < 4; q++)
        if (!(c->uniform >> q & 1)) lt_put_array(&coef[q], &t, dense[q], device);

    res.status = stenc_launch_solve_end(&desc, ctx, &solve, fields, &shape);
    if (device) assert_stenc_ok(stenc_field_download(v));
    host = (char *)stenc_field_host_origin(v) - t.origin * t.es;
    /* v's halo bit for bit, whatever the status. */
    for (size_t q = 0; q < alloc; q++)
        if (lt_kind(&t, q) == LT_HALO && memcmp(host + q * t.es, before + q * t.es, t.es) != 0)
            fail_msg("%s %d-D n=%zux%zux%zu halo %d along %c: v's halo element %zu changed from %a "
                     "to %a",
                     stenc_type_name(c->type), t.dims, t.n[0], t.n[1], t.n[2], c->halo,
                     "ijk"[c->dim], q, lt_load(before, t.es, q), lt_load(host, t.es, q));
    if (res.status == STENC_OK) lt_check_interior(c, &t, before, host, dense);
    if (res.status == STENC_OK && c->same_bits)
        lt_check_same_bits(c, &t, before, host, dense, device);
    for (int q = 0; q < 4; q++)
        free(dense[q]);
    free(before);
    stenc_field_free(u);
    stenc_field_free(v);
    return res;
}

/* Values for the uniform coefficients: diagonally dominant whichever the kernel writes. */
static void lt_values(lt_case *c, test_rng *rng) {
    const double r = test_rng_uniform(rng, 0.1, 3);
    c->values[0] = -r;
    c->values[2] = test_rng_u64(rng) & 1 ? -r : 0.5 * r; /* equal or not to lower */
    const double off = c->uniform & 5 ? fabs(c->values[0]) + fabs(c->values[2]) : 2;
    c->values[1] = (test_rng_u64(rng) & 1 ? 1 : -1) * (off + test_rng_uniform(rng, 0.5, 1.5));
    if (c->uniform == 7) c->values[1] = 1 + 2 * r; /* ADI's */
}

/* ---- the tests --------------------------------------------------------------------------------
 */

/* Every direction of 1-, 2- and 3-D fields at awkward sizes, both types, halos 1 and 2, no
 * uniform coefficient, all three, and two mixes. The last two shapes make batches of 8192 or
 * more interleaved systems, which CUDA solves with another algorithm. */
static void test_shapes(void **state) {
    (void)state;
    static const size_t shapes[][4] = {
        {1, 1, 1, 1},  {1, 2, 1, 1},  {1, 7, 1, 1},   {1, 33, 1, 1},   {1, 130, 1, 1},
        {2, 7, 33, 1}, {2, 1, 2, 1},  {2, 130, 5, 1}, {2, 33, 1, 1},   {3, 7, 5, 3},
        {3, 2, 1, 33}, {3, 33, 7, 2}, {3, 1, 1, 1},   {2, 8200, 3, 1}, {3, 33, 90, 3},
    };
    static const unsigned masks[] = {0, 7, 5, 2};
    test_rng rng = test_rng_seeded(7);
    uint64_t seed = 100;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int dim = 0; dim < (int)shapes[s][0]; dim++)
            for (int type = STENC_F32; type <= STENC_F64; type++)
                for (int halo = 1; halo <= 2; halo++)
                    for (size_t mi = 0; mi < sizeof masks / sizeof *masks; mi++) {
                        lt_case c = {.type = (stenc_type)type,
                                     .dims = (int)shapes[s][0],
                                     .n = {shapes[s][1], shapes[s][2], shapes[s][3]},
                                     .halo = halo,
                                     .dim = dim,
                                     .uniform = masks[mi],
                                     .with_input = (int)(seed & 1)};
                        lt_values(&c, &rng);
                        lt_result r = lt_launch(&c, seed++);
                        if (r.status != STENC_OK) fail_msg("%s", stenc_last_error());
                    }
}

/* The launch's bits are the solver's on the assembled equations: every direction of 2- and 3-D
 * fields, both types, halos 1 and 2, with and without uniform coefficients, at shapes whose
 * lines the CUDA solver transposes (fewer than 8192 of them, or longer than 512) and at one
 * it solves one thread per line (8200 short ones along j). */
static void test_same_bits(void **state) {
    (void)state;
    if (stenc_ctx_device(ctx) == STENC_DEVICE_OPENCL) skip(); /* a solver of its own there */
    static const size_t shapes[][4] = {
        {2, 17, 33, 1}, {2, 130, 5, 1}, {3, 7, 5, 3}, {3, 9, 40, 6}, {2, 8200, 3, 1}, {1, 61, 1, 1},
    };
    static const unsigned masks[] = {0, 7, 2};
    test_rng rng = test_rng_seeded(17);
    uint64_t seed = 3000;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int dim = 0; dim < (int)shapes[s][0]; dim++)
            for (int type = STENC_F32; type <= STENC_F64; type++)
                for (size_t mi = 0; mi < sizeof masks / sizeof *masks; mi++) {
                    lt_case c = {.type = (stenc_type)type,
                                 .dims = (int)shapes[s][0],
                                 .n = {shapes[s][1], shapes[s][2], shapes[s][3]},
                                 .halo = 1 + (int)(seed % 2),
                                 .dim = dim,
                                 .uniform = masks[mi],
                                 .with_input = (int)(seed / 2 % 2),
                                 .same_bits = 1};
                    lt_values(&c, &rng);
                    lt_result r = lt_launch(&c, seed++);
                    if (r.status != STENC_OK) fail_msg("%s", stenc_last_error());
                }
}

/* ADI: two sweeps alternate with lower = upper = -r and diag = 1 + 2r, r changing now and then;
 * the pool hands back the same filled arrays, lower and upper share one, and results stay
 * right as entries are evicted and refilled. */
static void test_uniform_pool(void **state) {
    (void)state;
    lt_case c = {.type = STENC_F64, .dims = 3, .n = {9, 6, 4}, .halo = 1, .uniform = 7};
    const double rs[] = {0.5, 0.5, 0.25, 0.5, 2, 3, 4, 0.5, 0.25};
    void *first[4] = {NULL, NULL, NULL, NULL};
    uint64_t seed = 9000;
    for (size_t s = 0; s < sizeof rs / sizeof *rs; s++)
        for (int dim = 0; dim < 3; dim++) {
            c.dim = dim;
            c.values[0] = c.values[2] = -rs[s];
            c.values[1] = 1 + 2 * rs[s];
            lt_result r = lt_launch(&c, seed++);
            if (r.status != STENC_OK) fail_msg("%s", stenc_last_error());
            assert_ptr_equal(r.origin[0], r.origin[2]); /* equal off-diagonals share */
            assert_ptr_not_equal(r.origin[0], r.origin[1]);
            if (s == 0 && dim == 0) memcpy(first, r.origin, sizeof first);
            /* r = 0.5 again, before its entries were evicted: the same arrays. */
            if (s <= 3 && rs[s] == 0.5) {
                assert_ptr_equal(r.origin[0], first[0]);
                assert_ptr_equal(r.origin[1], first[1]);
            }
        }
    /* Mixed masks and another type in between, then the pool again. */
    lt_case f = {.type = STENC_F32,
                 .dims = 2,
                 .n = {40, 3, 1},
                 .halo = 2,
                 .dim = 1,
                 .uniform = 2,
                 .with_input = 1,
                 .values = {0, 4.5, 0}};
    lt_result r = lt_launch(&f, seed++);
    if (r.status != STENC_OK) fail_msg("%s", stenc_last_error());
    c.dim = 1;
    r = lt_launch(&c, seed++);
    if (r.status != STENC_OK) fail_msg("%s", stenc_last_error());
    /* Equal values, different identities (0 off the diagonal, 1 on it): never one array. */
    static const double bidiagonal[2][3] = {{0.5, 0.5, 0}, {0, 0.5, 0.5}};
    for (int b = 0; b < 2; b++)
        for (int dim = 0; dim < 3; dim++) {
            c.dim = dim;
            memcpy(c.values, bidiagonal[b], sizeof c.values);
            r = lt_launch(&c, seed++);
            if (r.status != STENC_OK) fail_msg("%s", stenc_last_error());
            assert_ptr_not_equal(r.origin[1], r.origin[b == 0 ? 0 : 2]);
        }
}

/* A launch whose line at (i, j, k) (the coordinate along dim ignored) has lower, diag and
 * upper 0, or with nan_halo, whose first line has a NaN boundary value. */
static lt_case singular_case(stenc_type type, int dims, int dim, int halo, long i, long j, long k,
                             int nan_halo) {
    lt_case c = {.type = type,
                 .dims = dims,
                 .n = {4, dims >= 2 ? 5 : 1, dims >= 3 ? 3 : 1},
                 .halo = halo,
                 .dim = dim,
                 .with_input = halo == 2,
                 .zero_line = !nan_halo,
                 .zero_at = {i, j, k},
                 .nan_halo = nan_halo};
    return c;
}

static void expect_singular(lt_case c, const char *where) {
    lt_result r = lt_launch(&c, 4242);
    assert_int_equal(r.status, STENC_ERR_SINGULAR);
    if (!strstr(stenc_last_error(), where))
        fail_msg("expected \"%s\" in: %s", where, stenc_last_error());
    assert_non_null(strstr(stenc_last_error(), "lines: "));
}

/* STENC_ERR_SINGULAR names the line; v's halo is kept (lt_launch checks it whatever the
 * status), and the next launch is not disturbed. */
static void test_singular(void **state) {
    (void)state;
    for (int ti = STENC_F32; ti <= STENC_F64; ti++) {
        const stenc_type type = (stenc_type)ti;
        expect_singular(singular_case(type, 1, 0, 1, 0, 0, 0, 0),
                        "the line of 'v' along i is singular");
        expect_singular(singular_case(type, 2, 0, 1, 0, 3, 0, 0),
                        "the line of 'v' along i at j=3 is singular");
        expect_singular(singular_case(type, 2, 1, 2, 3, 0, 0, 0), "along j at i=3 is");
        expect_singular(singular_case(type, 3, 0, 1, 0, 2, 1, 0), "along i at j=2, k=1 is");
        /* j of a 3-D field is solved plane by plane: the plane is found too */
        expect_singular(singular_case(type, 3, 1, 1, 2, 0, 1, 0), "along j at i=2, k=1 is");
        expect_singular(singular_case(type, 3, 1, 2, 1, 0, 2, 0), "along j at i=1, k=2 is");
        expect_singular(singular_case(type, 3, 2, 2, 3, 4, 0, 0), "along k at i=3, j=4 is");
        expect_singular(singular_case(type, 3, 1, 1, 0, 0, 0, 1),
                        "along j at i=0, k=0 is singular: a zero pivot or a non-finite value "
                        "(the halo of 'v' must hold finite values)");
        lt_case good = singular_case(type, 3, 1, 1, 0, 0, 0, 0);
        good.zero_line = 0;
        lt_result r = lt_launch(&good, 77);
        if (r.status != STENC_OK) fail_msg("%s", stenc_last_error());
    }
}

/* Fields on the host of any context (a CUDA or OpenCL one in "gpu" or "opencl" mode) are
 * solved on the host. */
static void test_host_fields(void **state) {
    (void)state;
    static const size_t shapes[][4] = {{1, 33, 1, 1}, {2, 7, 33, 1}, {3, 9, 4, 5}};
    uint64_t seed = 555;
    test_rng rng = test_rng_seeded(5);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int dim = 0; dim < (int)shapes[s][0]; dim++) {
            lt_case c = {.type = dim & 1 ? STENC_F32 : STENC_F64,
                         .dims = (int)shapes[s][0],
                         .n = {shapes[s][1], shapes[s][2], shapes[s][3]},
                         .halo = 1,
                         .dim = dim,
                         .uniform = s == 1 ? 7 : 0,
                         .host_fields = 1};
            lt_values(&c, &rng);
            lt_result r = lt_launch(&c, seed++);
            if (r.status != STENC_OK) fail_msg("%s", stenc_last_error());
        }
}

/* A launch table around v alone. */
static const stenc_launch_arg v_arg[1] = {{"v", STENC_ARG_OUTPUT, 0, "", 0, 0, {0, 0, 0}}};

/* A 2-D stencil "lines" whose one argument is v. */
static stenc_launch_desc v_desc(stenc_type type, unsigned targets) {
    const stenc_launch_desc desc = {"lines", 2, type, targets, 1, v_arg};
    return desc;
}

static void expect_error(stenc_status got, stenc_status want, const char *part) {
    assert_int_equal(got, want);
    if (!strstr(stenc_last_error(), part))
        fail_msg("expected \"%s\" in: %s", part, stenc_last_error());
}

static void test_errors(void **state) {
    (void)state;
    const stenc_launch_desc desc = v_desc(STENC_F64, LT_TARGETS);
    stenc_launch_field views[1], coef[4];
    stenc_launch_shape shape;
    const double values[3] = {-1, 4, -1};

    /* halo 0: no boundary values */
    stenc_field *thin;
    assert_stenc_ok(stenc_field_create(ctx, &thin, STENC_F64, 2, 8, 4, 1, 0));
    if (on_device) assert_stenc_ok(stenc_field_upload(thin));
    const stenc_field *fields[1] = {thin};
    assert_stenc_ok(stenc_launch_check(&desc, ctx, fields, views, &shape));
    stenc_launch_solve solve = {0, 0, 0};
    expect_error(stenc_launch_solve_begin(&desc, ctx, &solve, fields, &shape, values, coef),
                 STENC_ERR_SHAPE, "'v' has halo 0");
    stenc_field_free(thin);

    /* a view */
    stenc_field *parent, *view;
    assert_stenc_ok(stenc_field_create(ctx, &parent, STENC_F64, 2, 40, 6, 1, 1));
    if (on_device) assert_stenc_ok(stenc_field_upload(parent));
    const size_t lo[3] = {16, 1, 0}, n[3] = {16, 3, 1};
    assert_stenc_ok(stenc_field_view(&view, parent, lo, n));
    fields[0] = view;
    assert_stenc_ok(stenc_launch_check(&desc, ctx, fields, views, &shape));
    expect_error(stenc_launch_solve_begin(&desc, ctx, &solve, fields, &shape, values, coef),
                 STENC_ERR_UNSUPPORTED, "'v' is a view");
    assert_non_null(strstr(stenc_last_error(), "lines"));
    stenc_field_free(view);

    /* bad arguments */
    fields[0] = parent;
    assert_stenc_ok(stenc_launch_check(&desc, ctx, fields, views, &shape));
    solve = (stenc_launch_solve){2, 0, 0};
    expect_error(stenc_launch_solve_begin(&desc, ctx, &solve, fields, &shape, values, coef),
                 STENC_ERR_INVALID_ARGUMENT, "dimension 2");
    solve = (stenc_launch_solve){0, 1, 0};
    expect_error(stenc_launch_solve_begin(&desc, ctx, &solve, fields, &shape, values, coef),
                 STENC_ERR_INVALID_ARGUMENT, "argument 1");
    solve = (stenc_launch_solve){0, 0, 8};
    expect_error(stenc_launch_solve_begin(&desc, ctx, &solve, fields, &shape, values, coef),
                 STENC_ERR_INVALID_ARGUMENT, "uniform");
    solve = (stenc_launch_solve){0, 0, 2};
    expect_error(stenc_launch_solve_begin(&desc, ctx, &solve, fields, &shape, NULL, coef),
                 STENC_ERR_INVALID_ARGUMENT, "NULL");
    expect_error(stenc_launch_solve_begin(&desc, ctx, &solve, fields, &shape, values, NULL),
                 STENC_ERR_INVALID_ARGUMENT, "NULL");
    const stenc_launch_arg input_arg[1] = {{"v", STENC_ARG_INPUT, 1, "v[-1,0]", 0, 0, {0, 0, 0}}};
    stenc_launch_desc reads = desc;
    reads.args = input_arg;
    expect_error(stenc_launch_solve_begin(&reads, ctx, &solve, fields, &shape, values, coef),
                 STENC_ERR_INVALID_ARGUMENT, "must be written");
    /* end without begin (an earlier begin failed, so none is pending) */
    expect_error(stenc_launch_solve_end(&desc, ctx, &solve, fields, &shape),
                 STENC_ERR_INVALID_ARGUMENT, "without a matching");
    /* begin, then end for another direction */
    assert_stenc_ok(stenc_launch_solve_begin(&desc, ctx, &solve, fields, &shape, values, coef));
    solve.dim = 1;
    expect_error(stenc_launch_solve_end(&desc, ctx, &solve, fields, &shape),
                 STENC_ERR_INVALID_ARGUMENT, "without a matching");

    /* an empty interior: begin succeeds with NULL origins, end does nothing */
    stenc_launch_shape empty = shape;
    empty.n[1] = 0;
    assert_stenc_ok(stenc_launch_solve_begin(&desc, ctx, &solve, fields, &empty, values, coef));
    for (int q = 0; q < 4; q++)
        assert_null(coef[q].origin);
    assert_stenc_ok(stenc_launch_solve_end(&desc, ctx, &solve, fields, &empty));
    stenc_field_free(parent);
}

/* On the host run: fields on an OpenCL device (skipped without one), solved there, every
 * direction of a 3-D field and of a 1-D one, both types, with and without uniform
 * coefficients, and a singular line. ("opencl" runs every test there.) */
static void test_opencl_device(void **state) {
    (void)state;
    if (on_device || stenc_opencl_device_count() == 0) skip();
    stenc_ctx *host = ctx, *ocl = NULL;
    assert_stenc_ok(stenc_ctx_create(&ocl, STENC_DEVICE_OPENCL));
    ctx = ocl, on_device = 1;
    test_rng rng = test_rng_seeded(11);
    uint64_t seed = 7000;
    static const size_t shapes[][4] = {{3, 13, 6, 5}, {1, 31, 1, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int dim = 0; dim < (int)shapes[s][0]; dim++)
            for (int type = STENC_F32; type <= STENC_F64; type++)
                for (unsigned mask = 0; mask <= 7; mask += 7) {
                    lt_case c = {.type = (stenc_type)type,
                                 .dims = (int)shapes[s][0],
                                 .n = {shapes[s][1], shapes[s][2], shapes[s][3]},
                                 .halo = 1 + dim % 2,
                                 .dim = dim,
                                 .uniform = mask,
                                 .with_input = dim % 2};
                    lt_values(&c, &rng);
                    lt_result r = lt_launch(&c, seed++);
                    if (r.status != STENC_OK) fail_msg("%s", stenc_last_error());
                }
    expect_singular(singular_case(STENC_F32, 3, 2, 2, 3, 4, 0, 0), "along k at i=3, j=4 is");
    ctx = host, on_device = 0;
    stenc_ctx_destroy(ocl);
}

static int run(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),        cmocka_unit_test(test_same_bits),
        cmocka_unit_test(test_uniform_pool),  cmocka_unit_test(test_singular),
        cmocka_unit_test(test_host_fields),   cmocka_unit_test(test_errors),
        cmocka_unit_test(test_opencl_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

int main(int argc, char **argv) {
    const int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    const int opencl = argc > 1 && strcmp(argv[1], "opencl") == 0;
    on_device = gpu || opencl;
    if (gpu) TEST_REQUIRE_GPU_OR_SKIP();
    if (opencl && stenc_opencl_device_count() == 0) {
        printf("no OpenCL device: skipped\n");
        return STENC_TEST_SKIP;
    }
    const stenc_device kind = gpu      ? STENC_DEVICE_CUDA
                              : opencl ? STENC_DEVICE_OPENCL
                                       : STENC_DEVICE_CPU;
    if (stenc_ctx_create(&ctx, kind) != STENC_OK) {
        printf("no context: %s\n", stenc_last_error());
        return 1;
    }
    const int rc = run();
    stenc_ctx_destroy(ctx);
    return rc;
}
