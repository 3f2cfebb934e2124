"""Compiled kernels against numpy.

    reference_check.py --compile 'CMD' --run GP_RUN --backend host|cuda
                       --work DIR [--run-arg ARG ...] PROGRAM.mlir CASES.py

Compiles PROGRAM (CMD IN -o OUT) and, for every case CASES.py lists, writes
the case's inputs as .npy files, computes the expected results with numpy
(independently of GraphPart) and runs the entry with gp-run --check (the
captured artifact against its eager run, on fresh values and at new
addresses too) and --expected-output (the results against numpy's, within
the case's tolerances). CASES.py defines

    CASES = [Case(entry, inputs, reference, rtol=..., atol=...), ...]

where `inputs` is a list of numpy arrays and `reference(*inputs)` returns
the list of expected results. Prints one line per case and exits non-zero
when any case fails.
"""
import argparse
import importlib.util
import os
import shlex
import subprocess
import sys

import numpy as np


class Case:
    def __init__(self, entry, inputs, reference, rtol=1e-5, atol=1e-6,
                 label=None):
        self.entry = entry
        self.inputs = inputs
        self.reference = reference
        self.rtol = rtol
        self.atol = atol
        self.label = label or entry


def load_cases(path):
    spec = importlib.util.spec_from_file_location("cases", path)
    module = importlib.util.module_from_spec(spec)
    module.Case = Case
    module.np = np
    sys.modules["cases"] = module
    spec.loader.exec_module(module)
    return module.CASES


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--backend", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--run-arg", action="append", default=[],
                        help="a further gp-run argument (repeat it)")
    parser.add_argument("program")
    parser.add_argument("cases")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.program))[0]
    artifact = os.path.join(args.work, stem + ".so")
    subprocess.run(shlex.split(args.compile) + [args.program, "-o", artifact],
                   check=True)
    failures = 0
    for number, case in enumerate(load_cases(args.cases)):
        command = [args.run, artifact, "--backend", args.backend,
                   "--entry", case.entry, "--check",
                   "--rtol", str(case.rtol), "--atol", str(case.atol)]
        command += args.run_arg
        for index, value in enumerate(case.inputs):
            path = os.path.join(args.work, f"case{number}.in{index}.npy")
            np.save(path, np.array(value, order="C"))
            command += ["--input", "@" + path]
        for index, value in enumerate(case.reference(*case.inputs)):
            path = os.path.join(args.work, f"case{number}.ref{index}.npy")
            np.save(path, np.array(value, order="C"))
            command += ["--expected-output", "@" + path]
        result = subprocess.run(command, capture_output=True, text=True)
        ok = (result.returncode == 0 and "check: ok" in result.stdout and
              "expected output: ok" in result.stdout)
        print(("ok " if ok else "FAILED ") + case.label)
        if not ok:
            failures += 1
            print("  " + " ".join(shlex.quote(word) for word in command))
            for line in (result.stdout + result.stderr).splitlines()[-12:]:
                print("  | " + line)
    print(f"reference check: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
