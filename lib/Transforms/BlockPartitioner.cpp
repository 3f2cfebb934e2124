//===- BlockPartitioner.cpp - cut one block into gp.partitions ------------===//
//
// Each block of a function is cut independently:
//
//  0. every dynamic dimension of a buffer argument of the block that no
//     gp.symint.dim names gets one (the shape key must determine the
//     layouts a captured graph holds; unused ones are erased at the end);
//     a buffer a compute op makes (an extern's result) and a later group
//     uses gets its unnamed dynamic dimensions named after step 2;
//  1. compute ops are classified (CaptureSafetyAnalysis) and maximal runs of
//     the same kind become groups (min-partition-size may turn small
//     capturable groups eager; adjacent eager groups then merge);
//  2. every other op is placed: allocations and views join the group of
//     their first user (a view no group uses, the group that makes its
//     source); host definitions (symints, RNG states, scalar math)
//     stay outside, right after the group that defines their operands;
//  3. per alias class, the group holding its last use frees it; a group that
//     frees a buffer allocated earlier takes it as an input even when it
//     only uses views of it;
//  4. each group becomes a gp.partition with its signature, and the block is
//     reordered: hoisted definitions, then each partition followed by the
//     host definitions placed after it.
//
//===----------------------------------------------------------------------===//

#include "BlockPartitioner.h"

#include "GraphPart/Analysis/OuterUses.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include <climits>

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::partitioning;

/// Whether a value's type fixes its layout: not a buffer, or a memref
/// whose sizes, strides and offset are all static.
static bool hasStaticLayout(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return true;
  if (!memref.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return false;
  return !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

static bool isBuffer(Value value) {
  return isa<BaseMemRefType>(value.getType());
}

/// A captured graph holds its kernels' parameters as they were at capture,
/// the sizes of every buffer descriptor included, so a partition's shape key
/// must determine every dynamic size of a buffer input whose layout its work
/// depends on. Sizes of allocations and views are their operands (symints or
/// host scalars, hence inputs and key), and a program writes the dynamic
/// dimensions of its inputs down with gp.symint.dim; one it leaves unnamed
/// (a kernel reading a `memref<?xf32>` argument whole, say) would be in no
/// key, and the graph captured for one size would replay for another. So
/// every dynamic dimension of a buffer argument of the block that no
/// gp.symint.dim names gets one here, at the top of the block: from there
/// it reaches the keys of the partitions whose work depends on the layout
/// (collectShapeSymbols, buildPartition), like a written one; run() erases
/// those that no partition takes.
void BlockPartitioner::nameArgumentDims() {
  llvm::DenseSet<std::pair<Value, int64_t>> named;
  for (Operation &op : block)
    if (auto dim = dyn_cast<SymIntDimOp>(&op))
      named.insert({dim.getSource(), dim.getDim()});
  OpBuilder builder(block.getParentOp()->getContext());
  builder.setInsertionPointToStart(&block);
  for (BlockArgument arg : block.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type)
      continue;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d) || named.contains({arg, d}))
        continue;
      std::string name = "arg" + std::to_string(arg.getArgNumber()) + "_dim" +
                         std::to_string(d);
      auto dim = SymIntDimOp::create(
          builder, arg.getLoc(), builder.getIndexType(), arg,
          static_cast<uint64_t>(d), name, /*hint=*/nullptr, /*min=*/nullptr,
          /*max=*/nullptr);
      namedDims.push_back(dim);
    }
  }
}

