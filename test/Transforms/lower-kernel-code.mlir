// RUN: gp-opt %s --gp-lower-kernel-code | FileCheck %s

// The upstream lowerings of kernel code (linalg to loops, views to strided
// metadata, affine to arith, loops to branches, math to LLVM intrinsics or
// libm calls) run on the functions that hold such code, and on no other:
// glue already in the LLVM dialect is left exactly as it is (the greedy
// rewrites of the upstream passes would have merged its two equal
// constants), which is what makes the pass cheap on a large program.

// erf becomes a call to libm's erff, declared in the module.
// CHECK: func.func private @erff(f32) -> f32
// CHECK-LABEL: func.func private @kernel(
// CHECK-NOT: linalg.
// CHECK-NOT: scf.
// CHECK-NOT: affine.
// CHECK-NOT: memref.subview
// CHECK: cf.cond_br
// CHECK: llvm.intr.exp
// CHECK: call @erff
// CHECK: llvm.intr.log
// CHECK: return
func.func private @kernel(%in: memref<8x4xf32>, %out: memref<4xf32>) {
  %row = memref.subview %in[2, 0] [1, 4] [1, 1]
      : memref<8x4xf32> to memref<4xf32, strided<[1], offset: 8>>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%row : memref<4xf32, strided<[1], offset: 8>>)
      outs(%out : memref<4xf32>) {
  ^bb0(%x: f32, %unused: f32):
    %e = math.exp %x : f32
    %f = math.erf %e : f32
    %g = math.asinh %f : f32
    linalg.yield %g : f32
  }
  return
}

// CHECK-LABEL: func.func @glue(
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[SAME:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[SUM:.*]] = llvm.add %[[ZERO]], %[[SAME]] : i32
// CHECK-NEXT: return %[[SUM]] : i32
func.func @glue(%p: !llvm.ptr) -> i32 {
  %zero = llvm.mlir.constant(0 : i32) : i32
  %same = llvm.mlir.constant(0 : i32) : i32
  %sum = llvm.add %zero, %same : i32
  return %sum : i32
}
