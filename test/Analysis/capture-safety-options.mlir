// Custom rules name fallback ops with or without an overload; a rule
// without one matches every overload, a rule with one matches only it.
// RUN: gp-opt %s -test-gp-capture-safety="unsafe-ops=aten::mm" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY
// RUN: gp-opt %s -test-gp-capture-safety="unsafe-ops=aten::mm.default" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: gp-opt %s -test-gp-capture-safety="unsafe-ops=aten::mm.out,mylib::other" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: gp-opt %s -test-gp-capture-safety="skip-dynamic-graphs=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DYNAMIC

#cuda0 = #gp.device<cuda:0>

func.func @rules(%x: memref<8xf32, #cuda0>, %d: memref<?xf32, #cuda0>) {
  // ANY: [[@LINE+4]]:8: remark: compute: custom rule: aten::mm{{$}}
  // EXACT: [[@LINE+3]]:8: remark: compute: custom rule: aten::mm.default{{$}}
  // OTHER: [[@LINE+2]]:8: remark: compute: capture-safe
  // DYNAMIC: [[@LINE+1]]:8: remark: compute: capture-safe
  %a = gp.fallback "aten::mm.default"(%x, %x) : (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  // ANY: [[@LINE+4]]:8: remark: compute: custom rule: aten::mm{{$}}
  // EXACT: [[@LINE+3]]:8: remark: compute: capture-safe
  // OTHER: [[@LINE+2]]:8: remark: compute: capture-safe
  // DYNAMIC: [[@LINE+1]]:8: remark: compute: capture-safe
  %b = gp.fallback "aten::mm"(%x, %x) : (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  // Symbolic sizes are captured (one graph per shape) unless
  // skip-dynamic-graphs is set.
  // ANY: [[@LINE+2]]:3: remark: compute: capture-safe
  // DYNAMIC: [[@LINE+1]]:3: remark: compute: dynamic shapes
  gp.kernel "dyn" outs(%d : memref<?xf32, #cuda0>) {
  ^bb0(%o: memref<?xf32, #cuda0>):
  }
  return
}
