/* stenc_gen: print the random stencils of the differential test, to reproduce a failure or to
 * feed the fuzzer.
 *     stenc_gen [-f FLAGS] SEED [COUNT]    stencils SEED .. SEED+COUNT-1, one file's worth */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_stencil.h"

int main(int argc, char **argv) {
    unsigned flags = GS_DEFAULT_FLAGS;
    int a = 1;
    if (a + 1 < argc && !strcmp(argv[a], "-f")) {
        long f = gs_parse_flags(argv[a + 1]);
        if (f < 0) {
            fprintf(stderr, "stenc_gen: unknown flag in '%s'\n", argv[a + 1]);
            return 2;
        }
        flags = (unsigned)f;
        a += 2;
    }
    if (a >= argc) {
        fprintf(stderr, "usage: stenc_gen [-f FLAGS] SEED [COUNT]\n");
        return 2;
    }
    unsigned long long seed = strtoull(argv[a], NULL, 0);
    long count = a + 1 < argc ? strtol(argv[a + 1], NULL, 0) : 1;
    for (long n = 0; n < count; n++) {
        gs_stencil *st = gs_generate(seed + (unsigned long long)n, flags, NULL);
        fputs(gs_text(st), stdout);
        gs_free(st);
    }
    return 0;
}
