//===- Manifest.cpp - the artifact's gp_manifest string -------------------===//
//
// The manifest the runtime reads when it loads an artifact: target, arenas,
// generators, device, policy defaults, partitions, what the IR states of each
// extern it calls, and entry signatures, as one NUL-terminated `gp_manifest`
// global.
//
//===----------------------------------------------------------------------===//

#include "LoweringState.h"

#include "GraphPart/Runtime/ManifestSchema.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::gp;
namespace manifest = ::gp::manifest;

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
  std::string text = std::string(manifest::kHeader) + "\n";
  // One `<key> <value>` line.
  auto line = [&](const char *key, const std::string &value) {
    text += std::string(key) + " " + value + "\n";
  };
  line(manifest::kTarget,
       options.cudaTarget ? manifest::kTargetCuda : manifest::kTargetHost);
  line(manifest::kArena, std::to_string(deviceArenaBytes));
  line(manifest::kHostArena, std::to_string(hostArenaBytes));
  line(manifest::kGenerators, std::to_string(generators.size()));
  line(manifest::kSeed, std::to_string(programSeed));
  line(manifest::kDevice, std::to_string(cudaDevice.value_or(0)));
  line(manifest::kWarmupRuns, std::to_string(options.warmupRuns));
  line(manifest::kCaptureSizes,
       options.captureSizes.empty()
           ? std::string(manifest::kNone)
           : ::gp::formatCaptureSizes(options.captureSizes));
  line(manifest::kShapeWarningLimit, std::to_string(options.shapeWarningLimit));
  line(manifest::kOrError, options.orError ? "1" : "0");
  // Only when it differs from the runtime's default, so artifacts of
  // programs that do not set it read as before.
  if (options.graphCacheCapacity != GPToRuntimeOptions().graphCacheCapacity)
    line(manifest::kGraphCacheCapacity,
         std::to_string(options.graphCacheCapacity));
  for (auto [index, partition] : llvm::enumerate(partitions))
    line(manifest::kPartition,
         std::to_string(index) + " " +
             (partition.capturable ? manifest::kCapturable : manifest::kEager) +
             " " + std::to_string(partition.numShapeSymbols) + " " +
             (partition.reasons.empty() ? std::string(manifest::kNone)
                                        : partition.reasons));
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
      line(manifest::kInitial,
           entry.getName().getValue().str() + " " + llvm::toHex(*bytes));
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
