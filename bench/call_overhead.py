"""Per-call host overhead of graphpart.load as the number of bound
parameters grows: a program y = x + p0 + p1 + ... + p{N-1} over N small
parameters, for N = 2 and N = 200, on the same backend in one process.

    call_overhead.py make OUT_DIR [--width W]     (no torch: graphs to convert)
    call_overhead.py run RUNTIME_LIBRARY WORK_DIR [--backend cuda|host]
                         [--calls N] [--rounds R] [--width W]

`make` writes OUT_DIR/params_N/graph.json for each N; convert and compile
them with gp-compile (bench/gpu_e2e.sh does it) to WORK_DIR/params_N.so.
`run` binds the parameters once (fresh tensors, not from files), then times
CALLS calls back to back (one synchronize at the end: what the host spends
per call while the device keeps up with one small graph replay) and reports
the median over rounds, per N, and the ratio N=200 / N=2. The target (issue
38): at most 1.1x.

`--width W` (default 64; give `run` the one given `make`) is the length of
x and of each parameter: with 1 the kernel's own work is small next to the
call path, which bench/param_call_overhead.cpp times without Python.
"""
import json
import os
import statistics
import sys
import time

COUNTS = (2, 200)
WIDTH = 64


def make(out, width=WIDTH):
    for count in COUNTS:
        nodes, last = [], "x"
        for i in range(count):
            name = "add%d" % i
            nodes.append({"name": name, "op": "aten::add",
                          "overload": "Tensor",
                          "args": [{"node": last}, {"node": "p%d" % i}],
                          "kwargs": {},
                          "outputs": [{"shape": [width], "dtype": "float32"}]})
            last = name
        graph = {"format": "graphpart-graph", "version": 1,
                 "name": "params_%d" % count,
                 "producer": "bench/call_overhead.py",
                 "inputs": [{"name": "x", "shape": [width],
                             "dtype": "float32", "device": "cuda:0"}],
                 "parameters": [{"name": "p%d" % i, "fqn": "layer%d.p" % i,
                                 "shape": [width], "dtype": "float32"}
                                for i in range(count)],
                 "nodes": nodes, "outputs": [{"node": last}]}
        directory = os.path.join(out, "params_%d" % count)
        os.makedirs(os.path.join(directory, "constants"), exist_ok=True)
        with open(os.path.join(directory, "graph.json"), "w") as f:
            json.dump(graph, f)


def run(runtime, work, backend, calls, rounds, width):
    import torch
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "python"))
    import graphpart
    device = "cuda" if backend == "cuda" else "cpu"
    loaded = {}
    for count in COUNTS:
        state = {"layer%d.p" % i: torch.randn(width, device=device)
                 for i in range(count)}
        artifact = graphpart.load(os.path.join(work, "params_%d.so" % count),
                                  backend=backend, parameters=state,
                                  runtime_library=runtime)
        x = torch.randn(width, device=device)
        want = x + sum(state.values())
        got = artifact(x)
        if not torch.allclose(got, want, rtol=1e-4, atol=1e-4):
            print("FAILED params_%d: the result differs" % count)
            return 1
        loaded[count] = (artifact, x)
    print("native call path: %s%s" % (
        loaded[COUNTS[0]][0].native,
        "" if loaded[COUNTS[0]][0].native else
        " (%s)" % graphpart.runtime.native_error()))
    sync = torch.cuda.synchronize if backend == "cuda" else (lambda: None)
    samples = {count: [] for count in COUNTS}
    for _ in range(rounds):
        for count, (artifact, x) in loaded.items():
            for _ in range(50):
                artifact(x)
            sync()
            start = time.perf_counter()
            for _ in range(calls):
                artifact(x)
            sync()
            samples[count].append((time.perf_counter() - start) / calls * 1e6)
    ratios = [b / a for a, b in zip(samples[COUNTS[0]],
                                    samples[COUNTS[-1]])]
    for count in COUNTS:
        print("%3d parameters: %7.2f us per call (median of %d rounds of %d "
              "calls; min %.2f, max %.2f)" % (
                  count, statistics.median(samples[count]), rounds, calls,
                  min(samples[count]), max(samples[count])))
    print("per-call overhead, %d parameters / %d: %.3fx (median of the "
          "rounds' ratios)" % (COUNTS[-1], COUNTS[0],
                               statistics.median(ratios)))
    return 0


def main():
    args = sys.argv[1:]
    if args[:1] == ["make"] and len(args) == 2:
        make(args[1])
        return 0
    if args[:1] == ["make"] and len(args) == 4 and args[2] == "--width":
        make(args[1], int(args[3]))
        return 0
    if args[:1] != ["run"] or len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    options = {"--backend": "cuda", "--calls": "2000", "--rounds": "5",
               "--width": str(WIDTH)}
    rest = args[3:]
    while rest:
        if rest[0] not in options or len(rest) < 2:
            print("unknown option %s" % rest[0], file=sys.stderr)
            return 2
        options[rest[0]] = rest[1]
        rest = rest[2:]
    return run(args[1], args[2], options["--backend"],
               int(options["--calls"]), int(options["--rounds"]),
               int(options["--width"]))


if __name__ == "__main__":
    sys.exit(main())
