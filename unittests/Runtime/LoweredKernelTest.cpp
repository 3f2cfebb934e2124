//===- LoweredKernelTest.cpp - a kernel from convert-gp-to-gpu on the GPU -===//
//
// Runs the cubin that gp-opt makes from test/Runtime/Inputs/add2d.mlir
// (convert-gp-to-gpu, then the NVVM chain and gpu-module-to-binary; see
// test/Runtime/lowered-kernel-cubin.test) through the runtime: eagerly, then
// captured and replayed. Replays see the arena at fixed addresses, so new
// inputs written there between replays are read by the graph. Skipped
// unless a CUDA device is usable and GP_TEST_CUBIN names the cubin.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

namespace {

constexpr int64_t kRows = 100, kCols = 30, kCount = kRows * kCols;

/// The launch gp-opt writes for add2d (checked by the lit test on the same
/// input): 12 blocks of 256 threads, arguments (x, y) with each 2-D memref
/// expanded to (allocated, aligned, offset, sizes, strides); sizes and the
/// increment are constants inside the kernel.
struct Add2dLaunch {
  void *function;
  uint64_t x, y; // device addresses in the arena
  int64_t cols = kCols, zero = 0, rows = kRows, one = 1;

  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<Add2dLaunch *>(data);
    void *params[] = {&self->x,    &self->x,    &self->zero,
                      &self->rows, &self->cols, &self->cols,
                      &self->one,  &self->y,    &self->y,
                      &self->zero, &self->rows, &self->cols,
                      &self->cols, &self->one};
    uint32_t grid[3] = {12, 1, 1}, block[3] = {256, 1, 1};
    return gpRtLaunchCudaKernel(stream, self->function, grid, block, 0,
                                params);
  }
};

TEST(LoweredKernel, CapturedReplayOfAConvertedKernel) {
  const char *path = std::getenv("GP_TEST_CUBIN");
  if (gpRtBackendAvailable(GP_RT_BACKEND_CUDA) != GP_RT_SUCCESS || !path)
    GTEST_SKIP() << "needs a CUDA device and GP_TEST_CUBIN";
  std::ifstream file(path, std::ios::binary);
  ASSERT_TRUE(file) << "cannot read " << path;
  std::vector<char> cubin((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());

  gpRtPartitionInfo partition{1, 0, nullptr};
  int64_t bytes = kCount * sizeof(float);
  int64_t yOffset = (bytes + 255) / 256 * 256;
  gpRtProgramInfo info{"add2d", 1, &partition, 2 * yOffset, 0, 0};
  gpRtProgram *program = nullptr;
  ASSERT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_CUDA, 0, &program),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  void *module = nullptr, *function = nullptr, *arena = nullptr;
  ASSERT_EQ(gpRtCudaLoadModule(program, cubin.data(), &module), GP_RT_SUCCESS)
      << gpRtGetLastError();
  ASSERT_EQ(gpRtCudaGetFunction(program, module, "add2d", &function),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  ASSERT_EQ(gpRtProgramArena(program, &arena), GP_RT_SUCCESS);
  char *base = static_cast<char *>(arena);
  Add2dLaunch launch{function, reinterpret_cast<uint64_t>(base),
                     reinterpret_cast<uint64_t>(base + yOffset)};

  std::vector<float> x(kCount), y(kCount);
  for (int round = 0; round < 4; ++round) {
    for (int64_t i = 0; i < kCount; ++i)
      x[i] = static_cast<float>(i % 97) * 0.5f + round;
    ASSERT_EQ(gpRtCopyToProgram(program, base, x.data(), bytes),
              GP_RT_SUCCESS);
    ASSERT_EQ(gpRtRunPartition(program, 0, nullptr, Add2dLaunch::run,
                               &launch),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    ASSERT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
    ASSERT_EQ(gpRtCopyFromProgram(program, y.data(), base + yOffset, bytes),
              GP_RT_SUCCESS);
    for (int64_t i = 0; i < kCount; ++i)
      ASSERT_EQ(y[i], x[i] + 1.0f) << "round " << round << ", element " << i;
  }
  gpRtStats stats;
  ASSERT_EQ(gpRtProgramGetStats(program, &stats), GP_RT_SUCCESS);
  EXPECT_EQ(stats.warmupRuns, 1);
  EXPECT_EQ(stats.captures, 1);
  EXPECT_EQ(stats.replays, 3);
  EXPECT_EQ(gpRtProgramDestroy(program), GP_RT_SUCCESS);
}

} // namespace
