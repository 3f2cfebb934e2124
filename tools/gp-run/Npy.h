//===- Npy.h - read and write .npy files ------------------------*- C++ -*-===//
//
// NumPy's .npy format for Arrays: what gp-run reads `--input @file.npy`
// from and writes `--output` to. Part of GPRunSupport (no LLVM, MLIR or
// runtime dependency). Errors come back as messages, never as exceptions
// or exits, so a caller decides how to report them.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPRUN_NPY_H
#define GRAPHPART_TOOLS_GPRUN_NPY_H

#include "ElementType.h"

#include <iosfwd>
#include <string>

namespace gp::run {

/// Reads a .npy file into `array`. Accepts C-order arrays of the dtypes
/// findNpyElementType knows (so no big-endian ones), in format versions 1
/// to 3. On failure returns false and sets `error` to a message naming
/// `path`; `array` is then unspecified.
bool readNpy(const std::string &path, Array &array, std::string &error);

/// As above, from a stream; `path` only names it in messages.
bool readNpy(std::istream &in, const std::string &path, Array &array,
             std::string &error);

/// Writes `array` as a version 1.0 .npy file. On failure returns false and
/// sets `error`.
bool writeNpy(const std::string &path, const Array &array, std::string &error);

/// As above, to a stream.
void writeNpy(std::ostream &out, const Array &array);

} // namespace gp::run

#endif // GRAPHPART_TOOLS_GPRUN_NPY_H
