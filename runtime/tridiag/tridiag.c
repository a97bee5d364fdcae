/* Batched tridiagonal solvers: argument checks, the singular-system report, and dispatch to
 * the CPU Thomas solver (tridiag_cpu.c) or the CUDA half (tridiag_cuda.cu). */
#include <stdint.h>
#include <stdlib.h>

#include "tridiag_internal.h"

const char *stenc_tridiag_algo_name(stenc_tridiag_algo algo) {
    static const char *const names[STENC_TRIDIAG_ALGO_COUNT] = {
        "auto", "thomas", "cr", "pcr", "cr_pcr", "pcr_thomas", "thomas_pcr"};
    return (unsigned)algo < STENC_TRIDIAG_ALGO_COUNT ? names[algo] : "invalid";
}

stenc_tridiag_algo stenc_tridiag_auto_algo(const stenc_ctx *ctx, stenc_type type,
                                           stenc_tridiag_layout layout, size_t n, size_t batch) {
    if (!ctx || stenc_ctx_device(ctx) != STENC_DEVICE_CUDA) return STENC_TRIDIAG_THOMAS;
    return tdg_cuda_auto_algo(ctx, type, layout, n, batch);
}

static const stenc_handle_kind report_kind = {"tridiagonal report"};

/* A live report of a live context. */
static stenc_status check_report(const stenc_tridiag_report *report, const char *fn) {
    STENC_TRY(stenc_handle_check(report, &report_kind, fn, "report"));
    return stenc_ctx_check(report->ctx, fn);
}

stenc_status tdg_report_check_live(const stenc_tridiag_report *report, const char *fn) {
    return check_report(report, fn);
}

/* 1 when the byte ranges [p, p+bytes) and [q, q+bytes) overlap. */
static int ranges_overlap(const void *p, const void *q, size_t bytes) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return a < b + bytes && b < a + bytes;
}

static stenc_status solve(const char *fn, stenc_ctx *ctx, const tdg_problem *p,
                          const stenc_tridiag_options *options) {
    STENC_TRY(stenc_ctx_check(ctx, fn));
    STENC_TRY(stenc_ctx_require_cpu_or_cuda(ctx, fn));
    STENC_REQUIRE(p->layout == STENC_TRIDIAG_CONTIGUOUS || p->layout == STENC_TRIDIAG_INTERLEAVED,
                  "%s: unknown layout %d", fn, (int)p->layout);
    STENC_REQUIRE((unsigned)p->algo < STENC_TRIDIAG_ALGO_COUNT, "%s: unknown algorithm %d", fn,
                  (int)p->algo);
    STENC_REQUIRE(p->switch_size >= 0, "%s: switch_size %d is negative", fn, p->switch_size);
    if (p->type != STENC_F32 && p->type != STENC_F64)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "%s: type %s is not float or double", fn,
                           stenc_type_name(p->type));
    stenc_tridiag_report *report = options ? options->report : NULL;
    if (report) STENC_TRY(check_report(report, fn));
    STENC_REQUIRE(!report || report->ctx == ctx, "%s: the report belongs to another context", fn);
    if (p->n == 0 || p->batch == 0) return STENC_OK;
    STENC_REQUIRE(p->n <= INT32_MAX, "%s: system size %zu exceeds %d", fn, p->n, INT32_MAX);
    size_t count;
    if (!stenc_mul_size(p->n, p->batch, &count))
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: n*batch (%zu x %zu) overflows", fn,
                           p->n, p->batch);
    STENC_TRY(stenc_check_count(count, stenc_type_size(p->type), fn, "elements per array"));
    const size_t bytes = count * stenc_type_size(p->type);
    STENC_REQUIRE(p->a && p->b && p->c && p->d && p->x, "%s: NULL array (a=%p b=%p c=%p d=%p x=%p)",
                  fn, p->a, p->b, p->c, p->d, p->x);
    STENC_REQUIRE(!ranges_overlap(p->x, p->a, bytes) && !ranges_overlap(p->x, p->b, bytes) &&
                      !ranges_overlap(p->x, p->c, bytes) &&
                      (p->x == p->d || !ranges_overlap(p->x, p->d, bytes)),
                  "%s: the solution overlaps an input (use stenc_tridiag_solve_inplace to "
                  "overwrite d)",
                  fn);

    uint64_t first_bad = TDG_NONE;
    if (stenc_ctx_device(ctx) == STENC_DEVICE_CUDA) {
        STENC_TRY(tdg_cuda_solve(ctx, p, report ? report->device_first : NULL, &first_bad));
        if (report) return STENC_OK;
    } else {
        if (p->algo != STENC_TRIDIAG_AUTO && p->algo != STENC_TRIDIAG_THOMAS)
            return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                               "%s: algorithm %s runs only on CUDA; the CPU solver is thomas", fn,
                               stenc_tridiag_algo_name(p->algo));
        STENC_TRY(tdg_cpu_solve(p, &first_bad));
        if (report) {
            if (first_bad < report->host_first) report->host_first = first_bad;
            return STENC_OK;
        }
    }
    if (first_bad != TDG_NONE)
        return STENC_ERROR(STENC_ERR_SINGULAR,
                           "%s: system %llu (of %zu, n=%zu) has a zero or non-finite pivot or "
                           "solution",
                           fn, (unsigned long long)first_bad, p->batch, p->n);
    return STENC_OK;
}

