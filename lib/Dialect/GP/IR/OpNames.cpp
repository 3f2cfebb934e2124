//===- OpNames.cpp - qualified op names of fallback ops -------------------===//

#include "GraphPart/Dialect/GP/IR/OpNames.h"
#include "GPOpsUtils.h"

using namespace mlir;
using namespace mlir::gp::detail;

bool mlir::gp::isQualifiedOpName(StringRef name) {
  auto [qualified, overload] = name.split('.');
  auto [ns, op] = qualified.split("::");
  return isIdentifier(ns) && isIdentifier(op) &&
         (!name.contains('.') || isIdentifier(overload));
}
