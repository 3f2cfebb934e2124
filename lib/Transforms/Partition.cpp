//===- Partition.cpp - cut a program into CUDA-graph partitions -----------===//
//
// The gp-partition pass: it classifies every block of a function
// (CaptureSafetyAnalysis, honouring cudagraph-or-error), cuts each block into
// gp.partitions with a BlockPartitioner (BlockPartitioner.h), counts them,
// and writes the report and the DOT picture (PartitionReport.h).
//
//===----------------------------------------------------------------------===//

#include "BlockPartitioner.h"
#include "JsonReport.h"
#include "PartitionReport.h"
#include "PassUtils.h"

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "GraphPart/Analysis/CaptureSafety.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace mlir::gp {
#define GEN_PASS_DEF_GPPARTITIONPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::partitioning;

namespace {
struct GPPartitionPass
    : public mlir::gp::impl::GPPartitionPassBase<GPPartitionPass> {
  using GPPartitionPassBase::GPPartitionPassBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (std::optional<std::string> bad = findMalformedUnsafeOp(unsafeOps))
      return emitError(UnknownLoc::get(context))
             << "gp-partition: unsafe-ops entry '" << *bad
             << "' is not 'namespace::op' or 'namespace::op.overload'";
    if (minPartitionSize == 0)
      return emitError(UnknownLoc::get(context))
             << "gp-partition: min-partition-size must be at least 1";
    // The picture holds this run's functions only: start it empty.
    if (!dotFile.empty()) {
      std::error_code error;
      llvm::raw_fd_ostream out(dotFile, error);
      if (error)
        return emitError(UnknownLoc::get(context))
               << "gp-partition: cannot write dot-file '" << dotFile
               << "': " << error.message();
    }
    return success();
  }

  void runOnOperation() override;
  LogicalResult partitionFunction(FunctionOpInterface func);

  /// This run's picture of each partitioned function (dot-file), written
  /// together once every function is partitioned.
  std::vector<std::string> pictures;
};
} // namespace

static bool orErrorFromEnvironment() {
  const char *value = std::getenv("GP_CUDAGRAPH_OR_ERROR");
  return value && StringRef(value) != "" && StringRef(value) != "0";
}

void GPPartitionPass::runOnOperation() {
  SmallVector<FunctionOpInterface> funcs = collectFunctions(getOperation());
  bool failedAny = false;
  pictures.clear();
  for (FunctionOpInterface func : funcs)
    if (failed(partitionFunction(func)))
      failedAny = true;
  if (!failedAny && !dotFile.empty()) {
    std::error_code error;
    llvm::raw_fd_ostream out(dotFile, error);
    if (error) {
      emitError(getOperation()->getLoc())
          << "gp-partition: cannot write dot-file '" << dotFile
          << "': " << error.message();
      failedAny = true;
    } else {
      writeProgramDot(out, pictures);
    }
  }
  if (!failedAny && !reportFile.empty() &&
      failed(writeJsonReport(getOperation(), "gp-partition", reportFile)))
    failedAny = true;
  if (failedAny)
    signalPassFailure();
}

LogicalResult GPPartitionPass::partitionFunction(FunctionOpInterface func) {
  if (func.isExternal())
    return success();
  WalkResult already = func->walk([&](PartitionOp op) {
    op.emitOpError("found in a function given to gp-partition: the "
                   "function is already partitioned");
    return WalkResult::interrupt();
  });
  if (already.wasInterrupted())
    return failure();

  CaptureSafetyOptions safetyOptions;
  safetyOptions.unsafeOps.assign(unsafeOps.begin(), unsafeOps.end());
  safetyOptions.skipDynamicGraphs = skipDynamicGraphs;
  safetyOptions.captureCollectives = captureCollectives;
  bool orError = cudagraphOrError || orErrorFromEnvironment();

  PartitionOptions partitionOptions;
  partitionOptions.minPartitionSize = minPartitionSize;

  // Classify every block first, so that or-error reports every unsafe op.
  SmallVector<std::pair<Block *, std::unique_ptr<CaptureSafetyAnalysis>>>
      blocks;
  bool failed = false;
  for (Block &block : func.getFunctionBody()) {
    auto safety = std::make_unique<CaptureSafetyAnalysis>(block, safetyOptions);
    for (Operation &op : block) {
      std::optional<StringRef> reason = safety->getReason(&op);
      if (!reason)
        continue;
      ++numUnsafeOps;
      if (orError) {
        op.emitError() << "cannot be captured in a CUDA graph: " << *reason
                       << " (cudagraph-or-error is set)";
        failed = true;
      }
    }
    blocks.emplace_back(&block, std::move(safety));
  }
  if (failed)
    return failure();

  unsigned nextId = 0;
  SmallVector<PartitionSummary> summaries;
  // The first block sees the function as the cached analysis does (kept
  // from gp-reorder, which only moves ops); later blocks see the
  // partitions made before them, so they get a fresh one.
  std::optional<BufferAliasAnalysis> fresh;
  for (auto [index, entry] : llvm::enumerate(blocks)) {
    auto &[block, safety] = entry;
    const BufferAliasAnalysis *aliases;
    if (index == 0) {
      aliases = func == getOperation()
                    ? &getAnalysis<BufferAliasAnalysis>()
                    : &getChildAnalysis<BufferAliasAnalysis>(func);
    } else {
      fresh.emplace(func.getOperation());
      aliases = &*fresh;
    }
    BlockPartitioner partitioner(*block, *safety, *aliases, partitionOptions,
                                 nextId);
    summaries.append(partitioner.run());
  }
  for (PartitionSummary summary : summaries) {
    ++numPartitions;
    if (summary.op.isCapturable())
      ++numCapturable;
    else
      ++numEager;
  }

  if (report) {
    std::string text;
    llvm::raw_string_ostream os(text);
    printReport(os, func, summaries);
    writeReport(text);
  }
  if (!dotFile.empty()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    writeFunctionDot(os, func, summaries, pictures.size());
    pictures.push_back(std::move(text));
  }
  return success();
}
