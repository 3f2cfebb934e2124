// Views as kernels, copies and externs take them, checked against numpy by
// test/Runtime/E2E/reference_check.py (views.test, views-cuda.test;
// references in views.cases.py): transposed and permuted views read by
// kernels and copied by gp.copy, and slices of buffers with symbolic sizes
// at static and dynamic offsets.
#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// y = x^T + 1, the kernel reading the transposed view.
func.func @transpose_add(%x: memref<6x10xf32, #cuda0>) -> memref<10x6xf32, #cuda0> {
  %t = gp.buffer.transpose %x [1, 0] : memref<6x10xf32, #cuda0> to memref<10x6xf32, strided<[1, 10]>, #cuda0>
  %y = gp.buffer.alloc() : memref<10x6xf32, #cuda0>
  gp.kernel "add_one" ins(%t : memref<10x6xf32, strided<[1, 10]>, #cuda0>) outs(%y : memref<10x6xf32, #cuda0>) {
  ^bb0(%in: memref<10x6xf32, strided<[1, 10]>, #cuda0>, %out: memref<10x6xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<10x6xf32, strided<[1, 10]>, #cuda0>) outs(%out : memref<10x6xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<10x6xf32, #cuda0>
}

// y = x.permute(2, 0, 1), materialized by a copy kernel.
func.func @permute3(%x: memref<2x3x4xf32, #cuda0>) -> memref<4x2x3xf32, #cuda0> {
  %p = gp.buffer.transpose %x [2, 0, 1] : memref<2x3x4xf32, #cuda0> to memref<4x2x3xf32, strided<[1, 12, 4]>, #cuda0>
  %y = gp.buffer.alloc() : memref<4x2x3xf32, #cuda0>
  gp.kernel "materialize" ins(%p : memref<4x2x3xf32, strided<[1, 12, 4]>, #cuda0>) outs(%y : memref<4x2x3xf32, #cuda0>) {
  ^bb0(%in: memref<4x2x3xf32, strided<[1, 12, 4]>, #cuda0>, %out: memref<4x2x3xf32, #cuda0>):
    linalg.copy ins(%in : memref<4x2x3xf32, strided<[1, 12, 4]>, #cuda0>) outs(%out : memref<4x2x3xf32, #cuda0>)
  }
  return %y : memref<4x2x3xf32, #cuda0>
}

// y = x^T by gp.copy: a strided source.
func.func @copy_transposed(%x: memref<5x7xf32, #cuda0>) -> memref<7x5xf32, #cuda0> {
  %t = gp.buffer.transpose %x [1, 0] : memref<5x7xf32, #cuda0> to memref<7x5xf32, strided<[1, 7]>, #cuda0>
  %y = gp.buffer.alloc() : memref<7x5xf32, #cuda0>
  gp.copy %t, %y : memref<7x5xf32, strided<[1, 7]>, #cuda0> to memref<7x5xf32, #cuda0>
  return %y : memref<7x5xf32, #cuda0>
}

// y[1:4, 2:6] = x^T: a copy into a strided window of a zeroed buffer.
func.func @copy_into_window(%x: memref<4x3xf32, #cuda0>) -> memref<5x8xf32, #cuda0> {
  %y = gp.buffer.alloc() : memref<5x8xf32, #cuda0>
  gp.kernel "zero" outs(%y : memref<5x8xf32, #cuda0>) {
  ^bb0(%out: memref<5x8xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<5x8xf32, #cuda0>)
  }
  %w = gp.buffer.slice %y[1, 2] [3, 4] [1, 1] : memref<5x8xf32, #cuda0> to memref<3x4xf32, strided<[8, 1], offset: 10>, #cuda0>
  %t = gp.buffer.transpose %x [1, 0] : memref<4x3xf32, #cuda0> to memref<3x4xf32, strided<[1, 3]>, #cuda0>
  gp.copy %t, %w : memref<3x4xf32, strided<[1, 3]>, #cuda0> to memref<3x4xf32, strided<[8, 1], offset: 10>, #cuda0>
  return %y : memref<5x8xf32, #cuda0>
}

// (2 * x[1, :], 2 * x[:, 1]) of x with s0 x s1 elements: slices with
// symbolic sizes of a buffer with symbolic sizes (so a dynamic row
// stride), at a static row (an offset of s1: dynamic) and at a static
// column (an offset of 0 * s1 + 1: static).
func.func @slice_symbolic(%x: memref<?x?xf32, #cuda0>) -> (memref<1x?xf32, #cuda0>, memref<?x1xf32, #cuda0>) {
  %s0 = gp.symint.dim "s0" = %x[0] {min = 2 : i64} : memref<?x?xf32, #cuda0>
  %s1 = gp.symint.dim "s1" = %x[1] {min = 2 : i64} : memref<?x?xf32, #cuda0>
  %row = gp.buffer.slice %x[1, 0] [1, %s1] [1, 1] : memref<?x?xf32, #cuda0> to memref<1x?xf32, strided<[?, 1], offset: ?>, #cuda0>
  %col = gp.buffer.slice %x[0, 1] [%s0, 1] [1, 1] : memref<?x?xf32, #cuda0> to memref<?x1xf32, strided<[?, 1], offset: 1>, #cuda0>
  %y0 = gp.buffer.alloc(%s1) : memref<1x?xf32, #cuda0>
  %y1 = gp.buffer.alloc(%s0) : memref<?x1xf32, #cuda0>
  gp.kernel "double" ins(%row, %col : memref<1x?xf32, strided<[?, 1], offset: ?>, #cuda0>, memref<?x1xf32, strided<[?, 1], offset: 1>, #cuda0>)
      outs(%y0, %y1 : memref<1x?xf32, #cuda0>, memref<?x1xf32, #cuda0>) {
  ^bb0(%r: memref<1x?xf32, strided<[?, 1], offset: ?>, #cuda0>, %c: memref<?x1xf32, strided<[?, 1], offset: 1>, #cuda0>,
       %o0: memref<1x?xf32, #cuda0>, %o1: memref<?x1xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%r : memref<1x?xf32, strided<[?, 1], offset: ?>, #cuda0>) outs(%o0 : memref<1x?xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %v = arith.addf %a, %a : f32
      linalg.yield %v : f32
    }
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%c : memref<?x1xf32, strided<[?, 1], offset: 1>, #cuda0>) outs(%o1 : memref<?x1xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %v = arith.addf %a, %a : f32
      linalg.yield %v : f32
    }
  }
  return %y0, %y1 : memref<1x?xf32, #cuda0>, memref<?x1xf32, #cuda0>
}

// y = x[k:k+8, :] + 1 where k is the length of `at` (at most 16): a
// dynamic offset.
func.func @slice_dynamic_offset(%x: memref<24x8xf32, #cuda0>, %at: memref<?xf32, #cuda0>) -> memref<8x8xf32, #cuda0> {
  %k = gp.symint.dim "k" = %at[0] {max = 16 : i64} : memref<?xf32, #cuda0>
  %w = gp.buffer.slice %x[%k, 0] [8, 8] [1, 1] : memref<24x8xf32, #cuda0> to memref<8x8xf32, strided<[8, 1], offset: ?>, #cuda0>
  %y = gp.buffer.alloc() : memref<8x8xf32, #cuda0>
  gp.kernel "add_one" ins(%w : memref<8x8xf32, strided<[8, 1], offset: ?>, #cuda0>) outs(%y : memref<8x8xf32, #cuda0>) {
  ^bb0(%in: memref<8x8xf32, strided<[8, 1], offset: ?>, #cuda0>, %out: memref<8x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<8x8xf32, strided<[8, 1], offset: ?>, #cuda0>) outs(%out : memref<8x8xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.addf %a, %one : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<8x8xf32, #cuda0>
}

// c = a^T @ b through the aten::mm extern on a transposed view.
func.func @mm_extern_transposed(%a: memref<9x5xf32, #cuda0>, %b: memref<9x7xf32, #cuda0>) -> memref<5x7xf32, #cuda0> {
  %at = gp.buffer.transpose %a [1, 0] : memref<9x5xf32, #cuda0> to memref<5x9xf32, strided<[1, 5]>, #cuda0>
  %c = gp.fallback "aten::mm"(%at, %b) : (memref<5x9xf32, strided<[1, 5]>, #cuda0>, memref<9x7xf32, #cuda0>) -> memref<5x7xf32, #cuda0>
  return %c : memref<5x7xf32, #cuda0>
}
