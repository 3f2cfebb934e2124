//===- Policy.cpp - when partitions are captured --------------------------===//
//
// Owns the capture policy's parsing: the capture-size allow-list, or-error
// mode, the shape warning limit and the graph-cache capacity, from the
// environment.
//
//===----------------------------------------------------------------------===//

#include "Policy.h"
#include "Log.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <sstream>

using namespace gp::rt;

gpRtStatus Policy::applyEnvironment() {
  if (const char *env = std::getenv("GP_CUDAGRAPH_CAPTURE_SIZES");
      env && *env) {
    if (gpRtStatus status =
            parseCaptureSizes("GP_CUDAGRAPH_CAPTURE_SIZES", env, captureSizes))
      return status;
    hasCaptureSizes = true;
    captureSizesFromEnvironment = true;
  }
  if (const char *env = std::getenv("GP_CUDAGRAPH_OR_ERROR"); env && *env)
    orError = parseBoolean("GP_CUDAGRAPH_OR_ERROR", env, orError,
                           &orErrorFromEnvironment);
  if (const char *env = std::getenv("GP_CUDAGRAPH_SHAPE_WARNING_LIMIT");
      env && *env) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (*end != '\0' || value < 0)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "GP_CUDAGRAPH_SHAPE_WARNING_LIMIT must be a non-negative "
                  "integer");
    shapeWarningLimit = value;
    shapeWarningLimitFromEnvironment = true;
  }
  if (const char *env = std::getenv("GP_CUDAGRAPH_CACHE_CAPACITY");
      env && *env) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (*end != '\0' || value < 1 || value > INT32_MAX)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "GP_CUDAGRAPH_CACHE_CAPACITY must be a positive integer");
    graphCacheCapacity = value;
    graphCacheCapacityFromEnvironment = true;
  }
  return GP_RT_SUCCESS;
}

void Policy::warnAboutKeyLengths(
    const std::string &program,
    const std::vector<gpRtPartitionInfo> &partitions) const {
  if (!hasCaptureSizes)
    return;
  for (size_t i = 0; i < partitions.size(); ++i) {
    const gpRtPartitionInfo &partition = partitions[i];
    // A partition without symbols has one shape: the list is moot there.
    if (!partition.capturable || partition.numShapeSymbols == 0 ||
        partition.numShapeSymbols == captureSizes.keyLength)
      continue;
    warn(program + ": partition " + std::to_string(i) + " has a shape key of " +
         std::to_string(partition.numShapeSymbols) +
         " sizes but the capture sizes have " +
         std::to_string(captureSizes.keyLength) +
         ": they do not apply to it, and it is captured for every shape");
  }
}

bool gp::rt::parseBoolean(const char *name, const std::string &text,
                          bool fallback, bool *recognised) {
  std::string word;
  for (char c : text)
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (recognised)
    *recognised = true;
  if (word == "1" || word == "true" || word == "on" || word == "yes")
    return true;
  if (word == "0" || word == "false" || word == "off" || word == "no")
    return false;
  if (recognised)
    *recognised = false;
  warn(std::string(name) + "='" + text +
       "' is not a boolean (expected 0/1, true/false, on/off or yes/no); "
       "using " +
       (fallback ? "true" : "false"));
  return fallback;
}

bool Policy::inCaptureSizes(const std::vector<int64_t> &key) const {
  // A key of no sizes is a partition's only shape: the list is moot there.
  if (!hasCaptureSizes || key.empty() ||
      static_cast<int32_t>(key.size()) != captureSizes.keyLength)
    return true;
  for (size_t start = 0; start < captureSizes.sizes.size(); start += key.size())
    if (std::equal(key.begin(), key.end(), captureSizes.sizes.begin() + start))
      return true;
  return false;
}

gpRtStatus gp::rt::parseCaptureSizes(const char *source,
                                     const std::string &text,
                                     CaptureSizes &sizes) {
  std::string problem = gp::parseCaptureSizes(text, sizes);
  if (!problem.empty())
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(source) + ": capture sizes '" + text +
                    "': " + problem + " (1,2,4 or 2x3,4x5 or default)");
  return GP_RT_SUCCESS;
}
