//===- Gemm.cpp - strided matrix products on either backend ---------------===//
//
// Products of strided matrices, batched or not, in f32, f16 or bf16,
// computed in f32: on the cuda backend cuBLAS calls (cublasGemmEx,
// cublasGemmStridedBatchedEx) on the calling thread's stream, so they can
// be captured; on the host backend a loop. Both backends accept and refuse
// the same operands: those cuBLAS can read as they lie (one unit stride
// per matrix, the other stride a leading dimension at least the extent it
// skips), so a program that runs on one runs on the other.
//
//===----------------------------------------------------------------------===//

#include "Gemm.h"

#include "Cublas.h"
#include "ElementTypes.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <vector>

using namespace gp::rt;

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

gpRtStatus gp::rt::readMatmulOperand(const char *op, void *arg,
                                     const char *name, int rank, int64_t bytes,
                                     MatmulOperand &out) {
  const auto *ref = static_cast<const gpRtMemRef *>(arg);
  if (!ref)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": " + name + " is a null descriptor");
  out.name = name;
  out.rank = rank;
  for (int d = 0; d < rank; ++d) {
    out.sizes[3 - rank + d] = ref->shape[d];
    out.strides[3 - rank + d] = ref->shape[rank + d];
  }
  for (int d = 0; d < 3; ++d)
    if (out.sizes[d] < 0)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT, std::string(op) + ": " +
                                                    out.describe() +
                                                    " has a negative size");
  if (ref->aligned)
    out.data = static_cast<char *>(ref->aligned) + ref->offset * bytes;
  return GP_RT_SUCCESS;
}

bool gp::rt::operandsOverlap(const MatmulOperand &a, const MatmulOperand &b,
                             int64_t bytes) {
  auto [aLow, aHigh] = a.span(bytes);
  auto [bLow, bHigh] = b.span(bytes);
  return aLow < bHigh && bLow < aHigh;
}

