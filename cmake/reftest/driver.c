/* The reference test program: command line, the loop over sizes, targets and CUDA variants,
 * and the report. Every case is one stenc_reftest_run() (libstenc); this file only decides
 * what to run and prints what came back. */
#include "driver.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SIZES = 64, MESSAGE_BYTES = 1024 };

/* Sizes when none are given: not powers of two, 1 along each dimension in turn, and one
 * longer than a CUDA block (32 x 8) in every used dimension, with tails. */
static const size_t default_sizes[3][6][3] = {
    {{1, 1, 1}, {7, 1, 1}, {61, 1, 1}, {1009, 1, 1}},
    {{1, 1, 1}, {1, 29, 1}, {37, 1, 1}, {67, 35, 1}},
    {{1, 1, 1}, {1, 11, 7}, {13, 1, 9}, {35, 9, 1}, {67, 19, 11}, {37, 5, 41}},
};
static const int default_count[3] = {4, 4, 6};

typedef struct driver {
    const stenc_reftest_stencil *s;
    stenc_reftest_fn reference;
    const char *reference_name;
    stenc_reftest_options opt;
    size_t sizes[MAX_SIZES][3];
    int nsizes;
    double *scalars; /* s->nscalars of them when given */
    int nscalars_given;
    int failed;
} driver;

/* One row of the table. */
typedef struct driver_case {
    const char *target, *variant;
    size_t n[3];
    stenc_status status;
    char message[MESSAGE_BYTES]; /* stenc_last_error() when status != STENC_OK */
    stenc_reftest_result r;
} driver_case;

/* ---- the command line ------------------------------------------------------------------------ */

static void usage(const char *prog) {
    fprintf(stderr,
            "usage: %s [--size N[xN[xN]]]... [--abs X] [--rel X] [--ulp N]\n"
            "       [--reduce-abs X] [--reduce-rel X] [--reduce-ulp N] [--range LO HI]\n"
            "       [--scalar V]... [--seed N] [--warmup N] [--repeat N]\n"
            "Compares the generated kernel with the reference; see docs/reference-tests.md.\n",
            prog);
}

static int parse_double(const char *text, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

static int parse_u64(const char *text, unsigned long long *out) {
    char *end;
    errno = 0;
    if (text[0] < '0' || text[0] > '9') return 0; /* strtoull takes "-1" */
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE) return 0;
    *out = v;
    return 1;
}

static int parse_count(const char *text, int *out) {
    unsigned long long v;
    if (!parse_u64(text, &v) || v > 1000000) return 0;
    *out = (int)v;
    return 1;
}

/* "13x7x5": exactly `dims` extents, each at least 1. */
static int parse_size(const char *text, int dims, size_t n[3]) {
    n[0] = n[1] = n[2] = 1;
    const char *p = text;
    for (int d = 0; d < dims; d++) {
        char *end;
        if (*p < '1' || *p > '9') return 0;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno == ERANGE || v > (unsigned long long)1 << 31) return 0;
        n[d] = (size_t)v;
        p = end;
        if (d + 1 < dims && *p++ != 'x') return 0;
    }
    return *p == '\0';
}

/* The value after option `argv[*i]`, or NULL (and a message) when there is none. */
static const char *value_of(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", argv[0], argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static int parse_tolerance(const char *text, stenc_tolerance *tol, unsigned bit) {
    int ok;
    if (bit == STENC_TOL_ULP) {
        unsigned long long v = 0;
        ok = parse_u64(text, &v);
        tol->ulp = (uint64_t)v;
    } else {
        double v = 0;
        ok = parse_double(text, &v) && v >= 0;
        *(bit == STENC_TOL_ABS ? &tol->abs : &tol->rel) = v;
    }
    tol->use |= bit;
    return ok;
}

