//===- ElementType.cpp - element types and host arrays --------------------===//
//
// The table of element types and the per-element conversions of Array.
//
//===----------------------------------------------------------------------===//

#include "ElementType.h"

#include <algorithm>
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
    {"f8E4M3FN", "|u1", 1, false}, {"bf16", "<u2", 2, true},
};

/// IEEE half bits to the value they encode (exact).
double halfToDouble(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double sign = bits & 0x8000 ? -1.0 : 1.0;
  if (exponent == 0x1f)
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

/// The half nearest to `value` (ties to even; overflow to infinity).
uint16_t doubleToHalf(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value))
    return sign | 0x7e00;
  double magnitude = std::fabs(value);
  if (magnitude >= 65520.0) // Halfway past the largest half, 65504.
    return sign | 0x7c00;
  int exponent;
  std::frexp(magnitude, &exponent); // magnitude = f * 2^exponent, f in [0.5,1)
  // The spacing of halves around `magnitude`: 2^(exponent - 11), but no
  // finer than the subnormals' 2^-24.
  int quantum = std::max(exponent - 11, -24);
  double units = std::nearbyint(std::ldexp(magnitude, -quantum)); // even ties
  double rounded = std::ldexp(units, quantum);
  if (rounded == 0)
    return sign;
  int roundedExponent;
  std::frexp(rounded, &roundedExponent);
  if (roundedExponent - 1 < -14) // Subnormal: units of 2^-24.
    return sign | static_cast<uint16_t>(std::ldexp(rounded, 24));
  uint16_t biased = static_cast<uint16_t>(roundedExponent - 1 + 15);
  uint16_t mantissa =
      static_cast<uint16_t>(std::ldexp(rounded, 11 - roundedExponent) - 1024);
  return sign | static_cast<uint16_t>(biased << 10) | mantissa;
}

/// bfloat16 bits (the top half of an f32) to their value.
double bfloat16ToDouble(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

/// The bfloat16 nearest to `value` (through f32; ties to even).
uint16_t doubleToBfloat16(double value) {
  float narrow = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &narrow, 4);
  if (std::isnan(narrow))
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}
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
