# numpy references for the tensor program
# test/Conversion/UpstreamToGP/Inputs/upstream_tensors.mlir after upstream
# bufferization: imported.cases.py's cases of its functions.
import os

exec(open(os.path.join(os.path.dirname(__file__), "imported.cases.py")).read())
CASES = [case for case in CASES
         if case.entry not in ("accumulate", "call_mm", "loops")]
