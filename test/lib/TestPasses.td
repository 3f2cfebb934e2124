//===- TestPasses.td - passes that print GraphPart analyses -*- tablegen -*-===//

#ifndef GRAPHPART_TEST_TESTPASSES_TD
#define GRAPHPART_TEST_TESTPASSES_TD

include "mlir/Pass/PassBase.td"

def TestGPAliasPass : Pass<"test-gp-alias"> {
  let summary = "Print BufferAliasAnalysis storage classes as remarks";
  let description = [{
    For every function argument and op result that is a memref, emits a
    remark naming its storage class (`class N`, numbered per function in order
    of first appearance) and whether it owns storage (`root`) or views it.
  }];
}

def TestGPCaptureSafetyPass : Pass<"test-gp-capture-safety"> {
  let summary = "Print CaptureSafetyAnalysis results as remarks";
  let description = [{
    Emits a remark on every op of every function body: its role and, for
    compute ops, `capture-safe` or the reason it cannot be captured.
  }];
  let options = [
    ListOption<"unsafeOps", "unsafe-ops", "std::string",
               "Fallback ops to treat as unsafe">,
    Option<"skipDynamicGraphs", "skip-dynamic-graphs", "bool", "false",
           "Treat ops with symbolic sizes as unsafe">,
  ];
}

#endif // GRAPHPART_TEST_TESTPASSES_TD
