/* Surface mesh smoothing with batched Nelder-Mead (Shaffer & Zagaris, GPU Computing Gems
 * Jade, ch. 13). Colour the vertices greedily so that each colour is an independent set; for
 * each colour, optimise every vertex of that colour at once, in its tangent plane, to maximise
 * the smallest angle of its triangles, moving at most alpha times the distance to its nearest
 * projected neighbour; write the result; report the minimum angle before and after, and the
 * time. The same driver runs on the CPU and on the GPU (the objective is smooth_objective.h).
 *
 * Options: usage() below, or --help. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "smooth_objective.h"
#include "stenc/stenc.h"

#define EXAMPLE_NAME "mesh_smoothing"
#include "example_util.h"

static const double alpha = 0.5;         /* the chapter's step bound */
static const double simplex_frac = 0.25; /* initial simplex edge, as a fraction of the bound */

#define CHECK(call)                                                                                \
    do {                                                                                           \
        stenc_status st_ = (call);                                                                 \
        if (st_ != STENC_OK) {                                                                     \
            fprintf(stderr, "%s: %s\n", #call, stenc_last_error());                                \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static void cross(const double *a, const double *b, double *c) {
    c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2],
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* The local frame at v: the normal averages the incident triangles' normals weighted by area
 * (their cross products), u and v complete an orthonormal basis; radius is the step bound. */
static int make_frame(const mesh *m, int32_t v, smooth_params *sp) {
    const double *p = &m->xyz[3 * v];
    double n[3] = {0, 0, 0};
    for (int32_t k = m->vtri_start[v]; k < m->vtri_start[v + 1]; k++) {
        const int32_t *t = &m->tri[3 * m->vtri[k]];
        double e[3], f[3], c[3];
        for (int i = 0; i < 3; i++)
            e[i] = m->xyz[3 * t[1] + i] - m->xyz[3 * t[0] + i],
            f[i] = m->xyz[3 * t[2] + i] - m->xyz[3 * t[0] + i];
        cross(e, f, c);
        for (int i = 0; i < 3; i++)
            n[i] += c[i];
    }
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0)) return 0;
    for (int i = 0; i < 3; i++)
        n[i] /= len;
    /* u: n crossed with the axis it is least aligned with */
    double axis[3] = {0, 0, 0};
    int a = fabs(n[0]) < fabs(n[1]) ? (fabs(n[0]) < fabs(n[2]) ? 0 : 2)
                                    : (fabs(n[1]) < fabs(n[2]) ? 1 : 2);
    axis[a] = 1;
    cross(n, axis, sp->u);
    len = sqrt(sp->u[0] * sp->u[0] + sp->u[1] * sp->u[1] + sp->u[2] * sp->u[2]);
    for (int i = 0; i < 3; i++)
        sp->u[i] /= len;
    cross(n, sp->u, sp->v);
    double d = INFINITY;
    for (int32_t k = m->nbr_start[v]; k < m->nbr_start[v + 1]; k++) {
        const double *q = &m->xyz[3 * m->nbr[k]];
        double du = 0, dv = 0;
        for (int i = 0; i < 3; i++)
            du += (q[i] - p[i]) * sp->u[i], dv += (q[i] - p[i]) * sp->v[i];
        if (hypot(du, dv) < d) d = hypot(du, dv);
    }
    if (!(d > 0) || !isfinite(d)) return 0;
    memcpy(sp->p, p, sizeof sp->p);
    memcpy(sp->normal, n, sizeof sp->normal);
    sp->radius = alpha * d;
    sp->vertex = v, sp->tri_begin = m->vtri_start[v], sp->tri_end = m->vtri_start[v + 1];
    return 1;
}

typedef struct result {
    double before, after, colour_ms, opt_ms;
    int colours;
} result;

/* Smooth m in place on `device`. The progress lines count colour batches: *done grows by one
 * per colour of each sweep, out of `total` for the whole run. */
