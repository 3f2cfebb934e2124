//===- GPBufferOps.cpp - gp buffer and view operations --------------------===//
//
// Verifiers, effects and result names of gp.buffer.alloc, gp.buffer.dealloc,
// gp.buffer.reuse and the views gp.buffer.reshape, gp.buffer.slice and
// gp.buffer.bitcast and gp.buffer.transpose.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>

using namespace mlir;
using namespace mlir::gp;

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

/// `a * b` where either may be dynamic: 0 if either is a static 0, else
/// dynamic if either is; none on overflow.
static std::optional<int64_t> saturatedMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
    return ShapedType::kDynamic;
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product) || ShapedType::isDynamic(product))
    return std::nullopt;
  return product;
}

/// `a + b` where either may be dynamic; none on overflow.
static std::optional<int64_t> saturatedAdd(int64_t a, int64_t b) {
  if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
    return ShapedType::kDynamic;
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum) || ShapedType::isDynamic(sum))
    return std::nullopt;
  return sum;
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
  if (getDynamicSizes().size() != type.getNumDynamicDims())
    return emitOpError() << "has " << getDynamicSizes().size()
                         << " dynamic size operands but the type has "
                         << type.getNumDynamicDims() << " dynamic dimensions";
  if (!type.getLayout().isIdentity())
    return emitOpError("allocates contiguous buffers: the result type must "
                       "have the identity layout");
  if (type.hasStaticShape() && getElementByteSize(type.getElementType()) &&
      !getStaticByteSize(type))
    return emitOpError() << "allocates " << type
                         << ", whose size in bytes does not fit in 64 bits";
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
    if (size && (*size > arena.getSize() ||
                 static_cast<int64_t>(*offset) > arena.getSize() - *size))
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
GP_VIEW_COMMON(BufferTransposeOp)
#undef GP_VIEW_COMMON

LogicalResult BufferReshapeOp::verify() {
  MemRefType source = getSource().getType(), result = getType();
  if (failed(verifySameDevice(*this, source, result)))
    return failure();
  if (source.getElementType() != result.getElementType())
    return emitOpError("changes the element type; use gp.buffer.bitcast");
  if (!source.getLayout().isIdentity() || !result.getLayout().isIdentity())
    return emitOpError("reshapes contiguous buffers only (identity layouts)");
  if (getDynamicSizes().size() != result.getNumDynamicDims())
    return emitOpError() << "has " << getDynamicSizes().size()
                         << " dynamic size operands but the result has "
                         << result.getNumDynamicDims()
                         << " dynamic dimensions";
  if (source.hasStaticShape() && result.hasStaticShape() &&
      source.getNumElements() != result.getNumElements())
    return emitOpError() << "views " << result.getNumElements()
                         << " elements of a buffer of "
                         << source.getNumElements();
  ArrayAttr expand = getExpandAttr();
  if (!expand)
    return success();
  // Groups as memref.expand_shape's: one per source dimension, splitting
  // it into consecutive result dimensions.
  if (static_cast<int64_t>(expand.size()) != source.getRank())
    return emitOpError() << "has " << expand.size()
                         << " expand groups for a source of rank "
                         << source.getRank();
  auto badOrder = [&] {
    return emitOpError() << "expand groups must list result dimensions 0 to "
                         << result.getRank() - 1 << " once each, in order";
  };
  int64_t next = 0;
  for (auto [dim, group] : llvm::enumerate(expand.getAsRange<ArrayAttr>())) {
    if (group.empty())
      return emitOpError() << "expand group " << dim << " is empty";
    std::optional<int64_t> elements = 1;
    for (IntegerAttr resultDim : group.getAsRange<IntegerAttr>()) {
      if (resultDim.getInt() != next || next >= result.getRank())
        return badOrder();
      if (elements)
        elements = saturatedMul(*elements, result.getDimSize(next));
      ++next;
    }
    // A static group of a static dimension is checked here; the others
    // where the view is lowered, when it runs.
    if (!source.isDynamicDim(dim) && elements &&
        !ShapedType::isDynamic(*elements) &&
        *elements != source.getDimSize(dim))
      return emitOpError() << "expand group " << dim << " has " << *elements
                           << " elements but source dimension " << dim
                           << " has " << source.getDimSize(dim);
  }
  if (next != result.getRank())
    return badOrder();
  return success();
}

