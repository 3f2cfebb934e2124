//===- JsonReport.h - machine-readable reports of the pipeline --*- C++ -*-===//
//
// The `report-file=FILE.json` of gp-partition, gp-plan-memory and
// gp-pipeline, read off the IR they leave. Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_TRANSFORMS_JSONREPORT_H
#define GRAPHPART_LIB_TRANSFORMS_JSONREPORT_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::gp {

/// The version of the report's layout (docs/Reports.md); it changes when a
/// field changes meaning or goes away.
constexpr int kJsonReportVersion = 1;

/// Writes every function under `root` to `path` as JSON: its partitions
/// (kind, reasons, location, inputs with whether they are written and
/// freed, result types, compute ops with their locations), its planned
/// buffers (offset, bytes, partition), reuses, frees and arenas. `pass`
/// names the writer. Fails, with an error on `root`, when the file cannot
/// be written.
LogicalResult writeJsonReport(Operation *root, StringRef pass, StringRef path);

} // namespace mlir::gp

#endif // GRAPHPART_LIB_TRANSFORMS_JSONREPORT_H
