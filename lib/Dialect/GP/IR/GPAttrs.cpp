//===- GPAttrs.cpp - GraphPart attributes and types -----------------------===//

#include "GraphPart/Dialect/GP/IR/GPAttrs.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Dialect/GP/IR/GPTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

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
