// RUN: gp-opt %s -split-input-file --gp-fuse-kernels | FileCheck %s
// RUN: gp-opt %s -split-input-file --gp-fuse-kernels=report -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORT
// RUN: gp-opt %s -split-input-file --gp-fuse-kernels=siblings=0 | FileCheck %s --check-prefix=OFF

// gp-fuse-kernels siblings: independent elementwise kernels over the same
// loop ranges share one kernel, whose one generic writes every output.

// The query, key and value heads of a fused projection: three kernels
// read thirds of one [4, 24] buffer (and its bias) and write [2, 4, 4]
// head-major buffers. They become one kernel with three outputs, where
// the last was.
#cuda0 = #gp.device<cuda:0>
#q = affine_map<(h, l, e) -> (l, h * 4 + e)>
#k = affine_map<(h, l, e) -> (l, h * 4 + e + 8)>
#v = affine_map<(h, l, e) -> (l, h * 4 + e + 16)>
#qb = affine_map<(h, l, e) -> (h * 4 + e)>
#kb = affine_map<(h, l, e) -> (h * 4 + e + 8)>
#vb = affine_map<(h, l, e) -> (h * 4 + e + 16)>
#id = affine_map<(h, l, e) -> (h, l, e)>
// REPORT: gp-fuse-kernels: @split_heads: 2 sibling merges
// REPORT-NEXT: "split_q" + "split_k": "split_q_split_k"
// REPORT-NEXT: "split_q_split_k" + "split_v": "split_q_split_k_split_v"
// CHECK-LABEL: func.func @split_heads
// CHECK-SAME: (%[[QKV:[^:]+]]: memref<4x24xf32, #cuda0>, %[[BIAS:[^:]+]]: memref<24xf32, #cuda0>, %[[Q:[^:]+]]: memref<2x4x4xf32, #cuda0>, %[[K:[^:]+]]: memref<2x4x4xf32, #cuda0>, %[[V:[^:]+]]: memref<2x4x4xf32, #cuda0>)
// CHECK-NEXT: gp.kernel "split_q_split_k_split_v" ins(%[[QKV]], %[[BIAS]] : {{.*}}) outs(%[[Q]], %[[K]], %[[V]] :
// CHECK: %[[SCALE:.+]] = arith.constant 5.000000e-01
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: ^bb0(%[[Q0:[^:]+]]: f32, %[[QB:[^:]+]]: f32, %[[K0:[^:]+]]: f32, %[[KB:[^:]+]]: f32, %[[V0:[^:]+]]: f32, %[[VB:[^:]+]]: f32,
// CHECK-NEXT: %[[QS:.+]] = arith.addf %[[Q0]], %[[QB]]
// CHECK-NEXT: %[[KS:.+]] = arith.addf %[[K0]], %[[KB]]
// CHECK-NEXT: %[[VS:.+]] = arith.addf %[[V0]], %[[VB]]
// CHECK-NEXT: %[[VSCALED:.+]] = arith.mulf %[[VS]], %[[SCALE]]
// CHECK-NEXT: linalg.yield %[[QS]], %[[KS]], %[[VSCALED]]
// CHECK-NOT: gp.kernel
// CHECK: return
// OFF-LABEL: func.func @split_heads
// OFF: gp.kernel "split_q"
// OFF: gp.kernel "split_k"
// OFF: gp.kernel "split_v"
func.func @split_heads(%qkv: memref<4x24xf32, #cuda0>, %bias: memref<24xf32, #cuda0>, %q: memref<2x4x4xf32, #cuda0>, %k: memref<2x4x4xf32, #cuda0>, %v: memref<2x4x4xf32, #cuda0>) {
  gp.kernel "split_q" ins(%qkv, %bias : memref<4x24xf32, #cuda0>, memref<24xf32, #cuda0>) outs(%q : memref<2x4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x24xf32, #cuda0>, %b: memref<24xf32, #cuda0>, %o: memref<2x4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#q, #qb, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%a, %b : memref<4x24xf32, #cuda0>, memref<24xf32, #cuda0>) outs(%o : memref<2x4x4xf32, #cuda0>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %r = arith.addf %x, %y : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "split_k" ins(%qkv, %bias : memref<4x24xf32, #cuda0>, memref<24xf32, #cuda0>) outs(%k : memref<2x4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x24xf32, #cuda0>, %b: memref<24xf32, #cuda0>, %o: memref<2x4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#k, #kb, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%a, %b : memref<4x24xf32, #cuda0>, memref<24xf32, #cuda0>) outs(%o : memref<2x4x4xf32, #cuda0>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %r = arith.addf %x, %y : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "split_v" ins(%qkv, %bias : memref<4x24xf32, #cuda0>, memref<24xf32, #cuda0>) outs(%v : memref<2x4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x24xf32, #cuda0>, %b: memref<24xf32, #cuda0>, %o: memref<2x4x4xf32, #cuda0>):
    %half = arith.constant 0.5 : f32
    linalg.generic {indexing_maps = [#v, #vb, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%a, %b : memref<4x24xf32, #cuda0>, memref<24xf32, #cuda0>) outs(%o : memref<2x4x4xf32, #cuda0>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %r = arith.addf %x, %y : f32
      %s = arith.mulf %r, %half : f32
      linalg.yield %s : f32
    }
  }
  return
}

// -----

// Not merged: the second reads what the first writes (producer-consumer
// fusion's business, which a returned buffer stops here), the third
// writes what the second reads, and the fourth has other loop ranges.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
// REPORT-NOT: @dependent: {{.*}} sibling merges
// CHECK-LABEL: func.func @dependent
// CHECK: gp.kernel "produce" ins
// CHECK: gp.kernel "consume" ins
// CHECK: gp.kernel "overwrite_input" ins
// CHECK: gp.kernel "other_ranges" ins
func.func @dependent(%x: memref<4x4xf32, #cuda0>, %y: memref<4x4xf32, #cuda0>, %z: memref<4x4xf32, #cuda0>, %w: memref<4x8xf32, #cuda0>, %u: memref<4x8xf32, #cuda0>) {
  gp.kernel "produce" ins(%x : memref<4x4xf32, #cuda0>) outs(%y : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      %r = arith.addf %e, %e : f32
      linalg.yield %r : f32
    }
  }
  // Reads y transposed: element (i, j) needs the first kernel's (j, i).
  gp.kernel "consume" ins(%y : memref<4x4xf32, #cuda0>) outs(%z : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      %r = arith.mulf %e, %e : f32
      linalg.yield %r : f32
    }
  }
  // Writes the consumer's input y.
  gp.kernel "overwrite_input" ins(%z : memref<4x4xf32, #cuda0>) outs(%y : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      %r = arith.subf %e, %e : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "other_ranges" ins(%w : memref<4x8xf32, #cuda0>) outs(%u : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      %r = arith.addf %e, %e : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Not merged: an op between the two reads what the first writes (a call
// of an extern), so the first cannot move down to the second; nor are
// reductions or kernels on two devices.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @blocked
// CHECK: gp.kernel "first" ins
// CHECK: gp.fallback "ext::read"
// CHECK: gp.kernel "second" ins
// CHECK: gp.kernel "row_sum" ins
// CHECK: gp.kernel "other_device" ins
func.func @blocked(%x: memref<4x4xf32, #cuda0>, %y: memref<4x4xf32, #cuda0>, %z: memref<4x4xf32, #cuda0>, %s: memref<4xf32, #cuda0>, %a1: memref<4x4xf32, #cuda1>, %b1: memref<4x4xf32, #cuda1>) {
  gp.kernel "first" ins(%x : memref<4x4xf32, #cuda0>) outs(%y : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      %r = arith.addf %e, %e : f32
      linalg.yield %r : f32
    }
  }
  gp.fallback "ext::read"(%y) : (memref<4x4xf32, #cuda0>) -> ()
  gp.kernel "second" ins(%x : memref<4x4xf32, #cuda0>) outs(%z : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      %r = arith.mulf %e, %e : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "row_sum" ins(%x : memref<4x4xf32, #cuda0>) outs(%s : memref<4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<4x4xf32, #cuda0>) outs(%o : memref<4xf32, #cuda0>) {
    ^bb0(%e: f32, %acc: f32):
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "other_device" ins(%a1 : memref<4x4xf32, #cuda1>) outs(%b1 : memref<4x4xf32, #cuda1>) {
  ^bb0(%a: memref<4x4xf32, #cuda1>, %o: memref<4x4xf32, #cuda1>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, #cuda1>) outs(%o : memref<4x4xf32, #cuda1>) {
    ^bb0(%e: f32, %out: f32):
      %r = arith.subf %e, %e : f32
      linalg.yield %r : f32
    }
  }
  return
}
