"""Writes a float32 .npy file of one value: write_npy.py PATH 2x3 VALUE
(`scalar` for shape ()).

A reference for gp-run --expected-output made without GraphPart (and
without numpy, which the test machines may lack)."""
import struct
import sys

path, shape_text, value = sys.argv[1], sys.argv[2], float(sys.argv[3])
shape = () if shape_text == "scalar" else tuple(int(d) for d in shape_text.split("x"))
count = 1
for d in shape:
    count *= d
shape_repr = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape_repr
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % count, *([value] * count)))
