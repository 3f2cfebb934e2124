//===- ParameterCudaArtifact.cpp - a cuda artifact with a parameter -------===//
//
// A hand-written cuda artifact for ParameterTest.cpp's GPU tests:
//
//   addw(x: i64[1], w: i64[1] parameter "w") -> y = x + w   (i64[1])
//
// computed by slow_add (ParameterPtx.h), which first waits 20 ms, in a
// capturable partition whose inputs are x and w, so the call's work is
// long enough that a missing order with the caller's stream shows, and a
// parameter bound elsewhere is re-bound in the captured graph.
//
//===----------------------------------------------------------------------===//

#include "TestArtifact.h"

#include "GraphPart/Runtime/GPRuntime.h"
#include "ParameterPtx.h"

#include <cstring>


GP_EXPORT const char gp_manifest[] = R"(graphpart-artifact 2
target cuda
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
entry addw 2 1
arg memref i64 1 1 cuda:0
arg memref i64 1 1 cuda:0 parameter w
result memref i64 1 1 cuda:0
)";

namespace {

struct Vector {
  int64_t *allocated, *aligned;
  int64_t offset, size, stride;
};

struct Launch {
  void *function;
  int64_t *y, *x, *w;
  uint64_t nanoseconds = 20'000'000;
  static gpRtStatus body(gpRtStream *stream, void *data) {
    auto *self = static_cast<Launch *>(data);
    void *params[] = {&self->y, &self->x, &self->w, &self->nanoseconds};
    uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    return gpRtLaunchCudaKernel(stream, self->function, grid, block, 0,
                                params);
  }
};

} // namespace

GP_EXPORT gpRtStatus gp_entry_addw(gpRtProgram *program, void **args,
                                   void **results) {
  Launch launch{};
  if (gpRtStatus status = gpRtCudaGetKernel(program, kParameterPtx,
                                            "slow_add", &launch.function))
    return status;
  void *arena = nullptr;
  if (gpRtStatus status = gpRtProgramArena(program, &arena))
    return status;
  const auto *x = static_cast<const Vector *>(args[0]);
  const auto *w = static_cast<const Vector *>(args[1]);
  launch.y = static_cast<int64_t *>(arena);
  launch.x = x->aligned + x->offset;
  launch.w = w->aligned + w->offset;
  gpRtPartitionInput inputs[] = {{launch.x, 8}, {launch.w, 8}};
  if (gpRtStatus status = gpRtRunPartitionWithResults(
          program, 0, nullptr, Launch::body, &launch, nullptr, 0, inputs, 2))
    return status;
  Vector out{launch.y, launch.y, 0, 1, 1};
  std::memcpy(results[0], &out, sizeof(out));
  return GP_RT_SUCCESS;
}
