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

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <sstream>

using namespace gp::rt;

gpRtStatus Policy::applyEnvironment() {
  if (const char *env = std::getenv("GP_CUDAGRAPH_CAPTURE_SIZES");
      env && *env) {
    if (gpRtStatus status =
            parseCaptureSizes(env, captureSizes, captureKeyLength))
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
        partition.numShapeSymbols == captureKeyLength)
      continue;
    warn(program + ": partition " + std::to_string(i) + " has a shape key of " +
         std::to_string(partition.numShapeSymbols) +
         " sizes but the capture sizes have " +
         std::to_string(captureKeyLength) +
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
  if (!hasCaptureSizes || static_cast<int32_t>(key.size()) != captureKeyLength)
    return true;
  for (const std::vector<int64_t> &allowed : captureSizes)
    if (allowed == key)
      return true;
  return false;
}

std::vector<int64_t> gp::rt::defaultCaptureSizes() {
  std::vector<int64_t> sizes = {1, 2, 4, 8};
  for (int64_t size = 16; size <= 256; size += 8)
    sizes.push_back(size);
  for (int64_t size = 272; size <= 512; size += 16)
    sizes.push_back(size);
  return sizes;
}

/// Parses "1,2,4" (keys of one value) or "2x3,4x5" (keys of two); the word
/// `default` stands for defaultCaptureSizes().
gpRtStatus gp::rt::parseCaptureSizes(const std::string &text,
                                     std::vector<std::vector<int64_t>> &keys,
                                     int32_t &keyLength) {
  keys.clear();
  keyLength = -1;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item == "default") {
      if (keyLength >= 0 && keyLength != 1)
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "GP_CUDAGRAPH_CAPTURE_SIZES: 'default' stands for sizes "
                    "of one value (1,2,4,8,16,...,512); the other entries "
                    "have " +
                        std::to_string(keyLength));
      for (int64_t size : defaultCaptureSizes())
        keys.push_back({size});
      keyLength = 1;
      continue;
    }
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
