//===- GPOps.cpp - GraphPart operations -----------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::gp;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::gp::getElementByteSize(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  if (auto complex = dyn_cast<ComplexType>(type))
    if (auto part = getElementByteSize(complex.getElementType()))
      return 2 * *part;
  return std::nullopt;
}

std::optional<int64_t> mlir::gp::getStaticByteSize(MemRefType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> elementSize =
      getElementByteSize(type.getElementType());
  if (!elementSize)
    return std::nullopt;
  return type.getNumElements() * *elementSize;
}

static bool isScalarType(Type type) {
  return type.isIntOrIndexOrFloat();
}

/// A valid C identifier: symint names and kernel names become symbols.
static bool isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

static LogicalResult verifySameDevice(Operation *op, MemRefType from,
                                      MemRefType to) {
  DeviceAttr fromDevice = getDevice(from), toDevice = getDevice(to);
  if (fromDevice != toDevice)
    return op->emitOpError() << "result lives on " << toDevice.str()
                             << " but its source lives on "
                             << fromDevice.str()
                             << ": a view stays on its base's device";
  return success();
}

/// Whether `value` is the result of a view of another buffer.
static bool isView(Value value) {
  return isa_and_nonnull<ViewLikeOpInterface>(value.getDefiningOp());
}

//===----------------------------------------------------------------------===//
// BufferAllocOp
//===----------------------------------------------------------------------===//

void BufferAllocOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "buf");
}

LogicalResult BufferAllocOp::verify() {
  MemRefType type = getType();
  if (static_cast<int64_t>(getDynamicSizes().size()) != type.getNumDynamicDims())
    return emitOpError() << "has " << getDynamicSizes().size()
                         << " dynamic size operands but the type has "
                         << type.getNumDynamicDims() << " dynamic dimensions";
  if (!type.getLayout().isIdentity())
    return emitOpError("allocates contiguous buffers: the result type must "
                       "have the identity layout");
  std::optional<int64_t> offset = getOffset();
  if (!offset)
    return success();
  DeviceAttr device = getDevice(type);
  if (device.isMeta())
    return emitOpError("places a meta buffer in an arena, but meta buffers "
                       "hold no data");
  if (*offset % 256 != 0)
    return emitOpError() << "arena offset " << *offset
                         << " is not a multiple of 256";
  // Check the placement against the function's arena for this device.
  auto func = (*this)->getParentOfType<FunctionOpInterface>();
  if (!func)
    return success();
  auto arenas =
      func->getAttrOfType<ArrayAttr>(GPDialect::getArenasAttrName());
  if (!arenas)
    return emitOpError() << "has an arena offset but the enclosing function "
                            "has no '"
                         << GPDialect::getArenasAttrName() << "' attribute";
  for (auto arena : arenas.getAsRange<ArenaAttr>()) {
    if (arena.getDevice() != device)
      continue;
    std::optional<int64_t> size = getStaticByteSize(type);
    if (size && *offset + *size > arena.getSize())
      return emitOpError() << "occupies bytes [" << *offset << ", "
                           << *offset + *size << ") but the " << device.str()
                           << " arena has " << arena.getSize() << " bytes";
    return success();
  }
  return emitOpError() << "has an arena offset but the enclosing function "
                          "has no arena for "
                       << device.str();
}

//===----------------------------------------------------------------------===//
// BufferDeallocOp
//===----------------------------------------------------------------------===//

LogicalResult BufferDeallocOp::verify() {
  if (isView(getBuffer()))
    return emitOpError("frees a view; free its base buffer instead");
  return success();
}

//===----------------------------------------------------------------------===//
// BufferReuseOp
//===----------------------------------------------------------------------===//

void BufferReuseOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "buf");
}

LogicalResult BufferReuseOp::verify() {
  MemRefType source = getSource().getType(), result = getType();
  if (getDevice(source) != getDevice(result))
    return emitOpError() << "reuses a buffer on " << getDevice(source).str()
                         << " for a buffer on " << getDevice(result).str();
  if (isView(getSource()))
    return emitOpError("reuses a view; only a base buffer owns storage");
  if (!result.getLayout().isIdentity())
    return emitOpError("result must have the identity layout");
  std::optional<int64_t> sourceSize = getStaticByteSize(source);
  std::optional<int64_t> resultSize = getStaticByteSize(result);
  if (sourceSize && resultSize && *resultSize > *sourceSize)
    return emitOpError() << "needs " << *resultSize
                         << " bytes but the reused buffer has only "
                         << *sourceSize;
  return success();
}

void BufferReuseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Free::get(), &getSourceMutable());
  effects.emplace_back(MemoryEffects::Allocate::get(),
                       llvm::cast<OpResult>(getResult()));
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

#define GP_VIEW_COMMON(OP)                                                     \
  void OP::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {                  \
    setNameFn(getResult(), "view");                                            \
  }                                                                            \
  Value OP::getViewSource() { return getSource(); }

GP_VIEW_COMMON(BufferReshapeOp)
GP_VIEW_COMMON(BufferSliceOp)
GP_VIEW_COMMON(BufferBitcastOp)
#undef GP_VIEW_COMMON

LogicalResult BufferReshapeOp::verify() {
  MemRefType source = getSource().getType(), result = getType();
  if (failed(verifySameDevice(*this, source, result)))
    return failure();
  if (source.getElementType() != result.getElementType())
    return emitOpError("changes the element type; use gp.buffer.bitcast");
  if (!source.getLayout().isIdentity() || !result.getLayout().isIdentity())
    return emitOpError("reshapes contiguous buffers only (identity layouts)");
  if (static_cast<int64_t>(getDynamicSizes().size()) !=
      result.getNumDynamicDims())
    return emitOpError() << "has " << getDynamicSizes().size()
                         << " dynamic size operands but the result has "
                         << result.getNumDynamicDims()
                         << " dynamic dimensions";
  if (source.hasStaticShape() && result.hasStaticShape() &&
      source.getNumElements() != result.getNumElements())
    return emitOpError() << "views " << result.getNumElements()
                         << " elements of a buffer of "
                         << source.getNumElements();
  return success();
}

LogicalResult BufferSliceOp::verify() {
  MemRefType source = getSource().getType(), result = getType();
  if (failed(verifySameDevice(*this, source, result)))
    return failure();
  if (source.getElementType() != result.getElementType())
    return emitOpError("changes the element type; use gp.buffer.bitcast");
  int64_t rank = source.getRank();
  if (result.getRank() != rank)
    return emitOpError() << "result rank " << result.getRank()
                         << " differs from source rank " << rank;
  ArrayRef<int64_t> offsets = getStaticOffsets(), sizes = getStaticSizes(),
                    strides = getStaticStrides();
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t offset = offsets[dim], size = sizes[dim], stride = strides[dim];
    bool staticOffset = !ShapedType::isDynamic(offset);
    bool staticSize = !ShapedType::isDynamic(size);
    bool staticStride = !ShapedType::isDynamic(stride);
    if ((staticOffset && offset < 0) || (staticSize && size < 0) ||
        (staticStride && stride <= 0))
      return emitOpError() << "dimension " << dim
                           << ": offsets and sizes must be non-negative and "
                              "strides positive";
    if (result.isDynamicDim(dim) != !staticSize ||
        (staticSize && result.getDimSize(dim) != size))
      return emitOpError() << "result dimension " << dim
                           << " does not match the slice size";
    if (staticOffset && staticSize && staticStride && size > 0 &&
        !source.isDynamicDim(dim)) {
      int64_t last = offset + (size - 1) * stride;
      if (last >= source.getDimSize(dim))
        return emitOpError()
               << "dimension " << dim << " reaches element " << last
               << " but the base has only " << source.getDimSize(dim)
               << ": a view cannot be larger than its base";
    }
  }

  // The result layout must be the window's: strides scale, offsets add up.
  SmallVector<int64_t> sourceStrides, resultStrides;
  int64_t sourceOffset, resultOffset;
  if (failed(source.getStridesAndOffset(sourceStrides, sourceOffset)) ||
      failed(result.getStridesAndOffset(resultStrides, resultOffset)))
    return emitOpError("source and result must have strided layouts");
  int64_t expectedOffset = sourceOffset;
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t expectedStride =
        ShapedType::isDynamic(sourceStrides[dim]) ||
                ShapedType::isDynamic(strides[dim])
            ? ShapedType::kDynamic
            : sourceStrides[dim] * strides[dim];
    if (expectedStride != resultStrides[dim])
      return emitOpError() << "result stride of dimension " << dim
                           << " should be "
                           << (ShapedType::isDynamic(expectedStride)
                                   ? std::string("dynamic ('?')")
                                   : std::to_string(expectedStride));
    if (ShapedType::isDynamic(expectedOffset) ||
        ShapedType::isDynamic(offsets[dim]) ||
        ShapedType::isDynamic(sourceStrides[dim]))
      expectedOffset = ShapedType::kDynamic;
    else
      expectedOffset += offsets[dim] * sourceStrides[dim];
  }
  if (expectedOffset != resultOffset)
    return emitOpError() << "result offset should be "
                         << (ShapedType::isDynamic(expectedOffset)
                                 ? std::string("dynamic ('?')")
                                 : std::to_string(expectedOffset));
  return success();
}

