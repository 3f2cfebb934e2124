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

gpRtStatus gp::rt::allocateBlock(const CudaDriver *driver, int64_t bytes,
                                 void *&pointer, const char *what) {
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

gpRtStatus DynamicMemory::allocate(int64_t bytes, void *&pointer) {
  int64_t rounded = roundToBlock(bytes);
  for (auto it = spare.begin(); it != spare.end(); ++it)
    if (it->second >= rounded) {
      pointer = it->first;
      blocks.push_back(*it);
      spare.erase(it);
      return GP_RT_SUCCESS;
    }
  if (gpRtStatus status = allocateBlock(driver, rounded, pointer, "gpRtAllocate"))
    return status;
  blocks.emplace_back(pointer, rounded);
  liveCounts().poolBytes += rounded;
  return GP_RT_SUCCESS;
}
