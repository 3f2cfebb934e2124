// RUN: gp-opt %s -split-input-file --gp-fuse-kernels=rows=0 | FileCheck %s

// gp-fuse-kernels through views: a consumer that reads the producer's
// buffer through reshapes, slices and transposes of static layout (as an
// importer writes q/k/v head splits) reads the producer's inputs at the
// composed indices; the views and the buffer go away. Where a reshape's
// index arithmetic is exact no division is left.

#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#swap = affine_map<(d0, d1, d2) -> (d1, d0, d2)>

// A scale into a 4x64 buffer, viewed as 4x2x32 and read with the first two
// dimensions swapped: one kernel reading %x at (d1, d0 * 32 + d2).
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d1, d0 * 32 + d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @through_reshape
// CHECK-NOT: gp.buffer.reshape
// CHECK: gp.kernel "scale_heads" ins(%{{.+}} : memref<4x64xf32, #cuda0>)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: arith.mulf
// CHECK-NOT: gp.kernel
func.func @through_reshape(%x: memref<4x64xf32, #cuda0>) -> memref<2x4x32xf32, #cuda0> {
  %t = gp.buffer.alloc() : memref<4x64xf32, #cuda0>
  gp.kernel "scale" ins(%x : memref<4x64xf32, #cuda0>) outs(%t : memref<4x64xf32, #cuda0>) {
  ^bb0(%a: memref<4x64xf32, #cuda0>, %o: memref<4x64xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x64xf32, #cuda0>) outs(%o : memref<4x64xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %c = arith.constant 2.0 : f32
      %r = arith.mulf %v, %c : f32
      linalg.yield %r : f32
    }
  }
  %v = gp.buffer.reshape %t() : memref<4x64xf32, #cuda0> to memref<4x2x32xf32, #cuda0>
  %y = gp.buffer.alloc() : memref<2x4x32xf32, #cuda0>
  gp.kernel "heads" ins(%v : memref<4x2x32xf32, #cuda0>) outs(%y : memref<2x4x32xf32, #cuda0>) {
  ^bb0(%a: memref<4x2x32xf32, #cuda0>, %o: memref<2x4x32xf32, #cuda0>):
    linalg.generic {indexing_maps = [#swap, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%a : memref<4x2x32xf32, #cuda0>) outs(%o : memref<2x4x32xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      linalg.yield %e : f32
    }
  }
  return %y : memref<2x4x32xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A slice (columns 2..5 of a 4x8 result) through a transpose: the consumer
// reads %x at (d1, d0 + 2).
// CHECK: #[[IN:.+]] = affine_map<(d0, d1) -> (d1, d0 + 2)>
// CHECK-LABEL: func.func @through_slice_and_transpose
// CHECK-NOT: gp.buffer.slice
// CHECK-NOT: gp.buffer.transpose
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.+}}]
// CHECK: arith.negf
// CHECK: arith.addf
// CHECK-NOT: gp.kernel
func.func @through_slice_and_transpose(%x: memref<4x8xf32, #cuda0>) -> memref<4x4xf32, #cuda0> {
  %t = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "neg" ins(%x : memref<4x8xf32, #cuda0>) outs(%t : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = arith.negf %v : f32
      linalg.yield %r : f32
    }
  }
  %s = gp.buffer.slice %t [0, 2] [4, 4] [1, 1] : memref<4x8xf32, #cuda0> to memref<4x4xf32, strided<[8, 1], offset: 2>, #cuda0>
  %tr = gp.buffer.transpose %s [1, 0] : memref<4x4xf32, strided<[8, 1], offset: 2>, #cuda0> to memref<4x4xf32, strided<[1, 8], offset: 2>, #cuda0>
  %y = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "add_one" ins(%tr : memref<4x4xf32, strided<[1, 8], offset: 2>, #cuda0>) outs(%y : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, strided<[1, 8], offset: 2>, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, strided<[1, 8], offset: 2>, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      %c = arith.constant 1.0 : f32
      %r = arith.addf %e, %c : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<4x4xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A reshape whose index arithmetic is not exact (6x4 read as 4x6): the
// map divides and takes remainders.
// CHECK: #[[IN:.+]] = affine_map<(d0, d1) -> ((d0 * 6 + d1) floordiv 4, (d0 * 6 + d1) mod 4)>
// CHECK-LABEL: func.func @inexact_reshape
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.+}}]
// CHECK-NOT: gp.kernel
func.func @inexact_reshape(%x: memref<6x4xf32, #cuda0>) -> memref<4x6xf32, #cuda0> {
  %t = gp.buffer.alloc() : memref<6x4xf32, #cuda0>
  gp.kernel "exp" ins(%x : memref<6x4xf32, #cuda0>) outs(%t : memref<6x4xf32, #cuda0>) {
  ^bb0(%a: memref<6x4xf32, #cuda0>, %o: memref<6x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<6x4xf32, #cuda0>) outs(%o : memref<6x4xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = math.exp %v : f32
      linalg.yield %r : f32
    }
  }
  %v = gp.buffer.reshape %t() : memref<6x4xf32, #cuda0> to memref<4x6xf32, #cuda0>
  %y = gp.buffer.alloc() : memref<4x6xf32, #cuda0>
  gp.kernel "double" ins(%v : memref<4x6xf32, #cuda0>) outs(%y : memref<4x6xf32, #cuda0>) {
  ^bb0(%a: memref<4x6xf32, #cuda0>, %o: memref<4x6xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x6xf32, #cuda0>) outs(%o : memref<4x6xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      %r = arith.addf %e, %e : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<4x6xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Not fused: the view is also returned (the buffer outlives the
// consumer); a slice at a dynamic offset has no static map; a slice that
// keeps the first columns would index the producer's wider input by a
// loop of another size, which linalg rejects.
// CHECK-LABEL: func.func @view_escapes
// CHECK: gp.kernel "neg"
// CHECK: gp.kernel "copy"
// CHECK-LABEL: func.func @dynamic_slice
// CHECK: gp.kernel "neg"
// CHECK: gp.kernel "copy"
// CHECK-LABEL: func.func @narrowing_slice
// CHECK: gp.kernel "neg"
// CHECK: gp.kernel "copy"
func.func @view_escapes(%x: memref<4x8xf32, #cuda0>) -> (memref<4x4xf32, #cuda0>, memref<4x4xf32, strided<[8, 1]>, #cuda0>) {
  %t = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "neg" ins(%x : memref<4x8xf32, #cuda0>) outs(%t : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = arith.negf %v : f32
      linalg.yield %r : f32
    }
  }
  %s = gp.buffer.slice %t [0, 0] [4, 4] [1, 1] : memref<4x8xf32, #cuda0> to memref<4x4xf32, strided<[8, 1]>, #cuda0>
  %y = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "copy" ins(%s : memref<4x4xf32, strided<[8, 1]>, #cuda0>) outs(%y : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, strided<[8, 1]>, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, strided<[8, 1]>, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      linalg.yield %e : f32
    }
  }
  return %y, %s : memref<4x4xf32, #cuda0>, memref<4x4xf32, strided<[8, 1]>, #cuda0>
}
func.func @dynamic_slice(%x: memref<4x8xf32, #cuda0>, %at: index) -> memref<4x4xf32, #cuda0> {
  %t = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "neg" ins(%x : memref<4x8xf32, #cuda0>) outs(%t : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = arith.negf %v : f32
      linalg.yield %r : f32
    }
  }
  %s = gp.buffer.slice %t [0, %at] [4, 4] [1, 1] : memref<4x8xf32, #cuda0> to memref<4x4xf32, strided<[8, 1], offset: ?>, #cuda0>
  %y = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "copy" ins(%s : memref<4x4xf32, strided<[8, 1], offset: ?>, #cuda0>) outs(%y : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, strided<[8, 1], offset: ?>, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, strided<[8, 1], offset: ?>, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      linalg.yield %e : f32
    }
  }
  return %y : memref<4x4xf32, #cuda0>
}
func.func @narrowing_slice(%x: memref<4x8xf32, #cuda0>) -> memref<4x4xf32, #cuda0> {
  %t = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "neg" ins(%x : memref<4x8xf32, #cuda0>) outs(%t : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = arith.negf %v : f32
      linalg.yield %r : f32
    }
  }
  %s = gp.buffer.slice %t [0, 0] [4, 4] [1, 1] : memref<4x8xf32, #cuda0> to memref<4x4xf32, strided<[8, 1]>, #cuda0>
  %y = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "copy" ins(%s : memref<4x4xf32, strided<[8, 1]>, #cuda0>) outs(%y : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, strided<[8, 1]>, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, strided<[8, 1]>, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      linalg.yield %e : f32
    }
  }
  return %y : memref<4x4xf32, #cuda0>
}
