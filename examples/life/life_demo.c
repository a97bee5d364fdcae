/* life_demo: Conway's Game of Life with the generated `life` stencil on a periodic board.
 *
 * Each step fills the periodic halo (stenc_field_fill_halo, STENC_BC_PERIODIC on every face)
 * and applies `life` from the cell field into the next one. Three boards whose outcome is
 * known without running the stencil:
 *   glider  - after s steps (s a multiple of 4) the initial glider moved by (s/4, s/4),
 *             wrapping around the board;
 *   blinker - period 2: horizontal after an even number of steps, vertical after an odd one;
 *   soup    - a random board against a hand-written reference (integer counts with explicit
 *             modular indexing, not the stencil, not the halo).
 * --check compares every cell and exits 1 on any difference. The same program runs on the
 * CPU or on the GPU (fields uploaded once, halo fills and steps on the device).
 *
 * life.stencil is compiled by stenc_add_stencils() (CMakeLists.txt); it is a copy of the
 * project's stencils/life.stencil, so that this folder stands alone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "life.h"
#include "stenc/stenc.h"

#define EXAMPLE_NAME "life_demo"
#include "example_util.h"

/* Exit code that ctest reports as "skipped". */
#define LIFE_EXIT_SKIP 77
/* Live fraction of the random soup, and its seed. */
#define LIFE_SOUP_DENSITY 0.3
#define LIFE_SOUP_SEED 20261121u

typedef struct life_options {
    long nx, ny, steps;
    stenc_device device;
    int check;
    long bench_n, bench_steps; /* > 0: time bench_steps steps on a bench_n^2 board */
} life_options;

static void usage(const char *prog) {
    printf("usage: %s [--size NX[xNY]] [--steps S] [--device auto|cpu|cuda] [--check]\n"
           "          [--bench N STEPS] [--quiet] [--help]\n"
           "  --size    board size, 8..65536 per side (default 23x17); the board is periodic\n"
           "  --steps   steps per board (default 100; the glider check needs a multiple of 4)\n"
           "  --device  auto (the GPU when there is one), cpu or cuda (default auto; cuda\n"
           "            without a device exits 77, skipped)\n"
           "  --check   exit 1 unless every board matches its known result exactly\n"
           "  --bench   also time STEPS steps of a random N x N board\n"
           "  --quiet   no progress lines (printed on stderr when it is a terminal)\n",
           prog);
}

/* The progress lines count cell updates: the three boards' steps, the reference's steps for
 * the soup, and the benchmark's. */
typedef struct life_progress {
    progress line;
    double done, total;
} life_progress;

static void life_report(life_progress *lp, double cells) {
    lp->done += cells;
    progress_update(&lp->line, lp->done, lp->total);
}

static int parse_args(int argc, char **argv, life_options *o) {
    *o = (life_options){23, 17, 100, STENC_DEVICE_AUTO, 0, 0, 0};
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(arg, "--check") == 0) {
            o->check = 1;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return usage(EXAMPLE_NAME), -1;
        if (!val) return fprintf(stderr, "%s needs a value\n", arg), -2;
        a++;
        if (strcmp(arg, "--size") == 0) {
            char *end;
            o->nx = strtol(val, &end, 10);
            o->ny = *end == 'x' ? strtol(end + 1, &end, 10) : o->nx;
            if (*end || o->nx < 8 || o->ny < 8 || o->nx > 65536 || o->ny > 65536)
                return fprintf(stderr, "bad size '%s' (8..65536 per side)\n", val), -2;
        } else if (strcmp(arg, "--steps") == 0) {
            o->steps = atol(val);
            if (o->steps < 0) return fprintf(stderr, "bad steps '%s'\n", val), -2;
        } else if (strcmp(arg, "--bench") == 0) {
            if (a + 1 >= argc) return fprintf(stderr, "--bench needs N and STEPS\n"), -2;
            o->bench_n = atol(val), o->bench_steps = atol(argv[++a]);
            if (o->bench_n < 8 || o->bench_steps < 1)
                return fprintf(stderr, "bad --bench %s %s\n", val, argv[a]), -2;
        } else if (strcmp(arg, "--device") == 0) {
            if (example_parse_device(val, &o->device) != 0) return -2;
        } else
            return fprintf(stderr, "unknown option %s\n", arg), -2;
    }
    return 0;
}

/* Run `steps` generations of the nx*ny board `cells` (0/1, i fastest) in place with the
 * generated stencil on ctx; *ms gets the time of the steps alone. */
