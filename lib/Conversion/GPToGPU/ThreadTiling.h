//===- ThreadTiling.h - parallel loops into blocks of threads ---*- C++ -*-===//
//
// Tiles a kernel body's parallel loops for the GPU mapping: an outer loop
// over blocks and an inner one over a block's threads.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_CONVERSION_GPTOGPU_THREADTILING_H
#define GRAPHPART_LIB_CONVERSION_GPTOGPU_THREADTILING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::gp {

/// Tiles each innermost `scf.parallel` of `func` into blocks of `blockSize`
/// threads (a bounds check inside, as upstream's loop tiling with no
/// min/max bounds). A long one-dimensional loop of static trip count from
/// 0 with step 1 (an elementwise kernel, collapsed) may give each thread
/// several elements, `blockSize` apart: in a block's tiles that lie
/// wholly in bounds every element's loads are issued before any element
/// is stored, so a thread has that many loads in flight where one would
/// wait on each in turn (scf.parallel's iterations are independent, so
/// the order is free); the last, partial tile checks each element.
/// `maxElementsPerThread` bounds the elements a thread takes (1: one each,
/// as upstream's tiling).
void tileForThreads(func::FuncOp func, int64_t blockSize,
                    int64_t maxElementsPerThread);

} // namespace mlir::gp

#endif // GRAPHPART_LIB_CONVERSION_GPTOGPU_THREADTILING_H
