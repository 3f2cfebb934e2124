//===- Cublas.h - cuBLAS, loaded at run time, per stream --------*- C++ -*-===//
//
// The runtime builds without the CUDA toolkit: like the CUDA driver
// (CudaDriver.h), libcublas is opened with dlopen on first use and its
// entry points are kept in one table. The matmul externs (Gemm.cpp,
// Matmul.cpp) keep what they need of the device per stream, bound to the
// stream so that their work can be captured: a cuBLAS handle and its
// workspace, and a strided copy kernel.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_CUBLAS_H
#define GRAPHPART_LIB_RUNTIME_CUBLAS_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstddef>
#include <cstdint>

namespace gp::rt {

/// cuBLAS, loaded on first use. Handles are opaque pointers and statuses
/// plain ints, so the runtime builds without the CUDA toolkit.
struct Cublas {
  using Status = int;
  using Handle = void *;

  /// Loads libcublas; fails with GP_RT_ERROR_UNAVAILABLE, naming `op` and
  /// the reason, otherwise.
  static gpRtStatus get(const char *op, const Cublas *&cublas);

  // Values of cuBLAS's and CUDA's enums, from cublas_api.h and
  // library_types.h (the same in CUDA 12 and 13); mirrored here so that the
  // runtime builds without the toolkit.
  static constexpr int kOpN = 0;          // CUBLAS_OP_N
  static constexpr int kOpT = 1;          // CUBLAS_OP_T
  static constexpr int kDataR32F = 0;     // CUDA_R_32F
  static constexpr int kDataR16F = 2;     // CUDA_R_16F
  static constexpr int kDataR16BF = 14;   // CUDA_R_16BF
  static constexpr int kCompute32F = 68;  // CUBLAS_COMPUTE_32F
  static constexpr int kGemmDefault = -1; // CUBLAS_GEMM_DEFAULT

  Status (*cublasCreate)(Handle *handle) = nullptr;
  Status (*cublasDestroy)(Handle handle) = nullptr;
  Status (*cublasSetStream)(Handle handle, void *stream) = nullptr;
  Status (*cublasGemmEx)(Handle handle, int transa, int transb, int m, int n,
                         int k, const void *alpha, const void *a, int aType,
                         int lda, const void *b, int bType, int ldb,
                         const void *beta, void *c, int cType, int ldc,
                         int computeType, int algo) = nullptr;
  Status (*cublasGemmStridedBatchedEx)(
      Handle handle, int transa, int transb, int m, int n, int k,
      const void *alpha, const void *a, int aType, int lda, long long strideA,
      const void *b, int bType, int ldb, long long strideB, const void *beta,
      void *c, int cType, int ldc, long long strideC, int batchCount,
      int computeType, int algo) = nullptr;
  /// Optional (cuBLAS 11 and later).
  Status (*cublasSetWorkspace)(Handle handle, void *workspace,
                               size_t bytes) = nullptr;
};

/// The cuBLAS handle of `stream` (a cuda stream), made on first use and
/// released with the stream, bound to the stream's CUDA stream and to a
/// workspace of its own so that a capture records no allocation. `op`
/// names the caller in messages.
gpRtStatus cublasOnStream(gpRtStream *stream, const char *op,
                          const Cublas *&cublas, Cublas::Handle &handle);

/// dst[i * dstRowStride + j * dstColStride] =
/// src[i * srcRowStride + j * srcColStride] for every i < rows, j < cols,
/// in 32-bit elements; strides are in elements, and a stride of 0 repeats
/// an element (a broadcast).
struct StridedCopy32 {
  void *dst;
  const void *src;
  int64_t rows, cols;
  int64_t dstRowStride, dstColStride;
  int64_t srcRowStride, srcColStride;
};

/// Enqueues `copy` on `stream` (a cuda stream) as one kernel launch, so it
/// can be captured; the kernel is loaded on first use and released with
/// the stream. aten::addmm writes its broadcast bias into C with it.
gpRtStatus copyStrided32OnStream(gpRtStream *stream, StridedCopy32 copy);

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_CUBLAS_H
