//===- ProgramTest.cpp - capture, replay and policy on the host backend ---===//

#include "GraphPart/Runtime/GPRuntime.h"
#include "ParameterTestSupport.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

/// Adds params[1] (an int64) to the int64 params[0] points to.
void addKernel(void **params) {
  int64_t *target = *static_cast<int64_t **>(params[0]);
  *target += *static_cast<int64_t *>(params[1]);
}

/// The body of a one-kernel partition: *target += amount.
struct AddBody {
  int64_t *target;
  int64_t amount;
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<AddBody *>(data);
    void *params[] = {&self->target, &self->amount};
    int64_t sizes[] = {sizeof(int64_t *), sizeof(int64_t)};
    return gpRtLaunchHostKernel(stream, addKernel, params, sizes, 2);
  }
};

/// Collects log lines and warnings.
struct LogCapture {
  std::vector<std::string> lines;
  static void sink(const char *line, void *data) {
    static_cast<LogCapture *>(data)->lines.push_back(line);
  }
  int count(const std::string &needle) const {
    int n = 0;
    for (const std::string &line : lines)
      n += line.find(needle) != std::string::npos;
    return n;
  }
};

class ProgramTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *var :
         {"GP_CUDAGRAPH_CAPTURE_SIZES", "GP_CUDAGRAPH_OR_ERROR",
          "GP_CUDAGRAPH_SHAPE_WARNING_LIMIT", "GP_CUDAGRAPH_CACHE_CAPACITY"})
      unsetenv(var);
    gpRtSetLog(0, LogCapture::sink, &logs);
  }
  void TearDown() override {
    for (gpRtProgram *program : programs)
      EXPECT_EQ(gpRtProgramDestroy(program), GP_RT_SUCCESS);
    gpRtSetLog(0, nullptr, nullptr);
  }

  /// A program whose partition 0 is capturable with `symbols` shape symbols
  /// and partition 1 is eager.
  gpRtProgram *makeProgram(int32_t symbols = 1, int64_t arena = 1024,
                           uint64_t seed = 7, int32_t generators = 2) {
    partitions[0] = {1, symbols, nullptr};
    partitions[1] = {0, 0, "cpu ops, device copy"};
    gpRtProgramInfo info{"test", 2, partitions, arena, generators, seed};
    gpRtProgram *program = nullptr;
    EXPECT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_HOST, 0, &program),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    programs.push_back(program);
    return program;
  }

  gpRtStats stats(gpRtProgram *program) {
    gpRtStats result;
    EXPECT_EQ(gpRtProgramGetStats(program, &result), GP_RT_SUCCESS);
    return result;
  }

  gpRtPartitionInfo partitions[2];
  std::vector<gpRtProgram *> programs;
  LogCapture logs;
};

// Warm-up runs eagerly, the next run captures (recording, not running) and
// then replays, and later runs replay.
TEST_F(ProgramTest, WarmUpThenCaptureThenReplay) {
  gpRtProgram *program = makeProgram();
  int64_t total = 0;
  AddBody body{&total, 5};
  int64_t key = 4;
  for (int run = 0; run < 4; ++run)
    ASSERT_EQ(gpRtRunPartition(program, 0, &key, AddBody::run, &body),
              GP_RT_SUCCESS);
  EXPECT_EQ(total, 20); // Each of the 4 runs added once.
  gpRtStats s = stats(program);
  EXPECT_EQ(s.warmupRuns, 1);
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.instantiations, 1);
  EXPECT_EQ(s.replays, 3);
  EXPECT_EQ(s.eagerRuns, 0);
}

// More warm-up runs delay the capture.
TEST_F(ProgramTest, WarmupRunsAreConfigurable) {
  gpRtProgram *program = makeProgram();
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 3), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody body{&total, 1};
  int64_t key = 1;
  for (int run = 0; run < 5; ++run)
    gpRtRunPartition(program, 0, &key, AddBody::run, &body);
  EXPECT_EQ(stats(program).warmupRuns, 3);
  EXPECT_EQ(stats(program).captures, 1);
  EXPECT_EQ(total, 5);
}

// A replay uses the values recorded at capture: later changes to the
// body's inputs do not reach it (as with a CUDA graph). Only the shape key
// picks another graph.
TEST_F(ProgramTest, ReplayUsesRecordedParameters) {
  gpRtProgram *program = makeProgram();
  int64_t total = 0;
  AddBody body{&total, 2};
  int64_t key = 3;
  gpRtRunPartition(program, 0, &key, AddBody::run, &body); // warm-up: +2
  gpRtRunPartition(program, 0, &key, AddBody::run, &body); // capture: +2
  body.amount = 100;
  gpRtRunPartition(program, 0, &key, AddBody::run, &body); // replay: +2
  EXPECT_EQ(total, 6);
}

// One graph per shape key; a partition without symbols has one key, so it is
// captured once however its program's other sizes change.
TEST_F(ProgramTest, OneCapturePerShapeKey) {
  gpRtProgram *program = makeProgram(/*symbols=*/1);
  int64_t total = 0;
  AddBody body{&total, 1};
  for (int64_t key : {8, 8, 16, 16, 8, 32})
    gpRtRunPartition(program, 0, &key, AddBody::run, &body);
  EXPECT_EQ(stats(program).captures, 2); // 8 and 16; 32 only warmed up.
  EXPECT_EQ(stats(program).replays, 3);  // 8, 16 after capture; 8 again.
  EXPECT_EQ(total, 6);

  gpRtProgram *staticProgram = makeProgram(/*symbols=*/0);
  for (int run = 0; run < 6; ++run)
    gpRtRunPartition(staticProgram, 0, nullptr, AddBody::run, &body);
  EXPECT_EQ(stats(staticProgram).captures, 1);
}

/// Two kernels: a different topology from AddBody.
gpRtStatus twoLaunches(gpRtStream *stream, void *data) {
  if (gpRtStatus status = AddBody::run(stream, data))
    return status;
  return AddBody::run(stream, data);
}

TEST_F(ProgramTest, DifferentTopologyInstantiates) {
  gpRtProgram *program = makeProgram();
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody body{&total, 1};
  int64_t keyA = 1, keyB = 2;
  gpRtRunPartition(program, 0, &keyA, AddBody::run, &body);
  gpRtRunPartition(program, 0, &keyB, twoLaunches, &body);
  EXPECT_EQ(stats(program).instantiations, 2);
  EXPECT_EQ(stats(program).updates, 0);
  EXPECT_EQ(total, 3);
}

