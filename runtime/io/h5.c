/* HDF5 files of fields (built when CMake finds the HDF5 C library; h5_none.c otherwise).
 *
 * Layout, documented in docs/io.md: a dataset per field, shape (nz, ny, nx) and type IEEE
 * float32/float64 little-endian, with attributes `extents` (uint64, x first) and `type`; a
 * time step is a group "step_%08ld" with attributes `step` and `time`. The root carries
 * `stenc_version`.
 *
 * HDF5 prints its error stack to stderr by default, and the library must not print: every
 * entry point turns that off for its own calls and puts the caller's handler back, and the
 * innermost HDF5 message goes into stenc_last_error() instead.
 *
 * Built on the MPI build of HDF5 (STENC_HDF5_PARALLEL), a file may also be opened on every
 * rank of a communicator (io_h5_open_parallel, for libstenc_mpi), and a step then written
 * collectively, each rank its part of each dataset. The calls that change such a file are
 * collective, so every rank takes the same branches: what one rank finds wrong, all hear of
 * (all_ok) before anything is undone. */
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_internal.h"

struct stenc_io_h5 {
    hid_t file;
    char *path;
    int writable;
    int parallel; /* opened on every rank of `comm` */
#ifdef H5_HAVE_PARALLEL
    MPI_Comm comm;
#endif
};

/* Whether `ok` holds on every rank of a parallel file; `ok` itself for others. */
static int all_ok(const stenc_io_h5 *file, int ok) {
#ifdef H5_HAVE_PARALLEL
    if (file->parallel) {
        int all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, file->comm);
        return all;
    }
#endif
    (void)file;
    return ok;
}

static const stenc_handle_kind h5_kind = {"HDF5 file"};

int stenc_io_have_hdf5(void) {
    return 1;
}

/* ---- HDF5's error stack ------------------------------------------------------------------ */

typedef struct h5_quiet {
    H5E_auto2_t func;
    void *data;
    int saved; /* 0 when the caller's handler could not be read (a v1 one): left alone */
} h5_quiet;

static h5_quiet quiet_begin(void) {
    h5_quiet q = {NULL, NULL, 0};
    q.saved = H5Eget_auto2(H5E_DEFAULT, &q.func, &q.data) >= 0;
    if (q.saved) H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return q;
}

static void quiet_end(h5_quiet q) {
    H5Eclear2(H5E_DEFAULT);
    if (q.saved) H5Eset_auto2(H5E_DEFAULT, q.func, q.data);
}

enum { H5_REASON = 256 };

static herr_t take_innermost(unsigned n, const H5E_error2_t *err, void *buf) {
    if (n == 0 && err->desc) snprintf(buf, H5_REASON, "%s", err->desc);
    return 0;
}

/* The most specific message on HDF5's error stack, for our own. */
static const char *h5_reason(char buf[H5_REASON]) {
    buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_innermost, buf);
    if (!buf[0]) snprintf(buf, H5_REASON, "no detail from HDF5");
    return buf;
}

/* ---- attributes -------------------------------------------------------------------------- */

/* A 1-D attribute of `n` values, or a scalar one when n == 0. */
static int write_attr(hid_t obj, const char *name, hid_t file_type, hid_t mem_type, hsize_t n,
                      const void *data) {
    hid_t space = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
    if (space < 0) return 0;
    hid_t attr = H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
    int ok = attr >= 0 && H5Awrite(attr, mem_type, data) >= 0;
    if (attr >= 0) H5Aclose(attr);
    H5Sclose(space);
    return ok;
}

static int write_string_attr(hid_t obj, const char *name, const char *value) {
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type < 0) return 0;
    int ok = H5Tset_size(type, strlen(value) + 1) >= 0 &&
             H5Tset_strpad(type, H5T_STR_NULLTERM) >= 0 &&
             write_attr(obj, name, type, type, 0, value);
    H5Tclose(type);
    return ok;
}

/* ---- datasets ---------------------------------------------------------------------------- */

static hid_t le_type(stenc_type type) {
    return type == STENC_F32   ? H5T_IEEE_F32LE
           : type == STENC_I32 ? H5T_STD_I32LE
           : type == STENC_U8  ? H5T_STD_U8LE
                               : H5T_IEEE_F64LE;
}

