//===- ParameterSource.h - where gp-run reads parameters from ---*- C++ -*-===//
//
// gp-run --parameters PATH (and --weights DIR for programs whose weight
// arguments are named parameters): the values of the program's named
// parameters, by name, from a directory of .npy files (parameter `n` in
// PATH/<n>.npy) or a .safetensors file; --parameters given several times,
// from the first that holds each name.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPRUN_PARAMETERSOURCE_H
#define GRAPHPART_TOOLS_GPRUN_PARAMETERSOURCE_H

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace gp::run {

/// A parameter's values as read: element type as the runtime names it
/// ("f32", "bf16", "i1", ...), shape, bytes row-major, and the file they
/// came from (for messages).
struct HostTensor {
  std::string elementType, file;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

class ParameterSource {
public:
  virtual ~ParameterSource() = default;
  /// What the user named (the directory or the file).
  const std::string &path() const { return where; }
  /// Reads parameter `name`; false, with a message naming the parameter and
  /// the file, when it is not there or cannot be read.
  virtual bool load(const std::string &name, HostTensor &tensor,
                    std::string &error) = 0;
  /// How many tensors the source holds that are not in `taken`.
  virtual size_t countOthers(const std::set<std::string> &taken) const = 0;
  /// Whether the source holds a tensor named `name` (readable or not).
  virtual bool holds(const std::string &name) const = 0;

protected:
  explicit ParameterSource(std::string path) : where(std::move(path)) {}
  std::string where;
};

/// Opens `path`: a directory, or a .safetensors file (whose header is read
/// and checked now). On failure returns null with the reason in `error`.
std::unique_ptr<ParameterSource> openParameterSource(const std::string &path,
                                                     std::string &error);

/// Opens each of `paths` (in order: the first that holds a name gives it);
/// one path is that path's source. On failure returns null with the reason,
/// naming the path, in `error`.
std::unique_ptr<ParameterSource>
openParameterSources(const std::vector<std::string> &paths,
                     std::string &error);

} // namespace gp::run

#endif // GRAPHPART_TOOLS_GPRUN_PARAMETERSOURCE_H
