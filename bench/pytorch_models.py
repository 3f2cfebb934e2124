"""Whole PyTorch programs per step on the GPU: PyTorch eager,
torch.compile(mode="reduce-overhead") and the GraphPart artifact through
graphpart.load, in one process on the same CUDA inputs. One step is one
call plus torch.cuda.synchronize(); the median of STEPS steps after
warm-up. Each artifact's result is first checked against eager, so a fast
wrong answer does not count. TF32 is off on PyTorch's side (cuDNN
convolutions and matmuls), as GraphPart computes f32 in f32.

Full-size models (bench/full_models.py: ResNet-18 224, GPT-2 124M at 64 and
512 tokens, a BERT-base encoder, a Llama-style decoder; f32 and bf16), in
three steps across the two machines:

    pytorch_models.py capture OUT [NAME ...]            GPU machine
    pytorch_models.py build OUT WORK [--gp-compile P] [--no-fuse-attention]
                      [--pipeline-options 'elements-per-thread=4 ...']
                                                        development machine
    pytorch_models.py run RUNTIME WORK [NAME ...] [--steps N] [--rounds R]
    pytorch_models.py memory RUNTIME WORK NAME graphpart|reduce-overhead
    pytorch_models.py profile RUNTIME WORK [NAME ...] [--steps N]

`capture` saves each model's graph without its weights (graph.json only:
the parameters are bound from the live module at load) and the capture
time; `build` converts and compiles each for cuda, timing both and
recording the MLIR's size (WORK/models.json); `run` builds each model
afresh with random weights, loads the artifact bound to the module's own
parameters (no copy), checks it against eager, and times the three,
taking turns R times (5): each time is the median over the rounds, each
ratio the median of the rounds' ratios, with GraphPart's spread, and
torch.compile's first call. `memory` (one process per measurement) reports
the device memory a warmed-up runner holds beyond the module's own
parameters (torch.cuda.mem_get_info before and after). `profile` records
STEPS warmed-up steps of the artifact and of reduce-overhead with
torch.profiler (CUPTI sees the kernels inside graph replays) and prints,
per step, the device activities (kernels, copies, sets), the GPU busy time
(the union of their intervals: what a step needs of the GPU, whatever the
CPU does) and each one's largest kernels.

    pytorch_models.py programs RUNTIME WORK [NAME ...] [--steps N] [--rounds R]

times the test programs test/Python/Inputs/load_cuda_check.py built
(manifest.json; programs.py's programs or models.py's models), their
parameters from the checked-in graphs (GP_GRAPHS, default
test/Python/Inputs/graphs).
"""
import json
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
inputs_dir = os.path.join(here, "..", "test", "Python", "Inputs")
sys.path.insert(0, os.path.join(here, "..", "python"))
sys.path.insert(0, inputs_dir)
sys.path.insert(0, here)


def true_f32():
    """PyTorch computes f32 convolutions and matmuls in f32, not TF32
    (cuDNN's default), like the artifacts."""
    import torch
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False


def per_step(fn, args, steps):
    import torch
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


def take_turns(runners, values, steps, rounds):
    """The runners take turns, `rounds` times, so that a slow spell of the
    machine hits all of them: (each one's median over the rounds, the
    median of the rounds' ratios graphpart / each, graphpart's max/min)."""
    samples = {name: [] for name in runners}
    for _ in range(rounds):
        for name, fn in runners.items():
            samples[name].append(per_step(fn, values, steps))
    median = {k: statistics.median(v) for k, v in samples.items()}
    ratio = {k: statistics.median(
        ours / theirs for ours, theirs in zip(samples["graphpart"], v))
        for k, v in samples.items()}
    return median, ratio, max(samples["graphpart"]) / min(
        samples["graphpart"])


def options(args, defaults):
    """Pops `--flag value` pairs named in `defaults` from `args`."""
    values = dict(defaults)
    for flag in defaults:
        if flag in args:
            at = args.index(flag)
            values[flag] = type(defaults[flag])(args[at + 1])
            del args[at:at + 2]
    return values


def capture_main(args):
    import torch
    import graphpart
    import full_models
    out, wanted = args[0], args[1:]
    os.makedirs(out, exist_ok=True)
    # Captures made earlier into OUT are kept (one model at a time works).
    record, failed = {}, 0
    if os.path.exists(os.path.join(out, "captures.json")):
        with open(os.path.join(out, "captures.json")) as f:
            record = json.load(f)
    for name, make in full_models.VARIANTS.items():
        if wanted and name not in wanted:
            continue
        model, inputs = make()
        start = time.perf_counter()
        try:
            with torch.no_grad():
                graphpart.capture(model, inputs, os.path.join(out, name),
                                  name=name, save_parameters=False)
        except graphpart.GraphError as error:
            print("FAILED capture %s: %s" % (name, str(error)[:2000]))
            failed += 1
            continue
        record[name] = {"capture_s": time.perf_counter() - start}
        print("captured %s in %.1f s" % (name, record[name]["capture_s"]))
        sys.stdout.flush()
    with open(os.path.join(out, "captures.json"), "w") as f:
        json.dump(record, f, indent=1)
    return 1 if failed else 0


