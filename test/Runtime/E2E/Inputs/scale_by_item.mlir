// A host scalar (.item() of a device value) feeds a captured partition:
//   s = (x[0] + x[1]).item();  return x * s
// The captured graph must see each call's s, not the one it was captured
// with.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

func.func @scale_by_item(%x: memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0> {
  %m = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "first_two" ins(%x : memref<8xf32, #cuda0>) outs(%m : memref<f32, #cuda0>) {
  ^bb0(%in: memref<8xf32, #cuda0>, %out: memref<f32, #cuda0>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.load %in[%c0] : memref<8xf32, #cuda0>
    %b = memref.load %in[%c1] : memref<8xf32, #cuda0>
    %sum = arith.addf %a, %b : f32
    memref.store %sum, %out[] : memref<f32, #cuda0>
  }
  %s = gp.item %m : memref<f32, #cuda0> -> f32
  %y = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "scale" ins(%x, %s : memref<8xf32, #cuda0>, f32) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%in: memref<8xf32, #cuda0>, %scale: f32, %out: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<8xf32, #cuda0>) outs(%out : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %unused: f32):
      %r = arith.mulf %v, %scale : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<8xf32, #cuda0>
}
