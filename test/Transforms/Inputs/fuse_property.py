#!/usr/bin/env python3
"""Property test for gp-fuse-kernels.

usage: fuse_property.py --opt GP_OPT --compile GP_COMPILE --run GP_RUN
                        --work DIR [--count N] [--seed S]

Writes N random programs as one module: chains of elementwise kernels
(add, mul, sub, max, neg, exp, an index-dependent op) with random fan-in
from earlier values, random shapes (M x N, N x M, M, N with M, N from 1 to
7) read through broadcasting and transposing maps or through a reshape of
a matrix to the other matrix shape, outputs written
transposed, row and column reductions (a fill, then a reduction kernel),
and now and then a full reduction read back with gp.item and used as a
scalar input. Then:

- gp-opt --gp-pipeline with fuse=0 and by default: per function, the fused
  program has exactly the kernels a model of the fusion rule predicts
  (items aside, whose partition cut depends on reordering: fewer or as
  many), and fewer than the unfused one in total;
- gp-compile both ways (host target), gp-run every function on the same
  inputs (.npy files) and compare the results byte for byte.
"""
import argparse
import os
import random
import re
import struct
import subprocess
import sys

DIMS = {"mn": ("M", "N"), "nm": ("N", "M"), "m": ("M",), "n": ("N",), "s": ()}
TRANSPOSE = {"mn": "nm", "nm": "mn"}
BINARY = {"add": "arith.addf", "mul": "arith.mulf", "sub": "arith.subf",
          "max": "arith.maximumf"}


