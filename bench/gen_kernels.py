#!/usr/bin/env python3
"""Writes the gp programs of the kernel benchmark (bench/kernels.sh).

usage: gen_kernels.py OUT_DIR [REPS]

One program per benchmark case, each applying its op REPS times (default
20) in one partition, the way an importer writes ops (one gp.kernel per
op, a fill before each reduction), so that a step's latency divided by
REPS is the op's time with launch overheads amortised. Softmax and layer
norm repetitions each read the input (chained, gp-fuse-kernels would
merge all of them into one row kernel). Prints, per case,
`name|artifact stem|gp-run inputs|torch expression`, which kernels.sh and
kernels_torch.py read.
"""
import os
import sys

CUDA = "#gp.device<cuda:0>"


def mt(shape, dtype="f32"):
    dims = "x".join(str(d) for d in shape)
    return f"memref<{dims}x{dtype}, #cuda0>" if shape else f"memref<{dtype}, #cuda0>"


class Program:
    def __init__(self):
        self.lines = []
        self.count = 0

    def fresh(self, prefix="t"):
        self.count += 1
        return f"%{prefix}{self.count}"

    def alloc(self, shape, dtype="f32"):
        name = self.fresh("b")
        self.lines.append(f"  {name} = gp.buffer.alloc() : {mt(shape, dtype)}")
        return name

    def kernel(self, name, ins, outs, body):
        """ins/outs: [(value, type)]; body: lines using %i0.., %o0.."""
        args = [f"%i{k}: {t}" for k, (_, t) in enumerate(ins)]
        args += [f"%o{k}: {t}" for k, (_, t) in enumerate(outs)]
        head = f'  gp.kernel "{name}"'
        if ins:
            head += (" ins(" + ", ".join(v for v, _ in ins) + " : " +
                     ", ".join(t for _, t in ins) + ")")
        head += (" outs(" + ", ".join(v for v, _ in outs) + " : " +
                 ", ".join(t for _, t in outs) + ") {")
        self.lines.append(head)
        self.lines.append("  ^bb0(" + ", ".join(args) + "):")
        self.lines += ["    " + line for line in body]
        self.lines.append("  }")

    def fill(self, buffer, shape, value, dtype="f32"):
        self.kernel("fill", [], [(buffer, mt(shape, dtype))],
                    [f"%v = arith.constant {value} : {dtype}",
                     f"linalg.fill ins(%v : {dtype}) outs(%o0 : {mt(shape, dtype)})"])


def generic(maps, iterators, ins, outs, payload):
    """A linalg.generic line block over %i*/%o* with payload lines."""
    lines = ["linalg.generic {indexing_maps = [" + ", ".join(maps) +
             "], iterator_types = [" + ", ".join(f'"{i}"' for i in iterators) + "]}"]
    lines.append("    ins(" + ", ".join(v for v, _, _ in ins) + " : " +
                 ", ".join(t for _, t, _ in ins) + ") outs(" +
                 ", ".join(v for v, _, _ in outs) + " : " +
                 ", ".join(t for _, t, _ in outs) + ") {")
    lines.append("^bb0(" + ", ".join(f"%a{k}: {e}" for k, (_, _, e) in
                                      enumerate(ins + outs)) + "):")
    lines += ["  " + line for line in payload]
    lines.append("}")
    return lines


def filled(value, out_type, lines):
    """A reduction's lines after the fill of its output (one op, as an
    importer's amax or sum)."""
    return [f"%init = arith.constant {value} : f32",
            f"linalg.fill ins(%init : f32) outs(%o0 : {out_type})"] + lines


def softmax(p, x, rows, cols):
    t2, t1 = mt([rows, cols]), mt([rows])
    m, s, y = p.alloc([rows]), p.alloc([rows]), p.alloc([rows, cols])
    id2, row = "affine_map<(d0, d1) -> (d0, d1)>", "affine_map<(d0, d1) -> (d0)>"
    p.kernel("row_max", [(x, t2)], [(m, t1)], filled("0xFF800000", t1, generic(
        [id2, row], ["parallel", "reduction"], [("%i0", t2, "f32")], [("%o0", t1, "f32")],
        ["%r = arith.maximumf %a0, %a1 : f32", "linalg.yield %r : f32"])))
    p.kernel("row_sum_exp", [(x, t2), (m, t1)], [(s, t1)], filled("0.0", t1, generic(
        [id2, row, row], ["parallel", "reduction"],
        [("%i0", t2, "f32"), ("%i1", t1, "f32")], [("%o0", t1, "f32")],
        ["%d = arith.subf %a0, %a1 : f32", "%e = math.exp %d : f32",
         "%r = arith.addf %e, %a2 : f32", "linalg.yield %r : f32"])))
    p.kernel("normalize", [(x, t2), (m, t1), (s, t1)], [(y, t2)], generic(
        [id2, row, row, id2], ["parallel", "parallel"],
        [("%i0", t2, "f32"), ("%i1", t1, "f32"), ("%i2", t1, "f32")], [("%o0", t2, "f32")],
        ["%d = arith.subf %a0, %a1 : f32", "%e = math.exp %d : f32",
         "%r = arith.divf %e, %a2 : f32", "linalg.yield %r : f32"]))
    return y