/// The other way an unnamed dynamic size reaches a partition: a buffer made
/// by a compute op (an extern's result, sized by the extern when it runs)
/// and used by a later group. Its dynamic dimensions that no gp.symint.dim
/// names get one right after the group that makes it, so that the later
/// partitions whose work depends on its layout key its sizes. Only buffers
/// a later group uses: a name read after the group that makes and frees a
/// buffer would keep the buffer alive.
void BlockPartitioner::nameResultDims() {
  // Per alias class, the last group whose members use it.
  llvm::DenseMap<unsigned, int> lastUsingGroup;
  for (auto [g, members] : llvm::enumerate(membersOf)) {
    int group = static_cast<int>(g);
    for (Operation *op : members)
      walkOuterUsers(op, [&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (std::optional<unsigned> cls = aliases.findClass(operand)) {
            int &last = lastUsingGroup.try_emplace(*cls, -1).first->second;
            last = std::max(last, group);
          }
      });
  }
  llvm::DenseSet<std::pair<Value, int64_t>> named;
  for (Operation *op : ops)
    if (auto dim = dyn_cast<SymIntDimOp>(op))
      named.insert({dim.getSource(), dim.getDim()});
  OpBuilder builder(block.getParentOp()->getContext());
  for (size_t index = 0, e = ops.size(); index < e; ++index) {
    Operation *op = ops[index];
    const Placement made = placement.lookup(op);
    if (!made.member || getOpRole(op) != OpRole::Compute)
      continue;
    for (OpResult result : op->getResults()) {
      auto type = dyn_cast<MemRefType>(result.getType());
      std::optional<unsigned> cls = aliases.findClass(result);
      if (!type || type.hasStaticShape() || !cls ||
          lastUsingGroup.lookup_or(*cls, -1) <= made.group)
        continue;
      builder.setInsertionPointAfter(op);
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d) || named.contains({result, d}))
          continue;
        std::string name = "result" + std::to_string(result.getResultNumber()) +
                           "_dim" + std::to_string(d);
        auto dim = SymIntDimOp::create(
            builder, op->getLoc(), builder.getIndexType(), result,
            static_cast<uint64_t>(d), name, /*hint=*/nullptr, /*min=*/nullptr,
            /*max=*/nullptr);
        builder.setInsertionPointAfter(dim);
        // Outside, right after the group that makes the buffer; ordered
        // among the inputs of later partitions as the op that makes it.
        ops.push_back(dim);
        position[dim] = position.lookup(op);
        placement[dim] = {false, made.group};
        namedDims.push_back(dim);
      }
    }
  }
}

void BlockPartitioner::formGroups() {
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  // Sized once the ops are counted (an op list's size() walks the list).
  position.reserve(ops.size());
  placement.reserve(ops.size());
  for (auto [index, op] : llvm::enumerate(ops)) {
    position[op] = index;
    if (getOpRole(op) != OpRole::Compute)
      continue;
    std::optional<StringRef> reason = safety.getReason(op);
    if (groups.empty() || groups.back().capturable != !reason.has_value()) {
      groups.emplace_back();
      groups.back().capturable = !reason.has_value();
    }
    groups.back().computeOps.push_back(op);
    if (reason)
      groups.back().reasons.insert(*reason);
  }

  if (options.minPartitionSize <= 1)
    return;
  // Small capturable runs are not worth a graph: run them eagerly, and merge
  // the eager runs that then touch.
  SmallVector<Group> merged;
  for (Group &group : groups) {
    if (group.capturable &&
        group.computeOps.size() < options.minPartitionSize) {
      group.capturable = false;
      group.reasons.insert("below min-partition-size");
    }
    if (!merged.empty() && !merged.back().capturable && !group.capturable) {
      merged.back().computeOps.append(group.computeOps);
      merged.back().reasons.insert(group.reasons.begin(), group.reasons.end());
      continue;
    }
    merged.push_back(std::move(group));
  }
  groups = std::move(merged);
}

int BlockPartitioner::slotOf(Operation *op) const {
  if (op == block.getTerminator())
    return INT_MAX;
  if (auto it = partitionSlot.find(op); it != partitionSlot.end())
    return it->second;
  return placement.lookup(op).slot();
}

/// The group after which `value` is available (-1: from the start).
int BlockPartitioner::availableAfter(Value value) const {
  Operation *definer = value.getDefiningOp();
  if (!definer)
    return -1;
  Operation *ancestor = block.findAncestorOpInBlock(*definer);
  if (!ancestor)
    return -1; // Defined above the block.
  return placement.lookup(ancestor).group;
}

void BlockPartitioner::makeMember(Operation *op, int group) {
  Placement &p = placement[op];
  if (p.member)
    return;
  p = {true, group};
  // Its operands must now be ready inside the group too.
  for (Value operand : op->getOperands())
    if (Operation *definer = operand.getDefiningOp())
      if (Operation *ancestor = block.findAncestorOpInBlock(*definer))
        if (!placement[ancestor].member &&
            placement[ancestor].group == group)
          makeMember(ancestor, group);
}

