//===- Inputs.cpp - gp-run's --input specs and their placement ------------===//
//
// Turns `--input` specs into host arrays (constants, random values, .npy
// files) and places them in host or program memory for an entry point.
//
//===----------------------------------------------------------------------===//

#include "Inputs.h"

#include "Diagnostics.h"
#include "Npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>

using namespace gp::run;

bool gp::run::parseInput(const std::string &spec, const gpRtValueInfo &info,
                         int position, std::mt19937_64 &random, Input &input,
                         std::string &error, int64_t maxBytes) {
  std::string where =
      "--input " + std::to_string(position) + " ('" + spec + "')";
  auto reject = [&](std::string message) {
    error = std::move(message);
    return false;
  };
  input = Input();
  if (!info.isBuffer) {
    char *end = nullptr;
    errno = 0;
    input.index = std::strtoll(spec.c_str(), &end, 10);
    if (spec.empty() || *end)
      return reject(where + ": argument " + std::to_string(position) +
                    " is an index; give an integer");
    // strtoll clamps to the nearest of +-(2^63 - 1) and says so only here.
    if (errno == ERANGE)
      return reject(where + ": argument " + std::to_string(position) +
                    " is an index; " + spec +
                    " does not fit in 64 bits (an index is from -2^63 to "
                    "2^63 - 1)");
    input.isIndex = true;
    return true;
  }
  if (!spec.empty() && spec[0] == '@') {
    std::string npyError;
    if (!readNpy(spec.substr(1), input.array, npyError))
      return reject(npyError);
  } else {
    size_t eq = spec.find('=');
    if (eq == std::string::npos)
      return reject(where + ": expected SHAPExTYPE=VALUE or @file.npy");
    std::string type = spec.substr(0, eq), value = spec.substr(eq + 1);
    std::vector<std::string> parts;
    std::stringstream stream(type);
    std::string part;
    while (std::getline(stream, part, 'x'))
      parts.push_back(part);
    if (parts.empty())
      return reject(where + ": no element type");
    input.array.type = findElementType(parts.back());
    if (!input.array.type)
      return reject(where + ": unknown element type '" + parts.back() + "'");
    parts.pop_back();
    int64_t bytes = input.array.type->bytes;
    for (const std::string &dim : parts) {
      char *end = nullptr;
      errno = 0;
      long long size = std::strtoll(dim.c_str(), &end, 10);
      if (dim.empty() || *end || size < 0 || errno == ERANGE)
        return reject(where + ": bad dimension '" + dim + "'");
      input.array.shape.push_back(size);
      if (__builtin_mul_overflow(bytes, static_cast<int64_t>(size), &bytes))
        return reject(where +
                      ": the shape has more elements than can be counted");
    }
    // Checked before allocating: a typo must not take the host's memory.
    if (bytes > maxBytes)
      return reject(where + ": " + std::to_string(bytes) +
                    " bytes is more than an input may hold (" +
                    (maxBytes == kMaxInputBytes ? std::string("2^40")
                                                : std::to_string(maxBytes)) +
                    ")");
    try {
      input.array.data.resize(bytes);
    } catch (const std::bad_alloc &) {
      return reject(where + ": cannot hold " + std::to_string(bytes) +
                    " bytes in host memory");
    }
    if (!value.empty() && value[0] == '@') {
      // SHAPExTYPE=@file.npy: the file's array, which must be of that
      // shape and type.
      Array declared = std::move(input.array);
      std::string npyError;
      if (!readNpy(value.substr(1), input.array, npyError))
        return reject(npyError);
      if (input.array.type != declared.type ||
          input.array.shape != declared.shape)
        return reject(where + ": '" + value.substr(1) + "' does not hold a " +
                      type + " array");
    } else if (value == "random") {
      fillRandom(input.array, random);
    } else {
      // One number for every element, or one per element separated by
      // commas (iree-run-module's form), in row-major order.
      std::vector<std::string> items;
      std::stringstream list(value);
      std::string item;
      while (std::getline(list, item, ','))
        items.push_back(item);
      if (!value.empty() && value.back() == ',')
        items.push_back("");
      int64_t count = input.array.count();
      if (items.size() != 1 && static_cast<int64_t>(items.size()) != count)
        return reject(where + ": " + std::to_string(items.size()) +
                      " values for " + std::to_string(count) +
                      " elements (give one, or one per element)");
      std::vector<double> numbers;
      for (const std::string &text : items) {
        char *end = nullptr;
        double number = std::strtod(text.c_str(), &end);
        if (text.empty() || *end)
          return reject(where +
                        ": the value must be 'random', @file.npy, a "
                        "number or a comma-separated list of them, "
                        "not '" +
                        text + "'");
        if (!representable(*input.array.type, number))
          return reject(where + ": " + text + " does not fit in " +
                        input.array.type->name);
        numbers.push_back(number);
      }
      for (int64_t i = 0; i < count; ++i)
        setElement(input.array, i,
                   numbers.size() == 1 ? numbers[0] : numbers[i]);
    }
  }
  if (input.array.type->name != std::string(info.elementType))
    return reject(where + ": element type " + input.array.type->name +
                  ", but the entry takes " + info.elementType);
  if (static_cast<int32_t>(input.array.shape.size()) != info.rank)
    return reject(where + ": rank " + std::to_string(input.array.shape.size()) +
                  ", but the entry takes rank " + std::to_string(info.rank));
  for (int32_t d = 0; d < info.rank; ++d)
    if (info.shape[d] >= 0 && info.shape[d] != input.array.shape[d])
      return reject(where + ": dimension " + std::to_string(d) + " is " +
                    std::to_string(input.array.shape[d]) +
                    ", but the entry takes " + std::to_string(info.shape[d]));
  return true;
}

