/* Runs the generated smoother on x = i*i (halo included) and checks it against the exact
 * answer: (x[i-1] + 2x[i] + x[i+1]) / 4 = i*i + 1/2, so diff = 1/2 everywhere. */
#include <stdio.h>

#include "smooth.h"
#include "stenc/stenc.h"

int main(void) {
    enum { N = 37 };
    stenc_ctx *ctx = NULL;
    stenc_field *x = NULL, *s = NULL, *diff = NULL;
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK ||
        stenc_field_create(ctx, &x, STENC_F64, 1, N, 1, 1, SMOOTH_HALO) != STENC_OK ||
        stenc_field_create(ctx, &s, STENC_F64, 1, N, 1, 1, 0) != STENC_OK ||
        stenc_field_create(ctx, &diff, STENC_F64, 1, N, 1, 1, 0) != STENC_OK) {
        fprintf(stderr, "setup failed: %s\n", stenc_last_error());
        return 1;
    }
    for (long i = -1; i <= N; i++)
        stenc_field_set(x, i, 0, 0, (double)(i * i));
    if (smooth(ctx, x, s, diff) != STENC_OK) {
        fprintf(stderr, "smooth failed: %s\n", stenc_last_error());
        return 1;
    }
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
    stenc_field_free(x);
    stenc_field_free(s);
    stenc_field_free(diff);
    stenc_ctx_destroy(ctx);
    puts(bad ? "consumer: FAILED" : "consumer: ok");
    return bad;
}
