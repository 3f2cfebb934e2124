// RUN: gp-opt %s --split-input-file | gp-opt --split-input-file | FileCheck %s
// RUN: gp-opt %s --split-input-file --mlir-print-op-generic | gp-opt --split-input-file | FileCheck %s

// `gp.parameter = "<name>"` on a function argument makes it a named model
// parameter; it round-trips through the custom and the generic form.

// Tensor parameters of a linalg-on-tensors program, PyTorch names.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[W:.+]]: tensor<8x16xf32> {gp.parameter = "fc.weight"}, %[[B:.+]]: tensor<16xf32> {gp.parameter = "fc.bias"}) -> tensor<4x16xf32>
// CHECK: %[[R:.+]] = tensor.empty
// CHECK: return %[[R]]
func.func @forward(%x: tensor<4x8xf32>,
                   %w: tensor<8x16xf32> {gp.parameter = "fc.weight"},
                   %b: tensor<16xf32> {gp.parameter = "fc.bias"}) -> tensor<4x16xf32> {
  %r = tensor.empty() : tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Buffer parameters (on a device or not, strided or not) beside index and
// other arguments; a name may hold any printable character but a space.
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: %{{.+}}: index
// CHECK-SAME: %{{.+}}: memref<?x768xf16, #cuda0> {gp.parameter = "h.0.attn.c_attn.weight"}
// CHECK-SAME: %{{.+}}: memref<768xf32, strided<[2]>> {gp.parameter = "h.0.ln_1.bias"}
// CHECK-SAME: %{{.+}}: memref<4xf32> {gp.parameter = "model/emb:0[\22x\22]"}
// CHECK-SAME: %{{.+}}: memref<4xf32>)
#cuda0 = #gp.device<cuda:0>
func.func @buffers(%n: index,
                   %w: memref<?x768xf16, #cuda0> {gp.parameter = "h.0.attn.c_attn.weight"},
                   %b: memref<768xf32, strided<[2]>> {gp.parameter = "h.0.ln_1.bias"},
                   %e: memref<4xf32> {gp.parameter = "model/emb:0[\"x\"]"},
                   %x: memref<4xf32>) {
  return
}
