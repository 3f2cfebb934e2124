//===- PassUtils.h - helpers shared by GraphPart's passes -------*- C++ -*-===//

#ifndef GRAPHPART_LIB_TRANSFORMS_PASSUTILS_H
#define GRAPHPART_LIB_TRANSFORMS_PASSUTILS_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::gp {

/// The functions a pass scheduled on `root` works on: `root` itself if it is
/// one, else the outermost functions under it (not functions nested in
/// functions). Collected first so the pass can change them freely.
llvm::SmallVector<FunctionOpInterface> collectFunctions(Operation *root);

/// Writes a pass's report to stderr in one piece: functions may be processed
/// in parallel, and reports must not interleave.
void writeReport(llvm::StringRef text);

} // namespace mlir::gp

#endif // GRAPHPART_LIB_TRANSFORMS_PASSUTILS_H