namespace {

/// No two elements of `operand` at one address: with its dimensions of
/// more than one element ordered by stride, each stride is positive and
/// passes everything the smaller ones reach. Sufficient, and true of every
/// layout a view of a dense buffer gives (slices, transposes, permutes).
bool noInternalOverlap(const MatmulOperand &operand) {
  int64_t strides[3], sizes[3];
  int count = 0;
  for (int d = 0; d < 3; ++d)
    if (operand.sizes[d] > 1) {
      strides[count] = operand.strides[d];
      sizes[count++] = operand.sizes[d];
    }
  for (int i = 1; i < count; ++i)
    for (int j = i; j > 0 && strides[j] < strides[j - 1]; --j) {
      std::swap(strides[j], strides[j - 1]);
      std::swap(sizes[j], sizes[j - 1]);
    }
  int64_t reach = 0; // How far the smaller strides reach.
  for (int i = 0; i < count; ++i) {
    if (strides[i] <= reach)
      return false;
    reach += strides[i] * (sizes[i] - 1);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The product in cuBLAS's terms
//===----------------------------------------------------------------------===//

using Access = GemmPlan::Access;

/// A matrix: element (p, q) at p * rowStride + q * colStride.
struct Matrix {
  int64_t rows, cols, rowStride, colStride;
  Matrix transposed() const { return {cols, rows, colStride, rowStride}; }
};

Matrix matrixOf(const MatmulOperand &operand) {
  return {operand.sizes[1], operand.sizes[2], operand.strides[1],
          operand.strides[2]};
}

std::optional<Access> columnMajor(const Matrix &m) {
  bool rowFree = m.rows <= 1, colFree = m.cols <= 1;
  if ((rowFree || m.rowStride == 1) &&
      (colFree || m.colStride >= std::max<int64_t>(1, m.rows)))
    return Access{Cublas::kOpN,
                  colFree ? std::max<int64_t>(1, m.rows) : m.colStride};
  return std::nullopt;
}

std::optional<Access> columnMajorOrTransposed(const Matrix &m) {
  if (std::optional<Access> access = columnMajor(m))
    return access;
  if (std::optional<Access> access = columnMajor(m.transposed()))
    return Access{Cublas::kOpT, access->ld};
  return std::nullopt;
}

gpRtStatus unsupportedLayout(const char *op, const MatmulOperand &operand,
                             const char *why) {
  return fail(GP_RT_ERROR_INVALID_ARGUMENT,
              std::string(op) + ": " + operand.describe() + " " + why);
}

constexpr const char *kMatrixLayout =
    "is not a layout cuBLAS reads: a matrix needs a unit stride in one "
    "dimension and, in the other, a stride at least the first's size";

/// Maps row-major C = A B onto cuBLAS's column-major GEMM. C must be
/// column-major in one of two ways: C^T (unit column stride, C row-major)
/// computed as B^T A^T, or C itself (unit row stride) as A B. Each input is
/// then read as it lies, transposed or not.
gpRtStatus planGemm(const char *op, const MatmulOperand &a,
                    const MatmulOperand &b, const MatmulOperand &c,
                    GemmPlan &gemm) {
  Matrix ma = matrixOf(a), mb = matrixOf(b), mc = matrixOf(c);
  bool swapped;
  std::optional<Access> out;
  if ((out = columnMajor(mc.transposed())))
    swapped = true;
  else if ((out = columnMajor(mc)))
    swapped = false;
  else
    return unsupportedLayout(op, c, kMatrixLayout);
  const MatmulOperand &first = swapped ? b : a, &second = swapped ? a : b;
  Matrix firstMatrix = swapped ? mb.transposed() : ma;
  Matrix secondMatrix = swapped ? ma.transposed() : mb;
  std::optional<Access> firstAccess = columnMajorOrTransposed(firstMatrix);
  if (!firstAccess)
    return unsupportedLayout(op, first, kMatrixLayout);
  std::optional<Access> secondAccess = columnMajorOrTransposed(secondMatrix);
  if (!secondAccess)
    return unsupportedLayout(op, second, kMatrixLayout);
  gemm.m = firstMatrix.rows;
  gemm.n = secondMatrix.cols;
  gemm.k = firstMatrix.cols;
  gemm.batch = c.sizes[0];
  gemm.first = &first;
  gemm.second = &second;
  gemm.out = &c;
  gemm.firstAccess = *firstAccess;
  gemm.secondAccess = *secondAccess;
  gemm.outAccess = *out;
  if (gemm.batch > 1)
    for (const MatmulOperand *operand : {&a, &b})
      if (operand->strides[0] < 0)
        return unsupportedLayout(op, *operand,
                                 "has a negative batch stride, which cuBLAS "
                                 "does not take");
  for (int64_t value : {gemm.m, gemm.n, gemm.k, gemm.batch, gemm.firstAccess.ld,
                        gemm.secondAccess.ld, gemm.outAccess.ld})
    if (value > INT_MAX)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  std::string(op) +
                      ": a size or leading dimension exceeds cuBLAS's "
                      "32-bit limit (" +
                      a.describe() + ", " + b.describe() + ", " + c.describe() +
                      ")");
  return GP_RT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// The backends
//===----------------------------------------------------------------------===//

/// The batch stride cuBLAS is given: any value when there is one product.
long long batchStride(const GemmPlan &gemm, const MatmulOperand &operand) {
  return gemm.batch > 1 ? operand.strides[0] : 0;
}

gpRtStatus cudaGemm(gpRtStream *stream, const char *op, gpRtElementType type,
                    const GemmPlan &gemm, bool accumulate) {
  const Cublas *cublas = nullptr;
  Cublas::Handle handle = nullptr;
  if (gpRtStatus status = cublasOnStream(stream, op, cublas, handle))
    return status;
  int dataType = type == GP_RT_ELEMENT_F16    ? Cublas::kDataR16F
                 : type == GP_RT_ELEMENT_BF16 ? Cublas::kDataR16BF
                                              : Cublas::kDataR32F;
  // The scale type of CUBLAS_COMPUTE_32F is f32, whatever the data type.
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  int m = static_cast<int>(gemm.m), n = static_cast<int>(gemm.n),
      k = static_cast<int>(gemm.k);
  int lda = static_cast<int>(gemm.firstAccess.ld),
      ldb = static_cast<int>(gemm.secondAccess.ld),
      ldc = static_cast<int>(gemm.outAccess.ld);
  int error;
  const char *call;
  if (gemm.batch == 1) {
    call = "cublasGemmEx";
    error = cublas->cublasGemmEx(
        handle, gemm.firstAccess.op, gemm.secondAccess.op, m, n, k, &alpha,
        gemm.first->data, dataType, lda, gemm.second->data, dataType, ldb,
        &beta, gemm.out->data, dataType, ldc, Cublas::kCompute32F,
        Cublas::kGemmDefault);
  } else {
    call = "cublasGemmStridedBatchedEx";
    error = cublas->cublasGemmStridedBatchedEx(
        handle, gemm.firstAccess.op, gemm.secondAccess.op, m, n, k, &alpha,
        gemm.first->data, dataType, lda, batchStride(gemm, *gemm.first),
        gemm.second->data, dataType, ldb, batchStride(gemm, *gemm.second),
        &beta, gemm.out->data, dataType, ldc, batchStride(gemm, *gemm.out),
        static_cast<int>(gemm.batch), Cublas::kCompute32F,
        Cublas::kGemmDefault);
  }
  if (error)
    return fail(GP_RT_ERROR_BACKEND,
                std::string(op) + ": " + call + " failed with status " +
                    std::to_string(error) + " (" + gpRtElementTypeName(type) +
                    ", m=" + std::to_string(m) + " n=" + std::to_string(n) +
                    " k=" + std::to_string(k) +
                    " batch=" + std::to_string(gemm.batch) + ")");
  return GP_RT_SUCCESS;
}

/// C = A B (+ C when accumulating), one f32 sum per element of C; `Element`
/// loads and stores the storage type (ElementTypes.h).
template <typename Element>
void hostGemm(const MatmulOperand &a, const MatmulOperand &b,
              const MatmulOperand &c, bool accumulate, int64_t bytes) {
  int64_t k = a.sizes[2];
  for (int64_t t = 0; t < c.sizes[0]; ++t)
    for (int64_t i = 0; i < c.sizes[1]; ++i)
      for (int64_t j = 0; j < c.sizes[2]; ++j) {
        const char *x = a.data + (t * a.strides[0] + i * a.strides[1]) * bytes;
        const char *y = b.data + (t * b.strides[0] + j * b.strides[2]) * bytes;
        float sum = 0.0f;
        for (int64_t p = 0; p < k; ++p)
          sum += Element::load(x + p * a.strides[2] * bytes) *
                 Element::load(y + p * b.strides[1] * bytes);
        char *out =
            c.data +
            (t * c.strides[0] + i * c.strides[1] + j * c.strides[2]) * bytes;
        if (accumulate)
          sum += Element::load(out);
        Element::store(out, sum);
      }
}

} // namespace

//===----------------------------------------------------------------------===//
// Checked products
//===----------------------------------------------------------------------===//

gpRtStatus gp::rt::checkMatmul(const char *op, gpRtElementType type,
                               const MatmulOperand &a, const MatmulOperand &b,
                               const MatmulOperand &c, GemmPlan &gemm,
                               bool &empty) {
  int64_t batch = c.sizes[0], m = c.sizes[1], n = c.sizes[2], k = a.sizes[2];
  if (a.sizes[0] != batch || b.sizes[0] != batch || a.sizes[1] != m ||
      b.sizes[1] != k || b.sizes[2] != n)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": shapes do not agree: " + a.describe() +
                    " x " + b.describe() + " -> " + c.describe());
  empty = batch == 0 || m == 0 || n == 0;
  if (empty)
    return GP_RT_SUCCESS;
  int64_t bytes = elementTypeBytes(type);
  std::vector<const MatmulOperand *> used = {&c};
  if (k > 0)
    used.insert(used.end(), {&a, &b});
  for (const MatmulOperand *operand : used) {
    if (!operand->data)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  std::string(op) + ": " + operand->name + " has no memory");
    if (reinterpret_cast<uintptr_t>(operand->data) % bytes)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  std::string(op) + ": " + operand->name +
                      " is not aligned to its " + gpRtElementTypeName(type) +
                      " elements");
  }
  if (gpRtStatus status = planGemm(op, a, b, c, gemm))
    return status;
  if (!noInternalOverlap(c))
    return unsupportedLayout(op, c,
                             "has elements that share memory, so the "
                             "result would depend on the order of writes");
  if (k > 0)
    for (const MatmulOperand *input : {&a, &b})
      if (operandsOverlap(*input, c, bytes))
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    std::string(op) + ": C shares memory with " + input->name +
                        ", which it would overwrite while reading");
  return GP_RT_SUCCESS;
}

