"""The torch.compile backend (graphpart.dynamo) against PyTorch eager, on
fresh inputs every call.

    dynamo_check.py fx RUNTIME_LIBRARY WORK GP_COMPILE [--device cpu|cuda]
        Without Dynamo (PyTorch 1.13 in CI): the backend called as Dynamo
        calls it, on torch.fx.symbolic_trace graphs. A cache filled without
        a compiler (graphs saved, calls eager), `python3 -m graphpart
        compile-cache`, then the same graphs replayed from the cache;
        compiling where gp-compile is found; int inputs specialized; the
        inputs a graph writes; the errors a caller can hit.
    dynamo_check.py save RUNTIME_LIBRARY CACHE [--device cuda]
    dynamo_check.py replay RUNTIME_LIBRARY CACHE [--device cuda]
        With Dynamo (the GPU machine, PyTorch 2.11, no compiler tools):
        torch.compile(backend="graphpart") saves the graphs and runs them
        eagerly; after compile-cache on a machine with the tools, `replay`
        runs the same programs from the cache and checks that every call
        after the first replayed an artifact.
"""
import copy
import os
import shutil
import subprocess
import sys
import warnings

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
sys.path.insert(0, here)
import graphpart  # noqa: E402
import graphpart.dynamo  # noqa: E402
import programs  # noqa: E402

failures = 0
NAMES = ["block", "views", "batched", "masks", "more_ops", "inplace",
         "mlp_custom_op", "block_bf16", "integers", "convnet",
         "gpt2_like"]


def report(ok, label):
    global failures
    failures += not ok
    print("%s %s" % ("ok" if ok else "FAILED", label))
    sys.stdout.flush()


def same(got, want, exact=()):
    """f32 results within rtol 1e-4, half ones as programs.half_close
    says (`exact`: the f32 computation), the rest equal."""
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    exact = list(exact) + [None] * (len(want) - len(exact))
    return len(got) == len(want) and all(
        g.shape == w.shape and g.dtype == w.dtype and g.device == w.device
        and (torch.equal(g, w) if not g.is_floating_point() else
             programs.half_close(g, w, e)
             if g.dtype in (torch.bfloat16, torch.float16) else
             torch.allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True))
        for g, w, e in zip(got, want, exact))


def fresh(example, device):
    if example.dtype in (torch.int64, torch.int32):
        if example.dim() == 1:   # inplace's index: distinct, below 5
            return torch.randperm(5)[:example.numel()].to(device)
        return torch.randint(0, 50, example.shape).to(device)
    if example.dtype == torch.bool:
        return (torch.randn(example.shape) > 0).to(device)
    return torch.randn(example.shape).to(example.dtype).to(device)


def table(device):
    for name, (fn, inputs, *_) in programs.programs().items():
        if name in NAMES:
            if isinstance(fn, torch.nn.Module):
                fn = copy.deepcopy(fn).to(device)
            yield name, fn, [i.to(device) for i in inputs]


def calls(name, fn, compiled, example, device, count, label):
    """Runs `compiled` `count` times on fresh inputs against `fn`, the
    inputs it writes included."""
    ok = True
    for call in range(count):
        values = [fresh(e, device) for e in example]
        mine = [v.clone() for v in values]
        exact = programs.exact_outputs(fn, values)
        with torch.no_grad():
            want = fn(*values)
            got = compiled(*mine)
        ok &= same(got, want, exact) and same(mine, values)
    report(ok, "%s %s (%d calls)" % (label, name, count))


