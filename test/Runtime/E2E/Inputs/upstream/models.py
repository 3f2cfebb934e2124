"""Small models as torch-mlir's linalg-on-tensors backend emits them.

    python3 models.py DIR    # writes DIR/<model>.mlir for every model

Each model is the shape `torch-backend-to-linalg-on-tensors-backend-pipeline`
gives a PyTorch module: weights as `arith.constant dense_resource<...>`
tensors whose bytes are blobs in the file's trailing `dialect_resources`
section, as torch-mlir's fx importer writes them (in PyTorch's [out, in]
layout, transposed by a `linalg.generic`), `tensor.empty`
+ `linalg.fill` + `linalg.matmul`, bias adds and activations as
`linalg.generic` with broadcasting maps, reductions as `linalg.generic` with
a "reduction" iterator, keepdim shapes through `tensor.expand_shape`, and a
dynamic batch through `tensor.dim`. The weights come from a seeded numpy
generator, so models.cases.py recomputes the references with numpy from the
same values. The checked-in .mlir files are this script's output
(upstream-models.test checks that they still are).
"""
import os
import sys

import numpy as np


def weights(name, shape):
    """The weight `name` of `shape`: the same values on every call."""
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(name))
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 0.2).astype(np.float32)


# The weights of the model being written: resource name -> array, in
# order. torch-mlir's fx importer keeps a module's tensors as dense_resource
# blobs in the file's trailing `dialect_resources` section, named after
# their shape and dtype (a suffix _1, _2, ... for the same shape again).
RESOURCES = {}


def dense_resource(array):
    name = "torch_tensor_%s_torch.float32" % "_".join(map(str, array.shape))
    base, count = name, 0
    while name in RESOURCES:
        count += 1
        name = "%s_%d" % (base, count)
    RESOURCES[name] = array
    return "dense_resource<%s>" % name


def resources_section():
    """The blobs: a little-endian u32 alignment (4), then the bytes."""
    lines = ["", "{-#", "  dialect_resources: {", "    builtin: {"]
    entries = ['      %s: "0x04000000%s"' % (name, array.tobytes().hex().upper())
               for name, array in RESOURCES.items()]
    lines.append(",\n".join(entries))
    lines += ["    }", "  }", "#-}", ""]
    return "\n".join(lines)


def tensor(shape):
    return "tensor<%sxf32>" % "x".join("?" if d is None else str(d)
                                        for d in shape)


def constant(name, shape):
    return "  %%%s = arith.constant %s : %s\n" % (
        name, dense_resource(weights(name, shape)), tensor(shape))


def linear(out, x, w, b, rows, n_in, n_out, rows_value=None):
    """out = x @ w.T + b, as torch-mlir lowers aten.linear."""
    dyn = "(%s)" % rows_value if rows is None else "()"
    return f"""  %{out}_wt_init = tensor.empty() : {tensor((n_in, n_out))}
  %{out}_wt = linalg.generic {{indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%{w} : {tensor((n_out, n_in))}) outs(%{out}_wt_init : {tensor((n_in, n_out))}) {{
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }} -> {tensor((n_in, n_out))}
  %{out}_init = tensor.empty{dyn} : {tensor((rows, n_out))}
  %{out}_zero = linalg.fill ins(%cst_zero : f32) outs(%{out}_init : {tensor((rows, n_out))}) -> {tensor((rows, n_out))}
  %{out}_mm = linalg.matmul ins(%{x}, %{out}_wt : {tensor((rows, n_in))}, {tensor((n_in, n_out))}) outs(%{out}_zero : {tensor((rows, n_out))}) -> {tensor((rows, n_out))}
  %{out} = linalg.generic {{indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%{out}_mm, %{b} : {tensor((rows, n_out))}, {tensor((n_out,))}) outs(%{out}_init : {tensor((rows, n_out))}) {{
  ^bb0(%a: f32, %bias: f32, %o: f32):
    %s = arith.addf %a, %bias : f32
    linalg.yield %s : f32
  }} -> {tensor((rows, n_out))}
"""


MAPS = """#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
"""


def mlp():
    """Linear(32, 64) -> ReLU -> Linear(64, 16) on a dynamic batch."""
    body = constant("w1", (64, 32)) + constant("b1", (64,))
    body += constant("w2", (16, 64)) + constant("b2", (16,))
    body += """  %cst_zero = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %batch = tensor.dim %x, %c0 : tensor<?x32xf32>
"""
    body += linear("h", "x", "w1", "b1", None, 32, 64, "%batch")
    body += """  %relu_init = tensor.empty(%batch) : tensor<?x64xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<?x64xf32>) outs(%relu_init : tensor<?x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %gt = arith.cmpf ugt, %in, %cst_zero : f32
    %r = arith.select %gt, %in, %cst_zero : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
"""
    body += linear("y", "relu", "w2", "b2", None, 64, 16, "%batch")
    return (MAPS + "func.func @mlp(%x: tensor<?x32xf32>) -> tensor<?x16xf32> {\n"
            + body + "  return %y : tensor<?x16xf32>\n}\n")


