// RUN: gp-opt %s -split-input-file --convert-gp-to-gpu | FileCheck %s
// RUN: gp-opt %s -split-input-file --convert-gp-to-gpu=library-calls=0 | FileCheck %s --check-prefix=OFF

#cuda0 = #gp.device<cuda:0>

// A matmul after a zero fill in its kernel: one gp::matmul call that
// overwrites C (element type 0 = f32, accumulate 0), no kernel left.
// CHECK-LABEL: func.func @matmul_zero_filled
// CHECK-SAME: (%[[A:.+]]: memref<16x32xf32, #cuda0>, %[[B:.+]]: memref<32x8xf32, #cuda0>, %[[C:.+]]: memref<16x8xf32, #cuda0>)
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[OVERWRITE:.+]] = arith.constant 0 : i64
// CHECK: gp.fallback "gp::matmul"(%[[A]], %[[B]], %[[C]], %{{.+}}, %{{.+}}) mutates [2] : (memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>, memref<16x8xf32, #cuda0>, i64, i64) -> ()
// CHECK-NOT: gpu.launch_func
// CHECK: return
// OFF-LABEL: func.func @matmul_zero_filled
// OFF-NOT: gp.fallback
// OFF: gpu.launch_func
func.func @matmul_zero_filled(%a: memref<16x32xf32, #cuda0>, %b: memref<32x8xf32, #cuda0>, %c: memref<16x8xf32, #cuda0>) {
  gp.kernel "mm" ins(%a, %b : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%c : memref<16x8xf32, #cuda0>) {
  ^bb0(%x: memref<16x32xf32, #cuda0>, %y: memref<32x8xf32, #cuda0>, %out: memref<16x8xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<16x8xf32, #cuda0>)
    linalg.matmul ins(%x, %y : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%out : memref<16x8xf32, #cuda0>)
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Without a fill the matmul adds to C: accumulate 1.
// CHECK-LABEL: func.func @matmul_accumulates
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[ACCUMULATE:.+]] = arith.constant 1 : i64
// CHECK: gp.fallback "gp::matmul"(%{{.+}}, %{{.+}}, %{{.+}}, %[[F32]], %[[ACCUMULATE]]) mutates [2]
func.func @matmul_accumulates(%a: memref<16x32xf32, #cuda0>, %b: memref<32x8xf32, #cuda0>, %c: memref<16x8xf32, #cuda0>) {
  gp.kernel "mm" ins(%a, %b : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%c : memref<16x8xf32, #cuda0>) {
  ^bb0(%x: memref<16x32xf32, #cuda0>, %y: memref<32x8xf32, #cuda0>, %out: memref<16x8xf32, #cuda0>):
    linalg.matmul ins(%x, %y : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%out : memref<16x8xf32, #cuda0>)
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#km = affine_map<(m, n, k) -> (k, m)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>

// A generic contraction with both operands transposed, its multiply-add in
// another operand order: the operands become transposed views, and the
// zero-fill kernel before it becomes the call's overwrite mode.
// CHECK-LABEL: func.func @transposed_generic
// CHECK-SAME: (%[[A:.+]]: memref<32x16xf32, #cuda0>, %[[B:.+]]: memref<8x32xf32, #cuda0>, %[[C:.+]]: memref<16x8xf32, #cuda0>)
// CHECK-NOT: gpu.launch_func
// CHECK-DAG: %[[AT:.+]] = gp.buffer.transpose %[[A]] [1, 0] : memref<32x16xf32, #cuda0> to memref<16x32xf32, strided<[1, 16]>, #cuda0>
// CHECK-DAG: %[[BT:.+]] = gp.buffer.transpose %[[B]] [1, 0] : memref<8x32xf32, #cuda0> to memref<32x8xf32, strided<[1, 32]>, #cuda0>
// CHECK: %[[F32:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[OVERWRITE:.+]] = arith.constant 0 : i64
// CHECK-NEXT: gp.fallback "gp::matmul"(%[[AT]], %[[BT]], %[[C]], %[[F32]], %[[OVERWRITE]]) mutates [2]
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @transposed_generic(%a: memref<32x16xf32, #cuda0>, %b: memref<8x32xf32, #cuda0>, %c: memref<16x8xf32, #cuda0>) {
  gp.kernel "zero" outs(%c : memref<16x8xf32, #cuda0>) {
  ^bb0(%out: memref<16x8xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<16x8xf32, #cuda0>)
  }
  gp.kernel "mm_tt" ins(%a, %b : memref<32x16xf32, #cuda0>, memref<8x32xf32, #cuda0>) outs(%c : memref<16x8xf32, #cuda0>) {
  ^bb0(%x: memref<32x16xf32, #cuda0>, %y: memref<8x32xf32, #cuda0>, %out: memref<16x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#km, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %y : memref<32x16xf32, #cuda0>, memref<8x32xf32, #cuda0>) outs(%out : memref<16x8xf32, #cuda0>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %prod = arith.mulf %q, %p : f32
      %sum = arith.addf %acc, %prod : f32
      linalg.yield %sum : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// The zero-fill kernel and the matmul separated by ops that touch no
// memory (a reshape of the operand, as an importer writes x.view(-1, k), and
// the allocation of another buffer): still the call's overwrite mode.
// CHECK-LABEL: func.func @fill_then_view_then_matmul
// CHECK-NOT: gpu.launch_func
// CHECK: %[[F32:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[OVERWRITE:.+]] = arith.constant 0 : i64
// CHECK-NEXT: gp.fallback "gp::matmul"(%{{.+}}, %{{.+}}, %{{.+}}, %[[F32]], %[[OVERWRITE]]) mutates [2]
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @fill_then_view_then_matmul(%a: memref<2x8x32xf32, #cuda0>, %b: memref<32x8xf32, #cuda0>, %c: memref<16x8xf32, #cuda0>) -> memref<4xf32, #cuda0> {
  gp.kernel "zero" outs(%c : memref<16x8xf32, #cuda0>) {
  ^bb0(%out: memref<16x8xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<16x8xf32, #cuda0>)
  }
  %a2 = gp.buffer.reshape %a() : memref<2x8x32xf32, #cuda0> to memref<16x32xf32, #cuda0>
  %other = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "mm" ins(%a2, %b : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%c : memref<16x8xf32, #cuda0>) {
  ^bb0(%x: memref<16x32xf32, #cuda0>, %y: memref<32x8xf32, #cuda0>, %out: memref<16x8xf32, #cuda0>):
    linalg.matmul ins(%x, %y : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%out : memref<16x8xf32, #cuda0>)
  }
  return %other : memref<4xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// A fill of anything but +0.0 stays a kernel and the call accumulates.
// CHECK-LABEL: func.func @one_filled
// CHECK: gpu.launch_func @gp_kernels::@fill_one
// CHECK: %[[ACCUMULATE:.+]] = arith.constant 1 : i64
// CHECK: gp.fallback "gp::matmul"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ACCUMULATE]])
func.func @one_filled(%a: memref<16x32xf32, #cuda0>, %b: memref<32x8xf32, #cuda0>, %c: memref<16x8xf32, #cuda0>) {
  gp.kernel "fill_one" outs(%c : memref<16x8xf32, #cuda0>) {
  ^bb0(%out: memref<16x8xf32, #cuda0>):
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%out : memref<16x8xf32, #cuda0>)
  }
  gp.kernel "mm" ins(%a, %b : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%c : memref<16x8xf32, #cuda0>) {
  ^bb0(%x: memref<16x32xf32, #cuda0>, %y: memref<32x8xf32, #cuda0>, %out: memref<16x8xf32, #cuda0>):
    linalg.matmul ins(%x, %y : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%out : memref<16x8xf32, #cuda0>)
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#a = affine_map<(b, m, n, k) -> (m, b, k)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// batch_matmul in f16 (element type 1), and a batched generic whose left
// operand holds the batch in its second dimension, in bf16 (2).
// CHECK-LABEL: func.func @batched
// CHECK-SAME: (%[[A:.+]]: memref<4x16x32xf16, #cuda0>, %[[B:.+]]: memref<4x32x8xf16, #cuda0>, %[[C:.+]]: memref<4x16x8xf16, #cuda0>, %[[P:.+]]: memref<16x4x32xbf16, #cuda0>, %[[Q:.+]]: memref<4x32x8xbf16, #cuda0>, %[[R:.+]]: memref<4x16x8xbf16, #cuda0>)
// CHECK-DAG: %[[F16:.+]] = arith.constant 1 : i64
// CHECK: gp.fallback "gp::matmul"(%[[A]], %[[B]], %[[C]], %[[F16]], %{{.+}}) mutates [2] : (memref<4x16x32xf16, #cuda0>
// CHECK: %[[PT:.+]] = gp.buffer.transpose %[[P]] [1, 0, 2] : memref<16x4x32xbf16, #cuda0> to memref<4x16x32xbf16, strided<[32, 128, 1]>, #cuda0>
// CHECK-DAG: %[[BF16:.+]] = arith.constant 2 : i64
// CHECK: gp.fallback "gp::matmul"(%[[PT]], %[[Q]], %[[R]], %[[BF16]], %{{.+}}) mutates [2]
// CHECK-NOT: gpu.launch_func
func.func @batched(%a: memref<4x16x32xf16, #cuda0>, %b: memref<4x32x8xf16, #cuda0>, %c: memref<4x16x8xf16, #cuda0>,
                   %p: memref<16x4x32xbf16, #cuda0>, %q: memref<4x32x8xbf16, #cuda0>, %r: memref<4x16x8xbf16, #cuda0>) {
  gp.kernel "bmm" ins(%a, %b : memref<4x16x32xf16, #cuda0>, memref<4x32x8xf16, #cuda0>) outs(%c : memref<4x16x8xf16, #cuda0>) {
  ^bb0(%x: memref<4x16x32xf16, #cuda0>, %y: memref<4x32x8xf16, #cuda0>, %out: memref<4x16x8xf16, #cuda0>):
    linalg.batch_matmul ins(%x, %y : memref<4x16x32xf16, #cuda0>, memref<4x32x8xf16, #cuda0>) outs(%out : memref<4x16x8xf16, #cuda0>)
  }
  gp.kernel "bmm_batch_inside" ins(%p, %q : memref<16x4x32xbf16, #cuda0>, memref<4x32x8xbf16, #cuda0>) outs(%r : memref<4x16x8xbf16, #cuda0>) {
  ^bb0(%x: memref<16x4x32xbf16, #cuda0>, %y: memref<4x32x8xbf16, #cuda0>, %out: memref<4x16x8xbf16, #cuda0>):
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%x, %y : memref<16x4x32xbf16, #cuda0>, memref<4x32x8xbf16, #cuda0>) outs(%out : memref<4x16x8xbf16, #cuda0>) {
    ^bb0(%u: bf16, %v: bf16, %acc: bf16):
      %prod = arith.mulf %u, %v : bf16
      %sum = arith.addf %acc, %prod : bf16
      linalg.yield %sum : bf16
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// What cuBLAS does not compute stays a kernel: integers, mixed element
// types (f16 operands, f32 result), an output that is a view of an operand's
// buffer, a body that is not a plain multiply-add, a contraction followed
// by more work in the same kernel, and an operand with no unit stride (a
// window taking every other column).
// CHECK-LABEL: func.func @refused
// CHECK-NOT: gp.fallback
// CHECK: gpu.launch_func @gp_kernels::@int_mm
// CHECK: gpu.launch_func @gp_kernels::@mixed_mm
// CHECK: gpu.launch_func @gp_kernels::@self_mm
// CHECK: gpu.launch_func @gp_kernels::@sub_mm
// CHECK: gpu.launch_func @gp_kernels::@mm_then_relu
// CHECK: gpu.launch_func @gp_kernels::@strided_mm
// CHECK-NOT: gp.fallback
// CHECK: return
func.func @refused(%ia: memref<16x32xi32, #cuda0>, %ib: memref<32x8xi32, #cuda0>, %ic: memref<16x8xi32, #cuda0>,
                   %ha: memref<16x32xf16, #cuda0>, %hb: memref<32x8xf16, #cuda0>, %fc: memref<16x8xf32, #cuda0>,
                   %sq: memref<32x32xf32, #cuda0>, %a: memref<16x32xf32, #cuda0>, %b: memref<32x8xf32, #cuda0>,
                   %wide: memref<16x64xf32, #cuda0>) {
  gp.kernel "int_mm" ins(%ia, %ib : memref<16x32xi32, #cuda0>, memref<32x8xi32, #cuda0>) outs(%ic : memref<16x8xi32, #cuda0>) {
  ^bb0(%x: memref<16x32xi32, #cuda0>, %y: memref<32x8xi32, #cuda0>, %out: memref<16x8xi32, #cuda0>):
    linalg.matmul ins(%x, %y : memref<16x32xi32, #cuda0>, memref<32x8xi32, #cuda0>) outs(%out : memref<16x8xi32, #cuda0>)
  }
  gp.kernel "mixed_mm" ins(%ha, %hb : memref<16x32xf16, #cuda0>, memref<32x8xf16, #cuda0>) outs(%fc : memref<16x8xf32, #cuda0>) {
  ^bb0(%x: memref<16x32xf16, #cuda0>, %y: memref<32x8xf16, #cuda0>, %out: memref<16x8xf32, #cuda0>):
    linalg.matmul ins(%x, %y : memref<16x32xf16, #cuda0>, memref<32x8xf16, #cuda0>) outs(%out : memref<16x8xf32, #cuda0>)
  }
  %top = gp.buffer.slice %sq[0, 0] [16, 32] [1, 1] : memref<32x32xf32, #cuda0> to memref<16x32xf32, strided<[32, 1]>, #cuda0>
  %left = gp.buffer.slice %sq[0, 0] [32, 16] [1, 1] : memref<32x32xf32, #cuda0> to memref<32x16xf32, strided<[32, 1]>, #cuda0>
  %corner = gp.buffer.slice %sq[16, 16] [16, 16] [1, 1] : memref<32x32xf32, #cuda0> to memref<16x16xf32, strided<[32, 1], offset: 528>, #cuda0>
  gp.kernel "self_mm" ins(%top, %left : memref<16x32xf32, strided<[32, 1]>, #cuda0>, memref<32x16xf32, strided<[32, 1]>, #cuda0>) outs(%corner : memref<16x16xf32, strided<[32, 1], offset: 528>, #cuda0>) {
  ^bb0(%x: memref<16x32xf32, strided<[32, 1]>, #cuda0>, %y: memref<32x16xf32, strided<[32, 1]>, #cuda0>, %out: memref<16x16xf32, strided<[32, 1], offset: 528>, #cuda0>):
    linalg.matmul ins(%x, %y : memref<16x32xf32, strided<[32, 1]>, #cuda0>, memref<32x16xf32, strided<[32, 1]>, #cuda0>) outs(%out : memref<16x16xf32, strided<[32, 1], offset: 528>, #cuda0>)
  }
  gp.kernel "sub_mm" ins(%a, %b : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%fc : memref<16x8xf32, #cuda0>) {
  ^bb0(%x: memref<16x32xf32, #cuda0>, %y: memref<32x8xf32, #cuda0>, %out: memref<16x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %y : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%out : memref<16x8xf32, #cuda0>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %prod = arith.mulf %p, %q : f32
      %diff = arith.subf %acc, %prod : f32
      linalg.yield %diff : f32
    }
  }
  gp.kernel "mm_then_relu" ins(%a, %b : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%fc : memref<16x8xf32, #cuda0>) {
  ^bb0(%x: memref<16x32xf32, #cuda0>, %y: memref<32x8xf32, #cuda0>, %out: memref<16x8xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<16x8xf32, #cuda0>)
    linalg.matmul ins(%x, %y : memref<16x32xf32, #cuda0>, memref<32x8xf32, #cuda0>) outs(%out : memref<16x8xf32, #cuda0>)
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        outs(%out : memref<16x8xf32, #cuda0>) {
    ^bb0(%o: f32):
      %r = arith.maximumf %o, %zero : f32
      linalg.yield %r : f32
    }
  }
  %everyOther = gp.buffer.slice %wide[0, 0] [16, 32] [1, 2] : memref<16x64xf32, #cuda0> to memref<16x32xf32, strided<[64, 2]>, #cuda0>
  gp.kernel "strided_mm" ins(%everyOther, %b : memref<16x32xf32, strided<[64, 2]>, #cuda0>, memref<32x8xf32, #cuda0>) outs(%fc : memref<16x8xf32, #cuda0>) {
  ^bb0(%x: memref<16x32xf32, strided<[64, 2]>, #cuda0>, %y: memref<32x8xf32, #cuda0>, %out: memref<16x8xf32, #cuda0>):
    linalg.matmul ins(%x, %y : memref<16x32xf32, strided<[64, 2]>, #cuda0>, memref<32x8xf32, #cuda0>) outs(%out : memref<16x8xf32, #cuda0>)
  }
  return
}
