//===- CaptureSizes.h - the capture-size list, parsed once ------*- C++ -*-===//
//
// Capture sizes are the shape keys a capturable partition is recorded for
// (and, for keys of one size, the buckets calls are padded up to). They are
// written the same way everywhere: the pipeline option
// `gp-pipeline capture-sizes=...`, the pass option of
// convert-gp-to-runtime, the artifact manifest, GP_CUDAGRAPH_CAPTURE_SIZES
// and gpRtArtifactSetCaptureSizes. This header is the one definition of that
// syntax and of the `default` list, for the compiler and for the runtime
// (it needs nothing but the C++ standard library):
//
//   1,2,4            keys of one size
//   2x3,4x5          keys of two sizes (every entry has as many)
//   default          1, 2, 4, 8, steps of 8 to 256, steps of 16 to 512
//   default,1024     the default list and more keys of one size
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_RUNTIME_CAPTURESIZES_H
#define GRAPHPART_RUNTIME_CAPTURESIZES_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gp {

/// A parsed capture-size list: `numKeys()` keys of `keyLength` sizes each,
/// flattened key after key (the form gpRtProgramSetCaptureSizes takes).
struct CaptureSizes {
  std::vector<int64_t> sizes;
  int32_t keyLength = 0;

  bool empty() const { return sizes.empty(); }
  int32_t numKeys() const {
    return keyLength ? static_cast<int32_t>(sizes.size() / keyLength) : 0;
  }
  std::vector<int64_t> key(int32_t index) const {
    return {sizes.begin() + index * keyLength,
            sizes.begin() + (index + 1) * keyLength};
  }
};

/// The sizes `default` stands for: 1, 2, 4, 8, then every 8 up to 256 and
/// every 16 up to 512 (the batch and length buckets serving frameworks use).
inline std::vector<int64_t> defaultCaptureSizes() {
  std::vector<int64_t> sizes = {1, 2, 4, 8};
  for (int64_t size = 16; size <= 256; size += 8)
    sizes.push_back(size);
  for (int64_t size = 272; size <= 512; size += 16)
    sizes.push_back(size);
  return sizes;
}

/// Parses `text` into `result`. Returns an empty string on success, else
/// what is wrong with it (the caller says where the text came from).
inline std::string parseCaptureSizes(std::string_view text,
                                     CaptureSizes &result) {
  result = CaptureSizes();
  if (text.empty())
    return "the list is empty";
  auto mismatch = [&](std::string_view entry, size_t length) {
    return "'" + std::string(entry) + "' has " + std::to_string(length) +
           " size" + (length == 1 ? "" : "s") +
           " but the entries before it have " +
           std::to_string(result.keyLength) +
           ": every entry must have the same number";
  };
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view entry = text.substr(start, comma == std::string_view::npos
                                                    ? std::string_view::npos
                                                    : comma - start);
    start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    if (entry == "default") {
      if (result.keyLength > 1)
        return mismatch(entry, 1);
      std::vector<int64_t> defaults = defaultCaptureSizes();
      result.sizes.insert(result.sizes.end(), defaults.begin(), defaults.end());
      result.keyLength = 1;
      continue;
    }
    std::vector<int64_t> key;
    size_t partStart = 0;
    while (partStart <= entry.size()) {
      size_t cross = entry.find('x', partStart);
      std::string_view part = entry.substr(
          partStart, cross == std::string_view::npos ? std::string_view::npos
                                                     : cross - partStart);
      partStart =
          cross == std::string_view::npos ? entry.size() + 1 : cross + 1;
      // Decimal digits only: no sign, no space, no overflow.
      int64_t value = 0;
      bool valid = !part.empty() && part.size() <= 18;
      for (size_t i = 0; valid && i < part.size(); ++i) {
        valid = part[i] >= '0' && part[i] <= '9';
        value = value * 10 + (part[i] - '0');
      }
      if (!valid)
        return "'" + std::string(entry) +
               "' is not a size or a size tuple like 2x3 (sizes are "
               "non-negative decimal integers below 10^18)";
      key.push_back(value);
    }
    if (result.keyLength && key.size() != size_t(result.keyLength))
      return mismatch(entry, key.size());
    result.keyLength = static_cast<int32_t>(key.size());
    result.sizes.insert(result.sizes.end(), key.begin(), key.end());
  }
  return "";
}

/// The list as it is written (every key spelled out; `default` expanded):
/// what the manifest carries, and what parseCaptureSizes reads back.
inline std::string formatCaptureSizes(const CaptureSizes &sizes) {
  std::string text;
  for (int32_t key = 0; key < sizes.numKeys(); ++key) {
    if (key)
      text += ',';
    for (int32_t i = 0; i < sizes.keyLength; ++i) {
      if (i)
        text += 'x';
      text += std::to_string(sizes.sizes[key * sizes.keyLength + i]);
    }
  }
  return text;
}

} // namespace gp

#endif // GRAPHPART_RUNTIME_CAPTURESIZES_H
