//===- HandleDebugTest.cpp - GP_DEBUG_HANDLES catches stale handles -------===//
//
// Issue 40: a caller that unloads an artifact (or destroys a program) and
// then calls it reads freed memory. With GP_DEBUG_HANDLES=1 the runtime
// keeps its handles in a registry and poisons unloaded ones instead of
// freeing them, and every C entry point that takes a handle fails, naming
// it, on one that was unloaded or never handed out. The artifact is the
// hand-written one of CallCheckArtifact.cpp, whose entries count their
// calls, so a test can tell that nothing ran.
//
// The variable is read once per process, by its first check, and this
// process's other tests have read it already: the tests with the mode on
// run in a child process started afresh (a death test in the threadsafe
// style, which re-executes the binary), which sets it before its first
// call into the runtime.
//
//===----------------------------------------------------------------------===//

#include "CallCheckSupport.h"
#include "TensorTestSupport.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

using gp::test::callCounter;

const char *kArtifact = GP_TEST_CALL_CHECK_ARTIFACT;
constexpr int32_t kScale = 0, kAnswer = 1; // CallCheckArtifact's entries.

/// How the runtime's messages print a handle.
std::string hex(const void *handle) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", handle);
  return text;
}

int64_t livePrograms() {
  int64_t programs = 0, graphs = 0, streams = 0, poolBytes = 0;
  EXPECT_EQ(gpRtGetLiveCounts(&programs, &graphs, &streams, &poolBytes),
            GP_RT_SUCCESS);
  return programs;
}

/// Exits the child: 0 when every expectation held, else 1 after writing
/// the failures to stderr (the child's own reports are not forwarded).
[[noreturn]] void exitChild() {
  const ::testing::TestResult &result =
      *::testing::UnitTest::GetInstance()->current_test_info()->result();
  for (int i = 0; i < result.total_part_count(); ++i) {
    const ::testing::TestPartResult &part = result.GetTestPartResult(i);
    if (part.failed())
      std::fprintf(stderr, "%s:%d: %s\n", part.file_name(), part.line_number(),
                   part.message());
  }
  std::fflush(stderr);
  std::exit(result.Failed() ? 1 : 0);
}

/// Runs `body` with GP_DEBUG_HANDLES=1 in a fresh child process; the test
/// fails unless every expectation there held.
void inChildWithHandleChecks(void (*body)()) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("GP_DEBUG_HANDLES", "1", 1);
        body();
        exitChild();
      },
      ::testing::ExitedWithCode(0), "");
}

