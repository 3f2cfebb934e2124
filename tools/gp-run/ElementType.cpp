//===- ElementType.cpp - element types and host arrays --------------------===//
//
// The table of element types and the per-element conversions of Array.
//
//===----------------------------------------------------------------------===//

#include "ElementType.h"

#include "GraphPart/Runtime/ElementTypeTable.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

using namespace gp::run;

namespace {
/// The types gp-run reads and writes, with their .npy descrs; their sizes
/// and kinds are the runtime's (ElementTypeTable.h).
struct NpyDescr {
  const char *name, *npy;
};
constexpr NpyDescr kNpyDescrs[] = {
    {"f32", "<f4"},      {"f64", "<f8"},  {"f16", "<f2"}, {"i64", "<i8"},
    {"i32", "<i4"},      {"i16", "<i2"},  {"i8", "|i1"},  {"i1", "|b1"},
    {"f8E4M3FN", "|u1"}, {"bf16", "<u2"},
};

const std::vector<ElementType> &elementTypes() {
  static const std::vector<ElementType> types = [] {
    std::vector<ElementType> result;
    for (const NpyDescr &descr : kNpyDescrs) {
      const gp::elements::ElementInfo *info =
          gp::elements::findElement(descr.name);
      result.push_back({info->name, descr.npy, info->bytes,
                        info->kind == gp::elements::Kind::Float});
    }
    return result;
  }();
  return types;
}

double halfToDouble(uint16_t bits) { return gp::elements::halfToFloat(bits); }

/// Through f32, as PyTorch converts a Python float to f16.
uint16_t doubleToHalf(double value) {
  return gp::elements::floatToHalf(static_cast<float>(value));
}

double bfloat16ToDouble(uint16_t bits) {
  return gp::elements::bf16ToFloat(bits);
}

uint16_t doubleToBfloat16(double value) {
  return gp::elements::floatToBf16(static_cast<float>(value));
}
} // namespace

const ElementType *gp::run::findElementType(const std::string &name) {
  for (const ElementType &type : elementTypes())
    if (name == type.name)
      return &type;
  return nullptr;
}

const ElementType *gp::run::findNpyElementType(const std::string &descr) {
  for (const ElementType &type : elementTypes())
    if (descr == type.npy && std::string_view(type.name) != "f8E4M3FN")
      return &type;
  return nullptr;
}

double gp::run::element(const Array &array, int64_t i) {
  const uint8_t *p = array.data.data() + i * array.type->bytes;
  std::string_view n = array.type->name;
  if (n == "f32") {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (n == "f64") {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (n == "i64") {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (n == "i32") {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (n == "i16") {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  if (n == "i8") {
    int8_t v;
    std::memcpy(&v, p, 1);
    return v;
  }
  if (n == "f16" || n == "bf16") {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return n == "f16" ? halfToDouble(v) : bfloat16ToDouble(v);
  }
  return *p;
}

bool gp::run::representable(const ElementType &type, double value) {
  std::string_view n = type.name;
  if (n == "f64" || n == "f16" || n == "bf16" || n == "i1")
    return true;
  if (n == "f32")
    return !std::isfinite(value) ||
           std::fabs(value) <= std::numeric_limits<float>::max();
  if (std::isnan(value))
    return false;
  // Integers truncate toward zero: the truncated value must fit.
  double low = 0, high = 256; // f8E4M3FN: a raw byte.
  if (n != "f8E4M3FN") {
    double half = std::ldexp(1.0, type.bytes * 8 - 1);
    low = -half;
    high = half;
  }
  double truncated = std::trunc(value);
  return truncated >= low && truncated < high;
}

void gp::run::setElement(Array &array, int64_t i, double value) {
  uint8_t *p = array.data.data() + i * array.type->bytes;
  std::string_view n = array.type->name;
  if (n == "f32") {
    float v = value;
    std::memcpy(p, &v, 4);
  } else if (n == "f64") {
    std::memcpy(p, &value, 8);
  } else if (n == "i64") {
    int64_t v = value;
    std::memcpy(p, &v, 8);
  } else if (n == "i32") {
    int32_t v = value;
    std::memcpy(p, &v, 4);
  } else if (n == "i16") {
    int16_t v = value;
    std::memcpy(p, &v, 2);
  } else if (n == "i8") {
    int8_t v = value;
    std::memcpy(p, &v, 1);
  } else if (n == "i1") {
    *p = value != 0;
  } else if (n == "f16" || n == "bf16") {
    uint16_t v = n == "f16" ? doubleToHalf(value) : doubleToBfloat16(value);
    std::memcpy(p, &v, 2);
  } else {
    *p = static_cast<uint8_t>(value);
  }
}
