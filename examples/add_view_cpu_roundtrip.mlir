// Scenario (a): an f8 dtype view of a buffer made in the first partition,
// copied to the cpu and back.
//
//   y = x + 1
//   z = y.view(torch.float8_e4m3fn)   # a view: aliases y
//   z_cpu = z.cpu()                   # device copy: a reason to cut
//   u = z_cpu.cuda()                  # device copy
//   return u
//
// y is allocated before the cut and its last use (through its view z) is the
// copy after the cut, so partitioning must hand y to the copy's partition so
// that it can be freed there (PyTorch's `del buf2` -> `buf0` bug).

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
#map = affine_map<(d0) -> (d0)>

func.func @add_view_cpu_roundtrip(%x: memref<2xf32, #cuda0>)
    -> memref<8xf8E4M3FN, #cuda0> {
  %y = gp.buffer.alloc() : memref<2xf32, #cuda0>
  gp.kernel "add_one" ins(%x : memref<2xf32, #cuda0>)
                      outs(%y : memref<2xf32, #cuda0>) {
  ^bb0(%in: memref<2xf32, #cuda0>, %out: memref<2xf32, #cuda0>):
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
        ins(%in : memref<2xf32, #cuda0>) outs(%out : memref<2xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %sum = arith.addf %a, %one : f32
      linalg.yield %sum : f32
    }
  }
  %z = gp.buffer.bitcast %y : memref<2xf32, #cuda0> to memref<8xf8E4M3FN, #cuda0>
  %z_cpu = gp.buffer.alloc() : memref<8xf8E4M3FN, #cpu>
  gp.copy %z, %z_cpu : memref<8xf8E4M3FN, #cuda0> to memref<8xf8E4M3FN, #cpu>
  %u = gp.buffer.alloc() : memref<8xf8E4M3FN, #cuda0>
  gp.copy %z_cpu, %u : memref<8xf8E4M3FN, #cpu> to memref<8xf8E4M3FN, #cuda0>
  return %u : memref<8xf8E4M3FN, #cuda0>
}
