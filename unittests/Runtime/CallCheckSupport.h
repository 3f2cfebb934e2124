//===- CallCheckSupport.h - the call-check artifact's counter ---*- C++ -*-===//
//
// What the tests of the hand-written artifact CallCheckArtifact.cpp share.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_UNITTESTS_RUNTIME_CALLCHECKSUPPORT_H
#define GRAPHPART_UNITTESTS_RUNTIME_CALLCHECKSUPPORT_H

#include <dlfcn.h>

#include <cstdint>

namespace gp::test {

/// The artifact's entries' call counter, read through its own image: the
/// runtime's dlopen hands back the same one, and this handle keeps it
/// mapped after the runtime unloads the artifact. Null when it cannot be
/// opened (dlerror() says why).
inline int64_t *callCounter() {
  static int64_t *counter = [] {
    void *handle = dlopen(GP_TEST_CALL_CHECK_ARTIFACT, RTLD_NOW | RTLD_LOCAL);
    return handle ? static_cast<int64_t *>(
                        dlsym(handle, "gp_test_call_check_calls"))
                  : nullptr;
  }();
  return counter;
}

} // namespace gp::test

#endif // GRAPHPART_UNITTESTS_RUNTIME_CALLCHECKSUPPORT_H
