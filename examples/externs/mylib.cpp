//===- mylib.cpp - the examples' custom ops, as a user extern library -----===//
//
// Loaded with `gp-run --extern-lib`; binds the fallback ops of
// examples/mutating_multi_output.mlir and examples/padded_mask.mlir. Both
// work on either backend through the runtime's stream-ordered copies.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstring>
#include <vector>

namespace {

gpRtMemRef *buffer(void *arg) { return static_cast<gpRtMemRef *>(arg); }

char *elements(gpRtMemRef *ref, int64_t elementBytes) {
  return static_cast<char *>(ref->aligned) + ref->offset * elementBytes;
}

/// mylib::op1(t: f32[n]) -> (a, b), mutating t: a = t; t = t with its two
/// halves swapped; b = t. Only device-to-device copies, so it can be
/// captured on the cuda backend.
gpRtStatus op1(gpRtStream *stream, void **args, int32_t numArgs) {
  if (numArgs != 3)
    return GP_RT_ERROR_INVALID_ARGUMENT;
  gpRtMemRef *t = buffer(args[0]), *a = buffer(args[1]), *b = buffer(args[2]);
  int64_t n = t->shape[0], half = n / 2, bytes = n * 4;
  if (n % 2 != 0 || a->shape[0] != n || b->shape[0] != n)
    return GP_RT_ERROR_INVALID_ARGUMENT;
  char *pt = elements(t, 4), *pa = elements(a, 4), *pb = elements(b, 4);
  gpRtCopyKind d2d = GP_RT_COPY_PROGRAM_TO_PROGRAM;
  if (gpRtStatus s = gpRtCopy(stream, pa, pt, bytes, d2d))
    return s;
  if (gpRtStatus s = gpRtCopy(stream, pt, pa + half * 4, half * 4, d2d))
    return s;
  if (gpRtStatus s = gpRtCopy(stream, pt + half * 4, pa, half * 4, d2d))
    return s;
  return gpRtCopy(stream, pb, pt, bytes, d2d);
}

/// mylib::create_mask(padded, original) -> i1[padded]: true for the first
/// `original` positions. Its size is known only at run time, so it
/// allocates its result.
gpRtStatus createMask(gpRtStream *stream, void **args, int32_t numArgs) {
  if (numArgs != 3)
    return GP_RT_ERROR_INVALID_ARGUMENT;
  int64_t padded = *static_cast<int64_t *>(args[0]);
  int64_t original = *static_cast<int64_t *>(args[1]);
  gpRtMemRef *mask = buffer(args[2]);
  void *memory = nullptr;
  if (gpRtStatus s = gpRtAllocate(stream, padded, &memory))
    return s;
  mask->allocated = mask->aligned = memory;
  mask->offset = 0;
  mask->shape[0] = padded;
  mask->shape[1] = 1;
  std::vector<char> values(padded, 0);
  for (int64_t i = 0; i < original && i < padded; ++i)
    values[i] = 1;
  return gpRtCopy(stream, memory, values.data(), padded,
                  GP_RT_COPY_HOST_TO_PROGRAM);
}

} // namespace

extern "C" void gp_register_externs(gpRtStatus (*reg)(const char *,
                                                      gpRtExternFn, int32_t)) {
  reg("mylib::op1", op1, /*capturable=*/1);
  reg("mylib::create_mask", createMask, /*capturable=*/0);
}
