"""Fuzzes graphpart.load and the calls of loaded artifacts (host backend)
with bad and unusual input: four small programs are compiled once with
gp-compile into a temporary directory (`affine`: x[s0,4] @ w[4,4] + y[s0,4]
+ b[4] and n[3] + n, its weights by position from a `weights=` directory
or passed by the caller; `named`: a linear layer whose weights are named
parameters, bound from a state dict, a directory of .npy files, a
safetensors file, `weights=` or a live module; `inplace`: x += y, returns
2 * x, x written in place (mutated_inputs); `index`: a[n] = -1 with n an
index argument), then each case loads one and calls it:

- arguments: too few, too many, by keyword, another dtype, shape, rank,
  size of a static dimension, dynamic sizes that disagree, zero sizes,
  not tensors (None, floats, ints, lists, numpy arrays, strings), meta,
  sparse, mkldnn, nested and quantized tensors, storage shrunk below the
  sizes, indices out of range or of another type;
- layouts that must run: transposed, stepped, offset, expanded and
  size-1-dimension views, Fortran-order numpy memory, negated (conj().imag)
  views, inference tensors, tensors requiring grad (under grad mode,
  no_grad and inference_mode), parameters, arguments aliasing each other
  (the same tensor, overlapping views), inputs written in place;
- calls after close(), on the native call path and the ctypes one, with
  results as copies or views; fuzzed load options (mutated_inputs, device,
  backend); `weights=` directories and parameter sources damaged (files
  missing, cut short, of another dtype or shape, big-endian or Fortran
  order, listings missing, reordered, too long, not text) and modules
  whose tensors change after load.

Every case runs correctly, checked against a reference computed with numpy
from the values the arguments show (results, and the caller's tensors a
program writes or must leave alone), or raises graphpart.GraphError,
leaving every argument as it was. A case where the input is valid must
run; where it is not, it must raise; a few may do either. Any other
exception, a wrong value, a case past 10 s or a crash (the cases run in a
child process; a signal death names the case and the run goes on after
it) is a failure, printed with the case's number and what it did.

    python3 fuzz_calls.py --gp-compile GP_COMPILE --runtime-library LIB
        [--cases N] [--seed S] [--case I] [--verbose]

Deterministic: case I of seed S is the same every run (`--case I` runs it
alone). Needs torch and numpy.
"""
import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
import graphpart  # noqa: E402

# -- the programs ------------------------------------------------------------
S0 = "s0"


def _input(name, shape, dtype="float32"):
    return {"name": name, "shape": shape, "dtype": dtype, "device": "cpu"}


def _node(name, op, overload, args, shape, dtype="float32"):
    return {"name": name, "op": op, "overload": overload, "args": args,
            "kwargs": {}, "outputs": [{"shape": shape, "dtype": dtype}]}


def _ref(name):
    return {"node": name}


GRAPHS = {
    "affine": {
        "format": "graphpart-graph", "version": 1, "name": "affine",
        "inputs": [_input("x", [S0, 4]), _input("y", [S0, 4]),
                   _input("n", [3], "int64"), _input("w", [4, 4]),
                   _input("b", [4])],
        "symbols": {S0: {"min": 1}},
        "nodes": [
            _node("mm", "aten::mm", "default", [_ref("x"), _ref("w")],
                  [S0, 4]),
            _node("add", "aten::add", "Tensor", [_ref("mm"), _ref("y")],
                  [S0, 4]),
            _node("add_1", "aten::add", "Tensor", [_ref("add"), _ref("b")],
                  [S0, 4]),
            _node("add_2", "aten::add", "Tensor", [_ref("n"), _ref("n")],
                  [3], "int64")],
        "outputs": [_ref("add_1"), _ref("add_2")]},
    "named": {
        "format": "graphpart-graph", "version": 1, "name": "named",
        "inputs": [_input("x", [S0, 4])],
        "symbols": {S0: {"min": 1}},
        "parameters": [
            {"name": "p_fc_weight", "fqn": "fc.weight", "shape": [3, 4],
             "dtype": "float32"},
            {"name": "p_fc_bias", "fqn": "fc.bias", "shape": [3],
             "dtype": "float32"}],
        "nodes": [
            _node("t", "aten::t", "default", [_ref("p_fc_weight")], [4, 3]),
            _node("addmm", "aten::addmm", "default",
                  [_ref("p_fc_bias"), _ref("x"), _ref("t")], [S0, 3])],
        "outputs": [_ref("addmm")]},
    "inplace": {
        "format": "graphpart-graph", "version": 1, "name": "inplace",
        "inputs": [_input("x", [S0, 4]), _input("y", [S0, 4])],
        "symbols": {S0: {"min": 1}},
        "nodes": [
            _node("add_", "aten::add_", "Tensor", [_ref("x"), _ref("y")],
                  [S0, 4]),
            _node("mul", "aten::mul", "Tensor", [_ref("add_"), 2],
                  [S0, 4])],
        "outputs": [_ref("mul")]},
}

# An index argument (as examples/symint_mutation_index.mlir): a[n] = -1.
INDEX_PROGRAM = """\
#cuda0 = #gp.device<cuda:0>
func.func @index(%arg0: index, %a: memref<7xf32, #cuda0>)
    -> memref<7xf32, #cuda0> {
  %n = gp.symint "s0" = %arg0 {min = 0 : i64, max = 6 : i64, hint = 2 : i64}
  gp.kernel "store_minus_one" ins(%n : index) outs(%a : memref<7xf32, #cuda0>) {
  ^bb0(%idx: index, %out: memref<7xf32, #cuda0>):
    %minus_one = arith.constant -1.0 : f32
    memref.store %minus_one, %out[%idx] : memref<7xf32, #cuda0>
  }
  return %a : memref<7xf32, #cuda0>
}
"""

# Each program's arguments: (name, element type, shape); "index" for an
# index argument. The weights of `affine` are its last two.
ARGS = {
    "affine": [("x", "f32", [S0, 4]), ("y", "f32", [S0, 4]),
               ("n", "i64", [3]), ("w", "f32", [4, 4]), ("b", "f32", [4])],
    "named": [("x", "f32", [S0, 4])],
    "inplace": [("x", "f32", [S0, 4]), ("y", "f32", [S0, 4])],
    "index": [("n", "index", None), ("a", "f32", [7])],
}
PARAMETERS = {"fc.weight": [3, 4], "fc.bias": [3]}
MUTATED = {"inplace": [0], "index": [1]}


