//===- Matmul.cpp - matmul-class built-in externs -------------------------===//
//
// gp::matmul (what the compiler lowers linalg contractions to), aten::mm,
// aten::bmm and aten::addmm: products of strided matrices, batched or not,
// in f32, f16 or bf16, computed in f32. On the cuda backend they are cuBLAS
// calls (cublasGemmEx, cublasGemmStridedBatchedEx), loaded with dlopen and
// bound to the calling thread's stream, so they can be captured; on the host
// backend a loop. Both backends accept and refuse the same operands: those
// cuBLAS can read as they lie (one unit stride per matrix, the other stride
// a leading dimension at least the extent it skips), so a program that runs
// on one runs on the other.
//
//===----------------------------------------------------------------------===//

#include "Matmul.h"

#include "CudaDriver.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>

using namespace gp::rt;

namespace {

//===----------------------------------------------------------------------===//
// cuBLAS, loaded on first use
//===----------------------------------------------------------------------===//

// Values of cuBLAS's and CUDA's enums, from cublas_api.h and
// library_types.h (the same in CUDA 12 and 13); mirrored here so that the
// runtime builds without the toolkit.
constexpr int kCublasOpN = 0;          // CUBLAS_OP_N
constexpr int kCublasOpT = 1;          // CUBLAS_OP_T
constexpr int kCudaR32F = 0;           // CUDA_R_32F
constexpr int kCudaR16F = 2;           // CUDA_R_16F
constexpr int kCudaR16BF = 14;         // CUDA_R_16BF
constexpr int kCublasCompute32F = 68;  // CUBLAS_COMPUTE_32F
constexpr int kCublasGemmDefault = -1; // CUBLAS_GEMM_DEFAULT

struct Cublas {
  using Handle = void *;
  int (*create)(Handle *) = nullptr;
  int (*destroy)(Handle) = nullptr;
  int (*setStream)(Handle, void *) = nullptr;
  int (*gemmEx)(Handle, int transa, int transb, int m, int n, int k,
                const void *alpha, const void *a, int aType, int lda,
                const void *b, int bType, int ldb, const void *beta, void *c,
                int cType, int ldc, int computeType, int algo) = nullptr;
  int (*gemmStridedBatchedEx)(Handle, int transa, int transb, int m, int n,
                              int k, const void *alpha, const void *a,
                              int aType, int lda, long long strideA,
                              const void *b, int bType, int ldb,
                              long long strideB, const void *beta, void *c,
                              int cType, int ldc, long long strideC,
                              int batchCount, int computeType,
                              int algo) = nullptr;
  /// Optional (cuBLAS 11 and later).
  int (*setWorkspace)(Handle, void *, size_t) = nullptr;

