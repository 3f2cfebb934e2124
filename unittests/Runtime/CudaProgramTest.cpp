//===- CudaProgramTest.cpp - capture and replay on a real GPU -------------===//
//
// The same policies as ProgramTest, on the cuda backend: stream capture,
// graph instantiation, in-place update with cuGraphExecUpdate, replay.
// Skipped where no CUDA device is usable.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"
#include "AddI64Ptx.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace {

const char *kAddPtx = kAddI64Ptx;

class CudaProgramTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (gpRtBackendAvailable(GP_RT_BACKEND_CUDA) != GP_RT_SUCCESS)
      GTEST_SKIP() << "no usable CUDA device: " << gpRtGetLastError();
    partitions[0] = {1, 1, nullptr};
    partitions[1] = {0, 0, "cpu ops"};
    gpRtProgramInfo info{"gpu", 2, partitions, 4096, 1, 3};
    ASSERT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_CUDA, 0, &program),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    void *module = nullptr;
    ASSERT_EQ(gpRtCudaLoadModule(program, kAddPtx, &module), GP_RT_SUCCESS)
        << gpRtGetLastError();
    ASSERT_EQ(gpRtCudaGetFunction(program, module, "add_i64", &add),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
  }
  void TearDown() override {
    if (program)
      EXPECT_EQ(gpRtProgramDestroy(program), GP_RT_SUCCESS);
  }

  struct AddBody {
    void *function;
    void *target; // device pointer
    int64_t amount;
    int launches;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<AddBody *>(data);
      uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
      void *params[] = {&self->target, &self->amount};
      for (int i = 0; i < self->launches; ++i)
        if (gpRtStatus status = gpRtLaunchCudaKernel(stream, self->function,
                                                     grid, block, 0, params))
          return status;
      return GP_RT_SUCCESS;
    }
  };

  /// A body that allocates `bytes` of run-time-sized memory and adds
  /// `amount` to its first int64.
  struct AllocateAndAdd {
    void *function;
    int64_t bytes;
    int64_t amount;
    void *buffer = nullptr;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<AllocateAndAdd *>(data);
      if (gpRtStatus status =
              gpRtAllocate(stream, self->bytes, &self->buffer))
        return status;
      uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
      void *params[] = {&self->buffer, &self->amount};
      return gpRtLaunchCudaKernel(stream, self->function, grid, block, 0,
                                  params);
    }
  };

  int64_t readSlot(void *slot) {
    int64_t value = -1;
    EXPECT_EQ(gpRtCopyFromProgram(program, &value, slot, sizeof(value)),
              GP_RT_SUCCESS);
    return value;
  }
  void zeroSlot(void *slot) {
    int64_t zero = 0;
    ASSERT_EQ(gpRtCopyToProgram(program, slot, &zero, sizeof(zero)),
              GP_RT_SUCCESS);
  }
  gpRtStats stats() {
    gpRtStats s;
    EXPECT_EQ(gpRtProgramGetStats(program, &s), GP_RT_SUCCESS);
    return s;
  }

  gpRtPartitionInfo partitions[2];
  gpRtProgram *program = nullptr;
  void *add = nullptr;
};

TEST_F(CudaProgramTest, WarmUpCaptureReplayOnTheGpu) {
  void *arena = nullptr;
  ASSERT_EQ(gpRtProgramArena(program, &arena), GP_RT_SUCCESS);
  zeroSlot(arena);
  AddBody body{add, arena, 3, 4};
  int64_t key = 8;
  for (int run = 0; run < 5; ++run)
    ASSERT_EQ(gpRtRunPartition(program, 0, &key, AddBody::run, &body),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
  ASSERT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
  EXPECT_EQ(readSlot(arena), 5 * 4 * 3);
  gpRtStats s = stats();
  EXPECT_EQ(s.warmupRuns, 1);
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.instantiations, 1);
  EXPECT_EQ(s.replays, 4);
}

