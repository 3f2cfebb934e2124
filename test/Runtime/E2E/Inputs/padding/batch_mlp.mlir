// A two-layer MLP with a row softmax over a dynamic batch, as linalg on
// tensors (gp-compile --bufferize): every op works on each row on its own,
// so gp-size-classes proves the batch paddable. test/Runtime/E2E/padding{,-cuda}.test.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @batch_mlp(%x: tensor<?x16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
                     %w2: tensor<32x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty(%n) : tensor<?x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<?x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %e2 = tensor.empty(%n) : tensor<?x32xf32>
  %a = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<?x32xf32>, tensor<32xf32>) outs(%e2 : tensor<?x32xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x32xf32>
  %e3 = tensor.empty(%n) : tensor<?x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %l = linalg.matmul ins(%a, %w2 : tensor<?x32xf32>, tensor<32x8xf32>) outs(%f3 : tensor<?x8xf32>) -> tensor<?x8xf32>
  // Softmax over each row: max, exp, sum, divide.
  %e4 = tensor.empty(%n) : tensor<?xf32>
  %f4 = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%l : tensor<?x8xf32>) outs(%f4 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.maximumf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e5 = tensor.empty(%n) : tensor<?x8xf32>
  %ex = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%l, %m : tensor<?x8xf32>, tensor<?xf32>) outs(%e5 : tensor<?x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %d = arith.subf %p, %q : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  %f6 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<?x8xf32>) outs(%f6 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.addf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e7 = tensor.empty(%n) : tensor<?x8xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<?x8xf32>, tensor<?xf32>) outs(%e7 : tensor<?x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.divf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
