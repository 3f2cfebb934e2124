//===- BlockPartitioner.h - cut one block into gp.partitions ----*- C++ -*-===//
//
// The BlockPartitioner of gp-partition: it forms the groups of one block,
// places its ops, computes buffer lifetimes and shape symbols, and builds a
// gp.partition with its signature per group. Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_TRANSFORMS_BLOCKPARTITIONER_H
#define GRAPHPART_LIB_TRANSFORMS_BLOCKPARTITIONER_H

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "GraphPart/Analysis/CaptureSafety.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::gp::partitioning {

struct Group {
  bool capturable = true;
  SmallVector<Operation *> computeOps;
  llvm::SmallSetVector<StringRef, 4> reasons;
};

/// Where an op of the block ends up. Slots order the final block: hoisted
/// definitions (slot 0), then for group g its partition (2g+1) and the ops
/// placed after it (2g+2); the terminator comes last.
struct Placement {
  bool member = false;
  int group = -1; // -1 with !member: hoisted to the top.

  int slot() const { return member ? 2 * group + 1 : 2 * group + 2; }
};

/// What one partition turned out to be, for the report and the picture.
struct PartitionSummary {
  PartitionOp op;
  /// The ops that made an eager partition eager, with their reasons.
  SmallVector<std::pair<Operation *, StringRef>> unsafeOps;
  unsigned numComputeOps = 0;
};

struct PartitionOptions {
  unsigned minPartitionSize = 1;
};

/// Partitions one block; `nextId` numbers partitions across the function.
class BlockPartitioner {
public:
  BlockPartitioner(Block &block, const CaptureSafetyAnalysis &safety,
                   const BufferAliasAnalysis &aliases,
                   const PartitionOptions &options, unsigned &nextId)
      : block(block), safety(safety), options(options), nextId(nextId),
        aliases(aliases) {}

  SmallVector<PartitionSummary> run();

private:
  void nameArgumentDims();
  void formGroups();
  void placeOps();
  void nameResultDims();
  void makeMember(Operation *op, int group);
  int availableAfter(Value value) const;
  int slotOf(Operation *op) const;
  void computeLifetimes();
  void collectShapeSymbols();
  PartitionSummary buildPartition(int g);
  Value original(Value value) const {
    auto it = originalOf.find(value);
    return it == originalOf.end() ? value : it->second;
  }
  Value current(Value value) const {
    auto it = currentOf.find(value);
    return it == currentOf.end() ? value : it->second;
  }

  Block &block;
  const CaptureSafetyAnalysis &safety;
  const PartitionOptions &options;
  unsigned &nextId;
  /// Of the function as it was before this block was partitioned.
  const BufferAliasAnalysis &aliases;

  SmallVector<Operation *> ops; // the block's ops, terminator excluded
  llvm::DenseMap<Operation *, unsigned> position;
  SmallVector<Group> groups;
  llvm::DenseMap<Operation *, Placement> placement;
  SmallVector<SmallVector<Operation *>> membersOf;
  llvm::DenseMap<Operation *, int> partitionSlot;

  /// Per alias class: the group that frees it (-1: none), and whether it
  /// can never be freed (program inputs, values that escape the block).
  llvm::DenseMap<unsigned, int> freedBy;
  SmallVector<SmallVector<unsigned>> classesFreedBy; // per group
  llvm::DenseSet<unsigned> neverFreed;
  /// Storage roots that a later group frees: their group must export them.
  llvm::DenseSet<Value> mustExport;
  /// Per alias class: the symints in its buffers' shapes, strides, offsets.
  llvm::DenseMap<unsigned, llvm::SmallSetVector<Value, 4>> shapeSymbols;
  /// The gp.symint.dims nameArgumentDims and nameResultDims made; those no
  /// partition takes as an input are erased at the end.
  SmallVector<Operation *> namedDims;

  /// Values that replaced others when partitions were formed, both ways.
  llvm::DenseMap<Value, Value> originalOf, currentOf;
};

} // namespace mlir::gp::partitioning

#endif // GRAPHPART_LIB_TRANSFORMS_BLOCKPARTITIONER_H
