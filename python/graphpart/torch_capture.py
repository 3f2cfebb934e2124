"""Capture a PyTorch function or module as a serialized graph (format.py).

    graphpart.capture(fn, example_inputs, "out_dir")

traces `fn` to ATen ops with `make_fx` (PyTorch 1.13 and later): every op
with its overload, arguments, result shapes and dtypes; parameters and
other tensors the trace holds become constants saved as .npy; custom ops
(any namespace other than aten and prims) keep their schema: the operands
they write (`mutates`) and their tags (`cudagraph_unsafe` where the op
carries it). Needs torch; converting the result does not.
"""
import operator
import re

import numpy as np

from . import format as fmt


def _dtype_name(dtype):
    import torch
    names = {torch.float32: "float32", torch.float16: "float16",
             torch.bfloat16: "bfloat16", torch.float64: "float64",
             torch.int64: "int64", torch.int32: "int32", torch.int8: "int8",
             torch.uint8: "uint8", torch.bool: "bool"}
    if dtype not in names:
        raise fmt.GraphError("element type %s is not supported" % dtype)
    return names[dtype]


def _to_numpy(tensor):
    import torch
    tensor = tensor.detach().cpu().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16)
    return tensor.numpy()


def _source(node):
    """"file:line" of the user's code that made `node`, when recorded."""
    trace = node.meta.get("stack_trace") or ""
    found = re.findall(r'File "([^"]+)", line (\d+)', trace)
    return "%s:%s" % found[-1] if found else None


def _outputs(node):
    meta = node.meta.get("tensor_meta")
    if meta is None and "val" in node.meta:
        meta = node.meta["val"]
    # TensorMetadata is a named tuple: one result, not a tuple of them.
    items = [meta] if hasattr(meta, "shape") or meta is None else list(meta)
    outputs = []
    for item in items:
        if item is None or not hasattr(item, "shape"):
            continue
        outputs.append({"shape": [int(d) for d in item.shape],
                        "dtype": _dtype_name(item.dtype)})
    return outputs


def _outputs_from_users(node):
    """The results of an op whose own metadata is missing (a custom op's
    tuple, in older PyTorch), from the getitem nodes that take them."""
    found = {}
    for user in node.users:
        if user.target is operator.getitem:
            (out,) = _outputs(user) or [None]
            found[user.args[1]] = out
    if not found or None in found.values() or \
            sorted(found) != list(range(len(found))):
        return []
    return [found[i] for i in range(len(found))]


def _op_name(target):
    schema = target._schema
    return schema.name, schema.overload_name or "default"


def capture(fn, example_inputs, directory, name=None, dynamic=None):
    """Traces `fn(*example_inputs)` and saves the graph to `directory`.
    `dynamic` maps an input's position to the dimensions that are one
    symbolic size s0 (all of the same example size): the program is traced
    again with that size grown by one, and every size that differs between
    the two traces becomes a multiple of s0 (an op sequence that differs is
    an error). Returns the graph dict."""
    name = name or getattr(fn, "__name__", None) or type(fn).__name__
    name = re.sub(r"\W", "_", name)
    graph, constants, dtypes = _trace(fn, example_inputs, name)
    if dynamic:
        sizes = {example_inputs[i].shape[d] for i, dims in dynamic.items()
                 for d in dims}
        if len(sizes) != 1:
            raise fmt.GraphError("the dynamic dimensions have different "
                                 "example sizes %s" % sorted(sizes))
        size = sizes.pop()
        grown = []
        for i, tensor in enumerate(example_inputs):
            shape = list(tensor.shape)
            for d in dynamic.get(i, []):
                shape[d] += 1
            grown.append(_like(tensor, shape))
        other, _, _ = _trace(fn, grown, name)
        graph = _generalize(graph, other, size)
        graph["symbols"] = {"s0": {"min": 1}}
    fmt.save(graph, directory, constants, dtypes)
    return graph


def _like(tensor, shape):
    """A random tensor of `tensor`'s kind with `shape`."""
    import torch
    if tensor.dtype.is_floating_point:
        return torch.randn(*shape, dtype=tensor.dtype)
    if tensor.dtype == torch.bool:
        return torch.rand(*shape) > 0.5
    high = max(1, int(tensor.max()) + 1) if tensor.numel() else 1
    return torch.randint(0, high, shape, dtype=tensor.dtype)