  static gpRtStatus get(const char *op, const Cublas *&result) {
    static Cublas cublas;
    static std::string reason;
    static std::once_flag once;
    std::call_once(once, [] {
      void *library = nullptr;
      for (const char *name :
           {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
        if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
          break;
      if (!library) {
        reason = "cannot load cuBLAS (libcublas.so)";
        return;
      }
      auto load = [&](auto &entry, const char *name) {
        entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(
            dlsym(library, name));
      };
      load(cublas.create, "cublasCreate_v2");
      load(cublas.destroy, "cublasDestroy_v2");
      load(cublas.setStream, "cublasSetStream_v2");
      load(cublas.gemmEx, "cublasGemmEx");
      load(cublas.gemmStridedBatchedEx, "cublasGemmStridedBatchedEx");
      load(cublas.setWorkspace, "cublasSetWorkspace_v2");
      if (!cublas.create || !cublas.destroy || !cublas.setStream ||
          !cublas.gemmEx || !cublas.gemmStridedBatchedEx)
        reason = "libcublas lacks cublasCreate/SetStream/GemmEx/"
                 "GemmStridedBatchedEx";
    });
    if (!reason.empty())
      return fail(GP_RT_ERROR_UNAVAILABLE, std::string(op) + ": " + reason);
    result = &cublas;
    return GP_RT_SUCCESS;
  }
};

/// cuBLAS's workspace per stream: what its documentation recommends for
/// Hopper.
constexpr size_t kCublasWorkspaceBytes = 32u << 20;

/// gp_rt_copy_2d_b32(dst, src, rows, cols, dstRowStride, dstColStride,
/// srcRowStride, srcColStride): dst[i * dstRowStride + j * dstColStride] =
/// src[i * srcRowStride + j * srcColStride] for every i < rows, j < cols, in
/// 32-bit elements (a stride of 0 repeats an element); a grid-stride loop
/// over rows * cols. aten::addmm writes its broadcast bias into C with it.
/// PTX, compiled by the driver for whatever device runs it.
constexpr const char *kCopyKernelName = "gp_rt_copy_2d_b32";
constexpr const char *kCopyKernelPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry gp_rt_copy_2d_b32(
  .param .u64 dst, .param .u64 src, .param .u64 rows, .param .u64 cols,
  .param .u64 dstRowStride, .param .u64 dstColStride,
  .param .u64 srcRowStride, .param .u64 srcColStride)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<17>;
  ld.param.u64 %rd1, [dst];
  ld.param.u64 %rd2, [src];
  ld.param.u64 %rd3, [rows];
  ld.param.u64 %rd4, [cols];
  ld.param.u64 %rd5, [dstRowStride];
  ld.param.u64 %rd6, [dstColStride];
  ld.param.u64 %rd7, [srcRowStride];
  ld.param.u64 %rd8, [srcColStride];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mul.lo.s64 %rd9, %rd3, %rd4;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd10, %r1, %r2;
  cvt.u64.u32 %rd11, %r3;
  add.s64 %rd10, %rd10, %rd11;
  mul.wide.u32 %rd12, %r4, %r2;
$L_loop:
  setp.ge.s64 %p1, %rd10, %rd9;
  @%p1 bra $L_done;
  div.s64 %rd13, %rd10, %rd4;
  mul.lo.s64 %rd14, %rd13, %rd4;
  sub.s64 %rd14, %rd10, %rd14;
  mul.lo.s64 %rd15, %rd13, %rd7;
  mad.lo.s64 %rd15, %rd14, %rd8, %rd15;
  shl.b64 %rd15, %rd15, 2;
  add.s64 %rd15, %rd2, %rd15;
  ld.global.b32 %r5, [%rd15];
  mul.lo.s64 %rd16, %rd13, %rd5;
  mad.lo.s64 %rd16, %rd14, %rd6, %rd16;
  shl.b64 %rd16, %rd16, 2;
  add.s64 %rd16, %rd1, %rd16;
  st.global.b32 [%rd16], %r5;
  add.s64 %rd10, %rd10, %rd12;
  bra.uni $L_loop;
$L_done:
  ret;
}
)";

/// What the matmuls keep per stream, made on first use and released with
/// the stream: the cuBLAS handle and its workspace, and the copy kernel
/// (loaded on first use by aten::addmm).
struct MatmulOnStream {
  void *handle = nullptr;
  CudaDriver::DevicePtr workspace = 0;
  CudaDriver::Handle module = nullptr;
  CudaDriver::Handle copyKernel = nullptr;
};

void releaseMatmulOnStream(void *pointer) {
  std::unique_ptr<MatmulOnStream> state(static_cast<MatmulOnStream *>(pointer));
  const Cublas *cublas = nullptr;
  if (state->handle && Cublas::get("cuBLAS", cublas) == GP_RT_SUCCESS)
    cublas->destroy(state->handle);
  const CudaDriver *driver = nullptr;
  if ((state->workspace || state->module) &&
      CudaDriver::get(driver) == GP_RT_SUCCESS) {
    if (state->workspace)
      driver->cuMemFree(state->workspace);
    if (state->module)
      driver->cuModuleUnload(state->module);
  }
}

MatmulOnStream &matmulOnStream(gpRtStream *stream) {
  void *&slot = streamLibraryHandle(stream);
  if (!slot) {
    slot = new MatmulOnStream;
    setStreamLibraryRelease(stream, releaseMatmulOnStream);
  }
  return *static_cast<MatmulOnStream *>(slot);
}

/// The stream's cuBLAS handle, bound to the stream.
gpRtStatus cublasOnStream(gpRtStream *stream, const char *op,
                          const Cublas *&cublas, void *&handle) {
  if (gpRtStatus status = Cublas::get(op, cublas))
    return status;
  MatmulOnStream &state = matmulOnStream(stream);
  if (!state.handle) {
    if (int error = cublas->create(&state.handle))
      return fail(GP_RT_ERROR_BACKEND, std::string(op) +
                                           ": cublasCreate failed with "
                                           "status " +
                                           std::to_string(error));
    // Allocating is not allowed while capturing: a first call inside a
    // capture leaves cuBLAS its own workspace.
    const CudaDriver *driver = nullptr;
    if (cublas->setWorkspace && !streamIsCapturing(stream) &&
        CudaDriver::get(driver) == GP_RT_SUCCESS &&
        driver->cuMemAlloc(&state.workspace, kCublasWorkspaceBytes) != 0)
      state.workspace = 0;
  }
  handle = state.handle;
  if (int error = cublas->setStream(handle, streamCudaHandle(stream)))
    return fail(GP_RT_ERROR_BACKEND, std::string(op) +
                                         ": cublasSetStream failed with "
                                         "status " +
                                         std::to_string(error));
  // After every cublasSetStream, which resets it: cuBLAS then allocates
  // nothing while captured, so its graphs hold no memory nodes (a graph
  // with them can be instantiated only once, which rules out executables
  // bound to other inputs).
  if (state.workspace && cublas->setWorkspace)
    if (int error = cublas->setWorkspace(
            handle, reinterpret_cast<void *>(state.workspace),
            kCublasWorkspaceBytes))
      return fail(GP_RT_ERROR_BACKEND, std::string(op) +
                                           ": cublasSetWorkspace failed "
                                           "with status " +
                                           std::to_string(error));
  return GP_RT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

int64_t elementBytes(gpRtElementType type) {
  return type == GP_RT_ELEMENT_F32 ? 4 : 2;
}

const char *elementName(gpRtElementType type) {
  switch (type) {
  case GP_RT_ELEMENT_F16:
    return "f16";
  case GP_RT_ELEMENT_BF16:
    return "bf16";
  default:
    return "f32";
  }
}

float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint32_t floatToBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float halfToFloat(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu, mantissa = half & 0x3ffu;
  if (exponent == 0x1f) // Infinity or NaN (its payload kept).
    return bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0)
    return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in f32.
  float value = std::ldexp(static_cast<float>(mantissa), -24);
  return sign ? -value : value;
}

/// Rounds to the nearest f16, ties to even; overflow gives infinity.
uint16_t floatToHalf(float value) {
  uint32_t bits = floatToBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: quiet, with the payload's top bits.
    return sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu);
  if (magnitude >= 0x477ff000u) // 65520 and up round to infinity.
    return sign | 0x7c00u;
  if (magnitude >= 0x38800000u) { // Normal in f16 (2^-14 and up).
    uint32_t result = (magnitude >> 13) - (112u << 10);
    uint32_t rest = magnitude & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u)))
      ++result;
    return sign | static_cast<uint16_t>(result);
  }
  if (magnitude <= 0x33000000u) // 2^-25 and below round to zero.
    return sign;
  // Subnormal in f16: in units of 2^-24.
  uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126u - (magnitude >> 23);
  uint32_t result = mantissa >> shift;
  uint32_t rest = mantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (result & 1u)))
    ++result;
  return sign | static_cast<uint16_t>(result);
}

