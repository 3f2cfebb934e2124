// RUN: gp-opt %s --gp-emulate-floats --split-input-file --verify-diagnostics | FileCheck %s
// RUN: gp-opt %s --gp-emulate-floats=native-bf16=1 --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=NATIVE

// Arithmetic on f8 computes in f32 and rounds each result; the f8
// conversions become integer code (no f8 type reaches LLVM but in loads,
// stores and bitcasts).
#cuda0 = #gp.device<cuda:0>
// CHECK-LABEL: func.func @f8_arith
func.func @f8_arith(%x: memref<4xf8E4M3FN, #cuda0>) {
  gp.kernel "k" outs(%x : memref<4xf8E4M3FN, #cuda0>) {
  ^bb0(%out: memref<4xf8E4M3FN, #cuda0>):
    %i = arith.constant 0 : index
    %v = memref.load %out[%i] : memref<4xf8E4M3FN, #cuda0>
    %w = arith.mulf %v, %v : f8E4M3FN
    memref.store %w, %out[%i] : memref<4xf8E4M3FN, #cuda0>
  }
  return
}
// CHECK: %[[V:.+]] = memref.load
// CHECK: %[[BYTE:.+]] = arith.bitcast %[[V]] : f8E4M3FN to i8
// CHECK: arith.extui %[[BYTE]] : i8 to i32
// CHECK: %[[PRODUCT:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: arith.bitcast %[[PRODUCT]] : f32 to i32
// CHECK: %[[NARROW:.+]] = arith.trunci %{{.+}} : i32 to i8
// CHECK: %[[W:.+]] = arith.bitcast %[[NARROW]] : i8 to f8E4M3FN
// CHECK: memref.store %[[W]]
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf

// -----

// bf16 arithmetic goes through f32 too, with its conversions as integer
// code, unless the target has bf16 (native-bf16: sm_90).
#cuda0 = #gp.device<cuda:0>
// CHECK-LABEL: func.func @bf16_add
// NATIVE-LABEL: func.func @bf16_add
func.func @bf16_add(%x: memref<4xbf16, #cuda0>) {
  gp.kernel "k" outs(%x : memref<4xbf16, #cuda0>) {
  ^bb0(%out: memref<4xbf16, #cuda0>):
    %i = arith.constant 0 : index
    %v = memref.load %out[%i] : memref<4xbf16, #cuda0>
    %w = arith.addf %v, %v : bf16
    memref.store %w, %out[%i] : memref<4xbf16, #cuda0>
  }
  return
}
// CHECK: arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// NATIVE: arith.addf %{{.+}}, %{{.+}} : bf16
// NATIVE-NEXT: memref.store

// -----

// f16 keeps its arithmetic; math functions compute in f32.
#cuda0 = #gp.device<cuda:0>
// CHECK-LABEL: func.func @f16_math
func.func @f16_math(%x: memref<4xf16, #cuda0>) {
  gp.kernel "k" outs(%x : memref<4xf16, #cuda0>) {
  ^bb0(%out: memref<4xf16, #cuda0>):
    %i = arith.constant 0 : index
    %v = memref.load %out[%i] : memref<4xf16, #cuda0>
    %w = arith.addf %v, %v : f16
    %e = math.exp %w : f16
    memref.store %e, %out[%i] : memref<4xf16, #cuda0>
  }
  return
}
// CHECK: %[[SUM:.+]] = arith.addf %{{.+}}, %{{.+}} : f16
// CHECK: %[[WIDE:.+]] = arith.extf %[[SUM]] {{.*}}: f16 to f32
// CHECK: %[[EXP:.+]] = math.exp %[[WIDE]] : f32
// CHECK: arith.truncf %[[EXP]] {{.*}}: f32 to f16

// -----

// Outside kernels nothing changes.
// CHECK-LABEL: func.func @outside
func.func @outside(%x: f8E4M3FN) -> f32 {
  // CHECK: arith.extf %{{.+}} : f8E4M3FN to f32
  %y = arith.extf %x : f8E4M3FN to f32
  return %y : f32
}

// -----

// Only rounding to nearest even is implemented for f8.
#cuda0 = #gp.device<cuda:0>
func.func @rounding_mode(%x: memref<4xf8E5M2, #cuda0>, %s: f32) {
  gp.kernel "k" ins(%s : f32) outs(%x : memref<4xf8E5M2, #cuda0>) {
  ^bb0(%v: f32, %out: memref<4xf8E5M2, #cuda0>):
    %i = arith.constant 0 : index
    // expected-error @+1 {{on f8 values cannot be lowered}}
    %w = arith.truncf %v to_nearest_away : f32 to f8E5M2
    memref.store %w, %out[%i] : memref<4xf8E5M2, #cuda0>
  }
  return
}

// -----

// A named op whose body changes is generalized first (its verifier fixes
// its body); natively computed, it stays as it is.
#cuda0 = #gp.device<cuda:0>
// CHECK-LABEL: func.func @named_bf16
// NATIVE-LABEL: func.func @named_bf16
func.func @named_bf16(%a: memref<4x8xbf16, #cuda0>, %b: memref<8x2xbf16, #cuda0>, %c: memref<4x2xbf16, #cuda0>) {
  gp.kernel "mm" ins(%a, %b : memref<4x8xbf16, #cuda0>, memref<8x2xbf16, #cuda0>) outs(%c : memref<4x2xbf16, #cuda0>) {
  ^bb0(%x: memref<4x8xbf16, #cuda0>, %y: memref<8x2xbf16, #cuda0>, %out: memref<4x2xbf16, #cuda0>):
    linalg.matmul ins(%x, %y : memref<4x8xbf16, #cuda0>, memref<8x2xbf16, #cuda0>) outs(%out : memref<4x2xbf16, #cuda0>)
  }
  return
}
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.+}}, %{{.+}} : f32
// NATIVE: linalg.matmul ins
