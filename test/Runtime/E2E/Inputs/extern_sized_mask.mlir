// A buffer an extern sizes when it runs (mylib::create_mask(n, k): n
// booleans, the first k true), counted by a capturable kernel in the next
// partition: that partition's shape key must hold the mask's size, which
// the program leaves unnamed (see unnamed-dims.test).
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>

func.func @mask_count(%n: index, %k: index) -> memref<f32, #cuda0> {
  %s0 = gp.symint "s0" = %n
  %s1 = gp.symint "s1" = %k
  %mask = gp.fallback "mylib::create_mask"(%s0, %s1) tags ["cudagraph_unsafe"]
      : (index, index) -> memref<?xi1, #cuda0>
  %c = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "count" ins(%mask : memref<?xi1, #cuda0>) outs(%c : memref<f32, #cuda0>) {
  ^bb0(%m: memref<?xi1, #cuda0>, %out: memref<f32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<f32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #none], iterator_types = ["reduction"]}
        ins(%m : memref<?xi1, #cuda0>) outs(%out : memref<f32, #cuda0>) {
    ^bb0(%b: i1, %acc: f32):
      %one = arith.constant 1.0 : f32
      %v = arith.select %b, %one, %zero : f32
      %r = arith.addf %acc, %v : f32
      linalg.yield %r : f32
    }
  }
  return %c : memref<f32, #cuda0>
}