/* A dataset name in one group: a usable label without '/', and not "." or "..". */
static stenc_status check_name(const char *name, const char *fn, const char *what) {
    STENC_TRY(io_check_label(name, fn, what));
    STENC_REQUIRE(!strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0,
                  "%s: %s '%s' is not a dataset name (no '/', not '.' or '..')", fn, what, name);
    return STENC_OK;
}

static stenc_status check_writable(const stenc_io_h5 *file, const char *fn) {
    STENC_TRY(stenc_handle_check(file, &h5_kind, fn, "file"));
    STENC_REQUIRE(file->writable, "%s: '%s' was opened with STENC_IO_READ", fn, file->path);
    return STENC_OK;
}

/* Where a field's interior goes in its dataset: the dataset's extents n[] (x first) and the
 * corner lo[] of the part. A whole field: lo = 0 and n its own interior. */
typedef struct h5_place {
    size_t n[3], lo[3];
} h5_place;

/* Write `field` as dataset `name` of `group` (called `where` in messages), with its
 * attributes, at `place` (NULL: the whole dataset); `time` is NULL outside a step. On a
 * parallel file every rank writes its part, collectively. A dataset that fails half-way is
 * unlinked. */
static stenc_status write_dataset(stenc_io_h5 *file, hid_t group, const char *where,
                                  const char *name, const stenc_field *field, const h5_place *place,
                                  const double *time, const char *fn) {
    char why[H5_REASON] = "";
    io_shape shape;
    STENC_TRY(io_field_shape(field, &shape, fn, "field"));
    htri_t exists = H5Lexists(group, name, H5P_DEFAULT);
    if (exists != 0)
        return STENC_ERROR(STENC_ERR_IO, "%s: dataset '%s%s' %s in '%s'", fn, where, name,
                           exists > 0 ? "exists already" : "cannot be looked up", file->path);
    void *dense = NULL;
    stenc_status gathered = io_field_gather(field, &shape, &dense, fn);
    if (!all_ok(file, gathered == STENC_OK)) {
        free(dense);
        return gathered != STENC_OK ? gathered
                                    : STENC_ERROR(STENC_ERR_IO,
                                                  "%s: another rank could not write '%s%s' to "
                                                  "'%s'",
                                                  fn, where, name, file->path);
    }
    hsize_t dims[3], start[3], count[3];
    uint64_t extents[3];
    for (int d = 0; d < shape.dims; d++) { /* HDF5 orders dimensions slowest first */
        const int e = shape.dims - 1 - d;
        dims[d] = place ? place->n[e] : shape.n[e];
        start[d] = place ? place->lo[e] : 0;
        count[d] = shape.n[e];
        extents[d] = place ? place->n[d] : shape.n[d];
    }
    hid_t type = le_type(shape.type); /* the dense copy is little-endian already */
    hid_t space = H5Screate_simple(shape.dims, dims, NULL);
    hid_t dset = space < 0
                     ? -1
                     : H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t mem = place ? H5Screate_simple(shape.dims, count, NULL) : H5S_ALL;
    int ok = dset >= 0 && mem >= 0 &&
             (!place || H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0);
    hid_t xfer = H5P_DEFAULT;
#ifdef H5_HAVE_PARALLEL
    if (file->parallel) { /* one collective write: MPI-IO may aggregate the parts */
        xfer = H5Pcreate(H5P_DATASET_XFER);
        ok = ok && xfer >= 0 && H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE) >= 0;
    }
#endif
    ok = ok && H5Dwrite(dset, type, mem, place ? space : H5S_ALL, xfer, dense) >= 0;
    ok = ok &&
         write_attr(dset, "extents", H5T_STD_U64LE, H5T_NATIVE_UINT64, (hsize_t)shape.dims,
                    extents) &&
         write_string_attr(dset, "type", stenc_type_name(shape.type)) &&
         (!time || write_attr(dset, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, time));
    if (!ok) h5_reason(why);
    if (xfer != H5P_DEFAULT && xfer >= 0) H5Pclose(xfer);
    if (mem != H5S_ALL && mem >= 0) H5Sclose(mem);
    if (dset >= 0) H5Dclose(dset);
    if (space >= 0) H5Sclose(space);
    free(dense);
    const int everywhere = all_ok(file, ok);
    if (!everywhere) {
        if (all_ok(file, dset >= 0)) H5Ldelete(group, name, H5P_DEFAULT);
        return STENC_ERROR(STENC_ERR_IO, "%s: writing dataset '%s%s' to '%s' failed (HDF5: %s)", fn,
                           where, name, file->path, ok ? "on another rank" : why);
    }
    return STENC_OK;
}

