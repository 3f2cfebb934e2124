//===- TestPasses.h - passes that print GraphPart analyses ------*- C++ -*-===//

#ifndef GRAPHPART_TEST_TESTPASSES_H
#define GRAPHPART_TEST_TESTPASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::gp::test {
#define GEN_PASS_DECL
#include "TestPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"
} // namespace mlir::gp::test

#endif // GRAPHPART_TEST_TESTPASSES_H
