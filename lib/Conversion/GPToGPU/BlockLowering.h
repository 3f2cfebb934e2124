//===- BlockLowering.h - shared pieces of the block lowerings ---*- C++ -*-===//
//
// What the reduction lowering (Reductions.cpp) and the row kernels
// (RowKernels.cpp) share: how a reduction's outputs combine, and building
// blocks for launches that run a linalg payload at given loop indices.
// Internal to convert-gp-to-gpu.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_CONVERSION_GPTOGPU_BLOCKLOWERING_H
#define GRAPHPART_LIB_CONVERSION_GPTOGPU_BLOCKLOWERING_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace mlir::gp::blocks {

/// How one output of a reduction is combined: `yield combine(partial, out)`
/// with `partial` computed from the inputs only.
struct Combiner {
  Operation *op;
  gpu::AllReduceOperation kind;
  /// The payload value folded into the output.
  Value partial;
  /// What threads accumulate in: f32 for narrower floats.
  Type accumulator;
  /// The neutral element, in the accumulator type.
  TypedAttr neutral;
  /// The atomic read-modify-write that folds a block's result into the
  /// output, where LLVM has one (none for mul and xor).
  std::optional<arith::AtomicRMWKind> atomicKind;
};

/// Elements a thread folds per round of its loop, each into its own
/// partial result.
constexpr int64_t kUnroll = 4;

/// `linalg.fill` ops that come right before the reduction that reads
/// their output as its initial value: such a fill need not run on its own
/// when one block owns each output element (its value is folded in where
/// the block writes its result).
using InitialFills = llvm::DenseMap<Value, linalg::FillOp>;

/// The combiners of `op`'s outputs, or nothing when any output is not a
/// recognised reduction the block lowering handles.
std::optional<SmallVector<Combiner>> matchCombiners(linalg::LinalgOp op);

/// `value` converted to `type` (float widening or narrowing).
Value convertFloat(OpBuilder &builder, Location loc, Value value, Type type);

/// `combiner`'s operation applied to two values of `type`.
Value combine(OpBuilder &builder, Location loc, const Combiner &combiner,
              Value lhs, Value rhs);

/// Splits `linear` into indices of `sizes`, the last one fastest.
SmallVector<Value> delinearize(OpBuilder &builder, Location loc, Value linear,
                               ArrayRef<Value> sizes);

/// The product of `sizes` (1 for none).
Value product(OpBuilder &builder, Location loc, ArrayRef<Value> sizes);

/// The indices `map` selects from the loop indices `loops`.
SmallVector<Value> applyMap(OpBuilder &builder, Location loc, AffineMap map,
                            ArrayRef<Value> loops);

/// Threads per block for reductions of `length` elements: a power of two,
/// at least a warp, at most `maxThreads`.
int64_t threadsFor(std::optional<int64_t> length, int64_t maxThreads);

/// A launch of `blocks` x `blocksY` blocks of `threads` threads, with the
/// builder inside it, before its terminator.
gpu::LaunchOp createLaunch(OpBuilder &builder, Location loc, Value blocks,
                           Value blocksY, Value threads);

/// Maps the payload's input arguments to their values: scalar operands to
/// themselves, buffers the payload reads to what `load` gives for them.
void mapInputs(linalg::LinalgOp op, IRMapping &mapping,
               llvm::function_ref<Value(OpOperand *input)> load);

/// mapInputs with each buffer loaded at `loops`.
void loadInputs(OpBuilder &builder, Location loc, linalg::LinalgOp op,
                ArrayRef<Value> loops, IRMapping &mapping);

/// Folds a block's `total` for `combiner` into the output element
/// `buffer[indices]`, storing the result: into `fill`'s value when a fill
/// right before is the output's initial value (null otherwise), else into
/// what the element holds. Narrower floats combine in the accumulator
/// type.
void foldIntoOutput(OpBuilder &builder, Location loc, const Combiner &combiner,
                    Value total, Value buffer, ValueRange indices,
                    linalg::FillOp fill);

/// Clones the payload's ops but `skip` (and the terminator), mapping
/// `linalg.index` ops to `loops`.
void clonePayload(OpBuilder &builder, linalg::LinalgOp op,
                  ArrayRef<Value> loops,
                  const llvm::SmallPtrSetImpl<Operation *> &skip,
                  IRMapping &mapping);

/// Decides what becomes of a value the payload yields for `init`: true
/// when the caller keeps it (in registers) instead of a store.
using KeepYielded = llvm::function_ref<bool(OpOperand &init, Value value)>;

/// Runs `op`'s payload at `loops` with its inputs' values in `mapping`
/// (loadInputs): loads the outputs it reads, computes, stores the yielded
/// values into its outputs, but those `keep` takes.
void computeFromInputs(OpBuilder &builder, Location loc, linalg::LinalgOp op,
                       ArrayRef<Value> loops, IRMapping &mapping,
                       KeepYielded keep = nullptr);

/// Runs `op`'s payload at `loops`: loads its inputs (and the outputs it
/// reads), computes, stores the yielded values into its outputs.
void computeAt(OpBuilder &builder, Location loc, linalg::LinalgOp op,
               ArrayRef<Value> loops);

using FoldElement = llvm::function_ref<SmallVector<Value>(
    OpBuilder &, Value /*index*/, ValueRange /*accumulators*/)>;

/// Each thread's partial results over the elements `start`, `start +
/// stride`, ... below `elements`, one per combiner: `fold` folds one
/// element into the accumulators. With `unroll` > 1 a thread folds that
/// many elements per round into as many independent partial results, so
/// their loads are in flight together (one chain of dependent loads is
/// latency-bound); a second loop takes what is left.
SmallVector<Value> foldStrided(OpBuilder &builder, Location loc, Value start,
                               Value elements, Value stride, int64_t unroll,
                               ArrayRef<Combiner> combiners, FoldElement fold);

/// Lowers the row groups of `func` (a `noalias` kernel body over plain
/// memrefs): consecutive linalg ops that share leading parallel "row"
/// loops of static sizes, at least one a reduction of everything but the
/// rows and each writing only its row (a softmax: max, sum of
/// exponentials, normalization; a layer norm), each become one launch with
/// a block per row that runs them in order, with barriers between them.
/// A row's threads: its length over `elementsPerThread`, rounded up to a
/// power of two, between 32 and `maxThreads`. `unreadAfter` holds the arguments
/// of `func` whose contents nothing reads after the kernel: a row of one that
/// later ops of its group read element by element as it was written stays in
/// registers, unstored.
void lowerRowKernels(func::FuncOp func, int64_t maxThreads,
                     int64_t elementsPerThread,
                     const llvm::DenseSet<Value> &unreadAfter);

} // namespace mlir::gp::blocks

#endif // GRAPHPART_LIB_CONVERSION_GPTOGPU_BLOCKLOWERING_H
