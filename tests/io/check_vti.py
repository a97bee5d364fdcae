"""Check a .vti or .pvd file written by stenc with Python's own XML parser (no VTK, no stenc).

usage: check_vti.py vti FILE NX,NY,NZ OX,OY,OZ SX,SY,SZ NAME:DTYPE:EXPECTED.txt ...
       check_vti.py pvd FILE [TIME:DATAFILE ...]
For a .vti: the header, the grid, and every PointData array, decoded from base64 (a UInt64
byte count, then little-endian values), against the expected values bit for bit; the arrays
must be the named ones, in order. For a .pvd: the DataSet entries, in order.
Exit 0 when all match, 1 otherwise.
"""
import base64
import struct
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("check_vti: " + msg)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s is %r, expected %r" % (what, got, want))


def triple(text):
    return [float(x) for x in text.split(",")]


def check_vti(path, extents, origin, spacing, arrays):
    n = [int(x) for x in extents.split(",")]
    root = ET.parse(path).getroot()
    expect("root", root.tag, "VTKFile")
    expect("VTKFile type", root.get("type"), "ImageData")
    expect("byte_order", root.get("byte_order"), "LittleEndian")
    expect("header_type", root.get("header_type"), "UInt64")
    image = root.find("ImageData")
    whole = "0 %d 0 %d 0 %d" % (n[0] - 1, n[1] - 1, n[2] - 1)
    expect("WholeExtent", image.get("WholeExtent"), whole)
    expect("Origin", [float(x) for x in image.get("Origin").split()], triple(origin))
    expect("Spacing", [float(x) for x in image.get("Spacing").split()], triple(spacing))
    pieces = image.findall("Piece")
    expect("number of pieces", len(pieces), 1)
    expect("Piece Extent", pieces[0].get("Extent"), whole)
    cells = pieces[0].find("CellData")
    if cells is not None and len(cells):
        fail("CellData holds arrays")
    data = pieces[0].findall("PointData/DataArray")
    expect("array names", [d.get("Name") for d in data], [a.split(":")[0] for a in arrays])
    count = n[0] * n[1] * n[2]
    for d, spec in zip(data, arrays):
        name, dtype, expected_path = spec.split(":")
        code, size, vtk = {"float32": ("f", 4, "Float32"), "float64": ("d", 8, "Float64")}[dtype]
        expect(name + " type", d.get("type"), vtk)
        expect(name + " format", d.get("format"), "binary")
        expect(name + " NumberOfComponents", d.get("NumberOfComponents", "1"), "1")
        raw = base64.b64decode("".join(d.text.split()), validate=True)
        (nbytes,) = struct.unpack("<Q", raw[:8])
        expect(name + " byte count", nbytes, count * size)
        expect(name + " decoded length", len(raw), 8 + count * size)
        with open(expected_path) as f:
            want = [float(line) for line in f]
        expect(name + " expected count", len(want), count)
        packed = struct.pack("<%d%s" % (count, code), *want)
        if raw[8:] != packed:
            got = struct.unpack("<%d%s" % (count, code), raw[8:])
            i = next(i for i in range(count) if raw[8 + i * size:8 + (i + 1) * size]
                     != packed[i * size:(i + 1) * size])
            fail("%s: point %d (i=%d j=%d k=%d) is %r, expected %r" % (
                name, i, i % n[0], i // n[0] % n[1], i // (n[0] * n[1]), got[i], want[i]))
    print("check_vti: %s: %d arrays of %s points match" % (path, len(data), extents))


def check_pvd(path, entries):
    root = ET.parse(path).getroot()
    expect("root", root.tag, "VTKFile")
    expect("VTKFile type", root.get("type"), "Collection")
    sets = root.findall("Collection/DataSet")
    got = [(float(s.get("timestep")), s.get("file")) for s in sets]
    want = []
    for e in entries:
        time, _, name = e.partition(":")
        want.append((float(time), name))
    expect("DataSet entries", got, want)
    print("check_vti: %s: %d entries match" % (path, len(got)))


if __name__ == "__main__":
    if len(sys.argv) >= 7 and sys.argv[1] == "vti":
        check_vti(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "pvd":
        check_pvd(sys.argv[2], sys.argv[3:])
    else:
        print(__doc__)
        sys.exit(2)
