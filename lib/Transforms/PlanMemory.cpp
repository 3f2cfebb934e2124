//===- PlanMemory.cpp - frees, reuse and arena offsets --------------------===//
//
// On a (partitioned) function:
//  1. frees: every buffer object the function makes is freed right after
//     the last use of its storage through any alias (so never while a view
//     lives); program inputs and what the function returns are not freed;
//  2. reuse, within each partition: an allocation takes the storage of a
//     buffer freed earlier in the same partition when it fits (same device,
//     no more bytes), unless that buffer is one of the partition's outputs;
//  3. arena: every statically sized buffer (allocations, and the fresh
//     results of externs) gets a 256-byte aligned offset in its device's
//     arena such that buffers live at the same time never overlap; sizes of
//     symbolic buffers depend on the shape key, so the runtime plans those
//     per shape key.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Analysis/ProgramOrder.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/MemoryPlan.h"
#include "GraphPart/Transforms/Passes.h"
#include "JsonReport.h"
#include "PassUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/raw_ostream.h"

#include <tuple>

namespace mlir::gp {
#define GEN_PASS_DEF_GPPLANMEMORYPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

static constexpr int64_t kArenaAlignment = 256;

static int64_t alignUp(int64_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

//===----------------------------------------------------------------------===//
// Offset assignment (also used by the property tests through the pass)
//===----------------------------------------------------------------------===//

int64_t mlir::gp::liveLowerBound(ArrayRef<ArenaRequest> requests) {
  SmallVector<std::pair<int64_t, int64_t>> events; // position, change
  events.reserve(2 * requests.size());
  for (const ArenaRequest &r : requests) {
    events.push_back({r.start, r.bytes});
    events.push_back({r.end + 1, -r.bytes});
  }
  llvm::sort(events, llvm::less_first());
  int64_t live = 0, peak = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    live += events[i].second;
    // Measure once every change at this position is applied.
    if (i + 1 == events.size() || events[i + 1].first != events[i].first)
      peak = std::max(peak, live);
  }
  return peak;
}

/// First fit, in the given order, against the requests already placed whose
/// lifetimes overlap. Placed requests are indexed by time buckets, so that
/// finding the ones alive at the same time does not scan them all.
static int64_t placeInOrder(ArrayRef<ArenaRequest> requests,
                            ArrayRef<unsigned> order,
                            SmallVectorImpl<int64_t> &offsets) {
  offsets.assign(requests.size(), -1);
  int64_t horizon = 0;
  for (const ArenaRequest &r : requests)
    horizon = std::max(horizon, r.end + 1);
  constexpr int64_t kBucketSpan = 64;
  SmallVector<SmallVector<unsigned, 4>> buckets(horizon / kBucketSpan + 1);
  SmallVector<unsigned> seenAt(requests.size(), ~0u);
  int64_t arena = 0;
  SmallVector<std::pair<int64_t, int64_t>> busy;
  for (unsigned i : order) {
    const ArenaRequest &r = requests[i];
    busy.clear();
    for (int64_t b = r.start / kBucketSpan; b <= r.end / kBucketSpan; ++b)
      for (unsigned j : buckets[b]) {
        if (seenAt[j] == i)
          continue;
        seenAt[j] = i;
        const ArenaRequest &o = requests[j];
        if (o.start <= r.end && r.start <= o.end)
          busy.push_back({offsets[j], offsets[j] + o.bytes});
      }
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [lo, hi] : busy) {
      if (offset + r.bytes <= lo)
        break;
      offset = std::max(offset, hi);
    }
    offsets[i] = offset;
    for (int64_t b = r.start / kBucketSpan; b <= r.end / kBucketSpan; ++b)
      buckets[b].push_back(i);
    arena = std::max(arena, offset + r.bytes);
  }
  return arena;
}

