/* stenc reductions on fields: sums, norms and dot products over the interior (the halo is
 * never read), on the CPU and on CUDA, written to a host double.
 *
 * Accuracy. Every term is formed exactly in double (float values widen exactly; a double
 * product a*b keeps its rounding error, recovered with an fma, in the compensation) and summed
 * with Neumaier's compensated summation: the error is at most about one rounding of the
 * result plus n*2^-106*sum|terms|, so a sum over 10^8 points does not drift.
 *
 * Order and determinism. The interior is taken in its natural order (i fastest, then j, k)
 * and cut into fixed chunks of consecutive points (STENC_REDUCE_CHUNK on the CPU, the CUDA
 * block's tile on the GPU). Each chunk is summed in a fixed order into a (sum, compensation)
 * pair; the pairs are combined in chunk order. Nothing depends on the number of threads or on
 * scheduling, so the result is bitwise reproducible for a given field size and target (CPU or
 * CUDA); the CPU and CUDA results may differ in the last bits.
 *
 * Special values: a NaN anywhere gives NaN; an infinity gives the naive sum's infinity (or
 * NaN for inf - inf). The max norm propagates NaN too. Double values above ~1e154 overflow
 * when squared. An empty field gives 0.
 *
 * The field must be STENC_F32 or STENC_F64. The call runs where the field lives and waits for
 * the result (on CUDA: after the work queued before it on the context's stream).
 */
#ifndef STENC_REDUCE_H
#define STENC_REDUCE_H

#include "stenc/core.h"
#include "stenc/field.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sum of the interior values. */
stenc_status stenc_field_sum(const stenc_field *field, double *result);

/* Sum of squares of the interior values, and its square root, the L2 (Euclidean) norm. */
stenc_status stenc_field_sum_squares(const stenc_field *field, double *result);
stenc_status stenc_field_norm2(const stenc_field *field, double *result);

/* Largest absolute interior value (exact). */
stenc_status stenc_field_norm_max(const stenc_field *field, double *result);

/* sum a(i,j,k) * b(i,j,k) over the interior. Same type, dims and interior extents, any halos
 * (STENC_ERR_SHAPE otherwise); the same context (STENC_ERR_INVALID_ARGUMENT) and the same side
 * (STENC_ERR_LOCATION). */
stenc_status stenc_field_dot(const stenc_field *a, const stenc_field *b, double *result);

#ifdef __cplusplus
}
#endif

#endif /* STENC_REDUCE_H */
