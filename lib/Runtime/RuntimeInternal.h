//===- RuntimeInternal.h - shared runtime helpers ---------------*- C++ -*-===//
//
// What every runtime file needs: the export macro, error reporting, and what
// the extern registry may ask of a stream.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_RUNTIMEINTERNAL_H
#define GRAPHPART_LIB_RUNTIME_RUNTIMEINTERNAL_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#define GP_RT_EXPORT __attribute__((visibility("default")))

namespace gp::rt {

/// Records `message` as this thread's last error and returns `status`.
gpRtStatus fail(gpRtStatus status, std::string message);

/// Runs `body` behind the C ABI entry point `what`: an exception (out of
/// memory, say) becomes an error like any other instead of escaping.
template <typename Body> gpRtStatus guarded(const char *what, Body &&body) {
  try {
    return body();
  } catch (const std::exception &error) {
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": " + error.what());
  } catch (...) {
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": an unexpected error");
  }
}

/// What the extern registry needs to know of a stream.
gpRtBackend streamBackend(gpRtStream *stream);
bool streamIsCapturing(gpRtStream *stream);
bool streamOnThisThread(gpRtStream *stream);
void *streamCudaHandle(gpRtStream *stream);
/// A per-stream slot for a library handle (cuBLAS), released with the
/// stream through `release`.
void *&streamLibraryHandle(gpRtStream *stream);
void setStreamLibraryRelease(gpRtStream *stream, void (*release)(void *));
/// Notes that the capture in progress on `stream` holds addresses the
/// runtime cannot re-bind, and why (the first reason is kept).
void markFixedAddresses(gpRtStream *stream, std::string reason);
/// Host backend: records `fn(stream, copies of args)` into the graph being
/// captured on `stream`.
/// "(f32 rank-2 buffer, i64 scalar, ...)": what an extern call passed, for
/// the built-ins' errors.
std::string externArgumentsText(const gpRtExternArg *argInfo, int32_t numArgs);
gpRtStatus recordHostExtern(gpRtStream *stream, gpRtExternFn fn, void **args,
                            const gpRtExternArg *argInfo, int32_t numArgs);

/// What a program's IR states of an extern it calls (the manifest's
/// `extern` lines).
struct ExternStatement {
  std::string name;
  /// No "cudagraph_unsafe" tag.
  bool capturable = true;
  /// The operands it writes.
  std::vector<int64_t> mutates;
  /// Per result, the operand it is a view of, or -1 (a fresh buffer).
  std::vector<int64_t> aliases;
  /// Where the program calls it ("file:line:col", or "unknown").
  std::string location;
};

/// Fails, naming the op, where it is called and both statements, when
/// `statement.name` is not registered or its registration disagrees with
/// `statement` (capturability; mutates and aliases where the registration
/// states them).
gpRtStatus checkExternStatement(const ExternStatement &statement);

/// "0,2" (and "-" for -1 where `allowFresh`); "" is the empty list.
std::optional<std::vector<int64_t>> parseIndexList(const std::string &text,
                                                   bool allowFresh);

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_RUNTIMEINTERNAL_H
