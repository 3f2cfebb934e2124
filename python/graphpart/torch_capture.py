"""Capture a PyTorch function or module as a serialized graph (format.py).

    graphpart.capture(fn, example_inputs, "out_dir", method="export")

traces `fn` to ATen ops, with `torch.export` (PyTorch 2.1 and later; the
default where it exists) or `make_fx` (PyTorch 1.13 and later): every op
with its overload, arguments, result shapes and dtypes; a module's
parameters and buffers become the graph's named parameters (their fully
qualified names, dtypes and shapes; their values saved as
`parameters/<name>.npy` unless `save_parameters=False`), other tensors the
trace holds become constants saved as .npy; custom ops
(any namespace other than aten and prims) keep their schema: the operands
they write (`mutates`) and their tags (`cudagraph_unsafe` where the op
carries it). Needs torch; converting the result does not.

torch.export gives a functional graph: an input the program writes in
place is an extra output there, which becomes an `aten::copy_` into the
input at the end of the graph, as make_fx records it. Its symbolic sizes
(dynamic dims) keep their ranges; sizes computed from them (sym_size and
arithmetic nodes) are folded into the sizes that use them.
"""
import contextlib
import operator
import os
import re

import numpy as np

from . import format as fmt
from .elements import ELEMENTS

_HERE = os.path.dirname(os.path.abspath(__file__))


class _UnsupportedType(fmt.GraphError):
    """An element type the format has no name for; _serialize names the
    node whose value has it."""


def _dtype_name(dtype):
    import torch
    names = {getattr(torch, e.torch): e.torch for e in ELEMENTS.values()}
    if dtype not in names:
        raise _UnsupportedType("element type %s is not supported (%s)" % (
            dtype, ", ".join(names.values())))
    return names[dtype]


def _describe(node):
    """A node as errors name it: the op, the node and the user's line."""
    import torch
    if node is None:
        return "the graph"
    if node.op == "placeholder":
        return "input '%s'" % node.name
    if node.op == "get_attr":
        return "constant '%s'" % node.target
    if node.op == "output":
        return "the outputs"
    target = node.target
    op = _op_name(target)[0] if isinstance(target, torch._ops.OpOverload) \
        else getattr(target, "__name__", str(target))
    source = _source(node)
    return "%s (node '%s'%s)" % (op, node.name,
                                 ", " + source if source else "")


def _to_numpy(tensor):
    import torch
    tensor = tensor.detach().cpu().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16)
    return tensor.numpy()


def _source(node):
    """"file:line" of the user's code that made `node`, when recorded: the
    innermost frame outside graphpart (whose wrapper export traces)."""
    trace = node.meta.get("stack_trace") or ""
    found = [(f, line) for f, line in
             re.findall(r'File "([^"]+)", line (\d+)', trace)
             if os.path.dirname(os.path.abspath(f)) != _HERE]
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


def _device_of(node, value):
    """The device an input was captured on ("cpu" when the trace does not
    record it)."""
    device = getattr(value, "device", None)
    if device is None:
        device = getattr(node.meta.get("val"), "device", None)
    return "cpu" if device is None else str(device)


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


def _has_export():
    import torch
    version = tuple(int(p) for p in re.findall(r"\d+",
                                               torch.__version__)[:2])
    return version >= (2, 1) and hasattr(torch, "export")