/* "float32" for a float of 4 bytes, and so on, for messages. */
static void describe_type(hid_t type, char *buf, size_t cap) {
    H5T_class_t cls = H5Tget_class(type);
    size_t size = H5Tget_size(type);
    if (cls == H5T_FLOAT)
        snprintf(buf, cap, "float%zu", 8 * size);
    else if (cls == H5T_INTEGER)
        snprintf(buf, cap, "%zu-byte integers", size);
    else
        snprintf(buf, cap, "neither floats nor integers");
}

static stenc_status read_dataset(stenc_io_h5 *file, hid_t dset, const char *path,
                                 stenc_field *field, const io_shape *shape, const char *fn) {
    char why[H5_REASON];
    hid_t type = H5Dget_type(dset);
    hid_t space = H5Dget_space(dset);
    if (type < 0 || space < 0) {
        if (type >= 0) H5Tclose(type);
        if (space >= 0) H5Sclose(space);
        return STENC_ERROR(STENC_ERR_IO, "%s: cannot inspect '%s' in '%s' (HDF5: %s)", fn, path,
                           file->path, h5_reason(why));
    }
    char held[64];
    describe_type(type, held, sizeof held);
    const int real = stenc_type_is_real(shape->type);
    int type_ok =
        H5Tget_class(type) == (real ? H5T_FLOAT : H5T_INTEGER) &&
        H5Tget_size(type) == shape->elem_size &&
        (real || H5Tget_sign(type) == (shape->type == STENC_U8 ? H5T_SGN_NONE : H5T_SGN_2));
    H5Tclose(type);
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t dims[H5S_MAX_RANK];
    int same = rank == shape->dims && H5Sget_simple_extent_dims(space, dims, NULL) == rank;
    for (int d = 0; same && d < rank; d++)
        same = dims[d] == shape->n[shape->dims - 1 - d];
    H5Sclose(space);
    if (!type_ok)
        return STENC_ERROR(STENC_ERR_SHAPE, "%s: '%s' in '%s' holds %s, the field is %s", fn, path,
                           file->path, held, stenc_type_name(shape->type));
    if (!same) {
        char got[160] = "(", expected[96];
        size_t used = 1;
        for (int d = 0; d < rank && used < sizeof got; d++)
            used += (size_t)snprintf(got + used, sizeof got - used, "%s%llu", d ? ", " : "",
                                     (unsigned long long)dims[d]);
        if (used < sizeof got) snprintf(got + used, sizeof got - used, "%s)", rank == 1 ? "," : "");
        io_shape_format(shape, expected, sizeof expected);
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "%s: '%s' in '%s' has shape %s, the %d-D field needs %s (nz, ny, nx "
                           "order)",
                           fn, path, file->path, rank >= 0 ? got : "(unknown)", shape->dims,
                           expected);
    }
    size_t bytes = shape->count * shape->elem_size;
    void *dense = malloc(bytes);
    if (!dense)
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes", fn, bytes);
    /* Read as little-endian: HDF5 converts a big-endian dataset on the way. */
    if (H5Dread(dset, le_type(shape->type), H5S_ALL, H5S_ALL, H5P_DEFAULT, dense) < 0) {
        free(dense);
        return STENC_ERROR(STENC_ERR_IO, "%s: reading '%s' from '%s' failed (HDF5: %s)", fn, path,
                           file->path, h5_reason(why));
    }
    stenc_status status = io_field_scatter(field, shape, dense, fn);
    free(dense);
    return status;
}

/* ---- entry points ------------------------------------------------------------------------ */

static stenc_status check_open_args(stenc_io_h5 **out, const char *path, stenc_io_mode mode,
                                    const char *fn) {
    STENC_REQUIRE(out != NULL, "%s: file pointer is NULL", fn);
    *out = NULL;
    STENC_REQUIRE(path != NULL, "%s: path is NULL", fn);
    STENC_REQUIRE(mode == STENC_IO_READ || mode == STENC_IO_CREATE || mode == STENC_IO_APPEND,
                  "%s: invalid mode %d", fn, (int)mode);
    return STENC_OK;
}