// Each recorded key keeps its own executable: alternating keys replay
// without updating or re-instantiating anything, each with its own values.
TEST_F(ProgramTest, AlternatingKeysKeepTheirExecutables) {
  gpRtProgram *program = makeProgram();
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody a{&total, 1}, b{&total, 10};
  int64_t keyA = 1, keyB = 2;
  for (int step = 0; step < 50; ++step) {
    ASSERT_EQ(gpRtRunPartition(program, 0, &keyA, AddBody::run, &a),
              GP_RT_SUCCESS);
    ASSERT_EQ(gpRtRunPartition(program, 0, &keyB, AddBody::run, &b),
              GP_RT_SUCCESS);
  }
  EXPECT_EQ(total, 50 * 11);
  gpRtStats s = stats(program);
  EXPECT_EQ(s.captures, 2);
  EXPECT_EQ(s.instantiations, 2);
  EXPECT_EQ(s.updates, 0);
  EXPECT_EQ(s.evictions, 0);
  EXPECT_EQ(s.replays, 100);
  EXPECT_EQ(s.liveGraphs, 2);
}

// Past the cache capacity the least recently used key is evicted and its
// executable updated in place for the new key (same topology); the evicted
// key, when it comes back, is captured again.
TEST_F(ProgramTest, FullGraphCacheEvictsLeastRecentlyUsed) {
  gpRtProgram *program = makeProgram();
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  EXPECT_EQ(gpRtProgramSetGraphCacheCapacity(program, 0),
            GP_RT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(gpRtProgramSetGraphCacheCapacity(program, 2), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody a{&total, 1}, b{&total, 10}, c{&total, 100};
  int64_t keyA = 1, keyB = 2, keyC = 3;
  gpRtRunPartition(program, 0, &keyA, AddBody::run, &a); // capture A
  gpRtRunPartition(program, 0, &keyB, AddBody::run, &b); // capture B
  gpRtRunPartition(program, 0, &keyA, AddBody::run, &a); // replay A
  gpRtRunPartition(program, 0, &keyC, AddBody::run, &c); // evict B for C
  gpRtStats s = stats(program);
  EXPECT_EQ(s.captures, 3);
  EXPECT_EQ(s.instantiations, 2);
  EXPECT_EQ(s.updates, 1);
  EXPECT_EQ(s.evictions, 1);
  EXPECT_EQ(s.liveGraphs, 2);
  gpRtRunPartition(program, 0, &keyA, AddBody::run, &a); // replay A
  gpRtRunPartition(program, 0, &keyC, AddBody::run, &c); // replay C
  EXPECT_EQ(stats(program).captures, 3);
  gpRtRunPartition(program, 0, &keyB, AddBody::run, &b); // B again: capture
  EXPECT_EQ(stats(program).captures, 4);
  EXPECT_EQ(stats(program).evictions, 2);
  EXPECT_EQ(total, 1 + 10 + 1 + 100 + 1 + 100 + 10);
}

// An evicted executable of another topology cannot be updated: a new one
// is made and the old one released.
TEST_F(ProgramTest, EvictionOfAnotherTopologyInstantiates) {
  gpRtProgram *program = makeProgram();
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  ASSERT_EQ(gpRtProgramSetGraphCacheCapacity(program, 1), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody body{&total, 1};
  int64_t keyA = 1, keyB = 2;
  gpRtRunPartition(program, 0, &keyA, AddBody::run, &body);
  gpRtRunPartition(program, 0, &keyB, twoLaunches, &body);
  gpRtStats s = stats(program);
  EXPECT_EQ(s.instantiations, 2);
  EXPECT_EQ(s.updates, 0);
  EXPECT_EQ(s.evictions, 1);
  EXPECT_EQ(s.liveGraphs, 1);
  EXPECT_EQ(total, 3);
}

TEST_F(ProgramTest, GraphCacheCapacityFromEnvironment) {
  setenv("GP_CUDAGRAPH_CACHE_CAPACITY", "1", 1);
  gpRtProgram *program = makeProgram();
  unsetenv("GP_CUDAGRAPH_CACHE_CAPACITY");
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody body{&total, 1};
  for (int64_t key = 0; key < 3; ++key)
    gpRtRunPartition(program, 0, &key, AddBody::run, &body);
  EXPECT_EQ(stats(program).evictions, 2);
  EXPECT_EQ(stats(program).updates, 2);
  for (const char *bad : {"0", "x", "-3"}) {
    setenv("GP_CUDAGRAPH_CACHE_CAPACITY", bad, 1);
    partitions[0] = {1, 1, nullptr};
    gpRtProgramInfo info{"bad", 1, partitions, 0, 0, 0};
    gpRtProgram *rejected = nullptr;
    EXPECT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_HOST, 0, &rejected),
              GP_RT_ERROR_INVALID_ARGUMENT)
        << bad;
    EXPECT_NE(
        std::string(gpRtGetLastError()).find("GP_CUDAGRAPH_CACHE_CAPACITY"),
        std::string::npos);
  }
  unsetenv("GP_CUDAGRAPH_CACHE_CAPACITY");
}

// Only listed sizes are captured; the rest run eagerly, never captured.
TEST_F(ProgramTest, CaptureSizesAllowList) {
  gpRtProgram *program = makeProgram();
  int64_t sizes[] = {1, 2, 4, 8};
  ASSERT_EQ(gpRtProgramSetCaptureSizes(program, sizes, 4, 1), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody body{&total, 1};
  for (int64_t key = 1; key <= 10; ++key)
    for (int run = 0; run < 3; ++run)
      ASSERT_EQ(gpRtRunPartition(program, 0, &key, AddBody::run, &body),
                GP_RT_SUCCESS);
  gpRtStats s = stats(program);
  EXPECT_EQ(s.captures, 4);
  EXPECT_EQ(s.eagerRuns, 6 * 3);
  EXPECT_EQ(total, 30);
}

// The environment gives tuples for two-symbol keys.
TEST_F(ProgramTest, CaptureSizesFromEnvironment) {
  setenv("GP_CUDAGRAPH_CAPTURE_SIZES", "2x3,4x5", 1);
  gpRtProgram *program = makeProgram(/*symbols=*/2);
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody body{&total, 1};
  for (int64_t i = 2; i < 6; ++i)
    for (int64_t j = 2; j < 6; ++j) {
      int64_t key[] = {i, j};
      gpRtRunPartition(program, 0, key, AddBody::run, &body);
    }
  EXPECT_EQ(stats(program).captures, 2);
  EXPECT_EQ(stats(program).eagerRuns, 14);
}

TEST_F(ProgramTest, MalformedCaptureSizesAreRejected) {
  partitions[0] = {1, 1, nullptr};
  gpRtProgramInfo info{"bad", 1, partitions, 0, 0, 0};
  gpRtProgram *program = nullptr;
  for (const char *bad : {"1,x", "2x3,4", "-1"}) {
    setenv("GP_CUDAGRAPH_CAPTURE_SIZES", bad, 1);
    EXPECT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_HOST, 0, &program),
              GP_RT_ERROR_INVALID_ARGUMENT)
        << bad;
    EXPECT_NE(
        std::string(gpRtGetLastError()).find("GP_CUDAGRAPH_CAPTURE_SIZES"),
        std::string::npos);
  }
}

