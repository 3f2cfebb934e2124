//===- RuntimeTest.cpp - GraphPart runtime C API tests --------------------===//

#include "GraphPart/Runtime/GPRuntime.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace {

TEST(RuntimeBackends, NamesRoundTrip) {
  for (gpRtBackend backend : {GP_RT_BACKEND_HOST, GP_RT_BACKEND_CUDA}) {
    gpRtBackend parsed;
    ASSERT_EQ(gpRtParseBackend(gpRtBackendName(backend), &parsed),
              GP_RT_SUCCESS);
    EXPECT_EQ(parsed, backend);
  }
}

TEST(RuntimeBackends, UnknownNameIsAnErrorWithAMessage) {
  gpRtBackend parsed = GP_RT_BACKEND_HOST;
  EXPECT_EQ(gpRtParseBackend("tpu", &parsed), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError()).find("unknown backend 'tpu'"),
            std::string::npos);
}

TEST(RuntimeBackends, NullArgumentsAreErrorsNotCrashes) {
  gpRtBackend parsed;
  EXPECT_EQ(gpRtParseBackend(nullptr, &parsed), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtParseBackend("host", nullptr), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtCudaDeviceCount(nullptr), GP_RT_ERROR_INVALID_ARGUMENT);
}

TEST(RuntimeBackends, InvalidEnumValueIsRejected) {
  EXPECT_EQ(gpRtBackendName(static_cast<gpRtBackend>(7)), nullptr);
  EXPECT_EQ(gpRtBackendAvailable(static_cast<gpRtBackend>(7)),
            GP_RT_ERROR_INVALID_ARGUMENT);
}

// What Python reads instead of copying the header's numbers.
TEST(RuntimeAbi, ConstantsByTheirCNames) {
  int64_t value = -1;
  ASSERT_EQ(gpRtGetAbiConstant("GP_RT_EXTERN_ABI_VERSION", &value),
            GP_RT_SUCCESS);
  EXPECT_EQ(value, GP_RT_EXTERN_ABI_VERSION);
  ASSERT_EQ(gpRtGetAbiConstant("GP_RT_BACKEND_CUDA", &value), GP_RT_SUCCESS);
  EXPECT_EQ(value, GP_RT_BACKEND_CUDA);
  ASSERT_EQ(gpRtGetAbiConstant("GP_RT_ERROR_NOT_CAPTURED", &value),
            GP_RT_SUCCESS);
  EXPECT_EQ(value, GP_RT_ERROR_NOT_CAPTURED);
  ASSERT_EQ(gpRtGetAbiConstant("GP_RT_ELEMENT_INDEX", &value), GP_RT_SUCCESS);
  EXPECT_EQ(value, GP_RT_ELEMENT_INDEX);
  ASSERT_EQ(gpRtGetAbiConstant("GP_RT_EXTERN_CAPTURABLE", &value),
            GP_RT_SUCCESS);
  EXPECT_EQ(value, GP_RT_EXTERN_CAPTURABLE);
  EXPECT_EQ(gpRtGetAbiConstant("GP_RT_BACKEND_TPU", &value),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError()).find("'GP_RT_BACKEND_TPU'"),
            std::string::npos);
  EXPECT_EQ(gpRtGetAbiConstant(nullptr, &value), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtGetAbiConstant("GP_RT_SUCCESS", nullptr),
            GP_RT_ERROR_INVALID_ARGUMENT);
}

TEST(RuntimeBackends, HostIsAlwaysAvailable) {
  EXPECT_EQ(gpRtBackendAvailable(GP_RT_BACKEND_HOST), GP_RT_SUCCESS);
}

// The default backend is cuda exactly when cuda reports itself usable, and an
// unusable cuda backend always says why.
TEST(RuntimeBackends, DefaultFollowsCudaAvailability) {
  gpRtStatus cuda = gpRtBackendAvailable(GP_RT_BACKEND_CUDA);
  if (cuda == GP_RT_SUCCESS) {
    EXPECT_EQ(gpRtDefaultBackend(), GP_RT_BACKEND_CUDA);
    int count = 0;
    ASSERT_EQ(gpRtCudaDeviceCount(&count), GP_RT_SUCCESS);
    EXPECT_GT(count, 0);
  } else {
    EXPECT_EQ(cuda, GP_RT_ERROR_UNAVAILABLE);
    EXPECT_STRNE(gpRtGetLastError(), "");
    EXPECT_EQ(gpRtDefaultBackend(), GP_RT_BACKEND_HOST);
  }
}

// Error messages are per thread: a failure on one thread does not overwrite
// the message another thread is about to read.
TEST(RuntimeErrors, LastErrorIsThreadLocal) {
  gpRtBackend parsed;
  ASSERT_EQ(gpRtParseBackend("first", &parsed), GP_RT_ERROR_INVALID_ARGUMENT);
  std::thread other([] {
    gpRtBackend inner;
    EXPECT_STREQ(gpRtGetLastError(), "");
    gpRtParseBackend("second", &inner);
  });
  other.join();
  EXPECT_NE(std::string(gpRtGetLastError()).find("'first'"), std::string::npos);
}

TEST(RuntimeErrors, EveryStatusHasADescription) {
  for (gpRtStatus status : {GP_RT_SUCCESS, GP_RT_ERROR_INVALID_ARGUMENT,
                            GP_RT_ERROR_UNAVAILABLE, GP_RT_ERROR_BACKEND})
    EXPECT_STRNE(gpRtStatusString(status), "unknown status");
}

// gpRtCheckExpandShape, which compiled code calls for each dynamic group of
// an expand_shape before it makes the view.
TEST(RuntimeChecks, ExpandShapeGroupsMustMultiplyToTheirSource) {
  const char *op = "'memref.expand_shape' at t.mlir:3:5";
  auto message = [] { return std::string(gpRtGetLastError()); };
  const int64_t fits[] = {3, 2}, zero[] = {0, 7}, one[] = {6};
  EXPECT_EQ(gpRtCheckExpandShape(op, 0, 6, 0, fits, 2), GP_RT_SUCCESS);
  EXPECT_EQ(gpRtCheckExpandShape(op, 1, 0, 2, zero, 2), GP_RT_SUCCESS);
  EXPECT_EQ(gpRtCheckExpandShape(op, 0, 6, 0, one, 1), GP_RT_SUCCESS);

  const int64_t tooMany[] = {4, 2};
  EXPECT_EQ(gpRtCheckExpandShape(op, 0, 6, 0, tooMany, 2),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message(), "'memref.expand_shape' at t.mlir:3:5: source dimension "
                       "0 has size 6, but output_shape splits it into 4 x 2 "
                       "= 8 (result dimensions 0-1); nothing after it runs");
  // Two negative sizes whose product is the source's are refused too.
  const int64_t negatives[] = {-2, -3};
  EXPECT_EQ(gpRtCheckExpandShape(op, 0, 6, 0, negatives, 2),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message().find("result dimension 0 the negative size -2"),
            std::string::npos)
      << message();
  const int64_t huge[] = {int64_t(1) << 62, 4, 3};
  EXPECT_EQ(gpRtCheckExpandShape(op, 2, 12, 1, huge, 3),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message().find("which overflows int64 (result dimensions 1-3)"),
            std::string::npos)
      << message();
  EXPECT_EQ(gpRtCheckExpandShape(nullptr, 0, 6, 0, fits, 2),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtCheckExpandShape(op, 0, 6, 0, nullptr, 2),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtCheckExpandShape(op, 0, 6, 0, fits, 0),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message().find("null or empty argument"), std::string::npos)
      << message();
}

} // namespace
