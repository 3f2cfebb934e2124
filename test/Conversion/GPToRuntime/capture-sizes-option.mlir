// The capture-sizes option holds the parsed list (Conversion/
// CaptureSizesOption.h over Runtime/CaptureSizes.h, the runtime's grammar).
// A malformed list is refused where the option is read, before the input is:
// the error names the option, the text and the entry, and no module follows.
// RUN: not gp-opt %s --convert-gp-to-runtime="capture-sizes=1,2x3" 2>&1 | FileCheck %s --check-prefix=SIZES
// SIZES: for the --capture-sizes option: '1,2x3': '2x3' has 2 sizes but the entries before it have 1: every entry must have the same number (1,2,4 or 2x3,4x5 or default)
// SIZES-NOT: scalar_argument
// RUN: not gp-opt %s --convert-gp-to-runtime="capture-sizes=4,-2" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: for the --capture-sizes option: '4,-2': '-2' is not a size or a size tuple like 2x3 (sizes are non-negative decimal integers below 10^18)
// RUN: not gp-opt %s --convert-gp-to-runtime="capture-sizes=2x3,default" 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: for the --capture-sizes option: '2x3,default': 'default' has 1 size but the entries before it have 2
// RUN: not gp-opt %s --convert-gp-to-runtime="capture-sizes=1,,2" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: for the --capture-sizes option: '1,,2': '' is not a size

// The pipeline's option is the same type: it fails where the pipeline is
// read, naming it.
// RUN: not gp-opt %s --pass-pipeline="builtin.module(gp-pipeline{target=host capture-sizes=4,x})" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: for the --capture-sizes option: '4,x': 'x' is not a size
// PIPELINE: failed to add `gp-pipeline` with options `target=host capture-sizes=4,x`
// PIPELINE-NOT: scalar_argument
// RUN: not gp-codegen %s --pipeline "builtin.module(gp-pipeline{target=host capture-sizes=2x})" --object-dir %t.objects 2>&1 | FileCheck %s --check-prefix=CODEGEN
// CODEGEN: for the --capture-sizes option: '2x': '2x' is not a size
// CODEGEN: failed to add `gp-pipeline` with options `target=host capture-sizes=2x`

// The pipeline hands the parsed list to the pass, which prints it key by key
// (`default` spelled out); empty is no list.
// RUN: not gp-opt %s --gp-pipeline="target=host capture-sizes=default,1024" --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=FROM-PIPELINE
// FROM-PIPELINE: convert-gp-to-runtime{capture-sizes=1,2,4,8,16,24,{{([0-9]+,)+}}496,512,1024 graph-cache-capacity=64
// RUN: not gp-opt %s --pass-pipeline="builtin.module(convert-gp-to-runtime)" --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=UNSET
// UNSET: convert-gp-to-runtime{capture-sizes= graph-cache-capacity=64

// A printed pipeline parses again to the same list: the reproducer of a
// failing run holds the printed pipeline, and running it prints the same.
// RUN: not gp-opt %s --pass-pipeline="builtin.module(convert-gp-to-runtime{capture-sizes=2x3,4x5 warmup-runs=2},convert-gp-to-runtime{capture-sizes=})" --mlir-pass-pipeline-crash-reproducer=%t.repro.mlir 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: argument 0 has type 'f32'
// RUN: FileCheck %s --check-prefix=REPRO < %t.repro.mlir
// REPRO: pipeline: "builtin.module(convert-gp-to-runtime{capture-sizes=2x3,4x5 graph-cache-capacity=64 or-error=false shape-warning-limit=8 target=host warmup-runs=2}, convert-gp-to-runtime{capture-sizes= graph-cache-capacity=64
// RUN: not gp-opt %t.repro.mlir --run-reproducer --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=AGAIN
// AGAIN: convert-gp-to-runtime{capture-sizes=2x3,4x5 graph-cache-capacity=64 or-error=false shape-warning-limit=8 target=host warmup-runs=2}
// AGAIN-NEXT: convert-gp-to-runtime{capture-sizes= graph-cache-capacity=64
// AGAIN: argument 0 has type 'f32'

func.func @scalar_argument(%x: f32) {
  return
}