// Exactly one warning when the limit is passed, then one per new shape;
// replays of known shapes do not warn.
TEST_F(ProgramTest, DistinctShapeWarnings) {
  gpRtProgram *program = makeProgram();
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody body{&total, 1};
  for (int64_t key = 0; key < 8; ++key)
    gpRtRunPartition(program, 0, &key, AddBody::run, &body);
  EXPECT_EQ(stats(program).shapeWarnings, 0);
  int64_t ninth = 8;
  gpRtRunPartition(program, 0, &ninth, AddBody::run, &body);
  EXPECT_EQ(stats(program).shapeWarnings, 1);
  EXPECT_EQ(logs.count("has recorded 9 distinct shapes (limit 8)"), 1);
  gpRtRunPartition(program, 0, &ninth, AddBody::run, &body); // known
  EXPECT_EQ(stats(program).shapeWarnings, 1);
  for (int64_t key = 9; key < 12; ++key)
    gpRtRunPartition(program, 0, &key, AddBody::run, &body);
  EXPECT_EQ(stats(program).shapeWarnings, 4);
  EXPECT_EQ(logs.count("warning:"), 4);
}

TEST_F(ProgramTest, ShapeWarningLimitFromApiAndEnvironment) {
  setenv("GP_CUDAGRAPH_SHAPE_WARNING_LIMIT", "2", 1);
  gpRtProgram *program = makeProgram();
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody body{&total, 1};
  for (int64_t key = 0; key < 3; ++key)
    gpRtRunPartition(program, 0, &key, AddBody::run, &body);
  EXPECT_EQ(stats(program).shapeWarnings, 1);
  ASSERT_EQ(gpRtProgramSetShapeWarningLimit(program, 10), GP_RT_SUCCESS);
  int64_t key = 3;
  gpRtRunPartition(program, 0, &key, AddBody::run, &body);
  EXPECT_EQ(stats(program).shapeWarnings, 1);
}

// Or-error: anything that would run uncaptured fails instead, naming why;
// warm-up and capture are fine.
TEST_F(ProgramTest, OrErrorMode) {
  gpRtProgram *program = makeProgram();
  ASSERT_EQ(gpRtProgramSetOrError(program, 1), GP_RT_SUCCESS);
  int64_t total = 0;
  AddBody body{&total, 1};
  EXPECT_EQ(gpRtRunPartition(program, 1, nullptr, AddBody::run, &body),
            GP_RT_ERROR_NOT_CAPTURED);
  EXPECT_NE(std::string(gpRtGetLastError()).find("cpu ops, device copy"),
            std::string::npos);
  int64_t sizes[] = {1};
  gpRtProgramSetCaptureSizes(program, sizes, 1, 1);
  int64_t unlisted = 2, listed = 1;
  EXPECT_EQ(gpRtRunPartition(program, 0, &unlisted, AddBody::run, &body),
            GP_RT_ERROR_NOT_CAPTURED);
  EXPECT_NE(std::string(gpRtGetLastError()).find("not in the capture sizes"),
            std::string::npos);
  for (int run = 0; run < 3; ++run)
    EXPECT_EQ(gpRtRunPartition(program, 0, &listed, AddBody::run, &body),
              GP_RT_SUCCESS);
  EXPECT_EQ(total, 3);
  EXPECT_EQ(stats(program).eagerRuns, 0);
}

TEST_F(ProgramTest, OrErrorFromEnvironment) {
  setenv("GP_CUDAGRAPH_OR_ERROR", "1", 1);
  gpRtProgram *program = makeProgram();
  int64_t total = 0;
  AddBody body{&total, 1};
  EXPECT_EQ(gpRtRunPartition(program, 1, nullptr, AddBody::run, &body),
            GP_RT_ERROR_NOT_CAPTURED);
  EXPECT_EQ(total, 0);
}

// Booleans in the environment: 0/1, true/false, on/off, yes/no; anything
// else warns and keeps the default. "false" used to turn or-error mode on.
TEST_F(ProgramTest, OrErrorEnvironmentWords) {
  struct Case {
    const char *value;
    bool orError;
    int warnings;
  };
  for (Case c :
       {Case{"false", false, 0}, Case{"OFF", false, 0}, Case{"0", false, 0},
        Case{"no", false, 0}, Case{"true", true, 0}, Case{"on", true, 0},
        Case{"1", true, 0}, Case{"maybe", false, 1}}) {
    setenv("GP_CUDAGRAPH_OR_ERROR", c.value, 1);
    logs.lines.clear();
    gpRtProgram *program = makeProgram();
    int64_t total = 0;
    AddBody body{&total, 1};
    gpRtStatus status =
        gpRtRunPartition(program, 1, nullptr, AddBody::run, &body);
    EXPECT_EQ(status, c.orError ? GP_RT_ERROR_NOT_CAPTURED : GP_RT_SUCCESS)
        << c.value;
    EXPECT_EQ(logs.count("GP_CUDAGRAPH_OR_ERROR='maybe' is not a boolean"),
              c.warnings)
        << c.value;
  }
}

