//===- GPOps.cpp - GraphPart operations -----------------------------------===//
//
// What the gp ops share: the public size helpers of GPOps.h, the verifier
// helpers of GPOpsUtils.h, FallbackOp's custom assembly directive, and the
// generated op definitions. The ops' own methods live by family in
// GPBufferOps.cpp, GPKernelOps.cpp, GPSymIntRngOps.cpp and GPPartitionOp.cpp.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GPOpsUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::detail;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::gp::getElementByteSize(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  if (auto complex = dyn_cast<ComplexType>(type))
    if (auto part = getElementByteSize(complex.getElementType()))
      return 2 * *part;
  return std::nullopt;
}

std::optional<int64_t> mlir::gp::getStaticByteSize(MemRefType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> elementSize =
      getElementByteSize(type.getElementType());
  if (!elementSize)
    return std::nullopt;
  // Checked: a shape whose bytes do not fit in 64 bits has no byte size
  // (the allocation verifier says so).
  int64_t bytes = *elementSize;
  for (int64_t dim : type.getShape())
    if (__builtin_mul_overflow(bytes, dim, &bytes))
      return std::nullopt;
  return bytes;
}

/// A valid C identifier: symint names and kernel names become symbols.
bool mlir::gp::detail::isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Checks that `source` has exactly one element of a type `result` can hold.
LogicalResult mlir::gp::detail::verifySingleElement(Operation *op,
                                                   MemRefType source,
                                                   Type result,
                                                   bool integersOnly) {
  if (!source.hasStaticShape() || source.getNumElements() != 1)
    return op->emitOpError() << "reads a single element, but " << source
                             << " does not have exactly one element";
  Type element = source.getElementType();
  if (integersOnly && !element.isSignlessInteger())
    return op->emitOpError() << "reads a size from a buffer of " << element
                             << "; sizes come from integer buffers";
  if (element != result && !(result.isIndex() && element.isSignlessInteger()))
    return op->emitOpError() << "reads " << element << " but returns "
                             << result;
  return success();
}

//===----------------------------------------------------------------------===//
// FallbackOp custom assembly: `aliases [-, 0, 1]`
//===----------------------------------------------------------------------===//

/// Parses `[-, 0, 1]`: `-` is a fresh result, an integer an aliased operand.
static ParseResult parseResultAliases(OpAsmParser &parser,
                                      DenseI64ArrayAttr &aliases) {
  SmallVector<int64_t> entries;
  auto parseEntry = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    int64_t operand;
    if (succeeded(parser.parseOptionalMinus())) {
      // `-` alone is a fresh result; `-N` is a mistake.
      if (parser.parseOptionalInteger(operand).has_value())
        return parser.emitError(loc, "aliased operand index must be "
                                     "non-negative; write '-' for a fresh "
                                     "result");
      entries.push_back(-1);
      return success();
    }
    if (parser.parseInteger(operand))
      return failure();
    entries.push_back(operand);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     parseEntry))
    return failure();
  aliases = DenseI64ArrayAttr::get(parser.getContext(), entries);
  return success();
}

static void printResultAliases(OpAsmPrinter &printer, FallbackOp,
                               DenseI64ArrayAttr aliases) {
  printer << '[';
  llvm::interleaveComma(aliases.asArrayRef(), printer, [&](int64_t entry) {
    if (entry < 0)
      printer << '-';
    else
      printer << entry;
  });
  printer << ']';
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "GraphPart/Dialect/GP/IR/GPOps.cpp.inc"
