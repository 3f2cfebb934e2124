//===- mylib.cpp - the examples' custom ops, as a user extern library -----===//
//
// Loaded with `gp-run --extern-lib`; binds the fallback ops of
// examples/mutating_multi_output.mlir and examples/padded_mask.mlir. Both
// work on either backend through the runtime's stream-ordered copies. Each
// checks what it is given (argInfo) and says what it refuses; each states
// its schema, which the runtime compares with the IR's when an artifact
// loads.
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
gpRtStatus op1(gpRtStream *stream, void **args, const gpRtExternArg *argInfo,
               int32_t numArgs) {
  bool fits = numArgs == 3;
  for (int32_t i = 0; fits && i < 3; ++i)
    fits = argInfo[i].kind == GP_RT_EXTERN_ARG_BUFFER && argInfo[i].rank == 1 &&
           argInfo[i].elementType == GP_RT_ELEMENT_F32;
  if (!fits)
    return gpRtSetError(GP_RT_ERROR_INVALID_ARGUMENT,
                        "mylib::op1 takes one rank-1 f32 buffer and returns "
                        "two");
  gpRtMemRef *t = buffer(args[0]), *a = buffer(args[1]), *b = buffer(args[2]);
  int64_t n = t->shape[0], half = n / 2, bytes = n * 4;
  if (n % 2 != 0 || a->shape[0] != n || b->shape[0] != n)
    return gpRtSetError(GP_RT_ERROR_INVALID_ARGUMENT,
                        "mylib::op1: its buffers must have one even size");
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
gpRtStatus createMask(gpRtStream *stream, void **args,
                      const gpRtExternArg *argInfo, int32_t numArgs) {
  if (numArgs != 3 || argInfo[0].kind != GP_RT_EXTERN_ARG_SCALAR ||
      argInfo[1].kind != GP_RT_EXTERN_ARG_SCALAR ||
      argInfo[2].kind != GP_RT_EXTERN_ARG_BUFFER || argInfo[2].rank != 1 ||
      argInfo[2].elementType != GP_RT_ELEMENT_I1)
    return gpRtSetError(GP_RT_ERROR_INVALID_ARGUMENT,
                        "mylib::create_mask takes (index, index) and returns "
                        "a rank-1 i1 buffer");
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

GP_RT_DEFINE_EXTERN_ABI_VERSION

extern "C" gpRtStatus
gp_register_externs(gpRtStatus (*reg)(const gpRtExternSpec *)) {
  gpRtExternSpec op1Spec{};
  op1Spec.abiVersion = GP_RT_EXTERN_ABI_VERSION;
  op1Spec.flags = GP_RT_EXTERN_CAPTURABLE;
  op1Spec.name = "mylib::op1";
  op1Spec.fn = op1;
  op1Spec.mutates = "0";
  op1Spec.aliases = "-,-";
  if (gpRtStatus status = reg(&op1Spec))
    return status;
  gpRtExternSpec maskSpec{};
  maskSpec.abiVersion = GP_RT_EXTERN_ABI_VERSION;
  maskSpec.flags = 0; // Its result's size is data-dependent: not captured.
  maskSpec.name = "mylib::create_mask";
  maskSpec.fn = createMask;
  maskSpec.mutates = "";
  maskSpec.aliases = "-";
  return reg(&maskSpec);
}
