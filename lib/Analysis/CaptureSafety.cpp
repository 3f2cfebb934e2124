//===- CaptureSafety.cpp - which ops a CUDA graph can capture -------------===//

#include "GraphPart/Analysis/CaptureSafety.h"

#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Dialect/GP/IR/OpNames.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::gp;

OpRole mlir::gp::getOpRole(Operation *op) {
  // gp ops first: comparing op names is cheaper than asking for a trait.
  if (isa<KernelOp, FallbackOp, CopyOp, ItemOp, SymIntUnbackedOp, RngFillOp,
          PartitionOp, ScalarSlotOp>(op))
    return OpRole::Compute;
  if (isa<BufferAllocOp, BufferDeallocOp, BufferReuseOp>(op))
    return OpRole::Glue;
  if (isa<SymIntOp, SymIntDimOp, RngStateOp>(op))
    return OpRole::HostDefinition;
  if (op->hasTrait<OpTrait::IsTerminator>())
    return OpRole::Terminator;
  if (op->getNumRegions() != 0)
    return OpRole::Compute;
  // Upstream views, allocations and frees (memref.subview, memref.alloc, ...).
  if (isa<ViewLikeOpInterface>(op))
    return OpRole::Glue;
  bool hasBufferResult = llvm::any_of(op->getResultTypes(), [](Type type) {
    return isa<BaseMemRefType>(type);
  });
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    bool onlyAllocFree = llvm::all_of(list, [](auto &effect) {
      return isa<MemoryEffects::Allocate, MemoryEffects::Free>(
          effect.getEffect());
    });
    if (!list.empty() && onlyAllocFree)
      return OpRole::Glue;
    if (list.empty() && !hasBufferResult)
      return OpRole::HostDefinition; // Pure scalar math, constants.
  }
  return OpRole::Compute;
}

std::optional<std::string>
mlir::gp::findMalformedUnsafeOp(const std::vector<std::string> &unsafeOps) {
  for (const std::string &entry : unsafeOps)
    if (!isQualifiedOpName(entry))
      return entry;
  return std::nullopt;
}

/// Whether `callee` (`ns::op` or `ns::op.overload`) is named by `rule`.
static bool matchesRule(StringRef callee, StringRef rule) {
  if (callee == rule)
    return true;
  // A rule without an overload names every overload of the op.
  return !rule.contains('.') && callee.split('.').first == rule;
}

/// Devices of the buffers `op` touches, meta excluded (no data, no work).
static SmallVector<DeviceAttr, 4> getDataDevices(Operation *op) {
  SmallVector<DeviceAttr, 4> devices;
  auto addType = [&](Type type) {
    if (DeviceAttr device = getDevice(type);
        device && !device.isMeta() && !llvm::is_contained(devices, device))
      devices.push_back(device);
  };
  for (Type type : op->getOperandTypes())
    addType(type);
  for (Type type : op->getResultTypes())
    addType(type);
  return devices;
}

static bool hasSymbolicSizes(Operation *op) {
  auto dynamic = [](Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    return memref && !memref.hasStaticShape();
  };
  return llvm::any_of(op->getOperandTypes(), dynamic) ||
         llvm::any_of(op->getResultTypes(), dynamic) ||
         llvm::any_of(op->getOperandTypes(),
                      [](Type type) { return type.isIndex(); });
}

std::optional<std::string>
CaptureSafetyAnalysis::classify(Operation *op,
                                const CaptureSafetyOptions &options) {
  // Ops with regions are control flow, unless upstream ops that gp-import
  // would have made kernels of (a linalg op is no branch).
  if (op->getNumRegions() != 0 && !isa<KernelOp>(op) &&
      (isa<RegionBranchOpInterface>(op) || op->getNumSuccessors() != 0))
    return std::string("control flow");
  SmallVector<DeviceAttr, 4> devices = getDataDevices(op);
  bool touchesCpu = llvm::any_of(devices, [](DeviceAttr d) { return d.isCpu(); });

  if (auto copy = dyn_cast<CopyOp>(op)) {
    if (devices.size() > 1)
      return std::string("device copy");
  }
  if (touchesCpu)
    return std::string("cpu ops");
  if (auto item = dyn_cast<ItemOp>(op)) {
    if (!getDevice(item.getSource().getType()).isMeta())
      return std::string("cpu ops");
  }
  if (isa<SymIntUnbackedOp>(op))
    return std::string("unbacked symint");
  if (isa<ScalarSlotOp>(op))
    return std::string("host scalar write");
  if (auto fallback = dyn_cast<FallbackOp>(op)) {
    if (fallback.hasTag(FallbackOp::getCudagraphUnsafeTag()))
      return std::string("cudagraph-unsafe custom op");
    for (const std::string &rule : options.unsafeOps)
      if (matchesRule(fallback.getCallee(), rule))
        return "custom rule: " + rule;
    for (Type type : fallback->getResultTypes()) {
      if (type.isIntOrIndex())
        return std::string("unbacked symint");
      if (isa<FloatType>(type))
        return std::string("cpu ops");
    }
  }
  if (primaryDevice &&
      llvm::any_of(devices, [&](DeviceAttr d) { return d != primaryDevice; }))
    return std::string("multiple devices");
  if (options.skipDynamicGraphs && hasSymbolicSizes(op))
    return std::string("dynamic shapes");
  if (!options.captureCollectives &&
      isa<AllReduceOp, AllGatherOp, ReduceScatterOp, BroadcastOp>(op))
    return std::string("collective");
  if (!isa<GPDialect>(op->getDialect()))
    return "unsupported op '" + op->getName().getStringRef().str() +
           "' (upstream ops come in through gp-import)";
  return std::nullopt;
}

CaptureSafetyAnalysis::CaptureSafetyAnalysis(
    Block &block, const CaptureSafetyOptions &options) {
  auto notePrimary = [&](Type type) {
    if (DeviceAttr device = getDevice(type); device && device.isCuda() &&
                                             !primaryDevice)
      primaryDevice = device;
  };
  for (Type type : block.getArgumentTypes())
    notePrimary(type);
  for (Operation &op : block) {
    for (Type type : op.getOperandTypes())
      notePrimary(type);
    for (Type type : op.getResultTypes())
      notePrimary(type);
  }
  for (Operation &op : block) {
    if (getOpRole(&op) != OpRole::Compute)
      continue;
    if (std::optional<std::string> reason = classify(&op, options))
      reasons[&op] = reasonStrings.insert(*reason).first->getKey();
  }
}