def capture(fn, example_inputs, directory, name=None, dynamic=None,
            method=None, save_parameters=True):
    """Traces `fn(*example_inputs)` and saves the graph to `directory`.
    `dynamic` maps an input's position to the dimensions that are one
    symbolic size s0 (all of the same example size). With torch.export
    they are export's dynamic dimensions (min 1); with make_fx the program
    is traced again with that size grown by one, and every size that
    differs between the two traces becomes a multiple of s0 (an op
    sequence that differs is an error). `method` is "export" or "make_fx"
    (default: export where the installed PyTorch has it). A module's
    parameters and buffers are the graph's "parameters", named by their
    fully qualified names, to be bound when the artifact is loaded; their
    values are saved too (parameters/NAME.npy) unless `save_parameters` is
    false (the program is then loaded from the live module). Returns the
    graph dict."""
    _check_inputs(example_inputs)
    name = name or getattr(fn, "__name__", None) or type(fn).__name__
    name = re.sub(r"\W", "_", name)
    method = method or ("export" if _has_export() else "make_fx")
    if method == "export":
        if not _has_export():
            raise fmt.GraphError("method='export' needs PyTorch 2.1 or "
                                 "later")
        graph, constants, dtypes, values = _export(fn, example_inputs, name,
                                                   dynamic)
        fmt.save(graph, directory, constants, dtypes,
                 values if save_parameters else None)
        return graph
    if method != "make_fx":
        raise fmt.GraphError("method must be 'export' or 'make_fx', got %r"
                             % (method,))
    graph, constants, dtypes, values = _trace(fn, example_inputs, name)
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
        other = _trace(fn, grown, name)[0]
        graph = _generalize(graph, other, size)
        graph["symbols"] = {"s0": {"min": 1}}
    fmt.save(graph, directory, constants, dtypes,
             values if save_parameters else None)
    return graph


def _check_inputs(example_inputs):
    """The program's inputs are tensors: a Python number or anything else
    among them is refused, naming its position (the artifact's entry takes
    tensors; torch.export would bake a number in, and the compiled program
    would then ignore the value passed later)."""
    import torch
    if not isinstance(example_inputs, (list, tuple)):
        raise fmt.GraphError(
            "example_inputs must be a list or tuple of tensors, got %s"
            % type(example_inputs).__name__)
    for position, value in enumerate(example_inputs):
        if isinstance(value, torch.Tensor):
            continue
        kind = type(value).__name__
        if isinstance(value, (bool, int, float)):
            raise fmt.GraphError(
                "example input %d is a Python %s (%r); the inputs of a "
                "captured program are tensors: pass torch.tensor(%r), or "
                "make the value part of the function (a closure, "
                "functools.partial or a module attribute)"
                % (position, kind, value, value))
        raise fmt.GraphError("example input %d is a %s; the inputs of a "
                             "captured program are tensors"
                             % (position, kind))


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
    merged["parameters"] = merge(first.get("parameters", []),
                                 second.get("parameters", []), "a parameter")
    return merged


@contextlib.contextmanager
def _composite_attention():
    """Traces nn.MultiheadAttention and nn.TransformerEncoderLayer as their
    composite ops (linear, softmax, layer norm), not as the fused inference
    fast paths they take with autograd off (aten::_native_multi_head_attention,
    aten::_transformer_encoder_layer_fwd), which are one opaque kernel each
    and have no conversion."""
    import torch
    mha = getattr(torch.backends, "mha", None)
    if mha is not None and hasattr(mha, "set_fastpath_enabled"):
        previous = mha.get_fastpath_enabled()
        mha.set_fastpath_enabled(False)
        try:
            yield
        finally:
            mha.set_fastpath_enabled(previous)
    else:
        # PyTorch before 2.2 has no switch; its fast paths are only taken
        # when autograd is off or nothing requires grad.
        with torch.enable_grad():
            yield


def _is_view(node):
    """Whether fx `node` is (an item of) a view of its first argument: an
    aten op whose result aliases its input without writing it (slice,
    select, view, transpose, unsafe_split, ...)."""
    import operator
    if node.op == "call_function" and node.target is operator.getitem:
        node = node.args[0]
    schema = getattr(node.target, "_schema", None)
    if node.op != "call_function" or schema is None or not schema.returns:
        return False
    # unsafe_split's pieces are views its schema does not declare.
    if schema.name in ("aten::unsafe_split", "aten::unsafe_split_with_sizes",
                       "aten::unsafe_chunk"):
        return True
    alias = schema.returns[0].alias_info
    return alias is not None and not alias.is_write


def _writes_through_views(traced):
    """Whether the graph writes in place through a view (LSTM and GRU cells
    write gates of an unsafe_split, circular padding writes slices of a new
    tensor): the converter refuses those where the tensor is read again,
    and a functionalized trace has none."""
    for node in traced.graph.nodes:
        schema = getattr(node.target, "_schema", None)
        if (node.op == "call_function" and schema is not None and
                schema.arguments and schema.arguments[0].alias_info is not None
                and schema.arguments[0].alias_info.is_write and node.args and
                hasattr(node.args[0], "op") and _is_view(node.args[0])):
            return True
    return False


