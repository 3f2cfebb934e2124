//===- ExternTest.cpp - the extern registry -------------------------------===//

#include "ExternTestSupport.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

using namespace gp::test;

namespace {

std::atomic<int> counterCalls{0};

/// test::count(int64 *counter, int64 amount)
gpRtStatus countExtern(gpRtStream *, void **args, const gpRtExternArg *,
                       int32_t numArgs) {
  if (numArgs != 2)
    return GP_RT_ERROR_INVALID_ARGUMENT;
  **static_cast<int64_t **>(args[0]) += *static_cast<int64_t *>(args[1]);
  ++counterCalls;
  return GP_RT_SUCCESS;
}

struct CountBody {
  const char *name;
  int64_t *counter;
  int64_t amount;
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<CountBody *>(data);
    void *args[] = {&self->counter, &self->amount};
    gpRtExternArg info[] = {scalarArg(GP_RT_ELEMENT_I64),
                            scalarArg(GP_RT_ELEMENT_I64)};
    return gpRtCallExtern(stream, self->name, args, info, 2);
  }
};

gpRtProgram *hostProgram(int32_t capturable = 1) {
  static gpRtPartitionInfo partition;
  partition = {capturable, 0, capturable ? nullptr : "custom op"};
  gpRtProgramInfo info{"externs", 1, &partition, 0, 0, 0};
  gpRtProgram *program = nullptr;
  EXPECT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_HOST, 0, &program),
            GP_RT_SUCCESS);
  return program;
}

