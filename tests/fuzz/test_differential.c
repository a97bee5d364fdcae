/* Differential test of the whole compiler: random valid stencils (gen_stencil.c) go through the
 * stenc program (--target c,cuda,opencl), their C files (and the opencl target's host files)
 * through gcc and clang and their CUDA files through nvcc with strict warnings, and the gcc
 * objects are loaded (one shared object per batch) and launched on random fields at awkward
 * sizes, colour by colour, on the host, and where there is an OpenCL device (PoCL in CI) once
 * more on it. Every point of
 * every field, and every reduction, must equal what the generator's own interpreter computes:
 * bitwise (NaN equals NaN), sums and line solves within a tolerance. Each field has its array's
 * shape (lower-dimensional, staggered) and type (integer inputs).
 *
 * Environment: STENC_RANDOM_STENCILS (200), STENC_RANDOM_SEED (1), STENC_RANDOM_FLAGS
 * (gen_stencil.h; "default"), STENC_RANDOM_JOBS (2), STENC_RANDOM_BATCH (25),
 * STENC_RANDOM_NVCC (stencils whose .cu is compiled: 48), STENC_RANDOM_CLANG (0 to skip),
 * STENC_RANDOM_KEEP (1: keep the work directory), STENC_RANDOM_OUT (where failing cases go),
 * STENC_RANDOM_EXPORT (a directory: only generate and run stenc, and copy each batch's
 * .stencil, .h and _cuda.cu files there with nvcc's command line, for nvcc on a machine with
 * more cores: tests/fuzz/nvcc_export.sh).
 * A failure prints the seed and the stencil; `stenc_gen -f FLAGS SEED` prints it again. */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "check.h"
#include "gen_stencil.h"
#include "stenc/opencl.h"
#include "stenc/stenc.h"

/* -fno-builtin: gcc folds a math call whose argument is a constant after propagation with MPFR,
 * correctly rounded, where the evaluator calls the C library, which may differ in the last bit
 * (found/gcc_folds_math_on_constants.stencil). */
#define STRICT_C                                                                                   \
    "-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -ffp-contract=off -fno-builtin -Wall -Wextra -Werror " \
    "-Wshadow "                                                                                    \
    "-Wpedantic"
#define STRICT_CU "-std=c++17 -arch=sm_90 -fmad=false -Werror all-warnings -Xcompiler -Wall,-Wextra"

typedef struct config {
    long count;
    uint64_t seed;
    unsigned flags;
    int jobs, batch, nvcc_max, use_clang, keep;
    char export_dir[1024];
    char out[1024];
} config;

typedef struct totals {
    long generated, accepted, gcc_ok, clang_ok, nvcc_ok, nvcc_tried, compared, launches;
    long ocl_launched, ocl_compared; /* stencils run, and compared, on the OpenCL device */
    long failures, clang_failures, nvcc_failures;
} totals;

static config cfg;
static totals tot;
static char work[1024];
static FILE *fail_log;

static long env_long(const char *name, long dflt) {
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 0) : dflt;
}

/* ---- processes --------------------------------------------------------------------------- */

/* Run shell commands, up to cfg.jobs at once; status[c] receives each exit status (or 128 +
 * signal). */
static void run_all(char **cmds, int n, int *status) {
    pid_t pid[64];
    int which[64], running = 0, next = 0;
    while (next < n || running) {
        while (next < n && running < cfg.jobs && running < 64) {
            pid_t p = fork();
            if (p == 0) {
                execl("/bin/sh", "sh", "-c", cmds[next], (char *)NULL);
                _exit(127);
            }
            pid[running] = p;
            which[running++] = next++;
        }
        int st = 0;
        pid_t done = wait(&st);
        for (int r = 0; r < running; r++)
            if (pid[r] == done) {
                status[which[r]] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                pid[r] = pid[running - 1];
                which[r] = which[running - 1];
                running--;
                break;
            }
    }
}

static int run1(const char *cmd) {
    char *c = (char *)cmd;
    int st = 0;
    run_all(&c, 1, &st);
    return st;
}

static char *xasprintf(const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return s;
}

/* The first `max` bytes of a file, NUL-terminated (a note in their place when it cannot be
 * read). */
