//===- ElementType.cpp - element types and host arrays --------------------===//
//
// gp-run's element types, drawn from the runtime's table, and the
// per-element conversions of Array, chosen by each type's kind and size.
//
//===----------------------------------------------------------------------===//

#include "ElementType.h"

#include "GraphPart/Runtime/ElementTypeTable.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace gp::run;
using gp::elements::ElementInfo;
using gp::elements::Kind;

namespace {
/// The types gp-run reads and writes: the table's entries with an .npy
/// descr.
const std::vector<ElementType> &elementTypes() {
  static const std::vector<ElementType> types = [] {
    std::vector<ElementType> result;
    for (const ElementInfo &info : gp::elements::kElementTable)
      if (info.npy)
        result.push_back(
            {info.name, info.npy, info.bytes, info.kind == Kind::Float, &info});
    return result;
  }();
  return types;
}

template <typename T> T load(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

template <typename T> void store(uint8_t *p, T value) {
  std::memcpy(p, &value, sizeof value);
}

bool isBf16(const ElementType &type) {
  return type.info->code == GP_RT_ELEMENT_BF16;
}
} // namespace

const ElementType *gp::run::findElementType(const std::string &name) {
  for (const ElementType &type : elementTypes())
    if (name == type.name)
      return &type;
  return nullptr;
}

const ElementType *gp::run::findNpyElementType(const std::string &descr) {
  // An f8 type's descr is its raw bits' ('|u1'), which a uint8 array has.
  for (const ElementType &type : elementTypes())
    if (descr == type.npy && type.info->kind != Kind::Float8)
      return &type;
  return nullptr;
}

double gp::run::element(const Array &array, int64_t i) {
  const ElementType &type = *array.type;
  const uint8_t *p = array.data.data() + i * type.bytes;
  switch (type.info->kind) {
  case Kind::Float:
    if (type.bytes == 2) {
      uint16_t bits = load<uint16_t>(p);
      return isBf16(type) ? gp::elements::bf16ToFloat(bits)
                          : gp::elements::halfToFloat(bits);
    }
    return type.bytes == 4 ? load<float>(p) : load<double>(p);
  case Kind::SignedInt:
    switch (type.bytes) {
    case 1:
      return load<int8_t>(p);
    case 2:
      return load<int16_t>(p);
    case 4:
      return load<int32_t>(p);
    default:
      return load<int64_t>(p);
    }
  default: // i1 and f8 elements: their bits.
    return *p;
  }
}

bool gp::run::representable(const ElementType &type, double value) {
  Kind kind = type.info->kind;
  // f16 and bf16 round out-of-range values to infinity; i1 takes any value.
  if (kind == Kind::Bool || (kind == Kind::Float && type.bytes != 4))
    return true;
  if (kind == Kind::Float)
    return !std::isfinite(value) ||
           std::fabs(value) <= std::numeric_limits<float>::max();
  if (std::isnan(value))
    return false;
  // Integers truncate toward zero: the truncated value must fit.
  double low = 0, high = 256; // An f8 type: a raw byte.
  if (kind != Kind::Float8) {
    double half = std::ldexp(1.0, type.bytes * 8 - 1);
    low = -half;
    high = half;
  }
  double truncated = std::trunc(value);
  return truncated >= low && truncated < high;
}

void gp::run::setElement(Array &array, int64_t i, double value) {
  const ElementType &type = *array.type;
  uint8_t *p = array.data.data() + i * type.bytes;
  switch (type.info->kind) {
  case Kind::Float:
    // f16 and bf16 through f32, as PyTorch converts a Python float.
    if (type.bytes == 2)
      store(p, isBf16(type)
                   ? gp::elements::floatToBf16(static_cast<float>(value))
                   : gp::elements::floatToHalf(static_cast<float>(value)));
    else if (type.bytes == 4)
      store(p, static_cast<float>(value));
    else
      store(p, value);
    return;
  case Kind::SignedInt:
    switch (type.bytes) {
    case 1:
      return store(p, static_cast<int8_t>(value));
    case 2:
      return store(p, static_cast<int16_t>(value));
    case 4:
      return store(p, static_cast<int32_t>(value));
    default:
      return store(p, static_cast<int64_t>(value));
    }
  case Kind::Bool:
    *p = value != 0;
    return;
  default: // f8: the raw byte.
    *p = static_cast<uint8_t>(value);
  }
}
