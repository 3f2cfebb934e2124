//===- MemoryPlan.h - arena offset assignment -------------------*- C++ -*-===//

#ifndef GRAPHPART_TRANSFORMS_MEMORYPLAN_H
#define GRAPHPART_TRANSFORMS_MEMORYPLAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::gp {

/// A buffer to place in an arena: its (aligned) size and the program
/// positions of its first and last moment alive, inclusive.
struct ArenaRequest {
  int64_t bytes;
  int64_t start;
  int64_t end;
};

/// Gives every request an offset so that requests alive at the same time
/// never overlap; returns the arena size. Tries several greedy orders
/// (largest first, earliest first, longest first, largest area first) and
/// keeps the smallest arena.
int64_t assignArenaOffsets(llvm::ArrayRef<ArenaRequest> requests,
                           llvm::SmallVectorImpl<int64_t> &offsets);

/// The most bytes alive at any one position: no placement can use less.
int64_t liveLowerBound(llvm::ArrayRef<ArenaRequest> requests);

} // namespace mlir::gp

#endif // GRAPHPART_TRANSFORMS_MEMORYPLAN_H
