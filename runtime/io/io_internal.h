/* What the formats of runtime/io share: a field's shape as the files see it, the interior
 * gathered into (or scattered from) a little-endian dense buffer wherever the field lives,
 * output files that appear only when complete, and number and XML text. Not installed. */
#ifndef STENC_IO_INTERNAL_H
#define STENC_IO_INTERNAL_H

#include <stdio.h>

#include "../field/field_internal.h"
#include "stenc/io.h"

/* A field as a file sees it: type, dims and interior extents (x first, unused ones 1). */
typedef struct io_shape {
    stenc_type type;
    int dims;
    size_t n[3];
    size_t count;     /* nx * ny * nz */
    size_t elem_size; /* bytes per element */
} io_shape;

/* The element type's name in VTK XML files ("Float32", "Int32", "UInt8", ...). */
static inline const char *io_vtk_type(stenc_type type) {
    switch (type) {
    case STENC_F32:
        return "Float32";
    case STENC_I32:
        return "Int32";
    case STENC_U8:
        return "UInt8";
    default:
        return "Float64";
    }
}

/* The shape of a live field; `what` names the argument in messages. */
stenc_status io_field_shape(const stenc_field *field, io_shape *shape, const char *fn,
                            const char *what);

/* "(5, 9, 11)": the extents slowest first, as NumPy and HDF5 write a shape. */
void io_shape_format(const io_shape *shape, char *buf, size_t cap);

/* The interior as a new dense little-endian array (*dense is freed by the caller), from the
 * host or the device; the field stays where it is. */
stenc_status io_field_gather(const stenc_field *field, const io_shape *shape, void **dense,
                             const char *fn);
/* Store a dense little-endian array (converted in place to host order) into the interior,
 * on the host or the device. */
stenc_status io_field_scatter(stenc_field *field, const io_shape *shape, void *dense,
                              const char *fn);

/* Parallel HDF5, for libstenc_mpi. In a libstenc built on the MPI build of HDF5
 * (STENC_HDF5_PARALLEL; io_h5_parallel_built() is 1) a file may be opened on every rank of
 * *comm (an MPI_Comm, passed by address so that this header needs no mpi.h), and a step
 * written collectively: each rank writes its field parts[f], whose interior is the box at lo[]
 * of a dataset of extents n[] (x first). Otherwise the open is STENC_ERR_UNSUPPORTED. Every
 * rank returns the same status. */
int io_h5_parallel_built(void);
stenc_status io_h5_open_parallel(stenc_io_h5 **file, const char *path, stenc_io_mode mode,
                                 const void *comm, const char *fn);
int io_h5_is_parallel(const stenc_io_h5 *file); /* 0 for NULL and dead handles too */
stenc_status io_h5_write_step_parts(stenc_io_h5 *file, long step, double time, int count,
                                    const char *const names[], const stenc_field *const parts[],
                                    const size_t n[3], const size_t lo[3], const char *fn);

/* An output file written under a temporary name in the same folder and renamed into place by
 * io_out_commit, so that a failure leaves neither a partial file nor a changed old one. Write
 * errors are remembered and reported once, by commit. */
typedef struct io_out {
    FILE *fp;
    char *tmp;        /* the temporary name */
    const char *path; /* the final name */
    const char *fn;   /* the public call, for messages */
    int error;        /* errno of the first failed write, or -1 for a failure without one */
} io_out;

stenc_status io_out_open(io_out *out, const char *path, const char *fn);
void io_out_write(io_out *out, const void *data, size_t bytes);
void io_out_printf(io_out *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Close and rename into place; on any failure remove the temporary and report. */
stenc_status io_out_commit(io_out *out);
/* Close and remove the temporary (after another failure). */
void io_out_abort(io_out *out);

/* x with 17 significant digits and a '.' whatever the C locale; buf holds 32 bytes. */
void io_format_double(char buf[32], double x);

/* Write `text` with the five XML special characters as entities. */
void io_xml_escape(io_out *out, const char *text);

/* STENC_OK when `name` is a usable label: not NULL, not empty, no control characters. */
stenc_status io_check_label(const char *name, const char *fn, const char *what);

#endif /* STENC_IO_INTERNAL_H */
