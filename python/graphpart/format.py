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
"dtype": "bfloat16" in the graph, as gp-run reads them. A constant's file
holds exactly the dtype and shape its entry declares (a big-endian file of
that dtype is read as little-endian): its bytes become the program's.

`load` checks all this (`check`: keys, types, sizes, names given once, and
every value read after it is defined, so no node reads itself or a later
node) and raises GraphError naming what is wrong, never a Python error of
another kind.

An argument is a JSON value: {"node": NAME} (a value of a node, input or
constant; with "index": i for the i-th of several results), a number, a
boolean, null, a list of arguments, {"dtype": "float32"}, {"device": "cpu"}
or {"enum": TEXT} for other constants such as memory formats.
"""
import json
import os
import re

import numpy as np

from .elements import FORMAT_NUMPY

FORMAT = "graphpart-graph"
VERSION = 1
# The parameter holding a converted program's index-error flag (see
# Converter.check_indices): bound by the runtime itself, never by a caller.
INDEX_ERRORS = "graphpart.index_errors"


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


# The element types the format names, as numpy holds them (bfloat16 as its
# raw bits; elements.py): a constant's file must hold exactly its declared
# type (in either byte order).
NUMPY_DTYPES = FORMAT_NUMPY
# A size: an int, or a positive multiple of a symbol ("s0", "16*s0").
_SYMBOLIC = re.compile(r"\s*(?:[1-9][0-9]*\s*\*\s*)?[A-Za-z_][A-Za-z0-9_]*\s*")
# Names that become parts of MLIR names (the function, its arguments) and
# of file names (NAME.mlir, NAME.so): no paths, spaces or quotes.
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.-]*")
_VALUE_NAME = re.compile(r"[A-Za-z0-9_$.-]+")


def read_npy(file):
    """The array of the .npy file `file`; GraphError saying why it cannot
    be read (missing, not a .npy file, cut short, ...)."""
    try:
        return np.load(file, allow_pickle=False)
    except OSError as error:
        raise GraphError("cannot read %s: %s" % (
            file, error.strerror or error))
    except Exception as error:  # numpy's, whatever the damage: any type
        raise GraphError("cannot read %s: not a whole .npy file (%s: %s)"
                         % (file, type(error).__name__, error))


def checked_array(array, dtype, shape, what):
    """`array` as the graph declares it (`dtype`, a format name, and
    `shape`), in little-endian byte order; GraphError naming `what` (the
    constant and its file) when it holds another type or shape: its bytes
    are written as they lie."""
    want = NUMPY_DTYPES.get(dtype)
    if want is None:
        raise GraphError("%s: dtype %r is none the format knows (%s)"
                         % (what, dtype, ", ".join(NUMPY_DTYPES)))
    want = np.dtype(want)
    found = array.dtype
    if found.newbyteorder("<") != want:
        raise GraphError("%s holds %s, the graph says %s%s" % (
            what, found, dtype, " (saved as raw uint16 bits)"
            if dtype == "bfloat16" else ""))
    if found != want:
        # The same type in big-endian byte order: converted, not refused.
        array = array.astype(want)
    if list(array.shape) != list(shape):
        raise GraphError("%s has shape %s, the graph says %s"
                         % (what, list(array.shape), list(shape)))
    return array


def check(graph, where="graph"):
    """Raises GraphError naming what is wrong (`where`: the file) when
    `graph` is not a graph of this format: a key missing or of another
    type, a size that is not an int >= 0 or a multiple of a symbol, a name
    given twice, or a value read before it is defined (itself or a later
    node: the graph is in order, without cycles)."""
    def fail(message):
        raise GraphError("%s: %s" % (where, message))

    def need(entry, key, kind, what, optional=False):
        if not isinstance(entry, dict):
            fail("%s is %s, not an object" % (what, _kind(entry)))
        if key not in entry:
            if optional:
                return None
            fail("%s has no '%s'" % (what, key))
        value = entry[key]
        if not isinstance(value, kind) or kind is int and \
                isinstance(value, bool):
            fail("%s: '%s' is %s, not %s" % (what, key, _kind(value), {
                str: "a string", list: "a list", dict: "an object",
                int: "an int"}[kind]))
        return value

    def check_shape(shape, what, symbolic=True):
        for dim in shape:
            if isinstance(dim, int) and not isinstance(dim, bool):
                if dim < 0:
                    fail("%s: size %d is negative" % (what, dim))
            elif not (symbolic and isinstance(dim, str) and
                      _SYMBOLIC.fullmatch(dim)):
                fail("%s: size %s is not %s" % (
                    what, json.dumps(dim), "an int >= 0 or a multiple of "
                    "a symbol ('s0', '4*s0')" if symbolic else
                    "an int >= 0"))

    if not isinstance(graph, dict):
        fail("the graph is %s, not an object" % _kind(graph))
    name = need(graph, "name", str, "the graph")
    if not _FUNCTION_NAME.fullmatch(name):
        fail("the graph's name '%s' is not a function name (a letter or _, "
             "then letters, digits, _ $ . -)" % name)
    defined = {}

    def define(name, what):
        if name in defined:
            fail("'%s' names both %s and %s" % (name, defined[name], what))
        defined[name] = what

    for i, entry in enumerate(need(graph, "inputs", list, "the graph")):
        what = "input %d" % i
        value = need(entry, "name", str, what)
        what = "input '%s'" % value
        if not _VALUE_NAME.fullmatch(value):
            fail("%s: the name holds characters other than letters, digits "
                 "and _ $ . -" % what)
        check_shape(need(entry, "shape", list, what), what)
        need(entry, "dtype", str, what)
        need(entry, "device", str, what, optional=True)
        define(value, what)
    for i, entry in enumerate(need(graph, "constants", list, "the graph",
                                   optional=True) or []):
        what = "constant %d" % i
        value = need(entry, "name", str, what)
        what = "constant '%s'" % value
        check_shape(need(entry, "shape", list, what), what, symbolic=False)
        if need(entry, "dtype", str, what) not in NUMPY_DTYPES:
            fail("%s: dtype '%s' is none the format knows (%s)" % (
                what, entry["dtype"], ", ".join(NUMPY_DTYPES)))
        need(entry, "file", str, what)
        define(value, what)
    for i, entry in enumerate(need(graph, "parameters", list, "the graph",
                                   optional=True) or []):
        what = "parameter %d" % i
        value = need(entry, "name", str, what)
        need(entry, "fqn", str, what)
        what = "parameter '%s'" % entry["fqn"]
        check_shape(need(entry, "shape", list, what), what)
        need(entry, "dtype", str, what)
        need(entry, "file", str, what, optional=True)
        define(value, what)
    custom = need(graph, "custom_ops", dict, "the graph", optional=True)
    for op, schema in (custom or {}).items():
        what = "custom op '%s'" % op
        for key in ("mutates", "tags"):
            items = need(schema, key, list, what, optional=True) or []
            kind = int if key == "mutates" else str
            if any(not isinstance(v, kind) or isinstance(v, bool)
                   for v in items):
                fail("%s: '%s' must be a list of %s" % (
                    what, key, "ints" if kind is int else "strings"))
    symbols = need(graph, "symbols", dict, "the graph", optional=True)
    for symbol, bounds in (symbols or {}).items():
        what = "symbol '%s'" % symbol
        for key in ("min", "max"):
            need(bounds, key, int, what, optional=True)

    def check_refs(arg, what, depth=0):
        if depth > 64:
            fail("%s: arguments nested more than 64 deep" % what)
        if isinstance(arg, list):
            for item in arg:
                check_refs(item, what, depth + 1)
        elif isinstance(arg, dict):
            if "node" in arg:
                ref = arg["node"]
                if not isinstance(ref, str):
                    fail("%s: a reference to %s, not to a name"
                         % (what, json.dumps(ref)))
                if ref == current:
                    fail("%s reads itself" % what)
                if ref not in defined:
                    fail("%s reads '%s', which is %s" % (
                        what, ref, "a later node: a node must follow the "
                        "values it reads (no cycles)" if ref in later else
                        "no input, constant, parameter or node"))
                index = arg.get("index")
                if index is not None and (not isinstance(index, int) or
                                          isinstance(index, bool)):
                    fail("%s: the index of '%s' is %s, not an int"
                         % (what, ref, json.dumps(index)))
            for item in arg.values():
                check_refs(item, what, depth + 1)

    nodes = need(graph, "nodes", list, "the graph")
    later = {node["name"] for node in nodes if isinstance(node, dict) and
             isinstance(node.get("name"), str)}
    current = None
    for i, node in enumerate(nodes):
        what = "node %d" % i
        value = current = need(node, "name", str, what)
        op = need(node, "op", str, what)
        what = "%s (node '%s')" % (op, value)
        need(node, "overload", str, what, optional=True)
        need(node, "source", str, what, optional=True)
        symbol = need(node, "symbol", str, what, optional=True)
        if symbol is not None and not _SYMBOLIC.fullmatch(symbol):
            fail("%s: symbol %s is not a symbol's name" % (what,
                                                           json.dumps(symbol)))
        args = need(node, "args", list, what, optional=True) or []
        kwargs = need(node, "kwargs", dict, what, optional=True) or {}
        for j, out in enumerate(need(node, "outputs", list, what,
                                     optional=True) or []):
            where_out = "%s: result %d" % (what, j)
            check_shape(need(out, "shape", list, where_out), where_out)
            need(out, "dtype", str, where_out)
        check_refs(args, what)
        check_refs(kwargs, what)
        define(value, what)
    current = None
    check_refs(need(graph, "outputs", list, "the graph"), "the outputs")


def _kind(value):
    """A JSON value's kind, for messages."""
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number",
            str: "a string", list: "a list", dict: "an object"}.get(
                type(value), type(value).__name__)


