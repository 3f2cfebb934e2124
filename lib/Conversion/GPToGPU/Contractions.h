//===- Contractions.h - matmul-class kernels become cuBLAS calls -*- C++ -*-===//

#ifndef GRAPHPART_LIB_CONVERSION_GPTOGPU_CONTRACTIONS_H
#define GRAPHPART_LIB_CONVERSION_GPTOGPU_CONTRACTIONS_H

#include "GraphPart/Dialect/GP/IR/GPOps.h"

namespace mlir::gp {

/// If the body of the cuda `kernel` is one contraction (a linalg op with
/// the contraction interface: `linalg.matmul`, `batch_matmul`, a matmul
/// with transposed operands or a `linalg.generic` whose indexing maps and
/// multiply-add body make it one) on f32, f16 or bf16 operands of one type,
/// with one row, one column, one reduction and at most one batch dimension,
/// optionally after a zero `linalg.fill` of its output, replaces the kernel
/// with a `gp.fallback "gp::matmul"` on `gp.buffer.transpose` views that
/// order the operands [batch,] rows, columns. A kernel right before it
/// (past ops that touch no memory: constants, views, allocations) that
/// only zero-fills the same output becomes the call's overwrite mode.
/// Returns whether the kernel was replaced; a kernel that does not match
/// stays for the kernel lowering.
bool lowerContractionToLibrary(KernelOp kernel);

} // namespace mlir::gp

#endif // GRAPHPART_LIB_CONVERSION_GPTOGPU_CONTRACTIONS_H
