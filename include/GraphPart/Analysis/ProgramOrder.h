//===- ProgramOrder.h - a partitioned program as one sequence ---*- C++ -*-===//
//
// Memory planning and its checker see a function as the sequence in which
// its ops run: top-level ops in order, with each gp.partition replaced by
// the ops of its body (its own position comes just before them, where its
// inputs are passed in). Kernel bodies are not expanded.
//
// They also need to know which values are the same buffer object, as
// opposed to a view of one: a partition's block argument is the buffer
// passed in, and a partition's result is the buffer it yields.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_ANALYSIS_PROGRAMORDER_H
#define GRAPHPART_ANALYSIS_PROGRAMORDER_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::gp {

class ProgramOrder {
public:
  /// Orders the ops of `block` (a single-block function body).
  explicit ProgramOrder(Block &block);

  llvm::ArrayRef<Operation *> getOps() const { return ops; }
  /// The position of an op in the sequence (partition ops included).
  unsigned positionOf(Operation *op) const { return position.lookup(op); }
  bool contains(Operation *op) const { return position.count(op); }
  unsigned size() const { return ops.size(); }

private:
  llvm::SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> position;
};

/// The value `value` is the same buffer as, one step up: for a partition's
/// block argument, the partition's operand; for a partition's result, the
/// value its body yields. Null when `value` is its own buffer object (an
/// allocation, a view, a program input, ...).
Value getPassedFrom(Value value);

/// Follows getPassedFrom to the value that made the buffer object.
Value getBufferObject(Value value);

/// Follows views (ViewLikeOpInterface), fallback results that alias an
/// operand, and passing through partitions, to the value whose storage
/// `value` uses.
Value getStorageOwner(Value value);

} // namespace mlir::gp

#endif // GRAPHPART_ANALYSIS_PROGRAMORDER_H
