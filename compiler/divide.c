/* divide: the plan of a float division by a constant (divide.h). */
#include "divide.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stenc/divide.h"

/* Dividends of the checked binade, every one; the libFuzzer harness, which never runs what the
 * compiler emits, checks every 4099th (tests/fuzz). */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CHECK_STEP 4099u
#else
#define CHECK_STEP 1u
#endif

int divide_plan(float c, divide_const *out) {
    const float m = fabsf(c);
    if (!(m >= 0x1p-124f && m <= 0x1p124f)) return 0; /* zero, NaN, infinite, or 1 / c not normal */
    int e;
    frexpf(m, &e);
    const int ec = e - 1; /* 2^ec <= |c| < 2^(ec + 1) */
    /* For x in [2^ex, 2^(ex + 1)): q = RN(x y) is normal when ex >= ec - 125 and finite when
     * ex <= ec + 126; a nonzero remainder x - q c is at least 2^(ex - 47), normal when
     * ex >= -79. Two binades of margin each side. */
    const int lo_exp = (ec - 123 > -77 ? ec - 123 : -77);
    const int hi_exp = (ec + 124 < 126 ? ec + 124 : 126);
    divide_const k = {c, 1.0f / c, 1.0 / (double)c, ldexpf(1.0f, lo_exp), ldexpf(1.0f, hi_exp)};
    /* Inside the band every operation of the fast path scales by 2^k with x, and so does
     * x / c: one binade of the band, its middle one, decides it. */
    const uint32_t binade = (uint32_t)((lo_exp + hi_exp) / 2 + 127) << 23;
    for (uint32_t s = 0; s < (1u << 23); s += CHECK_STEP) {
        const uint32_t bits = binade | s;
        float x, want, got;
        memcpy(&x, &bits, sizeof x);
        want = x / c;
        got = stenc_div_fast(x, k.c, k.y);
        if (memcmp(&want, &got, sizeof want) != 0) return 0;
    }
    *out = k;
    return 1;
}

/* A node that reads nothing: `x` made of such nodes is made of numbers only. */
static int reads_nothing(const ast_expr *x) {
    return x->kind != AST_EXPR_REF;
}

int divide_literal(const ast_expr *x, int in_float, float *c) {
    if (!in_float || x->kind != AST_EXPR_BINARY || x->u.binary.op != AST_OP_DIV) return 0;
    const ast_expr *divisor = x->u.binary.rhs;
    int negate = 0;
    if (divisor->kind == AST_EXPR_UNARY && divisor->u.unary.op == AST_OP_NEG) {
        negate = 1;
        divisor = divisor->u.unary.operand;
    }
    if (divisor->kind != AST_EXPR_NUMBER || ast_expr_every(x->u.binary.lhs, reads_nothing))
        return 0;
    const float magnitude = strtof(divisor->u.number.text, NULL); /* as the emitter prints it */
    int e;
    /* A power of two whose reciprocal is normal: nvcc (NVVM) already multiplies by it, exactly. */
    if (frexpf(magnitude, &e) == 0.5f && magnitude >= 0x1p-124f && magnitude <= 0x1p124f) return 0;
    *c = negate ? -magnitude : magnitude;
    return 1;
}
