//===- ParameterArtifact.cpp - a hand-written artifact with parameters ----===//
//
// A host artifact, as gp-compile would make one, for ParameterTest.cpp: it
// exports `gp_manifest` and `gp_entry_<name>` for four entries whose
// arguments include named parameters:
//
//   affine(x, layer.weight, layer.bias) -> x * w + b   (f32[4], captured)
//   scale(x, layer.weight) -> x * w                     (f32[4], captured)
//   rowsum(table: f32[?, 2]) -> column sums f32[2]      (eager)
//   column(matrix: f32[2, 2], strided) -> matrix[:, 0]  (eager)
//
// affine and scale run a capturable partition each whose host kernel holds
// the addresses of its inputs, so a parameter bound elsewhere is re-bound
// like any moved input. The manifest is a writable array and
// gp_test_set_manifest replaces it: a test that has the library open loads
// it again with another manifest (dlopen hands back the same image).
//
//===----------------------------------------------------------------------===//

#include "TestArtifact.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstring>

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
partition 0 capturable 0 -
partition 1 capturable 0 -
entry affine 3 1
arg memref f32 1 4 cpu
arg memref f32 1 4 cpu parameter layer.weight
arg memref f32 1 4 cpu parameter layer.bias
result memref f32 1 4 cpu
entry scale 2 1
arg memref f32 1 4 cpu
arg memref f32 1 4 cpu parameter layer.weight
result memref f32 1 4 cpu
entry rowsum 1 1
arg memref f32 2 ? 2 cpu parameter table
result memref f32 1 2 cpu
entry column 1 1
arg memref f32 2 2 2 cpu strided parameter matrix
result memref f32 1 2 cpu
)";

struct Vector {
  float *allocated, *aligned;
  int64_t offset, size, stride;
  float *first() const { return aligned + offset; }
};
struct Matrix {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
  float at(int64_t i, int64_t j) const {
    return aligned[offset + i * strides[0] + j * strides[1]];
  }
};

/// y = x * w (+ b): what the partitions launch.
struct Launch {
  float *x, *w, *b, *y;
  static void kernel(void **params) {
    float *x = *static_cast<float **>(params[0]);
    float *w = *static_cast<float **>(params[1]);
    float *b = *static_cast<float **>(params[2]);
    float *y = *static_cast<float **>(params[3]);
    for (int i = 0; i < 4; ++i)
      y[i] = x[i] * w[i] + (b ? b[i] : 0.0f);
  }
  static gpRtStatus body(gpRtStream *stream, void *data) {
    auto *self = static_cast<Launch *>(data);
    void *params[] = {&self->x, &self->w, &self->b, &self->y};
    int64_t sizes[] = {8, 8, 8, 8};
    return gpRtLaunchHostKernel(stream, kernel, params, sizes, 4);
  }
};

void describe(void *result, float *data, int64_t size) {
  Vector out{data, data, 0, size, 1};
  std::memcpy(result, &out, sizeof(out));
}

gpRtStatus runAffine(gpRtProgram *program, void **args, void **results,
                     int32_t partition, int64_t arenaOffset, bool bias) {
  void *arena = nullptr;
  if (gpRtStatus status = gpRtProgramArena(program, &arena))
    return status;
  float *y = static_cast<float *>(arena) + arenaOffset;
  const auto *x = static_cast<const Vector *>(args[0]);
  const auto *w = static_cast<const Vector *>(args[1]);
  const Vector *b = bias ? static_cast<const Vector *>(args[2]) : nullptr;
  Launch launch{x->first(), w->first(), b ? b->first() : nullptr, y};
  gpRtPartitionInput inputs[] = {
      {launch.x, 16}, {launch.w, 16}, {launch.b, b ? 16 : 0}};
  if (gpRtStatus status = gpRtRunPartitionWithResults(
          program, partition, nullptr, Launch::body, &launch, nullptr, 0,
          inputs, bias ? 3 : 2))
    return status;
  describe(results[0], y, 4);
  return GP_RT_SUCCESS;
}

} // namespace

GP_TEST_REPLACEABLE_MANIFEST(kManifest, gp_test_set_manifest,
                             gp_test_default_manifest)

GP_EXPORT gpRtStatus gp_entry_affine(gpRtProgram *program, void **args,
                                     void **results) {
  return runAffine(program, args, results, 0, 0, /*bias=*/true);
}

GP_EXPORT gpRtStatus gp_entry_scale(gpRtProgram *program, void **args,
                                    void **results) {
  return runAffine(program, args, results, 1, 16, /*bias=*/false);
}

GP_EXPORT gpRtStatus gp_entry_rowsum(gpRtProgram *program, void **args,
                                     void **results) {
  void *arena = nullptr;
  if (gpRtStatus status = gpRtProgramArena(program, &arena))
    return status;
  float *y = static_cast<float *>(arena) + 32;
  const auto *table = static_cast<const Matrix *>(args[0]);
  for (int64_t j = 0; j < 2; ++j) {
    y[j] = 0;
    for (int64_t i = 0; i < table->sizes[0]; ++i)
      y[j] += table->at(i, j);
  }
  describe(results[0], y, 2);
  return GP_RT_SUCCESS;
}

GP_EXPORT gpRtStatus gp_entry_column(gpRtProgram *program, void **args,
                                     void **results) {
  void *arena = nullptr;
  if (gpRtStatus status = gpRtProgramArena(program, &arena))
    return status;
  float *y = static_cast<float *>(arena) + 48;
  const auto *matrix = static_cast<const Matrix *>(args[0]);
  for (int64_t i = 0; i < 2; ++i)
    y[i] = matrix->at(i, 0);
  describe(results[0], y, 2);
  return GP_RT_SUCCESS;
}
