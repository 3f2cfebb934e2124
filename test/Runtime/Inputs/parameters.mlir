// Two entry points whose weights are named parameters (`gp.parameter`),
// for gp-run-parameters.test: @affine(x) = x * layer.weight + layer.bias,
// @scale(x) = x * layer.weight, sharing layer.weight.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

func.func @affine(%x: memref<4xf32, #cuda0>,
                  %w: memref<4xf32, #cuda0> {gp.parameter = "layer.weight"},
                  %b: memref<4xf32, #cuda0> {gp.parameter = "layer.bias"})
    -> memref<4xf32, #cuda0> {
  %y = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "affine" ins(%x, %w, %b : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4xf32, #cuda0>)
                     outs(%y : memref<4xf32, #cuda0>) {
  ^bb0(%in: memref<4xf32, #cuda0>, %weight: memref<4xf32, #cuda0>,
       %bias: memref<4xf32, #cuda0>, %out: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
        ins(%in, %weight, %bias : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4xf32, #cuda0>)
        outs(%out : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %c: f32, %d: f32, %unused: f32):
      %m = arith.mulf %a, %c : f32
      %r = arith.addf %m, %d : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<4xf32, #cuda0>
}

func.func @scale(%x: memref<4xf32, #cuda0>,
                 %w: memref<4xf32, #cuda0> {gp.parameter = "layer.weight"})
    -> memref<4xf32, #cuda0> {
  %y = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "scale" ins(%x, %w : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>)
                    outs(%y : memref<4xf32, #cuda0>) {
  ^bb0(%in: memref<4xf32, #cuda0>, %weight: memref<4xf32, #cuda0>,
       %out: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%in, %weight : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>)
        outs(%out : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %c: f32, %unused: f32):
      %m = arith.mulf %a, %c : f32
      linalg.yield %m : f32
    }
  }
  return %y : memref<4xf32, #cuda0>
}
