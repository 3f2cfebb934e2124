"""What a caller of graphpart's Python API can get wrong, on the host
backend: example inputs that are not tensors, element types the format
lacks (named with their op), weights directories (gp-compile --weights)
missing, wrong or by position, inputs and module parameters that require
grad (the artifact computes none: one warning per artifact), a missing
build.json, and compile()'s views=.

    api_errors_check.py RUNTIME_LIBRARY GP_COMPILE WORK

WORK holds affine.so, compiled from a graph whose weights w and b are plain
arguments after the input x (not named parameters), and WORK/weights with
w.npy, b.npy and affine.weights listing them, as gp-import's weights-dir
writes them.
"""
import os
import sys
import warnings

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
import graphpart  # noqa: E402
from check_report import Report  # noqa: E402
from graphpart.compiler import load_built  # noqa: E402

runtime, gp_compile, work = sys.argv[1:4]
report = Report("api errors", clean=lambda text: text.replace(work, "WORK"))
check, error = report.check, report.error


def warned(action):
    """The graphpart warnings `action` gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [str(w.message) for w in caught if "graphpart" in
            str(w.message)]


# -- capture: inputs are tensors; element types named with their op --------
def scale(x, s):
    return x * s


for label, inputs in (("float input", [torch.randn(3), 2.0]),
                      ("int input", [torch.randn(3), 3]),
                      ("bool input", [torch.randn(3), True]),
                      ("None input", [torch.randn(3), None]),
                      ("a tensor for the list", torch.randn(3))):
    error(label, lambda inputs=inputs: graphpart.capture(
        scale, inputs, os.path.join(work, "scalar")))


def spectrum(x):
    return torch.fft.fft(x).real


error("complex64", lambda: graphpart.capture(
    spectrum, [torch.randn(8)], os.path.join(work, "fft"),
    method="make_fx"))

# -- convert: constants given as arrays are checked as files are -----------
graph = {"name": "f", "inputs": [{"name": "x", "shape": [4],
                                  "dtype": "float32"}],
         "constants": [{"name": "c", "shape": [4], "dtype": "float32",
                        "file": "constants/c.npy"}],
         "nodes": [{"name": "add", "op": "aten::add", "overload": "Tensor",
                    "args": [{"node": "x"}, {"node": "c"}],
                    "outputs": [{"shape": [4], "dtype": "float32"}]}],
         "outputs": [{"node": "add"}]}
error("convert int32 data for float32", lambda: graphpart.convert(
    graph, {"c": np.arange(4, dtype=np.int32)}))
check("convert big-endian data", graphpart.convert(
    graph, {"c": np.arange(4, dtype=">f4")}) == graphpart.convert(
    graph, {"c": np.arange(4, dtype="<f4")}))
error("convert a graph that is not a dict", lambda: graphpart.convert(
    [graph], {}))

# -- weights: by position, from DIR/<entry>.weights -------------------------
so = os.path.join(work, "affine.so")
weights = os.path.join(work, "weights")
w = np.load(os.path.join(weights, "w.npy"))
b = np.load(os.path.join(weights, "b.npy"))
model = graphpart.load(so, weights=weights, runtime_library=runtime)
x = torch.randn(4)
check("weights by position", torch.allclose(
    model(x), x * torch.from_numpy(w) + torch.from_numpy(b)))
check("weights by position, again", torch.allclose(
    model(x + 1), (x + 1) * torch.from_numpy(w) + torch.from_numpy(b)))
error("weights and an extra argument", lambda: model(x, x))
error("weights directory missing", lambda: graphpart.load(
    so, weights=os.path.join(work, "no-such-dir"), runtime_library=runtime))
error("weights directory a file", lambda: graphpart.load(
    so, weights=os.path.join(weights, "w.npy"), runtime_library=runtime))
empty = os.path.join(work, "empty")
os.makedirs(empty, exist_ok=True)
error("weights directory without the entry's list", lambda: graphpart.load(
    so, weights=empty, runtime_library=runtime))


def listing(name, lines, files=()):
    directory = os.path.join(work, name)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "affine.weights"), "w") as f:
        f.write("\n".join(lines) + "\n")
    for file, array in files:
        np.save(os.path.join(directory, file), array)
    return directory


long_list = listing("long", ["w.npy", "b.npy", "w.npy", "b.npy"],
                    [("w.npy", w), ("b.npy", b)])
error("weights list longer than the arguments", lambda: graphpart.load(
    so, weights=long_list, runtime_library=runtime))
missing_file = listing("missing-file", ["w.npy", "nope.npy"],
                       [("w.npy", w)])
error("weights file missing", lambda: graphpart.load(
    so, weights=missing_file, runtime_library=runtime))
wrong_type = listing("wrong-type", ["w.npy", "b.npy"],
                     [("w.npy", w), ("b.npy", b.astype(np.int32))])
error("weights file of another dtype", lambda: graphpart.load(
    so, weights=wrong_type, runtime_library=runtime))
wrong_shape = listing("wrong-shape", ["w.npy", "b.npy"],
                      [("w.npy", w), ("b.npy", np.zeros(5, np.float32))])
error("weights file of another shape", lambda: graphpart.load(
    so, weights=wrong_shape, runtime_library=runtime))
big_endian = listing("big-endian", ["w.npy", "b.npy"],
                     [("w.npy", w.astype(">f4")), ("b.npy", b)])
check("weights in big-endian order", torch.allclose(
    graphpart.load(so, weights=big_endian, runtime_library=runtime)(x),
    x * torch.from_numpy(w) + torch.from_numpy(b)))
error("no weights given", lambda: graphpart.load(
    so, runtime_library=runtime)(x))
error("no build.json", lambda: load_built(empty, runtime))

# -- gradients: inference only, warned once per artifact ---------------------
model = graphpart.load(so, weights=weights, runtime_library=runtime)
leaf = torch.randn(4, requires_grad=True)
with torch.no_grad():
    check("no warning under no_grad", not warned(lambda: model(leaf)))
with torch.inference_mode():
    check("no warning in inference mode", not warned(lambda: model(leaf)))
first = warned(lambda: model(leaf))
for message in first:
    print("warning input: %s" % message)
check("one warning for an input that requires grad", len(first) == 1)
check("not again for that artifact", not warned(lambda: model(leaf)))
check("no warning for inputs without grad", not warned(
    lambda: graphpart.load(so, weights=weights,
                           runtime_library=runtime)(torch.randn(4))))

torch.manual_seed(3)
linear = torch.nn.Linear(4, 3)
compiled = graphpart.compile(linear, [torch.randn(2, 4)], target="host",
                             gp_compile=gp_compile, runtime_library=runtime)
first = warned(lambda: compiled(torch.randn(2, 4)))
for message in first:
    print("warning module: %s" % message)
check("one warning for a module in training mode", len(first) == 1)
linear.eval()
# No target: the inputs' and parameters' device (the CPU here), as
# torch.compile follows it.
evaluated = graphpart.compile(linear, [torch.randn(2, 4)],
                              gp_compile=gp_compile,
                              runtime_library=runtime)
check("compile's default target follows the inputs' device",
      graphpart.compiler._default_target(linear, [torch.randn(2, 4)]) == "host")
check("no warning in eval mode", not warned(
    lambda: evaluated(torch.randn(2, 4))))
with torch.no_grad():
    want = linear(x.reshape(1, 4).expand(2, 4))
check("the compiled module computes", torch.allclose(
    evaluated(x.reshape(1, 4).expand(2, 4).contiguous()), want, atol=1e-5))

# -- compile(views=True): results are the program's memory -------------------
viewed = graphpart.compile(linear, [torch.randn(2, 4)], target="host",
                           gp_compile=gp_compile, runtime_library=runtime,
                           views=True, work_dir=os.path.join(work, "views"))
with torch.no_grad():
    one, two = torch.randn(2, 4), torch.randn(2, 4)
    kept = viewed(one)
    copied = kept.clone()
    latest = viewed(two)
    check("views: the first result shows the second call",
          kept.data_ptr() == latest.data_ptr() and
          torch.allclose(kept, linear(two), atol=1e-5) and
          torch.allclose(copied, linear(one), atol=1e-5))
check("work_dir keeps the files", sorted(
    f for f in os.listdir(os.path.join(work, "views"))
    if not f.startswith(".")) == ["Linear.mlir", "Linear.so", "build.json",
                                  "graph"])
error("weights directory without the named parameters", lambda:
      graphpart.load(os.path.join(work, "views", "Linear.so"), weights=empty,
                     runtime_library=runtime))
report.exit()
