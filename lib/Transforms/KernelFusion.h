//===- KernelFusion.h - shared pieces of gp-fuse-kernels ------*- C++ -*-===//
//
// Internal to lib/Transforms: what the producer-consumer fusion
// (FuseKernels.cpp) and the row-kernel merge (RowMerging.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_TRANSFORMS_KERNELFUSION_H
#define GRAPHPART_LIB_TRANSFORMS_KERNELFUSION_H

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::gp {
class BlockDependences;
class BufferAliasAnalysis;
} // namespace mlir::gp

namespace mlir::gp::fusion {

inline bool isBuffer(Value value) { return isa<MemRefType>(value.getType()); }

/// The name of a kernel merged from `producer` and `consumer`: `P_C`, or
/// the consumer's name with `_fused` when that gets long.
std::string fusedName(StringRef producer, StringRef consumer);

/// The partition bodies of `func`, or its own blocks when it has no
/// partitions: fusion never crosses a partition.
SmallVector<Block *> blocksToFuse(FunctionOpInterface func);

/// The one linalg op of a kernel body whose other ops (before the
/// terminator) are scalar computations free of memory effects, such as the
/// constant a `linalg.fill` stores. The linalg op works on buffers, and its
/// buffer operands are the kernel's block arguments. Null otherwise.
linalg::LinalgOp getSingleLinalgOp(KernelOp kernel);

/// `map` (indexing a buffer of `type`) without its results that are 0 on a
/// dimension of extent 1: how a contraction reads a [1, H, L, E] buffer as
/// [H, L, E] (sliceUnitZeroOperands).
AffineMap dropUnitZeros(AffineMap map, MemRefType type);

/// Makes the contraction of `kernel` read each buffer it indexes at 0 in
/// dimensions of extent 1 (a transposed key cache fused in) through a
/// rank-reducing `gp.buffer.slice` without them, so that its maps are
/// projected permutations again: a contraction a library computes.
void sliceUnitZeroOperands(KernelOp kernel);

/// Whether `produce` copies its one input, unchanged and in full, through
/// a permutation of its dimensions: a transpose.
bool isPermutationCopy(linalg::LinalgOp produce);

/// Makes each fused-attention call whose fresh result is only copied,
/// through a permutation, into another buffer write that buffer itself
/// through the permuted view, and each one that reads a copy of a view of
/// never-written memory read the view (ExternResultLayouts.cpp); returns
/// how many copies went.
unsigned foldPermutedExternResults(FunctionOpInterface func);

/// Makes each copy kernel whose fresh destination holds the source's
/// elements in the same linear order (dimensions of extent 1 moved, or a
/// contiguous copy of a contiguous buffer) a reshape view of the source,
/// where nothing writes the source after it and the destination is only
/// read, in its block (LinearCopies.cpp); returns how many copies went.
unsigned foldLinearCopies(FunctionOpInterface func);

/// A producer, its consumer and the buffer between them.
struct Candidate {
  KernelOp producer, consumer;
  BufferAllocOp alloc;
  BufferDeallocOp dealloc; // null when the buffer is never freed
  /// What the consumer reads of the buffer: the buffer itself or views of
  /// it, each with the map from its indices to the buffer's.
  llvm::DenseMap<Value, AffineMap> reads;
  /// The views between the buffer and the consumer, sources first.
  SmallVector<Operation *> views;
};

/// The uses of a temporary buffer: the kernel that writes it, the kernels
/// that read it (directly or through views of static layout; each read
/// with the map from its indices to the buffer's), those views, and its
/// free.
struct TemporaryUses {
  KernelOp producer;
  BufferDeallocOp dealloc;
  SmallVector<Operation *> views;
  llvm::MapVector<Operation *, llvm::DenseMap<Value, AffineMap>> readers;
};

/// The uses of `alloc`'s buffer when they are all of those kinds, in its
/// block: one kernel writing it as its only output (and not reading it),
/// kernels reading it or its views only as inputs, views only used so, at
/// most one free. Nothing otherwise (the buffer is returned, yielded,
/// copied, written by another op, ...).
std::optional<TemporaryUses> findTemporaryUses(BufferAllocOp alloc);

/// The fusion of `uses`' producer into `reader`, one of its readers.
Candidate candidateFor(BufferAllocOp alloc, const TemporaryUses &uses,
                       Operation *reader);

/// Checks the buffer side of the rule: `alloc`'s buffer is written by one
/// kernel (its only output), read by `consumer` alone, only as inputs,
/// directly or through views of static layout used by nothing else, and
/// otherwise only freed after `consumer`.
std::optional<Candidate> findCandidate(KernelOp consumer, BufferAllocOp alloc);

/// Whether `kernel`'s linalg op is cheap enough to compute again per
/// consumer.
bool isCheapToRecompute(KernelOp kernel);

/// The block argument of `kernel`'s body that stands for operand `index`.
BlockArgument bodyArgument(KernelOp kernel, unsigned index);

/// Whether the kernels' linalg ops can be fused: the producer writes every
/// element of its output without reading it and may be recomputed, the
/// consumer is no contraction, each side uses the buffer's block argument
/// only as the linalg op's output (producer) or inputs (consumer), and the
/// fused op still has an operand that gives each loop its range.
/// `consumerIsFused`: the consumer was made by this pass, so it is no
/// contraction whatever its payload now looks like (fusing `x * y` into a
/// sum gives the body of a dot product).
bool areFusable(Candidate candidate, bool consumerIsFused);

/// Whether moving the producer's work to the consumer keeps every value
/// it reads and writes: no op in between depends on the producer, and the
/// consumer's outputs are not (views of) the producer's inputs.
/// `otherReaders`: kernels in between that may depend on the producer, as
/// they only read its buffer (the other readers of a producer fused into
/// each of them, each checked likewise).
bool isLegalToMove(
    Candidate candidate, const BlockDependences &deps,
    const BufferAliasAnalysis &aliases,
    const llvm::SmallPtrSetImpl<Operation *> *otherReaders = nullptr);

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

/// Merges pairs of independent elementwise kernels over the same loop
/// ranges (SiblingMerging.cpp) in every partition body of `func` (or its
/// blocks) until none is left, logging each merge to `log` when given;
/// returns the number of merges.
unsigned mergeSiblingKernels(FunctionOpInterface func, llvm::raw_ostream *log);

} // namespace mlir::gp::fusion

#endif // GRAPHPART_LIB_TRANSFORMS_KERNELFUSION_H
