/* Shared pieces of runtime/io: field shapes, dense little-endian copies of the interior,
 * output files that are renamed into place when complete, and text helpers. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_internal.h"

/* ---- shapes and interiors ---------------------------------------------------------------- */

stenc_status io_field_shape(const stenc_field *field, io_shape *shape, const char *fn,
                            const char *what) {
    STENC_TRY(stenc_field_check(field, fn, what));
    const stenc_field_layout *L = &field->layout;
    shape->type = L->type;
    shape->dims = L->dims;
    shape->count = 1;
    for (int d = 0; d < 3; d++) {
        shape->n[d] = L->n[d];
        shape->count *= L->n[d]; /* cannot overflow: the allocation holds all of them */
    }
    shape->elem_size = field->elem_size;
    return STENC_OK;
}

void io_shape_format(const io_shape *shape, char *buf, size_t cap) {
    const size_t *n = shape->n;
    if (shape->dims == 1)
        snprintf(buf, cap, "(%zu,)", n[0]);
    else if (shape->dims == 2)
        snprintf(buf, cap, "(%zu, %zu)", n[1], n[0]);
    else
        snprintf(buf, cap, "(%zu, %zu, %zu)", n[2], n[1], n[0]);
}

static int host_is_little_endian(void) {
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

/* Swap every element between host order and little-endian; a no-op on little-endian hosts.
 * The swap is its own inverse, so it serves both ways. */
static void to_little_endian(void *data, size_t count, size_t elem_size) {
    if (host_is_little_endian()) return;
    unsigned char *p = data;
    for (size_t e = 0; e < count; e++, p += elem_size)
        for (size_t b = 0; b < elem_size / 2; b++) {
            unsigned char t = p[b];
            p[b] = p[elem_size - 1 - b];
            p[elem_size - 1 - b] = t;
        }
}

stenc_status io_field_gather(const stenc_field *field, const io_shape *shape, void **dense,
                             const char *fn) {
    size_t bytes = shape->count * shape->elem_size;
    *dense = malloc(bytes);
    if (!*dense)
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory for a %zu-byte copy of a field",
                           fn, bytes);
    stenc_status status = stenc_field_interior_get(field, *dense, fn);
    if (status != STENC_OK) {
        free(*dense);
        *dense = NULL;
        return status;
    }
    to_little_endian(*dense, shape->count, shape->elem_size);
    return STENC_OK;
}

stenc_status io_field_scatter(stenc_field *field, const io_shape *shape, void *dense,
                              const char *fn) {
    to_little_endian(dense, shape->count, shape->elem_size);
    return stenc_field_interior_put(field, dense, fn);
}

/* ---- output files ------------------------------------------------------------------------ */

stenc_status io_out_open(io_out *out, const char *path, const char *fn) {
    static atomic_uint serial; /* distinct temporaries for threads of one process */
    memset(out, 0, sizeof *out);
    out->path = path;
    out->fn = fn;
    size_t cap = strlen(path) + 64;
    out->tmp = malloc(cap);
    if (!out->tmp) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    snprintf(out->tmp, cap, "%s.tmp%ld.%u", path, (long)getpid(), atomic_fetch_add(&serial, 1));
    /* O_EXCL: never write through a name someone else made; 0666 lets the umask decide. */
    int fd = open(out->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd >= 0) out->fp = fdopen(fd, "wb");
    if (!out->fp) {
        int err = errno;
        if (fd >= 0) {
            close(fd);
            remove(out->tmp);
        }
        free(out->tmp);
        out->tmp = NULL;
        return STENC_ERROR(STENC_ERR_IO, "%s: cannot write '%s': %s", fn, path, strerror(err));
    }
    return STENC_OK;
}

static void note_error(io_out *out) {
    if (!out->error) out->error = errno ? errno : -1;
}

void io_out_write(io_out *out, const void *data, size_t bytes) {
    if (out->error || bytes == 0) return;
    errno = 0;
    if (fwrite(data, 1, bytes, out->fp) != bytes) note_error(out);
}

void io_out_printf(io_out *out, const char *fmt, ...) {
    if (out->error) return;
    va_list args;
    va_start(args, fmt);
    errno = 0;
    if (vfprintf(out->fp, fmt, args) < 0) note_error(out);
    va_end(args);
}

void io_out_abort(io_out *out) {
    if (out->fp) fclose(out->fp);
    if (out->tmp) remove(out->tmp);
    free(out->tmp);
    out->fp = NULL;
    out->tmp = NULL;
}

stenc_status io_out_commit(io_out *out) {
    errno = 0;
    if (fflush(out->fp) != 0) note_error(out);
    errno = 0;
    int closed = fclose(out->fp);
    out->fp = NULL;
    if (closed != 0) note_error(out);
    errno = 0;
    if (!out->error && rename(out->tmp, out->path) != 0) note_error(out);
    if (!out->error) {
        free(out->tmp);
        out->tmp = NULL;
        return STENC_OK;
    }
    int err = out->error;
    io_out_abort(out);
    return STENC_ERROR(STENC_ERR_IO, "%s: writing '%s' failed: %s", out->fn, out->path,
                       err > 0 ? strerror(err) : "write error");
}

/* ---- text -------------------------------------------------------------------------------- */

void io_format_double(char buf[32], double x) {
    snprintf(buf, 32, "%.17g", x);
    /* A program may have set a locale whose decimal point is a comma; files want a '.'. */
    for (char *p = buf; *p; p++)
        if (*p == ',') *p = '.';
}

void io_xml_escape(io_out *out, const char *text) {
    for (const char *p = text; *p; p++) {
        const char *entity = *p == '&'    ? "&amp;"
                             : *p == '<'  ? "&lt;"
                             : *p == '>'  ? "&gt;"
                             : *p == '"'  ? "&quot;"
                             : *p == '\'' ? "&apos;"
                                          : NULL;
        if (entity)
            io_out_printf(out, "%s", entity);
        else
            io_out_write(out, p, 1);
    }
}

stenc_status io_check_label(const char *name, const char *fn, const char *what) {
    STENC_REQUIRE(name != NULL, "%s: %s is NULL", fn, what);
    STENC_REQUIRE(name[0] != '\0', "%s: %s is empty", fn, what);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        STENC_REQUIRE(*p >= 0x20 && *p != 0x7f, "%s: %s '%s' holds a control character", fn, what,
                      name);
    return STENC_OK;
}
