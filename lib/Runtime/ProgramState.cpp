//===- ProgramState.cpp - a program and what each thread holds of it ------===//
//
// Owns the lifetime of a program's per-thread contexts: each thread that
// runs a program gets its own stream, arenas and graphs on first use, so
// threads never allocate into each other's pools or replay each other's
// graphs; all of it is released with the program.
//
//===----------------------------------------------------------------------===//

#include "ProgramState.h"
#include "RuntimeInternal.h"

#include <cstdlib>

using namespace gp::rt;

ThreadContext::~ThreadContext() {
  partitions.clear(); // Graphs before the stream and memory they use.
  if (stream.libraryHandle && stream.releaseLibrary)
    stream.releaseLibrary(stream.libraryHandle);
  if (driver) {
    for (CudaDriver::Handle event : {callerDone, callDone})
      if (event)
        driver->cuEventDestroy(event);
    if (arena)
      driver->cuMemFree(reinterpret_cast<CudaDriver::DevicePtr>(arena));
    if (stream.cuStream)
      driver->cuStreamDestroy(stream.cuStream);
  } else if (arena) {
    std::free(arena);
  }
  if (arena)
    liveCounts().poolBytes -= arenaBytes;
  if (hostArena) {
    std::free(hostArena);
    liveCounts().poolBytes -= hostArenaBytes;
  }
  --liveCounts().streams;
}

gpRtProgram::~gpRtProgram() {
  if (driver)
    driver->cuCtxSetCurrent(cuContext);
  contexts.clear();
  if (driver) {
    for (CudaDriver::Handle module : modules)
      driver->cuModuleUnload(module);
    driver->cuDevicePrimaryCtxRelease(cuDevice);
  }
}

gpRtStatus gpRtProgram::context(ThreadContext *&result) {
  if (driver)
    if (gpRtStatus status = driver->check(driver->cuCtxSetCurrent(cuContext),
                                          "cuCtxSetCurrent"))
      return status;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = contexts.find(std::this_thread::get_id());
  if (found == contexts.end()) {
    // Entered in the table only once complete: a context that could not
    // be made leaves nothing behind (the next call tries again).
    auto made = std::make_unique<ThreadContext>();
    ++liveCounts().streams;
    made->partitions.resize(partitions.size());
    made->stream.owner = std::this_thread::get_id();
    made->stream.backend = backend;
    int64_t rounded = (arenaBytes + 255) / 256 * 256;
    if (driver) {
      made->driver = driver;
      made->device = makeCudaDevice(driver);
      made->stream.cudaDevice = device;
      // Non-blocking: the legacy default stream (synchronous copies and
      // frees, anyone's) must not synchronise with this stream, or it
      // would invalidate a capture open on it.
      constexpr unsigned kStreamNonBlocking = 1; // CU_STREAM_NON_BLOCKING
      if (gpRtStatus status =
              driver->check(driver->cuStreamCreate(&made->stream.cuStream,
                                                   kStreamNonBlocking),
                            "cuStreamCreate"))
        return status;
      if (rounded > 0) {
        CudaDriver::DevicePtr pointer = 0;
        if (gpRtStatus status = driver->check(
                driver->cuMemAlloc(&pointer, rounded), "cuMemAlloc"))
          return status;
        made->arena = reinterpret_cast<void *>(pointer);
      }
    } else {
      made->device = makeHostDevice();
      if (rounded > 0)
        made->arena = std::aligned_alloc(256, rounded);
      if (rounded > 0 && !made->arena)
        return fail(GP_RT_ERROR_BACKEND,
                    "out of host memory for the program's arena (" +
                        std::to_string(rounded) + " bytes)");
    }
    if (made->arena) {
      made->arenaBytes = rounded;
      liveCounts().poolBytes += rounded;
    }
    if (int64_t hostRounded = (hostArenaBytes + 255) / 256 * 256) {
      made->hostArena = std::aligned_alloc(256, hostRounded);
      if (!made->hostArena)
        return fail(GP_RT_ERROR_BACKEND, "out of host memory for the host "
                                         "arena");
      made->hostArenaBytes = hostRounded;
      liveCounts().poolBytes += hostRounded;
    }
    found = contexts.emplace(std::this_thread::get_id(), std::move(made)).first;
  }
  result = found->second.get();
  return GP_RT_SUCCESS;
}
