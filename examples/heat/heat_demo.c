/* heat_demo: u_t = kappa * laplace(u) on the unit cube, zero Dirichlet boundaries,
 * u0 = sin(pi x) sin(pi y) sin(pi z), stepped with the heat3d stencil (forward Euler,
 * a = 1 - 6r, b = r, r = kappa*dt/h^2 <= 1/6) on a sequence of grids. The exact solution is
 * exp(-3 pi^2 kappa t) u0; the scheme is second order in h at fixed r, so the maximum error
 * should fall about 4x per refinement.
 *
 * heat3d.stencil is compiled by stenc_add_stencils() (CMakeLists.txt), for the GPU too when
 * nvcc is there. The program runs on the GPU when the context is a CUDA one and the kernel
 * runs there, else on the CPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat3d.h"
#include "stenc/stenc.h"

#define EXAMPLE_NAME "heat_demo"
#include "example_util.h"

#define HEAT_MAX_GRIDS 8
/* The ratio of successive errors below which --check fails: second order gives about 4. */
#define HEAT_CHECK_MIN_RATIO 3.0

typedef struct heat_options {
    long grids[HEAT_MAX_GRIDS];
    int ngrids;
    double kappa, t_end, r;
    long steps; /* > 0: fixed number of steps (dt = t_end/steps must keep r <= 1/6) */
    stenc_device device;
    int check;
    const char *vti_dir; /* --vti: snapshots of u there, with one .pvd per grid */
    long snapshots;      /* how many per grid, besides the initial state */
} heat_options;

static void usage(const char *prog) {
    printf("usage: %s [--grids 16,32,64,128] [--t-end T] [--kappa K] [--r R] [--steps S]\n"
           "          [--device auto|cpu|cuda] [--vti DIR] [--snapshots N] [--check] [--quiet]\n"
           "          [--help]\n"
           "  --grids   interior points per side of each grid, in refinement order\n"
           "            (default 16,32,64,128; each 2..2048)\n"
           "  --t-end   final time (default 0.02)\n"
           "  --kappa   diffusivity (default 1)\n"
           "  --r       kappa*dt/h^2, at most 1/6 (default 0.125)\n"
           "  --steps   fixed number of steps for every grid instead of --r\n"
           "  --device  auto (the GPU when there is one), cpu or cuda (default auto)\n"
           "  --vti     write u as VTK ImageData to DIR/heat_N_STEP.vti, with the time series\n"
           "            DIR/heat_N.pvd for ParaView (the writes are inside the timed loop)\n"
           "  --snapshots  snapshots per grid after the initial one, with --vti (default 10)\n"
           "  --check   exit 1 unless the error falls by at least %.1fx per refinement\n"
           "  --quiet   no progress lines (printed on stderr when it is a terminal)\n",
           prog, HEAT_CHECK_MIN_RATIO);
}

static int parse_args(int argc, char **argv, heat_options *o) {
    const long default_grids[] = {16, 32, 64, 128};
    o->ngrids = 4;
    memcpy(o->grids, default_grids, sizeof default_grids);
    o->kappa = 1.0, o->t_end = 0.02, o->r = 0.125, o->steps = 0;
    o->device = STENC_DEVICE_AUTO, o->check = 0;
    o->vti_dir = NULL, o->snapshots = 10;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(arg, "--check") == 0) {
            o->check = 1;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return usage(EXAMPLE_NAME), -1;
        if (!val) return fprintf(stderr, "%s needs a value\n", arg), -2;
        a++;
        if (strcmp(arg, "--grids") == 0) {
            o->ngrids = example_parse_sizes(val, o->grids, HEAT_MAX_GRIDS, 2, 2048);
            if (o->ngrids < 0) return -2;
        } else if (strcmp(arg, "--t-end") == 0)
            o->t_end = atof(val);
        else if (strcmp(arg, "--kappa") == 0)
            o->kappa = atof(val);
        else if (strcmp(arg, "--r") == 0)
            o->r = atof(val);
        else if (strcmp(arg, "--steps") == 0)
            o->steps = atol(val);
        else if (strcmp(arg, "--vti") == 0)
            o->vti_dir = val;
        else if (strcmp(arg, "--snapshots") == 0)
            o->snapshots = atol(val);
        else if (strcmp(arg, "--device") == 0) {
            if (example_parse_device(val, &o->device) != 0) return -2;
        } else
            return fprintf(stderr, "unknown option %s\n", arg), -2;
    }
    if (o->snapshots < 1) return fprintf(stderr, "need --snapshots >= 1\n"), -2;
    if (!(o->kappa > 0) || !(o->t_end > 0) || !(o->r > 0 && o->r <= 1.0 / 6))
        return fprintf(stderr, "need kappa > 0, t-end > 0, 0 < r <= 1/6\n"), -2;
    return 0;
}

