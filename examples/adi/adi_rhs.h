/* The explicit half of a Peaceman-Rachford ADI step, on the CPU or on CUDA. */
#ifndef STENC_EXAMPLE_ADI_RHS_H
#define STENC_EXAMPLE_ADI_RHS_H

#ifdef __cplusplus
extern "C" {
#endif

/* out = u + half_r * (second difference of u along y (dir 1) or x (dir 0)), zero Dirichlet
 * boundaries; u and out are n*n, x fastest. CUDA version: device pointers, on `stream`. */
int adi_rhs_cuda(int dir, const double *u, double *out, int n, double half_r, void *stream);

#ifdef __cplusplus
}
#endif

#endif
