//===- ElementType.h - element types and host arrays ------------*- C++ -*-===//
//
// The element types gp-run can create, compare and store in .npy files, and
// Array, a host-side buffer of one of them. Part of GPRunSupport, which has
// no LLVM, MLIR or runtime dependency, so tests and other front ends (a
// Python package's C++ side) can reuse it.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPRUN_ELEMENTTYPE_H
#define GRAPHPART_TOOLS_GPRUN_ELEMENTTYPE_H

#include <cstdint>
#include <string>
#include <vector>

namespace gp::elements {
struct ElementInfo;
} // namespace gp::elements

namespace gp::run {

/// An element type, named as the runtime names it (gpRtValueInfo's
/// elementType), with its .npy descr: a view of its entry in the runtime's
/// table (GraphPart/Runtime/ElementTypeTable.h), declared only, so that
/// users of this header need no runtime headers.
struct ElementType {
  const char *name, *npy;
  int bytes;
  bool isFloat;
  const gp::elements::ElementInfo *info;
};

/// The element type the runtime calls `name`, or null: those of the table
/// with an .npy descr.
const ElementType *findElementType(const std::string &name);

/// The element type a .npy file of dtype `descr` holds, or null. Only the
/// descrs gp-run writes are known: little-endian or byte-sized. bf16, which
/// numpy lacks, is written and read as its raw bits ('<u2': gp has no u16
/// type to confuse it with); f8E4M3FN results are written as theirs ('|u1')
/// but '|u1' is not read back, since a uint8 array is not an f8 one.
const ElementType *findNpyElementType(const std::string &descr);

/// A host-side array: an argument's or a result's values, row-major.
struct Array {
  const ElementType *type = nullptr;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

/// Element `i` as a double, for comparing and printing: its value, but for
/// i1 and f8E4M3FN elements, whose bits come back.
double element(const Array &array, int64_t i);

/// Whether setElement can store `value` in an element of `type`: finite
/// values within its range (integers truncate; f8E4M3FN takes a raw byte,
/// 0 to 255; f32 and f64 also take infinities and NaN).
bool representable(const ElementType &type, double value);

/// Sets element `i` from a double, converting to the element type (f16
/// and bf16 round to nearest even). f8E4M3FN takes `value` as its raw
/// byte.
void setElement(Array &array, int64_t i, double value);

} // namespace gp::run

#endif // GRAPHPART_TOOLS_GPRUN_ELEMENTTYPE_H
