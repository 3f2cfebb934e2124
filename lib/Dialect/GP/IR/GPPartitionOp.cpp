//===- GPPartitionOp.cpp - the gp.partition operation ---------------------===//
//
// Verifiers, effects and result names of gp.partition: its signature
// (inputs, writes, frees), its body and the effects it reports for it.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"

#include <string>

using namespace mlir;
using namespace mlir::gp;

//===----------------------------------------------------------------------===//
// PartitionOp
//===----------------------------------------------------------------------===//

void PartitionOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  if (getNumResults())
    setNameFn(getResult(0), "p" + std::to_string(getPartitionId()));
}

YieldOp PartitionOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult PartitionOp::verify() {
  if (isCapturable() && !getReasons().empty())
    return emitOpError("is capturable but lists reasons not to capture it");
  if (!isCapturable() && getReasons().empty())
    return emitOpError("is eager but gives no reason; list why its ops "
                       "cannot be captured");
  for (StringRef reason : getReasons().getAsValueRange<StringAttr>())
    if (reason.empty())
      return emitOpError("has an empty reason");
  for (auto [list, name] : {std::make_pair(getWrites(), "writes"),
                            std::make_pair(getFrees(), "frees")}) {
    llvm::SmallSet<int64_t, 8> seen;
    for (int64_t index : list) {
      if (index < 0 || index >= static_cast<int64_t>(getInputs().size()))
        return emitOpError() << "'" << name << "' names input " << index
                             << " but the partition has "
                             << getInputs().size() << " inputs";
      if (!getDevice(getInputs()[index].getType()))
        return emitOpError() << "'" << name << "' names input " << index
                             << ", which is not a buffer";
      if (!seen.insert(index).second)
        return emitOpError() << "'" << name << "' lists input " << index
                             << " twice";
    }
  }
  return success();
}

LogicalResult PartitionOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments but the partition has "
                         << getInputs().size() << " inputs";
  for (auto [index, pair] : llvm::enumerate(
           llvm::zip(body.getArgumentTypes(), getInputs().getTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "body argument " << index << " has type "
                           << std::get<0>(pair) << " but input " << index
                           << " has type " << std::get<1>(pair);
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with gp.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values of types " << yield.getValues().getTypes()
                         << " but the partition returns "
                         << getResultTypes();
  for (Operation &op : body)
    if (isa<PartitionOp>(op))
      return op.emitOpError("partitions do not nest");
  for (int64_t index : getFrees())
    if (llvm::is_contained(yield.getValues(), body.getArgument(index)))
      return emitOpError() << "frees input " << index
                           << " and also yields it back";
  return success();
}

void PartitionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Report the body's effects on the partition's own operands and results,
  // so dependence analysis sees through the isolated region.
  Block &body = getBody().front();
  YieldOp yield = getYield();
  for (Operation &op : body) {
    auto effectOp = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effectOp) {
      if (!op.hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
          !isa<YieldOp>(op)) {
        // Unknown effects: be conservative.
        effects.emplace_back(MemoryEffects::Read::get());
        effects.emplace_back(MemoryEffects::Write::get());
      }
      continue;
    }
    SmallVector<MemoryEffects::EffectInstance> nested;
    effectOp.getEffects(nested);
    for (MemoryEffects::EffectInstance &effect : nested) {
      Value value = effect.getValue();
      if (!value) {
        effects.emplace_back(effect.getEffect(), effect.getResource());
        continue;
      }
      // An effect on a view made inside is an effect on what it views.
      while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
        value = view.getViewSource();
      if (auto arg = dyn_cast<BlockArgument>(value);
          arg && arg.getOwner() == &body) {
        effects.emplace_back(effect.getEffect(),
                             &getInputsMutable()[arg.getArgNumber()],
                             effect.getResource());
        continue;
      }
      // A buffer made inside and returned is allocated by the partition.
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        for (OpOperand &yielded : yield->getOpOperands())
          if (yielded.get() == value)
            effects.emplace_back(
                MemoryEffects::Allocate::get(),
                llvm::cast<OpResult>(getResult(yielded.getOperandNumber())),
                effect.getResource());
    }
  }
}
