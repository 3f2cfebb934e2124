//===- GPDialect.cpp - GraphPart dialect ----------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <tuple>

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

/// `gp.size_classes` on a function: each member names an argument or
/// result of the function and one of its dynamic dimensions (or, for an
/// argument, an `index` argument), and no dimension is in two classes.
static LogicalResult verifySizeClasses(Operation *op, Attribute value) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto classes = dyn_cast<ArrayAttr>(value);
  if (!function || !classes ||
      !llvm::all_of(classes, llvm::IsaPred<SizeClassAttr>))
    return op->emitError() << "'" << GPDialect::getSizeClassesAttrName()
                           << "' belongs on a function and is an array of "
                              "#gp.size_class";
  ArrayRef<Type> argumentTypes = function.getArgumentTypes();
  ArrayRef<Type> resultTypes = function.getResultTypes();
  llvm::DenseSet<std::tuple<int64_t, int64_t, int64_t>> seen;
  for (auto sizeClass : classes.getAsRange<SizeClassAttr>()) {
    for (auto [isResult, pairs, types] :
         {std::tuple{false, sizeClass.getArguments().asArrayRef(),
                     argumentTypes},
          std::tuple{true, sizeClass.getResults().asArrayRef(), resultTypes}})
      for (size_t i = 0; i < pairs.size(); i += 2) {
        int64_t index = pairs[i], dim = pairs[i + 1];
        const char *what = isResult ? "result" : "argument";
        auto complain = [&]() {
          return op->emitError()
                 << "size class '" << sizeClass.getName().getValue()
                 << "' names " << what << " " << index << " dimension " << dim
                 << ", ";
        };
        if (index >= static_cast<int64_t>(types.size()))
          return complain() << "which the function does not have";
        Type type = types[index];
        if (dim < 0) {
          if (!isa<IndexType>(type))
            return complain() << "but that " << what << " is not an index";
        } else {
          auto memref = dyn_cast<MemRefType>(type);
          if (!memref || dim >= memref.getRank() || !memref.isDynamicDim(dim))
            return complain() << "which is not a dynamic dimension";
        }
        if (!seen.insert({isResult ? 1 : 0, index, dim}).second)
          return complain() << "which another size class also names";
      }
  }
  return success();
}

/// `gp.index_checks`: on a function with a body, an array of non-empty
/// one-line strings, and the function takes the index-error flag: a mutable
/// parameter of one i64.
static LogicalResult verifyIndexChecks(Operation *op, NamedAttribute attr) {
  StringRef attrName = GPDialect::getIndexChecksAttrName();
  auto function = dyn_cast<func::FuncOp>(op);
  if (!function || function.isExternal())
    return op->emitError() << "'" << attrName
                           << "' belongs on a func.func with a body";
  auto checks = dyn_cast<ArrayAttr>(attr.getValue());
  if (!checks || checks.empty() ||
      !llvm::all_of(checks, [](Attribute check) {
        auto text = dyn_cast<StringAttr>(check);
        return text && !text.getValue().empty() &&
               !text.getValue().contains('\n');
      }))
    return op->emitError() << "'" << attrName
                           << "' must be a non-empty array of one-line "
                              "strings (each check's description), got "
                           << attr.getValue();
  StringRef flagName = GPDialect::getIndexErrorsParameterName();
  for (unsigned index = 0, e = function.getNumArguments(); index < e;
       ++index) {
    auto name = function.getArgAttrOfType<StringAttr>(
        index, GPDialect::getParameterAttrName());
    if (!name || name.getValue() != flagName)
      continue;
    auto type = dyn_cast<ShapedType>(function.getArgumentTypes()[index]);
    if (!function.getArgAttr(index, GPDialect::getMutableAttrName()) ||
        !type || !type.hasStaticShape() ||
        type.getRank() != 1 || type.getNumElements() != 1 ||
        !type.getElementType().isInteger(64))
      return op->emitError()
             << "parameter \"" << flagName << "\" (argument " << index
             << ") must be a gp.mutable buffer or tensor of one i64, got "
             << function.getArgumentTypes()[index];
    return success();
  }
  return op->emitError() << "'" << attrName << "' needs the flag its checks "
                         << "write: a gp.mutable parameter \"" << flagName
                         << "\" of one i64";
}

LogicalResult GPDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  if (attr.getName() == getParameterAttrName() ||
      attr.getName() == getMutableAttrName())
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' belongs on a function argument (an argument "
                              "attribute of a func.func), not on an operation";
  if (attr.getName() == getIndexChecksAttrName())
    return verifyIndexChecks(op, attr);
  if (attr.getName() == getInitialValuesAttrName()) {
    auto values = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !values)
      return op->emitError() << "'" << getInitialValuesAttrName()
                             << "' belongs on a module: a dictionary from "
                                "state's parameter names to their initial "
                                "elements";
    for (NamedAttribute entry : values) {
      auto elements = dyn_cast<ElementsAttr>(entry.getValue());
      if (!isValidParameterName(entry.getName().getValue()) || !elements ||
          !elements.getShapedType().hasStaticShape() ||
          elements.getElementType().isInteger(1))
        return op->emitError()
               << "'" << getInitialValuesAttrName() << "': " << entry.getName()
               << " must name a parameter and give elements of a static "
                  "shape (not i1), got "
               << entry.getValue();
    }
    return success();
  }
  if (attr.getName() == getWritesParameterAttrName())
    return op->emitError() << "'" << getWritesParameterAttrName()
                           << "' belongs on a function result (a result "
                              "attribute of a func.func), not on an operation";
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
  if (attr.getName() == getSizeClassesAttrName())
    return verifySizeClasses(op, attr.getValue());
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

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

