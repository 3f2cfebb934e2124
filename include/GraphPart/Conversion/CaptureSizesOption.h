//===- CaptureSizesOption.h - capture sizes as an option type ---*- C++ -*-===//
//
// The llvm::cl parser that lets a pass or pipeline option hold a parsed
// ::gp::CaptureSizes: convert-gp-to-runtime's `capture-sizes` and
// gp-pipeline's. It reads and prints with Runtime/CaptureSizes.h, the one
// grammar the manifest and the runtime use too; that header stays free of
// LLVM, so the adapter lives on the compiler's side.
//
// A malformed list is refused where the option is read, before any input is
// parsed, naming the option, the text and the entry. A pipeline printed with
// the option (--dump-pass-pipeline, crash reproducers) parses again to the
// same list.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_CONVERSION_CAPTURESIZESOPTION_H
#define GRAPHPART_CONVERSION_CAPTURESIZESOPTION_H

#include "GraphPart/Runtime/CaptureSizes.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace llvm::cl {

template <>
class parser<::gp::CaptureSizes> : public basic_parser<::gp::CaptureSizes> {
public:
  parser(Option &option) : basic_parser(option) {}

  /// Empty text is no list (every key captured): the option's default, and
  /// how a printed pipeline writes it.
  bool parse(Option &option, StringRef argName, StringRef arg,
             ::gp::CaptureSizes &value) {
    if (arg.empty()) {
      value = ::gp::CaptureSizes();
      return false;
    }
    std::string problem = ::gp::parseCaptureSizes(arg, value);
    if (problem.empty())
      return false;
    return option.error("'" + arg + "': " + problem +
                            " (1,2,4 or 2x3,4x5 or default)",
                        argName);
  }

  StringRef getValueName() const override { return "sizes"; }

  /// Every key spelled out (`default` expanded), as the manifest has it.
  static void print(raw_ostream &os, const ::gp::CaptureSizes &value) {
    os << ::gp::formatCaptureSizes(value);
  }

  /// What --print-options shows. The option value of a class type carries no
  /// default to compare with, so none is shown.
  void printOptionDiff(const Option &option, const ::gp::CaptureSizes &value,
                       const OptionValue<::gp::CaptureSizes> &,
                       size_t globalWidth) const {
    printOptionName(option, globalWidth);
    outs() << "= " << ::gp::formatCaptureSizes(value) << '\n';
  }
};

} // namespace llvm::cl

#endif // GRAPHPART_CONVERSION_CAPTURESIZESOPTION_H
