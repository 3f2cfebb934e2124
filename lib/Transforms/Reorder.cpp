//===- Reorder.cpp - reorder ops to minimise partitions -------------------===//

#include "GraphPart/Transforms/Reorder.h"

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "GraphPart/Analysis/CaptureSafety.h"
#include "GraphPart/Analysis/Dependences.h"
#include "GraphPart/Analysis/MemoryEstimate.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/Passes.h"
#include "PassUtils.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <queue>
#include <sstream>

namespace mlir::gp {
#define GEN_PASS_DEF_GPREORDERPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

namespace {
enum class NodeKind { Neutral, Unsafe, Safe };
} // namespace

static NodeKind kindOf(Operation *op, const CaptureSafetyAnalysis &safety) {
  if (getOpRole(op) != OpRole::Compute)
    return NodeKind::Neutral;
  return safety.getReason(op) ? NodeKind::Unsafe : NodeKind::Safe;
}

/// The kind of every node, computed once: classifying is not free.
static SmallVector<NodeKind> kindsOf(const BlockDependences &deps,
                                     const CaptureSafetyAnalysis &safety) {
  SmallVector<NodeKind> kinds;
  kinds.reserve(deps.getOps().size());
  for (Operation *op : deps.getOps())
    kinds.push_back(kindOf(op, safety));
  return kinds;
}

static unsigned countRuns(ArrayRef<unsigned> order, ArrayRef<NodeKind> kinds) {
  unsigned runs = 0;
  std::optional<NodeKind> last;
  for (unsigned node : order) {
    NodeKind kind = kinds[node];
    if (kind == NodeKind::Neutral)
      continue;
    if (kind != last)
      ++runs;
    last = kind;
  }
  return runs;
}

/// Drains the ready ops of one kind, then of the other, alternately,
/// starting with unsafe ops or with safe ones.
static SmallVector<unsigned> alternatingOrder(const BlockDependences &deps,
                                             ArrayRef<NodeKind> kinds,
                                             bool startUnsafe) {
  unsigned n = deps.getOps().size();
  using MinHeap =
      std::priority_queue<unsigned, std::vector<unsigned>, std::greater<>>;
  MinHeap queues[3];
  SmallVector<unsigned> pending(n);
  for (unsigned i = 0; i < n; ++i) {
    pending[i] = deps.getPredecessors(i).size();
    if (pending[i] == 0)
      queues[static_cast<int>(kinds[i])].push(i);
  }
  SmallVector<unsigned> order;
  order.reserve(n);
  auto schedule = [&](MinHeap &queue) {
    unsigned node = queue.top();
    queue.pop();
    order.push_back(node);
    for (unsigned next : deps.getSuccessors(node))
      if (--pending[next] == 0)
        queues[static_cast<int>(kinds[next])].push(next);
  };
  MinHeap &neutral = queues[static_cast<int>(NodeKind::Neutral)];
  MinHeap &unsafe = queues[static_cast<int>(NodeKind::Unsafe)];
  MinHeap &safe = queues[static_cast<int>(NodeKind::Safe)];
  // Ops that are neither safe nor unsafe compute ops go as soon as they are
  // ready, so they never split a run.
  bool unsafePhase = startUnsafe;
  while (order.size() < n) {
    if (!neutral.empty()) {
      schedule(neutral);
      continue;
    }
    MinHeap &current = unsafePhase ? unsafe : safe;
    if (!current.empty()) {
      schedule(current);
      continue;
    }
    unsafePhase = !unsafePhase;
  }
  return order;
}

// For a fixed first kind, draining each kind as far as it goes before
// switching is optimal: by induction over the phases, the set it has
// scheduled after k phases contains the set any other order starting with
// that kind has after k runs, so it never needs more runs. Which kind to
// start with is the one real choice (PyTorch always starts with the unsafe
// kind, which can cost a partition), so try both.
static SmallVector<unsigned> minPartitionsOrder(const BlockDependences &deps,
                                                ArrayRef<NodeKind> kinds) {
  SmallVector<unsigned> unsafeFirst = alternatingOrder(deps, kinds, true);
  SmallVector<unsigned> safeFirst = alternatingOrder(deps, kinds, false);
  return countRuns(safeFirst, kinds) < countRuns(unsafeFirst, kinds)
             ? safeFirst
             : unsafeFirst;
}

SmallVector<unsigned>
mlir::gp::minPartitionsOrder(const BlockDependences &deps,
                             const CaptureSafetyAnalysis &safety) {
  return ::minPartitionsOrder(deps, kindsOf(deps, safety));
}

static SmallVector<unsigned> simpleMovesOrder(const BlockDependences &deps,
                                              ArrayRef<NodeKind> kinds,
                                              ArrayRef<unsigned> order) {
  unsigned n = deps.getOps().size();
  auto isCompute = [&](unsigned i) { return kinds[i] != NodeKind::Neutral; };
  // Edges go from lower to higher indices, so one sweep each way suffices.
  SmallVector<bool> computeBefore(n, false), computeAfter(n, false);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned p : deps.getPredecessors(i))
      computeBefore[i] = computeBefore[i] || isCompute(p) || computeBefore[p];
  for (unsigned i = n; i-- > 0;)
    for (unsigned s : deps.getSuccessors(i))
      computeAfter[i] = computeAfter[i] || isCompute(s) || computeAfter[s];