float bf16ToFloat(uint16_t value) {
  return bitsToFloat(static_cast<uint32_t>(value) << 16);
}

/// Rounds to the nearest bf16, ties to even.
uint16_t floatToBf16(float value) {
  uint32_t bits = floatToBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it a quiet NaN.
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

struct F32 {
  static float load(const char *p) {
    float value;
    std::memcpy(&value, p, sizeof value);
    return value;
  }
  static void store(char *p, float value) {
    std::memcpy(p, &value, sizeof value);
  }
};
template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
struct Half {
  static float load(const char *p) {
    uint16_t bits;
    std::memcpy(&bits, p, sizeof bits);
    return ToFloat(bits);
  }
  static void store(char *p, float value) {
    uint16_t bits = FromFloat(value);
    std::memcpy(p, &bits, sizeof bits);
  }
};
using F16 = Half<halfToFloat, floatToHalf>;
using BF16 = Half<bf16ToFloat, floatToBf16>;

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

/// A descriptor's batch of matrices: sizes and strides (in elements) as
/// [batch, rows, cols]; a rank-2 descriptor is a batch of 1 with batch
/// stride 0, a rank-1 or rank-0 one (a bias) a single row or element.
struct Operand {
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

gpRtStatus readOperand(const char *op, void *arg, const char *name, int rank,
                       int64_t bytes, Operand &out) {
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

/// No two elements of `operand` at one address: with its dimensions of
/// more than one element ordered by stride, each stride is positive and
/// passes everything the smaller ones reach. Sufficient, and true of every
/// layout a view of a dense buffer gives (slices, transposes, permutes).
bool noInternalOverlap(const Operand &operand) {
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

bool overlap(const Operand &a, const Operand &b, int64_t bytes) {
  auto [aLow, aHigh] = a.span(bytes);
  auto [bLow, bHigh] = b.span(bytes);
  return aLow < bHigh && bLow < aHigh;
}

//===----------------------------------------------------------------------===//
// The product in cuBLAS's terms
//===----------------------------------------------------------------------===//

/// A matrix: element (p, q) at p * rowStride + q * colStride.
struct Matrix {
  int64_t rows, cols, rowStride, colStride;
  Matrix transposed() const { return {cols, rows, colStride, rowStride}; }
};

Matrix matrixOf(const Operand &operand) {
  return {operand.sizes[1], operand.sizes[2], operand.strides[1],
          operand.strides[2]};
}

/// How cuBLAS reads a matrix: `op` N, stored column-major (unit row
/// stride) with leading dimension `ld` >= max(1, rows); or T, the transpose
/// of a column-major cols x rows matrix (unit column stride), `ld` >=
/// max(1, cols). The stride of a dimension of one element or none is free.
struct Access {
  int op;
  int64_t ld;
};

std::optional<Access> columnMajor(const Matrix &m) {
  bool rowFree = m.rows <= 1, colFree = m.cols <= 1;
  if ((rowFree || m.rowStride == 1) &&
      (colFree || m.colStride >= std::max<int64_t>(1, m.rows)))
    return Access{kCublasOpN,
                  colFree ? std::max<int64_t>(1, m.rows) : m.colStride};
  return std::nullopt;
}

std::optional<Access> columnMajorOrTransposed(const Matrix &m) {
  if (std::optional<Access> access = columnMajor(m))
    return access;
  if (std::optional<Access> access = columnMajor(m.transposed()))
    return Access{kCublasOpT, access->ld};
  return std::nullopt;
}

/// out = op(first) op(second) in column-major terms: out is m x n,
/// op(first) m x k, op(second) k x n; `batch` products, each operand's
/// next one its batch stride (strides[0]) elements on.
struct Gemm {
  int64_t m, n, k, batch;
  const Operand *first, *second, *out;
  Access firstAccess, secondAccess, outAccess;
};

gpRtStatus unsupportedLayout(const char *op, const Operand &operand,
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
gpRtStatus planGemm(const char *op, const Operand &a, const Operand &b,
                    const Operand &c, Gemm &gemm) {
  Matrix ma = matrixOf(a), mb = matrixOf(b), mc = matrixOf(c);
  bool swapped;
  std::optional<Access> out;
  if ((out = columnMajor(mc.transposed())))
    swapped = true;
  else if ((out = columnMajor(mc)))
    swapped = false;
  else
    return unsupportedLayout(op, c, kMatrixLayout);
  const Operand &first = swapped ? b : a, &second = swapped ? a : b;
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
    for (const Operand *operand : {&a, &b})
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

/// The batch stride cuBLAS is given: any value when there is one product.
long long batchStride(const Gemm &gemm, const Operand &operand) {
  return gemm.batch > 1 ? operand.strides[0] : 0;
}

gpRtStatus cudaGemm(gpRtStream *stream, const char *op, gpRtElementType type,
                    const Gemm &gemm, bool accumulate) {
  const Cublas *cublas = nullptr;
  void *handle = nullptr;
  if (gpRtStatus status = cublasOnStream(stream, op, cublas, handle))
    return status;
  int dataType = type == GP_RT_ELEMENT_F16    ? kCudaR16F
                 : type == GP_RT_ELEMENT_BF16 ? kCudaR16BF
                                              : kCudaR32F;
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
    error =
        cublas->gemmEx(handle, gemm.firstAccess.op, gemm.secondAccess.op, m, n,
                       k, &alpha, gemm.first->data, dataType, lda,
                       gemm.second->data, dataType, ldb, &beta, gemm.out->data,
                       dataType, ldc, kCublasCompute32F, kCublasGemmDefault);
  } else {
    call = "cublasGemmStridedBatchedEx";
    error = cublas->gemmStridedBatchedEx(
        handle, gemm.firstAccess.op, gemm.secondAccess.op, m, n, k, &alpha,
        gemm.first->data, dataType, lda, batchStride(gemm, *gemm.first),
        gemm.second->data, dataType, ldb, batchStride(gemm, *gemm.second),
        &beta, gemm.out->data, dataType, ldc, batchStride(gemm, *gemm.out),
        static_cast<int>(gemm.batch), kCublasCompute32F, kCublasGemmDefault);
  }
  if (error)
    return fail(GP_RT_ERROR_BACKEND,
                std::string(op) + ": " + call + " failed with status " +
                    std::to_string(error) + " (" + elementName(type) +
                    ", m=" + std::to_string(m) + " n=" + std::to_string(n) +
                    " k=" + std::to_string(k) +
                    " batch=" + std::to_string(gemm.batch) + ")");
  return GP_RT_SUCCESS;
}

/// C = A B (+ C when accumulating), one f32 sum per element of C.
template <typename Format>
void hostGemm(const Operand &a, const Operand &b, const Operand &c,
              bool accumulate, int64_t bytes) {
  int64_t k = a.sizes[2];
  for (int64_t t = 0; t < c.sizes[0]; ++t)
    for (int64_t i = 0; i < c.sizes[1]; ++i)
      for (int64_t j = 0; j < c.sizes[2]; ++j) {
        const char *x = a.data + (t * a.strides[0] + i * a.strides[1]) * bytes;
        const char *y = b.data + (t * b.strides[0] + j * b.strides[2]) * bytes;
        float sum = 0.0f;
        for (int64_t p = 0; p < k; ++p)
          sum += Format::load(x + p * a.strides[2] * bytes) *
                 Format::load(y + p * b.strides[1] * bytes);
        char *out =
            c.data +
            (t * c.strides[0] + i * c.strides[1] + j * c.strides[2]) * bytes;
        if (accumulate)
          sum += Format::load(out);
        Format::store(out, sum);
      }
}

/// Checks the shapes and layouts of C = A B (+ C when accumulating) and
/// maps it onto cuBLAS's terms; `empty` when C has no elements.
gpRtStatus checkMatmul(const char *op, gpRtElementType type, const Operand &a,
                       const Operand &b, const Operand &c, Gemm &gemm,
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
  int64_t bytes = elementBytes(type);
  std::vector<const Operand *> used = {&c};
  if (k > 0)
    used.insert(used.end(), {&a, &b});
  for (const Operand *operand : used) {
    if (!operand->data)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  std::string(op) + ": " + operand->name + " has no memory");
    if (reinterpret_cast<uintptr_t>(operand->data) % bytes)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  std::string(op) + ": " + operand->name +
                      " is not aligned to its " + elementName(type) +
                      " elements");
  }
  if (gpRtStatus status = planGemm(op, a, b, c, gemm))
    return status;
  if (!noInternalOverlap(c))
    return unsupportedLayout(op, c,
                             "has elements that share memory, so the "
                             "result would depend on the order of writes");
  if (k > 0)
    for (const Operand *input : {&a, &b})
      if (overlap(*input, c, bytes))
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    std::string(op) + ": C shares memory with " + input->name +
                        ", which it would overwrite while reading");
  return GP_RT_SUCCESS;
}

/// Runs a checked, non-empty C = A B (+ C when accumulating).
gpRtStatus runMatmul(gpRtStream *stream, const char *op, gpRtElementType type,
                     const Gemm &gemm, const Operand &a, const Operand &b,
                     const Operand &c, bool accumulate) {
  if (gemm.k == 0 && accumulate)
    return GP_RT_SUCCESS; // Nothing to add.
  if (streamBackend(stream) == GP_RT_BACKEND_CUDA)
    return cudaGemm(stream, op, type, gemm, accumulate);
  int64_t bytes = elementBytes(type);
  switch (type) {
  case GP_RT_ELEMENT_F16:
    hostGemm<F16>(a, b, c, accumulate, bytes);
    break;
  case GP_RT_ELEMENT_BF16:
    hostGemm<BF16>(a, b, c, accumulate, bytes);
    break;
  default:
    hostGemm<F32>(a, b, c, accumulate, bytes);
    break;
  }
  return GP_RT_SUCCESS;
}

gpRtStatus matmul(gpRtStream *stream, const char *op, gpRtElementType type,
                  const Operand &a, const Operand &b, const Operand &c,
                  bool accumulate) {
  Gemm gemm;
  bool empty;
  if (gpRtStatus status = checkMatmul(op, type, a, b, c, gemm, empty))
    return status;
  if (empty)
    return GP_RT_SUCCESS;
  return runMatmul(stream, op, type, gemm, a, b, c, accumulate);
}

//===----------------------------------------------------------------------===//
// The externs
//===----------------------------------------------------------------------===//

/// "f32 rank-2 buffer, i64 scalar, ...": what a call passed, for errors.
std::string argumentsText(const gpRtExternArg *argInfo, int32_t numArgs) {
  std::string text = "(";
  for (int32_t i = 0; i < numArgs; ++i) {
    const char *type = gpRtElementTypeName(
        static_cast<gpRtElementType>(argInfo[i].elementType));
    text += (i ? ", " : "") + std::string(type ? type : "?");
    text += argInfo[i].kind == GP_RT_EXTERN_ARG_BUFFER
                ? " rank-" + std::to_string(argInfo[i].rank) + " buffer"
                : std::string(" scalar");
  }
  return text + ")";
}

gpRtStatus argumentCount(const char *op, const char *signature, void **args,
                         int32_t numArgs, int32_t expected) {
  if (numArgs != expected || !args)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + " takes " + signature + ", got " +
                    std::to_string(numArgs) + " arguments");
  return GP_RT_SUCCESS;
}

gpRtStatus readInteger(const char *op, void *arg, const char *name,
                       int64_t &value) {
  if (!arg)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": " + name + " is null");
  std::memcpy(&value, arg, sizeof value);
  return GP_RT_SUCCESS;
}