// A capture-size list whose keys have another length than a partition's
// shape key does not apply to it: say so, naming the partition.
TEST_F(ProgramTest, CaptureSizesOfAnotherKeyLengthWarn) {
  setenv("GP_CUDAGRAPH_CAPTURE_SIZES", "2x3,4x5", 1);
  makeProgram(/*symbols=*/1);
  EXPECT_EQ(logs.count("partition 0 has a shape key of 1 sizes but the "
                       "capture sizes have 2"),
            1);
  EXPECT_EQ(logs.count("partition 1"), 0); // Eager: no key to match.
  unsetenv("GP_CUDAGRAPH_CAPTURE_SIZES");
  logs.lines.clear();
  gpRtProgram *program = makeProgram(/*symbols=*/2);
  EXPECT_EQ(logs.count("warning:"), 0);
  int64_t sizes[] = {1, 2, 3};
  ASSERT_EQ(gpRtProgramSetCaptureSizes(program, sizes, 3, 1), GP_RT_SUCCESS);
  EXPECT_EQ(logs.count("partition 0 has a shape key of 2 sizes but the "
                       "capture sizes have 1"),
            1);
}

/// Writes the thread's tag into its arena, through the arena pointer.
struct ArenaBody {
  int64_t *slot;
  int64_t tag;
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<ArenaBody *>(data);
    void *params[] = {&self->slot, &self->tag};
    int64_t sizes[] = {sizeof(int64_t *), sizeof(int64_t)};
    return gpRtLaunchHostKernel(stream, addKernel, params, sizes, 2);
  }
};

// Eight threads run and capture one program at once: each gets its own
// arena (pool) and graphs, and none writes into another's.
TEST_F(ProgramTest, ThreadBoundPools) {
  gpRtProgram *program = makeProgram(1, /*arena=*/4096);
  constexpr int kThreads = 8, kRuns = 50;
  std::vector<void *> arenas(kThreads);
  std::vector<int64_t> results(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      void *arena = nullptr;
      if (gpRtProgramArena(program, &arena) != GP_RT_SUCCESS || !arena) {
        ++failures;
        return;
      }
      arenas[t] = arena;
      auto *slot = static_cast<int64_t *>(arena);
      *slot = 0;
      ArenaBody body{slot, t + 1};
      int64_t key = 16;
      for (int run = 0; run < kRuns; ++run)
        if (gpRtRunPartition(program, 0, &key, ArenaBody::run, &body) !=
            GP_RT_SUCCESS)
          ++failures;
      results[t] = *slot;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 0);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(results[t], (t + 1) * kRuns) << "thread " << t;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(arenas[t]) % 256, 0u);
    for (int u = 0; u < t; ++u)
      EXPECT_NE(arenas[t], arenas[u]);
  }
  gpRtStats s = stats(program);
  EXPECT_EQ(s.captures, kThreads);
  EXPECT_EQ(s.liveStreams, kThreads);
  EXPECT_EQ(s.poolBytes, kThreads * 4096);
}

/// Launches on a stream from another thread.
gpRtStatus launchFromOtherThread(gpRtStream *stream, void *data) {
  gpRtStatus status = GP_RT_SUCCESS;
  std::thread other([&] { status = AddBody::run(stream, data); });
  other.join();
  return status;
}

TEST_F(ProgramTest, StreamsBelongToTheirThread) {
  gpRtProgram *program = makeProgram();
  int64_t total = 0;
  AddBody body{&total, 1};
  int64_t key = 1;
  EXPECT_EQ(gpRtRunPartition(program, 0, &key, launchFromOtherThread, &body),
            GP_RT_ERROR_WRONG_THREAD);
  EXPECT_EQ(total, 0);
}

/// Fails the way a body that hits an error would.
gpRtStatus failingBody(gpRtStream *, void *) { return GP_RT_ERROR_BACKEND; }

// A failing body fails the run; a capture that fails leaves no graph, so
// the next run captures again.
TEST_F(ProgramTest, FailedCaptureLeavesNoGraph) {
  gpRtProgram *program = makeProgram();
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  int64_t key = 1;
  EXPECT_EQ(gpRtRunPartition(program, 0, &key, failingBody, nullptr),
            GP_RT_ERROR_BACKEND);
  EXPECT_EQ(stats(program).captures, 0);
  int64_t total = 0;
  AddBody body{&total, 1};
  EXPECT_EQ(gpRtRunPartition(program, 0, &key, AddBody::run, &body),
            GP_RT_SUCCESS);
  EXPECT_EQ(stats(program).captures, 1);
  EXPECT_EQ(total, 1);
}

// Releasing programs releases their graphs, executables, streams and pools.
TEST_F(ProgramTest, ReleaseBringsLiveCountsToZero) {
  int64_t programs0, graphs0, streams0, pool0;
  ASSERT_EQ(gpRtGetLiveCounts(&programs0, &graphs0, &streams0, &pool0),
            GP_RT_SUCCESS);
  {
    gpRtProgram *program = makeProgram(1, 2048);
    ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
    int64_t total = 0;
    AddBody body{&total, 1};
    std::thread worker([&] {
      int64_t key = 5;
      gpRtRunPartition(program, 0, &key, AddBody::run, &body);
    });
    worker.join();
    for (int64_t key = 0; key < 3; ++key)
      gpRtRunPartition(program, 0, &key, twoLaunches, &body);
    int64_t programs, graphs, streams, pool;
    gpRtGetLiveCounts(&programs, &graphs, &streams, &pool);
    EXPECT_EQ(programs, programs0 + 1);
    EXPECT_GT(graphs, graphs0);
    EXPECT_EQ(streams, streams0 + 2);
    EXPECT_EQ(pool, pool0 + 2 * 2048);
    ASSERT_EQ(gpRtProgramDestroy(program), GP_RT_SUCCESS);
    this->programs.pop_back();
  }
  int64_t programs, graphs, streams, pool;
  gpRtGetLiveCounts(&programs, &graphs, &streams, &pool);
  EXPECT_EQ(programs, programs0);
  EXPECT_EQ(graphs, graphs0);
  EXPECT_EQ(streams, streams0);
  EXPECT_EQ(pool, pool0);
}

