//===- RuntimeInternal.h - shared runtime helpers ---------------*- C++ -*-===//

#ifndef GRAPHPART_LIB_RUNTIME_RUNTIMEINTERNAL_H
#define GRAPHPART_LIB_RUNTIME_RUNTIMEINTERNAL_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <string>

#define GP_RT_EXPORT __attribute__((visibility("default")))

namespace gp::rt {

/// Records `message` as this thread's last error and returns `status`.
gpRtStatus fail(gpRtStatus status, std::string message);

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
