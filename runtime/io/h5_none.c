/* HDF5 entry points of a libstenc built without HDF5: they exist, so that programs link and
 * can ask stenc_io_have_hdf5(), and they say why they cannot work. */
#include "io_internal.h"

#define NO_HDF5(fn)                                                                                \
    STENC_ERROR(STENC_ERR_UNSUPPORTED,                                                             \
                "%s: this libstenc was built without HDF5 (install the HDF5 C library, e.g. "      \
                "Debian's libhdf5-dev, and configure stenc again)",                                \
                fn)

int stenc_io_have_hdf5(void) {
    return 0;
}

stenc_status stenc_io_h5_open(stenc_io_h5 **file, const char *path, stenc_io_mode mode) {
    (void)path, (void)mode;
    if (file) *file = NULL;
    return NO_HDF5("stenc_io_h5_open");
}

stenc_status stenc_io_h5_close(stenc_io_h5 *file) {
    /* No open can succeed, so only NULL is a handle this build knows. */
    return file ? NO_HDF5("stenc_io_h5_close") : STENC_OK;
}

stenc_status stenc_io_h5_write(stenc_io_h5 *file, const char *name, const stenc_field *field) {
    (void)file, (void)name, (void)field;
    return NO_HDF5("stenc_io_h5_write");
}

stenc_status stenc_io_h5_write_step(stenc_io_h5 *file, long step, double time, int count,
                                    const char *const names[], const stenc_field *const fields[]) {
    (void)file, (void)step, (void)time, (void)count, (void)names, (void)fields;
    return NO_HDF5("stenc_io_h5_write_step");
}

stenc_status stenc_io_h5_read(stenc_io_h5 *file, const char *path, stenc_field *field) {
    (void)file, (void)path, (void)field;
    return NO_HDF5("stenc_io_h5_read");
}

int io_h5_parallel_built(void) {
    return 0;
}

stenc_status io_h5_open_parallel(stenc_io_h5 **file, const char *path, stenc_io_mode mode,
                                 const void *comm, const char *fn) {
    (void)path, (void)mode, (void)comm;
    if (file) *file = NULL;
    return NO_HDF5(fn);
}

int io_h5_is_parallel(const stenc_io_h5 *file) {
    (void)file;
    return 0;
}

stenc_status io_h5_write_step_parts(stenc_io_h5 *file, long step, double time, int count,
                                    const char *const names[], const stenc_field *const parts[],
                                    const size_t n[3], const size_t lo[3], const char *fn) {
    (void)file, (void)step, (void)time, (void)count, (void)names, (void)parts, (void)n, (void)lo;
    return NO_HDF5(fn);
}
