//===- GPDialect.cpp - GraphPart dialect ----------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"

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
  // The checked mode's bookkeeping (gp-check-bounds): which input of a
  // partition is the bounds flag, and the function's checked kernels.
  if (attr.getName() == "gp.bounds_flag") {
    auto partition = dyn_cast<PartitionOp>(op);
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    if (!partition || !index || index.getInt() < 0 ||
        index.getInt() >= static_cast<int64_t>(partition.getInputs().size()))
      return op->emitError() << "'gp.bounds_flag' belongs on a gp.partition "
                                "and names one of its inputs";
    return success();
  }
  if (attr.getName() == "gp.bounds_kernels") {
    if (!isa<FunctionOpInterface>(op) || !isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'gp.bounds_kernels' belongs on a function "
                                "and is a string";
    return success();
  }
  // gp-import's annotations of upstream functions: a function's default
  // device and symint bounds, an external declaration's op schema. Their
  // values are checked against the calls by gp-import.
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  std::optional<bool> wellFormed;
  if (name == "gp.default_device")
    wellFormed = isa<DeviceAttr>(value);
  else if (name == "gp.symint_min" || name == "gp.symint_max")
    wellFormed = isa<IntegerAttr>(value);
  else if (name == "gp.op_name")
    wellFormed = isa<StringAttr>(value);
  else if (name == "gp.mutates" || name == "gp.aliases")
    wellFormed = isa<ArrayAttr, DenseI64ArrayAttr>(value);
  else if (name == "gp.tags")
    wellFormed = isa<ArrayAttr>(value);
  else if (name == "gp.rng")
    wellFormed = isa<StringAttr>(value);
  if (wellFormed) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name << "' belongs on a function";
    if (!*wellFormed)
      return op->emitError()
             << "'" << name << "' must be "
             << llvm::StringSwitch<StringRef>(name)
                    .Case("gp.default_device", "a #gp.device attribute")
                    .Case("gp.op_name", "a string \"ns::op\"")
                    .Case("gp.rng", "a string, \"uniform\" or \"normal\"")
                    .Case("gp.tags", "an array of strings")
                    .StartsWith("gp.symint", "an integer")
                    .Default("an array of integers")
             << ", got " << value;
    return success();
  }
  if (attr.getName() != getArenasAttrName())
    return op->emitError() << "unknown gp attribute '"
                           << attr.getName().getValue() << "'";
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
      return op->emitError()
             << "'" << getArenasAttrName()
             << "' must be an array of #gp.arena, got " << element;
    if (!devices.insert(arena.getDevice()).second)
      return op->emitError()
             << "two arenas for device " << arena.getDevice().str();
  }
  return success();
}