constexpr const char *kGpMatmul = "gp::matmul";
constexpr const char *kGpMatmulSignature = "(A, B, C, elementType, accumulate)";

/// gp::matmul on rank-`Rank` descriptors.
template <int Rank>
gpRtStatus gpMatmul(gpRtStream *stream, void **args,
                    const gpRtExternArg *argInfo, int32_t numArgs) {
  if (gpRtStatus status =
          argumentCount(kGpMatmul, kGpMatmulSignature, args, numArgs, 5))
    return status;
  int64_t typeCode, accumulate;
  if (gpRtStatus status =
          readInteger(kGpMatmul, args[3], "elementType", typeCode))
    return status;
  if (gpRtStatus status =
          readInteger(kGpMatmul, args[4], "accumulate", accumulate))
    return status;
  if (typeCode < GP_RT_ELEMENT_F32 || typeCode > GP_RT_ELEMENT_BF16)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(kGpMatmul) + ": unknown elementType " +
                    std::to_string(typeCode) +
                    " (GP_RT_ELEMENT_F32 = 0, GP_RT_ELEMENT_F16 = 1, "
                    "GP_RT_ELEMENT_BF16 = 2)");
  // The selector checked that A, B and C have one element type.
  if (typeCode != argInfo[0].elementType)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(kGpMatmul) + ": elementType " +
                    elementName(static_cast<gpRtElementType>(typeCode)) +
                    " but the buffers are " + argumentsText(argInfo, numArgs));
  if (accumulate != 0 && accumulate != 1)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(kGpMatmul) + ": accumulate is " +
                    std::to_string(accumulate) + ", not 0 or 1");
  auto type = static_cast<gpRtElementType>(typeCode);
  int64_t bytes = elementBytes(type);
  Operand a, b, c;
  if (gpRtStatus status = readOperand(kGpMatmul, args[0], "A", Rank, bytes, a))
    return status;
  if (gpRtStatus status = readOperand(kGpMatmul, args[1], "B", Rank, bytes, b))
    return status;
  if (gpRtStatus status = readOperand(kGpMatmul, args[2], "C", Rank, bytes, c))
    return status;
  return matmul(stream, kGpMatmul, type, a, b, c, accumulate == 1);
}

