// Every collective with the shapes of a run of one rank (collectives-cuda
// .test): on a GPU through an NCCL communicator of size 1, each result is
// y = x * 2, captured and replayed with the partition.
#dev = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @one_rank(%x: memref<4x6xf32, #dev>) -> (memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, index, index) {
  %r = gp.rank : index
  %n = gp.world_size : index
  %y = gp.buffer.alloc() : memref<4x6xf32, #dev>
  gp.kernel "double" ins(%x : memref<4x6xf32, #dev>) outs(%y : memref<4x6xf32, #dev>) {
  ^bb0(%in: memref<4x6xf32, #dev>, %out: memref<4x6xf32, #dev>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<4x6xf32, #dev>) outs(%out : memref<4x6xf32, #dev>) {
    ^bb0(%a: f32, %o: f32):
      %d = arith.addf %a, %a : f32
      linalg.yield %d : f32
    }
  }
  %sum = gp.buffer.alloc() : memref<4x6xf32, #dev>
  gp.all_reduce sum %y, %sum : memref<4x6xf32, #dev> to memref<4x6xf32, #dev>
  %max = gp.buffer.alloc() : memref<4x6xf32, #dev>
  gp.all_reduce max %y, %max : memref<4x6xf32, #dev> to memref<4x6xf32, #dev>
  %gathered = gp.buffer.alloc() : memref<4x6xf32, #dev>
  gp.all_gather %y, %gathered : memref<4x6xf32, #dev> to memref<4x6xf32, #dev>
  %scattered = gp.buffer.alloc() : memref<4x6xf32, #dev>
  gp.reduce_scatter sum %y, %scattered : memref<4x6xf32, #dev> to memref<4x6xf32, #dev>
  gp.broadcast %y root 0 : memref<4x6xf32, #dev>
  return %sum, %max, %gathered, %scattered, %y, %r, %n : memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, memref<4x6xf32, #dev>, index, index
}