gpRtStatus gp::rt::runMatmul(gpRtStream *stream, const char *op,
                             gpRtElementType type, const GemmPlan &gemm,
                             const MatmulOperand &a, const MatmulOperand &b,
                             const MatmulOperand &c, bool accumulate) {
  if (gemm.k == 0 && accumulate)
    return GP_RT_SUCCESS; // Nothing to add.
  if (streamBackend(stream) == GP_RT_BACKEND_CUDA)
    return cudaGemm(stream, op, type, gemm, accumulate);
  int64_t bytes = elementTypeBytes(type);
  switch (type) {
  case GP_RT_ELEMENT_F16:
    hostGemm<F16Element>(a, b, c, accumulate, bytes);
    break;
  case GP_RT_ELEMENT_BF16:
    hostGemm<BF16Element>(a, b, c, accumulate, bytes);
    break;
  default:
    hostGemm<F32Element>(a, b, c, accumulate, bytes);
    break;
  }
  return GP_RT_SUCCESS;
}

gpRtStatus gp::rt::checkAndRunMatmul(gpRtStream *stream, const char *op,
                                     gpRtElementType type,
                                     const MatmulOperand &a,
                                     const MatmulOperand &b,
                                     const MatmulOperand &c, bool accumulate) {
  GemmPlan gemm;
  bool empty;
  if (gpRtStatus status = checkMatmul(op, type, a, b, c, gemm, empty))
    return status;
  if (empty)
    return GP_RT_SUCCESS;
  return runMatmul(stream, op, type, gemm, a, b, c, accumulate);
}
