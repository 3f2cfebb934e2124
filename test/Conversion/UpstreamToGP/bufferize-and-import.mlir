// The path of a new user: linalg on tensors, bufferized upstream (with
// identity layouts at function boundaries, and with upstream's default
// fully dynamic ones), through gp-pipeline. Every function is captured
// whole, except that @item_scale reads a value on the host first (the
// only eager partition, for the right reason), and no op is called
// control flow.
// RUN: mlir-opt %S/Inputs/upstream_tensors.mlir \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | gp-opt --gp-pipeline | FileCheck %s
// RUN: mlir-opt %S/Inputs/upstream_tensors.mlir --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   | gp-opt --gp-pipeline | FileCheck %s
// Inputs/upstream_tensors.mlir is this file's input; its bufferized form
// (first RUN line) is the start of test/Runtime/E2E/Inputs/kernels/imported.mlir.

// CHECK-NOT: control flow
// CHECK-LABEL: func.func @mlp
// CHECK: gp.partition 0 capturable
// CHECK-NOT: gp.partition 1
// CHECK-LABEL: func.func @softmax_rows
// CHECK: gp.partition 0 capturable
// CHECK-NOT: gp.partition 1
// CHECK-LABEL: func.func @transpose_add
// CHECK: gp.partition 0 capturable
// CHECK-NOT: gp.partition 1
// CHECK-LABEL: func.func @dynamic_scale
// CHECK: gp.symint.dim "arg0_dim0"
// CHECK: gp.partition 0 capturable
// CHECK-NOT: gp.partition 1
// CHECK-LABEL: func.func @slices
// CHECK: gp.partition 0 capturable
// CHECK-NOT: gp.partition 1
// CHECK-LABEL: func.func @item_scale
// CHECK: gp.partition 0 eager reasons ["cpu ops"]
// CHECK: gp.item
// CHECK: gp.partition 1 capturable
// CHECK-LABEL: func.func @store_scalar
// CHECK: gp.partition 0 capturable
// CHECK-NOT: gp.partition 1
// CHECK-LABEL: func.func @constants
// CHECK: gp.partition 0 capturable
// CHECK-NOT: gp.partition 1
// CHECK-LABEL: func.func @flatten_dynamic
// CHECK: gp.partition 0 capturable
// CHECK-NOT: gp.partition 1
// CHECK-NOT: control flow