// Every replay of a forward draws fresh numbers; its backward draws the
// same numbers, also when two forwards run before their backwards and the
// backwards run in the other order (fwd0, fwd1, bwd1, bwd0).
TEST_F(ProgramTest, RngForwardBackwardPairs) {
  gpRtProgram *program = makeProgram();
  auto draw = [](uint64_t seed, uint64_t offset) {
    std::vector<float> values(16);
    gpRtPhiloxUniform(seed, offset, values.data(), values.size());
    return values;
  };
  uint64_t seed0, offset0, seed1, offset1;
  int64_t inv0, inv1;
  ASSERT_EQ(gpRtRngForward(program, 0, &seed0, &offset0, &inv0), GP_RT_SUCCESS);
  ASSERT_EQ(gpRtRngForward(program, 0, &seed1, &offset1, &inv1), GP_RT_SUCCESS);
  std::vector<float> fwd0 = draw(seed0, offset0), fwd1 = draw(seed1, offset1);
  EXPECT_NE(fwd0, fwd1); // Replays draw fresh numbers.

  uint64_t bseed, boffset;
  ASSERT_EQ(gpRtRngBackward(program, 0, inv1, &bseed, &boffset), GP_RT_SUCCESS);
  EXPECT_EQ(draw(bseed, boffset), fwd1);
  ASSERT_EQ(gpRtRngBackward(program, 0, inv0, &bseed, &boffset), GP_RT_SUCCESS);
  EXPECT_EQ(draw(bseed, boffset), fwd0);

  // A backward without a pending forward is an error, not a guess.
  EXPECT_EQ(gpRtRngBackward(program, 0, inv0, &bseed, &boffset),
            GP_RT_ERROR_INVALID_ARGUMENT);
  // Generators are independent: the other op draws other numbers.
  uint64_t otherSeed, otherOffset;
  int64_t otherInv;
  ASSERT_EQ(gpRtRngForward(program, 1, &otherSeed, &otherOffset, &otherInv),
            GP_RT_SUCCESS);
  EXPECT_NE(draw(otherSeed, otherOffset), fwd0);
}

TEST_F(ProgramTest, RngIsReproducibleFromTheSeed) {
  gpRtProgram *a = makeProgram(1, 0, /*seed=*/1234);
  gpRtProgram *b = makeProgram(1, 0, /*seed=*/1234);
  gpRtProgram *c = makeProgram(1, 0, /*seed=*/99);
  uint64_t seedA, offsetA, seedB, offsetB, seedC, offsetC;
  int64_t inv;
  gpRtRngForward(a, 0, &seedA, &offsetA, &inv);
  gpRtRngForward(b, 0, &seedB, &offsetB, &inv);
  gpRtRngForward(c, 0, &seedC, &offsetC, &inv);
  EXPECT_EQ(seedA, seedB);
  EXPECT_EQ(offsetA, offsetB);
  EXPECT_NE(seedA, seedC);
  float x[8], y[8];
  gpRtPhiloxUniform(seedA, offsetA, x, 8);
  gpRtPhiloxUniform(seedB, offsetB, y, 8);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(x[i], y[i]);
    EXPECT_GE(x[i], 0.0f);
    EXPECT_LT(x[i], 1.0f);
  }
}

// The load log gives the partition count and each eager partition's reasons.
TEST_F(ProgramTest, PartitionLog) {
  gpRtSetLog(GP_RT_LOG_PARTITIONS, LogCapture::sink, &logs);
  makeProgram();
  EXPECT_EQ(logs.count("test: 2 partitions: 1 capturable, 1 eager"), 1);
  EXPECT_EQ(logs.count("partition 1 is eager: cpu ops, device copy"), 1);
}

TEST_F(ProgramTest, CudagraphLogSaysWhatHappened) {
  gpRtSetLog(GP_RT_LOG_CUDAGRAPHS, LogCapture::sink, &logs);
  gpRtProgram *program = makeProgram();
  int64_t total = 0;
  AddBody body{&total, 1};
  int64_t key = 2;
  for (int run = 0; run < 3; ++run)
    gpRtRunPartition(program, 0, &key, AddBody::run, &body);
  gpRtRunPartition(program, 1, nullptr, AddBody::run, &body);
  EXPECT_EQ(logs.count("partition 0 shape [2]: warm-up run"), 1);
  EXPECT_EQ(logs.count("partition 0 shape [2]: captured"), 1);
  EXPECT_EQ(logs.count("partition 0 shape [2]: instantiated"), 1);
  EXPECT_EQ(logs.count("partition 0 shape [2]: replayed"), 2);
  EXPECT_EQ(logs.count("partition 1 shape []: eager run: eager partition: "
                       "cpu ops, device copy"),
            1);
}

// C ABI misuse: codes and messages, never a crash.
TEST_F(ProgramTest, ErrorPaths) {
  gpRtProgram *program = makeProgram();
  int64_t total = 0;
  AddBody body{&total, 1};
  EXPECT_EQ(gpRtRunPartition(nullptr, 0, nullptr, AddBody::run, &body),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtRunPartition(program, 7, nullptr, AddBody::run, &body),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError()).find("no partition 7"),
            std::string::npos);
  EXPECT_EQ(gpRtRunPartition(program, 0, nullptr, AddBody::run, &body),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError()).find("needs a shape key"),
            std::string::npos);
  EXPECT_EQ(gpRtRunPartition(program, 0, nullptr, nullptr, &body),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtProgramSetWarmupRuns(program, -1),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtProgramSetShapeWarningLimit(program, -1),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtLaunchHostKernel(nullptr, addKernel, nullptr, nullptr, 0),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtRngForward(program, 5, nullptr, nullptr, nullptr),
            GP_RT_ERROR_INVALID_ARGUMENT);
  uint64_t seed, offset;
  int64_t inv;
  EXPECT_EQ(gpRtRngForward(program, 5, &seed, &offset, &inv),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtProgramDestroy(nullptr), GP_RT_ERROR_INVALID_ARGUMENT);

  gpRtProgramInfo bad{"bad", -1, nullptr, 0, 0, 0};
  gpRtProgram *out = nullptr;
  EXPECT_EQ(gpRtProgramCreate(&bad, GP_RT_BACKEND_HOST, 0, &out),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtProgramCreate(&bad, static_cast<gpRtBackend>(9), 0, &out),
            GP_RT_ERROR_INVALID_ARGUMENT);
  // A cuda program needs a usable device; without one the reason says so.
  gpRtProgramInfo ok{"ok", 0, nullptr, 0, 0, 0};
  if (gpRtBackendAvailable(GP_RT_BACKEND_CUDA) != GP_RT_SUCCESS) {
    EXPECT_NE(gpRtProgramCreate(&ok, GP_RT_BACKEND_CUDA, 0, &out),
              GP_RT_SUCCESS);
    EXPECT_STRNE(gpRtGetLastError(), "");
  }
  EXPECT_EQ(gpRtProgramCreate(&ok, GP_RT_BACKEND_HOST, 0, &out), GP_RT_SUCCESS);
  // Host programs have no cuda modules.
  void *module = nullptr;
  EXPECT_EQ(gpRtCudaLoadModule(out, "", &module), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtProgramDestroy(out), GP_RT_SUCCESS);
}

