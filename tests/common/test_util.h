/* Shared helpers for stenc's cmocka tests: a seeded random generator, ulp distances, and the
 * GPU skip convention. Header-only so that every test stays one executable. */
#ifndef STENC_TEST_UTIL_H
#define STENC_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stenc/stenc.h"

/* ctest's SKIP_RETURN_CODE for every test (see tests/CMakeLists.txt). */
#define STENC_TEST_SKIP 77

/* splitmix64: small, fast, and the same sequence on every platform. */
typedef struct test_rng {
    uint64_t state;
} test_rng;

static inline test_rng test_rng_seeded(uint64_t seed) {
    test_rng rng = {seed * 0x9E3779B97F4A7C15ull + 1};
    return rng;
}

static inline uint64_t test_rng_u64(test_rng *rng) {
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static inline double test_rng_uniform(test_rng *rng, double lo, double hi) {
    return lo + (hi - lo) * (double)(test_rng_u64(rng) >> 11) * 0x1.0p-53;
}

/* Distance in units in the last place between two floats (0 if equal, huge if one is NaN). */
static inline uint64_t test_ulp_distance_f32(float a, float b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0) ia = INT32_MIN - ia;
    if (ib < 0) ib = INT32_MIN - ib;
    int64_t d = (int64_t)ia - (int64_t)ib;
    return (uint64_t)(d < 0 ? -d : d);
}

static inline uint64_t test_ulp_distance_f64(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
    int64_t ia, ib;
    memcpy(&ia, &a, 8);
    memcpy(&ib, &b, 8);
    if (ia < 0) ia = INT64_MIN - ia;
    if (ib < 0) ib = INT64_MIN - ib;
    /* Differences of two such values cannot overflow once both are mapped to the same sign. */
    return ia > ib ? (uint64_t)ia - (uint64_t)ib : (uint64_t)ib - (uint64_t)ia;
}

/* 1 when a CUDA device can run the GPU half of a test. */
static inline int test_gpu_available(void) {
    return stenc_cuda_device_count() > 0;
}

/* Call first in a GPU test's main(): returns from main with the skip code when no device. */
#define TEST_REQUIRE_GPU_OR_SKIP()                                                                 \
    do {                                                                                           \
        if (!test_gpu_available()) {                                                               \
            printf("SKIPPED: no CUDA device (built with CUDA: %s)\n",                              \
                   stenc_built_with_cuda() ? "yes" : "no");                                        \
            return STENC_TEST_SKIP;                                                                \
        }                                                                                          \
    } while (0)

/* Assert a stenc call succeeded, printing stenc_last_error() when it did not. */
#define assert_stenc_ok(call)                                                                      \
    do {                                                                                           \
        stenc_status st_ = (call);                                                                 \
        if (st_ != STENC_OK) fail_msg("%s -> %s", #call, stenc_last_error());                      \
    } while (0)

#endif /* STENC_TEST_UTIL_H */
