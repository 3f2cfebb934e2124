// Scenario (e): a mutation whose index is a symint.
//
//   def fn(n, a):
//       a[n] = -1
//       return a
//
// `n` appears in no shape, stride or offset, only as the store index, yet
// the partition that does the store must take it as an input (and key its
// captured graphs on it).

#cuda0 = #gp.device<cuda:0>

func.func @symint_mutation_index(%arg0: index, %a: memref<7xf32, #cuda0>)
    -> memref<7xf32, #cuda0> {
  %n = gp.symint "s0" = %arg0 {min = 0 : i64, max = 6 : i64, hint = 2 : i64}
  gp.kernel "store_minus_one" ins(%n : index) outs(%a : memref<7xf32, #cuda0>) {
  ^bb0(%idx: index, %out: memref<7xf32, #cuda0>):
    %minus_one = arith.constant -1.0 : f32
    memref.store %minus_one, %out[%idx] : memref<7xf32, #cuda0>
  }
  return %a : memref<7xf32, #cuda0>
}