/* The tolerance options: which tolerance and which bit each sets. */
static const struct {
    const char *name;
    int reduce;
    unsigned bit;
} tolerance_options[] = {
    {"--abs", 0, STENC_TOL_ABS},        {"--rel", 0, STENC_TOL_REL},
    {"--ulp", 0, STENC_TOL_ULP},        {"--reduce-abs", 1, STENC_TOL_ABS},
    {"--reduce-rel", 1, STENC_TOL_REL}, {"--reduce-ulp", 1, STENC_TOL_ULP},
};

static int tolerance_option(const char *arg) {
    for (int t = 0; t < (int)(sizeof tolerance_options / sizeof tolerance_options[0]); t++)
        if (strcmp(arg, tolerance_options[t].name) == 0) return t;
    return -1;
}

/* Returns 1 when the command line is good; prints why not otherwise. */
static int parse_args(driver *dr, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v = NULL;
        int ok = 1;
        const int t = tolerance_option(arg);
        if (t >= 0) {
            if (!(v = value_of(argc, argv, &i))) return 0;
            stenc_tolerance *tol =
                tolerance_options[t].reduce ? &dr->opt.reduce_tolerance : &dr->opt.tolerance;
            ok = parse_tolerance(v, tol, tolerance_options[t].bit);
        } else if (strcmp(arg, "--size") == 0) {
            if (!(v = value_of(argc, argv, &i))) return 0;
            if (dr->nsizes == MAX_SIZES) {
                fprintf(stderr, "%s: at most %d sizes\n", argv[0], MAX_SIZES);
                return 0;
            }
            if (!parse_size(v, dr->s->dims, dr->sizes[dr->nsizes++])) {
                fprintf(stderr,
                        "%s: bad size '%s': %s is %d-D, so --size takes %d extent(s) of 1 or "
                        "more joined by 'x' (13x7x5)\n",
                        argv[0], v, dr->s->name, dr->s->dims, dr->s->dims);
                return 0;
            }
        } else if (strcmp(arg, "--range") == 0) {
            const char *hi;
            if (!(v = value_of(argc, argv, &i)) || !(hi = value_of(argc, argv, &i))) return 0;
            ok = parse_double(v, &dr->opt.lo) && parse_double(hi, &dr->opt.hi) &&
                 dr->opt.lo <= dr->opt.hi;
        } else if (strcmp(arg, "--scalar") == 0) {
            if (!(v = value_of(argc, argv, &i))) return 0;
            if (dr->nscalars_given == dr->s->nscalars) {
                fprintf(stderr, "%s: %s has %d scalar(s); too many --scalar\n", argv[0],
                        dr->s->name, dr->s->nscalars);
                return 0;
            }
            ok = parse_double(v, &dr->scalars[dr->nscalars_given++]);
        } else if (strcmp(arg, "--seed") == 0) {
            unsigned long long seed = 0;
            if (!(v = value_of(argc, argv, &i))) return 0;
            ok = parse_u64(v, &seed);
            dr->opt.seed = (uint64_t)seed;
        } else if (strcmp(arg, "--warmup") == 0 || strcmp(arg, "--repeat") == 0) {
            if (!(v = value_of(argc, argv, &i))) return 0;
            ok = parse_count(v, arg[2] == 'w' ? &dr->opt.warmup : &dr->opt.repeat);
        } else {
            fprintf(stderr, "%s: unknown option '%s'\n", argv[0], arg);
            return 0;
        }
        if (!ok) {
            fprintf(stderr, "%s: bad value '%s' for %s\n", argv[0], v, arg);
            return 0;
        }
    }
    if (dr->nscalars_given != 0 && dr->nscalars_given != dr->s->nscalars) {
        fprintf(stderr, "%s: %s has %d scalar(s) but %d --scalar were given\n", argv[0],
                dr->s->name, dr->s->nscalars, dr->nscalars_given);
        return 0;
    }
    if (dr->nscalars_given) dr->opt.scalars = dr->scalars;
    if (dr->nsizes == 0) {
        const int d = dr->s->dims - 1;
        dr->nsizes = default_count[d];
        memcpy(dr->sizes, default_sizes[d], sizeof default_sizes[d]);
    }
    return 1;
}

