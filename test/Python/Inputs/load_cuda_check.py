"""graphpart.load on the cuda backend with CUDA tensors, against PyTorch
eager on the GPU: the GPU half of test/Python/load.test, for a machine with
PyTorch and a GPU but no LLVM (scripts/device-tests.sh python).

    load_cuda_check.py build GRAPHS WORK --gp-compile PATH [--target T]
                       [NAME...]
        here: converts the saved graphs GRAPHS/<name> and compiles them for
        the cuda target into WORK (with WORK/manifest.json: each program's
        written inputs); mlp_custom_op also as mlp_unsafe_op, its custom op
        tagged cudagraph_unsafe.
    load_cuda_check.py run WORK GRAPHS RUNTIME_LIBRARY EXTERN_LIBRARY [BACKEND
                       [NAME...]]
        there: every program on CUDA tensors, on the inputs and outputs
        PyTorch saved with the graph (GRAPHS/<name>.input/expected.*.npy)
        and on fresh inputs every call against PyTorch eager on the GPU
        (inputs written in place compared too); mylib::op1 from the C++
        extern library (captured) and as a Python extern (cudagraph_unsafe,
        eager between replays). rtol 1e-4 for f32, 1e-2 for f16 and bf16.
        (--target host and BACKEND host run the same on the CPU.)
        GP_CHECK_CALLS sets the number of fresh calls (3); a failing call
        prints which outputs differ and its small inputs in full.
"""
import copy
import glob
import json
import os
import subprocess
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
import graphpart  # noqa: E402
from graphpart.convert import convert_program  # noqa: E402

RANDOM = {"dropout"}
# Index inputs: the range fresh ones are drawn from.
INDEX_RANGES = {"embed": (0, 50), "inplace": (-5, 5), "integers": (0, 50),
                "gpt2_like": (0, 64), "gpt2": (0, 256),
                "math_ops": (0, 4), "scatters": (0, 3), "gathers": (-5, 5),
                "data_sized": (0, 65), "edges_and_picks": (0, 5),
                "cache_updates": (0, 5), "scans_and_pools": (0, 50),
                "bags": (0, 10)}


