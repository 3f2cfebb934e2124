//===- Memory.h - arenas, pools and run-time-sized buffers ------*- C++ -*-===//

#ifndef GRAPHPART_LIB_RUNTIME_MEMORY_H
#define GRAPHPART_LIB_RUNTIME_MEMORY_H

#include "CudaDriver.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace gp::rt {

/// Sizes are handed out in 256-byte blocks (at least one).
int64_t roundToBlock(int64_t bytes);

/// One 256-byte-aligned block: device memory when `driver` is given, host
/// memory otherwise. `what` names the caller in an out-of-memory error.
gpRtStatus allocateBlock(const CudaDriver *driver, int64_t bytes,
                         void *&pointer, const char *what);
void freeBlock(const CudaDriver *driver, void *pointer);

/// Blocks of memory for buffers sized at run time, released together.
struct DynamicMemory {
  const CudaDriver *driver = nullptr; // cuda backend only
  std::vector<std::pair<void *, int64_t>> blocks;
  /// Blocks of an earlier run, handed out again (in order, when they fit)
  /// so a partition's run-time-sized outputs keep their addresses from run
  /// to run: a captured partition reading them then keeps replaying.
  std::vector<std::pair<void *, int64_t>> spare;

  explicit DynamicMemory(const CudaDriver *driver) : driver(driver) {}
  DynamicMemory(const DynamicMemory &) = delete;
  ~DynamicMemory();

  /// Makes the blocks given out so far spare for the next run.
  void recycle();
  void releaseSpare();
  gpRtStatus allocate(int64_t bytes, void *&pointer);
};

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_MEMORY_H