def layer_norm(p, x, rows, cols):
    t2, t1 = mt([rows, cols]), mt([rows])
    mean, var, y = p.alloc([rows]), p.alloc([rows]), p.alloc([rows, cols])
    id2, row = "affine_map<(d0, d1) -> (d0, d1)>", "affine_map<(d0, d1) -> (d0)>"
    inv = f"{1.0 / cols:.9e}"
    p.kernel("mean", [(x, t2)], [(mean, t1)], filled("0.0", t1, generic(
        [id2, row], ["parallel", "reduction"], [("%i0", t2, "f32")], [("%o0", t1, "f32")],
        [f"%c = arith.constant {inv} : f32", "%s = arith.mulf %a0, %c : f32",
         "%r = arith.addf %s, %a1 : f32", "linalg.yield %r : f32"])))
    p.kernel("variance", [(x, t2), (mean, t1)], [(var, t1)], filled("0.0", t1, generic(
        [id2, row, row], ["parallel", "reduction"],
        [("%i0", t2, "f32"), ("%i1", t1, "f32")], [("%o0", t1, "f32")],
        [f"%c = arith.constant {inv} : f32", "%d = arith.subf %a0, %a1 : f32",
         "%d2 = arith.mulf %d, %d : f32", "%s = arith.mulf %d2, %c : f32",
         "%r = arith.addf %s, %a2 : f32", "linalg.yield %r : f32"])))
    p.kernel("normalize", [(x, t2), (mean, t1), (var, t1)], [(y, t2)], generic(
        [id2, row, row, id2], ["parallel", "parallel"],
        [("%i0", t2, "f32"), ("%i1", t1, "f32"), ("%i2", t1, "f32")], [("%o0", t2, "f32")],
        ["%eps = arith.constant 1.0e-5 : f32", "%d = arith.subf %a0, %a1 : f32",
         "%v = arith.addf %a2, %eps : f32", "%r0 = math.rsqrt %v : f32",
         "%r = arith.mulf %d, %r0 : f32", "linalg.yield %r : f32"]))
    return y


def reduce_all(kind):
    def build(p, x, *shape):
        t = mt(list(shape))
        s = p.alloc([])
        combine, init = {"sum": ("arith.addf", "0.0"),
                         "max": ("arith.maximumf", "0xFF800000")}[kind]
        p.kernel(f"{kind}_all", [(x, t)], [(s, mt([]))], filled(init, mt([]), [
            f"linalg.reduce ins(%i0 : {t}) outs(%o0 : {mt([])}) dimensions = "
            f"[{', '.join(str(d) for d in range(len(shape)))}]",
            "(%a: f32, %b: f32) {",
            f"  %r = {combine} %a, %b : f32", "  linalg.yield %r : f32", "}"]))
        return s
    return build


def chain3(p, x, n):
    """y = max((x + 1) * 2, 0): three kernels (one after fusion)."""
    t = mt([n])
    idm = "affine_map<(d0) -> (d0)>"
    value = x
    for op, const in (("arith.addf", "1.0"), ("arith.mulf", "2.0"),
                      ("arith.maximumf", "0.0")):
        out = p.alloc([n])
        p.kernel("step", [(value, t)], [(out, t)], generic(
            [idm, idm], ["parallel"], [("%i0", t, "f32")], [("%o0", t, "f32")],
            [f"%c = arith.constant {const} : f32", f"%r = {op} %a0, %c : f32",
             "linalg.yield %r : f32"]))
        value = out
    return value


def matmul(m, k, n, dtype, transpose_b):
    def build(p, a, b):
        ta, tb, tc = mt([m, k], dtype), mt([n, k] if transpose_b else [k, n], dtype), mt([m, n], dtype)
        c = p.alloc([m, n], dtype)
        op = "linalg.matmul"
        maps = ""
        if transpose_b:
            maps = (" indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, "
                    "affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]")
        p.kernel("matmul", [(a, ta), (b, tb)], [(c, tc)], [
            f"%z = arith.constant 0.0 : {dtype}",
            f"linalg.fill ins(%z : {dtype}) outs(%o0 : {tc})",
            f"{op}{maps} ins(%i0, %i1 : {ta}, {tb}) outs(%o0 : {tc})"])
        return c
    return build