// Copies to and from program memory (host memory on the host backend).
TEST_F(ProgramTest, CopiesAndSynchronize) {
  gpRtProgram *program = makeProgram(1, 512);
  void *arena = nullptr;
  ASSERT_EQ(gpRtProgramArena(program, &arena), GP_RT_SUCCESS);
  int64_t in[4] = {1, 2, 3, 4}, out[4] = {};
  ASSERT_EQ(gpRtCopyToProgram(program, arena, in, sizeof(in)), GP_RT_SUCCESS);
  ASSERT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
  ASSERT_EQ(gpRtCopyFromProgram(program, out, arena, sizeof(out)),
            GP_RT_SUCCESS);
  EXPECT_EQ(out[3], 4);
  EXPECT_EQ(gpRtCopyToProgram(program, nullptr, in, 8),
            GP_RT_ERROR_INVALID_ARGUMENT);
}

} // namespace

namespace {

/// Writes `tag` into a buffer of `bytes` it asks the runtime for, and
/// remembers where the buffer was.
struct AllocatingBody {
  int64_t bytes;
  int64_t tag;
  int64_t *buffer = nullptr;
  static void write(void **params) {
    **static_cast<int64_t **>(params[0]) = *static_cast<int64_t *>(params[1]);
  }
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<AllocatingBody *>(data);
    void *pointer = nullptr;
    if (gpRtStatus status = gpRtAllocate(stream, self->bytes, &pointer))
      return status;
    self->buffer = static_cast<int64_t *>(pointer);
    void *params[] = {&self->buffer, &self->tag};
    int64_t sizes[] = {sizeof(int64_t *), sizeof(int64_t)};
    return gpRtLaunchHostKernel(stream, write, params, sizes, 2);
  }
};

// Buffers sized at run time are planned per shape key: the capture gets a
// pool of what the warm-up asked for, replays keep using it, and warm-up
// memory is released when its run ends.
TEST_F(ProgramTest, RuntimeSizedBuffersArePlannedPerShapeKey) {
  gpRtProgram *program = makeProgram(1, 0);
  int64_t programs, graphs, streams, pool0, pool;
  AllocatingBody body{1000, 7};
  int64_t key = 1000;
  ASSERT_EQ(gpRtRunPartition(program, 0, &key, AllocatingBody::run, &body),
            GP_RT_SUCCESS); // warm-up
  gpRtGetLiveCounts(&programs, &graphs, &streams, &pool0);
  ASSERT_EQ(gpRtRunPartition(program, 0, &key, AllocatingBody::run, &body),
            GP_RT_SUCCESS) // capture + replay
      << gpRtGetLastError();
  int64_t *captured = body.buffer;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(captured) % 256, 0u);
  EXPECT_EQ(*captured, 7);
  *captured = 0;
  ASSERT_EQ(gpRtRunPartition(program, 0, &key, AllocatingBody::run, &body),
            GP_RT_SUCCESS); // replay: same buffer, written again
  EXPECT_EQ(*captured, 7);
  gpRtGetLiveCounts(&programs, &graphs, &streams, &pool);
  EXPECT_EQ(pool, pool0 + 1024); // the key's pool; warm-up memory is gone
  EXPECT_EQ(stats(program).poolBytes, 1024);

  // Another key: the partition's one pool grows to its plan (not the sum).
  AllocatingBody other{5000, 9};
  int64_t key2 = 5000;
  for (int run = 0; run < 2; ++run)
    ASSERT_EQ(gpRtRunPartition(program, 0, &key2, AllocatingBody::run, &other),
              GP_RT_SUCCESS);
  EXPECT_EQ(stats(program).poolBytes, 5120);
  EXPECT_EQ(stats(program).largestPlanBytes, 5120);
}

/// AllocatingBody that hands its buffer back as the partition's result.
struct HandingBackBody {
  AllocatingBody body;
  int64_t **result;
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<HandingBackBody *>(data);
    gpRtStatus status = AllocatingBody::run(stream, &self->body);
    *self->result = self->body.buffer;
    return status;
  }
};

// One pool serves every shape of a partition: it is as large as the
// largest shape's plan, a larger shape replaces it, and the graphs of the
// shapes captured before are re-bound to the new pool (their buffers and
// handed-back results move with it) instead of keeping the old one or
// capturing again. Shapes then take turns without captures, all in the
// same memory, each writing its own value.
TEST_F(ProgramTest, OnePoolServesEveryShape) {
  gpRtProgram *program = makeProgram(1, 0);
  std::vector<int64_t> sizes = {1000, 5000, 3000, 200};
  std::vector<int64_t *> results(sizes.size(), nullptr);
  auto run = [&](size_t which) {
    int64_t key = sizes[which];
    HandingBackBody body{{sizes[which], 100 + int64_t(which)},
                         &results[which]};
    results[which] = nullptr;
    return gpRtRunPartitionWithResults(program, 0, &key, HandingBackBody::run,
                                       &body, &results[which],
                                       sizeof(int64_t *), nullptr, 0);
  };
  auto liveBytes = [] {
    int64_t programs, graphs, streams, bytes;
    gpRtGetLiveCounts(&programs, &graphs, &streams, &bytes);
    return bytes;
  };
  for (size_t which = 0; which < sizes.size(); ++which) {
    ASSERT_EQ(run(which), GP_RT_SUCCESS) << gpRtGetLastError(); // warm-up
    int64_t before = liveBytes();
    ASSERT_EQ(run(which), GP_RT_SUCCESS) << gpRtGetLastError(); // capture
    if (which == 1) // 1024 released, 5120 taken
      EXPECT_EQ(liveBytes() - before, 5120 - 1024);
    if (which > 1) // fits the pool
      EXPECT_EQ(liveBytes(), before);
  }
  EXPECT_EQ(stats(program).captures, 4);
  EXPECT_EQ(stats(program).poolBytes, 5120); // not 1024 + 5120 + 3072 + 256
  EXPECT_EQ(stats(program).largestPlanBytes, 5120);
  for (int round = 0; round < 3; ++round)
    for (size_t which = 0; which < sizes.size(); ++which) {
      ASSERT_EQ(run(which), GP_RT_SUCCESS) << gpRtGetLastError();
      ASSERT_NE(results[which], nullptr);
      EXPECT_EQ(*results[which], 100 + int64_t(which)) << "shape " << which;
      // Every shape's buffer is the pool's first slot now.
      EXPECT_EQ(results[which], results[1]) << "shape " << which;
    }
  gpRtStats s = stats(program);
  EXPECT_EQ(s.captures, 4);
  EXPECT_EQ(s.poolBytes, 5120);
  EXPECT_EQ(s.rebinds, 1); // the first shape, once, to the grown pool
}

