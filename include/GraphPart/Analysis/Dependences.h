//===- Dependences.h - ordering constraints between a block's ops -*- C++ -*-===//
//
// The dependence graph of a block: op B depends on op A (A before B in the
// block) when B uses a value A defines, or when both touch the same storage
// (BufferAliasAnalysis class) and at least one writes or frees it
// (read-after-write, write-after-read, write-after-write). Effects on other
// values (an RNG state advanced by its draw) order ops the same way. An op
// whose effects are unknown orders everything around it. Any order that
// respects these edges computes the same results.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_ANALYSIS_DEPENDENCES_H
#define GRAPHPART_ANALYSIS_DEPENDENCES_H

#include "GraphPart/Analysis/BufferAliasAnalysis.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::gp {

class BlockDependences {
public:
  BlockDependences(Block &block, const BufferAliasAnalysis &aliases);

  /// The block's ops, terminator excluded, in block order; nodes are indices
  /// into this list.
  llvm::ArrayRef<Operation *> getOps() const { return ops; }
  unsigned indexOf(Operation *op) const { return index.lookup(op); }

  /// Nodes that must come before / after node `i` (direct edges only; every
  /// edge goes from a lower index to a higher one).
  llvm::ArrayRef<unsigned> getPredecessors(unsigned i) const {
    return preds[i];
  }
  llvm::ArrayRef<unsigned> getSuccessors(unsigned i) const { return succs[i]; }

  /// Whether `order` (a permutation of node indices) respects every edge.
  bool isValidOrder(llvm::ArrayRef<unsigned> order) const;

private:
  llvm::SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> index;
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>> preds, succs;
};

} // namespace mlir::gp

#endif // GRAPHPART_ANALYSIS_DEPENDENCES_H