static tdg_problem make_problem(stenc_type type, stenc_tridiag_layout layout, size_t n,
                                size_t batch, const void *a, const void *b, const void *c,
                                const void *d, void *x, const stenc_tridiag_options *options) {
    tdg_problem p = {type, layout, n, batch, a, b, c, d, x, STENC_TRIDIAG_AUTO, 0};
    if (options) {
        p.algo = options->algo;
        p.switch_size = options->switch_size;
    }
    return p;
}

stenc_status stenc_tridiag_solve(stenc_ctx *ctx, stenc_type type, stenc_tridiag_layout layout,
                                 size_t n, size_t batch, const void *a, const void *b,
                                 const void *c, const void *d, void *x,
                                 const stenc_tridiag_options *options) {
    STENC_REQUIRE(x == NULL || x != d,
                  "stenc_tridiag_solve: x == d; use stenc_tridiag_solve_inplace");
    tdg_problem p = make_problem(type, layout, n, batch, a, b, c, d, x, options);
    return solve("stenc_tridiag_solve", ctx, &p, options);
}

stenc_status stenc_tridiag_solve_inplace(stenc_ctx *ctx, stenc_type type,
                                         stenc_tridiag_layout layout, size_t n, size_t batch,
                                         const void *a, const void *b, const void *c, void *d,
                                         const stenc_tridiag_options *options) {
    tdg_problem p = make_problem(type, layout, n, batch, a, b, c, d, d, options);
    return solve("stenc_tridiag_solve_inplace", ctx, &p, options);
}

stenc_status stenc_tridiag_report_create(stenc_ctx *ctx, stenc_tridiag_report **out) {
    STENC_REQUIRE(out != NULL, "stenc_tridiag_report_create: report pointer is NULL");
    *out = NULL;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_tridiag_report_create"));
    stenc_tridiag_report *r = calloc(1, sizeof *r);
    if (!r) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_tridiag_report_create: no memory");
    r->ctx = ctx;
    r->host_first = TDG_NONE;
    stenc_status st = STENC_OK;
    if (stenc_ctx_device(ctx) == STENC_DEVICE_CUDA)
        st = tdg_cuda_flag_create(ctx, &r->device_first);
    if (st == STENC_OK) {
        st = stenc_handle_add(r, &report_kind, "stenc_tridiag_report_create");
        if (st != STENC_OK && r->device_first) tdg_cuda_flag_destroy(ctx, r->device_first);
    }
    if (st != STENC_OK) {
        free(r);
        return st;
    }
    *out = r;
    return STENC_OK;
}

stenc_status stenc_tridiag_report_destroy(stenc_tridiag_report *report) {
    if (!report) return STENC_OK;
    STENC_TRY(stenc_handle_remove(report, &report_kind, "stenc_tridiag_report_destroy", "report"));
    stenc_status st = STENC_OK;
    if (report->device_first) {
        /* The flag is device memory of the report's context. */
        if (stenc_ctx_live(report->ctx))
            tdg_cuda_flag_destroy(report->ctx, report->device_first);
        else
            st = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                             "stenc_tridiag_report_destroy: the report's context was destroyed "
                             "first, so its device flag could not be freed (leaked)");
    }
    free(report);
    return st;
}

stenc_status stenc_tridiag_report_check(stenc_tridiag_report *report, size_t *first_singular) {
    STENC_TRY(check_report(report, "stenc_tridiag_report_check"));
    uint64_t first = report->host_first;
    if (report->device_first)
        STENC_TRY(tdg_cuda_flag_take(report->ctx, report->device_first, &first));
    report->host_first = TDG_NONE;
    if (first_singular) *first_singular = first == TDG_NONE ? SIZE_MAX : (size_t)first;
    if (first == TDG_NONE) return STENC_OK;
    return STENC_ERROR(STENC_ERR_SINGULAR,
                       "stenc_tridiag_report_check: system %llu has a zero or non-finite pivot "
                       "or solution",
                       (unsigned long long)first);
}
