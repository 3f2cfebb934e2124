//===- TestOldExterns.cpp - an extern library of another ABI version ------===//
//
// Says it was built against extern ABI version 1: the runtime must refuse it
// before calling gp_register_externs, whose signature differed then.
//
//===----------------------------------------------------------------------===//

#include <cstdint>

extern "C" __attribute__((visibility("default"))) int32_t
gp_extern_abi_version(void) {
  return 1;
}

extern "C" __attribute__((visibility("default"))) void gp_register_externs() {
  __builtin_trap(); // Never called: the version check comes first.
}
