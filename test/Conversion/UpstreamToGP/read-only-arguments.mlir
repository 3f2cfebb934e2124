// RUN: gp-opt %s --gp-read-only-arguments | FileCheck %s --check-prefix=MARKED
// RUN: gp-opt %s --gp-read-only-arguments --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --gp-import | FileCheck %s
// RUN: not gp-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --gp-import 2>&1 | FileCheck %s --check-prefix=REFUSED

// A tensor program may use a parameter as the destination of an op: in
// tensor semantics that makes a new value. Upstream bufferization would
// write it into the parameter's buffer in place, which gp-import refuses
// (the third RUN line); gp-read-only-arguments (gp-compile --bufferize
// runs it) marks tensor parameters and inputs bufferization.writable =
// false, so bufferization writes a new buffer instead, a copy of the
// argument when the op reads its destination. Memref arguments and
// gp.mutable parameters (state the program updates) are left as they are.

// MARKED-LABEL: func.func @overwrite
// MARKED-SAME: (%{{.+}}: tensor<4xf32> {bufferization.writable = false}, %{{.+}}: tensor<4xf32> {bufferization.writable = false, gp.parameter = "w"}, %{{.+}}: memref<4xf32> {gp.parameter = "m"})
// CHECK-LABEL: func.func @overwrite
// CHECK-SAME: (%[[X:.+]]: memref<4xf32, #cuda0>, %[[W:.+]]: memref<4xf32, #cuda0> {gp.parameter = "w"}, %{{.+}}: memref<4xf32, #cuda0> {gp.parameter = "m"})
// CHECK: %[[BUF:.+]] = gp.buffer.alloc() : memref<4xf32, #cuda0>
// CHECK: gp.kernel "add_{{[0-9]+}}" ins(%[[X]], %[[W]] : {{.*}}) outs(%[[BUF]] :
// CHECK: return %[[BUF]]
// REFUSED: error: gp-import: kernel 'add_0' writes parameter "w" (argument 1 of @overwrite); parameters are read-only model state
// REFUSED: note: parameter "w" is argument 1
func.func @overwrite(%x: tensor<4xf32>,
                     %w: tensor<4xf32> {gp.parameter = "w"},
                     %m: memref<4xf32> {gp.parameter = "m"}) -> tensor<4xf32> {
  %r = linalg.add ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%w : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// An op that reads its destination (an accumulation into the parameter)
// gets a copy of it.
// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: (%[[X:.+]]: memref<4xf32, #cuda0>, %[[W:.+]]: memref<4xf32, #cuda0> {gp.parameter = "acc"})
// CHECK: %[[COPY:.+]] = gp.buffer.alloc() : memref<4xf32, #cuda0>
// CHECK: gp.copy %[[W]], %[[COPY]]
// CHECK: gp.kernel "generic_{{[0-9]+}}" ins(%[[X]] : {{.*}}) outs(%[[COPY]] :
// CHECK: return %[[COPY]]
func.func @accumulate(%x: tensor<4xf32>, %w: tensor<4xf32> {gp.parameter = "acc"}) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%w : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// An input used as a destination is copied too: the caller's tensor keeps
// its value. A mutable parameter is not marked.
// MARKED-LABEL: func.func @input_destination
// MARKED-SAME: (%{{.+}}: tensor<4xf32> {bufferization.writable = false}, %{{.+}}: tensor<4xf32> {gp.mutable, gp.parameter = "s"})
// CHECK-LABEL: func.func @input_destination
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: memref<4xf32, #cuda0>, %{{.+}}: memref<4xf32, #cuda0> {gp.mutable, gp.parameter = "s"})
// CHECK: %[[COPY:.+]] = gp.buffer.alloc() : memref<4xf32, #cuda0>
// CHECK: gp.copy %[[X]], %[[COPY]]
// CHECK: gp.kernel "generic_{{[0-9]+}}" outs(%[[COPY]] :
// CHECK: return %[[COPY]]
func.func @input_destination(%x: tensor<4xf32>, %s: tensor<4xf32> {gp.mutable, gp.parameter = "s"}) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%x : tensor<4xf32>) {
  ^bb0(%o: f32):
    %s2 = arith.addf %o, %o : f32
    linalg.yield %s2 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
