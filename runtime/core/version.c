/* The library's own version, for programs that check what they run against. */
#include "stenc/core.h"

const char *stenc_version(void) {
    return STENC_VERSION_STRING;
}
