//===- ViewIndexing.cpp - indices of a buffer seen through its views ------===//
//
// gp-fuse-kernels looks through reshapes, slices and transposes: a view's
// element is found in its base buffer by the view's layout (offset and
// strides relative to the base's identity layout), split back into the
// base's indices.
//
//===----------------------------------------------------------------------===//

#include "KernelFusion.h"

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

/// An index `sum(coefficients[k] * d_k) + constant` over indices `d_k` in
/// [0, sizes[k]), all terms non-negative.
struct LinearIndex {
  SmallVector<int64_t> coefficients;
  int64_t constant = 0;

  AffineExpr toExpr(MLIRContext *context) const {
    AffineExpr expr = getAffineConstantExpr(constant, context);
    for (auto [dim, coefficient] : llvm::enumerate(coefficients))
      if (coefficient)
        expr = expr + getAffineDimExpr(dim, context) * coefficient;
    return expr;
  }
};

/// `index` as `divisor * quotient + remainder` with both linear, when the
/// terms not divisible by `divisor` stay below it for every index in
/// range (a reshape's usual case, which then needs no division at run
/// time).
std::optional<std::pair<LinearIndex, LinearIndex>>
divideExactly(const LinearIndex &index, int64_t divisor,
              ArrayRef<int64_t> sizes) {
  LinearIndex quotient, remainder;
  quotient.coefficients.assign(index.coefficients.size(), 0);
  remainder.coefficients.assign(index.coefficients.size(), 0);
  quotient.constant = index.constant / divisor;
  remainder.constant = index.constant % divisor;
  int64_t largest = remainder.constant;
  for (auto [dim, coefficient] : llvm::enumerate(index.coefficients)) {
    if (coefficient % divisor == 0) {
      quotient.coefficients[dim] = coefficient / divisor;
      continue;
    }
    remainder.coefficients[dim] = coefficient;
    largest += coefficient * (sizes[dim] - 1);
  }
  if (largest >= divisor)
    return std::nullopt;
  return std::make_pair(quotient, remainder);
}

} // namespace

std::optional<AffineMap> mlir::gp::fusion::viewToBase(MemRefType view,
                                                      MemRefType base) {
  if (view.getElementType() != base.getElementType() ||
      !view.hasStaticShape() || !base.hasStaticShape() ||
      !base.getLayout().isIdentity())
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(view.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, [](int64_t stride) {
        return ShapedType::isDynamic(stride) || stride < 0;
      }))
    return std::nullopt;
  MLIRContext *context = view.getContext();
  ArrayRef<int64_t> sizes = view.getShape();
  LinearIndex position{SmallVector<int64_t>(strides), offset};
  SmallVector<AffineExpr> results;
  int64_t baseStride = 1;
  SmallVector<int64_t> baseStrides(base.getRank());
  for (int64_t dim = base.getRank() - 1; dim >= 0; --dim) {
    baseStrides[dim] = baseStride;
    baseStride *= base.getDimSize(dim);
  }
  for (auto [dim, size] : llvm::enumerate(base.getShape())) {
    // (position floordiv stride) mod size, without division where exact.
    std::optional<LinearIndex> above;
    if (auto split = divideExactly(position, baseStrides[dim], sizes))
      above = split->first;
    if (above)
      if (auto split = divideExactly(*above, size, sizes)) {
        results.push_back(split->second.toExpr(context));
        continue;
      }
    AffineExpr expr = above
                          ? above->toExpr(context)
                          : position.toExpr(context).floorDiv(baseStrides[dim]);
    results.push_back(dim == 0 ? expr : expr % size);
  }
  return AffineMap::get(view.getRank(), 0, results, context);
}

bool mlir::gp::fusion::isIndexView(Operation *op) {
  return isa<BufferReshapeOp, BufferSliceOp, BufferTransposeOp>(op);
}