def _functionalize():
    """PyTorch's functionalize transform (torch.func from 2.0; functorch's
    experimental one in 1.13), or None."""
    try:
        from torch.func import functionalize
        return functionalize
    except ImportError:
        pass
    try:
        from functorch.experimental import functionalize
        return functionalize
    except ImportError:
        return None


def _trace(fn, example_inputs, name):
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    with _composite_attention():
        traced = make_fx(fn)(*example_inputs)
        # make_fx keeps in-place ops as they ran. Writes through views are
        # traced again functionalized (as torch.export does), where that
        # transform exists and takes the program; else the converter says
        # which write it cannot follow.
        functionalize = _functionalize()
        if functionalize is not None and _writes_through_views(traced):
            try:
                traced = make_fx(functionalize(fn))(*example_inputs)
            except Exception:  # noqa: BLE001 - the plain trace stands
                pass
    graph = {"name": name, "producer": "torch %s make_fx" % torch.__version__,
             "inputs": [], "nodes": [], "outputs": [], "custom_ops": {}}
    constants, constant_dtypes, values = {}, {}, {}

    def attribute(node):
        return getattr(traced, node.target)

    # make_fx names a module's tensors _param_constant0, ...: each is the
    # module's own tensor, found by its storage.
    state = _module_state(fn) if isinstance(fn, torch.nn.Module) else {}
    parameters = {}
    for node in traced.graph.nodes:
        if node.op == "get_attr":
            found = state.get(_storage_key(attribute(node)))
            if found is not None:
                parameters[node.name] = found
    _serialize(traced.graph, graph, constants, constant_dtypes,
               attribute=attribute, parameters=parameters, values=values)
    # Older make_fx records no devices: the inputs are the example tensors.
    tensors = [v for v in example_inputs if isinstance(v, torch.Tensor)]
    if len(tensors) == len(graph["inputs"]):
        for entry, value in zip(graph["inputs"], tensors):
            entry["device"] = str(value.device)
    return graph, constants, constant_dtypes, values


def _storage_key(tensor):
    """What identifies a tensor's memory and layout (make_fx may hand out
    another tensor object over a parameter's storage)."""
    import torch
    if not isinstance(tensor, torch.Tensor) or tensor.device.type == "meta":
        return None
    return (tensor.data_ptr(), tuple(tensor.shape), tuple(tensor.stride()),
            tensor.dtype, str(tensor.device))


def _module_state(module):
    """A module's parameters and buffers by storage: key -> fully
    qualified name (the first name of a tied tensor)."""
    state = {}
    named = list(module.named_parameters()) + list(module.named_buffers())
    for fqn, tensor in named:
        key = _storage_key(tensor)
        if key is not None and tensor.numel():
            state.setdefault(key, fqn)
    return state


class _Sizes:
    """Sizes as the format writes them: ints, or "s0" / "16*s0" for a
    positive multiple of one symbol (export's symbols renamed s0, s1, ...
    in the order met; its data-dependent, unbacked ones u0, u1, ...)."""

    def __init__(self):
        self.names = {}

    def name(self, symbol):
        if symbol not in self.names:
            kind = "u" if symbol.startswith("u") else "s"
            self.names[symbol] = "%s%d" % (kind, sum(
                1 for n in self.names.values() if n.startswith(kind)))
        return self.names[symbol]

    def __call__(self, value, where):
        import torch
        if isinstance(value, int):
            return value
        if not isinstance(value, torch.SymInt):
            raise fmt.GraphError("%s: size %r is not an int" % (where, value))
        expr = value.node.expr
        if expr.is_Integer:
            return int(expr)
        coeff, rest = expr.as_coeff_Mul()
        if rest.is_Symbol and coeff.is_Integer and int(coeff) > 0:
            name = self.name(str(rest))
            return name if int(coeff) == 1 else "%d*%s" % (int(coeff), name)
        raise fmt.GraphError("%s: size %s is not a multiple of one symbolic "
                             "size; not supported" % (where, expr))


