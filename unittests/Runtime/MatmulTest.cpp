//===- MatmulTest.cpp - the built-in matmul externs -----------------------===//
//
// gp::matmul, aten::mm, aten::bmm and aten::addmm on descriptors made here:
// row-major, transposed, sliced (leading dimension past the extent),
// batched with broadcast, f32, f16 and bf16, accumulating or not. Each
// result is compared, element by element, with a double-precision loop
// written here, and the memory around each view must be left as it was.
// Every test runs on the host backend and, where a CUDA device is usable,
// on the cuda backend, with the operands in program memory
// (gpRtProgramAllocate): `GPRuntimeTests --gtest_filter='*Matmul*'`.
//
//===----------------------------------------------------------------------===//

#include "ExternTestSupport.h"
#include "TensorTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

using gp::test::bytesOf;
using gp::test::decode;
using gp::test::dense;
using gp::test::encode;
using gp::test::Tensor;
using gp::test::tensor;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// How far a result may be from the exact one: f32 sums of quarters are
/// exact; f16 and bf16 results are rounded once.
double tolerance(gpRtElementType type, double expected) {
  switch (type) {
  case GP_RT_ELEMENT_F16:
    return 1e-3 * std::fabs(expected) + 1e-3;
  case GP_RT_ELEMENT_BF16:
    return 4e-3 * std::fabs(expected) + 1e-2;
  default:
    return 1e-5 * std::fabs(expected) + 1e-6;
  }
}

/// C after the call (`after`) holds `base(t, i, j)` + sum_p A B at each
/// element of its view, in double, and the rest of its buffer as `before`.
template <typename Base>
void expectProduct(const Tensor &a, const Tensor &b, const Tensor &before,
                   const Tensor &after, Base base) {
  int64_t batch = before.rank() == 3 ? before.sizes[0] : 1;
  int64_t m = before.sizes[before.rank() - 2],
          n = before.sizes[before.rank() - 1], k = a.sizes[a.rank() - 1];
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double expected = base(t, i, j);
        for (int64_t p = 0; p < k; ++p)
          expected += a.get(t, i, p) * b.get(t, p, j);
        double got = after.get(t, i, j);
        ASSERT_NEAR(got, expected, tolerance(before.type, expected))
            << "at [" << t << ", " << i << ", " << j << "]";
      }
  gp::test::expectUnchangedOutsideView(before, after, "C");
}

/// C = A B (+ C's old values when accumulating).
void expectMatmul(const Tensor &a, const Tensor &b, const Tensor &before,
                  const Tensor &after, bool accumulate) {
  expectProduct(a, b, before, after, [&](int64_t t, int64_t i, int64_t j) {
    return accumulate ? before.get(t, i, j) : 0.0;
  });
}

class MatmulTest : public ::testing::TestWithParam<gpRtBackend> {
protected:
  void SetUp() override {
    backend = GetParam();
    GP_SKIP_UNLESS_AVAILABLE(backend);
    program = makeProgram();
  }
  void TearDown() override {
    for (gpRtProgram *made : programs)
      EXPECT_EQ(gpRtProgramDestroy(made), GP_RT_SUCCESS);
  }

  /// A program of two partitions: 0 eager, 1 capturable.
  gpRtProgram *makeProgram() {
    static gpRtPartitionInfo partitions[2] = {{0, 0, "eager"}, {1, 0, nullptr}};
    gpRtProgramInfo info{"matmul", 2, partitions, 0, 0, 0};
    gpRtProgram *made = nullptr;
    EXPECT_EQ(gpRtProgramCreate(&info, backend, 0, &made), GP_RT_SUCCESS)
        << gpRtGetLastError();
    programs.push_back(made);
    return made;
  }

