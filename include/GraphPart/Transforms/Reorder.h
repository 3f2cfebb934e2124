//===- Reorder.h - orders that minimise partitions --------------*- C++ -*-===//
//
// The scheduling algorithms behind gp-reorder, on a block's dependence
// graph. Orders are permutations of BlockDependences node indices.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TRANSFORMS_REORDER_H
#define GRAPHPART_TRANSFORMS_REORDER_H

#include "GraphPart/Analysis/CaptureSafety.h"
#include "GraphPart/Analysis/Dependences.h"

namespace mlir::gp {

/// A topological order with the fewest partitions: ops that are not compute
/// ops go as soon as they are ready; the ready ops of one kind (unsafe or
/// safe) are drained, then those of the other, alternately; ties keep block
/// order. Both starting kinds are tried and the better kept (unsafe first on
/// a tie).
llvm::SmallVector<unsigned>
minPartitionsOrder(const BlockDependences &deps,
                   const CaptureSafetyAnalysis &safety);

/// `order` with every unsafe op that has no compute op before it (in the
/// dependence graph) moved to the front, and every other unsafe op with no
/// compute op after it moved to the end.
llvm::SmallVector<unsigned>
simpleMovesOrder(const BlockDependences &deps,
                 const CaptureSafetyAnalysis &safety,
                 llvm::ArrayRef<unsigned> order);

/// The full block order for the compute-op sequence of `order`: other ops
/// with results go just before their first user, those without as soon as
/// their dependences allow, the rest at the end.
llvm::SmallVector<unsigned>
materializeOrder(const BlockDependences &deps,
                 const CaptureSafetyAnalysis &safety,
                 llvm::ArrayRef<unsigned> order);

} // namespace mlir::gp

#endif // GRAPHPART_TRANSFORMS_REORDER_H