/// Every artifact entry point returning a status, called on `artifact`.
std::vector<std::pair<const char *, std::function<gpRtStatus()>>>
artifactCalls(gpRtArtifact *artifact) {
  static int64_t answer, bytes, arena, hostArena;
  static void *results[] = {&answer};
  static float host[4], weights[4] = {1, 2, 3, 4};
  static struct {
    float *allocated, *aligned;
    int64_t offset, size, stride;
  } w{weights, weights, 0, 4, 1};
  static gpRtProgram *program;
  static gpRtPartitionInfo partition;
  static gpRtEntryInfo entry;
  static gpRtParameterInfo parameter;
  static gpRtSizeInfo size;
  static const char *text;
  static int32_t index;
  return {
      {"gpRtArtifactCall",
       [=] { return gpRtArtifactCall(artifact, kAnswer, nullptr, results); }},
      {"gpRtArtifactCallChecked",
       [=] {
         return gpRtArtifactCallChecked(artifact, kAnswer, nullptr, 0, results,
                                        1);
       }},
      {"gpRtArtifactCallOnStream",
       [=] {
         return gpRtArtifactCallOnStream(artifact, kAnswer, nullptr, results,
                                         nullptr);
       }},
      {"gpRtArtifactCallOnStreamChecked",
       [=] {
         return gpRtArtifactCallOnStreamChecked(artifact, kAnswer, nullptr, 0,
                                                results, 1, nullptr);
       }},
      {"gpRtArtifactCallWithOutputs",
       [=] {
         return gpRtArtifactCallWithOutputs(artifact, kAnswer, nullptr, results,
                                            nullptr, nullptr);
       }},
      {"gpRtArtifactGetProgram",
       [=] { return gpRtArtifactGetProgram(artifact, &program); }},
      {"gpRtArtifactGetArenaBytes",
       [=] { return gpRtArtifactGetArenaBytes(artifact, &arena, &hostArena); }},
      {"gpRtArtifactGetPartition",
       [=] { return gpRtArtifactGetPartition(artifact, 0, &partition); }},
      {"gpRtArtifactGetEntry",
       [=] { return gpRtArtifactGetEntry(artifact, kAnswer, &entry); }},
      {"gpRtArtifactFindEntry",
       [=] { return gpRtArtifactFindEntry(artifact, "answer", &index); }},
      {"gpRtArtifactResultBytes",
       [=] {
         return gpRtArtifactResultBytes(artifact, kScale, 0, &w, &bytes);
       }},
      {"gpRtArtifactCopyResultToHost",
       [=] {
         return gpRtArtifactCopyResultToHost(artifact, kScale, 0, &w, host,
                                             sizeof(host));
       }},
      {"gpRtArtifactSetDebugOverwrite",
       [=] { return gpRtArtifactSetDebugOverwrite(artifact, 1); }},
      {"gpRtArtifactGetParameter",
       [=] { return gpRtArtifactGetParameter(artifact, 0, &parameter); }},
      {"gpRtArtifactBindParameter",
       [=] { return gpRtArtifactBindParameter(artifact, "w", "f32", &w); }},
      {"gpRtArtifactSetPadding",
       [=] { return gpRtArtifactSetPadding(artifact, 0); }},
      {"gpRtArtifactSetCaptureSizes",
       [=] { return gpRtArtifactSetCaptureSizes(artifact, "1,2"); }},
      {"gpRtArtifactGetSize",
       [=] { return gpRtArtifactGetSize(artifact, kScale, 0, &size); }},
      {"gpRtArtifactDescribeSizes",
       [=] { return gpRtArtifactDescribeSizes(artifact, kScale, &text); }},
      // Last: a second unload, which must not free the handle again.
      {"gpRtArtifactUnload", [=] { return gpRtArtifactUnload(artifact); }},
  };
}

/// Expects every artifact entry point given `artifact` to fail before it
/// runs anything, with `text` after its name as the message.
void expectEveryArtifactCallFails(gpRtArtifact *artifact,
                                  const std::string &text) {
  int64_t calls = *callCounter();
  for (auto &[name, call] : artifactCalls(artifact))
    EXPECT_INVALID(call(), std::string(name) + ": " + text);
  // The entry points that return a value say so through the last error.
  auto failedWith = [&](const char *name) {
    std::string message = gpRtGetLastError();
    EXPECT_NE(message.find(std::string(name) + ": " + text), std::string::npos)
        << "message: " << message;
    gpRtSetError(GP_RT_SUCCESS, "");
  };
  gpRtSetError(GP_RT_SUCCESS, "");
  EXPECT_EQ(gpRtArtifactTarget(artifact), nullptr);
  failedWith("gpRtArtifactTarget");
  EXPECT_EQ(gpRtArtifactNumPartitions(artifact), 0);
  failedWith("gpRtArtifactNumPartitions");
  EXPECT_EQ(gpRtArtifactNumEntries(artifact), 0);
  failedWith("gpRtArtifactNumEntries");
  EXPECT_EQ(gpRtArtifactNumParameters(artifact), 0);
  failedWith("gpRtArtifactNumParameters");
  EXPECT_EQ(gpRtArtifactNumSizes(artifact, kScale), 0);
  failedWith("gpRtArtifactNumSizes");
  EXPECT_EQ(*callCounter(), calls) << "an entry ran";
}