  /// A body calling `name` with descriptors of the tensors (in program
  /// memory) and then the int64 scalars.
  struct Call {
    const char *name;
    std::vector<std::vector<int64_t>> descriptors;
    std::vector<int64_t> scalars;
    /// Each descriptor's element type.
    std::vector<gpRtElementType> types;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<Call *>(data);
      std::vector<void *> args;
      std::vector<gpRtExternArg> info;
      for (size_t i = 0; i < self->descriptors.size(); ++i) {
        std::vector<int64_t> &words = self->descriptors[i];
        args.push_back(words.data());
        info.push_back(gp::test::bufferArg(
            self->types[i], static_cast<int32_t>((words.size() - 3) / 2)));
      }
      for (int64_t &scalar : self->scalars) {
        args.push_back(&scalar);
        info.push_back(gp::test::scalarArg(GP_RT_ELEMENT_I64));
      }
      return gpRtCallExtern(stream, self->name, args.data(), info.data(),
                            static_cast<int32_t>(args.size()));
    }
  };

  /// Puts the tensors in program memory, runs `name` on them `runs` times
  /// (by default in the eager partition of `program`, or the capturable
  /// one of `target`), and reads every tensor back.
  gpRtStatus call(const char *name, std::vector<Tensor *> tensors,
                  std::vector<int64_t> scalars = {},
                  gpRtProgram *target = nullptr, int runs = 1,
                  int32_t partition = -1) {
    if (partition < 0)
      partition = target ? 1 : 0;
    target = target ? target : program;
    gp::test::TensorsInProgram placed(target, std::move(tensors));
    Call body{name, placed.descriptors, std::move(scalars), placed.types};
    return placed.run(partition, Call::run, &body, runs, error);
  }

  /// gp::matmul(A, B, C, type, accumulate) on copies; checks the result.
  void matmul(const Tensor &a, const Tensor &b, const Tensor &c,
              bool accumulate) {
    Tensor x = a, y = b, z = c;
    ASSERT_EQ(call("gp::matmul", {&x, &y, &z},
                   {static_cast<int64_t>(c.type), accumulate ? 1 : 0}),
              GP_RT_SUCCESS)
        << error;
    EXPECT_EQ(x.bytes, a.bytes) << "A was written";
    EXPECT_EQ(y.bytes, b.bytes) << "B was written";
    expectMatmul(a, b, c, z, accumulate);
  }

  /// gp::matmul fails with GP_RT_ERROR_INVALID_ARGUMENT, saying `message`,
  /// and leaves C as it was.
  void refused(const Tensor &a, const Tensor &b, const Tensor &c,
               const std::string &message, int64_t accumulate = 0,
               int64_t type = -1) {
    Tensor x = a, y = b, z = c;
    EXPECT_EQ(
        call("gp::matmul", {&x, &y, &z},
             {type < 0 ? static_cast<int64_t>(c.type) : type, accumulate}),
        GP_RT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(error.find(message), std::string::npos)
        << "'" << error << "' does not say '" << message << "'";
    EXPECT_EQ(z.bytes, c.bytes) << "C was written";
  }

  gpRtBackend backend = GP_RT_BACKEND_HOST;
  gpRtProgram *program = nullptr;
  std::vector<gpRtProgram *> programs;
  std::string error;
};

constexpr gpRtElementType F32 = GP_RT_ELEMENT_F32, F16 = GP_RT_ELEMENT_F16,
                          BF16 = GP_RT_ELEMENT_BF16;

/// A rank-2 buffer argument of `type`.
gpRtExternArg matrixArg(gpRtElementType type) {
  return gp::test::bufferArg(type, 2);
}
constexpr int64_t M = 5, K = 7, N = 3;

// Row-major A, B and C; C starts as NaN, which C = A B must not read.
TEST_P(MatmulTest, RowMajor) {
  matmul(dense(F32, {M, K}, 1), dense(F32, {K, N}, 2),
         dense(F32, {M, N}, 0, kNaN), false);
}

// A transposed: stored column-major (a view of a [K, M] row-major buffer).
TEST_P(MatmulTest, TransposedA) {
  matmul(tensor(F32, {M, K}, {1, M}, 0, 1), dense(F32, {K, N}, 2),
         dense(F32, {M, N}, 0, kNaN), false);
}

// B transposed.
TEST_P(MatmulTest, TransposedB) {
  matmul(dense(F32, {M, K}, 1), tensor(F32, {K, N}, {1, K}, 0, 2),
         dense(F32, {M, N}, 0, kNaN), false);
}

