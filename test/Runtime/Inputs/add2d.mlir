// A kernel for the GPU runtime test: y = x + 1 over 100x30 floats.
#cuda0 = #gp.device<cuda:0>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @add2d(%x: memref<100x30xf32, #cuda0>, %y: memref<100x30xf32, #cuda0>) {
  gp.kernel "add2d" ins(%x : memref<100x30xf32, #cuda0>) outs(%y : memref<100x30xf32, #cuda0>) {
  ^bb0(%in: memref<100x30xf32, #cuda0>, %out: memref<100x30xf32, #cuda0>):
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<100x30xf32, #cuda0>) outs(%out : memref<100x30xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %one = arith.constant 1.0 : f32
      %s = arith.addf %a, %one : f32
      linalg.yield %s : f32
    }
  }
  return
}
