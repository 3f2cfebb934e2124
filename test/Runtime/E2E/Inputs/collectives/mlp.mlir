// A two-layer MLP, y = relu(x @ w1) @ w2, on one device: the reference for
// its tensor-parallel form (tp_mlp.mlir).
#dev = #gp.device<cuda:0>
func.func @mlp(%x: memref<8x64xf32, #dev>, %w1: memref<64x128xf32, #dev>, %w2: memref<128x64xf32, #dev>) -> memref<8x64xf32, #dev> {
  %h = gp.buffer.alloc() : memref<8x128xf32, #dev>
  gp.kernel "up" ins(%x, %w1 : memref<8x64xf32, #dev>, memref<64x128xf32, #dev>) outs(%h : memref<8x128xf32, #dev>) {
  ^bb0(%a: memref<8x64xf32, #dev>, %b: memref<64x128xf32, #dev>, %o: memref<8x128xf32, #dev>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<8x128xf32, #dev>)
    linalg.matmul ins(%a, %b : memref<8x64xf32, #dev>, memref<64x128xf32, #dev>) outs(%o : memref<8x128xf32, #dev>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%o : memref<8x128xf32, #dev>) {
    ^bb0(%v: f32):
      %r = arith.maximumf %v, %zero : f32
      linalg.yield %r : f32
    }
  }
  %y = gp.buffer.alloc() : memref<8x64xf32, #dev>
  gp.kernel "down" ins(%h, %w2 : memref<8x128xf32, #dev>, memref<128x64xf32, #dev>) outs(%y : memref<8x64xf32, #dev>) {
  ^bb0(%a: memref<8x128xf32, #dev>, %b: memref<128x64xf32, #dev>, %o: memref<8x64xf32, #dev>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<8x64xf32, #dev>)
    linalg.matmul ins(%a, %b : memref<8x128xf32, #dev>, memref<128x64xf32, #dev>) outs(%o : memref<8x64xf32, #dev>)
  }
  return %y : memref<8x64xf32, #dev>
}