/* ---- the report ------------------------------------------------------------------------------ */

static void format_size(char *buf, size_t size, int dims, const size_t n[3]) {
    if (dims == 1)
        snprintf(buf, size, "%zu", n[0]);
    else if (dims == 2)
        snprintf(buf, size, "%zux%zu", n[0], n[1]);
    else
        snprintf(buf, size, "%zux%zux%zu", n[0], n[1], n[2]);
}

static void format_point(char *buf, size_t size, int dims, const long p[3]) {
    if (dims == 1)
        snprintf(buf, size, "(%ld)", p[0]);
    else if (dims == 2)
        snprintf(buf, size, "(%ld,%ld)", p[0], p[1]);
    else
        snprintf(buf, size, "(%ld,%ld,%ld)", p[0], p[1], p[2]);
}

/* ULP distances past 2^53 only say "far"; UINT64_MAX is a NaN against a number. */
static void format_ulp(char *buf, size_t size, uint64_t ulp) {
    if (ulp == UINT64_MAX)
        snprintf(buf, size, "nan");
    else
        snprintf(buf, size, "%llu", (unsigned long long)ulp);
}

static void describe_tolerance(char *buf, size_t size, const stenc_tolerance *t) {
    if (t->use == 0) {
        snprintf(buf, size, "bitwise");
        return;
    }
    size_t len = 0;
    buf[0] = '\0';
    if (t->use & STENC_TOL_ABS) len += (size_t)snprintf(buf + len, size - len, "abs %g", t->abs);
    if ((t->use & STENC_TOL_REL) && len < size)
        len += (size_t)snprintf(buf + len, size - len, "%srel %g", len ? " or " : "", t->rel);
    if ((t->use & STENC_TOL_ULP) && len < size)
        snprintf(buf + len, size - len, "%sulp %llu", len ? " or " : "",
                 (unsigned long long)t->ulp);
}

static void print_header(const driver *dr, const char *cuda_note) {
    const stenc_reftest_stencil *s = dr->s;
    char tol[128], rtol[128];
    describe_tolerance(tol, sizeof tol, &dr->opt.tolerance);
    describe_tolerance(rtol, sizeof rtol, &dr->opt.reduce_tolerance);
    printf("reference test: %s (%d-D %s, halo %d", s->name, s->dims, stenc_type_name(s->type),
           s->halo);
    if (s->ncolors) printf(", %d colours", s->ncolors);
    printf(") against %s\n", dr->reference_name);
    printf("tolerance: arrays %s", tol);
    if (s->nresults) printf(", reductions %s", rtol);
    printf("\ndata: uniform in [%g, %g), seed %llu; scalars", dr->opt.lo, dr->opt.hi,
           (unsigned long long)dr->opt.seed);
    if (s->nscalars == 0)
        printf(" none");
    else if (!dr->opt.scalars)
        printf(" random");
    for (int v = 0; dr->opt.scalars && v < s->nscalars; v++)
        printf(" %s=%.17g", s->scalar_names[v], dr->opt.scalars[v]);
    printf("\ntiming: median of %d run(s) after %d warm-up(s), one launch per colour each\n",
           dr->opt.repeat, dr->opt.warmup);
    if (cuda_note) printf("cuda: skipped (%s)\n", cuda_note);
    printf("\n");
}

static const char *verdict(const driver_case *c) {
    return c->status != STENC_OK ? "ERROR" : c->r.passed ? "ok" : "FAIL";
}

