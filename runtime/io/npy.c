/* NumPy .npy files (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
 *
 * A file is the magic "\x93NUMPY", a version (major, minor), the length of a header (uint16 in
 * version 1, uint32 in 2 and 3, little-endian), the header, and the raw data. The header is a
 * Python dict literal such as {'descr': '<f8', 'fortran_order': False, 'shape': (5, 9, 11), }
 * padded with spaces and a newline so that the data starts at a multiple of 64 bytes. We write
 * version 1.0 and read the dict with a small parser of just that grammar: keys in any order,
 * either quote, a trailing comma; nothing is evaluated. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io_internal.h"

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

enum {
    NPY_ALIGN = 64,           /* the data starts at a multiple of this */
    NPY_MAX_HEADER = 1 << 20, /* longer headers are corrupt, not real */
    NPY_MAX_DESCR = 32,       /* longer dtype strings are none we read */
    NPY_MAX_RANK = 64,        /* NumPy's own limit */
    NPY_HEADER_SHOWN = 120    /* characters of a bad header quoted in messages */
};

static const char *descr_of(stenc_type type) {
    return type == STENC_F32 ? "<f4" : type == STENC_I32 ? "<i4" : type == STENC_U8 ? "|u1" : "<f8";
}

/* ---- writing ----------------------------------------------------------------------------- */

/* The preamble and header for `shape`, padded to NPY_ALIGN bytes; returns its length. */
static size_t build_header(const io_shape *shape, char buf[256]) {
    char dims[96];
    io_shape_format(shape, dims, sizeof dims);
    char dict[160];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                       descr_of(shape->type), dims);
    size_t preamble = sizeof npy_magic + 4; /* magic, version 1.0, uint16 header length */
    size_t total = (preamble + (size_t)len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    size_t header_len = total - preamble; /* dict, spaces, newline; total < 256 */
    memcpy(buf, npy_magic, sizeof npy_magic);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (char)(header_len & 0xff);
    buf[9] = (char)(header_len >> 8);
    memcpy(buf + preamble, dict, (size_t)len);
    memset(buf + preamble + len, ' ', header_len - (size_t)len - 1);
    buf[total - 1] = '\n';
    return total;
}

stenc_status stenc_io_npy_write(const char *path, const stenc_field *field) {
    const char *fn = "stenc_io_npy_write";
    STENC_REQUIRE(path != NULL, "%s: path is NULL", fn);
    io_shape shape;
    STENC_TRY(io_field_shape(field, &shape, fn, "field"));
    char header[256];
    size_t header_len = build_header(&shape, header);
    void *dense;
    STENC_TRY(io_field_gather(field, &shape, &dense, fn));
    io_out out;
    stenc_status status = io_out_open(&out, path, fn);
    if (status == STENC_OK) {
        io_out_write(&out, header, header_len);
        io_out_write(&out, dense, shape.count * shape.elem_size);
        status = io_out_commit(&out);
    }
    free(dense);
    return status;
}

/* ---- the header dict --------------------------------------------------------------------- */

typedef struct npy_header {
    char descr[NPY_MAX_DESCR];
    int fortran_order;
    int rank;
    size_t shape[NPY_MAX_RANK];
} npy_header;

typedef struct npy_parser {
    const char *p, *end;
    const char *error; /* what was expected where parsing stopped */
} npy_parser;

static void skip_space(npy_parser *P) {
    while (P->p < P->end && (*P->p == ' ' || *P->p == '\t' || *P->p == '\n' || *P->p == '\r'))
        P->p++;
}

static int expect(npy_parser *P, char c, const char *what) {
    skip_space(P);
    if (P->p < P->end && *P->p == c) {
        P->p++;
        return 1;
    }
    P->error = what;
    return 0;
}

/* A quoted string without escapes (keys and dtype strings never need them). */
static int parse_string(npy_parser *P, char *buf, size_t cap) {
    skip_space(P);
    if (P->p >= P->end || (*P->p != '\'' && *P->p != '"')) {
        P->error = "a quoted string";
        return 0;
    }
    char quote = *P->p++;
    size_t len = 0;
    while (P->p < P->end && *P->p != quote) {
        if (*P->p == '\\' || len + 1 >= cap) {
            P->error = "a short string without escapes";
            return 0;
        }
        buf[len++] = *P->p++;
    }
    if (P->p >= P->end) {
        P->error = "a closing quote";
        return 0;
    }
    P->p++;
    buf[len] = '\0';
    return 1;
}

static int parse_bool(npy_parser *P, int *value) {
    skip_space(P);
    size_t left = (size_t)(P->end - P->p);
    if (left >= 4 && memcmp(P->p, "True", 4) == 0) {
        P->p += 4, *value = 1;
        return 1;
    }
    if (left >= 5 && memcmp(P->p, "False", 5) == 0) {
        P->p += 5, *value = 0;
        return 1;
    }
    P->error = "True or False";
    return 0;
}

