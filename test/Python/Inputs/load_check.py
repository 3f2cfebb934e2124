"""graphpart.load on the host backend with torch CPU tensors, against
PyTorch eager (and numpy for the weight-argument MLP), with fresh inputs on
every call; then the errors a caller can hit.

    load_check.py RUNTIME_LIBRARY CONVERTED_DIR UPSTREAM_MLP_SO MLP_WEIGHTS
"""
import os
import sys

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "Runtime", "E2E", "Inputs",
                                "upstream"))
import graphpart  # noqa: E402
import programs  # noqa: E402
from models import weights  # noqa: E402

runtime, converted, mlp_so, mlp_weights = sys.argv[1:5]
torch.manual_seed(3)
failures = 0


def check(label, got, want, rtol=1e-4, atol=1e-5):
    global failures
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    ok = len(got) == len(want) and all(
        g.shape == w.shape and torch.allclose(g, w, rtol=rtol, atol=atol)
        for g, w in zip(got, want))
    failures += not ok
    print("%s %s" % ("ok" if ok else "FAILED", label))


table = programs.programs()


def saved(graph):
    """A checked-in graph's constants, the program's parameters (None for
    a graph without constants)."""
    path = os.path.join(here, "graphs", graph, "constants")
    return path if os.path.isdir(path) else None


for name, shapes in (("block", [(5, 16)]), ("views", [(2, 3, 4), (2, 4)]),
                     ("batched", [(2, 3, 4), (2, 4, 5)])):
    fn = table[name][0]
    model = graphpart.load(os.path.join(converted, name + ".so"),
                           backend="host", runtime_library=runtime,
                           parameters=saved(name))
    for step in range(3):
        inputs = [torch.randn(*s) for s in shapes]
        with torch.no_grad():
            want = fn(*[i.clone() for i in inputs])
        check("%s call %d" % (name, step), model(*inputs), want)

# A dynamic batch (captured with dynamic={0: [0]}): one artifact, any
# number of rows, against PyTorch eager.
dynamic = graphpart.load(os.path.join(converted, "block_dynamic.so"),
                         backend="host", runtime_library=runtime,
                         parameters=saved("block_dynamic"))
fn = table["block_dynamic"][0]
for rows in (1, 5, 9, 33):
    x = torch.randn(rows, 16)
    with torch.no_grad():
        check("block_dynamic %d rows" % rows, dynamic(x), fn(x))

# A transposed (non-contiguous) argument: entries take row-major layouts,
# so it is copied first and the result matches PyTorch's on the same view.
block = graphpart.load(os.path.join(converted, "block.so"), backend="host",
                       runtime_library=runtime, parameters=saved("block"))
x = torch.randn(16, 5).t()
with torch.no_grad():
    check("block on a transposed view", block(x), table["block"][0](x))

# A program that writes to its inputs: the artifact returns their final
# values after its outputs, and the loaded callable writes them back into
# the caller's tensors, as PyTorch eager does; fresh indices every call,
# negative and repeated ones included.
inplace = graphpart.load(os.path.join(converted, "inplace.so"),
                         backend="host", runtime_library=runtime,
                         mutated_inputs=[0, 1], parameters=saved("inplace"))
fn = table["inplace"][0]
for step, idx in enumerate(([4, -1, 1], [0, 2, -3], [4, 4, 0])):
    x, y = torch.randn(6, 5), torch.randn(6, 5)
    index, mask = torch.tensor(idx), torch.randn(6, 5) > 0
    x_eager, y_eager = x.clone(), y.clone()
    with torch.no_grad():
        want = fn(x_eager, y_eager, index, mask)
    got = inplace(x, y, index, mask)
    check("inplace call %d" % step, tuple(got) + (x, y),
          tuple(want) + (x_eager, y_eager))

# views=True: results are views of the program's memory, no copies. The
# next call writes there again (a view kept from before shows the new
# values); debug_overwrite=True poisons stale views instead (NaN).
block_fn = table["block"][0]
for debug in (False, True):
    viewing = graphpart.load(os.path.join(converted, "block.so"),
                             backend="host", runtime_library=runtime,
                             parameters=saved("block"),
                             views=True, debug_overwrite=debug)
    xs = [torch.randn(5, 16) for _ in range(3)]
    kept = []
    for step, x in enumerate(xs):
        kept.append(viewing(x))
        with torch.no_grad():
            check("views%s call %d" % (" (debug)" if debug else "", step),
                  kept[-1], block_fn(x))
    with torch.no_grad():
        latest = block_fn(xs[-1])
    if debug:
        print("debug_overwrite: stale views poisoned: %s" % all(
            torch.isnan(v).all().item() for v in kept[:-1]))
    else:
        print("views: one buffer for every call: %s, the first view shows "
              "the last call: %s" % (
                  len({v.data_ptr() for v in kept}) == 1,
                  torch.allclose(kept[0], latest, atol=1e-5)))