static void print_table(const driver *dr, const driver_case *cases, int ncases) {
    const int reduces = dr->s->nresults > 0;
    printf("%-12s %-6s %-24s %10s %10s %8s", "size", "target", "variant", "max abs", "max rel",
           "max ulp");
    if (reduces) printf(" %10s %8s", "red. rel", "red. ulp");
    printf(" %10s %10s %8s  %s\n", "gen ms", "ref ms", "ref/gen", "result");
    for (int i = 0; i < ncases; i++) {
        const driver_case *c = &cases[i];
        char size[64], ulp[24];
        format_size(size, sizeof size, dr->s->dims, c->n);
        printf("%-12s %-6s %-24s", size, c->target, c->variant);
        if (c->status != STENC_OK) {
            printf(" %s\n", verdict(c));
            continue;
        }
        format_ulp(ulp, sizeof ulp, c->r.max.ulp);
        printf(" %10.3g %10.3g %8s", c->r.max.abs, c->r.max.rel, ulp);
        if (reduces) {
            format_ulp(ulp, sizeof ulp, c->r.max_result.ulp);
            printf(" %10.3g %8s", c->r.max_result.rel, ulp);
        }
        printf(" %10.4f %10.4f %8.2f  %s\n", c->r.gen_ms, c->r.ref_ms,
               c->r.gen_ms > 0 ? c->r.ref_ms / c->r.gen_ms : INFINITY, verdict(c));
    }
}

static void print_keyvalues(const driver *dr, const driver_case *cases, int ncases,
                            const char *cuda_note) {
    const stenc_reftest_stencil *s = dr->s;
    printf("\n");
    for (int i = 0; i < ncases; i++) {
        const driver_case *c = &cases[i];
        char size[64], ulp[24];
        format_size(size, sizeof size, s->dims, c->n);
        printf("reftest: stencil=%s reference=%s target=%s variant=%s size=%s", s->name,
               dr->reference_name, c->target, c->variant, size);
        if (c->status != STENC_OK) {
            printf(" result=error\n");
            continue;
        }
        format_ulp(ulp, sizeof ulp, c->r.max.ulp);
        printf(" points=%zu mismatches=%zu max_abs=%.3g max_rel=%.3g max_ulp=%s", c->r.points,
               c->r.mismatches, c->r.max.abs, c->r.max.rel, ulp);
        if (s->nresults) {
            format_ulp(ulp, sizeof ulp, c->r.max_result.ulp);
            printf(" reduce_max_abs=%.3g reduce_max_rel=%.3g reduce_max_ulp=%s",
                   c->r.max_result.abs, c->r.max_result.rel, ulp);
        }
        printf(" gen_ms=%.6f ref_ms=%.6f ref_per_gen=%.3f result=%s\n", c->r.gen_ms, c->r.ref_ms,
               c->r.gen_ms > 0 ? c->r.ref_ms / c->r.gen_ms : INFINITY,
               c->r.passed ? "pass" : "fail");
    }
    if (cuda_note)
        printf("reftest: stencil=%s reference=%s target=cuda result=skipped reason=\"%s\"\n",
               s->name, dr->reference_name, cuda_note);
}

/* The first mismatch of a failed case: where, got, want, and how far apart. */
static void print_failure(const driver *dr, const driver_case *c) {
    const stenc_reftest_stencil *s = dr->s;
    char size[64], where[160], ulp[24];
    format_size(size, sizeof size, s->dims, c->n);
    /* "heat3d 13x7x5 c" or "heat3d 13x7x5 cuda direct_v4_k4_32x8" */
    char label[256];
    if (strcmp(c->target, c->variant) == 0)
        snprintf(label, sizeof label, "%s %s %s", s->name, size, c->target);
    else
        snprintf(label, sizeof label, "%s %s %s %s", s->name, size, c->target, c->variant);
    if (c->status != STENC_OK) {
        printf("ERROR %s: %s: %s\n", label, stenc_status_string(c->status), c->message);
        return;
    }
    const stenc_reftest_mismatch *m = &c->r.first;
    if (m->is_result) {
        snprintf(where, sizeof where, "reduction '%s'", m->what);
    } else {
        char point[96];
        format_point(point, sizeof point, s->dims, m->point);
        snprintf(where, sizeof where, "%s%s", m->what, point);
    }
    /* Reductions are double; arrays print as many digits as their type needs to round-trip. */
    const int digits = !m->is_result && s->type == STENC_F32 ? 9 : 17;
    format_ulp(ulp, sizeof ulp, m->err.ulp);
    printf("FAIL %s: first mismatch at %s", label, where);
    if (m->color >= 0) printf(" after the launch of colour %d", m->color);
    printf(": got %.*g (%a), want %.*g (%a); abs %.3g, rel %.3g, %s ulp; %zu value(s) differ\n",
           digits, m->got, m->got, digits, m->want, m->want, m->err.abs, m->err.rel, ulp,
           c->r.mismatches);
}

