//===- Matmul.cpp - matmul-class built-in externs -------------------------===//
//
// gp::matmul (what the compiler lowers linalg contractions to), aten::mm,
// aten::bmm and aten::addmm: their selectors, which pick a function per
// rank from the arguments' kinds and element types, and the functions,
// which read their descriptors and scalars and compute with Gemm.h (cuBLAS
// on the cuda backend, a loop on the host backend). Kept apart from the
// product itself so that what the externs accept, and say when they do
// not, reads in one place.
//
//===----------------------------------------------------------------------===//

#include "Matmul.h"

#include "Cublas.h"
#include "ElementTypes.h"
#include "Gemm.h"
#include "RuntimeInternal.h"

#include <cstring>
#include <string>

using namespace gp::rt;

namespace {

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// The externs
//===----------------------------------------------------------------------===//

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
    return fail(
        GP_RT_ERROR_INVALID_ARGUMENT,
        std::string(kGpMatmul) + ": elementType " +
            gpRtElementTypeName(static_cast<gpRtElementType>(typeCode)) +
            " but the buffers are " + externArgumentsText(argInfo, numArgs));
  if (accumulate != 0 && accumulate != 1)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(kGpMatmul) + ": accumulate is " +
                    std::to_string(accumulate) + ", not 0 or 1");
  auto type = static_cast<gpRtElementType>(typeCode);
  int64_t bytes = elementTypeBytes(type);
  MatmulOperand a, b, c;
  if (gpRtStatus status =
          readMatmulOperand(kGpMatmul, args[0], "A", Rank, bytes, a))
    return status;
  if (gpRtStatus status =
          readMatmulOperand(kGpMatmul, args[1], "B", Rank, bytes, b))
    return status;
  if (gpRtStatus status =
          readMatmulOperand(kGpMatmul, args[2], "C", Rank, bytes, c))
    return status;
  return checkAndRunMatmul(stream, kGpMatmul, type, a, b, c, accumulate == 1);
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
  int64_t bytes = elementTypeBytes(type);
  MatmulOperand a, b, c;
  if (gpRtStatus status = readMatmulOperand(op, args[0], "A", Rank, bytes, a))
    return status;
  if (gpRtStatus status = readMatmulOperand(op, args[1], "B", Rank, bytes, b))
    return status;
  if (gpRtStatus status = readMatmulOperand(op, args[2], "C", Rank, bytes, c))
    return status;
  return checkAndRunMatmul(stream, op, type, a, b, c, false);
}

/// aten::addmm is f32 only (selectAtenAddmm checks): the element size its
/// operands are read, checked and copied with.
constexpr int64_t kAddmmElementBytes = sizeof(float);

/// C = bias broadcast to C's shape, f32.
gpRtStatus writeBias(gpRtStream *stream, const char *op,
                     const MatmulOperand &bias, const MatmulOperand &c) {
  int64_t rows = c.sizes[1], cols = c.sizes[2];
  int64_t biasRowStride = bias.sizes[1] == 1 ? 0 : bias.strides[1];
  int64_t biasColStride = bias.sizes[2] == 1 ? 0 : bias.strides[2];
  if (bias.data == c.data && (rows <= 1 || biasRowStride == c.strides[1]) &&
      (cols <= 1 || biasColStride == c.strides[2]))
    return GP_RT_SUCCESS; // The bias is C: addmm in place.
  if (operandsOverlap(bias, c, kAddmmElementBytes))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": C shares memory with the bias, which it "
                                  "would overwrite while reading");
  if (streamBackend(stream) == GP_RT_BACKEND_HOST) {
    constexpr int64_t bytes = kAddmmElementBytes;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        std::memcpy(c.data + (i * c.strides[1] + j * c.strides[2]) * bytes,
                    bias.data + (i * biasRowStride + j * biasColStride) * bytes,
                    bytes);
    return GP_RT_SUCCESS;
  }
  // Any strides, 0 (a broadcast) included: a kernel on the stream, so a
  // capture records it with the product.
  StridedCopy32 copy = {/*dst=*/c.data,
                        /*src=*/bias.data,
                        rows,
                        cols,
                        /*dstRowStride=*/c.strides[1],
                        /*dstColStride=*/c.strides[2],
                        /*srcRowStride=*/biasRowStride,
                        /*srcColStride=*/biasColStride};
  return copyStrided32OnStream(stream, copy);
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
  MatmulOperand bias, a, b, c;
  if (gpRtStatus status = readMatmulOperand(op, args[0], "bias", BiasRank,
                                            kAddmmElementBytes, bias))
    return status;
  if (gpRtStatus status =
          readMatmulOperand(op, args[1], "A", 2, kAddmmElementBytes, a))
    return status;
  if (gpRtStatus status =
          readMatmulOperand(op, args[2], "B", 2, kAddmmElementBytes, b))
    return status;
  if (gpRtStatus status =
          readMatmulOperand(op, args[3], "C", 2, kAddmmElementBytes, c))
    return status;
  int64_t m = c.sizes[1], n = c.sizes[2];
  if ((bias.sizes[1] != m && bias.sizes[1] != 1) ||
      (bias.sizes[2] != n && bias.sizes[2] != 1))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": " + bias.describe() +
                    " does not broadcast to " + c.describe());
  // Shapes and layouts first, so that nothing is written when they fail.
  GemmPlan gemm;
  bool empty;
  if (gpRtStatus status =
          checkMatmul(op, GP_RT_ELEMENT_F32, a, b, c, gemm, empty))
    return status;
  if (empty)
    return GP_RT_SUCCESS;
  if (!bias.data)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": bias has no memory");
  if (reinterpret_cast<uintptr_t>(bias.data) % kAddmmElementBytes)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(op) + ": bias is not aligned to its f32 elements");
  if (gpRtStatus status = writeBias(stream, op, bias, c))
    return status;
  return runMatmul(stream, op, GP_RT_ELEMENT_F32, gemm, a, b, c,
                   /*accumulate=*/true);
}

//===----------------------------------------------------------------------===//
// Selectors
//===----------------------------------------------------------------------===//

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
                    externArgumentsText(argInfo, numArgs));
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
                    externArgumentsText(argInfo, numArgs));
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
                    externArgumentsText(argInfo, numArgs));
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
