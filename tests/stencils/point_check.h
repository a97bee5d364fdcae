/* What the tests of generated stencils against plain loops share: a point of a host field as a
 * double, random contents over the whole box, and a bitwise comparison of two fields. */
#ifndef STENC_TEST_POINT_CHECK_H
#define STENC_TEST_POINT_CHECK_H

#include "test_util.h"

/* Element (i, j, k) of a host field, halo indices allowed. */
static inline double point_at(const stenc_field *f, long i, long j, long k) {
    double v = 0;
    stenc_field_get(f, i, j, k, &v);
    return v;
}

/* Uniform values in [lo, hi) over interior and halo; whole numbers for an integer field. */
static inline void point_fill(stenc_field *f, test_rng *rng, double lo, double hi) {
    stenc_field_layout l;
    stenc_field_get_layout(f, &l);
    const long h = l.halo, hj = l.dims > 1 ? h : 0, hk = l.dims > 2 ? h : 0;
    const int whole = l.type == STENC_I32 || l.type == STENC_U8;
    for (long k = -hk; k < (long)l.n[2] + hk; k++)
        for (long j = -hj; j < (long)l.n[1] + hj; j++)
            for (long i = -h; i < (long)l.n[0] + h; i++) {
                const double v = test_rng_uniform(rng, lo, hi);
                stenc_field_set(f, i, j, k, whole ? floor(v) : v);
            }
}

/* 1 when every point of `got` equals `want`'s bitwise (host fields of one shape): the interior,
 * and with `halo` the halo too; else 0, the first difference printed after `what`. */
static inline int point_same(const stenc_field *got, const stenc_field *want, int halo,
                             const char *what) {
    stenc_field_layout l;
    stenc_field_get_layout(want, &l);
    const long h = halo ? l.halo : 0, hj = l.dims > 1 ? h : 0, hk = l.dims > 2 ? h : 0;
    for (long k = -hk; k < (long)l.n[2] + hk; k++)
        for (long j = -hj; j < (long)l.n[1] + hj; j++)
            for (long i = -h; i < (long)l.n[0] + h; i++) {
                const double a = point_at(got, i, j, k), b = point_at(want, i, j, k);
                if (memcmp(&a, &b, sizeof a) != 0) {
                    print_error("%s: (%ld,%ld,%ld) generated %.17g, loop %.17g\n", what, i, j, k, a,
                                b);
                    return 0;
                }
            }
    return 1;
}

/* A test's device argument: "gpu" or "opencl" set *device (CUDA or OpenCL) and give 1, or
 * STENC_TEST_SKIP (after saying so) when there is no such device; no such argument gives 0
 * and leaves *device alone. */
static inline int point_device_arg(int argc, char **argv, stenc_device *device) {
    if (argc < 2 || (strcmp(argv[1], "gpu") != 0 && strcmp(argv[1], "opencl") != 0)) return 0;
    const int opencl = strcmp(argv[1], "opencl") == 0;
    *device = opencl ? STENC_DEVICE_OPENCL : STENC_DEVICE_CUDA;
    if ((opencl ? stenc_opencl_device_count() : stenc_cuda_device_count()) == 0) {
        printf("no %s device: skipped\n", opencl ? "OpenCL" : "CUDA");
        return STENC_TEST_SKIP;
    }
    return 1;
}

#endif /* STENC_TEST_POINT_CHECK_H */
