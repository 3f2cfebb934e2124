//===- Passes.td - GraphPart conversions -------------------*- tablegen -*-===//

#ifndef GRAPHPART_CONVERSION_PASSES_TD
#define GRAPHPART_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertGPToGPUPass : Pass<"convert-gp-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Outline cuda gp.kernel bodies into GPU kernels";
  let description = [{
    Every `gp.kernel` on a cuda device becomes host-side launch code —
    `gpu.launch_func` ops on kernels outlined into one `gpu.module
    @gp_kernels` — in place, so partitions keep their structure. Kernel
    bodies go through upstream lowering: linalg to parallel loops, loops
    tiled by `block-size` and mapped to blocks and threads (a 4096-element
    elementwise op becomes 16 blocks of 256 threads), then outlined. Work in
    a body that has no parallel loop to map (a reduction to a scalar, a store
    of one element) runs as a single GPU thread rather than on the host.

    Buffers reach the kernels through `memref.memory_space_cast` to the
    default memory space: a kernel sees plain device pointers. The module
    gets `gpu.container_module`. Compile the kernels for sm_90 with
    `nvvm-attach-target{chip=sm_90}`, `convert-gpu-to-nvvm` inside
    `gpu.module`, and `gpu-module-to-binary{format=bin}` (docs/Lowering.md).
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::affine::AffineDialect", "::mlir::func::FuncDialect"
  ];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block for mapped parallel loops">,
  ];
}

#endif // GRAPHPART_CONVERSION_PASSES_TD
