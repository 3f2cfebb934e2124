//===- ExternResultLayouts.cpp - externs read and write views in place ----===//
//
// Attention returns [B, H, L, E] and a model reads it as [B, L, H, E] (the
// heads merged back before the output projection), so a copy kernel
// transposes every attention result. gp::attention takes its output with
// any strides, so its `_into` form writes the copy's destination directly,
// through the permuted view, and the copy and the temporary go. Its
// operands take any strides too: a contiguous copy of a view of memory
// the program never writes (GPT-2's mask, a slice of a buffer parameter,
// copied because bufferization gives calls identity layouts) is replaced
// by the view itself.
//
//===----------------------------------------------------------------------===//

#include "KernelFusion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::fusion;

namespace {

/// Externs whose fresh result may instead be written into a given buffer
/// of any strides: the name of that form, which takes the buffer as a
/// last, written operand.
StringRef intoForm(StringRef callee) {
  return callee == "gp::attention" ? "gp::attention_into" : StringRef();
}

/// The copy kernel that is the only reader of `result` (besides its
/// deallocs), when it is a permutation copy into another buffer.
KernelOp permutedCopyOf(Value result, SmallVectorImpl<Operation *> &deallocs) {
  KernelOp copy;
  for (Operation *user : result.getUsers()) {
    if (isa<BufferDeallocOp>(user)) {
      deallocs.push_back(user);
      continue;
    }
    auto kernel = dyn_cast<KernelOp>(user);
    if (copy || !kernel || kernel.getInputs().size() != 1 ||
        kernel.getOutputs().size() != 1 || kernel.getInputs()[0] != result)
      return nullptr;
    copy = kernel;
  }
  if (!copy)
    return nullptr;
  linalg::LinalgOp body = getSingleLinalgOp(copy);
  if (!body || !isPermutationCopy(body) ||
      body.getDpsInputOperand(0)->get() != copy.getBody().getArgument(0))
    return nullptr;
  return copy;
}

/// The permutation that views the copy's destination in the layout of its
/// source: view dimension i is destination dimension permutation[i].
SmallVector<int64_t> sourceOrder(KernelOp copy) {
  linalg::LinalgOp body = getSingleLinalgOp(copy);
  AffineMap read = body.getMatchingIndexingMap(body.getDpsInputOperand(0));
  AffineMap write = body.getMatchingIndexingMap(body.getDpsInitOperand(0));
  // Destination indices in terms of the source's.
  AffineMap sourceToDestination = write.compose(inversePermutation(read));
  SmallVector<int64_t> permutation(read.getNumResults());
  for (auto [d, expr] : llvm::enumerate(sourceToDestination.getResults()))
    permutation[cast<AffineDimExpr>(expr).getPosition()] = d;
  return permutation;
}

/// Whether the ops strictly between `from` and `to` leave memory alone
/// (pure ops and allocations), so that writing the destination at `from`
/// instead of at `to` changes nothing another op sees.
bool onlyPureOpsBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (!(isPure(op) && op->getNumRegions() == 0) && !isa<BufferAllocOp>(op))
      return false;
  return true;
}

bool fold(FallbackOp call) {
  StringRef into = intoForm(call.getCallee());
  std::optional<ArrayRef<int64_t>> aliases = call.getAliases();
  if (into.empty() || call.getNumResults() != 1 || !aliases ||
      aliases->front() != -1)
    return false;
  SmallVector<Operation *> deallocs;
  KernelOp copy = permutedCopyOf(call.getResult(0), deallocs);
  if (!copy || copy->getBlock() != call->getBlock() ||
      !onlyPureOpsBetween(call, copy))
    return false;
  Value destination = copy.getOutputs()[0];
  // The destination must exist at the call: defined before it, or an
  // allocation between the two, which moves up.
  Operation *definition = destination.getDefiningOp();
  if (definition && definition->getBlock() == call->getBlock() &&
      call->isBeforeInBlock(definition)) {
    if (!isa<BufferAllocOp>(definition) || definition->getNumOperands())
      return false;
    definition->moveBefore(call);
  } else if (definition && !definition->isBeforeInBlock(call) &&
             definition->getBlock() == call->getBlock()) {
    return false;
  }
  auto resultType = cast<MemRefType>(call.getResult(0).getType());
  auto destinationType = dyn_cast<MemRefType>(destination.getType());
  if (!destinationType || !destinationType.isStrided() ||
      !resultType.hasStaticShape())
    return false;
  SmallVector<int64_t> permutation = sourceOrder(copy);
  OpBuilder builder(call);
  auto view = BufferTransposeOp::create(builder, call.getLoc(), destination,
                                        permutation);
  if (view.getType().getShape() != resultType.getShape()) {
    view.erase();
    return false;
  }
  SmallVector<Value> args(call.getArgs());
  args.push_back(view);
  FallbackOp::create(
      builder, call.getLoc(), TypeRange{}, into, args,
      builder.getDenseI64ArrayAttr({static_cast<int64_t>(args.size()) - 1}),
      /*aliases=*/DenseI64ArrayAttr(), call.getTagsAttr(),
      /*result_offsets=*/DenseI64ArrayAttr());
  copy.erase();
  for (Operation *dealloc : deallocs)
    dealloc->erase();
  call.erase();
  return true;
}