// Both transposed.
TEST_P(MatmulTest, BothTransposed) {
  matmul(tensor(F32, {M, K}, {1, M}, 0, 1), tensor(F32, {K, N}, {1, K}, 0, 2),
         dense(F32, {M, N}, 0, kNaN), false);
}

// C column-major, computed as C = A B in cuBLAS's terms rather than
// C^T = B^T A^T; with A row-major and transposed.
TEST_P(MatmulTest, ColumnMajorC) {
  matmul(dense(F32, {M, K}, 1), dense(F32, {K, N}, 2),
         tensor(F32, {M, N}, {1, M}, 0, 0, kNaN), false);
  matmul(tensor(F32, {M, K}, {1, M}, 0, 1), tensor(F32, {K, N}, {1, K}, 0, 2),
         tensor(F32, {M, N}, {1, M}, 0, 0, kNaN), false);
}

// Slices of larger buffers: leading dimensions past the extents, offsets;
// what lies between the rows of C must stay as it was.
TEST_P(MatmulTest, SlicedLeadingDimensions) {
  Tensor a = tensor(F32, {M, K}, {K + 4, 1}, 2 * (K + 4) + 1, 1);
  Tensor b = tensor(F32, {K, N}, {1, K + 2}, 3, 2); // Column-major, ld K+2.
  matmul(a, b, tensor(F32, {M, N}, {N + 5, 1}, 7, 0, kNaN), false);
  matmul(a, b, tensor(F32, {M, N}, {1, M + 3}, 2, 0, kNaN), false);
}

// A dimension of size 1 takes any stride (a row or column vector).
TEST_P(MatmulTest, UnitDimensionsTakeAnyStride) {
  matmul(tensor(F32, {1, K}, {1000, 1}, 0, 1),
         tensor(F32, {K, 1}, {1, 77}, 0, 2),
         tensor(F32, {1, 1}, {0, 0}, 0, 0, kNaN), false);
  matmul(tensor(F32, {M, K}, {1, M}, 0, 1), tensor(F32, {K, 1}, {1, 0}, 0, 2),
         tensor(F32, {M, 1}, {1, 0}, 0, 0, kNaN), false);
}

// Batches: A's batch stride 0 (one matrix for every product), B's batches
// interleaved with its rows, C dense; then C column-major per batch with B
// broadcast and transposed.
TEST_P(MatmulTest, Batched) {
  constexpr int64_t batch = 3;
  matmul(tensor(F32, {batch, M, K}, {0, K, 1}, 0, 1),
         tensor(F32, {batch, K, N}, {N, batch * N, 1}, 0, 2),
         dense(F32, {batch, M, N}, 0, kNaN), false);
  matmul(tensor(F32, {batch, M, K}, {M * K, 1, M}, 0, 1),
         tensor(F32, {batch, K, N}, {0, 1, K}, 0, 2),
         tensor(F32, {batch, M, N}, {M * N + 2, 1, M}, 1, 0, kNaN), false);
}

// f16 and bf16 operands, batched and transposed; sums in f32, each result
// rounded once.
TEST_P(MatmulTest, HalfPrecision) {
  constexpr int64_t batch = 2, m = 33, k = 65, n = 17;
  for (gpRtElementType type : {F16, BF16}) {
    SCOPED_TRACE(type == F16 ? "f16" : "bf16");
    matmul(tensor(type, {batch, m, k}, {m * k, 1, m}, 0, 1),
           dense(type, {batch, k, n}, 2), dense(type, {batch, m, n}, 0, kNaN),
           false);
    matmul(dense(type, {m, k}, 3), tensor(type, {k, n}, {1, k}, 0, 4),
           tensor(type, {m, n}, {1, m + 1}, 0, 5), true);
  }
}

// accumulate = 1 adds C's old contents; 0 ignores them (NaN above).
TEST_P(MatmulTest, Accumulate) {
  Tensor a = dense(F32, {M, K}, 1), b = tensor(F32, {K, N}, {1, K}, 0, 2);
  matmul(a, b, dense(F32, {M, N}, 3), true);
  matmul(a, b, dense(F32, {M, N}, 3), false);
  matmul(tensor(F32, {2, M, K}, {0, 1, M}, 0, 1), dense(F32, {2, K, N}, 2),
         dense(F32, {2, M, N}, 4), true);
}

