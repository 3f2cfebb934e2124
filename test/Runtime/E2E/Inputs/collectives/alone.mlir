// A program that runs alone (rank 0 of 1): its all-reduce copies.
#dev = #gp.device<cuda:0>
func.func @alone(%x: memref<3xf32, #dev>) -> (memref<3xf32, #dev>, index, index) {
  %r = gp.rank : index
  %n = gp.world_size : index
  %y = gp.buffer.alloc() : memref<3xf32, #dev>
  gp.all_reduce sum %x, %y : memref<3xf32, #dev> to memref<3xf32, #dev>
  return %y, %r, %n : memref<3xf32, #dev>, index, index
}
