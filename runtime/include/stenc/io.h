/* stenc field I/O: NumPy .npy, VTK XML image data (.vti) with .pvd time series, and HDF5.
 *
 * Every format stores the interior of a field only (no halo), in C order with the slowest
 * dimension first: shape (nz, ny, nx) for a 3-D field, (ny, nx) for 2-D, (nx,) for 1-D, which
 * is the field's own order (i fastest). A field is written from wherever it lives, host or
 * device, and read into wherever it lives; neither changes its residence. A device field goes
 * through a temporary host copy (blocking). Data on disk is little-endian.
 *
 * Writes of .npy and .vti go to a temporary file in the same folder that is renamed into place,
 * so a failed write leaves no partial file (and an existing file untouched). A failed read
 * leaves the field unchanged. Distributed fields have their own calls in stenc/dist.h (.pvti,
 * HDF5 gathered on one rank). See docs/io.md.
 */
#ifndef STENC_IO_H
#define STENC_IO_H

#include "stenc/core.h"
#include "stenc/field.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- NumPy .npy -------------------------------------------------------------------------- */

/* Write the interior of `field` as a .npy file (format version 1.0, dtype '<f4' or '<f8',
 * fortran_order False), readable with numpy.load(path). */
stenc_status stenc_io_npy_write(const char *path, const stenc_field *field);

/* Read a .npy file into the interior of `field`; the halo is left alone. The file must hold
 * the field's type ('<f4' for float, '<f8' for double) and shape, in C order: a mismatch is
 * STENC_ERR_SHAPE; big-endian data, fortran_order True and other dtypes are
 * STENC_ERR_UNSUPPORTED; a missing, truncated or malformed file is STENC_ERR_IO. Versions 1.0,
 * 2.0 and 3.0 of the format are read. */
stenc_status stenc_io_npy_read(const char *path, stenc_field *field);

/* ---- VTK XML image data (.vti) and collections (.pvd) ------------------------------------ */

/* Write `count` fields of the same dims and extents (types may differ) into one .vti file as
 * PointData arrays named names[0..count-1]: point (i, j, k) is at origin + (i, j, k) * spacing.
 * Arrays are inline base64 (format="binary", header_type UInt64), readable by ParaView, VisIt
 * and any XML parser. origin and spacing are x, y, z (all three, whatever the dims); NULL means
 * 0, 0, 0 and 1, 1, 1. Spacing must be positive, names distinct and non-empty. */
stenc_status stenc_io_vti_write(const char *path, int count, const char *const names[],
                                const stenc_field *const fields[], const double origin[3],
                                const double spacing[3]);

/* A .pvd collection: a time series of data files that ParaView opens as one. The file is
 * complete and valid after every call, so a running simulation can be watched. */
typedef struct stenc_io_pvd stenc_io_pvd;

/* Create (or truncate) the collection file `path` with no entries. */
stenc_status stenc_io_pvd_open(stenc_io_pvd **pvd, const char *path);
/* Add the data file `file` at time `time` (finite). `file` is written as given; ParaView reads
 * a relative name from the .pvd's folder. Entries keep the order of the calls. */
stenc_status stenc_io_pvd_add(stenc_io_pvd *pvd, double time, const char *file);
/* Close the collection; NULL is allowed. */
stenc_status stenc_io_pvd_close(stenc_io_pvd *pvd);

/* ---- HDF5 -------------------------------------------------------------------------------- */
/* Layout (docs/io.md): one dataset per field, named by the caller, of the .npy shape and type
 * IEEE float32/float64 little-endian, with attributes `extents` (uint64, x first: nx[, ny[,
 * nz]]) and `type` ("float" or "double"). A time step is a group "step_%08ld" with attributes
 * `step` and `time`, holding one dataset per field (each with a `time` attribute too). Without
 * HDF5 at build time every call but a close of NULL returns STENC_ERR_UNSUPPORTED. */

/* 1 if this libstenc was built with HDF5. */
int stenc_io_have_hdf5(void);

typedef struct stenc_io_h5 stenc_io_h5;

typedef enum stenc_io_mode {
    STENC_IO_READ = 0, /* an existing file, read only */
    STENC_IO_CREATE,   /* a new file; an existing one is truncated */
    STENC_IO_APPEND    /* an existing file, read and write; created when missing */
} stenc_io_mode;

/* Open an HDF5 file. *file is NULL after a failure. A file is used by one thread at a time. */
stenc_status stenc_io_h5_open(stenc_io_h5 **file, const char *path, stenc_io_mode mode);
/* Close the file; NULL is allowed. A file opened by stenc_dist_h5_open (stenc/dist.h) is
 * closed on every rank that opened it. */
stenc_status stenc_io_h5_close(stenc_io_h5 *file);

/* Write `field` as dataset `name` in the root group. A name holds no '/' and is not "." or
 * "..". An existing dataset of that name is STENC_ERR_IO (datasets are not overwritten). */
stenc_status stenc_io_h5_write(stenc_io_h5 *file, const char *name, const stenc_field *field);

/* Write one time step: group "step_%08ld" (step >= 0) with attributes step and time, holding
 * `count` fields as datasets names[0..count-1]. A step that exists already is STENC_ERR_IO.
 * Arguments are all checked before the file is touched. */
stenc_status stenc_io_h5_write_step(stenc_io_h5 *file, long step, double time, int count,
                                    const char *const names[], const stenc_field *const fields[]);

/* Read the dataset at `path` ("u", or "step_00000010/u") into the interior of `field`; the
 * halo is left alone. Its rank and shape must be the field's (C order, as written) and its
 * type a float of the field's size (STENC_ERR_SHAPE otherwise). */
stenc_status stenc_io_h5_read(stenc_io_h5 *file, const char *path, stenc_field *field);

#ifdef __cplusplus
}
#endif

#endif /* STENC_IO_H */
