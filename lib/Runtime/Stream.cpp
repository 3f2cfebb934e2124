//===- Stream.cpp - what a partition body does on its stream --------------===//
//
// Owns the C ABI a partition body calls on the stream it is given:
// allocation of run-time-sized buffers, copies, and kernel launches (cuda
// kernels, host kernels), each checked to come from the stream's thread and
// recorded or captured when the stream is capturing.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Memory.h"
#include "RuntimeInternal.h"

#include <cstring>
#include <optional>
#include <string>

using namespace gp::rt;

gpRtBackend gp::rt::streamBackend(gpRtStream *stream) {
  return stream->backend;
}
bool gp::rt::streamIsCapturing(gpRtStream *stream) {
  if (stream->backend == GP_RT_BACKEND_HOST)
    return stream->recording != nullptr;
  return stream->capturing;
}
bool gp::rt::streamOnThisThread(gpRtStream *stream) {
  return stream->owner == std::this_thread::get_id();
}
void *gp::rt::streamCudaHandle(gpRtStream *stream) { return stream->cuStream; }
void *&gp::rt::streamLibraryHandle(gpRtStream *stream) {
  return stream->libraryHandle;
}
void gp::rt::markFixedAddresses(gpRtStream *stream, std::string reason) {
  if (stream->fixedReason.empty())
    stream->fixedReason = std::move(reason);
}
void gp::rt::setStreamLibraryRelease(gpRtStream *stream,
                                     void (*release)(void *)) {
  stream->releaseLibrary = release;
}

/// A launch or allocation on `stream` must come from the thread running it
/// and, for launches, suit its backend.
static gpRtStatus checkStream(gpRtStream *stream, const char *what,
                              std::optional<gpRtBackend> backend) {
  if (stream->owner != std::this_thread::get_id())
    return fail(GP_RT_ERROR_WRONG_THREAD,
                std::string(what) + ": the stream belongs to another thread");
  if (backend && stream->backend != *backend)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": the stream belongs to a " +
                    gpRtBackendName(stream->backend) + " program");
  return GP_RT_SUCCESS;
}

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtStreamGetInfo(gpRtStream *stream,
                                          gpRtBackend *backend,
                                          int32_t *capturing,
                                          void **cudaStream,
                                          int32_t *cudaDevice) {
  if (!stream)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtStreamGetInfo: null stream");
  if (gpRtStatus status =
          checkStream(stream, "gpRtStreamGetInfo", std::nullopt))
    return status;
  if (backend)
    *backend = stream->backend;
  if (capturing)
    *capturing = streamIsCapturing(stream) ? 1 : 0;
  if (cudaStream)
    *cudaStream = stream->backend == GP_RT_BACKEND_CUDA ? stream->cuStream
                                                         : nullptr;
  if (cudaDevice)
    *cudaDevice =
        stream->backend == GP_RT_BACKEND_CUDA ? stream->cudaDevice : -1;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtAllocate(gpRtStream *stream, int64_t bytes,
                                     void **pointer) {
  if (!stream || !pointer || bytes < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtAllocate: null stream or pointer, or negative size");
  if (gpRtStatus status = checkStream(stream, "gpRtAllocate", std::nullopt))
    return status;
  if (stream->pool) {
    const PoolPlan &plan = *stream->poolPlan;
    size_t index = stream->poolCursor;
    if (index >= plan.offsets.size() || plan.bytes[index] < bytes ||
        stream->pool->blocks.empty())
      return fail(GP_RT_ERROR_NOT_CAPTURED,
                  "gpRtAllocate: " + std::to_string(bytes) +
                      " bytes asked for during a capture that the warm-up "
                      "runs did not ask for (run at least one warm-up)");
    *pointer = static_cast<uint8_t *>(stream->pool->blocks.front().first) +
               plan.offsets[index];
    ++stream->poolCursor;
    return GP_RT_SUCCESS;
  }
  if (!stream->fresh)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtAllocate: called outside a partition body");
  if (gpRtStatus status = stream->fresh->allocate(bytes, *pointer))
    return status;
  if (stream->trace)
    stream->trace->allocated(*pointer, bytes);
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtFree(gpRtStream *stream, void *pointer) {
  if (!stream)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtFree: null stream");
  if (gpRtStatus status = checkStream(stream, "gpRtFree", std::nullopt))
    return status;
  // In a capture the pool's layout already accounts for the free; a
  // pointer that gpRtAllocate did not give (an arena buffer, memory an
  // extern owns) is not the runtime's to take back.
  if (!stream->pool && stream->fresh && stream->fresh->free(pointer) &&
      stream->trace)
    stream->trace->freed(pointer);
  return GP_RT_SUCCESS;
}

/// A recorded host copy: params are (dst, src, bytes).
static void hostCopyKernel(void **params) {
  std::memcpy(*static_cast<void **>(params[0]),
              *static_cast<const void **>(params[1]),
              *static_cast<int64_t *>(params[2]));
}

GP_RT_EXPORT gpRtStatus gpRtCopy(gpRtStream *stream, void *dst, const void *src,
                                 int64_t bytes, gpRtCopyKind kind) {
  if (!stream || bytes < 0 || (bytes > 0 && (!dst || !src)) ||
      kind < GP_RT_COPY_HOST_TO_HOST || kind > GP_RT_COPY_PROGRAM_TO_PROGRAM)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCopy: null stream or pointer, negative size or unknown "
                "kind");
  if (gpRtStatus status = checkStream(stream, "gpRtCopy", std::nullopt))
    return status;
  if (bytes == 0)
    return GP_RT_SUCCESS;
  bool capturing = streamIsCapturing(stream);
  if (capturing && kind != GP_RT_COPY_PROGRAM_TO_PROGRAM)
    return fail(GP_RT_ERROR_NOT_CAPTURED,
                "gpRtCopy: a copy to or from host memory cannot be captured");
  if (stream->backend == GP_RT_BACKEND_HOST) {
    if (!capturing) {
      std::memcpy(dst, src, bytes);
      return GP_RT_SUCCESS;
    }
    void *params[] = {&dst, const_cast<void **>(&src), &bytes};
    const int64_t sizes[] = {sizeof(void *), sizeof(void *), sizeof(int64_t)};
    return recordHostKernel(stream, hostCopyKernel, params, sizes, 3,
                            "gpRtCopy");
  }
  const CudaDriver *driver = nullptr;
  if (gpRtStatus status = CudaDriver::get(driver))
    return status;
  auto device = [](const void *pointer) {
    return reinterpret_cast<CudaDriver::DevicePtr>(pointer);
  };
  switch (kind) {
  case GP_RT_COPY_HOST_TO_HOST:
    // Host memory the queued work may still write (an earlier device to
    // host copy is complete on return, so only order matters here).
    std::memcpy(dst, src, bytes);
    return GP_RT_SUCCESS;
  case GP_RT_COPY_HOST_TO_PROGRAM:
    return driver->check(
        driver->cuMemcpyHtoDAsync(device(dst), src, bytes, stream->cuStream),
        "cuMemcpyHtoDAsync");
  case GP_RT_COPY_PROGRAM_TO_HOST:
    if (gpRtStatus status =
            driver->check(driver->cuMemcpyDtoHAsync(dst, device(src), bytes,
                                                    stream->cuStream),
                          "cuMemcpyDtoHAsync"))
      return status;
    return driver->check(driver->cuStreamSynchronize(stream->cuStream),
                         "cuStreamSynchronize");
  default:
    return driver->check(driver->cuMemcpyDtoDAsync(device(dst), device(src),
                                                   bytes, stream->cuStream),
                         "cuMemcpyDtoDAsync");
  }
}

GP_RT_EXPORT gpRtStatus gpRtLaunchCudaKernel(gpRtStream *stream, void *function,
                                             const uint32_t grid[3],
                                             const uint32_t block[3],
                                             uint32_t sharedBytes,
                                             void **params) {
  if (!stream || !function || !grid || !block)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtLaunchCudaKernel: null stream, function or dimensions");
  if (gpRtStatus status =
          checkStream(stream, "gpRtLaunchCudaKernel", GP_RT_BACKEND_CUDA))
    return status;
  const CudaDriver *driver = nullptr;
  if (gpRtStatus status = CudaDriver::get(driver))
    return status;
  // Kernels compiled into the program take any alignment; whatever else a
  // capture holds is a library's (see Device.h, alignmentKeyed).
  if (stream->capturing)
    stream->ownKernels.push_back(function);
  return driver->check(
      driver->cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0],
                             block[1], block[2], sharedBytes, stream->cuStream,
                             params, nullptr),
      "cuLaunchKernel");
}

