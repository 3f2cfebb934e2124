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
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::gp;

/// The bytes of `elements`, row-major, as the runtime stores them; none for
/// what has no plain byte form (i1, opaque elements).
static std::optional<std::string> elementBytes(ElementsAttr elements) {
  auto shaped = elements.getShapedType();
  if (shaped.getElementType().isInteger(1))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(elements)) {
    ArrayRef<char> raw = dense.getRawData();
    std::string bytes(raw.begin(), raw.end());
    if (dense.isSplat()) { // One element's bytes stand for all of them.
      std::string one = bytes;
      bytes.clear();
      for (int64_t i = 0, e = shaped.getNumElements(); i < e; ++i)
        bytes += one;
    }
    return bytes;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(elements))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return std::string(blob->getData().begin(), blob->getData().end());
  return std::nullopt;
}

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
  text += "capture-sizes " +
          (options.captureSizes.empty()
               ? std::string("-")
               : ::gp::formatCaptureSizes(options.captureSizes)) +
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
  // State the runtime keeps, filled at load: `initial <name> <hex bytes>`.
  if (auto initial = module->getAttrOfType<DictionaryAttr>(
          GPDialect::getInitialValuesAttrName()))
    for (NamedAttribute entry : initial) {
      std::optional<std::string> bytes =
          elementBytes(cast<ElementsAttr>(entry.getValue()));
      if (!bytes) {
        module.emitError() << "the initial value of state '"
                           << entry.getName().getValue()
                           << "' has no byte form the runtime can fill";
        continue;
      }
      text += "initial " + entry.getName().getValue().str() + " " +
              llvm::toHex(*bytes) + "\n";
    }
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