void BlockPartitioner::placeOps() {
  for (auto [index, group] : llvm::enumerate(groups))
    for (Operation *op : group.computeOps)
      placement[op] = {true, static_cast<int>(index)};

  // The earliest group whose members use an op's results (INT_MAX: none).
  auto firstMemberUse = [&](Operation *op) {
    int first = INT_MAX;
    for (Operation *user : op->getUsers()) {
      Operation *ancestor = block.findAncestorOpInBlock(*user);
      if (!ancestor)
        continue;
      auto it = placement.find(ancestor);
      if (it != placement.end() && it->second.member)
        first = std::min(first, it->second.group);
    }
    return first;
  };

  // Backwards, so that an allocation sees where its views went.
  int lastComputeGroup = -1;
  SmallVector<int> computeGroupBefore(ops.size()); // by position
  for (auto [index, op] : llvm::enumerate(ops)) {
    if (auto it = placement.find(op);
        it != placement.end() && it->second.member)
      lastComputeGroup = it->second.group;
    computeGroupBefore[index] = lastComputeGroup;
  }
  for (unsigned index = ops.size(); index-- > 0;) {
    Operation *op = ops[index];
    if (getOpRole(op) != OpRole::Glue)
      continue;
    if (op->getNumResults() == 0) {
      // A free goes with the work before it.
      if (computeGroupBefore[index] >= 0)
        placement[op] = {true, computeGroupBefore[index]};
      continue;
    }
    int first = firstMemberUse(op);
    if (first != INT_MAX)
      placement[op] = {true, first};
  }

  // Forwards: everything else stays outside, right after the group that
  // defines its operands, unless a member of that same group needs it.
  for (Operation *op : ops) {
    if (auto it = placement.find(op);
        it != placement.end() && it->second.member)
      continue;
    int defGroup = -1;
    // The op's own operands, and those of the ops nested in it.
    walkOuterUsers(op, [&](Operation *nested) {
      for (Value operand : nested->getOperands())
        defGroup = std::max(defGroup, availableAfter(operand));
    });
    placement[op] = {false, defGroup};
    // A view that no group uses (one only returned) joins the group that
    // makes what it views: views exist only inside partitions.
    bool unusedView = getOpRole(op) == OpRole::Glue &&
                      isa<ViewLikeOpInterface>(op) &&
                      firstMemberUse(op) == INT_MAX;
    if (defGroup >= 0 && (firstMemberUse(op) <= defGroup || unusedView))
      makeMember(op, defGroup);
  }

  membersOf.assign(groups.size(), {});
  for (Operation *op : ops)
    if (const Placement &p = placement[op]; p.member)
      membersOf[p.group].push_back(op);
}

void BlockPartitioner::computeLifetimes() {
  llvm::DenseMap<unsigned, int> lastSlot;
  auto noteUse = [&](Value value, int slot) {
    std::optional<unsigned> cls = aliases.findClass(value);
    if (!cls)
      return;
    int &last = lastSlot.try_emplace(*cls, slot).first->second;
    last = std::max(last, slot);
  };
  for (Operation &op : block) {
    int slot = slotOf(&op);
    walkOuterUsers(&op, [&](Operation *nested) {
      for (Value operand : nested->getOperands())
        noteUse(operand, slot);
    });
  }
  for (Operation *op : ops) {
    if (op->getNumResults() == 0)
      continue;
    int slot = slotOf(op);
    for (Value result : op->getResults())
      noteUse(result, slot);
  }
  // Uses from other blocks escape this block's partitions.
  for (Operation *op : ops)
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (!block.findAncestorOpInBlock(*user))
          noteUse(result, INT_MAX);

  for (auto [cls, slot] : lastSlot) {
    // Storage made outside this block (program inputs, values from other
    // blocks) is not this block's to free.
    bool ownedElsewhere = llvm::any_of(aliases.getRoots(cls), [&](Value root) {
      Operation *definer = root.getDefiningOp();
      return !definer || !block.findAncestorOpInBlock(*definer);
    });
    if (ownedElsewhere || slot == INT_MAX) {
      neverFreed.insert(cls);
      continue;
    }
    if (slot % 2 == 1)
      freedBy[cls] = (slot - 1) / 2;
  }
  classesFreedBy.assign(groups.size(), {});
  for (auto [cls, group] : freedBy)
    classesFreedBy[group].push_back(cls);
  for (SmallVector<unsigned> &classes : classesFreedBy)
    llvm::sort(classes); // Deterministic input order.

  // A root allocated in an earlier group that a later group frees must be
  // exported by its group, even if only views of it are used later.
  for (auto [cls, group] : freedBy)
    for (Value root : aliases.getRoots(cls))
      if (Operation *definer = root.getDefiningOp())
        if (Operation *ancestor = block.findAncestorOpInBlock(*definer);
            ancestor && placement[ancestor].member &&
            placement[ancestor].group < group)
          mustExport.insert(root);
}