/// aten::mm (Rank 2) and aten::bmm (Rank 3): C = A B, of the element type
/// the selector checked A, B and C share.
template <int Rank>
gpRtStatus atenMatmul(gpRtStream *stream, void **args,
                      const gpRtExternArg *argInfo, int32_t numArgs) {
  const char *op = Rank == 2 ? "aten::mm" : "aten::bmm";
  if (gpRtStatus status = argumentCount(op, "(A, B, C)", args, numArgs, 3))
    return status;
  auto type = static_cast<gpRtElementType>(argInfo[0].elementType);
  int64_t bytes = elementBytes(type);
  Operand a, b, c;
  if (gpRtStatus status = readOperand(op, args[0], "A", Rank, bytes, a))
    return status;
  if (gpRtStatus status = readOperand(op, args[1], "B", Rank, bytes, b))
    return status;
  if (gpRtStatus status = readOperand(op, args[2], "C", Rank, bytes, c))
    return status;
  return matmul(stream, op, type, a, b, c, false);
}

/// C = bias broadcast to C's shape, f32.
gpRtStatus writeBias(gpRtStream *stream, const char *op, const Operand &bias,
                     const Operand &c) {
  int64_t rows = c.sizes[1], cols = c.sizes[2];
  int64_t biasRowStride = bias.sizes[1] == 1 ? 0 : bias.strides[1];
  int64_t biasColStride = bias.sizes[2] == 1 ? 0 : bias.strides[2];
  if (bias.data == c.data && (rows <= 1 || biasRowStride == c.strides[1]) &&
      (cols <= 1 || biasColStride == c.strides[2]))
    return GP_RT_SUCCESS; // The bias is C: addmm in place.
  if (overlap(bias, c, 4))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": C shares memory with the bias, which it "
                                  "would overwrite while reading");
  if (streamBackend(stream) == GP_RT_BACKEND_HOST) {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        std::memcpy(c.data + (i * c.strides[1] + j * c.strides[2]) * 4,
                    bias.data + (i * biasRowStride + j * biasColStride) * 4, 4);
    return GP_RT_SUCCESS;
  }
  const CudaDriver *driver = nullptr;
  if (gpRtStatus status = CudaDriver::get(driver))
    return status;
  MatmulOnStream &state = matmulOnStream(stream);
  if (!state.copyKernel) {
    if (!state.module) {
      CudaDriver::Handle module = nullptr;
      if (gpRtStatus status =
              driver->check(driver->cuModuleLoadData(&module, kCopyKernelPtx),
                            "cuModuleLoadData(gp_rt_copy_2d_b32)"))
        return status;
      state.module = module;
    }
    if (gpRtStatus status =
            driver->check(driver->cuModuleGetFunction(
                              &state.copyKernel, state.module, kCopyKernelName),
                          "cuModuleGetFunction(gp_rt_copy_2d_b32)"))
      return status;
  }
  void *dst = c.data, *src = bias.data;
  int64_t dstRowStride = c.strides[1], dstColStride = c.strides[2];
  void *params[] = {&dst,           &src,          &rows,
                    &cols,          &dstRowStride, &dstColStride,
                    &biasRowStride, &biasColStride};
  constexpr int64_t kThreads = 256, kMaxBlocks = 4096;
  auto blocks = static_cast<unsigned>(
      std::min(kMaxBlocks, (rows * cols + kThreads - 1) / kThreads));
  return driver->check(
      driver->cuLaunchKernel(state.copyKernel, blocks, 1, 1, kThreads, 1, 1, 0,
                             streamCudaHandle(stream), params, nullptr),
      "cuLaunchKernel(gp_rt_copy_2d_b32)");
}

