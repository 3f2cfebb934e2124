//===- ExpandStridedCopies.cpp - strided copies as copy kernels -----------===//
//
// The runtime's copies move whole contiguous buffers (one memcpy), so a
// gp.copy from or into a strided view becomes a kernel that walks the
// view's strides, on the device where the data is; a copy between devices
// moves a contiguous staging buffer.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPEXPANDSTRIDEDCOPIESPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

static bool isContiguous(Value buffer) {
  return cast<MemRefType>(buffer.getType()).getLayout().isIdentity();
}

/// A kernel that copies `source` into `target` (one device) element by
/// element, following both layouts.
static void createCopyKernel(OpBuilder &builder, Location loc, Value source,
                             Value target) {
  auto kernel = KernelOp::create(builder, loc, "strided_copy",
                                 ValueRange{source}, ValueRange{target});
  Block *body = new Block();
  kernel.getBody().push_back(body);
  Value in = body->addArgument(source.getType(), loc);
  Value out = body->addArgument(target.getType(), loc);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(body);
  linalg::CopyOp::create(builder, loc, in, out);
  YieldOp::create(builder, loc);
}

/// A new contiguous buffer of `like`'s static shape on `like`'s device.
static Value createStagingBuffer(OpBuilder &builder, Location loc, Value like) {
  auto type = cast<MemRefType>(like.getType());
  auto contiguous =
      MemRefType::get(type.getShape(), type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  return BufferAllocOp::create(builder, loc, contiguous, ValueRange{});
}

namespace {
struct GPExpandStridedCopiesPass
    : public gp::impl::GPExpandStridedCopiesPassBase<
          GPExpandStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<CopyOp> copies;
    getOperation()->walk([&](CopyOp copy) {
      if (!isContiguous(copy.getSource()) || !isContiguous(copy.getTarget()))
        copies.push_back(copy);
    });
    for (CopyOp copy : copies)
      if (failed(expand(copy)))
        return signalPassFailure();
  }

  LogicalResult expand(CopyOp copy) {
    OpBuilder builder(copy);
    Location loc = copy.getLoc();
    Value source = copy.getSource(), target = copy.getTarget();
    if (!copy.isCrossDevice()) {
      createCopyKernel(builder, loc, source, target);
      copy.erase();
      return success();
    }
    for (Value side : {source, target})
      if (!isContiguous(side) &&
          !cast<MemRefType>(side.getType()).hasStaticShape())
        return copy.emitOpError()
               << "copies a strided view of dynamic shape between devices; "
                  "copy it into a contiguous buffer on its device first";
    if (!isContiguous(source)) {
      Value staged = createStagingBuffer(builder, loc, source);
      createCopyKernel(builder, loc, source, staged);
      source = staged;
    }
    Value finalTarget = target;
    if (!isContiguous(target))
      target = createStagingBuffer(builder, loc, target);
    CopyOp::create(builder, loc, source, target);
    if (target != finalTarget)
      createCopyKernel(builder, loc, target, finalTarget);
    copy.erase();
    return success();
  }
};

} // namespace
