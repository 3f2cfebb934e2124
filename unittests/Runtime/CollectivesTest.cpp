//===- CollectivesTest.cpp - ranks meeting at collectives -----------------===//
//
// Program instances joined by a local communicator (host backend), each
// run on a thread of its own: a rank waiting at a collective for a rank
// that never comes is woken by gpRtCommunicatorAbort with an error, and
// ranks that issue different collectives get an error rather than a
// result. (Correct results of every collective, captured and replayed:
// test/Runtime/E2E/collectives.test.)
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"
#include "GraphPart/Runtime/GPRuntimeLowered.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

/// One collective of `count` f32 elements, run as an eager partition.
struct CollectiveBody {
  gpRtProgram *program;
  int32_t kind;
  std::vector<float> source, target;
  gpRtStatus status = GP_RT_SUCCESS;
  std::string error;

  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *body = static_cast<CollectiveBody *>(data);
    return gpRtCollective(body->program, stream, body->kind, /*sum*/ 0,
                          body->target.data(), body->source.data(),
                          static_cast<int64_t>(body->source.size()),
                          static_cast<int64_t>(body->target.size()),
                          GP_RT_ELEMENT_F32, /*root=*/0);
  }
  void runOn() {
    status = gpRtRunPartition(program, 0, nullptr, run, this);
    if (status)
      error = gpRtGetLastError();
  }
};

class CollectivesTest : public ::testing::Test {
protected:
  void TearDown() override {
    for (gpRtProgram *program : programs)
      EXPECT_EQ(gpRtProgramDestroy(program), GP_RT_SUCCESS);
    if (communicator)
      EXPECT_EQ(gpRtCommunicatorDestroy(communicator), GP_RT_SUCCESS);
  }

  /// `count` programs, ranks of one communicator; their partition 0 runs
  /// eagerly.
  void makeRanks(int32_t count) {
    ASSERT_EQ(gpRtCommunicatorCreateLocal(count, &communicator), GP_RT_SUCCESS);
    for (int32_t rank = 0; rank < count; ++rank) {
      gpRtProgramInfo info{"ranks", 1, &partition, 0, 0, 0};
      gpRtProgram *program = nullptr;
      ASSERT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_HOST, 0, &program),
                GP_RT_SUCCESS)
          << gpRtGetLastError();
      programs.push_back(program);
      ASSERT_EQ(gpRtProgramSetCommunicator(program, communicator, rank),
                GP_RT_SUCCESS);
    }
  }

  gpRtPartitionInfo partition{0, 0, "cpu ops"};
  gpRtCommunicator *communicator = nullptr;
  std::vector<gpRtProgram *> programs;
};

TEST_F(CollectivesTest, AbortWakesARankWaitingForAnother) {
  makeRanks(2);
  CollectiveBody waiting{programs[0], /*all-reduce*/ 0, {1, 2}, {0, 0}};
  std::thread rank0([&] { waiting.runOn(); });
  // Rank 1 never comes; rank 0 waits until the communicator is aborted.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(gpRtCommunicatorAbort(communicator), GP_RT_SUCCESS);
  rank0.join();
  EXPECT_NE(waiting.status, GP_RT_SUCCESS);
  EXPECT_NE(waiting.error.find("the communicator was aborted"),
            std::string::npos)
      << waiting.error;
  EXPECT_EQ(waiting.target, (std::vector<float>{0, 0})); // Nothing written.
  // And every later collective fails at once.
  CollectiveBody later{programs[1], 0, {1, 2}, {0, 0}};
  later.runOn();
  EXPECT_NE(later.status, GP_RT_SUCCESS);
}

TEST_F(CollectivesTest, RanksThatIssueDifferentCollectivesFail) {
  makeRanks(2);
  // Rank 0 all-reduces 2 elements; rank 1 all-gathers 1 into 2.
  CollectiveBody reduce{programs[0], /*all-reduce*/ 0, {1, 2}, {0, 0}};
  CollectiveBody gather{programs[1], /*all-gather*/ 1, {5}, {0, 0}};
  std::thread rank0([&] { reduce.runOn(); });
  std::thread rank1([&] { gather.runOn(); });
  rank0.join();
  rank1.join();
  for (CollectiveBody *body : {&reduce, &gather}) {
    EXPECT_NE(body->status, GP_RT_SUCCESS);
    EXPECT_NE(body->error.find("the ranks did not issue the same collective"),
              std::string::npos)
        << body->error;
    EXPECT_EQ(body->target, (std::vector<float>{0, 0}));
  }
}

TEST_F(CollectivesTest, TwoRanksSumInPlace) {
  makeRanks(2);
  CollectiveBody first{programs[0], 0, {1, 2}, {}};
  CollectiveBody second{programs[1], 0, {10, 20}, {}};
  // In place: each rank's target is its source.
  first.target = first.source;
  second.target = second.source;
  auto inPlace = [](gpRtStream *stream, void *data) {
    auto *body = static_cast<CollectiveBody *>(data);
    return gpRtCollective(body->program, stream, 0, 0, body->target.data(),
                          body->target.data(), 2, 2, GP_RT_ELEMENT_F32, 0);
  };
  std::thread rank0([&] {
    first.status = gpRtRunPartition(programs[0], 0, nullptr, inPlace, &first);
  });
  std::thread rank1([&] {
    second.status = gpRtRunPartition(programs[1], 0, nullptr, inPlace, &second);
  });
  rank0.join();
  rank1.join();
  EXPECT_EQ(first.status, GP_RT_SUCCESS);
  EXPECT_EQ(second.status, GP_RT_SUCCESS);
  EXPECT_EQ(first.target, (std::vector<float>{11, 22}));
  EXPECT_EQ(second.target, (std::vector<float>{11, 22}));
}

// Without NCCL (here: a path that does not exist) ranks on GPUs are a
// clear error naming the library, not a crash. (The first call in the
// process decides: no other test loads NCCL.)
TEST(CollectivesNcclTest, MissingLibraryIsAClearError) {
  const char *given = std::getenv("GP_NCCL_LIBRARY");
  std::string saved = given ? given : "";
  ASSERT_EQ(setenv("GP_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1), 0);
  uint8_t id[128];
  EXPECT_EQ(gpRtNcclUniqueId(id), GP_RT_ERROR_UNAVAILABLE);
  EXPECT_NE(std::string(gpRtGetLastError())
                .find("no NCCL: cannot load /nonexistent/libnccl.so.2 (set "
                      "GP_NCCL_LIBRARY to its path)"),
            std::string::npos)
      << gpRtGetLastError();
  if (given)
    setenv("GP_NCCL_LIBRARY", saved.c_str(), 1);
  else
    unsetenv("GP_NCCL_LIBRARY");
}

TEST_F(CollectivesTest, RanksAreCheckedAgainstTheCommunicator) {
  makeRanks(2);
  EXPECT_NE(gpRtProgramSetCommunicator(programs[0], communicator, 2),
            GP_RT_SUCCESS);
  EXPECT_NE(std::string(gpRtGetLastError()).find("rank 2 of a run of 2"),
            std::string::npos)
      << gpRtGetLastError();
  gpRtCommunicator *none = nullptr;
  EXPECT_NE(gpRtCommunicatorCreateLocal(0, &none), GP_RT_SUCCESS);
}

} // namespace
