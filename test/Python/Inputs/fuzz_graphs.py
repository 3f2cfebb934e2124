"""Fuzzes graphpart's readers with damaged saved graphs: each case takes a
graph of the given directories (test/Python/Inputs/graphs*), damages it
(a key deleted, a value of another type, a reference to itself, to a later
node or to nothing, a node moved, a dtype or size changed, graph.json cut
short or not text, a constant's .npy file missing, cut short, of another
dtype or byte order), then loads and converts it. Each must convert or
raise GraphError; any other exception (or a case running past 10 s) is a
failure, printed with the case's number and damage. Parameter sources
(a directory of .npy files, a safetensors file) are damaged the same way
and read as graphpart.load reads them.

    python3 fuzz_graphs.py GRAPH_ROOT... [--cases N] [--seed S] [--case I]

Deterministic: case I of seed S is the same damage every run (`--case I`
runs that one alone). Needs numpy, not torch. Loaded artifacts and their
calls (arguments, weights= directories, parameter sources) are fuzzed by
fuzz_calls.py beside it (fuzz-calls.test), which needs torch.
"""
import argparse
import copy
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
import graphpart  # noqa: E402
from graphpart import runtime  # noqa: E402
from graphpart.parameters import write_safetensors  # noqa: E402

# Values a damaged entry may take instead of its own.
ODD_VALUES = [None, True, False, 0, -1, 7, 2 ** 70, 1.5, float("nan"), "",
              "x", "s0", "4*s0", "0*s0", "a*s0", "-3", "float32", "complex64",
              [], [None], [1, -2], [[[]]], {}, {"node": None},
              {"node": "nope"}, {"node": 3}, {"dtype": "float32"},
              {"enum": 5}, {"device": 1}, {"node": "x", "index": "0"}]
DTYPES = ["float32", "float16", "bfloat16", "int64", "bool", "int32",
          "float64", "uint8", "complex64", "qint8", "", "Float32"]


VERBOSE = False


class Timeout(Exception):
    pass


def paths(value, prefix=()):
    """Every (path, value) in the JSON tree `value`."""
    yield prefix, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from paths(item, prefix + (i,))