/* Open or create with file access properties `fapl`; `file` (zeroed, with `parallel` and
 * `comm` set) becomes the handle. On a parallel file every rank comes out with the same
 * status. */
static stenc_status h5_open(stenc_io_h5 **out, stenc_io_h5 *file, const char *path,
                            stenc_io_mode mode, hid_t fapl, const char *fn) {
    char why[H5_REASON] = "";
    /* On a parallel file rank 0's view of the path decides for all. */
    int create = mode == STENC_IO_CREATE || (mode == STENC_IO_APPEND && access(path, F_OK) != 0);
#ifdef H5_HAVE_PARALLEL
    if (file->parallel) MPI_Bcast(&create, 1, MPI_INT, 0, file->comm);
#endif
    hid_t id;
    if (create)
        id = H5Fcreate(path, mode == STENC_IO_CREATE ? H5F_ACC_TRUNC : H5F_ACC_EXCL, H5P_DEFAULT,
                       fapl);
    else
        id = H5Fopen(path, mode == STENC_IO_READ ? H5F_ACC_RDONLY : H5F_ACC_RDWR, fapl);
    if (id < 0) h5_reason(why);
    if (!all_ok(file, id >= 0)) {
        if (id >= 0) H5Fclose(id);
        return STENC_ERROR(STENC_ERR_IO, "%s: cannot %s '%s' (HDF5: %s)", fn,
                           create ? "create" : "open", path, id >= 0 ? "on another rank" : why);
    }
    int ok = !create || write_string_attr(id, "stenc_version", STENC_VERSION_STRING);
    if (!ok) h5_reason(why);
    if (!all_ok(file, ok)) {
        H5Fclose(id);
        return STENC_ERROR(STENC_ERR_IO, "%s: cannot write to '%s' (HDF5: %s)", fn, path,
                           ok ? "on another rank" : why);
    }
    file->path = malloc(strlen(path) + 1);
    stenc_status status = file->path ? stenc_handle_add(file, &h5_kind, fn)
                                     : STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    if (!all_ok(file, status == STENC_OK)) {
        if (status == STENC_OK) stenc_handle_remove(file, &h5_kind, "", "");
        H5Fclose(id);
        free(file->path);
        file->path = NULL;
        return status != STENC_OK ? status
                                  : STENC_ERROR(STENC_ERR_IO,
                                                "%s: another rank failed to open "
                                                "'%s'",
                                                fn, path);
    }
    strcpy(file->path, path);
    file->file = id;
    file->writable = mode != STENC_IO_READ;
    *out = file;
    return STENC_OK;
}

static stenc_status h5_open_serial(stenc_io_h5 **out, const char *path, stenc_io_mode mode,
                                   const char *fn) {
    STENC_TRY(check_open_args(out, path, mode, fn));
    stenc_io_h5 *file = calloc(1, sizeof *file);
    if (!file) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    stenc_status status = h5_open(out, file, path, mode, H5P_DEFAULT, fn);
    if (status != STENC_OK) free(file);
    return status;
}

int io_h5_parallel_built(void) {
#ifdef H5_HAVE_PARALLEL
    return 1;
#else
    return 0;
#endif
}

int io_h5_is_parallel(const stenc_io_h5 *file) {
    return stenc_handle_check(file, &h5_kind, "io_h5_is_parallel", "file") == STENC_OK &&
           file->parallel;
}

/* Collective over *comm (an MPI_Comm): the same file on every rank, through MPI-IO. */
static stenc_status h5_open_parallel(stenc_io_h5 **out, const char *path, stenc_io_mode mode,
                                     const void *comm, const char *fn) {
#ifdef H5_HAVE_PARALLEL
    /* Arguments are the same on every rank; the checks then fail alike. */
    STENC_TRY(check_open_args(out, path, mode, fn));
    STENC_REQUIRE(comm != NULL, "%s: comm is NULL", fn);
    stenc_io_h5 *file = calloc(1, sizeof *file);
    int made = file != NULL;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(*(const MPI_Comm *)comm, &dup);
    if (file) file->parallel = 1, file->comm = dup;
    int all = 0;
    MPI_Allreduce(&made, &all, 1, MPI_INT, MPI_MIN, dup);
    hid_t fapl = all ? H5Pcreate(H5P_FILE_ACCESS) : -1;
    int ok = fapl >= 0 && H5Pset_fapl_mpio(fapl, dup, MPI_INFO_NULL) >= 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, dup);
    stenc_status status =
        all ? h5_open(out, file, path, mode, fapl, fn)
            : STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory for the file's state", fn);
    if (fapl >= 0) H5Pclose(fapl);
    if (status != STENC_OK) {
        MPI_Comm_free(&dup);
        free(file);
    }
    return status;
