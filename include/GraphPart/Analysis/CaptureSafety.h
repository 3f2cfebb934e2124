//===- CaptureSafety.h - which ops a CUDA graph can capture -----*- C++ -*-===//
//
// Sorts the ops of a block into roles and gives every compute op either no
// reason (it can be captured) or the reason it cannot:
//
//   "control flow"                 an op with regions (branching on host
//   values) "device copy"                  a copy between devices "cpu ops" any
//   op touching a cpu buffer; host scalar reads "unbacked symint" a size read
//   from device data "cudagraph-unsafe custom op"   a fallback tagged
//   cudagraph_unsafe "custom rule: ns::op"          a fallback named by the
//   user's unsafe-ops list "multiple devices"             work on a cuda device
//   other than the first "dynamic shapes"               symbolic sizes, when
//   skip-dynamic-graphs is set "collective"                   gp.all_reduce and
//   its kin, when
//                                  capture-collectives is off
//   "unsupported op 'name'"        an op GraphPart cannot lower inside a graph
//
// Meta-device buffers hold no data and never make an op unsafe.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_ANALYSIS_CAPTURESAFETY_H
#define GRAPHPART_ANALYSIS_CAPTURESAFETY_H

#include "GraphPart/Dialect/GP/IR/GPAttrs.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::gp {

/// How partitioning treats an op of a function body.
enum class OpRole {
  /// Does work: kernels, fallbacks, copies, host reads, RNG draws, control
  /// flow. Classified as capture-safe or not; these form partitions.
  Compute,
  /// Allocations, views and frees: placed in the partition that needs them.
  Glue,
  /// Host-side definitions of scalars and RNG states (symints, constants):
  /// stay outside partitions, which take their values as inputs.
  HostDefinition,
  /// The block terminator.
  Terminator,
};

OpRole getOpRole(Operation *op);

struct CaptureSafetyOptions {
  /// Fallback op names (`ns::op` or `ns::op.overload`) that must not be
  /// captured. `ns::op` matches every overload of the op.
  std::vector<std::string> unsafeOps;
  /// Treat ops with symbolic sizes as unsafe.
  bool skipDynamicGraphs = false;
  /// Capture collectives (off: "collective", for comparison).
  bool captureCollectives = true;
};

/// Checks that every entry of `unsafeOps` is `ns::op` or `ns::op.overload`;
/// returns the first bad entry, if any.
std::optional<std::string>
findMalformedUnsafeOp(const std::vector<std::string> &unsafeOps);

class CaptureSafetyAnalysis {
public:
  /// Classifies the compute ops directly in `block`. The first cuda device
  /// among the block's arguments and ops is the primary device.
  CaptureSafetyAnalysis(Block &block, const CaptureSafetyOptions &options);

  /// Why `op` cannot be captured, or nullopt when it can (or is not a
  /// compute op).
  std::optional<llvm::StringRef> getReason(Operation *op) const {
    auto it = reasons.find(op);
    if (it == reasons.end())
      return std::nullopt;
    return it->second;
  }

  /// The cuda device the block's capturable work runs on (null if none).
  DeviceAttr getPrimaryDevice() const { return primaryDevice; }

private:
  std::optional<std::string> classify(Operation *op,
                                      const CaptureSafetyOptions &options);

  DeviceAttr primaryDevice;
  llvm::StringSet<> reasonStrings;
  llvm::DenseMap<Operation *, llvm::StringRef> reasons;
};

} // namespace mlir::gp

#endif // GRAPHPART_ANALYSIS_CAPTURESAFETY_H
