"""Captured vs eager, over every example and end-to-end test program.

    differential.py --compile 'CMD' --run GP_RUN --externs LIB.so
                    --backend host|cuda --work DIR PROGRAM.mlir...

Compiles each program (CMD IN -o OUT), asks gp-run for its entries and
argument templates (--print-entries), and runs every entry of it in one
step (forward before backward, so RNG states pair up) with gp-run --check:
the captured artifact against an eager instance, on the given inputs, on
fresh random values in the same buffers and at new addresses. A program
with dynamic dimensions runs once more with the step made of two calls per
entry, at two other sizes (9, then 13), so keys change from call to call
within a step. Prints one line per run and exits non-zero when any run
fails or mismatches.
"""
import argparse
import os
import shlex
import subprocess
import sys


def entries_of(gp_run, artifact, backend):
    out = subprocess.run([gp_run, artifact, "--backend", backend, "--print-entries"],
                         capture_output=True, text=True, check=True).stdout
    entries = []
    for line in out.splitlines():
        words = line.split()
        if words[0] == "entry":
            entries.append((words[1], []))
        elif words[0] == "arg":
            dynamic = []
            for word in words[3:]:
                if word.startswith("dynamic-dims="):
                    dynamic = [int(d) for d in word.split("=", 1)[1].split(",")]
            entries[-1][1].append((words[1], dynamic))
    return entries


def sized(spec, dynamic, size):
    """The --input template with its dynamic dimensions set to `size`."""
    if not dynamic or "x" not in spec:
        return spec
    shape, rest = spec.rsplit("x", 1)
    dims = shape.split("x")
    for d in dynamic:
        dims[d] = str(size)
    return "x".join(dims) + "x" + rest


def run(gp_run, artifact, backend, externs, calls):
    command = [gp_run, artifact, "--backend", backend, "--extern-lib", externs,
               "--check", "--check-steps", "3", "--iterations", "3"]
    for name, specs in calls:
        command += ["--entry", name]
    for name, specs in calls:
        for spec in specs:
            command += ["--input", spec]
    result = subprocess.run(command, capture_output=True, text=True)
    ok = result.returncode == 0 and "check: ok" in result.stdout
    return ok, " ".join(shlex.quote(word) for word in command), result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--externs", required=True)
    parser.add_argument("--backend", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("programs", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failures = 0
    for program in sorted(args.programs):
        stem = os.path.splitext(os.path.basename(program))[0]
        artifact = os.path.join(args.work, stem + "." + args.backend + ".so")
        subprocess.run(shlex.split(args.compile) + [program, "-o", artifact],
                       check=True)
        entries = entries_of(args.run, artifact, args.backend)
        steps = [("given sizes", [(name, [spec for spec, _ in argspecs])
                                  for name, argspecs in entries])]
        if any(dynamic for _, argspecs in entries for _, dynamic in argspecs):
            calls = []
            for size in (9, 13):
                calls += [(name, [sized(spec, dynamic, size)
                                  for spec, dynamic in argspecs])
                          for name, argspecs in entries]
            steps.append(("sizes 9 then 13", calls))
        for what, calls in steps:
            ok, command, result = run(args.run, artifact, args.backend,
                                      args.externs, calls)
            print("%s %s (%s)" % ("ok" if ok else "FAILED", stem, what))
            if not ok:
                failures += 1
                print("  " + command)
                print("  " + (result.stdout + result.stderr).replace("\n", "\n  "))
    print("differential: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
