//===- Policy.h - when partitions are captured ------------------*- C++ -*-===//

#ifndef GRAPHPART_LIB_RUNTIME_POLICY_H
#define GRAPHPART_LIB_RUNTIME_POLICY_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gp::rt {

/// A program's capture policy: set by the API, defaulted from the artifact
/// and overridden by the environment (GP_CUDAGRAPH_*).
struct Policy {
  int32_t warmupRuns = 1;
  int32_t shapeWarningLimit = 8;
  bool orError = false;
  bool captureEnabled = true;
  bool hasCaptureSizes = false;
  int32_t captureKeyLength = 0;
  std::vector<std::vector<int64_t>> captureSizes;

  /// Applies GP_CUDAGRAPH_CAPTURE_SIZES, GP_CUDAGRAPH_OR_ERROR and
  /// GP_CUDAGRAPH_SHAPE_WARNING_LIMIT.
  gpRtStatus applyEnvironment();

  /// Whether a shape key may be captured: the capture-size list speaks
  /// about keys of its own length only.
  bool inCaptureSizes(const std::vector<int64_t> &key) const;
};

/// Parses capture sizes: "1,2,4" (keys of one value) or "2x3,4x5".
gpRtStatus parseCaptureSizes(const std::string &text,
                             std::vector<std::vector<int64_t>> &keys,
                             int32_t &keyLength);

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_POLICY_H
