//===- AttentionTest.cpp - the built-in gp::attention extern --------------===//
//
// gp::attention on descriptors made here: f32, f16 and bf16; grouped
// key/value heads; query and key counts that are not multiples of the
// kernels' tiles; every kernel width; transposed (head-major) layouts;
// causal, bool and additive masks that broadcast; rows left with no score;
// and the errors a bad call gets. Each result is compared with a
// double-precision softmax written here. Every test runs on the host
// backend and, where a CUDA device is usable, on the cuda backend, eagerly
// and captured: `GPRuntimeTests --gtest_filter='*Attention*'`.
//
//===----------------------------------------------------------------------===//

#include "ExternTestSupport.h"
#include "TensorTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

using gp::test::bytesOf;
using gp::test::dense;
using gp::test::Tensor;
using gp::test::tensor;

/// What one call passes beside the buffers.
struct Options {
  double scale = 0.125;
  int64_t causal = 0;
  int64_t zeroFullyMasked = 1;
};

/// out[b, h, i, :] in double, as the extern's comment defines it.
std::vector<double> reference(const Tensor &q, const Tensor &k, const Tensor &v,
                              const Tensor *mask, const Options &options,
                              int64_t b, int64_t h, int64_t i) {
  int r = q.rank();
  int64_t heads = q.sizes[r - 3], kvHeads = k.sizes[r - 3],
          keys = k.sizes[r - 2], width = q.sizes[r - 1],
          valueWidth = v.sizes[r - 1];
  int64_t kvHead = h / (heads / kvHeads);
  const double minusInfinity = -std::numeric_limits<double>::infinity();
  std::vector<double> scores(keys);
  double high = minusInfinity;
  for (int64_t j = 0; j < keys; ++j) {
    double dot = 0;
    for (int64_t d = 0; d < width; ++d)
      dot += q.at4(b, h, i, d) * k.at4(b, kvHead, j, d);
    double score = dot * options.scale;
    bool keep = !(options.causal && j > i);
    if (mask && mask->type == GP_RT_ELEMENT_I1)
      keep = keep && mask->at4(b, h, i, j) != 0;
    else if (mask)
      score += mask->at4(b, h, i, j);
    scores[j] = keep ? score : minusInfinity;
    high = std::max(high, scores[j]);
  }
  if (high == minusInfinity)
    return std::vector<double>(valueWidth,
                               options.zeroFullyMasked
                                   ? 0.0
                                   : std::numeric_limits<double>::quiet_NaN());
  double total = 0;
  std::vector<double> sums(valueWidth, 0.0);
  for (int64_t j = 0; j < keys; ++j) {
    double weight = std::exp(scores[j] - high);
    total += weight;
    for (int64_t e = 0; e < valueWidth; ++e)
      sums[e] += weight * v.at4(b, kvHead, j, e);
  }
  for (double &sum : sums)
    sum /= total;
  return sums;
}

double tolerance(gpRtElementType type, double expected) {
  switch (type) {
  case GP_RT_ELEMENT_F16:
    return 2e-3 * std::fabs(expected) + 2e-3;
  case GP_RT_ELEMENT_BF16:
    return 8e-3 * std::fabs(expected) + 8e-3;
  default:
    return 2e-5 * std::fabs(expected) + 2e-5;
  }
}

class AttentionTest : public ::testing::TestWithParam<gpRtBackend> {
protected:
  void SetUp() override {
    backend = GetParam();
    GP_SKIP_UNLESS_AVAILABLE(backend);
    static gpRtPartitionInfo partitions[2] = {{0, 0, "eager"}, {1, 0, nullptr}};
    gpRtProgramInfo info{"attention", 2, partitions, 0, 0, 0};
    ASSERT_EQ(gpRtProgramCreate(&info, backend, 0, &program), GP_RT_SUCCESS)
        << gpRtGetLastError();
  }
  void TearDown() override {
    if (program)
      EXPECT_EQ(gpRtProgramDestroy(program), GP_RT_SUCCESS);
  }

