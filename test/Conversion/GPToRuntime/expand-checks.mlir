// RUN: gp-opt %s --gp-pipeline --convert-gp-to-runtime | FileCheck %s

// An expand's dynamic output sizes are the program's, not the source's: a
// view of [n, 2, m, 5] over a 6x15 buffer with n = 4 would be read past
// the buffer's end. Where such a view is lowered (the entry point, or a
// partition body), each group with a dynamic size is checked against its
// source dimension before anything uses the view; a failed check returns
// its status, so the call stops there. The message names the op and its
// source location.
// CHECK-DAG: llvm.mlir.global internal constant @[[ENTRY:.+]]("'memref.expand_shape' at entry.py:3:7\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[STATIC:.+]]("'memref.expand_shape' at static.py:6:7\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[BODY:.+]]("'memref.expand_shape' at body.py:9:7\00")

// Both groups dynamic: one check each, taking the source dimension, its
// size, the group's first result dimension, its sizes and their count.
// CHECK-LABEL: func.func @gp_entry_entry_expand
// CHECK: %[[DIM0:.+]] = memref.dim %[[SRC:.+]], %c0 : memref<?x?xf32>
// CHECK: %[[SIZE0:.+]] = arith.index_cast %[[DIM0]] : index to i64
// CHECK: %[[OP0:.+]] = llvm.mlir.addressof @[[ENTRY]]
// CHECK-NEXT: %[[SOURCE0:.+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[FIRST0:.+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[COUNT0:.+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: %[[STATUS0:.+]] = call @gpRtCheckExpandShape(%[[OP0]], %[[SOURCE0]], %[[SIZE0]], %[[FIRST0]], %{{.+}}, %[[COUNT0]])
// CHECK: cf.cond_br %{{.+}}, ^[[FAIL0:.+]], ^
// CHECK: ^[[FAIL0]]:
// CHECK-NEXT: return %[[STATUS0]] : i32
// CHECK: %[[DIM1:.+]] = memref.dim %[[SRC]], %c1 : memref<?x?xf32>
// CHECK: %[[SIZE1:.+]] = arith.index_cast %[[DIM1]] : index to i64
// CHECK: %[[OP1:.+]] = llvm.mlir.addressof @[[ENTRY]]
// CHECK-NEXT: %[[SOURCE1:.+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[FIRST1:.+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: %[[COUNT1:.+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: call @gpRtCheckExpandShape(%[[OP1]], %[[SOURCE1]], %[[SIZE1]], %[[FIRST1]], %{{.+}}, %[[COUNT1]])
// CHECK-NOT: gpRtCheckExpandShape
// CHECK: return
#cuda0 = #gp.device<cuda:0>
func.func @entry_expand(%a: memref<?x?xf32, #cuda0>, %n: index, %m: index) -> memref<?x2x?x5xf32, #cuda0> {
  %v = gp.buffer.reshape %a(%n, %m) expand [[0, 1], [2, 3]] : memref<?x?xf32, #cuda0> to memref<?x2x?x5xf32, #cuda0> loc("entry.py":3:7)
  return %v : memref<?x2x?x5xf32, #cuda0>
}

// A static group of a static dimension (2 x 3 of 6) is the verifier's: only
// the dynamic one is checked.
// CHECK-LABEL: func.func @gp_entry_static_group
// CHECK: llvm.mlir.addressof @[[STATIC]]
// CHECK-NEXT: llvm.mlir.constant(0 : i64) : i64
// CHECK: call @gpRtCheckExpandShape
// CHECK-NOT: gpRtCheckExpandShape
// CHECK: return
func.func @static_group(%a: memref<?x6xf32, #cuda0>, %n: index) -> memref<?x2x2x3xf32, #cuda0> {
  %v = gp.buffer.reshape %a(%n) expand [[0, 1], [2, 3]] : memref<?x6xf32, #cuda0> to memref<?x2x2x3xf32, #cuda0> loc("static.py":6:7)
  return %v : memref<?x2x2x3xf32, #cuda0>
}

// In a partition, the body checks before the copy reads the view (the
// body runs for a shape's warm-ups and captures: a size that fails is
// never captured).
// CHECK-LABEL: func.func @gp_entry_in_partition
// CHECK-NOT: gpRtCheckExpandShape
// CHECK: call @gpRtRunPartitionInContext
// CHECK-LABEL: func.func private @gp_partition_in_partition_0
// CHECK: llvm.mlir.addressof @[[BODY]]
// CHECK: call @gpRtCheckExpandShape
// CHECK: call @gpRtCopy
func.func @in_partition(%a: memref<?xf32, #cuda0>, %n: index) -> memref<?x4xf32, #cuda0> {
  %v = gp.buffer.reshape %a(%n) expand [[0, 1]] : memref<?xf32, #cuda0> to memref<?x4xf32, #cuda0> loc("body.py":9:7)
  %o = gp.buffer.alloc(%n) : memref<?x4xf32, #cuda0>
  gp.copy %v, %o : memref<?x4xf32, #cuda0> to memref<?x4xf32, #cuda0>
  return %o : memref<?x4xf32, #cuda0>
}

// A reshape without groups (the compiler's own views) is not checked.
// CHECK-LABEL: func.func @gp_entry_unchecked
// CHECK-NOT: gpRtCheckExpandShape
// CHECK: return
func.func @unchecked(%a: memref<?xf32, #cuda0>, %n: index) -> memref<?x4xf32, #cuda0> {
  %v = gp.buffer.reshape %a(%n) : memref<?xf32, #cuda0> to memref<?x4xf32, #cuda0>
  return %v : memref<?x4xf32, #cuda0>
}