void BlockPartitioner::collectShapeSymbols() {
  auto add = [&](Value buffer, ValueRange symbols) {
    std::optional<unsigned> cls = aliases.findClass(buffer);
    if (!cls)
      return;
    llvm::SmallSetVector<Value, 4> *set = nullptr; // Made on first symbol.
    for (Value symbol : symbols)
      if (symbol.getType().isIndex()) {
        if (!set)
          set = &shapeSymbols[*cls];
        set->insert(symbol);
      }
  };
  for (Operation *op : ops) {
    if (auto dim = dyn_cast<SymIntDimOp>(op)) {
      add(dim.getSource(), dim.getResult());
      continue;
    }
    // Allocations and views: their index operands are sizes, offsets and
    // strides of the buffers they make.
    if (getOpRole(op) == OpRole::Glue)
      for (Value result : op->getResults())
        add(result, op->getOperands());
  }
}

PartitionSummary BlockPartitioner::buildPartition(int g) {
  Group &group = groups[g];
  ArrayRef<Operation *> members = membersOf[g];
  llvm::SmallPtrSet<Operation *, 16> memberSet(members.begin(), members.end());
  auto isInside = [&](Operation *op) {
    Operation *ancestor = block.findAncestorOpInBlock(*op);
    return ancestor && memberSet.contains(ancestor);
  };

  // Values the members use that are defined elsewhere.
  llvm::SetVector<Value> used;
  for (Operation *op : members) {
    for (Value operand : op->getOperands())
      if (!operand.getDefiningOp() || !isInside(operand.getDefiningOp()))
        used.insert(operand);
    for (Region &region : op->getRegions()) {
      if (op->hasTrait<OpTrait::IsIsolatedFromAbove>())
        continue;
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(region, above);
      for (Value value : above)
        if (!value.getDefiningOp() || !isInside(value.getDefiningOp()))
          used.insert(value);
    }
  }

  // Roots of classes freed here that were allocated in earlier groups.
  for (unsigned cls : classesFreedBy[g]) {
    for (Value root : aliases.getRoots(cls))
      if (Operation *definer = root.getDefiningOp())
        if (!isInside(definer))
          used.insert(current(root));
  }

  // Symints in the layouts of buffer inputs, when already known here and
  // when the partition's work depends on that layout: a buffer read only
  // through views of static layout (a fixed row of a buffer with a
  // symbolic outer size) makes the same graph whatever its size, so its
  // symbols would only cause needless captures.
  auto layoutMatters = [&](Value input) {
    SmallVector<Value> worklist{input};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      bool dynamic = !hasStaticLayout(value.getType());
      for (Operation *user : value.getUsers()) {
        if (!isInside(user))
          continue;
        auto view = dyn_cast<ViewLikeOpInterface>(user);
        if (view && view.getViewSource() == value &&
            user->getNumResults() == 1) {
          // Its own offsets and sizes are operands (inputs already); what
          // counts is how its result is used.
          worklist.push_back(user->getResult(0));
          continue;
        }
        if (dynamic)
          return true;
      }
    }
    return false;
  };
  int mySlot = 2 * g + 1;
  SmallVector<Value> layoutSymbols;
  for (Value value : used) {
    Value orig = original(value);
    std::optional<unsigned> cls = aliases.findClass(orig);
    if (!isBuffer(orig) || !cls || !layoutMatters(value))
      continue;
    auto it = shapeSymbols.find(*cls);
    if (it == shapeSymbols.end())
      continue;
    for (Value symbol : it->second) {
      Value sym = current(symbol);
      if (Operation *definer = sym.getDefiningOp()) {
        Operation *ancestor = block.findAncestorOpInBlock(*definer);
        if (ancestor && (isInside(ancestor) || slotOf(ancestor) >= mySlot))
          continue; // Not known before this partition.
      }
      layoutSymbols.push_back(sym);
    }
  }
  used.insert(layoutSymbols.begin(), layoutSymbols.end());

  // Documented order: program-input buffers (argument order), other buffers
  // (definition order), scalars and symints (definition order), RNG states.
  auto category = [&](Value value) {
    Value orig = original(value);
    if (isa<RngStateType>(value.getType()))
      return 3;
    if (!isBuffer(value))
      return 2;
    return isa<BlockArgument>(orig) ? 0 : 1;
  };
  auto key = [&](Value value) {
    Value orig = original(value);
    if (auto arg = dyn_cast<BlockArgument>(orig))
      return std::make_tuple(category(value), -1, arg.getArgNumber(), 0u);
    // Ops keep their identity when they move into a partition, so the
    // original placement and position still order them.
    Operation *definer = orig.getDefiningOp();
    Operation *top = block.findAncestorOpInBlock(*definer);
    if (!top || !position.count(top))
      top = definer;
    return std::make_tuple(category(value), placement.lookup(top).slot(),
                           position.lookup(top),
                           cast<OpResult>(orig).getResultNumber());
  };
  // Keys computed once per input, not per comparison.
  using Key = decltype(key(std::declval<Value>()));
  SmallVector<std::pair<Key, Value>> keyed;
  keyed.reserve(used.size());
  for (Value value : used)
    keyed.push_back({key(value), value});
  llvm::stable_sort(keyed, llvm::less_first());
  SmallVector<Value> inputs;
  inputs.reserve(keyed.size());
  for (auto &entry : keyed)
    inputs.push_back(entry.second);

  // Which inputs this partition writes, and which it frees.
  llvm::DenseSet<unsigned> writtenClasses;
  for (Operation *op : members)
    walkOuterUsers(op, [&](Operation *nested) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
      if (!effects) {
        if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
          return;
        for (Value operand : nested->getOperands())
          if (std::optional<unsigned> cls =
                  aliases.findClass(original(operand)))
            writtenClasses.insert(*cls);
        return;
      }
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (auto &effect : list)
        if (isa<MemoryEffects::Write>(effect.getEffect()) && effect.getValue())
          if (std::optional<unsigned> cls =
                  aliases.findClass(original(effect.getValue())))
            writtenClasses.insert(*cls);
    });

  SmallVector<int64_t> writes, frees;
  SmallVector<unsigned> returnedInputs;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    Value orig = original(input);
    std::optional<unsigned> found = aliases.findClass(orig);
    if (!isBuffer(input) || !found)
      continue;
    unsigned cls = *found;
    if (writtenClasses.contains(cls))
      writes.push_back(index);
    auto freed = freedBy.find(cls);
    if (freed != freedBy.end() && freed->second == g) {
      if (llvm::is_contained(aliases.getRoots(cls), orig))
        frees.push_back(index);
      continue;
    }
    returnedInputs.push_back(index);
  }

  // Results: values made here and used later, then the returned inputs.
  SmallVector<Value> madeHere;
  for (Operation *op : members)
    for (Value result : op->getResults()) {
      bool usedLater = llvm::any_of(result.getUsers(), [&](Operation *user) {
        return !isInside(user);
      });
      if (usedLater || mustExport.contains(result))
        madeHere.push_back(result);
    }

  SmallVector<Type> resultTypes;
  for (Value value : madeHere)
    resultTypes.push_back(value.getType());
  for (unsigned index : returnedInputs)
    resultTypes.push_back(inputs[index].getType());

  SmallVector<Attribute> reasonAttrs;
  MLIRContext *context = block.getParentOp()->getContext();
  for (StringRef reason : group.reasons)
    reasonAttrs.push_back(StringAttr::get(context, reason));

  OpBuilder builder(context);
  builder.setInsertionPoint(block.getTerminator());
  auto partition = PartitionOp::create(
      builder, members.front()->getLoc(), resultTypes, nextId++,
      group.capturable ? PartitionKind::capturable : PartitionKind::eager,
      builder.getArrayAttr(reasonAttrs), inputs, writes, frees);
  partitionSlot[partition] = mySlot;

  Block *body = new Block();
  partition.getBody().push_back(body);
  for (Value input : inputs)
    body->addArgument(input.getType(), input.getLoc());
  for (Operation *op : members)
    op->moveBefore(body, body->end());
  for (auto [input, arg] : llvm::zip(inputs, body->getArguments()))
    input.replaceUsesWithIf(arg, [&](OpOperand &use) {
      return partition->isProperAncestor(use.getOwner());
    });

  SmallVector<Value> yielded(madeHere);
  for (unsigned index : returnedInputs)
    yielded.push_back(body->getArgument(index));
  builder.setInsertionPointToEnd(body);
  YieldOp::create(builder, partition.getLoc(), yielded);

  for (auto [value, result] :
       llvm::zip(madeHere, partition.getResults().take_front(madeHere.size()))) {
    value.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !partition->isAncestor(use.getOwner());
    });
    originalOf[result] = original(value);
    currentOf[original(value)] = result;
  }
  for (auto [index, result] : llvm::zip(
           returnedInputs, partition.getResults().drop_front(madeHere.size()))) {
    Value input = inputs[index];
    input.replaceUsesWithIf(result, [&](OpOperand &use) {
      Operation *ancestor = block.findAncestorOpInBlock(*use.getOwner());
      return ancestor && ancestor != partition && slotOf(ancestor) > mySlot;
    });
    originalOf[result] = original(input);
    currentOf[original(input)] = result;
  }

  PartitionSummary summary;
  summary.op = partition;
  summary.numComputeOps = group.computeOps.size();
  if (!group.capturable)
    for (Operation *op : group.computeOps)
      if (std::optional<StringRef> reason = safety.getReason(op))
        summary.unsafeOps.emplace_back(op, *reason);
  return summary;
}

