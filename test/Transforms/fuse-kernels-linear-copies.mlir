// RUN: gp-opt %s -split-input-file --gp-fuse-kernels=report=true 2>&1 | FileCheck %s

// A decode step's heads merged back ([12, 1, 64] copied into
// [1, 1, 12, 64]) move only a dimension of one element: the elements lie
// in the same order, so the copy becomes a reshape of its source and the
// projection reads that.
// CHECK-LABEL: gp-fuse-kernels: @merge_heads
// CHECK: 1 copies in linear order made views
// CHECK-LABEL: func.func @merge_heads
// CHECK: %[[H:.+]] = gp.buffer.alloc() : memref<12x1x64xf32, #cuda0>
// CHECK: gp.kernel "pv"
// CHECK-NOT: gp.kernel "merge"
// CHECK: %[[VIEW:.+]] = gp.buffer.reshape %[[H]]() : memref<12x1x64xf32, #cuda0> to memref<1x1x12x64xf32, #cuda0>
// CHECK: %[[FLAT:.+]] = gp.buffer.reshape %[[VIEW]]() : memref<1x1x12x64xf32, #cuda0> to memref<1x768xf32, #cuda0>
// CHECK: gp.kernel "proj" ins(%[[FLAT]],
#dev = #gp.device<cuda:0>
func.func @merge_heads(%p: memref<12x1x512xf32, #dev>, %cache: memref<12x512x64xf32, #dev>, %w: memref<768x768xf32, #dev>) -> memref<1x768xf32, #dev> {
  %h = gp.buffer.alloc() : memref<12x1x64xf32, #dev>
  gp.kernel "pv" ins(%p, %cache : memref<12x1x512xf32, #dev>, memref<12x512x64xf32, #dev>) outs(%h : memref<12x1x64xf32, #dev>) {
  ^bb0(%a: memref<12x1x512xf32, #dev>, %b: memref<12x512x64xf32, #dev>, %o: memref<12x1x64xf32, #dev>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<12x1x64xf32, #dev>)
    linalg.batch_matmul ins(%a, %b : memref<12x1x512xf32, #dev>, memref<12x512x64xf32, #dev>) outs(%o : memref<12x1x64xf32, #dev>)
  }
  %m = gp.buffer.alloc() : memref<1x1x12x64xf32, #dev>
  gp.kernel "merge" ins(%h : memref<12x1x64xf32, #dev>) outs(%m : memref<1x1x12x64xf32, #dev>) {
  ^bb0(%i: memref<12x1x64xf32, #dev>, %o: memref<1x1x12x64xf32, #dev>):
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%i : memref<12x1x64xf32, #dev>) outs(%o : memref<1x1x12x64xf32, #dev>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
  }
  %v = gp.buffer.reshape %m() : memref<1x1x12x64xf32, #dev> to memref<1x768xf32, #dev>
  %y = gp.buffer.alloc() : memref<1x768xf32, #dev>
  gp.kernel "proj" ins(%v, %w : memref<1x768xf32, #dev>, memref<768x768xf32, #dev>) outs(%y : memref<1x768xf32, #dev>) {
  ^bb0(%a: memref<1x768xf32, #dev>, %b: memref<768x768xf32, #dev>, %o: memref<1x768xf32, #dev>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<1x768xf32, #dev>)
    linalg.matmul ins(%a, %b : memref<1x768xf32, #dev>, memref<768x768xf32, #dev>) outs(%o : memref<1x768xf32, #dev>)
  }
  return %y : memref<1x768xf32, #dev>
}

// -----

// Left as copies: a real transpose (the elements move), a copy whose
// source is written after it (the destination must keep the old values),
// and a copy of a program argument (handed in, not this block's).
// CHECK-LABEL: func.func @kept
// CHECK: gp.kernel "transpose"
// CHECK: gp.kernel "snapshot"
// CHECK: gp.kernel "overwrite"
// CHECK: gp.kernel "argument_copy"
#dev = #gp.device<cuda:0>
func.func @kept(%x: memref<4x8xf32, #dev>) -> (memref<8x4xf32, #dev>, memref<4x8xf32, #dev>, memref<4x8xf32, #dev>, memref<4x8xf32, #dev>) {
  %a = gp.buffer.alloc() : memref<4x8xf32, #dev>
  gp.kernel "fill_a" ins(%x : memref<4x8xf32, #dev>) outs(%a : memref<4x8xf32, #dev>) {
  ^bb0(%i: memref<4x8xf32, #dev>, %o: memref<4x8xf32, #dev>):
    linalg.copy ins(%i : memref<4x8xf32, #dev>) outs(%o : memref<4x8xf32, #dev>)
  }
  %t = gp.buffer.alloc() : memref<8x4xf32, #dev>
  gp.kernel "transpose" ins(%a : memref<4x8xf32, #dev>) outs(%t : memref<8x4xf32, #dev>) {
  ^bb0(%i: memref<4x8xf32, #dev>, %o: memref<8x4xf32, #dev>):
    linalg.transpose ins(%i : memref<4x8xf32, #dev>) outs(%o : memref<8x4xf32, #dev>) permutation = [1, 0]
  }
  %s = gp.buffer.alloc() : memref<4x8xf32, #dev>
  gp.kernel "snapshot" ins(%a : memref<4x8xf32, #dev>) outs(%s : memref<4x8xf32, #dev>) {
  ^bb0(%i: memref<4x8xf32, #dev>, %o: memref<4x8xf32, #dev>):
    linalg.copy ins(%i : memref<4x8xf32, #dev>) outs(%o : memref<4x8xf32, #dev>)
  }
  gp.kernel "overwrite" outs(%a : memref<4x8xf32, #dev>) {
  ^bb0(%o: memref<4x8xf32, #dev>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<4x8xf32, #dev>)
  }
  %c = gp.buffer.alloc() : memref<4x8xf32, #dev>
  gp.kernel "argument_copy" ins(%x : memref<4x8xf32, #dev>) outs(%c : memref<4x8xf32, #dev>) {
  ^bb0(%i: memref<4x8xf32, #dev>, %o: memref<4x8xf32, #dev>):
    linalg.copy ins(%i : memref<4x8xf32, #dev>) outs(%o : memref<4x8xf32, #dev>)
  }
  return %t, %s, %a, %c : memref<8x4xf32, #dev>, memref<4x8xf32, #dev>, memref<4x8xf32, #dev>, memref<4x8xf32, #dev>
}
