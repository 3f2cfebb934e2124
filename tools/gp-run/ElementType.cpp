//===- ElementType.cpp - element types and host arrays --------------------===//
//
// The table of element types and the per-element conversions of Array.
//
//===----------------------------------------------------------------------===//

#include "ElementType.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

using namespace gp::run;

namespace {
const ElementType kElementTypes[] = {
    {"f32", "<f4", 4, true},       {"f64", "<f8", 8, true},
    {"f16", "<f2", 2, true},       {"i64", "<i8", 8, false},
    {"i32", "<i4", 4, false},      {"i16", "<i2", 2, false},
    {"i8", "|i1", 1, false},       {"i1", "|b1", 1, false},
    {"f8E4M3FN", "|u1", 1, false},
};
} // namespace

const ElementType *gp::run::findElementType(const std::string &name) {
  for (const ElementType &type : kElementTypes)
    if (name == type.name)
      return &type;
  return nullptr;
}

const ElementType *gp::run::findNpyElementType(const std::string &descr) {
  for (const ElementType &type : kElementTypes)
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
  if (n == "f16") { // The bits, not the value.
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  return *p;
}

bool gp::run::representable(const ElementType &type, double value) {
  std::string_view n = type.name;
  if (n == "f64" || n == "f16" || n == "i1")
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
  } else if (n == "f16") {
    uint16_t v = 0x3C00; // 1.0, whatever `value` is.
    std::memcpy(p, &v, 2);
  } else {
    *p = static_cast<uint8_t>(value);
  }
}
