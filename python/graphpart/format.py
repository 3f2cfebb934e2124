"""The serialized graph: a directory holding `graph.json` and the tensors it
names as `.npy` files. Reading and writing it needs numpy only.

graph.json, format "graphpart-graph" version 1:

  {"format": "graphpart-graph", "version": 1, "name": "mlp",
   "producer": "torch 1.13 make_fx",
   "inputs":    [{"name": "x", "shape": [4, 32], "dtype": "float32",
                  "device": "cpu"}],
   "constants": [{"name": "w0", "shape": [...], "dtype": "float32",
                  "file": "constants/w0.npy"}],
   "parameters": [{"name": "p_fc_weight", "fqn": "fc.weight",
                   "shape": [...], "dtype": "float32",
                   "file": "parameters/fc.weight.npy"}],
   "nodes":     [{"name": "addmm", "op": "aten::addmm", "overload": "default",
                  "args": [...], "kwargs": {...},
                  "outputs": [{"shape": [...], "dtype": "float32"}],
                  "source": "model.py:12"}],
   "outputs":   [{"node": "addmm"}],
   "custom_ops": {"mylib::op": {"mutates": [0], "tags": ["cudagraph_unsafe"]}}}

A size is an int or, for a dynamic size, a multiple of a symbol ("s0",
"16*s0", in shapes and arguments alike); "symbols" gives each symbol's range
({"s0": {"min": 1}}). Symbols s0, s1, ... are sizes of the inputs; u0,
u1, ... are data-dependent (torch.export's unbacked sizes): each is the
value of the `aten::_local_scalar_dense` node (an `.item()` of an int64
tensor) that names it with "symbol": "u0".

"parameters" are a module's parameters and buffers: values the program
reads by node name, like constants, but not part of the program: they
become its named parameters (`fqn`, the module's fully qualified name),
bound when the artifact is loaded (from the live module, a state dict, a
safetensors file or the saved files). "file" is there when the capture
saved the value.

bfloat16 tensors are saved as their raw bits (uint16 .npy files) with
"dtype": "bfloat16" in the graph, as gp-run reads them.

An argument is a JSON value: {"node": NAME} (a value of a node, input or
constant; with "index": i for the i-th of several results), a number, a
boolean, null, a list of arguments, {"dtype": "float32"}, {"device": "cpu"}
or {"enum": TEXT} for other constants such as memory formats.
"""
import json
import os

import numpy as np

FORMAT = "graphpart-graph"
VERSION = 1


class GraphError(Exception):
    """A graph that cannot be read or converted; the message says why."""


def save(graph, directory, constants, dtypes=None, parameters=None):
    """Writes `graph` (a dict as above, without constant files) and the
    arrays of `constants` (name -> numpy array) to `directory`; `dtypes`
    names the element types numpy lacks (name -> "bfloat16" for an array
    of raw bits). `parameters` (fully qualified name -> numpy array, raw
    bits for bfloat16 as the graph's entry says) are saved as
    parameters/NAME.npy, each graph["parameters"] entry naming its file."""
    os.makedirs(os.path.join(directory, "constants"), exist_ok=True)
    graph = dict(graph)
    entries = []
    for entry in graph.get("parameters", []):
        entry = dict(entry)
        entry.pop("file", None)
        if parameters is not None and entry["fqn"] in parameters:
            os.makedirs(os.path.join(directory, "parameters"), exist_ok=True)
            path = os.path.join("parameters", entry["fqn"] + ".npy")
            np.save(os.path.join(directory, path),
                    np.array(parameters[entry["fqn"]], order="C"))
            entry["file"] = path
        entries.append(entry)
    graph["parameters"] = entries
    graph["format"], graph["version"] = FORMAT, VERSION
    entries = []
    for name, array in constants.items():
        # np.ascontiguousarray would make a 0-d array 1-d.
        array = np.array(array, order="C", copy=True)
        path = os.path.join("constants", name + ".npy")
        np.save(os.path.join(directory, path), array)
        dtype = (dtypes or {}).get(name, str(array.dtype))
        entries.append({"name": name, "shape": list(array.shape),
                        "dtype": dtype, "file": path})
    graph["constants"] = entries
    with open(os.path.join(directory, "graph.json"), "w") as f:
        json.dump(graph, f, indent=1)
        f.write("\n")


def load(directory):
    """Reads a saved graph: (graph dict, name -> numpy array of each
    constant). Raises GraphError naming what is wrong."""
    path = os.path.join(directory, "graph.json")
    try:
        with open(path) as f:
            graph = json.load(f)
    except OSError as error:
        raise GraphError(f"cannot read {path}: {error.strerror}")
    except json.JSONDecodeError as error:
        raise GraphError(f"{path}: not JSON: {error}")
    if graph.get("format") != FORMAT:
        raise GraphError(f"{path}: not a {FORMAT} file")
    if graph.get("version") != VERSION:
        raise GraphError(f"{path}: version {graph.get('version')}; this "
                         f"converter reads version {VERSION}")
    for key in ("name", "inputs", "nodes", "outputs"):
        if key not in graph:
            raise GraphError(f"{path}: no '{key}'")
    constants = {}
    for entry in graph.get("constants", []):
        file = os.path.join(directory, entry["file"])
        try:
            array = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as error:
            raise GraphError(f"{path}: constant '{entry['name']}': cannot "
                             f"read {file}: {error}")
        if list(array.shape) != list(entry["shape"]):
            raise GraphError(f"{path}: constant '{entry['name']}': {file} "
                             f"has shape {list(array.shape)}, the graph says "
                             f"{entry['shape']}")
        constants[entry["name"]] = array
    seen = set()
    for entry in graph.get("parameters", []):
        for key in ("name", "fqn", "shape", "dtype"):
            if key not in entry:
                raise GraphError(f"{path}: a parameter without '{key}'")
        if entry["fqn"] in seen or not entry["fqn"] or any(
                c.isspace() for c in entry["fqn"]):
            raise GraphError(f"{path}: parameter name '{entry['fqn']}' is "
                             "empty, repeated or holds whitespace")
        seen.add(entry["fqn"])
    return graph, constants


def parameter_files(directory, graph):
    """The files the capture saved of `graph`'s parameters: fully
    qualified name -> path."""
    return {entry["fqn"]: os.path.join(directory, entry["file"])
            for entry in graph.get("parameters", []) if "file" in entry}
