#!/usr/bin/env python3
"""Writes the object of `gpu.binary @NAME` in an MLIR file to a file.

usage: extract_cubin.py INPUT.mlir NAME OUTPUT

The object's bytes are printed as an MLIR string (`bin = "..."`) with \\XX
escapes for non-printable bytes.
"""
import re
import sys


def main():
    text = open(sys.argv[1], "rb").read()
    name = sys.argv[2].encode()
    at = text.find(b"gpu.binary @" + name)
    if at < 0:
        sys.exit(f"no gpu.binary @{sys.argv[2]} in {sys.argv[1]}")
    start = text.find(b'bin = "', at) + len(b'bin = "')
    out = bytearray()
    i = start
    while text[i:i + 1] != b'"':
        c = text[i:i + 1]
        if c == b"\\":
            nxt = text[i + 1:i + 3]
            if re.fullmatch(rb"[0-9A-Fa-f]{2}", nxt):
                out.append(int(nxt, 16))
                i += 3
                continue
            out.append(text[i + 1])
            i += 2
            continue
        out.append(c[0])
        i += 1
    open(sys.argv[3], "wb").write(bytes(out))
    if not out.startswith(b"\x7fELF"):
        sys.exit("the object is not an ELF cubin")


if __name__ == "__main__":
    main()
