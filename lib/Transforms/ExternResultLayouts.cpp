//===- ExternResultLayouts.cpp - externs write the layout that is read ----===//
//
// Attention returns [B, H, L, E] and a model reads it as [B, L, H, E] (the
// heads merged back before the output projection), so a copy kernel
// transposes every attention result. gp::attention takes its output with
// any strides, so its `_into` form writes the copy's destination directly,
// through the permuted view, and the copy and the temporary go.
//
//===----------------------------------------------------------------------===//

#include "KernelFusion.h"

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

} // namespace

unsigned mlir::gp::fusion::foldPermutedExternResults(FunctionOpInterface func) {
  SmallVector<FallbackOp> calls;
  func->walk([&](FallbackOp call) { calls.push_back(call); });
  unsigned folded = 0;
  for (FallbackOp call : calls)
    folded += fold(call);
  return folded;
}