/// aten::addmm(bias, A, B, C): C = bias + A B in f32, the bias of rank
/// `BiasRank` broadcast to [M, N].
template <int BiasRank>
gpRtStatus atenAddmm(gpRtStream *stream, void **args, const gpRtExternArg *,
                     int32_t numArgs) {
  constexpr const char *op = "aten::addmm";
  if (gpRtStatus status =
          argumentCount(op, "(bias, A, B, C)", args, numArgs, 4))
    return status;
  Operand bias, a, b, c;
  if (gpRtStatus status = readOperand(op, args[0], "bias", BiasRank, 4, bias))
    return status;
  if (gpRtStatus status = readOperand(op, args[1], "A", 2, 4, a))
    return status;
  if (gpRtStatus status = readOperand(op, args[2], "B", 2, 4, b))
    return status;
  if (gpRtStatus status = readOperand(op, args[3], "C", 2, 4, c))
    return status;
  int64_t m = c.sizes[1], n = c.sizes[2];
  if ((bias.sizes[1] != m && bias.sizes[1] != 1) ||
      (bias.sizes[2] != n && bias.sizes[2] != 1))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": " + bias.describe() +
                    " does not broadcast to " + c.describe());
  // Shapes and layouts first, so that nothing is written when they fail.
  Gemm gemm;
  bool empty;
  if (gpRtStatus status =
          checkMatmul(op, GP_RT_ELEMENT_F32, a, b, c, gemm, empty))
    return status;
  if (empty)
    return GP_RT_SUCCESS;
  if (!bias.data)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": bias has no memory");
  if (reinterpret_cast<uintptr_t>(bias.data) % 4)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": bias is not aligned to its f32 elements");
  if (gpRtStatus status = writeBias(stream, op, bias, c))
    return status;
  return runMatmul(stream, op, GP_RT_ELEMENT_F32, gemm, a, b, c,
                   /*accumulate=*/true);
}

