/* Division by a constant (compiler/divide.c, stenc/divide.h): the compiler's plan, and
 * stenc_div_const() on the host against x / c, on every float for one divisor and on the range's
 * edges and a sample of the rest for others. The device's stenc_div_const() is checked on every
 * float by test_divide_gpu. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "divide.h"
#include "stenc/divide.h"
#include "test_util.h"

/* Divisors of every kind the plan accepts: ordinary, negative below 1 (quotients overflow),
 * tiny and huge (the band moves), at the accepted range's ends, a power of two, a third. */
static const float divisors[] = {118.0f,   -0.3f,      3e-30f,      7e30f, 0x1p-124f,
                                 0x1p124f, 0x1.8p123f, 1.0f / 3.0f, 0.5f,  -5.1f};

/* Every float is checked where the build is optimised; an unoptimised (sanitizer) build checks
 * every 61st of each range instead, ~60 times faster. */
#ifdef STENC_TEST_DIVIDE_SPARSE
#define THIN 61
#else
#define THIN 1
#endif

static int same(float got, float want) {
    return (isnan(got) && isnan(want)) || memcmp(&got, &want, sizeof got) == 0;
}

static float from_bits(uint32_t bits) {
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Mismatches of stenc_div_const(x) against x / c over bit patterns [first, last) with `step`. */
static uint64_t mismatches(const divide_const *k, uint64_t first, uint64_t last, uint64_t step) {
    uint64_t bad = 0;
    step *= THIN;
#pragma omp parallel for reduction(+ : bad) schedule(static)
    for (int64_t b = (int64_t)first; b < (int64_t)last; b += (int64_t)step) {
        const float x = from_bits((uint32_t)b);
        if (!same(stenc_div_const(x, k->c, k->y, k->yd, k->lo, k->hi), x / k->c)) {
#pragma omp critical
            if (bad == 0) print_error("c = %a: x = %a\n", (double)k->c, (double)x);
            bad++;
        }
    }
    return bad;
}

static void test_plan(void **state) {
    (void)state;
    for (size_t d = 0; d < sizeof divisors / sizeof divisors[0]; d++) {
        divide_const k;
        const float c = divisors[d];
        assert_int_equal(divide_plan(c, &k), 1);
        assert_true(k.c == c && k.y == 1.0f / c && k.yd == 1.0 / (double)c);
        assert_true(k.lo * 4 <= k.hi && isfinite(k.hi) && k.lo >= 0x1p-126f);
    }
    /* 1 / c not normal, or no quotient at all */
    const float refused[] = {0.0f,      -0.0f,      INFINITY, -INFINITY, NAN,
                             0x1p-125f, 0x1.8p124f, 3e38f,    1e-40f};
    for (size_t d = 0; d < sizeof refused / sizeof refused[0]; d++) {
        divide_const k = {0};
        assert_int_equal(divide_plan(refused[d], &k), 0);
        assert_true(k.c == 0.0f); /* untouched */
    }
}

/* Every float, c = 118 (AN5D's j2d5pt). */
static void test_every_float(void **state) {
    (void)state;
    divide_const k;
    assert_int_equal(divide_plan(118.0f, &k), 1);
    assert_int_equal(mismatches(&k, 0, UINT64_C(1) << 32, 1), 0);
}

/* The other divisors: both signs of zero and the subnormals, of the binades either side of lo
 * and of hi, of the top binade, infinities and NaNs, and every 4099th float elsewhere. */
static void test_edges(void **state) {
    (void)state;
    for (size_t d = 1; d < sizeof divisors / sizeof divisors[0]; d++) {
        divide_const k;
        assert_int_equal(divide_plan(divisors[d], &k), 1);
        uint32_t lo_bits, hi_bits;
        memcpy(&lo_bits, &k.lo, 4), memcpy(&hi_bits, &k.hi, 4);
        const uint64_t binade = UINT64_C(1) << 23;
        for (uint64_t sign = 0; sign < 2; sign++) {
            const uint64_t s = sign << 31;
            assert_int_equal(mismatches(&k, s, s + binade, 1), 0);
            assert_int_equal(mismatches(&k, s + lo_bits - binade, s + lo_bits + binade, 1), 0);
            assert_int_equal(mismatches(&k, s + hi_bits - binade, s + hi_bits + binade, 1), 0);
            assert_int_equal(mismatches(&k, s + 0x7f000000u, s + 0x80000000u, 1), 0);
            assert_int_equal(mismatches(&k, s, s + 0x80000000u, 4099), 0);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_every_float),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
