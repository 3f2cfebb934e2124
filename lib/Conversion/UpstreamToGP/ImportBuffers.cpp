//===- ImportBuffers.cpp - gp-import: buffers and views -------------------===//
//
// Allocations and frees, and the views upstream makes of buffers
// (memref.subview, expand/collapse_shape, reshape, view, reinterpret_cast,
// cast, dim) as gp buffer ops; dynamic sizes come from the ops that made a
// buffer or from symints.
//
//===----------------------------------------------------------------------===//

#include "ImportInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::importer;

LogicalResult FunctionImporter::importAlloc(Operation *op,
                                            ValueRange dynamicSizes) {
  auto type = cast<MemRefType>(op->getResult(0).getType());
  if (!type.getLayout().isIdentity())
    return op->emitError() << "gp-import: allocation of " << type
                           << " has a layout; gp allocates contiguous "
                              "buffers (allocate one and take a view)";
  replace(op, BufferAllocOp::create(builder, op->getLoc(), type, dynamicSizes,
                                    IntegerAttr()));
  return success();
}

LogicalResult FunctionImporter::importDealloc(Operation *op, Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  if (auto argument = dyn_cast<BlockArgument>(buffer);
      argument && argument.getOwner()->isEntryBlock() &&
      argument.getOwner()->getParentOp() == function)
    op->emitRemark() << "gp-import: dropped the free of argument "
                     << argument.getArgNumber()
                     << ": the caller owns the buffers it passes";
  op->erase();
  return success();
}

LogicalResult FunctionImporter::importSubView(memref::SubViewOp subview) {
  auto sourceType = cast<MemRefType>(subview.getSource().getType());
  MemRefType resultType;
  if (subview.getType().getRank() == sourceType.getRank())
    resultType = memref::SubViewOp::inferResultType(
        sourceType, subview.getStaticOffsets(), subview.getStaticSizes(),
        subview.getStaticStrides());
  else
    resultType = memref::SubViewOp::inferRankReducedResultType(
        subview.getType().getShape(), sourceType, subview.getStaticOffsets(),
        subview.getStaticSizes(), subview.getStaticStrides());
  Value slice = BufferSliceOp::create(
      builder, subview.getLoc(), resultType, subview.getSource(),
      subview.getOffsets(), subview.getSizes(), subview.getStrides(),
      subview.getStaticOffsets(), subview.getStaticSizes(),
      subview.getStaticStrides());
  ++counts.views;
  replace(subview, slice);
  return success();
}

LogicalResult FunctionImporter::importReshape(Operation *op, Value source,
                                              Value result,
                                              SmallVector<Value> dynamicSizes,
                                              ArrayAttr expand) {
  auto sourceType = cast<MemRefType>(source.getType());
  auto resultType = cast<MemRefType>(result.getType());
  if (!sourceType.getLayout().isIdentity() ||
      !resultType.getLayout().isIdentity())
    return op->emitError()
           << "gp-import: '" << op->getName() << "' of " << sourceType
           << " to " << resultType
           << ": gp reshapes contiguous buffers only; copy the view to a "
              "contiguous buffer first (or bufferize with "
              "function-boundary-type-conversion=identity-layout-map)";
  Value view = BufferReshapeOp::create(builder, op->getLoc(), resultType,
                                       source, dynamicSizes, expand);
  ++counts.views;
  replace(op, view);
  return success();
}

/// The type of a contiguous buffer of `shape` and `elementType` on
/// `device`.
static MemRefType contiguous(ArrayRef<int64_t> shape, Type elementType,
                             DeviceAttr device) {
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         device);
}

