//===- ElementTypeTable.h - the one table of element types ------*- C++ -*-===//
//
// Every element type an artifact's manifest can name, with its size, its
// kind, its gpRtElementType code, the names .npy and .safetensors files give
// it, and the exact f16 and bf16 conversions to and from f32. The runtime
// (gpRtElementTypeName, sizes, results, the host backend's loops), the
// compiler (the codes it passes to externs) and gp-run (arrays, .npy and
// .safetensors files) all read this table, so a new element type is added
// here once. Header-only, needing only the C API's headers: gp-run's support
// library links no runtime.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_RUNTIME_ELEMENTTYPETABLE_H
#define GRAPHPART_RUNTIME_ELEMENTTYPETABLE_H

#include "GraphPart/Runtime/GPRuntimeExtern.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gp::elements {

enum class Kind { Float, SignedInt, UnsignedInt, Bool, Float8, Index };

struct ElementInfo {
  /// The manifest's name: MLIR's spelling of the type.
  const char *name;
  int bytes;
  Kind kind;
  /// The extern ABI's code; GP_RT_ELEMENT_OTHER for a type without one.
  gpRtElementType code;
  /// The .npy descr gp-run reads and writes; null for a type gp-run does
  /// not take.
  const char *npy;
  /// The .safetensors dtype gp-run reads parameters of; null for none.
  const char *safetensors;
};

/// f8 types are one byte of bits; `index` is 64-bit, as the lowering makes
/// it; i1 takes a byte. numpy has no bf16, so gp-run stores its raw bits
/// ('<u2': gp has no u16 type to confuse it with), and f8E4M3FN's likewise
/// ('|u1').
inline constexpr ElementInfo kElementTable[] = {
    // name, bytes, kind, code, npy, safetensors
    {"f32", 4, Kind::Float, GP_RT_ELEMENT_F32, "<f4", "F32"},
    {"f64", 8, Kind::Float, GP_RT_ELEMENT_F64, "<f8", "F64"},
    {"f16", 2, Kind::Float, GP_RT_ELEMENT_F16, "<f2", "F16"},
    {"bf16", 2, Kind::Float, GP_RT_ELEMENT_BF16, "<u2", "BF16"},
    {"i64", 8, Kind::SignedInt, GP_RT_ELEMENT_I64, "<i8", "I64"},
    {"i32", 4, Kind::SignedInt, GP_RT_ELEMENT_I32, "<i4", "I32"},
    {"i16", 2, Kind::SignedInt, GP_RT_ELEMENT_I16, "<i2", "I16"},
    {"i8", 1, Kind::SignedInt, GP_RT_ELEMENT_I8, "|i1", "I8"},
    {"i1", 1, Kind::Bool, GP_RT_ELEMENT_I1, "|b1", "BOOL"},
    {"ui8", 1, Kind::UnsignedInt, GP_RT_ELEMENT_U8, nullptr, "U8"},
    {"ui16", 2, Kind::UnsignedInt, GP_RT_ELEMENT_OTHER, nullptr, nullptr},
    {"ui32", 4, Kind::UnsignedInt, GP_RT_ELEMENT_OTHER, nullptr, nullptr},
    {"ui64", 8, Kind::UnsignedInt, GP_RT_ELEMENT_OTHER, nullptr, nullptr},
    {"f8E4M3FN", 1, Kind::Float8, GP_RT_ELEMENT_F8E4M3FN, "|u1", nullptr},
    {"f8E5M2", 1, Kind::Float8, GP_RT_ELEMENT_F8E5M2, nullptr, nullptr},
    {"index", 8, Kind::Index, GP_RT_ELEMENT_INDEX, nullptr, nullptr},
};

namespace detail {
/// Whether every gpRtElementType but OTHER names exactly one entry, so
/// that the code -> entry lookup below is total over the enum.
constexpr bool codesNameOneEntryEach() {
  for (int code = GP_RT_ELEMENT_F32; code <= GP_RT_ELEMENT_INDEX; ++code) {
    int entries = 0;
    for (const ElementInfo &info : kElementTable)
      entries += info.code == code;
    if (entries != 1)
      return false;
  }
  return true;
}
} // namespace detail
static_assert(detail::codesNameOneEntryEach(),
              "each gpRtElementType but OTHER needs one table entry");

/// The entry named `name`, or null.
inline const ElementInfo *findElement(std::string_view name) {
  for (const ElementInfo &info : kElementTable)
    if (name == info.name)
      return &info;
  return nullptr;
}

/// The entry of code `code`, or null (for GP_RT_ELEMENT_OTHER too, which
/// stands for several types).
inline const ElementInfo *findElement(gpRtElementType code) {
  if (code == GP_RT_ELEMENT_OTHER)
    return nullptr;
  for (const ElementInfo &info : kElementTable)
    if (info.code == code)
      return &info;
  return nullptr;
}

/// Bytes of one element named `name`; 0 when the table has no such type.
inline int64_t elementBytes(std::string_view name) {
  const ElementInfo *info = findElement(name);
  return info ? info->bytes : 0;
}

namespace detail {
inline float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
inline uint32_t floatToBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
} // namespace detail

/// IEEE half precision to f32, exactly (NaN payloads kept).
inline float halfToFloat(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu, mantissa = half & 0x3ffu;
  if (exponent == 0x1f) // Infinity or NaN (its payload kept).
    return detail::bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0)
    return detail::bitsToFloat(sign | ((exponent + 112) << 23) |
                               (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in f32.
  float value = std::ldexp(static_cast<float>(mantissa), -24);
  return sign ? -value : value;
}

/// The nearest f16, ties to even; overflow gives infinity.
inline uint16_t floatToHalf(float value) {
  uint32_t bits = detail::floatToBits(value);
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

/// bfloat16 to f32, exactly.
inline float bf16ToFloat(uint16_t value) {
  return detail::bitsToFloat(static_cast<uint32_t>(value) << 16);
}

/// The nearest bf16, ties to even; NaN stays a quiet NaN.
inline uint16_t floatToBf16(float value) {
  uint32_t bits = detail::floatToBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

} // namespace gp::elements

#endif // GRAPHPART_RUNTIME_ELEMENTTYPETABLE_H
