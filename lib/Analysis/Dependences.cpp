//===- Dependences.cpp - ordering constraints between a block's ops -------===//

#include "GraphPart/Analysis/OuterUses.h"
#include "GraphPart/Analysis/Dependences.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::gp;

namespace {
/// What an op touches: storage keys it reads and writes, or "anything".
struct EffectSummary {
  llvm::SmallSetVector<uint64_t, 4> reads, writes;
  bool unknown = false;
  bool touchesMemory() const {
    return unknown || !reads.empty() || !writes.empty();
  }
};
} // namespace

/// Keys: alias classes for buffers, one key per other value (RNG states),
/// and one for effects on no particular value.
/// (Alias classes are below 2^32, other values from 2^32 up; the global key
/// must not be DenseMap's empty or tombstone key, ~0 and ~0 - 1.)
static constexpr uint64_t kGlobalKey = uint64_t(1) << 63;

static void summarize(Operation *op, const BufferAliasAnalysis &aliases,
                      llvm::DenseMap<Value, uint64_t> &valueKeys,
                      EffectSummary &summary) {
  auto keyOf = [&](Value value) -> uint64_t {
    if (!value)
      return kGlobalKey;
    if (std::optional<unsigned> cls = aliases.findClass(value))
      return *cls;
    auto [it, inserted] =
        valueKeys.try_emplace(value, (uint64_t(1) << 32) + valueKeys.size());
    return it->second;
  };
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  bool recursive = op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  if (!effects && !recursive) {
    summary.unknown = true;
    return;
  }
  if (effects) {
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (MemoryEffects::EffectInstance &effect : list) {
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        continue; // The defined value orders its users.
      uint64_t key = keyOf(effect.getValue());
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        summary.reads.insert(key);
      else
        summary.writes.insert(key); // Write and Free.
    }
  }
  if (recursive)
    for (Region &region : op->getRegions())
      for (Operation &nested : region.getOps())
        summarize(&nested, aliases, valueKeys, summary);
}

BlockDependences::BlockDependences(Block &block,
                                   const BufferAliasAnalysis &aliases) {
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  // Sized once the ops are counted (an op list's size() walks the list).
  index.reserve(ops.size());
  for (auto [i, op] : llvm::enumerate(ops))
    index[op] = i;
  unsigned n = ops.size();
  preds.resize(n);
  succs.resize(n);

  llvm::DenseMap<Value, uint64_t> valueKeys;
  // Per storage key: the last op that wrote it and the ops that read it
  // since. Keys are mostly alias classes, which index a vector; the others
  // (RNG states, the global key) go in a map. A barrier (an op with unknown
  // effects) forgets everything by starting a new epoch, not by clearing.
  struct KeyState {
    unsigned epoch = 0;
    int lastWriter = -1;
    SmallVector<unsigned, 2> readers;
  };
  unsigned epoch = 1;
  // A vector indexed by class is fastest, but sizing it costs the
  // function's class count: only for a block that is a good part of the
  // function. A partition body among thousands keeps its few classes in the
  // map, so that the graphs of all blocks cost their ops, not blocks x
  // classes (gp-fuse-kernels builds one per block and round).
  bool classesInVector = uint64_t(n) * 8 >= aliases.getNumClasses();
  SmallVector<KeyState> classStates(
      classesInVector ? aliases.getNumClasses() : 0);
  llvm::DenseMap<uint64_t, KeyState> otherStates;
  // The state of `key` in this epoch (reset if older). The reference is
  // only good until the next call.
  auto stateOf = [&](uint64_t key) -> KeyState & {
    KeyState &state =
        key < classStates.size() ? classStates[key] : otherStates[key];
    if (state.epoch != epoch) {
      state.epoch = epoch;
      state.lastWriter = -1;
      state.readers.clear();
    }
    return state;
  };
  int lastBarrier = -1;
  SmallVector<unsigned> memorySinceBarrier;

  for (unsigned i = 0; i < n; ++i) {
    Operation *op = ops[i];
    llvm::SmallSetVector<unsigned, 8> before;
    // Values defined earlier in the block, used here or in nested regions.
    walkOuterUsers(op, [&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *definer = operand.getDefiningOp())
          if (Operation *ancestor = block.findAncestorOpInBlock(*definer);
              ancestor && ancestor != op)
            if (auto it = index.find(ancestor); it != index.end())
              before.insert(it->second);
    });

    EffectSummary summary;
    summarize(op, aliases, valueKeys, summary);
    if (summary.unknown) {
      before.insert(memorySinceBarrier.begin(), memorySinceBarrier.end());
      if (lastBarrier >= 0)
        before.insert(lastBarrier);
      lastBarrier = i;
      memorySinceBarrier.clear();
      ++epoch;
      otherStates.clear();
    } else if (summary.touchesMemory()) {
      if (lastBarrier >= 0)
        before.insert(lastBarrier);
      memorySinceBarrier.push_back(i);
      for (uint64_t key : summary.reads)
        if (int writer = stateOf(key).lastWriter; writer >= 0)
          before.insert(writer);
      for (uint64_t key : summary.writes) {
        KeyState &state = stateOf(key);
        if (state.lastWriter >= 0)
          before.insert(state.lastWriter);
        before.insert(state.readers.begin(), state.readers.end());
      }
      for (uint64_t key : summary.reads)
        if (!summary.writes.contains(key))
          stateOf(key).readers.push_back(i);
      for (uint64_t key : summary.writes) {
        KeyState &state = stateOf(key);
        state.lastWriter = i;
        state.readers.clear();
      }
    }
    before.remove(i);
    for (unsigned p : before) {
      preds[i].push_back(p);
      succs[p].push_back(i);
    }
  }
}

bool BlockDependences::isValidOrder(ArrayRef<unsigned> order) const {
  if (order.size() != ops.size())
    return false;
  SmallVector<int> position(ops.size(), -1);
  for (auto [pos, node] : llvm::enumerate(order)) {
    if (node >= ops.size() || position[node] != -1)
      return false;
    position[node] = pos;
  }
  for (unsigned node = 0; node < ops.size(); ++node)
    for (unsigned p : preds[node])
      if (position[p] > position[node])
        return false;
  return true;
}