static int smooth(mesh *m, stenc_device device, int sweeps, result *r, progress *prog, double *done,
                  double total) {
    stenc_ctx *ctx;
    CHECK(stenc_ctx_create(&ctx, device));
    r->before = mesh_min_angle_deg(m);
    double t0 = progress_now_s();
    int32_t *colour = malloc((size_t)m->nv * sizeof(int32_t));
    r->colours = mesh_colour(m, colour);
    r->colour_ms = 1e3 * (progress_now_s() - t0);
    t0 = progress_now_s();
    /* the mesh on the solver's device; xyz is refreshed after every colour */
    void *xyz_d, *tri_d, *vtri_d, *params_d, *x0_d, *x_d, *f_d, *stop_d, *step_d;
    const size_t nv = (size_t)m->nv;
    CHECK(stenc_malloc(ctx, &xyz_d, 3 * nv * sizeof(double)));
    CHECK(stenc_malloc(ctx, &tri_d, 3 * (size_t)m->nt * sizeof(int32_t)));
    CHECK(stenc_malloc(ctx, &vtri_d, 3 * (size_t)m->nt * sizeof(int32_t)));
    CHECK(stenc_malloc(ctx, &params_d, nv * sizeof(smooth_params)));
    CHECK(stenc_malloc(ctx, &x0_d, 2 * nv * sizeof(double)));
    CHECK(stenc_malloc(ctx, &step_d, 2 * nv * sizeof(double)));
    CHECK(stenc_malloc(ctx, &x_d, 2 * nv * sizeof(double)));
    CHECK(stenc_malloc(ctx, &f_d, nv * sizeof(double)));
    CHECK(stenc_malloc(ctx, &stop_d, nv * sizeof(int32_t)));
    CHECK(stenc_upload(ctx, tri_d, m->tri, 3 * (size_t)m->nt * sizeof(int32_t)));
    CHECK(stenc_upload(ctx, vtri_d, m->vtri, 3 * (size_t)m->nt * sizeof(int32_t)));
    smooth_params *sp = malloc(nv * sizeof *sp);
    double *zeros = calloc(2 * nv, sizeof(double)), *step = malloc(2 * nv * sizeof(double)),
           *x = malloc(2 * nv * sizeof(double)), *f = malloc(nv * sizeof(double));
    int32_t *stop = malloc(nv * sizeof(int32_t)), *ids = malloc(nv * sizeof(int32_t));
    CHECK(stenc_upload(ctx, x0_d, zeros, 2 * nv * sizeof(double)));
    stenc_nm_options opt = stenc_nm_default_options();
    opt.on_nonfinite = STENC_NM_NONFINITE_REJECT; /* +inf outside the step bound */
    opt.max_iter = 200;
    opt.size_tol = 1e-9;
    for (int s = 0; s < sweeps; s++)
        for (int c = 0; c < r->colours; c++) {
            /* the colour count is known only now: a colour is 1/colours of a sweep */
            *done += 1.0 / r->colours;
            progress_update(prog, *done, total);
            CHECK(stenc_upload(ctx, xyz_d, m->xyz, 3 * nv * sizeof(double)));
            size_t count = 0;
            for (int32_t v = 0; v < m->nv; v++) {
                if (colour[v] != c || m->locked[v]) continue;
                smooth_params *q = &sp[count];
                if (!make_frame(m, v, q)) continue;
                q->xyz = xyz_d, q->tri = tri_d, q->vtri = vtri_d;
                step[2 * count] = step[2 * count + 1] = simplex_frac * q->radius;
                ids[count++] = v;
            }
            if (!count) continue;
            CHECK(stenc_upload(ctx, params_d, sp, count * sizeof *sp));
            CHECK(stenc_upload(ctx, step_d, step, 2 * count * sizeof(double)));
            stenc_nm_batch b = {.count = count,
                                .dim = 2,
                                .x0 = x0_d,
                                .step = step_d,
                                .params = params_d,
                                .params_stride = sizeof(smooth_params),
                                .x = x_d,
                                .f = f_d,
                                .stop = stop_d};
            CHECK(mesh_smooth_solver(ctx, &b, &opt));
            CHECK(stenc_download(ctx, x, x_d, 2 * count * sizeof(double)));
            CHECK(stenc_download(ctx, f, f_d, count * sizeof(double)));
            CHECK(stenc_download(ctx, stop, stop_d, count * sizeof(int32_t)));
            for (size_t i = 0; i < count; i++) {
                /* NONFINITE: the start itself was infeasible; leave the vertex */
                if (stop[i] == STENC_NM_STOP_NONFINITE || !isfinite(f[i])) continue;
                double *p = &m->xyz[3 * ids[i]];
                for (int k = 0; k < 3; k++)
                    p[k] += x[2 * i] * sp[i].u[k] + x[2 * i + 1] * sp[i].v[k];
            }
        }
    r->opt_ms = 1e3 * (progress_now_s() - t0);
    r->after = mesh_min_angle_deg(m);
    stenc_free(ctx, xyz_d), stenc_free(ctx, tri_d), stenc_free(ctx, vtri_d);
    stenc_free(ctx, params_d), stenc_free(ctx, x0_d), stenc_free(ctx, step_d);
    stenc_free(ctx, x_d), stenc_free(ctx, f_d), stenc_free(ctx, stop_d);
    free(colour), free(sp), free(zeros), free(step), free(x), free(f), free(stop), free(ids);
    stenc_ctx_destroy(ctx);
    return 0;
}

static mesh copy_mesh(const mesh *m) {
    mesh c = *m;
    c.xyz = malloc(3 * (size_t)m->nv * sizeof(double));
    memcpy(c.xyz, m->xyz, 3 * (size_t)m->nv * sizeof(double));
    return c;
}

typedef struct mesh_options {
    const char *in, *out;
    int nu, nv, sweeps, compare, check;
    double distort;
    stenc_device device;
} mesh_options;