def at(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def refs(graph):
    """Paths of every {"node": NAME} reference."""
    return [p for p, v in paths(graph) if isinstance(v, dict) and "node" in v
            and p[:1] in (("nodes",), ("outputs",))]


def names(graph):
    found = []
    for key in ("inputs", "constants", "parameters", "nodes"):
        found += [e.get("name") for e in graph.get(key, [])
                  if isinstance(e, dict)]
    return found


def damage_json(graph, rng):
    """Damages `graph` in place; returns what was done."""
    kinds = ["delete", "retype", "self-ref", "later-ref", "missing-ref",
             "index", "move", "dtype", "size", "op", "args", "outputs",
             "duplicate", "top"]
    kind = rng.choice(kinds)
    nodes = graph.get("nodes")
    nodes = [n for n in nodes if isinstance(n, dict)] \
        if isinstance(nodes, list) else []
    all_paths = [p for p, _ in paths(graph) if p]
    if kind == "delete":
        path = rng.choice(all_paths)
        parent = at(graph, path[:-1])
        del parent[path[-1]]
        return "deleted %s" % list(path)
    if kind == "retype":
        path = rng.choice(all_paths)
        value = copy.deepcopy(rng.choice(ODD_VALUES))
        at(graph, path[:-1])[path[-1]] = value
        return "set %s to %s" % (list(path), json.dumps(value))
    if kind in ("self-ref", "later-ref", "missing-ref", "index"):
        found = [p for p in refs(graph) if p[0] == "nodes"]
        if not found:
            return damage_json(graph, rng)
        path = rng.choice(found)
        ref = at(graph, path)
        node = at(graph, path[:2])
        if kind == "self-ref":
            ref["node"] = node["name"]
        elif kind == "later-ref":
            after = graph["nodes"][path[1]:]
            ref["node"] = rng.choice(after)["name"]
        elif kind == "missing-ref":
            ref["node"] = "no_such_node"
        else:
            ref["index"] = rng.choice([-1, 5, 1, "a", None, 1.0, True])
        return "%s at %s: %s" % (kind, list(path), json.dumps(ref))
    if kind == "move" and len(nodes) > 1:
        nodes = graph["nodes"]
        i, j = rng.randrange(len(nodes)), rng.randrange(len(nodes))
        nodes.insert(j, nodes.pop(i))
        return "moved node %d to %d" % (i, j)
    if kind == "dtype":
        found = [p for p, v in paths(graph) if p and p[-1] == "dtype"]
        if found:
            path = rng.choice(found)
            value = rng.choice(DTYPES)
            at(graph, path[:-1])[path[-1]] = value
            return "dtype at %s to %s" % (list(path), value)
    if kind == "size":
        found = [p for p, v in paths(graph) if p and p[-1] == "shape" and v]
        if found:
            path = rng.choice(found)
            shape = at(graph, path)
            i = rng.randrange(len(shape))
            shape[i] = rng.choice([-1, 0, 1.5, "s9", "x*y", True, None, 3,
                                   "2*s0", [2], 10 ** 6, "s0 * 2"])
            return "size %d at %s to %s" % (i, list(path),
                                            json.dumps(shape[i]))
    if kind == "op" and nodes:
        node = rng.choice(nodes)
        other = rng.choice(nodes)
        old = node.get("op")
        node["op"] = other.get("op")
        if rng.random() < 0.5:
            node["overload"] = other.get("overload")
        return "node %s: op %s to %s" % (node.get("name"), old, node["op"])
    if kind == "args" and nodes:
        node = rng.choice(nodes)
        args = node.get("args")
        if isinstance(args, list) and args and rng.random() < 0.5:
            cut = rng.randrange(len(args))
            node["args"] = args[:cut]
            return "node %s: args cut to %d" % (node.get("name"), cut)
        if isinstance(args, list) and args:
            i = rng.randrange(len(args))
            args[i] = copy.deepcopy(rng.choice(ODD_VALUES))
            return "node %s: arg %d to %s" % (node.get("name"), i,
                                              json.dumps(args[i]))
        node["args"] = rng.choice([None, {}, "x", [None] * 9])
        return "node %s: args to %s" % (node.get("name"),
                                        json.dumps(node["args"]))
    if kind == "outputs" and nodes:
        node = rng.choice(nodes)
        outputs = node.get("outputs")
        choice = rng.randrange(3)
        if choice == 0:
            node["outputs"] = []
        elif choice == 1 and isinstance(outputs, list) and outputs:
            node["outputs"] = outputs + copy.deepcopy(outputs)
        else:
            node["outputs"] = [{"shape": [3, 3], "dtype": "float32"}]
        return "node %s: outputs to %s" % (node.get("name"),
                                           json.dumps(node["outputs"])[:80])
    if kind == "duplicate" and nodes:
        i = rng.randrange(len(nodes))
        names_ = [n for n in names(graph) if isinstance(n, str)]
        nodes[i]["name"] = rng.choice(names_)
        return "node %d renamed %s" % (i, nodes[i]["name"])
    if kind == "top":
        key = rng.choice(["inputs", "nodes", "outputs", "constants",
                          "parameters", "custom_ops", "symbols", "name"])
        value = copy.deepcopy(rng.choice(ODD_VALUES))
        graph[key] = value
        return "top-level %s to %s" % (key, json.dumps(value))
    return damage_json(graph, rng)


def damage_npy(path, rng):
    """Damages the .npy file `path`; returns what was done and whether the
    graph must still convert (the same values in big-endian order)."""
    array = np.load(path)
    kind = rng.choice(["missing", "cut", "garbage", "retype", "big-endian",
                       "reshape", "directory", "empty"])
    if kind == "missing":
        os.remove(path)
    elif kind == "cut":
        data = open(path, "rb").read()
        open(path, "wb").write(data[:rng.randrange(len(data))])
    elif kind == "garbage":
        data = bytearray(open(path, "rb").read())
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(min(len(data), 128))] = rng.randrange(256)
        open(path, "wb").write(bytes(data))
    elif kind == "retype":
        other = rng.choice(["<i4", "<f8", "<i8", "<f4", "<f2", "|b1", "<u2",
                            "<c8", "|u1"])
        np.save(path, array.astype(other) if array.dtype.kind != "V"
                else array)
        kind += " " + other
    elif kind == "big-endian":
        np.save(path, array.astype(array.dtype.newbyteorder(">")))
        return kind, True
    elif kind == "reshape":
        np.save(path, array.reshape(-1))
    elif kind == "directory":
        os.remove(path)
        os.mkdir(path)
    else:
        open(path, "wb").close()
    return kind, False