// K = 0: C = 0, or C unchanged when accumulating; A and B hold no memory.
TEST_P(MatmulTest, EmptyReduction) {
  for (gpRtElementType type : {F32, F16, BF16}) {
    Tensor a = dense(type, {M, 0}), b = dense(type, {0, N});
    matmul(a, b, dense(type, {M, N}, 0, kNaN), false);
    matmul(a, b, dense(type, {M, N}, 1), true);
    matmul(dense(type, {2, M, 0}), dense(type, {2, 0, N}),
           dense(type, {2, M, N}, 0, kNaN), false);
  }
}

// M, N or batch 0: nothing to do, whatever the strides.
TEST_P(MatmulTest, EmptyResult) {
  matmul(dense(F32, {0, K}), dense(F32, {K, N}), dense(F32, {0, N}), false);
  matmul(dense(F32, {M, K}), tensor(F32, {K, 0}, {5, 9}),
         tensor(F32, {M, 0}, {3, 3}), false);
  matmul(dense(F32, {0, M, K}), dense(F32, {0, K, N}), dense(F32, {0, M, N}),
         false);
}

TEST_P(MatmulTest, ShapeMismatch) {
  refused(dense(F32, {M, K}), dense(F32, {K + 1, N}), dense(F32, {M, N}),
          "gp::matmul: shapes do not agree: A (sizes [5, 7], strides [7, "
          "1]) x B (sizes [8, 3], strides [3, 1]) -> C (sizes [5, 3]");
  refused(dense(F32, {M, K}), dense(F32, {K, N}), dense(F32, {M, N + 1}),
          "shapes do not agree");
  refused(dense(F32, {2, M, K}), dense(F32, {3, K, N}), dense(F32, {2, M, N}),
          "shapes do not agree");
}

// Layouts cuBLAS cannot read are refused, naming the operand and its
// strides; C is not written.
TEST_P(MatmulTest, UnsupportedStrides) {
  Tensor a = dense(F32, {M, K}), b = dense(F32, {K, N}), c = dense(F32, {M, N});
  refused(tensor(F32, {M, K}, {2 * K, 2}), b, c,
          "gp::matmul: A (sizes [5, 7], strides [14, 2]) is not a layout "
          "cuBLAS reads");
  // A leading dimension below the extent: rows overlap.
  refused(a, tensor(F32, {K, N}, {2, 1}), c,
          "B (sizes [7, 3], strides [2, 1]) is not a layout");
  refused(a, tensor(F32, {K, N}, {-N, 1}, (K - 1) * N), c,
          "B (sizes [7, 3], strides [-3, 1]) is not a layout");
  refused(a, b, tensor(F32, {M, N}, {1, 1}),
          "C (sizes [5, 3], strides [1, 1]) is not a layout");
  refused(a, b, tensor(F32, {M, N}, {N, 2}),
          "C (sizes [5, 3], strides [3, 2]) is not a layout");
  // C's batches on top of each other.
  refused(dense(F32, {2, M, K}), dense(F32, {2, K, N}),
          tensor(F32, {2, M, N}, {0, N, 1}),
          "C (sizes [2, 5, 3], strides [0, 3, 1]) has elements that share "
          "memory");
  refused(tensor(F32, {2, M, K}, {-M * K, K, 1}, M * K), dense(F32, {2, K, N}),
          dense(F32, {2, M, N}),
          "A (sizes [2, 5, 7], strides [-35, 7, 1]) has a negative batch "
          "stride");
}

