// a[n] = -1 with a symint that declares no range: nothing bounds n before
// the kernel runs, so only the checked mode (gp-pipeline checked=true)
// can refuse n = 7 on 7 elements.
#cuda0 = #gp.device<cuda:0>

func.func @unranged_store(%arg0: index, %a: memref<7xf32, #cuda0>)
    -> memref<7xf32, #cuda0> {
  %n = gp.symint "n" = %arg0
  gp.kernel "store_minus_one" ins(%n : index) outs(%a : memref<7xf32, #cuda0>) {
  ^bb0(%idx: index, %out: memref<7xf32, #cuda0>):
    %minus_one = arith.constant -1.0 : f32
    memref.store %minus_one, %out[%idx] : memref<7xf32, #cuda0>
  }
  return %a : memref<7xf32, #cuda0>
}
