#!/usr/bin/env python3
"""Property test for gp-reorder's min-partitions strategy.

usage: reorder_property.py GP_OPT [COUNT] [SEED]

Writes COUNT random programs (one function each, up to 10 compute ops with
random capture-safe / unsafe kinds and random reads and writes of four
buffers, some through views), runs gp-reorder on them with an unlimited
memory budget, and checks for every function that
  * the new order respects every dependence (def-use through views, and
    read-after-write, write-after-read, write-after-write on any alias), and
  * its number of partitions equals the minimum over all valid orders,
    computed by brute force (dynamic programming over subsets).
"""
import random
import re
import subprocess
import sys

T = "memref<16xf32, #cuda0>"
V = "memref<64xi8, #cuda0>"


def make_program(rng, name):
    n = rng.randint(1, 10)
    ops = []  # (name, unsafe, reads, writes)
    lines = [f"func.func @{name}(%b0: {T}, %b1: {T}, %b2: {T}, %b3: {T}) {{"]
    for b in range(4):
        lines.append(f"  %v{b} = gp.buffer.bitcast %b{b} : {T} to {V}")
    for i in range(n):
        unsafe = rng.random() < 0.4
        bufs = rng.sample(range(4), rng.randint(1, 3))
        writes = set(b for b in bufs if rng.random() < 0.5)
        reads = set(bufs) - writes
        # Reach a buffer directly or through its view.
        ref = {b: (f"%v{b}", V) if rng.random() < 0.3 else (f"%b{b}", T) for b in bufs}
        if unsafe:
            args = sorted(bufs)
            mutates = [k for k, b in enumerate(args) if b in writes]
            m = f" mutates [{', '.join(map(str, mutates))}]" if mutates else ""
            operands = ", ".join(ref[b][0] for b in args)
            types = ", ".join(ref[b][1] for b in args)
            lines.append(f"  gp.fallback \"t::op{i}\"({operands}){m} tags [\"cudagraph_unsafe\"] : ({types}) -> ()")
        else:
            ins = sorted(reads)
            outs = sorted(writes) or [sorted(bufs)[0]]
            writes = set(outs)
            reads = set(ins)
            parts = [f"gp.kernel \"op{i}\""]
            if ins:
                parts.append(f"ins({', '.join(ref[b][0] for b in ins)} : {', '.join(ref[b][1] for b in ins)})")
            parts.append(f"outs({', '.join(ref[b][0] for b in outs)} : {', '.join(ref[b][1] for b in outs)})")
            args = ", ".join(f"%a{k}: {ref[b][1]}" for k, b in enumerate(ins + outs))
            lines.append("  " + " ".join(parts) + f" {{\n  ^bb0({args}):\n  }}")
        ops.append((f"op{i}", unsafe, reads, writes))
    lines.append("  return\n}")
    return ops, "\n".join(lines)


def dependences(ops):
    n = len(ops)
    preds = [set() for _ in range(n)]
    for j in range(n):
        for i in range(j):
            _, _, ri, wi = ops[i]
            _, _, rj, wj = ops[j]
            if (wi & (rj | wj)) or (ri & wj):
                preds[j].add(i)
    return preds


def runs(kinds):
    count, last = 0, None
    for k in kinds:
        if k != last:
            count += 1
        last = k
    return count


def brute_force_min(ops, preds):
    n = len(ops)
    best = {(0, None): 0}
    for mask in range(1 << n):
        for last in (None, False, True):
            cur = best.get((mask, last))
            if cur is None:
                continue
            for k in range(n):
                if mask >> k & 1 or any(not (mask >> p & 1) for p in preds[k]):
                    continue
                kind = ops[k][1]
                key = (mask | 1 << k, kind)
                value = cur + (kind != last)
                if value < best.get(key, 1 << 30):
                    best[key] = value
    full = (1 << n) - 1
    return min(best.get((full, k), 1 << 30) for k in (False, True))


def main():
    gp_opt = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    programs, texts = [], ["#cuda0 = #gp.device<cuda:0>"]
    for p in range(count):
        ops, text = make_program(rng, f"f{p}")
        programs.append(ops)
        texts.append(text)
    proc = subprocess.run(
        [gp_opt, "-", "--gp-reorder=strategy=min-partitions memory-budget=1e9"],
        input="\n".join(texts), capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"FAIL: gp-opt exited {proc.returncode}\n{proc.stderr}")
    bodies = re.split(r"func\.func @f(\d+)", proc.stdout)[1:]
    orders = {int(bodies[k]): re.findall(r"\"(?:t::)?(op\d+)\"", bodies[k + 1])
              for k in range(0, len(bodies), 2)}
    optimal_hits = 0
    for p, ops in enumerate(programs):
        names = [o[0] for o in ops]
        order = orders.get(p)
        if order is None or sorted(order) != sorted(names):
            sys.exit(f"FAIL: f{p}: ops missing or duplicated in {order}")
        preds = dependences(ops)
        position = {name: k for k, name in enumerate(order)}
        for j, deps in enumerate(preds):
            for i in deps:
                if position[names[i]] > position[names[j]]:
                    sys.exit(f"FAIL: f{p}: {names[j]} moved before {names[i]}, which it depends on")
        got = runs([ops[names.index(name)][1] for name in order])
        best = brute_force_min(ops, preds)
        if got != best:
            sys.exit(f"FAIL: f{p}: {got} partitions, the minimum is {best}")
        optimal_hits += 1
    print(f"{optimal_hits} random programs: every order valid and minimal")


if __name__ == "__main__":
    main()