def build(work, gp_compile):
    """Compiles the programs into `work` (once per run)."""
    from graphpart import compiler
    for name, graph in GRAPHS.items():
        graph_dir = os.path.join(work, name + ".graph")
        os.makedirs(graph_dir, exist_ok=True)
        with open(os.path.join(graph_dir, "graph.json"), "w") as f:
            json.dump(graph, f)
        built = compiler.build(graph_dir, work, "host",
                               gp_compile=gp_compile)
        assert built["mutated_inputs"] == MUTATED.get(name, []), built
    source = os.path.join(work, "index.mlir")
    with open(source, "w") as f:
        f.write(INDEX_PROGRAM)
    done = subprocess.run([gp_compile, source, "--target", "host", "-o",
                           os.path.join(work, "index.so")],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("gp-compile index.mlir failed:\n" + done.stderr)


# -- the worker: runs cases in a child process --------------------------------
torch = None
RUNTIME = None
WORK = None
VERBOSE = False


class Timeout(Exception):
    pass


class Failure(Exception):
    """A case's failure: a wrong value, an error where the input is valid,
    no error where it is not."""


DTYPES = {"f32": "float32", "i64": "int64"}
OTHER_DTYPES = ["float64", "float16", "bfloat16", "int32", "int64",
                "float32", "bool", "uint8", "int8", "complex64"]


def torch_dtype(element):
    return getattr(torch, DTYPES[element])


def draw(rng, element, shape):
    """A fresh contiguous tensor of `element` and `shape`."""
    state = np.random.RandomState(rng.randrange(2 ** 31))
    if element == "f32":
        array = state.standard_normal(shape).astype(np.float32)
    else:
        array = state.randint(-1000, 1000, size=shape).astype(np.int64)
    return torch.from_numpy(array)


def values_of(tensor):
    """What a tensor shows (a numpy copy), whatever its layout or bits."""
    tensor = tensor.detach()
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.float()  # numpy has none
    if tensor.is_neg():
        tensor = tensor.resolve_neg()
    if tensor.is_conj():
        tensor = tensor.resolve_conj()
    return tensor.clone().numpy()


def storage_shrink(tensor, elements):
    """Resizes `tensor`'s storage to `elements` of its element type."""
    if hasattr(tensor, "untyped_storage"):
        tensor.untyped_storage().resize_(elements * tensor.element_size())
    else:
        tensor.storage().resize_(elements)


class Arg:
    """A tensor argument: a view (`view(base)`) of a base tensor the case
    owns, so that what the call writes can be checked on the base."""

    def __init__(self, base, view, layout):
        self.base, self.view, self.layout = base, view, layout
        self.value = view(base)


def layouts_for(element, shape):
    names = ["contiguous"] * 4 + ["offset", "step", "inner-step",
                                  "fortran", "parameter", "inference",
                                  "requires-grad", "expanded"]
    if len(shape) == 2:
        names.append("transposed")
    if element == "f32":
        names += ["neg-view", "conj-imag"]
    if shape and shape[0] == 1:
        names.append("size-1 stride")
    return names


def make_arg(rng, element, shape, layout):
    """A tensor argument of `element` and `shape` in `layout`, its values
    drawn fresh; every layout shows the drawn values (a view's) and must
    run."""
    values = draw(rng, element, shape)
    ident = lambda b: b  # noqa: E731
    if layout == "expanded" and shape:
        base = values[:1].clone()
        return Arg(base, lambda b, s=list(shape): b.expand(s), layout)
    if layout == "offset" and shape:
        k = rng.randint(1, 3)
        base = torch.zeros([shape[0] + 2 * k] + shape[1:],
                           dtype=values.dtype)
        base[k:k + shape[0]] = values
        return Arg(base, lambda b, k=k, n=shape[0]: b[k:k + n], layout)
    if layout == "step" and shape:
        step = rng.randint(2, 3)
        base = torch.zeros([shape[0] * step] + shape[1:], dtype=values.dtype)
        base[::step] = values
        return Arg(base, lambda b, s=step: b[::s], layout)
    if layout == "inner-step" and shape:
        base = torch.zeros(shape[:-1] + [shape[-1] * 2], dtype=values.dtype)
        base[..., ::2] = values
        return Arg(base, lambda b: b[..., ::2], layout)
    if layout == "transposed":
        return Arg(values.t().contiguous(), lambda b: b.t(), layout)
    if layout == "size-1 stride":
        base = torch.zeros([7] + shape[1:], dtype=values.dtype)
        base[0] = values[0]
        return Arg(base, lambda b: b[::7], layout)
    if layout == "fortran":
        array = np.asfortranarray(values.numpy())
        return Arg(torch.from_numpy(array), ident, layout)
    if layout == "parameter":
        return Arg(torch.nn.Parameter(values, requires_grad=False), ident,
                   layout)
    if layout == "inference":
        with torch.inference_mode():
            base = values.clone()
        return Arg(base, ident, layout)
    if layout == "requires-grad" and element == "f32":
        return Arg(values.clone().requires_grad_(True), ident, layout)
    if layout == "neg-view":
        # The private route (a contiguous negated view) and the public
        # one (conj().imag of a complex tensor) below.
        if hasattr(torch, "_neg_view"):
            return Arg(-values, lambda b: torch._neg_view(b), layout)
        layout = "conj-imag"
    if layout == "conj-imag":
        base = torch.complex(torch.zeros_like(values), -values)
        return Arg(base, lambda b: b.conj().imag, layout)
    return Arg(values, ident, "contiguous")


def shown(values):
    """What each argument shows, before the call: ints for index
    arguments (as int() reads them), numpy copies for tensors."""
    return [v if isinstance(v, int) else
            int(v) if not isinstance(v, torch.Tensor) or v.dim() == 0
            else values_of(v) for v in values]


def reference(program, show, parameters, declared):
    """(outputs, final values of the arguments the program writes) as
    numpy arrays, computed from what the arguments show (`shown`)."""
    if program == "affine":
        x, y, n, w, b = show
        out = (x.astype(np.float64) @ w + y + b).astype(np.float32)
        return [out, n + n], {}
    if program == "named":
        x, = show
        weight, bias = parameters["fc.weight"], parameters["fc.bias"]
        out = (x.astype(np.float64) @ weight.T.astype(np.float64) + bias)
        return [out.astype(np.float32)], {}
    if program == "inplace":
        x, y = show
        final = x + y
        return ([final * 2] if declared else [final * 2, final]), {0: final}
    n, a = show
    final = a.copy()
    final[n] = -1
    return ([] if declared else [final]), {1: final}


def same(got, want, what):
    if not isinstance(got, torch.Tensor):
        raise Failure("%s is a %s, not a tensor" % (what,
                                                    type(got).__name__))
    got = values_of(got)
    if got.shape != want.shape or got.dtype != want.dtype:
        raise Failure("%s is %s%s; the reference is %s%s" % (
            what, got.dtype, list(got.shape), want.dtype, list(want.shape)))
    if want.dtype.kind in "fc":
        ok = np.allclose(got, want, rtol=1e-4, atol=1e-4, equal_nan=True)
    else:
        ok = np.array_equal(got, want)
    if not ok:
        raise Failure("%s differs from the reference (largest difference "
                      "%s)" % (what, np.max(np.abs(got.astype(np.float64) -
                                                  want))))


def check_results(result, outputs):
    got = list(result) if isinstance(result, tuple) else [result]
    if len(got) != len(outputs):
        raise Failure("%d result(s); the reference has %d"
                      % (len(got), len(outputs)))
    for i, (g, w) in enumerate(zip(got, outputs)):
        same(g, w, "result %d" % i)


GRAD_MODES = ["grad", "grad", "no_grad", "inference_mode"]


def grad_context(mode):
    if mode == "no_grad":
        return torch.no_grad()
    if mode == "inference_mode":
        return torch.inference_mode()
    return contextlib.nullcontext()


def load(rng, program, what, **options):
    """Loads `program`, on the native call path or the ctypes one (as
    GRAPHPART_NATIVE=0 gives it), its results copies or views."""
    options.setdefault("views", rng.random() < 0.3)
    path = rng.choice(["native", "ctypes"])
    what.append("%s (%s%s)" % (program, path,
                               ", views" if options["views"] else ""))
    artifact = graphpart.load(os.path.join(WORK, program + ".so"),
                              runtime_library=RUNTIME, **options)
    if path == "ctypes":
        for entry in artifact.entries.values():
            entry._native = None
    return artifact


def outcome_of(call):
    """("ok", value) or ("error", GraphError)."""
    try:
        return "ok", call()
    except graphpart.GraphError as error:
        return "error", error


# -- call cases --------------------------------------------------------------
# Index values out of the program's range [0, 6], out of int64, or of other
# types (np.int64 and a 0-d tensor may run or raise: see verdict).
INDEX_VALUES = [7, -1, 2 ** 63, 2 ** 64 + 3, -2 ** 63 - 1, 2 ** 70, -2 ** 70,
                True, 2.0, None, "3", [3], "np.int64(3)", "tensor(3)"]
NOT_TENSORS = ["None", "1.5", "3", "True", "list", "numpy", "string",
               "torch.Size", "object"]
SPECIALS = ["meta", "sparse", "sparse_csr", "mkldnn", "nested",
            "quantized", "complex", "storage-shrunk", "storage-empty"]


def not_a_tensor(kind, tensor):
    return {"None": None, "1.5": 1.5, "3": 3, "True": True,
            "list": values_of(tensor).tolist(), "numpy": values_of(tensor),
            "string": "x", "torch.Size": tensor.shape,
            "object": object()}[kind]


def special(kind, tensor):
    """`tensor` as a tensor no entry takes (None where it cannot be)."""
    tensor = tensor.detach().clone()
    if kind == "meta":
        return tensor.to("meta")
    if kind == "sparse":
        return tensor.to_sparse()
    if kind == "sparse_csr":
        return tensor.to_sparse_csr() if tensor.dim() == 2 else None
    if kind == "mkldnn":
        return tensor.to_mkldnn() if tensor.dtype == torch.float32 and \
            tensor.numel() and tensor.dim() and \
            torch.backends.mkldnn.is_available() else None
    if kind == "nested":
        if not hasattr(torch, "nested"):
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.nested.nested_tensor([tensor])
    if kind == "quantized":
        return torch.quantize_per_tensor(tensor.float(), 0.1, 0, torch.qint8)
    if kind == "complex":
        return tensor.to(torch.complex64)
    if tensor.numel() == 0:
        return None
    # The storage cut below what the sizes reach (or to nothing).
    storage_shrink(tensor, 0 if kind == "storage-empty" else
                   max(0, tensor.numel() - 1 - tensor.numel() // 3))
    return tensor


def call_case(rng, what):
    program = rng.choice(["affine", "affine", "named", "inplace", "index"])
    options = {}
    declared = False
    if program in MUTATED and rng.random() < 0.8:
        options["mutated_inputs"] = MUTATED[program]
        declared = True
    parameters = None
    with_weights = program == "affine" and rng.random() < 0.4
    if with_weights:
        options["weights"] = os.path.join(WORK, "weights")
    if program == "named":
        parameters = {name: draw(rng, "f32", shape).numpy()
                      for name, shape in PARAMETERS.items()}
        options["parameters"] = {name: torch.from_numpy(array) for
                                 name, array in parameters.items()}
    artifact = load(rng, program, what, **options)
    specs = ARGS[program][:-2] if with_weights else ARGS[program]
    mode = rng.choice(GRAD_MODES)
    if mode != "grad":
        what.append(mode)
    s0 = rng.choice([1, 1, 2, 3, 4, 5, 8, 17, 64])

    def fresh_args(layouts=True):
        args = []
        for name, element, shape in specs:
            if element == "index":
                args.append(rng.randint(0, 6))
                continue
            shape = [s0 if s == S0 else s for s in shape]
            layout = rng.choice(layouts_for(element, shape)) if layouts \
                else "contiguous"
            args.append(make_arg(rng, element, shape, layout))
        return args

    def complete(show):
        """The weights a weights= directory passes, after the caller's."""
        return show + WEIGHTS if with_weights else show

    args = fresh_args()
    for i, arg in enumerate(args):
        if isinstance(arg, Arg) and arg.layout != "contiguous":
            what.append("arg %d %s" % (i, arg.layout))
    # Aliasing: the second f32 [s0, 4] argument the same tensor as the
    # first, or a view overlapping it.
    pair = [i for i, (_, e, s) in enumerate(specs) if s == [S0, 4]]
    if len(pair) == 2 and rng.random() < 0.2:
        first, second = pair
        if rng.random() < 0.5:
            args[second] = args[first]
            what.append("args %d and %d the same tensor" % (first, second))
        else:
            base = draw(rng, "f32", [s0 + 1, 4])
            args[first] = Arg(base, lambda b, n=s0: b[:n], "alias")
            args[second] = Arg(base, lambda b, n=s0: b[1:n + 1], "alias")
            what.append("args %d and %d overlapping views" % (first,
                                                              second))
    # Every base as it was, to check what the call writes (or not).
    snapshot, seen_bases = [], set()
    for arg in args:
        if isinstance(arg, Arg) and id(arg.base) not in seen_bases:
            seen_bases.add(id(arg.base))
            snapshot.append((arg.base, values_of(arg.base)))
    values = [a.value if isinstance(a, Arg) else a for a in args]
    kwargs = {}
    # Damage: none, or one or two of the kinds a caller gets wrong.
    damages = 0 if rng.random() < 0.35 else rng.choice([1, 1, 1, 2])
    written = MUTATED.get(program, []) if declared else []
    for _ in range(damages):
        if damage_call(rng, specs, values, s0, kwargs, what) == "last":
            break  # A tensor of another kind (or cut) is damaged no more.
    # Each value passed, as the view of a base it is (moved, or passed
    # twice, by the damage), or None: a value the damage made.
    by_value = {id(a.value): a for a in args if isinstance(a, Arg)}
    args = [by_value.get(id(v)) for v in values]
    # Whether the call is valid, from the values it passes (damages may
    # undo each other).
    expect = verdict(specs, values, kwargs, written, mode, what)
    what.append("expect %s" % expect)
    show = shown(values) if expect != "invalid" else None
    with grad_context(mode):
        status, result = outcome_of(lambda: artifact(*values, **kwargs))
    if status == "error":
        if expect == "valid":
            raise Failure("GraphError for a valid call: %s" % result)
        if VERBOSE:
            print("    GraphError: %s" % result)
        for base, before in snapshot:
            same(base, before, "an argument after the failed call (%s)"
                 % result)
    elif expect == "invalid":
        raise Failure("no GraphError; returned %s" % describe(result))
    else:
        outputs, final = reference(program, complete(show), parameters,
                                   declared)
        check_results(result, outputs)
        check_written(args, values, final, snapshot, program, declared)
    # The artifact works after whatever happened.
    follow_up(artifact, program, parameters, declared,
              lambda: fresh_args(layouts=False), complete)


def reach(tensor):
    """The bytes of memory `tensor`'s sizes, strides and offset span, from
    its storage's start (0 for none)."""
    if tensor.numel() == 0:
        return 0
    return (tensor.storage_offset() + 1 + sum(
        (n - 1) * s for n, s in zip(tensor.shape, tensor.stride()))) * \
        tensor.element_size()


def whole(tensor):
    """Whether `tensor`'s storage holds all it spans."""
    held = tensor.untyped_storage().nbytes() if hasattr(
        tensor, "untyped_storage") else tensor.storage().nbytes()
    return reach(tensor) <= held


def verdict(specs, values, keywords, written, mode, what):
    """Whether a call with `values` (and `keywords`) is "valid" (it must
    run), "invalid" (it must raise GraphError) or "either": decided from
    the values themselves and the entry's arguments (`specs`)."""
    if keywords or len(values) != len(specs):
        return "invalid"
    result, sizes = "valid", set()
    for position, (value, (_, element, shape)) in enumerate(zip(values,
                                                                specs)):
        if element == "index":
            if type(value) is int:
                if not 0 <= value <= 6:  # the program's range
                    return "invalid"
            elif isinstance(value, np.integer) or (
                    isinstance(value, torch.Tensor) and value.dim() == 0 and
                    not value.dtype.is_floating_point and
                    value.dtype != torch.bool):
                result = "either"  # int() reads it; an error is fine too
            else:
                return "invalid"
            continue
        if not isinstance(value, torch.Tensor) or \
                value.layout != torch.strided or value.is_meta or \
                getattr(value, "is_nested", False) or value.is_quantized or \
                value.dtype != torch_dtype(element) or \
                value.dim() != len(shape) or not whole(value):
            return "invalid"
        for size, want in zip(value.shape, shape):
            if want == S0:
                sizes.add(size)
            elif size != want:
                return "invalid"
    if len(sizes) > 1:
        return "invalid"
    if 0 in sizes:
        result = "either"  # outside the symbol's range [1, inf]
    for position in written:
        value = values[position]
        why = "requires grad" if value.requires_grad and mode == "grad" \
            else "an inference tensor" if value.is_inference() and \
            mode != "inference_mode" else "with elements sharing memory" \
            if any(s == 0 and n > 1 for n, s in zip(value.shape,
                                                    value.stride())) \
            else None
        if why:
            what.append("written arg %d %s" % (position, why))
            return "invalid"
        # Eager PyTorch refuses an in-place op between partly overlapping
        # tensors: either is fine.
        for other, value2 in enumerate(values):
            if other == position or not isinstance(value2, torch.Tensor) \
                    or not value.numel() or not value2.numel():
                continue
            first, first2 = value.data_ptr(), value2.data_ptr()
            if first < first2 + reach(value2) - value2.storage_offset() * \
                    value2.element_size() and first2 < first + reach(
                        value) - value.storage_offset() * \
                    value.element_size() and not (
                        first == first2 and value.shape == value2.shape and
                        value.stride() == value2.stride()):
                result = "either"
    return result


def check_written(args, values, final, snapshot, program, declared):
    """The tensors the program writes hold the reference's final values;
    every other tensor is as it was."""
    if not declared and program in MUTATED:
        # Undeclared, nothing is copied back: the program writes the
        # memory it was given (a contiguous argument, or a copy of a view).
        return
    expected = {id(base): torch.from_numpy(before.copy())
                for base, before in snapshot}
    for position, want in final.items():
        arg = args[position]
        if arg is None:
            same(values[position], want, "written argument %d" % position)
            continue
        with torch.no_grad():
            arg.view(expected[id(arg.base)]).copy_(torch.from_numpy(want))
    for base, _ in snapshot:
        same(base, expected[id(base)].numpy(),
             "the memory of an argument after the call")


def follow_up(artifact, program, parameters, declared, fresh_args,
              complete):
    """A valid call, after whatever the case did, is correct."""
    args = fresh_args()
    values = [a.value if isinstance(a, Arg) else a for a in args]
    show = shown(values)
    try:
        with torch.no_grad():
            result = artifact(*values)
        outputs, final = reference(program, complete(show), parameters,
                                   declared)
        check_results(result, outputs)
        if declared:
            for position, want in final.items():
                same(values[position], want, "written argument %d"
                     % position)
    except graphpart.GraphError as error:
        raise Failure("a valid call after the case: GraphError: %s" % error)
    except Failure as failure:
        raise Failure("a valid call after the case: %s" % failure)


def describe(result):
    if isinstance(result, tuple):
        return "(%s)" % ", ".join(describe(r) for r in result)
    if isinstance(result, torch.Tensor):
        return "a %s tensor %s" % (result.dtype, list(result.shape))
    return repr(result)[:60]


def damage_call(rng, specs, values, s0, kwargs, what):
    """Damages the call (values, kwargs) in place; returns "last" after a
    damage that must be the last (a tensor of another kind, or cut)."""
    kind = rng.choice(["count", "keyword", "dtype", "rank", "static",
                       "dynamic", "zero", "not-tensor", "special", "special",
                       "index"])
    buffers = [i for i, (_, e, _) in enumerate(specs) if e != "index"
               and i < len(values) and isinstance(values[i], torch.Tensor)]
    if kind == "count" or not buffers:
        choice = rng.randrange(4)
        if choice == 0 and values:
            del values[rng.randrange(len(values))]
            what.append("an argument left out")
        elif choice == 1:
            values.append(rng.choice([None, draw(rng, "f32", [s0, 4]),
                                      torch.zeros(3)]))
            what.append("an extra argument")
        elif choice == 2:
            del values[:]
            what.append("no arguments")
        else:
            values.extend(values[:])
            what.append("every argument twice")
        return None
    if kind == "keyword":
        name = specs[len(values) - 1][0] if len(values) <= len(specs) \
            else "x"
        kwargs[name] = values.pop()
        what.append("the last argument by keyword %s=" % name)
        return None
    if kind == "index":
        indices = [i for i, (_, e, _) in enumerate(specs) if e == "index"
                   and i < len(values)]
        if not indices:
            return damage_call(rng, specs, values, s0, kwargs, what)
        value = rng.choice(INDEX_VALUES)
        if value == "np.int64(3)":
            value = np.int64(3)
        elif value == "tensor(3)":
            value = torch.tensor(3)
        values[indices[0]] = value
        what.append("index argument %r" % (value,))
        return None
    position = rng.choice(buffers)
    value = values[position]
    name, element, shape = specs[position]
    if kind == "dtype":
        dtype = getattr(torch, rng.choice([d for d in OTHER_DTYPES
                                           if d != DTYPES[element]]))
        values[position] = value.detach().to(dtype)
        what.append("arg %d as %s" % (position, dtype))
        return None
    if kind == "rank":
        choice = rng.randrange(3)
        # Copies: a damaged argument shares no memory with the case's.
        if choice == 0:
            values[position] = value.detach().unsqueeze(0).clone()
        elif choice == 1:
            values[position] = (value.detach().reshape(-1) if
                                value.dim() > 1 else
                                value.detach().reshape(1, -1)).clone()
        else:
            values[position] = torch.zeros((), dtype=value.dtype)
        what.append("arg %d of shape %s" % (position,
                                            list(values[position].shape)))
        return None
    if kind == "static":
        dims = [d for d, s in enumerate(shape) if s != S0 and
                d < value.dim()]
        if not dims:
            return damage_call(rng, specs, values, s0, kwargs, what)
        d = rng.choice(dims)
        sizes = list(value.shape)
        sizes[d] = rng.choice([0, 1, max(0, sizes[d] - 1), sizes[d] + 1,
                               100])
        if sizes[d] == value.shape[d]:
            sizes[d] += 1
        values[position] = draw(rng, element, sizes)
        what.append("arg %d of shape %s" % (position, sizes))
        return None
    if kind == "dynamic":
        dynamic = [i for i in buffers if S0 in specs[i][2]]
        if not dynamic:
            return damage_call(rng, specs, values, s0, kwargs, what)
        if len(dynamic) > 1 and rng.random() < 0.6:
            # One argument's dynamic size disagrees with the others'.
            position = rng.choice(dynamic)
            other = rng.choice([n for n in (1, 2, 3, 9, 100) if n != s0])
            sizes = [other if s == S0 else s for s in specs[position][2]]
            values[position] = draw(rng, specs[position][1], sizes)
            what.append("arg %d's dynamic size %d, the others' %d"
                        % (position, other, s0))
            return None
        # Every dynamic size 0: outside the symbol's range (min 1).
        for i in dynamic:
            sizes = [0 if s == S0 else s for s in specs[i][2]]
            values[i] = draw(rng, specs[i][1], sizes)
        what.append("dynamic size 0")
        return None
    if kind == "zero":
        sizes = [0] * len(shape)
        values[position] = torch.zeros(sizes, dtype=torch_dtype(element))
        what.append("arg %d zero-size %s" % (position, sizes))
        return None
    if kind == "not-tensor":
        choice = rng.choice(NOT_TENSORS)
        values[position] = not_a_tensor(choice, value)
        what.append("arg %d %s" % (position, choice))
        return None
    choice = rng.choice(SPECIALS)
    replaced = special(choice, value)
    if replaced is None:
        return damage_call(rng, specs, values, s0, kwargs, what)
    values[position] = replaced
    what.append("arg %d %s" % (position, choice))
    return "last"


# -- closed artifacts, load options -----------------------------------------
def close_case(rng, what):
    artifact = load(rng, "affine", what)
    entry = artifact.entry("affine")
    args = [draw(rng, "f32", [3, 4]), draw(rng, "f32", [3, 4]),
            draw(rng, "i64", [3]), draw(rng, "f32", [4, 4]),
            draw(rng, "f32", [4])]
    if rng.random() < 0.5:
        check_results(artifact(*args), reference("affine", shown(args), None,
                                                 False)[0])
        what.append("called")
    artifact.close()
    if rng.random() < 0.3:
        artifact.close()
        what.append("closed twice")
    else:
        what.append("closed")
    for label, call in (("the artifact", lambda: artifact(*args)),
                        ("its entry", lambda: entry(*args)),
                        ("its entry by name",
                         lambda: artifact.entry("affine")(*args[:2]))):
        status, result = outcome_of(call)
        if status != "error":
            raise Failure("%s called after close(): no GraphError" % label)


def load_options_case(rng, what):
    """graphpart.load's options given wrong; loaded, a call is correct."""
    program = rng.choice(["affine", "inplace", "index"])
    choice = rng.randrange(6)
    options = {}
    expect = "invalid"
    if choice == 0:
        right = MUTATED.get(program)
        value = rng.choice([[5], ["a"], "0", 0, [0, 0], {"nope": [0]},
                            {program: [9]}, [-1], [None], [True], [1.0],
                            [], {}, None, right, tuple(right or ()),
                            {program: right or []}, [0]])
        options["mutated_inputs"] = value
        what.append("mutated_inputs=%r" % (value,))
        # (By type too: [True] == [1] in Python, but a bool is no position.)
        if repr(value) in map(repr, ([], {}, None, (), {program: []})) or (
                right and repr(value) in map(repr, (right, tuple(right),
                                                    {program: right}))):
            expect = "valid"
    elif choice == 1:
        value = rng.choice([-5, -1, 0, 3, 2 ** 40, 2 ** 70, "x", None, 1.5,
                            True])
        options["device"] = value
        what.append("device=%r" % (value,))
        expect = "valid" if value in (-1, None) and value is not True else \
            "either" if isinstance(value, int) else "invalid"
    elif choice == 2:
        value = rng.choice(["cuda", "tpu", "", 3, None, "host", b"host"])
        options["backend"] = value
        what.append("backend=%r" % (value,))
        expect = "valid" if value in (None, "host") else "either"
    elif choice == 3:
        value = rng.choice([1, "yes", [], None, 0])
        options["views"] = value
        what.append("views=%r" % (value,))
        expect = "valid"
    elif choice == 4:
        value = rng.choice(["/nonexistent/libgpruntime.so",
                            os.path.join(WORK, "affine.mlir"), 3, WORK,
                            b"/nonexistent"])
        what.append("runtime_library=%r" % (value,))
        status, _ = outcome_of(lambda: graphpart.load(
            os.path.join(WORK, program + ".so"), runtime_library=value))
        if status != "error":
            raise Failure("no GraphError")
        return
    else:
        value = rng.choice([os.path.join(WORK, "nope.so"), WORK,
                            os.path.join(WORK, "affine.mlir"),
                            os.path.join(WORK, "build.json"), 7, None,
                            os.path.join(WORK, "weights", "w.npy"), "",
                            ["affine.so"]])
        what.append("path=%r" % (value,))
        status, _ = outcome_of(lambda: graphpart.load(
            value, runtime_library=RUNTIME))
        if status != "error":
            raise Failure("no GraphError")
        return
    what.append("expect %s" % expect)
    status, artifact = outcome_of(lambda: graphpart.load(
        os.path.join(WORK, program + ".so"), runtime_library=RUNTIME,
        **options))
    if status == "error":
        if expect == "valid":
            raise Failure("GraphError for valid options: %s" % artifact)
        if VERBOSE:
            print("    GraphError: %s" % artifact)
        return
    if expect == "invalid":
        raise Failure("no GraphError at load")
    # Loaded: a call is correct (written inputs copied back as declared).
    declared = list(artifact.entries.values())[0].mutated_inputs
    args = []
    for _, element, shape in ARGS[program]:
        if element == "index":
            args.append(rng.randint(0, 6))
        else:
            args.append(draw(rng, element, [3 if s == S0 else s
                                            for s in shape]))
    show = shown(args)
    status, result = outcome_of(lambda: artifact(*args))
    if status == "error":
        if expect == "valid":
            raise Failure("GraphError calling it: %s" % result)
        return
    outputs, final = reference(program, show, None, False)
    if declared:
        outputs = outputs[:len(outputs) - len(declared)]
        for position in declared:
            same(args[position], final[position],
                 "written argument %d" % position)
    check_results(result, outputs)


# -- weights= directories and parameter sources -----------------------------
def save_npy(path, array, rng, what, label):
    """Saves `array` to `path`, maybe damaged; returns the array a reader
    must see, or None where the file cannot be what the program takes."""
    kind = rng.choice(["intact"] * 6 + [
        "missing", "cut", "garbage", "empty", "directory", "retype",
        "reshape", "big-endian", "fortran", "version 2", "0-d", "object",
        "transposed"])
    what.append("%s %s" % (label, kind))
    if kind == "missing":
        return None
    if kind == "directory":
        os.makedirs(path)
        return None
    if kind == "empty":
        open(path, "wb").close()
        return None
    if kind == "retype":
        dtype = rng.choice(["<f8", "<i4", "<f2", "<i8", "|b1", "<u2",
                            "<c8", "|u1", ">f8"])
        np.save(path, array.astype(dtype))
        what[-1] += " " + dtype
        return None
    if kind == "reshape":
        shape = rng.choice([[-1], [1, -1], list(array.shape) + [1]])
        np.save(path, array.reshape(shape))
        return array if array.reshape(shape).shape == array.shape else None
    if kind == "big-endian":
        np.save(path, array.astype(">f4"))
        return array
    if kind == "fortran":
        np.save(path, np.asfortranarray(array))
        return array
    if kind == "transposed":
        # Another array of the same shape where square: read as it is.
        np.save(path, np.ascontiguousarray(array.T))
        return array.T if array.shape == array.T.shape else None
    if kind == "version 2":
        with open(path, "wb") as f:
            np.lib.format.write_array(f, array, version=(2, 0))
        return array
    if kind == "0-d":
        np.save(path, np.float32(1.5))
        return None
    if kind == "object":
        np.save(path, np.array([None, 1], dtype=object), allow_pickle=True)
        return None
    np.save(path, array)
    if kind in ("cut", "garbage"):
        data = bytearray(open(path, "rb").read())
        if kind == "cut":
            data = data[:rng.randrange(len(data))]
        else:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(min(len(data), 128))] = rng.randrange(256)
        open(path, "wb").write(bytes(data))
        # What a careful reader sees: numpy's own reading of the file,
        # taken only where it is whole and of the right dtype and shape.
        try:
            seen = np.load(path, allow_pickle=False)
        except Exception:  # noqa: BLE001 - numpy's, any type
            return None
        if seen.dtype.newbyteorder("<") != np.dtype("<f4") or \
                seen.shape != array.shape:
            return None
        return seen.astype("<f4")
    return array


def weights_case(rng, what):
    """A weights= directory: by position (affine, DIR/affine.weights) or by
    name (named), damaged."""
    directory = tempfile.mkdtemp(dir=WORK, prefix="weights-")
    try:
        program = rng.choice(["affine", "affine", "named"])
        if program == "affine":
            arrays = {"w.npy": draw(rng, "f32", [4, 4]).numpy(),
                      "b.npy": draw(rng, "f32", [4]).numpy()}
            shapes = {"w.npy": [4, 4], "b.npy": [4]}
            listing = ["w.npy", "b.npy"]
            choice = rng.randrange(10)
            if choice == 0:
                listing = ["b.npy", "w.npy"]
                what.append("listing reordered")
            elif choice == 1:
                listing = ["n.npy", "w.npy", "b.npy"]
                arrays["n.npy"] = draw(rng, "i64", [3]).numpy()
                shapes["n.npy"] = [3]
                what.append("listing with n too")
            elif choice == 2:
                listing = ["b.npy"]
                what.append("listing of b only")
            elif choice == 3:
                listing = ["w.npy", "b.npy", "w.npy", "b.npy", "w.npy",
                           "b.npy"]
                what.append("listing too long")
            elif choice == 4:
                listing = None
                what.append("no listing")
            elif choice == 5:
                listing = ["", "  w.npy  ", "", "b.npy", ""]
                what.append("listing with blank lines")
            elif choice == 6:
                listing = b"\xff\xfe\x00w.npy\n"
                what.append("listing not text")
            elif choice == 7:
                listing = ["w.npy", "nope.npy"]
                what.append("listing names a missing file")
            if isinstance(listing, bytes):
                open(os.path.join(directory, "affine.weights"),
                     "wb").write(listing)
            elif listing is not None:
                with open(os.path.join(directory, "affine.weights"),
                          "w") as f:
                    f.write("\n".join(listing) + "\n")
        else:
            arrays = {name + ".npy": draw(rng, "f32", shape).numpy()
                      for name, shape in PARAMETERS.items()}
            shapes = {name + ".npy": shape
                      for name, shape in PARAMETERS.items()}
            listing = sorted(arrays)
        seen = {}
        for file, array in arrays.items():
            if file == "n.npy":
                np.save(os.path.join(directory, file), array)
                seen[file] = array
                continue
            seen[file] = save_npy(os.path.join(directory, file), array, rng,
                                  what, file)
        where = directory
        if rng.random() < 0.05:
            where = rng.choice([os.path.join(directory, "nope"),
                                os.path.join(directory, "w.npy"),
                                os.path.join(directory, "fc.bias.npy")])
            what.append("weights=%s" % os.path.basename(where))
            listing = None
        # The oracle: which files bind where, and whether all fit.
        if program == "affine":
            valid = isinstance(listing, list)
            files = [line.strip() for line in listing if line.strip()] \
                if valid else []
            valid = valid and 0 < len(files) <= 5
            positions = list(range(5 - len(files), 5)) if valid else []
            bound = {}
            for position, file in zip(positions, files):
                spec = ARGS["affine"][position]
                array = seen.get(file)
                if array is None or spec[2] != shapes.get(file) or \
                        DTYPES[spec[1]] != str(array.dtype.newbyteorder(
                            "=")):
                    valid = False
                bound[position] = array
        else:
            valid = where == directory and all(
                seen[f] is not None for f in arrays)
        what.append("expect %s" % ("valid" if valid else "invalid"))
        status, artifact = outcome_of(lambda: load(
            rng, program, what, weights=where))
        if status == "error":
            if valid:
                raise Failure("GraphError for valid weights: %s" % artifact)
            if VERBOSE:
                print("    GraphError: %s" % artifact)
            return
        if not valid:
            raise Failure("loaded; the weights are not valid")
        s0 = rng.randint(1, 5)
        if program == "affine":
            args = [draw(rng, e, [s0 if s == S0 else s for s in shape])
                    for _, e, shape in ARGS["affine"]]
            show = shown(args)
            for position, array in bound.items():
                show[position] = np.ascontiguousarray(array).astype(
                    array.dtype.newbyteorder("="))
            result = artifact(*args[:5 - len(bound)])
            check_results(result, reference("affine", show, None, False)[0])
        else:
            x = draw(rng, "f32", [s0, 4])
            parameters = {name: seen[name + ".npy"].astype("<f4")
                          for name in PARAMETERS}
            check_results(artifact(x), reference("named", shown([x]),
                                                 parameters, False)[0])
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def parameter_value(rng, array, what, name):
    """A value for parameter `name` (its intended values `array`):
    (value, the values the program must read or None where invalid)."""
    kind = rng.choice(["tensor"] * 5 + [
        "transposed", "expanded", "neg-view", "requires-grad", "parameter",
        "inference", "numpy", "numpy fortran", "numpy big-endian",
        "numpy read-only", "numpy strided", "float64", "float16", "int64",
        "shape", "rank", "None", "list", "float", "string", "meta",
        "sparse", "mkldnn", "quantized", "numpy float64", "numpy int32",
        "numpy object", "numpy uint16", "numpy 0-d", "storage-shrunk"])
    what.append("%s %s" % (name, kind))
    tensor = torch.from_numpy(array.copy())
    if kind == "tensor":
        return tensor, array
    if kind == "transposed":
        if array.ndim != 2:
            return tensor, array
        return tensor.t().contiguous().t(), array
    if kind == "expanded":
        row = torch.from_numpy(array[:1].copy())
        return row.expand(array.shape), np.broadcast_to(array[:1],
                                                        array.shape)
    if kind == "neg-view":
        value = torch._neg_view(-tensor) if hasattr(torch, "_neg_view") \
            else torch.complex(torch.zeros_like(tensor), -tensor).conj().imag
        return value, array
    if kind == "requires-grad":
        return tensor.requires_grad_(True), array
    if kind == "parameter":
        return torch.nn.Parameter(tensor), array
    if kind == "inference":
        with torch.inference_mode():
            return tensor.clone(), array
    if kind == "numpy":
        return array.copy(), array
    if kind == "numpy fortran":
        return np.asfortranarray(array), array
    if kind == "numpy big-endian":
        return array.astype(">f4"), array
    if kind == "numpy read-only":
        value = array.copy()
        value.flags.writeable = False
        return value, array
    if kind == "numpy strided":
        wide = np.zeros(array.shape[:-1] + (array.shape[-1] * 2,),
                        dtype=array.dtype)
        wide[..., ::2] = array
        return wide[..., ::2], array
    if kind in ("float64", "float16", "int64"):
        return tensor.to(getattr(torch, kind)), None
    if kind == "shape":
        return torch.zeros([s + 1 for s in array.shape]), None
    if kind == "rank":
        return tensor.reshape(-1, 1), None
    if kind in ("None", "list", "float", "string"):
        return {"None": None, "list": array.tolist(), "float": 1.5,
                "string": "w"}[kind], None
    if kind.startswith("numpy "):
        return {"numpy float64": array.astype(np.float64),
                "numpy int32": array.astype(np.int32),
                "numpy object": array.astype(object),
                "numpy uint16": array.astype(np.uint16),
                "numpy 0-d": np.float32(1.5)}[kind], None
    replaced = special({"storage-shrunk": "storage-shrunk"}.get(kind, kind),
                       tensor)
    if replaced is None:
        return tensor, array
    return replaced, None


def parameters_case(rng, what):
    """The named program's parameters from a state dict (values fuzzed),
    a directory, a safetensors file, a list of sources, or a module whose
    tensors then change."""
    intended = {name: draw(rng, "f32", shape).numpy()
                for name, shape in PARAMETERS.items()}
    source = rng.choice(["dict", "dict", "dict", "directory", "safetensors",
                         "list", "module", "module"])
    what.append(source)
    directory = tempfile.mkdtemp(dir=WORK, prefix="parameters-")
    try:
        module = None
        seen = {}
        if source == "dict":
            given = {}
            for name, array in intended.items():
                given[name], seen[name] = parameter_value(rng, array, what,
                                                          name)
            if rng.random() < 0.1:
                del given[rng.choice(sorted(given))]
                what.append("one left out")
                seen = {}
            if rng.random() < 0.05:
                given["extra.weight"] = None
                what.append("an extra entry")
            options = {"parameters": given}
        elif source in ("directory", "list"):
            for name, array in intended.items():
                seen[name] = save_npy(os.path.join(directory, name + ".npy"),
                                      array, rng, what, name)
            options = {"parameters": directory}
            if source == "list":
                # The first source that has a name wins.
                first = rng.choice(sorted(intended))
                value, first_seen = parameter_value(
                    rng, draw(rng, "f32", PARAMETERS[first]).numpy(), what,
                    first)
                options = {"parameters": [{first: value}, directory]}
                seen[first] = first_seen
        elif source == "safetensors":
            path = os.path.join(directory, "p.safetensors")
            written = dict(intended)
            if rng.random() < 0.3:
                name = rng.choice(sorted(written))
                written[name] = written[name].astype(np.float64)
                what.append("%s float64" % name)
                seen = {}
            else:
                seen = dict(intended)
            graphpart.write_safetensors(path, written)
            options = {"parameters": path}
        else:
            module = torch.nn.Module()
            module.fc = torch.nn.Linear(4, 3)
            with torch.no_grad():
                module.fc.weight.copy_(torch.from_numpy(
                    intended["fc.weight"]))
                module.fc.bias.copy_(torch.from_numpy(intended["fc.bias"]))
            seen = dict(intended)
            choice = rng.randrange(6)
            if choice == 0:
                module.fc.weight = torch.nn.Parameter(torch.zeros(3, 5))
                what.append("fc.weight of shape [3, 5]")
                seen = {}
            elif choice == 1:
                module.double()
                what.append("a double module")
                seen = {}
            elif choice == 2:
                module.fc.bias = torch.nn.Parameter(
                    torch.zeros(3, device="meta"))
                what.append("a meta bias")
                seen = {}
            options = {"module": module}
        for name in PARAMETERS:
            if seen.get(name) is None:
                seen = {}
        valid = bool(seen)
        what.append("expect %s" % ("valid" if valid else "invalid"))
        status, artifact = outcome_of(lambda: load(rng, "named", what,
                                                   **options))
        if status == "error":
            if valid:
                raise Failure("GraphError for valid parameters: %s"
                              % artifact)
            if VERBOSE:
                print("    GraphError: %s" % artifact)
            return
        if not valid:
            raise Failure("loaded; the parameters are not valid")
        x = draw(rng, "f32", [rng.randint(1, 5), 4])
        parameters = {n: np.ascontiguousarray(v).astype("<f4")
                      for n, v in seen.items()}
        with torch.no_grad():
            check_results(artifact(x), reference("named", shown([x]),
                                                 parameters, False)[0])
        if module is None:
            return
        module_changes(rng, artifact, module, x, what)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def module_changes(rng, artifact, module, x, what):
    """The module's tensors change after load: the next call reads the new
    values, or raises GraphError naming a tensor that no longer fits."""
    choice = rng.randrange(10)
    fits = True
    with torch.no_grad():
        if choice == 0:
            module.fc.weight.mul_(2)
            what.append("weight scaled in place")
        elif choice == 1:
            module.fc.weight = torch.nn.Parameter(torch.randn(3, 4))
            what.append("weight replaced")
        elif choice == 2:
            module.fc.weight.data = torch.randn(3, 4)
            what.append("weight .data replaced")
        elif choice == 3:
            module.load_state_dict({"fc.weight": torch.randn(3, 4),
                                    "fc.bias": torch.randn(3)})
            what.append("load_state_dict")
        elif choice == 4:
            module.fc.weight = torch.nn.Parameter(torch.randn(4, 3).t())
            what.append("weight replaced by a transposed view")
            fits = False
        elif choice == 5:
            module.fc.weight = torch.nn.Parameter(torch.randn(3, 5))
            what.append("weight replaced by a [3, 5]")
            fits = False
        elif choice == 6:
            module.fc.bias = torch.nn.Parameter(torch.randn(3).to_sparse())
            what.append("bias replaced by a sparse tensor")
            fits = False
        elif choice == 7:
            storage_shrink(module.fc.weight.data, rng.choice([0, 5]))
            what.append("weight's storage shrunk")
            fits = False
        elif choice == 8:
            module.double()
            what.append("module.double()")
            fits = False
        else:
            module.fc.bias = torch.nn.Parameter(torch._neg_view(
                torch.randn(3)) if hasattr(torch, "_neg_view") else
                torch.randn(3))
            what.append("bias replaced by a negated view")
            fits = "either"
    status, result = outcome_of(lambda: artifact(x))
    if status == "error":
        if fits is True:
            raise Failure("GraphError after a change that fits: %s" % result)
        if VERBOSE:
            print("    GraphError: %s" % result)
        return
    if fits is False:
        raise Failure("no GraphError for a module tensor that no longer "
                      "fits; returned %s" % describe(result))
    parameters = {"fc.weight": values_of(module.fc.weight),
                  "fc.bias": values_of(module.fc.bias)}
    check_results(result, reference("named", shown([x]), parameters,
                                    False)[0])


# -- running cases ------------------------------------------------------------
CASES = [(call_case, 70), (close_case, 4), (load_options_case, 6),
         (weights_case, 10), (parameters_case, 10)]


class Steps(list):
    """What a case did, step by step (printed as it goes with --trace,
    for a case that kills the process)."""
    trace = False

    def append(self, step):
        if self.trace:
            print("  step: %s" % step, file=sys.stderr, flush=True)
        super().append(step)


def run_case(index, seed):
    """Case `index`: None, or a failure's description."""
    rng = random.Random(seed * 1000033 + index)
    total = sum(w for _, w in CASES)
    pick = rng.randrange(total)
    for function, weight in CASES:
        if pick < weight:
            break
        pick -= weight
    what = Steps()
    try:
        signal.alarm(10)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            function(rng, what)
        failure = None
    except Failure as found:
        failure = str(found)
    except Timeout:
        failure = "ran past 10 s"
    except Exception:  # noqa: BLE001 - any other type is the finding
        failure = traceback.format_exc(limit=-4).strip()
    finally:
        signal.alarm(0)
    if VERBOSE:
        print("case %d: %s: %s" % (index, "; ".join(what),
                                   failure or "ok"))
    return None if failure is None else "%s: %s" % ("; ".join(what),
                                                    failure)


def worker(args):
    """Runs cases args.start .. args.cases - 1, writing the number of the
    case under way to args.progress, and the failures to stdout; exits 0."""
    global torch, RUNTIME, WORK, VERBOSE, WEIGHTS
    import torch as torch_module
    torch = torch_module
    RUNTIME, WORK, VERBOSE = args.runtime_library, args.work, args.verbose
    Steps.trace = args.trace
    torch.manual_seed(args.seed)
    WEIGHTS = [np.load(os.path.join(WORK, "weights", name))
               for name in ("w.npy", "b.npy")]

    def timeout(*_):
        raise Timeout()
    signal.signal(signal.SIGALRM, timeout)
    progress = os.open(args.progress, os.O_WRONLY)
    failures = 0
    end = args.start + 1 if args.case is not None else args.cases
    for index in range(args.start, end):
        os.pwrite(progress, b"%12d" % index, 0)
        failure = run_case(index, args.seed)
        if failure:
            failures += 1
            print("FAILED call case %d (--seed %d --case %d): %s"
                  % (index, args.seed, index, failure), flush=True)
    os.pwrite(progress, b"%12d" % end, 0)
    os.close(progress)
    print("worker: %d failure(s)" % failures, flush=True)
    return 0


HANG = 60


def watchdog(child, progress, hung):
    """Kills `child` when one case runs past HANG seconds (a hang in
    native code, where the case's own alarm cannot interrupt it)."""
    last, since = None, time.time()
    while child.poll() is None:
        time.sleep(0.5)
        try:
            with open(progress, "rb") as f:
                now = f.read()
        except OSError:
            continue
        if now != last:
            last, since = now, time.time()
        elif time.time() - since > HANG:
            hung.append(True)
            child.kill()
            return


def supervise(args, work):
    """Runs the cases in child processes, each from the case after the
    last one's end: a case that kills its process is a failure, and the
    run goes on after it. Returns the number of failures."""
    progress = os.path.join(work, "progress")
    start = args.case if args.case is not None else 0
    end = start + 1 if args.case is not None else args.cases
    failures = 0
    while start < end:
        with open(progress, "wb") as f:
            f.write(b"%12d" % start)
        command = [sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "--worker",
                   "--work", work, "--progress", progress, "--seed",
                   str(args.seed), "--cases", str(args.cases), "--start",
                   str(start), "--runtime-library", args.runtime_library]
        if args.case is not None:
            command += ["--case", str(args.case)]
        if args.verbose:
            command.append("--verbose")
        if args.trace:
            command.append("--trace")
        child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        hung = []
        watch = threading.Thread(target=watchdog,
                                 args=(child, progress, hung), daemon=True)
        watch.start()
        for line in child.stdout:
            if line.startswith("worker: "):
                failures += int(line.split()[1])
            else:
                print(line, end="", flush=True)
        child.wait()
        watch.join()
        with open(progress, "rb") as f:
            reached = int(f.read().strip() or start)
        if child.returncode == 0 and reached >= end:
            break
        failures += 1
        print("FAILED call case %d (--seed %d --case %d): %s" % (
            reached, args.seed, reached, "ran past %d s (killed)" % HANG
            if hung else "the process died (%s; --trace shows the case's "
            "steps)" % ("signal %d" % -child.returncode
                        if child.returncode < 0
                        else "exit status %d" % child.returncode)),
            flush=True)
        start = reached + 1
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gp-compile", default="gp-compile")
    parser.add_argument("--runtime-library", required=True)
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--case", type=int, default=None)
    parser.add_argument("--verbose", action="store_true",
                        help="print each case and its GraphError")
    parser.add_argument("--trace", action="store_true",
                        help="print each step of a case as it is taken "
                        "(with --case, for one that kills the process)")
    parser.add_argument("--worker", action="store_true",
                        help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--progress", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0,
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    begin = time.time()
    work = tempfile.mkdtemp(prefix="gp-fuzz-calls-")
    try:
        build(work, args.gp_compile)
        weights = os.path.join(work, "weights")
        os.makedirs(weights)
        state = np.random.RandomState(args.seed)
        np.save(os.path.join(weights, "w.npy"),
                state.standard_normal((4, 4)).astype(np.float32))
        np.save(os.path.join(weights, "b.npy"),
                state.standard_normal(4).astype(np.float32))
        with open(os.path.join(weights, "affine.weights"), "w") as f:
            f.write("w.npy\nb.npy\n")
        # The native call path is built (or found on disk) here, before any
        # case's 10 s alarm: its first build, or waiting for another
        # process's build of it, takes longer than a case may.
        from graphpart import runtime
        runtime._native()
        failures = supervise(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("fuzz calls: %d case(s) in %.0f s: %d failure(s)"
          % (1 if args.case is not None else args.cases,
             time.time() - begin, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
