/* VTK XML files: image data (.vti) and collections (.pvd).
 *
 * A .vti holds one piece covering the whole grid. Fields are PointData: a stencil's unknowns
 * sit on grid points, and point (i, j, k) is at origin + (i, j, k) * spacing, so extents run
 * 0..n-1. Arrays are written inline in base64 (format="binary"): the file stays well-formed
 * XML, which any parser reads, at a third more bytes than raw appended data. Each array is one
 * base64 stream of a UInt64 byte count followed by the little-endian values, as VTK writes
 * uncompressed data with header_type="UInt64".
 *
 * A .pvd lists (time, file) pairs. It is kept complete on disk: each add overwrites the closing
 * tags with the new entry and writes them again after it. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_internal.h"

/* ---- base64 ------------------------------------------------------------------------------ */

enum { B64_CHUNK = 4096 }; /* encoded bytes buffered before a write; a multiple of 4 */

typedef struct b64_stream {
    io_out *out;
    unsigned char pending[3];
    int npending;
    char buf[B64_CHUNK];
    size_t len;
} b64_stream;

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_quad(b64_stream *s, const unsigned char in[3], int n) {
    if (s->len + 4 > sizeof s->buf) {
        io_out_write(s->out, s->buf, s->len);
        s->len = 0;
    }
    uint32_t v = (uint32_t)in[0] << 16 | (uint32_t)(n > 1 ? in[1] : 0) << 8 | (n > 2 ? in[2] : 0);
    char *q = s->buf + s->len;
    q[0] = b64_alphabet[v >> 18 & 63];
    q[1] = b64_alphabet[v >> 12 & 63];
    q[2] = n > 1 ? b64_alphabet[v >> 6 & 63] : '=';
    q[3] = n > 2 ? b64_alphabet[v & 63] : '=';
    s->len += 4;
}

static void b64_put(b64_stream *s, const void *data, size_t bytes) {
    const unsigned char *p = data;
    while (bytes > 0) {
        s->pending[s->npending++] = *p++;
        bytes--;
        if (s->npending == 3) {
            b64_quad(s, s->pending, 3);
            s->npending = 0;
        }
    }
}

static void b64_finish(b64_stream *s) {
    if (s->npending > 0) b64_quad(s, s->pending, s->npending);
    s->npending = 0;
    io_out_write(s->out, s->buf, s->len);
    s->len = 0;
}

/* ---- .vti -------------------------------------------------------------------------------- */

/* Every field live, of one shape; names usable and distinct; the grid finite and positive. */
static stenc_status check_vti_args(int count, const char *const names[],
                                   const stenc_field *const fields[], const double origin[3],
                                   const double spacing[3], const char *fn) {
    io_shape first = {0};
    for (int f = 0; f < count; f++) {
        char what[48];
        snprintf(what, sizeof what, "fields[%d]", f);
        io_shape shape;
        STENC_TRY(io_field_shape(fields[f], &shape, fn, what));
        snprintf(what, sizeof what, "names[%d]", f);
        STENC_TRY(io_check_label(names[f], fn, what));
        if (f == 0) first = shape;
        if (shape.dims != first.dims || shape.n[0] != first.n[0] || shape.n[1] != first.n[1] ||
            shape.n[2] != first.n[2])
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: field '%s' is %d-D %zu x %zu x %zu, field '%s' is %d-D %zu x "
                               "%zu x %zu; one file holds fields of one shape",
                               fn, names[f], shape.dims, shape.n[0], shape.n[1], shape.n[2],
                               names[0], first.dims, first.n[0], first.n[1], first.n[2]);
        for (int g = 0; g < f; g++)
            STENC_REQUIRE(strcmp(names[g], names[f]) != 0,
                          "%s: names[%d] and names[%d] are both '%s'", fn, g, f, names[f]);
    }
    for (int d = 0; d < 3; d++) {
        STENC_REQUIRE(!origin || isfinite(origin[d]), "%s: origin[%d] = %g is not finite", fn, d,
                      origin[d]);
        STENC_REQUIRE(!spacing || (isfinite(spacing[d]) && spacing[d] > 0),
                      "%s: spacing[%d] = %g; spacings are finite and positive", fn, d, spacing[d]);
    }
    return STENC_OK;
}