int64_t mlir::gp::assignArenaOffsets(ArrayRef<ArenaRequest> requests,
                                     SmallVectorImpl<int64_t> &offsets) {
  // Several greedy orders; keep the smallest arena. Largest-first is
  // usually best; the others win on some lifetime patterns.
  SmallVector<unsigned> identity;
  for (unsigned i = 0; i < requests.size(); ++i)
    identity.push_back(i);
  int64_t best = -1;
  SmallVector<int64_t> candidate;
  SmallVector<unsigned> order;
  // An arena at the live lower bound cannot be beaten: stop trying orders
  // (later orders only replace the best when strictly smaller).
  int64_t lowerBound = liveLowerBound(requests);
  auto tryOrder = [&](auto less) {
    if (best >= 0 && best <= lowerBound)
      return;
    order.assign(identity.begin(), identity.end());
    llvm::sort(order, less);
    int64_t arena = placeInOrder(requests, order, candidate);
    if (best < 0 || arena < best) {
      best = arena;
      offsets.assign(candidate.begin(), candidate.end());
    }
  };
  auto length = [&](unsigned i) { return requests[i].end - requests[i].start; };
  auto area = [&](unsigned i) { return requests[i].bytes * (length(i) + 1); };
  tryOrder([&](unsigned a, unsigned b) { // Largest first.
    return std::make_tuple(-requests[a].bytes, requests[a].start, a) <
           std::make_tuple(-requests[b].bytes, requests[b].start, b);
  });
  tryOrder([&](unsigned a, unsigned b) { // Earliest first.
    return std::make_tuple(requests[a].start, -requests[a].bytes, a) <
           std::make_tuple(requests[b].start, -requests[b].bytes, b);
  });
  tryOrder([&](unsigned a, unsigned b) { // Longest first.
    return std::make_tuple(-length(a), -requests[a].bytes, a) <
           std::make_tuple(-length(b), -requests[b].bytes, b);
  });
  tryOrder([&](unsigned a, unsigned b) { // Largest area first.
    return std::make_tuple(-area(a), a) < std::make_tuple(-area(b), b);
  });
  return std::max<int64_t>(best, 0);
}

//===----------------------------------------------------------------------===//
// The planner
//===----------------------------------------------------------------------===//

namespace {

struct PlanSummary {
  unsigned frees = 0;
  unsigned reuses = 0;
  int64_t bytesSaved = 0;
  unsigned dynamicBuffers = 0;
  /// Per device: arena bytes and the live lower bound.
  llvm::MapVector<Attribute, std::pair<int64_t, int64_t>> arenas;
};

class FunctionPlanner {
public:
  FunctionPlanner(FunctionOpInterface func, PlanSummary &summary)
      : func(func), block(func.getFunctionBody().front()), summary(summary) {}

  LogicalResult run();

private:
  void insertFrees();
  void reuseWithin(Block &scope, PartitionOp partition);
  void assignOffsets();
  Value findObjectIn(Block &scope, Value object, Operation *before);

  FunctionOpInterface func;
  Block &block;
  PlanSummary &summary;
  /// Frees this planner inserted, by the buffer object they free.
  llvm::DenseMap<Value, BufferDeallocOp> freeOf;
};

} // namespace

/// A value in `scope` that is the buffer object `object`, usable before
/// `before` (null: anywhere in the scope).
Value FunctionPlanner::findObjectIn(Block &scope, Value object,
                                    Operation *before) {
  if (object.getParentBlock() == &scope &&
      (!before || !object.getDefiningOp() ||
       object.getDefiningOp()->isBeforeInBlock(before)))
    return object;
  for (BlockArgument arg : scope.getArguments())
    if (getBufferObject(arg) == object)
      return arg;
  for (Operation &op : scope) {
    if (before && (&op == before || before->isBeforeInBlock(&op)))
      break;
    if (auto partition = dyn_cast<PartitionOp>(op))
      for (Value result : partition.getResults())
        if (getBufferObject(result) == object)
          return result;
  }
  return {};
}