def load(directory):
    """Reads a saved graph: (graph dict, name -> numpy array of each
    constant). Raises GraphError naming what is wrong."""
    path = os.path.join(directory, "graph.json")
    try:
        with open(path, "rb") as f:
            graph = json.loads(f.read().decode("utf-8"))
    except OSError as error:
        raise GraphError(f"cannot read {path}: {error.strerror}")
    except UnicodeDecodeError as error:
        raise GraphError(f"{path}: not UTF-8 text: {error}")
    except ValueError as error:  # json.JSONDecodeError among them
        raise GraphError(f"{path}: not JSON: {error}")
    except RecursionError:
        raise GraphError(f"{path}: not JSON this converter reads: nested "
                         "too deeply")
    if not isinstance(graph, dict) or graph.get("format") != FORMAT:
        raise GraphError(f"{path}: not a {FORMAT} file")
    if graph.get("version") != VERSION:
        raise GraphError(f"{path}: version {graph.get('version')}; this "
                         f"converter reads version {VERSION}")
    for key in ("name", "inputs", "nodes", "outputs"):
        if key not in graph:
            raise GraphError(f"{path}: no '{key}'")
    check(graph, path)
    constants = {}
    for entry in graph.get("constants", []):
        file = os.path.join(directory, entry["file"])
        what = f"{path}: constant '{entry['name']}': {file}"
        try:
            array = read_npy(file)
        except GraphError as error:
            raise GraphError(f"{path}: constant '{entry['name']}': {error}")
        constants[entry["name"]] = checked_array(array, entry["dtype"],
                                                 entry["shape"], what)
    seen = set()
    for entry in graph.get("parameters", []):
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
