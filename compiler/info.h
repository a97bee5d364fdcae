/* `stenc --info`: the Table 14.1 view of analysed stencils. */
#ifndef STENC_COMPILER_INFO_H
#define STENC_COMPILER_INFO_H

#include <stdio.h>

#include "analyze.h"

/* The summary table of `n` kernels: kernel, dims, type, flops/point, bytes/point, AI. */
void info_print_table(FILE *out, const km_kernel *kms, int n);

/* One kernel's access pattern: per array its kind, reads, offsets and halo per dimension. */
void info_print_kernel(FILE *out, const km_kernel *km);

#endif /* STENC_COMPILER_INFO_H */
