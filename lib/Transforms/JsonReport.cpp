//===- JsonReport.cpp - machine-readable reports of the pipeline ----------===//

#include "JsonReport.h"

#include "GraphPart/Analysis/CaptureSafety.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gp;

/// `file:line:col` of the first file location in `loc`, or "".
static std::string locationText(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

static std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// The bytes of a statically shaped buffer type, or -1.
static int64_t staticBytes(MemRefType type) {
  if (!type.hasStaticShape())
    return -1;
  unsigned bits = type.getElementTypeBitWidth();
  return (type.getNumElements() * bits + 7) / 8;
}

static void writePartition(llvm::json::OStream &json, PartitionOp partition) {
  json.object([&] {
    json.attribute("id", static_cast<int64_t>(partition.getPartitionId()));
    json.attribute("kind", stringifyPartitionKind(partition.getKind()));
    json.attributeArray("reasons", [&] {
      for (Attribute reason : partition.getReasons())
        json.value(cast<StringAttr>(reason).getValue());
    });
    json.attribute("location", locationText(partition.getLoc()));
    ArrayRef<int64_t> writes = partition.getWrites(),
                      frees = partition.getFrees();
    json.attributeArray("inputs", [&] {
      int64_t index = 0;
      for (Value input : partition.getInputs()) {
        json.object([&] {
          json.attribute("type", typeText(input.getType()));
          json.attribute("written", llvm::is_contained(writes, index));
          json.attribute("freed", llvm::is_contained(frees, index));
        });
        ++index;
      }
    });
    json.attributeArray("results", [&] {
      for (Type type : partition.getResultTypes())
        json.value(typeText(type));
    });
    json.attributeArray("ops", [&] {
      for (Operation &op : partition.getBody().front()) {
        if (getOpRole(&op) != OpRole::Compute)
          continue;
        json.object([&] {
          json.attribute("op", op.getName().getStringRef());
          if (auto kernel = dyn_cast<KernelOp>(op))
            json.attribute("kernel", kernel.getKernelName());
          if (auto fallback = dyn_cast<FallbackOp>(op))
            json.attribute("callee", fallback.getCallee());
          json.attribute("location", locationText(op.getLoc()));
        });
      }
    });
  });
}

static void writeFunction(llvm::json::OStream &json,
                          FunctionOpInterface func) {
  json.object([&] {
    json.attribute("name", func.getName());
    json.attribute("location", locationText(func.getLoc()));
    json.attributeArray("arguments", [&] {
      for (Type type : func.getArgumentTypes())
        json.value(typeText(type));
    });
    json.attributeArray("results", [&] {
      for (Type type : func.getResultTypes())
        json.value(typeText(type));
    });
    SmallVector<PartitionOp> partitions;
    func.walk([&](PartitionOp partition) { partitions.push_back(partition); });
    json.attributeArray("partitions", [&] {
      for (PartitionOp partition : partitions)
        writePartition(json, partition);
    });
    auto partitionOf = [](Operation *op) -> int64_t {
      auto partition = op->getParentOfType<PartitionOp>();
      return partition ? static_cast<int64_t>(partition.getPartitionId()) : -1;
    };
    int64_t frees = 0;
    json.attributeArray("buffers", [&] {
      func.walk([&](Operation *op) {
        if (isa<BufferDeallocOp>(op))
          ++frees;
        auto alloc = dyn_cast<BufferAllocOp>(op);
        auto reuse = dyn_cast<BufferReuseOp>(op);
        if (!alloc && !reuse)
          return;
        MemRefType type = cast<MemRefType>(op->getResult(0).getType());
        json.object([&] {
          json.attribute("type", typeText(type));
          json.attribute("device", getDevice(type).str());
          json.attribute("bytes", staticBytes(type));
          json.attribute("partition", partitionOf(op));
          json.attribute("location", locationText(op->getLoc()));
          if (alloc) {
            std::optional<int64_t> offset = alloc.getOffset();
            json.attribute("offset",
                           offset ? llvm::json::Value(*offset)
                                  : llvm::json::Value(nullptr));
            json.attribute("reuses", nullptr);
          } else {
            json.attribute("offset", nullptr);
            json.attribute("reuses", typeText(reuse.getSource().getType()));
          }
        });
      });
    });
    json.attribute("frees", frees);
    // The entry's run-time sizes (gp-size-classes): members as
    // [index, dimension] pairs, and why padding is not safe, if it is not.
    json.attributeArray("sizes", [&] {
      auto classes = func->getAttrOfType<ArrayAttr>(
          GPDialect::getSizeClassesAttrName());
      if (!classes)
        return;
      for (auto sizeClass : classes.getAsRange<SizeClassAttr>())
        json.object([&] {
          json.attribute("name", sizeClass.getName().getValue());
          for (auto [key, pairs] :
               {std::pair{"arguments", sizeClass.getArguments().asArrayRef()},
                std::pair{"results", sizeClass.getResults().asArrayRef()}})
            json.attributeArray(key, [&] {
              for (size_t i = 0; i < pairs.size(); i += 2)
                json.array([&] {
                  json.value(pairs[i]);
                  json.value(pairs[i + 1]);
                });
            });
          json.attribute("fixed", sizeClass.getFixed() < 0
                                      ? llvm::json::Value(nullptr)
                                      : llvm::json::Value(sizeClass.getFixed()));
          json.attribute("maximum",
                         sizeClass.getMaximum() < 0
                             ? llvm::json::Value(nullptr)
                             : llvm::json::Value(sizeClass.getMaximum()));
          json.attribute("paddable", sizeClass.isPaddable());
          json.attribute("reason", sizeClass.isPaddable()
                                       ? llvm::json::Value(nullptr)
                                       : llvm::json::Value(
                                             sizeClass.getUnpaddable()
                                                 .getValue()));
        });
    });
    json.attributeArray("arenas", [&] {
      auto arenas = func->getAttrOfType<ArrayAttr>(
          GPDialect::getArenasAttrName());
      if (!arenas)
        return;
      for (Attribute attr : arenas) {
        auto arena = cast<ArenaAttr>(attr);
        json.object([&] {
          json.attribute("device", arena.getDevice().str());
          json.attribute("bytes", arena.getSize());
        });
      }
    });
  });
}

LogicalResult mlir::gp::writeJsonReport(Operation *root, StringRef pass,
                                        StringRef path) {
  std::error_code error;
  llvm::raw_fd_ostream file(path, error);
  if (error)
    return root->emitError() << pass << ": cannot write report-file '" << path
                             << "': " << error.message();
  llvm::json::OStream json(file, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("version", kJsonReportVersion);
    json.attribute("pass", pass);
    json.attributeArray("functions", [&] {
      root->walk([&](FunctionOpInterface func) {
        if (!func.isExternal())
          writeFunction(json, func);
      });
    });
  });
  file << "\n";
  return success();
}
