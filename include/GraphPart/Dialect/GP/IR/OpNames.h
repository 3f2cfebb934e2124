//===- OpNames.h - qualified op names of fallback ops -----------*- C++ -*-===//
//
// The names gp.fallback ops, gp-import's gp.op_name and the capture-safety
// unsafe-ops list give ops the runtime's extern registry knows.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_DIALECT_GP_IR_OPNAMES_H
#define GRAPHPART_DIALECT_GP_IR_OPNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::gp {

/// Whether `name` is `ns::op` or `ns::op.overload`, each part a C
/// identifier.
bool isQualifiedOpName(llvm::StringRef name);

} // namespace mlir::gp

#endif // GRAPHPART_DIALECT_GP_IR_OPNAMES_H
