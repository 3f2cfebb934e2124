// RUN: gp-opt %s --gp-pipeline --convert-gp-to-runtime --split-input-file | FileCheck %s

// A function becomes an entry point; each partition an outlined body run
// through gpRtRunPartitionInContext with its index inputs as the shape
// key; kernels host functions launched by the runtime; the manifest
// describes partitions, arenas, signatures and the entry's sizes (%x's
// length and %n are one size, the result's; the doubling keeps every
// position apart, so it may be padded). The key has two entries:
// s0, and the size of %x, which the program leaves unnamed but the kernel's
// parameters hold (gp-partition names it).

// CHECK-LABEL: llvm.mlir.global external constant @gp_manifest("graphpart-artifact 2\0Atarget host\0Aarena 0\0Ahost-arena 0\0Agenerators 0\0Aseed 0\0Adevice 0\0Awarmup-runs 1\0Acapture-sizes -\0Ashape-warning-limit 8\0Aor-error 0\0Apartition 0 capturable 2 -\0Aentry scale 2 1\0Aarg memref f32 1 ? cuda:0\0Aarg index\0Aresult memref f32 1 ? cuda:0\0Asize s0 ? a0.0,a1,r0.0 pad\0A\00")
// CHECK-LABEL: func.func @gp_entry_scale(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: call @gpRtProgramArena
// Each buffer input's layout goes in a constant table (context slot 4,
// rank 1, 4-byte elements, static offset 0), from which the runtime
// computes what the body reaches through it (its descriptor in the
// context), so that it can re-bind graphs to inputs that move.
// CHECK: %[[LAYOUTS:.*]] = llvm.mlir.addressof @gp_array_i64_4_1_4_0 : !llvm.ptr
// CHECK: %[[BODY:.*]] = constant @gp_partition_scale_0 : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK: call @gpRtRunPartitionInContext(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LAYOUTS]], %{{.*}})
// CHECK: return %{{.*}} : i32
// The body's stack slots are allocated at its start, among them its launch
// area: the launch's two descriptors (5 slots each), the pointers to them
// and a cuda kernel handle (unused here). The body folds the input's offset into its pointers.
// CHECK-LABEL: func.func private @gp_partition_scale_0(
// CHECK: %[[COUNT:.*]] = llvm.mlir.constant(2 : i64)
// CHECK-NEXT: %[[PARAMS:.*]] = llvm.alloca %[[COUNT]] x !llvm.ptr
// CHECK-NEXT: %[[COUNT:.*]] = llvm.mlir.constant(10 : i64)
// CHECK-NEXT: %[[SLOTS:.*]] = llvm.alloca %[[COUNT]] x i64
// CHECK-NEXT: llvm.mlir.constant(1 : i64)
// CHECK-NEXT: llvm.alloca %{{.*}} x !llvm.ptr
// CHECK-NEXT: llvm.mlir.constant(1 : i64)
// CHECK-NEXT: %[[OUT:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK: %[[ALIGNED:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK: %[[FOLDED:.*]] = llvm.getelementptr %[[ALIGNED]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.insertvalue %[[FOLDED]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[FOLDED]], %{{.*}}[1]
// CHECK: call @gpRtAllocate(%{{.*}}, %{{.*}}, %[[OUT]])
// CHECK-NOT: llvm.alloca
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[SLOTS]][5] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: llvm.store %{{.*}}, %[[SLOT]] : !llvm.struct
// CHECK: %[[PARAM:.*]] = llvm.getelementptr %[[PARAMS]][1]
// CHECK: llvm.store %[[SLOT]], %[[PARAM]]
// CHECK: %[[SIZES:.*]] = llvm.mlir.addressof @gp_array_i64_40_40
// CHECK: call @gpRtLaunchHostKernel(%{{.*}}, %{{.*}}, %[[PARAMS]], %[[SIZES]], %{{.*}})
// CHECK-LABEL: func.func private @gp_kernel_double_0(%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>)
// CHECK: linalg.generic
// CHECK-LABEL: func.func private @gp_kernel_double_0_packed(%{{.*}}: !llvm.ptr)
// CHECK: call @gp_kernel_double_0
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>
func.func @scale(%x: memref<?xf32, #cuda0>, %n: index) -> memref<?xf32, #cuda0> {
  %s = gp.symint "s0" = %n {hint = 4 : i64}
  %y = gp.buffer.alloc(%s) : memref<?xf32, #cuda0>
  gp.kernel "double" ins(%x : memref<?xf32, #cuda0>) outs(%y : memref<?xf32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %r = arith.addf %a, %a : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<?xf32, #cuda0>
}

// -----

// Fallbacks call the extern registry with descriptors (results of static
// shape placed in the arena by memory planning, like any buffer), each
// described by a gpRtExternArg (bytes, kind, element type, rank, result);
// the manifest states what the IR says of the extern (capturable, mutates
// nothing, one fresh result, where it is called); copies become gpRtCopy
// with their direction (2: program to host); the eager partition's reasons
// reach the manifest.

// CHECK-LABEL: @gp_manifest
// CHECK-SAME: eager 0 device copy\0Aextern mylib::op capturable [] [-] {{[^\\]*}}lower-host.mlir:{{[0-9]+}}:8\0Aentry
// CHECK-LABEL: func.func private @gp_partition_roundtrip_{{[0-9]+}}(
// The argument descriptions, allocated at the body's start.
// CHECK: %[[INFO:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-NOT: call @gpRtAllocate
// CHECK: llvm.getelementptr %{{.+}}[0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NOT: call @gpRtAllocate
// The operand: 40 bytes, a buffer (0) of f32 (0), rank 1, not a result.
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(40 : i64)
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[INFO]][0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.store %[[BYTES]], %[[AT]] : i64
// CHECK: %[[RANK:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[INFO]][16]
// CHECK-NEXT: llvm.store %[[RANK]], %[[AT]] : i32
// The result: the second entry, with isResult 1.
// CHECK: llvm.getelementptr %[[INFO]][40]
// CHECK: %[[RESULT:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[INFO]][44]
// CHECK-NEXT: llvm.store %[[RESULT]], %[[AT]] : i32
// CHECK: call @gpRtCallExtern(%{{.*}}, %{{.*}}, %{{.*}}, %[[INFO]], %{{.*}})
// CHECK-LABEL: func.func private @gp_partition_roundtrip_{{[0-9]+}}(
// CHECK: %[[KIND:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: call @gpRtCopy(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[KIND]])
#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
func.func @roundtrip(%x: memref<4xf32, #cuda0>) -> memref<4xf32, #cpu> {
  %r = gp.fallback "mylib::op"(%x) : (memref<4xf32, #cuda0>) -> memref<4xf32, #cuda0>
  %h = gp.buffer.alloc() : memref<4xf32, #cpu>
  gp.copy %r, %h : memref<4xf32, #cuda0> to memref<4xf32, #cpu>
  return %h : memref<4xf32, #cpu>
}

// -----

// The manifest names the device the program's buffers are on and carries
// the policy defaults given as options.
// RUN: gp-opt %s --split-input-file --gp-pipeline \
// RUN:   --convert-gp-to-runtime="capture-sizes=2x3,4x5 warmup-runs=2 shape-warning-limit=3 or-error=true graph-cache-capacity=5" \
// RUN:   | FileCheck %s --check-prefix=POLICY
// POLICY: @gp_manifest({{.*}}device 1\0Awarmup-runs 2\0Acapture-sizes 2x3,4x5\0Ashape-warning-limit 3\0Aor-error 1\0Agraph-cache-capacity 5\0A
// `default` is accepted as the runtime accepts it (CaptureSizes.h), and the
// manifest carries the list spelled out, key by key.
// RUN: gp-opt %s --split-input-file --gp-pipeline \
// RUN:   --convert-gp-to-runtime="capture-sizes=default,1024" \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: @gp_manifest({{.*}}\0Acapture-sizes 1,2,4,8,16,24,{{([0-9]+,)+}}496,512,1024\0A
// A cache of no keys cannot be.
// RUN: not gp-opt %s --split-input-file --gp-pipeline \
// RUN:   --convert-gp-to-runtime="graph-cache-capacity=0" 2>&1 | FileCheck %s --check-prefix=CAPACITY
// CAPACITY: convert-gp-to-runtime: graph-cache-capacity must be a positive 32-bit integer
#cuda1 = #gp.device<cuda:1>
func.func @on_second_gpu(%x: memref<4xf32, #cuda1>) -> memref<4xf32, #cuda1> {
  return %x : memref<4xf32, #cuda1>
}

// -----

// An argument whose type takes strides is marked so in the manifest; the
// runtime checks every other buffer argument is row-major at each call.
// CHECK: @gp_manifest({{.*}}entry strided_arg 1 1\0Aarg memref f32 1 4 cuda:0 strided\0Aresult memref f32 1 4 cuda:0\0A
#cuda0 = #gp.device<cuda:0>
func.func @strided_arg(%x: memref<4xf32, strided<[2]>, #cuda0>) -> memref<4xf32, #cuda0> {
  %y = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.copy %x, %y : memref<4xf32, strided<[2]>, #cuda0> to memref<4xf32, #cuda0>
  return %y : memref<4xf32, #cuda0>
}

// -----

// A partition passes on the inputs it leaves alive (for ordering); those
// are the launch's own inputs again, not fields of the result block that a
// replay would copy: the block holds the one buffer made here (40 bytes,
// not 80), and the entry returns %w's descriptor itself.

// CHECK-LABEL: func.func @gp_entry_passed_on(
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(40 : i64) : i64
// CHECK: call @gpRtRunPartitionInContext(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BYTES]], %{{.*}}, %{{.*}})
// CHECK: llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>)>
// CHECK-NOT: llvm.getelementptr %{{.*}}[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(struct
// CHECK-LABEL: func.func private @gp_partition_passed_on_0(
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>
func.func @passed_on(%x: memref<4xf32, #cuda0>, %w: memref<4xf32, #cuda0>) -> (memref<4xf32, #cuda0>, memref<4xf32, #cuda0>) {
  %y = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "add" ins(%x, %w : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%y : memref<4xf32, #cuda0>) {
  ^bb0(%a: memref<4xf32, #cuda0>, %b: memref<4xf32, #cuda0>, %out: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %b : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%out : memref<4xf32, #cuda0>) {
    ^bb0(%p: f32, %q: f32, %unused: f32):
      %r = arith.addf %p, %q : f32
      linalg.yield %r : f32
    }
  }
  return %y, %w : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>
}