def layer_norm():
    """LayerNorm(64) over rows of a 4x64 input, eps 1e-5."""
    body = constant("gamma", (64,)) + constant("beta", (64,))
    body += """  %cst_zero = arith.constant 0.000000e+00 : f32
  %cst_n = arith.constant 6.400000e+01 : f32
  %cst_eps = arith.constant 9.99999974E-6 : f32
  %sum_init = tensor.empty() : tensor<4xf32>
  %sum_zero = linalg.fill ins(%cst_zero : f32) outs(%sum_init : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x64xf32>) outs(%sum_zero : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %sum_k = tensor.expand_shape %sum [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %mean_init = tensor.empty() : tensor<4x1xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum_k : tensor<4x1xf32>) outs(%mean_init : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.divf %in, %cst_n : f32
    linalg.yield %m : f32
  } -> tensor<4x1xf32>
  %sq_init = tensor.empty() : tensor<4xf32>
  %sq_zero = linalg.fill ins(%cst_zero : f32) outs(%sq_init : tensor<4xf32>) -> tensor<4xf32>
  %sq = linalg.generic {indexing_maps = [#id, #keep, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<4x64xf32>, tensor<4x1xf32>) outs(%sq_zero : tensor<4xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %sq_k = tensor.expand_shape %sq [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %rstd_init = tensor.empty() : tensor<4x1xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq_k : tensor<4x1xf32>) outs(%rstd_init : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %var = arith.divf %in, %cst_n : f32
    %ve = arith.addf %var, %cst_eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>
  %y_init = tensor.empty() : tensor<4x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #keep, #keep, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %gamma, %beta : tensor<4x64xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<64xf32>, tensor<64xf32>) outs(%y_init : tensor<4x64xf32>) {
  ^bb0(%in: f32, %m: f32, %r: f32, %g: f32, %b: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    %n = arith.mulf %d, %r : f32
    %s = arith.mulf %n, %g : f32
    %t = arith.addf %s, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x64xf32>
"""
    return (MAPS + "func.func @layer_norm(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {\n"
            + body + "  return %y : tensor<4x64xf32>\n}\n")


def attention():
    """One head: softmax((x Wq^T)(x Wk^T)^T / 8) (x Wv^T), x 16x32, head 64."""
    body = constant("wq", (64, 32)) + constant("bq", (64,))
    body += constant("wk", (64, 32)) + constant("bk", (64,))
    body += constant("wv", (32, 32)) + constant("bv", (32,))
    body += """  %cst_zero = arith.constant 0.000000e+00 : f32
  %cst_ninf = arith.constant 0xFF800000 : f32
  %cst_scale = arith.constant 1.250000e-01 : f32
"""
    body += linear("q", "x", "wq", "bq", 16, 32, 64)
    body += linear("k", "x", "wk", "bk", 16, 32, 64)
    body += linear("v", "x", "wv", "bv", 16, 32, 32)
    body += """  %kt_init = tensor.empty() : tensor<64x16xf32>
  %kt = linalg.transpose ins(%k : tensor<16x64xf32>) outs(%kt_init : tensor<64x16xf32>) permutation = [1, 0]
  %s_init = tensor.empty() : tensor<16x16xf32>
  %s_zero = linalg.fill ins(%cst_zero : f32) outs(%s_init : tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<16x64xf32>, tensor<64x16xf32>) outs(%s_zero : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m_init = tensor.empty() : tensor<16xf32>
  %m_fill = linalg.fill ins(%cst_ninf : f32) outs(%m_init : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<16x16xf32>) outs(%m_fill : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %scaled = arith.mulf %in, %cst_scale : f32
    %mx = arith.maximumf %scaled, %acc : f32
    linalg.yield %mx : f32
  } -> tensor<16xf32>
  %e = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %m : tensor<16x16xf32>, tensor<16xf32>) outs(%s_init : tensor<16x16xf32>) {
  ^bb0(%in: f32, %mx: f32, %o: f32):
    %scaled = arith.mulf %in, %cst_scale : f32
    %d = arith.subf %scaled, %mx : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<16x16xf32>
  %z_fill = linalg.fill ins(%cst_zero : f32) outs(%m_init : tensor<16xf32>) -> tensor<16xf32>
  %z = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<16x16xf32>) outs(%z_fill : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sum = arith.addf %in, %acc : f32
    linalg.yield %sum : f32
  } -> tensor<16xf32>
  %p = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %z : tensor<16x16xf32>, tensor<16xf32>) outs(%s_init : tensor<16x16xf32>) {
  ^bb0(%in: f32, %sum: f32, %o: f32):
    %r = arith.divf %in, %sum : f32
    linalg.yield %r : f32
  } -> tensor<16x16xf32>
  %o_init = tensor.empty() : tensor<16x32xf32>
  %o_zero = linalg.fill ins(%cst_zero : f32) outs(%o_init : tensor<16x32xf32>) -> tensor<16x32xf32>
  %out = linalg.matmul ins(%p, %v : tensor<16x16xf32>, tensor<16x32xf32>) outs(%o_zero : tensor<16x32xf32>) -> tensor<16x32xf32>
"""
    return (MAPS + "func.func @attention(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {\n"
            + body + "  return %out : tensor<16x32xf32>\n}\n")


def custom_op():
    """relu(x), then the custom op mylib::op1 (examples/externs), 2a + b."""
    return MAPS + """// mylib::op1(t) -> (a, b) mutates t: a = t, t = t with its halves
// swapped, b = t. Its schema, for gp-import.
func.func private @"mylib::op1"(tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
    attributes {gp.mutates = [0], gp.aliases = [-1, -1]}
func.func @custom_op(%x: tensor<8xf32>) -> tensor<8xf32> {
  %cst_zero = arith.constant 0.000000e+00 : f32
  %cst_two = arith.constant 2.000000e+00 : f32
  %init = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %cst_zero : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %a, %b = func.call @"mylib::op1"(%t) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in_a: f32, %in_b: f32, %o: f32):
    %twice = arith.mulf %in_a, %cst_two : f32
    %s = arith.addf %twice, %in_b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}
"""


MODELS = {"mlp": mlp, "layer_norm": layer_norm, "attention": attention,
          "custom_op": custom_op}

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, build in MODELS.items():
        RESOURCES.clear()
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write("// Generated by models.py; torch-mlir's linalg-on-tensors "
                    "form of %s.\n" % name)
            f.write(build())
            if RESOURCES:
                f.write(resources_section())
