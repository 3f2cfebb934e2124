//===- TestExterns.cpp - a user extern library for the runtime tests ------===//

#include "GraphPart/Runtime/GPRuntime.h"

namespace {
/// mylib::scale(float *x, int64 n, float factor): x *= factor, on the host.
gpRtStatus scale(gpRtStream *, void **args, const gpRtExternArg *argInfo,
                 int32_t numArgs) {
  if (numArgs != 3 || argInfo[2].elementType != GP_RT_ELEMENT_F32)
    return gpRtSetError(GP_RT_ERROR_INVALID_ARGUMENT,
                        "mylib::scale takes (x, n, f32 factor)");
  float *x = *static_cast<float **>(args[0]);
  int64_t n = *static_cast<int64_t *>(args[1]);
  float factor = *static_cast<float *>(args[2]);
  for (int64_t i = 0; i < n; ++i)
    x[i] *= factor;
  return GP_RT_SUCCESS;
}
} // namespace

GP_RT_DEFINE_EXTERN_ABI_VERSION

extern "C" __attribute__((visibility("default"))) gpRtStatus
gp_register_externs(gpRtStatus (*reg)(const gpRtExternSpec *)) {
  gpRtExternSpec spec{};
  spec.abiVersion = GP_RT_EXTERN_ABI_VERSION;
  spec.flags = GP_RT_EXTERN_CAPTURABLE;
  spec.name = "mylib::scale";
  spec.fn = scale;
  return reg(&spec);
}
