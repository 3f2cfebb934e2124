//===- Externs.cpp - the registry of external ops -------------------------===//
//
// gp.fallback ops call into this registry by name. Built in: the matmuls
// of Matmul.cpp (gp::matmul, aten::mm, aten::bmm, aten::addmm), cuBLAS on
// the cuda backend and loops on the host backend, and the fused
// gp::attention of Attention.cpp. Users add their own with
// gpRtRegisterExtern or from a shared library (gpRtLoadExternLibrary), both
// checked against GP_RT_EXTERN_ABI_VERSION. When an artifact loads, what its
// IR states of each extern is compared with the registration
// (checkExternStatement).
//
//===----------------------------------------------------------------------===//

#include "Attention.h"
#include "Matmul.h"
#include "RuntimeInternal.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

using namespace gp::rt;

namespace {

struct Extern {
  gpRtExternFn fn;
  bool capturable;
  /// What it captures holds addresses the runtime cannot re-bind.
  bool fixedAddresses = false;
  /// Built-ins: picks `fn` from the arguments (Matmul.h).
  ExternSelector select = nullptr;
  /// The schema the registration states, if it does (-1: a fresh result).
  std::optional<std::vector<int64_t>> mutates, aliases;
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, Extern> externs;
};

Registry &registry() {
  static Registry instance;
  return instance;
}

/// Registers the built-ins once.
void ensureBuiltins() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const BuiltinExtern &builtin : matmulExterns())
      registry().externs[builtin.name] = {
          nullptr, true, false, builtin.select, std::nullopt, std::nullopt};
    // Its result is always a fresh buffer, which the compiler plans.
    const BuiltinExtern &attention = attentionExtern();
    registry().externs[attention.name] = {nullptr,
                                          true,
                                          false,
                                          attention.select,
                                          std::vector<int64_t>{},
                                          std::vector<int64_t>{-1}};
    // It writes its last operand, whose index depends on the mask: not
    // stated.
    const BuiltinExtern &into = attentionIntoExtern();
    registry().externs[into.name] = {nullptr,     true,         false,
                                     into.select, std::nullopt, std::nullopt};
  });
}

/// The extern for `name`: an exact match, else `ns::op` for `ns::op.overload`.
const Extern *lookup(const std::string &name) {
  auto &externs = registry().externs;
  auto it = externs.find(name);
  if (it == externs.end()) {
    size_t dot = name.find('.');
    if (dot != std::string::npos)
      it = externs.find(name.substr(0, dot));
  }
  return it == externs.end() ? nullptr : &it->second;
}

bool isIdentifier(const std::string &text) {
  if (text.empty() ||
      !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_'))
    return false;
  for (char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

/// `ns::op` or `ns::op.overload`, as the IR names fallback ops.
bool isQualifiedOpName(const std::string &name) {
  size_t colons = name.find("::");
  if (colons == std::string::npos)
    return false;
  size_t dot = name.find('.', colons);
  std::string ns = name.substr(0, colons);
  std::string op =
      name.substr(colons + 2, dot == std::string::npos ? std::string::npos
                                                       : dot - colons - 2);
  return isIdentifier(ns) && isIdentifier(op) &&
         (dot == std::string::npos || isIdentifier(name.substr(dot + 1)));
}

std::string listText(const std::vector<int64_t> &list) {
  std::string text;
  for (size_t i = 0; i < list.size(); ++i)
    text += (i ? "," : "") +
            (list[i] < 0 ? std::string("-") : std::to_string(list[i]));
  return "[" + text + "]";
}

} // namespace

std::optional<std::vector<int64_t>>
gp::rt::parseIndexList(const std::string &text, bool allowFresh) {
  std::vector<int64_t> list;
  if (text.empty())
    return list;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    if (allowFresh && item == "-") {
      list.push_back(-1);
    } else {
      char *end = nullptr;
      errno = 0;
      long long value = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || *end || errno || value < 0 ||
          !std::isdigit(static_cast<unsigned char>(item[0])))
        return std::nullopt;
      list.push_back(value);
    }
    if (comma == std::string::npos)
      return list;
    start = comma + 1;
  }
}