  /// The arguments as compiled code passes them: q, k, v, [mask,] scale,
  /// causal, zeroFullyMasked, out.
  struct Call {
    std::vector<std::vector<int64_t>> descriptors;
    std::vector<gpRtElementType> types;
    bool masked = false;
    /// gp::attention_into: out is the last operand, not a result.
    bool into = false;
    double scale = 0;
    int64_t causal = 0, zeroFullyMasked = 0;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<Call *>(data);
      std::vector<void *> args;
      std::vector<gpRtExternArg> info;
      auto buffer = [&](size_t i, int32_t isResult) {
        std::vector<int64_t> &words = self->descriptors[i];
        args.push_back(words.data());
        info.push_back(gp::test::bufferArg(
            self->types[i], static_cast<int32_t>((words.size() - 3) / 2),
            isResult));
      };
      size_t operands = self->descriptors.size() - 1;
      for (size_t i = 0; i < operands; ++i)
        buffer(i, 0);
      args.push_back(&self->scale);
      info.push_back(gp::test::scalarArg(GP_RT_ELEMENT_F64));
      args.push_back(&self->causal);
      info.push_back(gp::test::scalarArg(GP_RT_ELEMENT_I64));
      args.push_back(&self->zeroFullyMasked);
      info.push_back(gp::test::scalarArg(GP_RT_ELEMENT_I64));
      buffer(operands, self->into ? 0 : 1);
      return gpRtCallExtern(
          stream, self->into ? "gp::attention_into" : "gp::attention",
          args.data(), info.data(), static_cast<int32_t>(args.size()));
    }
  };

  /// Runs gp::attention on copies of the tensors in program memory, in
  /// `partition` (0 eager, 1 captured) `runs` times; `out` is read back.
  gpRtStatus call(const Tensor &q, const Tensor &k, const Tensor &v,
                  const Tensor *mask, Tensor &out, const Options &options,
                  int32_t partition = 0, int runs = 1) {
    std::vector<Tensor> inputs = {q, k, v};
    if (mask)
      inputs.push_back(*mask);
    std::vector<Tensor *> tensors;
    for (Tensor &input : inputs)
      tensors.push_back(&input);
    tensors.push_back(&out);
    gp::test::TensorsInProgram placed(program, tensors);
    Call body;
    body.descriptors = placed.descriptors;
    body.types = placed.types;
    body.masked = mask != nullptr;
    body.into = into;
    body.scale = options.scale;
    body.causal = options.causal;
    body.zeroFullyMasked = options.zeroFullyMasked;
    return placed.run(partition, Call::run, &body, runs, error);
  }

  /// Runs the call and compares every element of out with the reference,
  /// and the memory around out's view with what it held.
  void expectAttention(const Tensor &q, const Tensor &k, const Tensor &v,
                       const Tensor *mask, const Tensor &out,
                       const Options &options, int32_t partition = 0,
                       int runs = 1) {
    Tensor result = out;
    ASSERT_EQ(call(q, k, v, mask, result, options, partition, runs),
              GP_RT_SUCCESS)
        << error;
    int r = out.rank();
    int64_t batch = r == 4 ? out.sizes[0] : 1, heads = out.sizes[r - 3],
            queries = out.sizes[r - 2], width = out.sizes[r - 1];
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < queries; ++i) {
          std::vector<double> row = reference(q, k, v, mask, options, b, h, i);
          for (int64_t e = 0; e < width; ++e) {
            double expected = row[e];
            double got = result.at4(b, h, i, e);
            if (std::isnan(expected)) {
              ASSERT_TRUE(std::isnan(got))
                  << "at [" << b << ", " << h << ", " << i << ", " << e << "]";
              continue;
            }
            ASSERT_NEAR(got, expected, tolerance(out.type, expected))
                << "at [" << b << ", " << h << ", " << i << ", " << e << "]";
          }
        }
    gp::test::expectUnchangedOutsideView(out, result, "out");
  }

  /// The call fails with GP_RT_ERROR_INVALID_ARGUMENT saying `message`.
  void expectRefused(const Tensor &q, const Tensor &k, const Tensor &v,
                     const Tensor *mask, const Tensor &out,
                     const std::string &message, Options options = {}) {
    Tensor result = out;
    EXPECT_EQ(call(q, k, v, mask, result, options),
              GP_RT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(error.find(message), std::string::npos) << error;
    EXPECT_EQ(result.bytes, out.bytes) << "out was written";
  }

  gpRtBackend backend = GP_RT_BACKEND_HOST;
  gpRtProgram *program = nullptr;
  std::string error;
  /// Calls gp::attention_into instead of gp::attention.
  bool into = false;
};