def build_main(args, record_file="models.json"):
    """Converts and compiles for cuda every graph OUT/captures.json lists,
    timing both, into WORK; WORK/`record_file` is the capture record with
    each build's times, MLIR size and artifact (bench/decode_loop.py's
    build stage too)."""
    import graphpart
    from graphpart.compiler import build
    fuse_attention = "--no-fuse-attention" not in args
    args = [a for a in args if a != "--no-fuse-attention"]
    flags = options(args, {"--gp-compile": "gp-compile",
                           "--pipeline-options": ""})
    graphs, work = args[0], args[1]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(graphs, "captures.json")) as f:
        record = json.load(f)
    failed = 0
    for name in sorted(record):
        out = os.path.join(work, name)
        start = time.perf_counter()
        try:
            graph, constants = graphpart.load_graph(os.path.join(graphs,
                                                                 name))
            text = graphpart.convert(graph, constants,
                                     fuse_attention=fuse_attention)
            converted = time.perf_counter() - start
            built = build(os.path.join(graphs, name), out, "cuda",
                          pipeline_options=flags["--pipeline-options"],
                          gp_compile=flags["--gp-compile"],
                          fuse_attention=fuse_attention)
        except graphpart.GraphError as error:
            print("FAILED build %s: %s" % (name, str(error)[:3000]))
            failed += 1
            continue
        total = time.perf_counter() - start - converted
        record[name].update(
            convert_s=converted, convert_compile_s=total,
            mlir_bytes=len(text.encode()), artifact=os.path.join(
                name, built["artifact"]),
            mutated_inputs=built["mutated_inputs"],
            parameters=len(graph.get("parameters", [])))
        print("built %s: MLIR %.2f MB, convert %.2f s, convert + compile "
              "%.2f s, %d parameters" % (
                  name, record[name]["mlir_bytes"] / 1e6, converted, total,
                  len(graph.get("parameters", []))))
        sys.stdout.flush()
    with open(os.path.join(work, record_file), "w") as f:
        json.dump(record, f, indent=1)
    return 1 if failed else 0


def close_enough(got, want):
    """Max abs difference within a tolerance relative to the result's size:
    f32 1e-3, half types 5e-2 (long reductions in another order)."""
    import torch
    scale = max(1.0, want.float().abs().max().item())
    tolerance = 5e-2 if want.dtype in (torch.float16, torch.bfloat16) \
        else 1e-3
    worst = (got.float() - want.float()).abs().max().item()
    return worst <= tolerance * scale, worst


def loaded_models(runtime, work, wanted):
    """(name, record entry, module on the GPU, its CUDA inputs, the
    artifact bound to the module's parameters) for each model of WORK, in
    the order asked for (the first ones are measured when time runs out),
    else all."""
    import graphpart
    import full_models
    with open(os.path.join(work, "models.json")) as f:
        record = json.load(f)
    for name in wanted or sorted(record):
        entry = record.get(name, {})
        if "artifact" not in entry:
            print("no artifact for %s in %s" % (name, work))
            continue
        model, inputs = full_models.VARIANTS[name]()
        model = model.cuda()
        values = [v.cuda() for v in inputs]
        artifact = graphpart.load(os.path.join(work, entry["artifact"]),
                                  module=model, runtime_library=runtime)
        yield name, entry, model, values, artifact


def run_main(args):
    import torch
    true_f32()
    flags = options(args, {"--steps": 200, "--rounds": 5})
    runtime, work, wanted = args[0], args[1], args[2:]
    failures = 0
    for name, entry, model, values, artifact in loaded_models(
            runtime, work, wanted):
        with torch.no_grad():
            want = model(*values)
            got = artifact(*values)
            ok, worst = close_enough(got, want)
            if not ok:
                failures += 1
                print("FAILED %s: max abs difference %.3g" % (name, worst))
                continue
            compiled = torch.compile(model, mode="reduce-overhead")
            torch.cuda.synchronize()
            start = time.perf_counter()
            compiled(*values)
            torch.cuda.synchronize()
            first_call = time.perf_counter() - start
            median, ratio, spread = take_turns(
                {"eager": model, "reduce-overhead": compiled,
                 "graphpart": artifact}, values, flags["--steps"],
                flags["--rounds"])
        print("%-15s graphpart %8.1f us  eager %8.1f  reduce-overhead %8.1f"
              "  gp/eager %.2fx  gp/RO %.2fx  (%d rounds, gp max/min %.2f; "
              "max abs diff %.2g; native %s)" % (
                  name, median["graphpart"], median["eager"],
                  median["reduce-overhead"], ratio["eager"],
                  ratio["reduce-overhead"], flags["--rounds"], spread, worst,
                  artifact.native))
        print("%-15s compile: capture %.1f s + convert and compile %.1f s "
              "(MLIR %.2f MB); torch.compile's first call %.1f s" % (
                  name, entry.get("capture_s", 0),
                  entry.get("convert_compile_s", 0),
                  entry.get("mlir_bytes", 0) / 1e6, first_call))
        sys.stdout.flush()
        artifact.close()
        del compiled
        torch._dynamo.reset()
    return 1 if failures else 0


