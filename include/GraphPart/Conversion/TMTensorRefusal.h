//===- TMTensorRefusal.h - refuse torch-mlir's tm_tensor ops ----*- C++ -*-===//
//
// torch-mlir's linalg-on-tensors output still holds ops of its TMTensor
// dialect (`tm_tensor.scatter`, `tm_tensor.sort`, `tm_tensor.attention`,
// ...) where it has no linalg form for an aten op. GraphPart does not take
// them. Without this, parsing one fails with MLIR's "Dialect `tm_tensor'
// not found for custom op" and a list of every registered dialect; with
// it, the tools say at the op which op it is and that torch-mlir's TMTensor
// dialect is not supported.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_CONVERSION_TMTENSORREFUSAL_H
#define GRAPHPART_CONVERSION_TMTENSORREFUSAL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::gp {

/// Registers a `tm_tensor` dialect that holds no ops: parsing any op of it in
/// custom form fails with a located error naming the op; an op in generic
/// form fails verification (the dialect allows no unknown ops). For tools
/// only (gp-opt, gp-codegen): a plugin must not register it, as it would
/// clash with torch-mlir's own dialect in torch-mlir-opt.
void registerTMTensorRefusal(DialectRegistry &registry);

} // namespace mlir::gp

#endif // GRAPHPART_CONVERSION_TMTENSORREFUSAL_H
