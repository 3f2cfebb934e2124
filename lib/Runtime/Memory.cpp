//===- Memory.cpp - arenas, pools and run-time-sized buffers --------------===//
//
// Owns the runtime's memory: 256-byte blocks on the device or the host, and
// the blocks of buffers sized at run time (gpRtAllocate), kept from run to
// run so their addresses stay stable for captured graphs. Every byte is
// counted in the live pool bytes.
//
//===----------------------------------------------------------------------===//

#include "Memory.h"
#include "Log.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <cstdlib>
#include <string>

using namespace gp::rt;

int64_t gp::rt::roundToBlock(int64_t bytes) {
  return std::max<int64_t>((bytes + 255) / 256 * 256, 256);
}

gpRtStatus gp::rt::checkBlockSize(int64_t bytes, const char *what) {
  if (bytes >= 0 && bytes <= kMaxBlockBytes)
    return GP_RT_SUCCESS;
  return fail(GP_RT_ERROR_INVALID_ARGUMENT,
              std::string(what) + ": " + std::to_string(bytes) +
                  " bytes is not a size that can be allocated");
}

gpRtStatus gp::rt::allocateBlock(const CudaDriver *driver, int64_t bytes,
                                 void *&pointer, const char *what) {
  if (gpRtStatus status = checkBlockSize(bytes, what))
    return status;
  if (driver) {
    CudaDriver::DevicePtr device = 0;
    if (gpRtStatus status =
            driver->check(driver->cuMemAlloc(&device, bytes), "cuMemAlloc"))
      return status;
    pointer = reinterpret_cast<void *>(device);
    return GP_RT_SUCCESS;
  }
  pointer = std::aligned_alloc(256, bytes);
  if (!pointer)
    return fail(GP_RT_ERROR_BACKEND,
                std::string(what) + ": out of host memory");
  return GP_RT_SUCCESS;
}

void gp::rt::freeBlock(const CudaDriver *driver, void *pointer) {
  if (driver)
    driver->cuMemFree(reinterpret_cast<CudaDriver::DevicePtr>(pointer));
  else
    std::free(pointer);
}

DynamicMemory::~DynamicMemory() {
  releaseSpare();
  for (auto [pointer, bytes] : blocks) {
    freeBlock(driver, pointer);
    liveCounts().poolBytes -= bytes;
  }
}

void DynamicMemory::recycle() {
  releaseSpare();
  spare = std::move(blocks);
  blocks.clear();
}

void DynamicMemory::releaseSpare() {
  for (auto [pointer, bytes] : spare) {
    freeBlock(driver, pointer);
    liveCounts().poolBytes -= bytes;
  }
  spare.clear();
}

void DynamicMemory::endRun() {
  releaseSpare();
  blocks.insert(blocks.end(), freedThisRun.begin(), freedThisRun.end());
  freedThisRun.clear();
}

bool DynamicMemory::free(void *pointer) {
  for (auto it = blocks.begin(); it != blocks.end(); ++it)
    if (it->first == pointer) {
      freedThisRun.push_back(*it);
      blocks.erase(it);
      return true;
    }
  return false;
}

gpRtStatus DynamicMemory::allocate(int64_t bytes, void *&pointer) {
  if (gpRtStatus status = checkBlockSize(bytes, "gpRtAllocate"))
    return status;
  int64_t rounded = roundToBlock(bytes);
  for (auto *list : {&freedThisRun, &spare})
    for (auto it = list->begin(); it != list->end(); ++it)
      if (it->second >= rounded) {
        pointer = it->first;
        blocks.push_back(*it);
        list->erase(it);
        return GP_RT_SUCCESS;
      }
  if (gpRtStatus status =
          allocateBlock(driver, rounded, pointer, "gpRtAllocate"))
    return status;
  blocks.emplace_back(pointer, rounded);
  liveCounts().poolBytes += rounded;
  return GP_RT_SUCCESS;
}

void AllocationTrace::allocated(void *pointer, int64_t bytes) {
  live.push_back({pointer, allocations.size()});
  allocations.push_back({bytes, events++});
}

void AllocationTrace::freed(void *pointer) {
  for (auto it = live.begin(); it != live.end(); ++it)
    if (it->first == pointer) {
      allocations[it->second].end = events++;
      live.erase(it);
      return;
    }
}

PoolPlan gp::rt::planPool(const AllocationTrace &trace) {
  // First fit in allocation order against the allocations still alive: a
  // pool holds what is live at once, not the sum of every allocation.
  PoolPlan plan;
  const auto &allocations = trace.allocations;
  plan.offsets.assign(allocations.size(), 0);
  for (size_t i = 0; i < allocations.size(); ++i) {
    int64_t bytes = roundToBlock(allocations[i].bytes);
    plan.bytes.push_back(bytes);
    std::vector<std::pair<int64_t, int64_t>> busy; // [begin, end)
    for (size_t j = 0; j < i; ++j) {
      int64_t end = allocations[j].end < 0 ? trace.events : allocations[j].end;
      if (end > allocations[i].start)
        busy.push_back({plan.offsets[j], plan.offsets[j] + plan.bytes[j]});
    }
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + bytes <= begin)
        break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.total = std::max(plan.total, offset + bytes);
  }
  return plan;
}