// Each key keeps its own executable; with a cache of one key, a new key of
// the same topology updates the evicted executable in place
// (cuGraphExecUpdate), and each key computes with its own values.
TEST_F(CudaProgramTest, InPlaceUpdate) {
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  void *arena = nullptr;
  ASSERT_EQ(gpRtProgramArena(program, &arena), GP_RT_SUCCESS);
  zeroSlot(arena);
  AddBody a{add, arena, 1, 2}, b{add, arena, 100, 2};
  int64_t keyA = 1, keyB = 2;
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(gpRtRunPartition(program, 0, &keyA, AddBody::run, &a),
              GP_RT_SUCCESS);
    ASSERT_EQ(gpRtRunPartition(program, 0, &keyB, AddBody::run, &b),
              GP_RT_SUCCESS);
  }
  ASSERT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
  EXPECT_EQ(readSlot(arena), 3 * (2 + 200));
  gpRtStats s = stats();
  EXPECT_EQ(s.instantiations, 2);
  EXPECT_EQ(s.updates, 0);
  EXPECT_EQ(s.replays, 6);

  ASSERT_EQ(gpRtProgramSetGraphCacheCapacity(program, 1), GP_RT_SUCCESS);
  zeroSlot(arena);
  int64_t keyC = 3, keyD = 4;
  AddBody c{add, arena, 1000, 2}, d{add, arena, 10000, 2};
  ASSERT_EQ(gpRtRunPartition(program, 0, &keyC, AddBody::run, &c),
            GP_RT_SUCCESS);
  ASSERT_EQ(gpRtRunPartition(program, 0, &keyD, AddBody::run, &d),
            GP_RT_SUCCESS);
  ASSERT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
  EXPECT_EQ(readSlot(arena), 2000 + 20000);
  s = stats();
  EXPECT_EQ(s.instantiations, 2);
  EXPECT_EQ(s.updates, 2); // A's executable for C (B's released), C's for D.
  EXPECT_EQ(s.evictions, 3);
  EXPECT_EQ(s.liveGraphs, 1);
  // Another topology (3 launches) cannot take the evicted executable.
  AddBody e{add, arena, 1, 3};
  int64_t keyE = 5;
  ASSERT_EQ(gpRtRunPartition(program, 0, &keyE, AddBody::run, &e),
            GP_RT_SUCCESS);
  EXPECT_EQ(stats().instantiations, 3);
}

// Eight threads capture and replay one program at once, each on its own
// stream with its own device arena.
TEST_F(CudaProgramTest, ThreadBoundPools) {
  // Captures keep starting while other threads copy and replay: each thread
  // cycles through four shape keys and reads its slot back every other run.
  // A synchronous copy on the legacy stream, or a blocking thread stream,
  // would invalidate another thread's open capture.
  constexpr int kThreads = 8, kRuns = 40, kKeys = 4;
  std::vector<void *> arenas(kThreads);
  std::vector<int64_t> results(kThreads, -1);
  std::atomic<int> failures{0}, wrongReads{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      void *arena = nullptr;
      if (gpRtProgramArena(program, &arena) != GP_RT_SUCCESS) {
        ++failures;
        return;
      }
      arenas[t] = arena;
      int64_t zero = 0;
      if (gpRtCopyToProgram(program, arena, &zero, sizeof(zero)) !=
          GP_RT_SUCCESS)
        ++failures;
      AddBody body{add, arena, t + 1, 1};
      for (int run = 0; run < kRuns; ++run) {
        int64_t key = 1 + run % kKeys;
        if (gpRtRunPartition(program, 0, &key, AddBody::run, &body) !=
            GP_RT_SUCCESS) {
          ++failures;
          errors[t] = gpRtGetLastError();
        }
        if (run % 2 == 1) {
          int64_t value = -1;
          if (gpRtCopyFromProgram(program, &value, arena, sizeof(value)) !=
              GP_RT_SUCCESS)
            ++failures;
          else if (value != (t + 1) * (run + 1))
            ++wrongReads;
        }
      }
      if (gpRtProgramSynchronize(program) != GP_RT_SUCCESS ||
          gpRtCopyFromProgram(program, &results[t], arena, sizeof(int64_t)) !=
              GP_RT_SUCCESS)
        ++failures;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(wrongReads, 0);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_EQ(results[t], (t + 1) * kRuns) << "thread " << t;
    for (int u = 0; u < t; ++u)
      EXPECT_NE(arenas[t], arenas[u]);
  }
  EXPECT_EQ(stats().captures, kThreads * kKeys);
}

/// A body that breaks its own capture the way a careless extern would: a
/// device-wide synchronisation, which is illegal while capturing.
struct CaptureBreakingBody {
  CudaProgramTest *test;
  void *function;
  void *target;
  int (*ctxSynchronize)();
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<CaptureBreakingBody *>(data);
    uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    int64_t amount = 1;
    void *params[] = {&self->target, &amount};
    if (gpRtStatus status = gpRtLaunchCudaKernel(stream, self->function, grid,
                                                 block, 0, params))
      return status;
    self->ctxSynchronize(); // Fails and invalidates an open capture.
    return GP_RT_SUCCESS;
  }
};