# Weight arguments (gp-compile --weights) and a dynamic batch.
mlp = graphpart.load(mlp_so, backend="host", weights=mlp_weights,
                     runtime_library=runtime)
w1, b1 = weights("w1", (64, 32)), weights("b1", (64,))
w2, b2 = weights("w2", (16, 64)), weights("b2", (16,))
for batch in (1, 7, 3):
    x = np.random.default_rng(batch).standard_normal((batch, 32)) \
        .astype(np.float32)
    want = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    check("mlp batch %d" % batch, mlp.entry("mlp")(torch.from_numpy(x)),
          torch.from_numpy(want.astype(np.float32)))

# graphpart.compile: capture, convert, gp-compile and load in one call.
compiled = graphpart.compile(table["block"][0], [torch.randn(5, 16)],
                             target="host", name="block_compiled",
                             gp_compile=os.environ["GP_COMPILE"],
                             runtime_library=runtime)
for step in range(2):
    x = torch.randn(5, 16)
    with torch.no_grad():
        check("compile call %d" % step, compiled(x), table["block"][0](x))

# graphpart.compile with a dynamic batch: one artifact for every size.
dynamic = graphpart.compile(table["block"][0], [torch.randn(5, 16)],
                            target="host", name="block_any_batch",
                            gp_compile=os.environ["GP_COMPILE"],
                            runtime_library=runtime, dynamic={0: [0]})
for rows in (1, 5, 17):
    x = torch.randn(rows, 16)
    with torch.no_grad():
        check("compile dynamic=%d rows" % rows, dynamic(x),
              table["block"][0](x))

# graphpart.compile on a mutating program writes the inputs back too.
compiled_inplace = graphpart.compile(
    fn, [torch.randn(6, 5), torch.randn(6, 5), torch.tensor([1, 2, 3]),
         torch.randn(6, 5) > 0],
    target="host", name="inplace_compiled",
    gp_compile=os.environ["GP_COMPILE"], runtime_library=runtime)
x, y = torch.randn(6, 5), torch.randn(6, 5)
index, mask = torch.tensor([3, 0, -2]), torch.randn(6, 5) > 0
x_eager, y_eager = x.clone(), y.clone()
with torch.no_grad():
    want = fn(x_eager, y_eager, index, mask)
got = compiled_inplace(x, y, index, mask)
check("compile inplace", tuple(got) + (x, y),
      tuple(want) + (x_eager, y_eager))

# Custom ops written in Python, registered as externs. mylib::op1 as
# captured (capturable): recorded into the host graph and called again on
# every replay. Then tagged cudagraph_unsafe, as torch.library marks such
# ops, with a Python function of the user's: an eager partition between
# replayed ones. Each against PyTorch eager, the calls counted.
import subprocess  # noqa: E402
calls = []


def counted_op1(t):
    calls.append(t.shape)
    return torch.ops.mylib.op1(t)


def build(graph, name):
    mlir = os.path.join(converted, name + ".mlir")
    artifact = os.path.join(converted, name + ".so")
    with open(mlir, "w") as f:
        f.write(graphpart.convert(*graph))
    subprocess.run([os.environ["GP_COMPILE"], mlir, "--bufferize",
                    "-o", artifact], check=True)
    return artifact


fn = table["mlp_custom_op"][0]
graphs = os.path.join(here, "graphs")
unsafe = graphpart.load_graph(os.path.join(graphs, "mlp_custom_op"))
unsafe[0]["custom_ops"]["mylib::op1"]["tags"] = ["cudagraph_unsafe"]
for name, graph, capturable in (
        ("mlp_custom_op", graphpart.load_graph(
            os.path.join(graphs, "mlp_custom_op")), True),
        ("mlp_unsafe_op", unsafe, False)):
    graphpart.register_extern("mylib::op1", counted_op1,
                              capturable=capturable, mutates="0",
                              aliases="-,-", runtime_library=runtime)
    artifact = build(graph, name)
    model = graphpart.load(artifact, backend="host", runtime_library=runtime,
                           parameters=saved("mlp_custom_op"))
    del calls[:]
    for step in range(4):
        x = torch.randn(1, 6)
        with torch.no_grad():
            want = fn(x)
        check("%s call %d" % (name, step), model(x), want)
    print("%s: the Python op ran %d time(s)" % (name, len(calls)))
