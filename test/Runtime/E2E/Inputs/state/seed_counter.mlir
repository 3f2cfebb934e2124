// torch-mlir's form of state kept between calls: a mutable ml_program.global
// (its RNG seed, here a counter starting at 5) loaded, advanced and stored
// each call; the result is x + the new value.
module {
  ml_program.global private mutable @global_seed(dense<5> : tensor<i64>) : tensor<i64>
  func.func @forward(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = ml_program.global_load @global_seed : tensor<i64>
    %e = tensor.empty() : tensor<i64>
    %1 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%0 : tensor<i64>) outs(%e : tensor<i64>) {
    ^bb0(%in: i64, %out: i64):
      %c1 = arith.constant 1 : i64
      %a = arith.addi %in, %c1 : i64
      linalg.yield %a : i64
    } -> tensor<i64>
    ml_program.global_store @global_seed = %1 : tensor<i64>
    %e2 = tensor.empty() : tensor<4xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%arg0, %1 : tensor<4xf32>, tensor<i64>) outs(%e2 : tensor<4xf32>) {
    ^bb0(%in: f32, %s: i64, %out: f32):
      %f = arith.sitofp %s : i64 to f32
      %r = arith.addf %in, %f : f32
      linalg.yield %r : f32
    } -> tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