// A capturable extern runs eagerly, is recorded during capture with copies
// of its arguments, and runs again on every replay.
TEST(Externs, CapturedAndReplayed) {
  ASSERT_EQ(registerExtern("test::count", countExtern, 1), GP_RT_SUCCESS);
  gpRtProgram *program = hostProgram();
  int64_t counter = 0;
  CountBody body{"test::count", &counter, 3};
  for (int run = 0; run < 4; ++run)
    ASSERT_EQ(gpRtRunPartition(program, 0, nullptr, CountBody::run, &body),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
  EXPECT_EQ(counter, 12);
  gpRtStats stats;
  gpRtProgramGetStats(program, &stats);
  EXPECT_EQ(stats.captures, 1);
  EXPECT_EQ(stats.replays, 3);
  gpRtProgramDestroy(program);
}

// An extern that is not capturable fails inside a capture (the compiler
// puts such ops in eager partitions), and runs in an eager one.
// A non-capturable extern in a capturable partition is a capture fault: the
// capture is dropped, that run and every later one of the shape run
// eagerly (with a warning saying why), and the results stay right; in
// or-error mode it is an error instead.
TEST(Externs, NotCapturableOnlyRunsEagerly) {
  ASSERT_EQ(registerExtern("test::sync", countExtern, 0), GP_RT_SUCCESS);
  std::vector<std::string> warnings;
  gpRtSetLog(
      0,
      [](const char *line, void *data) {
        static_cast<std::vector<std::string> *>(data)->push_back(line);
      },
      &warnings);
  gpRtProgram *captured = hostProgram(1);
  ASSERT_EQ(gpRtProgramSetWarmupRuns(captured, 0), GP_RT_SUCCESS);
  int64_t counter = 0;
  CountBody body{"test::sync", &counter, 1};
  for (int run = 0; run < 3; ++run)
    EXPECT_EQ(gpRtRunPartition(captured, 0, nullptr, CountBody::run, &body),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
  EXPECT_EQ(counter, 3);
  gpRtStats stats;
  ASSERT_EQ(gpRtProgramGetStats(captured, &stats), GP_RT_SUCCESS);
  EXPECT_EQ(stats.captures, 0);
  EXPECT_EQ(stats.eagerRuns, 3);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("cannot run inside a captured graph"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("runs eagerly from now on"), std::string::npos);
  gpRtProgramDestroy(captured);
  gpRtSetLog(0, nullptr, nullptr);

  gpRtProgram *strict = hostProgram(1);
  ASSERT_EQ(gpRtProgramSetWarmupRuns(strict, 0), GP_RT_SUCCESS);
  ASSERT_EQ(gpRtProgramSetOrError(strict, 1), GP_RT_SUCCESS);
  EXPECT_EQ(gpRtRunPartition(strict, 0, nullptr, CountBody::run, &body),
            GP_RT_ERROR_NOT_CAPTURED);
  EXPECT_NE(std::string(gpRtGetLastError())
                .find("cannot run inside a "
                      "captured graph"),
            std::string::npos)
      << gpRtGetLastError();
  EXPECT_EQ(counter, 3);
  gpRtProgramDestroy(strict);
  gpRtProgram *eager = hostProgram(0);
  EXPECT_EQ(gpRtRunPartition(eager, 0, nullptr, CountBody::run, &body),
            GP_RT_SUCCESS);
  EXPECT_EQ(counter, 4);
  gpRtProgramDestroy(eager);
}

/// A rank-2 descriptor, laid out as gpRtMemRef with shape[4].
struct Matrix {
  const float *allocated, *aligned;
  int64_t offset, rows, cols, rowStride, colStride;
};
static Matrix matrix(const float *data, int64_t rows, int64_t cols) {
  return {data, data, 0, rows, cols, cols, 1};
}

struct MmBody {
  const float *a, *b;
  float *c;
  int64_t m, k, n;
  const char *name = "aten::mm.default";
  gpRtElementType type = GP_RT_ELEMENT_F32;
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<MmBody *>(data);
    Matrix a = matrix(self->a, self->m, self->k),
           b = matrix(self->b, self->k, self->n),
           c = matrix(self->c, self->m, self->n);
    void *args[] = {&a, &b, &c};
    gpRtExternArg info[] = {bufferArg(self->type, 2), bufferArg(self->type, 2),
                            bufferArg(self->type, 2, 1)};
    return gpRtCallExtern(stream, self->name, args, info, 3);
  }
};

// The built-in aten::mm on the host backend; an overload name finds it.
TEST(Externs, HostMatmul) {
  gpRtProgram *program = hostProgram();
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12},
                     c(4, 0.0f);
  MmBody body{a.data(), b.data(), c.data(), 2, 3, 2};
  for (int run = 0; run < 3; ++run)
    ASSERT_EQ(gpRtRunPartition(program, 0, nullptr, MmBody::run, &body),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
  EXPECT_EQ(c, (std::vector<float>{58, 64, 139, 154}));
  gpRtProgramDestroy(program);
}

// User externs from a shared library, bound by name.
TEST(Externs, LoadsUserLibrary) {
  ASSERT_EQ(gpRtLoadExternLibrary(GP_TEST_EXTERN_LIBRARY), GP_RT_SUCCESS)
      << gpRtGetLastError();
  gpRtProgram *program = hostProgram(0);
  std::vector<float> x = {1, 2, 3};
  struct ScaleBody {
    float *x;
    int64_t n;
    float factor;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<ScaleBody *>(data);
      void *args[] = {&self->x, &self->n, &self->factor};
      gpRtExternArg info[] = {scalarArg(GP_RT_ELEMENT_I64),
                              scalarArg(GP_RT_ELEMENT_I64),
                              scalarArg(GP_RT_ELEMENT_F32, 4)};
      return gpRtCallExtern(stream, "mylib::scale", args, info, 3);
    }
  } body{x.data(), 3, 2.0f};
  ASSERT_EQ(gpRtRunPartition(program, 0, nullptr, ScaleBody::run, &body),
            GP_RT_SUCCESS);
  EXPECT_EQ(x, (std::vector<float>{2, 4, 6}));
  gpRtProgramDestroy(program);
}

/// test::stream_info(int64 *seen): records what gpRtStreamGetInfo says,
/// as backend * 10 + capturing, with 100 added when no cuda stream came
/// and 1000 when the device ordinal is -1.
gpRtStatus streamInfoExtern(gpRtStream *stream, void **args,
                            const gpRtExternArg *, int32_t numArgs) {
  if (numArgs != 1)
    return GP_RT_ERROR_INVALID_ARGUMENT;
  gpRtBackend backend = GP_RT_BACKEND_CUDA;
  int32_t capturing = -1;
  void *cudaStream = &capturing;
  int32_t cudaDevice = 7;
  if (gpRtStatus status = gpRtStreamGetInfo(stream, &backend, &capturing,
                                            &cudaStream, &cudaDevice))
    return status;
  **static_cast<int64_t **>(args[0]) = backend * 10 + capturing +
                                       (cudaStream ? 0 : 100) +
                                       (cudaDevice == -1 ? 1000 : 0);
  // Every output is optional.
  return gpRtStreamGetInfo(stream, nullptr, nullptr, nullptr, nullptr);
}

