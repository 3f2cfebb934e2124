//===- ImportSoftmax.cpp - linalg.softmax as the ops it stands for --------===//
//
// torch-mlir and IREE emit `linalg.softmax`; after bufferization it reads
// one buffer and writes another. gp-import expands it, before anything
// else is imported, into the four linalg ops it stands for, with the same
// numerics as upstream's decomposition: the row maximum, exp(x - max)
// into the output, the row sum of that, and the output divided by the sum
// in place. The maximum and sum are buffers of the input's shape without
// the softmax dimension. The reductions and elementwise ops are then
// imported (and fused, and lowered to row kernels) like any others.
//
//===----------------------------------------------------------------------===//

#include "ImportInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::importer;

/// The buffer of `input`'s shape without dimension `dim`, for a row
/// statistic (dynamic sizes read from `input`).
static Value allocateRowBuffer(OpBuilder &builder, Location loc, Value input,
                               int64_t dim) {
  auto type = cast<MemRefType>(input.getType());
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d == dim)
      continue;
    shape.push_back(type.getDimSize(d));
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(memref::DimOp::create(builder, loc, input, d));
  }
  auto rowType = MemRefType::get(shape, type.getElementType(), AffineMap(),
                                 type.getMemorySpace());
  return memref::AllocOp::create(builder, loc, rowType, dynamicSizes);
}

static LogicalResult expandSoftmax(linalg::SoftmaxOp softmax) {
  Location loc = softmax.getLoc();
  Value input = softmax.getInput(), output = softmax.getOutput();
  auto type = dyn_cast<MemRefType>(input.getType());
  if (!type || !isa<MemRefType>(output.getType()))
    return softmax.emitError("gp-import: linalg.softmax on tensors; "
                             "bufferize the program first");
  auto elementType = dyn_cast<FloatType>(type.getElementType());
  if (!elementType)
    return softmax.emitError("gp-import: linalg.softmax of ")
           << type.getElementType() << " elements; it takes floats";
  int64_t rank = type.getRank();
  int64_t dim = softmax.getDimension();
  OpBuilder builder(softmax);
  MLIRContext *context = builder.getContext();

  AffineMap all = builder.getMultiDimIdentityMap(rank);
  SmallVector<AffineExpr> rowExprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      rowExprs.push_back(getAffineDimExpr(d, context));
  AffineMap row = AffineMap::get(rank, 0, rowExprs, context);
  SmallVector<utils::IteratorType> reduce(rank, utils::IteratorType::parallel);
  reduce[dim] = utils::IteratorType::reduction;
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);

  auto fill = [&](Value buffer, double value) {
    Value constant = arith::ConstantOp::create(
        builder, loc, builder.getFloatAttr(elementType, value));
    linalg::FillOp::create(builder, loc, constant, buffer);
  };
  // max over the dimension, from -inf.
  Value max = allocateRowBuffer(builder, loc, input, dim);
  fill(max, -std::numeric_limits<double>::infinity());
  linalg::GenericOp::create(
      builder, loc, ValueRange{input}, ValueRange{max},
      ArrayRef<AffineMap>{all, row}, reduce,
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l, Value(arith::MaximumFOp::create(b, l, args[0], args[1])));
      });
  // output = exp(input - max)
  linalg::GenericOp::create(
      builder, loc, ValueRange{input, max}, ValueRange{output},
      ArrayRef<AffineMap>{all, row, all}, parallel,
      [](OpBuilder &b, Location l, ValueRange args) {
        Value shifted = arith::SubFOp::create(b, l, args[0], args[1]);
        linalg::YieldOp::create(b, l, Value(math::ExpOp::create(b, l, shifted)));
      });
  // sum over the dimension, from 0.
  Value sum = allocateRowBuffer(builder, loc, input, dim);
  fill(sum, 0.0);
  linalg::GenericOp::create(
      builder, loc, ValueRange{output}, ValueRange{sum},
      ArrayRef<AffineMap>{all, row}, reduce,
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l, Value(arith::AddFOp::create(b, l, args[0], args[1])));
      });
  // output /= sum, in place.
  linalg::GenericOp::create(
      builder, loc, ValueRange{sum}, ValueRange{output},
      ArrayRef<AffineMap>{row, all}, parallel,
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l, Value(arith::DivFOp::create(b, l, args[1], args[0])));
      });
  softmax.erase();
  return success();
}

LogicalResult mlir::gp::importer::expandSoftmaxOps(func::FuncOp function) {
  SmallVector<linalg::SoftmaxOp> softmaxes;
  function.walk([&](linalg::SoftmaxOp op) { softmaxes.push_back(op); });
  for (linalg::SoftmaxOp softmax : softmaxes)
    if (failed(expandSoftmax(softmax)))
      return failure();
  return success();
}