/// Allocates `count` buffers of `bytes` in turn, freeing each after
/// writing it (a chain of temporaries), and keeps the last one.
struct FreeingBody {
  int64_t bytes;
  int count;
  std::vector<void *> seen;
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<FreeingBody *>(data);
    self->seen.clear();
    for (int i = 0; i < self->count; ++i) {
      void *pointer = nullptr;
      if (gpRtStatus status = gpRtAllocate(stream, self->bytes, &pointer))
        return status;
      self->seen.push_back(pointer);
      if (i + 1 < self->count)
        if (gpRtStatus status = gpRtFree(stream, pointer))
          return status;
    }
    return GP_RT_SUCCESS;
  }
};

// Frees at their planned points: an eager run hands a freed block out
// again, and a captured key's pool holds what is live at once (one block
// for a chain of temporaries), not the sum of every allocation.
TEST_F(ProgramTest, RuntimeSizedFreesShrinkPools) {
  gpRtProgram *program = makeProgram(1, 0);
  FreeingBody body{1000, 4};
  int64_t key = 1000;
  ASSERT_EQ(gpRtRunPartition(program, 0, &key, FreeingBody::run, &body),
            GP_RT_SUCCESS); // warm-up: eager, blocks reused in the run
  EXPECT_EQ(body.seen[0], body.seen[1]);
  EXPECT_EQ(body.seen[1], body.seen[3]);
  ASSERT_EQ(gpRtRunPartition(program, 0, &key, FreeingBody::run, &body),
            GP_RT_SUCCESS) // capture + replay
      << gpRtGetLastError();
  EXPECT_EQ(body.seen[0], body.seen[3]);     // one slot of the pool
  EXPECT_EQ(stats(program).poolBytes, 1024); // not 4 * 1024
  // Live at once: no overlap (an allocation while another is alive).
  struct TwoLive {
    std::vector<void *> seen;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<TwoLive *>(data);
      self->seen.assign(3, nullptr);
      if (gpRtStatus status = gpRtAllocate(stream, 300, &self->seen[0]))
        return status;
      if (gpRtStatus status = gpRtAllocate(stream, 300, &self->seen[1]))
        return status;
      if (gpRtStatus status = gpRtFree(stream, self->seen[0]))
        return status;
      return gpRtAllocate(stream, 200, &self->seen[2]);
    }
  } two;
  int64_t key2 = 300;
  for (int run = 0; run < 3; ++run)
    ASSERT_EQ(gpRtRunPartition(program, 0, &key2, TwoLive::run, &two),
              GP_RT_SUCCESS);
  EXPECT_NE(two.seen[0], two.seen[1]);
  EXPECT_EQ(two.seen[2], two.seen[0]); // the freed slot, taken again
  EXPECT_EQ(stats(program).poolBytes, 1024); // both keys' plans fit one
  // A pointer the runtime did not allocate is ignored.
  int64_t local = 0;
  struct Foreign {
    int64_t *pointer;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      return gpRtFree(stream, static_cast<Foreign *>(data)->pointer);
    }
  } foreign{&local};
  int64_t key3 = 1;
  EXPECT_EQ(gpRtRunPartition(program, 0, &key3, Foreign::run, &foreign),
            GP_RT_SUCCESS);
}

/// Asks gpRtAllocate for more than can be.
gpRtStatus oversizedBody(gpRtStream *stream, void *) {
  void *pointer = nullptr;
  return gpRtAllocate(stream, INT64_MAX, &pointer);
}

// Sizes that cannot be allocated are errors, never a small block that the
// caller then overruns (INT64_MAX + 255 used to wrap to 256 bytes).
TEST_F(ProgramTest, OversizedAllocationsFail) {
  gpRtProgram *program = makeProgram();
  void *pointer = nullptr;
  EXPECT_EQ(gpRtProgramAllocate(program, INT64_MAX, &pointer),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError())
                .find("is not a size that can be allocated"),
            std::string::npos);
  EXPECT_EQ(pointer, nullptr);
  int64_t key = 1;
  EXPECT_EQ(gpRtRunPartition(program, 0, &key, oversizedBody, nullptr),
            GP_RT_ERROR_INVALID_ARGUMENT);
  // The program stays usable.
  ASSERT_EQ(gpRtProgramAllocate(program, 64, &pointer), GP_RT_SUCCESS);
  EXPECT_EQ(gpRtProgramFree(program, pointer), GP_RT_SUCCESS);
  partitions[0] = {1, 1, nullptr};
  gpRtProgramInfo info{"huge", 1, partitions, INT64_MAX, 0, 0};
  gpRtProgram *huge = nullptr;
  EXPECT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_HOST, 0, &huge),
            GP_RT_ERROR_INVALID_ARGUMENT);
  // A corrupt generator count (scripts/fuzz.sh: a manifest's
  // "generators 0777777777777777777777" took all the host's memory).
  gpRtProgramInfo generators{"rng", 1, partitions, 0, (1 << 20) + 1, 0};
  EXPECT_EQ(gpRtProgramCreate(&generators, GP_RT_BACKEND_HOST, 0, &huge),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError()).find("RNG generators"),
            std::string::npos);
}

// Without a warm-up run there is nothing to plan from: an allocation during
// the capture is a capture fault, not an allocation mid-capture. The shape
// runs eagerly from then on, with a warning saying why; in or-error mode
// the run is an error that says so.
TEST_F(ProgramTest, RuntimeSizedBuffersNeedAWarmup) {
  gpRtProgram *program = makeProgram(1, 0);
  ASSERT_EQ(gpRtProgramSetWarmupRuns(program, 0), GP_RT_SUCCESS);
  AllocatingBody body{64, 1};
  int64_t key = 64;
  EXPECT_EQ(gpRtRunPartition(program, 0, &key, AllocatingBody::run, &body),
            GP_RT_SUCCESS);
  EXPECT_EQ(*body.buffer, 1);
  EXPECT_EQ(logs.count("run at least one warm-up"), 1);
  EXPECT_EQ(gpRtRunPartition(program, 0, &key, AllocatingBody::run, &body),
            GP_RT_SUCCESS);
  EXPECT_EQ(stats(program).captures, 0);
  EXPECT_EQ(stats(program).eagerRuns, 2);
  ASSERT_EQ(gpRtProgramSetOrError(program, 1), GP_RT_SUCCESS);
  EXPECT_EQ(gpRtRunPartition(program, 0, &key, AllocatingBody::run, &body),
            GP_RT_ERROR_NOT_CAPTURED);
  EXPECT_NE(std::string(gpRtGetLastError()).find("warm-up"), std::string::npos);
  void *pointer = nullptr;
  EXPECT_EQ(gpRtAllocate(nullptr, 8, &pointer), GP_RT_ERROR_INVALID_ARGUMENT);
}

} // namespace

