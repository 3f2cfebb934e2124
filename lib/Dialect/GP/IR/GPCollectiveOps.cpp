//===- GPCollectiveOps.cpp - collectives across the ranks of a run -------===//
//
// Verifiers and result names of gp.all_reduce, gp.all_gather,
// gp.reduce_scatter, gp.broadcast, gp.rank and gp.world_size.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::gp;

/// Whether the collectives carry elements of `type`: those a collective
/// library moves and combines (NCCL's types: 8-, 32- and 64-bit integers,
/// f16, bf16, f32, f64 and the f8 types).
static bool isCollectiveElement(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return llvm::is_contained({8u, 32u, 64u}, integer.getWidth());
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type,
             Float8E4M3FNType, Float8E5M2Type>(type);
}

/// What every collective asks of its buffers: contiguous, on one cuda or
/// cpu device, one element type the collectives carry.
static LogicalResult verifyBuffers(Operation *op, ArrayRef<MemRefType> types) {
  for (MemRefType type : types) {
    if (!type.getLayout().isIdentity())
      return op->emitOpError() << "needs contiguous buffers, got " << type;
    auto device = cast<DeviceAttr>(type.getMemorySpace());
    if (device.isMeta())
      return op->emitOpError("needs buffers on a cuda device or the cpu, "
                             "not meta buffers");
    if (!isCollectiveElement(type.getElementType()))
      return op->emitOpError()
             << "cannot carry " << type.getElementType()
             << " elements (8-, 32- or 64-bit integers, f16, bf16, f32, f64 "
                "or f8)";
  }
  MemRefType first = types.front();
  for (MemRefType type : types.drop_front()) {
    if (type.getMemorySpace() != first.getMemorySpace())
      return op->emitOpError()
             << "needs its buffers on one device, got "
             << first.getMemorySpace() << " and " << type.getMemorySpace();
    if (type.getElementType() != first.getElementType())
      return op->emitOpError()
             << "needs one element type, got " << first.getElementType()
             << " and " << type.getElementType();
  }
  return success();
}

/// `source` and `target` alike from dimension `from` on (all of them for
/// an all-reduce).
static LogicalResult verifySameDims(Operation *op, MemRefType source,
                                    MemRefType target, unsigned from) {
  if (source.getRank() != target.getRank())
    return op->emitOpError() << "needs source and target of one rank, got "
                             << source.getRank() << " and " << target.getRank();
  for (unsigned dim = from; dim < source.getRank(); ++dim)
    if (!source.isDynamicDim(dim) && !target.isDynamicDim(dim) &&
        source.getDimSize(dim) != target.getDimSize(dim))
      return op->emitOpError()
             << "dimension " << dim << " is " << source.getDimSize(dim)
             << " in the source but " << target.getDimSize(dim)
             << " in the target";
  return success();
}

/// A gather or scatter: the `whole` buffer's first dimension is a multiple
/// (the number of ranks) of the `part`'s, its others the same.
static LogicalResult verifyParts(Operation *op, MemRefType source,
                                 MemRefType target, MemRefType part,
                                 MemRefType whole, StringRef wholeName) {
  if (failed(verifyBuffers(op, {source, target})))
    return failure();
  if (source.getRank() == 0)
    return op->emitOpError("needs buffers of rank 1 or more: it cuts or "
                           "joins them along dimension 0");
  if (failed(verifySameDims(op, source, target, /*from=*/1)))
    return failure();
  if (part.isDynamicDim(0) || whole.isDynamicDim(0))
    return success();
  int64_t partSize = part.getDimSize(0), wholeSize = whole.getDimSize(0);
  if (partSize == 0 ? wholeSize != 0
                    : wholeSize < partSize || wholeSize % partSize != 0)
    return op->emitOpError()
           << "needs the " << wholeName
           << "'s dimension 0 to be the other's times the number of ranks, "
              "got "
           << wholeSize << " and " << partSize;
  return success();
}

LogicalResult AllReduceOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (failed(verifyBuffers(*this, {source, target})))
    return failure();
  return verifySameDims(*this, source, target, /*from=*/0);
}

LogicalResult AllGatherOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (getSource() == getTarget())
    return emitOpError("cannot gather into its own source");
  return verifyParts(*this, source, target, /*part=*/source, /*whole=*/target,
                     "target");
}

LogicalResult ReduceScatterOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (getSource() == getTarget())
    return emitOpError("cannot scatter into its own source");
  return verifyParts(*this, source, target, /*part=*/target, /*whole=*/source,
                     "source");
}

LogicalResult BroadcastOp::verify() {
  return verifyBuffers(*this, {getBuffer().getType()});
}

void RankOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "rank");
}

void WorldSizeOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "world_size");
}