// An extern asks its stream what its work must follow: on the host backend,
// not capturing in an eager partition, and no cuda stream.
TEST(Externs, StreamInfo) {
  ASSERT_EQ(registerExtern("test::stream_info", streamInfoExtern, 0),
            GP_RT_SUCCESS);
  gpRtProgram *program = hostProgram(0);
  int64_t seen = -1;
  struct InfoBody {
    int64_t *seen;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      void *args[] = {&static_cast<InfoBody *>(data)->seen};
      gpRtExternArg info[] = {scalarArg(GP_RT_ELEMENT_I64)};
      return gpRtCallExtern(stream, "test::stream_info", args, info, 1);
    }
  } body{&seen};
  ASSERT_EQ(gpRtRunPartition(program, 0, nullptr, InfoBody::run, &body),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(seen, 1000 + 100 + GP_RT_BACKEND_HOST * 10 + 0);
  EXPECT_EQ(gpRtStreamGetInfo(nullptr, nullptr, nullptr, nullptr, nullptr),
            GP_RT_ERROR_INVALID_ARGUMENT);
  gpRtProgramDestroy(program);
}

TEST(Externs, ErrorPaths) {
  gpRtProgram *program = hostProgram(0);
  int64_t counter = 0;
  CountBody unknown{"nobody::here", &counter, 1};
  EXPECT_EQ(gpRtRunPartition(program, 0, nullptr, CountBody::run, &unknown),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError())
                .find("no extern registered for "
                      "'nobody::here'"),
            std::string::npos);
  EXPECT_EQ(registerExtern("", countExtern, 1), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtLoadExternLibrary("/nonexistent/libx.so"),
            GP_RT_ERROR_INVALID_ARGUMENT);
  MmBody bad{nullptr, nullptr, nullptr, -1, 1, 1, "aten::mm"};
  EXPECT_EQ(gpRtRunPartition(program, 0, nullptr, MmBody::run, &bad),
            GP_RT_ERROR_INVALID_ARGUMENT);
  gpRtProgramDestroy(program);
}

// Registrations are checked: the ABI version, the name, the flags and the
// schema they state.
TEST(ExternRegistration, Checked) {
  gpRtExternSpec old = externSpec("test::old", countExtern, 1);
  old.abiVersion = 1;
  EXPECT_EQ(gpRtRegisterExtern(&old), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError())
                .find("extern 'test::old' was built against extern ABI "
                      "version 1; this runtime implements version 2"),
            std::string::npos)
      << gpRtGetLastError();
  for (const char *name : {"noNamespace", "a::b::c", "ns::op.", "1ns::op"}) {
    EXPECT_EQ(registerExtern(name, countExtern, 1),
              GP_RT_ERROR_INVALID_ARGUMENT)
        << name;
    EXPECT_NE(std::string(gpRtGetLastError()).find("must be 'namespace::op'"),
              std::string::npos)
        << gpRtGetLastError();
  }
  EXPECT_EQ(registerExtern("test::null", nullptr, 1),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpRtRegisterExtern(nullptr), GP_RT_ERROR_INVALID_ARGUMENT);
  gpRtExternSpec schema = externSpec("test::schema", countExtern, 1);
  schema.mutates = "0,x";
  EXPECT_EQ(gpRtRegisterExtern(&schema), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError()).find("mutates '0,x' is not"),
            std::string::npos)
      << gpRtGetLastError();
  schema.mutates = "0";
  schema.aliases = "-,+1";
  EXPECT_EQ(gpRtRegisterExtern(&schema), GP_RT_ERROR_INVALID_ARGUMENT);
  schema.aliases = "-,1";
  EXPECT_EQ(gpRtRegisterExtern(&schema), GP_RT_SUCCESS) << gpRtGetLastError();
}

// A library is asked its ABI version before it may register anything.
TEST(ExternRegistration, LibraryVersions) {
  EXPECT_EQ(gpRtLoadExternLibrary(GP_TEST_RUNTIME_LIBRARY),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError())
                .find("does not export gp_extern_abi_version"),
            std::string::npos)
      << gpRtGetLastError();
  EXPECT_EQ(gpRtLoadExternLibrary(GP_TEST_OLD_EXTERN_LIBRARY),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError())
                .find("was built against extern ABI version 1; this runtime "
                      "implements 2"),
            std::string::npos)
      << gpRtGetLastError();
}

