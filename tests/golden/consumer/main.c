/* Runs the generated smoother on x = i*i (halo included) and checks it against the exact
 * answer: (x[i-1] + 2x[i] + x[i+1]) / 4 = i*i + 1/2, so diff = 1/2 everywhere. On the CPU
 * always; on a CUDA device too when one is present, where it also runs one of libstenc's own
 * kernels (a Neumann halo fill): the program's CUDA runtime and libstenc's meet there. */
#include <stdio.h>

#include "smooth.h"
#include "stenc/stenc.h"

enum { N = 37 };

static int fail(const char *what) {
    fprintf(stderr, "consumer: %s failed: %s\n", what, stenc_last_error());
    return 1;
}

static int run(stenc_device device) {
    stenc_ctx *ctx = NULL;
    stenc_field *x = NULL, *s = NULL, *diff = NULL;
    if (stenc_ctx_create(&ctx, device) != STENC_OK ||
        stenc_field_create(ctx, &x, STENC_F64, 1, N, 1, 1, SMOOTH_HALO) != STENC_OK ||
        stenc_field_create(ctx, &s, STENC_F64, 1, N, 1, 1, 0) != STENC_OK ||
        stenc_field_create(ctx, &diff, STENC_F64, 1, N, 1, 1, 0) != STENC_OK)
        return fail("setup");
    for (long i = -1; i <= N; i++)
        stenc_field_set(x, i, 0, 0, (double)(i * i));
    if (device == STENC_DEVICE_CUDA &&
        (stenc_field_upload(x) != STENC_OK || stenc_field_upload(s) != STENC_OK ||
         stenc_field_upload(diff) != STENC_OK))
        return fail("upload");
    if (smooth(ctx, x, s, diff) != STENC_OK) return fail("smooth");
    stenc_bc bc[STENC_FACE_COUNT] = {{STENC_BC_NEUMANN, 0}, {STENC_BC_NEUMANN, 0}};
    if (stenc_field_fill_halo(x, bc) != STENC_OK) return fail("halo fill");
    if (stenc_field_download(x) != STENC_OK || stenc_field_download(s) != STENC_OK ||
        stenc_field_download(diff) != STENC_OK)
        return fail("download");
    int bad = 0;
    for (long i = 0; i < N; i++) {
        double got_s, got_d;
        stenc_field_get(s, i, 0, 0, &got_s);
        stenc_field_get(diff, i, 0, 0, &got_d);
        if (got_s != (double)(i * i) + 0.5 || got_d != 0.5) {
            fprintf(stderr, "point %ld: s = %g, diff = %g\n", i, got_s, got_d);
            bad = 1;
        }
    }
    double lo, hi;
    stenc_field_get(x, -1, 0, 0, &lo);
    stenc_field_get(x, N, 0, 0, &hi);
    if (lo != 0 || hi != (double)((N - 1) * (N - 1))) {
        fprintf(stderr, "halo: x[-1] = %g, x[N] = %g\n", lo, hi);
        bad = 1;
    }
    stenc_field_free(x);
    stenc_field_free(s);
    stenc_field_free(diff);
    stenc_ctx_destroy(ctx);
    return bad;
}

int main(void) {
    int bad = run(STENC_DEVICE_CPU);
    const char *where = "cpu";
    stenc_ctx *probe = NULL;
    /* smooth_variant_name(0) is NULL when the cuda target was not generated */
    if (smooth_variant_name(0) != NULL && stenc_ctx_create(&probe, STENC_DEVICE_CUDA) == STENC_OK) {
        stenc_ctx_destroy(probe);
        bad |= run(STENC_DEVICE_CUDA);
        where = "cpu, cuda";
    }
    printf("consumer (libstenc %s): %s (%s)\n", stenc_version(), bad ? "FAILED" : "ok", where);
    return bad;
}
