//===- Memory.h - arenas, pools and run-time-sized buffers ------*- C++ -*-===//

#ifndef GRAPHPART_LIB_RUNTIME_MEMORY_H
#define GRAPHPART_LIB_RUNTIME_MEMORY_H

#include "CudaDriver.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace gp::rt {

/// The most bytes one block may have (2^56): far beyond any device, and
/// small enough that rounding and sums of a few blocks cannot overflow.
constexpr int64_t kMaxBlockBytes = int64_t(1) << 56;

/// Sizes are handed out in 256-byte blocks (at least one). `bytes` must be
/// in [0, kMaxBlockBytes]; checkBlockSize says so otherwise.
int64_t roundToBlock(int64_t bytes);
gpRtStatus checkBlockSize(int64_t bytes, const char *what);

/// One 256-byte-aligned block: device memory when `driver` is given, host
/// memory otherwise. `what` names the caller in an out-of-memory error.
gpRtStatus allocateBlock(const CudaDriver *driver, int64_t bytes,
                         void *&pointer, const char *what);
void freeBlock(const CudaDriver *driver, void *pointer);

/// What a partition body asked of gpRtAllocate and gpRtFree in a warm-up
/// run, in order: the plan of its shape key's pool.
struct AllocationTrace {
  /// Per allocation, in order: its bytes and the event index of its free
  /// (or -1: live to the end of the run).
  struct Allocation {
    int64_t bytes;
    int64_t start, end = -1;
  };
  std::vector<Allocation> allocations;
  int64_t events = 0;
  /// Live allocations by address, to match a free with its allocation.
  std::vector<std::pair<void *, size_t>> live;

  void clear() { *this = AllocationTrace(); }
  void allocated(void *pointer, int64_t bytes);
  void freed(void *pointer);
};

/// A pool laid out from a trace: one offset per allocation (256-byte
/// aligned; allocations alive at once never overlap) and the total.
struct PoolPlan {
  std::vector<int64_t> offsets;
  std::vector<int64_t> bytes;
  int64_t total = 0;
};
PoolPlan planPool(const AllocationTrace &trace);

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

  /// Blocks the running body freed (gpRtFree): handed out again in this
  /// run, and never released while queued work may still use them.
  std::vector<std::pair<void *, int64_t>> freedThisRun;

  /// Makes the blocks given out so far spare for the next run.
  void recycle();
  void releaseSpare();
  /// After a run: spare blocks it did not need are released; the ones it
  /// freed are held like the rest, for the next run.
  void endRun();
  gpRtStatus allocate(int64_t bytes, void *&pointer);
  /// Hands a block back for the rest of the run; false when `pointer` is
  /// not a block given out in this run.
  bool free(void *pointer);
};

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_MEMORY_H