/* ---- the cases ------------------------------------------------------------------------------- */

static void run_one(driver *dr, stenc_ctx *ctx, driver_case *c) {
    stenc_clear_error();
    c->status = stenc_reftest_run(dr->s, dr->reference, &dr->opt, ctx, c->variant, c->n, &c->r);
    if (c->status != STENC_OK) {
        snprintf(c->message, sizeof c->message, "%s", stenc_last_error());
        dr->failed = 1;
    } else if (!c->r.passed) {
        dr->failed = 1;
    }
}

/* Why the CUDA half does not run, or NULL when it does. */
static const char *cuda_skip_reason(const stenc_reftest_stencil *s) {
    if (!s->variant_name(0)) return "the stencil was generated without the cuda target";
    if (!stenc_built_with_cuda()) return "libstenc was built without CUDA";
    if (stenc_cuda_device_count() == 0) return "no CUDA device";
    return NULL;
}

int stenc_reftest_driver_main(const stenc_reftest_stencil *s, stenc_reftest_fn reference,
                              const char *reference_name, int argc, char **argv) {
    driver dr;
    memset(&dr, 0, sizeof dr);
    dr.s = s, dr.reference = reference, dr.reference_name = reference_name;
    stenc_reftest_options_init(&dr.opt);
    dr.scalars = calloc((size_t)s->nscalars + 1, sizeof *dr.scalars);
    if (!dr.scalars || !parse_args(&dr, argc, argv)) {
        usage(argv[0]);
        free(dr.scalars);
        return 2;
    }

    const char *cuda_note = cuda_skip_reason(s);
    int nvariants = 0;
    while (!cuda_note && s->variant_name(nvariants))
        nvariants++;
    const int per_size = 1 + nvariants;
    driver_case *cases = calloc((size_t)(dr.nsizes * per_size), sizeof *cases);
    stenc_ctx *cpu = NULL, *gpu = NULL;
    int status = 1;
    if (!cases) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        goto done;
    }
    if (stenc_ctx_create(&cpu, STENC_DEVICE_CPU) != STENC_OK ||
        (nvariants && stenc_ctx_create(&gpu, STENC_DEVICE_CUDA) != STENC_OK)) {
        fprintf(stderr, "%s: cannot create a context: %s\n", argv[0], stenc_last_error());
        goto done;
    }
    print_header(&dr, cuda_note);
    for (int z = 0; z < dr.nsizes; z++) {
        for (int v = 0; v < per_size; v++) {
            driver_case *c = &cases[z * per_size + v];
            memcpy(c->n, dr.sizes[z], sizeof c->n);
            c->target = v == 0 ? "c" : "cuda";
            c->variant = v == 0 ? "c" : s->variant_name(v - 1);
            run_one(&dr, v == 0 ? cpu : gpu, c);
        }
    }
    const int ncases = dr.nsizes * per_size;
    print_table(&dr, cases, ncases);
    print_keyvalues(&dr, cases, ncases, cuda_note);
    if (dr.failed) printf("\n");
    for (int i = 0; i < ncases; i++)
        if (cases[i].status != STENC_OK || !cases[i].r.passed) print_failure(&dr, &cases[i]);
    status = dr.failed ? 1 : 0;
done:
    stenc_ctx_destroy(gpu);
    stenc_ctx_destroy(cpu);
    free(cases);
    free(dr.scalars);
    return status;
}
