// A partition that reads only a fixed window (the first 8 elements) of a
// buffer whose size is symbolic: its graph depends on nothing symbolic, so new outer sizes (at
// the same addresses) must not re-capture it.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

func.func @static_row_of_dynamic(%x: memref<?xf32, #cuda0>)
    -> memref<8xf32, #cuda0> {
  %s0 = gp.symint.dim "s0" = %x[0] {min = 8 : i64} : memref<?xf32, #cuda0>
  %flat = gp.buffer.slice %x[0] [8] [1]
      : memref<?xf32, #cuda0> to memref<8xf32, strided<[1]>, #cuda0>
  %y = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "double_row" ins(%flat : memref<8xf32, strided<[1]>, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%in: memref<8xf32, strided<[1]>, #cuda0>, %out: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<8xf32, strided<[1]>, #cuda0>) outs(%out : memref<8xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %r = arith.addf %a, %a : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<8xf32, #cuda0>
}
