//===- BufferAliasAnalysis.h - which buffers share storage ------*- C++ -*-===//
//
// Partitions the memref values under an op into storage classes: two values
// are in one class when they may share storage. Views (any
// ViewLikeOpInterface op) join their source; a fallback result joins the
// operand its schema says it aliases (a fresh result, including every result
// of an auto-functionalized mutating op, starts its own class); a partition's
// block arguments join its operands and its results join the values it
// yields, so aliasing is tracked across partitions. Ops the analysis does not
// understand are handled conservatively (their memref results join all their
// memref operands).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_ANALYSIS_BUFFERALIASANALYSIS_H
#define GRAPHPART_ANALYSIS_BUFFERALIASANALYSIS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::gp {

class BufferAliasAnalysis {
public:
  explicit BufferAliasAnalysis(Operation *root);

  /// Whether `value` is a memref the analysis has seen.
  bool contains(Value value) const { return ids.count(value); }

  /// The storage class of a memref value, numbered densely from 0 in the
  /// order classes first appeared in a pre-order walk when the analysis was
  /// made. Moving ops keeps the classes valid (gp-reorder preserves the
  /// analysis for gp-partition), but may change which class comes first.
  unsigned getClass(Value value) const;

  /// The class of `value`, or nullopt when it is not a memref the analysis
  /// has seen (one lookup instead of contains() then getClass()).
  std::optional<unsigned> findClass(Value value) const {
    auto it = ids.find(value);
    if (it == ids.end())
      return std::nullopt;
    return classOf[it->second];
  }
  unsigned getNumClasses() const { return numClasses; }

  bool mayAlias(Value a, Value b) const { return getClass(a) == getClass(b); }

  /// The values of a class that own storage rather than view it:
  /// allocations, fresh fallback results, and block arguments that are not
  /// partition or kernel arguments (e.g. the program's inputs).
  llvm::ArrayRef<Value> getRoots(unsigned cls) const {
    return llvm::ArrayRef(roots).slice(rootBegin[cls],
                                       rootBegin[cls + 1] - rootBegin[cls]);
  }

  /// Every memref value of a class, in pre-order.
  llvm::ArrayRef<Value> getMembers(unsigned cls) const {
    return llvm::ArrayRef(members).slice(
        memberBegin[cls], memberBegin[cls + 1] - memberBegin[cls]);
  }

private:
  unsigned find(unsigned id);
  void unite(Value a, Value b);
  /// The id of a memref value, numbering it if it is new.
  unsigned add(Value value);

  llvm::DenseMap<Value, unsigned> ids;
  llvm::SmallVector<Value> values;
  llvm::SmallVector<unsigned> parent;
  llvm::SmallVector<unsigned> classOf;
  /// Members and roots of all classes, grouped by class: those of class c
  /// are [memberBegin[c], memberBegin[c + 1]) (one flat array rather than a
  /// vector per class: large programs have a class per allocation).
  llvm::SmallVector<Value> members, roots;
  llvm::SmallVector<unsigned> memberBegin, rootBegin;
  unsigned numClasses = 0;
};

class KernelOp;

/// Whether no buffer `kernel` writes may share storage with another of its
/// operands (each of its outputs in a class of its own among them).
bool writesDistinctBuffers(KernelOp kernel, const BufferAliasAnalysis &aliases);

} // namespace mlir::gp

#endif // GRAPHPART_ANALYSIS_BUFFERALIASANALYSIS_H
