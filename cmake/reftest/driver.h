/* The driver of a reference test program, built by stenc_add_reference_test() around the
 * generated stencil table (subject.c.in) and the user's reference. Not part of libstenc:
 * the library compares and times, the driver loops over the cases and prints. */
#ifndef STENC_REFTEST_DRIVER_H
#define STENC_REFTEST_DRIVER_H

#include "stenc/reftest.h"

/* Parse the command line (see docs/reference-tests.md), run every size on the C target and,
 * when the stencil was generated with the cuda target and a device is present, every CUDA
 * variant; print the table, one key=value line per case and each failure. Returns the exit
 * status: 0 when every case passed, 1 when one failed, 2 for a bad command line. */
int stenc_reftest_driver_main(const stenc_reftest_stencil *s, stenc_reftest_fn reference,
                              const char *reference_name, int argc, char **argv);

#endif /* STENC_REFTEST_DRIVER_H */