void FunctionPlanner::insertFrees() {
  ProgramOrder order(block);
  // The last position at which any alias of each buffer object's storage is
  // used; storage that escapes through the terminator is never freed.
  llvm::MapVector<Value, unsigned> lastUse;
  llvm::DenseSet<Value> escapes;
  auto noteUse = [&](Value value, unsigned pos) {
    if (!isa<BaseMemRefType>(value.getType()))
      return;
    Value owner = getStorageOwner(value);
    unsigned &last = lastUse.try_emplace(owner, pos).first->second;
    last = std::max(last, pos);
  };
  // Positions are indices into the order's op list.
  for (auto [index, op] : llvm::enumerate(order.getOps())) {
    unsigned pos = index;
    for (Value result : op->getResults())
      noteUse(result, pos);
    if (op == block.getTerminator()) {
      for (Value operand : op->getOperands())
        if (isa<BaseMemRefType>(operand.getType()))
          escapes.insert(getStorageOwner(operand));
      continue;
    }
    for (Value operand : op->getOperands())
      noteUse(operand, pos);
    // Regions that are not expanded (control flow) use values too.
    if (op->getNumRegions() != 0 && !isa<KernelOp, PartitionOp>(op))
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          noteUse(operand, pos);
      });
  }

  OpBuilder builder(func.getContext());
  for (auto [owner, pos] : lastUse) {
    // Only storage this function allocated is its to free.
    Operation *definer = owner.getDefiningOp();
    if (!definer || escapes.contains(owner) ||
        isa<PartitionOp>(definer) ||
        !isa<BufferAllocOp, FallbackOp>(definer))
      continue;
    Operation *last = order.getOps()[pos];
    Value toFree;
    // Inside a partition, right after the last use, when the buffer object
    // is at hand there.
    if (auto partition = dyn_cast<PartitionOp>(last)) {
      // Only passed in to be freed: free it first thing.
      Block &body = partition.getBody().front();
      if ((toFree = findObjectIn(body, owner, nullptr)))
        builder.setInsertionPointToStart(&body);
    } else if (!last->hasTrait<OpTrait::IsTerminator>()) {
      if ((toFree = findObjectIn(*last->getBlock(), owner, nullptr)))
        builder.setInsertionPointAfter(last);
    }
    if (!toFree) {
      // Otherwise after the partition (or op) holding the last use.
      Operation *top = block.findAncestorOpInBlock(*last);
      if ((toFree = findObjectIn(block, owner, top->getNextNode())))
        builder.setInsertionPointAfter(top);
    }
    if (!toFree) {
      last->emitWarning() << "gp-plan-memory: cannot free the buffer "
                             "object last used here: it is not reachable "
                             "where its last use is";
      continue;
    }
    auto free = BufferDeallocOp::create(builder, last->getLoc(), toFree);
    freeOf[owner] = free;
    ++summary.frees;
  }
}