LogicalResult FunctionImporter::importView(memref::ViewOp view) {
  auto sourceType = cast<MemRefType>(view.getSource().getType()); // 1-D i8.
  MemRefType resultType = view.getType();
  std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
  unsigned bits = resultType.getElementTypeBitWidth();
  if (!shift || *shift != 0 || !resultType.hasStaticShape() ||
      !sourceType.hasStaticShape() || bits % 8 != 0)
    return view.emitError(
        "gp-import: memref.view is imported at byte offset 0 with static "
        "shapes of whole-byte elements only; allocate the buffer with its "
        "own type instead");
  int64_t bytes = resultType.getNumElements() * (bits / 8);
  if (bytes > sourceType.getNumElements())
    return view.emitError() << "gp-import: the view needs " << bytes
                            << " bytes of a buffer of "
                            << sourceType.getNumElements();
  Location loc = view.getLoc();
  DeviceAttr device = getDevice(sourceType);
  Value bytesView = view.getSource();
  if (bytes != sourceType.getNumElements())
    bytesView = BufferSliceOp::create(
        builder, loc, contiguous({bytes}, sourceType.getElementType(), device),
        bytesView, ValueRange{}, ValueRange{}, ValueRange{},
        ArrayRef<int64_t>{0}, ArrayRef<int64_t>{bytes}, ArrayRef<int64_t>{1});
  Value typed = BufferBitcastOp::create(
      builder, loc,
      contiguous({resultType.getNumElements()}, resultType.getElementType(),
                 device),
      bytesView);
  if (resultType.getRank() != 1)
    typed = BufferReshapeOp::create(builder, loc, resultType, typed,
                                    ValueRange{});
  counts.views += 2;
  replace(view, typed);
  return success();
}

LogicalResult
FunctionImporter::importReinterpretCast(memref::ReinterpretCastOp cast) {
  auto sourceType = llvm::cast<MemRefType>(cast.getSource().getType());
  MemRefType resultType = cast.getType();
  std::optional<int64_t> offset =
      cast.getStaticOffsets().size() == 1 &&
              !ShapedType::isDynamic(cast.getStaticOffsets()[0])
          ? std::optional<int64_t>(cast.getStaticOffsets()[0])
          : std::nullopt;
  bool identityStrides =
      resultType.getLayout().isIdentity() ||
      (resultType.hasStaticShape() &&
       resultType.getStridesAndOffset().first ==
           ArrayRef<int64_t>(computeSuffixProduct(resultType.getShape())) &&
       resultType.getStridesAndOffset().second == 0);
  if (!sourceType.getLayout().isIdentity() || !offset || *offset != 0 ||
      !identityStrides || !resultType.hasStaticShape())
    return cast.emitError(
        "gp-import: memref.reinterpret_cast is imported when it views a "
        "contiguous buffer from its start, contiguously, with a static "
        "shape; other strides or offsets need memref.subview, "
        "memref.transpose or a copy");
  Location loc = cast.getLoc();
  DeviceAttr device = getDevice(sourceType);
  MemRefType target = contiguous(resultType.getShape(),
                                 resultType.getElementType(), device);
  int64_t count = resultType.getNumElements();
  Value source = cast.getSource();
  if (!sourceType.hasStaticShape() || sourceType.getNumElements() != count) {
    // A prefix: flatten, take the first `count` elements, reshape.
    if (sourceType.hasStaticShape() && sourceType.getNumElements() < count)
      return cast.emitError() << "gp-import: the cast views " << count
                              << " elements of a buffer of "
                              << sourceType.getNumElements();
    Value total;
    for (int64_t dim = 0; dim < sourceType.getRank(); ++dim) {
      Value size = dimSize(loc, source, dim);
      total = total ? arith::MulIOp::create(builder, loc, total, size) : size;
    }
    SmallVector<Value> flatSizes;
    if (!sourceType.hasStaticShape())
      flatSizes.push_back(total);
    int64_t flatSize = sourceType.hasStaticShape() ? sourceType.getNumElements()
                                                   : ShapedType::kDynamic;
    source = BufferReshapeOp::create(
        builder, loc,
        contiguous({flatSize}, sourceType.getElementType(), device), source,
        flatSizes);
    source = BufferSliceOp::create(
        builder, loc, contiguous({count}, sourceType.getElementType(), device),
        source, ValueRange{}, ValueRange{}, ValueRange{}, ArrayRef<int64_t>{0},
        ArrayRef<int64_t>{count}, ArrayRef<int64_t>{1});
    counts.views += 2;
  }
  // Users take the identity form of a layout that spells out contiguous
  // strides.
  Value view = source;
  if (source.getType() != target) {
    view = BufferReshapeOp::create(builder, loc, target, source, ValueRange{});
    ++counts.views;
  }
  replace(cast, view);
  return success();
}

