//===- GPAttrs.h - GraphPart attributes -------------------------*- C++ -*-===//

#ifndef GRAPHPART_DIALECT_GP_IR_GPATTRS_H
#define GRAPHPART_DIALECT_GP_IR_GPATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "GraphPart/Dialect/GP/IR/GPEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "GraphPart/Dialect/GP/IR/GPAttrs.h.inc"

namespace mlir::gp {
/// The device of a buffer type, or null if `type` is not a gp buffer.
DeviceAttr getDevice(Type type);
/// `type` without its memory space if it is a memref (what kernels and the
/// lowered host code see: plain pointers); other types unchanged.
Type stripMemorySpace(Type type);
} // namespace mlir::gp

#endif // GRAPHPART_DIALECT_GP_IR_GPATTRS_H
