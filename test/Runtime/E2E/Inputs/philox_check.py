"""Recomputes a compiled RNG fill: the runtime's per-generator seed
(splitmix64 of the program seed and the generator index) and
Philox4x32-10 as gp-expand-rng-fills emits it, then compares with a .npy
that gp-run wrote.

usage: philox_check.py FILE.npy GENERATOR OFFSET uniform|normal
"""
import math
import struct
import sys

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1


def mix(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def philox(block, offset, seed):
    c = [block & M32, (block >> 32) & M32, offset & M32, (offset >> 32) & M32]
    k0, k1 = seed & M32, (seed >> 32) & M32
    for _ in range(10):
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & M32, p1 & M32,
             ((p0 >> 32) ^ c[3] ^ k1) & M32, p0 & M32]
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return c


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def main():
    path, generator, offset, kind = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    data = open(path, "rb").read()
    header_len = struct.unpack("<H", data[8:10])[0]
    values = data[10 + header_len:]
    got = struct.unpack("<%df" % (len(values) // 4), values)
    seed = mix(0 ^ mix(generator))
    worst = 0.0
    for i, value in enumerate(got):
        bits = philox(i // 4, offset, seed)
        if kind == "uniform":
            want = f32((bits[i % 4] >> 8) * (1.0 / 16777216.0))
            if value != want:
                sys.exit(f"element {i}: {value} != {want}")
        else:
            pair = (i % 4) // 2
            u1 = f32(((bits[2 * pair] >> 8) + 1) * (1.0 / 16777216.0))
            u2 = f32((bits[2 * pair + 1] >> 8) * (1.0 / 16777216.0))
            radius = math.sqrt(-2.0 * math.log(u1))
            angle = 2 * math.pi * u2
            want = radius * (math.sin(angle) if i % 2 else math.cos(angle))
            worst = max(worst, abs(value - want))
            if abs(value - want) > 1e-4 * max(1.0, abs(want)):
                sys.exit(f"element {i}: {value} != {want}")
    print(f"philox {kind}: {len(got)} values match (offset {offset})")


main()