LogicalResult BufferSliceOp::verify() {
  MemRefType source = getSource().getType(), result = getType();
  if (failed(verifySameDevice(*this, source, result)))
    return failure();
  if (source.getElementType() != result.getElementType())
    return emitOpError("changes the element type; use gp.buffer.bitcast");
  int64_t rank = source.getRank();
  ArrayRef<int64_t> offsets = getStaticOffsets(), sizes = getStaticSizes(),
                    strides = getStaticStrides();
  // A rank-reducing slice drops static unit dimensions of the window;
  // `resultDim[dim]` is the result dimension of window dimension `dim`
  // (none where it was dropped).
  SmallVector<std::optional<int64_t>> resultDim(rank);
  if (result.getRank() > rank)
    return emitOpError() << "result rank " << result.getRank()
                         << " exceeds source rank " << rank;
  if (result.getRank() == rank) {
    for (int64_t dim = 0; dim < rank; ++dim)
      resultDim[dim] = dim;
  } else {
    std::optional<llvm::SmallDenseSet<unsigned>> dropped =
        computeRankReductionMask(sizes, result.getShape());
    if (!dropped)
      return emitOpError() << "result rank " << result.getRank()
                           << " is less than source rank " << rank
                           << ", but the result shape is not the window's "
                              "shape with static unit dimensions dropped";
    int64_t next = 0;
    for (int64_t dim = 0; dim < rank; ++dim)
      if (!dropped->contains(dim))
        resultDim[dim] = next++;
  }
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
    if (resultDim[dim] &&
        (result.isDynamicDim(*resultDim[dim]) != !staticSize ||
         (staticSize && result.getDimSize(*resultDim[dim]) != size)))
      return emitOpError() << "result dimension " << *resultDim[dim]
                           << " does not match the slice size";
    if (staticOffset && staticSize && staticStride && size > 0 &&
        !source.isDynamicDim(dim)) {
      int64_t last = 0;
      bool overflow = __builtin_mul_overflow(size - 1, stride, &last) ||
                      __builtin_add_overflow(last, offset, &last);
      if (overflow)
        return emitOpError() << "dimension " << dim
                             << " reaches past any base (its last element "
                                "overflows 64 bits)";
      if (last >= source.getDimSize(dim))
        return emitOpError()
               << "dimension " << dim << " reaches element " << last
               << " but the base has only " << source.getDimSize(dim)
               << ": a view cannot be larger than its base";
    }
  }

  // The result layout must be the window's: strides scale, offsets add up,
  // with memref.subview's arithmetic (a product with a static 0 is 0 even
  // when the other factor is dynamic), so the lowered subview agrees.
  SmallVector<int64_t> sourceStrides, resultStrides;
  int64_t sourceOffset, resultOffset;
  if (failed(source.getStridesAndOffset(sourceStrides, sourceOffset)) ||
      failed(result.getStridesAndOffset(resultStrides, resultOffset)))
    return emitOpError("source and result must have strided layouts");
  auto describe = [](int64_t value) {
    return ShapedType::isDynamic(value) ? std::string("dynamic ('?')")
                                        : std::to_string(value);
  };
  int64_t expectedOffset = sourceOffset;
  for (int64_t dim = 0; dim < rank; ++dim) {
    std::optional<int64_t> stride =
        saturatedMul(sourceStrides[dim], strides[dim]);
    std::optional<int64_t> step =
        saturatedMul(offsets[dim], sourceStrides[dim]);
    std::optional<int64_t> offset =
        step ? saturatedAdd(expectedOffset, *step) : std::nullopt;
    if (!stride || !offset)
      return emitOpError() << "dimension " << dim
                           << ": the view's stride or offset overflows 64 "
                              "bits";
    if (resultDim[dim] && *stride != resultStrides[*resultDim[dim]])
      return emitOpError() << "result stride of dimension " << *resultDim[dim]
                           << " should be " << describe(*stride);
    expectedOffset = *offset;
  }
  if (expectedOffset != resultOffset)
    return emitOpError() << "result offset should be "
                         << describe(expectedOffset);
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

MemRefType BufferTransposeOp::inferResultType(MemRefType source,
                                              ArrayRef<int64_t> permutation) {
  auto [sourceStrides, offset] = source.getStridesAndOffset();
  SmallVector<int64_t> shape, strides;
  for (int64_t dim : permutation) {
    shape.push_back(source.getDimSize(dim));
    strides.push_back(sourceStrides[dim]);
  }
  // A contiguous source permuted without reordering its non-unit
  // dimensions is still contiguous and keeps the identity layout, so it
  // stays acceptable where contiguity is required. (Dynamic strides cannot
  // be compared, so only the order of dimensions decides.)
  bool contiguous = source.getLayout().isIdentity();
  int64_t lastNonUnit = -1;
  for (int64_t dim : permutation) {
    if (source.getDimSize(dim) == 1)
      continue;
    contiguous &= dim > lastNonUnit;
    lastNonUnit = dim;
  }
  MemRefLayoutAttrInterface layout;
  if (!contiguous)
    layout = StridedLayoutAttr::get(source.getContext(), offset, strides);
  return MemRefType::get(shape, source.getElementType(), layout,
                         source.getMemorySpace());
}

LogicalResult BufferTransposeOp::verify() {
  MemRefType source = getSource().getType(), result = getType();
  if (failed(verifySameDevice(*this, source, result)))
    return failure();
  ArrayRef<int64_t> permutation = getPermutation();
  int64_t rank = source.getRank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return emitOpError() << "permutation has " << permutation.size()
                         << " entries but the source has rank " << rank;
  SmallVector<bool> seen(rank, false);
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= rank || seen[dim])
      return emitOpError() << "permutation must hold each dimension 0.."
                           << rank - 1 << " exactly once";
    seen[dim] = true;
  }
  if (!source.isStrided())
    return emitOpError("source must have a strided layout");
  MemRefType expected = inferResultType(source, permutation);
  if (result != expected)
    return emitOpError() << "result type should be " << expected;
  return success();
}
