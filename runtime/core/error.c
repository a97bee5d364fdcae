/* Status strings and the per-thread last-error message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Room for an OpenCL build log's first 2000 characters (stenc_ocl_launch) besides the rest. */
static _Thread_local char last_error[4096];

static const char *const status_strings[STENC_STATUS_COUNT] = {
    [STENC_OK] = "success",
    [STENC_ERR_INVALID_ARGUMENT] = "invalid argument",
    [STENC_ERR_SHAPE] = "shape mismatch",
    [STENC_ERR_OUT_OF_MEMORY] = "out of memory",
    [STENC_ERR_NO_DEVICE] = "no device",
    [STENC_ERR_CUDA] = "CUDA error",
    [STENC_ERR_LOCATION] = "data in the wrong place (host or device)",
    [STENC_ERR_SINGULAR] = "singular system",
    [STENC_ERR_NUMERICAL] = "non-finite value",
    [STENC_ERR_CAPACITY] = "capacity exceeded",
    [STENC_ERR_IO] = "input/output error",
    [STENC_ERR_UNSUPPORTED] = "unsupported",
    [STENC_ERR_INTERNAL] = "internal error",
    [STENC_ERR_OPENCL] = "OpenCL error",
};

const char *stenc_status_string(stenc_status status) {
    if ((unsigned)status >= STENC_STATUS_COUNT) return "unknown status";
    return status_strings[status];
}

const char *stenc_last_error(void) {
    return last_error;
}

void stenc_clear_error(void) {
    last_error[0] = '\0';
}

/* Keep call sites short and stable: "runtime/field/field.c:42", not an absolute path. */
static const char *project_relative(const char *file) {
    const char *roots[] = {"runtime/", "generated/", "templates/"};
    for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++) {
        const char *found = strstr(file, roots[r]);
        if (found) return found;
    }
    return file;
}

stenc_status stenc_set_error(stenc_status status, const char *file, int line, const char *fmt,
                             ...) {
    char message[sizeof last_error - 128] = "(no message)";
    if (fmt) { /* the status must be recorded even when the caller has no message */
        va_list args;
        va_start(args, fmt);
        vsnprintf(message, sizeof message, fmt, args);
        va_end(args);
    }
    snprintf(last_error, sizeof last_error, "%s: %s [%s:%d]", stenc_status_string(status), message,
             file ? project_relative(file) : "(unknown file)", line);
    return status;
}
