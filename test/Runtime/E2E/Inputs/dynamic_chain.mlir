// A chain of temporaries sized at run time (n = the input's size): each
// dies at the next kernel, so the captured key's pool holds two at once,
// not one per temporary.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

func.func @dynamic_chain(%x: memref<?xf32, #cuda0>) -> memref<?xf32, #cuda0> {
  %n = gp.symint.dim "n" = %x[0] : memref<?xf32, #cuda0>
  %t0 = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "step0" ins(%x : memref<?xf32, #cuda0>) outs(%t0 : memref<?xf32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  %t1 = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "step1" ins(%t0 : memref<?xf32, #cuda0>) outs(%t1 : memref<?xf32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  %t2 = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "step2" ins(%t1 : memref<?xf32, #cuda0>) outs(%t2 : memref<?xf32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  %t3 = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "step3" ins(%t2 : memref<?xf32, #cuda0>) outs(%t3 : memref<?xf32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  %t4 = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "step4" ins(%t3 : memref<?xf32, #cuda0>) outs(%t4 : memref<?xf32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  %t5 = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "step5" ins(%t4 : memref<?xf32, #cuda0>) outs(%t5 : memref<?xf32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  return %t5 : memref<?xf32, #cuda0>
}
