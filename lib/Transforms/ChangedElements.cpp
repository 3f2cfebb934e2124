//===- ChangedElements.cpp - store only the elements that change ---------===//
//
// storeOnlyChangedElements and the gp-store-changed-elements pass
// (ChangedElements.h, Passes.td): run by both kernel lowerings right after
// linalg becomes loops (convert-gp-to-gpu for cuda kernels, and
// gp-lower-kernel-code for host ones).
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Transforms/ChangedElements.h"
#include "GraphPart/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPSTORECHANGEDELEMENTSPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;

/// Whether `op` writes no memory but memrefs other than `memref` (stores, in
/// branches or not).
static bool writesOnlyOtherMemRefs(Operation *op, Value memref) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (auto store = dyn_cast<memref::StoreOp>(nested))
      return store.getMemRef() == memref ? WalkResult::interrupt()
                                         : WalkResult::advance();
    if (isa<scf::IfOp, scf::YieldOp, memref::LoadOp>(nested) ||
        isMemoryEffectFree(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

void mlir::gp::storeOnlyChangedElements(Operation *root, bool distinctMemRefs) {
  SmallVector<memref::StoreOp> stores;
  root->walk([&](memref::StoreOp store) { stores.push_back(store); });
  for (memref::StoreOp store : stores) {
    auto select = store.getValue().getDefiningOp<arith::SelectOp>();
    if (!select || !select.getCondition().getType().isInteger(1))
      continue;
    memref::LoadOp old;
    bool storeWhenTrue = true;
    for (bool oldOnFalse : {true, false}) {
      Value kept = oldOnFalse ? select.getFalseValue() : select.getTrueValue();
      auto load = kept.getDefiningOp<memref::LoadOp>();
      if (load && load.getMemRef() == store.getMemRef() &&
          llvm::equal(load.getIndices(), store.getIndices()) &&
          load->getBlock() == store->getBlock()) {
        old = load;
        storeWhenTrue = oldOnFalse;
        break;
      }
    }
    if (!old || !old->isBeforeInBlock(store))
      continue;
    // Nothing between the load and the store may write memory.
    bool writes = false;
    for (Operation *op = old->getNextNode(); op != store.getOperation();
         op = op->getNextNode())
      writes |=
          !isMemoryEffectFree(op) && !isa<memref::LoadOp>(op) &&
          !(distinctMemRefs && writesOnlyOtherMemRefs(op, store.getMemRef()));
    if (writes)
      continue;
    OpBuilder builder(store);
    Location loc = store.getLoc();
    Value condition = select.getCondition();
    if (!storeWhenTrue)
      condition = arith::XOrIOp::create(
          builder, loc, condition,
          arith::ConstantIntOp::create(builder, loc, 1, 1));
    Value value =
        storeWhenTrue ? select.getTrueValue() : select.getFalseValue();
    auto guard = scf::IfOp::create(builder, loc, condition,
                                   /*withElseRegion=*/false);
    builder.setInsertionPointToStart(&guard.getThenRegion().front());
    memref::StoreOp::create(builder, loc, value, store.getMemRef(),
                            store.getIndices(), store.getNontemporal());
    store.erase();
    if (select->use_empty())
      select.erase();
    if (old->use_empty())
      old.erase();
  }
}

namespace {

/// A loop nest whose loops `ivs` (outermost first) all enclose `body`: one
/// scf.parallel (its dimensions), or a perfect nest of scf.for.
struct LoopNest {
  Operation *outermost = nullptr;
  SmallVector<Value> ivs, lowerBounds, upperBounds, steps;
  /// The op of each loop (the scf.parallel for all of its dimensions).
  SmallVector<Operation *> loops;
  Block *body = nullptr;
};

std::optional<LoopNest> getLoopNest(Operation *op) {
  LoopNest nest;
  nest.outermost = op;
  if (auto parallel = dyn_cast<scf::ParallelOp>(op)) {
    if (parallel.getNumResults() != 0)
      return std::nullopt;
    llvm::append_range(nest.ivs, parallel.getInductionVars());
    llvm::append_range(nest.lowerBounds, parallel.getLowerBound());
    llvm::append_range(nest.upperBounds, parallel.getUpperBound());
    llvm::append_range(nest.steps, parallel.getStep());
    nest.loops.assign(nest.ivs.size(), op);
    nest.body = parallel.getBody();
    return nest;
  }
  auto loop = dyn_cast<scf::ForOp>(op);
  while (loop) {
    if (loop.getNumResults() != 0)
      return std::nullopt;
    nest.ivs.push_back(loop.getInductionVar());
    nest.lowerBounds.push_back(loop.getLowerBound());
    nest.upperBounds.push_back(loop.getUpperBound());
    nest.steps.push_back(loop.getStep());
    nest.loops.push_back(loop);
    nest.body = loop.getBody();
    // The next loop of a perfect nest: the body's only op besides the
    // terminator.
    Block &block = *loop.getBody();
    loop = block.getOperations().size() == 2
               ? dyn_cast<scf::ForOp>(block.front())
               : scf::ForOp();
  }
  if (nest.ivs.empty())
    return std::nullopt;
  return nest;
}

/// The ops of `body` that `value` is computed from, in block order, when
/// they are all pure or loads from memory no store of the nest writes,
/// hold no region and use no induction variable of the nest; nothing
/// otherwise.
std::optional<SmallVector<Operation *>>
getInvariantSlice(Value value, const LoopNest &nest,
                  const llvm::SmallPtrSetImpl<Value> &storedMemRefs) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Value current = work.pop_back_val();
    if (llvm::is_contained(nest.ivs, current))
      return std::nullopt;
    Operation *definer = current.getDefiningOp();
    if (!definer || !nest.outermost->isAncestor(definer))
      continue; // Defined outside the nest: invariant.
    if (definer->getBlock() != nest.body || definer->getNumRegions() != 0)
      return std::nullopt;
    auto load = dyn_cast<memref::LoadOp>(definer);
    if (!(load ? !storedMemRefs.contains(load.getMemRef()) : isPure(definer)))
      return std::nullopt;
    if (slice.insert(definer))
      llvm::append_range(work, definer->getOperands());
  }
  SmallVector<Operation *> ordered = slice.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Narrows the loop nest at `op` when it stores only under guards
/// `iv_k == x` with one loop k and one x the nest does not vary (after
/// storeOnlyChangedElements: a cache written at a position held in
/// memory). Loop k is dropped: the others run with iv_k = x, when x is one
/// of loop k's iterations. Returns whether it did.
bool narrowToStoredIndex(Operation *op) {
  std::optional<LoopNest> nest = getLoopNest(op);
  if (!nest)
    return false;
  // Every write in the nest: a store, the only op of an scf.if in the
  // innermost body whose condition compares a loop index with a value.
  llvm::SmallPtrSet<Value, 4> storedMemRefs;
  SmallVector<scf::IfOp> guards;
  bool other = false;
  nest->body->walk([&](Operation *nested) {
    if (auto store = dyn_cast<memref::StoreOp>(nested)) {
      auto guard = dyn_cast<scf::IfOp>(store->getParentOp());
      if (!guard || guard->getBlock() != nest->body ||
          guard.getNumResults() != 0 || !guard.getElseRegion().empty()) {
        other = true;
        return;
      }
      storedMemRefs.insert(store.getMemRef());
      if (!llvm::is_contained(guards, guard))
        guards.push_back(guard);
      return;
    }
    if (isa<scf::IfOp, scf::YieldOp, memref::LoadOp>(nested) ||
        isMemoryEffectFree(nested))
      return;
    other = true;
  });
  if (other || guards.empty())
    return false;
  std::optional<unsigned> loop;
  Value index;
  SmallVector<Operation *> slice;
  SmallVector<Value> comparisons;
  for (scf::IfOp guard : guards) {
    auto compare = guard.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!compare || compare.getPredicate() != arith::CmpIPredicate::eq ||
        compare->getBlock() != nest->body)
      return false;
    std::optional<unsigned> at;
    Value candidate;
    for (auto [ivOperand, other] :
         {std::pair(compare.getLhs(), compare.getRhs()),
          std::pair(compare.getRhs(), compare.getLhs())}) {
      const Value *iv = llvm::find(nest->ivs, ivOperand);
      if (iv != nest->ivs.end()) {
        at = iv - nest->ivs.begin();
        candidate = other;
        break;
      }
    }
    if (!at || (loop && *at != *loop))
      return false;
    if (!index) {
      std::optional<SmallVector<Operation *>> candidateSlice =
          getInvariantSlice(candidate, *nest, storedMemRefs);
      if (!candidateSlice)
        return false;
      loop = at;
      index = candidate;
      slice = std::move(*candidateSlice);
    }
    comparisons.push_back(compare.getResult());
  }
  // Different guards' values must be the same value, computed alike from
  // the same loads: compare their slices op by op.
  for (scf::IfOp guard : guards) {
    auto compare = guard.getCondition().getDefiningOp<arith::CmpIOp>();
    Value candidate = compare.getLhs() == nest->ivs[*loop] ? compare.getRhs()
                                                           : compare.getLhs();
    if (candidate == index)
      continue;
    std::optional<SmallVector<Operation *>> other =
        getInvariantSlice(candidate, *nest, storedMemRefs);
    if (!other || other->size() != slice.size())
      return false;
    IRMapping same;
    for (auto [mine, theirs] : llvm::zip(slice, *other)) {
      if (mine->getName() != theirs->getName() ||
          mine->getAttrDictionary() != theirs->getAttrDictionary() ||
          mine->getNumOperands() != theirs->getNumOperands())
        return false;
      for (auto [a, b] : llvm::zip(mine->getOperands(), theirs->getOperands()))
        if (same.lookupOrDefault(a) != b)
          return false;
      same.map(mine->getResults(), theirs->getResults());
    }
    if (same.lookupOrDefault(index) != candidate)
      return false;
  }

  // Loop k runs nothing where iv_k != x: drop it. x is computed again
  // (invariant, so the same value) and checked against loop k's range, and
  // the body runs once with iv_k = x and every guard true: in place of loop
  // k (an scf.for; the host's loops), or inside the scf.parallel of the
  // other dimensions, per iteration (a cuda kernel's loops must stay one
  // parallel loop for the GPU mapping; x is a load its threads share).
  Operation *loopOp = nest->loops[*loop];
  Location loc = loopOp->getLoc();
  Value always;
  IRMapping mapping;
  // At `builder`: x, the range check, and the guarded block whose
  // terminator the returned builder inserts before.
  auto emitGuard = [&](OpBuilder &builder) {
    IRMapping hoisted;
    for (Operation *sliceOp : slice)
      builder.clone(*sliceOp, hoisted);
    Value at = hoisted.lookup(index);
    Value lower = nest->lowerBounds[*loop], upper = nest->upperBounds[*loop],
          step = nest->steps[*loop];
    auto compareIndex = [&](arith::CmpIPredicate predicate, Value a, Value b) {
      return arith::CmpIOp::create(builder, loc, predicate, a, b).getResult();
    };
    Value inRange = arith::AndIOp::create(
        builder, loc, compareIndex(arith::CmpIPredicate::sge, at, lower),
        compareIndex(arith::CmpIPredicate::slt, at, upper));
    if (!matchPattern(step, m_One())) {
      Value offset = arith::SubIOp::create(builder, loc, at, lower);
      Value remainder = arith::RemSIOp::create(builder, loc, offset, step);
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      inRange = arith::AndIOp::create(
          builder, loc, inRange,
          compareIndex(arith::CmpIPredicate::eq, remainder, zero));
    }
    always = arith::ConstantIntOp::create(builder, loc, 1, 1);
    auto once = scf::IfOp::create(builder, loc, inRange, /*withElse=*/false);
    mapping.map(nest->ivs[*loop], at);
    return OpBuilder::atBlockTerminator(once.thenBlock());
  };
  OpBuilder builder(loopOp);
  if (isa<scf::ParallelOp>(loopOp)) {
    SmallVector<Value> lowers, uppers, steps, ivs;
    for (unsigned dim = 0; dim < nest->ivs.size(); ++dim) {
      if (dim == *loop)
        continue;
      lowers.push_back(nest->lowerBounds[dim]);
      uppers.push_back(nest->upperBounds[dim]);
      steps.push_back(nest->steps[dim]);
      ivs.push_back(nest->ivs[dim]);
    }
    if (ivs.empty()) {
      // One iteration left: still a parallel loop, of one point.
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      lowers.push_back(zero);
      uppers.push_back(one);
      steps.push_back(one);
    }
    auto narrowed =
        scf::ParallelOp::create(builder, loc, lowers, uppers, steps);
    if (!ivs.empty())
      mapping.map(ivs, narrowed.getInductionVars());
    OpBuilder atStart = OpBuilder::atBlockBegin(narrowed.getBody());
    OpBuilder inside = emitGuard(atStart);
    for (Operation &bodyOp : nest->body->without_terminator())
      inside.clone(bodyOp, mapping);
  } else {
    // scf.for: loop k's body (the loops inside it and the innermost body)
    // with iv_k = x.
    OpBuilder inside = emitGuard(builder);
    for (Operation &bodyOp :
         cast<scf::ForOp>(loopOp).getBody()->without_terminator())
      inside.clone(bodyOp, mapping);
  }
  // The guards' comparisons, iv_k == x with iv_k = x, hold.
  for (Value comparison : comparisons) {
    Value copy = mapping.lookup(comparison);
    copy.replaceAllUsesWith(always);
    copy.getDefiningOp()->erase();
  }
  loopOp->erase();
  return true;
}

} // namespace

void mlir::gp::iterateOnlyWhereStored(Operation *root) {
  SmallVector<Operation *> candidates;
  root->walk([&](Operation *op) {
    if (isa<scf::ParallelOp>(op) ||
        (isa<scf::ForOp>(op) && !isa<scf::ForOp>(op->getParentOp())))
      candidates.push_back(op);
  });
  for (Operation *op : candidates)
    narrowToStoredIndex(op);
}

namespace {
struct GPStoreChangedElementsPass
    : public gp::impl::GPStoreChangedElementsPassBase<
          GPStoreChangedElementsPass> {
  using GPStoreChangedElementsPassBase::GPStoreChangedElementsPassBase;
  void runOnOperation() override {
    gp::storeOnlyChangedElements(getOperation());
    gp::iterateOnlyWhereStored(getOperation());
  }
};
} // namespace
