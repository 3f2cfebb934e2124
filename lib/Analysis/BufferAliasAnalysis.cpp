//===- BufferAliasAnalysis.cpp - which buffers share storage --------------===//

#include "GraphPart/Analysis/BufferAliasAnalysis.h"

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/BitVector.h"

using namespace mlir;
using namespace mlir::gp;

static bool isBuffer(Value value) {
  return isa<BaseMemRefType>(value.getType());
}

/// Whether `op` declares that it allocates `result` (so the result owns new
/// storage rather than aliasing an operand).
static bool allocatesResult(Operation *op, OpResult result) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects &&
         effects.getEffectOnValue<MemoryEffects::Allocate>(result).has_value();
}

unsigned BufferAliasAnalysis::add(Value value) {
  auto [it, inserted] = ids.try_emplace(value, values.size());
  if (inserted) {
    values.push_back(value);
    parent.push_back(parent.size());
  }
  return it->second;
}

unsigned BufferAliasAnalysis::find(unsigned id) {
  while (parent[id] != id) {
    parent[id] = parent[parent[id]];
    id = parent[id];
  }
  return id;
}

void BufferAliasAnalysis::unite(Value a, Value b) {
  if (!isBuffer(a) || !isBuffer(b))
    return;
  unsigned ra = find(add(a)), rb = find(add(b));
  if (ra != rb)
    parent[std::max(ra, rb)] = std::min(ra, rb);
}

BufferAliasAnalysis::BufferAliasAnalysis(Operation *root) {
  // Which values are views of something else (so are not storage roots),
  // by id.
  llvm::BitVector aliasing;
  auto uniteAliasing = [&](Value alias, Value source) {
    unite(alias, source);
    if (isBuffer(alias)) {
      unsigned id = add(alias);
      if (id >= aliasing.size())
        aliasing.resize(std::max<size_t>(id + 1, 2 * aliasing.size()));
      aliasing.set(id);
    }
  };

  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isBuffer(arg))
            add(arg);
    for (Value result : op->getResults())
      if (isBuffer(result))
        add(result);

    if (isa<BufferAllocOp>(op))
      return; // A fresh buffer; its operands are sizes.
    if (auto view = dyn_cast<ViewLikeOpInterface>(op)) {
      uniteAliasing(view.getViewDest(), view.getViewSource());
      return;
    }
    if (auto fallback = dyn_cast<FallbackOp>(op)) {
      for (OpResult result : fallback->getResults())
        if (std::optional<unsigned> operand =
                fallback.getAliasedOperand(result.getResultNumber()))
          uniteAliasing(result, fallback.getArgs()[*operand]);
      return;
    }
    if (auto reuse = dyn_cast<BufferReuseOp>(op)) {
      // The new buffer lives in the old one's storage.
      unite(reuse.getResult(), reuse.getSource());
      return;
    }
    if (auto partition = dyn_cast<PartitionOp>(op)) {
      Block &body = partition.getBody().front();
      for (auto [arg, input] :
           llvm::zip(body.getArguments(), partition.getInputs()))
        uniteAliasing(arg, input);
      for (auto [result, yielded] :
           llvm::zip(partition.getResults(), partition.getYield().getValues()))
        uniteAliasing(result, yielded);
      return;
    }
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      Block &body = kernel.getBody().front();
      for (auto [arg, operand] :
           llvm::zip(body.getArguments(), kernel.getOperands()))
        uniteAliasing(arg, operand);
      return;
    }
    if (auto branch = dyn_cast<BranchOpInterface>(op)) {
      for (unsigned i = 0, e = op->getNumSuccessors(); i < e; ++i) {
        SuccessorOperands operands = branch.getSuccessorOperands(i);
        Block *successor = op->getSuccessor(i);
        for (unsigned j = 0, n = operands.size(); j < n; ++j)
          if (Value operand = operands[j])
            uniteAliasing(successor->getArgument(j), operand);
      }
    }
    // Anything else: a memref result that the op does not declare as freshly
    // allocated may alias any memref operand, any value yielded from its
    // regions, and its regions' arguments may alias its operands.
    SmallVector<Value> sources;
    for (Value operand : op->getOperands())
      if (isBuffer(operand))
        sources.push_back(operand);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (!block.empty() &&
            block.back().hasTrait<OpTrait::ReturnLike>())
          for (Value yielded : block.back().getOperands())
            if (isBuffer(yielded))
              sources.push_back(yielded);
    for (OpResult result : op->getResults())
      if (isBuffer(result) && !allocatesResult(op, result))
        for (Value source : sources)
          uniteAliasing(result, source);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          for (Value operand : op->getOperands())
            uniteAliasing(arg, operand);
  });

  // Number classes densely in order of first appearance.
  unsigned numValues = values.size();
  aliasing.resize(numValues);
  SmallVector<unsigned> classOfRoot(numValues, ~0u);
  classOf.resize(numValues);
  for (unsigned id = 0; id < numValues; ++id) {
    unsigned &cls = classOfRoot[find(id)];
    if (cls == ~0u)
      cls = numClasses++;
    classOf[id] = cls;
  }
  // Counting sort of the values by class keeps pre-order within a class.
  memberBegin.assign(numClasses + 1, 0);
  rootBegin.assign(numClasses + 1, 0);
  for (unsigned id = 0; id < numValues; ++id) {
    ++memberBegin[classOf[id] + 1];
    if (!aliasing.test(id))
      ++rootBegin[classOf[id] + 1];
  }
  for (unsigned cls = 0; cls < numClasses; ++cls) {
    memberBegin[cls + 1] += memberBegin[cls];
    rootBegin[cls + 1] += rootBegin[cls];
  }
  members.resize(numValues);
  roots.resize(rootBegin[numClasses]);
  SmallVector<unsigned> nextMember(memberBegin.begin(), memberBegin.end() - 1);
  SmallVector<unsigned> nextRoot(rootBegin.begin(), rootBegin.end() - 1);
  for (unsigned id = 0; id < numValues; ++id) {
    unsigned cls = classOf[id];
    members[nextMember[cls]++] = values[id];
    if (!aliasing.test(id))
      roots[nextRoot[cls]++] = values[id];
  }
}

unsigned BufferAliasAnalysis::getClass(Value value) const {
  auto it = ids.find(value);
  assert(it != ids.end() && "not a memref value under the analysed op");
  return classOf[it->second];
}

bool mlir::gp::writesDistinctBuffers(KernelOp kernel,
                                     const BufferAliasAnalysis &aliases) {
  for (Value output : kernel.getOutputs()) {
    std::optional<unsigned> outputClass = aliases.findClass(output);
    if (!outputClass)
      return false;
    for (Value operand : kernel->getOperands()) {
      if (operand == output || !isBuffer(operand))
        continue;
      std::optional<unsigned> operandClass = aliases.findClass(operand);
      if (!operandClass || *operandClass == *outputClass)
        return false;
    }
  }
  return true;
}
