/* Small helpers the example programs share: a checked-call macro and the parsing of the
 * options they have in common; progress.h (included here) gives the clock and the progress
 * lines. Define EXAMPLE_NAME (the program's name, for messages) before including.
 * Header-only: each example stays one source file. */
#ifndef STENC_EXAMPLE_UTIL_H
#define STENC_EXAMPLE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "stenc/stenc.h"

#ifndef EXAMPLE_NAME
#error "define EXAMPLE_NAME before including example_util.h"
#endif

/* Run a stenc call; on failure print what failed and why, and jump to the local `fail:`. */
#define TRY(call)                                                                                  \
    do {                                                                                           \
        stenc_status st_ = (call);                                                                 \
        if (st_ != STENC_OK) {                                                                     \
            fprintf(stderr, EXAMPLE_NAME ": %s failed: %s\n", #call, stenc_last_error());          \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* "auto", "cpu" or "cuda"; returns 0, or -1 (with a message) for anything else. */
static inline int example_parse_device(const char *val, stenc_device *device) {
    if (strcmp(val, "cpu") == 0)
        *device = STENC_DEVICE_CPU;
    else if (strcmp(val, "cuda") == 0)
        *device = STENC_DEVICE_CUDA;
    else if (strcmp(val, "auto") == 0)
        *device = STENC_DEVICE_AUTO;
    else
        return fprintf(stderr, EXAMPLE_NAME ": bad device '%s' (auto, cpu or cuda)\n", val), -1;
    return 0;
}

/* A comma-separated list of sizes in [lo, hi] ("31,63,127") into out[0..max); returns how
 * many, or -1 (with a message) for an empty, malformed, out-of-range or too long list. */
static inline int example_parse_sizes(const char *val, long *out, int max, long lo, long hi) {
    int count = 0;
    const char *p = val;
    while (*p) {
        char *end;
        long n = strtol(p, &end, 10);
        if (end == p || n < lo || n > hi || count == max || (*end && *end != ',')) {
            fprintf(stderr, EXAMPLE_NAME ": bad size list '%s' (at most %d sizes, each %ld..%ld)\n",
                    val, max, lo, hi);
            return -1;
        }
        out[count++] = n;
        p = *end ? end + 1 : end;
    }
    if (count == 0) fprintf(stderr, EXAMPLE_NAME ": empty size list\n");
    return count ? count : -1;
}

#endif /* STENC_EXAMPLE_UTIL_H */
