//===- ImportTypes.cpp - what gp-import takes, and devices ----------------===//
//
// The types a function may hold (no tensors, unranked memrefs or memory
// spaces other than devices), the default device given to memrefs that
// have none, and the function type once its ops are imported.
//
//===----------------------------------------------------------------------===//

#include "ImportInternal.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::importer;

/// Why `type` cannot be imported, if it cannot.
static std::optional<std::string> rejectType(Type type) {
  if (isa<TensorType>(type))
    return std::string("works on tensors; bufferize the program first "
                       "(one-shot-bufferize=\"bufferize-function-boundaries "
                       "function-boundary-type-conversion=identity-layout-"
                       "map\")");
  if (isa<UnrankedMemRefType>(type))
    return std::string("uses an unranked memref; gp buffers have a rank "
                       "(cast to a ranked memref first)");
  if (auto memref = dyn_cast<MemRefType>(type)) {
    Attribute space = memref.getMemorySpace();
    auto integerSpace = dyn_cast_or_null<IntegerAttr>(space);
    if (space && !isa<DeviceAttr>(space) &&
        !(integerSpace && integerSpace.getInt() == 0)) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "uses memory space " << space
         << ", which is not a device; give memrefs #gp.device<...> spaces "
            "or none (the default device)";
      return text;
    }
  }
  return std::nullopt;
}

LogicalResult FunctionImporter::checkTypes() {
  for (auto [index, type] :
       llvm::enumerate(function.getFunctionType().getInputs()))
    if (std::optional<std::string> why = rejectType(type))
      return function.emitError() << "gp-import: argument " << index << " "
                                  << *why;
  for (auto [index, type] :
       llvm::enumerate(function.getFunctionType().getResults()))
    if (std::optional<std::string> why = rejectType(type))
      return function.emitError() << "gp-import: result " << index << " "
                                  << *why;
  WalkResult walk = function.walk([&](Operation *op) {
    auto reject = [&](Type type) {
      if (std::optional<std::string> why = rejectType(type)) {
        op->emitError() << "gp-import: '" << op->getName() << "' " << *why;
        return true;
      }
      return false;
    };
    for (Type type : op->getOperandTypes())
      if (reject(type))
        return WalkResult::interrupt();
    for (Type type : op->getResultTypes())
      if (reject(type))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (reject(type))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

Type FunctionImporter::withDevice(Type type) const {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || isa_and_nonnull<DeviceAttr>(memref.getMemorySpace()))
    return type;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout(), defaultDevice);
}

void FunctionImporter::assignDevices() {
  function.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(withDevice(argument.getType()));
    for (Value result : op->getResults())
      result.setType(withDevice(result.getType()));
  });
}

LogicalResult FunctionImporter::updateFunctionType() {
  std::optional<SmallVector<Type>> results;
  WalkResult walk = function.walk([&](func::ReturnOp ret) {
    if (ret->getParentOp() != function)
      return WalkResult::advance();
    SmallVector<Type> types(ret.getOperandTypes());
    if (results && *results != types) {
      ret.emitError("gp-import: the function's returns give buffers of "
                    "different types; return one type from every return");
      return WalkResult::interrupt();
    }
    results = types;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  function.setType(FunctionType::get(
      function.getContext(), function.getBody().front().getArgumentTypes(),
      results ? *results : function.getFunctionType().getResults()));
  return success();
}