class Program:
    def __init__(self, rng, name):
        self.rng = rng
        self.name = name
        self.size = {"M": rng.choice([1, 2, 3, 5, 7]), "N": rng.choice([1, 2, 4, 6])}
        self.lines = []
        self.values = []  # (ssa name, kind), function inputs first
        self.inputs = []
        self.kernels = []  # model: {"ins": [...], "out": name, "elementwise": bool}
        self.writers = {}
        self.pinned = set()  # read by something other than a kernel
        self.kinds = {}
        self.view_base = {}  # a reshape view: the buffer it shows
        self.has_item = False
        self.count = 0

    def type(self, kind):
        shape = "x".join(str(self.size[d]) for d in DIMS[kind])
        return f"memref<{shape}xf32, #cuda0>" if shape else "memref<f32, #cuda0>"

    def fresh(self):
        self.count += 1
        return f"%v{self.count}"

    def map(self, kind, space):
        """The indexing map of an operand of `kind` in iteration space `space`."""
        loops = DIMS[space]
        dims = ", ".join(f"d{i}" for i in range(len(loops)))
        results = ", ".join(f"d{loops.index(d)}" for d in DIMS[kind])
        return f"affine_map<({dims}) -> ({results})>"

    def pick(self, fits=lambda kind: True):
        """An earlier value, recent ones more likely."""
        choices = [v for v in self.values if fits(v[1])]
        weights = [1 + i for i in range(len(choices))]
        return self.rng.choices(choices, weights)[0]

    def kernel(self, name, ins, out, body, elementwise, space, scalars=()):
        """ins: [(ssa, kind)], scalars: [(ssa, type)]; body: lines over
        %a0.. (buffers), %s0.. (scalars) and %o; space: the loops' sizes."""
        for value in [out] + list(ins):
            if value[0] not in self.view_base:
                self.kinds[value[0]] = value[1]
        operands = [v for v, _ in ins] + [s for s, _ in scalars]
        types = [self.type(k) for _, k in ins] + [t for _, t in scalars]
        args = [f"%a{i}: {self.type(k)}" for i, (_, k) in enumerate(ins)]
        args += [f"%s{i}: {t}" for i, (_, t) in enumerate(scalars)]
        args.append(f"%o: {self.type(out[1])}")
        ins_text = f" ins({', '.join(operands)} : {', '.join(types)})" if operands else ""
        self.lines.append(f"  gp.kernel \"{name}\"{ins_text} outs({out[0]} : {self.type(out[1])}) {{")
        self.lines.append(f"  ^bb0({', '.join(args)}):")
        self.lines += ["    " + line for line in body]
        self.lines.append("  }")
        self.kernels.append({"ins": [self.view_base.get(v, v) for v, _ in ins],
                             "out": out[0],
                             "elementwise": elementwise, "space": set(space)})
        self.writers.setdefault(out[0], []).append(len(self.kernels) - 1)

    def alloc(self, kind):
        value = (self.fresh(), kind)
        self.lines.append(f"  {value[0]} = gp.buffer.alloc() : {self.type(kind)}")
        return value

    def generic(self, ins, maps, out_map, iterators, payload, out_kind, scalars=0):
        ins_text = ", ".join(f"%a{i}" for i in range(len(ins)))
        ins_types = ", ".join(self.type(k) for k in ins)
        block = ", ".join([f"%e{i}: f32" for i in range(len(ins))] + ["%acc: f32"])
        iters = ", ".join(f'"{it}"' for it in iterators)
        return [
            f"linalg.generic {{indexing_maps = [{', '.join(maps + [out_map])}], iterator_types = [{iters}]}}",
            f"    ins({ins_text} : {ins_types}) outs(%o : {self.type(out_kind)}) {{",
            f"^bb0({block}):",
        ] + ["  " + line for line in payload] + ["}"]

    def elementwise(self):
        rng = self.rng
        op = rng.choice(["add", "mul", "sub", "max", "add", "mul", "neg", "exp", "iota"])
        a = self.pick(lambda k: k != "s")
        space = a[1]
        if rng.random() < 0.3:
            space = {"mn": "nm", "nm": "mn", "m": rng.choice(["mn", "nm"]),
                     "n": rng.choice(["mn", "nm"])}[space]
        ins = [a]
        if op in BINARY:
            ins.append(self.pick(lambda k: k != "s" and set(DIMS[k]) <= set(DIMS[space])))
        # Now and then a matrix is read through a reshape to the other
        # matrix shape (M x N as N x M): fusion looks through the view, with
        # division and remainder in its map unless M == N.
        for index, (value, kind) in enumerate(ins):
            if kind in TRANSPOSE and rng.random() < 0.2:
                view = self.fresh()
                self.lines.append(f"  {view} = gp.buffer.reshape {value}() : "
                                  f"{self.type(kind)} to {self.type(TRANSPOSE[kind])}")
                self.view_base[view] = value
                ins[index] = (view, TRANSPOSE[kind])
        out_kind = space
        if space in TRANSPOSE and rng.random() < 0.25:
            out_kind = TRANSPOSE[space]
        out = self.alloc(out_kind)
        identity = all(k == space for _, k in ins) and out_kind == space
        loops = len(DIMS[space])
        if op in BINARY:
            payload = [f"%r = {BINARY[op]} %e0, %e1 : f32"]
        elif op == "neg":
            payload = ["%r = arith.negf %e0 : f32"]
        elif op == "exp":
            payload = ["%two = arith.constant 2.0 : f32",
                       "%c = arith.minimumf %e0, %two : f32",
                       "%r = math.exp %c : f32"]
        else:  # iota: x + 0.5 * (index of the last loop)
            payload = [f"%i = linalg.index {loops - 1} : index",
                       "%ii = arith.index_cast %i : index to i32",
                       "%f = arith.sitofp %ii : i32 to f32",
                       "%half = arith.constant 0.5 : f32",
                       "%h = arith.mulf %f, %half : f32",
                       "%r = arith.addf %e0, %h : f32"]
        style = rng.random()
        if identity and op in BINARY and op != "max" and style < 0.3:
            named = {"add": "linalg.add", "mul": "linalg.mul", "sub": "linalg.sub"}[op]
            body = [f"{named} ins(%a0, %a1 : {self.type(space)}, {self.type(space)}) outs(%o : {self.type(space)})"]
        elif identity and op == "neg" and style < 0.3:
            body = [f"linalg.negf ins(%a0 : {self.type(space)}) outs(%o : {self.type(space)})"]
        elif identity and op != "iota" and style < 0.6:
            block = ", ".join([f"%e{i}: f32" for i in range(len(ins))] + ["%unused: f32"])
            types = ", ".join(self.type(space) for _ in ins)
            names = ", ".join(f"%a{i}" for i in range(len(ins)))
            body = [f"linalg.map ins({names} : {types}) outs(%o : {self.type(space)})",
                    f"  ({block}) {{"] + ["    " + p for p in payload] + \
                   ["    linalg.yield %r : f32", "  }"]
        else:
            body = self.generic([k for _, k in ins], [self.map(k, space) for _, k in ins],
                                self.map(out_kind, space), ["parallel"] * loops,
                                payload + ["linalg.yield %r : f32"], out_kind)
        self.kernel(op, ins, out, body, True, DIMS[space])
        self.values.append(out)

    def reduction(self, full=False):
        rng = self.rng
        a = self.pick(lambda k: len(DIMS[k]) == 2 or (full and k != "s"))
        op = rng.choice(["sum", "max"])
        loops = DIMS[a[1]]
        kept = () if full else (rng.choice(loops),)
        out_kind = {(): "s", ("M",): "m", ("N",): "n"}[kept]
        out = self.alloc(out_kind)
        init = "0.0" if op == "sum" else "0xFF800000"
        self.kernel("fill", [], out,
                    [f"%init = arith.constant {init} : f32",
                     f"linalg.fill ins(%init : f32) outs(%o : {self.type(out_kind)})"], True,
                    DIMS[out_kind])
        combine = "arith.addf" if op == "sum" else "arith.maximumf"
        iterators = ["parallel" if d in kept else "reduction" for d in loops]
        if not full and rng.random() < 0.4:
            reduced = [i for i, d in enumerate(loops) if d not in kept]
            body = [f"linalg.reduce ins(%a0 : {self.type(a[1])}) outs(%o : {self.type(out_kind)}) dimensions = {reduced}",
                    "  (%e0: f32, %acc: f32) {",
                    f"    %r = {combine} %e0, %acc : f32",
                    "    linalg.yield %r : f32",
                    "  }"]
        else:
            body = self.generic([a[1]], [self.map(a[1], a[1])], self.map(out_kind, a[1]),
                                iterators, [f"%r = {combine} %e0, %acc : f32",
                                            "linalg.yield %r : f32"], out_kind)
        self.kernel(op, [a], out, body, False, loops)
        return out

    def item_scale(self):
        total = self.reduction(full=True)
        self.pinned.add(total[0])
        scalar = self.fresh()
        self.lines.append(f"  {scalar} = gp.item {total[0]} : memref<f32, #cuda0> -> f32")
        a = self.pick(lambda k: k != "s")
        out = self.alloc(a[1])
        body = self.generic([a[1]], [self.map(a[1], a[1])], self.map(a[1], a[1]),
                            ["parallel"] * len(DIMS[a[1]]),
                            ["%r = arith.mulf %e0, %s0 : f32", "linalg.yield %r : f32"], a[1])
        self.kernel("scale", [a], out, body, True, DIMS[a[1]], scalars=[(scalar, "f32")])
        self.values.append(out)
        self.has_item = True

    def build(self):
        rng = self.rng
        kinds = ["mn"] + [k for k in ("nm", "m", "n") if rng.random() < 0.5]
        for i, kind in enumerate(kinds):
            self.inputs.append((f"%x{i}", kind))
            self.kinds[f"%x{i}"] = kind
        self.values = list(self.inputs)
        item_at = rng.randrange(12) if rng.random() < 0.15 else -1
        for step in range(rng.randint(3, 14)):
            if step == item_at:
                self.item_scale()
            elif rng.random() < 0.15:
                self.values.append(self.reduction())
            else:
                self.elementwise()
        results = [self.values[-1]]
        computed = [v for v in self.values[len(self.inputs):-1] if v[1] != "s"]
        if computed and rng.random() < 0.4:
            results.append(rng.choice(computed))
        self.pinned.update(v for v, _ in results)
        args = ", ".join(f"{v}: {self.type(k)}" for v, k in self.inputs)
        rtypes = ", ".join(self.type(k) for _, k in results)
        text = [f"func.func @{self.name}({args}) -> ({rtypes}) {{"] + self.lines
        text.append(f"  return {', '.join(v for v, _ in results)} : {rtypes}")
        text.append("}")
        return "\n".join(text)

    def predicted_kernels(self):
        """Kernels left after fusing to a fixed point under the pass's rule:
        a buffer with one writer, elementwise, not pinned, read by one
        kernel (as an input) is computed in its reader, unless the buffer
        was the only operand of a reduction to span one of its loops."""
        kernels = {i: dict(k, ins=set(k["ins"])) for i, k in enumerate(self.kernels)}
        changed = True
        while changed:
            changed = False
            for p in sorted(kernels):
                producer = kernels[p]
                out = producer["out"]
                if (not producer["elementwise"] or out in self.pinned
                        or len(self.writers[out]) != 1):
                    continue
                readers = [c for c, k in kernels.items() if out in k["ins"]]
                if len(readers) != 1:
                    continue
                consumer = kernels[readers[0]]
                ins = (consumer["ins"] - {out}) | producer["ins"]
                spanned = set(DIMS[self.kinds[consumer["out"]]])
                for value in ins:
                    spanned |= set(DIMS[self.kinds[value]])
                if not consumer["space"] <= spanned:
                    continue
                consumer["ins"] = ins
                del kernels[p]
                changed = True
                break
        return len(kernels)


