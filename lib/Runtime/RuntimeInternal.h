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

private:
  struct Generator {
    uint64_t seed = 0;
    uint64_t nextOffset = 0;
    std::map<int64_t, uint64_t> pending; // invocation -> offset
  };
  std::vector<Generator> generators;
  int64_t nextInvocation = 0;
};

/// The CUDA driver, loaded on first use.
struct CudaDriver {
  /// Loads libcuda and initialises it; fails with the reason otherwise.
  static gpRtStatus get(const CudaDriver *&driver);

  int (*cuInit)(unsigned flags) = nullptr;
  int (*cuDeviceGetCount)(int *count) = nullptr;
  int (*cuGetErrorString)(int error, const char **message) = nullptr;

  /// A readable message for a CUDA driver error code.
  std::string errorString(int error) const;
};

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_RUNTIMEINTERNAL_H