def _serialize(fx_graph, graph, constants, constant_dtypes, attribute,
               inputs=None, sizes=None, parameters=None, values=None):
    """Writes `fx_graph`'s nodes into `graph`. `inputs` maps placeholder
    names to the tensors they are (export's parameters, buffers and
    constants), or None for a program input; `parameters` maps the names
    of the nodes that are a module's parameters or buffers to their fully
    qualified names: those become graph["parameters"], their values put in
    `values` (name -> numpy array); `sizes` turns symbolic sizes into the
    format's (export). An element type the format lacks (complex64) is an
    error naming the op, its node and the user's line."""
    current = {}
    try:
        _serialize_nodes(fx_graph, graph, constants, constant_dtypes,
                         attribute, inputs, sizes, parameters, values,
                         current)
    except _UnsupportedType as error:
        raise fmt.GraphError("%s: %s" % (_describe(current.get("node")),
                                         error))


def _serialize_nodes(fx_graph, graph, constants, constant_dtypes, attribute,
                     inputs, sizes, parameters, values, current):
    """_serialize's work; `current["node"]` is the node being written."""
    import torch
    # Symbolic ints (PyTorch 2); none in older versions.
    sym_int = getattr(torch, "SymInt", ())
    refs = {}
    size = sizes or (lambda value, where: int(value))

    def shape_of(meta, where):
        return [size(d, where) for d in meta.shape]

    def outputs_of(node):
        meta = node.meta.get("tensor_meta")
        if meta is None and "val" in node.meta:
            meta = node.meta["val"]
        if _is_host_scalar(meta):
            return []
        items = [meta] if hasattr(meta, "shape") or meta is None \
            else list(meta)
        return [{"shape": shape_of(item, "node '%s'" % node.name),
                 "dtype": _dtype_name(item.dtype)}
                for item in items
                if item is not None and hasattr(item, "shape")]

    def encode(arg):
        if isinstance(arg, torch.fx.Node):
            value = arg.meta.get("val")
            if sizes is not None and isinstance(value, sym_int):
                return size(value, "node '%s'" % arg.name)
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
        if isinstance(arg, sym_int):
            return size(arg, "an argument")
        if arg is None or isinstance(arg, (bool, int, float, str)):
            return arg
        return {"enum": str(arg)}

    def add_custom_op(target, op):
        schema = target._schema
        mutates = [i for i, a in enumerate(schema.arguments)
                   if a.alias_info is not None and a.alias_info.is_write]
        tags = [str(t).split(".")[-1] for t in getattr(target, "tags", [])]
        graph["custom_ops"][op] = {
            "mutates": mutates,
            "tags": [t for t in tags if t == "cudagraph_unsafe"]}

    functionalized = {}

    graph.setdefault("parameters", [])
    # A tensor the trace reads through several nodes (a tied weight, which
    # make_fx names once per use) is one parameter, read by its first node.
    first_node = {}

    def add_constant(node, value):
        refs[node.name] = {"node": node.name}
        fqn = (parameters or {}).get(node.name)
        if fqn is None:
            constants[node.name] = _to_numpy(value)
            constant_dtypes[node.name] = _dtype_name(value.dtype)
            return
        if fqn in first_node:
            refs[node.name] = {"node": first_node[fqn]}
            return
        first_node[fqn] = node.name
        graph["parameters"].append({
            "name": node.name, "fqn": fqn,
            "shape": [int(d) for d in value.shape],
            "dtype": _dtype_name(value.dtype)})
        if values is not None:
            values[fqn] = _to_numpy(value)

    for node in fx_graph.nodes:
        current["node"] = node
        if node.op == "placeholder":
            constant = (inputs or {}).get(node.name)
            if constant is not None:
                add_constant(node, constant)
                continue
            value = node.meta.get("val")
            if sizes is not None and not hasattr(value, "shape"):
                # A symbolic-size input export adds (its value is the
                # size): sizes are read from the tensors instead.
                continue
            (out,) = outputs_of(node) if sizes is not None \
                else _outputs(node)
            graph["inputs"].append(dict(name=node.name,
                                        device=_device_of(node, value),
                                        **out))
            refs[node.name] = {"node": node.name}
        elif node.op == "get_attr":
            value = attribute(node)
            if not isinstance(value, torch.Tensor):
                raise fmt.GraphError("attribute '%s' is not a tensor"
                                     % node.target)
            add_constant(node, value)
        elif node.op == "call_function":
            if node.target is operator.getitem:
                base, index = node.args
                if base.name in functionalized:
                    count, written = functionalized[base.name]
                    refs[node.name] = encode(written[index - count]) \
                        if index >= count else {"node": base.name} \
                        if count == 1 else {"node": base.name, "index": index}
                    continue
                refs[node.name] = dict(encode(base), index=index)
                continue
            call = _functionalized_call(node)
            if call is not None:
                # A mutating custom op, as torch.export functionalizes it:
                # the op itself, writing its operands (as make_fx records
                # it); their new values are those operands afterwards.
                target, args, written = call
                count = len(target._schema.returns)
                functionalized[node.name] = (count, written)
                op, overload = _op_name(target)
                value = node.meta.get("val") or ()
                entry = {"name": node.name, "op": op, "overload": overload,
                         "args": encode(args), "kwargs": {},
                         "outputs": [{"shape": shape_of(v, node.name),
                                      "dtype": _dtype_name(v.dtype)}
                                     for v in list(value)[:count]]}
                add_custom_op(target, op)
                graph["nodes"].append(entry)
                refs[node.name] = {"node": node.name}
                continue
            value = node.meta.get("val")
            if sizes is not None and _defines_unbacked(node, value):
                # `.item()` of an int tensor used as a size: the node
                # reading it stays, naming its symbol; the sizes that use
                # it name the symbol (below).
                entry = {"name": node.name, "op": "aten::_local_scalar_dense",
                         "overload": "default", "args": encode(node.args),
                         "kwargs": {}, "outputs": [],
                         "symbol": sizes(value, "node '%s'" % node.name)}
                if _source(node):
                    entry["source"] = _source(node)
                graph["nodes"].append(entry)
                continue
            if sizes is not None and (isinstance(value, sym_int) or
                                      _is_size_check(node, value)):
                # sym_size and size arithmetic: folded into their users;
                # export's checks of sizes: the converted program's types
                # and its symbols' ranges say as much.
                continue
            scalar_op = _host_scalar_op(node.target)
            if scalar_op is not None and _is_host_scalar(value):
                # Python arithmetic on an .item() value (float, so not a
                # size): the converter computes it on the host.
                graph["nodes"].append({
                    "name": node.name, "op": "python::" + scalar_op,
                    "overload": "default", "args": encode(node.args),
                    "kwargs": {}, "outputs": []})
                refs[node.name] = {"node": node.name}
                continue
            if not isinstance(node.target, torch._ops.OpOverload):
                raise fmt.GraphError("%s: not an ATen op (at %s)"
                                     % (node.target, _source(node)))
            op, overload = _op_name(node.target)
            entry = {"name": node.name, "op": op, "overload": overload,
                     "args": encode(node.args),
                     "kwargs": {k: encode(v) for k, v in node.kwargs.items()},
                     "outputs": (outputs_of(node) if sizes is not None
                                 else _outputs(node))
                     or _outputs_from_users(node)}
            source = _source(node)
            if source:
                entry["source"] = source
            if op.split("::")[0] not in ("aten", "prims"):
                add_custom_op(node.target, op)
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


