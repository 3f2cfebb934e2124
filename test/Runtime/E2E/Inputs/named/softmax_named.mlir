// linalg.softmax as torch-mlir and IREE emit it, over the middle (dynamic)
// dimension of a 3-d tensor (test/Runtime/E2E/softmax-named{,-cuda}.test).
func.func @softmax_named(%x: tensor<2x?x8xf32>) -> tensor<2x?x8xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<2x?x8xf32>
  %e = tensor.empty(%n) : tensor<2x?x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<2x?x8xf32>) outs(%e : tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  return %r : tensor<2x?x8xf32>
}
