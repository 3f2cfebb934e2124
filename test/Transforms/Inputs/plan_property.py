#!/usr/bin/env python3
"""Property test for gp-plan-memory.

usage: plan_property.py GP_OPT [COUNT] [SEED]

Writes COUNT random programs (kernels that read earlier buffers, sometimes
through views, and write new buffers of random sizes; some cpu round trips
and unsafe custom ops that cut partitions), runs the pipeline with
gp-verify-plan, and checks that every plan verifies and that each arena is
at most 1.10x the liveness lower bound (the most bytes alive at once in the
chosen order) that gp-plan-memory reports.
"""
import random
import re
import subprocess
import sys


def make_program(rng, name):
    lines = [f"func.func @{name}(%x: memref<64xf32, #cuda0>) -> memref<64xf32, #cuda0> {{"]
    live = [("%x", 64)]
    n = rng.randint(2, 30)
    for i in range(n):
        src, src_len = rng.choice(live[-6:])
        if rng.random() < 0.2:
            lines.append(f"  %v{i} = gp.buffer.bitcast {src} : memref<{src_len}xf32, #cuda0> to memref<{src_len * 4}xi8, #cuda0>")
            src_ref, src_ty = f"%v{i}", f"memref<{src_len * 4}xi8, #cuda0>"
        else:
            src_ref, src_ty = src, f"memref<{src_len}xf32, #cuda0>"
        length = rng.choice([16, 64, 100, 256, 1000, 4096, 20000])
        ty = f"memref<{length}xf32, #cuda0>"
        kind = rng.random()
        if kind < 0.1:
            lines.append(f"  %b{i} = gp.fallback \"t::unsafe{i}\"({src_ref}) tags [\"cudagraph_unsafe\"] : ({src_ty}) -> {ty}")
        elif kind < 0.2:
            cpu_ty = src_ty.replace("#cuda0", "#cpu")
            lines.append(f"  %g{i} = gp.buffer.alloc() : {cpu_ty}")
            lines.append(f"  gp.copy {src_ref}, %g{i} : {src_ty} to {cpu_ty}")
            lines.append(f"  %h{i} = gp.buffer.alloc() : memref<{length}xf32, #cpu>")
            lines.append(f"  gp.kernel \"cpu{i}\" ins(%g{i} : {cpu_ty}) outs(%h{i} : memref<{length}xf32, #cpu>) {{\n  ^bb0(%a: {cpu_ty}, %o: memref<{length}xf32, #cpu>):\n  }}")
            lines.append(f"  %b{i} = gp.buffer.alloc() : {ty}")
            lines.append(f"  gp.copy %h{i}, %b{i} : memref<{length}xf32, #cpu> to {ty}")
        else:
            lines.append(f"  %b{i} = gp.buffer.alloc() : {ty}")
            lines.append(f"  gp.kernel \"k{i}\" ins({src_ref} : {src_ty}) outs(%b{i} : {ty}) {{\n  ^bb0(%a: {src_ty}, %o: {ty}):\n  }}")
        live.append((f"%b{i}", length))
    last, last_len = live[-1]
    lines.append(f"  %out = gp.buffer.alloc() : memref<64xf32, #cuda0>")
    lines.append(f"  gp.kernel \"final\" ins({last} : memref<{last_len}xf32, #cuda0>) outs(%out : memref<64xf32, #cuda0>) {{\n  ^bb0(%a: memref<{last_len}xf32, #cuda0>, %o: memref<64xf32, #cuda0>):\n  }}")
    lines.append("  return %out : memref<64xf32, #cuda0>\n}")
    return "\n".join(lines)


def main():
    gp_opt = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 11)
    text = "#cuda0 = #gp.device<cuda:0>\n#cpu = #gp.device<cpu>\n" + "\n".join(
        make_program(rng, f"f{p}") for p in range(count))
    proc = subprocess.run(
        [gp_opt, "-", "--gp-reorder", "--gp-partition", "--gp-plan-memory=report",
         "--gp-verify-plan", "-o", "/dev/null"],
        input=text, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"FAIL: gp-opt exited {proc.returncode}\n{proc.stderr[:4000]}")
    arenas = re.findall(r"arena (\S+): (\d+) bytes \(live lower bound (\d+) bytes\)", proc.stderr)
    if len(arenas) < count:
        sys.exit(f"FAIL: expected an arena report per program, got {len(arenas)}")
    worst = 0.0
    for device, arena, bound in arenas:
        arena, bound = int(arena), int(bound)
        ratio = arena / bound if bound else 1.0
        worst = max(worst, ratio)
        if ratio > 1.10:
            sys.exit(f"FAIL: arena {arena} bytes on {device} is {ratio:.3f}x the lower bound {bound}")
    print(f"{count} random programs, {len(arenas)} arenas: every plan verified, worst arena/lower bound {worst:.3f}")


if __name__ == "__main__":
    main()
