// A small attention block, one kernel per op as an importer writes them:
//
//   q = x @ wq; k = x @ wk          # two 128x64 projections (cuBLAS)
//   s = q @ k.T                     # B transposed: a transposed view
//   p = softmax(s, dim=1)           # block reductions per row
//   m = p.max().item()              # a host scalar (cuts the program)
//   y = (p @ x) * m                 # the scalar reaches the replay by slot
//
// bench/attention.sh runs it against PyTorch on the same shapes.
#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhsT = affine_map<(d0, d1, d2) -> (d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @attention_block(%x: memref<128x64xf32, #cuda0>, %wq: memref<64x64xf32, #cuda0>,
                           %wk: memref<64x64xf32, #cuda0>) -> memref<128x64xf32, #cuda0> {
  %q = gp.buffer.alloc() : memref<128x64xf32, #cuda0>
  %k = gp.buffer.alloc() : memref<128x64xf32, #cuda0>
  %s = gp.buffer.alloc() : memref<128x128xf32, #cuda0>
  %rmax = gp.buffer.alloc() : memref<128xf32, #cuda0>
  %rsum = gp.buffer.alloc() : memref<128xf32, #cuda0>
  %p = gp.buffer.alloc() : memref<128x128xf32, #cuda0>
  %pmax = gp.buffer.alloc() : memref<f32, #cuda0>
  %o = gp.buffer.alloc() : memref<128x64xf32, #cuda0>
  %y = gp.buffer.alloc() : memref<128x64xf32, #cuda0>
  gp.kernel "q_proj" ins(%x, %wq : memref<128x64xf32, #cuda0>, memref<64x64xf32, #cuda0>) outs(%q : memref<128x64xf32, #cuda0>) {
  ^bb0(%a: memref<128x64xf32, #cuda0>, %b: memref<64x64xf32, #cuda0>, %c: memref<128x64xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<128x64xf32, #cuda0>)
    linalg.matmul ins(%a, %b : memref<128x64xf32, #cuda0>, memref<64x64xf32, #cuda0>) outs(%c : memref<128x64xf32, #cuda0>)
  }
  gp.kernel "k_proj" ins(%x, %wk : memref<128x64xf32, #cuda0>, memref<64x64xf32, #cuda0>) outs(%k : memref<128x64xf32, #cuda0>) {
  ^bb0(%a: memref<128x64xf32, #cuda0>, %b: memref<64x64xf32, #cuda0>, %c: memref<128x64xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<128x64xf32, #cuda0>)
    linalg.matmul ins(%a, %b : memref<128x64xf32, #cuda0>, memref<64x64xf32, #cuda0>) outs(%c : memref<128x64xf32, #cuda0>)
  }
  gp.kernel "scores" ins(%q, %k : memref<128x64xf32, #cuda0>, memref<128x64xf32, #cuda0>) outs(%s : memref<128x128xf32, #cuda0>) {
  ^bb0(%a: memref<128x64xf32, #cuda0>, %b: memref<128x64xf32, #cuda0>, %c: memref<128x128xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32, #cuda0>)
    linalg.generic {indexing_maps = [#lhs, #rhsT, #out], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a, %b : memref<128x64xf32, #cuda0>, memref<128x64xf32, #cuda0>) outs(%c : memref<128x128xf32, #cuda0>) {
    ^bb0(%l: f32, %r: f32, %acc: f32):
      %m = arith.mulf %l, %r : f32
      %sum = arith.addf %acc, %m : f32
      linalg.yield %sum : f32
    }
  }
  gp.kernel "row_max" ins(%s : memref<128x128xf32, #cuda0>) outs(%rmax : memref<128xf32, #cuda0>) {
  ^bb0(%in: memref<128x128xf32, #cuda0>, %m: memref<128xf32, #cuda0>):
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%m : memref<128xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<128x128xf32, #cuda0>) outs(%m : memref<128xf32, #cuda0>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.maximumf %v, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "row_sum_exp" ins(%s, %rmax : memref<128x128xf32, #cuda0>, memref<128xf32, #cuda0>) outs(%rsum : memref<128xf32, #cuda0>) {
  ^bb0(%in: memref<128x128xf32, #cuda0>, %m: memref<128xf32, #cuda0>, %sum: memref<128xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%sum : memref<128xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]}
        ins(%in, %m : memref<128x128xf32, #cuda0>, memref<128xf32, #cuda0>) outs(%sum : memref<128xf32, #cuda0>) {
    ^bb0(%v: f32, %mv: f32, %acc: f32):
      %d = arith.subf %v, %mv : f32
      %e = math.exp %d : f32
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "normalize" ins(%s, %rmax, %rsum : memref<128x128xf32, #cuda0>, memref<128xf32, #cuda0>, memref<128xf32, #cuda0>) outs(%p : memref<128x128xf32, #cuda0>) {
  ^bb0(%in: memref<128x128xf32, #cuda0>, %m: memref<128xf32, #cuda0>, %sum: memref<128xf32, #cuda0>, %out: memref<128x128xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #row, #row, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in, %m, %sum : memref<128x128xf32, #cuda0>, memref<128xf32, #cuda0>, memref<128xf32, #cuda0>) outs(%out : memref<128x128xf32, #cuda0>) {
    ^bb0(%v: f32, %mv: f32, %sv: f32, %unused: f32):
      %d = arith.subf %v, %mv : f32
      %e = math.exp %d : f32
      %r = arith.divf %e, %sv : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "max_all" ins(%p : memref<128x128xf32, #cuda0>) outs(%pmax : memref<f32, #cuda0>) {
  ^bb0(%in: memref<128x128xf32, #cuda0>, %m: memref<f32, #cuda0>):
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%m : memref<f32, #cuda0>)
    linalg.reduce ins(%in : memref<128x128xf32, #cuda0>) outs(%m : memref<f32, #cuda0>) dimensions = [0, 1]
    (%v: f32, %acc: f32) {
      %r = arith.maximumf %v, %acc : f32
      linalg.yield %r : f32
    }
  }
  %scale = gp.item %pmax : memref<f32, #cuda0> -> f32
  gp.kernel "attend" ins(%p, %x : memref<128x128xf32, #cuda0>, memref<128x64xf32, #cuda0>) outs(%o : memref<128x64xf32, #cuda0>) {
  ^bb0(%a: memref<128x128xf32, #cuda0>, %b: memref<128x64xf32, #cuda0>, %c: memref<128x64xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<128x64xf32, #cuda0>)
    linalg.matmul ins(%a, %b : memref<128x128xf32, #cuda0>, memref<128x64xf32, #cuda0>) outs(%c : memref<128x64xf32, #cuda0>)
  }
  gp.kernel "scale" ins(%o, %scale : memref<128x64xf32, #cuda0>, f32) outs(%y : memref<128x64xf32, #cuda0>) {
  ^bb0(%in: memref<128x64xf32, #cuda0>, %sc: f32, %out: memref<128x64xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<128x64xf32, #cuda0>) outs(%out : memref<128x64xf32, #cuda0>) {
    ^bb0(%v: f32, %unused: f32):
      %r = arith.mulf %v, %sc : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<128x64xf32, #cuda0>
}