LogicalResult FunctionImporter::importCast(memref::CastOp cast) {
  Value source = cast.getSource();
  for (OpOperand &use : cast->getUses()) {
    Operation *user = use.getOwner();
    if (source.getType() != cast.getType() &&
        (isa<BranchOpInterface>(user) ||
         user->hasTrait<OpTrait::IsTerminator>()) &&
        !isa<func::ReturnOp>(user))
      return cast.emitError()
             << "gp-import: this memref.cast feeds control flow (" << user->getName()
             << "); gp keeps buffer types precise, so cast before the "
                "branch instead";
  }
  cast.getResult().replaceAllUsesWith(source);
  cast.erase();
  return success();
}

Value FunctionImporter::dimSize(Location loc, Value buffer, int64_t dim) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(dim))
    return arith::ConstantIndexOp::create(builder, loc, type.getDimSize(dim));
  unsigned dynamicIndex = type.getDynamicDimIndex(dim);
  if (auto alloc = buffer.getDefiningOp<BufferAllocOp>())
    return alloc.getDynamicSizes()[dynamicIndex];
  if (auto reshape = buffer.getDefiningOp<BufferReshapeOp>())
    return reshape.getDynamicSizes()[dynamicIndex];
  if (auto slice = buffer.getDefiningOp<BufferSliceOp>();
      slice && slice.getType().getRank() == slice.getSource().getType().getRank())
    if (auto size = dyn_cast<Value>(slice.getMixedSizes()[dim]))
      return size;
  return dimSymInt(loc, buffer, dim);
}

Value FunctionImporter::dimSymInt(Location loc, Value buffer, int64_t dim) {
  if (Value known = dimSymInts.lookup({buffer, dim}))
    return known;
  OpBuilder::InsertionGuard guard(builder);
  std::string name;
  if (auto argument = dyn_cast<BlockArgument>(buffer)) {
    builder.setInsertionPointToStart(argument.getOwner());
    if (argument.getOwner()->isEntryBlock() &&
        argument.getOwner()->getParentOp() == function)
      name = ("arg" + Twine(argument.getArgNumber()) + "_dim" + Twine(dim))
                 .str();
  } else {
    builder.setInsertionPointAfterValue(buffer);
  }
  if (name.empty() || usedNames.contains(name)) {
    unsigned counter = 0;
    do {
      name = ("dim" + Twine(counter++)).str();
    } while (usedNames.contains(name));
  }
  usedNames.insert(name);
  auto bound = [&](std::optional<int64_t> value) {
    return value ? builder.getI64IntegerAttr(*value) : IntegerAttr();
  };
  Value symint = SymIntDimOp::create(builder, loc, builder.getIndexType(),
                                     buffer, builder.getI64IntegerAttr(dim),
                                     builder.getStringAttr(name), IntegerAttr(),
                                     bound(bounds.min), bound(bounds.max));
  dimSymInts[{buffer, dim}] = symint;
  return symint;
}

LogicalResult FunctionImporter::importDim(memref::DimOp dim) {
  std::optional<int64_t> index = dim.getConstantIndex();
  auto type = cast<MemRefType>(dim.getSource().getType());
  if (!index || *index < 0 || *index >= type.getRank())
    return dim.emitError("gp-import: memref.dim needs a constant, in-range "
                         "dimension");
  replace(dim, dimSize(dim.getLoc(), dim.getSource(), *index));
  return success();
}