static void usage(const char *prog) {
    printf("usage: %s [--in FILE.off | --torus NU NV DISTORT] [--out FILE.off] [--sweeps N]\n"
           "          [--device auto|cpu|cuda] [--compare] [--check] [--quiet] [--help]\n"
           "  --in       read the mesh from an OFF file (triangles)\n"
           "  --torus    or make a torus of NU x NV vertices, each moved along the surface by up\n"
           "             to DISTORT times the grid spacing at random (default 64 32 0.4)\n"
           "  --out      write the smoothed mesh to an OFF file\n"
           "  --sweeps   passes over all colours (default 3)\n"
           "  --device   auto (the GPU when there is one), cpu or cuda (default auto)\n"
           "  --compare  smooth on the CPU and on the GPU and require the same minimum angle\n"
           "             to 0.01 degree (exit 77 without a GPU)\n"
           "  --check    exit 1 unless the minimum angle rose\n"
           "  --quiet    no progress lines (printed on stderr when it is a terminal)\n",
           prog);
}

static int parse_args(int argc, char **argv, mesh_options *o) {
    *o = (mesh_options){NULL, NULL, 64, 32, 3, 0, 0, 0.4, STENC_DEVICE_AUTO};
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        const int left = argc - a - 1; /* values after the option */
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
            return usage(EXAMPLE_NAME), -1;
        else if (!strcmp(arg, "--compare"))
            o->compare = 1;
        else if (!strcmp(arg, "--check"))
            o->check = 1;
        else if (!strcmp(arg, "--in") && left >= 1)
            o->in = argv[++a];
        else if (!strcmp(arg, "--out") && left >= 1)
            o->out = argv[++a];
        else if (!strcmp(arg, "--torus") && left >= 3) {
            o->nu = atoi(argv[a + 1]), o->nv = atoi(argv[a + 2]), o->distort = atof(argv[a + 3]);
            a += 3;
            if (o->nu < 3 || o->nv < 3)
                return fprintf(stderr, "mesh_smoothing: --torus needs NU, NV >= 3\n"), -2;
        } else if (!strcmp(arg, "--sweeps") && left >= 1) {
            o->sweeps = atoi(argv[++a]);
            if (o->sweeps < 0) return fprintf(stderr, "mesh_smoothing: bad --sweeps\n"), -2;
        } else if (!strcmp(arg, "--device") && left >= 1) {
            if (example_parse_device(argv[++a], &o->device) != 0) return -2;
        } else
            return fprintf(stderr, "mesh_smoothing: bad option %s (--help)\n", arg), -2;
    }
    return 0;
}

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    mesh_options o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed == -1) return 0;
    if (parsed < 0) return 2;
    const int compare = o.compare, check = o.check, sweeps = o.sweeps;
    if (compare && stenc_cuda_device_count() == 0) {
        printf("SKIPPED: --compare needs a CUDA device\n");
        return 77;
    }
    mesh m;
    if (o.in) {
        if (mesh_read_off(o.in, &m)) return 1;
    } else
        mesh_torus(&m, o.nu, o.nv, o.distort, 1);
    mesh_build_adjacency(&m);
    int ok = 1;
    stenc_device devices[2] = {o.device, STENC_DEVICE_CUDA};
    if (compare) devices[0] = STENC_DEVICE_CPU;
    result res[2];
    mesh smoothed[2];
    progress prog;
    double done = 0;
    progress_begin(&prog, "mesh_smoothing");
    for (int d = 0; d < 1 + compare; d++) {
        smoothed[d] = copy_mesh(&m);
        if (smooth(&smoothed[d], devices[d], sweeps, &res[d], &prog, &done,
                   (double)sweeps * (1 + compare)))
            return 1;
        stenc_ctx *probe;
        const char *dev = "cpu";
        if (stenc_ctx_create(&probe, devices[d]) == STENC_OK) {
            dev = stenc_ctx_device(probe) == STENC_DEVICE_CUDA ? "cuda" : "cpu";
            stenc_ctx_destroy(probe);
        }
        printf("name=mesh_smoothing device=%s vertices=%d triangles=%d colours=%d sweeps=%d "
               "min_angle_before=%.4f min_angle_after=%.4f colour_ms=%.3f optimise_ms=%.3f\n",
               dev, m.nv, m.nt, res[d].colours, sweeps, res[d].before, res[d].after,
               res[d].colour_ms, res[d].opt_ms);
        if (check && !(res[d].after > res[d].before)) {
            printf("CHECK FAILED: the minimum angle did not rise\n");
            ok = 0;
        }
    }
    if (compare) {
        /* same quality: the same algorithm in double precision; the GPU's fused multiply-adds
         * and libm may part trajectories in the last bits, so allow a hundredth of a degree */
        double diff = fabs(res[0].after - res[1].after);
        printf("cpu_vs_cuda_min_angle_diff=%.6f\n", diff);
        if (diff > 0.01) {
            printf("CHECK FAILED: CPU and GPU quality differ\n");
            ok = 0;
        }
    }
    if (o.out && mesh_write_off(o.out, &smoothed[0])) {
        fprintf(stderr, "cannot write %s\n", o.out);
        ok = 0;
    }
    for (int d = 0; d < 1 + compare; d++)
        free(smoothed[d].xyz);
    mesh_free(&m);
    return ok ? 0 : 1;
}