/* On a CUDA context: can the heat3d launcher run on device-resident fields? (The generated
 * kernels may have been built for the CPU only.) */
static int cuda_kernel_available(stenc_ctx *ctx) {
    stenc_field *x = NULL, *y = NULL;
    int ok = stenc_field_create(ctx, &x, STENC_F32, 3, 3, 3, 3, 1) == STENC_OK &&
             stenc_field_create(ctx, &y, STENC_F32, 3, 3, 3, 3, 1) == STENC_OK &&
             stenc_field_upload(x) == STENC_OK && stenc_field_upload(y) == STENC_OK &&
             heat3d(ctx, 0.5, 0.1, x, y) == STENC_OK && stenc_ctx_synchronize(ctx) == STENC_OK;
    stenc_field_free(x);
    stenc_field_free(y);
    return ok;
}

typedef struct heat_result {
    long steps;
    double dt, r, seconds, gpts, max_error;
} heat_result;

/* The number of steps on an n^3 grid: --steps, or what keeps kappa*dt/h^2 at --r. */
static long heat_steps(const heat_options *o, int n) {
    const double h = 1.0 / (n + 1);
    return o->steps > 0 ? o->steps : (long)ceil(o->t_end * o->kappa / (o->r * h * h));
}

/* With --vti: write u at time t as DIR/heat_N_STEP.vti and list it in the grid's .pvd. Reads
 * the field where it lives (the device copy on a GPU) without moving it. */
static stenc_status snapshot(const heat_options *o, stenc_io_pvd *pvd, const stenc_field *u, int n,
                             long step, double t) {
    if (!pvd) return STENC_OK;
    char name[64], path[4200];
    snprintf(name, sizeof name, "heat_%d_%06ld.vti", n, step);
    snprintf(path, sizeof path, "%s/%s", o->vti_dir, name);
    const double h = 1.0 / (n + 1), origin[3] = {h, h, h}, spacing[3] = {h, h, h};
    const char *names[] = {"u"};
    const stenc_field *fields[] = {u};
    stenc_status st = stenc_io_vti_write(path, 1, names, fields, origin, spacing);
    return st != STENC_OK ? st : stenc_io_pvd_add(pvd, t, name);
}

/* Solve on an n^3 interior grid (h = 1/(n+1); the boundary sits in the halo). The progress
 * lines count point updates: *work_done grows by n^3 per step, out of work_total. */
static int solve(stenc_ctx *ctx, const heat_options *o, int n, heat_result *res, progress *prog,
                 double *work_done, double work_total) {
    const double pi = acos(-1.0), h = 1.0 / (n + 1);
    const long steps = heat_steps(o, n);
    const double dt = o->t_end / (double)steps, r = o->kappa * dt / (h * h);
    if (r > 1.0 / 6 + 1e-12) {
        fprintf(stderr, "heat_demo: %ld steps on %d^3 give r = %.4f > 1/6 (unstable)\n", steps, n,
                r);
        return -1;
    }
    size_t count = (size_t)n * n * n;
    float *u = malloc(count * sizeof *u);
    stenc_field *x = NULL, *y = NULL;
    stenc_timer *timer = NULL;
    stenc_io_pvd *pvd = NULL;
    int ok = 0;
    if (!u) return fprintf(stderr, "heat_demo: out of memory\n"), -1;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                u[i + (size_t)n * (j + (size_t)n * k)] =
                    (float)(sin(pi * (i + 1) * h) * sin(pi * (j + 1) * h) * sin(pi * (k + 1) * h));
    TRY(stenc_field_create(ctx, &x, STENC_F32, 3, n, n, n, 1));
    TRY(stenc_field_create(ctx, &y, STENC_F32, 3, n, n, n, 1));
    TRY(stenc_field_copy_from(x, u));
    /* Zero Dirichlet halos. heat3d writes only interior points, so the halos of both fields
     * keep their zeros through every step and swap; one fill is enough. */
    stenc_bc bc[STENC_FACE_COUNT];
    for (int f = 0; f < STENC_FACE_COUNT; f++)
        bc[f] = (stenc_bc){STENC_BC_DIRICHLET, 0.0};
    TRY(stenc_field_fill_halo(x, bc));
    TRY(stenc_field_fill_halo(y, bc));
    TRY(stenc_field_upload(x));
    TRY(stenc_field_upload(y));

    const long every = steps / o->snapshots > 0 ? steps / o->snapshots : 1;
    if (o->vti_dir) {
        char path[4200];
        snprintf(path, sizeof path, "%s/heat_%d.pvd", o->vti_dir, n);
        TRY(stenc_io_pvd_open(&pvd, path));
        TRY(snapshot(o, pvd, x, n, 0, 0.0));
    }

    TRY(stenc_timer_create(ctx, &timer));
    TRY(stenc_timer_start(timer));
    for (long s = 1; s <= steps; s++) {
        TRY(heat3d(ctx, 1 - 6 * r, r, x, y));
        TRY(stenc_field_swap(x, y));
        if (s % every == 0 || s == steps) TRY(snapshot(o, pvd, x, n, s, (double)s * dt));
        *work_done += (double)count;
        progress_update(prog, *work_done, work_total);
    }
    double ms = 0;
    TRY(stenc_timer_stop(timer, &ms));
    TRY(stenc_field_download(x));
    TRY(stenc_field_copy_to(x, u));

    const double decay = exp(-3 * pi * pi * o->kappa * o->t_end);
    double err = 0;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double exact =
                    decay * sin(pi * (i + 1) * h) * sin(pi * (j + 1) * h) * sin(pi * (k + 1) * h);
                double e = fabs((double)u[i + (size_t)n * (j + (size_t)n * k)] - exact);
                if (!(e <= err)) err = e; /* NaN propagates */
            }
    res->steps = steps, res->dt = dt, res->r = r, res->seconds = ms * 1e-3;
    res->gpts = (double)count * (double)steps / (ms * 1e-3) * 1e-9;
    res->max_error = err;
    ok = 1;
