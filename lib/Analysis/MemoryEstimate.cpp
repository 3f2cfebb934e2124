//===- MemoryEstimate.cpp - bytes live at each point of an order ----------===//

#include "GraphPart/Analysis/OuterUses.h"
#include "GraphPart/Analysis/MemoryEstimate.h"

#include "GraphPart/Analysis/CaptureSafety.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/Matchers.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::gp;

template <typename OpTy>
static std::optional<int64_t> boundsOf(OpTy op) {
  if (auto hint = op.getHint())
    return *hint;
  if (auto max = op.getMax())
    return *max;
  if (auto min = op.getMin())
    return *min;
  return std::nullopt;
}

MemoryEstimator::MemoryEstimator(Block &block,
                                 const BufferAliasAnalysis &aliases)
    : aliases(aliases) {
  // gp ops never appear in kernel bodies: do not walk them.
  block.getParentOp()->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto dim = dyn_cast<SymIntDimOp>(op))
      if (std::optional<int64_t> value = boundsOf(dim))
        dimEstimates[{dim.getSource(), dim.getDim()}] = *value;
    return isa<KernelOp>(op) ? WalkResult::skip() : WalkResult::advance();
  });
  // What each compute op touches does not depend on the order: find it once.
  SmallVector<Operation *> computeOps;
  for (Operation &op : block.without_terminator())
    if (getOpRole(&op) == OpRole::Compute)
      computeOps.push_back(&op);
  touched.reserve(computeOps.size());
  for (Operation *op : computeOps) {
    llvm::SmallSetVector<unsigned, 4> classes;
    walkOuterUsers(op, [&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (std::optional<unsigned> cls = aliases.findClass(operand))
          classes.insert(*cls);
      for (Value result : nested->getResults())
        if (std::optional<unsigned> cls = aliases.findClass(result))
          classes.insert(*cls);
    });
    touched[op].assign(classes.begin(), classes.end());
    for (unsigned cls : classes)
      for (Value root : aliases.getRoots(cls)) {
        Operation *definer = root.getDefiningOp();
        if (!definer || !block.findAncestorOpInBlock(*definer))
          liveFromStart.insert(cls);
      }
  }
  for (Value operand : block.getTerminator()->getOperands())
    if (std::optional<unsigned> cls = aliases.findClass(operand))
      liveToEnd.insert(*cls);
}

int64_t MemoryEstimator::estimateIndex(Value value) const {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  Operation *definer = value.getDefiningOp();
  std::optional<int64_t> estimate;
  if (auto op = dyn_cast_or_null<SymIntOp>(definer))
    estimate = boundsOf(op);
  else if (auto op = dyn_cast_or_null<SymIntDimOp>(definer))
    estimate = boundsOf(op);
  else if (auto op = dyn_cast_or_null<SymIntUnbackedOp>(definer))
    estimate = boundsOf(op);
  return estimate.value_or(kDefaultSymbolicSize);
}

/// Estimates saturate here (2^60 bytes): sums of many of them stay far
/// from overflowing 64 bits.
static constexpr int64_t kSaturatedBytes = int64_t(1) << 60;

static int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum))
    return b > 0 ? INT64_MAX : INT64_MIN;
  return sum;
}

int64_t MemoryEstimator::estimateBytes(Value root) const {
  auto type = dyn_cast<MemRefType>(root.getType());
  if (!type)
    return 0;
  if (DeviceAttr device = getDevice(type); device && device.isMeta())
    return 0; // No data.
  int64_t bytes = getElementByteSize(type.getElementType()).value_or(8);
  ValueRange dynamicSizes;
  if (auto alloc = root.getDefiningOp<BufferAllocOp>())
    dynamicSizes = alloc.getDynamicSizes();
  unsigned nextDynamic = 0;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    int64_t size = type.getDimSize(dim);
    if (ShapedType::isDynamic(size)) {
      if (nextDynamic < dynamicSizes.size())
        size = estimateIndex(dynamicSizes[nextDynamic++]);
      else if (auto it = dimEstimates.find({root, dim});
               it != dimEstimates.end())
        size = it->second;
      else
        size = kDefaultSymbolicSize;
    }
    // Saturating: an estimate of a huge buffer stays huge, never wraps.
    if (__builtin_mul_overflow(bytes, std::max<int64_t>(size, 0), &bytes))
      return kSaturatedBytes;
  }
  return std::min(bytes, kSaturatedBytes);
}

int64_t MemoryEstimator::getClassBytes(unsigned cls) const {
  auto [it, inserted] = classBytes.try_emplace(cls, 0);
  if (inserted)
    for (Value root : aliases.getRoots(cls))
      it->second = std::max(it->second, estimateBytes(root));
  return it->second;
}

int64_t MemoryEstimator::estimatePeak(ArrayRef<Operation *> order) const {
  // First and last program point (compute op) of every class, -1 while the
  // class is not touched. Vectors by class: every call sees most classes.
  unsigned numClasses = aliases.getNumClasses();
  SmallVector<int64_t> first(numClasses, -1), last(numClasses, -1);
  SmallVector<unsigned> seen;
  int64_t point = 0;
  for (Operation *op : order) {
    auto it = touched.find(op);
    if (it == touched.end())
      continue;
    for (unsigned cls : it->second) {
      if (first[cls] < 0) {
        first[cls] = point;
        seen.push_back(cls);
      }
      last[cls] = point;
    }
    ++point;
  }
  int64_t end = point;
  SmallVector<int64_t> delta(end + 2, 0);
  for (unsigned cls : seen) {
    bool fromStart = liveFromStart.contains(cls);
    int64_t from = fromStart ? 0 : first[cls];
    int64_t to = fromStart || liveToEnd.contains(cls) ? end : last[cls];
    int64_t bytes = getClassBytes(cls);
    delta[from] = saturatingAdd(delta[from], bytes);
    delta[to + 1] = saturatingAdd(delta[to + 1], -bytes);
  }
  int64_t live = 0, peak = 0;
  for (int64_t change : delta) {
    live = saturatingAdd(live, change);
    peak = std::max(peak, live);
  }
  return peak;
}