# The Python functions torch.export records on host scalars, by the name
# the format gives them (python::NAME).
_HOST_SCALAR_OPS = {
    operator.add: "add", operator.sub: "sub", operator.mul: "mul",
    operator.truediv: "truediv", operator.floordiv: "floordiv",
    operator.mod: "mod", operator.pow: "pow", operator.neg: "neg",
    operator.abs: "abs", abs: "abs"}


def _host_scalar_op(target):
    """The format's name of a Python scalar function, or None."""
    if target in _HOST_SCALAR_OPS:
        return _HOST_SCALAR_OPS[target]
    import torch
    for name in ("sym_sqrt", "sym_float", "sym_max", "sym_min"):
        if target is getattr(torch, name, None):
            return name
    return None


def _is_host_scalar(value):
    """A float computed on the host at run time (an .item() of a float
    tensor and what is computed from it)."""
    import torch
    return isinstance(value, getattr(torch, "SymFloat", ()))


def _defines_unbacked(node, value):
    """Whether `node` is the .item() that defines an unbacked symbol."""
    import torch
    return (node.target is torch.ops.aten._local_scalar_dense.default and
            isinstance(value, torch.SymInt) and value.node.expr.is_Symbol and
            str(value.node.expr).startswith("u"))


_SIZE_CHECKS = ("aten::sym_constrain_range",
                "aten::sym_constrain_range_for_size", "aten::_assert_scalar")


