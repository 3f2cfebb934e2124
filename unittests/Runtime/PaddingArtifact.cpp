//===- PaddingArtifact.cpp - a hand-written artifact with size classes ----===//
//
// A host artifact, as gp-compile would make one, for PaddingTest.cpp: its
// manifest has `size` lines (size classes), and its entries, written here,
// show what a padded call hands them:
//
//   affine(x: f32[?, 4], w: f32[4]) -> 2 * x + w, row by row
//       rows (x dim 0, the result's dim 0), pad; a capturable partition
//       whose shape key is the number of rows
//   peek(x: f32[?, ?] strided, k: index) -> (x + 1, x as seen, k as seen)
//       rows (x dim 0, result 0 dim 0), cols (x dim 1, k, result 0 dim 1),
//       both pad; result 1 (x as the entry saw it) is in no class, so a test
//       sees the padded positions
//   divide(x: i32[?], d: i32[?]) -> x / d; fails on a zero divisor
//   total(x: f32[?]) -> sum of x; nopad (it reduces along the size)
//   pair(a: f32[?], b: f32[?], n: index) -> (a + b, n)
//       one class of a, b, n, the result and the index result
//   fixed16(a: f32[?], b: f32[?]) -> a + b; the program fixes the size at 16
//   masked(x: f32[?], m: f32[?] on meta) -> 3 * x; m carries a size only
//
// Every entry counts its calls in gp_test_padding_calls, so a test can tell
// that a call failing its checks ran nothing. The manifest is a writable
// array that gp_test_set_padding_manifest replaces (dlopen hands back the
// same image to a later gpRtArtifactLoad).
//
//===----------------------------------------------------------------------===//

#include "TestArtifact.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstring>
#include <vector>

namespace {

const char kManifest[] = R"(graphpart-artifact 2
target host
arena 256
host-arena 0
generators 0
seed 0
device 0
warmup-runs 1
capture-sizes -
shape-warning-limit 8
or-error 0
partition 0 capturable 1 -
entry affine 2 1
arg memref f32 2 ? 4 cpu
arg memref f32 1 4 cpu
result memref f32 2 ? 4 cpu
size rows ? a0.0,r0.0 pad
entry peek 2 3
arg memref f32 2 ? ? cpu strided
arg index
result memref f32 2 ? ? cpu
result memref f32 2 ? ? cpu
result index
size rows ? a0.0,r0.0 pad
size cols ? r0.1,a0.1,a1 pad
entry divide 2 1
arg memref i32 1 ? cpu
arg memref i32 1 ? cpu
result memref i32 1 ? cpu
size n ? a0.0,a1.0,r0.0 pad
entry total 1 1
arg memref f32 1 ? cpu
result memref f32 0 cpu
size n ? a0.0 nopad 'linalg.generic' in kernel 'sum' reduces along it
entry pair 3 2
arg memref f32 1 ? cpu
arg memref f32 1 ? cpu
arg index
result memref f32 1 ? cpu
result index
size s0 ? a0.0,a1.0,a2,r0.0,r1 pad
entry fixed16 2 1
arg memref f32 1 ? cpu
arg memref f32 1 ? cpu
result memref f32 1 ? cpu
size x 16 a0.0,a1.0,r0.0 pad
entry masked 2 1
arg memref f32 1 ? cpu
arg memref f32 1 ? meta
result memref f32 1 ? cpu
size n ? a0.0,a1.0,r0.0 pad
)";

template <typename T> struct Vector {
  T *allocated, *aligned;
  int64_t offset, size, stride;
  T &operator[](int64_t i) const { return aligned[offset + i * stride]; }
};
struct Matrix {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
  float at(int64_t i, int64_t j) const {
    return aligned[offset + i * strides[0] + j * strides[1]];
  }
};
struct Scalar {
  float *allocated, *aligned;
  int64_t offset;
};

template <typename T> void describe(void *result, T *data, int64_t size) {
  Vector<T> out{data, data, 0, size, 1};
  std::memcpy(result, &out, sizeof(out));
}
void describe(void *result, float *data, int64_t rows, int64_t cols) {
  Matrix out{data, data, 0, {rows, cols}, {cols, 1}};
  std::memcpy(result, &out, sizeof(out));
}

/// y = 2 * x + w on `rows` rows of 4: what affine's partition launches.
struct AffineLaunch {
  float *x, *w, *y;
  int64_t rows;
  static void kernel(void **params) {
    const float *x = *static_cast<float **>(params[0]);
    const float *w = *static_cast<float **>(params[1]);
    float *y = *static_cast<float **>(params[2]);
    int64_t rows = *static_cast<int64_t *>(params[3]);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < 4; ++j)
        y[i * 4 + j] = 2 * x[i * 4 + j] + w[j];
  }
  static gpRtStatus body(gpRtStream *stream, void *data) {
    auto *self = static_cast<AffineLaunch *>(data);
    void *y = nullptr;
    if (gpRtStatus status = gpRtAllocate(stream, self->rows * 16, &y))
      return status;
    self->y = static_cast<float *>(y);
    void *params[] = {&self->x, &self->w, &self->y, &self->rows};
    int64_t sizes[] = {8, 8, 8, 8};
    return gpRtLaunchHostKernel(stream, kernel, params, sizes, 4);
  }
};

/// A failure with a message (an entry has no other way to set one).
gpRtStatus failWith(const char *what) {
  return gpRtCheckSymInt(what, 0, 1, 1);
}

