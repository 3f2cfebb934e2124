//===- Reductions.h - block-parallel reductions for cuda kernels -*- C++
//-*-===//

#ifndef GRAPHPART_LIB_CONVERSION_GPTOGPU_REDUCTIONS_H
#define GRAPHPART_LIB_CONVERSION_GPTOGPU_REDUCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::gp {

/// Replaces each linalg op in `func` (a kernel body over plain memrefs) that
/// has reduction loops, and whose outputs each combine a value computed
/// from the inputs with a recognised associative, commutative operation
/// (add, mul, max, min, and, or, xor), with a `gpu.launch`: one block per
/// point of the parallel loops (or several, combined with atomics, when the
/// parallel points are few and the reductions long), each thread reduces a
/// strided share of the reduction loops and `gpu.all_reduce` combines the
/// threads. Floats narrower than f32 accumulate in f32. Linalg ops that do
/// not match stay for the generic loop mapping (a sequential reduction per
/// parallel point). `maxThreads` bounds the threads per block.
///
/// With `rowKernels` (the kernel is `noalias`), consecutive linalg ops
/// that share leading parallel "row" loops (the rest static), at least one a
/// reduction of everything but the rows and each writing only its row (a
/// softmax: max, sum of exponentials, normalization; a layer norm) become
/// one launch with a block per row that runs them in order, with barriers
/// between them, each thread taking at least `rowElementsPerThread` of a
/// row. `unreadAfter` holds the arguments of `func` whose contents nothing
/// reads after the kernel (rows of them may stay in registers).
void lowerReductionsToBlocks(func::FuncOp func, int64_t maxThreads,
                             bool rowKernels, int64_t rowElementsPerThread,
                             const llvm::DenseSet<Value> &unreadAfter);

} // namespace mlir::gp

#endif // GRAPHPART_LIB_CONVERSION_GPTOGPU_REDUCTIONS_H