SmallVector<PartitionSummary> BlockPartitioner::run() {
  nameArgumentDims();
  // The dimensions named for nothing: no partition, or none that needs them.
  auto eraseUnusedNames = [&] {
    for (Operation *dim : namedDims)
      if (dim->use_empty())
        dim->erase();
    namedDims.clear();
  };
  formGroups();
  if (groups.empty()) {
    eraseUnusedNames();
    return {};
  }
  placeOps();
  nameResultDims();
  computeLifetimes();
  collectShapeSymbols();

  // Remember the final order before ops move into partitions.
  SmallVector<std::pair<int, Operation *>> outsideBySlot;
  for (Operation *op : ops)
    if (const Placement &p = placement[op]; !p.member)
      outsideBySlot.push_back({p.slot(), op});
  llvm::stable_sort(outsideBySlot, llvm::less_first());
  SmallVector<Operation *> outside;
  outside.reserve(outsideBySlot.size());
  for (auto &entry : outsideBySlot)
    outside.push_back(entry.second);

  SmallVector<PartitionSummary> summaries;
  for (int g = 0, e = groups.size(); g < e; ++g)
    summaries.push_back(buildPartition(g));

  // Hoisted definitions, then each partition and what follows it.
  Operation *terminator = block.getTerminator();
  auto outsideIt = outside.begin();
  auto emitOutsideUpTo = [&](int slot) {
    for (; outsideIt != outside.end() && placement[*outsideIt].slot() <= slot;
         ++outsideIt)
      (*outsideIt)->moveBefore(terminator);
  };
  for (auto [g, summary] : llvm::enumerate(summaries)) {
    emitOutsideUpTo(2 * static_cast<int>(g));
    summary.op->moveBefore(terminator);
  }
  emitOutsideUpTo(INT_MAX);
  eraseUnusedNames();
  return summaries;
}