// An extern that fails without a message still names itself, and its
// arguments arrive described.
TEST(Externs, FailureNamesTheExtern) {
  static const gpRtExternArg *seen = nullptr;
  auto failing = [](gpRtStream *, void **, const gpRtExternArg *info,
                    int32_t) -> gpRtStatus {
    seen = info;
    return GP_RT_ERROR_BACKEND;
  };
  ASSERT_EQ(registerExtern("test::failing", failing, 0), GP_RT_SUCCESS);
  gpRtProgram *program = hostProgram(0);
  int64_t counter = 0;
  CountBody body{"test::failing", &counter, 1};
  EXPECT_EQ(gpRtRunPartition(program, 0, nullptr, CountBody::run, &body),
            GP_RT_ERROR_BACKEND);
  EXPECT_NE(std::string(gpRtGetLastError())
                .find("extern 'test::failing' failed (backend error)"),
            std::string::npos)
      << gpRtGetLastError();
  ASSERT_NE(seen, nullptr);
  gpRtProgramDestroy(program);
}

TEST(Externs, ElementTypeNames) {
  EXPECT_STREQ(gpRtElementTypeName(GP_RT_ELEMENT_BF16), "bf16");
  EXPECT_STREQ(gpRtElementTypeName(GP_RT_ELEMENT_U8), "ui8");
  EXPECT_STREQ(gpRtElementTypeName(GP_RT_ELEMENT_INDEX), "index");
  EXPECT_EQ(gpRtElementTypeName(static_cast<gpRtElementType>(99)), nullptr);
}

// cuBLAS matmul captured into a graph and replayed, on the GPU.
TEST(Externs, CublasMatmulCaptured) {
  if (gpRtBackendAvailable(GP_RT_BACKEND_CUDA) != GP_RT_SUCCESS)
    GTEST_SKIP() << "no usable CUDA device";
  constexpr int64_t m = 64, k = 128, n = 32;
  int64_t aBytes = m * k * 4, bBytes = k * n * 4, cBytes = m * n * 4;
  gpRtPartitionInfo partition{1, 0, nullptr};
  gpRtProgramInfo info{"mm", 1, &partition, aBytes + bBytes + cBytes, 0, 0};
  gpRtProgram *program = nullptr;
  ASSERT_EQ(gpRtProgramCreate(&info, GP_RT_BACKEND_CUDA, 0, &program),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  void *arena = nullptr;
  ASSERT_EQ(gpRtProgramArena(program, &arena), GP_RT_SUCCESS);
  char *base = static_cast<char *>(arena);
  std::vector<float> a(m * k), b(k * n), c(m * n), expected(m * n, 0.0f);
  for (int64_t i = 0; i < m * k; ++i)
    a[i] = static_cast<float>(i % 7) - 3;
  for (int64_t i = 0; i < k * n; ++i)
    b[i] = static_cast<float>(i % 5) * 0.5f;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        expected[i * n + j] += a[i * k + p] * b[p * n + j];
  ASSERT_EQ(gpRtCopyToProgram(program, base, a.data(), aBytes), GP_RT_SUCCESS);
  ASSERT_EQ(gpRtCopyToProgram(program, base + aBytes, b.data(), bBytes),
            GP_RT_SUCCESS);
  MmBody body{reinterpret_cast<float *>(base),
              reinterpret_cast<float *>(base + aBytes),
              reinterpret_cast<float *>(base + aBytes + bBytes),
              m,
              k,
              n,
              "aten::mm"};
  for (int run = 0; run < 4; ++run) {
    float zero[1] = {0};
    // Clear one output element so each run's result is really recomputed.
    ASSERT_EQ(gpRtCopyToProgram(program, base + aBytes + bBytes, zero, 4),
              GP_RT_SUCCESS);
    ASSERT_EQ(gpRtRunPartition(program, 0, nullptr, MmBody::run, &body),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    ASSERT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
    ASSERT_EQ(
        gpRtCopyFromProgram(program, c.data(), base + aBytes + bBytes, cBytes),
        GP_RT_SUCCESS);
    for (int64_t i = 0; i < m * n; ++i)
      ASSERT_NEAR(c[i], expected[i], 1e-3f) << "run " << run << " at " << i;
  }
  gpRtStats stats;
  gpRtProgramGetStats(program, &stats);
  EXPECT_EQ(stats.captures, 1);
  EXPECT_EQ(stats.replays, 3);
  EXPECT_EQ(gpRtProgramDestroy(program), GP_RT_SUCCESS);
}

} // namespace
