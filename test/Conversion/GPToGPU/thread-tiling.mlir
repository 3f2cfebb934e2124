// RUN: gp-opt %s -split-input-file --convert-gp-to-gpu=elements-per-thread=4 | FileCheck %s
// RUN: gp-opt %s -split-input-file --convert-gp-to-gpu | FileCheck %s --check-prefix=ONE

// By default (elements-per-thread=1) a thread takes one element.
// ONE-LABEL: func.func @long
// ONE: gpu.launch_func {{ *}}@gp_kernels::@scale blocks in (%c4096, %c1, %c1) threads in (%c256, %c1, %c1)
// ONE-LABEL: func.func @two_per_thread
// ONE: gpu.launch_func {{ *}}@gp_kernels::@add blocks in (%c1172, %c1, %c1) threads in (%c256, %c1, %c1)

// With elements-per-thread=4, a long elementwise kernel: each of 256
// threads takes four elements 256 apart (2^20 elements, 1024 blocks) and loads all four before it stores
// any. The tiles divide the trip count, so no tile checks its bounds.
// CHECK-LABEL: func.func @long
// CHECK: gpu.launch_func {{ *}}@gp_kernels::@scale blocks in (%c1024, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-LABEL: gpu.func @scale(
// CHECK-NOT: scf.if
// CHECK-COUNT-4: memref.load
// CHECK-NOT: memref.load
// CHECK-COUNT-4: memref.store
// CHECK-NOT: scf.if
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
func.func @long(%x: memref<1024x1024xbf16, #cuda0>, %y: memref<1024x1024xbf16, #cuda0>) {
  gp.kernel "scale" ins(%x : memref<1024x1024xbf16, #cuda0>) outs(%y : memref<1024x1024xbf16, #cuda0>) {
  ^bb0(%in: memref<1024x1024xbf16, #cuda0>, %out: memref<1024x1024xbf16, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<1024x1024xbf16, #cuda0>) outs(%out : memref<1024x1024xbf16, #cuda0>) {
    ^bb0(%a: bf16, %b: bf16):
      %r = arith.mulf %a, %a : bf16
      linalg.yield %r : bf16
    }
  }
  return
}

// -----

// 300000 elements: two per thread (586 blocks of 512 elements), as four
// would leave fewer than 512 blocks. A tile
// wholly in bounds loads and adds both elements before it stores either;
// the last checks each element.
// CHECK-LABEL: func.func @two_per_thread
// CHECK: gpu.launch_func {{ *}}@gp_kernels::@add blocks in (%c586, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-LABEL: gpu.func @add(
// CHECK: %[[WHOLE:.+]] = arith.cmpi ule
// CHECK: scf.if %[[WHOLE]] {
// CHECK-COUNT-2: memref.load
// CHECK-NEXT: arith.addf
// CHECK-COUNT-2: memref.load
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.store
// CHECK-NEXT: } else {
// CHECK: arith.cmpi ult
// CHECK-NEXT: scf.if
// CHECK: arith.cmpi ult
// CHECK-NEXT: scf.if
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
func.func @two_per_thread(%x: memref<300000xf32, #cuda0>, %z: memref<300000xf32, #cuda0>, %y: memref<300000xf32, #cuda0>) {
  gp.kernel "add" ins(%x, %z : memref<300000xf32, #cuda0>, memref<300000xf32, #cuda0>) outs(%y : memref<300000xf32, #cuda0>) {
  ^bb0(%in: memref<300000xf32, #cuda0>, %in2: memref<300000xf32, #cuda0>, %out: memref<300000xf32, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%in, %in2 : memref<300000xf32, #cuda0>, memref<300000xf32, #cuda0>) outs(%out : memref<300000xf32, #cuda0>) {
    ^bb0(%a: f32, %c: f32, %b: f32):
      %r = arith.addf %a, %c : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Too few elements to share: a thread per element (391 blocks), as
// before.
// CHECK-LABEL: func.func @short
// CHECK: gpu.launch_func {{ *}}@gp_kernels::@neg blocks in (%c391, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-LABEL: gpu.func @neg(
// CHECK-COUNT-1: memref.load
// CHECK-NOT: memref.load
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
func.func @short(%x: memref<100000xf32, #cuda0>, %y: memref<100000xf32, #cuda0>) {
  gp.kernel "neg" ins(%x : memref<100000xf32, #cuda0>) outs(%y : memref<100000xf32, #cuda0>) {
  ^bb0(%in: memref<100000xf32, #cuda0>, %out: memref<100000xf32, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%in : memref<100000xf32, #cuda0>) outs(%out : memref<100000xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.negf %a : f32
      linalg.yield %r : f32
    }
  }
  return
}