#else
    (void)path, (void)mode, (void)comm;
    if (out) *out = NULL;
    return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                       "%s: this libstenc was built on the serial HDF5 library (configure stenc "
                       "with -DSTENC_HDF5_PARALLEL=ON and the MPI build of HDF5, e.g. Debian's "
                       "libhdf5-openmpi-dev)",
                       fn);
#endif
}

static stenc_status h5_close(stenc_io_h5 *file, const char *fn) {
    char why[H5_REASON] = "";
    if (!file) return STENC_OK;
    STENC_TRY(stenc_handle_remove(file, &h5_kind, fn, "file"));
    const int closed = H5Fclose(file->file) >= 0;
    if (!closed) h5_reason(why);
    const int everywhere = all_ok(file, closed);
    stenc_status status = STENC_OK;
    if (!everywhere)
        status = STENC_ERROR(STENC_ERR_IO, "%s: closing '%s' failed (HDF5: %s)", fn, file->path,
                             closed ? "on another rank" : why);
#ifdef H5_HAVE_PARALLEL
    if (file->parallel) MPI_Comm_free(&file->comm);
#endif
    free(file->path);
    free(file);
    return status;
}

/* The calls of io.h work on files one process opened; a parallel file is written through
 * libstenc_mpi, whose calls are collective. */
static stenc_status check_serial(const stenc_io_h5 *file, const char *fn) {
    STENC_TRY(stenc_handle_check(file, &h5_kind, fn, "file"));
    STENC_REQUIRE(!file->parallel,
                  "%s: '%s' was opened on every rank (stenc_dist_h5_open): write it with "
                  "stenc_dist_h5_write_step, or close it and open it with stenc_io_h5_open",
                  fn, file->path);
    return STENC_OK;
}

static stenc_status h5_write(stenc_io_h5 *file, const char *name, const stenc_field *field,
                             const char *fn) {
    STENC_TRY(check_serial(file, fn));
    STENC_TRY(check_writable(file, fn));
    STENC_TRY(check_name(name, fn, "name"));
    STENC_TRY(stenc_field_check(field, fn, "field"));
    return write_dataset(file, file->file, "", name, field, NULL, NULL, fn);
}

/* A step of `count` fields; place (NULL: each field whole) says where each rank's fields go in
 * the datasets of a parallel file. */
