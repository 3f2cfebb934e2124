//===- BindingTest.cpp - replays that follow moving inputs ----------------===//
//
// A caller passes its inputs at new addresses on most calls (fresh tensors,
// a rotation of buffers). After one capture per shape and placement, the
// runtime re-binds the graph to the new addresses and replays: no capture,
// no instantiation. Every call's results are checked against values
// computed here. Each test runs on the host backend and, where a CUDA
// device is usable, on the cuda backend.
//
//===----------------------------------------------------------------------===//

#include "AddI64Ptx.h"
#include "ExternTestSupport.h"
#include "GraphPart/Runtime/GPRuntime.h"
#include "TensorTestSupport.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

/// dst += src * scale on the host backend.
void accumulateKernel(void **params) {
  int64_t *dst = *static_cast<int64_t **>(params[0]);
  const int64_t *src = *static_cast<int64_t **>(params[1]);
  *dst += *src * *static_cast<int64_t *>(params[2]);
}

/// The cuda kernel of the program being tested (one program at a time).
void *cudaAccumulate = nullptr;

gpRtStatus launchAccumulate(gpRtStream *stream, gpRtBackend backend, void *dst,
                            void *src, int64_t scale) {
  void *params[] = {&dst, &src, &scale};
  if (backend == GP_RT_BACKEND_HOST) {
    int64_t sizes[] = {8, 8, 8};
    return gpRtLaunchHostKernel(stream, accumulateKernel, params, sizes, 3);
  }
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  return gpRtLaunchCudaKernel(stream, cudaAccumulate, grid, block, 0, params);
}

/// A partition body: dst += src * scale, then mirror = dst (a copy in the
/// graph), and hands back a pointer one element into dst.
struct Body {
  gpRtBackend backend;
  void *dst, *src, *mirror;
  int64_t scale;
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<Body *>(data);
    if (gpRtStatus status = launchAccumulate(stream, self->backend, self->dst,
                                             self->src, self->scale))
      return status;
    if (!self->mirror)
      return GP_RT_SUCCESS;
    return gpRtCopy(stream, self->mirror, self->dst, sizeof(int64_t),
                    GP_RT_COPY_PROGRAM_TO_PROGRAM);
  }
};

/// An extern (dst, src) as rank-1 descriptors: dst[0] += src[0] * 3.
gpRtBackend externBackend = GP_RT_BACKEND_HOST;
gpRtStatus accumulateExtern(gpRtStream *stream, void **args,
                            const gpRtExternArg *, int32_t n) {
  if (n != 2)
    return GP_RT_ERROR_INVALID_ARGUMENT;
  auto *dst = static_cast<gpRtMemRef *>(args[0]);
  auto *src = static_cast<gpRtMemRef *>(args[1]);
  return launchAccumulate(
      stream, externBackend, static_cast<int64_t *>(dst->aligned) + dst->offset,
      static_cast<int64_t *>(src->aligned) + src->offset, 3);
}

/// A rank-R descriptor, laid out as gpRtMemRef.
template <int R> struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[R];
  int64_t strides[R];
};
using Vector = Descriptor<1>;
/// A rank-1 descriptor of `n` int64s at `data`.
Vector vectorOf(void *data, int64_t n) { return {data, data, 0, {n}, {1}}; }

struct ExternBody {
  Vector dst, src;
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<ExternBody *>(data);
    void *args[] = {&self->dst, &self->src};
    gpRtExternArg info[] = {gp::test::bufferArg(GP_RT_ELEMENT_I64, 1),
                            gp::test::bufferArg(GP_RT_ELEMENT_I64, 1)};
    return gpRtCallExtern(stream, "test::accumulate", args, info, 2);
  }
};

