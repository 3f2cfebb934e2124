//===- GPDialect.cpp - GraphPart dialect ----------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::gp;

#include "GraphPart/Dialect/GP/IR/GPDialect.cpp.inc"

namespace {
/// Prints `#gp.device<cuda:0>` as `#cuda0`, so memref types stay readable.
struct GPOpAsmDialectInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (auto device = dyn_cast<DeviceAttr>(attr)) {
      os << stringifyDeviceKind(device.getKind());
      if (device.isCuda())
        os << device.getIndex();
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void GPDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "GraphPart/Dialect/GP/IR/GPOps.cpp.inc"
      >();
  addInterfaces<GPOpAsmDialectInterface>();
}

LogicalResult GPDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  if (attr.getName() != getArenasAttrName())
    return op->emitError() << "unknown gp attribute '"
                           << attr.getName().getValue()
                           << "'";
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << getArenasAttrName()
                           << "' belongs on a function";
  auto arenas = dyn_cast<ArrayAttr>(attr.getValue());
  if (!arenas)
    return op->emitError() << "'" << getArenasAttrName()
                           << "' must be an array of #gp.arena";
  llvm::DenseSet<Attribute> devices;
  for (Attribute element : arenas) {
    auto arena = dyn_cast<ArenaAttr>(element);
    if (!arena)
      return op->emitError() << "'" << getArenasAttrName()
                             << "' must be an array of #gp.arena, got "
                             << element;
    if (!devices.insert(arena.getDevice()).second)
      return op->emitError() << "two arenas for device "
                             << arena.getDevice().str();
  }
  return success();
}