fail:
    if (pvd && stenc_io_pvd_close(pvd) != STENC_OK) ok = 0;
    stenc_timer_destroy(timer);
    stenc_field_free(x);
    stenc_field_free(y);
    free(u);
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    heat_options o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed == -1) return 0;
    if (parsed < 0) return 2;
    stenc_ctx *ctx = NULL;
    if (stenc_ctx_create(&ctx, o.device) != STENC_OK) {
        fprintf(stderr, "heat_demo: %s\n", stenc_last_error());
        return 1;
    }
    if (o.device == STENC_DEVICE_AUTO && stenc_ctx_device(ctx) == STENC_DEVICE_CUDA &&
        !cuda_kernel_available(ctx)) {
        printf("note: heat3d cannot run on the GPU in this build (%s); using the CPU\n",
               stenc_last_error());
        stenc_ctx_destroy(ctx);
        if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) {
            fprintf(stderr, "heat_demo: %s\n", stenc_last_error());
            return 1;
        }
    }
    printf("heat_demo: u_t = kappa laplace(u) on the unit cube, kappa = %g, t = %g\n", o.kappa,
           o.t_end);
    printf("device: %s\n", stenc_ctx_device_name(ctx));
    printf("%8s %8s %10s %8s %10s %10s %12s %8s\n", "grid", "steps", "dt", "r", "time_s", "Gpts/s",
           "max_error", "ratio");
    double prev_err = 0, work_done = 0, work_total = 0;
    int failed = 0;
    for (int g = 0; g < o.ngrids; g++)
        work_total += pow((double)o.grids[g], 3) * (double)heat_steps(&o, (int)o.grids[g]);
    progress prog;
    progress_begin(&prog, "heat_demo");
    for (int g = 0; g < o.ngrids; g++) {
        heat_result res;
        if (solve(ctx, &o, (int)o.grids[g], &res, &prog, &work_done, work_total) != 0) {
            stenc_ctx_destroy(ctx);
            return 1;
        }
        double ratio = g > 0 ? prev_err / res.max_error : 0;
        char ratio_text[32] = "-";
        if (g > 0) snprintf(ratio_text, sizeof ratio_text, "%.2f", ratio);
        printf("%5ld^3 %8ld %10.3e %8.4f %10.3f %10.3f %12.4e %8s\n", o.grids[g], res.steps, res.dt,
               res.r, res.seconds, res.gpts, res.max_error, ratio_text);
        fflush(stdout);
        if (!isfinite(res.max_error)) failed = 1;
        if (g > 0 && !(ratio >= HEAT_CHECK_MIN_RATIO)) failed = 1;
        prev_err = res.max_error;
    }
    stenc_ctx_destroy(ctx);
    if (o.check) {
        printf("check: %s (error must fall by >= %.1fx per refinement)\n",
               failed ? "FAILED" : "passed", HEAT_CHECK_MIN_RATIO);
        return failed ? 1 : 0;
    }
    return 0;
}
