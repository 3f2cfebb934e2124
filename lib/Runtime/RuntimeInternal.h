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
#include <string>

#define GP_RT_EXPORT __attribute__((visibility("default")))

namespace gp::rt {

/// Records `message` as this thread's last error and returns `status`.
gpRtStatus fail(gpRtStatus status, std::string message);

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
gpRtStatus recordHostExtern(gpRtStream *stream, gpRtExternFn fn, void **args,
                            const int64_t *argSizes, int32_t numArgs);

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_RUNTIMEINTERNAL_H