def build(graphs, work, gp_compile, names, target="cuda"):
    os.makedirs(work, exist_ok=True)
    names = names or sorted(os.path.basename(os.path.dirname(p)) for p in
                            glob.glob(os.path.join(graphs, "*", "graph.json")))
    manifest = {}
    for name in names:
        graph, constants = graphpart.load_graph(os.path.join(graphs, name))
        variants = [(name, graph)]
        if name == "mlp_custom_op":
            unsafe = copy.deepcopy(graph)
            unsafe["custom_ops"]["mylib::op1"]["tags"] = ["cudagraph_unsafe"]
            variants.append(("mlp_unsafe_op", unsafe))
        for variant, g in variants:
            text, mutated, _ = convert_program(g, constants, "cuda:0")
            mlir = os.path.join(work, variant + ".mlir")
            with open(mlir, "w") as f:
                f.write(text)
            subprocess.run([gp_compile, mlir, "--bufferize", "--target",
                            target, "-o",
                            os.path.join(work, variant + ".so")], check=True)
            manifest[variant] = {"graph": name, "mutated_inputs": mutated}
            print("built", variant)
    with open(os.path.join(work, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def run(work, graphs, runtime, extern_library, backend="cuda", *only):
    import torch
    # PyTorch's f32 convolutions in f32 (cuDNN defaults to TF32, 1e-3 off
    # a ResNet's logits), as the artifacts compute them.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    device = "cuda" if backend == "cuda" else "cpu"
    sys.path.insert(0, here)
    import programs
    with open(os.path.join(work, "manifest.json")) as f:
        manifest = json.load(f)
    table = programs.programs()
    failures = 0
    calls = []

    def counted_op1(t):
        calls.append(t.device)
        return torch.ops.mylib.op1(t)

    def compare(label, got, want, dtypes, exact=()):
        nonlocal failures
        got = got if isinstance(got, (tuple, list)) else (got,)
        want = want if isinstance(want, (tuple, list)) else (want,)
        exact = list(exact) + [None] * (len(want) - len(exact))
        ok, worst, wrong = len(got) == len(want), 0.0, []
        for index, (g, w, e) in enumerate(zip(got, want, exact)):
            before = ok
            half = w.dtype in (torch.float16, torch.bfloat16)
            rtol, atol = (1e-2, 1e-2) if half or any(
                d in (torch.float16, torch.bfloat16) for d in dtypes) \
                else (1e-4, 1e-5)
            if g.shape != w.shape or g.dtype != w.dtype or \
                    g.device != w.device:
                ok = False
                continue
            if w.dtype == torch.bool or not w.is_floating_point():
                ok = ok and torch.equal(g, w)
                continue
            worst = max(worst, (g.float() - w.float()).abs().max().item())
            ok = ok and (programs.half_close(g, w, e) if half else
                         torch.allclose(g.float(), w.float(), rtol=rtol,
                                        atol=atol, equal_nan=True))
            if before and not ok:
                wrong.append(index)
        failures += not ok
        print("%s %s (max abs difference %.2e)%s"
              % ("ok" if ok else "FAILED", label, worst,
                 " in output(s) %s" % wrong if wrong else ""))
        return ok

    def show_inputs(values):
        """Small inputs in full, so that a failure can be reproduced."""
        for index, value in enumerate(values):
            if value.numel() <= 64:
                print("  input %d: %s" % (index, value.cpu().tolist()))

    def saved(name, kind):
        values = []
        for path in sorted(glob.glob(os.path.join(
                graphs, "%s.%s.*.npy" % (name, kind))),
                key=lambda p: int(p.rsplit(".", 2)[-2])):
            array = np.load(path)
            if array.dtype == np.uint16:  # bf16 as its bits
                tensor = torch.from_numpy(array.view(np.int16)).view(
                    torch.bfloat16)
            else:
                tensor = torch.from_numpy(array)
            values.append(tensor.to(device))
        return values

    def fresh(name, example):
        if example.dtype == torch.bool:
            return torch.randn(example.shape) > 0
        if not example.is_floating_point():
            low, high = INDEX_RANGES[name]
            return torch.randint(low, high, example.shape)
        return torch.randn(example.shape).to(example.dtype)

    def fresh_inputs(name, examples):
        """Fresh values for every input, within the program's contract
        where it has one: on CUDA, PyTorch writes through a repeated index
        in no defined order, so indices written through stay distinct."""
        values = [fresh(name, e) for e in examples]
        if name == "scatters":
            # scatter along dimension 1 through a permutation of each row.
            values[1] = torch.argsort(torch.rand(examples[1].shape), dim=1)
        elif name == "inplace":
            # x[idx] = ... writes rows of 6 and x[:, idx] columns of 5:
            # three distinct rows, as indices in [-5, 4].
            rows = torch.randperm(6)[:3]
            negative = (rows == 5) | ((rows != 0) & (torch.rand(3) < 0.5))
            values[2] = torch.where(negative, rows - 6, rows)
        elif name == "bags":
            # Bags start at 0 and go up (one may be empty).
            inner = torch.sort(torch.randint(0, 13, (3,))).values
            values[2] = torch.cat([torch.zeros(1, dtype=torch.long), inner])
        elif name == "cache_updates":
            # index_copy at two distinct positions of the 6-long sequence.
            values[2] = torch.randperm(6)[:2]
        return values

    # mylib::op1 as the examples' C++ library registers it (capturable)
    # for mlp_custom_op, then as a Python extern for mlp_unsafe_op.
    order = sorted((n for n in manifest if not only or n in only),
                   key=lambda n: n == "mlp_unsafe_op")
    graphpart.load_extern_library(extern_library, runtime_library=runtime)
    for variant in order:
        entry = manifest[variant]
        name = entry["graph"]
        if variant == "mlp_unsafe_op":
            graphpart.register_extern("mylib::op1", counted_op1,
                                      capturable=False, mutates="0",
                                      aliases="-,-", runtime_library=runtime)
        # Parameters (the large constants of these graphs) from the
        # graph's own files, bound once.
        model = graphpart.load(
            os.path.join(work, variant + ".so"), backend=backend,
            parameters=[os.path.join(graphs, name, d)
                        for d in ("constants", "parameters")
                        if os.path.isdir(os.path.join(graphs, name, d))],
            runtime_library=runtime,
            mutated_inputs=entry["mutated_inputs"])
        mutated = entry["mutated_inputs"]
        if name not in table:
            # A whole model (models.py), made as it was captured.
            import models
            table[name] = models.MODELS[name]()
        fn, examples = table[name][0], table[name][1]
        if isinstance(fn, torch.nn.Module):
            fn = copy.deepcopy(fn).to(device)
        if name in RANDOM:
            failures += subprocess.run(
                [sys.executable, os.path.join(here, "rng_check.py"), runtime,
                 os.path.join(work, variant + ".so"), backend]).returncode != 0
            continue
        dtypes = [e.dtype for e in examples]
        del calls[:]
        # PyTorch's outputs on the inputs saved with the graph.
        inputs, expected = saved(name, "input"), saved(name, "expected")
        if inputs and expected:
            got = model(*inputs)
            got = got if isinstance(got, tuple) else (got,)
            compare("%s saved inputs" % variant,
                    tuple(got) + tuple(inputs[i] for i in mutated),
                    expected, dtypes)
        # Fresh inputs every call against eager PyTorch on the GPU.
        if name == "block_dynamic":
            cases = [[torch.randn(rows, 16)] for rows in (1, 5, 33)]
        else:
            count = int(os.environ.get("GP_CHECK_CALLS", "3"))
            cases = [fresh_inputs(name, examples) for _ in range(count)]
        for step, values in enumerate(cases):
            values = [v.to(device) for v in values]
            eager = [v.clone() for v in values]
            inputs_before = [v.clone() for v in values]
            exact = programs.exact_outputs(fn, values)
            with torch.no_grad():
                want = fn(*eager)
            got = model(*values)
            want = want if isinstance(want, tuple) else (want,)
            got = got if isinstance(got, tuple) else (got,)
            if not compare("%s call %d%s" % (variant, step, " (%d rows)" % len(
                    values[0]) if name == "block_dynamic" else ""),
                    tuple(got) + tuple(values[i] for i in mutated),
                    tuple(want) + tuple(eager[i] for i in mutated), dtypes,
                    exact):
                show_inputs(inputs_before)
        if variant == "mlp_unsafe_op":
            print("mlp_unsafe_op: the Python op ran %d time(s) on %s"
                  % (len(calls), sorted(set(map(str, calls)))))
            failures += len(calls) != 4
    print("load %s: %d failure(s)" % (backend, failures))
    return failures


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "build":
        args = sys.argv[2:]
        options = {}
        for option in ("--gp-compile", "--target"):
            if option in args:
                at = args.index(option)
                options[option] = args[at + 1]
                del args[at:at + 2]
        build(args[0], args[1], options["--gp-compile"], args[2:],
              options.get("--target", "cuda"))
    elif mode == "run":
        sys.exit(1 if run(*sys.argv[2:]) else 0)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