/// Expects the program entry points a caller holding `program` would use to
/// fail with `text` after their names as the message.
void expectProgramCallsFail(gpRtProgram *program, const std::string &text) {
  gpRtStats stats{};
  void *arena = nullptr, *memory = nullptr;
  const char *report = nullptr;
  EXPECT_INVALID(gpRtProgramGetStats(program, &stats),
                 "gpRtProgramGetStats: " + text);
  EXPECT_INVALID(gpRtProgramSynchronize(program),
                 "gpRtProgramSynchronize: " + text);
  EXPECT_INVALID(gpRtProgramSetWarmupRuns(program, 2),
                 "gpRtProgramSetWarmupRuns: " + text);
  EXPECT_INVALID(gpRtProgramArena(program, &arena),
                 "gpRtProgramArena: " + text);
  EXPECT_INVALID(gpRtProgramAllocate(program, 64, &memory),
                 "gpRtProgramAllocate: " + text);
  EXPECT_INVALID(gpRtProgramGetBindingReport(program, &report),
                 "gpRtProgramGetBindingReport: " + text);
  EXPECT_INVALID(gpRtRunPartition(
                     program, 0, nullptr,
                     [](gpRtStream *, void *) { return GP_RT_SUCCESS; },
                     nullptr),
                 "gpRtRunPartition: " + text);
  // A second destroy, which must not free the handle again.
  EXPECT_INVALID(gpRtProgramDestroy(program), "gpRtProgramDestroy: " + text);
}

