// Scenario (b): a padded tensor whose mask is made by a cudagraph-unsafe
// custom op that depends only on sizes.
//
//   padded = relu(padded + 1)
//   padded += padded.dot(weight)
//   mask = mylib::create_mask(padded_size, original_size)  # cudagraph_unsafe
//   min_res = min(masked_fill(padded, mask, inf))
//   max_res = max(masked_fill(padded, mask, -inf))
//   return min_res, max_res, padded
//
// The mask op reads no buffer, so reordering can move it to the front and
// leave one capturable partition. `original` lives on the meta device: it
// only carries a size and never prevents capture.

#cuda0 = #gp.device<cuda:0>
#meta = #gp.device<meta>
#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

func.func @padded_mask(%padded: memref<?xf32, #cuda0>,
                       %original: memref<?xf32, #meta>,
                       %weight: memref<?xf32, #cuda0>)
    -> (memref<f32, #cuda0>, memref<f32, #cuda0>, memref<?xf32, #cuda0>) {
  %s0 = gp.symint.dim "s0" = %padded[0] {hint = 8 : i64} : memref<?xf32, #cuda0>
  %s1 = gp.symint.dim "s1" = %original[0] {hint = 4 : i64} : memref<?xf32, #meta>
  %s2 = gp.symint.dim "s2" = %weight[0] {hint = 8 : i64} : memref<?xf32, #cuda0>

  %act = gp.buffer.alloc(%s0) : memref<?xf32, #cuda0>
  gp.kernel "add_relu" ins(%padded : memref<?xf32, #cuda0>)
                       outs(%act : memref<?xf32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %zero = arith.constant 0.0 : f32
      %sum = arith.addf %a, %one : f32
      %relu = arith.maximumf %sum, %zero : f32
      linalg.yield %relu : f32
    }
  }

  %dot = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "dot" ins(%act, %weight : memref<?xf32, #cuda0>, memref<?xf32, #cuda0>)
                  outs(%dot : memref<f32, #cuda0>) {
  ^bb0(%a: memref<?xf32, #cuda0>, %b: memref<?xf32, #cuda0>, %out: memref<f32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<f32, #cuda0>)
    linalg.dot ins(%a, %b : memref<?xf32, #cuda0>, memref<?xf32, #cuda0>)
               outs(%out : memref<f32, #cuda0>)
  }

  // padded += dot_res, in place.
  gp.kernel "add_scalar_inplace" ins(%dot : memref<f32, #cuda0>)
                                 outs(%act : memref<?xf32, #cuda0>) {
  ^bb0(%d: memref<f32, #cuda0>, %out: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel"]}
        ins(%d : memref<f32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%v: f32, %a: f32):
      %sum = arith.addf %a, %v : f32
      linalg.yield %sum : f32
    }
  }

  %mask = gp.fallback "mylib::create_mask"(%s0, %s1) tags ["cudagraph_unsafe"]
      : (index, index) -> memref<?xi1, #cuda0>

  %min = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "masked_min" ins(%act, %mask : memref<?xf32, #cuda0>, memref<?xi1, #cuda0>)
                         outs(%min : memref<f32, #cuda0>) {
  ^bb0(%a: memref<?xf32, #cuda0>, %m: memref<?xi1, #cuda0>, %out: memref<f32, #cuda0>):
    %inf = arith.constant 0x7F800000 : f32
    linalg.fill ins(%inf : f32) outs(%out : memref<f32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #id, #scalar], iterator_types = ["reduction"]}
        ins(%a, %m : memref<?xf32, #cuda0>, memref<?xi1, #cuda0>)
        outs(%out : memref<f32, #cuda0>) {
    ^bb0(%v: f32, %masked: i1, %acc: f32):
      %filled = arith.select %masked, %inf, %v : f32
      %r = arith.minimumf %acc, %filled : f32
      linalg.yield %r : f32
    }
  }

  %max = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "masked_max" ins(%act, %mask : memref<?xf32, #cuda0>, memref<?xi1, #cuda0>)
                         outs(%max : memref<f32, #cuda0>) {
  ^bb0(%a: memref<?xf32, #cuda0>, %m: memref<?xi1, #cuda0>, %out: memref<f32, #cuda0>):
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%out : memref<f32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #id, #scalar], iterator_types = ["reduction"]}
        ins(%a, %m : memref<?xf32, #cuda0>, memref<?xi1, #cuda0>)
        outs(%out : memref<f32, #cuda0>) {
    ^bb0(%v: f32, %masked: i1, %acc: f32):
      %filled = arith.select %masked, %ninf, %v : f32
      %r = arith.maximumf %acc, %filled : f32
      linalg.yield %r : f32
    }
  }
  return %min, %max, %act : memref<f32, #cuda0>, memref<f32, #cuda0>, memref<?xf32, #cuda0>
}
