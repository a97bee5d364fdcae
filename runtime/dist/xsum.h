/* Exact sums of doubles, for global reductions that do not depend on the number of ranks.
 *
 * A sum is kept as a fixed-point integer spread over XSUM_LIMBS signed 64-bit limbs; limb d
 * weighs 2^(32 d + XSUM_LOW). Every double (and the exact rounding error of a product) is
 * added exactly, as up to three 32-bit pieces, so the total is the exact sum, and integer
 * addition makes it independent of the order: partial sums of any split of the grid, added
 * with MPI_SUM on integers, give the same bits. Each limb takes under 2^32 per term and holds
 * 2^63, so an accumulator takes 2^30 terms between normalisations (xsum_normalize). Infinities
 * and NaNs are counted apart. Host and device code (CUDA) share this file.
 */
#ifndef STENC_DIST_XSUM_H
#define STENC_DIST_XSUM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define XSUM_FN static inline __host__ __device__
#else
#define XSUM_FN static inline
#endif

enum {
    XSUM_LOW = -1088,      /* below the smallest subnormal, 2^-1074, and a multiple of 32 */
    XSUM_LIMBS = 70,       /* up to 2^(32*70 - 1088) = 2^1152: 2^1024 and room for carries */
    XSUM_NAN = XSUM_LIMBS, /* counts of NaN, +inf, -inf terms follow the limbs */
    XSUM_PINF,
    XSUM_NINF,
    XSUM_WORDS
};

typedef struct xsum {
    int64_t w[XSUM_WORDS];
} xsum;

/* The limb of a finite nonzero x's lowest bit, and the three 32-bit pieces of its magnitude
 * from there; returns the sign (+1 or -1). */
XSUM_FN int xsum_split(double x, int *limb, uint32_t piece[3]) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const int negative = (int)(bits >> 63);
    const int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = bits & 0xfffffffffffffull;
    int exp2; /* x = mant * 2^exp2 */
    if (biased == 0) {
        exp2 = -1074;
    } else {
        mant |= 1ull << 52;
        exp2 = biased - 1075;
    }
    const int pos = exp2 - XSUM_LOW; /* >= 14 */
    const int shift = pos & 31;
    *limb = pos >> 5;
    const uint64_t low = mant << shift;
    const uint64_t high = shift ? mant >> (64 - shift) : 0;
    piece[0] = (uint32_t)low;
    piece[1] = (uint32_t)(low >> 32);
    piece[2] = (uint32_t)high;
    return negative ? -1 : 1;
}

XSUM_FN void xsum_add(xsum *acc, double x) {
    if (x == 0.0) return;
    if (!isfinite(x)) {
        acc->w[isnan(x) ? XSUM_NAN : x > 0 ? XSUM_PINF : XSUM_NINF] += 1;
        return;
    }
    int limb;
    uint32_t piece[3];
    const int sign = xsum_split(x, &limb, piece);
    for (int p = 0; p < 3; p++)
        acc->w[limb + p] += sign * (int64_t)piece[p];
}

/* a * b, exactly: the product and its rounding error (an fma recovers it). A product that
 * overflows counts as the infinity it rounds to. Error terms below 2^-1074 are lost, as in
 * any double arithmetic. */
XSUM_FN void xsum_add_product(xsum *acc, double a, double b) {
    const double p = a * b;
    xsum_add(acc, p);
    if (isfinite(p)) xsum_add(acc, fma(a, b, -p));
}

/* Carry so that every limb but the last lies in [0, 2^32); the last keeps the sign. Right
 * shifts of negative limbs are arithmetic in every compiler stenc supports. */
XSUM_FN void xsum_normalize(xsum *acc) {
    for (int d = 0; d < XSUM_LIMBS - 1; d++) {
        const int64_t carry = acc->w[d] >> 32;
        acc->w[d] -= carry * ((int64_t)1 << 32);
        acc->w[d + 1] += carry;
    }
}

/* The sum rounded to double (to nearest; a result in the subnormal range may be off by one
 * unit of the last place). The accumulator is normalised on the way. */
XSUM_FN double xsum_result(xsum *acc) {
    const int64_t nans = acc->w[XSUM_NAN], pinf = acc->w[XSUM_PINF], ninf = acc->w[XSUM_NINF];
    if (nans || (pinf && ninf)) return NAN;
    if (pinf) return INFINITY;
    if (ninf) return -INFINITY;
    xsum_normalize(acc);
    int64_t mag[XSUM_LIMBS];
    const int negative = acc->w[XSUM_LIMBS - 1] < 0;
    for (int d = 0; d < XSUM_LIMBS; d++)
        mag[d] = negative ? -acc->w[d] : acc->w[d];
    for (int d = 0; d < XSUM_LIMBS - 1; d++) { /* carry the magnitude again */
        const int64_t carry = mag[d] >> 32;
        mag[d] -= carry * ((int64_t)1 << 32);
        mag[d + 1] += carry;
    }
    int top = XSUM_LIMBS - 1;
    while (top >= 0 && mag[top] == 0)
        top--;
    if (top < 0) return 0.0;
    /* The leading 64 bits, with every bit below them folded into a sticky last bit, round
     * to 53 bits correctly when converted. */
    uint64_t lead = (uint64_t)mag[top] << 32 | (top >= 1 ? (uint64_t)mag[top - 1] : 0);
    int below = top - 2; /* limbs not yet in `lead` */
    int lz = 0;
    while (!(lead >> 63)) {
        lead <<= 1;
        lz++;
    }
    if (lz && below >= 0) lead |= (uint64_t)mag[below] >> (32 - lz);
    uint64_t rest = below >= 0 ? ((uint64_t)mag[below] << lz) & 0xffffffffull : 0;
    for (int d = below - 1; d >= 0 && !rest; d--)
        rest = (uint64_t)mag[d];
    if (rest) lead |= 1;
    const int exp2 = 32 * (top - 1) + XSUM_LOW - lz;
    const double r = ldexp((double)lead, exp2);
    return negative ? -r : r;
}

#endif /* STENC_DIST_XSUM_H */