LogicalResult BufferBitcastOp::verify() {
  MemRefType source = getSource().getType(), result = getType();
  if (failed(verifySameDevice(*this, source, result)))
    return failure();
  if (!source.getLayout().isIdentity() || !result.getLayout().isIdentity())
    return emitOpError("reinterprets contiguous buffers only (identity "
                       "layouts)");
  std::optional<int64_t> sourceWidth =
      getElementByteSize(source.getElementType());
  std::optional<int64_t> resultWidth =
      getElementByteSize(result.getElementType());
  if (!sourceWidth || !resultWidth)
    return emitOpError("element types must have a fixed byte size");
  if (source.getRank() != result.getRank())
    return emitOpError("keeps the rank: only the innermost dimension scales");
  int64_t rank = source.getRank();
  if (rank == 0) {
    if (*sourceWidth != *resultWidth)
      return emitOpError("rank-0 buffers can only be reinterpreted as an "
                         "element type of the same width");
    return success();
  }
  for (int64_t dim = 0; dim + 1 < rank; ++dim)
    if (source.getDimSize(dim) != result.getDimSize(dim))
      return emitOpError() << "dimension " << dim
                           << " changes; only the innermost dimension scales";
  int64_t sourceLast = source.getDimSize(rank - 1);
  int64_t resultLast = result.getDimSize(rank - 1);
  if (ShapedType::isDynamic(sourceLast) != ShapedType::isDynamic(resultLast))
    return emitOpError("innermost dimension must be static on both sides or "
                       "dynamic on both");
  if (!ShapedType::isDynamic(sourceLast) &&
      sourceLast * *sourceWidth != resultLast * *resultWidth)
    return emitOpError() << "innermost dimension holds "
                         << sourceLast * *sourceWidth
                         << " bytes in the source but "
                         << resultLast * *resultWidth << " in the result";
  return success();
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

/// Parses `[-, 0, 1]`: `-` is a fresh result, an integer an aliased operand.
static ParseResult parseResultAliases(OpAsmParser &parser,
                                      DenseI64ArrayAttr &aliases) {
  SmallVector<int64_t> entries;
  auto parseEntry = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    int64_t operand;
    if (succeeded(parser.parseOptionalMinus())) {
      // `-` alone is a fresh result; `-N` is a mistake.
      if (parser.parseOptionalInteger(operand).has_value())
        return parser.emitError(loc, "aliased operand index must be "
                                     "non-negative; write '-' for a fresh "
                                     "result");
      entries.push_back(-1);
      return success();
    }
    if (parser.parseInteger(operand))
      return failure();
    entries.push_back(operand);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     parseEntry))
    return failure();
  aliases = DenseI64ArrayAttr::get(parser.getContext(), entries);
  return success();
}

static void printResultAliases(OpAsmPrinter &printer, FallbackOp,
                               DenseI64ArrayAttr aliases) {
  printer << '[';
  llvm::interleaveComma(aliases.asArrayRef(), printer, [&](int64_t entry) {
    if (entry < 0)
      printer << '-';
    else
      printer << entry;
  });
  printer << ']';
}

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
  // `ns::op` or `ns::op.overload`, each part an identifier.
  StringRef callee = getCallee();
  auto [qualified, overload] = callee.split('.');
  auto [ns, name] = qualified.split("::");
  if (!isIdentifier(ns) || !isIdentifier(name) ||
      (callee.contains('.') && !isIdentifier(overload)))
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

