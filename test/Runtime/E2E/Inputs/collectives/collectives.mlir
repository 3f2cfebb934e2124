// Every collective among 4 ranks (collectives.test): rank r computes
// y = x * (r + 1) + r from the same x, then the ranks' y are summed, their
// maximum taken, gathered along rows, summed and scattered by rows, and
// rank 2's broadcast; an i32 minimum of r - 7 * x. Shapes are those of 4
// ranks (a gather of 4 x 6 into 16 x 6).
#dev = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @collectives(%x: memref<4x6xf32, #dev>) -> (memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, memref<16x6xf32, #dev>, memref<1x6xf32, #dev>, memref<4x6xf32, #dev>, memref<4x6xi32, #dev>, index, index) {
  %r = gp.rank : index
  %n = gp.world_size : index
  %y = gp.buffer.alloc() : memref<4x6xf32, #dev>
  %b = gp.buffer.alloc() : memref<4x6xf32, #dev>
  %k = gp.buffer.alloc() : memref<4x6xi32, #dev>
  gp.kernel "per_rank" ins(%x, %r : memref<4x6xf32, #dev>, index) outs(%y, %b, %k : memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, memref<4x6xi32, #dev>) {
  ^bb0(%in: memref<4x6xf32, #dev>, %rank: index, %out: memref<4x6xf32, #dev>, %copy: memref<4x6xf32, #dev>, %ints: memref<4x6xi32, #dev>):
    %ri = arith.index_cast %rank : index to i32
    %rf = arith.sitofp %ri : i32 to f32
    %one = arith.constant 1.0 : f32
    %seven = arith.constant 7.0 : f32
    %scale = arith.addf %rf, %one : f32
    linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<4x6xf32, #dev>) outs(%out, %copy, %ints : memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, memref<4x6xi32, #dev>) {
    ^bb0(%a: f32, %o: f32, %c: f32, %i: i32):
      %m = arith.mulf %a, %scale : f32
      %v = arith.addf %m, %rf : f32
      %s = arith.mulf %a, %seven : f32
      %d = arith.subf %rf, %s : f32
      %di = arith.fptosi %d : f32 to i32
      linalg.yield %v, %v, %di : f32, f32, i32
    }
  }
  %sum = gp.buffer.alloc() : memref<4x6xf32, #dev>
  gp.all_reduce sum %y, %sum : memref<4x6xf32, #dev> to memref<4x6xf32, #dev>
  %max = gp.buffer.alloc() : memref<4x6xf32, #dev>
  gp.all_reduce max %y, %max : memref<4x6xf32, #dev> to memref<4x6xf32, #dev>
  %gathered = gp.buffer.alloc() : memref<16x6xf32, #dev>
  gp.all_gather %y, %gathered : memref<4x6xf32, #dev> to memref<16x6xf32, #dev>
  %scattered = gp.buffer.alloc() : memref<1x6xf32, #dev>
  gp.reduce_scatter sum %y, %scattered : memref<4x6xf32, #dev> to memref<1x6xf32, #dev>
  gp.broadcast %b root 2 : memref<4x6xf32, #dev>
  gp.all_reduce min %k, %k : memref<4x6xi32, #dev> to memref<4x6xi32, #dev>
  return %sum, %max, %gathered, %scattered, %b, %k, %r, %n : memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, memref<16x6xf32, #dev>, memref<1x6xf32, #dev>, memref<4x6xf32, #dev>, memref<4x6xi32, #dev>, index, index
}
