//===- CallCheckTest.cpp - bad calls fail before anything runs ------------===//
//
// The C ABI's calls on bad input (issue 40): null arrays and slots, buffer
// descriptors without memory or with a negative offset, and arrays of
// another length than the entry's (gpRtArtifactCallChecked) each fail with
// GP_RT_ERROR_INVALID_ARGUMENT, a message naming the entry and the argument
// or result, and no call of the entry; gpRtArtifactResultBytes and
// gpRtArtifactCopyResultToHost refuse descriptors no call returns. The
// artifact is the hand-written one of CallCheckArtifact.cpp, whose entries
// dereference whatever they are given.
//
//===----------------------------------------------------------------------===//

#include "CallCheckSupport.h"
#include "TensorTestSupport.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <array>
#include <cstdint>
#include <limits>
#include <string>

namespace {

using gp::test::callCounter;

const char *kArtifact = GP_TEST_CALL_CHECK_ARTIFACT;

/// A rank-1 descriptor (gpRtMemRef).
struct Vec {
  float *allocated, *aligned;
  int64_t offset, size, stride;
};
Vec vec(float *data, int64_t size) { return {data, data, 0, size, 1}; }
/// A rank-3 descriptor, row-major unless given strides.
struct Cube {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
};
Cube cube(float *data, std::array<int64_t, 3> sizes,
          std::array<int64_t, 3> strides = {0, 0, 0}) {
  if (strides == std::array<int64_t, 3>{0, 0, 0})
    strides = {sizes[1] * sizes[2], sizes[2], 1};
  return {data, data, 0, {sizes[0], sizes[1], sizes[2]},
          {strides[0], strides[1], strides[2]}};
}

class CallCheckTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NE(callCounter(), nullptr) << dlerror();
    ASSERT_EQ(gpRtArtifactLoad(kArtifact, GP_RT_BACKEND_HOST, -1, &artifact),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    ASSERT_EQ(gpRtArtifactBindParameter(artifact, "w", "f32", &wd),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
  }
  void TearDown() override {
    if (artifact)
      gpRtArtifactUnload(artifact);
  }
  int64_t calls() const { return *callCounter(); }

  gpRtArtifact *artifact = nullptr;
  float w[4] = {1, 2, 3, 4};
  Vec wd = vec(w, 4);
  // scale's arguments: x, the bound parameter w (NULL), k, m (meta).
  float x[3] = {1, 1, 1};
  Vec xd = vec(x, 3), md{nullptr, nullptr, 0, 3, 1};
  int64_t k = 2;
  void *args[4] = {&xd, nullptr, &k, &md};
  Vec y{};
  int64_t kOut = 0;
  void *results[2] = {&y, &kOut};
};

/// The call every test breaks one way: it works as given.
TEST_F(CallCheckTest, AGoodCallRuns) {
  int64_t before = calls();
  ASSERT_EQ(gpRtArtifactCall(artifact, 0, args, results), GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(calls(), before + 1);
  ASSERT_EQ(y.size, 3);
  EXPECT_EQ(y.aligned[2], 1 * 3 * 2);
  EXPECT_EQ(kOut, 2);
  // A null slot of a bound parameter is its binding, and a meta buffer has
  // sizes only; an empty buffer needs no memory.
  xd = {nullptr, nullptr, 0, 0, 1};
  ASSERT_EQ(gpRtArtifactCall(artifact, 0, args, results), GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(y.size, 0);
}

TEST_F(CallCheckTest, NullResultsFail) {
  int64_t before = calls();
  EXPECT_INVALID(gpRtArtifactCall(artifact, 0, args, nullptr),
                 "gpRtArtifactCall: entry 'scale': null result array (the "
                 "entry returns 2 results)");
  EXPECT_INVALID(gpRtArtifactCallOnStream(artifact, 0, args, nullptr, nullptr),
                 "gpRtArtifactCallOnStream: entry 'scale': null result array");
  EXPECT_INVALID(
      gpRtArtifactCallWithOutputs(artifact, 0, args, nullptr, nullptr, nullptr),
      "gpRtArtifactCallWithOutputs: entry 'scale': null result array");
  results[1] = nullptr;
  EXPECT_INVALID(gpRtArtifactCall(artifact, 0, args, results),
                 "gpRtArtifactCall: entry 'scale': result 1 is null "
                 "(results[1] must point to storage for it)");
  EXPECT_INVALID(gpRtArtifactCallOnStream(artifact, 0, args, results, nullptr),
                 "entry 'scale': result 1 is null");
  EXPECT_INVALID(
      gpRtArtifactCallWithOutputs(artifact, 0, args, results, nullptr, nullptr),
      "entry 'scale': result 1 is null");
  EXPECT_INVALID(gpRtArtifactCallChecked(artifact, 0, args, 4, results, 2),
                 "entry 'scale': result 1 is null");
  void *answer[] = {nullptr};
  EXPECT_INVALID(gpRtArtifactCall(artifact, 1, nullptr, answer),
                 "entry 'answer': result 0 is null");
  EXPECT_EQ(calls(), before); // Nothing ran.
}

TEST_F(CallCheckTest, NullIndexArgumentFails) {
  int64_t before = calls();
  args[2] = nullptr;
  EXPECT_INVALID(gpRtArtifactCall(artifact, 0, args, results),
                 "entry 'scale': argument 2 is null");
  EXPECT_INVALID(gpRtArtifactCallOnStream(artifact, 0, args, results, nullptr),
                 "entry 'scale': argument 2 is null");
  EXPECT_INVALID(
      gpRtArtifactCallWithOutputs(artifact, 0, args, results, nullptr, nullptr),
      "entry 'scale': argument 2 is null");
  EXPECT_INVALID(gpRtArtifactCallChecked(artifact, 0, args, 4, results, 2),
                 "entry 'scale': argument 2 is null");
  // A null argument array, where not every argument is a bound parameter.
  EXPECT_INVALID(gpRtArtifactCall(artifact, 0, nullptr, results),
                 "entry 'scale': null argument array (the entry takes 4 "
                 "arguments)");
  EXPECT_EQ(calls(), before);
}

TEST_F(CallCheckTest, BuffersWithoutMemoryFail) {
  int64_t before = calls();
  xd.aligned = nullptr;
  EXPECT_INVALID(gpRtArtifactCall(artifact, 0, args, results),
                 "entry 'scale': argument 0: null memory (aligned pointer) "
                 "for 3 element(s)");
  EXPECT_INVALID(gpRtArtifactCallOnStream(artifact, 0, args, results, nullptr),
                 "entry 'scale': argument 0: null memory");
  EXPECT_INVALID(
      gpRtArtifactCallWithOutputs(artifact, 0, args, results, nullptr, nullptr),
      "entry 'scale': argument 0: null memory");
  // A parameter passed in place of its binding is checked like any buffer.
  Vec nullWeights{nullptr, nullptr, 0, 4, 1};
  xd = vec(x, 3);
  args[1] = &nullWeights;
  EXPECT_INVALID(gpRtArtifactCall(artifact, 0, args, results),
                 "entry 'scale': argument 1: null memory");
  EXPECT_EQ(calls(), before);
}

TEST_F(CallCheckTest, NegativeOffsetsFail) {
  int64_t before = calls();
  xd.offset = -1;
  EXPECT_INVALID(gpRtArtifactCall(artifact, 0, args, results),
                 "entry 'scale': argument 0: negative offset -1");
  EXPECT_INVALID(gpRtArtifactCallOnStream(artifact, 0, args, results, nullptr),
                 "entry 'scale': argument 0: negative offset -1");
  EXPECT_INVALID(
      gpRtArtifactCallWithOutputs(artifact, 0, args, results, nullptr, nullptr),
      "entry 'scale': argument 0: negative offset -1");
  xd.offset = 0;
  md.offset = std::numeric_limits<int64_t>::min();
  EXPECT_INVALID(gpRtArtifactCall(artifact, 0, args, results),
                 "entry 'scale': argument 3: negative offset");
  EXPECT_EQ(calls(), before);
}

TEST_F(CallCheckTest, OverflowingSizesFail) {
  int64_t before = calls();
  // A meta buffer of 2^62 elements is fine (sizes only), a negative size is
  // not.
  md.size = int64_t(1) << 62;
  ASSERT_EQ(gpRtArtifactCall(artifact, 0, args, results), GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(calls(), before + 1);
  md.size = -1;
  EXPECT_INVALID(gpRtArtifactCall(artifact, 0, args, results),
                 "entry 'scale': argument 3 has sizes [-1]; dimension 0 must "
                 "be at least 0");

  // rows(t strided, g row-major): an element count that overflows fails
  // for either (a strided one used to pass), and so does a row-major one
  // whose partial products overflow past a zero size.
  float data[4] = {};
  Cube t = cube(data, {2, 3, 1}, {7, 1, 1}), g = cube(data, {1, 1, 1});
  int64_t rows = 0;
  void *rowArgs[] = {&t, &g}, *rowResults[] = {&rows};
  ASSERT_EQ(gpRtArtifactCall(artifact, 3, rowArgs, rowResults), GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(rows, 3);
  int64_t big = int64_t(1) << 40;
  t = cube(data, {big, big, 1}, {1, 1, 1});
  EXPECT_INVALID(gpRtArtifactCall(artifact, 3, rowArgs, rowResults),
                 "entry 'rows': argument 0 has sizes [1099511627776, "
                 "1099511627776, 1], whose product overflows");
  t = cube(data, {2, 3, 1}, {7, 1, 1});
  g = cube(data, {0, big, big}, {0, big, 1});
  EXPECT_INVALID(gpRtArtifactCall(artifact, 3, rowArgs, rowResults),
                 "entry 'rows': argument 1 has sizes [0, 1099511627776, "
                 "1099511627776], whose product overflows");
  // Bound: the same check at bind time (its partial product was signed
  // overflow).
  EXPECT_INVALID(gpRtArtifactBindParameter(artifact, "grid", "f32", &g),
                 "gpRtArtifactBindParameter: parameter 'grid': sizes [0, "
                 "1099511627776, 1099511627776], whose product overflows");
  EXPECT_EQ(calls(), before + 2);
}

TEST_F(CallCheckTest, CheckedCallsRefuseOtherCounts) {
  int64_t before = calls();
  EXPECT_INVALID(gpRtArtifactCallChecked(artifact, 0, args, 2, results, 2),
                 "gpRtArtifactCallChecked: entry 'scale' takes 4 arguments, "
                 "got 2");
  EXPECT_INVALID(gpRtArtifactCallChecked(artifact, 0, args, 5, results, 2),
                 "entry 'scale' takes 4 arguments, got 5");
  EXPECT_INVALID(gpRtArtifactCallChecked(artifact, 0, args, -1, results, 2),
                 "entry 'scale' takes 4 arguments, got -1");
  EXPECT_INVALID(gpRtArtifactCallChecked(artifact, 0, args, 4, results, 1),
                 "gpRtArtifactCallChecked: entry 'scale' returns 2 results, "
                 "got room for 1");
  EXPECT_INVALID(
      gpRtArtifactCallOnStreamChecked(artifact, 0, args, 3, results, 2,
                                      nullptr),
      "gpRtArtifactCallOnStreamChecked: entry 'scale' takes 4 arguments, got "
      "3");
  int64_t answer = 0;
  void *answerResults[] = {&answer};
  EXPECT_INVALID(
      gpRtArtifactCallChecked(artifact, 1, nullptr, 0, answerResults, 2),
      "entry 'answer' returns 1 result, got room for 2");
  EXPECT_INVALID(gpRtArtifactCallChecked(artifact, 2, nullptr, 0, results, 1),
                 "entry 'weights' takes 1 argument, got 0");
  EXPECT_INVALID(gpRtArtifactCallChecked(nullptr, 0, args, 4, results, 2),
                 "gpRtArtifactCallChecked: null artifact or no such entry");
  EXPECT_INVALID(gpRtArtifactCallChecked(artifact, 4, args, 4, results, 2),
                 "null artifact or no such entry");
  int stream = 0;
  EXPECT_INVALID(gpRtArtifactCallOnStreamChecked(artifact, 0, args, 4, results,
                                                 2, &stream),
                 "a CUDA stream given for a program on the host backend");
  EXPECT_EQ(calls(), before);

  // The right counts run, the bound parameter's NULL slot counted.
  ASSERT_EQ(gpRtArtifactCallChecked(artifact, 0, args, 4, results, 2),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(y.aligned[1], 1 * 2 * 2);
  ASSERT_EQ(gpRtArtifactCallOnStreamChecked(artifact, 0, args, 4, results, 2,
                                            nullptr),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  ASSERT_EQ(gpRtArtifactCallChecked(artifact, 1, nullptr, 0, answerResults, 1),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(answer, 42);
  // Every argument a bound parameter: no argument array needed.
  Vec plusOne{};
  void *weightResults[] = {&plusOne};
  ASSERT_EQ(gpRtArtifactCallChecked(artifact, 2, nullptr, 1, weightResults, 1),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(plusOne.aligned[3], 5);
  EXPECT_EQ(calls(), before + 4);
}

TEST_F(CallCheckTest, CheckedCallsAreExported) {
  void *runtime = dlopen(GP_TEST_RUNTIME_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(runtime, nullptr) << dlerror();
  EXPECT_NE(dlsym(runtime, "gpRtArtifactCallChecked"), nullptr);
  EXPECT_NE(dlsym(runtime, "gpRtArtifactCallOnStreamChecked"), nullptr);
  dlclose(runtime);
}

TEST_F(CallCheckTest, ResultBytesRefusesBadDescriptors) {
  ASSERT_EQ(gpRtArtifactCall(artifact, 0, args, results), GP_RT_SUCCESS)
      << gpRtGetLastError();
  int64_t bytes = -7;
  ASSERT_EQ(gpRtArtifactResultBytes(artifact, 0, 0, &y, &bytes),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(bytes, 12);
  Vec bad = y;
  bad.size = -3;
  bytes = -7;
  EXPECT_INVALID(gpRtArtifactResultBytes(artifact, 0, 0, &bad, &bytes),
                 "gpRtArtifactResultBytes: result 0 of entry 'scale': the "
                 "descriptor has sizes [-3]; dimension 0 is negative");
  EXPECT_EQ(bytes, -7); // Not written.
  bad.size = std::numeric_limits<int64_t>::max() / 2;
  EXPECT_INVALID(gpRtArtifactResultBytes(artifact, 0, 0, &bad, &bytes),
                 "result 0 of entry 'scale': the descriptor has sizes "
                 "[4611686018427387903], whose byte count overflows");
  bad = y;
  bad.offset = -1;
  EXPECT_INVALID(gpRtArtifactResultBytes(artifact, 0, 0, &bad, &bytes),
                 "result 0 of entry 'scale': the descriptor has a negative "
                 "offset -1");
  // Copying out checks the same, and that there is memory to copy from.
  float out[3] = {};
  EXPECT_INVALID(
      gpRtArtifactCopyResultToHost(artifact, 0, 0, &bad, out, sizeof(out)),
      "gpRtArtifactCopyResultToHost: result 0 of entry 'scale': the "
      "descriptor has a negative offset -1");
  bad = y;
  bad.aligned = nullptr;
  EXPECT_INVALID(
      gpRtArtifactCopyResultToHost(artifact, 0, 0, &bad, out, sizeof(out)),
      "gpRtArtifactCopyResultToHost: result 0 of entry 'scale' has null "
      "memory for 3 element(s)");
  ASSERT_EQ(gpRtArtifactCopyResultToHost(artifact, 0, 0, &y, out, sizeof(out)),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(out[2], 6);
}

} // namespace
