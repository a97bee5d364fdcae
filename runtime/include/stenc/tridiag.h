/* stenc batched tridiagonal solvers.
 *
 * Solves `batch` independent systems of `n` equations
 *     a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i],   i = 0 .. n-1,
 * in float (STENC_F32) or double (STENC_F64). a[0] and c[n-1] are ignored (treated as 0).
 * The context decides where the arrays live: device pointers on a CUDA context, host pointers
 * on a CPU one. No pivoting is done: the solvers are meant for diagonally dominant (or
 * otherwise safely factorable) systems. A zero or non-finite pivot, or a non-finite solution,
 * is reported as STENC_ERR_SINGULAR with the index of the first failing system.
 *
 * Two layouts, for element i of system s:
 *   STENC_TRIDIAG_CONTIGUOUS   index s*n + i      (one system after another)
 *   STENC_TRIDIAG_INTERLEAVED  index i*batch + s  (batch index fastest, as an ADI sweep makes)
 *
 * CPU: the Thomas algorithm, OpenMP over systems. CUDA: see stenc_tridiag_algo; AUTO picks by
 * size, count and layout. Calls are ordered on the context's stream.
 */
#ifndef STENC_TRIDIAG_H
#define STENC_TRIDIAG_H

#include <stddef.h>
#include <stdint.h>

#include "stenc/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum stenc_tridiag_layout {
    STENC_TRIDIAG_CONTIGUOUS = 0,
    STENC_TRIDIAG_INTERLEAVED
} stenc_tridiag_layout;

typedef enum stenc_tridiag_algo {
    STENC_TRIDIAG_AUTO = 0,   /* choose by size, count, layout and device */
    STENC_TRIDIAG_THOMAS,     /* CPU; CUDA: one thread per system (interleaved data) */
    STENC_TRIDIAG_CR,         /* CUDA: cyclic reduction in shared memory, bank-padded */
    STENC_TRIDIAG_PCR,        /* CUDA: parallel cyclic reduction in shared memory */
    STENC_TRIDIAG_CR_PCR,     /* CUDA: CR down to switch_size equations, then PCR */
    STENC_TRIDIAG_PCR_THOMAS, /* CUDA: PCR into switch_size systems, then Thomas on each */
    STENC_TRIDIAG_THOMAS_PCR, /* CUDA: Thomas on chunks of switch_size rows per thread,
                                 PCR on the reduced system of chunk ends (partition method) */
    STENC_TRIDIAG_ALGO_COUNT
} stenc_tridiag_algo;

/* A deferred singular-system report, so that a loop of solves need not wait on each one. */
typedef struct stenc_tridiag_report stenc_tridiag_report;

/* Options; a NULL pointer means all defaults (zero-initialise to get them too). */
typedef struct stenc_tridiag_options {
    stenc_tridiag_algo algo; /* STENC_TRIDIAG_AUTO by default */
    /* The hybrids' switch point (0: the tuned default). CR_PCR: largest intermediate system
     * solved by PCR. PCR_THOMAS: number of subsystems PCR makes before Thomas takes over.
     * THOMAS_PCR: rows per thread in the Thomas stage. */
    int switch_size;
    /* NULL: the call waits for the solve and returns STENC_ERR_SINGULAR itself. Otherwise the
     * call does not wait; failures are recorded in `report` and read back with
     * stenc_tridiag_report_check(). */
    stenc_tridiag_report *report;
} stenc_tridiag_options;

/* Solve into x, leaving a, b, c and d untouched. x must not overlap the inputs.
 * Each array holds n*batch elements of `type`. n == 0 or batch == 0 is a no-op. n is at most
 * 2^31 - 1, and an array at most PTRDIFF_MAX bytes (STENC_ERR_INVALID_ARGUMENT).
 * On STENC_ERR_SINGULAR, x is written but undefined for the failing systems; the message
 * names the first (lowest-index) failing system. */
stenc_status stenc_tridiag_solve(stenc_ctx *ctx, stenc_type type, stenc_tridiag_layout layout,
                                 size_t n, size_t batch, const void *a, const void *b,
                                 const void *c, const void *d, void *x,
                                 const stenc_tridiag_options *options);

/* The in-place variant: d is overwritten by the solution; a, b and c are left untouched. */
stenc_status stenc_tridiag_solve_inplace(stenc_ctx *ctx, stenc_type type,
                                         stenc_tridiag_layout layout, size_t n, size_t batch,
                                         const void *a, const void *b, const void *c, void *d,
                                         const stenc_tridiag_options *options);

/* A short name for an algorithm ("cr_pcr"); "invalid" for a bad value. */
const char *stenc_tridiag_algo_name(stenc_tridiag_algo algo);

/* The algorithm AUTO uses for this problem on this context (THOMAS on a CPU). */
stenc_tridiag_algo stenc_tridiag_auto_algo(const stenc_ctx *ctx, stenc_type type,
                                           stenc_tridiag_layout layout, size_t n, size_t batch);

stenc_status stenc_tridiag_report_create(stenc_ctx *ctx, stenc_tridiag_report **report);
/* NULL is allowed; a report destroyed already is STENC_ERR_INVALID_ARGUMENT. */
stenc_status stenc_tridiag_report_destroy(stenc_tridiag_report *report);

/* Wait for the solves that recorded into `report`, then clear it. Returns STENC_ERR_SINGULAR
 * (with the system named in the message) when any of them met a singular system, and stores
 * the lowest failing system index in *first_singular (SIZE_MAX when none; may be NULL). Any
 * other failure leaves *first_singular and the report untouched. */
stenc_status stenc_tridiag_report_check(stenc_tridiag_report *report, size_t *first_singular);

/* Line solves of generated launchers (`solve v along i { ... }`, docs/language.md) on device
 * fields of ctx: with a report, each launch queues its solves recording a singular line into
 * `report` and returns without waiting (stenc_tridiag_report_check() later gives the first
 * failing system's index within a launch's batch of lines, not the line's coordinates); with
 * NULL, the default, each launch waits and returns STENC_ERR_SINGULAR naming the line. Only
 * CUDA defers: host fields and OpenCL device fields always wait. The report must belong to ctx
 * and outlive the setting (a destroyed report makes later launches fail with
 * STENC_ERR_INVALID_ARGUMENT). */
stenc_status stenc_tridiag_defer_lines(stenc_ctx *ctx, stenc_tridiag_report *report);

#ifdef __cplusplus
}
#endif

#endif /* STENC_TRIDIAG_H */
