//===- GPDialect.h - GraphPart dialect --------------------------*- C++ -*-===//

#ifndef GRAPHPART_DIALECT_GP_IR_GPDIALECT_H
#define GRAPHPART_DIALECT_GP_IR_GPDIALECT_H

#include "mlir/IR/Dialect.h"

#include "GraphPart/Dialect/GP/IR/GPDialect.h.inc"

#endif // GRAPHPART_DIALECT_GP_IR_GPDIALECT_H