gpRtArtifact *load() {
  gpRtArtifact *artifact = nullptr;
  EXPECT_EQ(gpRtArtifactLoad(kArtifact, GP_RT_BACKEND_HOST, -1, &artifact),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  return artifact;
}

int64_t callAnswer(gpRtArtifact *artifact) {
  int64_t answer = 0;
  void *results[] = {&answer};
  EXPECT_EQ(gpRtArtifactCallChecked(artifact, kAnswer, nullptr, 0, results, 1),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  return answer;
}

TEST(HandleDebugTest, UnloadedArtifactFails) {
  ASSERT_NE(callCounter(), nullptr) << dlerror();
  inChildWithHandleChecks([] {
    int64_t programsBefore = livePrograms();
    gpRtArtifact *artifact = load();
    ASSERT_NE(artifact, nullptr);
    // A live handle works as ever in the mode.
    EXPECT_EQ(callAnswer(artifact), 42);
    gpRtProgram *program = nullptr;
    ASSERT_EQ(gpRtArtifactGetProgram(artifact, &program), GP_RT_SUCCESS);
    gpRtStats stats{};
    EXPECT_EQ(gpRtProgramGetStats(program, &stats), GP_RT_SUCCESS)
        << gpRtGetLastError();

    ASSERT_EQ(gpRtArtifactUnload(artifact), GP_RT_SUCCESS)
        << gpRtGetLastError();
    // What the artifact held is released: only the handle stays.
    EXPECT_EQ(livePrograms(), programsBefore);
    expectEveryArtifactCallFails(artifact,
                                 "artifact handle " + hex(artifact) +
                                     " was unloaded (gpRtArtifactUnload); "
                                     "caught by GP_DEBUG_HANDLES");
    // Its program, which the caller may still hold, went with it.
    expectProgramCallsFail(program, "program handle " + hex(program) +
                                        " was destroyed (gpRtProgramDestroy, "
                                        "or gpRtArtifactUnload of its "
                                        "artifact); caught by "
                                        "GP_DEBUG_HANDLES");
    EXPECT_EQ(livePrograms(), programsBefore);

    // A later artifact is a new handle, whatever the allocator does: the
    // poisoned one stays dead.
    gpRtArtifact *again = load();
    ASSERT_NE(again, nullptr);
    EXPECT_NE(again, artifact);
    EXPECT_EQ(callAnswer(again), 42);
    EXPECT_INVALID(gpRtArtifactCall(artifact, kAnswer, nullptr, nullptr),
                   "was unloaded");
    EXPECT_EQ(gpRtArtifactUnload(again), GP_RT_SUCCESS);
  });
}

TEST(HandleDebugTest, UnknownPointerFails) {
  ASSERT_NE(callCounter(), nullptr) << dlerror();
  inChildWithHandleChecks([] {
    // Never dereferenced: an address the runtime did not hand out, and
    // memory that holds no artifact.
    auto *wild = reinterpret_cast<gpRtArtifact *>(uintptr_t{0xdead0000});
    std::vector<uint64_t> garbage(64, 0xabababababababab);
    auto *heap = reinterpret_cast<gpRtArtifact *>(garbage.data());
    for (gpRtArtifact *artifact : {wild, heap}) {
      expectEveryArtifactCallFails(
          artifact, hex(artifact) +
                        " is not a loaded artifact (no gpRtArtifactLoad or "
                        "gpRtArtifactInspect returned it); caught by "
                        "GP_DEBUG_HANDLES");
      expectProgramCallsFail(reinterpret_cast<gpRtProgram *>(artifact),
                             hex(artifact) +
                                 " is not a live program (no "
                                 "gpRtProgramCreate or gpRtArtifactGetProgram "
                                 "returned it); caught by GP_DEBUG_HANDLES");
    }

    // One kind of handle is not the other.
    gpRtArtifact *artifact = load();
    ASSERT_NE(artifact, nullptr);
    gpRtProgram *program = nullptr;
    ASSERT_EQ(gpRtArtifactGetProgram(artifact, &program), GP_RT_SUCCESS);
    gpRtStats stats{};
    EXPECT_INVALID(
        gpRtProgramGetStats(reinterpret_cast<gpRtProgram *>(artifact), &stats),
        "is not a live program (no gpRtProgramCreate or "
        "gpRtArtifactGetProgram returned it; it is an artifact handle)");
    int32_t index = -1;
    EXPECT_INVALID(
        gpRtArtifactFindEntry(reinterpret_cast<gpRtArtifact *>(program),
                              "answer", &index),
        "is not a loaded artifact (no gpRtArtifactLoad or "
        "gpRtArtifactInspect returned it; it is a program handle)");
    // Null is still reported in each entry point's own words.
    EXPECT_INVALID(gpRtArtifactCall(nullptr, kAnswer, nullptr, nullptr),
                   "gpRtArtifactCall: null artifact or no such entry");
    EXPECT_INVALID(gpRtArtifactUnload(nullptr), "gpRtArtifactUnload: null");
    EXPECT_EQ(callAnswer(artifact), 42);
    EXPECT_EQ(gpRtArtifactUnload(artifact), GP_RT_SUCCESS);
  });
}

TEST(HandleDebugTest, DestroyedProgramFails) {
  inChildWithHandleChecks([] {
    int64_t programsBefore = livePrograms();
    gpRtPartitionInfo partition{};
    gpRtProgramInfo info{};
    info.name = "handles";
    info.numPartitions = 1;
    info.partitions = &partition;
    gpRtProgram *program = nullptr;
    ASSERT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_HOST, 0, &program),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    EXPECT_EQ(gpRtProgramSetWarmupRuns(program, 2), GP_RT_SUCCESS);
    ASSERT_EQ(gpRtProgramDestroy(program), GP_RT_SUCCESS);
    EXPECT_EQ(livePrograms(), programsBefore);
    expectProgramCallsFail(program, "program handle " + hex(program) +
                                        " was destroyed (gpRtProgramDestroy, "
                                        "or gpRtArtifactUnload of its "
                                        "artifact); caught by "
                                        "GP_DEBUG_HANDLES");
  });
}

/// Without the variable nothing changes: handles are freed at unload (the
/// program count goes back), calls and null checks behave as before.
TEST(HandleDebugTest, OffChangesNothing) {
  if (const char *env = std::getenv("GP_DEBUG_HANDLES"); env && *env)
    GTEST_SKIP() << "GP_DEBUG_HANDLES is set for this process";
  int64_t programsBefore = livePrograms();
  gpRtArtifact *artifact = load();
  ASSERT_NE(artifact, nullptr);
  EXPECT_EQ(livePrograms(), programsBefore + 1);
  EXPECT_EQ(callAnswer(artifact), 42);
  EXPECT_EQ(gpRtArtifactNumEntries(artifact), 4);
  EXPECT_STREQ(gpRtArtifactTarget(artifact), "host");
  EXPECT_EQ(gpRtArtifactUnload(artifact), GP_RT_SUCCESS);
  EXPECT_EQ(livePrograms(), programsBefore);
  EXPECT_INVALID(gpRtArtifactCall(nullptr, kAnswer, nullptr, nullptr),
                 "gpRtArtifactCall: null artifact or no such entry");
  EXPECT_EQ(gpRtArtifactNumEntries(nullptr), 0);
}

} // namespace