const gpRtElementType kTypes[] = {GP_RT_ELEMENT_F32, GP_RT_ELEMENT_F16,
                                  GP_RT_ELEMENT_BF16};

TEST_P(AttentionTest, GroupedHeadsPartialTilesEveryType) {
  // 4 query heads over 2 key/value heads; 37 queries and 45 keys leave
  // partial tiles; the value width differs from the key width.
  for (gpRtElementType type : kTypes) {
    SCOPED_TRACE(gpRtElementTypeName(type));
    Tensor q = dense(type, {2, 4, 37, 24}, 1),
           k = dense(type, {2, 2, 45, 24}, 2),
           v = dense(type, {2, 2, 45, 40}, 3),
           out = dense(type, {2, 4, 37, 40});
    expectAttention(q, k, v, nullptr, out, {0.5, 0, 1});
  }
}

TEST_P(AttentionTest, EveryKernelWidthAndRankThree) {
  for (int64_t width : {7, 32, 33, 64, 100, 128}) {
    SCOPED_TRACE(width);
    Tensor q = dense(GP_RT_ELEMENT_F32, {3, 20, width}, 4),
           k = dense(GP_RT_ELEMENT_F32, {3, 33, width}, 5),
           v = dense(GP_RT_ELEMENT_F32, {3, 33, width}, 6),
           out = dense(GP_RT_ELEMENT_F32, {3, 20, width});
    expectAttention(q, k, v, nullptr, out, {1.0 / std::sqrt(width), 1, 1});
  }
}

TEST_P(AttentionTest, HalfTypesEveryWidthLongWalksAndManyHeads) {
  // The f16/bf16 kernels: every kernel width, with head widths that are
  // and are not multiples of 4 (a float4 column group) or of the kernel's;
  // several query and key tiles with partial last ones, causal and with an
  // f32 additive mask, grouped heads; and 64 heads, a bool mask and causal
  // together.
  for (gpRtElementType type : {GP_RT_ELEMENT_F16, GP_RT_ELEMENT_BF16}) {
    SCOPED_TRACE(gpRtElementTypeName(type));
    for (int64_t width : {7, 16, 33, 64, 100, 128}) {
      SCOPED_TRACE(width);
      Tensor q = dense(type, {1, 4, 70, width}, 24),
             k = dense(type, {1, 2, 150, width}, 25),
             v = dense(type, {1, 2, 150, width}, 26),
             out = dense(type, {1, 4, 70, width});
      Tensor additive = dense(GP_RT_ELEMENT_F32, {70, 150}, 27);
      expectAttention(q, k, v, nullptr, out, {1.0 / std::sqrt(width), 1, 1});
      expectAttention(q, k, v, &additive, out, {0.3, 0, 1});
    }
    Tensor q = dense(type, {2, 64, 80, 16}, 28),
           k = dense(type, {2, 8, 90, 16}, 29),
           v = dense(type, {2, 8, 90, 16}, 30),
           out = dense(type, {2, 64, 80, 16});
    Tensor keep = dense(GP_RT_ELEMENT_I1, {80, 90}, 31);
    expectAttention(q, k, v, &keep, out, {0.25, 1, 1});
  }
}

