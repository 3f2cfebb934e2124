//===- ExternTestSupport.h - registering and calling externs in tests -----===//
//
// What the runtime tests need to register externs (extern ABI version 2)
// and to call them as compiled code does, with each argument described.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_UNITTESTS_RUNTIME_EXTERNTESTSUPPORT_H
#define GRAPHPART_UNITTESTS_RUNTIME_EXTERNTESTSUPPORT_H

#include "GraphPart/Runtime/GPRuntime.h"

namespace gp::test {

inline gpRtExternSpec externSpec(const char *name, gpRtExternFn fn,
                                 int32_t flags) {
  gpRtExternSpec spec{};
  spec.abiVersion = GP_RT_EXTERN_ABI_VERSION;
  spec.flags = flags;
  spec.name = name;
  spec.fn = fn;
  return spec;
}

inline gpRtStatus registerExtern(const char *name, gpRtExternFn fn,
                                 int32_t flags) {
  gpRtExternSpec spec = externSpec(name, fn, flags);
  return gpRtRegisterExtern(&spec);
}

/// A gpRtMemRef of `rank` with `type` elements.
inline gpRtExternArg bufferArg(gpRtElementType type, int32_t rank,
                               int32_t isResult = 0) {
  return {GP_RT_MEMREF_BYTES(rank), GP_RT_EXTERN_ARG_BUFFER, type, rank,
          isResult};
}

/// A scalar of `bytes` bytes; the tests also pass raw pointers this way,
/// as i64.
inline gpRtExternArg scalarArg(gpRtElementType type, int64_t bytes = 8) {
  return {bytes, GP_RT_EXTERN_ARG_SCALAR, type, 0, 0};
}

} // namespace gp::test

#endif // GRAPHPART_UNITTESTS_RUNTIME_EXTERNTESTSUPPORT_H
