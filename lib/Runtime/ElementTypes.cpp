//===- ElementTypes.cpp - element sizes, names and conversions ------------===//
//
// The one definition of what the runtime knows of element types: their
// names (gpRtElementTypeName, the C API's), their sizes in bytes (what
// results, parameters, padding and the matmul externs compute addresses
// with), and the f16 and bf16 conversions through which the host backend
// computes in f32, rounding to nearest, ties to even, on every store.
//
//===----------------------------------------------------------------------===//

#include "ElementTypes.h"

#include "RuntimeInternal.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace gp::rt;

//===----------------------------------------------------------------------===//
// Names and sizes
//===----------------------------------------------------------------------===//

extern "C" GP_RT_EXPORT const char *gpRtElementTypeName(gpRtElementType type) {
  switch (type) {
  case GP_RT_ELEMENT_F32:
    return "f32";
  case GP_RT_ELEMENT_F16:
    return "f16";
  case GP_RT_ELEMENT_BF16:
    return "bf16";
  case GP_RT_ELEMENT_F64:
    return "f64";
  case GP_RT_ELEMENT_F8E4M3FN:
    return "f8E4M3FN";
  case GP_RT_ELEMENT_F8E5M2:
    return "f8E5M2";
  case GP_RT_ELEMENT_I1:
    return "i1";
  case GP_RT_ELEMENT_I8:
    return "i8";
  case GP_RT_ELEMENT_U8:
    return "ui8";
  case GP_RT_ELEMENT_I16:
    return "i16";
  case GP_RT_ELEMENT_I32:
    return "i32";
  case GP_RT_ELEMENT_I64:
    return "i64";
  case GP_RT_ELEMENT_INDEX:
    return "index";
  case GP_RT_ELEMENT_OTHER:
    return "other";
  case GP_RT_ELEMENT_FORCE_32_BIT:
    break;
  }
  return nullptr;
}

int64_t gp::rt::elementTypeBytes(const std::string &name) {
  if (name == "index")
    return 8;
  if (name == "bf16")
    return 2;
  if (name.rfind("f8", 0) == 0)
    return 1; // f8E4M3FN, f8E5M2, ...
  // Unsigned integers (the C API names GP_RT_ELEMENT_U8 "ui8") are as wide
  // as their signless twins.
  if (name.rfind("ui", 0) == 0)
    return elementTypeBytes(name.substr(1));
  if (name.size() < 2 || (name[0] != 'f' && name[0] != 'i'))
    return 0;
  for (size_t i = 1; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9')
      return 0;
  if (name.size() > 4)
    return 0; // No element type is 10000 bits wide.
  int64_t bits = std::strtoll(name.c_str() + 1, nullptr, 10);
  if (name[0] == 'i')
    return bits == 1 ? 1 : (bits % 8 == 0 ? bits / 8 : 0); // i1 is a byte.
  return bits % 8 == 0 ? bits / 8 : 0;
}

int64_t gp::rt::elementTypeBytes(gpRtElementType type) {
  const char *name = gpRtElementTypeName(type);
  return name ? elementTypeBytes(std::string(name)) : 0;
}

//===----------------------------------------------------------------------===//
// f16 and bf16 <-> f32
//===----------------------------------------------------------------------===//

namespace {

float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint32_t floatToBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

} // namespace

float gp::rt::halfToFloat(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu, mantissa = half & 0x3ffu;
  if (exponent == 0x1f) // Infinity or NaN (its payload kept).
    return bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0)
    return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in f32.
  float value = std::ldexp(static_cast<float>(mantissa), -24);
  return sign ? -value : value;
}

uint16_t gp::rt::floatToHalf(float value) {
  uint32_t bits = floatToBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: quiet, with the payload's top bits.
    return sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu);
  if (magnitude >= 0x477ff000u) // 65520 and up round to infinity.
    return sign | 0x7c00u;
  if (magnitude >= 0x38800000u) { // Normal in f16 (2^-14 and up).
    uint32_t result = (magnitude >> 13) - (112u << 10);
    uint32_t rest = magnitude & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u)))
      ++result;
    return sign | static_cast<uint16_t>(result);
  }
  if (magnitude <= 0x33000000u) // 2^-25 and below round to zero.
    return sign;
  // Subnormal in f16: in units of 2^-24.
  uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126u - (magnitude >> 23);
  uint32_t result = mantissa >> shift;
  uint32_t rest = mantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (result & 1u)))
    ++result;
  return sign | static_cast<uint16_t>(result);
}

float gp::rt::bf16ToFloat(uint16_t value) {
  return bitsToFloat(static_cast<uint32_t>(value) << 16);
}

uint16_t gp::rt::floatToBf16(float value) {
  uint32_t bits = floatToBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it a quiet NaN.
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}
