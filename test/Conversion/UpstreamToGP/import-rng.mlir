// RUN: gp-opt %s --gp-import --split-input-file | FileCheck %s

// A call of a declaration marked gp.rng (the PyTorch converter's random
// tensors) becomes a buffer filled by gp.rng.fill, each call from a
// generator of its own; a dynamic size comes as an index operand.

// CHECK: gp.rng.generator @rng1
// CHECK: gp.rng.generator @rng0
// CHECK-LABEL: func.func @random
// CHECK: %[[U:.*]] = gp.buffer.alloc() : memref<4x8xf32, #{{.*}}>
// CHECK: %[[S0:.*]] = gp.rng.state @rng0 forward
// CHECK: gp.rng.fill uniform %[[S0]], %[[U]]
// CHECK: %[[N:.*]] = gp.buffer.alloc(%{{.*}}) : memref<?x8xf32, #{{.*}}>
// CHECK: %[[S1:.*]] = gp.rng.state @rng1 forward
// CHECK: gp.rng.fill normal %[[S1]], %[[N]]
// CHECK-NOT: call
func.func private @uniform() -> memref<4x8xf32> attributes {gp.rng = "uniform"}
func.func private @normal(index) -> memref<?x8xf32> attributes {gp.rng = "normal"}
func.func @random(%rows: index) -> (memref<4x8xf32>, memref<?x8xf32>) {
  %u = func.call @uniform() : () -> memref<4x8xf32>
  %n = func.call @normal(%rows) : (index) -> memref<?x8xf32>
  return %u, %n : memref<4x8xf32>, memref<?x8xf32>
}
