//===- RuntimeInternal.h - shared runtime helpers ---------------*- C++ -*-===//

#ifndef GRAPHPART_LIB_RUNTIME_RUNTIMEINTERNAL_H
#define GRAPHPART_LIB_RUNTIME_RUNTIMEINTERNAL_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#define GP_RT_EXPORT __attribute__((visibility("default")))

namespace gp::rt {

/// Records `message` as this thread's last error and returns `status`.
gpRtStatus fail(gpRtStatus status, std::string message);

/// Log lines of `kind` (GP_RT_LOG_*) go to the sink when enabled.
void log(int32_t kind, const std::string &line);
bool logEnabled(int32_t kind);
/// Warnings always go to the sink.
void warn(const std::string &line);

/// Graph-safe RNG: per generator, a seed derived from the program seed and
/// a forward offset that advances per forward invocation; each backward
/// gets the offset its forward used.
class RngState {
public:
  void init(uint64_t programSeed, int32_t numGenerators);
  gpRtStatus forward(int32_t generator, uint64_t &seed, uint64_t &offset,
                     int64_t &invocation);
  gpRtStatus backward(int32_t generator, int64_t invocation, uint64_t &seed,
                      uint64_t &offset);
  /// Compiled programs: a forward whose backward will pair with it by
  /// recency (the most recent forward of the generator without one).
  gpRtStatus forwardPending(int32_t generator, uint64_t &seed,
                            uint64_t &offset) {
    int64_t invocation = 0;
    return forward(generator, seed, offset, invocation);
  }
  gpRtStatus latestBackward(int32_t generator, uint64_t &seed,
                            uint64_t &offset);

private:
  struct Generator {
    uint64_t seed = 0;
    uint64_t nextOffset = 0;
    std::map<int64_t, uint64_t> pending; // invocation -> offset
  };
  std::vector<Generator> generators;
  int64_t nextInvocation = 0;
};

/// Parses capture sizes: "1,2,4" (keys of one value) or "2x3,4x5".
gpRtStatus parseCaptureSizes(const std::string &text,
                             std::vector<std::vector<int64_t>> &keys,
                             int32_t &keyLength);

/// What the extern registry needs to know of a stream.
gpRtBackend streamBackend(gpRtStream *stream);
bool streamIsCapturing(gpRtStream *stream);
bool streamOnThisThread(gpRtStream *stream);
void *streamCudaHandle(gpRtStream *stream);
/// A per-stream slot for a library handle (cuBLAS), released with the
/// stream through `release`.
void *&streamLibraryHandle(gpRtStream *stream);
void setStreamLibraryRelease(gpRtStream *stream, void (*release)(void *));
/// Host backend: records `fn(stream, copies of args)` into the graph being
/// captured on `stream`.
gpRtStatus recordHostExtern(gpRtStream *stream, gpRtExternFn fn, void **args,
                            const int64_t *argSizes, int32_t numArgs);

/// The CUDA driver, loaded on first use. Handles are opaque pointers and
/// results plain ints, so the runtime builds without the CUDA toolkit.
struct CudaDriver {
  using Result = int;
  using Handle = void *;
  using DevicePtr = unsigned long long;

  /// Loads libcuda and initialises it; fails with the reason otherwise.
  static gpRtStatus get(const CudaDriver *&driver);

  Result (*cuInit)(unsigned flags) = nullptr;
  Result (*cuDeviceGetCount)(int *count) = nullptr;
  Result (*cuGetErrorString)(Result error, const char **message) = nullptr;
  Result (*cuDeviceGet)(int *device, int ordinal) = nullptr;
  Result (*cuDevicePrimaryCtxRetain)(Handle *context, int device) = nullptr;
  Result (*cuDevicePrimaryCtxRelease)(int device) = nullptr;
  Result (*cuCtxSetCurrent)(Handle context) = nullptr;
  Result (*cuStreamCreate)(Handle *stream, unsigned flags) = nullptr;
  Result (*cuStreamDestroy)(Handle stream) = nullptr;
  Result (*cuStreamSynchronize)(Handle stream) = nullptr;
  Result (*cuStreamBeginCapture)(Handle stream, int mode) = nullptr;
  Result (*cuStreamEndCapture)(Handle stream, Handle *graph) = nullptr;
  Result (*cuGraphInstantiateWithFlags)(Handle *exec, Handle graph,
                                        unsigned long long flags) = nullptr;
  Result (*cuGraphExecUpdate)(Handle exec, Handle graph,
                              void *resultInfo) = nullptr;
  Result (*cuGraphLaunch)(Handle exec, Handle stream) = nullptr;
  Result (*cuGraphDestroy)(Handle graph) = nullptr;
  Result (*cuGraphExecDestroy)(Handle exec) = nullptr;
  Result (*cuMemAlloc)(DevicePtr *pointer, size_t bytes) = nullptr;
  Result (*cuMemFree)(DevicePtr pointer) = nullptr;
  Result (*cuMemcpyHtoDAsync)(DevicePtr dst, const void *src, size_t bytes,
                              Handle stream) = nullptr;
  Result (*cuMemcpyDtoHAsync)(void *dst, DevicePtr src, size_t bytes,
                              Handle stream) = nullptr;
  Result (*cuMemcpyDtoDAsync)(DevicePtr dst, DevicePtr src, size_t bytes,
                              Handle stream) = nullptr;
  Result (*cuModuleLoadData)(Handle *module, const void *image) = nullptr;
  Result (*cuModuleUnload)(Handle module) = nullptr;
  Result (*cuModuleGetFunction)(Handle *function, Handle module,
                                const char *name) = nullptr;
  Result (*cuLaunchKernel)(Handle function, unsigned gx, unsigned gy,
                           unsigned gz, unsigned bx, unsigned by, unsigned bz,
                           unsigned sharedBytes, Handle stream, void **params,
                           void **extra) = nullptr;

  /// A readable message for a CUDA driver error code.
  std::string errorString(Result error) const;
  /// Fails with GP_RT_ERROR_BACKEND naming `what` when `result` is an error.
  gpRtStatus check(Result result, const char *what) const;
};

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_RUNTIMEINTERNAL_H
