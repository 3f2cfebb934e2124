// Scenario (d): forward and backward programs sharing graph-safe RNG state.
//
//   forward:  out = sin(p1) * rand(4, 4)
//   backward: grad_p1 = cos(p1) * rand(4, 4) * tangent   # the same rand
//
// Each RNG op has its own generator (@rand0). The forward reads its forward
// state and the backward its backward state; the runtime hands the backward
// the offset its forward used, so both draw the same numbers, while every
// replay of the forward draws fresh ones.

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>

gp.rng.generator @rand0

func.func @forward(%p1: memref<4x4xf32, #cuda0>) -> memref<4x4xf32, #cuda0> {
  %rng = gp.rng.state @rand0 forward : !gp.rng_state
  %noise = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.rng.fill uniform %rng, %noise : memref<4x4xf32, #cuda0>
  %out = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "sin_mul" ins(%p1, %noise : memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>)
                      outs(%out : memref<4x4xf32, #cuda0>) {
  ^bb0(%x: memref<4x4xf32, #cuda0>, %r: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x, %r : memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>)
        outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32, %unused: f32):
      %s = math.sin %a : f32
      %m = arith.mulf %s, %b : f32
      linalg.yield %m : f32
    }
  }
  return %out : memref<4x4xf32, #cuda0>
}

func.func @backward(%p1: memref<4x4xf32, #cuda0>, %tangent: memref<4x4xf32, #cuda0>)
    -> memref<4x4xf32, #cuda0> {
  %rng = gp.rng.state @rand0 backward : !gp.rng_state
  %noise = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.rng.fill uniform %rng, %noise : memref<4x4xf32, #cuda0>
  %grad = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "cos_mul_mul" ins(%p1, %noise, %tangent : memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>)
                          outs(%grad : memref<4x4xf32, #cuda0>) {
  ^bb0(%x: memref<4x4xf32, #cuda0>, %r: memref<4x4xf32, #cuda0>, %t: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x, %r, %t : memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>)
        outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32, %c: f32, %unused: f32):
      %cos = math.cos %a : f32
      %m = arith.mulf %cos, %b : f32
      %g = arith.mulf %m, %c : f32
      linalg.yield %g : f32
    }
  }
  return %grad : memref<4x4xf32, #cuda0>
}
