"""Check a .pvti written by stenc_dist_vti_write with Python's own XML parser (no VTK, no stenc).

usage: check_pvti.py FILE.pvti NX,NY,NZ PIECES NAME:DTYPE:EXPECTED.raw ...
The header: the whole extent, the arrays and PIECES pieces. Each piece file: an ImageData of
that whole extent whose piece extent is the one the header gives, and its arrays, decoded from
base64 (a UInt64 byte count, then little-endian values). The pieces must cover every global
point, agree where they overlap (shared boundary points), and equal EXPECTED.raw (the global
array, little-endian, x fastest) bit for bit. Exit 0 when all hold, 1 otherwise.
"""
import base64
import os
import struct
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("check_pvti: " + msg)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s is %r, expected %r" % (what, got, want))


def main():
    path, extents, pieces_wanted = sys.argv[1], sys.argv[2], int(sys.argv[3])
    arrays = [a.split(":") for a in sys.argv[4:]]
    n = [int(x) for x in extents.split(",")]
    whole = "0 %d 0 %d 0 %d" % (n[0] - 1, n[1] - 1, n[2] - 1)
    root = ET.parse(path).getroot()
    expect("root", root.tag, "VTKFile")
    expect("type", root.get("type"), "PImageData")
    image = root.find("PImageData")
    expect("WholeExtent", image.get("WholeExtent"), whole)
    expect("PDataArray names", [d.get("Name") for d in image.findall("PPointData/PDataArray")],
           [a[0] for a in arrays])
    pieces = image.findall("Piece")
    expect("pieces", len(pieces), pieces_wanted)
    count = n[0] * n[1] * n[2]
    folder = os.path.dirname(path)
    for name, dtype, expected_path in arrays:
        code, size = {"float32": ("f", 4), "float64": ("d", 8)}[dtype]
        with open(expected_path, "rb") as f:
            expected = f.read()
        expect(name + " expected size", len(expected), count * size)
        seen = [None] * count
        for p in pieces:
            ext = [int(x) for x in p.get("Extent").split()]
            src = os.path.join(folder, p.get("Source"))
            proot = ET.parse(src).getroot()
            pimage = proot.find("ImageData")
            expect(src + " WholeExtent", pimage.get("WholeExtent"), whole)
            expect(src + " Origin", pimage.get("Origin").split(), image.get("Origin").split())
            piece = pimage.find("Piece")
            expect(src + " Extent", [int(x) for x in piece.get("Extent").split()], ext)
            data = [d for d in piece.findall("PointData/DataArray") if d.get("Name") == name]
            expect(src + " arrays named " + name, len(data), 1)
            raw = base64.b64decode("".join(data[0].text.split()), validate=True)
            m = [ext[1] - ext[0] + 1, ext[3] - ext[2] + 1, ext[5] - ext[4] + 1]
            (nbytes,) = struct.unpack("<Q", raw[:8])
            expect(src + " byte count", nbytes, m[0] * m[1] * m[2] * size)
            for k in range(m[2]):
                for j in range(m[1]):
                    for i in range(m[0]):
                        at = 8 + size * (i + m[0] * (j + m[1] * k))
                        v = raw[at:at + size]
                        g = (ext[0] + i) + n[0] * ((ext[2] + j) + n[1] * (ext[4] + k))
                        if seen[g] is not None and seen[g] != v:
                            fail("%s: pieces disagree at point %d" % (name, g))
                        seen[g] = v
        for g in range(count):
            if seen[g] is None:
                fail("%s: no piece holds point %d" % (name, g))
            if seen[g] != expected[size * g:size * (g + 1)]:
                fail("%s: point %d is %r, expected %r" % (name, g,
                     struct.unpack("<" + code, seen[g])[0],
                     struct.unpack("<" + code, expected[size * g:size * (g + 1)])[0]))
    print("check_pvti: %s: %d pieces, %d arrays of %d points match" % (path, len(pieces), len(arrays), count))


main()
