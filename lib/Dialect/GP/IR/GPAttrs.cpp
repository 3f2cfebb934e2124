//===- GPAttrs.cpp - GraphPart attributes and types -----------------------===//

#include "GraphPart/Dialect/GP/IR/GPAttrs.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Dialect/GP/IR/GPTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <tuple>

using namespace mlir;
using namespace mlir::gp;

#include "GraphPart/Dialect/GP/IR/GPEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "GraphPart/Dialect/GP/IR/GPAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "GraphPart/Dialect/GP/IR/GPTypes.cpp.inc"

void GPDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "GraphPart/Dialect/GP/IR/GPAttrs.cpp.inc"
      >();
}

void GPDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "GraphPart/Dialect/GP/IR/GPTypes.cpp.inc"
      >();
}

DeviceAttr mlir::gp::getDevice(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref ? dyn_cast_or_null<DeviceAttr>(memref.getMemorySpace())
                : DeviceAttr();
}

Type mlir::gp::stripMemorySpace(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.getMemorySpace())
    return type;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout());
}

//===----------------------------------------------------------------------===//
// DeviceAttr
//===----------------------------------------------------------------------===//

// Syntax: `<cuda:N>`, `<cpu>` or `<meta>`.
Attribute DeviceAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  SMLoc kindLoc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return {};
  std::optional<DeviceKind> kind = symbolizeDeviceKind(keyword);
  if (!kind) {
    parser.emitError(kindLoc, "unknown device '")
        << keyword << "': expected 'cuda:N', 'cpu' or 'meta'";
    return {};
  }
  int64_t index = 0;
  if (*kind == DeviceKind::cuda) {
    if (parser.parseColon() || parser.parseInteger(index))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<DeviceAttr>(parser.getContext(), *kind, index);
}

void DeviceAttr::print(AsmPrinter &printer) const {
  printer << '<' << str() << '>';
}

std::string DeviceAttr::str() const {
  std::string result = stringifyDeviceKind(getKind()).str();
  if (isCuda())
    result += ":" + std::to_string(getIndex());
  return result;
}

LogicalResult
DeviceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   DeviceKind kind, int64_t index) {
  if (index < 0)
    return emitError() << "device index must be non-negative, got " << index;
  if (kind != DeviceKind::cuda && index != 0)
    return emitError() << "only cuda devices take an index";
  return success();
}

//===----------------------------------------------------------------------===//
// ArenaAttr
//===----------------------------------------------------------------------===//

LogicalResult ArenaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                DeviceAttr device, int64_t size) {
  if (size < 0)
    return emitError() << "arena size must be non-negative, got " << size;
  if (device.isMeta())
    return emitError() << "meta buffers hold no data and have no arena";
  return success();
}

LogicalResult
SizeClassAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringAttr name, DenseI64ArrayAttr arguments,
                      DenseI64ArrayAttr results, int64_t fixed,
                      int64_t maximum, StringAttr unpaddable) {
  if (!name || !GPDialect::isValidParameterName(name.getValue()))
    return emitError() << "size class name must be a non-empty word";
  if (arguments.size() % 2 || results.size() % 2)
    return emitError() << "size class members are (index, dimension) pairs";
  if (arguments.empty())
    return emitError() << "size class '" << name.getValue()
                       << "' has no argument member";
  for (auto [what, pairs, minDim] :
       {std::tuple{"argument", arguments.asArrayRef(), int64_t(-1)},
        std::tuple{"result", results.asArrayRef(), int64_t(0)}})
    for (size_t i = 0; i < pairs.size(); i += 2)
      if (pairs[i] < 0 || pairs[i + 1] < minDim)
        return emitError() << "size class '" << name.getValue() << "': bad "
                           << what << " member (" << pairs[i] << ", "
                           << pairs[i + 1] << ")";
  if (fixed < -1)
    return emitError() << "size class fixed size must be -1 or a size, got "
                       << fixed;
  if (maximum < -1)
    return emitError() << "size class maximum must be -1 or a size, got "
                       << maximum;
  if (!unpaddable)
    return emitError() << "size class needs an 'unpaddable' string";
  return success();
}
