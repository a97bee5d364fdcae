"""Check a .npy file written by stenc with NumPy, independently of stenc's reader.

usage: check_npy.py FILE EXPECTED.txt DTYPE SHAPE
  EXPECTED.txt  the interior values, one per line, C order (written by the C test)
  DTYPE         float32 or float64
  SHAPE         extents slowest first, comma-separated: 11,9,5
Every element must equal the expected value bit for bit. Exit 0 when it does, 1 otherwise.
"""
import sys

import numpy as np


def fail(msg):
    print("check_npy: " + msg)
    sys.exit(1)


def main(path, expected_path, dtype_name, shape_text):
    dtype = np.dtype(dtype_name).newbyteorder("<")
    shape = tuple(int(x) for x in shape_text.split(","))

    # The header, read with NumPy's own format module: version 1.0, C order, 64-byte aligned.
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        if version != (1, 0):
            fail("format version %r, expected (1, 0)" % (version,))
        hshape, fortran, hdtype = np.lib.format.read_array_header_1_0(f)
        if f.tell() % 64 != 0:
            fail("data starts at byte %d, not a multiple of 64" % f.tell())
    if fortran:
        fail("fortran_order is True")
    if hshape != shape:
        fail("header shape %r, expected %r" % (hshape, shape))
    if hdtype != dtype or hdtype.str != dtype.str:
        fail("header dtype %r, expected %r" % (hdtype.str, dtype.str))

    a = np.load(path, allow_pickle=False)
    if a.shape != shape or a.dtype != dtype:
        fail("np.load gave %r %r" % (a.shape, a.dtype))
    with open(expected_path) as f:
        want = np.array([float(line) for line in f], dtype=np.float64).astype(dtype)
    if want.size != a.size:
        fail("%d elements, %d expected" % (a.size, want.size))
    bits = np.uint32 if dtype.itemsize == 4 else np.uint64
    got = a.reshape(-1).view(bits)
    exp = want.view(bits)
    bad = np.nonzero(got != exp)[0]
    if bad.size:
        i = bad[0]
        fail("%d elements differ; first at flat index %d (%s): %r, expected %r"
             % (bad.size, i, np.unravel_index(i, shape), a.reshape(-1)[i], want[i]))
    print("check_npy: %s %s %s: %d elements match" % (path, dtype.str, shape, a.size))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__)
        sys.exit(2)
    main(*sys.argv[1:])
