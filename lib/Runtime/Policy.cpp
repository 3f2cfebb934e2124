//===- Policy.cpp - when partitions are captured --------------------------===//
//
// Owns the capture policy's parsing: the capture-size allow-list, or-error
// mode and the shape warning limit, from the environment.
//
//===----------------------------------------------------------------------===//

#include "Policy.h"
#include "RuntimeInternal.h"

#include <cstdlib>
#include <sstream>

using namespace gp::rt;

gpRtStatus Policy::applyEnvironment() {
  if (const char *env = std::getenv("GP_CUDAGRAPH_CAPTURE_SIZES"); env && *env) {
    if (gpRtStatus status =
            parseCaptureSizes(env, captureSizes, captureKeyLength))
      return status;
    hasCaptureSizes = true;
  }
  if (const char *env = std::getenv("GP_CUDAGRAPH_OR_ERROR"))
    orError = std::string(env) != "" && std::string(env) != "0";
  if (const char *env = std::getenv("GP_CUDAGRAPH_SHAPE_WARNING_LIMIT");
      env && *env) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (*end != '\0' || value < 0)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "GP_CUDAGRAPH_SHAPE_WARNING_LIMIT must be a non-negative "
                  "integer");
    shapeWarningLimit = value;
  }
  return GP_RT_SUCCESS;
}

bool Policy::inCaptureSizes(const std::vector<int64_t> &key) const {
  if (!hasCaptureSizes || static_cast<int32_t>(key.size()) != captureKeyLength)
    return true;
  for (const std::vector<int64_t> &allowed : captureSizes)
    if (allowed == key)
      return true;
  return false;
}

/// Parses "1,2,4" (keys of one value) or "2x3,4x5" (keys of two).
gpRtStatus gp::rt::parseCaptureSizes(const std::string &text,
                                    std::vector<std::vector<int64_t>> &keys,
                                    int32_t &keyLength) {
  keys.clear();
  keyLength = -1;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    std::vector<int64_t> key;
    std::stringstream parts(item);
    std::string part;
    while (std::getline(parts, part, 'x')) {
      char *end = nullptr;
      long long value = std::strtoll(part.c_str(), &end, 10);
      if (part.empty() || *end != '\0' || value < 0)
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "GP_CUDAGRAPH_CAPTURE_SIZES: '" + item +
                        "' is not a size or a size tuple like 2x3");
      key.push_back(value);
    }
    if (keyLength >= 0 && static_cast<int32_t>(key.size()) != keyLength)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "GP_CUDAGRAPH_CAPTURE_SIZES: every entry must have the "
                  "same number of sizes");
    keyLength = key.size();
    keys.push_back(key);
  }
  if (keys.empty())
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "GP_CUDAGRAPH_CAPTURE_SIZES is empty");
  return GP_RT_SUCCESS;
}
