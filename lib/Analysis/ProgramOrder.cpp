//===- ProgramOrder.cpp - a partitioned program as one sequence -----------===//

#include "GraphPart/Analysis/ProgramOrder.h"

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::gp;

ProgramOrder::ProgramOrder(Block &block) {
  for (Operation &op : block) {
    ops.push_back(&op);
    if (auto partition = dyn_cast<PartitionOp>(op))
      for (Operation &inner : partition.getBody().front())
        ops.push_back(&inner);
  }
  // Sized once the ops are counted (an op list's size() walks the list).
  position.reserve(ops.size());
  for (auto [index, op] : llvm::enumerate(ops))
    position[op] = index;
}

Value mlir::gp::getPassedFrom(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (auto partition = dyn_cast_or_null<PartitionOp>(arg.getOwner()->getParentOp()))
      return partition.getInputs()[arg.getArgNumber()];
    return {};
  }
  if (auto partition = value.getDefiningOp<PartitionOp>())
    return partition.getYield().getValues()[cast<OpResult>(value).getResultNumber()];
  return {};
}

Value mlir::gp::getBufferObject(Value value) {
  while (Value from = getPassedFrom(value))
    value = from;
  return value;
}

Value mlir::gp::getStorageOwner(Value value) {
  while (true) {
    value = getBufferObject(value);
    if (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
      value = view.getViewSource();
      continue;
    }
    if (auto fallback = value.getDefiningOp<FallbackOp>())
      if (std::optional<unsigned> operand = fallback.getAliasedOperand(
              cast<OpResult>(value).getResultNumber())) {
        value = fallback.getArgs()[*operand];
        continue;
      }
    return value;
  }
}