// A capture that the body invalidates is a capture fault: nothing of it is
// kept, that run and the shape's later runs go eagerly, and the results
// are right; in or-error mode it is an error.
TEST_F(CudaProgramTest, InvalidatedCaptureLeavesProgramUsable) {
  void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(libcuda, nullptr);
  auto ctxSynchronize =
      reinterpret_cast<int (*)()>(dlsym(libcuda, "cuCtxSynchronize"));
  ASSERT_NE(ctxSynchronize, nullptr);
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  void *arena = nullptr;
  ASSERT_EQ(gpRtProgramArena(program, &arena), GP_RT_SUCCESS);
  zeroSlot(arena);
  int64_t key = 1;
  CaptureBreakingBody breaking{this, add, arena, ctxSynchronize};
  EXPECT_EQ(gpRtRunPartition(program, 0, &key, CaptureBreakingBody::run,
                             &breaking),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  AddBody body{add, arena, 5, 1};
  for (int run = 0; run < 3; ++run)
    ASSERT_EQ(gpRtRunPartition(program, 0, &key, AddBody::run, &body),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
  ASSERT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
  EXPECT_EQ(readSlot(arena), 1 + 15); // The eager rerun and three runs.
  gpRtStats s = stats();
  EXPECT_EQ(s.captures, 0);
  EXPECT_EQ(s.eagerRuns, 4);
  // Another shape still captures; in or-error mode the fault is an error.
  int64_t other = 2;
  for (int run = 0; run < 2; ++run)
    ASSERT_EQ(gpRtRunPartition(program, 0, &other, AddBody::run, &body),
              GP_RT_SUCCESS);
  EXPECT_EQ(stats().captures, 1);
  ASSERT_EQ(gpRtProgramSetOrError(program, 1), GP_RT_SUCCESS);
  int64_t third = 3;
  EXPECT_EQ(gpRtRunPartition(program, 0, &third, CaptureBreakingBody::run,
                             &breaking),
            GP_RT_ERROR_NOT_CAPTURED);
  EXPECT_NE(std::string(gpRtGetLastError()).find("capture failed"),
            std::string::npos)
      << gpRtGetLastError();
  dlclose(libcuda);
}

// Destroying the program releases graphs, executables, streams and memory.
TEST_F(CudaProgramTest, ReleaseBringsLiveCountsToZero) {
  int64_t programs0, graphs0, streams0, pool0;
  gpRtProgramDestroy(program);
  program = nullptr;
  ASSERT_EQ(gpRtGetLiveCounts(&programs0, &graphs0, &streams0, &pool0),
            GP_RT_SUCCESS);
  gpRtProgramInfo info{"gpu", 2, partitions, 4096, 1, 3};
  ASSERT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_CUDA, 0, &program),
            GP_RT_SUCCESS);
  void *module = nullptr, *function = nullptr;
  ASSERT_EQ(gpRtCudaLoadModule(program, kAddPtx, &module), GP_RT_SUCCESS);
  ASSERT_EQ(gpRtCudaGetFunction(program, module, "add_i64", &function),
            GP_RT_SUCCESS);
  void *arena = nullptr;
  ASSERT_EQ(gpRtProgramArena(program, &arena), GP_RT_SUCCESS);
  AddBody body{function, arena, 1, 1};
  for (int64_t key = 0; key < 4; ++key)
    for (int run = 0; run < 2; ++run)
      ASSERT_EQ(gpRtRunPartition(program, 0, &key, AddBody::run, &body),
                GP_RT_SUCCESS);
  int64_t programs, graphs, streams, pool;
  gpRtGetLiveCounts(&programs, &graphs, &streams, &pool);
  EXPECT_GT(graphs, graphs0);
  EXPECT_EQ(pool, pool0 + 4096);
  ASSERT_EQ(gpRtProgramDestroy(program), GP_RT_SUCCESS);
  program = nullptr;
  gpRtGetLiveCounts(&programs, &graphs, &streams, &pool);
  EXPECT_EQ(programs, programs0);
  EXPECT_EQ(graphs, graphs0);
  EXPECT_EQ(streams, streams0);
  EXPECT_EQ(pool, pool0);
}

// A buffer sized at run time gets device memory from the key's pool: the
// graph keeps writing to the same address on every replay.
TEST_F(CudaProgramTest, RuntimeSizedBufferOnTheGpu) {
  AllocateAndAdd body{add, 4096, 5};
  int64_t key = 4096;
  ASSERT_EQ(gpRtRunPartition(program, 0, &key, AllocateAndAdd::run, &body),
            GP_RT_SUCCESS); // warm-up
  ASSERT_EQ(gpRtRunPartition(program, 0, &key, AllocateAndAdd::run, &body),
            GP_RT_SUCCESS) // capture, replay
      << gpRtGetLastError();
  void *pooled = body.buffer;
  zeroSlot(pooled);
  for (int run = 0; run < 3; ++run)
    ASSERT_EQ(gpRtRunPartition(program, 0, &key, AllocateAndAdd::run, &body),
              GP_RT_SUCCESS);
  ASSERT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
  EXPECT_EQ(readSlot(pooled), 15);
  EXPECT_GE(stats().poolBytes, 4096 + 4096);
}

