//===- Gemm.h - strided matrix products on either backend -------*- C++ -*-===//
//
// What the matmul externs (Matmul.cpp) compute with: their operands, read
// from memref descriptors; the checks of shapes, layouts and overlap, and
// the plan that maps a product onto cuBLAS's column-major GEMM; and the
// product itself, a cuBLAS call on the cuda backend and a loop on the host
// backend (Gemm.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_GEMM_H
#define GRAPHPART_LIB_RUNTIME_GEMM_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdint>
#include <string>
#include <utility>

namespace gp::rt {

/// A descriptor's batch of matrices: sizes and strides (in elements) as
/// [batch, rows, cols]; a rank-2 descriptor is a batch of 1 with batch
/// stride 0, a rank-1 or rank-0 one (a bias) a single row or element.
struct MatmulOperand {
  const char *name = "";
  int rank = 0;
  char *data = nullptr; // The first element; null without memory.
  int64_t sizes[3] = {1, 1, 1};
  int64_t strides[3] = {0, 0, 0};

  int64_t count() const { return sizes[0] * sizes[1] * sizes[2]; }
  /// "A (sizes [2, 3], strides [1, 2])", as the descriptor says.
  std::string describe() const {
    auto list = [&](const int64_t *values) {
      std::string text = "[";
      for (int d = 3 - rank; d < 3; ++d)
        text += (d > 3 - rank ? ", " : "") + std::to_string(values[d]);
      return text + "]";
    };
    return std::string(name) + " (sizes " + list(sizes) + ", strides " +
           list(strides) + ")";
  }
  /// The lowest and one past the highest byte it reaches (non-empty).
  std::pair<const char *, const char *> span(int64_t bytes) const {
    int64_t low = 0, high = 0;
    for (int d = 0; d < 3; ++d)
      (strides[d] < 0 ? low : high) += strides[d] * (sizes[d] - 1);
    return {data + low * bytes, data + (high + 1) * bytes};
  }
};

/// Reads the rank-`rank` memref descriptor `arg` (elements of `bytes`
/// bytes) into `out`, named `name` in messages; fails on a null descriptor
/// or a negative size.
gpRtStatus readMatmulOperand(const char *op, void *arg, const char *name,
                             int rank, int64_t bytes, MatmulOperand &out);

/// Whether the spans of `a` and `b` (elements of `bytes` bytes) share a
/// byte: conservative, as strided operands may interleave without
/// touching.
bool operandsOverlap(const MatmulOperand &a, const MatmulOperand &b,
                     int64_t bytes);

/// out = op(first) op(second) in column-major terms: out is m x n,
/// op(first) m x k, op(second) k x n; `batch` products, each operand's
/// next one its batch stride (strides[0]) elements on.
struct GemmPlan {
  /// How cuBLAS reads a matrix: `op` N, stored column-major (unit row
  /// stride) with leading dimension `ld` >= max(1, rows); or T, the
  /// transpose of a column-major cols x rows matrix (unit column stride),
  /// `ld` >= max(1, cols). The stride of a dimension of one element or none
  /// is free.
  struct Access {
    int op;
    int64_t ld;
  };

  int64_t m, n, k, batch;
  const MatmulOperand *first, *second, *out;
  Access firstAccess, secondAccess, outAccess;
};

/// Checks the shapes and layouts of C = A B (+ C when accumulating) and
/// maps it onto cuBLAS's terms; `empty` when C has no elements. Both
/// backends refuse what fails here, so a program that runs on one runs on
/// the other.
gpRtStatus checkMatmul(const char *op, gpRtElementType type,
                       const MatmulOperand &a, const MatmulOperand &b,
                       const MatmulOperand &c, GemmPlan &gemm, bool &empty);

/// Runs a checked, non-empty C = A B (+ C when accumulating) on `stream`'s
/// backend.
gpRtStatus runMatmul(gpRtStream *stream, const char *op, gpRtElementType type,
                     const GemmPlan &gemm, const MatmulOperand &a,
                     const MatmulOperand &b, const MatmulOperand &c,
                     bool accumulate);

/// checkMatmul, then runMatmul unless C is empty.
gpRtStatus checkAndRunMatmul(gpRtStream *stream, const char *op,
                             gpRtElementType type, const MatmulOperand &a,
                             const MatmulOperand &b, const MatmulOperand &c,
                             bool accumulate);

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_GEMM_H