void FunctionPlanner::reuseWithin(Block &scope, PartitionOp partition) {
  // Storage of the partition's outputs stays alive after it: never reuse it
  // (judged against this partition's outputs, not the program's).
  llvm::DenseSet<Value> outputs;
  if (partition)
    for (Value yielded : partition.getYield().getValues())
      outputs.insert(getStorageOwner(yielded));

  struct Dead {
    Value buffer;
    MemRefType type;
    int64_t bytes;
    BufferDeallocOp free;
  };
  SmallVector<Dead> dead;
  for (Operation &op : llvm::make_early_inc_range(scope)) {
    if (auto free = dyn_cast<BufferDeallocOp>(op)) {
      Value buffer = free.getBuffer();
      auto type = cast<MemRefType>(buffer.getType());
      Operation *definer = buffer.getDefiningOp();
      std::optional<int64_t> bytes = getStaticByteSize(type);
      // Only storage allocated in this scope is this scope's to hand on.
      if (definer && definer->getBlock() == &scope && bytes &&
          isa<BufferAllocOp, BufferReuseOp>(definer) &&
          !outputs.contains(getStorageOwner(buffer)) &&
          !getDevice(type).isMeta())
        dead.push_back({buffer, type, *bytes, free});
      continue;
    }
    auto alloc = dyn_cast<BufferAllocOp>(op);
    if (!alloc)
      continue;
    MemRefType type = alloc.getType();
    std::optional<int64_t> bytes = getStaticByteSize(type);
    if (!bytes || getDevice(type).isMeta())
      continue;
    // Best fit: the smallest dead buffer on the same device that is large
    // enough.
    Dead *best = nullptr;
    for (Dead &candidate : dead)
      if (getDevice(candidate.type) == getDevice(type) &&
          candidate.bytes >= *bytes &&
          (!best || candidate.bytes < best->bytes))
        best = &candidate;
    if (!best)
      continue;
    OpBuilder builder(alloc);
    auto reuse = BufferReuseOp::create(builder, alloc.getLoc(), type,
                                       best->buffer);
    alloc.getResult().replaceAllUsesWith(reuse.getResult());
    alloc.erase();
    best->free.erase();
    ++summary.reuses;
    summary.bytesSaved += *bytes;
    *best = dead.back();
    dead.pop_back();
  }
}

void FunctionPlanner::assignOffsets() {
  ProgramOrder order(block);
  unsigned end = order.size();
  // One request per chain of storage: an allocation (or a fresh,
  // statically sized extern result) and the reuses that take its storage
  // over.
  struct Chain {
    Operation *head;
    unsigned result;
    MemRefType type;
    int64_t bytes;
    unsigned start, last;
  };
  SmallVector<Chain> chains;
  llvm::DenseMap<Value, unsigned> chainOf;
  auto addChain = [&](Value buffer, unsigned pos) {
    auto type = cast<MemRefType>(buffer.getType());
    std::optional<int64_t> bytes = getStaticByteSize(type);
    if (getDevice(type).isMeta())
      return;
    if (!bytes) {
      ++summary.dynamicBuffers; // Planned per shape key at run time.
      return;
    }
    chainOf[buffer] = chains.size();
    chains.push_back({buffer.getDefiningOp(),
                      cast<OpResult>(buffer).getResultNumber(), type,
                      alignUp(std::max<int64_t>(*bytes, 1)), pos, end});
  };
  for (auto [index, op] : llvm::enumerate(order.getOps())) {
    unsigned pos = index;
    if (auto alloc = dyn_cast<BufferAllocOp>(op)) {
      addChain(alloc.getResult(), pos);
    } else if (auto fallback = dyn_cast<FallbackOp>(op)) {
      for (auto [index, result] : llvm::enumerate(fallback.getResults()))
        if (isa<MemRefType>(result.getType()) &&
            !fallback.getAliasedOperand(index))
          addChain(result, pos);
    } else if (auto reuse = dyn_cast<BufferReuseOp>(op)) {
      auto it = chainOf.find(getBufferObject(reuse.getSource()));
      if (it != chainOf.end())
        chainOf[reuse.getResult()] = it->second;
    }
  }
  // A chain lives until its last buffer is freed (or to the end).
  SmallVector<bool> freed(chains.size(), false);
  for (auto [pos, op] : llvm::enumerate(order.getOps()))
    if (auto free = dyn_cast<BufferDeallocOp>(op)) {
      auto it = chainOf.find(getBufferObject(free.getBuffer()));
      if (it == chainOf.end())
        continue;
      chains[it->second].last = pos;
      freed[it->second] = true;
    }
  // Freed by a reuse: still live, as the reuse's buffer, until that one is.
  for (auto [index, chain] : llvm::enumerate(chains))
    if (!freed[index])
      chain.last = end;

  llvm::MapVector<Attribute, SmallVector<unsigned>> byDevice;
  for (auto [index, chain] : llvm::enumerate(chains))
    byDevice[getDevice(chain.type)].push_back(index);
  // Extern results' offsets, one list per fallback (-1: not planned).
  llvm::MapVector<Operation *, SmallVector<int64_t>> resultOffsets;
  SmallVector<Attribute> arenas;
  for (auto &[device, indices] : byDevice) {
    SmallVector<ArenaRequest> requests;
    for (unsigned index : indices)
      requests.push_back(
          {chains[index].bytes, chains[index].start, chains[index].last});
    SmallVector<int64_t> offsets;
    int64_t arena = assignArenaOffsets(requests, offsets);
    Builder builder(func.getContext());
    for (auto [index, offset] : llvm::zip(indices, offsets)) {
      Chain &chain = chains[index];
      if (auto alloc = dyn_cast<BufferAllocOp>(chain.head)) {
        alloc.setOffsetAttr(builder.getI64IntegerAttr(offset));
        continue;
      }
      SmallVector<int64_t> &list = resultOffsets[chain.head];
      list.resize(chain.head->getNumResults(), -1);
      list[chain.result] = offset;
    }
    arenas.push_back(ArenaAttr::get(func.getContext(),
                                    cast<DeviceAttr>(device), arena));
    summary.arenas[device] = {arena, liveLowerBound(requests)};
  }
  for (auto &[op, offsets] : resultOffsets)
    cast<FallbackOp>(op).setResultOffsets(offsets);
  if (!arenas.empty())
    func->setAttr(GPDialect::getArenasAttrName(),
                  ArrayAttr::get(func.getContext(), arenas));
}