// Device memory exhausted by someone else: the pool growth a new shape
// needs fails with a clear error through the C ABI, and once that memory is
// freed the same program allocates, captures and replays again.
TEST_F(CudaProgramTest, OutOfDeviceMemoryIsAnErrorAndRecovers) {
  // The driver as the runtime loads it, on the program's primary context.
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(cuda, nullptr);
  using DevicePtr = unsigned long long;
  auto deviceGet =
      reinterpret_cast<int (*)(int *, int)>(dlsym(cuda, "cuDeviceGet"));
  auto retain = reinterpret_cast<int (*)(void **, int)>(
      dlsym(cuda, "cuDevicePrimaryCtxRetain"));
  auto release = reinterpret_cast<int (*)(int)>(
      dlsym(cuda, "cuDevicePrimaryCtxRelease_v2"));
  auto setCurrent =
      reinterpret_cast<int (*)(void *)>(dlsym(cuda, "cuCtxSetCurrent"));
  auto memAlloc = reinterpret_cast<int (*)(DevicePtr *, size_t)>(
      dlsym(cuda, "cuMemAlloc_v2"));
  auto memFree =
      reinterpret_cast<int (*)(DevicePtr)>(dlsym(cuda, "cuMemFree_v2"));
  ASSERT_TRUE(deviceGet && retain && release && setCurrent && memAlloc &&
              memFree);
  int device = 0;
  void *context = nullptr;
  ASSERT_EQ(deviceGet(&device, 0), 0);
  ASSERT_EQ(retain(&context, device), 0);
  ASSERT_EQ(setCurrent(context), 0);

  // Take every block of 1 MiB or more that the device still has; freed
  // whatever happens below.
  struct Hog {
    std::vector<DevicePtr> blocks;
    int (*memFree)(DevicePtr);
    void freeAll() {
      for (DevicePtr block : blocks)
        memFree(block);
      blocks.clear();
    }
    ~Hog() { freeAll(); }
  } hog{{}, memFree};
  for (size_t chunk = size_t(1) << 30; chunk >= (size_t(1) << 20); chunk /= 2)
    for (DevicePtr block = 0; memAlloc(&block, chunk) == 0;)
      hog.blocks.push_back(block);
  ASSERT_FALSE(hog.blocks.empty());

  AllocateAndAdd body{add, 64 << 20, 3};
  int64_t key = 64 << 20;
  EXPECT_EQ(gpRtRunPartition(program, 0, &key, AllocateAndAdd::run, &body),
            GP_RT_ERROR_BACKEND);
  EXPECT_NE(std::string(gpRtGetLastError()).find("out of memory"),
            std::string::npos)
      << gpRtGetLastError();

  hog.freeAll();
  for (int run = 0; run < 3; ++run) // warm-up, capture and replay, replay
    ASSERT_EQ(gpRtRunPartition(program, 0, &key, AllocateAndAdd::run, &body),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
  ASSERT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
  zeroSlot(body.buffer);
  ASSERT_EQ(gpRtRunPartition(program, 0, &key, AllocateAndAdd::run, &body),
            GP_RT_SUCCESS);
  ASSERT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
  EXPECT_EQ(readSlot(body.buffer), 3);
  EXPECT_GE(stats().replays, 2);
  release(device);
}

// CUDA errors come back as codes with messages; the process goes on.
TEST_F(CudaProgramTest, DriverErrorsAreReported) {
  void *module = nullptr;
  EXPECT_EQ(gpRtCudaLoadModule(program, "not ptx", &module),
            GP_RT_ERROR_BACKEND);
  EXPECT_NE(std::string(gpRtGetLastError()).find("cuModuleLoadData failed"),
            std::string::npos);
  void *function = nullptr;
  void *good = nullptr;
  ASSERT_EQ(gpRtCudaLoadModule(program, kAddPtx, &good), GP_RT_SUCCESS);
  EXPECT_EQ(gpRtCudaGetFunction(program, good, "missing", &function),
            GP_RT_ERROR_BACKEND);
  EXPECT_NE(std::string(gpRtGetLastError()).find("missing"),
            std::string::npos);
  // Or-error still applies on the GPU.
  ASSERT_EQ(gpRtProgramSetOrError(program, 1), GP_RT_SUCCESS);
  void *arena = nullptr;
  ASSERT_EQ(gpRtProgramArena(program, &arena), GP_RT_SUCCESS);
  AddBody body{add, arena, 1, 1};
  EXPECT_EQ(gpRtRunPartition(program, 1, nullptr, AddBody::run, &body),
            GP_RT_ERROR_NOT_CAPTURED);
}

} // namespace