/// Externs that read their buffer operands with any strides.
bool takesStridedOperands(StringRef callee) {
  return callee == "gp::attention" || callee == "gp::attention_into";
}

/// Whether nothing in `func` writes the storage `view` shows: it is a view
/// (through slices, reshapes, transposes) of a function argument whose
/// every use, through views, only reads.
bool neverWritten(Value view) {
  Value base = view;
  while (Operation *definition = base.getDefiningOp()) {
    if (!isIndexView(definition))
      return false;
    base = definition->getOperand(0);
  }
  // A partition body's argument: what the partition was given.
  auto argument = cast<BlockArgument>(base);
  if (auto partition =
          dyn_cast<PartitionOp>(argument.getOwner()->getParentOp())) {
    Value given = partition.getInputs()[argument.getArgNumber()];
    if (!isa<BlockArgument>(given) && !given.getDefiningOp<BufferSliceOp>() &&
        !given.getDefiningOp<BufferReshapeOp>())
      return false;
    if (!neverWritten(given))
      return false;
  } else if (!isa<FunctionOpInterface>(argument.getOwner()->getParentOp())) {
    return false;
  }
  SmallVector<Value> worklist = {base};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isIndexView(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      if (auto kernel = dyn_cast<KernelOp>(user)) {
        if (use.getOperandNumber() < kernel.getInputs().size())
          continue;
        return false;
      }
      if (auto call = dyn_cast<FallbackOp>(user)) {
        if (!call.isMutated(use.getOperandNumber()) &&
            llvm::none_of(call.getResults(), [&](Value result) {
              return call.getAliasedOperand(
                         cast<OpResult>(result).getResultNumber()) ==
                     use.getOperandNumber();
            }))
          continue;
        return false;
      }
      if (isa<PartitionOp>(user)) {
        // Read or written inside: look at the body's argument's uses.
        auto partition = cast<PartitionOp>(user);
        worklist.push_back(
            partition.getBody().front().getArgument(use.getOperandNumber()));
        continue;
      }
      if (auto yield = dyn_cast<YieldOp>(user)) {
        // Handed out of its partition: the partition's result's uses.
        auto partition = dyn_cast<PartitionOp>(yield->getParentOp());
        if (!partition)
          return false;
        worklist.push_back(partition->getResult(use.getOperandNumber()));
        continue;
      }
      if (isa<func::ReturnOp>(user))
        continue;   // The caller's, after this program is done.
      return false; // A copy's target, anything else: conservatively.
    }
  }
  return true;
}

/// Replaces each buffer operand of `call` that is a fresh buffer filled
/// only by a plain copy of a never-written view, and read by `call` alone,
/// with the view; returns how many.
unsigned foldCopiedOperands(FallbackOp call) {
  if (!takesStridedOperands(call.getCallee()))
    return 0;
  unsigned folded = 0;
  for (OpOperand &operand : call->getOpOperands()) {
    auto alloc = operand.get().getDefiningOp<BufferAllocOp>();
    if (!alloc || call.isMutated(operand.getOperandNumber()) ||
        alloc->getBlock() != call->getBlock())
      continue;
    KernelOp copy;
    SmallVector<Operation *> deallocs;
    bool simple = true;
    for (OpOperand &use : alloc->getUses()) {
      Operation *user = use.getOwner();
      if (user == call.getOperation())
        continue;
      if (isa<BufferDeallocOp>(user)) {
        deallocs.push_back(user);
        continue;
      }
      auto kernel = dyn_cast<KernelOp>(user);
      simple = simple && !copy && kernel && kernel.getInputs().size() == 1 &&
               kernel.getOutputs().size() == 1 &&
               kernel.getOutputs()[0] == alloc.getResult();
      copy = kernel;
    }
    if (!simple || !copy || !copy->isBeforeInBlock(call) ||
        llvm::count(call->getOperands(), alloc.getResult()) != 1)
      continue;
    linalg::LinalgOp body = getSingleLinalgOp(copy);
    if (!body || !(isa<linalg::CopyOp>(body) || isPermutationCopy(body)) ||
        !body.getMatchingIndexingMap(body.getDpsInputOperand(0)).isIdentity() ||
        !body.getMatchingIndexingMap(body.getDpsInitOperand(0)).isIdentity())
      continue;
    Value source = copy.getInputs()[0];
    auto sourceType = dyn_cast<MemRefType>(source.getType());
    if (!sourceType || !sourceType.isStrided() ||
        sourceType.getShape() != alloc.getType().getShape() ||
        !neverWritten(source))
      continue;
    operand.set(source);
    copy.erase();
    for (Operation *dealloc : deallocs)
      dealloc->erase();
    alloc.erase();
    ++folded;
  }
  return folded;
}

} // namespace

unsigned mlir::gp::fusion::foldPermutedExternResults(FunctionOpInterface func) {
  SmallVector<FallbackOp> calls;
  func->walk([&](FallbackOp call) { calls.push_back(call); });
  unsigned folded = 0;
  for (FallbackOp call : calls)
    folded += fold(call);
  // The calls' operands, the `_into` forms included.
  calls.clear();
  func->walk([&](FallbackOp call) { calls.push_back(call); });
  for (FallbackOp call : calls)
    folded += foldCopiedOperands(call);
  return folded;
}
