// RUN: gp-opt %s --gp-pipeline --convert-gp-to-runtime | FileCheck %s

// A symint with a declared range is checked where the entry point defines
// it, before the first partition runs (the partitioner hoists symints), so
// a value outside the range writes nothing: a[s0] = -1 with s0 = 7 on 7
// elements would write past the buffer.
// CHECK: llvm.mlir.global internal constant @[[NAME:.+]]("s0\00")
// CHECK-LABEL: func.func @gp_entry_symint_mutation_index
// CHECK: %[[STR:.+]] = llvm.mlir.addressof @[[NAME]]
// CHECK: %[[MIN:.+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[MAX:.+]] = llvm.mlir.constant(6 : i64) : i64
// CHECK: call @gpRtCheckSymInt(%[[STR]], %{{.+}}, %[[MIN]], %[[MAX]])
// CHECK: call @gpRtRunPartitionInContext

// A symint without a range is not checked.
// CHECK-LABEL: func.func @gp_entry_unranged
// CHECK-NOT: gpRtCheckSymInt
// CHECK: call @gpRtRunPartitionInContext

#cuda0 = #gp.device<cuda:0>

func.func @symint_mutation_index(%arg0: index, %a: memref<7xf32, #cuda0>)
    -> memref<7xf32, #cuda0> {
  %n = gp.symint "s0" = %arg0 {min = 0 : i64, max = 6 : i64}
  gp.kernel "store_minus_one" ins(%n : index) outs(%a : memref<7xf32, #cuda0>) {
  ^bb0(%idx: index, %out: memref<7xf32, #cuda0>):
    %minus_one = arith.constant -1.0 : f32
    memref.store %minus_one, %out[%idx] : memref<7xf32, #cuda0>
  }
  return %a : memref<7xf32, #cuda0>
}

func.func @unranged(%arg0: index, %a: memref<7xf32, #cuda0>)
    -> memref<7xf32, #cuda0> {
  %n = gp.symint "s1" = %arg0
  gp.kernel "store_minus_one" ins(%n : index) outs(%a : memref<7xf32, #cuda0>) {
  ^bb0(%idx: index, %out: memref<7xf32, #cuda0>):
  }
  return %a : memref<7xf32, #cuda0>
}
