"""Converts saved PyTorch graphs with graphpart (no torch), compiles them
with gp-compile --bufferize and runs them with gp-run --check against the
outputs PyTorch saved next to them (DIR/<name>.expected.<i>.npy, inputs
DIR/<name>.input.<i>.npy). Prints "ok NAME" or "FAILED NAME: why" per graph
and exits 1 when any failed.

    check_graphs.py DIR WORK NAME... --gp-compile PATH --gp-run PATH
                    [--gp-run-arg ARG]...
"""
import argparse
import glob
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
package = os.path.join(here, "..", "..", "..", "python")

parser = argparse.ArgumentParser()
parser.add_argument("graphs")
parser.add_argument("work")
parser.add_argument("names", nargs="+")
parser.add_argument("--gp-compile", default="gp-compile")
parser.add_argument("--gp-run", default="gp-run")
parser.add_argument("--gp-run-arg", action="append", default=[])
parser.add_argument("--tolerance", action="append", default=[],
                    help="NAME=RTOL,ATOL (default 1e-4,1e-5)")
args = parser.parse_args()
os.makedirs(args.work, exist_ok=True)
tolerances = {}
for item in args.tolerance:
    name, values = item.split("=")
    tolerances[name] = values.split(",")



def _position(path):
    """N of NAME.input.N.npy / NAME.expected.N.npy: files in argument and
    result order (a text sort puts 10 before 2)."""
    return int(path.rsplit(".", 2)[-2])

def run(command):
    done = subprocess.run(command, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=package))
    return done.returncode, done.stdout + done.stderr


failed = 0
for name in args.names:
    source = os.path.join(args.graphs, name)
    mlir = os.path.join(args.work, name + ".mlir")
    artifact = os.path.join(args.work, name + ".so")
    steps = [
        [sys.executable, "-m", "graphpart", "convert", source, "-o", mlir],
        [args.gp_compile, mlir, "--bufferize", "-o", artifact],
    ]
    rtol, atol = tolerances.get(name, ("1e-4", "1e-5"))
    # The graph's large constants are the program's parameters, bound by
    # name from the graph's own files.
    run_command = [args.gp_run, artifact, "--check", "--rtol", rtol,
                   "--atol", atol] + args.gp_run_arg
    for kind in ("constants", "parameters"):
        if os.path.isdir(os.path.join(source, kind)):
            run_command += ["--parameters", os.path.join(source, kind)]
    for path in sorted(glob.glob(os.path.join(args.graphs,
                                              name + ".input.*.npy")),
                       key=_position):
        run_command += ["--input", "@" + path]
    for path in sorted(glob.glob(os.path.join(args.graphs,
                                              name + ".expected.*.npy")),
                       key=_position):
        run_command += ["--expected-output", "@" + path]
    steps.append(run_command)
    for step in steps:
        status, output = run(step)
        if status != 0:
            print("FAILED %s: %s exited %d:\n%s" % (name, os.path.basename(step[0])
                  if step[0] != sys.executable else "graphpart convert",
                  status, output))
            failed += 1
            break
    else:
        expected = glob.glob(os.path.join(args.graphs,
                                          name + ".expected.*.npy"))
        if "check: ok" not in output or (
                expected and "expected output: ok" not in output):
            print("FAILED %s: gp-run did not report both checks:\n%s"
                  % (name, output))
            failed += 1
        else:
            print("ok %s" % name)
print("graphs: %d failure(s)" % failed)
sys.exit(1 if failed else 0)
