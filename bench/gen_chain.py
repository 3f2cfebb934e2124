#!/usr/bin/env python3
"""Writes a gp program of N dependent elementwise kernels on one input.

usage: gen_chain.py N [SIZE]

@chain(%x: memref<SIZExSIZExf32>) applies t = t * 0.5 + 1 N times, each a
kernel of its own writing a fresh buffer, and returns the last one: a
launch-bound program whose only caller-owned buffer is its input (the
moving-inputs benchmark, bench/moving_inputs.sh). Compile it with
`gp-compile -p fuse=0` to keep the kernels apart: gp-fuse-kernels makes
the chain one kernel.
"""
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    n = int(sys.argv[1])
    size = int(sys.argv[2]) if len(sys.argv) == 3 else 64
    t = f"memref<{size}x{size}xf32, #cuda0>"
    out = sys.stdout
    out.write("#cuda0 = #gp.device<cuda:0>\n")
    out.write("#id = affine_map<(d0, d1) -> (d0, d1)>\n")
    out.write(f"func.func @chain(%x: {t}) -> {t} {{\n")
    previous = "%x"
    for i in range(n):
        out.write(f"  %t{i} = gp.buffer.alloc() : {t}\n")
        out.write(f'  gp.kernel "step{i}" ins({previous} : {t}) outs(%t{i} : {t}) {{\n')
        out.write(f"  ^bb0(%in: {t}, %out: {t}):\n")
        out.write("    linalg.generic {indexing_maps = [#id, #id], "
                  'iterator_types = ["parallel", "parallel"]}\n')
        out.write(f"        ins(%in : {t}) outs(%out : {t}) {{\n")
        out.write("    ^bb0(%a: f32, %unused: f32):\n")
        out.write("      %half = arith.constant 0.5 : f32\n")
        out.write("      %one = arith.constant 1.0 : f32\n")
        out.write("      %m = arith.mulf %a, %half : f32\n")
        out.write("      %r = arith.addf %m, %one : f32\n")
        out.write("      linalg.yield %r : f32\n")
        out.write("    }\n  }\n")
        previous = f"%t{i}"
    out.write(f"  return {previous} : {t}\n}}\n")


if __name__ == "__main__":
    main()
