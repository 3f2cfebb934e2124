//===- ThreadTiling.cpp - parallel loops into blocks of threads -----------===//
//
// An elementwise kernel is one parallel loop over its elements, a thread
// per element: each thread issues its loads, waits for them, computes and
// stores. Where the loop is long, a thread takes several elements and
// issues all their loads at once, so that more bytes are in flight per
// thread (memory latency, not bandwidth, bounds a thread with one 2-byte
// load outstanding).
//
//===----------------------------------------------------------------------===//

#include "ThreadTiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

/// Blocks a loop gives the GPU, at least, before its threads take several
/// elements each: a few waves of blocks on every multiprocessor of an H100
/// or H200 (132), so that none idles at the end.
constexpr int64_t kBlocksBeforeSharing = 512;
/// How many elements each thread of `loop` takes (1: one, the plain
/// tiling): the most up to `most` that still gives kBlocksBeforeSharing
/// blocks.
int64_t elementsPerThread(scf::ParallelOp loop, int64_t blockSize,
                          int64_t most) {
  if (loop.getNumLoops() != 1 || loop.getNumResults() != 0 ||
      !isa<func::FuncOp>(loop->getParentOp()) ||
      !matchPattern(loop.getLowerBound().front(), m_Zero()) ||
      !matchPattern(loop.getStep().front(), m_One()))
    return 1;
  std::optional<int64_t> tripCount =
      getConstantIntValue(loop.getUpperBound().front());
  if (!tripCount)
    return 1;
  for (int64_t count = most; count > 1; count /= 2)
    if (*tripCount >= blockSize * count * kBlocksBeforeSharing)
      return count;
  return 1;
}

/// Whether a loop body's `op` may run before other elements' stores: it
/// computes or loads, writes nothing and holds no region.
bool runsBeforeStores(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isa<memref::LoadOp>(op) || isPure(op));
}

/// Replaces `loop` (0 to N step 1) by blocks of `blockSize` threads, each
/// taking `count` elements `blockSize` apart: a tile wholly in bounds runs
/// each element's leading loads and computations (up to its first store
/// or region) for all its elements first, then the rest element by
/// element; the last tile checks each element against N.
void tileWithElementsPerThread(scf::ParallelOp loop, int64_t blockSize,
                               int64_t count) {
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value upper = loop.getUpperBound().front();
  int64_t tile = blockSize * count;
  auto blocks = scf::ParallelOp::create(builder, loc, ValueRange{constant(0)},
                                        ValueRange{upper},
                                        ValueRange{constant(tile)});
  builder.setInsertionPointToStart(blocks.getBody());
  Value tileStart = blocks.getInductionVars().front();
  auto threads = scf::ParallelOp::create(
      builder, loc, ValueRange{constant(0)}, ValueRange{constant(blockSize)},
      ValueRange{constant(1)});
  builder.setInsertionPointToStart(threads.getBody());
  Value first = arith::AddIOp::create(builder, loc, tileStart,
                                      threads.getInductionVars().front());
  SmallVector<Value> elements{first};
  for (int64_t k = 1; k < count; ++k)
    elements.push_back(
        arith::AddIOp::create(builder, loc, first, constant(k * blockSize)));
  // Every tile is whole when the tiles divide the trip count.
  bool partial = *getConstantIntValue(upper) % tile != 0;
  scf::IfOp split;
  if (partial) {
    Value tileEnd =
        arith::AddIOp::create(builder, loc, tileStart, constant(tile));
    Value whole = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ule, tileEnd, upper);
    split = scf::IfOp::create(builder, loc, whole, /*withElse=*/true);
    builder.setInsertionPoint(split.thenBlock()->getTerminator());
  }

  Block &body = *loop.getBody();
  Value index = loop.getInductionVars().front();
  auto bodyOps = body.without_terminator();

  // A whole tile: every element's leading loads first.
  SmallVector<IRMapping> mappings(count);
  SmallVector<Block::iterator> rest;
  for (int64_t k = 0; k < count; ++k) {
    mappings[k].map(index, elements[k]);
    auto op = bodyOps.begin();
    for (; op != bodyOps.end() && runsBeforeStores(&*op); ++op)
      builder.clone(*op, mappings[k]);
    rest.push_back(op);
  }
  for (int64_t k = 0; k < count; ++k)
    for (Operation &op : llvm::make_range(rest[k], bodyOps.end()))
      builder.clone(op, mappings[k]);

  if (!partial) {
    loop.erase();
    return;
  }
  // The last tile: each element in bounds on its own.
  builder.setInsertionPoint(split.elseBlock()->getTerminator());
  for (int64_t k = 0; k < count; ++k) {
    Value inBounds = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, elements[k], upper);
    auto guard = scf::IfOp::create(builder, loc, inBounds, /*withElse=*/false);
    OpBuilder inside = OpBuilder::atBlockTerminator(guard.thenBlock());
    IRMapping mapping;
    mapping.map(index, elements[k]);
    for (Operation &op : bodyOps)
      inside.clone(op, mapping);
  }
  loop.erase();
}

} // namespace

void mlir::gp::tileForThreads(func::FuncOp func, int64_t blockSize,
                              int64_t maxElementsPerThread) {
  SmallVector<scf::ParallelOp> innermost;
  func.walk([&](scf::ParallelOp loop) {
    bool nested = false;
    loop.getBody()->walk([&](scf::ParallelOp) { nested = true; });
    if (!nested)
      innermost.push_back(loop);
  });
  for (scf::ParallelOp loop : innermost) {
    int64_t count = elementsPerThread(loop, blockSize, maxElementsPerThread);
    if (count > 1)
      tileWithElementsPerThread(loop, blockSize, count);
    else
      scf::tileParallelLoop(loop, {blockSize}, /*noMinMaxBounds=*/true);
  }
}