static int run_board(stenc_ctx *ctx, long nx, long ny, long steps, uint8_t *cells, double *ms,
                     life_progress *lp) {
    size_t count = (size_t)nx * (size_t)ny;
    float *dense = malloc(count * sizeof *dense);
    stenc_field *cur = NULL, *next = NULL;
    stenc_timer *timer = NULL;
    int ok = 0;
    if (!dense) return fprintf(stderr, "life_demo: out of memory\n"), -1;
    for (size_t p = 0; p < count; p++)
        dense[p] = cells[p] ? 1.0f : 0.0f;
    stenc_bc bc[STENC_FACE_COUNT];
    for (int f = 0; f < STENC_FACE_COUNT; f++)
        bc[f] = (stenc_bc){STENC_BC_PERIODIC, 0.0};
    TRY(stenc_field_create(ctx, &cur, STENC_F32, 2, (size_t)nx, (size_t)ny, 1, LIFE_HALO));
    TRY(stenc_field_create(ctx, &next, STENC_F32, 2, (size_t)nx, (size_t)ny, 1, LIFE_HALO));
    TRY(stenc_field_copy_from(cur, dense));
    TRY(stenc_field_upload(cur));
    TRY(stenc_field_upload(next));
    TRY(stenc_timer_create(ctx, &timer));
    TRY(stenc_timer_start(timer));
    for (long s = 0; s < steps; s++) {
        TRY(stenc_field_fill_halo(cur, bc));
        TRY(life(ctx, cur, next));
        TRY(stenc_field_swap(cur, next));
        life_report(lp, (double)count);
    }
    TRY(stenc_timer_stop(timer, ms));
    TRY(stenc_field_download(cur));
    TRY(stenc_field_copy_to(cur, dense));
    for (size_t p = 0; p < count; p++) {
        if (dense[p] != 0.0f && dense[p] != 1.0f) {
            fprintf(stderr, "life_demo: cell %zu holds %g, not 0 or 1\n", p, (double)dense[p]);
            goto fail;
        }
        cells[p] = dense[p] == 1.0f;
    }
    ok = 1;
fail:
    stenc_timer_destroy(timer);
    stenc_field_free(cur);
    stenc_field_free(next);
    free(dense);
    return ok ? 0 : -1;
}

/* The reference: one generation with integer neighbour counts and modular indexing. */
static void reference_step(long nx, long ny, const uint8_t *in, uint8_t *out) {
    for (long j = 0; j < ny; j++)
        for (long i = 0; i < nx; i++) {
            int n = 0;
            for (long dj = -1; dj <= 1; dj++)
                for (long di = -1; di <= 1; di++)
                    if (di || dj) n += in[(i + di + nx) % nx + nx * ((j + dj + ny) % ny)];
            uint8_t alive = in[i + nx * j];
            out[i + nx * j] = (uint8_t)(alive ? (n == 2 || n == 3) : (n == 3));
        }
}

/* Place `pattern` (rows of '.'/'#') with its top-left cell at (i0, j0), wrapping. */
static void place(long nx, long ny, uint8_t *cells, const char *const *pattern, int rows, long i0,
                  long j0) {
    for (int r = 0; r < rows; r++)
        for (int c = 0; pattern[r][c]; c++)
            if (pattern[r][c] == '#') cells[(i0 + c) % nx + nx * ((j0 + r) % ny)] = 1;
}

static long count_diff(size_t count, const uint8_t *a, const uint8_t *b) {
    long d = 0;
    for (size_t p = 0; p < count; p++)
        d += a[p] != b[p];
    return d;
}

static uint32_t xorshift32(uint32_t *s) {
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}

/* The three boards on ctx; returns the number of failed checks, or -1 on an error. */
static int run_checks(stenc_ctx *ctx, const life_options *o, life_progress *lp) {
    static const char *const glider[] = {".#.", "..#", "###"}; /* moves (+1,+1) per 4 steps */
    static const char *const blinker_h[] = {"###"};
    static const char *const blinker_v[] = {"#", "#", "#"};
    const long nx = o->nx, ny = o->ny, s = o->steps;
    const size_t count = (size_t)nx * (size_t)ny;
    uint8_t *board = calloc(count, 1), *expect = calloc(count, 1), *tmp = calloc(count, 1);
    int failures = -1;
    double ms;
    if (!board || !expect || !tmp) goto done;
    failures = 0;

    /* glider */
    place(nx, ny, board, glider, 3, 2, 3);
    if (run_board(ctx, nx, ny, s, board, &ms, lp) != 0) goto error;
    if (s % 4 == 0) {
        place(nx, ny, expect, glider, 3, 2 + s / 4, 3 + s / 4);
        long d = count_diff(count, board, expect);
        printf("glider : %ld steps, moved by (%ld,%ld) mod (%ld,%ld): %ld cells differ  %s\n", s,
               s / 4, s / 4, nx, ny, d, d ? "FAIL" : "ok");
        failures += d != 0;
    } else
        printf("glider : %ld steps is not a multiple of 4: not checked\n", s);

    /* blinker */
    memset(board, 0, count), memset(expect, 0, count);
    place(nx, ny, board, blinker_h, 1, nx / 2 - 1, ny / 2);
    if (run_board(ctx, nx, ny, s, board, &ms, lp) != 0) goto error;
    if (s % 2 == 0)
        place(nx, ny, expect, blinker_h, 1, nx / 2 - 1, ny / 2);
    else
        place(nx, ny, expect, blinker_v, 3, nx / 2, ny / 2 - 1);
    long d = count_diff(count, board, expect);
    printf("blinker: %ld steps, %s: %ld cells differ  %s\n", s, s % 2 ? "vertical" : "horizontal",
           d, d ? "FAIL" : "ok");
    failures += d != 0;

    /* random soup against the reference */
    uint32_t seed = LIFE_SOUP_SEED;
    long alive = 0;
    for (size_t p = 0; p < count; p++)
        board[p] = (uint8_t)(xorshift32(&seed) < LIFE_SOUP_DENSITY * 4294967296.0);
    memcpy(expect, board, count);
    for (long t = 0; t < s; t++) {
        reference_step(nx, ny, expect, tmp);
        memcpy(expect, tmp, count);
        life_report(lp, (double)count);
    }
    if (run_board(ctx, nx, ny, s, board, &ms, lp) != 0) goto error;
    for (size_t p = 0; p < count; p++)
        alive += board[p];
    d = count_diff(count, board, expect);
    printf("soup   : %ld steps, %ld cells alive at the end, %ld differ from the reference  %s\n", s,
           alive, d, d ? "FAIL" : "ok");
    failures += d != 0;
    goto done;
error:
    failures = -1;
done:
    free(board), free(expect), free(tmp);
    return failures;
}