// Per-thread result storage of the entries that compute directly.
thread_local std::vector<float> peekPlusOne, peekSeen, sums, outputs;
thread_local std::vector<int32_t> quotients;
thread_local float totalValue;

} // namespace

GP_TEST_REPLACEABLE_MANIFEST(kManifest, gp_test_set_padding_manifest,
                             gp_test_default_padding_manifest)

GP_EXPORT int64_t gp_test_padding_calls = 0;

GP_EXPORT gpRtStatus gp_entry_affine(gpRtProgram *program, void **args,
                                     void **results) {
  __atomic_add_fetch(&gp_test_padding_calls, 1, __ATOMIC_RELAXED);
  const auto *x = static_cast<const Matrix *>(args[0]);
  const auto *w = static_cast<const Vector<float> *>(args[1]);
  AffineLaunch launch{x->aligned + x->offset, w->aligned + w->offset, nullptr,
                      x->sizes[0]};
  gpRtPartitionInput inputs[] = {{launch.x, launch.rows * 16}, {launch.w, 16}};
  if (gpRtStatus status = gpRtRunPartitionWithResults(
          program, 0, &launch.rows, AffineLaunch::body, &launch, &launch.y,
          sizeof(launch.y), inputs, 2))
    return status;
  describe(results[0], launch.y, launch.rows, 4);
  return GP_RT_SUCCESS;
}

GP_EXPORT gpRtStatus gp_entry_peek(gpRtProgram *, void **args, void **results) {
  __atomic_add_fetch(&gp_test_padding_calls, 1, __ATOMIC_RELAXED);
  const auto *x = static_cast<const Matrix *>(args[0]);
  int64_t k = *static_cast<const int64_t *>(args[1]);
  int64_t rows = x->sizes[0], cols = x->sizes[1];
  if (k != cols)
    return failWith("peek: k is not x's number of columns");
  peekPlusOne.assign(rows * cols, 0);
  peekSeen.assign(rows * cols, 0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      peekSeen[i * cols + j] = x->at(i, j);
      peekPlusOne[i * cols + j] = x->at(i, j) + 1;
    }
  describe(results[0], peekPlusOne.data(), rows, cols);
  describe(results[1], peekSeen.data(), rows, cols);
  std::memcpy(results[2], &k, sizeof(k));
  return GP_RT_SUCCESS;
}

GP_EXPORT gpRtStatus gp_entry_divide(gpRtProgram *, void **args,
                                     void **results) {
  __atomic_add_fetch(&gp_test_padding_calls, 1, __ATOMIC_RELAXED);
  const auto &x = *static_cast<const Vector<int32_t> *>(args[0]);
  const auto &d = *static_cast<const Vector<int32_t> *>(args[1]);
  quotients.assign(x.size, 0);
  for (int64_t i = 0; i < x.size; ++i) {
    if (d[i] == 0)
      return failWith("divide: a zero divisor");
    quotients[i] = x[i] / d[i];
  }
  describe(results[0], quotients.data(), x.size);
  return GP_RT_SUCCESS;
}

GP_EXPORT gpRtStatus gp_entry_total(gpRtProgram *, void **args,
                                    void **results) {
  __atomic_add_fetch(&gp_test_padding_calls, 1, __ATOMIC_RELAXED);
  const auto &x = *static_cast<const Vector<float> *>(args[0]);
  totalValue = 0;
  for (int64_t i = 0; i < x.size; ++i)
    totalValue += x[i];
  Scalar out{&totalValue, &totalValue, 0};
  std::memcpy(results[0], &out, sizeof(out));
  return GP_RT_SUCCESS;
}

GP_EXPORT gpRtStatus gp_entry_pair(gpRtProgram *, void **args, void **results) {
  __atomic_add_fetch(&gp_test_padding_calls, 1, __ATOMIC_RELAXED);
  const auto &a = *static_cast<const Vector<float> *>(args[0]);
  const auto &b = *static_cast<const Vector<float> *>(args[1]);
  int64_t n = *static_cast<const int64_t *>(args[2]);
  if (a.size != n || b.size != n)
    return failWith("pair: the sizes disagree");
  sums.assign(n, 0);
  for (int64_t i = 0; i < n; ++i)
    sums[i] = a[i] + b[i];
  describe(results[0], sums.data(), n);
  std::memcpy(results[1], &n, sizeof(n));
  return GP_RT_SUCCESS;
}

GP_EXPORT gpRtStatus gp_entry_fixed16(gpRtProgram *, void **args,
                                      void **results) {
  __atomic_add_fetch(&gp_test_padding_calls, 1, __ATOMIC_RELAXED);
  const auto &a = *static_cast<const Vector<float> *>(args[0]);
  const auto &b = *static_cast<const Vector<float> *>(args[1]);
  outputs.assign(16, 0);
  for (int64_t i = 0; i < 16; ++i)
    outputs[i] = a[i] + b[i];
  describe(results[0], outputs.data(), 16);
  return GP_RT_SUCCESS;
}

GP_EXPORT gpRtStatus gp_entry_masked(gpRtProgram *, void **args,
                                     void **results) {
  __atomic_add_fetch(&gp_test_padding_calls, 1, __ATOMIC_RELAXED);
  const auto &x = *static_cast<const Vector<float> *>(args[0]);
  const auto &m = *static_cast<const Vector<float> *>(args[1]);
  if (m.size != x.size)
    return failWith("masked: the sizes disagree");
  outputs.assign(x.size, 0);
  for (int64_t i = 0; i < x.size; ++i)
    outputs[i] = 3 * x[i];
  describe(results[0], outputs.data(), x.size);
  return GP_RT_SUCCESS;
}
