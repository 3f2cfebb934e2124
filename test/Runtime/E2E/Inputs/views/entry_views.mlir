// Views an entry returns or passes on without a kernel touching them: they
// stay outside partitions (test/Runtime/E2E/entry-views.test).
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
