// RUN: gp-opt %s --split-input-file --gp-deduplicate-functions | FileCheck %s

// Two private kernels with the same body (and locations of their own) are
// one: every reference goes to the first, the second is gone. The packed
// wrappers that called them become identical and merge in the next round.
// CHECK-LABEL: module
// CHECK: func.func private @kernel_a(
// CHECK-NOT: func.func private @kernel_b
// CHECK: func.func private @packed_a(
// CHECK-NEXT: call @kernel_a
// CHECK-NOT: func.func private @packed_b
// CHECK: func.func @entry
// CHECK-NEXT: constant @packed_a
// CHECK-NEXT: constant @packed_a
// CHECK-NEXT: call @kernel_a
module {
  func.func private @kernel_a(%x: memref<4xf32>, %y: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<4xf32> loc("a.mlir":1:1)
    memref.store %v, %y[%c0] : memref<4xf32>
    return
  }
  func.func private @kernel_b(%x: memref<4xf32>, %y: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<4xf32> loc("b.mlir":7:3)
    memref.store %v, %y[%c0] : memref<4xf32>
    return
  }
  func.func private @packed_a(%x: memref<4xf32>, %y: memref<4xf32>) {
    call @kernel_a(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
    return
  }
  func.func private @packed_b(%x: memref<4xf32>, %y: memref<4xf32>) {
    call @kernel_b(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
    return
  }
  func.func @entry(%x: memref<4xf32>, %y: memref<4xf32>) {
    %a = func.constant @packed_a : (memref<4xf32>, memref<4xf32>) -> ()
    %b = func.constant @packed_b : (memref<4xf32>, memref<4xf32>) -> ()
    call @kernel_b(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
    return
  }
}

// -----

// What tells kernels apart stays: a constant (a bounds-check code), an
// operand order, a type, an attribute other than the name. Public
// functions are never merged: something outside may call them.
// CHECK-LABEL: module
// CHECK: func.func private @code_1(
// CHECK: func.func private @code_2(
// CHECK: func.func private @swapped(
// CHECK: func.func private @subtract(
// CHECK: func.func private @wider(
// CHECK: func.func private @attributed(
// CHECK: func.func @public_1(
// CHECK: func.func @public_2(
module {
  func.func private @code_1(%flag: memref<i64>) {
    %c = arith.constant 1 : i64
    memref.store %c, %flag[] : memref<i64>
    return
  }
  func.func private @code_2(%flag: memref<i64>) {
    %c = arith.constant 2 : i64
    memref.store %c, %flag[] : memref<i64>
    return
  }
  func.func private @swapped(%x: f32, %y: f32) -> f32 {
    %d = arith.subf %y, %x : f32
    return %d : f32
  }
  func.func private @subtract(%x: f32, %y: f32) -> f32 {
    %d = arith.subf %x, %y : f32
    return %d : f32
  }
  func.func private @wider(%x: f64, %y: f64) -> f64 {
    %d = arith.subf %x, %y : f64
    return %d : f64
  }
  func.func private @attributed(%x: f32, %y: f32) -> f32 attributes {llvm.emit_c_interface} {
    %d = arith.subf %x, %y : f32
    return %d : f32
  }
  func.func @public_1() {
    return
  }
  func.func @public_2() {
    return
  }
}

// -----

// Kernels in a gpu.module: launches from outside name them @mod::@f.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.func @k1(
// CHECK-NOT: gpu.func @k2(
// CHECK: gpu.func @k3(
// CHECK: gpu.launch_func @gp_kernels::@k1
// CHECK-NEXT: gpu.launch_func @gp_kernels::@k1
// CHECK-NEXT: gpu.launch_func @gp_kernels::@k3
module attributes {gpu.container_module} {
  gpu.module @gp_kernels {
    gpu.func @k1(%x: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %x[%c0] : memref<4xf32>
      gpu.return
    }
    gpu.func @k2(%x: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %x[%c0] : memref<4xf32>
      gpu.return
    }
    gpu.func @k3(%x: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %two = arith.constant 2.0 : f32
      memref.store %two, %x[%c0] : memref<4xf32>
      gpu.return
    }
  }
  func.func @launch(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @gp_kernels::@k1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @gp_kernels::@k2 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @gp_kernels::@k3 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
}
