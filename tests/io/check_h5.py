"""Check an HDF5 dataset written by stenc with h5py and with h5dump, independently of stenc.

usage: check_h5.py FILE DATASET DTYPE SHAPE EXTENTS EXPECTED.txt [STEP TIME]
       check_h5.py --probe
  SHAPE    slowest first, comma-separated (11,9,5); EXTENTS x first (5,9,11)
  STEP, TIME   for a dataset inside a step group: the group's attributes
h5py checks shape, type, attributes and every value bit for bit; h5dump (hdf5-tools) checks
the header and dumps the raw values (-b LE) for a second bitwise comparison. Whichever of the
two is installed runs. Exit 0 when all match, 1 on a mismatch, 77 when neither is installed
(--probe: 0 when one is).
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError:
    h5py = None

H5DUMP = shutil.which("h5dump")


def fail(msg):
    print("check_h5: " + msg)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s is %r, expected %r" % (what, got, want))


def as_text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def with_h5py(path, name, dtype, shape, extents, packed, step, time):
    with h5py.File(path, "r") as f:
        if "stenc_version" not in f.attrs:
            fail("the root has no stenc_version attribute")
        d = f[name]
        expect(name + " shape", d.shape, shape)
        expect(name + " dtype", d.dtype.str, np.dtype(dtype).newbyteorder("<").str)
        expect(name + " extents", [int(x) for x in d.attrs["extents"]], extents)
        expect(name + " extents type", d.attrs["extents"].dtype, np.dtype("uint64"))
        expect(name + " type attribute", as_text(d.attrs["type"]),
               {"float32": "float", "float64": "double"}[dtype])
        if step is not None:
            group = d.parent
            expect("group name", group.name, "/step_%08d" % step)
            expect("group step", int(group.attrs["step"]), step)
            expect("group time", float(group.attrs["time"]), time)
            expect(name + " time", float(d.attrs["time"]), time)
        got = d[...].astype(d.dtype.newbyteorder("<")).tobytes()
        compare(name + " (h5py)", got, packed, dtype)


def with_h5dump(path, name, dtype, shape, packed):
    header = subprocess.run([H5DUMP, "-H", "-d", name, path], capture_output=True, text=True)
    if header.returncode != 0:
        fail("h5dump -H failed: " + header.stderr)
    dims = "( " + ", ".join(str(n) for n in shape) + " )"
    if dims not in header.stdout:
        fail("h5dump shows no dataspace %s:\n%s" % (dims, header.stdout))
    h5type = {"float32": "H5T_IEEE_F32LE", "float64": "H5T_IEEE_F64LE"}[dtype]
    if h5type not in header.stdout:
        fail("h5dump shows no %s:\n%s" % (h5type, header.stdout))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "data.bin")
        dump = subprocess.run([H5DUMP, "-d", name, "-b", "LE", "-o", out, path],
                              capture_output=True, text=True)
        if dump.returncode != 0:
            fail("h5dump -b failed: " + dump.stderr)
        with open(out, "rb") as f:
            compare(name + " (h5dump)", f.read(), packed, dtype)


def compare(what, got, packed, dtype):
    size = 4 if dtype == "float32" else 8
    if len(got) != len(packed):
        fail("%s: %d bytes, expected %d" % (what, len(got), len(packed)))
    if got != packed:
        i = next(i for i in range(0, len(got), size) if got[i:i + size] != packed[i:i + size])
        code = "<f" if size == 4 else "<d"
        fail("%s: element %d is %r, expected %r" % (what, i // size,
             struct.unpack(code, got[i:i + size])[0], struct.unpack(code, packed[i:i + size])[0]))


def main(path, name, dtype, shape, extents, expected_path, step=None, time=None):
    shape = tuple(int(x) for x in shape.split(","))
    extents = [int(x) for x in extents.split(",")]
    step = None if step is None else int(step)
    time = None if time is None else float(time)
    with open(expected_path) as f:
        want = [float(line) for line in f]
    packed = struct.pack("<%d%s" % (len(want), "f" if dtype == "float32" else "d"), *want)
    readers = []
    if h5py is not None:
        with_h5py(path, name, dtype, shape, extents, packed, step, time)
        readers.append("h5py")
    if H5DUMP:
        with_h5dump(path, name, dtype, shape, packed)
        readers.append("h5dump")
    if not readers:
        print("check_h5: neither h5py nor h5dump is installed")
        sys.exit(77)
    print("check_h5: %s:%s %s %s matches (%s)" % (path, name, dtype, shape, ", ".join(readers)))


if __name__ == "__main__":
    if sys.argv[1:] == ["--probe"]:
        sys.exit(0 if h5py is not None or H5DUMP else 77)
    if len(sys.argv) not in (7, 9):
        print(__doc__)
        sys.exit(2)
    main(*sys.argv[1:])