def _generalize(first, second, size):
    """`first` with every int that is k * size there and k * (size + 1) in
    `second` replaced by "k*s0"."""
    def merge(a, b, where):
        if isinstance(a, bool) or isinstance(b, bool):
            if a != b:
                raise fmt.GraphError("%s differs between sizes" % where)
            return a
        if isinstance(a, int) and isinstance(b, int):
            if a == b:
                return a
            step = b - a
            if step > 0 and a == step * size:
                return "s0" if step == 1 else "%d*s0" % step
            raise fmt.GraphError("%s is %d at size %d and %d at size %d: "
                                 "not a multiple of the size" % (
                                     where, a, size, b, size + 1))
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            return [merge(x, y, where) for x, y in zip(a, b)]
        if isinstance(a, dict) and isinstance(b, dict) and \
                a.keys() == b.keys():
            return {k: merge(a[k], b[k], where) for k in a}
        if a != b:
            raise fmt.GraphError("%s differs between sizes: the program "
                                 "takes other steps at another size" % where)
        return a
    if len(first["nodes"]) != len(second["nodes"]):
        raise fmt.GraphError("the program takes other steps at another "
                             "size (%d ops, then %d)" % (
                                 len(first["nodes"]), len(second["nodes"])))
    merged = dict(first)
    merged["inputs"] = merge(first["inputs"], second["inputs"], "an input")
    merged["nodes"] = [
        merge(a, b, "op %s (node '%s')" % (a["op"], a["name"]))
        for a, b in zip(first["nodes"], second["nodes"])]
    merged["outputs"] = merge(first["outputs"], second["outputs"], "outputs")
    return merged


def _trace(fn, example_inputs, name):
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    traced = make_fx(fn)(*example_inputs)
    graph = {"name": name, "producer": "torch %s make_fx" % torch.__version__,
             "inputs": [], "nodes": [], "outputs": [], "custom_ops": {}}
    constants, constant_dtypes = {}, {}
    refs = {}

    def encode(arg):
        if isinstance(arg, torch.fx.Node):
            if arg.name not in refs:
                raise fmt.GraphError("uses '%s' before it is defined"
                                     % arg.name)
            return refs[arg.name]
        if isinstance(arg, (list, tuple)):
            return [encode(a) for a in arg]
        if isinstance(arg, torch.dtype):
            return {"dtype": _dtype_name(arg)}
        if isinstance(arg, torch.device):
            return {"device": str(arg)}
        if arg is None or isinstance(arg, (bool, int, float, str)):
            return arg
        return {"enum": str(arg)}

    for node in traced.graph.nodes:
        if node.op == "placeholder":
            (out,) = _outputs(node)
            graph["inputs"].append(dict(name=node.name, device="cpu", **out))
            refs[node.name] = {"node": node.name}
        elif node.op == "get_attr":
            value = getattr(traced, node.target)
            if not isinstance(value, torch.Tensor):
                raise fmt.GraphError("attribute '%s' is not a tensor"
                                     % node.target)
            constants[node.name] = _to_numpy(value)
            constant_dtypes[node.name] = _dtype_name(value.dtype)
            refs[node.name] = {"node": node.name}
        elif node.op == "call_function":
            if node.target is operator.getitem:
                base, index = node.args
                refs[node.name] = dict(encode(base), index=index)
                continue
            if not isinstance(node.target, torch._ops.OpOverload):
                raise fmt.GraphError("%s: not an ATen op (at %s)"
                                     % (node.target, _source(node)))
            op, overload = _op_name(node.target)
            entry = {"name": node.name, "op": op, "overload": overload,
                     "args": encode(node.args),
                     "kwargs": {k: encode(v) for k, v in node.kwargs.items()},
                     "outputs": _outputs(node) or _outputs_from_users(node)}
            source = _source(node)
            if source:
                entry["source"] = source
            namespace = op.split("::")[0]
            if namespace not in ("aten", "prims"):
                schema = node.target._schema
                mutates = [i for i, a in enumerate(schema.arguments)
                           if a.alias_info is not None
                           and a.alias_info.is_write]
                tags = [str(t).split(".")[-1]
                        for t in getattr(node.target, "tags", [])]
                graph["custom_ops"][op] = {
                    "mutates": mutates,
                    "tags": [t for t in tags if t == "cudagraph_unsafe"]}
            graph["nodes"].append(entry)
            refs[node.name] = {"node": node.name}
        elif node.op == "output":
            results = node.args[0]
            results = results if isinstance(results, (list, tuple)) \
                else [results]
            graph["outputs"] = [encode(r) for r in results]
        else:
            raise fmt.GraphError("graph node kind '%s' is not supported"
                                 % node.op)
    return graph, constants, constant_dtypes
