//===- GPOpsUtils.h - helpers shared by the gp op files ---------*- C++ -*-===//
//
// Verifier helpers that more than one gp op file needs (GPKernelOps.cpp,
// GPSymIntRngOps.cpp, OpNames.cpp); defined in GPOps.cpp. Private to
// lib/Dialect/GP/IR.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_DIALECT_GP_IR_GPOPSUTILS_H
#define GRAPHPART_LIB_DIALECT_GP_IR_GPOPSUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::gp::detail {

/// A valid C identifier: symint names and kernel names become symbols.
bool isIdentifier(StringRef name);

/// Checks that `source` has exactly one element of a type `result` can hold.
LogicalResult verifySingleElement(Operation *op, MemRefType source,
                                  Type result, bool integersOnly);

} // namespace mlir::gp::detail

#endif // GRAPHPART_LIB_DIALECT_GP_IR_GPOPSUTILS_H