def device_activities(fn, values, steps):
    """The device activities (name, start us, end us) of `steps` calls of
    `fn` after warm-up, from torch.profiler."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    for _ in range(10):
        fn(*values)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as recorded:
        for _ in range(steps):
            fn(*values)
        torch.cuda.synchronize()
    return [(e.name, e.time_range.start, e.time_range.end)
            for e in recorded.events()
            if e.device_type == torch.autograd.DeviceType.CUDA]


def busy_us(activities):
    """The union of the activities' intervals, in us."""
    total, reach = 0.0, None
    for _, start, end in sorted(activities, key=lambda a: a[1]):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def print_largest(activities, steps, unit="step"):
    """The 12 device activities that take the most time, per `unit` of
    `steps`: time, calls and time per call, by name."""
    by_name = {}
    for kernel, start, end in activities:
        calls, total = by_name.get(kernel, (0, 0.0))
        by_name[kernel] = (calls + 1, total + end - start)
    top = sorted(by_name.items(), key=lambda kv: -kv[1][1])
    for kernel, (calls, total) in top[:12]:
        print("    %7.1f us/%s %5.1f calls/%s %7.2f us each  %s" % (
            total / steps, unit, calls / steps, unit, total / calls,
            kernel[:90]))


def profile_main(args):
    import torch
    true_f32()
    flags = options(args, {"--steps": 20})
    runtime, work, wanted = args[0], args[1], args[2:]
    steps = flags["--steps"]
    for name, _, model, values, artifact in loaded_models(runtime, work,
                                                          wanted):
        busy = {}
        with torch.no_grad():
            compiled = torch.compile(model, mode="reduce-overhead")
            for label, fn in (("graphpart", artifact),
                              ("reduce-overhead", compiled)):
                activities = device_activities(fn, values, steps)
                busy[label] = busy_us(activities) / steps
                print("%s %s: %.1f device activities and %.1f us GPU busy "
                      "per step (%d steps)" % (
                          name, label, len(activities) / steps, busy[label],
                          steps))
                print_largest(activities, steps)
        print("%s GPU busy per step: graphpart / reduce-overhead %.2fx" % (
            name, busy["graphpart"] / busy["reduce-overhead"]))
        sys.stdout.flush()
        artifact.close()
        del compiled
        torch._dynamo.reset()
    return 0


def memory_main(args):
    """Device memory a warmed-up runner holds beyond the module's
    parameters, in this process alone."""
    import torch
    import graphpart
    import full_models
    true_f32()
    runtime, work, name, kind = args
    with open(os.path.join(work, "models.json")) as f:
        entry = json.load(f)[name]
    model, inputs = full_models.VARIANTS[name]()
    model = model.cuda()
    values = [v.cuda() for v in inputs]
    torch.cuda.synchronize()
    free_before = torch.cuda.mem_get_info()[0]
    with torch.no_grad():
        if kind == "graphpart":
            runner = graphpart.load(os.path.join(work, entry["artifact"]),
                                    module=model, runtime_library=runtime)
        else:
            runner = torch.compile(model, mode="reduce-overhead")
        for _ in range(5):
            result = runner(*values)
        del result
    torch.cuda.synchronize()
    held = free_before - torch.cuda.mem_get_info()[0]
    print("%-15s %-16s holds %8.1f MiB beyond the module's parameters"
          % (name, kind, held / 2 ** 20))
    return 0


def main():
    args = sys.argv[1:]
    commands = {"capture": capture_main, "build": build_main,
                "run": run_main, "memory": memory_main,
                "profile": profile_main, "programs": programs_main}
    if not args or args[0] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    return commands[args[0]](args[1:])


def programs_main(args):
    true_f32()
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
    graphs_dir = os.environ.get("GP_GRAPHS", os.path.join(inputs_dir,
                                                          "graphs"))
    import torch
    import graphpart
    import programs
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
            parameters=[os.path.join(graphs_dir, name, d)
                        for d in ("constants", "parameters")
                        if os.path.isdir(os.path.join(graphs_dir, name, d))],
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
        with torch.no_grad():
            compiled = torch.compile(fn, mode="reduce-overhead")
            median, ratio, spread = take_turns(
                {"eager": fn, "reduce-overhead": compiled,
                 "graphpart": artifact}, values, steps, rounds)
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