// C sharing memory with an input is refused.
TEST_P(MatmulTest, OutputOverlapsInput) {
  // One buffer: A is [N, N] at its start, C the same memory two on.
  struct Body {
    std::vector<int64_t> a, b, c;
    int64_t type = GP_RT_ELEMENT_F32, accumulate = 0;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<Body *>(data);
      void *args[] = {self->a.data(), self->b.data(), self->c.data(),
                      &self->type, &self->accumulate};
      gpRtExternArg info[] = {matrixArg(F32), matrixArg(F32), matrixArg(F32),
                              gp::test::scalarArg(GP_RT_ELEMENT_I64),
                              gp::test::scalarArg(GP_RT_ELEMENT_I64)};
      return gpRtCallExtern(stream, "gp::matmul", args, info, 5);
    }
  };
  void *x = nullptr, *y = nullptr;
  ASSERT_EQ(gpRtProgramAllocate(program, 256, &x), GP_RT_SUCCESS);
  ASSERT_EQ(gpRtProgramAllocate(program, 256, &y), GP_RT_SUCCESS);
  auto words = [](void *base, int64_t offset) {
    auto address = static_cast<int64_t>(reinterpret_cast<intptr_t>(base));
    return std::vector<int64_t>{address, address, offset, N, N, N, 1};
  };
  Body body{words(x, 0), words(y, 0), words(x, 2)};
  EXPECT_EQ(gpRtRunPartition(program, 0, nullptr, Body::run, &body),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError()).find("C shares memory with A"),
            std::string::npos)
      << gpRtGetLastError();
  EXPECT_EQ(gpRtProgramFree(program, x), GP_RT_SUCCESS);
  EXPECT_EQ(gpRtProgramFree(program, y), GP_RT_SUCCESS);
}

TEST_P(MatmulTest, BadArguments) {
  Tensor a = dense(F32, {M, K}), b = dense(F32, {K, N}), c = dense(F32, {M, N});
  refused(a, b, c, "gp::matmul: unknown elementType 7", 0, 7);
  refused(a, b, c, "gp::matmul: accumulate is 2, not 0 or 1", 2);
  Tensor batched = dense(F32, {1, K, N});
  EXPECT_EQ(call("gp::matmul", {&a, &batched, &c}, {0, 0}),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(error.find("gp::matmul takes A, B and C as buffers of one rank, "
                       "2 or 3, and one element type, f32, f16 or bf16, then "
                       "two int64 values; got (f32 rank-2 buffer, f32 rank-3 "
                       "buffer, f32 rank-2 buffer, i64 scalar, i64 scalar)"),
            std::string::npos)
      << error;
  // The elementType argument must say what the buffers are.
  refused(a, b, c, "gp::matmul: elementType f16 but the buffers are (f32", 0,
          GP_RT_ELEMENT_F16);
  EXPECT_EQ(call("gp::matmul", {&a, &b, &c}, {0}),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(error.find("gp::matmul takes (A, B, C, elementType, "
                       "accumulate), got 4 arguments"),
            std::string::npos)
      << error;
  // A f16 operand at an odd address.
  struct Body {
    std::vector<int64_t> a, b, c;
    int64_t type = GP_RT_ELEMENT_F16, accumulate = 0;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<Body *>(data);
      void *args[] = {self->a.data(), self->b.data(), self->c.data(),
                      &self->type, &self->accumulate};
      gpRtExternArg info[] = {matrixArg(F16), matrixArg(F16), matrixArg(F16),
                              gp::test::scalarArg(GP_RT_ELEMENT_I64),
                              gp::test::scalarArg(GP_RT_ELEMENT_I64)};
      return gpRtCallExtern(stream, "gp::matmul", args, info, 5);
    }
  };
  void *x = nullptr;
  ASSERT_EQ(gpRtProgramAllocate(program, 1024, &x), GP_RT_SUCCESS);
  auto words = [](void *base, int64_t byteOffset, int64_t rows, int64_t cols) {
    auto address =
        static_cast<int64_t>(reinterpret_cast<intptr_t>(base)) + byteOffset;
    return std::vector<int64_t>{address, address, 0, rows, cols, cols, 1};
  };
  Body body{words(x, 1, M, K), words(x, 256, K, N), words(x, 512, M, N)};
  EXPECT_EQ(gpRtRunPartition(program, 0, nullptr, Body::run, &body),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError())
                .find("A is not aligned to its f16 elements"),
            std::string::npos)
      << gpRtGetLastError();
  EXPECT_EQ(gpRtProgramFree(program, x), GP_RT_SUCCESS);
}

