//===- GPOps.h - GraphPart operations ---------------------------*- C++ -*-===//

#ifndef GRAPHPART_DIALECT_GP_IR_GPOPS_H
#define GRAPHPART_DIALECT_GP_IR_GPOPS_H

#include "GraphPart/Dialect/GP/IR/GPAttrs.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Dialect/GP/IR/GPTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::gp {
/// The order of a rank's collectives (gp.all_reduce, ...): each writes it,
/// so dependence analyses keep collectives in order relative to each other.
struct CollectiveResource
    : public SideEffects::Resource::Base<CollectiveResource> {
  StringRef getName() override { return "gp::Collective"; }
};
} // namespace mlir::gp

#define GET_OP_CLASSES
#include "GraphPart/Dialect/GP/IR/GPOps.h.inc"

namespace mlir::gp {
/// Bytes one element of `type` occupies in a buffer (sub-byte types such as
/// i1 take a whole byte, as torch.bool does), or nullopt for element types
/// with no fixed size.
std::optional<int64_t> getElementByteSize(Type type);
/// Byte size of a statically shaped contiguous buffer of `type`.
std::optional<int64_t> getStaticByteSize(MemRefType type);
} // namespace mlir::gp

#endif // GRAPHPART_DIALECT_GP_IR_GPOPS_H
