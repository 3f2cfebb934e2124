//===- Policy.h - when partitions are captured ------------------*- C++ -*-===//

#ifndef GRAPHPART_LIB_RUNTIME_POLICY_H
#define GRAPHPART_LIB_RUNTIME_POLICY_H

#include "GraphPart/Runtime/CaptureSizes.h"
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
  /// Recorded keys (each with its own executable) a partition keeps per
  /// thread before it evicts the least recently used.
  int32_t graphCacheCapacity = 64;
  bool orError = false;
  bool captureEnabled = true;
  bool hasCaptureSizes = false;
  CaptureSizes captureSizes;
  /// Which settings the environment gave (an artifact's defaults yield to
  /// them).
  bool captureSizesFromEnvironment = false;
  bool orErrorFromEnvironment = false;
  bool shapeWarningLimitFromEnvironment = false;
  bool graphCacheCapacityFromEnvironment = false;

  /// Applies GP_CUDAGRAPH_CAPTURE_SIZES, GP_CUDAGRAPH_OR_ERROR,
  /// GP_CUDAGRAPH_SHAPE_WARNING_LIMIT and GP_CUDAGRAPH_CACHE_CAPACITY.
  gpRtStatus applyEnvironment();

  /// Warns, per capturable partition, when the capture-size list has keys
  /// of another length than the partition's shape key: the list does not
  /// apply to it, so it is captured for every shape.
  void
  warnAboutKeyLengths(const std::string &program,
                      const std::vector<gpRtPartitionInfo> &partitions) const;

  /// Whether a shape key may be captured: the capture-size list speaks
  /// about keys of its own length only.
  bool inCaptureSizes(const std::vector<int64_t> &key) const;
};

/// Parses a boolean setting: 0/1, true/false, on/off, yes/no (any case).
/// Anything else warns, naming `name` and the accepted words, and gives
/// `fallback`; `recognised` says which happened.
bool parseBoolean(const char *name, const std::string &text, bool fallback,
                  bool *recognised = nullptr);

/// Parses a capture-size list (CaptureSizes.h) given by `source` (named in
/// the error when it is malformed).
gpRtStatus parseCaptureSizes(const char *source, const std::string &text,
                             CaptureSizes &sizes);

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_POLICY_H