bool isBuffer(const gpRtExternArg &arg, int rank) {
  return arg.kind == GP_RT_EXTERN_ARG_BUFFER && arg.rank == rank &&
         arg.bytes == GP_RT_MEMREF_BYTES(rank);
}

bool isInt64Scalar(const gpRtExternArg &arg) {
  return arg.kind == GP_RT_EXTERN_ARG_SCALAR && arg.bytes == sizeof(int64_t) &&
         (arg.elementType == GP_RT_ELEMENT_I64 ||
          arg.elementType == GP_RT_ELEMENT_INDEX);
}

bool isMatmulElement(int32_t type) {
  return type == GP_RT_ELEMENT_F32 || type == GP_RT_ELEMENT_F16 ||
         type == GP_RT_ELEMENT_BF16;
}

gpRtStatus selectGpMatmul(const gpRtExternArg *argInfo, int32_t numArgs,
                          gpRtExternFn &fn) {
  if (numArgs != 5)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(kGpMatmul) + " takes " + kGpMatmulSignature +
                    ", got " + std::to_string(numArgs) + " arguments");
  int rank = argInfo[0].rank;
  int32_t type = argInfo[0].elementType;
  bool fits = (rank == 2 || rank == 3) && isMatmulElement(type) &&
              isInt64Scalar(argInfo[3]) && isInt64Scalar(argInfo[4]);
  for (int i = 0; i < 3; ++i)
    fits = fits && isBuffer(argInfo[i], rank) && argInfo[i].elementType == type;
  if (!fits)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(kGpMatmul) +
                    " takes A, B and C as buffers of one rank, 2 or 3, and one "
                    "element type, f32, f16 or bf16, then two int64 values; "
                    "got " +
                    argumentsText(argInfo, numArgs));
  fn = rank == 2 ? gpMatmul<2> : gpMatmul<3>;
  return GP_RT_SUCCESS;
}