def write_npy(path, shape, values):
    shape_repr = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape_repr
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


def kernels_per_function(text):
    counts, current = {}, None
    for line in text.splitlines():
        match = re.search(r"func\.func @(\w+)", line)
        if match:
            current = match.group(1)
            counts[current] = 0
        elif "gp.kernel \"" in line:
            counts[current] += 1
    return counts


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {result.returncode}\n"
                 f"{result.stdout[-2000:]}{result.stderr[-4000:]}")
    return result.stdout


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--opt", "--compile", "--run", "--work"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.work, exist_ok=True)

    programs = [Program(rng, f"chain{i}") for i in range(args.count)]
    module = os.path.join(args.work, "chains.mlir")
    with open(module, "w") as f:
        f.write("#cuda0 = #gp.device<cuda:0>\n")
        f.write("\n".join(p.build() for p in programs) + "\n")

    unfused = kernels_per_function(run([args.opt, module, "--gp-pipeline=fuse=0"]))
    # The model is the elementwise rule with one reader per producer; row
    # merges, producers computed again in several readers and siblings
    # sharing a kernel are checked by the results below, which are compiled
    # with them.
    fused = kernels_per_function(run(
        [args.opt, module, "--gp-pipeline=fuse-rows=0 fuse-duplicate=0 fuse-siblings=0"]))
    duplicated = kernels_per_function(
        run([args.opt, module, "--gp-pipeline=fuse-rows=0 fuse-siblings=0"]))
    if sum(duplicated.values()) > sum(fused.values()):
        sys.exit("FAIL: computing producers again in several readers added kernels")
    siblings = kernels_per_function(run([args.opt, module, "--gp-pipeline=fuse-rows=0"]))
    if sum(siblings.values()) > sum(duplicated.values()):
        sys.exit("FAIL: merging sibling kernels added kernels")
    for p in programs:
        expected = p.predicted_kernels()
        if unfused[p.name] != len(p.kernels):
            sys.exit(f"FAIL: @{p.name}: {unfused[p.name]} kernels without fusion, "
                     f"generated {len(p.kernels)}")
        if fused[p.name] != expected and not (p.has_item and expected <= fused[p.name] <= unfused[p.name]):
            sys.exit(f"FAIL: @{p.name}: {fused[p.name]} kernels after fusion, "
                     f"the rule predicts {expected} (see {module})")
    total_unfused, total_fused = sum(unfused.values()), sum(fused.values())
    if total_fused >= total_unfused:
        sys.exit(f"FAIL: fusion left {total_fused} of {total_unfused} kernels")

    artifacts = {}
    for label, options in (("unfused", "fuse=0"), ("fused", "")):
        artifacts[label] = os.path.join(args.work, f"chains.{label}.so")
        run([args.compile, module, "-o", artifacts[label], "-p", options])
    data = random.Random(args.seed + 1)
    compared = 0
    for p in programs:
        inputs = []
        for i, (_, kind) in enumerate(p.inputs):
            shape = [p.size[d] for d in DIMS[kind]]
            count = 1
            for d in shape:
                count *= d
            path = os.path.join(args.work, f"{p.name}.in{i}.npy")
            write_npy(path, shape, [data.uniform(-1, 1) for _ in range(count)])
            inputs += ["--input", "@" + path]
        outputs = {}
        for label, artifact in artifacts.items():
            prefix = os.path.join(args.work, f"{p.name}.{label}")
            run([args.run, artifact, "--entry", p.name, "--iterations", "1",
                 "--warmup", "0", "--output", prefix + ".npy"] + inputs)
            files = sorted(f for f in os.listdir(args.work)
                           if f.startswith(os.path.basename(prefix) + "."))
            outputs[label] = [open(os.path.join(args.work, f), "rb").read() for f in files]
        if outputs["fused"] != outputs["unfused"] or not outputs["fused"]:
            sys.exit(f"FAIL: @{p.name}: fused results differ from unfused ones (see {args.work})")
        compared += len(outputs["fused"])
    print(f"{args.count} random chains: {total_unfused} kernels, {total_fused} after fusion, "
          f"{sum(duplicated.values())} with producers computed in several readers, "
          f"{sum(siblings.values())} with siblings merged; "
          f"{compared} results identical with and without fusion")


if __name__ == "__main__":
    main()