TEST_P(AttentionTest, HeadMajorViewsCausalAndMasks) {
  // q, k, v and out as views of [B, L, H, E] buffers (x.view(...).
  // transpose(1, 2)), out with a slice's offset; an f32 additive mask of
  // [L, S] and a bool mask of [B, 1, L, S] broadcast over heads.
  for (gpRtElementType type : kTypes) {
    SCOPED_TRACE(gpRtElementTypeName(type));
    int64_t B = 2, H = 3, L = 40, S = 40, E = 64;
    auto headMajor = [&](int64_t rows, int64_t width, int seed) {
      return tensor(type, {B, H, rows, width},
                    {rows * H * width, width, H * width, 1}, 0, seed);
    };
    Tensor q = headMajor(L, E, 7), k = headMajor(S, E, 8),
           v = headMajor(S, E, 9);
    Tensor out = tensor(type, {B, H, L, E}, {L * H * E, E, H * E, 1}, 3);
    Tensor additive = dense(GP_RT_ELEMENT_F32, {L, S}, 10);
    Tensor keep = dense(GP_RT_ELEMENT_I1, {B, 1, L, S}, 11);
    Tensor same = dense(type, {H, 1, S}, 12);
    expectAttention(q, k, v, &additive, out, {0.125, 1, 1});
    expectAttention(q, k, v, &keep, out, {0.125, 0, 1});
    expectAttention(q, k, v, &same, out, {0.125, 1, 1});
  }
}

TEST_P(AttentionTest, RowsWithNoScoreGiveZerosOrNaN) {
  // A bool mask removing every key of the odd rows.
  for (gpRtElementType type : kTypes) {
    SCOPED_TRACE(gpRtElementTypeName(type));
    Tensor q = dense(type, {1, 2, 9, 16}, 13),
           k = dense(type, {1, 2, 70, 16}, 14),
           v = dense(type, {1, 2, 70, 16}, 15),
           out = dense(type, {1, 2, 9, 16});
    Tensor keep = dense(GP_RT_ELEMENT_I1, {9, 1}, 0, 1.0);
    for (int64_t i = 1; i < 9; i += 2)
      keep.bytes[i] = 0;
    expectAttention(q, k, v, &keep, out, {0.25, 0, 1});
    expectAttention(q, k, v, &keep, out, {0.25, 0, 0});
    // An additive -inf mask removes them the same way.
    Tensor minusInfinity = dense(GP_RT_ELEMENT_F32, {9, 70}, 0, 0.0);
    for (int64_t j = 0; j < 70; ++j) {
      float value = -std::numeric_limits<float>::infinity();
      std::memcpy(&minusInfinity.bytes[(2 * 70 + j) * 4], &value, 4);
    }
    expectAttention(q, k, v, &minusInfinity, out, {0.25, 1, 0});
  }
}

TEST_P(AttentionTest, RowsWhoseScoresLieInOneKeySplit) {
  // The cuda kernels walk alternate 32-key tiles in two groups of threads
  // and merge them at the end. 130 keys are 5 tiles (the first group takes
  // tiles 0, 2 and 4, the second 1 and 3): rows keep only the first
  // group's keys, only the second's, both, or none. One key's value row is
  // NaN: as in PyTorch's product of the probabilities with v, it reaches
  // every row with a score left (0 * NaN is NaN), and empty rows stay
  // zeros. Causal too, where the first query tile's keys all lie in the
  // first group.
  for (gpRtElementType type : {GP_RT_ELEMENT_F32, GP_RT_ELEMENT_BF16}) {
    SCOPED_TRACE(gpRtElementTypeName(type));
    int64_t queries = 40, keys = 130, width = 64;
    Tensor q = dense(type, {1, 2, queries, width}, 32),
           k = dense(type, {1, 2, keys, width}, 33),
           v = dense(type, {1, 2, keys, width}, 34),
           out = dense(type, {1, 2, queries, width});
    Tensor keep = dense(GP_RT_ELEMENT_I1, {queries, keys}, 0, 1.0);
    for (int64_t i = 0; i < queries; ++i)
      for (int64_t j = 0; j < keys; ++j) {
        bool secondGroup = (j / 32) % 2 == 1;
        bool kept = i == queries - 2 ? false
                    : i % 3 == 0     ? secondGroup
                    : i % 3 == 1     ? !secondGroup
                                     : j % 7 != 0;
        keep.bytes[i * keys + j] = kept ? 1 : 0;
      }
    expectAttention(q, k, v, &keep, out, {0.125, 0, 1});
    expectAttention(q, k, v, &keep, out, {0.125, 0, 0});
    expectAttention(q, k, v, nullptr, out, {0.125, 1, 1});
    // Key 100 (tile 3, the second group's) with a NaN value row.
    Tensor poisoned = v;
    double nan = std::numeric_limits<double>::quiet_NaN();
    for (int64_t e = 0; e < width; ++e)
      gp::test::encode(type, nan,
                       &poisoned.bytes[(100 * width + e) * bytesOf(type)]);
    expectAttention(q, k, poisoned, &keep, out, {0.125, 0, 1});
  }
}