def _is_size_check(node, value):
    """A node of torch.export's size checks (torch._check and
    _check_is_size): a SymBool, or an op asserting one or a range."""
    import torch
    if isinstance(value, getattr(torch, "SymBool", ())):
        return True
    return isinstance(node.target, torch._ops.OpOverload) and \
        node.target._schema.name in _SIZE_CHECKS


def _functionalized_call(node):
    """(op, operands, operands written) of torch.export's
    auto_functionalized / auto_functionalized_v2 call of a mutating custom
    op; None for any other node."""
    import torch
    higher = getattr(torch.ops, "higher_order", None)
    kinds = [getattr(higher, n, None) for n in
             ("auto_functionalized", "auto_functionalized_v2")]
    if higher is None or node.target not in [k for k in kinds if k]:
        return None
    target, kwargs = node.args[0], node.kwargs
    bases = kwargs.get("_all_bases")
    args, written = [], []
    for argument in target._schema.arguments:
        is_written = argument.alias_info is not None and \
            argument.alias_info.is_write
        if bases is not None and is_written:
            if any("_%s_%s" % (argument.name, part) in kwargs
                   for part in ("size", "stride", "storage_offset")):
                raise fmt.GraphError(
                    "node '%s': %s writes a view of a tensor; custom ops "
                    "writing views are not supported"
                    % (node.name, target._schema.name))
            value = bases[kwargs["_%s_base_index" % argument.name]]
        else:
            value = kwargs.get(argument.name, argument.default_value
                               if argument.has_default_value() else None)
        args.append(value)
        if is_written:
            written.append(value)
    return target, args, written


def _kept_ops():
    """run_decompositions' arguments: the default table less
    scaled_dot_product_attention, which the converter takes whole. Its
    decomposition can also give results other strides than the traced op
    had, and a `.view` after it that the trace found contiguous (Hugging
    Face's GPT-2) then fails in the retrace."""
    import torch
    table = getattr(torch.export, "default_decompositions", None)
    if table is None:
        return ()
    table = table()
    table.pop(torch.ops.aten.scaled_dot_product_attention.default, None)
    return (table,)


