//===- ParameterSource.cpp - where gp-run reads parameters from -----------===//
//
// A directory of .npy files, one per parameter named verbatim
// (PATH/<name>.npy, as gp-import's weights directory holds them), or a
// .safetensors file read through SafeTensors.h.
//
//===----------------------------------------------------------------------===//

#include "ParameterSource.h"

#include "Npy.h"
#include "SafeTensors.h"

#include <dirent.h>
#include <sys/stat.h>

using namespace gp::run;

namespace {

class NpyDirectory : public ParameterSource {
public:
  explicit NpyDirectory(const std::string &path) : ParameterSource(path) {}

  bool load(const std::string &name, HostTensor &tensor,
            std::string &error) override {
    std::string file = where + "/" + name + ".npy";
    struct stat info;
    if (stat(file.c_str(), &info) != 0) {
      error = "parameter '" + name + "' of the program: no file '" + file +
              "'";
      return false;
    }
    Array array;
    if (!readNpy(file, array, error)) {
      error = "parameter '" + name + "': " + error;
      return false;
    }
    tensor.elementType = array.type->name;
    tensor.shape = std::move(array.shape);
    tensor.data = std::move(array.data);
    tensor.file = file;
    return true;
  }

  bool holds(const std::string &name) const override {
    struct stat info;
    return stat((where + "/" + name + ".npy").c_str(), &info) == 0;
  }

  size_t countOthers(const std::set<std::string> &taken) const override {
    size_t count = 0;
    DIR *dir = opendir(where.c_str());
    if (!dir)
      return 0;
    while (dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0 &&
          !taken.count(name.substr(0, name.size() - 4)))
        ++count;
    }
    closedir(dir);
    return count;
  }
};

class SafeTensorsSource : public ParameterSource {
public:
  SafeTensorsSource(const std::string &path, SafeTensorsFile file)
      : ParameterSource(path), file(std::move(file)) {}

  bool load(const std::string &name, HostTensor &tensor,
            std::string &error) override {
    auto found = file.tensors.find(name);
    if (found == file.tensors.end()) {
      error = "parameter '" + name + "' of the program: '" + where +
              "' holds no tensor of that name";
      return false;
    }
    const SafeTensor &stored = found->second;
    int bytes = 0;
    tensor.elementType = safeTensorElementType(stored.dtype, bytes);
    if (tensor.elementType.empty()) {
      error = "parameter '" + name + "': '" + where + "' holds it as " +
              stored.dtype + ", a dtype gp-run does not read";
      return false;
    }
    tensor.shape = stored.shape;
    tensor.file = where;
    if (!readSafeTensorData(file, stored, tensor.data, error)) {
      error = "parameter '" + name + "': " + error;
      return false;
    }
    return true;
  }

  bool holds(const std::string &name) const override {
    return file.tensors.count(name) != 0;
  }

  size_t countOthers(const std::set<std::string> &taken) const override {
    size_t count = 0;
    for (const auto &[name, tensor] : file.tensors)
      count += taken.count(name) ? 0 : 1;
    return count;
  }

private:
  SafeTensorsFile file;
};

/// Several sources: each name from the first that holds it.
class SourceList : public ParameterSource {
public:
  SourceList(std::string paths,
             std::vector<std::unique_ptr<ParameterSource>> sources)
      : ParameterSource(std::move(paths)), sources(std::move(sources)) {}

  bool load(const std::string &name, HostTensor &tensor,
            std::string &error) override {
    for (auto &source : sources)
      if (source->holds(name))
        return source->load(name, tensor, error);
    error = "parameter '" + name + "' of the program: none of " + where +
            " holds it";
    return false;
  }

  bool holds(const std::string &name) const override {
    for (const auto &source : sources)
      if (source->holds(name))
        return true;
    return false;
  }

  size_t countOthers(const std::set<std::string> &taken) const override {
    size_t count = 0;
    for (const auto &source : sources)
      count += source->countOthers(taken);
    return count;
  }

private:
  std::vector<std::unique_ptr<ParameterSource>> sources;
};

} // namespace

std::unique_ptr<ParameterSource>
gp::run::openParameterSource(const std::string &path, std::string &error) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    error = "'" + path + "' does not exist";
    return nullptr;
  }
  if (S_ISDIR(info.st_mode))
    return std::make_unique<NpyDirectory>(path);
  SafeTensorsFile file;
  if (!readSafeTensorsHeader(path, file, error))
    return nullptr;
  return std::make_unique<SafeTensorsSource>(path, std::move(file));
}

std::unique_ptr<ParameterSource>
gp::run::openParameterSources(const std::vector<std::string> &paths,
                              std::string &error) {
  if (paths.size() == 1)
    return openParameterSource(paths.front(), error);
  std::vector<std::unique_ptr<ParameterSource>> sources;
  std::string names;
  for (const std::string &path : paths) {
    std::unique_ptr<ParameterSource> source = openParameterSource(path, error);
    if (!source)
      return nullptr;
    names += (names.empty() ? "" : ", ") + path;
    sources.push_back(std::move(source));
  }
  return std::make_unique<SourceList>(names, std::move(sources));
}