# Registered by name alone: the torch op, its schema read from torch.
graphpart.register_extern("mylib::op1", capturable=True,
                          runtime_library=runtime)
model = graphpart.load(os.path.join(converted, "mlp_custom_op.so"),
                       backend="host", runtime_library=runtime,
                       parameters=saved("mlp_custom_op"))
x = torch.randn(1, 6)
with torch.no_grad():
    check("mlp_custom_op with torch.ops.mylib.op1", model(x), fn(x))


# graphpart.compile registers the custom ops it captured: the torch op,
# or the function given for it.
for label, given in (("torch op", None), ("given function",
                                          {"mylib::op1": counted_op1})):
    del calls[:]
    compiled_custom = graphpart.compile(
        fn, [torch.randn(1, 6)], target="host", name="custom_compiled",
        gp_compile=os.environ["GP_COMPILE"], runtime_library=runtime,
        externs=given)
    x = torch.randn(1, 6)
    with torch.no_grad():
        check("compile with a custom op, %s" % label, compiled_custom(x),
              fn(x))
    print("compile with a custom op, %s: counted %d call(s)"
          % (label, len(calls)))

# The same op from the examples' C++ extern library.
graphpart.load_extern_library(os.environ["GP_EXAMPLE_EXTERNS"],
                              runtime_library=runtime)
model = graphpart.load(os.path.join(converted, "mlp_custom_op.so"),
                       backend="host", runtime_library=runtime,
                       parameters=saved("mlp_custom_op"))
x = torch.randn(1, 6)
with torch.no_grad():
    check("mlp_custom_op with the C++ extern library", model(x), fn(x))


def raising_op1(t):
    raise RuntimeError("no such luck")


for label, register, path in (
        ("disagreeing tag", lambda: graphpart.register_extern(
            "mylib::op1", counted_op1, capturable=False,
            runtime_library=runtime), "mlp_custom_op"),
        ("raising op", lambda: graphpart.register_extern(
            "mylib::op1", raising_op1, capturable=False,
            runtime_library=runtime), "mlp_unsafe_op"),
        ("short result", lambda: graphpart.register_extern(
            "mylib::op1", lambda t: (t[:4].clone(), t.clone()),
            runtime_library=runtime), "mlp_unsafe_op"),
        ("unknown torch op", lambda: graphpart.register_extern(
            "mylib::nope", runtime_library=runtime), None),
        ("missing library", lambda: graphpart.load_extern_library(
            "/nonexistent/libmine.so", runtime_library=runtime), None)):
    try:
        register()
        model = graphpart.load(os.path.join(converted, path + ".so"),
                               backend="host", runtime_library=runtime,
                               parameters=saved("mlp_custom_op"))
        model(torch.randn(1, 6))
        print("FAILED no error for %s" % label)
        failures += 1
    except graphpart.GraphError as error:
        print("error %s: %s" % (label, error))

for label, call in (
        ("count", lambda: block()),
        ("dtype", lambda: block(torch.zeros(5, 16, dtype=torch.float64))),
        ("shape", lambda: block(torch.zeros(4, 16))),
        ("entry", lambda: block.entry("nope"))):
    try:
        call()
        print("FAILED no error for %s" % label)
        failures += 1
    except graphpart.GraphError as error:
        print("error %s: %s" % (label, error))
# The runtime itself refuses what compiled code would misread: a strided
# descriptor for a row-major argument, and sizes other than the static ones.
import ctypes  # noqa: E402
for label, value in (("strided", torch.randn(16, 5).t()),
                     ("sizes", torch.randn(4, 16))):
    words = [value.data_ptr(), value.data_ptr(), 0] + list(value.shape) + \
        list(value.stride())
    descriptor = (ctypes.c_int64 * len(words))(*words)
    # The bound parameters' slots NULL: the runtime reads their bindings.
    args = (ctypes.c_void_p * len(block.entry("block").args))(
        ctypes.cast(ctypes.pointer(descriptor), ctypes.c_void_p))
    result = (ctypes.c_int64 * 7)()
    results = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.pointer(result),
                                                ctypes.c_void_p))
    status = block.lib.gpRtArtifactCall(block.handle, 0, args, results)
    print("runtime %s: status %d: %s" % (
        label, status, block.lib.gpRtGetLastError().decode()))
    failures += status == 0
print("load: %d failure(s)" % failures)
sys.exit(1 if failures else 0)