def _export(fn, example_inputs, name, dynamic):
    """torch.export's graph of `fn`, decomposed to ATen ops, as the format
    writes it."""
    import torch
    from torch.export.graph_signature import InputKind, OutputKind

    module = fn if isinstance(fn, torch.nn.Module) else _Function(fn)
    dynamic_shapes = None
    if dynamic:
        s0 = torch.export.Dim("s0")
        dynamic_shapes = tuple(
            {d: s0 for d in dynamic[i]} if i in dynamic else None
            for i in range(len(example_inputs)))
    try:
        with _composite_attention():
            exported = torch.export.export(module, tuple(example_inputs),
                                           dynamic_shapes=dynamic_shapes)
        exported = exported.run_decompositions(*_kept_ops())
    except Exception as error:  # export's own errors, whatever their type
        raise fmt.GraphError("torch.export failed: %s: %s"
                             % (type(error).__name__, error))
    signature = exported.graph_signature
    state = dict(exported.state_dict)
    state.update(getattr(exported, "constants", {}) or {})
    constant_inputs, user_inputs, parameters = {}, [], {}
    for spec in signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            user_inputs.append(spec.arg.name)
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER,
                           InputKind.CONSTANT_TENSOR):
            constant_inputs[spec.arg.name] = state[spec.target]
            # The module's state, bound by name at load; a lifted
            # constant (a tensor the code made) stays in the program.
            # (A plain function's wrapper has no state of its own.)
            if spec.kind != InputKind.CONSTANT_TENSOR and fn is module:
                parameters[spec.arg.name] = spec.target
        else:
            raise fmt.GraphError("torch.export input %s of kind %s is not "
                                 "supported" % (spec.arg.name, spec.kind))
    graph = {"name": name,
             "producer": "torch %s export" % torch.__version__,
             "inputs": [], "nodes": [], "outputs": [], "custom_ops": {}}
    constants, constant_dtypes, values = {}, {}, {}
    sizes = _Sizes()
    _serialize(exported.graph_module.graph, graph, constants,
               constant_dtypes, attribute=lambda node: getattr(
                   exported.graph_module, node.target),
               inputs=constant_inputs, sizes=sizes, parameters=parameters,
               values=values)
    # Outputs: the user's, in order; inputs and module buffers written in
    # place become copy_ nodes into them (what make_fx records): a written
    # buffer is a parameter the program updates (a key/value cache), bound
    # to the module's own tensor at load.
    outputs = graph["outputs"]
    user_outputs = []
    buffer_nodes = {p["fqn"]: p for p in graph["parameters"]}
    for spec, value in zip(signature.output_specs, outputs):
        if spec.kind == OutputKind.USER_OUTPUT:
            user_outputs.append(value)
        elif spec.kind == OutputKind.USER_INPUT_MUTATION:
            graph["nodes"].append({
                "name": "copy_to_%s" % spec.target, "op": "aten::copy_",
                "overload": "default",
                "args": [{"node": spec.target}, value], "kwargs": {},
                "outputs": [_input_meta(graph, spec.target)]})
        elif spec.kind == OutputKind.BUFFER_MUTATION and \
                spec.target in buffer_nodes:
            entry = buffer_nodes[spec.target]
            graph["nodes"].append({
                "name": "copy_to_%s" % entry["name"], "op": "aten::copy_",
                "overload": "default",
                "args": [{"node": entry["name"]}, value], "kwargs": {},
                "outputs": [{"shape": entry["shape"],
                             "dtype": entry["dtype"]}]})
        else:
            raise fmt.GraphError(
                "torch.export output %s of kind %s (%s) is not supported"
                % (spec.arg.name, spec.kind, "a buffer written in place by "
                   "a plain function" if spec.kind == OutputKind.
                   BUFFER_MUTATION else "a gradient or token"))
    graph["outputs"] = user_outputs
    graph["inputs"] = [i for name in user_inputs for i in graph["inputs"]
                       if i["name"] == name]
    if sizes.names:
        ranges = {}
        for symbol, bounds in exported.range_constraints.items():
            if str(symbol) in sizes.names:
                # Sizes given as inputs are at least 1; data-dependent
                # ones may be 0.
                floor = 0 if str(symbol).startswith("u") else 1
                lower = _bound(bounds.lower)
                entry = {"min": max(floor, floor if lower is None else lower)}
                upper = _bound(bounds.upper)
                if upper is not None and upper < 2 ** 62:
                    entry["max"] = upper
                ranges[sizes.names[str(symbol)]] = entry
        for name in sizes.names.values():
            ranges.setdefault(name, {"min": 0 if name.startswith("u") else 1})
        graph["symbols"] = ranges
    return graph, constants, constant_dtypes, values


def _bound(value):
    """A range bound as an int; None for an infinite one (sympy's oo or
    torch's int_oo, which int() refuses in their own ways)."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError, AttributeError):
        return None


def _input_meta(graph, name):
    (found,) = [i for i in graph["inputs"] if i["name"] == name]
    return {"shape": found["shape"], "dtype": found["dtype"]}


class _Function:
    """A function as the module torch.export takes."""

    def __new__(cls, fn):
        import torch

        class Wrapped(torch.nn.Module):
            def forward(self, *args):
                return fn(*args)
        return Wrapped()
