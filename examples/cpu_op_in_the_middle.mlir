// Scenario (f): a cpu op in the middle of cuda work.
//
//   x1 = x + 1
//   y1 = y + 1
//   y_cpu = y1.cpu() + 1      # device copy, then a cpu op
//   z = x @ y                 # aten::mm through the extern registry (cuBLAS)
//   return x1 + y1 + z + y_cpu.cuda()
//
// Without partitioning, the cpu op would disable graphs for the whole
// program; with it, the cuda work around it is captured.

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @cpu_op_in_the_middle(%x: memref<2x2xf32, #cuda0>, %y: memref<2x2xf32, #cuda0>)
    -> memref<2x2xf32, #cuda0> {
  %x1 = gp.buffer.alloc() : memref<2x2xf32, #cuda0>
  gp.kernel "add_one_x" ins(%x : memref<2x2xf32, #cuda0>) outs(%x1 : memref<2x2xf32, #cuda0>) {
  ^bb0(%in: memref<2x2xf32, #cuda0>, %out: memref<2x2xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<2x2xf32, #cuda0>) outs(%out : memref<2x2xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  %y1 = gp.buffer.alloc() : memref<2x2xf32, #cuda0>
  gp.kernel "add_one_y" ins(%y : memref<2x2xf32, #cuda0>) outs(%y1 : memref<2x2xf32, #cuda0>) {
  ^bb0(%in: memref<2x2xf32, #cuda0>, %out: memref<2x2xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<2x2xf32, #cuda0>) outs(%out : memref<2x2xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  %y_host = gp.buffer.alloc() : memref<2x2xf32, #cpu>
  gp.copy %y1, %y_host : memref<2x2xf32, #cuda0> to memref<2x2xf32, #cpu>
  %y_cpu = gp.buffer.alloc() : memref<2x2xf32, #cpu>
  gp.kernel "add_one_cpu" ins(%y_host : memref<2x2xf32, #cpu>) outs(%y_cpu : memref<2x2xf32, #cpu>) {
  ^bb0(%in: memref<2x2xf32, #cpu>, %out: memref<2x2xf32, #cpu>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<2x2xf32, #cpu>) outs(%out : memref<2x2xf32, #cpu>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  %z = gp.fallback "aten::mm"(%x, %y) : (memref<2x2xf32, #cuda0>, memref<2x2xf32, #cuda0>)
      -> memref<2x2xf32, #cuda0>
  %y_back = gp.buffer.alloc() : memref<2x2xf32, #cuda0>
  gp.copy %y_cpu, %y_back : memref<2x2xf32, #cpu> to memref<2x2xf32, #cuda0>
  %sum = gp.buffer.alloc() : memref<2x2xf32, #cuda0>
  gp.kernel "add4" ins(%x1, %y1, %z, %y_back : memref<2x2xf32, #cuda0>, memref<2x2xf32, #cuda0>, memref<2x2xf32, #cuda0>, memref<2x2xf32, #cuda0>)
                   outs(%sum : memref<2x2xf32, #cuda0>) {
  ^bb0(%a: memref<2x2xf32, #cuda0>, %b: memref<2x2xf32, #cuda0>, %c: memref<2x2xf32, #cuda0>, %d: memref<2x2xf32, #cuda0>, %out: memref<2x2xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b, %c, %d : memref<2x2xf32, #cuda0>, memref<2x2xf32, #cuda0>, memref<2x2xf32, #cuda0>, memref<2x2xf32, #cuda0>)
        outs(%out : memref<2x2xf32, #cuda0>) {
    ^bb0(%va: f32, %vb: f32, %vc: f32, %vd: f32, %unused: f32):
      %s1 = arith.addf %va, %vb : f32
      %s2 = arith.addf %s1, %vc : f32
      %s3 = arith.addf %s2, %vd : f32
      linalg.yield %s3 : f32
    }
  }
  return %sum : memref<2x2xf32, #cuda0>
}