bool GPDialect::isValidParameterName(StringRef name) {
  return !name.empty() && llvm::none_of(name, [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return byte <= ' ' || byte == 0x7f;
  });
}

/// Where a diagnostic about argument `index` of `op` points: the argument
/// itself when the function has a body, else the function.
static Location argumentLoc(Operation *op, unsigned regionIndex,
                            unsigned index) {
  if (regionIndex < op->getNumRegions()) {
    Region &region = op->getRegion(regionIndex);
    if (!region.empty() && index < region.getNumArguments())
      return region.getArgument(index).getLoc();
  }
  return op->getLoc();
}

LogicalResult GPDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned regionIndex,
                                                  unsigned argIndex,
                                                  NamedAttribute attr) {
  Location loc = argumentLoc(op, regionIndex, argIndex);
  StringRef attrName = getParameterAttrName();
  if (attr.getName() == getMutableAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return emitError(loc) << "'" << getMutableAttrName()
                            << "' is a unit attribute, got " << attr.getValue();
    auto function = dyn_cast<func::FuncOp>(op);
    if (!function || !function.getArgAttr(argIndex, attrName))
      return emitError(loc) << "'" << getMutableAttrName()
                            << "' marks a parameter the program writes in "
                               "place; argument "
                            << argIndex << " has no '" << attrName << "'";
    return success();
  }
  if (attr.getName() != attrName)
    return emitError(loc) << "unknown gp argument attribute '"
                          << attr.getName().getValue() << "'";
  // A parameter is an input of a program function, which the runtime binds
  // by name: not of a kernel, an outlined body or a declaration.
  auto function = dyn_cast<func::FuncOp>(op);
  if (!function || function.isExternal() ||
      !isa_and_nonnull<ModuleOp>(op->getParentOp())) {
    InFlightDiagnostic diag = emitError(loc)
                              << "'" << attrName
                              << "' belongs on an argument of a top-level "
                                 "func.func with a body, not of ";
    if (!function)
      diag << "'" << op->getName() << "'";
    else if (function.isExternal())
      diag << "a declaration";
    else
      diag << "a func.func in '" << op->getParentOp()->getName() << "'";
    return diag;
  }
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name)
    return emitError(loc) << "'" << attrName
                          << "' must be a string (the parameter's name), got "
                          << attr.getValue();
  if (!isValidParameterName(name.getValue()))
    return emitError(loc) << "'" << attrName << "' name " << name
                          << " must be non-empty and hold no whitespace or "
                             "control characters";
  Type type = function.getArgumentTypes()[argIndex];
  if (!isa<MemRefType, RankedTensorType>(type))
    return emitError(loc) << "'" << attrName << "' " << name
                          << " belongs on a buffer (memref) or ranked tensor "
                             "argument; argument "
                          << argIndex << " has type " << type;

  // Each name once per function. The first parameter argument checks them
  // all (one pass with a map); the others only look back to it, so a
  // function of many parameters is not checked pairwise.
  for (unsigned other = 0; other < argIndex; ++other)
    if (function.getArgAttr(other, attrName))
      return success();
  llvm::StringMap<unsigned> seen;
  for (unsigned other = argIndex, e = function.getNumArguments(); other < e;
       ++other) {
    auto otherName = function.getArgAttrOfType<StringAttr>(other, attrName);
    if (!otherName)
      continue;
    auto [it, inserted] = seen.try_emplace(otherName.getValue(), other);
    if (!inserted)
      return emitError(argumentLoc(op, regionIndex, other))
             << "parameter " << otherName << " is named twice: arguments "
             << it->second << " and " << other;
  }
  return success();
}

LogicalResult GPDialect::verifyRegionResultAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned resultIndex,
                                                     NamedAttribute attr) {
  StringRef attrName = getWritesParameterAttrName();
  if (attr.getName() != attrName)
    return op->emitError() << "unknown gp result attribute '"
                           << attr.getName().getValue() << "'";
  auto function = dyn_cast<func::FuncOp>(op);
  if (!function || function.isExternal())
    return op->emitError() << "'" << attrName
                           << "' belongs on a result of a func.func with a "
                              "body";
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name)
    return op->emitError() << "'" << attrName
                           << "' must be a string (the name of a mutable "
                              "parameter), got "
                           << attr.getValue();
  std::optional<unsigned> argument;
  for (unsigned index = 0, e = function.getNumArguments(); index < e; ++index)
    if (function.getArgAttrOfType<StringAttr>(index, getParameterAttrName()) ==
        name)
      argument = index;
  if (!argument)
    return op->emitError() << "result " << resultIndex << " writes parameter "
                           << name << ", which no argument of @"
                           << function.getSymName() << " is";
  if (!function.getArgAttr(*argument, getMutableAttrName()))
    return op->emitError() << "result " << resultIndex << " writes parameter "
                           << name << " (argument " << *argument
                           << "), which is not marked '"
                           << getMutableAttrName() << "'";
  Type resultType = function.getResultTypes()[resultIndex];
  Type argumentType = function.getArgumentTypes()[*argument];
  if (resultType != argumentType)
    return op->emitError() << "result " << resultIndex << " of type "
                           << resultType << " writes parameter " << name
                           << " (argument " << *argument << ") of type "
                           << argumentType
                           << ": a parameter's new value has its type";
  for (unsigned other = 0; other < resultIndex; ++other)
    if (function.getResultAttrOfType<StringAttr>(other, attrName) == name)
      return op->emitError() << "parameter " << name
                             << " is written by results " << other << " and "
                             << resultIndex;
  return success();
}