static void write_triple(io_out *out, const char *attr, const double v[3]) {
    char a[32], b[32], c[32];
    io_format_double(a, v[0]);
    io_format_double(b, v[1]);
    io_format_double(c, v[2]);
    io_out_printf(out, " %s=\"%s %s %s\"", attr, a, b, c);
}

static stenc_status write_array(io_out *out, const char *name, const stenc_field *field,
                                const char *fn) {
    io_shape shape;
    STENC_TRY(io_field_shape(field, &shape, fn, "field"));
    void *dense;
    STENC_TRY(io_field_gather(field, &shape, &dense, fn));
    io_out_printf(out, "        <DataArray type=\"%s\" Name=\"", io_vtk_type(shape.type));
    io_xml_escape(out, name);
    io_out_printf(out, "\" NumberOfComponents=\"1\" format=\"binary\">\n          ");
    uint64_t bytes = (uint64_t)shape.count * shape.elem_size;
    unsigned char count_le[8];
    for (int b = 0; b < 8; b++)
        count_le[b] = (unsigned char)(bytes >> (8 * b));
    b64_stream s = {.out = out};
    b64_put(&s, count_le, sizeof count_le);
    b64_put(&s, dense, (size_t)bytes);
    b64_finish(&s);
    io_out_printf(out, "\n        </DataArray>\n");
    free(dense);
    return STENC_OK;
}

stenc_status stenc_io_vti_write(const char *path, int count, const char *const names[],
                                const stenc_field *const fields[], const double origin[3],
                                const double spacing[3]) {
    return stenc_io_vti_write_piece(path, count, names, fields, origin, spacing, NULL, NULL,
                                    "stenc_io_vti_write");
}

stenc_status stenc_io_vti_write_piece(const char *path, int count, const char *const names[],
                                      const stenc_field *const fields[], const double origin[3],
                                      const double spacing[3], const size_t offset[3],
                                      const size_t whole[3], const char *fn) {
    STENC_REQUIRE(path != NULL, "%s: path is NULL", fn);
    STENC_REQUIRE(count >= 1, "%s: count = %d; a file holds at least one field", fn, count);
    STENC_REQUIRE(names != NULL && fields != NULL, "%s: %s is NULL", fn,
                  names ? "fields" : "names");
    STENC_TRY(check_vti_args(count, names, fields, origin, spacing, fn));
    static const double zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    io_shape shape;
    STENC_TRY(io_field_shape(fields[0], &shape, fn, "fields[0]"));
    /* The piece's points, and the whole grid's, in global indices (a piece of a .pvti). */
    static const size_t none[3] = {0, 0, 0};
    const size_t *o = offset ? offset : none, *w = whole ? whole : shape.n;
    char extent[128], whole_extent[128];
    snprintf(extent, sizeof extent, "%zu %zu %zu %zu %zu %zu", o[0], o[0] + shape.n[0] - 1, o[1],
             o[1] + shape.n[1] - 1, o[2], o[2] + shape.n[2] - 1);
    snprintf(whole_extent, sizeof whole_extent, "0 %zu 0 %zu 0 %zu", w[0] - 1, w[1] - 1, w[2] - 1);

    io_out out;
    STENC_TRY(io_out_open(&out, path, fn));
    io_out_printf(&out,
                  "<?xml version=\"1.0\"?>\n"
                  "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" "
                  "header_type=\"UInt64\">\n"
                  "  <ImageData WholeExtent=\"%s\"",
                  whole_extent);
    write_triple(&out, "Origin", origin ? origin : zero);
    write_triple(&out, "Spacing", spacing ? spacing : one);
    io_out_printf(&out, ">\n    <Piece Extent=\"%s\">\n      <PointData Scalars=\"", extent);
    io_xml_escape(&out, names[0]);
    io_out_printf(&out, "\">\n");
    for (int f = 0; f < count; f++) {
        stenc_status status = write_array(&out, names[f], fields[f], fn);
        if (status != STENC_OK) {
            io_out_abort(&out);
            return status;
        }
    }
    io_out_printf(&out, "      </PointData>\n    </Piece>\n  </ImageData>\n</VTKFile>\n");
    return io_out_commit(&out);
}

/* ---- .pvd -------------------------------------------------------------------------------- */