def write_program(path, name, arg_shapes, body, reps, chained, dtype="f32"):
    p = Program()
    args = [f"%x{k}" for k in range(len(arg_shapes))]
    results = []
    inputs = list(args)
    for _ in range(reps):
        out = body(p, *inputs) if len(arg_shapes) > 1 else body(p, inputs[0], *arg_shapes[0])
        results.append(out)
        if chained:
            inputs[0] = out
    if chained:
        results = results[-1:]
    result_types = []
    for r in results:
        for line in p.lines:
            if line.strip().startswith(r + " = gp.buffer.alloc"):
                result_types.append(line.split(" : ", 1)[1])
    with open(path, "w") as f:
        f.write(f"#cuda0 = {CUDA}\n")
        f.write(f"func.func @{name}(" + ", ".join(
            f"{a}: {mt(s, dtype)}" for a, s in zip(args, arg_shapes)) + ") -> (" +
            ", ".join(result_types) + ") {\n")
        f.write("\n".join(p.lines) + "\n")
        f.write("  return " + ", ".join(results) + " : " + ", ".join(result_types) + "\n}\n")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) == 3 else 20
    os.makedirs(out_dir, exist_ok=True)
    cases = [
        ("softmax 128x128", "k_softmax_128", [[128, 128]], softmax, False,
         "torch.softmax(x0, dim=1)"),
        ("softmax 4096x1024", "k_softmax_4096", [[4096, 1024]], softmax, False,
         "torch.softmax(x0, dim=1)"),
        ("layer_norm 8x256", "k_layernorm_8", [[8, 256]], layer_norm, False,
         "torch.nn.functional.layer_norm(x0, x0.shape[1:])"),
        ("layer_norm 4096x4096", "k_layernorm_4096", [[4096, 4096]], layer_norm, False,
         "torch.nn.functional.layer_norm(x0, x0.shape[1:])"),
        ("sum 128x128", "k_sum_128", [[128, 128]], reduce_all("sum"), False, "x0.sum()"),
        ("sum 16M", "k_sum_16m", [[1 << 24]], reduce_all("sum"), False, "x0.sum()"),
        ("max 128x128", "k_max_128", [[128, 128]], reduce_all("max"), False, "x0.max()"),
        ("max 16M", "k_max_16m", [[1 << 24]], reduce_all("max"), False, "x0.max()"),
        ("3-op chain 16M", "k_chain_16m", [[1 << 24]], chain3, True,
         "torch.relu((x0 + 1) * 2)|x0 + 1"),
        ("matmul 8x256x256 f32", "k_mm_8", [[8, 256], [256, 256]],
         matmul(8, 256, 256, "f32", False), False, "x0 @ x1"),
        ("matmul 8x256x256 f32 B^T", "k_mmt_8", [[8, 256], [256, 256]],
         matmul(8, 256, 256, "f32", True), False, "x0 @ x1.t()"),
        ("matmul 4096^3 f32", "k_mm_4096", [[4096, 4096], [4096, 4096]],
         matmul(4096, 4096, 4096, "f32", False), False, "x0 @ x1"),
        ("matmul 4096^3 f32 B^T", "k_mmt_4096", [[4096, 4096], [4096, 4096]],
         matmul(4096, 4096, 4096, "f32", True), False, "x0 @ x1.t()"),
        ("matmul 8x256x256 bf16", "k_mm_8_bf16", [[8, 256], [256, 256]],
         matmul(8, 256, 256, "bf16", False), False, "x0 @ x1", "bf16"),
        ("matmul 8x256x256 bf16 B^T", "k_mmt_8_bf16", [[8, 256], [256, 256]],
         matmul(8, 256, 256, "bf16", True), False, "x0 @ x1.t()", "bf16"),
        ("matmul 4096^3 bf16", "k_mm_4096_bf16", [[4096, 4096], [4096, 4096]],
         matmul(4096, 4096, 4096, "bf16", False), False, "x0 @ x1", "bf16"),
        ("matmul 4096^3 bf16 B^T", "k_mmt_4096_bf16", [[4096, 4096], [4096, 4096]],
         matmul(4096, 4096, 4096, "bf16", True), False, "x0 @ x1.t()", "bf16"),
    ]
    for label, stem, shapes, body, chained, torch_expr, *dtype in cases:
        dtype = dtype[0] if dtype else "f32"
        path = os.path.join(out_dir, stem + ".mlir")
        n = reps if "4096^3" not in label else max(2, reps // 4)
        write_program(path, stem, shapes, body, n, chained, dtype)
        inputs = " ".join("--input " + "x".join(str(d) for d in s) + f"x{dtype}=random"
                          for s in shapes)
        shapes_text = ";".join("x".join(str(d) for d in s) for s in shapes)
        print(f"{label}|{stem}|{inputs}|{n}|{shapes_text}|{torch_expr}")


if __name__ == "__main__":
    main()
