"""Whole PyTorch programs per step on the GPU: PyTorch eager,
torch.compile(mode="reduce-overhead") and the GraphPart artifact through
graphpart.load, in one process on the same CUDA inputs. One step is one
call plus torch.cuda.synchronize(); the median of STEPS steps after
warm-up. Each artifact's result is first checked against eager (rtol 1e-4
f32, the half-precision rule of programs.half_close), so a fast wrong
answer does not count. TF32 is off on PyTorch's side (cuDNN convolutions
and matmuls), as GraphPart computes f32 in f32.

    bench/pytorch_models.py RUNTIME_LIBRARY WORK [NAME ...] [--steps N]
                            [--rounds R]

The three take turns R times (5), so that a slow spell of the machine
hits all of them: each time is the median over the rounds, each ratio the
median of the rounds' ratios, and the line gives GraphPart's spread.

WORK holds the artifacts test/Python/Inputs/load_cuda_check.py built
(manifest.json); names are programs.py's programs or
models.py's models. Prints one line per program and the ratios.
"""
import os
import statistics
import sys
import time

import torch

here = os.path.dirname(os.path.abspath(__file__))
inputs_dir = os.path.join(here, "..", "test", "Python", "Inputs")
sys.path.insert(0, os.path.join(here, "..", "python"))
sys.path.insert(0, inputs_dir)
import graphpart  # noqa: E402
import programs  # noqa: E402


def true_f32():
    """PyTorch computes f32 convolutions and matmuls in f32, not TF32
    (cuDNN's default), like the artifacts."""
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False


def per_step(fn, args, steps):
    for _ in range(10):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        fn(*args)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main():
    true_f32()
    import json
    args = sys.argv[1:]
    steps, rounds = 200, 5
    for flag in ("--steps", "--rounds"):
        if flag in args:
            at = args.index(flag)
            value = int(args[at + 1])
            del args[at:at + 2]
            if flag == "--steps":
                steps = value
            else:
                rounds = value
    runtime, work, wanted = args[0], args[1], args[2:]
    with open(os.path.join(work, "manifest.json")) as f:
        manifest = json.load(f)
    table = programs.programs()
    failures = 0
    for variant, entry in sorted(manifest.items()):
        name = entry["graph"]
        if (wanted and variant not in wanted) or name in programs.RANDOM:
            continue
        if name not in table:
            import models
            table[name] = models.MODELS[name]()
        fn, examples = table[name][0], table[name][1]
        if isinstance(fn, torch.nn.Module):
            fn = fn.to("cuda")
        values = [e.to("cuda") for e in examples]
        artifact = graphpart.load(
            os.path.join(work, variant + ".so"), backend="cuda",
            weights=os.path.join(work, variant + ".weights"),
            runtime_library=runtime, mutated_inputs=entry["mutated_inputs"])
        if entry["mutated_inputs"]:
            continue  # in-place programs: timed calls would compound
        with torch.no_grad():
            want = fn(*[v.clone() for v in values])
            got = artifact(*values)
            exact = programs.exact_outputs(fn, values)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        ok = len(got) == len(want) and all(
            programs.half_close(g, w, e) if w.dtype in (
                torch.float16, torch.bfloat16) else
            torch.equal(g, w) if not w.is_floating_point() else
            torch.allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True)
            for g, w, e in zip(got, want, exact))
        if not ok:
            failures += 1
            print("FAILED %s: the artifact's result differs from eager"
                  % variant)
            continue
        # The three take turns, `rounds` times, so that a slow spell of
        # the machine hits all of them; each figure is the median over the
        # rounds, each ratio the median of the rounds' ratios.
        samples = {"eager": [], "reduce-overhead": [], "graphpart": []}
        with torch.no_grad():
            compiled = torch.compile(fn, mode="reduce-overhead")
            for _ in range(rounds):
                samples["eager"].append(per_step(fn, values, steps))
                samples["reduce-overhead"].append(
                    per_step(compiled, values, steps))
                samples["graphpart"].append(per_step(artifact, values, steps))
        median = {k: statistics.median(v) for k, v in samples.items()}
        ratio = {k: statistics.median(
            ours / theirs for ours, theirs in zip(samples["graphpart"], v))
            for k, v in samples.items()}
        spread = max(samples["graphpart"]) / min(samples["graphpart"])
        print("%-16s graphpart %8.1f us  eager %8.1f us  reduce-overhead "
              "%8.1f us  graphpart/eager %.2fx  graphpart/reduce-overhead "
              "%.2fx  (%d rounds, graphpart max/min %.2f)"
              % (variant, median["graphpart"], median["eager"],
                 median["reduce-overhead"], ratio["eager"],
                 ratio["reduce-overhead"], rounds, spread))
        sys.stdout.flush()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