class BindingTest : public ::testing::TestWithParam<gpRtBackend> {
protected:
  void SetUp() override {
    backend = GetParam();
    GP_SKIP_UNLESS_AVAILABLE(backend);
    partitions[0] = {1, 1, nullptr};
    gpRtProgramInfo info{"moving", 1, partitions, 4096, 0, 0};
    ASSERT_EQ(gpRtProgramCreate(&info, backend, 0, &program), GP_RT_SUCCESS)
        << gpRtGetLastError();
    if (backend == GP_RT_BACKEND_CUDA) {
      void *module = nullptr;
      ASSERT_EQ(gpRtCudaLoadModule(program, kAddI64Ptx, &module), GP_RT_SUCCESS)
          << gpRtGetLastError();
      ASSERT_EQ(gpRtCudaGetFunction(program, module, "accumulate_i64",
                                    &cudaAccumulate),
                GP_RT_SUCCESS)
          << gpRtGetLastError();
    }
    externBackend = backend;
  }
  void TearDown() override {
    for (void *block : blocks)
      EXPECT_EQ(gpRtProgramFree(program, block), GP_RT_SUCCESS);
    if (program)
      EXPECT_EQ(gpRtProgramDestroy(program), GP_RT_SUCCESS);
  }

  /// Program memory for `n` int64s, all `value`.
  int64_t *allocate(int64_t n, int64_t value = 0) {
    void *block = nullptr;
    EXPECT_EQ(gpRtProgramAllocate(program, n * 8, &block), GP_RT_SUCCESS);
    blocks.push_back(block);
    std::vector<int64_t> values(n, value);
    EXPECT_EQ(gpRtCopyToProgram(program, block, values.data(), n * 8),
              GP_RT_SUCCESS);
    return static_cast<int64_t *>(block);
  }
  int64_t read(const int64_t *at) {
    int64_t value = -1;
    EXPECT_EQ(gpRtCopyFromProgram(program, &value, at, 8), GP_RT_SUCCESS);
    return value;
  }
  void write(int64_t *at, int64_t value) {
    ASSERT_EQ(gpRtCopyToProgram(program, at, &value, 8), GP_RT_SUCCESS);
  }
  gpRtStats stats() {
    gpRtStats s;
    EXPECT_EQ(gpRtProgramGetStats(program, &s), GP_RT_SUCCESS);
    return s;
  }
  std::string report() {
    const char *text = nullptr;
    EXPECT_EQ(gpRtProgramGetBindingReport(program, &text), GP_RT_SUCCESS);
    return text ? text : "";
  }
  /// Runs the body on (dst, src, mirror); `bytes` is what each input
  /// reaches. Returns the result word the body handed back.
  gpRtStatus run(int64_t *dst, int64_t *src, int64_t *mirror, int64_t scale = 2,
                 int64_t bytes = 8) {
    Body body{backend, dst, src, mirror, scale};
    // dst reaches its second element: the handed-back pointer.
    gpRtPartitionInput inputs[] = {{dst, bytes < 0 ? bytes : 2 * bytes},
                                   {src, bytes},
                                   {mirror, mirror ? bytes : 0}};
    int64_t key = 1;
    result = nullptr;
    ResultBody withResult{body, &result};
    return gpRtRunPartitionWithResults(program, 0, &key, ResultBody::run,
                                       &withResult, &result, sizeof(result),
                                       inputs, mirror ? 3 : 2);
  }
  struct ResultBody {
    Body body;
    int64_t **result;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<ResultBody *>(data);
      *self->result = static_cast<int64_t *>(self->body.dst) + 1;
      return Body::run(stream, &self->body);
    }
  };

  gpRtBackend backend = GP_RT_BACKEND_HOST;
  gpRtPartitionInfo partitions[1];
  gpRtProgram *program = nullptr;
  std::vector<void *> blocks;
  int64_t *result = nullptr;
};

