//===- TestExterns.cpp - a user extern library for the runtime tests ------===//

#include "GraphPart/Runtime/GPRuntime.h"

namespace {
/// mylib::scale(float *x, int64 n, float factor): x *= factor, on the host.
gpRtStatus scale(gpRtStream *, void **args, int32_t numArgs) {
  if (numArgs != 3)
    return GP_RT_ERROR_INVALID_ARGUMENT;
  float *x = *static_cast<float **>(args[0]);
  int64_t n = *static_cast<int64_t *>(args[1]);
  float factor = *static_cast<float *>(args[2]);
  for (int64_t i = 0; i < n; ++i)
    x[i] *= factor;
  return GP_RT_SUCCESS;
}
} // namespace

extern "C" __attribute__((visibility("default"))) void gp_register_externs(
    gpRtStatus (*reg)(const char *, gpRtExternFn, int32_t)) {
  reg("mylib::scale", scale, /*capturable=*/1);
}
