//===- PartitionReport.h - gp-partition's report and picture ----*- C++ -*-===//
//
// The text report (`report=true`) and the Graphviz DOT picture (`dot-file`)
// of the partitions gp-partition made in one function. Private to
// lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_TRANSFORMS_PARTITIONREPORT_H
#define GRAPHPART_LIB_TRANSFORMS_PARTITIONREPORT_H

#include "BlockPartitioner.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::gp::partitioning {

/// One line per function, then one entry per partition: kind, reasons,
/// inputs, outputs and the unsafe ops that made it eager.
void printReport(llvm::raw_ostream &os, FunctionOpInterface func,
                 ArrayRef<PartitionSummary> summaries);

/// One function's picture, a cluster of the program's picture: its
/// partitions as clusters inside (green: capturable, orange: eager, with
/// reasons), their ops as nodes, and edges labelled by the value that flows.
/// Node names start with `f<functionIndex>_`, so the pictures of several
/// functions share one graph.
void writeFunctionDot(llvm::raw_ostream &os, FunctionOpInterface func,
                      ArrayRef<PartitionSummary> summaries,
                      unsigned functionIndex);

/// The whole picture: one graph holding `functionPictures` (from
/// writeFunctionDot), so `dot -Tsvg` renders every function.
void writeProgramDot(llvm::raw_ostream &os,
                     ArrayRef<std::string> functionPictures);

} // namespace mlir::gp::partitioning

#endif // GRAPHPART_LIB_TRANSFORMS_PARTITIONREPORT_H