// 64 sets of inputs at distinct addresses, in rotation for 448 calls, with
// fresh source values on every call: one warm-up and one capture, then
// replays only; every call's destination, mirror copy and handed-back
// pointer match what the call should have produced. Sets that recur get an
// executable each (instantiated from the captured graph): after three
// rounds, no capture, instantiation or re-binding at all.
TEST_P(BindingTest, RotatingInputsReplayWithoutCapturing) {
  constexpr int kSets = 64;
  std::vector<int64_t *> dst, src, mirror;
  std::vector<int64_t> expected(kSets, 0);
  for (int i = 0; i < kSets; ++i) {
    dst.push_back(allocate(2));
    src.push_back(allocate(1));
    mirror.push_back(allocate(1));
  }
  gpRtStats afterWarmup{};
  for (int step = 0; step < 7 * kSets; ++step) {
    if (step == 3 * kSets)
      afterWarmup = stats();
    int set = (step * 5) % kSets; // Not in allocation order.
    int64_t value = step * 7 + set;
    write(src[set], value);
    ASSERT_EQ(run(dst[set], src[set], mirror[set]), GP_RT_SUCCESS)
        << gpRtGetLastError();
    expected[set] += 2 * value;
    ASSERT_EQ(read(dst[set]), expected[set]) << "step " << step;
    ASSERT_EQ(read(mirror[set]), expected[set]) << "step " << step;
    ASSERT_EQ(result, dst[set] + 1) << "step " << step;
  }
  gpRtStats s = stats();
  EXPECT_EQ(s.warmupRuns, 1);
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.instantiations, kSets); // The capture's and 63 variants.
  EXPECT_EQ(s.updates, 0);
  EXPECT_EQ(s.replays, 7 * kSets - 1);
  EXPECT_GT(s.rebinds, 0); // Before the sets recurred.
  EXPECT_EQ(s.captures - afterWarmup.captures, 0);
  EXPECT_EQ(s.instantiations - afterWarmup.instantiations, 0);
  EXPECT_EQ(s.rebinds - afterWarmup.rebinds, 0);
  EXPECT_EQ(s.replays - afterWarmup.replays, 4 * kSets);
  EXPECT_NE(report().find("partition 0 input 0: re-bound in place"),
            std::string::npos)
      << report();
}

// A run on the inputs of the run before replays that run's variant again
// without keying the inputs' placement; moving away and back still
// replays the variant bound to each set, with the values of the moment.
TEST_P(BindingTest, RepeatedInputsReplayTheLastVariant) {
  int64_t *dst[2] = {allocate(2), allocate(2)};
  int64_t *src[2] = {allocate(1), allocate(1)};
  int64_t *mirror[2] = {allocate(1), allocate(1)};
  int64_t expected[2] = {0, 0};
  const int sets[] = {0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1};
  for (int step = 0; step < static_cast<int>(std::size(sets)); ++step) {
    int set = sets[step];
    int64_t value = 3 * step + 1;
    write(src[set], value);
    ASSERT_EQ(run(dst[set], src[set], mirror[set]), GP_RT_SUCCESS)
        << gpRtGetLastError();
    expected[set] += 2 * value;
    ASSERT_EQ(read(dst[set]), expected[set]) << "step " << step;
    ASSERT_EQ(read(mirror[set]), expected[set]) << "step " << step;
    ASSERT_EQ(result, dst[set] + 1) << "step " << step;
  }
  gpRtStats s = stats();
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.replays, static_cast<int64_t>(std::size(sets)) - 1);
}

// Inputs that overlap (here: one buffer as both source and destination)
// are a placement of their own: captured once, then replayed at any
// address, alternating with distinct inputs.
TEST_P(BindingTest, AliasedInputsGetTheirOwnPlacement) {
  constexpr int kSets = 8;
  std::vector<int64_t *> shared, dst, src;
  std::vector<int64_t> sharedValue(kSets, 1), dstValue(kSets, 0);
  for (int i = 0; i < kSets; ++i) {
    shared.push_back(allocate(1, 1));
    dst.push_back(allocate(1));
    src.push_back(allocate(1, i + 1));
  }
  for (int step = 0; step < 8 * kSets; ++step) {
    int set = step % kSets;
    if (step % 2) {
      ASSERT_EQ(run(shared[set], shared[set], nullptr, 3), GP_RT_SUCCESS);
      sharedValue[set] += sharedValue[set] * 3; // *dst += *dst * 3
      ASSERT_EQ(read(shared[set]), sharedValue[set]) << "step " << step;
    } else {
      ASSERT_EQ(run(dst[set], src[set], nullptr, 3), GP_RT_SUCCESS);
      dstValue[set] += 3 * (set + 1);
      ASSERT_EQ(read(dst[set]), dstValue[set]) << "step " << step;
    }
  }
  EXPECT_EQ(stats().captures, 2);
  // One executable per set of addresses (4 aliased, 4 distinct).
  EXPECT_EQ(stats().instantiations, 8);
}

