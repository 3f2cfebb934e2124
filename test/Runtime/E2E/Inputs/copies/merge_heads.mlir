// A decode step's attention output, its heads merged back by a copy that
// gp-fuse-kernels makes a view (linear-copies.test).
#dev = #gp.device<cuda:0>
func.func @merge_heads(%p: memref<12x1x512xf32, #dev>, %cache: memref<12x512x64xf32, #dev>, %w: memref<768x768xf32, #dev>) -> memref<1x768xf32, #dev> {
  %h = gp.buffer.alloc() : memref<12x1x64xf32, #dev>
  gp.kernel "pv" ins(%p, %cache : memref<12x1x512xf32, #dev>, memref<12x512x64xf32, #dev>) outs(%h : memref<12x1x64xf32, #dev>) {
  ^bb0(%a: memref<12x1x512xf32, #dev>, %b: memref<12x512x64xf32, #dev>, %o: memref<12x1x64xf32, #dev>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<12x1x64xf32, #dev>)
    linalg.batch_matmul ins(%a, %b : memref<12x1x512xf32, #dev>, memref<12x512x64xf32, #dev>) outs(%o : memref<12x1x64xf32, #dev>)
  }
  %m = gp.buffer.alloc() : memref<1x1x12x64xf32, #dev>
  gp.kernel "merge" ins(%h : memref<12x1x64xf32, #dev>) outs(%m : memref<1x1x12x64xf32, #dev>) {
  ^bb0(%i: memref<12x1x64xf32, #dev>, %o: memref<1x1x12x64xf32, #dev>):
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%i : memref<12x1x64xf32, #dev>) outs(%o : memref<1x1x12x64xf32, #dev>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
  }
  %v = gp.buffer.reshape %m() : memref<1x1x12x64xf32, #dev> to memref<1x768xf32, #dev>
  %y = gp.buffer.alloc() : memref<1x768xf32, #dev>
  gp.kernel "proj" ins(%v, %w : memref<1x768xf32, #dev>, memref<768x768xf32, #dev>) outs(%y : memref<1x768xf32, #dev>) {
  ^bb0(%a: memref<1x768xf32, #dev>, %b: memref<768x768xf32, #dev>, %o: memref<1x768xf32, #dev>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<1x768xf32, #dev>)
    linalg.matmul ins(%a, %b : memref<1x768xf32, #dev>, memref<768x768xf32, #dev>) outs(%o : memref<1x768xf32, #dev>)
  }
  return %y : memref<1x768xf32, #dev>
}

