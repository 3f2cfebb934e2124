//===- Externs.cpp - the registry of external ops -------------------------===//
//
// gp.fallback ops call into this registry by name. Built in: the matmuls
// of Matmul.cpp (gp::matmul, aten::mm, aten::bmm, aten::addmm), cuBLAS on
// the cuda backend and loops on the host backend. Users add their own with
// gpRtRegisterExtern or from a shared library (gpRtLoadExternLibrary).
//
//===----------------------------------------------------------------------===//

#include "Matmul.h"
#include "RuntimeInternal.h"

#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>

using namespace gp::rt;

namespace {

struct Extern {
  gpRtExternFn fn;
  bool capturable;
  /// What it captures holds addresses the runtime cannot re-bind.
  bool fixedAddresses = false;
  /// Built-ins: picks `fn` from the arguments' sizes (Matmul.h).
  ExternSelector select = nullptr;
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
      registry().externs[builtin.name] = {nullptr, true, false, builtin.select};
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

} // namespace

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtRegisterExtern(const char *name, gpRtExternFn fn,
                                           int32_t flags) {
  if (!name || !*name || !fn)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRegisterExtern: empty name or null function");
  constexpr int32_t known =
      GP_RT_EXTERN_CAPTURABLE | GP_RT_EXTERN_FIXED_ADDRESSES;
  if (flags & ~known)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("gpRtRegisterExtern: extern '") + name +
                    "': unknown flags " + std::to_string(flags & ~known) +
                    " (known: GP_RT_EXTERN_CAPTURABLE = 1, "
                    "GP_RT_EXTERN_FIXED_ADDRESSES = 2)");
  ensureBuiltins();
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().externs[name] = {fn, (flags & GP_RT_EXTERN_CAPTURABLE) != 0,
                              (flags & GP_RT_EXTERN_FIXED_ADDRESSES) != 0};
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
  using Register = gpRtStatus (*)(const char *, gpRtExternFn, int32_t);
  auto entry = reinterpret_cast<void (*)(Register)>(
      dlsym(library, "gp_register_externs"));
  if (!entry)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("extern library '") + path +
                    "' does not export gp_register_externs");
  entry(gpRtRegisterExtern);
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtCallExtern(gpRtStream *stream, const char *name,
                                       void **args, const int64_t *argSizes,
                                       int32_t numArgs) {
  if (!stream || !name || numArgs < 0 || (numArgs > 0 && (!args || !argSizes)))
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
    if (gpRtStatus status = found.select(argSizes, numArgs, found.fn))
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
      return recordHostExtern(stream, found.fn, args, argSizes, numArgs);
  }
  return found.fn(stream, args, numArgs);
}

} // extern "C"