static int parse_extent(npy_parser *P, size_t *value) {
    skip_space(P);
    if (P->p >= P->end || *P->p < '0' || *P->p > '9') {
        P->error = "an extent";
        return 0;
    }
    size_t v = 0;
    while (P->p < P->end && *P->p >= '0' && *P->p <= '9') {
        size_t digit = (size_t)(*P->p++ - '0');
        if (v > (SIZE_MAX - digit) / 10) {
            P->error = "an extent that fits in size_t";
            return 0;
        }
        v = v * 10 + digit;
    }
    *value = v;
    return 1;
}

/* A tuple of extents: "()", "(37,)", "(5, 9, 11)". */
static int parse_shape(npy_parser *P, npy_header *h) {
    if (!expect(P, '(', "'(' opening the shape")) return 0;
    h->rank = 0;
    for (;;) {
        skip_space(P);
        if (P->p < P->end && *P->p == ')') break;
        if (h->rank == NPY_MAX_RANK) {
            P->error = "at most 64 extents";
            return 0;
        }
        if (!parse_extent(P, &h->shape[h->rank++])) return 0;
        skip_space(P);
        if (P->p < P->end && *P->p == ',') {
            P->p++;
            continue;
        }
        if (P->p < P->end && *P->p == ')') break;
        P->error = "',' or ')' in the shape";
        return 0;
    }
    P->p++; /* the ')' */
    return 1;
}

static int parse_dict(npy_parser *P, npy_header *h) {
    int seen_descr = 0, seen_order = 0, seen_shape = 0;
    if (!expect(P, '{', "'{' opening the header")) return 0;
    for (;;) {
        skip_space(P);
        if (P->p < P->end && *P->p == '}') break;
        char key[32];
        if (!parse_string(P, key, sizeof key) || !expect(P, ':', "':' after a key")) return 0;
        int ok;
        if (strcmp(key, "descr") == 0 && !seen_descr++)
            ok = parse_string(P, h->descr, sizeof h->descr);
        else if (strcmp(key, "fortran_order") == 0 && !seen_order++)
            ok = parse_bool(P, &h->fortran_order);
        else if (strcmp(key, "shape") == 0 && !seen_shape++)
            ok = parse_shape(P, h);
        else {
            P->error = "the keys descr, fortran_order and shape, once each";
            return 0;
        }
        if (!ok) return 0;
        skip_space(P);
        if (P->p < P->end && *P->p == ',') {
            P->p++;
            continue;
        }
        if (P->p < P->end && *P->p == '}') break;
        P->error = "',' or '}' after a value";
        return 0;
    }
    P->p++; /* the '}' */
    skip_space(P);
    if (P->p != P->end) {
        P->error = "nothing after the closing '}'";
        return 0;
    }
    if (!seen_descr || !seen_order || !seen_shape) {
        P->error = "the keys descr, fortran_order and shape";
        return 0;
    }
    return 1;
}

/* ---- reading ----------------------------------------------------------------------------- */

/* The header against the field: type, order, then shape. */
static stenc_status check_header(const npy_header *h, const io_shape *shape, const char *path,
                                 const char *fn) {
    const char *want = descr_of(shape->type);
    if (h->descr[0] == '>')
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: '%s' holds big-endian data (dtype '%s'); stenc reads "
                           "little-endian files (save with a.astype('%s'))",
                           fn, path, h->descr, want);
    if (strcmp(h->descr, want) != 0) {
        const char *held = strcmp(h->descr, "<f4") == 0   ? "float32"
                           : strcmp(h->descr, "<f8") == 0 ? "float64"
                                                          : "another type";
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "%s: '%s' holds dtype '%s' (%s), the field is %s ('%s')", fn, path,
                           h->descr, held, stenc_type_name(shape->type), want);
    }
    if (h->fortran_order)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: '%s' is in Fortran order; stenc reads C order (save "
                           "np.ascontiguousarray(a))",
                           fn, path);
    int same = h->rank == shape->dims;
    for (int d = 0; same && d < shape->dims; d++)
        same = h->shape[d] == shape->n[shape->dims - 1 - d];
    if (!same) {
        char got[160] = "(", expected[96];
        size_t used = 1;
        for (int d = 0; d < h->rank && used < sizeof got; d++)
            used += (size_t)snprintf(got + used, sizeof got - used, "%s%zu", d ? ", " : "",
                                     h->shape[d]);
        if (used < sizeof got)
            snprintf(got + used, sizeof got - used, "%s)", h->rank == 1 ? "," : "");
        io_shape_format(shape, expected, sizeof expected);
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "%s: '%s' has shape %s, the %d-D field needs %s (nz, ny, nx order)", fn,
                           path, got, shape->dims, expected);
    }
    return STENC_OK;
}