struct stenc_io_pvd {
    FILE *fp;
    char *path;
    long trailer; /* offset of the closing tags, where the next entry goes */
};

static const stenc_handle_kind pvd_kind = {"pvd collection"};

static const char pvd_trailer[] = "  </Collection>\n</VTKFile>\n";

/* Write the closing tags at the current position, cut the file there and flush. */
static int pvd_finish(stenc_io_pvd *pvd) {
    long at = ftell(pvd->fp);
    if (at < 0 || fputs(pvd_trailer, pvd->fp) < 0 || fflush(pvd->fp) != 0) return 0;
    /* Cut what a failed longer write may have left past the end. */
    if (ftruncate(fileno(pvd->fp), (off_t)(at + (long)strlen(pvd_trailer))) != 0) return 0;
    pvd->trailer = at;
    return 1;
}

stenc_status stenc_io_pvd_open(stenc_io_pvd **out, const char *path) {
    const char *fn = "stenc_io_pvd_open";
    STENC_REQUIRE(out != NULL, "%s: pvd pointer is NULL", fn);
    *out = NULL;
    STENC_REQUIRE(path != NULL, "%s: path is NULL", fn);
    stenc_io_pvd *pvd = calloc(1, sizeof *pvd);
    if (pvd) pvd->path = malloc(strlen(path) + 1);
    if (!pvd || !pvd->path) {
        free(pvd);
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    }
    strcpy(pvd->path, path);
    pvd->fp = fopen(path, "wb");
    stenc_status status = STENC_OK;
    if (!pvd->fp)
        status = STENC_ERROR(STENC_ERR_IO, "%s: cannot write '%s': %s", fn, path, strerror(errno));
    else if (fputs("<?xml version=\"1.0\"?>\n"
                   "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                   "  <Collection>\n",
                   pvd->fp) < 0 ||
             !pvd_finish(pvd))
        status =
            STENC_ERROR(STENC_ERR_IO, "%s: writing '%s' failed: %s", fn, path, strerror(errno));
    if (status == STENC_OK) status = stenc_handle_add(pvd, &pvd_kind, fn);
    if (status != STENC_OK) {
        if (pvd->fp) fclose(pvd->fp);
        free(pvd->path);
        free(pvd);
        return status;
    }
    *out = pvd;
    return STENC_OK;
}

stenc_status stenc_io_pvd_add(stenc_io_pvd *pvd, double time, const char *file) {
    const char *fn = "stenc_io_pvd_add";
    STENC_TRY(stenc_handle_check(pvd, &pvd_kind, fn, "pvd"));
    STENC_REQUIRE(isfinite(time), "%s: time = %g is not finite", fn, time);
    STENC_TRY(io_check_label(file, fn, "file"));
    /* io_out's helpers format and escape; the collection is written in place, not renamed. */
    io_out out = {.fp = pvd->fp, .path = pvd->path, .fn = fn};
    char t[32];
    io_format_double(t, time);
    if (fseek(pvd->fp, pvd->trailer, SEEK_SET) != 0)
        return STENC_ERROR(STENC_ERR_IO, "%s: cannot seek in '%s': %s", fn, pvd->path,
                           strerror(errno));
    io_out_printf(&out, "    <DataSet timestep=\"%s\" group=\"\" part=\"0\" file=\"", t);
    io_xml_escape(&out, file);
    io_out_printf(&out, "\"/>\n");
    if (out.error || !pvd_finish(pvd)) {
        int err = out.error > 0 ? out.error : errno;
        return STENC_ERROR(STENC_ERR_IO, "%s: writing '%s' failed: %s", fn, pvd->path,
                           err ? strerror(err) : "write error");
    }
    return STENC_OK;
}

stenc_status stenc_io_pvd_close(stenc_io_pvd *pvd) {
    if (!pvd) return STENC_OK;
    const char *fn = "stenc_io_pvd_close";
    STENC_TRY(stenc_handle_remove(pvd, &pvd_kind, fn, "pvd"));
    stenc_status status = STENC_OK;
    if (fclose(pvd->fp) != 0)
        status = STENC_ERROR(STENC_ERR_IO, "%s: closing '%s' failed: %s", fn, pvd->path,
                             strerror(errno));
    free(pvd->path);
    free(pvd);
    return status;
}
