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

/// (d0, ..., d{rank-1}) -> the dimensions but `dim`: a row statistic.
static AffineMap rowMap(int64_t rank, int64_t dim, MLIRContext *context) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      exprs.push_back(getAffineDimExpr(d, context));
  return AffineMap::get(rank, 0, exprs, context);
}

/// A row statistic of `source` (shaped as `input`): a buffer without
/// dimension `dim`, filled with `initial`, then `source` reduced into it
/// along `dim` by `Combine`.
template <typename Combine>
static Value reduceRows(OpBuilder &builder, Location loc, Value input,
                        Value source, int64_t dim, double initial) {
  auto type = cast<MemRefType>(input.getType());
  MLIRContext *context = builder.getContext();
  int64_t rank = type.getRank();
  Value statistic = allocateRowBuffer(builder, loc, input, dim);
  Value constant = arith::ConstantOp::create(
      builder, loc, builder.getFloatAttr(type.getElementType(), initial));
  linalg::FillOp::create(builder, loc, constant, statistic);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[dim] = utils::IteratorType::reduction;
  linalg::GenericOp::create(
      builder, loc, ValueRange{source}, ValueRange{statistic},
      ArrayRef<AffineMap>{builder.getMultiDimIdentityMap(rank),
                          rowMap(rank, dim, context)},
      iterators, [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l, Value(Combine::create(b, l, args[0], args[1])));
      });
  return statistic;
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
  AffineMap row = rowMap(rank, dim, context);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);

  // max over the dimension, from -inf; the sum below from 0.
  Value max = reduceRows<arith::MaximumFOp>(
      builder, loc, input, input, dim,
      -std::numeric_limits<double>::infinity());
  // output = exp(input - max)
  linalg::GenericOp::create(
      builder, loc, ValueRange{input, max}, ValueRange{output},
      ArrayRef<AffineMap>{all, row, all}, parallel,
      [](OpBuilder &b, Location l, ValueRange args) {
        Value shifted = arith::SubFOp::create(b, l, args[0], args[1]);
        linalg::YieldOp::create(b, l, Value(math::ExpOp::create(b, l, shifted)));
      });
  Value sum = reduceRows<arith::AddFOp>(builder, loc, input, output, dim, 0.0);
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