template <int Rank>
gpRtStatus selectAtenMatmul(const gpRtExternArg *argInfo, int32_t numArgs,
                            gpRtExternFn &fn) {
  const char *op = Rank == 2 ? "aten::mm" : "aten::bmm";
  if (numArgs != 3)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + " takes (A, B, C), got " +
                    std::to_string(numArgs) + " arguments");
  int32_t type = argInfo[0].elementType;
  bool fits = isMatmulElement(type);
  for (int32_t i = 0; i < 3; ++i)
    fits = fits && isBuffer(argInfo[i], Rank) && argInfo[i].elementType == type;
  if (!fits)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + " takes rank-" + std::to_string(Rank) +
                    " buffers of one element type, f32, f16 or bf16; got " +
                    argumentsText(argInfo, numArgs));
  fn = atenMatmul<Rank>;
  return GP_RT_SUCCESS;
}

gpRtStatus selectAtenAddmm(const gpRtExternArg *argInfo, int32_t numArgs,
                           gpRtExternFn &fn) {
  if (numArgs != 4)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "aten::addmm takes (bias, A, B, C) (beta and alpha are "
                "not supported), got " +
                    std::to_string(numArgs) + " arguments");
  int biasRank = argInfo[0].rank;
  bool fits = biasRank >= 0 && biasRank <= 2 && isBuffer(argInfo[0], biasRank);
  for (int32_t i = 1; i < 4; ++i)
    fits = fits && isBuffer(argInfo[i], 2);
  for (int32_t i = 0; i < 4; ++i)
    fits = fits && argInfo[i].elementType == GP_RT_ELEMENT_F32;
  if (!fits)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "aten::addmm takes f32 buffers: a bias of rank 0 to 2 and "
                "rank-2 A, B and C; got " +
                    argumentsText(argInfo, numArgs));
  fn = biasRank == 0   ? atenAddmm<0>
       : biasRank == 1 ? atenAddmm<1>
                       : atenAddmm<2>;
  return GP_RT_SUCCESS;
}

} // namespace

const std::vector<BuiltinExtern> &gp::rt::matmulExterns() {
  static const std::vector<BuiltinExtern> externs = {
      {kGpMatmul, selectGpMatmul},
      {"aten::mm", selectAtenMatmul<2>},
      {"aten::bmm", selectAtenMatmul<3>},
      {"aten::addmm", selectAtenAddmm},
  };
  return externs;
}