/// Checks that `source` has exactly one element of a type `result` can hold.
static LogicalResult verifySingleElement(Operation *op, MemRefType source,
                                         Type result, bool integersOnly) {
  if (!source.hasStaticShape() || source.getNumElements() != 1)
    return op->emitOpError() << "reads a single element, but " << source
                             << " does not have exactly one element";
  Type element = source.getElementType();
  if (integersOnly && !element.isSignlessInteger())
    return op->emitOpError() << "reads a size from a buffer of " << element
                             << "; sizes come from integer buffers";
  if (element != result && !(result.isIndex() && element.isSignlessInteger()))
    return op->emitOpError() << "reads " << element << " but returns "
                             << result;
  return success();
}

LogicalResult ItemOp::verify() {
  return verifySingleElement(*this, getSource().getType(), getType(),
                             /*integersOnly=*/false);
}

//===----------------------------------------------------------------------===//
// SymInt ops
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult verifySymInt(OpTy op) {
  if (!isIdentifier(op.getSymName()))
    return op.emitOpError() << "symint name '" << op.getSymName()
                            << "' is not an identifier";
  std::optional<int64_t> min = op.getMin(), max = op.getMax(),
                         hint = op.getHint();
  if (min && max && *min > *max)
    return op.emitOpError() << "min " << *min << " exceeds max " << *max;
  if (hint && ((min && *hint < *min) || (max && *hint > *max)))
    return op.emitOpError() << "hint " << *hint << " lies outside [min, max]";
  return success();
}

#define GP_SYMINT_NAMES(OP)                                                    \
  void OP::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {                  \
    setNameFn(getResult(), getSymName());                                      \
  }
GP_SYMINT_NAMES(SymIntOp)
GP_SYMINT_NAMES(SymIntDimOp)
GP_SYMINT_NAMES(SymIntUnbackedOp)
#undef GP_SYMINT_NAMES

LogicalResult SymIntOp::verify() { return verifySymInt(*this); }

LogicalResult SymIntDimOp::verify() {
  MemRefType source = getSource().getType();
  int64_t dim = getDim();
  if (dim < 0 || dim >= source.getRank())
    return emitOpError() << "dimension " << dim << " is out of range for "
                         << source;
  if (!source.isDynamicDim(dim))
    return emitOpError() << "dimension " << dim << " of " << source
                         << " is static (" << source.getDimSize(dim)
                         << "); only dynamic dimensions are symbolic";
  return verifySymInt(*this);
}

LogicalResult SymIntUnbackedOp::verify() {
  if (failed(verifySingleElement(*this, getSource().getType(), getType(),
                                 /*integersOnly=*/true)))
    return failure();
  return verifySymInt(*this);
}

//===----------------------------------------------------------------------===//
// RNG ops
//===----------------------------------------------------------------------===//

void RngStateOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "rng");
}

LogicalResult RngStateOp::verify() {
  unsigned uses = std::distance(getState().use_begin(), getState().use_end());
  if (uses > 1)
    return emitOpError() << "state has " << uses
                         << " uses; each RNG state feeds exactly one op";
  return success();
}

LogicalResult
RngStateOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<RngGeneratorOp>(*this,
                                                           getGeneratorAttr()))
    return emitOpError() << "'@" << getGenerator()
                         << "' does not name a gp.rng.generator";
  return success();
}

LogicalResult RngFillOp::verify() {
  Type element = getTarget().getType().getElementType();
  if (!isa<FloatType>(element))
    return emitOpError() << "fills floating-point buffers, not " << element;
  return success();
}

LogicalResult RngSlotOp::verify() {
  MemRefType type = getSlot().getType();
  DeviceAttr device = getDevice(type);
  if (!type.hasStaticShape() || type.getShape() != ArrayRef<int64_t>{2} ||
      !type.getElementType().isInteger(64) || !type.getLayout().isIdentity())
    return emitOpError() << "expects memref<2xi64> on a device, got " << type;
  if (device && device.isMeta())
    return emitOpError() << "a slot holds data; it cannot be on the meta "
                            "device";
  return success();
}

void RngFillOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Drawing advances the state, so two draws from one state are ordered.
  effects.emplace_back(MemoryEffects::Read::get(), &getStateMutable());
  effects.emplace_back(MemoryEffects::Write::get(), &getStateMutable());
  effects.emplace_back(MemoryEffects::Write::get(), &getTargetMutable());
}

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

#define GET_OP_CLASSES
#include "GraphPart/Dialect/GP/IR/GPOps.cpp.inc"