// Addresses that never recur (a fresh buffer on every call) re-bind the
// one executable; a graph cache smaller than the rotation keeps as many
// executables as it holds and re-binds for the rest. Both stay correct.
TEST_P(BindingTest, FreshAndOverflowingAddressSets) {
  int64_t *src = allocate(1, 4);
  std::vector<int64_t *> fresh;
  for (int step = 0; step < 40; ++step) {
    fresh.push_back(allocate(1, step));
    ASSERT_EQ(run(fresh.back(), src, nullptr, 1), GP_RT_SUCCESS);
    ASSERT_EQ(read(fresh.back()), step + 4) << "step " << step;
  }
  EXPECT_EQ(stats().captures, 1);
  EXPECT_EQ(stats().instantiations, 1);
  EXPECT_EQ(stats().rebinds, 38);

  ASSERT_EQ(gpRtProgramSetGraphCacheCapacity(program, 4), GP_RT_SUCCESS);
  constexpr int kSets = 8;
  std::vector<int64_t *> dst;
  std::vector<int64_t> expected(kSets, 0);
  for (int i = 0; i < kSets; ++i)
    dst.push_back(allocate(1));
  for (int step = 0; step < 6 * kSets; ++step) {
    int set = step % kSets;
    ASSERT_EQ(run(dst[set], src, nullptr, 1), GP_RT_SUCCESS);
    expected[set] += 4;
    ASSERT_EQ(read(dst[set]), expected[set]) << "step " << step;
  }
  EXPECT_EQ(stats().captures, 1);
  EXPECT_LE(stats().liveGraphs, 4);
}

// Views into one larger caller buffer, at a new offset on every call.
TEST_P(BindingTest, ViewsIntoALargerBuffer) {
  constexpr int kRows = 32;
  int64_t *big = allocate(2 * kRows);
  std::vector<int64_t> expected(kRows, 0);
  for (int step = 0; step < 4 * kRows; ++step) {
    int row = (step * 7) % kRows;
    int64_t *dst = big + 2 * row, *src = big + 2 * row + 1;
    write(src, step);
    ASSERT_EQ(run(dst, src, nullptr), GP_RT_SUCCESS);
    expected[row] += 2 * step;
    ASSERT_EQ(read(dst), expected[row]) << "step " << step;
    ASSERT_EQ(result, dst + 1);
  }
  EXPECT_EQ(stats().captures, 1);
}

// An input whose reach is unknown keeps graphs keyed by its address.
TEST_P(BindingTest, UnknownReachKeysByAddress) {
  int64_t *a = allocate(1), *b = allocate(1), *src = allocate(1, 5);
  for (int step = 0; step < 4; ++step)
    ASSERT_EQ(run(step % 2 ? a : b, src, nullptr, 1, -1), GP_RT_SUCCESS);
  EXPECT_EQ(read(a), 10);
  EXPECT_EQ(read(b), 10);
  EXPECT_EQ(stats().captures, 2);
  EXPECT_EQ(stats().rebinds, 0);
  EXPECT_NE(report().find("keyed by address"), std::string::npos) << report();
}

// An extern's recorded or captured work follows moved inputs, unless it is
// registered as holding fixed addresses: then the partition keeps graphs
// per input address, says why, and stays correct.
TEST_P(BindingTest, ExternsFollowMovedInputsUnlessFixed) {
  for (int32_t flags :
       {int32_t(GP_RT_EXTERN_CAPTURABLE),
        int32_t(GP_RT_EXTERN_CAPTURABLE | GP_RT_EXTERN_FIXED_ADDRESSES)}) {
    SCOPED_TRACE(flags);
    TearDown();
    blocks.clear();
    program = nullptr;
    SetUp();
    ASSERT_EQ(gp::test::registerExtern("test::accumulate", accumulateExtern,
                                       flags),
              GP_RT_SUCCESS);
    constexpr int kSets = 4;
    std::vector<int64_t *> dst, src;
    std::vector<int64_t> expected(kSets, 0);
    for (int i = 0; i < kSets; ++i) {
      dst.push_back(allocate(1));
      src.push_back(allocate(1, i + 1));
    }
    for (int step = 0; step < 6 * kSets; ++step) {
      int set = step % kSets;
      ExternBody body{vectorOf(dst[set], 1), vectorOf(src[set], 1)};
      gpRtPartitionInput inputs[] = {{dst[set], 8}, {src[set], 8}};
      int64_t key = 1;
      ASSERT_EQ(gpRtRunPartitionWithResults(program, 0, &key, ExternBody::run,
                                            &body, nullptr, 0, inputs, 2),
                GP_RT_SUCCESS)
          << gpRtGetLastError();
      expected[set] += 3 * (set + 1);
      ASSERT_EQ(read(dst[set]), expected[set]) << "step " << step;
    }
    bool fixed = flags & GP_RT_EXTERN_FIXED_ADDRESSES;
    EXPECT_EQ(stats().captures, fixed ? kSets : 1);
    std::string text = report();
    EXPECT_EQ(text.find("keyed by address (extern 'test::accumulate' was "
                        "registered with GP_RT_EXTERN_FIXED_ADDRESSES)") !=
                  std::string::npos,
              fixed)
        << text;
  }
}

