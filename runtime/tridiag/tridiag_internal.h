/* Internals of the tridiagonal module (prefix tdg_): the problem record handed from the C
 * dispatch (tridiag.c) to the CPU solver (tridiag_cpu.c) and the CUDA half (tridiag_cuda.cu).
 * Not installed. */
#ifndef STENC_TRIDIAG_INTERNAL_H
#define STENC_TRIDIAG_INTERNAL_H

#include <stdint.h>

#include "internal.h"
#include "stenc/tridiag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "No failing system" in a first-singular-system flag. */
#define TDG_NONE UINT64_MAX

typedef struct tdg_problem {
    stenc_type type;
    stenc_tridiag_layout layout;
    size_t n, batch;
    const void *a, *b, *c, *d;
    void *x; /* may equal d (in place) */
    stenc_tridiag_algo algo;
    int switch_size;
} tdg_problem;

struct stenc_tridiag_report {
    stenc_ctx *ctx;
    uint64_t host_first; /* CPU: lowest failing system so far */
    void *device_first;  /* CUDA: a uint64_t in device memory, TDG_NONE when clear */
};

/* STENC_ERR_INVALID_ARGUMENT unless `report` is a live report of a live context. */
stenc_status tdg_report_check_live(const stenc_tridiag_report *report, const char *fn);

/* CPU Thomas; *first_bad gets the lowest failing system or TDG_NONE. */
stenc_status tdg_cpu_solve(const tdg_problem *p, uint64_t *first_bad);

/* CUDA. With device_flag == NULL the call waits and stores the lowest failing system (or
 * TDG_NONE) in *first_bad; otherwise it records into device_flag with atomicMin and does not
 * wait. Returns STENC_ERR_NO_DEVICE in a build without CUDA. */
stenc_status tdg_cuda_solve(stenc_ctx *ctx, const tdg_problem *p, void *device_flag,
                            uint64_t *first_bad);
stenc_tridiag_algo tdg_cuda_auto_algo(const stenc_ctx *ctx, stenc_type type,
                                      stenc_tridiag_layout layout, size_t n, size_t batch);
stenc_status tdg_cuda_flag_create(stenc_ctx *ctx, void **device_flag);
void tdg_cuda_flag_destroy(stenc_ctx *ctx, void *device_flag);
/* Wait, read the flag into *first_bad and reset it to TDG_NONE. */
stenc_status tdg_cuda_flag_take(stenc_ctx *ctx, void *device_flag, uint64_t *first_bad);

#ifdef __cplusplus
}
#endif

#endif /* STENC_TRIDIAG_INTERNAL_H */
