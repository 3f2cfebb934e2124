"""An MLP over a dynamic batch as linalg on tensors (gp-compile --bufferize):
LAYERS matmuls of WIDTH x WIDTH, each with a bias and ReLU, then a row
softmax. Every op works on each row on its own, so the batch is paddable
(gp-size-classes). The size-rotation probe's program (bench/size_rotation.sh).

usage: gen_batch_mlp.py LAYERS WIDTH > program.mlir
Arguments: x: ?xWIDTH, then per layer w: WIDTHxWIDTH and b: WIDTH (f32).
"""
import sys

layers, width = int(sys.argv[1]), int(sys.argv[2])
row = "tensor<?x%dxf32>" % width
args = ["%%x: %s" % row]
for i in range(layers):
    args += ["%%w%d: tensor<%dx%dxf32>" % (i, width, width),
             "%%b%d: tensor<%dxf32>" % (i, width)]
out = ["#id2 = affine_map<(d0, d1) -> (d0, d1)>",
       "#col = affine_map<(d0, d1) -> (d1)>",
       "#row = affine_map<(d0, d1) -> (d0)>",
       "func.func @batch_mlp(%s) -> %s {" % (", ".join(args), row),
       "  %c0 = arith.constant 0 : index",
       "  %n = tensor.dim %x, %c0 : " + row,
       "  %zero = arith.constant 0.0 : f32",
       "  %ninf = arith.constant 0xFF800000 : f32"]
h = "%x"
for i in range(layers):
    out += [
        "  %%e%d = tensor.empty(%%n) : %s" % (i, row),
        "  %%f%d = linalg.fill ins(%%zero : f32) outs(%%e%d : %s) -> %s" % (i, i, row, row),
        "  %%m%d = linalg.matmul ins(%s, %%w%d : %s, tensor<%dx%dxf32>) outs(%%f%d : %s) -> %s"
        % (i, h, i, row, width, width, i, row, row),
        "  %%a%d = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = "
        "[\"parallel\", \"parallel\"]} ins(%%m%d, %%b%d : %s, tensor<%dxf32>) outs(%%e%d : %s) {"
        % (i, i, i, row, width, i, row),
        "  ^bb0(%p: f32, %q: f32, %o: f32):",
        "    %s = arith.addf %p, %q : f32",
        "    %r = arith.maximumf %s, %zero : f32",
        "    linalg.yield %r : f32",
        "  } -> " + row]
    h = "%%a%d" % i
vec = "tensor<?xf32>"
out += [
    "  %ev = tensor.empty(%n) : " + vec,
    "  %fm = linalg.fill ins(%ninf : f32) outs(%ev : {0}) -> {0}".format(vec),
    "  %%max = linalg.generic {indexing_maps = [#id2, #row], iterator_types = [\"parallel\", "
    "\"reduction\"]} ins(%s : %s) outs(%%fm : %s) {" % (h, row, vec),
    "  ^bb0(%p: f32, %o: f32):",
    "    %r = arith.maximumf %p, %o : f32",
    "    linalg.yield %r : f32",
    "  } -> " + vec,
    "  %ee = tensor.empty(%n) : " + row,
    "  %%ex = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = [\"parallel\", "
    "\"parallel\"]} ins(%s, %%max : %s, %s) outs(%%ee : %s) {" % (h, row, vec, row),
    "  ^bb0(%p: f32, %q: f32, %o: f32):",
    "    %d = arith.subf %p, %q : f32",
    "    %r = math.exp %d : f32",
    "    linalg.yield %r : f32",
    "  } -> " + row,
    "  %fs = linalg.fill ins(%zero : f32) outs(%ev : {0}) -> {0}".format(vec),
    "  %%sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = [\"parallel\", "
    "\"reduction\"]} ins(%%ex : %s) outs(%%fs : %s) {" % (row, vec),
    "  ^bb0(%p: f32, %o: f32):",
    "    %r = arith.addf %p, %o : f32",
    "    linalg.yield %r : f32",
    "  } -> " + vec,
    "  %ey = tensor.empty(%n) : " + row,
    "  %%y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = [\"parallel\", "
    "\"parallel\"]} ins(%%ex, %%sum : %s, %s) outs(%%ey : %s) {" % (row, vec, row),
    "  ^bb0(%p: f32, %q: f32, %o: f32):",
    "    %r = arith.divf %p, %q : f32",
    "    linalg.yield %r : f32",
    "  } -> " + row,
    "  return %y : " + row,
    "}"]
print("\n".join(out))