  SmallVector<unsigned> front, middle, back;
  for (unsigned node : order) {
    bool unsafe = kinds[node] == NodeKind::Unsafe;
    if (unsafe && !computeBefore[node])
      front.push_back(node);
    else if (unsafe && !computeAfter[node])
      back.push_back(node);
    else
      middle.push_back(node);
  }
  SmallVector<unsigned> result(front);
  result.append(middle);
  result.append(back);
  return result;
}

SmallVector<unsigned>
mlir::gp::simpleMovesOrder(const BlockDependences &deps,
                           const CaptureSafetyAnalysis &safety,
                           ArrayRef<unsigned> order) {
  return ::simpleMovesOrder(deps, kindsOf(deps, safety), order);
}

static SmallVector<unsigned> materializeOrder(const BlockDependences &deps,
                                              ArrayRef<NodeKind> kinds,
                                              ArrayRef<unsigned> order) {
  ArrayRef<Operation *> ops = deps.getOps();
  unsigned n = ops.size();
  SmallVector<bool> emitted(n, false);
  SmallVector<unsigned> result;
  result.reserve(n);
  auto isNeutral = [&](unsigned i) { return kinds[i] == NodeKind::Neutral; };
  auto isResultless = [&](unsigned i) {
    return isNeutral(i) && ops[i]->getNumResults() == 0;
  };
  // Neutral ops without results (frees) go as soon as everything before
  // them has: count their unmet predecessors, and queue them when none is
  // left.
  SmallVector<unsigned> unmet(n, 0);
  for (unsigned i = 0; i < n; ++i)
    if (isResultless(i))
      unmet[i] = deps.getPredecessors(i).size();
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<>>
      readyResultless;
  auto markEmitted = [&](unsigned node) {
    emitted[node] = true;
    result.push_back(node);
    for (unsigned next : deps.getSuccessors(node))
      if (isResultless(next) && --unmet[next] == 0)
        readyResultless.push(next);
  };
  // Emits `node` after its unemitted predecessors, depth first without
  // recursion (chains of views can be long).
  SmallVector<std::pair<unsigned, unsigned>> stack; // node, next pred
  auto emit = [&](unsigned node) {
    if (emitted[node])
      return;
    stack.push_back({node, 0});
    while (!stack.empty()) {
      auto &[current, nextPred] = stack.back();
      ArrayRef<unsigned> preds = deps.getPredecessors(current);
      while (nextPred < preds.size() && emitted[preds[nextPred]])
        ++nextPred;
      if (nextPred < preds.size()) {
        unsigned pred = preds[nextPred];
        stack.push_back({pred, 0});
        continue;
      }
      unsigned done = current;
      stack.pop_back();
      if (!emitted[done])
        markEmitted(done);
    }
  };
  auto flushResultless = [&] {
    while (!readyResultless.empty()) {
      unsigned node = readyResultless.top();
      readyResultless.pop();
      emit(node);
    }
  };
  for (unsigned i = 0; i < n; ++i)
    if (isResultless(i) && unmet[i] == 0)
      readyResultless.push(i);
  // Neutral ops with results go just before their first user.
  for (unsigned node : order) {
    if (isNeutral(node))
      continue;
    emit(node);
    flushResultless();
  }
  for (unsigned node = 0; node < n; ++node)
    emit(node); // Neutral ops no compute op needs, in block order.
  return result;
}