// The built-in matmul (cuBLAS on cuda: a library's kernels, found in the
// captured graph and re-bound within their inputs' alignment class) on 16
// rotating sets of matrices with fresh values every call.
TEST_P(BindingTest, MatmulFollowsMovedInputs) {
  constexpr int kSets = 16, kN = 8, kBytes = kN * kN * 4;
  using Matrix = Descriptor<2>;
  auto matrixOf = [](void *data) {
    return Matrix{data, data, 0, {kN, kN}, {kN, 1}};
  };
  std::vector<void *> a, b, c;
  for (int i = 0; i < 3 * kSets; ++i) {
    void *block = nullptr;
    ASSERT_EQ(gpRtProgramAllocate(program, kBytes, &block), GP_RT_SUCCESS);
    blocks.push_back(block);
    (i < kSets ? a : i < 2 * kSets ? b : c).push_back(block);
  }
  struct MmBody {
    Matrix a, b, c;
    static gpRtStatus run(gpRtStream *stream, void *data) {
      auto *self = static_cast<MmBody *>(data);
      void *args[] = {&self->a, &self->b, &self->c};
      gpRtExternArg info[] = {gp::test::bufferArg(GP_RT_ELEMENT_F32, 2),
                              gp::test::bufferArg(GP_RT_ELEMENT_F32, 2),
                              gp::test::bufferArg(GP_RT_ELEMENT_F32, 2, 1)};
      return gpRtCallExtern(stream, "aten::mm", args, info, 3);
    }
  };
  std::vector<float> x(kN * kN), y(kN * kN), z(kN * kN);
  for (int step = 0; step < 4 * kSets; ++step) {
    int set = (step * 3) % kSets;
    for (int i = 0; i < kN * kN; ++i) {
      x[i] = static_cast<float>((i + step) % 7) - 3.0f;
      y[i] = static_cast<float>((i * 3 + set) % 5) - 2.0f;
    }
    ASSERT_EQ(gpRtCopyToProgram(program, a[set], x.data(), kBytes),
              GP_RT_SUCCESS);
    ASSERT_EQ(gpRtCopyToProgram(program, b[set], y.data(), kBytes),
              GP_RT_SUCCESS);
    MmBody body{matrixOf(a[set]), matrixOf(b[set]), matrixOf(c[set])};
    gpRtPartitionInput inputs[] = {
        {a[set], kBytes}, {b[set], kBytes}, {c[set], kBytes}};
    int64_t key = 1;
    ASSERT_EQ(gpRtRunPartitionWithResults(program, 0, &key, MmBody::run, &body,
                                          nullptr, 0, inputs, 3),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    ASSERT_EQ(gpRtCopyFromProgram(program, z.data(), c[set], kBytes),
              GP_RT_SUCCESS);
    for (int i = 0; i < kN; ++i)
      for (int j = 0; j < kN; ++j) {
        float sum = 0;
        for (int k = 0; k < kN; ++k)
          sum += x[i * kN + k] * y[k * kN + j];
        ASSERT_FLOAT_EQ(z[i * kN + j], sum)
            << "step " << step << " at " << i << "," << j;
      }
  }
  EXPECT_EQ(stats().captures, 1);
  EXPECT_EQ(stats().instantiations, kSets); // One per recurring set.
}

TEST(ExternRegistration, UnknownFlagsAreAnError) {
  EXPECT_EQ(gp::test::registerExtern("test::flags", accumulateExtern, 1 | 8),
            GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError()).find("unknown flags 8"),
            std::string::npos)
      << gpRtGetLastError();
}

INSTANTIATE_TEST_SUITE_P(Backends, BindingTest,
                         ::testing::Values(GP_RT_BACKEND_HOST,
                                           GP_RT_BACKEND_CUDA),
                         gp::test::backendTestName);

} // namespace