GP_RT_EXPORT gpRtStatus gpRtLaunchHostKernel(gpRtStream *stream,
                                             gpRtHostKernel kernel,
                                             void **params,
                                             const int64_t *paramSizes,
                                             int32_t numParams) {
  if (!stream || !kernel || numParams < 0 ||
      (numParams > 0 && (!params || !paramSizes)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtLaunchHostKernel: null stream, kernel or parameters");
  if (gpRtStatus status =
          checkStream(stream, "gpRtLaunchHostKernel", std::nullopt))
    return status;
  if (stream->backend == GP_RT_BACKEND_CUDA) {
    // A cpu kernel of a cuda program: host work, run in stream order (after
    // the queued device work) and never inside a capture.
    if (stream->capturing)
      return fail(GP_RT_ERROR_NOT_CAPTURED,
                  "gpRtLaunchHostKernel: a host kernel cannot be captured "
                  "into a CUDA graph");
    const CudaDriver *driver = nullptr;
    if (gpRtStatus status = CudaDriver::get(driver))
      return status;
    if (gpRtStatus status =
            driver->check(driver->cuStreamSynchronize(stream->cuStream),
                          "cuStreamSynchronize"))
      return status;
    kernel(params);
    return GP_RT_SUCCESS;
  }
  if (!stream->recording) {
    kernel(params);
    return GP_RT_SUCCESS;
  }
  return recordHostKernel(stream, kernel, params, paramSizes, numParams,
                          "gpRtLaunchHostKernel");
}

} // extern "C"
