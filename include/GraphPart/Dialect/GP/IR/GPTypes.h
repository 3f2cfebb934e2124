//===- GPTypes.h - GraphPart types ------------------------------*- C++ -*-===//

#ifndef GRAPHPART_DIALECT_GP_IR_GPTYPES_H
#define GRAPHPART_DIALECT_GP_IR_GPTYPES_H

#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "GraphPart/Dialect/GP/IR/GPTypes.h.inc"

#endif // GRAPHPART_DIALECT_GP_IR_GPTYPES_H
