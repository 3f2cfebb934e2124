//===- Passes.h - GraphPart passes ------------------------------*- C++ -*-===//

#ifndef GRAPHPART_TRANSFORMS_PASSES_H
#define GRAPHPART_TRANSFORMS_PASSES_H

#include "GraphPart/Dialect/GP/IR/GPDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace mlir::gp {

#define GEN_PASS_DECL
#include "GraphPart/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "GraphPart/Transforms/Passes.h.inc"

} // namespace mlir::gp

#endif // GRAPHPART_TRANSFORMS_PASSES_H
