//===- TensorTestSupport.h - strided test tensors of any float type -------===//
//
// Views (sizes, strides, offset) of host buffers of f32, f16 or bf16 with
// known values, the memory around them filled with a sentinel, and their
// elements decoded independently of the runtime's helpers: what the
// built-in extern tests (MatmulTest, AttentionTest) pass and check.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_UNITTESTS_RUNTIME_TENSORTESTSUPPORT_H
#define GRAPHPART_UNITTESTS_RUNTIME_TENSORTESTSUPPORT_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace gp::test {

inline int64_t bytesOf(gpRtElementType type) {
  return type == GP_RT_ELEMENT_F32 ? 4 : type == GP_RT_ELEMENT_I1 ? 1 : 2;
}

/// An element's value, decoded independently of the runtime's helpers.
inline double decode(gpRtElementType type, const uint8_t *p) {
  if (type == GP_RT_ELEMENT_I1)
    return p[0] != 0;
  if (type == GP_RT_ELEMENT_F32) {
    float value;
    std::memcpy(&value, p, 4);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  if (type == GP_RT_ELEMENT_BF16) {
    uint32_t wide = static_cast<uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &wide, 4);
    return value;
  }
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

/// Writes `value`, which the type must hold exactly (the tests' values are
/// quarters in [-1, 1], small integers and NaN), or NaN.
inline void encode(gpRtElementType type, double value, uint8_t *p) {
  if (type == GP_RT_ELEMENT_I1) {
    p[0] = value != 0;
    return;
  }
  if (type == GP_RT_ELEMENT_F32) {
    float narrow = static_cast<float>(value);
    std::memcpy(p, &narrow, 4);
    return;
  }
  uint16_t bits;
  if (std::isnan(value)) {
    bits = type == GP_RT_ELEMENT_F16 ? 0x7e00 : 0x7fc0;
  } else if (type == GP_RT_ELEMENT_BF16) {
    float narrow = static_cast<float>(value);
    uint32_t wide;
    std::memcpy(&wide, &narrow, 4);
    bits = static_cast<uint16_t>(wide >> 16);
  } else if (value == 0) {
    bits = 0;
  } else {
    int exponent;
    double fraction = std::frexp(std::fabs(value), &exponent); // [0.5, 1)
    bits = static_cast<uint16_t>(((exponent + 14) << 10) |
                                 static_cast<int>((fraction * 2 - 1) * 1024));
    if (value < 0)
      bits |= 0x8000;
  }
  std::memcpy(p, &bits, 2);
  if (!std::isnan(value))
    EXPECT_EQ(decode(type, p), value) << "not exact in this type";
}

/// An operand: a view (sizes, strides and offset in elements) of a buffer,
/// kept here and, during a call, in program memory.
struct Tensor {
  gpRtElementType type = GP_RT_ELEMENT_F32;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  std::vector<uint8_t> bytes; // The whole buffer.

  int rank() const { return static_cast<int>(sizes.size()); }
  /// The buffer position of view element (t, i, j): the last `rank` of
  /// them index the view; a dimension of size 1 broadcasts.
  int64_t position(int64_t t, int64_t i, int64_t j) const {
    int64_t index[3] = {t, i, j}, at = offset;
    for (int d = 0; d < rank(); ++d) {
      int64_t value = index[3 - rank() + d];
      at += (sizes[d] == 1 ? 0 : value) * strides[d];
    }
    return at;
  }
  double get(int64_t t, int64_t i, int64_t j) const {
    return decode(type, &bytes[position(t, i, j) * bytesOf(type)]);
  }
  /// The element at [b, h, i, j] of a view of rank up to 4, aligned from
  /// the right; a dimension of size 1 broadcasts.
  double at4(int64_t b, int64_t h, int64_t i, int64_t j) const {
    int64_t index[4] = {b, h, i, j}, at = offset;
    for (int d = 0; d < rank(); ++d)
      at += (sizes[d] == 1 ? 0 : index[4 - rank() + d]) * strides[d];
    return decode(type, &bytes[at * bytesOf(type)]);
  }
  /// Every buffer position the view reaches.
  std::vector<int64_t> positions() const {
    std::vector<int64_t> result;
    int64_t count = 1;
    for (int64_t size : sizes)
      count *= size;
    for (int64_t flat = 0; flat < count; ++flat) {
      int64_t rest = flat, at = offset;
      for (int d = rank() - 1; d >= 0; --d) {
        at += (rest % sizes[d]) * strides[d];
        rest /= sizes[d];
      }
      result.push_back(at);
    }
    return result;
  }
};

/// A view of a buffer that holds it with `pad` elements to spare; the
/// buffer holds 99 everywhere, the view `fill` or, by default, quarters in
/// [-1, 1] drawn from `seed`.
inline Tensor tensor(gpRtElementType type, std::vector<int64_t> sizes,
                     std::vector<int64_t> strides, int64_t offset = 0,
                     int seed = 0, std::optional<double> fill = std::nullopt) {
  Tensor t{type, std::move(sizes), std::move(strides), offset, {}};
  int64_t reach = offset;
  for (int d = 0; d < t.rank(); ++d)
    if (t.strides[d] > 0 && t.sizes[d] > 0)
      reach += t.strides[d] * (t.sizes[d] - 1);
  constexpr int64_t pad = 5;
  int64_t elements = reach + 1 + pad, bytes = bytesOf(type);
  t.bytes.resize(elements * bytes);
  for (int64_t i = 0; i < elements; ++i)
    encode(type, 99, &t.bytes[i * bytes]);
  int64_t index = 0;
  for (int64_t at : t.positions()) {
    double value =
        fill ? *fill : static_cast<double>((index * 7 + seed * 5) % 9 - 4) / 4;
    encode(type, value, &t.bytes[at * bytes]);
    ++index;
  }
  return t;
}

/// A dense row-major view.
inline Tensor dense(gpRtElementType type, std::vector<int64_t> sizes,
                    int seed = 0, std::optional<double> fill = std::nullopt) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= std::max<int64_t>(1, sizes[d]);
  }
  return tensor(type, std::move(sizes), std::move(strides), 0, seed, fill);
}