bool gp::run::isHostDevice(const char *device) {
  return std::string(device) == "cpu";
}

bool gp::run::isMetaDevice(const char *device) {
  return std::string(device) == "meta";
}

void gp::run::fillRandom(Array &array, std::mt19937_64 &random) {
  // Floats in [-1, 1]; integers small enough for any type (and any index
  // an input holds into a small dimension).
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, 7);
  for (int64_t i = 0; i < array.count(); ++i)
    setElement(array, i, array.type->isFloat ? uniform(random) : small(random));
}

void gp::run::freshValues(Array &array, std::mt19937_64 &random) {
  if (array.type->isFloat)
    return fillRandom(array, random);
  // Integers: the given values in another order. An integer input is often
  // an index (an embedding's ids, a cache position): every element of the
  // given array is valid where each element is, so a permutation stays in
  // range, where fresh draws would fail the call's index checks.
  int64_t count = array.count();
  if (count < 2)
    return;
  size_t bytes = array.data.size() / count;
  for (int64_t i = count - 1; i > 0; --i) {
    int64_t j = std::uniform_int_distribution<int64_t>(0, i)(random);
    std::swap_ranges(array.data.begin() + i * bytes,
                     array.data.begin() + (i + 1) * bytes,
                     array.data.begin() + j * bytes);
  }
}

Placed gp::run::place(gpRtProgram *program, const Input &input,
                      const gpRtValueInfo &info, bool cudaBackend) {
  Placed placed;
  if (input.isIndex) {
    placed.storage.resize(8);
    std::memcpy(placed.storage.data(), &input.index, 8);
    return placed;
  }
  int32_t rank = info.rank;
  placed.storage.resize(GP_RT_MEMREF_BYTES(rank));
  auto *ref = reinterpret_cast<gpRtMemRef *>(placed.storage.data());
  int64_t stride = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    ref->shape[d] = input.array.shape[d];
    ref->shape[rank + d] = stride;
    stride *= input.array.shape[d];
  }
  ref->offset = 0;
  if (isMetaDevice(info.device)) // Sizes only: meta tensors have no data.
    return placed;
  int64_t bytes = input.array.data.size();
  // aligned_alloc wants a size that is a multiple of the alignment.
  if (isHostDevice(info.device) || !cudaBackend) {
    placed.memory = std::aligned_alloc(
        256, std::max<int64_t>(256, (bytes + 255) / 256 * 256));
  } else {
    check(gpRtProgramAllocate(program, bytes, &placed.memory),
          "allocate input");
    placed.inProgramMemory = true;
  }
  ref->allocated = ref->aligned = placed.memory;
  return placed;
}

void gp::run::upload(gpRtProgram *program, Placed &placed, const Input &input) {
  if (input.isIndex || !placed.memory)
    return;
  if (placed.inProgramMemory)
    check(gpRtCopyToProgram(program, placed.memory, input.array.data.data(),
                            input.array.data.size()),
          "copy input");
  else
    std::memcpy(placed.memory, input.array.data.data(),
                input.array.data.size());
}

void gp::run::release(gpRtProgram *program, Placed &placed) {
  if (placed.inProgramMemory)
    gpRtProgramFree(program, placed.memory);
  else
    std::free(placed.memory);
  placed.memory = nullptr;
}
