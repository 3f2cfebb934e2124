//===- CallCheckArtifact.cpp - a hand-written artifact for bad calls ------===//
//
// A host artifact, as gp-compile would make one, for CallCheckTest.cpp: the
// checks a call makes of the caller's arrays and descriptors before its
// entry runs. Its entries read every argument and write every result
// through the pointers they are given, as compiled code does, so a call the
// checks let through with a null pointer would crash here:
//
//   scale(x: f32[?], w: f32[4] (parameter w), k: index, m: f32[?] on meta)
//       -> (y = x * w[i % 4] * k, k)
//   answer() -> 42 (an index)
//   weights(w: f32[4] (parameter w)) -> w + 1
//   rows(t: f32[?, ?, ?] strided, g: f32[?, ?, ?] (parameter grid))
//       -> t's rows + g's rows (an index)
//
// Every entry counts its calls in gp_test_call_check_calls, so a test can
// tell that a call failing its checks ran nothing.
//
//===----------------------------------------------------------------------===//

#include "TestArtifact.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstring>
#include <vector>


namespace {

struct Cube {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
};
struct Vector {
  float *allocated, *aligned;
  int64_t offset, size, stride;
  float &operator[](int64_t i) const { return aligned[offset + i * stride]; }
};

// Per-thread result storage.
thread_local std::vector<float> scaled, plusOne;

void describe(void *result, std::vector<float> &data) {
  Vector out{data.data(), data.data(), 0, static_cast<int64_t>(data.size()),
             1};
  std::memcpy(result, &out, sizeof(out));
}

} // namespace

GP_EXPORT const char gp_manifest[] = R"(graphpart-artifact 2
target host
arena 0
host-arena 0
generators 0
seed 0
device 0
warmup-runs 1
capture-sizes -
shape-warning-limit 8
or-error 0
entry scale 4 2
arg memref f32 1 ? cpu
arg memref f32 1 4 cpu parameter w
arg index
arg memref f32 1 ? meta
result memref f32 1 ? cpu
result index
entry answer 0 1
result index
entry weights 1 1
arg memref f32 1 4 cpu parameter w
result memref f32 1 4 cpu
entry rows 2 1
arg memref f32 3 ? ? ? cpu strided
arg memref f32 3 ? ? ? cpu parameter grid
result index
)";

GP_EXPORT int64_t gp_test_call_check_calls = 0;

GP_EXPORT gpRtStatus gp_entry_scale(gpRtProgram *, void **args,
                                    void **results) {
  __atomic_add_fetch(&gp_test_call_check_calls, 1, __ATOMIC_RELAXED);
  const auto &x = *static_cast<const Vector *>(args[0]);
  const auto &w = *static_cast<const Vector *>(args[1]);
  int64_t k = *static_cast<const int64_t *>(args[2]);
  const auto &m = *static_cast<const Vector *>(args[3]);
  (void)m.size; // Sizes only.
  scaled.assign(x.size, 0);
  for (int64_t i = 0; i < x.size; ++i)
    scaled[i] = x[i] * w[i % 4] * static_cast<float>(k);
  describe(results[0], scaled);
  std::memcpy(results[1], &k, sizeof(k));
  return GP_RT_SUCCESS;
}

GP_EXPORT gpRtStatus gp_entry_answer(gpRtProgram *, void **, void **results) {
  __atomic_add_fetch(&gp_test_call_check_calls, 1, __ATOMIC_RELAXED);
  int64_t answer = 42;
  std::memcpy(results[0], &answer, sizeof(answer));
  return GP_RT_SUCCESS;
}

GP_EXPORT gpRtStatus gp_entry_weights(gpRtProgram *, void **args,
                                      void **results) {
  __atomic_add_fetch(&gp_test_call_check_calls, 1, __ATOMIC_RELAXED);
  const auto &w = *static_cast<const Vector *>(args[0]);
  plusOne.assign(4, 0);
  for (int64_t i = 0; i < 4; ++i)
    plusOne[i] = w[i] + 1;
  describe(results[0], plusOne);
  return GP_RT_SUCCESS;
}

GP_EXPORT gpRtStatus gp_entry_rows(gpRtProgram *, void **args,
                                   void **results) {
  __atomic_add_fetch(&gp_test_call_check_calls, 1, __ATOMIC_RELAXED);
  const auto &t = *static_cast<const Cube *>(args[0]);
  const auto &g = *static_cast<const Cube *>(args[1]);
  int64_t rows = t.sizes[0] + g.sizes[0];
  std::memcpy(results[0], &rows, sizeof(rows));
  return GP_RT_SUCCESS;
}
