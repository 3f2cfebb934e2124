//===- TMTensorRefusal.cpp - refuse torch-mlir's tm_tensor ops ------------===//
//
// A stand-in for torch-mlir's TMTensor dialect that defines no ops. Its
// parse hook answers every `tm_tensor.*` op in custom form (as torch-mlir
// prints them) with an error at the op's name; an op in generic form parses
// as an unregistered op, which the verifier refuses, and the dialect adds a
// note saying why to that error.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/TMTensorRefusal.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/OperationSupport.h"

using namespace mlir;

/// What to do instead, after "lower it" or "lower its ops".
static constexpr StringLiteral kAdvice =
    " to linalg, or to scf loops on buffers, first (torch-mlir's "
    "tm-tensor-to-loops pass does the latter)";

namespace {
class TMTensorRefusalDialect : public Dialect {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TMTensorRefusalDialect)

  explicit TMTensorRefusalDialect(MLIRContext *context)
      : Dialect(getDialectNamespace(), context,
                TypeID::get<TMTensorRefusalDialect>()) {
    // The verifier's "unregistered operation 'tm_tensor.x' found in dialect
    // ('tm_tensor') ..." for an op in generic form: say what tm_tensor is.
    context->getDiagEngine().registerHandler([](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      std::string message = diag.str();
      if (StringRef(message).starts_with("unregistered operation 'tm_tensor."))
        diag.attachNote() << "tm_tensor is torch-mlir's TMTensor dialect, "
                             "which GraphPart does not support: lower its ops"
                          << kAdvice;
      // Reported by the handlers registered before this one.
      return failure();
    });
  }

  static StringRef getDialectNamespace() { return "tm_tensor"; }

  std::optional<ParseOpHook>
  getParseOperationHook(StringRef opName) const override {
    return ParseOpHook(refuse);
  }

private:
  /// The parser puts "custom op '<name>'" before the message.
  static ParseResult refuse(OpAsmParser &parser, OperationState &) {
    return parser.emitError(parser.getNameLoc())
           << "is an op of torch-mlir's TMTensor dialect, which GraphPart "
              "does not support: lower it"
           << kAdvice;
  }
};
} // namespace

void mlir::gp::registerTMTensorRefusal(DialectRegistry &registry) {
  registry.insert<TMTensorRefusalDialect>();
}
