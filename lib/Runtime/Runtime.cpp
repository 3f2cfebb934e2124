//===- Runtime.cpp - GraphPart runtime C API ------------------------------===//

#include "CudaDriver.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

using namespace gp::rt;

namespace {
thread_local std::string lastError;
} // namespace

gpRtStatus gp::rt::fail(gpRtStatus status, std::string message) {
  lastError = std::move(message);
  return status;
}

extern "C" {

GP_RT_EXPORT const char *gpRtVersion(void) { return "0.1.0"; }

GP_RT_EXPORT const char *gpRtStatusString(gpRtStatus status) {
  switch (status) {
  case GP_RT_SUCCESS:
    return "success";
  case GP_RT_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case GP_RT_ERROR_UNAVAILABLE:
    return "unavailable";
  case GP_RT_ERROR_BACKEND:
    return "backend error";
  case GP_RT_ERROR_NOT_CAPTURED:
    return "not captured (or-error mode)";
  case GP_RT_ERROR_WRONG_THREAD:
    return "wrong thread";
  case GP_RT_STATUS_FORCE_32_BIT:
    break;
  }
  return "unknown status";
}

GP_RT_EXPORT const char *gpRtGetLastError(void) { return lastError.c_str(); }

GP_RT_EXPORT gpRtStatus gpRtSetError(gpRtStatus status, const char *message) {
  return fail(status, message ? message : "");
}

GP_RT_EXPORT const char *gpRtBackendName(gpRtBackend backend) {
  switch (backend) {
  case GP_RT_BACKEND_HOST:
    return "host";
  case GP_RT_BACKEND_CUDA:
    return "cuda";
  case GP_RT_BACKEND_FORCE_32_BIT:
    break;
  }
  return nullptr;
}

GP_RT_EXPORT gpRtStatus gpRtGetAbiConstant(const char *name, int64_t *value) {
  if (!name || !value)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtGetAbiConstant: null argument");
    // Each name is the constant's own spelling: the table cannot disagree
    // with the headers.
#define GP_RT_CONSTANT(constant)                                               \
  { #constant, static_cast < int64_t>(constant) }
  // The size of each struct callers mirror without the headers (ctypes),
  // named after the struct: GP_RT_SIZEOF_gpRtValueInfo.
#define GP_RT_SIZEOF(type)                                                     \
  { "GP_RT_SIZEOF_" #type, static_cast < int64_t>(sizeof(type)) }
  static const std::pair<const char *, int64_t> kConstants[] = {
      GP_RT_CONSTANT(GP_RT_EXTERN_ABI_VERSION),
      GP_RT_CONSTANT(GP_RT_SUCCESS),
      GP_RT_CONSTANT(GP_RT_ERROR_INVALID_ARGUMENT),
      GP_RT_CONSTANT(GP_RT_ERROR_UNAVAILABLE),
      GP_RT_CONSTANT(GP_RT_ERROR_BACKEND),
      GP_RT_CONSTANT(GP_RT_ERROR_NOT_CAPTURED),
      GP_RT_CONSTANT(GP_RT_ERROR_WRONG_THREAD),
      GP_RT_CONSTANT(GP_RT_BACKEND_HOST),
      GP_RT_CONSTANT(GP_RT_BACKEND_CUDA),
      GP_RT_CONSTANT(GP_RT_ELEMENT_F32),
      GP_RT_CONSTANT(GP_RT_ELEMENT_F16),
      GP_RT_CONSTANT(GP_RT_ELEMENT_BF16),
      GP_RT_CONSTANT(GP_RT_ELEMENT_F64),
      GP_RT_CONSTANT(GP_RT_ELEMENT_F8E4M3FN),
      GP_RT_CONSTANT(GP_RT_ELEMENT_F8E5M2),
      GP_RT_CONSTANT(GP_RT_ELEMENT_I1),
      GP_RT_CONSTANT(GP_RT_ELEMENT_I8),
      GP_RT_CONSTANT(GP_RT_ELEMENT_U8),
      GP_RT_CONSTANT(GP_RT_ELEMENT_I16),
      GP_RT_CONSTANT(GP_RT_ELEMENT_I32),
      GP_RT_CONSTANT(GP_RT_ELEMENT_I64),
      GP_RT_CONSTANT(GP_RT_ELEMENT_INDEX),
      GP_RT_CONSTANT(GP_RT_ELEMENT_OTHER),
      GP_RT_CONSTANT(GP_RT_EXTERN_ARG_BUFFER),
      GP_RT_CONSTANT(GP_RT_EXTERN_ARG_SCALAR),
      GP_RT_CONSTANT(GP_RT_EXTERN_CAPTURABLE),
      GP_RT_CONSTANT(GP_RT_EXTERN_FIXED_ADDRESSES),
      GP_RT_SIZEOF(gpRtMemRef),
      GP_RT_SIZEOF(gpRtValueInfo),
      GP_RT_SIZEOF(gpRtEntryInfo),
      GP_RT_SIZEOF(gpRtParameterInfo),
      GP_RT_SIZEOF(gpRtExternArg),
      GP_RT_SIZEOF(gpRtExternSpec),
  };
#undef GP_RT_SIZEOF
#undef GP_RT_CONSTANT
  for (const auto &[constantName, constantValue] : kConstants)
    if (std::strcmp(name, constantName) == 0) {
      *value = constantValue;
      return GP_RT_SUCCESS;
    }
  return fail(GP_RT_ERROR_INVALID_ARGUMENT,
              std::string("gpRtGetAbiConstant: no constant '") + name + "'");
}

GP_RT_EXPORT gpRtStatus gpRtParseBackend(const char *name,
                                         gpRtBackend *backend) {
  if (!name || !backend)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtParseBackend: null argument");
  for (gpRtBackend candidate : {GP_RT_BACKEND_HOST, GP_RT_BACKEND_CUDA}) {
    if (std::strcmp(name, gpRtBackendName(candidate)) == 0) {
      *backend = candidate;
      return GP_RT_SUCCESS;
    }
  }
  return fail(GP_RT_ERROR_INVALID_ARGUMENT, std::string("unknown backend '") +
                                                name +
                                                "': expected 'host' or 'cuda'");
}

GP_RT_EXPORT gpRtStatus gpRtCudaDeviceCount(int *count) {
  if (!count)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCudaDeviceCount: null argument");
  const CudaDriver *driver = nullptr;
  if (gpRtStatus status = CudaDriver::get(driver))
    return status;
  if (int error = driver->cuDeviceGetCount(count))
    return fail(GP_RT_ERROR_BACKEND,
                "cuDeviceGetCount failed: " + driver->errorString(error));
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtBackendAvailable(gpRtBackend backend) {
  switch (backend) {
  case GP_RT_BACKEND_HOST:
    return GP_RT_SUCCESS;
  case GP_RT_BACKEND_CUDA: {
    int count = 0;
    if (gpRtCudaDeviceCount(&count) != GP_RT_SUCCESS)
      return fail(GP_RT_ERROR_UNAVAILABLE, gpRtGetLastError());
    if (count == 0)
      return fail(GP_RT_ERROR_UNAVAILABLE,
                  "the CUDA driver reports no devices");
    return GP_RT_SUCCESS;
  }
  case GP_RT_BACKEND_FORCE_32_BIT:
    break;
  }
  return fail(GP_RT_ERROR_INVALID_ARGUMENT,
              "unknown backend value " + std::to_string(backend));
}

GP_RT_EXPORT gpRtStatus gpRtCheckSymInt(const char *name, int64_t value,
                                        int64_t min, int64_t max) {
  if (value >= min && value <= max)
    return GP_RT_SUCCESS;
  auto bound = [](int64_t b, bool lower) {
    if (lower && b == INT64_MIN)
      return std::string("-inf");
    if (!lower && b == INT64_MAX)
      return std::string("inf");
    return std::to_string(b);
  };
  return fail(GP_RT_ERROR_INVALID_ARGUMENT,
              std::string("symint '") + (name ? name : "?") + "' is " +
                  std::to_string(value) + ", outside its declared range [" +
                  bound(min, true) + ", " + bound(max, false) + "]");
}

GP_RT_EXPORT gpRtStatus gpRtCheckExpandShape(const char *op, int64_t sourceDim,
                                             int64_t sourceSize,
                                             int64_t firstResultDim,
                                             const int64_t *sizes,
                                             int64_t count) {
  if (!op || !sizes || count <= 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCheckExpandShape: null or empty argument");
  // Negative sizes are refused one by one: two of them could multiply to
  // the source's size.
  int64_t product = 1;
  bool overflow = false;
  std::string factors;
  for (int64_t i = 0; i < count; ++i) {
    if (sizes[i] < 0)
      return fail(
          GP_RT_ERROR_INVALID_ARGUMENT,
          std::string(op) + ": source dimension " + std::to_string(sourceDim) +
              " has size " + std::to_string(sourceSize) +
              ", but output_shape gives result dimension " +
              std::to_string(firstResultDim + i) + " the negative size " +
              std::to_string(sizes[i]) + "; nothing after it runs");
    factors += (i ? " x " : "") + std::to_string(sizes[i]);
    overflow = overflow || __builtin_mul_overflow(product, sizes[i], &product);
  }
  // A zero makes the product exact, whatever overflowed before it.
  if (std::find(sizes, sizes + count, 0) != sizes + count) {
    product = 0;
    overflow = false;
  }
  if (!overflow && product == sourceSize)
    return GP_RT_SUCCESS;
  std::string dims =
      count == 1 ? "result dimension " + std::to_string(firstResultDim)
                 : "result dimensions " + std::to_string(firstResultDim) + "-" +
                       std::to_string(firstResultDim + count - 1);
  std::string split = count == 1 ? factors
                      : overflow ? factors + ", which overflows int64"
                                 : factors + " = " + std::to_string(product);
  return fail(GP_RT_ERROR_INVALID_ARGUMENT,
              std::string(op) + ": source dimension " +
                  std::to_string(sourceDim) + " has size " +
                  std::to_string(sourceSize) +
                  ", but output_shape splits it into " + split + " (" + dims +
                  "); nothing after it runs");
}

GP_RT_EXPORT gpRtBackend gpRtDefaultBackend(void) {
  return gpRtBackendAvailable(GP_RT_BACKEND_CUDA) == GP_RT_SUCCESS
             ? GP_RT_BACKEND_CUDA
             : GP_RT_BACKEND_HOST;
}

} // extern "C"
