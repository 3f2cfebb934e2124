//===- SafeTensors.h - read .safetensors files ------------------*- C++ -*-===//
//
// The safetensors format (Hugging Face): an 8-byte little-endian header
// length N, N bytes of JSON
//   {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
//    ..., "__metadata__": {"key": "value"}}
// (offsets relative to the data, which follows the header), then the data.
// gp-run --parameters reads model parameters from it. Part of GPRunSupport
// (no LLVM, MLIR or runtime dependency); errors come back as messages.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPRUN_SAFETENSORS_H
#define GRAPHPART_TOOLS_GPRUN_SAFETENSORS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gp::run {

/// One tensor of a safetensors file, as its header describes it.
struct SafeTensor {
  std::string dtype; // "F32", "BF16", "BOOL", ...
  std::vector<int64_t> shape;
  /// [begin, end) in the data section.
  uint64_t begin = 0, end = 0;
};

/// A safetensors file's header: its tensors by name.
struct SafeTensorsFile {
  std::string path;
  /// Where the data section starts in the file, and its size.
  uint64_t dataOffset = 0, dataBytes = 0;
  std::map<std::string, SafeTensor> tensors;
};

/// The element type (as the runtime names it: "f32", "bf16", "i1", "ui8")
/// of a safetensors dtype, and its size in bytes; "" and 0 for a dtype
/// gp-run does not read (F8_E4M3, U16, ...).
std::string safeTensorElementType(const std::string &dtype, int &bytes);

/// Parses a header (the JSON text) of a file whose data section holds
/// `dataBytes` bytes: strict JSON, one object; each entry but
/// "__metadata__" (an object of strings) a tensor with exactly "dtype",
/// "shape" (non-negative integers) and "data_offsets" ([begin, end] within
/// the data; end - begin the tensor's size for the dtypes gp-run reads).
/// On failure returns false with the reason in `error`.
bool parseSafeTensorsHeader(const std::string &json, uint64_t dataBytes,
                            std::map<std::string, SafeTensor> &tensors,
                            std::string &error);

/// Reads the header of the file at `path`. Errors name the file.
bool readSafeTensorsHeader(const std::string &path, SafeTensorsFile &file,
                           std::string &error);

/// Reads the bytes of tensor `tensor` of `file`.
bool readSafeTensorData(const SafeTensorsFile &file, const SafeTensor &tensor,
                        std::vector<uint8_t> &data, std::string &error);

} // namespace gp::run

#endif // GRAPHPART_TOOLS_GPRUN_SAFETENSORS_H
