// y = x + x, returned from program memory: what the held-results driver
// (unittests/Runtime/HeldResultsDriver.cpp) calls twice to show that a
// second call overwrites the first call's result, and how to keep it.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

func.func @twice(%x: memref<4xf32, #cuda0>) -> memref<4xf32, #cuda0> {
  %y = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "twice" ins(%x : memref<4xf32, #cuda0>) outs(%y : memref<4xf32, #cuda0>) {
  ^bb0(%in: memref<4xf32, #cuda0>, %out: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<4xf32, #cuda0>) outs(%out : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %r = arith.addf %a, %a : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<4xf32, #cuda0>
}