static char *slurp_up_to(const char *path, long max) {
    FILE *f = fopen(path, "rb");
    if (!f) return xasprintf("(cannot read %s)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n > max) n = max;
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

/* A log: its start says what failed. */
static char *slurp(const char *path) {
    return slurp_up_to(path, 6000);
}

/* ---- one batch --------------------------------------------------------------------------- */

typedef struct item {
    uint64_t seed;
    gs_stencil *st;
    int ok;     /* still going: accepted, compiled, ... */
    int failed; /* a failure was recorded */
} item;

/* Record a failure: the seed, the stage, details, and the stencil; the stencil also goes to
 * cfg.out/seed_SEED.stencil with the reason as a comment. */
static void fail_item(item *it, const char *stage, const char *fmt, ...) {
    char detail[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    it->ok = 0;
    it->failed = 1;
    tot.failures++;
    printf("FAIL seed %llu (%s): %s\n%s\n", (unsigned long long)it->seed, stage, detail,
           gs_text(it->st));
    if (fail_log) {
        fprintf(fail_log, "seed %llu flags %s stage %s\n%s\n", (unsigned long long)it->seed,
                gs_flags_text(cfg.flags), stage, detail);
        fflush(fail_log);
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/seed_%llu.stencil", cfg.out, (unsigned long long)it->seed);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "# differential test: %s fails\n# ", stage);
        for (const char *p = detail; *p && p - detail < 2000; p++) {
            fputc(*p, f);
            if (*p == '\n') fputs("# ", f);
        }
        fprintf(f, "\n%s", gs_text(it->st));
        fclose(f);
    }
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void run_stenc(item *items, int n, const char *dir) {
    char *all = xasprintf("cd %s && %s --target c,cuda,opencl -o . ", dir, STENC_EXE);
    for (int s = 0; s < n; s++) {
        char *more = xasprintf("%s %s.stencil", all, gs_get_info(items[s].st)->name);
        free(all);
        all = more;
    }
    char *cmd = xasprintf("%s > stenc.log 2>&1", all);
    free(all);
    if (run1(cmd) == 0) {
        free(cmd);
        return;
    }
    free(cmd);
    /* Some stencil is refused (or the program died): find which, one at a time. */
    for (int s = 0; s < n; s++) {
        const char *name = gs_get_info(items[s].st)->name;
        char *one =
            xasprintf("cd %s && %s --target c,cuda,opencl -o . %s.stencil > %s.stenc.log 2>&1", dir,
                      STENC_EXE, name, name);
        int st = run1(one);
        free(one);
        if (st) {
            char *log = xasprintf("%s/%s.stenc.log", dir, name);
            char *text = slurp(log);
            fail_item(&items[s], "stenc", "exit status %d:\n%s", st, text);
            free(text);
            free(log);
        }
    }
}

/* Compile each item's C file with `cc`; objects NAME_c<suffix>.o. Returns through it->ok
 * (gcc) or counts failures (clang: reported apart, the objects are not run). */
static void compile_c(item *items, int n, const char *dir, const char *cc, const char *extra,
                      const char *suffix, int is_gcc) {
    char *cmds[256];
    int idx[256], status[256], m = 0;
    for (int s = 0; s < n; s++) {
        if (!items[s].ok) continue;
        const char *name = gs_get_info(items[s].st)->name;
        /* the C file, and the opencl target's host file (its kernel is a string in it) */
        cmds[m] = xasprintf("cd %s && %s " STRICT_C " %s -I %s/runtime/include -c %s_c.c -o "
                            "%s_c%s.o > %s_c%s.log 2>&1 && %s " STRICT_C " %s -I "
                            "%s/runtime/include -I . -c %s_opencl.c -o %s_opencl%s.o >> "
                            "%s_c%s.log 2>&1",
                            dir, cc, extra, STENC_SOURCE_DIR, name, name, suffix, name, suffix, cc,
                            extra, STENC_SOURCE_DIR, name, name, suffix, name, suffix);
        idx[m++] = s;
    }
    run_all(cmds, m, status);
    for (int c = 0; c < m; c++) {
        free(cmds[c]);
        item *it = &items[idx[c]];
        if (status[c] == 0) {
            if (is_gcc)
                tot.gcc_ok++;
            else
                tot.clang_ok++;
            continue;
        }
        const char *name = gs_get_info(it->st)->name;
        char *log = xasprintf("%s/%s_c%s.log", dir, name, suffix);
        char *text = slurp(log);
        if (is_gcc) {
            fail_item(it, "gcc", "%s", text);
        } else {
            tot.clang_failures++;
            int ok = it->ok;
            fail_item(it, "clang", "%s", text);
            it->ok = ok; /* the gcc object still runs */
        }
        free(text);
        free(log);
    }
}

/* nvcc, several files per invocation (its start-up dominates); a failing group is retried
 * file by file to name the culprit. */
static void compile_cuda(item *items, int n, const char *dir) {
    int pick[256], m = 0;
    for (int s = 0; s < n && tot.nvcc_tried < cfg.nvcc_max; s++)
        if (items[s].ok) {
            pick[m++] = s;
            tot.nvcc_tried++;
        }
    if (!m) return;
    int groups = cfg.jobs < m ? cfg.jobs : m;
    char *cmds[64];
    int status[64];
    for (int g = 0; g < groups; g++) {
        char *c = xasprintf("cd %s && %s " STRICT_CU " -I %s/runtime/include -I . -c", dir,
                            FUZZ_NVCC, STENC_SOURCE_DIR);
        for (int k = g; k < m; k += groups) {
            char *more = xasprintf("%s %s_cuda.cu", c, gs_get_info(items[pick[k]].st)->name);
            free(c);
            c = more;
        }
        cmds[g] = xasprintf("%s > nvcc%d.log 2>&1", c, g);
        free(c);
    }
    run_all(cmds, groups, status);
    for (int g = 0; g < groups; g++) {
        free(cmds[g]);
        for (int k = g; k < m; k += groups) {
            item *it = &items[pick[k]];
            const char *name = gs_get_info(it->st)->name;
            int st = 0;
            if (status[g]) {
                char *one = xasprintf("cd %s && %s " STRICT_CU " -I %s/runtime/include -I . -c "
                                      "%s_cuda.cu > %s_cuda.log 2>&1",
                                      dir, FUZZ_NVCC, STENC_SOURCE_DIR, name, name);
                st = run1(one);
                free(one);
            }
            if (!st) {
                tot.nvcc_ok++;
                continue;
            }
            tot.nvcc_failures++;
            char *log = xasprintf("%s/%s_cuda.log", dir, name);
            char *text = slurp(log);
            int ok = it->ok;
            fail_item(it, "nvcc", "%s", text);
            it->ok = ok; /* the host code still runs */
            free(text);
            free(log);
        }
    }
}

/* 1 when the file at `path` holds `text`. */
static int file_contains(const char *path, const char *text) {
    char *all = slurp_up_to(path, LONG_MAX);
    const int found = strstr(all, text) != NULL;
    free(all);
    return found;
}

/* The launcher of every item, behind one function the test finds with dlsym. -Bsymbolic: a
 * stencil named like a C library function (signal, write) must call itself, not libc. */
typedef stenc_status (*dispatch_fn)(int s, stenc_ctx *ctx, int color, const double *sc,
                                    stenc_field *const *f, double *red);

static void *build_batch(item *items, int n, const char *dir) {
    char path[1200];
    snprintf(path, sizeof path, "%s/dispatch.c", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#include <stddef.h>\n#include \"stenc/launch.h\"\n");
    for (int s = 0; s < n; s++)
        if (items[s].ok) fprintf(f, "#include \"%s.h\"\n", gs_get_info(items[s].st)->name);
    for (int s = 0; s < n; s++) /* the host code names the CUDA variants: no .cu linked */
        if (items[s].ok) {
            const char *name = gs_get_info(items[s].st)->name;
            fprintf(f,
                    "const stenc_launch_variants %s_cuda_variants = {\"%s\", STENC_F64, 0, NULL, "
                    "0, \"\"};\n",
                    name, name);
            /* and a stepping stencil's stepper its tstep kernels, when it has some */
            char decl[GS_NAME + 64], c_file[1200];
            snprintf(decl, sizeof decl, "extern const stenc_launch_tsteps %s_cuda_tsteps;", name);
            snprintf(c_file, sizeof c_file, "%s/%s_c.c", dir, name);
            if (file_contains(c_file, decl))
                fprintf(f, "const stenc_launch_tsteps %s_cuda_tsteps = {0, NULL, 0, NULL};\n",
                        name);
        }
    /* Parameter names in the reserved stenc_ space: a stencil may be named s, f or ctx. */
    const char *proto = "stenc_status fuzz_dispatch(int stenc_s, stenc_ctx *stenc_c, int stenc_k, "
                        "const double *stenc_sc, stenc_field *const *stenc_f, double *stenc_r)";
    fprintf(f,
            "%s;\n%s {\n    (void)stenc_k; (void)stenc_sc; (void)stenc_f; (void)stenc_r;\n"
            "    switch (stenc_s) {\n",
            proto, proto);
    char objs[65536] = "";
    for (int s = 0; s < n; s++) {
        if (!items[s].ok) continue;
        const gs_info *in = gs_get_info(items[s].st);
        fprintf(f, "    case %d: return %s(stenc_c", s, in->name);
        if (in->ncolors) fprintf(f, ", stenc_k");
        for (int k = 0; k < in->nscalars; k++)
            fprintf(f, ", stenc_sc[%d]", k);
        for (int k = 0; k < in->nfields; k++)
            fprintf(f, ", stenc_f[%d]", k);
        for (int k = 0; k < in->nreduces; k++)
            fprintf(f, ", &stenc_r[%d]", k);
        fprintf(f, ");\n");
        size_t len = strlen(objs);
        snprintf(objs + len, sizeof objs - len, " %s_c.o %s_opencl.o", in->name, in->name);
    }
    fprintf(f, "    }\n    return STENC_ERR_INVALID_ARGUMENT;\n}\n");
    fclose(f);
    char *cmd = xasprintf("cd %s && %s -std=c11 -O1 -fPIC -fopenmp -I %s/runtime/include -I . -c "
                          "dispatch.c -o dispatch.o > link.log 2>&1 && %s -shared -fopenmp "
                          "-Wl,-Bsymbolic -o batch.so dispatch.o%s -lm >> link.log 2>&1",
                          dir, FUZZ_GCC, STENC_SOURCE_DIR, FUZZ_GCC, objs);
    int st = run1(cmd);
    free(cmd);
    snprintf(path, sizeof path, "%s/batch.so", dir);
    void *h = st == 0 ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h) {
        char log[1200];
        snprintf(log, sizeof log, "%s/link.log", dir);
        char *text = slurp(log);
        const char *why = st ? text : dlerror();
        for (int s = 0; s < n; s++)
            if (items[s].ok) fail_item(&items[s], "link", "%s", why);
        free(text);
    }
    return h;
}

/* ---- running and comparing --------------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int between(rng *r, int lo, int hi) {
    return lo + (int)(rnd(r) % (uint64_t)(hi - lo + 1));
}
static double uniform(rng *r) {
    return ldexp((double)(rnd(r) >> 11), -53) * 4 - 2;
}

/* A field value: mostly in [-2, 2], sometimes a special one. */
static double random_value(rng *r, int is_float) {
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 1e30, -1e-30, 100.0};
    int k = between(r, 0, 99);
    double v;
    if (k < 80)
        v = uniform(r);
    else if (k < 97)
        v = special[between(r, 0, 9)];
    else
        v = k == 97 ? NAN : k == 98 ? INFINITY : -INFINITY;
    return is_float ? (double)(float)v : v;
}

/* An integer input's value: mostly small (ids, masks, flags), sometimes the ends of its type
 * or, for int32, beyond float's 2^24. */
static double random_int(rng *r, gs_elem elem) {
    static const double wide[] = {2147483647.0, -2147483648.0, 16777217.0,
                                  -16777219.0,  123456789.0,   1e9};
    int k = between(r, 0, 99);
    if (elem == GS_U8) return k < 70 ? between(r, 0, 3) : k < 90 ? 255 : between(r, 0, 255);
    return k < 85   ? between(r, -3, 3)
           : k < 93 ? wide[between(r, 0, 5)]
                    : between(r, -100000, 100000);
}

static int same_value(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_reduction(gs_reduce_op op, double got, double want, double abs_sum) {
    if (isnan(got) || isnan(want)) return isnan(got) && isnan(want);
    if (op != GS_SUM) return got == want; /* exact; -0 and +0 may come in any order */
    if (isinf(want) || isinf(got)) return got == want || fabs(want) > 1e300;
    /* A compensated double sum: about one rounding of the result, plus n * 2^-106 of the sum
     * of the magnitudes (abs_sum holds n times that sum); margins of 8 and 4. */
    return fabs(got - want) <= 8 * 0x1p-53 * fabs(want) + 4 * 0x1p-106 * abs_sum + 1e-300;
}

/* One case: fields of extents n, every colour in turn, compared after each launch. Returns 0
 * or 1 after recording a failure. */
static int run_case(item *it, dispatch_fn fn, int index, stenc_ctx *ctx, const long n[3], rng *r,
                    int on_device, int compare) {
    const gs_info *in = gs_get_info(it->st);
    gs_field mine[GS_MAX_FIELDS];
    stenc_field *theirs[GS_MAX_FIELDS] = {0};
    double scalars[GS_MAX_SCALARS];
    for (int s = 0; s < in->nscalars; s++) /* full doubles: the launcher rounds */
        scalars[s] = between(r, 0, 3) ? uniform(r) : (double)between(r, -3, 3);
    int failed = 0;
    long ext[GS_MAX_FIELDS][3]; /* each field's own extents (lower-dimensional, staggered) */
    int fdims[GS_MAX_FIELDS];
    for (int f = 0; f < in->nfields; f++) {
        /* inputs and inouts: the stencil's radius, or what a staggered read needs if more */
        int need = in->radius > in->halo_need[f] ? in->radius : in->halo_need[f];
        /* a line solve's array: its halo holds the ends of the lines (at least 1) */
        if (in->kind[f] == GS_OUTPUT) need = in->solve ? 1 : 0;
        mine[f].halo = need + between(r, 0, 2);
        fdims[f] = gs_field_shape(in, f, n, ext[f]);
        size_t pts = gs_field_points(in, f, n, mine[f].halo);
        mine[f].data = malloc(pts * sizeof(double));
        mine[f].loose = calloc(pts, 1);
        mine[f].tol = calloc(pts, sizeof(double));
        assert_non_null(mine[f].data);
        assert_non_null(mine[f].loose);
        assert_non_null(mine[f].tol);
        stenc_type type = in->elem[f] == GS_I32  ? STENC_I32
                          : in->elem[f] == GS_U8 ? STENC_U8
                          : in->is_float         ? STENC_F32
                                                 : STENC_F64;
        stenc_status st = stenc_field_create(ctx, &theirs[f], type, fdims[f], (size_t)ext[f][0],
                                             (size_t)ext[f][1], (size_t)ext[f][2], mine[f].halo);
        assert_int_equal(st, STENC_OK);
        long h[3];
        for (int d = 0; d < 3; d++)
            h[d] = d < fdims[f] ? mine[f].halo : 0;
        for (long k = -h[2]; k < ext[f][2] + h[2]; k++)
            for (long j = -h[1]; j < ext[f][1] + h[1]; j++)
                for (long i = -h[0]; i < ext[f][0] + h[0]; i++) {
                    double v = in->elem[f] != GS_REAL ? random_int(r, in->elem[f])
                                                      : random_value(r, in->is_float);
                    /* a line solve reads all of its array's halo: finite there (the interior,
                     * which it must not read, keeps its NaNs) */
                    int inside = i >= 0 && i < ext[f][0] && j >= 0 && j < ext[f][1] && k >= 0 &&
                                 k < ext[f][2];
                    while (in->solve && in->kind[f] == GS_OUTPUT && !inside && !isfinite(v))
                        v = random_value(r, in->is_float);
                    mine[f].data[gs_field_index(in, f, n, mine[f].halo, i, j, k)] = v;
                    assert_int_equal(stenc_field_set(theirs[f], i, j, k, v), STENC_OK);
                }
    }
    int colors = in->ncolors ? in->ncolors : 1;
    for (int c = 0; c < colors && !failed; c++) {
        double red[GS_MAX_REDUCES] = {0}, want_red[GS_MAX_REDUCES], abs_sum[GS_MAX_REDUCES];
        for (int f = 0; on_device && f < in->nfields; f++)
            assert_int_equal(stenc_field_upload(theirs[f]), STENC_OK);
        stenc_status st = fn(index, ctx, c, scalars, theirs, red);
        for (int f = 0; on_device && st == STENC_OK && f < in->nfields; f++)
            st = stenc_field_download(theirs[f]);
        tot.launches++;
        if (st != STENC_OK) {
            fail_item(it, on_device ? "OpenCL launch" : "launch",
                      "grid %ld x %ld x %ld, colour %d: status %d (%s)", n[0], n[1], n[2], c,
                      (int)st, stenc_last_error());
            failed = 1;
            break;
        }
        if (!compare) continue; /* launched (so built) only */
        gs_eval_launch(it->st, n, c, scalars, mine, want_red, abs_sum);
        long bad = 0;
        char first[512] = "";
        for (int f = 0; f < in->nfields; f++) {
            long h[3];
            for (int d = 0; d < 3; d++)
                h[d] = d < fdims[f] ? mine[f].halo : 0;
            for (long k = -h[2]; k < ext[f][2] + h[2]; k++)
                for (long j = -h[1]; j < ext[f][1] + h[1]; j++)
                    for (long i = -h[0]; i < ext[f][0] + h[0]; i++) {
                        double got = 0;
                        stenc_field_get(theirs[f], i, j, k, &got);
                        size_t at = gs_field_index(in, f, n, mine[f].halo, i, j, k);
                        double want = mine[f].data[at];
                        if (same_value(got, want)) continue;
                        if (mine[f].loose[at] && fabs(got) == fabs(want)) continue;
                        if (mine[f].tol[at] > 0 && fabs(got - want) <= mine[f].tol[at]) continue;
                        if (!bad++)
                            snprintf(first, sizeof first,
                                     "%s (halo %d) at (%ld,%ld,%ld): got %a (%.17g), want %a "
                                     "(%.17g), within %g",
                                     in->field_name[f], mine[f].halo, i, j, k, got, got, want, want,
                                     mine[f].tol[at]);
                    }
        }
        for (int q = 0; q < in->nreduces; q++)
            if (!same_reduction(in->reduce_op[q], red[q], want_red[q], abs_sum[q])) {
                if (!bad++)
                    snprintf(first, sizeof first, "reduction %d: got %.17g, want %.17g", q, red[q],
                             want_red[q]);
            }
        if (bad) {
            double sc[4] = {0};
            memcpy(sc, scalars, (size_t)in->nscalars * sizeof *sc);
            fail_item(it, on_device ? "OpenCL values" : "values",
                      "grid %ld x %ld x %ld, colour %d of %d: %ld wrong values; first: %s; "
                      "scalars %.17g %.17g %.17g %.17g (data: seed %llu)",
                      n[0], n[1], n[2], c, colors, bad, first, sc[0], sc[1], sc[2], sc[3],
                      (unsigned long long)it->seed);
            failed = 1;
        }
    }
    for (int f = 0; f < in->nfields; f++) {
        stenc_field_free(theirs[f]);
        free(mine[f].data);
        free(mine[f].loose);
        free(mine[f].tol);
    }
    return failed;
}

static void random_extents(const gs_info *in, rng *r, int small, long n[3]) {
    for (int d = 0; d < 3; d++)
        n[d] = d >= in->dims ? 1 : small ? between(r, 1, 4) : between(r, 1, 37);
    if (in->dims == 3 && !small) /* keep 3-D cases to a few thousand points */
        while (n[0] * n[1] * n[2] > 6000)
            n[between(r, 0, 2)] /= 2;
    for (int d = 0; d < 3; d++) /* every array at least one point (staggered by -1 and less) */
        if (n[d] < in->min_extent[d]) n[d] = in->min_extent[d];
}

/* The runtime functions generated code calls: referenced here so that the linker keeps them in
 * this executable, whose symbols the loaded batches resolve against (ENABLE_EXPORTS). */
void (*const fuzz_keep_symbols[])(void) = {
    (void (*)(void))stenc_launch_check,         (void (*)(void))stenc_launch_select,
    (void (*)(void))stenc_launch_variant_name,  (void (*)(void))stenc_set_error,
    (void (*)(void))stenc_last_error,           (void (*)(void))stenc_tune,
    (void (*)(void))stenc_launch_scratch,       (void (*)(void))stenc_ocl_launch,
    (void (*)(void))stenc_ocl_device_is_cpu,    (void (*)(void))stenc_ctx_device,
    (void (*)(void))stenc_ctx_device_name,      (void (*)(void))stenc_launch_solve_begin,
    (void (*)(void))stenc_launch_solve_end,     (void (*)(void))stenc_launch_steps_check,
    (void (*)(void))stenc_launch_steps_blocked, (void (*)(void))stenc_field_fill_halo,
    (void (*)(void))stenc_field_swap,
};

/* 1 when the stencil calls none of exp, log, sin, cos, tan and pow, whose results differ
 * by an ulp between the C library and an OpenCL device (the others round exactly alike, so
 * the OpenCL kernel's values are compared bit for bit). */
static int exact_functions_only(const char *text) {
    static const char *const inexact[] = {"exp", "log", "sin", "cos", "tan", "pow"};
    for (const char *p = text; *p; p++) {
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
        for (size_t f = 0; f < sizeof inexact / sizeof inexact[0]; f++) {
            const size_t n = strlen(inexact[f]);
            if (strncmp(p, inexact[f], n) != 0) continue;
            const char *q = p + n;
            while (*q == ' ' || *q == '\t' || *q == '\n')
                q++;
            if (*q == '(') return 0;
        }
    }
    return 1;
}

/* An OpenCL context for the opencl target's kernels, made on first use; NULL without an
 * OpenCL device. */
static stenc_ctx *ocl_ctx(void) {
    static stenc_ctx *ctx;
    static int tried;
    if (!tried) {
        tried = 1;
        if (stenc_opencl_device_count() > 0 &&
            stenc_ctx_create(&ctx, STENC_DEVICE_OPENCL) != STENC_OK)
            ctx = NULL;
    }
    return ctx;
}

/* ---- the test ---------------------------------------------------------------------------- */

#if FUZZ_HAVE_STENCIL_NAME_CHECK
static void clash_cb(void *ctx, int first, int later, const char *what) {
    (void)first;
    (void)what;
    ((int *)ctx)[later] = 1;
}
#endif

static void choose_names(uint64_t first, int n, char names[][GS_NAME]) {
    for (int s = 0; s < n; s++)
        snprintf(names[s], GS_NAME, "rs_%llu", (unsigned long long)(first + (uint64_t)s));
#if FUZZ_HAVE_STENCIL_NAME_CHECK
    if (!(cfg.flags & GS_STENCIL_NAMES)) return;
    /* Some stencils get a C name that the checker allows for a stencil, if no other stencil
     * of the batch claims the same identifiers or files. */
    for (int s = 0; s < n; s++) {
        uint64_t h = (first + (uint64_t)s) * 0x9E3779B97F4A7C15ull;
        if ((h >> 60) > 4) continue;
        const char *cand = gs_c_name((int)((h >> 20) % (uint64_t)gs_c_name_count()));
        if (check_stencil_name_conflict(cand)) continue;
        int dup = 0;
        for (int o = 0; o < n; o++)
            dup |= !strcmp(names[o], cand);
        if (!dup) snprintf(names[s], GS_NAME, "%s", cand);
    }
    const char *list[256];
    for (int s = 0; s < n; s++)
        list[s] = names[s];
    int clash[256] = {0};
    check_stencil_clashes(list, n, clash_cb, clash);
    for (int s = 0; s < n; s++)
        if (clash[s])
            snprintf(names[s], GS_NAME, "rs_%llu", (unsigned long long)(first + (uint64_t)s));
#endif
}

/* Copy the accepted stencils' CUDA sources to cfg.export_dir/b<first>/. */
static void export_batch(const item *items, int n, const char *dir, uint64_t first) {
    int any = 0;
    for (int s = 0; s < n; s++)
        any |= items[s].ok;
    char *cmd = xasprintf("mkdir -p %s/b%llu && cd %s && cp", cfg.export_dir,
                          (unsigned long long)first, dir);
    for (int s = 0; s < n; s++) {
        if (!items[s].ok) continue;
        const char *name = gs_get_info(items[s].st)->name;
        char *more = xasprintf("%s %s.stencil %s.h %s_cuda.cu", cmd, name, name, name);
        free(cmd);
        cmd = more;
    }
    char *all = xasprintf("%s %s/b%llu/", cmd, cfg.export_dir, (unsigned long long)first);
    if (any) assert_int_equal(run1(all), 0);
    free(all);
    free(cmd);
    for (int s = 0; s < n; s++)
        gs_free(items[s].st);
}

static void run_batch(uint64_t first, int n, void *state) {
    stenc_ctx *ctx = state;
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/b%llu", work, (unsigned long long)first);
    assert_int_equal(mkdir(dir, 0755), 0);
    item items[256];
    char names[256][GS_NAME];
    choose_names(first, n, names);
    for (int s = 0; s < n; s++) {
        items[s] = (item){.seed = first + (uint64_t)s, .ok = 1};
        items[s].st = gs_generate(items[s].seed, cfg.flags, names[s]);
        char path[1400];
        snprintf(path, sizeof path, "%s/%s.stencil", dir, names[s]);
        write_file(path, gs_text(items[s].st));
        tot.generated++;
    }
    run_stenc(items, n, dir);
    for (int s = 0; s < n; s++)
        tot.accepted += items[s].ok;
    if (cfg.export_dir[0]) {
        export_batch(items, n, dir, first);
        n = 0; /* nothing to compile or run here */
    }
    compile_c(items, n, dir, FUZZ_GCC, "-fopenmp -fPIC", "", 1);
    if (cfg.use_clang && FUZZ_CLANG[0])
        compile_c(items, n, dir, FUZZ_CLANG, FUZZ_CLANG_OMP, "_clang", 0);
    if (FUZZ_NVCC[0]) compile_cuda(items, n, dir);
    int any = 0;
    for (int s = 0; s < n; s++)
        any |= items[s].ok;
    void *h = any ? build_batch(items, n, dir) : NULL;
    dispatch_fn fn = NULL;
    if (h) {
        void *sym = dlsym(h, "fuzz_dispatch");
        memcpy(&fn, &sym, sizeof fn);
    }
    for (int s = 0; s < n && fn; s++) {
        if (!items[s].ok) continue;
        rng r = {items[s].seed * 7919u + 17};
        const gs_info *in = gs_get_info(items[s].st);
        int bad = 0;
        for (int c = 0; c < 3 && !bad; c++) {
            long ext[3];
            random_extents(in, &r, c == 0, ext);
            bad = run_case(&items[s], fn, s, ctx, ext, &r, 0, 1);
        }
        if (!bad) tot.compared++;
        /* The opencl target, where there is an OpenCL device (PoCL in CI): built and launched
         * for every stencil, its values compared where the stencil calls no function that is
         * not bitwise the C library's (line solves: within the tolerance of the host's). */
        if (!bad && ocl_ctx()) {
            long ext[3];
            random_extents(in, &r, 0, ext);
            const int exact = exact_functions_only(gs_text(items[s].st));
            if (!run_case(&items[s], fn, s, ocl_ctx(), ext, &r, 1, exact)) {
                tot.ocl_launched++;
                tot.ocl_compared += exact;
            }
        }
    }
    if (h) dlclose(h);
    for (int s = 0; s < n; s++)
        gs_free(items[s].st);
    if (!cfg.keep) {
        char *cmd = xasprintf("rm -rf %s", dir);
        run1(cmd);
        free(cmd);
    }
}

static void test_random_stencils(void **state) {
    time_t t0 = time(NULL);
    for (long done = 0; done < cfg.count; done += cfg.batch) {
        int n = (int)(cfg.count - done < cfg.batch ? cfg.count - done : cfg.batch);
        run_batch(cfg.seed + (uint64_t)done, n, *state);
    }
    printf("random stencils: seed %llu, flags %s: %ld generated, %ld accepted by stenc, %ld "
           "compiled by gcc, %ld by clang, %ld of %ld by nvcc; %ld compared on %ld launches, "
           "%ld run on OpenCL too (%ld compared); %ld failures (%ld clang, %ld nvcc); %lds\n",
           (unsigned long long)cfg.seed, gs_flags_text(cfg.flags), tot.generated, tot.accepted,
           tot.gcc_ok, tot.clang_ok, tot.nvcc_ok, tot.nvcc_tried, tot.compared, tot.launches,
           tot.ocl_launched, tot.ocl_compared, tot.failures, tot.clang_failures, tot.nvcc_failures,
           (long)(time(NULL) - t0));
    long host_failures = tot.failures - tot.clang_failures - tot.nvcc_failures;
    if (host_failures)
        fail_msg("%ld random stencils failed (stenc, gcc or values); cases in %s", host_failures,
                 cfg.out);
}

static void test_clang(void **state) {
    (void)state;
    if (!cfg.use_clang || !FUZZ_CLANG[0]) skip();
    if (tot.clang_failures) fail_msg("%ld stencils fail to compile with clang", tot.clang_failures);
}

static void test_nvcc(void **state) {
    (void)state;
    if (!FUZZ_NVCC[0] || !tot.nvcc_tried) skip();
    if (tot.nvcc_failures) fail_msg("%ld stencils fail to compile with nvcc", tot.nvcc_failures);
}

static int setup(void **state) {
    stenc_ctx *ctx = NULL;
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) return -1;
    *state = ctx;
    return 0;
}

static int teardown(void **state) {
    stenc_ctx_destroy(*state);
    if (fail_log) fclose(fail_log);
    if (!cfg.keep) rmdir(work);
    return 0;
}

int main(void) {
    cfg.count = env_long("STENC_RANDOM_STENCILS", 200);
    cfg.seed = (uint64_t)env_long("STENC_RANDOM_SEED", 1);
    long flags = gs_parse_flags(getenv("STENC_RANDOM_FLAGS"));
    if (flags < 0) {
        fprintf(stderr, "STENC_RANDOM_FLAGS: unknown class in '%s'\n",
                getenv("STENC_RANDOM_FLAGS"));
        return 2;
    }
    cfg.flags = (unsigned)flags;
    cfg.jobs = (int)env_long("STENC_RANDOM_JOBS", 2);
    if (cfg.jobs < 1 || cfg.jobs > 64) cfg.jobs = 2;
    cfg.batch = (int)env_long("STENC_RANDOM_BATCH", 25);
    if (cfg.batch < 1 || cfg.batch > 256) cfg.batch = 25;
    cfg.nvcc_max = (int)env_long("STENC_RANDOM_NVCC", 48);
    cfg.use_clang = (int)env_long("STENC_RANDOM_CLANG", 1);
    cfg.keep = (int)env_long("STENC_RANDOM_KEEP", 0);
    const char *export_dir = getenv("STENC_RANDOM_EXPORT");
    if (export_dir && *export_dir) {
        snprintf(cfg.export_dir, sizeof cfg.export_dir, "%s", export_dir);
        mkdir(cfg.export_dir, 0755);
        char path[1200];
        snprintf(path, sizeof path, "%s/nvcc_flags.txt", cfg.export_dir);
        FILE *f = fopen(path, "w");
        if (!f) {
            perror(path);
            return 1;
        }
        fprintf(f, "%s\n", STRICT_CU);
        fclose(f);
    }
    const char *out = getenv("STENC_RANDOM_OUT");
    snprintf(cfg.out, sizeof cfg.out, "%s", out && *out ? out : FUZZ_OUT_DIR);
    mkdir(cfg.out, 0755);
    char log[1200];
    snprintf(log, sizeof log, "%s/failures.txt", cfg.out);
    fail_log = fopen(log, "w");
    const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(work, sizeof work, "%s/stenc_random_XXXXXX", tmp);
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    printf("random stencils: %ld from seed %llu, flags %s, work directory %s, failures to %s\n",
           cfg.count, (unsigned long long)cfg.seed, gs_flags_text(cfg.flags), work, cfg.out);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_stencils),
        cmocka_unit_test(test_clang),
        cmocka_unit_test(test_nvcc),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
