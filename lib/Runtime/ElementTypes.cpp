//===- ElementTypes.cpp - element sizes, names and conversions ------------===//
//
// The C API's element type names (gpRtElementTypeName) and sizes in bytes
// (what results, parameters, padding and the matmul externs compute
// addresses with), from the one table in ElementTypeTable.h.
//
//===----------------------------------------------------------------------===//

#include "ElementTypes.h"

#include "RuntimeInternal.h"

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
  return gp::elements::elementBytes(name);
}

int64_t gp::rt::elementTypeBytes(gpRtElementType type) {
  const char *name = gpRtElementTypeName(type);
  return name ? elementTypeBytes(std::string(name)) : 0;
}
