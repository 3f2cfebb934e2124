//===- ElementCodes.h - MLIR element types to runtime codes -----*- C++ -*-===//
//
// The gpRtElementType code the compiler passes for an MLIR type (to externs
// and to the built-in matmul), read from the runtime's element type table
// by the type's name: the table's names are MLIR's spellings, the ones the
// manifest prints, so a type's code and its manifest name cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_CONVERSION_ELEMENTCODES_H
#define GRAPHPART_CONVERSION_ELEMENTCODES_H

#include "GraphPart/Runtime/ElementTypeTable.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::gp {

/// The gpRtElementType of `type`, a buffer's elements or a scalar;
/// GP_RT_ELEMENT_OTHER for a type the table gives no code. Signed integers
/// take their signless width's code, as the extern ABI says.
inline gpRtElementType runtimeElementCode(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type); integer && integer.isSigned())
    type = IntegerType::get(type.getContext(), integer.getWidth());
  llvm::SmallString<16> name;
  llvm::raw_svector_ostream os(name);
  type.print(os);
  const ::gp::elements::ElementInfo *info =
      ::gp::elements::findElement(std::string_view(name.data(), name.size()));
  return info ? info->code : GP_RT_ELEMENT_OTHER;
}

} // namespace mlir::gp

#endif // GRAPHPART_CONVERSION_ELEMENTCODES_H
