// Math ops with no LLVM intrinsic (erf, erfc, atan, atan2, tan, cbrt), as
// torch-mlir emits them for GELU and friends, in a host kernel: they call
// libm (test/Runtime/E2E/libm-math.test).
#id = affine_map<(d0) -> (d0)>
func.func @special(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %tenth = arith.constant 0.1 : f32
    %a2 = arith.mulf %a, %two : f32
    %erf = math.erf %a : f32
    %erfc = math.erfc %a2 : f32
    %atan = math.atan %a : f32
    %atan2 = math.atan2 %a, %two : f32
    %tan = math.tan %a : f32
    %cbrt = math.cbrt %a : f32
    %s0 = arith.addf %erf, %erfc : f32
    %s1 = arith.addf %s0, %atan : f32
    %s2 = arith.addf %s1, %atan2 : f32
    %t = arith.mulf %tan, %tenth : f32
    %s3 = arith.addf %s2, %t : f32
    %s4 = arith.addf %s3, %cbrt : f32
    linalg.yield %s4 : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
