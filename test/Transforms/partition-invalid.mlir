// Misused options and inputs gp-partition cannot take: a message and a
// non-zero exit, never a crash.
// RUN: not gp-opt %s --gp-partition=unsafe-ops=mm 2>&1 | FileCheck %s --check-prefix=RULE
// RULE: error: gp-partition: unsafe-ops entry 'mm' is not 'namespace::op' or 'namespace::op.overload'
// RUN: not gp-opt %s --gp-partition=unsafe-ops=aten::mm. 2>&1 | FileCheck %s --check-prefix=OVERLOAD
// OVERLOAD: error: gp-partition: unsafe-ops entry 'aten::mm.' is not
// RUN: not gp-opt %s --gp-partition=min-partition-size=0 2>&1 | FileCheck %s --check-prefix=MIN
// MIN: error: gp-partition: min-partition-size must be at least 1
// RUN: not gp-opt %s --gp-partition=min-partition-size=-3 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: for the --min-partition-size option: '-3' value invalid for uint argument
// RUN: not gp-opt %s --gp-partition=dot-file=%t.missing/dir/x.dot 2>&1 | FileCheck %s --check-prefix=DOT
// DOT: error: gp-partition: cannot write dot-file '{{.*}}x.dot'
// RUN: not gp-opt %s --gp-partition=frobnicate=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: no such option frobnicate
// RUN: gp-opt %s --gp-partition -verify-diagnostics -o /dev/null

#cuda0 = #gp.device<cuda:0>

// A function that is already partitioned is rejected.
func.func @already(%x: memref<4xf32, #cuda0>) {
  // expected-error @+1 {{found in a function given to gp-partition: the function is already partitioned}}
  gp.partition 0 capturable {
    gp.yield
  }
  return
}