gpRtStatus gp::rt::checkExternStatement(const ExternStatement &statement) {
  ensureBuiltins();
  std::string where =
      "extern '" + statement.name + "' (called at " + statement.location + ")";
  std::lock_guard<std::mutex> lock(registry().mutex);
  const Extern *entry = lookup(statement.name);
  if (!entry)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "the program calls " + where +
                    ", which is not registered: load the library that "
                    "defines it (gp-run --extern-lib, gpRtLoadExternLibrary) "
                    "or register it (gpRtRegisterExtern) before the artifact");
  if (entry->capturable != statement.capturable) {
    const char *program =
        statement.capturable
            ? "the program says it is capturable (its gp.fallback has no "
              "\"cudagraph_unsafe\" tag)"
            : "the program says it must not be captured (its gp.fallback is "
              "tagged \"cudagraph_unsafe\")";
    const char *registration =
        entry->capturable
            ? "its registration says it is capturable (GP_RT_EXTERN_CAPTURABLE)"
            : "its registration says it is not (no GP_RT_EXTERN_CAPTURABLE)";
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                where + ": " + program + ", " + registration +
                    ": make the tag and the registration agree");
  }
  if (entry->mutates && *entry->mutates != statement.mutates)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                where + ": the program says it mutates operands " +
                    listText(statement.mutates) + ", its registration says " +
                    listText(*entry->mutates));
  if (entry->aliases && *entry->aliases != statement.aliases)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                where + ": the program says its results alias " +
                    listText(statement.aliases) +
                    " (- is a fresh buffer), its registration says " +
                    listText(*entry->aliases));
  return GP_RT_SUCCESS;
}

