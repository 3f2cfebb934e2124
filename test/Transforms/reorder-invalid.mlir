// Misused gp-reorder options: a message and a non-zero exit.
// RUN: not gp-opt %s --gp-reorder=strategy=fastest 2>&1 | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: error: gp-reorder: unknown strategy 'fastest': expected 'min-partitions' or 'simple'
// RUN: not gp-opt %s --gp-reorder=memory-budget=0.5 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: error: gp-reorder: memory-budget must be at least 1.0, got 0.5
// RUN: not gp-opt %s --gp-reorder=unsafe-ops=mm 2>&1 | FileCheck %s --check-prefix=RULE
// RULE: error: gp-reorder: unsafe-ops entry 'mm' is not 'namespace::op' or 'namespace::op.overload'
func.func @f() {
  return
}
