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
  // OTHER is a code but no type of the table: several types share it.
  if (type == GP_RT_ELEMENT_OTHER)
    return "other";
  const gp::elements::ElementInfo *info = gp::elements::findElement(type);
  return info ? info->name : nullptr;
}

int64_t gp::rt::elementTypeBytes(const std::string &name) {
  return gp::elements::elementBytes(name);
}

int64_t gp::rt::elementTypeBytes(gpRtElementType type) {
  const gp::elements::ElementInfo *info = gp::elements::findElement(type);
  return info ? info->bytes : 0;
}
