//===- Pipeline.h - the GraphPart pipeline ----------------------*- C++ -*-===//

#ifndef GRAPHPART_PIPELINES_PIPELINE_H
#define GRAPHPART_PIPELINES_PIPELINE_H

#include "GraphPart/Conversion/CaptureSizesOption.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::gp {

struct GraphPartPipelineOptions
    : public PassPipelineOptions<GraphPartPipelineOptions> {
  Option<std::string> defaultDevice{
      *this, "default-device",
      llvm::cl::desc("gp-import: the device of memrefs without a memory "
                     "space (cuda:N or cpu)"),
      llvm::cl::init("cuda:0")};
  Option<std::string> weightsDir{
      *this, "weights-dir",
      llvm::cl::desc("gp-import: large constants become parameters named "
                     "after their globals (gp.parameter), their data "
                     "written to this directory"),
      llvm::cl::init("")};
  ListOption<std::string> unsafeOps{
      *this, "unsafe-ops",
      llvm::cl::desc("Fallback ops that cannot be captured (ns::op or "
                     "ns::op.overload)")};
  Option<bool> skipDynamicGraphs{
      *this, "skip-dynamic-graphs",
      llvm::cl::desc("Do not capture ops with symbolic sizes"),
      llvm::cl::init(false)};
  Option<bool> captureCollectives{
      *this, "capture-collectives",
      llvm::cl::desc("Capture collectives with the work around them (off: "
                     "cut at each)"),
      llvm::cl::init(true)};
  Option<bool> reorder{*this, "reorder",
                       llvm::cl::desc("Reorder to minimise partitions"),
                       llvm::cl::init(true)};
  Option<double> memoryBudget{
      *this, "memory-budget",
      llvm::cl::desc("Peak-memory budget for reordering, relative to the "
                     "current order"),
      llvm::cl::init(1.1)};
  Option<unsigned> minPartitionSize{
      *this, "min-partition-size",
      llvm::cl::desc("Capturable partitions with fewer compute ops run "
                     "eagerly"),
      llvm::cl::init(1)};
  Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Merge elementwise kernels into their consumers within "
                     "each partition (gp-fuse-kernels)"),
      llvm::cl::init(true)};
  Option<bool> fuseRows{
      *this, "fuse-rows",
      llvm::cl::desc("With fuse: merge the cuda kernels of a softmax, a "
                     "layer norm and other row-by-row ops into one row "
                     "kernel (gp-fuse-kernels rows)"),
      llvm::cl::init(true)};
  Option<bool> fuseDuplicate{
      *this, "fuse-duplicate",
      llvm::cl::desc("With fuse: compute a cheap producer again in each of "
                     "several consumers (gp-fuse-kernels duplicate)"),
      llvm::cl::init(true)};
  Option<bool> fuseSiblings{
      *this, "fuse-siblings",
      llvm::cl::desc("With fuse: merge independent elementwise kernels over "
                     "the same loop ranges into one (gp-fuse-kernels "
                     "siblings)"),
      llvm::cl::init(true)};
  Option<bool> cudagraphOrError{
      *this, "cudagraph-or-error",
      llvm::cl::desc("Fail on any op that cannot be captured"),
      llvm::cl::init(false)};
  Option<bool> report{
      *this, "report",
      llvm::cl::desc("Print what reordering, partitioning and planning did"),
      llvm::cl::init(false)};
  Option<std::string> reportFile{
      *this, "report-file",
      llvm::cl::desc("Write the partitions, planned buffers, frees and arenas "
                     "as JSON to this file after planning (docs/Reports.md)"),
      llvm::cl::init("")};
  Option<std::string> dotFile{
      *this, "dot-file",
      llvm::cl::desc("Write the partitions as a Graphviz picture to this "
                     "file, one cluster per function (gp-partition's "
                     "dot-file)"),
      llvm::cl::init("")};
  Option<bool> debug{
      *this, "debug",
      llvm::cl::desc("Check the memory plan with gp-verify-plan"),
      llvm::cl::init(false)};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("After planning, lower to the LLVM dialect for this "
                     "runtime target: host (kernels as CPU loops) or cuda "
                     "(kernels compiled to sm_90 cubins); empty stops after "
                     "planning"),
      llvm::cl::init("")};
  Option<int64_t> warmupRuns{
      *this, "warmup-runs",
      llvm::cl::desc("With target: the artifact's default warm-up runs per "
                     "shape before capture"),
      llvm::cl::init(1)};
  /// Parsed here, as convert-gp-to-runtime's option is, and handed to it.
  Option<::gp::CaptureSizes> captureSizes{
      *this, "capture-sizes",
      llvm::cl::desc("With target: the artifact's default capture sizes "
                     "(1,2,4 or 2x3,4x5 or default; Runtime/CaptureSizes.h); "
                     "GP_CUDAGRAPH_CAPTURE_SIZES overrides it")};
  Option<int64_t> shapeWarningLimit{
      *this, "shape-warning-limit",
      llvm::cl::desc("With target: the artifact's default distinct-shape "
                     "warning limit"),
      llvm::cl::init(8)};
  Option<bool> checked{
      *this, "checked",
      llvm::cl::desc("With target: bounds-check kernels' loads and stores; an "
                     "out-of-bounds access fails the call, naming the kernel "
                     "(gp-check-bounds; slower, for debugging)"),
      llvm::cl::init(false)};
  Option<int64_t> graphCacheCapacity{
      *this, "graph-cache-capacity",
      llvm::cl::desc("With target: the artifact's default number of recorded "
                     "keys (each with its executable) kept per partition and "
                     "thread before the least recently used is evicted"),
      llvm::cl::init(64)};
  Option<int64_t> elementsPerThread{
      *this, "elements-per-thread",
      llvm::cl::desc("With target=cuda: most elements a thread of a long "
                     "elementwise kernel takes (convert-gp-to-gpu's "
                     "elements-per-thread; 1: one each)"),
      llvm::cl::init(1)};
  Option<int64_t> rowElementsPerThread{
      *this, "row-elements-per-thread",
      llvm::cl::desc("With target=cuda: elements of a row each thread of a "
                     "row kernel (softmax, layer norm) takes at least "
                     "(convert-gp-to-gpu's row-elements-per-thread; 1: a "
                     "thread per element up to 256)"),
      llvm::cl::init(1)};
  Option<std::string> cudaChip{*this, "cuda-chip",
                               llvm::cl::desc("GPU architecture for "
                                              "target=cuda"),
                               llvm::cl::init("sm_90")};
  Option<std::string> libdevice{
      *this, "libdevice",
      llvm::cl::desc("libdevice bitcode linked into cuda kernels (math)"),
      llvm::cl::init("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc")};
};

/// Reorder (optional), partition, fuse kernels (optional), plan memory, and
/// (with `debug`) check the plan: the front half of GraphPart, before
/// lowering.
void buildGraphPartPipeline(OpPassManager &pm,
                            const GraphPartPipelineOptions &options);

/// The lowering that `target` adds: for cuda, kernels to cubins; then the
/// program onto the runtime (convert-gp-to-runtime) and everything to the
/// LLVM dialect, ready for mlir-translate --mlir-to-llvmir.
void buildRuntimeLowering(OpPassManager &pm,
                          const GraphPartPipelineOptions &options);

/// Registers `--gp-pipeline`.
void registerGraphPartPipeline();

} // namespace mlir::gp

#endif // GRAPHPART_PIPELINES_PIPELINE_H
