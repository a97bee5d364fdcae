/* What the tests of generated stencils against plain loops share: a point of a host field as a
 * double, random contents over the whole box, random fields made where a context lives, host
 * copies of fields, and a bitwise comparison of two fields. */
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

/* A field of ctx, uniform in [lo, hi) over its whole box (seeded), uploaded when ctx is a
 * device's. */
static inline stenc_field *point_make(stenc_ctx *ctx, stenc_type type, int dims, size_t n0,
                                      size_t n1, size_t n2, int halo, double lo, double hi,
                                      uint64_t seed) {
    stenc_field *f;
    assert_int_equal(stenc_field_create(ctx, &f, type, dims, n0, n1, n2, halo), STENC_OK);
    test_rng rng = test_rng_seeded(seed);
    point_fill(f, &rng, lo, hi);
    if (stenc_ctx_device(ctx) != STENC_DEVICE_CPU)
        assert_int_equal(stenc_field_upload(f), STENC_OK);
    return f;
}

/* A field of host_ctx holding a copy of f's host box (halo and padding included), as it is
 * now: the values an output had before a launch. */
static inline stenc_field *point_snapshot(stenc_ctx *host_ctx, const stenc_field *f) {
    stenc_field_layout l;
    stenc_field_get_layout(f, &l);
    stenc_field *s;
    assert_int_equal(
        stenc_field_create(host_ctx, &s, l.type, l.dims, l.n[0], l.n[1], l.n[2], l.halo), STENC_OK);
    const size_t size = stenc_type_size(l.type);
    memcpy((char *)stenc_field_host_origin(s) - l.origin_elems * size,
           (const char *)stenc_field_host_origin(f) - l.origin_elems * size, l.alloc_elems * size);
    return s;
}

/* A field of host_ctx holding f's values: f is downloaded first, and uploaded again, when it
 * lives on a device. Freed by the caller. */
static inline stenc_field *point_host_copy(stenc_ctx *host_ctx, stenc_field *f) {
    const int on_device = stenc_field_location(f) == STENC_ON_DEVICE;
    if (on_device) assert_int_equal(stenc_field_download(f), STENC_OK);
    stenc_field *s = point_snapshot(host_ctx, f);
    if (on_device) assert_int_equal(stenc_field_upload(f), STENC_OK);
    return s;
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
