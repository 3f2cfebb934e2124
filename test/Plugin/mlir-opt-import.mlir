// Stock mlir-opt with the plugin takes a tensor program the whole way: its
// own one-shot-bufferize, then gp-import and gp-pipeline from the plugin,
// in one --pass-pipeline (the form a torch-mlir or IREE pipeline string
// uses).
// RUN: mlir-opt %S/../Conversion/UpstreamToGP/Inputs/upstream_tensors.mlir \
// RUN:   --load-dialect-plugin=%gp_plugin --load-pass-plugin=%gp_plugin \
// RUN:   --pass-pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},gp-import{default-device=cuda:0 symint-max=4096},gp-pipeline)" \
// RUN:   | FileCheck %s
// CHECK-LABEL: func.func @mlp
// CHECK: gp.partition 0 capturable
// CHECK: gp.kernel "matmul_
// CHECK-LABEL: func.func @dynamic_scale
// CHECK: gp.symint.dim "arg0_dim0" = %arg0[0] {max = 4096 : i64}
// CHECK: gp.partition 0 capturable