def check_case(index, seed, graph_dirs, work):
    """Runs case `index`; returns None or a failure's description."""
    rng = random.Random(seed * 1000003 + index)
    source = rng.choice(graph_dirs)
    # A copy of the graph per source, damaged by one case at a time and
    # restored after it (copying it whole for every case costs more than
    # converting it).
    target = os.path.join(work, os.path.basename(os.path.dirname(source)) +
                          "." + os.path.basename(source))
    if not os.path.isdir(target):
        shutil.copytree(source, target)
    damaged = ["graph.json"]
    try:
        return run_case(index, seed, graph_dirs, work, rng, source, target,
                        damaged)
    finally:
        restore(source, target, damaged)


def restore(source, target, damaged):
    """Makes `target` the copy of `source` again: its `damaged` files."""
    if not os.path.isdir(target):
        shutil.copytree(source, target)
        return
    for name in damaged:
        path = os.path.join(target, name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        shutil.copyfile(os.path.join(source, name), path)


def run_case(index, seed, graph_dirs, work, rng, source, target, damaged):
    graph_file = os.path.join(target, "graph.json")
    text = open(os.path.join(source, "graph.json"), "rb").read()
    graph = json.loads(text)
    must_convert = npy_damaged = False
    mode = rng.random()
    if mode < 0.72:
        done = []
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            try:
                done.append(damage_json(graph, rng))
            except (AttributeError, IndexError, KeyError, TypeError,
                    ValueError, RecursionError):
                # An earlier damage left nothing of the kind to damage.
                pass
        what = "; ".join(done) or "nothing damaged"
        with open(graph_file, "w") as f:
            json.dump(graph, f)
    elif mode < 0.82:
        choice = rng.randrange(5)
        if choice == 0:
            cut = rng.randrange(len(text))
            open(graph_file, "wb").write(text[:cut])
            what = "graph.json cut at %d" % cut
        elif choice == 1:
            data = bytearray(text)
            for _ in range(4):
                data[rng.randrange(len(data))] = rng.randrange(256)
            open(graph_file, "wb").write(bytes(data))
            what = "graph.json bytes changed"
        elif choice == 2:
            open(graph_file, "wb").write(b"[" * 100000)
            what = "graph.json nested deeply"
        elif choice == 3:
            os.remove(graph_file)
            os.mkdir(graph_file)
            what = "graph.json a directory"
        else:
            shutil.rmtree(target)
            what = "no graph directory"
    else:
        files = [c.get("file") for c in graph.get("constants", [])]
        if not files:
            return check_case(index + 10 ** 7, seed, graph_dirs, work)
        file = rng.choice(files)
        damaged.append(file)
        kind, must_convert = damage_npy(os.path.join(target, file), rng)
        npy_damaged = True
        what = "%s: %s" % (file, kind)
    what = "%s: %s" % (os.path.basename(source), what)
    try:
        signal.alarm(10)
        loaded, constants = graphpart.load_graph(target)
        text = graphpart.convert(loaded, constants)
    except graphpart.GraphError as error:
        if must_convert:
            return "%s: GraphError where it must convert: %s" % (what, error)
        if VERBOSE:
            print("case %d: %s: GraphError: %s" % (index, what, error))
        return None
    except Timeout:
        return "%s: ran past 10 s" % what
    except Exception:
        return "%s: %s" % (what, traceback.format_exc(limit=-3).strip())
    finally:
        signal.alarm(0)
    if npy_damaged and text != reference(source):
        # A constant file that converts holds the same values: its bytes
        # are never read as another type.
        return "%s: converted, to another program than the intact file's" \
            % what
    return None


_REFERENCES = {}


def reference(source):
    """The MLIR of the intact graph at `source`."""
    if source not in _REFERENCES:
        _REFERENCES[source] = graphpart.convert(*graphpart.load_graph(source))
    return _REFERENCES[source]


def check_parameters(index, seed, work):
    """Damages a parameter source (a directory of .npy files or a
    safetensors file) and reads it as graphpart.load does."""
    rng = random.Random(seed * 7919 + index)
    source = os.path.join(work, "parameters")
    shutil.rmtree(source, ignore_errors=True)
    os.makedirs(source)
    tensors = {"fc.weight": np.arange(12, dtype=np.float32).reshape(3, 4),
               "fc.bias": np.arange(3, dtype=np.int64),
               "flag": np.array([True, False])}
    for name, array in tensors.items():
        np.save(os.path.join(source, name + ".npy"), array)
    safetensors = os.path.join(work, "parameters.safetensors")
    write_safetensors(safetensors, tensors)
    names = set(tensors)
    if rng.random() < 0.5:
        name = rng.choice(sorted(tensors))
        kind, _ = damage_npy(os.path.join(source, name + ".npy"), rng)
        what, path = "parameters/%s.npy: %s" % (name, kind), source
    else:
        data = bytearray(open(safetensors, "rb").read())
        choice = rng.randrange(3)
        if choice == 0:
            cut = rng.randrange(len(data))
            data = data[:cut]
            what = "safetensors cut at %d" % cut
        elif choice == 1:
            for _ in range(rng.randint(1, 6)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            what = "safetensors bytes changed"
        else:
            header = json.loads(bytes(data[8:8 + int.from_bytes(
                data[:8], "little")]))
            name = rng.choice(sorted(header))
            key = rng.choice(["dtype", "shape", "data_offsets"])
            header[name][key] = copy.deepcopy(rng.choice(ODD_VALUES))
            text = json.dumps(header).encode()
            data = len(text).to_bytes(8, "little") + text + data[
                8 + int.from_bytes(data[:8], "little"):]
            what = "safetensors %s of %s to %s" % (key, name,
                                                    json.dumps(header[name][
                                                        key]))
        open(safetensors, "wb").write(bytes(data))
        path = safetensors
    try:
        signal.alarm(10)
        runtime._read_sources(path, names)
    except graphpart.GraphError:
        return None
    except Timeout:
        return "%s: ran past 10 s" % what
    except Exception:
        return "%s: %s" % (what, traceback.format_exc(limit=-3).strip())
    finally:
        signal.alarm(0)
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("roots", nargs="+")
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--parameter-cases", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--case", type=int, default=None)
    parser.add_argument("--verbose", action="store_true",
                        help="print each case's GraphError")
    args = parser.parse_args()
    global VERBOSE
    VERBOSE = args.verbose
    graph_dirs = sorted(os.path.join(root, name) for root in args.roots
                        for name in os.listdir(root)
                        if os.path.exists(os.path.join(root, name,
                                                       "graph.json")))

    def timeout(*_):
        raise Timeout()
    signal.signal(signal.SIGALRM, timeout)
    work = tempfile.mkdtemp(prefix="gp-fuzz-")
    start, failures = time.time(), 0
    try:
        cases = [args.case] if args.case is not None else \
            range(args.cases)
        for index in cases:
            failure = check_case(index, args.seed, graph_dirs, work)
            if failure:
                failures += 1
                print("FAILED case %d (--seed %d --case %d): %s"
                      % (index, args.seed, index, failure))
        for index in range(args.parameter_cases if args.case is None
                           else 0):
            failure = check_parameters(index, args.seed, work)
            if failure:
                failures += 1
                print("FAILED parameter case %d: %s" % (index, failure))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("fuzz: %d graph(s), %d case(s), %d parameter case(s) in %.0f s: "
          "%d failure(s)" % (len(graph_dirs), len(cases),
                             args.parameter_cases if args.case is None
                             else 0, time.time() - start, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