def quiet(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    return result, [str(w.message) for w in caught]


def fx_stage(runtime, work, gp_compile, device):
    from torch.fx import symbolic_trace
    target = "cuda" if device == "cuda" else "host"
    cache = os.path.join(work, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    graphs = {}
    # 1. No compiler: the graphs are saved, the calls run eagerly.
    saving = graphpart.dynamo.Backend(cache_dir=cache, compile=False,
                                      target=target, runtime_library=runtime)
    for name, fn, example in table(device):
        try:
            gm = symbolic_trace(fn)
        except Exception:  # noqa: BLE001 - 1.13 cannot unpack op1's pair
            from torch.fx.experimental.proxy_tensor import make_fx
            gm = make_fx(fn)(*[e.clone() for e in example])
        graphs[name] = (fn, gm, example)
        compiled = saving(gm, example)
        values = [fresh(e, device) for e in example]
        mine = [v.clone() for v in values]
        exact = programs.exact_outputs(fn, values)
        with torch.no_grad():
            want = fn(*values)
            got, said = quiet(compiled, *mine)
        report(same(got, want, exact) and same(mine, values)
               and any("compile-cache" in s for s in said),
               "saved %s, ran eagerly, said how to compile it" % name)
        calls(name, fn, compiled, example, device, 2, "eager")
    counts = list(saving.stats.values())
    report(all(c["saved"] == 1 and c["eager"] == 3 and c["replayed"] == 0
               for c in counts) and len(counts) == len(graphs),
           "stats without a compiler: %s" % counts[0])
    # 2. compile-cache where the tools are.
    done = subprocess.run(
        [sys.executable, "-m", "graphpart", "compile-cache", cache,
         "--gp-compile", gp_compile], capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=os.path.join(here, "..", "..", "..",
                                                      "python")))
    report(done.returncode == 0 and "%d built, 0 failed" % len(graphs)
           in done.stderr, "compile-cache: " + done.stderr.strip()
           .splitlines()[-1])
    again = subprocess.run(
        [sys.executable, "-m", "graphpart", "compile-cache", cache,
         "--gp-compile", gp_compile], capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=os.path.join(here, "..", "..", "..",
                                                     "python")))
    report("0 built, 0 failed" in again.stderr,
           "compile-cache again builds nothing")
    # 3. The same graphs, replayed from the cache (still no compiler).
    replaying = graphpart.dynamo.Backend(cache_dir=cache, compile=False,
                                         target=target,
                                         runtime_library=runtime)
    for name, (fn, gm, example) in graphs.items():
        calls(name, fn, replaying(gm, example), example, device, 3,
              "replayed")
    counts = list(replaying.stats.values())
    report(all(c["loaded"] == 1 and c["eager"] == 1 and c["replayed"] == 2
               for c in counts), "stats from the cache: %s" % counts[0])
    # 4. Where gp-compile is found, the first call compiles; a new shape is
    # a new specialization.
    compiling = graphpart.dynamo.Backend(
        cache_dir=os.path.join(work, "cache-auto"), gp_compile=gp_compile,
        target=target, runtime_library=runtime)
    fn, gm, example = graphs["block"]
    compiled = compiling(gm, example)
    calls("block", fn, compiled, example, device, 3, "compiled here")
    wider = [torch.randn(9, 16).to(device)]
    calls("block", fn, compiled, wider, device, 2, "9 rows:")
    stats = list(compiling.stats.values())[0]
    report(stats == {"replayed": 3, "eager": 2, "compiled": 2, "loaded": 0,
                     "saved": 0}, "two shapes, two artifacts: %s" % stats)

    # Inputs that need gradients (training): eager, with autograd history.
    x = torch.randn(5, 16).to(device).requires_grad_()
    got, said = quiet(compiled, x)
    got.sum().backward()
    stats = dict(list(compiling.stats.values())[0])
    report(got.grad_fn is not None and x.grad is not None and
           any("require gradients" in w for w in said) and
           torch.allclose(got.detach(), fn(x).detach(), rtol=1e-4,
                          atol=1e-5) and stats["eager"] == 3,
           "inputs requiring gradients run eagerly, with gradients")
    with torch.no_grad():
        compiled(x)
    report(list(compiling.stats.values())[0]["replayed"] == 4,
           "the same inputs under no_grad replay")

    # 5. int inputs (as Dynamo passes sizes) specialize the graph.
    def scaled(x, n):
        return x * n + x.sum(-1, keepdim=True)
    gm = symbolic_trace(scaled)
    compiled = compiling(gm, [example[0], 2])
    ok = True
    for n in (2, 3, 2, 3):
        x = torch.randn(5, 16).to(device)
        ok &= same(compiled(x, n), scaled(x, n))
    stats = list(compiling.stats.values())[1]
    report(ok and stats["compiled"] == 2 and stats["replayed"] == 2,
           "int inputs specialize: %s" % stats)
    # 6. Errors.
    for options, why in (({"bogus": 1}, "unknown option(s) bogus"),
                         ({"target": "tpu"}, "target must be host or cuda"),
                         ({"compile": "yes"}, "compile must be"),
                         ({"missing": "skip"}, "missing must be")):
        try:
            graphpart.dynamo.Backend(**options)
            report(False, "refused %s" % options)
        except graphpart.GraphError as error:
            report(why in str(error), "refused %s: %s" % (options, error))
    strict = graphpart.dynamo.Backend(
        cache_dir=os.path.join(work, "cache-empty"), compile=False,
        missing="error", target=target, runtime_library=runtime)
    try:
        strict(gm, [example[0], 2])(example[0], 2)
        report(False, "missing='error' without an artifact")
    except graphpart.GraphError as error:
        report("compile-cache" in str(error),
               "missing='error' without an artifact: %s"
               % str(error).split(";")[0])
    forced = graphpart.dynamo.Backend(
        cache_dir=os.path.join(work, "cache-forced"), compile=True,
        gp_compile=os.path.join(work, "no-such-gp-compile"), target=target)
    try:
        forced(gm, [example[0], 2])(example[0], 2)
        report(False, "compile=True without gp-compile")
    except graphpart.GraphError as error:
        report("gp-compile is not found" in str(error),
               "compile=True without gp-compile: %s" % error)
    done = subprocess.run(
        [sys.executable, "-m", "graphpart", "compile-cache",
         os.path.join(work, "no-such-cache"), "--gp-compile", gp_compile],
        capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=os.path.join(here, "..", "..", "..",
                                                     "python")))
    report(done.returncode == 1 and "no cache directory" in done.stderr,
           "compile-cache of a missing directory: " + done.stderr.strip())


