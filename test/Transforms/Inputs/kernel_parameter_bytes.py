"""Each gp.kernel's launch parameter bytes in a gp-opt output: a memref
descriptor is 3 + 2 * rank words, a scalar one; prints the count, any
kernel over 4096 bytes, and the largest."""
import re
import sys

sizes = []
for line in open(sys.argv[1]):
    if 'gp.kernel "' not in line:
        continue
    types = re.findall(r"memref<([^>]*)>|\b(index|i64|f32)\b", line.split(
        ":", 1)[1] if ":" in line else "")
    total = 0
    for memref, scalar in types:
        total += 8 * (3 + 2 * memref.count("x")) if memref else 8
    sizes.append(total)
print("kernels: %d" % len(sizes))
for size in sizes:
    if size > 4096:
        print("over: %d bytes" % size)
print("largest: %d bytes" % max(sizes))
