//===- ImportWeights.cpp - gp-import: large constants as weights ----------===//
//
// With the weights-dir option, constants too large to be written element
// by element become parameters of the function: arguments tagged
// `gp.parameter = "<global>"`, so the runtime binds them by name. Their
// data is written as `<dir>/<global>.npy` (what `gp-run --parameters DIR`
// binds by name), with `<dir>/<function>.weights` listing each function's
// weight arguments in order (`gp-run --weights DIR`).
//
//===----------------------------------------------------------------------===//

#include "ImportInternal.h"

#include "llvm/Support/FileSystem.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::importer;

/// The dtype `numpy.save` writes for `type`, if `.npy` files hold it.
static std::optional<StringRef> npyDescr(Type type) {
  if (type.isF64())
    return StringRef("<f8");
  if (type.isF32())
    return StringRef("<f4");
  if (type.isF16())
    return StringRef("<f2");
  if (type.isBF16())
    return StringRef("<u2"); // gp-run reads bf16 bits as uint16.
  if (type.isInteger(64))
    return StringRef("<i8");
  if (type.isInteger(32))
    return StringRef("<i4");
  if (type.isInteger(16))
    return StringRef("<i2");
  if (type.isInteger(8))
    return StringRef("|i1");
  return std::nullopt;
}

LogicalResult FunctionImporter::importWeight(memref::GetGlobalOp get,
                                             DenseElementsAttr data) {
  MemRefType type = get.getType();
  if (!npyDescr(type.getElementType()) || !type.hasStaticShape())
    return get.emitError()
           << "gp-import: weight '" << get.getName() << "' of type " << type
           << " cannot be written as .npy (f64, f32, f16, bf16 and i8 to "
              "i64 can)";
  StringRef name = get.getName();
  Value argument = weightArguments.lookup(name);
  if (!argument) {
    MLIRContext *context = function.getContext();
    StringRef attrName = GPDialect::getParameterAttrName();
    if (!GPDialect::isValidParameterName(name))
      return get.emitError()
             << "gp-import: weight '" << name
             << "' cannot name a parameter (a name holds no whitespace or "
                "control characters); rename the global";
    // The parameter's name is the global's: one the program already has
    // would bind two buffers to one name.
    for (unsigned index = 0, e = function.getNumArguments(); index < e;
         ++index) {
      auto existing = function.getArgAttrOfType<StringAttr>(index, attrName);
      if (existing && existing.getValue() == name) {
        InFlightDiagnostic diag = get.emitError()
                                  << "gp-import: weight global @" << name
                                  << " would become parameter \"" << name
                                  << "\", but argument " << index << " of @"
                                  << function.getSymName()
                                  << " is already parameter \"" << name << "\"";
        diag.attachNote(function.getArgument(index).getLoc())
            << "argument " << index << " is parameter \"" << name << "\"";
        return diag;
      }
    }
    unsigned index = function.getNumArguments();
    auto attrs = DictionaryAttr::get(
        context, {NamedAttribute(StringAttr::get(context, attrName),
                                 StringAttr::get(context, name))});
    if (failed(function.insertArgument(index, type, attrs, get.getLoc())))
      return get.emitError("gp-import: could not add a weight argument");
    argument = function.getArgument(index);
    weightArguments[name] = argument;
    weights.data.insert({name, data});
    weights.arguments[function.getSymName()].push_back(name);
  }
  replace(get, argument);
  return success();
}

LogicalResult Weights::write(ModuleOp module) const {
  if (dir.empty())
    return success();
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return module.emitError() << "gp-import: cannot create weights-dir '"
                              << dir << "': " << error.message();
  auto writeFile = [&](const Twine &path,
                       llvm::function_ref<void(raw_ostream &)> body) {
    std::error_code error;
    llvm::raw_fd_ostream os(path.str(), error);
    if (error)
      return LogicalResult(module.emitError()
                           << "gp-import: cannot write '" << path.str()
                           << "': " << error.message());
    body(os);
    return success();
  };
  for (const auto &entry : data) {
    StringRef name = entry.first;
    DenseElementsAttr values = entry.second;
    auto type = cast<ShapedType>(values.getType());
    std::string header = "{'descr': '" +
                         npyDescr(type.getElementType())->str() +
                         "', 'fortran_order': False, 'shape': (";
    for (int64_t size : type.getShape())
      header += std::to_string(size) + ", ";
    header += "), }";
    // Magic, version 1.0, a little-endian length; data 64-byte aligned.
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    if (failed(writeFile(dir + "/" + name + ".npy", [&](raw_ostream &os) {
          os << "\x93NUMPY" << '\x01' << '\x00';
          uint16_t length = header.size();
          os << static_cast<char>(length & 0xff)
             << static_cast<char>(length >> 8) << header;
          ArrayRef<char> raw = values.getRawData();
          os.write(raw.data(), raw.size());
        })))
      return failure();
  }
  for (const auto &entry : arguments)
    if (failed(writeFile(dir + "/" + entry.first + ".weights",
                         [&](raw_ostream &os) {
                           for (StringRef name : entry.second)
                             os << name << ".npy\n";
                         })))
      return failure();
  return success();
}