LogicalResult FunctionPlanner::run() {
  WalkResult planned = func->walk([&](Operation *op) {
    auto alloc = dyn_cast<BufferAllocOp>(op);
    auto fallback = dyn_cast<FallbackOp>(op);
    if (isa<BufferDeallocOp, BufferReuseOp>(op) || (alloc && alloc.getOffset()) ||
        (fallback && fallback.getResultOffsets())) {
      op->emitOpError("found in a function given to gp-plan-memory: the "
                      "function is already planned");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (planned.wasInterrupted())
    return failure();
  insertFrees();
  reuseWithin(block, PartitionOp());
  for (Operation &op : block)
    if (auto partition = dyn_cast<PartitionOp>(op))
      reuseWithin(partition.getBody().front(), partition);
  assignOffsets();
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct GPPlanMemoryPass
    : public mlir::gp::impl::GPPlanMemoryPassBase<GPPlanMemoryPass> {
  using GPPlanMemoryPassBase::GPPlanMemoryPassBase;
  void runOnOperation() override;
};
} // namespace

void GPPlanMemoryPass::runOnOperation() {
  SmallVector<FunctionOpInterface> funcs = collectFunctions(getOperation());
  for (FunctionOpInterface func : funcs) {
    if (func.isExternal())
      continue;
    if (!func.getFunctionBody().hasOneBlock()) {
      func.emitWarning() << "gp-plan-memory: not planned: the function "
                            "branches between blocks";
      continue;
    }
    PlanSummary summary;
    if (failed(FunctionPlanner(func, summary).run()))
      return signalPassFailure();
    numFrees += summary.frees;
    numReuses += summary.reuses;
    bytesSavedByReuse += summary.bytesSaved;
    for (auto &[device, sizes] : summary.arenas)
      arenaBytes += sizes.first;
    if (!report)
      continue;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "gp-plan-memory: @" << func.getName() << ": " << summary.frees
       << " frees, " << summary.reuses << " reuses (" << summary.bytesSaved
       << " bytes saved), " << summary.dynamicBuffers
       << " symbolic-size buffers planned at run time\n";
    for (auto &[device, sizes] : summary.arenas)
      os << "  arena " << cast<DeviceAttr>(device).str() << ": "
         << sizes.first << " bytes (live lower bound " << sizes.second
         << " bytes)\n";
    writeReport(text);
  }
  if (!reportFile.empty() &&
      failed(writeJsonReport(getOperation(), "gp-plan-memory", reportFile)))
    return signalPassFailure();
}
