// Two generators filling a buffer each: uniform and normal draws, returned
// as they are so a test can recompute them.
#cuda0 = #gp.device<cuda:0>
gp.rng.generator @uniform_gen
gp.rng.generator @normal_gen

func.func @draw() -> (memref<3x5xf32, #cuda0>, memref<16xf32, #cuda0>) {
  %u_state = gp.rng.state @uniform_gen forward : !gp.rng_state
  %u = gp.buffer.alloc() : memref<3x5xf32, #cuda0>
  gp.rng.fill uniform %u_state, %u : memref<3x5xf32, #cuda0>
  %n_state = gp.rng.state @normal_gen forward : !gp.rng_state
  %n = gp.buffer.alloc() : memref<16xf32, #cuda0>
  gp.rng.fill normal %n_state, %n : memref<16xf32, #cuda0>
  return %u, %n : memref<3x5xf32, #cuda0>, memref<16xf32, #cuda0>
}