static int run_bench(stenc_ctx *ctx, const life_options *o, life_progress *lp) {
    const long n = o->bench_n;
    const size_t count = (size_t)n * (size_t)n;
    uint8_t *board = malloc(count);
    double ms = 0;
    if (!board) return -1;
    uint32_t seed = LIFE_SOUP_SEED;
    for (size_t p = 0; p < count; p++)
        board[p] = (uint8_t)(xorshift32(&seed) < LIFE_SOUP_DENSITY * 4294967296.0);
    /* one warm-up step (device allocations, first launch), then the timed run */
    int rc = run_board(ctx, n, n, 1, board, &ms, lp);
    if (rc == 0) rc = run_board(ctx, n, n, o->bench_steps, board, &ms, lp);
    if (rc == 0)
        printf("bench  : %ld^2 board, %ld steps (halo fill + life), %.4f ms/step, %.2f Gcells/s\n",
               n, o->bench_steps, ms / (double)o->bench_steps,
               (double)count * (double)o->bench_steps / (ms * 1e-3) * 1e-9);
    free(board);
    return rc;
}

/* On a CUDA context: can `life` run on device-resident fields in this build? */
static int cuda_kernel_available(stenc_ctx *ctx) {
    stenc_field *a = NULL, *b = NULL;
    int ok = stenc_field_create(ctx, &a, STENC_F32, 2, 4, 4, 1, LIFE_HALO) == STENC_OK &&
             stenc_field_create(ctx, &b, STENC_F32, 2, 4, 4, 1, LIFE_HALO) == STENC_OK &&
             stenc_field_upload(a) == STENC_OK && stenc_field_upload(b) == STENC_OK &&
             life(ctx, a, b) == STENC_OK && stenc_ctx_synchronize(ctx) == STENC_OK;
    stenc_field_free(a);
    stenc_field_free(b);
    return ok;
}

int main(int argc, char **argv) {
    progress_args(&argc, argv);
    life_options o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed == -1) return 0;
    if (parsed < 0) return 2;
    stenc_ctx *ctx = NULL;
    if (stenc_ctx_create(&ctx, o.device) != STENC_OK) {
        if (o.device == STENC_DEVICE_CUDA) {
            printf("life_demo: skipped, no CUDA device (%s)\n", stenc_last_error());
            return LIFE_EXIT_SKIP;
        }
        fprintf(stderr, "life_demo: %s\n", stenc_last_error());
        return 1;
    }
    if (stenc_ctx_device(ctx) == STENC_DEVICE_CUDA && !cuda_kernel_available(ctx)) {
        printf("note: life cannot run on the GPU in this build (%s); using the CPU\n",
               stenc_last_error());
        stenc_ctx_destroy(ctx);
        if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) {
            fprintf(stderr, "life_demo: %s\n", stenc_last_error());
            return 1;
        }
    }
    printf("life_demo: %ldx%ld periodic board, %ld steps, device: %s\n", o.nx, o.ny, o.steps,
           stenc_ctx_device_name(ctx));
    life_progress lp = {.done = 0, .total = 4.0 * (double)o.nx * (double)o.ny * (double)o.steps};
    if (o.bench_n > 0) lp.total += (double)o.bench_n * (double)o.bench_n * (o.bench_steps + 1.0);
    progress_begin(&lp.line, "life_demo");
    int failures = run_checks(ctx, &o, &lp);
    if (failures >= 0 && o.bench_n > 0 && run_bench(ctx, &o, &lp) != 0) failures = -1;
    stenc_ctx_destroy(ctx);
    if (failures < 0) return 1;
    if (o.check) {
        printf("check: %s\n", failures ? "FAILED" : "passed");
        return failures ? 1 : 0;
    }
    return 0;
}