/// Fails unless `after`'s buffer holds what `before`'s did everywhere
/// outside the view (a write past a view's elements), naming `name`.
inline void expectUnchangedOutsideView(const Tensor &before,
                                       const Tensor &after, const char *name) {
  std::vector<bool> inView(before.bytes.size() / bytesOf(before.type));
  for (int64_t at : before.positions())
    inView[at] = true;
  int64_t bytes = bytesOf(before.type);
  for (size_t at = 0; at < inView.size(); ++at)
    if (!inView[at])
      ASSERT_EQ(std::memcmp(&before.bytes[at * bytes], &after.bytes[at * bytes],
                            bytes),
                0)
          << name << "'s buffer changed outside the view at element " << at;
}

/// Tensors copied into a program's memory for a call: each one's memref
/// descriptor words (allocated, aligned, offset, sizes, strides) as
/// compiled code passes them; readBack() synchronizes, copies every tensor
/// back and frees the memory.
class TensorsInProgram {
public:
  TensorsInProgram(gpRtProgram *program, std::vector<Tensor *> tensors)
      : program(program), tensors(std::move(tensors)) {
    for (Tensor *t : this->tensors) {
      void *block = nullptr;
      EXPECT_EQ(gpRtProgramAllocate(program, t->bytes.size(), &block),
                GP_RT_SUCCESS);
      EXPECT_EQ(
          gpRtCopyToProgram(program, block, t->bytes.data(), t->bytes.size()),
          GP_RT_SUCCESS);
      memory.push_back(block);
      auto address = static_cast<int64_t>(reinterpret_cast<intptr_t>(block));
      std::vector<int64_t> words = {address, address, t->offset};
      words.insert(words.end(), t->sizes.begin(), t->sizes.end());
      words.insert(words.end(), t->strides.begin(), t->strides.end());
      descriptors.push_back(std::move(words));
      types.push_back(t->type);
    }
  }
  /// Runs `partition` with `body` up to `runs` times (until one fails),
  /// then reads the tensors back; `error` is the failure's message.
  gpRtStatus run(int32_t partition, gpRtPartitionBody body, void *data,
                 int runs, std::string &error) {
    gpRtStatus status = GP_RT_SUCCESS;
    for (int i = 0; i < runs && status == GP_RT_SUCCESS; ++i)
      status = gpRtRunPartition(program, partition, nullptr, body, data);
    error = status ? gpRtGetLastError() : "";
    readBack();
    return status;
  }
  void readBack() {
    EXPECT_EQ(gpRtProgramSynchronize(program), GP_RT_SUCCESS);
    for (size_t i = 0; i < tensors.size(); ++i) {
      EXPECT_EQ(gpRtCopyFromProgram(program, tensors[i]->bytes.data(),
                                    memory[i], tensors[i]->bytes.size()),
                GP_RT_SUCCESS);
      EXPECT_EQ(gpRtProgramFree(program, memory[i]), GP_RT_SUCCESS);
    }
  }

  std::vector<std::vector<int64_t>> descriptors;
  std::vector<gpRtElementType> types;

private:
  gpRtProgram *program;
  std::vector<Tensor *> tensors;
  std::vector<void *> memory;
};

/// Names a backend-parameterized test's instances "host" and "cuda".
inline std::string
backendTestName(const ::testing::TestParamInfo<gpRtBackend> &info) {
  return gpRtBackendName(info.param);
}

} // namespace gp::test

/// Runs `call` and expects it to fail with GP_RT_ERROR_INVALID_ARGUMENT
/// and a message containing `text`.
#define EXPECT_INVALID(call, text)                                             \
  do {                                                                         \
    EXPECT_EQ((call), GP_RT_ERROR_INVALID_ARGUMENT);                           \
    EXPECT_NE(std::string(gpRtGetLastError()).find(text), std::string::npos)  \
        << "message: " << gpRtGetLastError();                                  \
  } while (0)

/// Skips the current test (from a fixture's SetUp or a test body) when
/// `backend` cannot run here: no GPU, or no CUDA driver.
#define GP_SKIP_UNLESS_AVAILABLE(backend)                                      \
  do {                                                                         \
    if (gpRtBackendAvailable(backend) != GP_RT_SUCCESS)                        \
      GTEST_SKIP() << gpRtBackendName(backend)                                 \
                   << " backend unavailable: " << gpRtGetLastError();          \
  } while (false)

#endif // GRAPHPART_UNITTESTS_RUNTIME_TENSORTESTSUPPORT_H