// aten::mm on transposed and sliced views, by an overload's name too.
TEST_P(MatmulTest, AtenMm) {
  Tensor a = tensor(F32, {M, K}, {1, M + 2}, 1, 1);
  Tensor b = tensor(F32, {K, N}, {N + 1, 1}, 0, 2);
  for (const char *name : {"aten::mm", "aten::mm.default"}) {
    Tensor c = dense(F32, {M, N}, 0, kNaN), z = c;
    ASSERT_EQ(call(name, {&a, &b, &z}), GP_RT_SUCCESS) << error;
    expectMatmul(a, b, c, z, false);
  }
  Tensor batched = dense(F32, {1, M, N});
  EXPECT_EQ(call("aten::mm", {&a, &b, &batched}), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(error.find("aten::mm takes rank-2 buffers of one element type, "
                       "f32, f16 or bf16; got (f32 rank-2 buffer, f32 rank-2 "
                       "buffer, f32 rank-3 buffer)"),
            std::string::npos)
      << error;
  // f16 and bf16 as their types say, not read as f32.
  for (gpRtElementType type : {F16, BF16}) {
    Tensor x = dense(type, {M, K}, 1), y = dense(type, {K, N}, 2);
    Tensor c = dense(type, {M, N}, 0, kNaN), z = c;
    ASSERT_EQ(call("aten::mm", {&x, &y, &z}), GP_RT_SUCCESS) << error;
    expectMatmul(x, y, c, z, false);
  }
  // Element types it does not implement, or that differ, are refused and
  // C is left alone.
  Tensor ints = dense(F32, {M, N}, 3), mixed = dense(F16, {K, N}, 2);
  ints.type = GP_RT_ELEMENT_I32;
  Tensor before = ints;
  EXPECT_EQ(call("aten::mm", {&a, &b, &ints}), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(error.find("got (f32 rank-2 buffer, f32 rank-2 buffer, i32 rank-2 "
                       "buffer)"),
            std::string::npos)
      << error;
  EXPECT_EQ(ints.bytes, before.bytes);
  Tensor z = dense(F32, {M, N});
  EXPECT_EQ(call("aten::mm", {&a, &mixed, &z}), GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(error.find("f16 rank-2 buffer"), std::string::npos) << error;
}

// aten::bmm: batches with B transposed and C column-major.
TEST_P(MatmulTest, AtenBmm) {
  constexpr int64_t batch = 4;
  Tensor a = dense(F32, {batch, M, K}, 1);
  Tensor b = tensor(F32, {batch, K, N}, {K * N, 1, K}, 0, 2);
  Tensor c = tensor(F32, {batch, M, N}, {M * N, 1, M}, 0, 0, kNaN), z = c;
  ASSERT_EQ(call("aten::bmm", {&a, &b, &z}), GP_RT_SUCCESS) << error;
  expectMatmul(a, b, c, z, false);
  Tensor flat = dense(F32, {M, K});
  EXPECT_EQ(call("aten::bmm", {&flat, &b, &z}), GP_RT_ERROR_INVALID_ARGUMENT);
}

// aten::addmm: C = bias + A B, the bias broadcast from [N] (strided),
// [1, N], [M, 1], [M, N] column-major, a scalar; and in place (bias = C).
TEST_P(MatmulTest, AtenAddmm) {
  Tensor a = tensor(F32, {M, K}, {1, M}, 0, 1), b = dense(F32, {K, N}, 2);
  std::vector<Tensor> biases = {
      tensor(F32, {N}, {2}, 1, 3),       dense(F32, {1, N}, 4),
      tensor(F32, {M, 1}, {1, 9}, 0, 5), tensor(F32, {M, N}, {1, M}, 0, 6),
      tensor(F32, {}, {}, 2, 7),         tensor(F32, {M, N}, {0, 1}, 0, 8)};
  for (const Tensor &bias : biases) {
    SCOPED_TRACE("bias of rank " + std::to_string(bias.rank()));
    for (const Tensor &c : {dense(F32, {M, N}, 0, kNaN),
                            tensor(F32, {M, N}, {1, M + 1}, 0, 0, kNaN)}) {
      Tensor x = bias, z = c;
      ASSERT_EQ(call("aten::addmm", {&x, &a, &b, &z}), GP_RT_SUCCESS) << error;
      expectProduct(a, b, c, z, [&](int64_t, int64_t i, int64_t j) {
        return bias.get(0, i, j);
      });
      EXPECT_EQ(x.bytes, bias.bytes) << "the bias was written";
    }
  }
  // In place: the bias is C.
  Tensor c = dense(F32, {M, N}, 3);
  struct Body {
    std::vector<int64_t> bias, a, b, c;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<Body *>(data);
      void *args[] = {self->bias.data(), self->a.data(), self->b.data(),
                      self->c.data()};
      gpRtExternArg info[] = {matrixArg(F32), matrixArg(F32), matrixArg(F32),
                              matrixArg(F32)};
      return gpRtCallExtern(stream, "aten::addmm", args, info, 4);
    }
  };
  std::vector<void *> memory;
  auto place = [&](const Tensor &t) {
    void *block = nullptr;
    EXPECT_EQ(gpRtProgramAllocate(program, t.bytes.size(), &block),
              GP_RT_SUCCESS);
    EXPECT_EQ(gpRtCopyToProgram(program, block, t.bytes.data(), t.bytes.size()),
              GP_RT_SUCCESS);
    memory.push_back(block);
    auto address = static_cast<int64_t>(reinterpret_cast<intptr_t>(block));
    std::vector<int64_t> words = {address, address, t.offset};
    words.insert(words.end(), t.sizes.begin(), t.sizes.end());
    words.insert(words.end(), t.strides.begin(), t.strides.end());
    return words;
  };
  std::vector<int64_t> cWords = place(c);
  Body body{cWords, place(a), place(b), cWords};
  ASSERT_EQ(gpRtRunPartition(program, 0, nullptr, Body::run, &body),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  Tensor z = c;
  ASSERT_EQ(
      gpRtCopyFromProgram(program, z.bytes.data(), memory[0], z.bytes.size()),
      GP_RT_SUCCESS);
  expectMatmul(a, b, c, z, true);
  // A bias that overlaps C without being C.
  body.bias[2] = 1;
  EXPECT_EQ(gpRtRunPartition(program, 0, nullptr, Body::run, &body),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(
      std::string(gpRtGetLastError()).find("C shares memory with the bias"),
      std::string::npos)
      << gpRtGetLastError();
  for (void *block : memory)
    EXPECT_EQ(gpRtProgramFree(program, block), GP_RT_SUCCESS);
  // A bias that does not broadcast, and beta/alpha.
  Tensor wrong = dense(F32, {N + 1}), out = dense(F32, {M, N});
  EXPECT_EQ(call("aten::addmm", {&wrong, &a, &b, &out}),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(error.find("does not broadcast to C"), std::string::npos) << error;
  Tensor bias = dense(F32, {N});
  EXPECT_EQ(call("aten::addmm", {&bias, &a, &b, &out}, {1, 1}),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(error.find("beta and alpha are not supported"), std::string::npos)
      << error;
  // f32 only: f16 operands are refused, not read as f32.
  Tensor halfBias = dense(F16, {N}), halfA = dense(F16, {M, K}),
         halfB = dense(F16, {K, N}), halfOut = dense(F16, {M, N}, 4);
  Tensor untouched = halfOut;
  EXPECT_EQ(call("aten::addmm", {&halfBias, &halfA, &halfB, &halfOut}),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(error.find("aten::addmm takes f32 buffers"), std::string::npos)
      << error;
  EXPECT_EQ(halfOut.bytes, untouched.bytes);
}

// Captured and replayed: each replay computes afresh from A's new values
// (gp::matmul, f16, batched and transposed; aten::addmm, whose first call
// on the stream is inside the capture).
TEST_P(MatmulTest, CapturedAndReplayed) {
  gpRtProgram *captured = makeProgram();
  ASSERT_EQ(gpRtProgramSetWarmupRuns(captured, 1), GP_RT_SUCCESS);
  constexpr int64_t batch = 3, m = 16, k = 24, n = 8;
  Tensor b = tensor(F16, {batch, k, n}, {k * n, 1, k}, 0, 2);
  Tensor c = dense(F16, {batch, m, n}, 0, kNaN);
  void *memory[3] = {};
  Tensor *tensors[3] = {nullptr, &b, &c};
  Tensor a;
  Call body{"gp::matmul", {}, {GP_RT_ELEMENT_F16, 0}, {}};
  for (int run = 0; run < 4; ++run) {
    a = tensor(F16, {batch, m, k}, {m * k, 1, m}, 0, run);
    tensors[0] = &a;
    for (int i = 0; i < 3; ++i) {
      if (!memory[i]) {
        ASSERT_EQ(
            gpRtProgramAllocate(captured, tensors[i]->bytes.size(), &memory[i]),
            GP_RT_SUCCESS);
        auto address =
            static_cast<int64_t>(reinterpret_cast<intptr_t>(memory[i]));
        std::vector<int64_t> words = {address, address, 0};
        words.insert(words.end(), tensors[i]->sizes.begin(),
                     tensors[i]->sizes.end());
        words.insert(words.end(), tensors[i]->strides.begin(),
                     tensors[i]->strides.end());
        body.descriptors.push_back(words);
        body.types.push_back(tensors[i]->type);
      }
      ASSERT_EQ(gpRtCopyToProgram(captured, memory[i], tensors[i]->bytes.data(),
                                  tensors[i]->bytes.size()),
                GP_RT_SUCCESS);
    }
    ASSERT_EQ(gpRtRunPartition(captured, 1, nullptr, Call::run, &body),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    Tensor z = c;
    ASSERT_EQ(gpRtCopyFromProgram(captured, z.bytes.data(), memory[2],
                                  z.bytes.size()),
              GP_RT_SUCCESS);
    SCOPED_TRACE("run " + std::to_string(run));
    expectMatmul(a, b, c, z, false);
  }
  gpRtStats stats;
  ASSERT_EQ(gpRtProgramGetStats(captured, &stats), GP_RT_SUCCESS);
  EXPECT_EQ(stats.captures, 1);
  EXPECT_EQ(stats.replays, 3); // The capture's run, then two.
  for (void *block : memory)
    EXPECT_EQ(gpRtProgramFree(captured, block), GP_RT_SUCCESS);

  // aten::addmm captured with no warm-up on a fresh program, so that its
  // bias copy is first needed inside the capture (on cuda: the kernel's
  // module is loaded while capturing). An eager call before it makes the
  // stream's cuBLAS handle and workspace, which a capture cannot allocate.
  gpRtProgram *fresh = makeProgram();
  ASSERT_EQ(gpRtProgramSetWarmupRuns(fresh, 0), GP_RT_SUCCESS);
  Tensor bias = tensor(F32, {N}, {3}, 0, 4);
  Tensor x = tensor(F32, {M, K}, {1, M}, 0, 1), y = dense(F32, {K, N}, 2);
  Tensor warm = dense(F32, {M, N}, 0, kNaN);
  ASSERT_EQ(call("gp::matmul", {&x, &y, &warm}, {GP_RT_ELEMENT_F32, 0}, fresh,
                 1, /*partition=*/0),
            GP_RT_SUCCESS)
      << error;
  Tensor out = dense(F32, {M, N}, 0, kNaN), z = out;
  ASSERT_EQ(call("aten::addmm", {&bias, &x, &y, &z}, {}, fresh, 3),
            GP_RT_SUCCESS)
      << error;
  expectProduct(x, y, out, z,
                [&](int64_t, int64_t, int64_t j) { return bias.get(0, 0, j); });
  ASSERT_EQ(gpRtProgramGetStats(fresh, &stats), GP_RT_SUCCESS);
  EXPECT_EQ(stats.captures, 1);
  EXPECT_EQ(stats.replays, 3);
}

INSTANTIATE_TEST_SUITE_P(Backends, MatmulTest,
                         ::testing::Values(GP_RT_BACKEND_HOST,
                                           GP_RT_BACKEND_CUDA),
                         gp::test::backendTestName);

} // namespace
