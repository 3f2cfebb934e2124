//===- GPKernelOps.cpp - gp kernel, fallback, copy and item ops -----------===//
//
// Verifiers, effects and result names of the ops that work on buffers:
// gp.kernel, gp.fallback (its schema: mutated operands, result aliases,
// tags), gp.copy and gp.item.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Dialect/GP/IR/OpNames.h"
#include "GPOpsUtils.h"

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::detail;

static bool isScalarType(Type type) {
  return type.isIntOrIndexOrFloat();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

DeviceAttr KernelOp::getDevice() {
  for (Value operand : getOperands())
    if (DeviceAttr device = gp::getDevice(operand.getType()))
      return device;
  return {};
}

LogicalResult KernelOp::verify() {
  if (!isIdentifier(getKernelName()))
    return emitOpError() << "kernel name '" << getKernelName()
                         << "' is not an identifier";
  if (getOutputs().empty())
    return emitOpError("has no outputs: a kernel must write a buffer");
  DeviceAttr device;
  unsigned deviceOperand = 0;
  for (auto [index, operand] : llvm::enumerate(getOperands())) {
    Type type = operand.getType();
    DeviceAttr operandDevice = gp::getDevice(type);
    if (!operandDevice) {
      if (!isScalarType(type))
        return emitOpError() << "operand " << index << " has type " << type
                             << "; kernels take gp buffers and scalars";
      continue;
    }
    if (!device) {
      device = operandDevice;
      deviceOperand = index;
    } else if (device != operandDevice) {
      return emitOpError() << "operand " << index << " lives on "
                           << operandDevice.str() << " but operand "
                           << deviceOperand << " lives on " << device.str()
                           << ": all buffers of a kernel share one device";
    }
  }
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getNumOperands())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments but the kernel has "
                         << getNumOperands() << " operands";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(body.getArgumentTypes(), getOperandTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "body argument " << index << " has type "
                           << std::get<0>(pair) << " but operand " << index
                           << " has type " << std::get<1>(pair);
  if (!cast<YieldOp>(body.getTerminator()).getValues().empty())
    return emitOpError("body must yield nothing; kernels write their outs");
  WalkResult walk = getBody().walk([&](Operation *op) {
    if (isa<YieldOp>(op) && op->getParentOp() == getOperation())
      return WalkResult::advance();
    if (isa<GPDialect>(op->getDialect())) {
      op->emitOpError("cannot appear inside a gp.kernel body; kernel bodies "
                      "hold upstream ops");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

void KernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Operands are the ins, then the outs. Indexing them directly avoids
  // get{Inputs,Outputs}Mutable(), which build a segment-sizes attribute on
  // every call (this runs for every kernel in every analysis).
  unsigned numInputs = getInputs().size();
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    bool isInput = operand.getOperandNumber() < numInputs;
    if (isInput && !isa<MemRefType>(operand.get().getType()))
      continue;
    effects.emplace_back(MemoryEffects::Read::get(), &operand);
    if (!isInput)
      effects.emplace_back(MemoryEffects::Write::get(), &operand);
  }
}

//===----------------------------------------------------------------------===//
// FallbackOp
//===----------------------------------------------------------------------===//

void FallbackOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // One name for the group: multiple results print as `%out:2`.
  if (getNumResults())
    setNameFn(getResult(0), "out");
}

bool FallbackOp::hasTag(StringRef tag) {
  return llvm::any_of(getTags().getAsValueRange<StringAttr>(),
                      [&](StringRef t) { return t == tag; });
}

bool FallbackOp::isMutated(unsigned operandIndex) {
  return llvm::is_contained(getMutates(), operandIndex);
}

std::optional<unsigned> FallbackOp::getAliasedOperand(unsigned resultIndex) {
  std::optional<ArrayRef<int64_t>> aliases = getAliases();
  if (!aliases || resultIndex >= aliases->size() || (*aliases)[resultIndex] < 0)
    return std::nullopt;
  return (*aliases)[resultIndex];
}

StringRef FallbackOp::getOpName() {
  return getCallee().split('.').first;
}

LogicalResult FallbackOp::verify() {
  StringRef callee = getCallee();
  if (!isQualifiedOpName(callee))
    return emitOpError() << "name '" << callee
                         << "' must be 'namespace::op' or "
                            "'namespace::op.overload'";

  for (auto [index, type] : llvm::enumerate(getArgs().getTypes()))
    if (!getDevice(type) && !isScalarType(type))
      return emitOpError() << "operand " << index << " has type " << type
                           << "; fallback ops take gp buffers and scalars";
  for (auto [index, type] : llvm::enumerate(getResultTypes()))
    if (!getDevice(type) && !isScalarType(type))
      return emitOpError() << "result " << index << " has type " << type
                           << "; fallback ops return gp buffers and scalars";

  unsigned numArgs = getArgs().size();
  llvm::SmallSet<int64_t, 4> mutated;
  for (int64_t index : getMutates()) {
    if (index < 0 || index >= numArgs)
      return emitOpError() << "schema mutates operand " << index
                           << " but the op has " << numArgs << " operands";
    if (!getDevice(getArgs()[index].getType()))
      return emitOpError() << "schema mutates operand " << index
                           << ", which is not a buffer";
    if (!mutated.insert(index).second)
      return emitOpError() << "schema lists operand " << index
                           << " as mutated twice";
  }

  if (std::optional<ArrayRef<int64_t>> aliases = getAliases()) {
    if (aliases->size() != getNumResults())
      return emitOpError() << "schema gives " << aliases->size()
                           << " result aliases but the op has "
                           << getNumResults() << " results";
    for (auto [result, operand] : llvm::enumerate(*aliases)) {
      if (operand < 0)
        continue;
      if (operand >= numArgs)
        return emitOpError() << "schema says result " << result
                             << " aliases operand " << operand
                             << " but the op has " << numArgs << " operands";
      DeviceAttr operandDevice = getDevice(getArgs()[operand].getType());
      DeviceAttr resultDevice = getDevice(getResult(result).getType());
      if (!operandDevice || !resultDevice)
        return emitOpError() << "schema says result " << result
                             << " aliases operand " << operand
                             << ", but only buffers alias";
      if (operandDevice != resultDevice)
        return emitOpError() << "result " << result << " aliases operand "
                             << operand << " but lives on "
                             << resultDevice.str() << ", not "
                             << operandDevice.str();
    }
  }

  llvm::SmallSet<StringRef, 4> tags;
  for (StringRef tag : getTags().getAsValueRange<StringAttr>()) {
    if (tag.empty())
      return emitOpError("has an empty tag");
    if (!tags.insert(tag).second)
      return emitOpError() << "lists tag '" << tag << "' twice";
  }

  if (std::optional<ArrayRef<int64_t>> offsets = getResultOffsets()) {
    if (offsets->size() != getNumResults())
      return emitOpError() << "has " << offsets->size()
                           << " result offsets for " << getNumResults()
                           << " results";
    for (auto [index, offset] : llvm::enumerate(*offsets)) {
      if (offset < -1)
        return emitOpError() << "result " << index
                             << " has a negative offset " << offset;
      if (offset == -1)
        continue;
      auto type = dyn_cast<MemRefType>(getResult(index).getType());
      if (!type || !getStaticByteSize(type) || getAliasedOperand(index) ||
          getDevice(type).isMeta())
        return emitOpError() << "result " << index
                             << " has an arena offset but is not a fresh "
                                "buffer of static size with data";
    }
  }
  return success();
}

void FallbackOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (auto [index, operand] : llvm::enumerate(getArgsMutable())) {
    if (!getDevice(operand.get().getType()))
      continue;
    effects.emplace_back(MemoryEffects::Read::get(), &operand);
    if (isMutated(index))
      effects.emplace_back(MemoryEffects::Write::get(), &operand);
  }
  for (OpResult result : getOperation()->getResults())
    if (getDevice(result.getType()) &&
        !getAliasedOperand(result.getResultNumber()))
      effects.emplace_back(MemoryEffects::Allocate::get(), result);
}

//===----------------------------------------------------------------------===//
// CopyOp, ItemOp
//===----------------------------------------------------------------------===//

LogicalResult CopyOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (source.getElementType() != target.getElementType())
    return emitOpError() << "copies " << source.getElementType()
                         << " elements into a buffer of "
                         << target.getElementType();
  if (source.getRank() != target.getRank())
    return emitOpError("source and target must have the same rank");
  for (int64_t dim = 0; dim < source.getRank(); ++dim)
    if (!source.isDynamicDim(dim) && !target.isDynamicDim(dim) &&
        source.getDimSize(dim) != target.getDimSize(dim))
      return emitOpError() << "dimension " << dim << " is "
                           << source.getDimSize(dim) << " in the source but "
                           << target.getDimSize(dim) << " in the target";
  if (getSource() == getTarget())
    return emitOpError("copies a buffer onto itself");
  return success();
}

void ItemOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "scalar");
}

LogicalResult ItemOp::verify() {
  return verifySingleElement(*this, getSource().getType(), getType(),
                             /*integersOnly=*/false);
}

//===----------------------------------------------------------------------===//
// ScalarSlotOp
//===----------------------------------------------------------------------===//

void ScalarSlotOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getSlot(), "slot");
}

LogicalResult ScalarSlotOp::verify() {
  MemRefType type = getSlot().getType();
  if (type.getRank() != 0 || type.getElementType() != getValue().getType())
    return emitOpError() << "expects a 0-d buffer of "
                         << getValue().getType() << ", got " << type;
  if (DeviceAttr device = getDevice(type); device && device.isMeta())
    return emitOpError() << "a slot holds data; it cannot be on the meta "
                            "device";
  return success();
}

