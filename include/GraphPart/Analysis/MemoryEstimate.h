//===- MemoryEstimate.h - bytes live at each point of an order --*- C++ -*-===//
//
// Estimates how many bytes are live while a block's compute ops run in a
// given order. A storage class (BufferAliasAnalysis) is live from the first
// compute op that touches any of its buffers to the last; storage from
// outside the block (program inputs) and storage the block returns is live
// throughout / to the end. Symbolic sizes are evaluated from the symint ops'
// attributes: `hint` if given, else `max`, else `min`, else a default.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_ANALYSIS_MEMORYESTIMATE_H
#define GRAPHPART_ANALYSIS_MEMORYESTIMATE_H

#include "GraphPart/Analysis/BufferAliasAnalysis.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::gp {

class MemoryEstimator {
public:
  /// Size assumed for a symbolic size with no hint or bounds.
  static constexpr int64_t kDefaultSymbolicSize = 64;

  MemoryEstimator(Block &block, const BufferAliasAnalysis &aliases);

  /// Estimated value of an `index` value used as a size.
  int64_t estimateIndex(Value value) const;

  /// Estimated bytes of a storage class: its largest root.
  int64_t getClassBytes(unsigned cls) const;

  /// Peak live bytes if the block's compute ops ran in `order` (ops of the
  /// block; the rest are ignored).
  int64_t estimatePeak(llvm::ArrayRef<Operation *> order) const;

private:
  int64_t estimateBytes(Value root) const;

  const BufferAliasAnalysis &aliases;
  /// The storage classes each compute op of the block touches.
  llvm::DenseMap<Operation *, llvm::SmallVector<unsigned, 4>> touched;
  /// Storage that lives from the start / to the end whatever the order.
  llvm::DenseSet<unsigned> liveFromStart, liveToEnd;
  /// Estimates of dynamic dimensions named by gp.symint.dim: (value, dim).
  llvm::DenseMap<std::pair<Value, int64_t>, int64_t> dimEstimates;
  mutable llvm::DenseMap<unsigned, int64_t> classBytes;
};

} // namespace mlir::gp

#endif // GRAPHPART_ANALYSIS_MEMORYESTIMATE_H
