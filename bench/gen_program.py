#!/usr/bin/env python3
"""Writes a synthetic gp program for compile-time benchmarks.

usage: gen_program.py N [--unsafe FRACTION] [--views FRACTION] [--seed S]

The program has N top-level ops (allocations, views, kernels, copies; the
ops inside kernel bodies are not counted) on cuda buffers, built as a chain
with fan-in: each step is a kernel that reads one or two earlier buffers (or
a view of one) and writes a fresh buffer. A fraction of the steps are cpu
round trips (a device copy to the cpu, a cpu kernel, a copy back) that
cannot be captured, and a fraction of the reads go through a view (reshape
or f8 bitcast).
"""
import argparse
import random
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("n", type=int)
    parser.add_argument("--unsafe", type=float, default=0.05)
    parser.add_argument("--views", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout
    t = "memref<64xf32, #cuda0>"
    h = "memref<64xf32, #cpu>"
    out.write("#cuda0 = #gp.device<cuda:0>\n#cpu = #gp.device<cpu>\n")
    out.write(f"func.func @synthetic(%x: {t}) -> {t} {{\n")
    live = ["%x"]
    emitted = 0
    i = -1
    while emitted < args.n:
        i += 1
        src = live[-1] if rng.random() < 0.6 else rng.choice(live[-64:])
        if rng.random() < args.views:
            if rng.random() < 0.5:
                out.write(f"  %v{i} = gp.buffer.reshape {src}() : {t} to memref<8x8xf32, #cuda0>\n")
                out.write(f"  %w{i} = gp.buffer.reshape %v{i}() : memref<8x8xf32, #cuda0> to {t}\n")
                src = f"%w{i}"
                emitted += 2
            else:
                out.write(f"  %v{i} = gp.buffer.bitcast {src} : {t} to memref<256xf8E4M3FN, #cuda0>\n")
                out.write(f"  %w{i} = gp.buffer.bitcast %v{i} : memref<256xf8E4M3FN, #cuda0> to {t}\n")
                src = f"%w{i}"
                emitted += 2
        dst = f"%b{i}"
        if rng.random() < args.unsafe:
            out.write(f"  %h{i} = gp.buffer.alloc() : {h}\n")
            out.write(f"  gp.copy {src}, %h{i} : {t} to {h}\n")
            out.write(f"  gp.kernel \"cpu{i}\" outs(%h{i} : {h}) {{\n  ^bb0(%o: {h}):\n  }}\n")
            out.write(f"  {dst} = gp.buffer.alloc() : {t}\n")
            out.write(f"  gp.copy %h{i}, {dst} : {h} to {t}\n")
            emitted += 5
        else:
            other = rng.choice(live[-16:])
            out.write(f"  {dst} = gp.buffer.alloc() : {t}\n")
            out.write(f"  gp.kernel \"k{i}\" ins({src}, {other} : {t}, {t}) outs({dst} : {t}) {{\n"
                      f"  ^bb0(%a: {t}, %b: {t}, %o: {t}):\n  }}\n")
            emitted += 2
        live.append(dst)
    out.write(f"  return {live[-1]} : {t}\n}}\n")


if __name__ == "__main__":
    main()