static uint32_t little_u32(const unsigned char *b, int bytes) {
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* Read the whole file into a new dense buffer after checking it against `shape`. */
static stenc_status read_npy(FILE *fp, const char *path, const io_shape *shape, void **dense,
                             const char *fn) {
    struct stat st;
    if (fstat(fileno(fp), &st) != 0)
        return STENC_ERROR(STENC_ERR_IO, "%s: cannot read '%s': %s", fn, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return STENC_ERROR(STENC_ERR_IO, "%s: '%s' is not a regular file", fn, path);
    long long size = (long long)st.st_size;

    unsigned char pre[12] = {0};
    size_t got = fread(pre, 1, sizeof pre, fp);
    size_t compared = got < sizeof npy_magic ? got : sizeof npy_magic;
    if (memcmp(pre, npy_magic, compared) != 0)
        return STENC_ERROR(STENC_ERR_IO,
                           "%s: '%s' is not a .npy file (it does not start with "
                           "\"\\x93NUMPY\")",
                           fn, path);
    if (got < 10)
        return STENC_ERROR(STENC_ERR_IO,
                           "%s: '%s' is truncated: %lld bytes, less than a .npy "
                           "preamble",
                           fn, path, size);
    int major = pre[6], minor = pre[7];
    if (major < 1 || major > 3 || minor != 0)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: '%s' is .npy format version %d.%d; stenc reads 1.0, 2.0 and 3.0",
                           fn, path, major, minor);
    size_t preamble = major == 1 ? 10 : 12;
    if (got < preamble)
        return STENC_ERROR(STENC_ERR_IO,
                           "%s: '%s' is truncated: %lld bytes, less than a .npy "
                           "preamble",
                           fn, path, size);
    size_t header_len = little_u32(pre + 8, major == 1 ? 2 : 4);
    if (header_len > NPY_MAX_HEADER)
        return STENC_ERROR(STENC_ERR_IO, "%s: '%s' claims a %zu-byte header; the file is corrupt",
                           fn, path, header_len);
    if ((long long)(preamble + header_len) > size)
        return STENC_ERROR(STENC_ERR_IO,
                           "%s: '%s' is truncated: its %zu-byte header ends past the end of the "
                           "file (%lld bytes)",
                           fn, path, header_len, size);

    char *text = malloc(header_len + 1);
    if (!text) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory for a header", fn);
    if (fseek(fp, (long)preamble, SEEK_SET) != 0 || fread(text, 1, header_len, fp) != header_len) {
        free(text);
        return STENC_ERROR(STENC_ERR_IO, "%s: cannot read the header of '%s'", fn, path);
    }
    text[header_len] = '\0';
    npy_header h = {0};
    npy_parser P = {text, text + header_len, NULL};
    if (!parse_dict(&P, &h)) {
        int shown = (int)header_len; /* the header without its padding, and not too much */
        while (shown > 0 && (text[shown - 1] == ' ' || text[shown - 1] == '\n'))
            shown--;
        if (shown > NPY_HEADER_SHOWN) shown = NPY_HEADER_SHOWN;
        stenc_status st = STENC_ERROR(STENC_ERR_IO,
                                      "%s: '%s' has a malformed header: expected %s at offset %td "
                                      "of \"%.*s\"",
                                      fn, path, P.error, P.p - text, shown, text);
        free(text);
        return st;
    }
    free(text);
    STENC_TRY(check_header(&h, shape, path, fn));

    size_t bytes = shape->count * shape->elem_size;
    long long left = size - (long long)(preamble + header_len);
    if (left < (long long)bytes)
        return STENC_ERROR(STENC_ERR_IO,
                           "%s: '%s' is truncated: %lld of its %zu data bytes are there", fn, path,
                           left, bytes);
    if (left > (long long)bytes)
        return STENC_ERROR(STENC_ERR_IO,
                           "%s: '%s' has %lld bytes after the data of its shape; the file is "
                           "corrupt",
                           fn, path, left - (long long)bytes);
    *dense = malloc(bytes ? bytes : 1);
    if (!*dense)
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes of data", fn,
                           bytes);
    if (fread(*dense, 1, bytes, fp) != bytes) {
        int err = ferror(fp) ? errno : 0;
        free(*dense);
        *dense = NULL;
        return STENC_ERROR(STENC_ERR_IO, "%s: reading the data of '%s' failed: %s", fn, path,
                           err ? strerror(err) : "the file ended early");
    }
    return STENC_OK;
}

stenc_status stenc_io_npy_read(const char *path, stenc_field *field) {
    const char *fn = "stenc_io_npy_read";
    STENC_REQUIRE(path != NULL, "%s: path is NULL", fn);
    io_shape shape;
    STENC_TRY(io_field_shape(field, &shape, fn, "field"));
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return STENC_ERROR(STENC_ERR_IO, "%s: cannot open '%s': %s", fn, path, strerror(errno));
    void *dense = NULL;
    stenc_status status = read_npy(fp, path, &shape, &dense, fn);
    fclose(fp);
    /* Only a file that passed every check reaches the field. */
    if (status == STENC_OK) status = io_field_scatter(field, &shape, dense, fn);
    free(dense);
    return status;
}
