"""An MLP in gp: LAYERS x (matmul through the extern registry, bias, relu).

    python3 bench/gen_mlp.py LAYERS BATCH WIDTH > mlp.mlir

Each layer is h = relu(h @ W + b) with `aten::mm` (cuBLAS on cuda) for the
matmul and one kernel for bias and relu; W and b are shared by the layers.
Its memory plan needs two activation slots in all: each layer's matmul
output dies at the next kernel. The bench and tests compare that with what
the runtime holds (gp-run's "pool bytes").
"""
import sys

layers, batch, width = (int(a) for a in sys.argv[1:4])
act = "memref<%dx%dxf32, #cuda0>" % (batch, width)
print("#cuda0 = #gp.device<cuda:0>")
print("#rows = affine_map<(d0, d1) -> (d0, d1)>")
print("#bias = affine_map<(d0, d1) -> (d1)>")
print("func.func @mlp(%%x: %s, %%w: memref<%dx%dxf32, #cuda0>, %%b: memref<%dxf32, #cuda0>) -> %s {"
      % (act, width, width, width, act))
h = "%x"
for i in range(layers):
    print("  %%mm%d = gp.fallback \"aten::mm\"(%s, %%w) : (%s, memref<%dx%dxf32, #cuda0>) -> %s"
          % (i, h, act, width, width, act))
    print("  %%h%d = gp.buffer.alloc() : %s" % (i, act))
    print("  gp.kernel \"bias_relu\" ins(%%mm%d, %%b : %s, memref<%dxf32, #cuda0>) outs(%%h%d : %s) {"
          % (i, act, width, i, act))
    print("  ^bb0(%%in: %s, %%bias: memref<%dxf32, #cuda0>, %%out: %s):" % (act, width, act))
    print("    linalg.generic {indexing_maps = [#rows, #bias, #rows], iterator_types = [\"parallel\", \"parallel\"]}")
    print("        ins(%%in, %%bias : %s, memref<%dxf32, #cuda0>) outs(%%out : %s) {" % (act, width, act))
    print("    ^bb0(%a: f32, %c: f32, %unused: f32):")
    print("      %zero = arith.constant 0.0 : f32")
    print("      %s = arith.addf %a, %c : f32")
    print("      %r = arith.maximumf %s, %zero : f32")
    print("      linalg.yield %r : f32")
    print("    }")
    print("  }")
    h = "%%h%d" % i
print("  return %s : %s" % (h, act))
print("}")
