//===- Manifest.cpp - the artifact's gp_manifest string -------------------===//
//
// The manifest the runtime reads when it loads an artifact: target, arenas,
// generators, device, policy defaults, partitions, what the IR states of each
// extern it calls, and entry signatures, as one NUL-terminated `gp_manifest`
// global.
//
//===----------------------------------------------------------------------===//

#include "LoweringState.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::gp;

void GPToRuntimeState::emitManifest() {
  std::string text = "graphpart-artifact 2\n";
  text +=
      std::string("target ") + (options.cudaTarget ? "cuda" : "host") + "\n";
  text += "arena " + std::to_string(deviceArenaBytes) + "\n";
  text += "host-arena " + std::to_string(hostArenaBytes) + "\n";
  text += "generators " + std::to_string(generators.size()) + "\n";
  text += "seed " + std::to_string(programSeed) + "\n";
  text += "device " + std::to_string(cudaDevice.value_or(0)) + "\n";
  text += "warmup-runs " + std::to_string(options.warmupRuns) + "\n";
  text +=
      "capture-sizes " +
      (options.captureSizes.empty() ? std::string("-") : options.captureSizes) +
      "\n";
  text +=
      "shape-warning-limit " + std::to_string(options.shapeWarningLimit) + "\n";
  text += std::string("or-error ") + (options.orError ? "1" : "0") + "\n";
  // Only when it differs from the runtime's default, so artifacts of
  // programs that do not set it read as before.
  if (options.graphCacheCapacity != GPToRuntimeOptions().graphCacheCapacity)
    text += "graph-cache-capacity " +
            std::to_string(options.graphCacheCapacity) + "\n";
  for (auto [index, partition] : llvm::enumerate(partitions))
    text += "partition " + std::to_string(index) + " " +
            (partition.capturable ? "capturable" : "eager") + " " +
            std::to_string(partition.numShapeSymbols) + " " +
            (partition.reasons.empty() ? "-" : partition.reasons) + "\n";
  for (const std::string &statement : externStatements)
    text += statement;
  text += entriesManifest;
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  text.push_back('\0');
  LLVM::GlobalOp::create(
      builder, module.getLoc(),
      LLVM::LLVMArrayType::get(IntegerType::get(module.getContext(), 8),
                               text.size()),
      /*isConstant=*/true, LLVM::Linkage::External, "gp_manifest",
      builder.getStringAttr(text));
}