def dynamo_stage(stage, runtime, cache, device):
    if not graphpart.dynamo.register():
        print("this PyTorch (%s) has no Dynamo" % torch.__version__)
        sys.exit(1)
    options = {"cache_dir": cache, "compile": False, "runtime_library":
               runtime, "missing": "eager" if stage == "save" else "error"}
    backend = graphpart.dynamo.backend
    for name, fn, example in table(device):
        torch._dynamo.reset()
        compiled = torch.compile(fn, backend="graphpart", options=options)
        before = {k: dict(v) for k, v in backend.stats.items()}
        if stage == "save":
            calls(name, fn, lambda *a: quiet(compiled, *a)[0], example,
                  device, 2, "torch.compile, saved and eager:")
            continue
        calls(name, fn, compiled, example, device, 4,
              "torch.compile, replayed:")
        new = {k: v for k, v in backend.stats.items() if before.get(k) != v}
        replayed = sum(v["replayed"] - before.get(k, {}).get("replayed", 0)
                       for k, v in new.items())
        eager = sum(v["eager"] - before.get(k, {}).get("eager", 0)
                    for k, v in new.items())
        report(replayed >= 3 and eager == len(new),
               "%s: %d graph(s), %d calls replayed, %d eager (the first "
               "of each graph)" % (name, len(new), replayed, eager))


def main():
    args = sys.argv[1:]
    device = "cpu"
    if "--device" in args:
        at = args.index("--device")
        device = args[at + 1]
        del args[at:at + 2]
    torch.manual_seed(5)
    if args[0] == "fx":
        fx_stage(args[1], args[2], args[3], device)
    else:
        dynamo_stage(args[0], args[1], args[2], device)
    print("dynamo: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
