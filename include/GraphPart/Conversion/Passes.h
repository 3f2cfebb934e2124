//===- Passes.h - GraphPart conversions -------------------------*- C++ -*-===//

#ifndef GRAPHPART_CONVERSION_PASSES_H
#define GRAPHPART_CONVERSION_PASSES_H

#include "GraphPart/Conversion/CaptureSizesOption.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::gp {

#define GEN_PASS_DECL
#include "GraphPart/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "GraphPart/Conversion/Passes.h.inc"

} // namespace mlir::gp

#endif // GRAPHPART_CONVERSION_PASSES_H
