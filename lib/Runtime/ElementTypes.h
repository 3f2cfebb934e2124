//===- ElementTypes.h - element sizes, names and conversions ----*- C++ -*-===//
//
// What the runtime knows of element types, in one place: how many bytes an
// element takes (by manifest name, or by gpRtElementType), and how 16-bit
// floats convert to and from f32 for the host backend, which computes in
// f32 whatever the storage type. Names, sizes and codes are the table's
// (ElementTypeTable.h).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_ELEMENTTYPES_H
#define GRAPHPART_LIB_RUNTIME_ELEMENTTYPES_H

#include "GraphPart/Runtime/ElementTypeTable.h"
#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace gp::rt {

/// Bytes of one element of a manifest element type ("f32", "bf16", "i1",
/// "index", "f8E4M3FN", ...; ElementTypeTable.h); 0 when unknown.
int64_t elementTypeBytes(const std::string &name);

/// Bytes of one element of `type`: its table entry's, the same entry its
/// name (gpRtElementTypeName) finds; 0 for GP_RT_ELEMENT_OTHER and values
/// outside the enum.
int64_t elementTypeBytes(gpRtElementType type);

// The f16 and bf16 conversions, exact and rounding to nearest even.
using gp::elements::bf16ToFloat;
using gp::elements::floatToBf16;
using gp::elements::floatToHalf;
using gp::elements::halfToFloat;

/// Loads and stores one element in memory as an f32 value: what the host
/// backend's loops are templated over, so that one loop serves every
/// storage type. Unaligned addresses are fine (memcpy).
struct F32Element {
  static float load(const char *p) {
    float value;
    std::memcpy(&value, p, sizeof value);
    return value;
  }
  static void store(char *p, float value) {
    std::memcpy(p, &value, sizeof value);
  }
};
/// A 16-bit float stored as its bits, converted on each load and store.
template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
struct HalfElement {
  static float load(const char *p) {
    uint16_t bits;
    std::memcpy(&bits, p, sizeof bits);
    return ToFloat(bits);
  }
  static void store(char *p, float value) {
    uint16_t bits = FromFloat(value);
    std::memcpy(p, &bits, sizeof bits);
  }
};
using F16Element = HalfElement<halfToFloat, floatToHalf>;
using BF16Element = HalfElement<bf16ToFloat, floatToBf16>;

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_ELEMENTTYPES_H