static stenc_status h5_write_step(stenc_io_h5 *file, long step, double time, int count,
                                  const char *const names[], const stenc_field *const fields[],
                                  const h5_place *place, const char *fn) {
    char why[H5_REASON] = "";
    if (!place) STENC_TRY(check_serial(file, fn));
    STENC_TRY(check_writable(file, fn));
    STENC_REQUIRE(step >= 0, "%s: step = %ld, must be >= 0", fn, step);
    STENC_REQUIRE(isfinite(time), "%s: time = %g is not finite", fn, time);
    STENC_REQUIRE(count >= 1, "%s: count = %d; a step holds at least one field", fn, count);
    STENC_REQUIRE(names != NULL && fields != NULL, "%s: %s is NULL", fn,
                  names ? "fields" : "names");
    for (int f = 0; f < count; f++) {
        char what[48];
        snprintf(what, sizeof what, "names[%d]", f);
        STENC_TRY(check_name(names[f], fn, what));
        snprintf(what, sizeof what, "fields[%d]", f);
        STENC_TRY(stenc_field_check(fields[f], fn, what));
        for (int g = 0; g < f; g++)
            STENC_REQUIRE(strcmp(names[g], names[f]) != 0,
                          "%s: names[%d] and names[%d] are both '%s'", fn, g, f, names[f]);
    }
    char group_name[40], where[48];
    snprintf(group_name, sizeof group_name, "step_%08ld", step);
    snprintf(where, sizeof where, "%s/", group_name);
    htri_t exists = H5Lexists(file->file, group_name, H5P_DEFAULT);
    if (exists != 0)
        return STENC_ERROR(STENC_ERR_IO, "%s: group '%s' %s in '%s'", fn, group_name,
                           exists > 0 ? "exists already" : "cannot be looked up", file->path);
    hid_t group = H5Gcreate2(file->file, group_name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int64_t step64 = step;
    const int ok = group >= 0 &&
                   write_attr(group, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &step64) &&
                   write_attr(group, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &time);
    if (!ok) h5_reason(why);
    if (!all_ok(file, ok)) {
        if (group >= 0) {
            H5Gclose(group);
            H5Ldelete(file->file, group_name, H5P_DEFAULT);
        }
        return STENC_ERROR(STENC_ERR_IO, "%s: cannot create group '%s' in '%s' (HDF5: %s)", fn,
                           group_name, file->path, ok ? "on another rank" : why);
    }
    stenc_status status = STENC_OK;
    for (int f = 0; f < count && status == STENC_OK; f++)
        status = write_dataset(file, group, where, names[f], fields[f], place, &time, fn);
    H5Gclose(group);
    /* A step is whole or absent. */
    if (status != STENC_OK) H5Ldelete(file->file, group_name, H5P_DEFAULT);
    return status;
}

static stenc_status h5_read(stenc_io_h5 *file, const char *path, stenc_field *field,
                            const char *fn) {
    char why[H5_REASON];
    STENC_TRY(check_serial(file, fn));
    STENC_TRY(io_check_label(path, fn, "path"));
    io_shape shape;
    STENC_TRY(io_field_shape(field, &shape, fn, "field"));
    hid_t dset = H5Dopen2(file->file, path, H5P_DEFAULT);
    if (dset < 0)
        return STENC_ERROR(STENC_ERR_IO, "%s: no dataset '%s' in '%s' (HDF5: %s)", fn, path,
                           file->path, h5_reason(why));
    stenc_status status = read_dataset(file, dset, path, field, &shape, fn);
    H5Dclose(dset);
    return status;
}

/* Each public call runs with HDF5's printing turned off. */

stenc_status stenc_io_h5_open(stenc_io_h5 **file, const char *path, stenc_io_mode mode) {
    h5_quiet q = quiet_begin();
    stenc_status status = h5_open_serial(file, path, mode, "stenc_io_h5_open");
    quiet_end(q);
    return status;
}

stenc_status stenc_io_h5_close(stenc_io_h5 *file) {
    h5_quiet q = quiet_begin();
    stenc_status status = h5_close(file, "stenc_io_h5_close");
    quiet_end(q);
    return status;
}

stenc_status stenc_io_h5_write(stenc_io_h5 *file, const char *name, const stenc_field *field) {
    h5_quiet q = quiet_begin();
    stenc_status status = h5_write(file, name, field, "stenc_io_h5_write");
    quiet_end(q);
    return status;
}

stenc_status stenc_io_h5_write_step(stenc_io_h5 *file, long step, double time, int count,
                                    const char *const names[], const stenc_field *const fields[]) {
    h5_quiet q = quiet_begin();
    stenc_status status =
        h5_write_step(file, step, time, count, names, fields, NULL, "stenc_io_h5_write_step");
    quiet_end(q);
    return status;
}

stenc_status io_h5_open_parallel(stenc_io_h5 **file, const char *path, stenc_io_mode mode,
                                 const void *comm, const char *fn) {
    h5_quiet q = quiet_begin();
    stenc_status status = h5_open_parallel(file, path, mode, comm, fn);
    quiet_end(q);
    return status;
}

stenc_status io_h5_write_step_parts(stenc_io_h5 *file, long step, double time, int count,
                                    const char *const names[], const stenc_field *const parts[],
                                    const size_t n[3], const size_t lo[3], const char *fn) {
    h5_place place;
    for (int d = 0; d < 3; d++)
        place.n[d] = n[d], place.lo[d] = lo[d];
    h5_quiet q = quiet_begin();
    stenc_status status = h5_write_step(file, step, time, count, names, parts, &place, fn);
    quiet_end(q);
    return status;
}

stenc_status stenc_io_h5_read(stenc_io_h5 *file, const char *path, stenc_field *field) {
    h5_quiet q = quiet_begin();
    stenc_status status = h5_read(file, path, field, "stenc_io_h5_read");
    quiet_end(q);
    return status;
}