namespace {

/// A body that writes `result` for its caller (as a compiled partition
/// writes the descriptors of its outputs) and adds to `*target`.
struct ResultBody {
  AddBody add;
  int64_t result;
  int64_t *resultSlot;
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<ResultBody *>(data);
    *self->resultSlot = self->result;
    return AddBody::run(stream, &self->add);
  }
};

// What a capture's body hands back is written back on every replay, which
// does not run the body.
TEST_F(ProgramTest, ResultsAreKeptAcrossReplays) {
  gpRtProgram *program = makeProgram();
  int64_t total = 0, slot = 0, key = 3;
  ResultBody body{{&total, 1}, 42, &slot};
  gpRtPartitionInput input{&total, sizeof(total)};
  for (int run = 0; run < 4; ++run) {
    slot = -1;
    ASSERT_EQ(gpRtRunPartitionWithResults(program, 0, &key, ResultBody::run,
                                          &body, &slot, sizeof(slot), &input,
                                          1),
              GP_RT_SUCCESS);
    EXPECT_EQ(slot, 42) << "run " << run;
  }
  EXPECT_EQ(stats(program).replays, 3);
}

/// A body whose context (its user data, as a compiled partition's) holds
/// one descriptor pointer; it counts its runs.
struct ContextBody {
  int runs = 0;
  static gpRtStatus run(gpRtStream *, void *data) {
    auto **context = static_cast<void **>(data);
    ++static_cast<ContextBody *>(context[1])->runs;
    return GP_RT_SUCCESS;
  }
};

// gpRtRunPartitionInContext reads each buffer input's reach from its
// descriptor in the context, as the layout table says: a strided buffer
// runs; one whose strides make it reach a negative number of bytes is
// refused as gpRtRunPartitionWithResults refuses it; a null table is an
// error, not a crash.
TEST_F(ProgramTest, InputsReachedThroughTheirDescriptors) {
  gpRtProgram *program = makeProgram();
  float data[12] = {};
  ContextBody body;
  // allocated, aligned, offset, sizes[2], strides[2]
  int64_t descriptor[7] = {reinterpret_cast<int64_t>(data),
                           reinterpret_cast<int64_t>(data), 2, 2, 3, 4, 1};
  void *context[2] = {descriptor, &body};
  int64_t key = 0;
  gpRtPartitionInputLayout layout{0, 2, sizeof(float), 2};
  EXPECT_EQ(gpRtRunPartitionInContext(program, 0, &key, ContextBody::run,
                                      context, nullptr, 0, &layout, 1),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(body.runs, 1);
  // A layout that is not strided: the reach is unknown (-1), still a run.
  gpRtPartitionInputLayout unknown{0, 2, sizeof(float), -1};
  EXPECT_EQ(gpRtRunPartitionInContext(program, 0, &key, ContextBody::run,
                                      context, nullptr, 0, &unknown, 1),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  // Strides that walk backwards past the start: offset 0 + (2 - 1) * -8.
  descriptor[2] = 0;
  descriptor[5] = -8;
  gpRtPartitionInputLayout backwards{0, 2, sizeof(float), 0};
  EXPECT_EQ(gpRtRunPartitionInContext(program, 0, &key, ContextBody::run,
                                      context, nullptr, 0, &backwards, 1),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError()).find("negative number of bytes"),
            std::string::npos);
  EXPECT_EQ(gpRtRunPartitionInContext(program, 0, &key, ContextBody::run,
                                      context, nullptr, 0, nullptr, 1),
            GP_RT_ERROR_INVALID_ARGUMENT);
}

// Threads call an artifact whose parameters another thread rebinds all the
// while (ParameterTest.cpp has the single-threaded cases; this one is here
// because ThreadSanitizer runs ProgramTest.*): every call sees one binding
// entirely (the weight is all 1 or all 2, never a mix) and nothing races.
TEST_F(ProgramTest, ParametersReboundWhileThreadsCall) {
  using namespace gp::test;
  ASSERT_TRUE(ParameterArtifactLibrary::get().setManifest);
  ParameterArtifactLibrary::get().setManifest(nullptr);
  gpRtArtifact *artifact = nullptr;
  ASSERT_EQ(gpRtArtifactLoad(kParameterArtifact, GP_RT_BACKEND_HOST, -1,
                             &artifact),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  float ones[4] = {1, 1, 1, 1}, twos[4] = {2, 2, 2, 2}, zeros[4] = {};
  Vec1 one = vec(ones, 4), two = vec(twos, 4), zero = vec(zeros, 4);
  ASSERT_EQ(gpRtArtifactBindParameter(artifact, "layer.weight", "f32", &one),
            GP_RT_SUCCESS);
  ASSERT_EQ(gpRtArtifactBindParameter(artifact, "layer.bias", "f32", &zero),
            GP_RT_SUCCESS);
  std::atomic<bool> done{false};
  std::atomic<int> mixed{0}, failed{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      float x[4] = {1, 1, 1, 1};
      Vec1 xd = vec(x, 4);
      for (int i = 0; i < 200; ++i) {
        Vec1 result{};
        void *args[] = {&xd, nullptr, nullptr}, *results[] = {&result};
        if (gpRtArtifactCall(artifact, 0, args, results) != GP_RT_SUCCESS) {
          ++failed;
          continue;
        }
        float first = result.aligned[0];
        for (int k = 0; k < 4; ++k)
          if (result.aligned[k] != first || (first != 1 && first != 2))
            ++mixed;
      }
    });
  std::thread binder([&] {
    for (int i = 0; !done; ++i)
      if (gpRtArtifactBindParameter(artifact, "layer.weight", "f32",
                                    i % 2 ? &one : &two) != GP_RT_SUCCESS)
        ++failed;
  });
  for (std::thread &caller : callers)
    caller.join();
  done = true;
  binder.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(mixed, 0);
  EXPECT_EQ(gpRtArtifactUnload(artifact), GP_RT_SUCCESS);
}

} // namespace