std::string gp::rt::externArgumentsText(const gpRtExternArg *argInfo,
                                        int32_t numArgs) {
  std::string text = "(";
  for (int32_t i = 0; i < numArgs; ++i) {
    const char *type = gpRtElementTypeName(
        static_cast<gpRtElementType>(argInfo[i].elementType));
    text += (i ? ", " : "") + std::string(type ? type : "?");
    text += argInfo[i].kind == GP_RT_EXTERN_ARG_BUFFER
                ? " rank-" + std::to_string(argInfo[i].rank) + " buffer"
                : std::string(" scalar");
  }
  return text + ")";
}

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtRegisterExtern(const gpRtExternSpec *spec) {
  if (!spec)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtRegisterExtern: null spec");
  std::string name = spec->name ? spec->name : "";
  if (spec->abiVersion != GP_RT_EXTERN_ABI_VERSION)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRegisterExtern: extern '" + name +
                    "' was built against extern ABI version " +
                    std::to_string(spec->abiVersion) +
                    "; this runtime implements version " +
                    std::to_string(GP_RT_EXTERN_ABI_VERSION) +
                    ": rebuild it against this runtime's GPRuntime.h");
  if (!isQualifiedOpName(name) || !spec->fn)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRegisterExtern: extern '" + name +
                    "': the name must be 'namespace::op' or "
                    "'namespace::op.overload' and the function not null");
  constexpr int32_t known =
      GP_RT_EXTERN_CAPTURABLE | GP_RT_EXTERN_FIXED_ADDRESSES;
  if (spec->flags & ~known)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRegisterExtern: extern '" + name + "': unknown flags " +
                    std::to_string(spec->flags & ~known) +
                    " (known: GP_RT_EXTERN_CAPTURABLE = 1, "
                    "GP_RT_EXTERN_FIXED_ADDRESSES = 2)");
  Extern entry{spec->fn,
               (spec->flags & GP_RT_EXTERN_CAPTURABLE) != 0,
               (spec->flags & GP_RT_EXTERN_FIXED_ADDRESSES) != 0,
               nullptr,
               std::nullopt,
               std::nullopt};
  if (spec->mutates &&
      !(entry.mutates = parseIndexList(spec->mutates, /*allowFresh=*/false)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRegisterExtern: extern '" + name + "': mutates '" +
                    spec->mutates +
                    "' is not a comma-separated list of operand indices");
  if (spec->aliases &&
      !(entry.aliases = parseIndexList(spec->aliases, /*allowFresh=*/true)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRegisterExtern: extern '" + name + "': aliases '" +
                    spec->aliases +
                    "' is not a comma-separated list of operand indices "
                    "and '-' (a fresh result)");
  ensureBuiltins();
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().externs[name] = std::move(entry);
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtLoadExternLibrary(const char *path) {
  if (!path)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtLoadExternLibrary: null");
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("cannot load extern library '") + path +
                    "': " + dlerror());
  auto version =
      reinterpret_cast<int32_t (*)()>(dlsym(library, "gp_extern_abi_version"));
  if (!version)
    return fail(
        GP_RT_ERROR_INVALID_ARGUMENT,
        std::string("extern library '") + path +
            "' does not export gp_extern_abi_version: it predates "
            "extern ABI version " +
            std::to_string(GP_RT_EXTERN_ABI_VERSION) +
            " (or is not an extern library); rebuild it against this "
            "runtime's GPRuntime.h with GP_RT_DEFINE_EXTERN_ABI_VERSION");
  if (int32_t built = version(); built != GP_RT_EXTERN_ABI_VERSION)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("extern library '") + path +
                    "' was built against extern ABI version " +
                    std::to_string(built) + "; this runtime implements " +
                    std::to_string(GP_RT_EXTERN_ABI_VERSION));
  using Register = gpRtStatus (*)(const gpRtExternSpec *);
  auto entry = reinterpret_cast<gpRtStatus (*)(Register)>(
      dlsym(library, "gp_register_externs"));
  if (!entry)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("extern library '") + path +
                    "' does not export gp_register_externs");
  if (gpRtStatus status = entry(gpRtRegisterExtern))
    return fail(status,
                std::string("extern library '") + path +
                    "': registering its externs failed: " + gpRtGetLastError());
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtCallExtern(gpRtStream *stream, const char *name,
                                       void **args,
                                       const gpRtExternArg *argInfo,
                                       int32_t numArgs) {
  if (!stream || !name || numArgs < 0 || (numArgs > 0 && (!args || !argInfo)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCallExtern: null stream, name or arguments");
  if (!streamOnThisThread(stream))
    return fail(GP_RT_ERROR_WRONG_THREAD,
                "gpRtCallExtern: the stream belongs to another thread");
  ensureBuiltins();
  Extern found;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    const Extern *entry = lookup(name);
    if (!entry)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  std::string("no extern registered for '") + name + "'");
    found = *entry;
  }
  if (found.select)
    if (gpRtStatus status = found.select(argInfo, numArgs, found.fn))
      return status;
  if (streamIsCapturing(stream)) {
    if (!found.capturable)
      return fail(GP_RT_ERROR_NOT_CAPTURED,
                  std::string("extern '") + name +
                      "' cannot run inside a captured graph");
    if (found.fixedAddresses)
      markFixedAddresses(stream, std::string("extern '") + name +
                                     "' was registered with "
                                     "GP_RT_EXTERN_FIXED_ADDRESSES");
    if (streamBackend(stream) == GP_RT_BACKEND_HOST)
      return recordHostExtern(stream, found.fn, args, argInfo, numArgs);
  }
  // An extern that fails without saying why still names itself.
  fail(GP_RT_SUCCESS, "");
  gpRtStatus status = found.fn(stream, args, argInfo, numArgs);
  if (status && !*gpRtGetLastError())
    return fail(status, std::string("extern '") + name + "' failed (" +
                            gpRtStatusString(status) + ")");
  return status;
}

} // extern "C"
