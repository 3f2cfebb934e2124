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

#define GET_OP_CLASSES
#include "GraphPart/Dialect/GP/IR/GPOps.h.inc"

#endif // GRAPHPART_DIALECT_GP_IR_GPOPS_H
