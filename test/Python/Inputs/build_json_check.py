"""build.json holds only what the artifact's manifest lacks (build-json.test):
the artifact's file, the files holding parameters' values (by name, with
their kind), the inputs written in place and the custom ops; the target and
the parameters' names are read from the loaded artifact. A build.json of an
older build (with "target" and "parameters") still loads, those fields
ignored but for the files they name.

    build_json_check.py RUNTIME_LIBRARY GP_COMPILE WORK
"""
import json
import os
import sys

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
import graphpart  # noqa: E402
from check_report import Report  # noqa: E402
from graphpart.compiler import build, load_built  # noqa: E402

runtime, gp_compile, work = sys.argv[1:4]
report = Report("build.json", clean=lambda text: text.replace(work, "WORK"))
check, error = report.check, report.error


def node(name, op, a, b):
    return {"name": name, "op": op, "overload": "Tensor",
            "args": [{"node": a}, {"node": b}], "kwargs": {},
            "outputs": [{"shape": [80], "dtype": "float32"}]}


# x * scale.w + c + scale.b: two module parameters saved by the capture,
# and a constant of 320 bytes (over the inline limit: a parameter of kind
# "constant", read from its file).
rng = np.random.default_rng(0)
w, b, c = (rng.standard_normal(80).astype(np.float32) for _ in range(3))
graph = {"name": "scaled",
         "inputs": [{"name": "x", "shape": [80], "dtype": "float32",
                     "device": "cpu"}],
         "parameters": [{"name": "p_w", "fqn": "scale.w", "shape": [80],
                         "dtype": "float32"},
                        {"name": "p_b", "fqn": "scale.b", "shape": [80],
                         "dtype": "float32"}],
         "nodes": [node("mul", "aten::mul", "x", "p_w"),
                   node("add", "aten::add", "mul", "c"),
                   node("add_1", "aten::add", "add", "p_b")],
         "outputs": [{"node": "add_1"}]}
out = os.path.join(work, "out")
graph_dir = os.path.join(out, "graph")
graphpart.save_graph(graph, graph_dir, {"c": c},
                     parameters={"scale.w": w, "scale.b": b})
built = build(graph_dir, out, "host", gp_compile=gp_compile)
build_file = os.path.join(out, "build.json")
with open(build_file) as f:
    written = json.load(f)
print("build.json: %s" % " ".join(sorted(written)))
check("build() returns what it wrote", built == written)
for name, entry in sorted(written["files"].items()):
    print("file %s: %s %s" % (name, entry["kind"], entry["file"]))

x = torch.randn(80)
from_files = x * torch.from_numpy(w) + torch.from_numpy(c) + \
    torch.from_numpy(b)
module = torch.nn.Module()
module.scale = torch.nn.Module()
module.scale.w = torch.nn.Parameter(torch.randn(80), requires_grad=False)
module.scale.b = torch.nn.Parameter(torch.randn(80), requires_grad=False)
from_module = x * module.scale.w + torch.from_numpy(c) + module.scale.b


def loads(label, expected, **options):
    artifact = load_built(out, runtime_library=runtime, **options)
    print("%s: target %s, parameters %s" % (
        label, artifact.target, " ".join(sorted(artifact.parameters))))
    check("%s computes" % label, torch.allclose(artifact(x), expected,
                                                atol=1e-6))
    artifact.close()


loads("files", from_files)
loads("module", from_module, module=module)

# A build.json of an older build: "target" (wrong here: ignored, the
# artifact's own is used) and "parameters", read for their files only.
with open(build_file, "w") as f:
    json.dump({"artifact": "scaled.so", "target": "cuda",
               "parameters": [
                   {"name": "scale.w", "kind": "parameter",
                    "file": written["files"]["scale.w"]["file"]},
                   {"name": "scale.b", "kind": "parameter",
                    "file": written["files"]["scale.b"]["file"]},
                   {"name": "c", "kind": "constant",
                    "file": written["files"]["c"]["file"]},
                   {"name": "ghost", "kind": "parameter", "file": None}],
               "mutated_inputs": [], "custom_ops": {}}, f)
loads("old files", from_files)
loads("old module", from_module, module=module)


def load_written(content):
    with open(build_file, "w") as f:
        json.dump(content, f)
    return load_built(out, runtime_library=runtime)


error("neither files nor parameters", lambda: load_written(
    {"artifact": "scaled.so", "mutated_inputs": []}))
error("a files entry without its file", lambda: load_written(
    {"artifact": "scaled.so", "files": {"c": {"kind": "constant"}},
     "mutated_inputs": []}))
error("an old parameter entry of another kind", lambda: load_written(
    {"artifact": "scaled.so", "target": "host", "mutated_inputs": [],
     "parameters": [{"name": "c", "kind": "weird", "file": None}]}))
report.exit()
