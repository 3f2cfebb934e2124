// mlp.mlir as 2 tensor-parallel ranks: rank r takes columns r*64 .. r*64+63
// of w1 (column-parallel) and the same rows of w2 (row-parallel), so its
// relu(x @ w1_r) @ w2_r is its share of y, and an all-reduce sums them.
#dev = #gp.device<cuda:0>
func.func @tp_mlp(%x: memref<8x64xf32, #dev>, %w1: memref<64x128xf32, #dev>, %w2: memref<128x64xf32, #dev>) -> memref<8x64xf32, #dev> {
  %r = gp.rank : index
  %c64 = arith.constant 64 : index
  %at = arith.muli %r, %c64 : index
  %w1r = gp.buffer.slice %w1 [0, %at] [64, 64] [1, 1] : memref<64x128xf32, #dev> to memref<64x64xf32, strided<[128, 1], offset: ?>, #dev>
  %w2r = gp.buffer.slice %w2 [%at, 0] [64, 64] [1, 1] : memref<128x64xf32, #dev> to memref<64x64xf32, strided<[64, 1], offset: ?>, #dev>
  %h = gp.buffer.alloc() : memref<8x64xf32, #dev>
  gp.kernel "up" ins(%x, %w1r : memref<8x64xf32, #dev>, memref<64x64xf32, strided<[128, 1], offset: ?>, #dev>) outs(%h : memref<8x64xf32, #dev>) {
  ^bb0(%a: memref<8x64xf32, #dev>, %b: memref<64x64xf32, strided<[128, 1], offset: ?>, #dev>, %o: memref<8x64xf32, #dev>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<8x64xf32, #dev>)
    linalg.matmul ins(%a, %b : memref<8x64xf32, #dev>, memref<64x64xf32, strided<[128, 1], offset: ?>, #dev>) outs(%o : memref<8x64xf32, #dev>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%o : memref<8x64xf32, #dev>) {
    ^bb0(%v: f32):
      %m = arith.maximumf %v, %zero : f32
      linalg.yield %m : f32
    }
  }
  %y = gp.buffer.alloc() : memref<8x64xf32, #dev>
  gp.kernel "down" ins(%h, %w2r : memref<8x64xf32, #dev>, memref<64x64xf32, strided<[64, 1], offset: ?>, #dev>) outs(%y : memref<8x64xf32, #dev>) {
  ^bb0(%a: memref<8x64xf32, #dev>, %b: memref<64x64xf32, strided<[64, 1], offset: ?>, #dev>, %o: memref<8x64xf32, #dev>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<8x64xf32, #dev>)
    linalg.matmul ins(%a, %b : memref<8x64xf32, #dev>, memref<64x64xf32, strided<[64, 1], offset: ?>, #dev>) outs(%o : memref<8x64xf32, #dev>)
  }
  gp.all_reduce sum %y, %y : memref<8x64xf32, #dev> to memref<8x64xf32, #dev>
  return %y : memref<8x64xf32, #dev>
}
