//===- KernelFusion.h - shared pieces of gp-fuse-kernels ------*- C++ -*-===//
//
// Internal to lib/Transforms: what the producer-consumer fusion
// (FuseKernels.cpp) and the row-kernel merge (RowMerging.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_TRANSFORMS_KERNELFUSION_H
#define GRAPHPART_LIB_TRANSFORMS_KERNELFUSION_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::gp::fusion {

inline bool isBuffer(Value value) { return isa<MemRefType>(value.getType()); }

/// The name of a kernel merged from `producer` and `consumer`: `P_C`, or
/// the consumer's name with `_fused` when that gets long.
std::string fusedName(StringRef producer, StringRef consumer);

/// The partition bodies of `func`, or its own blocks when it has no
/// partitions: fusion never crosses a partition.
SmallVector<Block *> blocksToFuse(FunctionOpInterface func);

/// The map from the indices of a view of type `view` to those of the
/// buffer of type `base` it shows (contiguous, identity layout, which the
/// view's layout offset and strides are relative to): the view's element
/// at `d` is the base's at linear position `offset + sum(d_k * stride_k)`.
/// Nothing when a size, stride or offset is dynamic or the element types
/// differ.
std::optional<AffineMap> viewToBase(MemRefType view, MemRefType base);

/// Whether `op` is a view the fusion looks through: it shows its source's
/// elements at other indices (a reshape, a slice, a transpose).
bool isIndexView(Operation *op);

/// Merges row kernels in every partition body of `func` (or its blocks)
/// until none is left to merge, logging each merge to `log` when given;
/// returns the number of merges.
unsigned mergeRowKernels(FunctionOpInterface func, llvm::raw_ostream *log);

} // namespace mlir::gp::fusion

#endif // GRAPHPART_LIB_TRANSFORMS_KERNELFUSION_H
