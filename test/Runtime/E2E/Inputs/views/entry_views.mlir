// Views an entry returns or passes on without a kernel touching them: they
// stay outside partitions (test/Runtime/E2E/entry-views.test, and on cuda
// entry-views-cuda.test). An expand's dynamic output sizes are checked
// against its source when the view is made (expand_rank4, split_two,
// expand_copy, whose view a copy kernel reads in a partition).
func.func @flat(%a: memref<?x4xf32>) -> memref<?xf32> {
  %c = memref.collapse_shape %a [[0, 1]] : memref<?x4xf32> into memref<?xf32>
  return %c : memref<?xf32>
}
func.func @unflat(%a: memref<?xf32>, %n: index) -> memref<?x4xf32> {
  %e = memref.expand_shape %a [[0, 1]] output_shape [%n, 4] : memref<?xf32> into memref<?x4xf32>
  return %e : memref<?x4xf32>
}
func.func @rows(%a: memref<?x4xf32>, %first: index, %count: index) -> memref<?x4xf32, strided<[4, 1], offset: ?>> {
  %s = memref.subview %a[%first, 0] [%count, 4] [1, 1] : memref<?x4xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
  return %s : memref<?x4xf32, strided<[4, 1], offset: ?>>
}
func.func @flipped(%a: memref<3x4xf32>) -> memref<4x3xf32, strided<[1, 4]>> {
  %t = memref.transpose %a (i, j) -> (j, i) : memref<3x4xf32> to memref<4x3xf32, strided<[1, 4]>>
  return %t : memref<4x3xf32, strided<[1, 4]>>
}
func.func @collapse_rank3(%a: memref<?x3x?xf32>) -> memref<?x?xf32> {
  %c = memref.collapse_shape %a [[0, 1], [2]] : memref<?x3x?xf32> into memref<?x?xf32>
  return %c : memref<?x?xf32>
}
func.func @expand_rank4(%a: memref<?x?xf32>, %n: index, %m: index) -> memref<?x2x?x5xf32> {
  %e = memref.expand_shape %a [[0, 1], [2, 3]] output_shape [%n, 2, %m, 5] : memref<?x?xf32> into memref<?x2x?x5xf32>
  return %e : memref<?x2x?x5xf32>
}
func.func @split_two(%a: memref<?xf32>, %p: index, %q: index) -> memref<?x?x3xf32> {
  %e = memref.expand_shape %a [[0, 1, 2]] output_shape [%p, %q, 3] : memref<?xf32> into memref<?x?x3xf32>
  return %e : memref<?x?x3xf32>
}
func.func @expand_copy(%a: memref<?x?xf32>, %n: index, %m: index) -> memref<?x2x?x5xf32> {
  %e = memref.expand_shape %a [[0, 1], [2, 3]] output_shape [%n, 2, %m, 5] : memref<?x?xf32> into memref<?x2x?x5xf32>
  %o = memref.alloc(%n, %m) : memref<?x2x?x5xf32>
  linalg.copy ins(%e : memref<?x2x?x5xf32>) outs(%o : memref<?x2x?x5xf32>)
  return %o : memref<?x2x?x5xf32>
}
