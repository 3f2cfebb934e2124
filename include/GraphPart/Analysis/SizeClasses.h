//===- SizeClasses.h - an entry's run-time sizes ----------------*- C++ -*-===//
//
// A program with dynamic dimensions uses some of them as one size: a
// matmul's rows and its input's rows, a bias add over two buffers of the
// batch. The program is only meaningful when the caller's sizes agree, so
// the runtime checks these relations at every call. For each such size the
// analysis also proves (or refutes) that every position along it is
// computed on its own: no reduction, scan, gather, opaque call or reshape
// mixes positions, nothing reads the size as a value, and no argument
// sized by it is written in place. A call may then run on inputs padded
// along the size (to a captured size) and slice the results back.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_ANALYSIS_SIZECLASSES_H
#define GRAPHPART_ANALYSIS_SIZECLASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <utility>

namespace mlir::gp {

/// One size of an entry: the argument and result dimensions that are it.
struct SizeClass {
  /// The program's name for it (its first symint), or `argI_dimD`.
  std::string name;
  /// (argument, dimension) pairs; dimension -1 for an `index` argument
  /// whose value is the size.
  SmallVector<std::pair<int64_t, int64_t>> arguments;
  /// (result, dimension) pairs.
  SmallVector<std::pair<int64_t, int64_t>> results;
  /// The size a static dimension used with it fixes, or -1.
  int64_t fixed = -1;
  /// The smallest `max` a symint of it declares (the entry checks it), or
  /// -1: padding must not go past it.
  int64_t maximum = -1;
  /// Empty when padding along the size is proven safe; otherwise why not,
  /// naming the op.
  std::string unpaddable;
};

/// The sizes of `function`'s dynamic argument dimensions (and `index`
/// arguments used as sizes), in argument order. Works on gp-dialect
/// programs before partitioning (kernel bodies of linalg on buffers).
SmallVector<SizeClass> computeSizeClasses(func::FuncOp function);

} // namespace mlir::gp

#endif // GRAPHPART_ANALYSIS_SIZECLASSES_H
