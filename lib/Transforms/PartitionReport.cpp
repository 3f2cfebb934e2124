//===- PartitionReport.cpp - gp-partition's report and picture ------------===//
//
// The text report and the Graphviz DOT picture of the partitions made in one
// function (see PartitionReport.h).
//
//===----------------------------------------------------------------------===//

#include "PartitionReport.h"

#include "mlir/IR/AsmState.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"

#include <string>

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::partitioning;

static std::string describeLoc(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    loc.print(os);
  return text;
}

static std::string describeOp(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (auto kernel = dyn_cast<KernelOp>(op))
    text += " \"" + kernel.getKernelName().str() + "\"";
  else if (auto fallback = dyn_cast<FallbackOp>(op))
    text += " \"" + fallback.getCallee().str() + "\"";
  return text;
}

static void printValues(llvm::raw_ostream &os, ValueRange values,
                        AsmState &state) {
  os << "(" << values.size() << ")";
  for (Value value : values) {
    os << " ";
    value.printAsOperand(os, state);
  }
}

void mlir::gp::partitioning::printReport(llvm::raw_ostream &os,
                                         FunctionOpInterface func,
                                         ArrayRef<PartitionSummary> summaries) {
  unsigned capturable = llvm::count_if(
      summaries, [](PartitionSummary s) { return s.op.isCapturable(); });
  os << "gp-partition: @" << func.getName() << ": Created " << summaries.size()
     << " partitions: " << capturable << " capturable, "
     << summaries.size() - capturable << " eager\n";
  AsmState state(func);
  for (const PartitionSummary &summary : summaries) {
    PartitionOp op = summary.op;
    os << "  partition " << op.getPartitionId() << ": "
       << stringifyPartitionKind(op.getKind());
    if (!op.getReasons().empty()) {
      os << " [";
      llvm::interleaveComma(op.getReasons().getAsValueRange<StringAttr>(), os);
      os << "]";
    }
    os << ", " << summary.numComputeOps << " compute ops\n    inputs ";
    printValues(os, op.getInputs(), state);
    os << "\n    outputs ";
    printValues(os, op.getResults(), state);
    os << "\n";
    for (auto [unsafe, reason] : summary.unsafeOps)
      os << "    unsafe: " << describeOp(unsafe) << " at "
         << describeLoc(unsafe->getLoc()) << ": " << reason << "\n";
  }
}

static std::string dotEscape(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

void mlir::gp::partitioning::writeProgramDot(
    llvm::raw_ostream &os, ArrayRef<std::string> functionPictures) {
  os << "digraph \"program\" {\n"
     << "  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (const std::string &picture : functionPictures)
    os << picture;
  os << "}\n";
}

void mlir::gp::partitioning::writeFunctionDot(
    llvm::raw_ostream &os, FunctionOpInterface func,
    ArrayRef<PartitionSummary> summaries, unsigned functionIndex) {
  std::string prefix = "f" + std::to_string(functionIndex) + "_";
  AsmState state(func);
  auto name = [&](Value value) {
    std::string text;
    llvm::raw_string_ostream ts(text);
    value.printAsOperand(ts, state);
    return text;
  };
  llvm::DenseMap<Operation *, unsigned> nodeOf;
  llvm::DenseMap<Value, Operation *> producerOf; // partition result -> op
  os << "  subgraph cluster_" << prefix << "function {\n"
     << "  style=rounded; color=gray40; label=\"@" << dotEscape(func.getName())
     << "\";\n";
  for (BlockArgument arg : func.getArguments())
    os << "  " << prefix << "arg" << arg.getArgNumber()
       << " [shape=ellipse, label=\"" << dotEscape(name(arg)) << "\"];\n";
  for (const PartitionSummary &summary : summaries) {
    PartitionOp partition = summary.op;
    bool capturable = partition.isCapturable();
    os << "  subgraph cluster_" << prefix << "p" << partition.getPartitionId()
       << " {\n"
       << "    style=filled; color=" << (capturable ? "palegreen" : "orange")
       << ";\n    label=\"partition " << partition.getPartitionId() << ": "
       << stringifyPartitionKind(partition.getKind());
    for (StringRef reason :
         partition.getReasons().getAsValueRange<StringAttr>())
      os << "\\n" << dotEscape(reason);
    os << "\";\n";
    for (Operation &op : partition.getBody().front().without_terminator()) {
      unsigned id = nodeOf.size();
      nodeOf[&op] = id;
      os << "    " << prefix << "n" << id << " [label=\""
         << dotEscape(describeOp(&op)) << "\"];\n";
    }
    os << "  }\n";
    // A result's producer is the last op inside that makes or writes the
    // yielded value; an input handed back unwritten keeps its outer producer.
    YieldOp yield = partition.getYield();
    Block &body = partition.getBody().front();
    for (auto [result, yielded] :
         llvm::zip(partition.getResults(), yield.getValues())) {
      Operation *last = nullptr;
      for (Operation &op : body.without_terminator()) {
        bool writes = llvm::is_contained(op.getResults(), yielded);
        if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
          writes |= effects.getEffectOnValue<MemoryEffects::Write>(yielded)
                        .has_value();
        if (writes)
          last = &op;
      }
      if (!last)
        if (auto arg = dyn_cast<BlockArgument>(yielded))
          last = producerOf.lookup(partition.getInputs()[arg.getArgNumber()]);
      if (last)
        producerOf[result] = last;
    }
  }
  // Edges: within a partition by SSA use, across partitions through the
  // partition's inputs.
  for (const PartitionSummary &summary : summaries) {
    PartitionOp partition = summary.op;
    Block &body = partition.getBody().front();
    for (Operation &op : body.without_terminator()) {
      for (Value operand : op.getOperands()) {
        std::string from;
        std::string label = name(operand);
        if (Operation *definer = operand.getDefiningOp()) {
          from = prefix + "n" + std::to_string(nodeOf[definer]);
        } else if (auto arg = dyn_cast<BlockArgument>(operand);
                   arg && arg.getOwner() == &body) {
          Value outer = partition.getInputs()[arg.getArgNumber()];
          label = name(outer);
          if (Operation *producer = producerOf.lookup(outer))
            from = prefix + "n" + std::to_string(nodeOf[producer]);
          else if (auto funcArg = dyn_cast<BlockArgument>(outer);
                   funcArg && funcArg.getOwner()->isEntryBlock() &&
                   funcArg.getOwner()->getParentOp() == func)
            from = prefix + "arg" + std::to_string(funcArg.getArgNumber());
        }
        if (from.empty() || !isa<BaseMemRefType>(operand.getType()))
          continue;
        os << "  " << from << " -> " << prefix << "n" << nodeOf[&op]
           << " [label=\"" << dotEscape(label) << "\"];\n";
      }
    }
  }
  os << "  }\n";
}