TEST_P(AttentionTest, CapturedAndReplayed) {
  Tensor q = dense(GP_RT_ELEMENT_BF16, {1, 8, 64, 64}, 16),
         k = dense(GP_RT_ELEMENT_BF16, {1, 2, 64, 64}, 17),
         v = dense(GP_RT_ELEMENT_BF16, {1, 2, 64, 64}, 18),
         out = dense(GP_RT_ELEMENT_BF16, {1, 8, 64, 64});
  Tensor mask = dense(GP_RT_ELEMENT_BF16, {64, 64}, 19);
  expectAttention(q, k, v, &mask, out, {0.125, 1, 1}, /*partition=*/1,
                  /*runs=*/3);
}

TEST_P(AttentionTest, IntoAGivenBufferOfAnyLayout) {
  // What gp-fuse-kernels makes of a result copied to [B, L, H, E]: the
  // call writes that buffer through the permuted view; the rest of the
  // buffer (a slice's neighbours) is left as it was.
  into = true;
  for (gpRtElementType type : kTypes) {
    SCOPED_TRACE(gpRtElementTypeName(type));
    Tensor q = dense(type, {1, 4, 40, 32}, 20),
           k = dense(type, {1, 2, 40, 32}, 21),
           v = dense(type, {1, 2, 40, 32}, 22);
    Tensor out = tensor(type, {1, 4, 40, 32}, {40 * 4 * 32, 32, 4 * 32, 1}, 7);
    Tensor mask = dense(GP_RT_ELEMENT_I1, {40, 40}, 23);
    expectAttention(q, k, v, &mask, out, {0.125, 1, 1});
    // Captured once: a replay would not follow the next type's buffers,
    // which the test does not declare as the partition's inputs.
    if (type == GP_RT_ELEMENT_BF16)
      expectAttention(q, k, v, nullptr, out, {0.125, 0, 1}, /*partition=*/1,
                      /*runs=*/2);
  }
}

TEST_P(AttentionTest, BadCallsAreRefused) {
  auto f32 = [](std::vector<int64_t> sizes, int seed = 0) {
    return dense(GP_RT_ELEMENT_F32, std::move(sizes), seed);
  };
  Tensor q = f32({1, 4, 8, 16}), k = f32({1, 2, 8, 16}), v = f32({1, 2, 8, 16}),
         out = f32({1, 4, 8, 16});
  expectRefused(q, f32({1, 2, 8, 12}), v, nullptr, out, "shapes do not agree");
  expectRefused(q, f32({1, 3, 8, 16}), f32({1, 3, 8, 16}), nullptr, out,
                "4 query heads are not a multiple of 3 key/value heads");
  Tensor wide = f32({1, 4, 8, 160});
  expectRefused(wide, f32({1, 2, 8, 160}), v, nullptr, out,
                "head widths up to 128");
  Tensor mask = f32({3, 8});
  expectRefused(q, k, v, &mask, out, "does not broadcast to the scores");
  Tensor half = dense(GP_RT_ELEMENT_F16, {1, 2, 8, 16});
  expectRefused(q, k, half, nullptr, out, "one element type, f32, f16 or bf16");
  Tensor i1 = dense(GP_RT_ELEMENT_I1, {1, 4, 8, 16});
  expectRefused(i1, i1, i1, nullptr, i1, "one element type");
  expectRefused(q, k, v, nullptr, out, "causal and zeroFullyMasked are 0 or 1",
                {0.125, 2, 1});
  expectRefused(q, k, v, nullptr, out, "is not finite",
                {std::numeric_limits<double>::infinity(), 0, 1});
}

INSTANTIATE_TEST_SUITE_P(Backends, AttentionTest,
                         ::testing::Values(GP_RT_BACKEND_HOST,
                                           GP_RT_BACKEND_CUDA),
                         gp::test::backendTestName);

} // namespace