SmallVector<unsigned>
mlir::gp::materializeOrder(const BlockDependences &deps,
                           const CaptureSafetyAnalysis &safety,
                           ArrayRef<unsigned> order) {
  return ::materializeOrder(deps, kindsOf(deps, safety), order);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// `1.1`, not `1.100000e+00`.
static std::string formatBudget(double budget) {
  std::ostringstream os;
  os << budget;
  return os.str();
}

namespace {
struct GPReorderPass : public mlir::gp::impl::GPReorderPassBase<GPReorderPass> {
  using GPReorderPassBase::GPReorderPassBase;

  LogicalResult initialize(MLIRContext *context) override {
    for (const std::string &strategy : strategies)
      if (strategy != "min-partitions" && strategy != "simple")
        return emitError(UnknownLoc::get(context))
               << "gp-reorder: unknown strategy '" << strategy
               << "': expected 'min-partitions' or 'simple'";
    if (!(memoryBudget >= 1.0))
      return emitError(UnknownLoc::get(context))
             << "gp-reorder: memory-budget must be at least 1.0, got "
             << formatBudget(memoryBudget);
    if (std::optional<std::string> bad = findMalformedUnsafeOp(unsafeOps))
      return emitError(UnknownLoc::get(context))
             << "gp-reorder: unsafe-ops entry '" << *bad
             << "' is not 'namespace::op' or 'namespace::op.overload'";
    return success();
  }

  void runOnOperation() override;
  LogicalResult reorderBlock(Block &block, const BufferAliasAnalysis &aliases,
                             llvm::raw_ostream &log);
};
} // namespace

LogicalResult GPReorderPass::reorderBlock(Block &block,
                                 const BufferAliasAnalysis &aliases,
                                 llvm::raw_ostream &log) {
  CaptureSafetyOptions options;
  options.unsafeOps.assign(unsafeOps.begin(), unsafeOps.end());
  options.skipDynamicGraphs = skipDynamicGraphs;
  options.captureCollectives = captureCollectives;
  CaptureSafetyAnalysis safety(block, options);
  BlockDependences deps(block, aliases);
  MemoryEstimator memory(block, aliases);
  ArrayRef<Operation *> ops = deps.getOps();

  auto toOps = [&](ArrayRef<unsigned> order) {
    SmallVector<Operation *> result;
    for (unsigned node : order)
      result.push_back(ops[node]);
    return result;
  };
  SmallVector<NodeKind> kinds = kindsOf(deps, safety);
  SmallVector<unsigned> current;
  for (unsigned i = 0; i < ops.size(); ++i)
    current.push_back(i);
  unsigned partitions0 = countRuns(current, kinds);
  int64_t peak0 = memory.estimatePeak(toOps(current));
  int64_t currentPeak = peak0;

  SmallVector<std::string> steps(strategies.begin(), strategies.end());
  if (steps.empty())
    steps = {"min-partitions", "simple"};
  for (const std::string &step : steps) {
    unsigned before = countRuns(current, kinds);
    SmallVector<unsigned> candidate =
        step == "min-partitions" ? ::minPartitionsOrder(deps, kinds)
                                 : ::simpleMovesOrder(deps, kinds, current);
    unsigned after = countRuns(candidate, kinds);
    if (after >= before)
      continue;
    // Fewer partitions are not worth much more memory.
    int64_t peakNow = currentPeak;
    int64_t peakNew = memory.estimatePeak(toOps(candidate));
    if (static_cast<double>(peakNew) >
        memoryBudget * static_cast<double>(peakNow)) {
      ++rejectedForMemory;
      log << "  " << step << ": kept the current order: " << after
          << " partitions instead of " << before
          << " would raise estimated peak memory from " << peakNow << " to "
          << peakNew << " bytes, over the budget of "
          << formatBudget(memoryBudget) << "x\n";
      continue;
    }
    current = std::move(candidate);
    currentPeak = peakNew;
  }

  SmallVector<unsigned> final = ::materializeOrder(deps, kinds, current);
  if (!deps.isValidOrder(final))
    return block.getParentOp()->emitError(
        "gp-reorder: internal error: the new order breaks a dependence");
  // Move only from the first op that changes place: unchanged prefixes
  // (most of a program that is already well ordered) stay untouched.
  unsigned firstMoved = 0;
  while (firstMoved < final.size() && final[firstMoved] == firstMoved)
    ++firstMoved;
  if (firstMoved < final.size()) {
    Operation *terminator = block.getTerminator();
    for (unsigned node : ArrayRef(final).drop_front(firstMoved))
      ops[node]->moveBefore(terminator);
  }

  unsigned partitions1 = countRuns(final, kinds);
  // Materializing keeps the compute ops' order, which is all the estimate
  // looks at.
  int64_t peak1 = currentPeak;
  partitionsBefore += partitions0;
  partitionsAfter += partitions1;
  peakBytesBefore += peak0;
  peakBytesAfter += peak1;
  log << "  partitions: " << partitions0 << " -> " << partitions1
      << "; estimated peak bytes: " << peak0 << " -> " << peak1 << "\n";
  return success();
}

void GPReorderPass::runOnOperation() {
  SmallVector<FunctionOpInterface> funcs = collectFunctions(getOperation());
  for (FunctionOpInterface func : funcs) {
    if (func.isExternal())
      continue;
    std::string text;
    llvm::raw_string_ostream log(text);
    log << "gp-reorder: @" << func.getName() << "\n";
    const BufferAliasAnalysis &aliases =
        func == getOperation() ? getAnalysis<BufferAliasAnalysis>()
                               : getChildAnalysis<BufferAliasAnalysis>(func);
    for (Block &block : func.getFunctionBody())
      if (failed(reorderBlock(block, aliases, log)))
        return signalPassFailure();
    if (report)
      writeReport(text);
  }
  // Moving ops changes no value and no aliasing: gp-partition can reuse the
  // alias classes.
  markAnalysesPreserved<BufferAliasAnalysis>();
}
