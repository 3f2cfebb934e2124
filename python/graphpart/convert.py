"""A serialized PyTorch graph (format.py) to MLIR, without PyTorch: linalg
on tensors in the form torch-mlir's linalg-on-tensors backend gives, which
`gp-compile --bufferize` takes (upstream one-shot-bufferize, then gp-import).

    python3 -m graphpart convert GRAPH_DIR -o model.mlir

Tensors are f32, f16, bf16, bool or int64 (other element types are refused
by name). Floating arithmetic runs in f32 and each op's result is rounded
once to its PyTorch dtype, as PyTorch's kernels do for half types; int64
arithmetic runs in i64 where PyTorch keeps integers (int64 with bools and
int numbers), and in f32 where PyTorch promotes to floating point.
Sizes are static or multiples of symbols ("s0", "16*s0"). Weights and
other constants become `arith.constant dense<...>` tensors; gp-compile
--weights DIR turns the large ones into weight arguments. Custom ops become
calls of private declarations carrying their schema (gp.mutates, gp.aliases,
gp.tags), which gp-import makes `gp.fallback` ops. Anything not covered is a
GraphError naming the op and, when the graph records it, the line of the
user's Python source.
"""
import math
import struct

import numpy as np

from .format import GraphError

ELEMENT_TYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16",
                 "bool": "i1", "int64": "i64"}
# Constants are stored as dense bytes.
CONSTANT_TYPES = ("float32", "float16", "bfloat16", "int64", "bool")
HALF_TYPES = ("f16", "bf16")


# Dimensions are ints, or symbolic: "s0" or "4*s0" (a multiple of one
# symbol, as torch.export or a two-size trace gives them).
def parse_dim(dim):
    """(coefficient, symbol or None)."""
    if isinstance(dim, int):
        return dim, None
    text = str(dim).replace(" ", "")
    if "*" in text:
        coef, symbol = text.split("*", 1)
        return int(coef), symbol
    return 1, text


def make_dim(coef, symbol):
    if symbol is None:
        return coef
    return symbol if coef == 1 else "%d*%s" % (coef, symbol)


def normal_dim(dim):
    return make_dim(*parse_dim(dim))


def product(dims):
    """The product of `dims` as (coefficient, ((symbol, power), ...))."""
    coef, powers = 1, {}
    for dim in dims:
        c, symbol = parse_dim(dim)
        coef *= c
        if symbol is not None:
            powers[symbol] = powers.get(symbol, 0) + 1
    return coef, tuple(sorted(powers.items()))


def from_product(value):
    """A product as one dimension, or None when it is not of that form."""
    coef, powers = value
    if not powers:
        return coef
    if len(powers) == 1 and powers[0][1] == 1:
        return make_dim(coef, powers[0][0])
    return None


def divide(total, part):
    """total / part as a product, or None when it does not divide."""
    (coef, powers), (pcoef, ppowers) = total, part
    if pcoef == 0 or coef % pcoef:
        return None
    left = dict(powers)
    for symbol, power in ppowers:
        if left.get(symbol, 0) < power:
            return None
        left[symbol] -= power
    return coef // pcoef, tuple(sorted((k, v) for k, v in left.items() if v))


def is_static(dim):
    return isinstance(dim, int)


def tensor_type(shape, elem="f32"):
    return "tensor<%s>" % "x".join(
        [str(d) if is_static(d) else "?" for d in shape] + [elem])


def literal(value, elem):
    """`value` as an MLIR constant of `elem`."""
    if elem == "i64":
        return "%d" % int(value)
    if elem == "i1":
        return "true" if value else "false"
    return float_literal(value)


def float_literal(value):
    """An f32 literal MLIR reads back exactly (bit patterns for inf/nan)."""
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        return "0x%08X" % bits
    return "%.9e" % value


def dims_map(rank, exprs):
    names = ", ".join("d%d" % i for i in range(rank))
    return "affine_map<(%s) -> (%s)>" % (names, ", ".join(exprs))


def broadcast_shape(*shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        sizes = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            raise ValueError("shapes %s do not broadcast" % (shapes,))
        out.append(sizes.pop() if sizes else 1)
    return out


class Scalar:
    """An f32 value computed at run time (a symbolic element count)."""

    def __init__(self, name):
        self.name = name


class Value:
    def __init__(self, name, shape, sliced=False, elem="f32", device=None):
        self.name, self.shape, self.elem = name, [normal_dim(d) for d in
                                                  shape], elem
        # A gp device ("cpu", "cuda:1") other than the program's, or None.
        self.device = device
        # A tensor.extract_slice result: a strided view once bufferized,
        # which gp reshapes only after a copy.
        self.sliced = sliced

    @property
    def type(self):
        return tensor_type(self.shape, self.elem)


class Converter:
    def __init__(self, graph, constants, device):
        self.graph, self.constants, self.device = graph, constants, device
        self.lines, self.decls = [], {}
        self.values = {}
        self.counter = 0
        self.node = None
        # Index values of symbols and of the dimensions made from them.
        self.symbols, self.dim_values = {}, {}
        # In-place writes to inputs: node -> the input it writes, and each
        # written input -> the node holding its final value.
        self.written_inputs, self.mutated = {}, {}
        # View nodes: name -> (the node they view, whether they view all of
        # it in its shape); and the names an in-place write replaces.
        self.view_of, self.rebind = {}, []

    # -- helpers ----------------------------------------------------------
    def error(self, message):
        where = ""
        if self.node is not None:
            where = "%s (node '%s'%s): " % (
                self.node["op"], self.node["name"],
                ", " + self.node["source"] if self.node.get("source") else "")
        return GraphError(where + message)

    def fresh(self, hint="v"):
        self.counter += 1
        return "%%%s%d" % (hint, self.counter)

    def emit(self, text):
        self.lines.append("  " + text)

    def scalar(self, value, elem="f32"):
        name = self.fresh("c")
        self.emit("%s = arith.constant %s : %s" % (
            name, literal(value, elem), elem))
        return name

    def index(self, dim):
        """The SSA index value of a dimension."""
        dim = normal_dim(dim)
        if dim in self.dim_values:
            return self.dim_values[dim]
        coef, symbol = parse_dim(dim)
        if symbol is not None and symbol not in self.symbols:
            raise self.error("size %s: symbol %s is no input's dimension"
                             % (dim, symbol))
        name = self.fresh("dim")
        if symbol is None:
            self.emit("%s = arith.constant %d : index" % (name, coef))
        elif coef == 1:
            return self.symbols[symbol]
        else:
            self.emit("%s = arith.muli %s, %s : index" % (
                name, self.symbols[symbol], self.index(coef)))
        self.dim_values[dim] = name
        return name

    def sizes(self, shape):
        """A static-or-dynamic size list: `[4, %d1]`."""
        return "[%s]" % ", ".join(str(d) if is_static(d) else self.index(d)
                                  for d in shape)

    def empty(self, shape, elem="f32", device=None):
        name = self.fresh("empty")
        dynamic = [self.index(d) for d in shape if not is_static(d)]
        if device is None:
            self.emit("%s = tensor.empty(%s) : %s" % (
                name, ", ".join(dynamic), tensor_type(shape, elem)))
        else:
            # A tensor on another device: bufferized into that memory space.
            self.emit("%s = bufferization.alloc_tensor(%s) {memory_space = "
                      "#gp.device<%s>} : %s" % (
                          name, ", ".join(dynamic), device,
                          tensor_type(shape, elem)))
        return name

    def device_of(self, values):
        """The device `values` share (None: the program's); tensors on
        different devices cannot meet in one op, as in PyTorch."""
        devices = {v.device for v in values if isinstance(v, Value)}
        if len(devices) > 1:
            raise self.error("operands on different devices (%s)" % ", ".join(
                sorted(d or self.device for d in devices)))
        return devices.pop() if devices else None

    def move(self, x, device):
        """`x` copied to `device` (None: the program's)."""
        if x.device == device:
            return x
        name = self.fresh("moved")
        dynamic = [self.index(d) for d in x.shape if not is_static(d)]
        self.emit("%s = bufferization.alloc_tensor(%s) copy(%s) {memory_space "
                  "= #gp.device<%s>} : %s" % (
                      name, ", ".join(dynamic), x.name, device or self.device,
                      x.type))
        return Value(name, x.shape, elem=x.elem, device=device)

    def gp_device(self, torch_device):
        """A PyTorch device as a gp device, None for the program's own: the
        device the graph's inputs were captured on."""
        home = self.graph["inputs"][0].get("device", "cpu") \
            if self.graph["inputs"] else "cpu"
        text = torch_device.get("device") if isinstance(torch_device, dict) \
            else torch_device
        if text is None or text == home or (
                text == "cuda" and home == "cuda:0"):
            return None
        if text == "cpu":
            return "cpu"
        if text == "cuda":
            return "cuda:0"
        if text.startswith("cuda:"):
            return text
        raise self.error("device %r is not supported" % text)

    def count(self, dims):
        """The number of elements of `dims`: a float, or a Scalar when it is
        symbolic."""
        coef, powers = product(dims)
        if not powers:
            return float(coef)
        total = from_product((coef, powers))
        if total is None:
            raise self.error("an element count of %s is not supported"
                             % list(dims))
        as_int, as_float = self.fresh("n"), self.fresh("nf")
        self.emit("%s = arith.index_cast %s : index to i64"
                  % (as_int, self.index(total)))
        self.emit("%s = arith.sitofp %s : i64 to f32" % (as_float, as_int))
        return Scalar(as_float)

    def filled(self, shape, value, elem="f32", device=None):
        init, fill = self.empty(shape, elem, device), self.fresh("fill")
        scalar = self.fresh("c")
        self.emit("%s = arith.constant %s : %s" % (scalar, literal(value,
                                                                   elem),
                                                   elem))
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            fill, scalar, elem, init, tensor_type(shape, elem),
            tensor_type(shape, elem)))
        return fill

    def generic(self, out_shape, inputs, body, init=None, iterators=None,
                out_map=None, out_elem="f32"):
        """A linalg.generic over the loops of `iterators` (default: the
        output's dims, all parallel). `inputs` are (Value, map exprs);
        `body(args, out)` returns the lines of the block and the yielded
        name, given f32 names of the block arguments (half inputs are
        extended first, and the result rounded to `out_elem`)."""
        rank = len(iterators) if iterators else len(out_shape)
        iterators = iterators or ["parallel"] * rank
        if out_map is None:
            out_map = ["d%d" % i for i in range(rank)]
        maps = [dims_map(rank, exprs) for _, exprs in inputs]
        maps.append(dims_map(rank, out_map))
        out_type = tensor_type(out_shape, out_elem)
        device = self.device_of([v for v, _ in inputs])
        if init is None:
            init = self.empty(out_shape, out_elem, device)
        block_args = ["%%in%d" % i for i in range(len(inputs))]
        elems = [v.elem for v, _ in inputs] + [out_elem]
        lines, args = [], []
        for arg, elem in zip(block_args + ["%out"], elems):
            if elem not in HALF_TYPES:
                args.append(arg)
            else:
                lines.append("%s_f = arith.extf %s : %s to f32"
                             % (arg, arg, elem))
                args.append(arg + "_f")
        block, result = body(args[:-1], args[-1])
        lines += block
        if out_elem in HALF_TYPES:
            lines.append("%%yield = arith.truncf %s : f32 to %s"
                         % (result, out_elem))
            result = "%yield"
        name = self.fresh("g")
        ins = ""
        if inputs:
            ins = "ins(%s : %s) " % (", ".join(v.name for v, _ in inputs),
                                     ", ".join(v.type for v, _ in inputs))
        self.emit("%s = linalg.generic {indexing_maps = [%s], iterator_types"
                  " = [%s]} %souts(%s : %s) {" % (
                      name, ", ".join(maps),
                      ", ".join('"%s"' % i for i in iterators), ins, init,
                      out_type))
        self.emit("^bb0(%s):" % ", ".join(
            "%s: %s" % (a, e) for a, e in zip(block_args + ["%out"], elems)))
        for line in lines:
            self.emit("  " + line)
        self.emit("  linalg.yield %s : %s" % (result, out_elem))
        self.emit("} -> %s" % out_type)
        return Value(name, out_shape, elem=out_elem, device=device)

    def cast(self, x, elem):
        """`x` rounded (or widened) to `elem`; bool to float is 0 or 1."""
        if x.elem == elem:
            return x
        # Half types reach the body as f32 and leave it rounded.
        source = "f32" if x.elem in HALF_TYPES else x.elem
        target = "f32" if elem in HALF_TYPES else elem

        def body(a, o):
            if source == target:
                return [], a[0]
            if target == "i1":   # nonzero is true, as PyTorch's .bool()
                zero = "%%zero = arith.constant %s : %s" % (
                    literal(0, source), source)
                compare = "arith.cmpi ne" if source == "i64" else \
                    "arith.cmpf une"
                return [zero, "%%r = %s, %s, %%zero : %s" % (
                    compare, a[0], source)], "%r"
            if source == "i1":
                op = "arith.extui" if target == "i64" else "arith.uitofp"
            elif source == "i64":
                op = "arith.sitofp"
            else:   # to int64: toward zero, as PyTorch's .long()
                op = "arith.fptosi"
            return ["%%r = %s %s : %s to %s" % (op, a[0], source, target)], \
                "%r"
        return self.generic(x.shape, [(x, ["d%d" % i for i in
                                           range(len(x.shape))])],
                            body, out_elem=elem)

    def copy(self, x):
        """A fresh tensor with `x`'s elements (a view made contiguous)."""
        return self.generic(x.shape, [(x, ["d%d" % i for i in
                                           range(len(x.shape))])],
                            lambda a, o: ([], a[0]), out_elem=x.elem)

    def broadcast_map(self, shape, out_shape):
        offset = len(out_shape) - len(shape)
        return ["0" if size == 1 and out_shape[offset + i] != 1
                else "d%d" % (offset + i) for i, size in enumerate(shape)]

    def elementwise(self, operands, compute, out_elem="f32", keep_bool=(),
                    scalar_elem="f32"):
        """`compute(names)` -> (lines, result) on scalars of `scalar_elem`
        (f32, or i64 for integer arithmetic); operands are Values or Python
        numbers, broadcast like PyTorch. Bool and int64 operands become
        `scalar_elem`, bools except those at the positions in
        `keep_bool`."""
        if scalar_elem == "i64" and any(isinstance(v, Scalar)
                                        for v in operands):
            raise self.error("integer arithmetic with a value of .item() "
                             "is not supported")
        operands = [self.cast(v, scalar_elem) if isinstance(v, Value) and
                    v.elem in ("i1", "i64") and v.elem != scalar_elem and
                    not (v.elem == "i1" and i in keep_bool) else v
                    for i, v in enumerate(operands)]
        tensors = [v for v in operands if isinstance(v, Value)]
        try:
            out_shape = broadcast_shape(*[v.shape for v in tensors])
        except ValueError as error:
            raise self.error(str(error))
        constants = {}
        for i, v in enumerate(operands):
            if isinstance(v, Scalar):
                constants[i] = v.name
            elif not isinstance(v, Value):
                constants[i] = self.scalar(v, scalar_elem)
        inputs = [(v, self.broadcast_map(v.shape, out_shape)) for v in tensors]

        def body(args, out):
            it = iter(args)
            names = [constants[i] if i in constants else next(it)
                     for i in range(len(operands))]
            return compute(names)
        return self.generic(out_shape, inputs, body, out_elem=out_elem)

    def reduce(self, x, dims, kind):
        """Sum, max, min or product ("sum", "max", "min", "prod") of `x`
        over `dims`; the result drops them. Bool and
        int64 tensors reduce in int64 (PyTorch's sum of them is int64),
        floats in f32."""
        rank = len(x.shape)
        dims = sorted({d % rank for d in dims}) if dims else list(range(rank))
        kept = [i for i in range(rank) if i not in dims]
        out_shape = [x.shape[i] for i in kept]
        if x.elem in ("i1", "i64"):
            x, elem = self.cast(x, "i64"), "i64"
            start, op = {"sum": (0, "arith.addi"),
                         "max": (-2 ** 63, "arith.maxsi"),
                         "min": (2 ** 63 - 1, "arith.minsi"),
                         "prod": (1, "arith.muli")}[kind]
        else:
            elem = "f32"
            start, op = {"sum": (0.0, "arith.addf"),
                         "max": (-math.inf, "arith.maximumf"),
                         "min": (math.inf, "arith.minimumf"),
                         "prod": (1.0, "arith.mulf")}[kind]
        init = self.filled(out_shape, start, elem, device=x.device)

        def body(args, out):
            return ["%%r = %s %s, %s : %s" % (op, args[0], out, elem)], "%r"
        return self.generic(
            out_shape, [(x, ["d%d" % i for i in range(rank)])], body,
            init=init,
            iterators=["reduction" if i in dims else "parallel"
                       for i in range(rank)],
            out_map=["d%d" % i for i in kept], out_elem=elem)

    def reshape(self, x, shape):
        """`x` viewed as `shape` (same elements, row-major), through 1-D."""
        shape = [normal_dim(d) for d in shape]
        if shape == x.shape:
            return x
        total = from_product(product(x.shape))
        if product(shape) != product(x.shape) or total is None:
            raise self.error("cannot view %s as %s" % (x.shape, shape))
        if x.sliced:
            x = self.copy(x)
        flat = x
        if len(x.shape) != 1:
            flat = Value(self.fresh("flat"), [total], elem=x.elem,
                         device=x.device)
            if x.shape:
                self.emit("%s = tensor.collapse_shape %s [%s] : %s into %s" % (
                    flat.name, x.name, list(range(len(x.shape))), x.type,
                    flat.type))
            else:
                self.emit("%s = tensor.expand_shape %s [] output_shape [1] : "
                          "%s into %s" % (flat.name, x.name, x.type,
                                          flat.type))
        if len(shape) == 1:
            return flat
        out = Value(self.fresh("view"), shape, elem=x.elem, device=x.device)
        if shape:
            self.emit("%s = tensor.expand_shape %s [%s] output_shape %s : %s "
                      "into %s" % (out.name, flat.name, list(range(len(shape))),
                                   self.sizes(shape), flat.type, out.type))
        else:
            self.emit("%s = tensor.collapse_shape %s [] : %s into %s" % (
                out.name, flat.name, flat.type, out.type))
        return out

    def keepdim(self, reduced, x_shape, dims):
        rank = len(x_shape)
        dims = {d % rank for d in dims} if dims else set(range(rank))
        return self.reshape(reduced, [1 if i in dims else s
                                      for i, s in enumerate(x_shape)])

    def permute(self, x, perm):
        rank = len(x.shape)
        perm = [p % rank for p in perm]
        out_shape = [x.shape[p] for p in perm]
        inverse = [perm.index(j) for j in range(rank)]
        return self.generic(out_shape, [(x, ["d%d" % i for i in inverse])],
                            lambda a, o: ([], a[0]), out_elem=x.elem)

    def matmul(self, a, b):
        if len(a.shape) == 2 and len(b.shape) == 2:
            op, shape = "linalg.matmul", [a.shape[0], b.shape[1]]
            ok = a.shape[1] == b.shape[0]
        elif len(a.shape) == 3 and len(b.shape) == 3:
            op = "linalg.batch_matmul"
            shape = [a.shape[0], a.shape[1], b.shape[2]]
            ok = a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1]
        else:
            ok = False
        if not ok:
            raise self.error("cannot multiply %s by %s" % (a.shape, b.shape))
        if a.elem != b.elem:
            b = self.cast(b, a.elem)
        # One element type throughout, as cuBLAS takes it (f32 compute).
        device = self.device_of([a, b])
        zero, name = self.filled(shape, 0.0, a.elem, device), self.fresh("mm")
        self.emit("%s = %s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            name, op, a.name, b.name, a.type, b.type, zero,
            tensor_type(shape, a.elem), tensor_type(shape, a.elem)))
        return Value(name, shape, elem=a.elem, device=device)

    # -- operands ---------------------------------------------------------
    def value(self, arg):
        if not (isinstance(arg, dict) and "node" in arg):
            raise self.error("expected a tensor, got %r" % (arg,))
        found = self.values.get(arg["node"])
        if found is None:
            raise self.error("uses '%s', which is not defined before it"
                             % arg["node"])
        if isinstance(found, list):
            index = arg.get("index")
            if index is None or not 0 <= index < len(found):
                raise self.error("'%s' has %d results" % (arg["node"],
                                                          len(found)))
            found = found[index]
        if isinstance(found, Unusable):
            raise self.error("uses '%s': %s" % (arg["node"], found.why))
        return found

    def operand(self, arg):
        """A tensor, a Python number, or a Scalar (an `.item()`)."""
        if isinstance(arg, (int, float)) and not isinstance(arg, bool):
            return float(arg)
        if isinstance(arg, dict) and isinstance(self.values.get(
                arg.get("node")), Scalar):
            return self.values[arg["node"]]
        return self.value(arg)

    # -- the program ------------------------------------------------------
    def convert(self):
        graph = self.graph
        args = []
        for entry in graph["inputs"]:
            if entry.get("dtype") not in ELEMENT_TYPES:
                raise GraphError("input '%s': element type %s is not "
                                 "supported (f32, f16, bf16, bool and "
                                 "int64 tensors)"
                                 % (entry["name"], entry.get("dtype")))
            value = Value("%%a_%s" % entry["name"], entry["shape"],
                          elem=ELEMENT_TYPES[entry["dtype"]])
            self.values[entry["name"]] = value
            args.append("%s: %s" % (value.name, value.type))
            # A symbol's value: the first input dimension that is it.
            for position, dim in enumerate(value.shape):
                coef, symbol = parse_dim(dim)
                if symbol is not None and coef == 1 and \
                        symbol not in self.symbols:
                    name = self.fresh("sym")
                    self.emit("%s = tensor.dim %s, %s : %s" % (
                        name, value.name, self.index(position), value.type))
                    self.symbols[symbol] = name
        dtypes = {c["name"]: c["dtype"] for c in graph.get("constants", [])}
        for name, array in self.constants.items():
            dtype = dtypes.get(name, str(array.dtype))
            if dtype not in CONSTANT_TYPES:
                raise GraphError("constant '%s': element type %s is not "
                                 "supported (f32, f16, bf16, int64 and bool "
                                 "constants)" % (name, dtype))
            if dtype == "bool":
                self.values[name] = self.bool_constant(array)
                continue
            value = Value(self.fresh("const"), list(array.shape),
                          elem=ELEMENT_TYPES[dtype])
            # bf16 arrays hold their raw bits (uint16): dense<"0x..."> takes
            # the bytes of any element type as they lie.
            data = np.ascontiguousarray(array)
            self.emit('%s = arith.constant dense<"0x%s"> : %s' % (
                value.name, data.tobytes().hex().upper(), value.type))
            self.values[name] = value
        read = set()

        def collect(arg):
            if isinstance(arg, dict):
                if "node" in arg:
                    read.add(arg["node"])
                for value in arg.values():
                    collect(value)
            elif isinstance(arg, list):
                for value in arg:
                    collect(value)
        for node in graph["nodes"]:
            collect(node.get("args"))
            collect(node.get("kwargs"))
        collect(graph["outputs"])
        for node in graph["nodes"]:
            self.node = node
            if node["name"] not in read and node["op"] in UNUSED_SKIPPED:
                # A tensor made and never read (make_fx records batch
                # norm's reserve buffer so): nothing to convert.
                continue
            self.record_view(node)
            self.rebind = []
            result = self.convert_node(node)
            self.values[node["name"]] = result
            # An in-place write: later reads of the tensor it wrote (and of
            # the tensors that view all of it) read the new value.
            for name in self.rebind:
                self.values[name] = result
        self.node = None
        results = [self.value(out) for out in graph["outputs"]]
        # Inputs written in place: their final values, after the outputs.
        self.mutated_inputs = [
            index for index, entry in enumerate(graph["inputs"])
            if entry["name"] in self.mutated]
        for index in self.mutated_inputs:
            name = graph["inputs"][index]["name"]
            value = self.value({"node": self.mutated[name]})
            results.append(self.move(value, None))
        self.emit("return %s : %s" % (
            ", ".join(r.name for r in results),
            ", ".join(r.type for r in results)))
        header = ["// Converted by graphpart from %s (%s)." % (
            graph["name"], graph.get("producer", "unknown producer"))]
        if self.mutated_inputs:
            header.append(
                "// Inputs written in place, whose final values are the "
                "last %d result(s): %s." % (len(self.mutated_inputs), ", ".join(
                    "%s (argument %d)" % (graph["inputs"][i]["name"], i)
                    for i in self.mutated_inputs)))
        header += self.decls.values()
        attributes = ["gp.default_device = #gp.device<%s>" % self.device]
        ranges = graph.get("symbols", {}).values()
        if ranges:
            # gp-import bounds every symbolic size of the function by these.
            attributes.append("gp.symint_min = %d : i64" % min(
                r.get("min", 0) for r in ranges))
            if all("max" in r for r in ranges):
                attributes.append("gp.symint_max = %d : i64" % max(
                    r["max"] for r in ranges))
        signature = "func.func @%s(%s) -> (%s) attributes {%s} {" % (
            graph["name"], ", ".join(args),
            ", ".join(r.type for r in results), ", ".join(attributes))
        return "\n".join(header + [signature] + self.lines + ["}"]) + "\n"

    def bool_constant(self, array):
        """A bool constant (a causal-mask buffer): stored as bytes, one per
        element (i8, whose dense form is plain), then compared with 0."""
        shape = list(array.shape)
        data = np.ascontiguousarray(array, dtype=np.uint8)
        raw = Value(self.fresh("const"), shape, elem="i8")
        self.emit('%s = arith.constant dense<"0x%s"> : %s' % (
            raw.name, data.tobytes().hex().upper(), raw.type))
        return self.generic(shape, [(raw, ["d%d" % i for i in
                                           range(len(shape))])],
                            lambda a, o: (["%zero = arith.constant 0 : i8",
                                           "%%r = arith.cmpi ne, %s, %%zero "
                                           ": i8" % a[0]], "%r"),
                            out_elem="i1")

    def convert_node(self, node):
        op = node["op"]
        args, kwargs = node.get("args", []), node.get("kwargs", {})
        handler = OPS.get(op)
        if handler is None and op.endswith("_") and op[:-1] in OPS:
            self.check_inplace(node)
            handler = OPS[op[:-1]]
        elif op == "aten::copy_":
            self.check_inplace(node)
        if handler is None:
            if op in self.graph.get("custom_ops", {}):
                return self.custom_op(node)
            raise self.error("no conversion for this op")
        outputs = node.get("outputs", [])
        unsupported = [i for i, o in enumerate(outputs)
                       if o.get("dtype") not in ELEMENT_TYPES]
        # A tuple result of another element type may stay unused (cudnn
        # batch norm's reserve bytes): a use of it is the error.
        if unsupported and (len(outputs) == 1 or 0 in unsupported):
            raise self.error("result element type %s is not supported "
                             "(f32, f16, bf16, bool and int64 tensors)"
                             % outputs[unsupported[0]].get("dtype"))
        result = handler(self, args, kwargs)
        # Arithmetic ran in f32: each result is rounded once to the dtype
        # PyTorch gives it.
        elems = [ELEMENT_TYPES.get(o["dtype"]) for o in outputs]
        if isinstance(result, list):
            for i in (i for i in unsupported if i < len(result)):
                result[i] = Unusable("its element type %s is not supported"
                                     % outputs[i]["dtype"])
            result = [self.cast(v, e) if isinstance(v, Value) else v
                      for v, e in zip(result, elems)] + result[len(elems):]
        elif elems:
            result = self.cast(result, elems[0])
        expected = [[normal_dim(d) for d in o["shape"]]
                    for o in node.get("outputs", [])]
        pairs = [(v.shape, want) for v, want in zip(
            result if isinstance(result, list) else [result], expected)
            if isinstance(v, Value)]
        if any(got != want for got, want in pairs):
            raise self.error("converted to shapes %s, the graph says %s"
                             % ([p[0] for p in pairs], [p[1] for p in pairs]))
        return result

    def random(self, shape, distribution):
        """A tensor of `distribution` ("uniform" on [0, 1) or "normal"),
        drawn afresh on every call: a call that gp-import makes a
        gp.rng.fill from a generator of its own (graph-safe: a replay draws
        new numbers)."""
        shape = [normal_dim(d) for d in shape]
        symbol = "gp_rng_%s_%s" % (distribution, "x".join(
            str(d) if is_static(d) else "d" for d in shape) or "scalar")
        dynamic = [d for d in shape if not is_static(d)]
        decl = ('func.func private @%s(%s) -> %s attributes {gp.rng = "%s"}'
                % (symbol, ", ".join(["index"] * len(dynamic)),
                   tensor_type(shape), distribution))
        self.decls.setdefault(symbol, decl)
        name = self.fresh("rand")
        self.emit("%s = func.call @%s(%s) : (%s) -> %s" % (
            name, symbol, ", ".join(self.index(d) for d in dynamic),
            ", ".join(["index"] * len(dynamic)), tensor_type(shape)))
        return Value(name, shape)

    def record_view(self, node):
        """Notes that `node` views (aliases) its first argument, and whether
        it views all of it in the same shape (a full slice, a detach)."""
        op, args = node["op"], node.get("args", [])
        base = args[0] if args else None
        if op not in VIEW_OPS or not (isinstance(base, dict) and
                                      "node" in base):
            return
        base_shape = self.shape_of(base["node"])
        shape = [o["shape"] for o in node.get("outputs", [])]
        # A transpose of a square matrix keeps the shape and is not the
        # same tensor: only ops that are identities at the same shape count.
        whole = op in ("aten::alias", "aten::detach") or (
            op in SAME_SHAPE_IDENTITY_VIEWS and len(shape) == 1 and
            base_shape is not None and shape[0] == base_shape and
            (op != "aten::slice" or (len(args) < 5 or args[4] == 1)))
        self.view_of[node["name"]] = (base["node"], whole)

    def shape_of(self, name):
        for entry in self.graph["inputs"]:
            if entry["name"] == name:
                return entry["shape"]
        for entry in self.graph["nodes"]:
            if entry["name"] == name:
                outputs = entry.get("outputs", [])
                return outputs[0]["shape"] if len(outputs) == 1 else None
        return None

    def check_inplace(self, node):
        """An in-place op (`add_`, `bernoulli_`, `copy_`, `index_put_`) is
        converted as its functional form, and later reads of the tensor it
        wrote read its result (`self.rebind`). A tensor and the views of
        all of it (full slices, detach) are one tensor here; a write through
        a view of part of a tensor, or to a tensor whose earlier views are
        read afterwards, is refused: the converted program would miss it.
        A write to a program input is kept: the input's final value becomes
        an extra result (`mutated_inputs`), which the caller copies back
        (graphpart.load does)."""
        arg = node.get("args", [None])[0]
        if not (isinstance(arg, dict) and "node" in arg):
            return
        # The written tensor and what it views whole, up to the first
        # tensor that is not such a view.
        chain = [arg["node"]]
        while chain[-1] in self.view_of and self.view_of[chain[-1]][1]:
            chain.append(self.view_of[chain[-1]][0])
        if chain[-1] in self.view_of:
            base = chain[-1]
            while base in self.view_of:
                base = self.view_of[base][0]
            family = self.aliases_of(base)
            readers = sorted({u for name in family
                              for u in self.later_users(name)})
            if readers or self.input_root(base) is not None:
                raise self.error(
                    "writes '%s' in place through the view '%s' (a part or "
                    "a rearrangement of it), and %s: writes through such "
                    "views are not supported"
                    % (base, arg["node"], "'%s' is a program input" % base
                       if self.input_root(base) is not None else
                       "it is read again by " + ", ".join(readers)))
        stale = sorted({u for name in self.aliases_of(chain[-1])
                        if name not in chain
                        for u in self.later_users(name)})
        if stale:
            raise self.error(
                "writes '%s' in place, and views of it taken before are read "
                "again by %s: take the views after the write"
                % (arg["node"], ", ".join(stale)))
        self.rebind = chain
        root = self.input_root(chain[-1])
        if root is not None:
            self.written_inputs[node["name"]] = root
            self.mutated[root] = node["name"]

    def input_root(self, name):
        """The program input `name` is (or holds the written value of)."""
        if any(i["name"] == name for i in self.graph["inputs"]):
            return name
        return self.written_inputs.get(name)

    def aliases_of(self, base):
        """`base` and every recorded view of it, transitively."""
        family, grew = {base}, True
        while grew:
            grew = False
            for name, (of, _) in self.view_of.items():
                if of in family and name not in family:
                    family.add(name)
                    grew = True
        return family

    def later_users(self, name):
        """Nodes after the current one, and outputs, that read `name`."""
        def reads(arg):
            if isinstance(arg, dict):
                return arg.get("node") == name or any(
                    reads(v) for v in arg.values())
            if isinstance(arg, list):
                return any(reads(v) for v in arg)
            return False
        nodes = self.graph["nodes"]
        after = nodes[nodes.index(self.node) + 1:]
        users = [n["name"] for n in after
                 if reads(n.get("args")) or reads(n.get("kwargs"))]
        if reads(self.graph["outputs"]):
            users.append("the outputs")
        return users

    def custom_op(self, node):
        schema = self.graph["custom_ops"][node["op"]]
        # Tensors are values here: a write to an operand that is read again
        # afterwards cannot be expressed, so it is refused rather than lost.
        for index in schema.get("mutates", []):
            arg = node.get("args", [])[index]
            users = self.later_users(arg.get("node"))
            if users or any(arg.get("node") == i["name"]
                            for i in self.graph["inputs"]):
                raise self.error(
                    "mutates operand %d ('%s'), which %s: a mutated tensor "
                    "may only be read through the op's results" % (
                        index, arg.get("node"),
                        "is a program input" if not users else
                        "is read again by " + ", ".join(users)))
        operands = [self.value(a) for a in node.get("args", [])
                    if isinstance(a, dict) and "node" in a]
        if len(operands) != len(node.get("args", [])):
            raise self.error("custom ops take tensors only here")
        outputs = node.get("outputs", [])
        if self.device_of(operands) is not None:
            raise self.error("custom ops on %s are not supported (on the "
                             "program's device only)"
                             % self.device_of(operands))
        if not all(is_static(d) for v in operands for d in v.shape) or \
                not all(is_static(d) for o in outputs for d in o["shape"]):
            raise self.error("custom ops on symbolic sizes are not supported")
        result_types = [tensor_type(o["shape"], ELEMENT_TYPES[o["dtype"]])
                        for o in outputs]
        symbol = node["op"]
        decl = ('func.func private @"%s"(%s) -> (%s)\n    attributes '
                '{gp.op_name = "%s", gp.mutates = %s, gp.aliases = %s, '
                'gp.tags = [%s]}' % (
                    symbol, ", ".join(v.type for v in operands),
                    ", ".join(result_types),
                    node["op"] + "." + node.get("overload", "default"),
                    list(schema.get("mutates", [])),
                    [-1] * len(outputs),
                    ", ".join('"%s"' % t for t in schema.get("tags", []))))
        previous = self.decls.setdefault(symbol, decl)
        if previous != decl:
            raise self.error("called with another signature than before")
        names = [self.fresh("call") for _ in outputs]
        self.emit("%s = func.call @\"%s\"(%s) : (%s) -> (%s)" % (
            ", ".join(names), symbol, ", ".join(v.name for v in operands),
            ", ".join(v.type for v in operands), ", ".join(result_types)))
        values = [Value(n, o["shape"], elem=ELEMENT_TYPES[o["dtype"]])
                  for n, o in zip(names, outputs)]
        return values if len(values) != 1 else values[0]


# -- op conversions ---------------------------------------------------------

def op2(op, n):
    """The block computing `op` of two scalars."""
    return ["%%r = %s %s, %s : f32" % (op, n[0], n[1])], "%r"


def unary(compute):
    def convert(c, args, kwargs):
        return c.elementwise([c.operand(args[0])], compute)
    return convert


# The integer forms of the float ops that have them.
INTEGER_OPS = {"arith.addf": "arith.addi", "arith.subf": "arith.subi",
               "arith.mulf": "arith.muli", "arith.maximumf": "arith.maxsi",
               "arith.minimumf": "arith.minsi"}
INTEGER_PREDICATES = {"oeq": "eq", "une": "ne", "olt": "slt", "ole": "sle",
                      "ogt": "sgt", "oge": "sge"}


def integer_operands(c, args):
    """`args` as integer arithmetic's operands (int64 tensors, with bool
    tensors and int numbers beside them), or None when PyTorch would
    compute in floating point (a float tensor or number among them)."""
    operands, wide = [], False
    for arg in args:
        if isinstance(arg, bool) or (isinstance(arg, int)):
            operands.append(int(arg))
            continue
        if isinstance(arg, float):
            return None
        value = c.operand(arg)
        if not isinstance(value, Value) or value.elem not in ("i1", "i64"):
            return None
        wide |= value.elem == "i64"
        operands.append(value)
    return operands if wide else None


def int_op2(op, n):
    return ["%%r = %s %s, %s : i64" % (op, n[0], n[1])], "%r"


def binary(op):
    def convert(c, args, kwargs):
        alpha = kwargs.get("alpha", args[2] if len(args) > 2 else 1)
        integers = integer_operands(c, args[:2]) if op in INTEGER_OPS and \
            isinstance(alpha, int) else None
        if integers is not None:
            a, b = integers
            if alpha != 1:
                b = c.elementwise([b, alpha], lambda n: int_op2(
                    "arith.muli", n), out_elem="i64", scalar_elem="i64")
            return c.elementwise([a, b], lambda n: int_op2(
                INTEGER_OPS[op], n), out_elem="i64", scalar_elem="i64")
        a, b = c.operand(args[0]), c.operand(args[1])
        if alpha != 1:
            b = c.elementwise([b, float(alpha)],
                              lambda n: op2("arith.mulf", n))
        if not isinstance(a, Value) and not isinstance(b, Value):
            raise c.error("needs a tensor operand")
        return c.elementwise([a, b], lambda n: (
            ["%%r = %s %s, %s : f32" % (op, n[0], n[1])], "%r"))
    return convert


def sigmoid_lines(x, r):
    return ["%s_n = arith.negf %s : f32" % (r, x),
            "%s_e = math.exp %s_n : f32" % (r, r),
            "%s_one = arith.constant 1.000000000e+00 : f32" % r,
            "%s_d = arith.addf %s_one, %s_e : f32" % (r, r, r),
            "%s = arith.divf %s_one, %s_d : f32" % (r, r, r)]


def erf_lines(x, r):
    """erf by Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7), in arith and
    math ops every target lowers."""
    coefficients = [0.254829592, -0.284496736, 1.421413741, -1.453152027,
                    1.061405429]
    lines = ["%s_ax = math.absf %s : f32" % (r, x),
             "%s_p = arith.constant 3.275911000e-01 : f32" % r,
             "%s_one = arith.constant 1.000000000e+00 : f32" % r,
             "%s_pt = arith.mulf %s_p, %s_ax : f32" % (r, r, r),
             "%s_den = arith.addf %s_one, %s_pt : f32" % (r, r, r),
             "%s_t = arith.divf %s_one, %s_den : f32" % (r, r, r)]
    acc = None
    for i, c in enumerate(reversed(coefficients)):
        lines.append("%s_a%d = arith.constant %s : f32" % (r, i,
                                                            float_literal(c)))
        if acc is None:
            acc = "%s_a%d" % (r, i)
        else:
            lines.append("%s_m%d = arith.mulf %s, %s_t : f32" % (r, i, acc, r))
            lines.append("%s_s%d = arith.addf %s_m%d, %s_a%d : f32"
                         % (r, i, r, i, r, i))
            acc = "%s_s%d" % (r, i)
    lines += ["%s_poly = arith.mulf %s, %s_t : f32" % (r, acc, r),
              "%s_x2 = arith.mulf %s_ax, %s_ax : f32" % (r, r, r),
              "%s_nx2 = arith.negf %s_x2 : f32" % (r, r),
              "%s_ex = math.exp %s_nx2 : f32" % (r, r),
              "%s_pe = arith.mulf %s_poly, %s_ex : f32" % (r, r, r),
              "%s_y = arith.subf %s_one, %s_pe : f32" % (r, r, r),
              "%s = math.copysign %s_y, %s : f32" % (r, r, x)]
    return lines


def gelu(c, args, kwargs):
    approximate = kwargs.get("approximate", args[1] if len(args) > 1
                             else "none")
    if isinstance(approximate, dict):
        approximate = approximate.get("enum", "none")

    def compute(n):
        x = n[0]
        if approximate == "tanh":
            lines = ["%k = arith.constant 7.978845608e-01 : f32",
                     "%cubic = arith.constant 4.471499875e-02 : f32",
                     "%x2 = arith.mulf " + x + ", " + x + " : f32",
                     "%x3 = arith.mulf %x2, " + x + " : f32",
                     "%cx3 = arith.mulf %cubic, %x3 : f32",
                     "%in = arith.addf " + x + ", %cx3 : f32",
                     "%arg = arith.mulf %k, %in : f32",
                     "%th = math.tanh %arg : f32",
                     "%one = arith.constant 1.000000000e+00 : f32",
                     "%half = arith.constant 5.000000000e-01 : f32",
                     "%op = arith.addf %one, %th : f32",
                     "%hx = arith.mulf %half, " + x + " : f32",
                     "%r = arith.mulf %hx, %op : f32"]
            return lines, "%r"
        lines = ["%rs2 = arith.constant 7.071067691e-01 : f32",
                 "%xs = arith.mulf " + x + ", %rs2 : f32"]
        lines += erf_lines("%xs", "%erf")
        lines += ["%half = arith.constant 5.000000000e-01 : f32",
                  "%op = arith.addf %erf_one, %erf : f32",
                  "%hx = arith.mulf %half, " + x + " : f32",
                  "%r = arith.mulf %hx, %op : f32"]
        return lines, "%r"
    return c.elementwise([c.operand(args[0])], compute)


def dims_arg(arg, rank):
    if arg is None or arg == []:
        return list(range(rank))
    return [d % rank for d in (arg if isinstance(arg, list) else [arg])]


def reduction(kind, mean=False):
    def convert(c, args, kwargs):
        x = c.value(args[0])
        dims = dims_arg(args[1] if len(args) > 1 else kwargs.get("dim"),
                        len(x.shape))
        keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        if "dtype" in kwargs and kwargs["dtype"] not in (None,
                                                         {"dtype": "float32"}):
            raise c.error("a dtype other than float32 is not supported")
        if mean and x.elem in ("i1", "i64"):
            raise c.error("mean of %s tensors (PyTorch refuses it too)"
                          % x.elem)
        r = c.reduce(x, dims, kind)
        if mean:
            count = c.count([x.shape[d] for d in dims])
            r = c.elementwise([r, count], lambda n: op2("arith.divf", n))
        return c.keepdim(r, x.shape, dims) if keep else r
    return convert


def softmax_of(c, x, dim, log=False, safe=False):
    """softmax (or log_softmax) of `x` over `dim`, in f32. `safe`: a row
    with no finite element gives zeros rather than NaN (_safe_softmax, as
    scaled_dot_product_attention masks whole rows)."""
    high = c.keepdim(c.reduce(x, [dim], "max"), x.shape, [dim])
    shifted = c.elementwise([x, high], lambda n: op2("arith.subf", n))
    e = c.elementwise([shifted], lambda n: (
        ["%%r = math.exp %s : f32" % n[0]], "%r"))
    total = c.keepdim(c.reduce(e, [dim], "sum"), x.shape, [dim])
    if log:
        return c.elementwise([shifted, total], lambda n: (
            ["%%l = math.log %s : f32" % n[1],
             "%%r = arith.subf %s, %%l : f32" % n[0]], "%r"))
    if not safe:
        return c.elementwise([e, total], lambda n: op2("arith.divf", n))
    return c.elementwise([e, total, high], lambda n: (
        ["%%q = arith.divf %s, %s : f32" % (n[0], n[1]),
         "%%ninf = arith.constant %s : f32" % float_literal(-math.inf),
         "%%empty = arith.cmpf oeq, %s, %%ninf : f32" % n[2],
         "%zero = arith.constant 0.000000000e+00 : f32",
         "%r = arith.select %empty, %zero, %q : f32"], "%r"))


def softmax(log, safe=False):
    def convert(c, args, kwargs):
        x = c.value(args[0])
        return softmax_of(c, x, args[1] % len(x.shape), log, safe)
    return convert


def attention(c, args, kwargs, names, returns):
    """scaled_dot_product_attention and the kernels it dispatches to
    (math, flash, efficient, cuDNN): softmax(q @ k^T * scale + mask) @ v
    over the leading (batch, head) dimensions. `names` are the operands
    after q, k, v in the op's schema; `returns` what the op gives beside
    the attention: None, "lse" (each row's log-sum-exp) or "weights" (the
    softmax)."""
    q, k, v = (c.value(a) for a in args[:3])
    given = dict(zip(names, args[3:]))
    given.update(kwargs)
    if given.get("dropout_p", 0.0) not in (0, 0.0, None):
        raise c.error("attention with dropout (dropout_p=%r) is not "
                      "supported; export the model in eval mode"
                      % given["dropout_p"])
    if given.get("enable_gqa"):
        raise c.error("grouped-query attention (enable_gqa) is not "
                      "supported")
    if len(q.shape) < 3 or len(k.shape) != len(q.shape) or \
            len(v.shape) != len(q.shape):
        raise c.error("attention takes q, k, v of one rank, at least 3")
    batch, length, width = q.shape[:-2], q.shape[-2], q.shape[-1]
    keys = k.shape[-2]
    scale = given.get("scale")
    if scale is None:
        if not isinstance(width, int):
            raise c.error("the default scale needs a static head width")
        scale = 1.0 / math.sqrt(width)
    rows = from_product(product(batch)) if batch else 1
    if rows is None:
        raise c.error("the batch dimensions %s are not one size" % batch)

    def flat(x):
        return c.reshape(x, [rows] + x.shape[-2:])
    scores = c.matmul(flat(q), c.permute(flat(k), [0, 2, 1]))
    scores = c.reshape(scores, batch + [length, keys])
    scores = c.elementwise([scores, float(scale)],
                           lambda n: op2("arith.mulf", n))
    mask = given.get("attn_mask")
    if mask is not None:
        mask = c.value(mask)
        if mask.elem == "i1":
            scores = c.elementwise([mask, scores, -math.inf], lambda n: (
                ["%%r = arith.select %s, %s, %s : f32" % tuple(n)], "%r"),
                keep_bool=(0,))
        else:
            scores = c.elementwise([scores, mask],
                                   lambda n: op2("arith.addf", n))
    if given.get("is_causal"):
        # Row i sees keys 0..i (the top-left causal mask PyTorch uses).
        def body(a, o):
            return ["%i = linalg.index 0 : index",
                    "%j = linalg.index 1 : index",
                    "%r = arith.cmpi ule, %j, %i : index"], "%r"
        causal = c.generic([length, keys], [], body, init=c.empty(
            [length, keys], "i1", scores.device), out_elem="i1")
        causal = Value(causal.name, [length, keys], elem="i1",
                       device=scores.device)
        scores = c.elementwise([causal, scores, -math.inf], lambda n: (
            ["%%r = arith.select %s, %s, %s : f32" % tuple(n)], "%r"),
            keep_bool=(0,))
    last = len(scores.shape) - 1
    weights = softmax_of(c, scores, last, safe=True)
    out = c.matmul(flat(weights), flat(c.cast(v, "f32")))
    out = c.reshape(out, batch + [length, v.shape[-1]])
    if returns is None:
        return out
    if returns == "weights":
        return [out, weights]
    # The log-sum-exp of each row's scores (the flash kernels' second
    # result).
    high = c.reduce(scores, [last], "max")
    shifted = c.elementwise([scores, c.keepdim(high, scores.shape, [last])],
                            lambda n: op2("arith.subf", n))
    total = c.reduce(c.elementwise([shifted], lambda n: (
        ["%%r = math.exp %s : f32" % n[0]], "%r")), [last], "sum")
    return [out, c.elementwise([high, total], lambda n: (
        ["%%l = math.log %s : f32" % n[1],
         "%%r = arith.addf %s, %%l : f32" % n[0]], "%r"))]


def native_layer_norm(c, args, kwargs):
    x, normalized = c.value(args[0]), args[1]
    weight = c.value(args[2]) if args[2] is not None else None
    bias = c.value(args[3]) if args[3] is not None else None
    eps = float(args[4])
    rank = len(x.shape)
    dims = list(range(rank - len(normalized), rank))
    count = c.count([x.shape[d] for d in dims])
    divide = lambda n: op2("arith.divf", n)
    mean = c.keepdim(c.elementwise([c.reduce(x, dims, "sum"), count], divide),
                     x.shape, dims)
    centered = c.elementwise([x, mean], lambda n: op2("arith.subf", n))
    squared = c.elementwise([centered], lambda n: (
        ["%%r = arith.mulf %s, %s : f32" % (n[0], n[0])], "%r"))
    var = c.elementwise([c.reduce(squared, dims, "sum"), count], divide)
    rstd = c.keepdim(c.elementwise([var, eps], lambda n: (
        ["%%s = arith.addf %s, %s : f32" % tuple(n),
         "%r = math.rsqrt %s : f32"], "%r")), x.shape, dims)
    y = c.elementwise([centered, rstd], lambda n: op2("arith.mulf", n))
    if weight is not None:
        y = c.elementwise([y, weight], lambda n: op2("arith.mulf", n))
    if bias is not None:
        y = c.elementwise([y, bias], lambda n: op2("arith.addf", n))
    return [y, mean, rstd]


def view(c, args, kwargs):
    x = c.value(args[0])
    shape = list(args[1])
    if shape.count(-1) > 1:
        raise c.error("more than one -1 in %s" % shape)
    if -1 in shape:
        missing = divide(product(x.shape),
                         product(d for d in shape if d != -1))
        missing = from_product(missing) if missing else None
        if missing is None:
            raise c.error("cannot view %s as %s" % (x.shape, shape))
        shape[shape.index(-1)] = missing
    return c.reshape(x, shape)


def reshape_alias(c, args, kwargs):
    """A view PyTorch found legal: on values, the logical elements in
    row-major order, whatever strides the view has in memory."""
    return c.reshape(c.value(args[0]), list(args[1]))


def unsqueeze(c, args, kwargs):
    x = c.value(args[0])
    dim = args[1] % (len(x.shape) + 1)
    return c.reshape(x, x.shape[:dim] + [1] + x.shape[dim:])


def squeeze(c, args, kwargs):
    x = c.value(args[0])
    if len(args) > 1:
        dims = dims_arg(args[1], len(x.shape))
    else:
        dims = list(range(len(x.shape)))
    return c.reshape(x, [s for i, s in enumerate(x.shape)
                         if not (i in dims and s == 1)])


def transpose(c, args, kwargs):
    x = c.value(args[0])
    rank = len(x.shape)
    a, b = (args[1] % rank, args[2] % rank) if len(args) > 2 else (0, 1)
    perm = list(range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    return c.permute(x, perm)


def expand(c, args, kwargs):
    x = c.value(args[0])
    sizes = list(args[1])
    offset = len(sizes) - len(x.shape)
    shape = [x.shape[i - offset] if s == -1 else s
             for i, s in enumerate(sizes)]
    return c.generic(shape, [(x, c.broadcast_map(x.shape, shape))],
                     lambda a, o: ([], a[0]), out_elem=x.elem)


def slice_op(c, args, kwargs):
    x = c.value(args[0])
    rank = len(x.shape)
    dim = (args[1] if len(args) > 1 else 0) % rank
    size = x.shape[dim]
    start = args[2] if len(args) > 2 and args[2] is not None else 0
    end = args[3] if len(args) > 3 and args[3] is not None else size
    step = args[4] if len(args) > 4 else 1
    if not is_static(size) or not is_static(start) or not is_static(end):
        # Along a symbolic dimension: only the whole of it.
        if start == 0 and step == 1 and (normal_dim(end) == size or (
                is_static(end) and end >= 2 ** 62)):
            return x
        raise c.error("slicing part of a symbolic dimension (%s) is not "
                      "supported" % size)
    start = max(0, min(size, start + size if start < 0 else start))
    end = max(start, min(size, end + size if end < 0 else end))
    count = (end - start + step - 1) // step
    offsets, sizes, strides = [0] * rank, list(x.shape), [1] * rank
    offsets[dim], sizes[dim], strides[dim] = start, count, step
    out = Value(c.fresh("slice"), sizes, sliced=True, elem=x.elem,
                device=x.device)
    c.emit("%s = tensor.extract_slice %s%s%s%s : %s to %s" % (
        out.name, x.name, offsets, c.sizes(sizes), strides, x.type,
        out.type))
    return out


def select(c, args, kwargs):
    x = c.value(args[0])
    rank = len(x.shape)
    dim, index = args[1] % rank, args[2]
    if not is_static(x.shape[dim]):
        raise c.error("select along a symbolic dimension (%s) is not "
                      "supported" % x.shape[dim])
    index = index + x.shape[dim] if index < 0 else index
    if not 0 <= index < x.shape[dim]:
        raise c.error("index %d out of range for size %d"
                      % (args[2], x.shape[dim]))
    offsets, sizes = [0] * rank, list(x.shape)
    offsets[dim], sizes[dim] = index, 1
    out = Value(c.fresh("select"), x.shape[:dim] + x.shape[dim + 1:],
                sliced=True, elem=x.elem, device=x.device)
    c.emit("%s = tensor.extract_slice %s%s%s%s : %s to %s" % (
        out.name, x.name, offsets, c.sizes(sizes), [1] * rank, x.type,
        out.type))
    return out


def cat(c, args, kwargs):
    return cat_values(c, [c.value(a) for a in args[0]],
                      args[1] if len(args) > 1 else kwargs.get("dim", 0))


def cat_values(c, tensors, dim):
    elem = tensors[0].elem
    tensors = [c.cast(t, elem) for t in tensors]
    rank = len(tensors[0].shape)
    dim %= rank
    shape = list(tensors[0].shape)
    if not all(is_static(t.shape[dim]) for t in tensors):
        raise c.error("cat along a symbolic dimension is not supported")
    shape[dim] = sum(t.shape[dim] for t in tensors)
    device = c.device_of(tensors)
    current, offset = c.empty(shape, elem, device), 0
    for t in tensors:
        offsets = [0] * rank
        offsets[dim] = offset
        name = c.fresh("cat")
        c.emit("%s = tensor.insert_slice %s into %s%s%s%s : %s into %s" % (
            name, t.name, current, offsets, c.sizes(t.shape), [1] * rank,
            t.type,
            tensor_type(shape, elem)))
        current, offset = name, offset + t.shape[dim]
    return Value(current, shape, elem=elem, device=device)


def addmm(c, args, kwargs):
    """addmm / baddbmm: beta * input + alpha * (a @ b)."""
    bias, a, b = (c.value(x) for x in args[:3])
    beta = float(kwargs.get("beta", args[3] if len(args) > 3 else 1))
    alpha = float(kwargs.get("alpha", args[4] if len(args) > 4 else 1))
    product_ = c.matmul(a, b)
    if beta == 1 and alpha == 1:
        return c.elementwise([product_, bias], lambda n: op2("arith.addf", n))
    if beta == 0:   # input is ignored, NaN included, as PyTorch does
        return c.elementwise([product_, alpha], lambda n: op2("arith.mulf",
                                                              n))
    return c.elementwise([product_, bias, alpha, beta], lambda n: ([
        "%%p = arith.mulf %s, %s : f32" % (n[0], n[2]),
        "%%q = arith.mulf %s, %s : f32" % (n[1], n[3]),
        "%r = arith.addf %p, %q : f32"], "%r"))


def general_matmul(c, a, b):
    """torch.matmul: vectors promoted and their dimension dropped after,
    batch dimensions broadcast, as one matmul or batch_matmul."""
    vector_a, vector_b = len(a.shape) == 1, len(b.shape) == 1
    if vector_a:
        a = c.reshape(a, [1] + a.shape)
    if vector_b:
        b = c.reshape(b, b.shape + [1])
    if len(a.shape) == 2 and len(b.shape) == 2:
        out = c.matmul(a, b)
    elif len(b.shape) == 2:
        # (..., m, k) @ (k, n): one matmul over the flattened rows.
        rows = from_product(product(a.shape[:-1]))
        out = c.matmul(c.reshape(a, [rows, a.shape[-1]]), b)
        out = c.reshape(out, a.shape[:-1] + [b.shape[-1]])
    else:
        try:
            batch = broadcast_shape(a.shape[:-2], b.shape[:-2])
        except ValueError as error:
            raise c.error(str(error))
        count = from_product(product(batch))

        def batched(x):
            full = batch + x.shape[-2:]
            if x.shape != full:
                x = c.generic(full, [(x, c.broadcast_map(x.shape, full))],
                              lambda a_, o: ([], a_[0]), out_elem=x.elem)
            return c.reshape(x, [count] + x.shape[-2:])
        out = c.matmul(batched(a), batched(b))
        out = c.reshape(out, batch + [a.shape[-2], b.shape[-1]])
    if vector_a:
        out = c.reshape(out, out.shape[:-2] + out.shape[-1:])
    if vector_b:
        out = c.reshape(out, out.shape[:-1])
    return out


def linear(c, args, kwargs):
    """linear(x, w, b): x @ w^T + b over any leading dimensions."""
    x, weight = c.value(args[0]), c.value(args[1])
    bias = args[2] if len(args) > 2 else kwargs.get("bias")
    out = general_matmul(c, x, c.permute(weight, [1, 0]) if len(
        weight.shape) == 2 else weight)
    if bias is not None:
        out = c.elementwise([out, c.value(bias)],
                            lambda n: op2("arith.addf", n))
    return out


def rms_norm(fused):
    """rms_norm(x, normalized_shape, weight, eps): x / sqrt(mean(x^2) +
    eps) * weight over the normalized dimensions (eps defaults to the
    dtype's machine epsilon); _fused_rms_norm also gives 1/rms."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        normalized = list(args[1])
        weight = args[2] if len(args) > 2 else kwargs.get("weight")
        eps = args[3] if len(args) > 3 else kwargs.get("eps")
        if eps is None:
            eps = {"f32": 1.1920928955078125e-07, "f16": 0.0009765625,
                   "bf16": 0.0078125}.get(x.elem, 1.1920928955078125e-07)
        rank = len(x.shape)
        dims = list(range(rank - len(normalized), rank))
        count = c.count([x.shape[d] for d in dims])
        squares = c.elementwise([x], lambda n: (
            ["%%r = arith.mulf %s, %s : f32" % (n[0], n[0])], "%r"))
        mean = c.elementwise([c.reduce(squares, dims, "sum"), count],
                             lambda n: op2("arith.divf", n))
        inverse = c.keepdim(c.elementwise([mean, float(eps)], lambda n: (
            ["%%s = arith.addf %s, %s : f32" % tuple(n),
             "%r = math.rsqrt %s : f32"], "%r")), x.shape, dims)
        y = c.elementwise([x, inverse], lambda n: op2("arith.mulf", n))
        if weight is not None:
            y = c.elementwise([y, c.value(weight)],
                              lambda n: op2("arith.mulf", n))
        return [y, inverse] if fused else y
    return convert


def unbind(c, args, kwargs):
    x = c.value(args[0])
    dim = (args[1] if len(args) > 1 else kwargs.get("dim", 0)) % len(
        x.shape)
    if not is_static(x.shape[dim]):
        raise c.error("unbind along a symbolic size is not supported")
    return [select(c, [args[0], dim, i], {}) for i in range(x.shape[dim])]


def stack(c, args, kwargs):
    tensors = [c.value(a) for a in args[0]]
    dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
    dim %= len(tensors[0].shape) + 1
    return cat_values(c, [c.reshape(t, t.shape[:dim] + [1] + t.shape[dim:])
                          for t in tensors], dim)


def fill(c, args, kwargs):
    """fill(x, value) (fill_ in place): x's shape filled with a number or
    a one-element tensor."""
    x, value = c.value(args[0]), args[1]
    if isinstance(value, dict):
        v = c.value(value)
        return c.generic(x.shape, [(v, ["0"] * len(v.shape))],
                         lambda a, o: ([], a[0]), out_elem=x.elem)
    return filled_like(float(value))(c, args, kwargs)


def identity(c, args, kwargs):
    return c.value(args[0])


def pow_scalar(c, args, kwargs):
    """pow of a tensor by a number (x * x for 2), of a number by a tensor,
    or of two tensors (broadcast), through f32."""
    base, exponent = args[0], args[1]
    if not isinstance(base, dict) or isinstance(exponent, dict):
        return c.elementwise([c.operand(base), c.operand(exponent)],
                             lambda n: op2("math.powf", n))
    x = c.value(base)
    if exponent == 2:
        return c.elementwise([x], lambda n: (
            ["%%r = arith.mulf %s, %s : f32" % (n[0], n[0])], "%r"))
    return c.elementwise([x, float(exponent)], lambda n: op2("math.powf", n))


def embedding(c, args, kwargs):
    """Rows of `weight` picked by int64 `indices`. An index outside the
    table (an error in PyTorch) reads the nearest row instead of memory
    outside the table."""
    weight, indices = c.value(args[0]), c.value(args[1])
    if indices.elem != "i64" or len(weight.shape) != 2:
        raise c.error("takes a 2-D weight and int64 indices")
    rows, width = weight.shape
    rank = len(indices.shape)
    out_shape = indices.shape + [width]

    def body(a, out):
        lines = ["%%row_raw = arith.index_cast %s : i64 to index" % a[0],
                 "%zero = arith.constant 0 : index",
                 "%%last = arith.constant %d : index" % (rows - 1),
                 "%row_low = arith.maxsi %row_raw, %zero : index",
                 "%row = arith.minsi %row_low, %last : index",
                 "%%col = linalg.index %d : index" % rank,
                 "%%v = tensor.extract %s[%%row, %%col] : %s"
                 % (weight.name, weight.type)]
        if weight.elem != "f32":
            lines.append("%%vf = arith.extf %%v : %s to f32" % weight.elem)
            return lines, "%vf"
        return lines, "%v"
    return c.generic(out_shape,
                     [(indices, ["d%d" % i for i in range(rank)])], body,
                     out_elem=weight.elem)


def split(c, args, kwargs):
    """split.Tensor (a chunk size) and split_with_sizes (a list of sizes):
    slices along `dim`."""
    x = c.value(args[0])
    dim = (args[2] if len(args) > 2 else kwargs.get("dim", 0)) % len(x.shape)
    size = x.shape[dim]
    if not is_static(size):
        raise c.error("split along a symbolic dimension (%s) is not "
                      "supported" % size)
    if isinstance(args[1], list):
        sizes = list(args[1])
        if sum(sizes) != size:
            raise c.error("sizes %s do not add up to %d" % (sizes, size))
    else:
        chunk = max(1, args[1])
        sizes = [min(chunk, size - start) for start in range(0, size, chunk)]
    parts, start = [], 0
    for length in sizes:
        parts.append(slice_op(c, [args[0], dim, start, start + length], {}))
        start += length
    return parts


def rsub(c, args, kwargs):
    x, other = c.operand(args[0]), c.operand(args[1])
    alpha = kwargs.get("alpha", args[2] if len(args) > 2 else 1)
    if alpha != 1:
        x = c.elementwise([x, float(alpha)], lambda n: op2("arith.mulf", n))
    return c.elementwise([other, x], lambda n: op2("arith.subf", n))


def clamp_between(low, high):
    """Lines clamping `x` to [low, high] (None: unbounded)."""
    def compute(n):
        lines, value = [], n[0]
        if low is not None:
            lines += ["%%lo = arith.constant %s : f32" % float_literal(low),
                      "%%a = arith.maximumf %s, %%lo : f32" % value]
            value = "%a"
        if high is not None:
            lines += ["%%hi = arith.constant %s : f32" % float_literal(high),
                      "%%b = arith.minimumf %s, %%hi : f32" % value]
            value = "%b"
        return lines, value
    return compute


def clamp(c, args, kwargs):
    low = args[1] if len(args) > 1 else kwargs.get("min")
    high = args[2] if len(args) > 2 else kwargs.get("max")
    if isinstance(low, dict) or isinstance(high, dict):
        # clamp.Tensor: bounds broadcast like operands.
        operands = [c.value(args[0])] + [c.operand(b) for b in (low, high)
                                         if b is not None]

        def compute(n):
            lines, value, at = [], n[0], 1
            if low is not None:
                lines.append("%%a = arith.maximumf %s, %s : f32"
                             % (value, n[at]))
                value, at = "%a", at + 1
            if high is not None:
                lines.append("%%b = arith.minimumf %s, %s : f32"
                             % (value, n[at]))
                value = "%b"
            return lines, value
        return c.elementwise(operands, compute)
    return c.elementwise([c.value(args[0])], clamp_between(low, high))


def hardtanh(c, args, kwargs):
    low = args[1] if len(args) > 1 else kwargs.get("min_val", -1.0)
    high = args[2] if len(args) > 2 else kwargs.get("max_val", 1.0)
    return c.elementwise([c.value(args[0])], clamp_between(low, high))


def leaky_relu(c, args, kwargs):
    slope = args[1] if len(args) > 1 else kwargs.get("negative_slope", 0.01)
    return c.elementwise([c.value(args[0]), float(slope)], lambda n: (
        ["%zero = arith.constant 0.000000000e+00 : f32",
         "%%pos = arith.cmpf ogt, %s, %%zero : f32" % n[0],
         "%%scaled = arith.mulf %s, %s : f32" % (n[0], n[1]),
         "%%r = arith.select %%pos, %s, %%scaled : f32" % n[0]], "%r"))


def filled_like(value):
    """zeros_like / ones_like (the node's dtype is applied after)."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        device = c.gp_device(kwargs["device"]) if "device" in kwargs \
            else x.device
        return Value(c.filled(x.shape, value, device=device), x.shape,
                     device=device)
    return convert


def full_like(c, args, kwargs):
    """full_like(x, value): x's shape and device filled with `value`."""
    value = args[1] if len(args) > 1 else kwargs.get("fill_value")
    if not isinstance(value, (int, float)):   # bool is an int: 0 or 1
        raise c.error("the fill value must be a number")
    return filled_like(float(value))(c, args, kwargs)


def scalar_tensor(c, args, kwargs):
    """scalar_tensor(value): a 0-d tensor (torch.export's form of a number
    used as a tensor, as in where(mask, x, 0.5))."""
    return full(c, [[], args[0]], kwargs)


def full(c, args, kwargs):
    shape, value = list(args[0]), args[1]
    if not isinstance(value, (int, float)):   # bool is an int: 0 or 1
        raise c.error("the fill value must be a number")
    device = c.gp_device(kwargs.get("device"))
    return Value(c.filled(shape, float(value), device=device), shape,
                 device=device)


def filled_sized(value, new=False):
    """zeros/ones/empty(size) and x.new_zeros/new_ones/new_empty(size)
    (`new`: the size follows the tensor); empty is zeros here."""
    def convert(c, args, kwargs):
        return full(c, [args[1 if new else 0], value], kwargs)
    return convert


def to_copy(c, args, kwargs):
    """.to(dtype) (the node's result dtype rounds) and .to(device),
    `.cpu()`, `.cuda()`: a copy into the other device's memory, which
    gp-partition cuts at."""
    x = c.value(args[0])
    if "device" in kwargs:
        return c.move(x, c.gp_device(kwargs["device"]))
    return x


def random_like(distribution):
    def convert(c, args, kwargs):
        x = c.value(args[0])
        if x.device is not None:
            raise c.error("random tensors on %s are not supported (on the "
                          "program's device only)" % x.device)
        return c.random(x.shape, distribution)
    return convert


def random_sized(distribution):
    def convert(c, args, kwargs):
        if c.gp_device(kwargs.get("device")) is not None:
            raise c.error("random tensors on %s are not supported (on the "
                          "program's device only)" % kwargs["device"])
        return c.random(list(args[0]), distribution)
    return convert


def bernoulli(c, args, kwargs):
    """bernoulli(t, p) (and bernoulli_, in place): 1.0 with probability p."""
    t, p = c.value(args[0]), args[1] if len(args) > 1 else kwargs.get("p")
    if not isinstance(p, (int, float)) or isinstance(p, bool):
        raise c.error("the probability must be a number")
    return c.elementwise([c.random(t.shape, "uniform"), float(p)], lambda n: (
        ["%%hit = arith.cmpf olt, %s, %s : f32" % tuple(n),
         "%r = arith.uitofp %hit : i1 to f32"], "%r"))


def native_dropout(c, args, kwargs):
    """(x * keep / (1 - p), keep) with keep drawn afresh on every call."""
    x, p = c.value(args[0]), float(args[1])
    train = args[2] if len(args) > 2 else kwargs.get("train")
    if train is False:
        return [x, c.elementwise([x], lambda n: (
            ["%r = arith.constant true"], "%r"), out_elem="i1")]
    keep = c.elementwise([c.random(x.shape, "uniform"), 1.0 - p], lambda n: (
        ["%%r = arith.cmpf olt, %s, %s : f32" % tuple(n)], "%r"),
        out_elem="i1")
    scale = 1.0 / (1.0 - p) if p < 1.0 else 0.0
    out = c.elementwise([x, keep, scale], lambda n: (
        ["%zero = arith.constant 0.000000000e+00 : f32",
         "%%s = arith.mulf %s, %s : f32" % (n[0], n[2]),
         "%%r = arith.select %s, %%s, %%zero : f32" % n[1]], "%r"),
        keep_bool=(1,))
    return [out, keep]


def native_dropout_backward(c, args, kwargs):
    grad, mask, scale = c.value(args[0]), c.value(args[1]), float(args[2])
    return c.elementwise([grad, mask, scale], lambda n: (
        ["%zero = arith.constant 0.000000000e+00 : f32",
         "%%s = arith.mulf %s, %s : f32" % (n[0], n[2]),
         "%%r = arith.select %s, %%s, %%zero : f32" % n[1]], "%r"),
        keep_bool=(1,))


def item(c, args, kwargs):
    """`.item()`: the one element, as a scalar later ops take (gp-import
    makes it a gp.item: the program waits for the value there)."""
    x = c.value(args[0])
    if from_product(product(x.shape)) != 1:
        raise c.error(".item() of a tensor of %s elements" % (x.shape,))
    x = c.reshape(x, []) if x.shape else x
    value = c.fresh("item")
    c.emit("%s = tensor.extract %s[] : %s" % (value, x.name, x.type))
    symbol = c.node.get("symbol")
    if symbol is not None:
        # A data-dependent size (torch.export's unbacked u0): the sizes
        # that name it take this value (gp-import makes it a
        # gp.symint.unbacked, where the program waits for the device).
        if x.elem != "i64":
            raise c.error("the size %s is read from a %s tensor; sizes are "
                          "int64" % (symbol, x.elem))
        size = c.fresh("size")
        c.emit("%s = arith.index_cast %s : i64 to index" % (size, value))
        c.symbols[symbol] = size
    if x.elem == "i64":
        wide = c.fresh("item")
        c.emit("%s = arith.sitofp %s : i64 to f32" % (wide, value))
        value = wide
    elif x.elem in HALF_TYPES:
        wide = c.fresh("item")
        c.emit("%s = arith.extf %s : %s to f32" % (wide, value, x.elem))
        value = wide
    elif x.elem != "f32":
        raise c.error(".item() of %s tensors is not supported" % x.elem)
    return Scalar(value)


def copy_functional(c, args, kwargs):
    """aten::copy (torch.export's functional copy_): a new tensor of dst's
    shape and dtype holding src."""
    result = copy(c, args, kwargs)
    return c.cast(result, c.value(args[0]).elem)


def host_scalar_op(arity, compute):
    """Python arithmetic on host scalars (torch.export records what a
    program does with an `.item()` value as `operator`/`torch.sym_*` calls,
    which the capture writes as `python::NAME`): f32 arithmetic on the host
    between the `.item()` and the ops that take the result. `compute(c,
    names)` emits the lines and returns the result's name."""
    def convert(c, args, kwargs):
        if len(args) != arity or kwargs:
            raise c.error("takes %d operand(s), got %d" % (arity, len(args)))
        operands = [c.operand(arg) for arg in args]
        if any(isinstance(v, Value) for v in operands):
            raise c.error("Python arithmetic on a tensor; expected "
                          "numbers or .item() values")
        if not any(isinstance(v, Scalar) for v in operands):
            raise c.error("no operand is an .item() value")
        names = [v.name if isinstance(v, Scalar) else c.scalar(v)
                 for v in operands]
        return Scalar(compute(c, names))
    return convert


def host_arith(op):
    def compute(c, names):
        result = c.fresh("s")
        c.emit("%s = %s %s : f32" % (result, op, ", ".join(names)))
        return result
    return compute


def host_floordiv(c, names):
    quotient = host_arith("arith.divf")(c, names)
    return host_arith("math.floor")(c, [quotient])


def host_mod(c, names):
    """Python's remainder: the sign of the divisor."""
    floor = host_floordiv(c, names)
    product = host_arith("arith.mulf")(c, [floor, names[1]])
    return host_arith("arith.subf")(c, [names[0], product])


HOST_SCALAR_OPS = {
    "python::add": host_scalar_op(2, host_arith("arith.addf")),
    "python::sub": host_scalar_op(2, host_arith("arith.subf")),
    "python::mul": host_scalar_op(2, host_arith("arith.mulf")),
    "python::truediv": host_scalar_op(2, host_arith("arith.divf")),
    "python::floordiv": host_scalar_op(2, host_floordiv),
    "python::mod": host_scalar_op(2, host_mod),
    "python::pow": host_scalar_op(2, host_arith("math.powf")),
    "python::neg": host_scalar_op(1, host_arith("arith.negf")),
    "python::abs": host_scalar_op(1, host_arith("math.absf")),
    "python::sym_sqrt": host_scalar_op(1, host_arith("math.sqrt")),
    "python::sym_float": host_scalar_op(1, lambda c, names: names[0]),
    "python::sym_max": host_scalar_op(2, host_arith("arith.maximumf")),
    "python::sym_min": host_scalar_op(2, host_arith("arith.minimumf")),
}


def copy(c, args, kwargs):
    """copy_(dst, src): src broadcast to dst's shape, in dst's dtype and on
    dst's device (the write itself: see check_inplace)."""
    dst, src = c.value(args[0]), c.value(args[1])
    src = c.move(src, dst.device)
    return c.generic(dst.shape, [(src, c.broadcast_map(src.shape, dst.shape))],
                     lambda a, o: ([], a[0]), out_elem=src.elem)


def _tensor_indices(c, x, indices):
    """The index tensors of `x[indices]` (aten::index, index_put): their
    position p (the first indexed dimension), the Values, their broadcast
    shape S (indexing replaces dims p..p+n-1 of x by S) and
    `maps(loops)`: each index tensor's indexing map, given the loops that
    run over S."""
    if not isinstance(indices, list) or not indices:
        raise c.error("takes a list of index tensors")
    positions = [i for i, a in enumerate(indices) if a is not None]
    if positions != list(range(positions[0], positions[-1] + 1)):
        raise c.error("index tensors separated by ':' dimensions are not "
                      "supported")
    values = [c.value(indices[i]) for i in positions]
    if len(positions) > len(x.shape) - positions[0]:
        raise c.error("%d index tensors for a %d-D tensor"
                      % (len(positions), len(x.shape)))
    for v in values:
        if v.elem != "i64":
            raise c.error("index tensors must be int64 here, not %s (bool "
                          "masks are taken by index_put alone)" % v.elem)
    try:
        shape = broadcast_shape(*[v.shape for v in values])
    except ValueError as error:
        raise c.error("index tensors of shapes %s do not broadcast (%s)"
                      % ([v.shape for v in values], error))

    def maps(loops):
        return [[e if e == "0" else loops[int(e[1:])]
                 for e in c.broadcast_map(v.shape, shape)] for v in values]
    for dim in range(positions[0], positions[0] + len(values)):
        if not is_static(x.shape[dim]):
            raise c.error("indexing a symbolic dimension (%s) is not "
                          "supported" % x.shape[dim])
    return positions[0], values, shape, maps


def _wrapped_index(name, raw, size):
    """Lines making `%name` the index a (possibly negative) int64 `raw`
    selects in a dimension of `size`, as PyTorch counts."""
    return ["%%%s_raw = arith.index_cast %s : i64 to index" % (name, raw),
            "%%%s_size = arith.constant %d : index" % (name, size),
            "%%%s_zero = arith.constant 0 : index" % name,
            "%%%s_neg = arith.cmpi slt, %%%s_raw, %%%s_zero : index"
            % (name, name, name),
            "%%%s_up = arith.addi %%%s_raw, %%%s_size : index"
            % (name, name, name),
            "%%%s = arith.select %%%s_neg, %%%s_up, %%%s_raw : index"
            % (name, name, name, name)]


def _clamped_index(name, raw, size):
    """Lines making `%name_in` the index `raw` selects in a dimension of
    `size`: wrapped as PyTorch counts negatives, then clamped into the
    dimension (an index PyTorch would refuse reads the nearest element,
    never memory outside the tensor)."""
    return _wrapped_index(name, raw, size) + [
        "%%%s_last = arith.constant %d : index" % (name, size - 1),
        "%%%s_lo = arith.maxsi %%%s, %%%s_zero : index" % (name, name, name),
        "%%%s_in = arith.minsi %%%s_lo, %%%s_last : index"
        % (name, name, name)]


def _extract_lines(x, coords):
    """Lines reading `x` at `coords` inside a generic body, widened to
    f32 for half types; returns (lines, the value's name)."""
    lines = ["%%v = tensor.extract %s[%s] : %s"
             % (x.name, ", ".join(coords), x.type)]
    if x.elem in HALF_TYPES:
        lines.append("%%vf = arith.extf %%v : %s to f32" % x.elem)
        return lines, "%vf"
    return lines, "%v"


def index(c, args, kwargs):
    """x[i] / x[:, i, j] with int64 index tensors (aten::index.Tensor): a
    gather. An index outside the dimension (an error in PyTorch) reads the
    nearest element instead of memory outside the tensor."""
    x = c.value(args[0])
    p, idx, shape, maps = _tensor_indices(c, x, args[1])
    n, r = len(idx), len(shape)
    out_shape = x.shape[:p] + shape + x.shape[p + n:]

    def body(a, out):
        lines, coords = [], []
        for d in range(len(x.shape)):
            if p <= d < p + n:
                t = d - p
                lines += _clamped_index("w%d" % t, a[t], x.shape[d])
                coords.append("%%w%d_in" % t)
            else:
                lines.append("%%coord%d = linalg.index %d : index"
                             % (d, d if d < p else d - n + r))
                coords.append("%%coord%d" % d)
        read, value = _extract_lines(x, coords)
        return lines + read, value
    return c.generic(out_shape, list(zip(idx, maps(
        ["d%d" % (p + i) for i in range(r)]))), body, out_elem=x.elem)


def index_put(c, args, kwargs):
    """x[i] = v / x[:, i] = v (index_put, index_put_ in place; accumulate
    adds): every element of x that an index names takes the value of v
    there, the others keep x's. With int64 index tensors it is one
    linalg.generic over x's dimensions and a reduction over the indices
    (where indices repeat, PyTorch leaves the winner undefined; here the
    last one wins); with a bool mask it is a select."""
    x = c.value(args[0])
    indices, v = args[1], c.value(args[2])
    accumulate = bool(args[3] if len(args) > 3 else
                      kwargs.get("accumulate", False))
    if x.elem not in ("f32",) + tuple(HALF_TYPES) or \
            v.elem not in ("f32",) + tuple(HALF_TYPES):
        raise c.error("index_put of %s values into %s tensors is not "
                      "supported (floating-point only)" % (v.elem, x.elem))
    if x.sliced:
        x = c.copy(x)
    rank = len(x.shape)
    first = next((a for a in indices if a is not None), None) \
        if isinstance(indices, list) else None
    if first is not None and c.value(first).elem == "i1":
        mask = c.value(first)
        p = indices.index(first)
        if len(indices) - p != 1 or mask.shape != x.shape[p:p + len(
                mask.shape)] or product(v.shape) != (1, ()):
            raise c.error("a bool mask must match the dimensions it indexes "
                          "and the value must have one element")

        def body(a, out):
            value = a[1]
            if accumulate:
                return ["%%sum = arith.addf %s, %s : f32" % (out, value),
                        "%%r = arith.select %s, %%sum, %s : f32"
                        % (a[0], out)], "%r"
            return ["%%r = arith.select %s, %s, %s : f32"
                    % (a[0], value, out)], "%r"
        return c.generic(x.shape, [
            (mask, ["d%d" % (p + i) for i in range(len(mask.shape))]),
            (v, ["0"] * len(v.shape))], body, init=c.copy(x).name,
            out_elem=x.elem)
    p, idx, shape, maps = _tensor_indices(c, x, indices)
    n, r = len(idx), len(shape)
    indexed = x.shape[:p] + shape + x.shape[p + n:]
    try:
        broadcast_shape(v.shape, indexed)
    except ValueError as error:
        raise c.error("the value of shape %s does not broadcast to the "
                      "indexed shape %s (%s)" % (v.shape, indexed, error))
    if broadcast_shape(v.shape, indexed) != indexed:
        raise c.error("the value of shape %s is larger than the indexed "
                      "shape %s" % (v.shape, indexed))
    # Loops: x's dims, then one reduction loop per index dimension.
    ks = ["d%d" % (rank + i) for i in range(r)]
    # Where each loop of the indexed shape lives among the generic's loops.
    indexed_loops = ["d%d" % d for d in range(p)] + ks + \
        ["d%d" % d for d in range(p + n, rank)]
    v_map = [e if e == "0" else indexed_loops[int(e[1:])]
             for e in c.broadcast_map(v.shape, indexed)]

    def body(a, out):
        lines, conditions = [], []
        for t in range(n):
            lines += _wrapped_index("w%d" % t, a[t], x.shape[p + t])
            lines += ["%%at%d = linalg.index %d : index" % (t, p + t),
                      "%%hit%d = arith.cmpi eq, %%w%d, %%at%d : index"
                      % (t, t, t)]
            conditions.append("%%hit%d" % t)
        hit = conditions[0]
        for t, other in enumerate(conditions[1:]):
            lines.append("%%both%d = arith.andi %s, %s : i1"
                         % (t, hit, other))
            hit = "%%both%d" % t
        value = a[n]
        if accumulate:
            lines.append("%%sum = arith.addf %s, %s : f32" % (out, value))
            value = "%sum"
        lines.append("%%r = arith.select %s, %s, %s : f32"
                     % (hit, value, out))
        return lines, "%r"
    return c.generic(
        x.shape, list(zip(idx, maps(ks))) + [(v, v_map)], body,
        init=c.copy(x).name,
        iterators=["parallel"] * rank + ["reduction"] * r,
        out_map=["d%d" % d for d in range(rank)], out_elem=x.elem)


def compare(predicate):
    def convert(c, args, kwargs):
        integers = integer_operands(c, args[:2])
        if integers is not None:
            return c.elementwise(integers, lambda n: (
                ["%%r = arith.cmpi %s, %s, %s : i64" % (
                    INTEGER_PREDICATES[predicate], n[0], n[1])], "%r"),
                out_elem="i1", scalar_elem="i64")
        a, b = c.operand(args[0]), c.operand(args[1])
        return c.elementwise([a, b], lambda n: (
            ["%%r = arith.cmpf %s, %s, %s : f32" % (predicate, n[0], n[1])],
            "%r"), out_elem="i1")
    return convert


def where(c, args, kwargs):
    cond = c.value(args[0])
    if cond.elem != "i1":
        raise c.error("the condition must be bool, not %s" % cond.elem)
    integers = integer_operands(c, args[1:3])
    if integers is not None:
        return c.elementwise([cond] + integers, lambda n: (
            ["%%r = arith.select %s, %s, %s : i64" % tuple(n)], "%r"),
            keep_bool=(0,), out_elem="i64", scalar_elem="i64")
    a, b = c.operand(args[1]), c.operand(args[2])
    return c.elementwise([cond, a, b], lambda n: (
        ["%%r = arith.select %s, %s, %s : f32" % tuple(n)], "%r"),
        keep_bool=(0,))


def masked_fill(c, args, kwargs):
    x, mask, value = c.value(args[0]), c.value(args[1]), args[2]
    if mask.elem != "i1":
        raise c.error("the mask must be bool, not %s" % mask.elem)
    if isinstance(value, dict):   # masked_fill.Tensor: a 0-d tensor value
        value = c.value(value)
        if from_product(product(value.shape)) != 1:
            raise c.error("the fill value must have one element")
    elif not isinstance(value, (int, float)):   # bool: 0 or 1
        raise c.error("the fill value must be a number")
    else:
        value = float(value)
    return c.elementwise([mask, value, x], lambda n: (
        ["%%r = arith.select %s, %s, %s : f32" % tuple(n)], "%r"),
        keep_bool=(0,))


def logical_not(c, args, kwargs):
    """logical_not: true where the element is zero (false); bitwise_not
    of bools likewise."""
    x = c.value(args[0])
    if x.elem != "i1":
        x = c.cast(x, "i1")
    return c.elementwise([x], lambda n: (
        ["%true = arith.constant true",
         "%%r = arith.xori %s, %%true : i1" % n[0]], "%r"),
        out_elem="i1", keep_bool=(0,))


def bitwise_not(c, args, kwargs):
    """~x: logical for bools, two's complement for int64."""
    x = c.value(args[0])
    if x.elem == "i1":
        return logical_not(c, args, kwargs)
    if x.elem != "i64":
        raise c.error("bitwise_not of %s tensors (PyTorch refuses it too)"
                      % x.elem)
    return c.elementwise([x], lambda n: (
        ["%ones = arith.constant -1 : i64",
         "%%r = arith.xori %s, %%ones : i64" % n[0]], "%r"),
        out_elem="i64", scalar_elem="i64")


def bitwise(op):
    """bitwise_and/or/xor of bools or int64s (and ints beside them)."""
    def convert(c, args, kwargs):
        values = [c.value(a) for a in args[:2] if isinstance(a, dict)]
        if all(v.elem == "i1" for v in values) and all(
                isinstance(a, (dict, bool)) for a in args[:2]):
            operands = [c.value(a) if isinstance(a, dict) else a
                        for a in args[:2]]
            return c.elementwise(operands, lambda n: (
                ["%%r = %s %s, %s : i1" % (op, n[0], n[1])], "%r"),
                out_elem="i1", keep_bool=(0, 1), scalar_elem="i1")
        integers = integer_operands(c, args[:2])
        if integers is None:
            raise c.error("bitwise ops take bool or int64 tensors")
        return c.elementwise(integers, lambda n: int_op2(op, n),
                             out_elem="i64", scalar_elem="i64")
    return convert


def logical(op):
    """logical_and/or/xor: of each operand's truth (nonzero)."""
    def convert(c, args, kwargs):
        operands = [c.cast(c.value(a), "i1") for a in args[:2]]
        return c.elementwise(operands, lambda n: (
            ["%%r = %s %s, %s : i1" % (op, n[0], n[1])], "%r"),
            out_elem="i1", keep_bool=(0, 1), scalar_elem="i1")
    return convert


def integer_unary(float_op, lines):
    """An op with a float form (`float_op`) and an int64 form whose block
    `lines(x)` computes %r."""
    def convert(c, args, kwargs):
        x = c.operand(args[0])
        if isinstance(x, Value) and x.elem == "i64":
            return c.elementwise([x], lambda n: (lines(n[0]), "%r"),
                                 out_elem="i64", scalar_elem="i64")
        return float_op(c, args, kwargs)
    return convert


def floor_divide(c, args, kwargs):
    """a // b, rounded toward negative infinity (PyTorch's floor_divide and
    div(rounding_mode="floor"))."""
    integers = integer_operands(c, args[:2])
    if integers is not None:
        return c.elementwise(integers, lambda n: int_op2(
            "arith.floordivsi", n), out_elem="i64", scalar_elem="i64")
    return c.elementwise([c.operand(args[0]), c.operand(args[1])], lambda n: (
        ["%%q = arith.divf %s, %s : f32" % (n[0], n[1]),
         "%r = math.floor %q : f32"], "%r"))


def remainder(c, args, kwargs):
    """a % b with the sign of b (Python's and PyTorch's remainder)."""
    integers = integer_operands(c, args[:2])
    if integers is not None:
        return c.elementwise(integers, lambda n: ([
            "%%m = arith.remsi %s, %s : i64" % (n[0], n[1]),
            "%zero = arith.constant 0 : i64",
            "%nonzero = arith.cmpi ne, %m, %zero : i64",
            "%mneg = arith.cmpi slt, %m, %zero : i64",
            "%%bneg = arith.cmpi slt, %s, %%zero : i64" % n[1],
            "%differ = arith.xori %mneg, %bneg : i1",
            "%fix = arith.andi %nonzero, %differ : i1",
            "%%shifted = arith.addi %%m, %s : i64" % n[1],
            "%r = arith.select %fix, %shifted, %m : i64"], "%r"),
            out_elem="i64", scalar_elem="i64")
    return c.elementwise([c.operand(args[0]), c.operand(args[1])], lambda n: (
        ["%%q = arith.divf %s, %s : f32" % (n[0], n[1]),
         "%f = math.floor %q : f32",
         "%%p = arith.mulf %%f, %s : f32" % n[1],
         "%%r = arith.subf %s, %%p : f32" % n[0]], "%r"))


def fmod(c, args, kwargs):
    """a % b with the sign of a (C's fmod, PyTorch's fmod)."""
    integers = integer_operands(c, args[:2])
    if integers is not None:
        return c.elementwise(integers, lambda n: int_op2("arith.remsi", n),
                             out_elem="i64", scalar_elem="i64")
    return c.elementwise([c.operand(args[0]), c.operand(args[1])],
                         lambda n: op2("arith.remf", n))


def true_divide(c, args, kwargs):
    """a / b; div(rounding_mode="floor" | "trunc") as those roundings."""
    mode = kwargs.get("rounding_mode")
    if mode is None:
        return c.elementwise([c.operand(args[0]), c.operand(args[1])],
                             lambda n: op2("arith.divf", n))
    if mode == "floor":
        return floor_divide(c, args, kwargs)
    if mode != "trunc":
        raise c.error("rounding_mode %r is not supported" % (mode,))
    integers = integer_operands(c, args[:2])
    if integers is not None:
        return c.elementwise(integers, lambda n: int_op2("arith.divsi", n),
                             out_elem="i64", scalar_elem="i64")
    return c.elementwise([c.operand(args[0]), c.operand(args[1])], lambda n: (
        ["%%q = arith.divf %s, %s : f32" % (n[0], n[1]),
         "%r = math.trunc %q : f32"], "%r"))


def arange(c, args, kwargs):
    """arange(end), arange(start, end[, step]): start + i * step, in the
    node's dtype (int64 for int bounds)."""
    numbers = list(args[:3])
    start, step = (0, 1) if len(numbers) == 1 else (numbers[0], (
        numbers[2] if len(numbers) > 2 else 1))
    step = kwargs.get("step", step)
    start = kwargs.get("start", start)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
               for v in (start, step)):
        raise c.error("arange takes number bounds and steps here")
    (output,) = c.node["outputs"]
    elem = ELEMENT_TYPES[output["dtype"]]
    device = c.gp_device(kwargs.get("device"))
    init = c.empty(output["shape"], elem, device)
    shape = output["shape"]
    if elem == "i64":
        def body(a, o):
            return ["%i = linalg.index 0 : index",
                    "%ii = arith.index_cast %i : index to i64",
                    "%%step = arith.constant %d : i64" % int(step),
                    "%%start = arith.constant %d : i64" % int(start),
                    "%m = arith.muli %ii, %step : i64",
                    "%r = arith.addi %m, %start : i64"], "%r"
    else:
        def body(a, o):
            return ["%i = linalg.index 0 : index",
                    "%ii = arith.index_cast %i : index to i64",
                    "%if = arith.sitofp %ii : i64 to f32",
                    "%%step = arith.constant %s : f32" % float_literal(step),
                    "%%start = arith.constant %s : f32" % float_literal(start),
                    "%m = arith.mulf %if, %step : f32",
                    "%r = arith.addf %m, %start : f32"], "%r"
    return c.generic(shape, [], body, init=init, out_elem=elem)


class Unusable:
    """A result the converter does not compute (max_pool's indices): a
    use of it is an error naming why."""

    def __init__(self, why):
        self.why = why


def spatial_list(value, count, default=None):
    """A kernel/stride/padding argument as `count` ints."""
    if value is None or value == []:
        value = default
    if isinstance(value, int):
        return [value] * count
    value = list(value)
    if len(value) == 1:
        value = value * count
    return value


def pad_spatial(c, x, count, low, high, fill):
    """`x` with its last `count` dims padded by `low`/`high` elements of
    `fill` (tensor.pad)."""
    if not any(low) and not any(high):
        return x
    rank = len(x.shape)
    lead = rank - count
    shape = list(x.shape[:lead])
    for i in range(count):
        size = x.shape[lead + i]
        if not is_static(size):
            raise c.error("padding a symbolic spatial size (%s) is not "
                          "supported" % size)
        shape.append(size + low[i] + high[i])
    name, value = c.fresh("pad"), c.scalar(fill, "f32")
    zeros = [0] * lead
    c.emit("%s = tensor.pad %s low%s high%s {" % (
        name, x.name, zeros + list(low), zeros + list(high)))
    c.emit("^bb0(%s):" % ", ".join("%%p%d: index" % i for i in range(rank)))
    c.emit("  tensor.yield %s : f32" % value)
    c.emit("} : %s to %s" % (x.type, tensor_type(shape)))
    return Value(name, shape, device=x.device)


def window_padding(size, out, kernel, stride, dilation, padding):
    """(low, high) padding that makes `out` windows fit: `padding` on
    both sides, and more on the high side when ceil_mode's last window
    reaches past it."""
    needed = (out - 1) * stride + dilation * (kernel - 1) + 1
    return padding, max(padding, needed - size - padding)


def window_op(c, x, out_shape, kernel, stride, dilation, count, combine,
              init, extra=None):
    """A pooling-like generic: out[n..., o...] = combine over the window
    k... of x[n..., o*stride + k*dilation]. `extra` is (Value, its map
    exprs over the window dims) for a weight that varies over the window
    (none for pooling)."""
    rank = len(x.shape)
    lead = rank - count
    out_exprs = ["d%d" % i for i in range(rank)]
    in_exprs = ["d%d" % i for i in range(lead)] + [
        "d%d * %d + d%d * %d" % (lead + i, stride[i], rank + i, dilation[i])
        for i in range(count)]
    window = Value(c.empty(kernel), kernel)
    inputs = [(x, in_exprs), (window, ["d%d" % (rank + i)
                                       for i in range(count)])]
    return c.generic(out_shape, inputs, lambda a, o: combine(a[0], o),
                     init=init, out_map=out_exprs,
                     iterators=["parallel"] * rank + ["reduction"] * count)


def conv_direct(c, x, weight, out_shape, groups, stride, dilation):
    """A convolution as one linalg.generic over (batch, group, filter,
    output position; channel, window): for few filters per group (a
    depthwise convolution), where a matmul would be degenerate. `x` is
    padded already."""
    count = len(x.shape) - 2
    kernel = weight.shape[2:]
    cg, fg = x.shape[1] // groups, weight.shape[0] // groups
    batch = x.shape[0]
    xg = c.reshape(x, [batch, groups, cg] + x.shape[2:])
    wg = c.reshape(weight, [groups, fg, cg] + kernel)
    outg = [batch, groups, fg] + out_shape[2:]
    # Loops: n g f o... (parallel), ch k... (reduction).
    spatial = 3 + count
    ch = "d%d" % spatial
    x_map = ["d0", "d1", ch] + ["d%d * %d + d%d * %d" % (
        3 + i, stride[i], spatial + 1 + i, dilation[i]) for i in range(count)]
    w_map = ["d1", "d2", ch] + ["d%d" % (spatial + 1 + i)
                                for i in range(count)]
    init = c.filled(outg, 0.0, device=x.device)
    result = c.generic(
        outg, [(xg, x_map), (wg, w_map)], lambda a, o: (
            ["%%m = arith.mulf %s, %s : f32" % (a[0], a[1]),
             "%%r = arith.addf %s, %%m : f32" % o], "%r"),
        init=init, out_map=["d%d" % i for i in range(spatial)],
        iterators=["parallel"] * spatial + ["reduction"] * (1 + count))
    return c.reshape(result, out_shape)


def conv_as_matmul(c, x, weight, out_shape, groups, stride, dilation):
    """A convolution as im2col and one (batched over groups) matmul, which
    the cuda target runs on cuBLAS: the windows of the padded `x` gathered
    into columns [group, channel * window, batch * positions], multiplied
    by the filters [group, filters, channel * window], the product put
    back in [batch, filter, position...] order."""
    count = len(x.shape) - 2
    kernel = weight.shape[2:]
    cg, fg = x.shape[1] // groups, weight.shape[0] // groups
    batch, positions = x.shape[0], out_shape[2:]
    # cols[g, ch, k..., n, o...] = x[n, g * cg + ch, o * stride + k * dil]
    cols_shape = [groups, cg] + kernel + [batch] + positions
    n = 2 + count
    x_map = ["d%d" % n, "d0 * %d + d1" % cg] + [
        "d%d * %d + d%d * %d" % (n + 1 + i, stride[i], 2 + i, dilation[i])
        for i in range(count)]
    cols = c.generic(cols_shape, [(x, x_map)], lambda a, o: ([], a[0]),
                     out_elem="f32")
    depth = cg * product_of(kernel)
    width = from_product(product([batch] + positions))
    if width is None:
        raise c.error("the batch and output sizes %s are not one size"
                      % ([batch] + positions))
    cols = c.reshape(cols, [groups, depth, width])
    filters = c.reshape(weight, [groups, fg, depth])
    out = c.matmul(filters, cols)
    out = c.reshape(out, [groups, fg, batch] + positions)
    out = c.permute(out, [2, 0, 1] + [3 + i for i in range(count)])
    return c.reshape(out, out_shape)


def convolution(c, args, kwargs):
    """aten::convolution (conv1d/2d/3d, any groups, stride, padding,
    dilation; not transposed): the input padded with tensor.pad, then
    im2col and a matmul (conv_as_matmul) where each group has several
    filters, else one direct linalg.generic (conv_direct); bias added
    after."""
    x, weight = c.value(args[0]), c.value(args[1])
    bias = args[2]
    count = len(x.shape) - 2
    stride = spatial_list(args[3], count)
    padding = spatial_list(args[4], count)
    dilation = spatial_list(args[5], count)
    transposed, groups = args[6], args[8]
    if isinstance(padding[0], str):
        raise c.error("padding %r is not supported here" % (args[4],))
    out_shape = c.node["outputs"][0]["shape"]
    if transposed:
        return conv_transpose(c, x, weight, bias, out_shape, stride, padding,
                              dilation, spatial_list(args[7], count), groups)
    channels, filters = x.shape[1], weight.shape[0]
    if not all(is_static(d) for d in [channels, filters] + x.shape[2:]):
        raise c.error("convolution needs static channel and spatial sizes")
    kernel = weight.shape[2:]
    low_high = [window_padding(x.shape[2 + i], out_shape[2 + i], kernel[i],
                               stride[i], dilation[i], padding[i])
                for i in range(count)]
    x = c.cast(x, "f32")
    weight = c.cast(weight, "f32")
    x = pad_spatial(c, x, count, [p[0] for p in low_high],
                    [p[1] for p in low_high], 0.0)
    cg, fg = channels // groups, filters // groups
    window = product_of(kernel)
    if fg >= 4 and cg * window >= 8:
        result = conv_as_matmul(c, x, weight, out_shape, groups, stride,
                                dilation)
    else:
        result = conv_direct(c, x, weight, out_shape, groups, stride,
                             dilation)
    if bias is not None:
        b = c.reshape(c.value(bias), [filters] + [1] * count)
        result = c.elementwise([result, b], lambda n: op2("arith.addf", n))
    return result


def max_pool(c, args, kwargs):
    """max_pool{1,2,3}d_with_indices: the maximum of each window (padding
    is -inf, ceil_mode windows clipped); the indices are not computed."""
    x = c.cast(c.value(args[0]), "f32")
    count = len(x.shape) - 2
    kernel = spatial_list(args[1], count)
    stride = spatial_list(args[2] if len(args) > 2 else None, count, kernel)
    padding = spatial_list(args[3] if len(args) > 3 else 0, count)
    dilation = spatial_list(args[4] if len(args) > 4 else 1, count)
    out_shape = c.node["outputs"][0]["shape"]
    lead = len(x.shape) - count
    pads = [window_padding(x.shape[lead + i], out_shape[lead + i], kernel[i],
                           stride[i], dilation[i], padding[i])
            for i in range(count)]
    x = pad_spatial(c, x, count, [p[0] for p in pads], [p[1] for p in pads],
                    -math.inf)
    init = c.filled(out_shape, -math.inf, device=x.device)
    out = window_op(c, x, out_shape, kernel, stride, dilation, count,
                    lambda a, o: (["%%r = arith.maximumf %s, %s : f32"
                                   % (a, o)], "%r"), init)
    return [out, Unusable("max pooling's indices are not computed")]


def avg_pool(c, args, kwargs):
    """avg_pool{1,2,3}d: each window's mean, with count_include_pad,
    ceil_mode (windows clipped to the padded input, as PyTorch counts
    them) and divisor_override."""
    x = c.cast(c.value(args[0]), "f32")
    count = len(x.shape) - 2
    kernel = spatial_list(args[1], count)
    stride = spatial_list(args[2] if len(args) > 2 else None, count, kernel)
    padding = spatial_list(args[3] if len(args) > 3 else 0, count)
    include = args[5] if len(args) > 5 else kwargs.get("count_include_pad",
                                                        True)
    divisor = args[6] if len(args) > 6 else kwargs.get("divisor_override")
    out_shape = c.node["outputs"][0]["shape"]
    lead = len(x.shape) - count
    pads = [window_padding(x.shape[lead + i], out_shape[lead + i], kernel[i],
                           stride[i], 1, padding[i]) for i in range(count)]
    ones = [1] * count
    padded = pad_spatial(c, x, count, [p[0] for p in pads],
                         [p[1] for p in pads], 0.0)

    def add(a, o):
        return ["%%r = arith.addf %s, %s : f32" % (a, o)], "%r"
    sums = window_op(c, padded, out_shape, kernel, stride, ones, count, add,
                     c.filled(out_shape, 0.0, device=x.device))
    if divisor:
        return c.elementwise([sums, float(divisor)],
                             lambda n: op2("arith.divf", n))
    # The divisor of each window: the elements it covers, padding
    # included when count_include_pad, never past the padded input.
    unit = Value(c.filled(x.shape[lead:], 1.0), x.shape[lead:])
    unit = pad_spatial(c, unit, count, [p[0] for p in pads],
                       [p[0] for p in pads], 1.0 if include else 0.0)
    unit = pad_spatial(c, unit, count, [0] * count,
                       [p[1] - p[0] for p in pads], 0.0)
    counts = window_op(c, unit, out_shape[lead:], kernel, stride, ones,
                       count, add, c.filled(out_shape[lead:], 0.0))
    return c.elementwise([sums, counts], lambda n: op2("arith.divf", n))


def adaptive_avg_pool(c, args, kwargs):
    """adaptive_avg_pool: even windows (the input size a multiple of the
    output size, as in ResNet's global pooling) as a mean over a reshape."""
    x = c.value(args[0])
    count = len(args[1])
    lead = len(x.shape) - count
    shape, dims = list(x.shape[:lead]), []
    for i, out in enumerate(args[1]):
        size = x.shape[lead + i]
        if not is_static(size) or size % out:
            raise c.error("adaptive pooling of %s to %s: only sizes that "
                          "are multiples of the output's are supported"
                          % (x.shape[lead:], list(args[1])))
        shape += [out, size // out]
        dims.append(len(shape) - 1)
    grouped = c.reshape(c.cast(x, "f32"), shape)
    total = c.reduce(grouped, dims, "sum")
    return c.elementwise([total, float(product_of(
        [x.shape[lead + i] // o for i, o in enumerate(args[1])]))],
        lambda n: op2("arith.divf", n))


def product_of(values):
    total = 1
    for v in values:
        total *= v
    return total


def batch_norm(names):
    """Batch norm in inference: (x - mean) / sqrt(var + eps) * w + b over
    dimension 1; the saved statistics (empty in inference) as empty
    tensors. `names` are the op's operands after x."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        given = dict(zip(names, args[1:]))
        given.update(kwargs)
        if given.get("training"):
            raise c.error("batch norm in training mode (it updates the "
                          "running statistics) is not supported: export "
                          "the model in eval mode")
        if given.get("running_mean") is None:
            raise c.error("batch norm without running statistics")
        rank = len(x.shape)
        channels = [x.shape[1]] + [1] * (rank - 2)

        def per_channel(name):
            value = given.get(name)
            return None if value is None else c.reshape(c.value(value),
                                                        channels)
        mean, var = per_channel("running_mean"), per_channel("running_var")
        weight, bias = per_channel("weight"), per_channel("bias")
        eps = float(given.get("eps", 1e-5))
        out = c.elementwise([x, mean, var, eps], lambda n: (
            ["%%d = arith.subf %s, %s : f32" % (n[0], n[1]),
             "%%v = arith.addf %s, %s : f32" % (n[2], n[3]),
             "%inv = math.rsqrt %v : f32",
             "%r = arith.mulf %d, %inv : f32"], "%r"))
        if weight is not None:
            out = c.elementwise([out, weight], lambda n: op2("arith.mulf", n))
        if bias is not None:
            out = c.elementwise([out, bias], lambda n: op2("arith.addf", n))
        saved = []
        for o in c.node["outputs"][1:]:
            elem = ELEMENT_TYPES.get(o["dtype"])
            saved.append(None if elem is None else Value(
                c.filled(o["shape"], 0, elem), o["shape"], elem=elem))
        return [out] + saved
    return convert


def float_unary(op):
    """An elementwise math op of one float operand (`math.<op>`)."""
    return unary(lambda n: (["%%r = math.%s %s : f32" % (op, n[0])], "%r"))


def sign_lines(x):
    return ["%zero = arith.constant 0.000000000e+00 : f32",
            "%one = arith.constant 1.000000000e+00 : f32",
            "%mone = arith.constant -1.000000000e+00 : f32",
            "%%pos = arith.cmpf ogt, %s, %%zero : f32" % x,
            "%%neg = arith.cmpf olt, %s, %%zero : f32" % x,
            "%n = arith.select %neg, %mone, %zero : f32",
            "%r = arith.select %pos, %one, %n : f32"], "%r"


def softplus_lines(x, beta, threshold, r="%r"):
    """log(1 + exp(beta x)) / beta, x itself above threshold / beta."""
    return ["%s_b = arith.constant %s : f32" % (r, float_literal(beta)),
            "%s_t = arith.constant %s : f32" % (r, float_literal(threshold)),
            "%s_bx = arith.mulf %s, %s_b : f32" % (r, x, r),
            "%s_big = arith.cmpf ogt, %s_bx, %s_t : f32" % (r, r, r),
            "%s_e = math.exp %s_bx : f32" % (r, r),
            "%s_l = math.log1p %s_e : f32" % (r, r),
            "%s_s = arith.divf %s_l, %s_b : f32" % (r, r, r),
            "%s = arith.select %s_big, %s, %s_s : f32" % (r, r, x, r)]


def softplus(c, args, kwargs):
    beta = float(args[1] if len(args) > 1 else kwargs.get("beta", 1.0))
    threshold = float(args[2] if len(args) > 2 else
                      kwargs.get("threshold", 20.0))
    return c.elementwise([c.value(args[0])], lambda n: (
        softplus_lines(n[0], beta, threshold), "%r"))


def elu(c, args, kwargs):
    """elu (and selu, celu as PyTorch writes them through elu): scale * x
    above 0, scale * alpha * (exp(input_scale * x) - 1) below."""
    alpha = float(args[1] if len(args) > 1 else kwargs.get("alpha", 1.0))
    scale = float(args[2] if len(args) > 2 else kwargs.get("scale", 1.0))
    input_scale = float(args[3] if len(args) > 3 else
                        kwargs.get("input_scale", 1.0))
    return c.elementwise([c.value(args[0])], lambda n: ([
        "%zero = arith.constant 0.000000000e+00 : f32",
        "%%a = arith.constant %s : f32" % float_literal(alpha * scale),
        "%%s = arith.constant %s : f32" % float_literal(scale),
        "%%i = arith.constant %s : f32" % float_literal(input_scale),
        "%%pos = arith.cmpf ogt, %s, %%zero : f32" % n[0],
        "%%xi = arith.mulf %s, %%i : f32" % n[0],
        "%em = math.expm1 %xi : f32",
        "%neg = arith.mulf %em, %a : f32",
        "%%p = arith.mulf %s, %%s : f32" % n[0],
        "%r = arith.select %pos, %p, %neg : f32"], "%r"))


def hard_sigmoid_lines(x):
    """clamp(x + 3, 0, 6) / 6 in %hs."""
    return ["%three = arith.constant 3.000000000e+00 : f32",
            "%six = arith.constant 6.000000000e+00 : f32",
            "%zero = arith.constant 0.000000000e+00 : f32",
            "%%p = arith.addf %s, %%three : f32" % x,
            "%lo = arith.maximumf %p, %zero : f32",
            "%hi = arith.minimumf %lo, %six : f32",
            "%hs = arith.divf %hi, %six : f32"]


def log_sigmoid_forward(c, args, kwargs):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)); the buffer result
    (for the backward pass) as zeros."""
    x = c.value(args[0])
    out = c.elementwise([x], lambda n: ([
        "%zero = arith.constant 0.000000000e+00 : f32",
        "%%m = arith.minimumf %s, %%zero : f32" % n[0],
        "%%a = math.absf %s : f32" % n[0],
        "%na = arith.negf %a : f32",
        "%e = math.exp %na : f32",
        "%l = math.log1p %e : f32",
        "%r = arith.subf %m, %l : f32"], "%r"))
    outputs = c.node["outputs"]
    return [out] + [Value(c.filled(o["shape"], 0.0), o["shape"])
                    for o in outputs[1:]]


def arg_reduce(c, x, dim, largest):
    """(values, int64 indices) of the max (or min) of `x` along `dim`, the
    first one where several are equal, NaN counting as the largest (and
    the smallest), as PyTorch's argmax/argmin and max/min.dim give them."""
    rank = len(x.shape)
    dim %= rank
    x = c.cast(x, "f32") if x.elem in HALF_TYPES else x
    if x.elem not in ("f32", "i64"):
        x = c.cast(x, "i64")
    elem = x.elem
    kept = [i for i in range(rank) if i != dim]
    shape = [x.shape[i] for i in kept]
    start = (-math.inf if largest else math.inf) if elem == "f32" else (
        -2 ** 63 if largest else 2 ** 63 - 1)
    values = c.filled(shape, start, elem, device=x.device)
    indices = c.filled(shape, 0, "i64", device=x.device)
    maps = [dims_map(rank, ["d%d" % i for i in range(rank)]),
            dims_map(rank, ["d%d" % i for i in kept]),
            dims_map(rank, ["d%d" % i for i in kept])]
    iterators = ", ".join('"reduction"' if i == dim else '"parallel"'
                          for i in range(rank))
    name = c.fresh("arg")
    value_type, index_type = tensor_type(shape, elem), tensor_type(shape,
                                                                    "i64")
    c.emit("%s:2 = linalg.generic {indexing_maps = [%s], iterator_types = "
           "[%s]} ins(%s : %s) outs(%s, %s : %s, %s) {" % (
               name, ", ".join(maps), iterators, x.name, x.type, values,
               indices, value_type, index_type))
    c.emit("^bb0(%%in: %s, %%best: %s, %%at: i64):" % (elem, elem))
    if elem == "f32":
        better = "ogt" if largest else "olt"
        lines = ["%%beats = arith.cmpf %s, %%in, %%best : f32" % better,
                 "%isnan = arith.cmpf uno, %in, %in : f32",
                 "%wasnan = arith.cmpf uno, %best, %best : f32",
                 "%true = arith.constant true",
                 "%fresh = arith.xori %wasnan, %true : i1",
                 "%newnan = arith.andi %isnan, %fresh : i1",
                 "%take0 = arith.ori %beats, %newnan : i1",
                 "%take = arith.andi %take0, %fresh : i1"]
    else:
        better = "sgt" if largest else "slt"
        lines = ["%%take = arith.cmpi %s, %%in, %%best : i64" % better]
    lines += ["%%i = linalg.index %d : index" % dim,
              "%ii = arith.index_cast %i : index to i64",
              "%%v = arith.select %%take, %%in, %%best : %s" % elem,
              "%n = arith.select %take, %ii, %at : i64",
              "linalg.yield %%v, %%n : %s, i64" % elem]
    for line in lines:
        c.emit("  " + line)
    c.emit("} -> (%s, %s)" % (value_type, index_type))
    return (Value("%s#0" % name, shape, elem=elem, device=x.device),
            Value("%s#1" % name, shape, elem="i64", device=x.device))


def argmax(largest):
    def convert(c, args, kwargs):
        x = c.value(args[0])
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        if dim is None:
            flat = c.reshape(x, [from_product(product(x.shape))])
            index = arg_reduce(c, flat, 0, largest)[1]
            return c.reshape(index, [1] * len(x.shape)) if keep else \
                c.reshape(index, [])
        index = arg_reduce(c, x, dim, largest)[1]
        return c.keepdim(index, x.shape, [dim]) if keep else index
    return convert


def max_dim(largest):
    """max.dim / min.dim: (values, indices) along a dimension; max / min of
    a whole tensor when no dimension is given."""
    def convert(c, args, kwargs):
        if len(args) > 1 and isinstance(args[1], dict):
            # max.other / min.other: the elementwise maximum (minimum).
            return binary("arith.maximumf" if largest else
                          "arith.minimumf")(c, args, kwargs)
        x = c.value(args[0])
        if len(args) < 2 and "dim" not in kwargs:
            return c.reduce(x, [], "max" if largest else "min")
        dim = args[1] if len(args) > 1 else kwargs["dim"]
        keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        values, indices = arg_reduce(c, x, dim, largest)
        if keep:
            return [c.keepdim(values, x.shape, [dim]),
                    c.keepdim(indices, x.shape, [dim])]
        return [values, indices]
    return convert


def variance(c, args, kwargs):
    """var / std (overloads correction and dim): sum((x - mean)^2) / (N -
    correction), its square root for std; var_mean and std_mean also give
    the mean."""
    op, overload = c.node["op"], c.node.get("overload", "")
    x = c.cast(c.value(args[0]), "f32")
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    if overload == "correction" or "correction" in kwargs:
        correction = kwargs.get("correction", args[2] if len(args) > 2 and
                                not isinstance(args[2], bool) else None)
        keep = kwargs.get("keepdim", args[3] if len(args) > 3 else False)
    else:   # var.dim(x, dim, unbiased=True, keepdim=False) and var(x, u)
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        else:
            unbiased = args[2] if len(args) > 2 else kwargs.get("unbiased",
                                                                True)
        correction = 1 if unbiased else 0
        keep = args[3] if len(args) > 3 else kwargs.get("keepdim", False)
    correction = 1 if correction is None else correction
    dims = dims_arg(dim, len(x.shape))
    count = c.count([x.shape[d] for d in dims])
    mean = c.elementwise([c.reduce(x, dims, "sum"), count],
                         lambda n: op2("arith.divf", n))
    wide = c.keepdim(mean, x.shape, dims)
    squares = c.elementwise([x, wide], lambda n: ([
        "%%d = arith.subf %s, %s : f32" % (n[0], n[1]),
        "%r = arith.mulf %d, %d : f32"], "%r"))
    total = c.reduce(squares, dims, "sum")
    if isinstance(count, float):
        divisor = max(count - correction, 0.0)
    else:
        divisor = c.elementwise([count, float(correction)],
                                lambda n: op2("arith.subf", n))
    var = c.elementwise([total, divisor], lambda n: op2("arith.divf", n))
    if op.startswith("aten::std"):
        var = c.elementwise([var], lambda n: (
            ["%%r = math.sqrt %s : f32" % n[0]], "%r"))
    if keep:
        var = c.keepdim(var, x.shape, dims)
        mean = wide
    return [var, mean] if op.endswith("_mean") else var


def logsumexp(c, args, kwargs):
    x = c.cast(c.value(args[0]), "f32")
    dims = dims_arg(args[1] if len(args) > 1 else kwargs.get("dim"),
                    len(x.shape))
    keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    high = c.reduce(x, dims, "max")
    wide = c.keepdim(high, x.shape, dims)
    e = c.elementwise([x, wide], lambda n: ([
        "%ninf = arith.constant 0xFF800000 : f32",
        "%%empty = arith.cmpf oeq, %s, %%ninf : f32" % n[1],
        "%zero = arith.constant 0.000000000e+00 : f32",
        "%%m = arith.select %%empty, %%zero, %s : f32" % n[1],
        "%%d = arith.subf %s, %%m : f32" % n[0],
        "%r = math.exp %d : f32"], "%r"))
    out = c.elementwise([c.reduce(e, dims, "sum"), high], lambda n: ([
        "%ninf = arith.constant 0xFF800000 : f32",
        "%%empty = arith.cmpf oeq, %s, %%ninf : f32" % n[1],
        "%zero = arith.constant 0.000000000e+00 : f32",
        "%%m = arith.select %%empty, %%zero, %s : f32" % n[1],
        "%%l = math.log %s : f32" % n[0],
        "%r = arith.addf %l, %m : f32"], "%r"))
    return c.keepdim(out, x.shape, dims) if keep else out


def truth_reduction(kind):
    """any / all over dims (all of them without a dim): bools."""
    def convert(c, args, kwargs):
        x = c.cast(c.value(args[0]), "i1")
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        dims = dims_arg(dim, len(x.shape))
        r = c.cast(c.reduce(x, dims, kind), "i1")
        return c.keepdim(r, x.shape, dims) if keep else r
    return convert


def vector_norm(c, args, kwargs):
    """linalg_vector_norm / norm: (sum |x|^p)^(1/p); p = inf the largest
    |x|, p = 0 the count of nonzeros."""
    x = c.cast(c.value(args[0]), "f32")
    p = args[1] if len(args) > 1 else kwargs.get("ord", kwargs.get("p", 2))
    p = 2.0 if p is None else float(p)
    dim = args[2] if len(args) > 2 else kwargs.get("dim")
    keep = args[3] if len(args) > 3 else kwargs.get("keepdim", False)
    dims = dims_arg(dim, len(x.shape))
    magnitude = c.elementwise([x], lambda n: (
        ["%%r = math.absf %s : f32" % n[0]], "%r"))
    if math.isinf(p):
        r = c.reduce(magnitude, dims, "max" if p > 0 else "min")
    elif p == 0:
        nonzero = c.elementwise([magnitude], lambda n: ([
            "%zero = arith.constant 0.000000000e+00 : f32",
            "%%nz = arith.cmpf une, %s, %%zero : f32" % n[0],
            "%r = arith.uitofp %nz : i1 to f32"], "%r"))
        r = c.reduce(nonzero, dims, "sum")
    else:
        powered = c.elementwise([magnitude, p], lambda n: (
            ["%%r = math.powf %s, %s : f32" % (n[0], n[1])], "%r")) \
            if p != 1 else magnitude
        r = c.reduce(powered, dims, "sum")
        if p != 1:
            r = c.elementwise([r, 1.0 / p], lambda n: (
                ["%%r = math.powf %s, %s : f32" % (n[0], n[1])], "%r"))
    return c.keepdim(r, x.shape, dims) if keep else r


def pad_any(c, x, low, high, value):
    """`x` padded by `low`/`high` elements per dimension with `value`
    (tensor.pad), in x's element type."""
    shape = []
    for size, a, b in zip(x.shape, low, high):
        if (a or b) and not is_static(size):
            raise c.error("padding a symbolic size (%s) is not supported"
                          % size)
        shape.append(size + a + b if (a or b) else size)
    elem = x.elem
    name, fill = c.fresh("pad"), c.fresh("fill")
    c.emit("%s = arith.constant %s : %s" % (fill, literal(value, elem), elem))
    c.emit("%s = tensor.pad %s low%s high%s {" % (name, x.name, list(low),
                                                  list(high)))
    c.emit("^bb0(%s):" % ", ".join("%%p%d: index" % i
                                   for i in range(len(x.shape))))
    c.emit("  tensor.yield %s : %s" % (fill, elem))
    c.emit("} : %s to %s" % (x.type, tensor_type(shape, elem)))
    return Value(name, shape, elem=elem, device=x.device)


def constant_pad(c, args, kwargs):
    """constant_pad_nd (F.pad, mode "constant"): pairs from the last
    dimension back; negative amounts crop."""
    x = c.value(args[0])
    pads = list(args[1])
    value = args[2] if len(args) > 2 else kwargs.get("value", 0)
    rank = len(x.shape)
    low, high = [0] * rank, [0] * rank
    for i in range(len(pads) // 2):
        low[rank - 1 - i], high[rank - 1 - i] = pads[2 * i], pads[2 * i + 1]
    if any(v < 0 for v in low + high):
        starts = [max(0, -v) for v in low]
        sizes = [x.shape[d] - starts[d] - max(0, -high[d])
                 for d in range(rank)]
        name = c.fresh("crop")
        c.emit("%s = tensor.extract_slice %s%s%s%s : %s to %s" % (
            name, x.name, starts, c.sizes(sizes), [1] * rank, x.type,
            tensor_type(sizes, x.elem)))
        x = Value(name, sizes, sliced=True, elem=x.elem, device=x.device)
        low, high = [max(0, v) for v in low], [max(0, v) for v in high]
    if not any(low + high):
        return c.copy(x)
    return pad_any(c, x, low, high, value if value is not None else 0)


def flip(c, args, kwargs):
    x = c.value(args[0])
    rank = len(x.shape)
    dims = {d % rank for d in args[1]}
    exprs = []
    for d in range(rank):
        if d in dims:
            if not is_static(x.shape[d]):
                raise c.error("flipping a symbolic size is not supported")
            exprs.append("%d - d%d" % (x.shape[d] - 1, d))
        else:
            exprs.append("d%d" % d)
    return c.generic(x.shape, [(x, exprs)], lambda a, o: ([], a[0]),
                     out_elem=x.elem)


def repeat(c, args, kwargs):
    """x.repeat(r...): the tensor tiled, leading new dimensions first."""
    x = c.value(args[0])
    repeats = list(args[1])
    lead = len(repeats) - len(x.shape)
    if lead < 0:
        raise c.error("repeat needs a count for every dimension")
    shape = [1] * lead + list(x.shape)
    if not all(is_static(d) for d in shape):
        raise c.error("repeating a symbolic size is not supported")
    x = c.reshape(x, shape) if lead else x
    out = [s * r for s, r in zip(shape, repeats)]
    exprs = ["0" if s == 1 else "d%d mod %d" % (i, s)
             for i, s in enumerate(shape)]
    return c.generic(out, [(x, exprs)], lambda a, o: ([], a[0]),
                     out_elem=x.elem)


def index_select(c, args, kwargs):
    """index_select(x, dim, index): the gather of aten::index along dim."""
    x = c.value(args[0])
    dim = args[1] % len(x.shape)
    return index(c, [args[0], [None] * dim + [args[2]]], {})


def gather(c, args, kwargs):
    """gather(x, dim, index): out[i...] = x[i... with index[i...] at dim]
    (an index outside the dimension reads the nearest element)."""
    x, idx = c.value(args[0]), c.value(args[2])
    dim = args[1] % len(x.shape)
    if idx.elem != "i64":
        raise c.error("gather takes int64 indices, not %s" % idx.elem)

    def body(a, out):
        lines = _clamped_index("w", a[0], x.shape[dim])
        coords = []
        for d in range(len(x.shape)):
            if d == dim:
                coords.append("%w_in")
            else:
                lines.append("%%coord%d = linalg.index %d : index" % (d, d))
                coords.append("%%coord%d" % d)
        read, value = _extract_lines(x, coords)
        return lines + read, value
    if not is_static(x.shape[dim]):
        raise c.error("gather along a symbolic size is not supported")
    return c.generic(idx.shape, [(idx, ["d%d" % i for i in
                                        range(len(idx.shape))])], body,
                     out_elem=x.elem)


def triangle(lower):
    """tril / triu(x, diagonal): keeps j - i <= k (tril) or >= k (triu)
    over the last two dimensions, zeros elsewhere."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        k = args[1] if len(args) > 1 else kwargs.get("diagonal", 0)
        rank = len(x.shape)
        keep = "sle" if lower else "sge"

        def body(a, o):
            zero = "%%zero = arith.constant %s : %s" % (
                literal(0, "f32" if x.elem in HALF_TYPES else x.elem),
                "f32" if x.elem in HALF_TYPES else x.elem)
            return ["%%i = linalg.index %d : index" % (rank - 2),
                    "%%j = linalg.index %d : index" % (rank - 1),
                    "%ii = arith.index_cast %i : index to i64",
                    "%jj = arith.index_cast %j : index to i64",
                    "%diff = arith.subi %jj, %ii : i64",
                    "%%k = arith.constant %d : i64" % k,
                    "%%in = arith.cmpi %s, %%diff, %%k : i64" % keep,
                    zero,
                    "%%r = arith.select %%in, %s, %%zero : %s" % (
                        a[0], "f32" if x.elem in HALF_TYPES else x.elem)], \
                "%r"
        return c.generic(x.shape, [(x, ["d%d" % i for i in range(rank)])],
                         body, out_elem=x.elem)
    return convert


def upsample_nearest(c, args, kwargs):
    """upsample_nearest{1,2,3}d (and .vec): out[o] = x[floor(o * in / out)]
    per spatial dimension, or floor(o / scale) with scale factors."""
    x = c.value(args[0])
    out_shape = c.node["outputs"][0]["shape"]
    count = len(x.shape) - 2
    scales = None
    if c.node.get("overload") == "vec":
        scales = args[2] if len(args) > 2 else kwargs.get("scale_factors")
    elif len(args) > 2:
        scales = [s for s in args[2:2 + count]]
        if all(s is None for s in scales):
            scales = None
    exprs = ["d0", "d1"]
    for i in range(count):
        size, out = x.shape[2 + i], out_shape[2 + i]
        if not is_static(size) or not is_static(out):
            raise c.error("upsampling symbolic sizes is not supported")
        if scales is None and out % size == 0:
            exprs.append("d%d floordiv %d" % (2 + i, out // size))
            continue
        if scales is not None and float(scales[i]).is_integer():
            exprs.append("d%d floordiv %d" % (2 + i, int(scales[i])))
            continue
        raise c.error("nearest upsampling by a factor that is not a whole "
                      "number (%s to %s) is not supported" % (size, out))
    return c.generic(out_shape, [(x, exprs)], lambda a, o: ([], a[0]),
                     out_elem=x.elem)


def group_norm(c, args, kwargs):
    """native_group_norm(x, weight, bias, N, C, HxW, groups, eps): each
    group of C / groups channels of each sample normalized over its
    channels and positions, then scaled per channel; also the mean and
    1/std per (sample, group)."""
    x = c.cast(c.value(args[0]), "f32")
    weight = c.value(args[1]) if args[1] is not None else None
    bias = c.value(args[2]) if args[2] is not None else None
    groups, eps = args[6], float(args[7])
    batch, channels = x.shape[0], x.shape[1]
    if not is_static(channels) or channels % groups:
        raise c.error("group norm of %s channels in %s groups" % (channels,
                                                                 groups))
    rest = from_product(product([channels // groups] + x.shape[2:]))
    if rest is None:
        raise c.error("group norm over symbolic sizes %s" % x.shape[2:])
    grouped = c.reshape(x, [batch, groups, rest])
    count = c.count([rest])
    divide = lambda n: op2("arith.divf", n)
    mean = c.elementwise([c.reduce(grouped, [2], "sum"), count], divide)
    wide = c.keepdim(mean, grouped.shape, [2])
    centered = c.elementwise([grouped, wide], lambda n: op2("arith.subf", n))
    squared = c.elementwise([centered], lambda n: (
        ["%%r = arith.mulf %s, %s : f32" % (n[0], n[0])], "%r"))
    var = c.elementwise([c.reduce(squared, [2], "sum"), count], divide)
    rstd = c.elementwise([var, eps], lambda n: (
        ["%%s = arith.addf %s, %s : f32" % tuple(n),
         "%r = math.rsqrt %s : f32"], "%r"))
    y = c.elementwise([centered, c.keepdim(rstd, grouped.shape, [2])],
                      lambda n: op2("arith.mulf", n))
    y = c.reshape(y, x.shape)
    per_channel = [channels] + [1] * (len(x.shape) - 2)
    if weight is not None:
        y = c.elementwise([y, c.reshape(weight, per_channel)],
                          lambda n: op2("arith.mulf", n))
    if bias is not None:
        y = c.elementwise([y, c.reshape(bias, per_channel)],
                          lambda n: op2("arith.addf", n))
    return [y, mean, rstd]


def cumulative(kind):
    """cumsum / cumprod along a dimension (static length): each output
    element reduces the inputs at and before it (a generic over (..., i,
    j) masked to j <= i; quadratic in the length, for sequence-length
    scans such as position ids from an attention mask)."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        rank = len(x.shape)
        dim = (args[1] if len(args) > 1 else kwargs["dim"]) % rank
        if not is_static(x.shape[dim]):
            raise c.error("a cumulative op along a symbolic size is not "
                          "supported")
        elem = "i64" if x.elem in ("i1", "i64") else "f32"
        x = c.cast(x, elem) if x.elem != elem and x.elem not in \
            HALF_TYPES else x
        j = "d%d" % rank
        in_exprs = ["d%d" % i if i != dim else j for i in range(rank)]
        window = Value(c.empty([x.shape[dim]]), [x.shape[dim]])
        neutral = 0 if kind == "sum" else 1
        init = c.filled(x.shape, neutral, elem, device=x.device)
        op = {("sum", "f32"): "arith.addf", ("sum", "i64"): "arith.addi",
              ("prod", "f32"): "arith.mulf",
              ("prod", "i64"): "arith.muli"}[(kind, elem)]

        def body(a, o):
            return ["%%i = linalg.index %d : index" % dim,
                    "%%j = linalg.index %d : index" % rank,
                    "%in_range = arith.cmpi ule, %j, %i : index",
                    "%%neutral = arith.constant %s : %s"
                    % (literal(neutral, elem), elem),
                    "%%v = arith.select %%in_range, %s, %%neutral : %s"
                    % (a[0], elem),
                    "%%r = %s %s, %%v : %s" % (op, o, elem)], "%r"
        return c.generic(x.shape, [(x, in_exprs), (window, [j])], body,
                         init=init, out_map=["d%d" % i for i in range(rank)],
                         iterators=["parallel"] * rank + ["reduction"],
                         out_elem=elem)
    return convert


def upsample_bilinear(c, args, kwargs):
    """upsample_bilinear2d (and .vec): each output pixel interpolates the
    four input pixels around its source position, PyTorch's
    half-pixel mapping (align_corners false, negative positions clamped
    to 0) or the corner-aligned one."""
    x = c.value(args[0])
    out_shape = c.node["outputs"][0]["shape"]
    if c.node.get("overload") == "vec":
        align = args[2] if len(args) > 2 else kwargs.get("align_corners")
        scales = args[3] if len(args) > 3 else kwargs.get("scale_factors")
    else:
        align = args[2] if len(args) > 2 else kwargs.get("align_corners")
        scales = [args[3], args[4]] if len(args) > 4 else None
        if scales is not None and all(v is None for v in scales):
            scales = None
    sizes = x.shape[2:]
    if not all(is_static(d) for d in list(sizes) + out_shape[2:]):
        raise c.error("upsampling symbolic sizes is not supported")

    def ratio(i):
        size, out = sizes[i], out_shape[2 + i]
        if align:
            return (size - 1) / (out - 1) if out > 1 else 0.0
        if scales is not None and scales[i]:
            return 1.0 / float(scales[i])
        return size / out

    ratios = [ratio(0), ratio(1)]
    elem_in = x.elem

    def body(a, o):
        lines = []
        coords = {}
        for axis, (dim, size) in enumerate(zip((2, 3), sizes)):
            t = "y" if axis == 0 else "x"
            lines += [
                "%%%s_i = linalg.index %d : index" % (t, dim),
                "%%%s_ii = arith.index_cast %%%s_i : index to i64" % (t, t),
                "%%%s_f = arith.sitofp %%%s_ii : i64 to f32" % (t, t),
                "%%%s_r = arith.constant %s : f32"
                % (t, float_literal(ratios[axis]))]
            if align:
                lines.append("%%%s_src = arith.mulf %%%s_f, %%%s_r : f32"
                             % (t, t, t))
            else:
                lines += [
                    "%%%s_half = arith.constant 5.000000000e-01 : f32" % t,
                    "%%%s_c = arith.addf %%%s_f, %%%s_half : f32" % (t, t, t),
                    "%%%s_m = arith.mulf %%%s_c, %%%s_r : f32" % (t, t, t),
                    "%%%s_s = arith.subf %%%s_m, %%%s_half : f32"
                    % (t, t, t),
                    "%%%s_zero = arith.constant 0.000000000e+00 : f32" % t,
                    "%%%s_src = arith.maximumf %%%s_s, %%%s_zero : f32"
                    % (t, t, t)]
            lines += [
                "%%%s_fl = math.floor %%%s_src : f32" % (t, t),
                "%%%s_w = arith.subf %%%s_src, %%%s_fl : f32" % (t, t, t),
                "%%%s_lo64 = arith.fptosi %%%s_fl : f32 to i64" % (t, t),
                "%%%s_lo = arith.index_cast %%%s_lo64 : i64 to index"
                % (t, t),
                "%%%s_one = arith.constant 1 : index" % t,
                "%%%s_last = arith.constant %d : index" % (t, size - 1),
                "%%%s_up = arith.addi %%%s_lo, %%%s_one : index" % (t, t, t),
                "%%%s_hi = arith.minsi %%%s_up, %%%s_last : index"
                % (t, t, t)]
            coords[t] = ("%%%s_lo" % t, "%%%s_hi" % t, "%%%s_w" % t)
        lines += ["%n = linalg.index 0 : index",
                  "%ch = linalg.index 1 : index"]
        picks = {}
        for ty, row in (("lo", coords["y"][0]), ("hi", coords["y"][1])):
            for tx, col in (("lo", coords["x"][0]), ("hi", coords["x"][1])):
                name = "%%p_%s_%s" % (ty, tx)
                lines.append("%s = tensor.extract %s[%%n, %%ch, %s, %s] : %s"
                             % (name, x.name, row, col, x.type))
                if elem_in in HALF_TYPES:
                    lines.append("%s_f = arith.extf %s : %s to f32"
                                 % (name, name, elem_in))
                    name += "_f"
                picks[(ty, tx)] = name
        wy, wx = coords["y"][2], coords["x"][2]
        lines += [
            "%%top_d = arith.subf %s, %s : f32" % (picks[("lo", "hi")],
                                                   picks[("lo", "lo")]),
            "%%top_s = arith.mulf %%top_d, %s : f32" % wx,
            "%%top = arith.addf %s, %%top_s : f32" % picks[("lo", "lo")],
            "%%bot_d = arith.subf %s, %s : f32" % (picks[("hi", "hi")],
                                                   picks[("hi", "lo")]),
            "%%bot_s = arith.mulf %%bot_d, %s : f32" % wx,
            "%%bot = arith.addf %s, %%bot_s : f32" % picks[("hi", "lo")],
            "%mid_d = arith.subf %bot, %top : f32",
            "%%mid_s = arith.mulf %%mid_d, %s : f32" % wy,
            "%r = arith.addf %top, %mid_s : f32"]
        return lines, "%r"
    if len(x.shape) != 4:
        raise c.error("bilinear upsampling takes 4-D tensors")
    if x.elem not in ("f32",) + HALF_TYPES:
        raise c.error("bilinear upsampling of %s tensors" % x.elem)
    return c.generic(out_shape, [], body, init=c.empty(out_shape, x.elem,
                                                       x.device),
                     out_elem=x.elem)


def conv_transpose(c, x, weight, bias, out_shape, stride, padding, dilation,
                   output_padding, groups):
    """A transposed convolution as the convolution it is the gradient of:
    the input spread out by the stride (zeros between), padded by
    dilation * (k - 1) - padding (plus output_padding at the end), and
    convolved at stride 1 with the filters flipped and their in/out
    channels swapped per group."""
    count = len(x.shape) - 2
    kernel = weight.shape[2:]
    if not all(is_static(d) for d in x.shape[1:] + weight.shape):
        raise c.error("transposed convolution needs static sizes")
    spread_shape = x.shape[:2] + [(x.shape[2 + i] - 1) * stride[i] + 1
                                  for i in range(count)]
    x = c.cast(x, "f32")
    if any(s != 1 for s in stride):
        zeros = c.filled(spread_shape, 0.0, device=x.device)
        name = c.fresh("spread")
        rank = len(x.shape)
        c.emit("%s = tensor.insert_slice %s into %s%s%s%s : %s into %s" % (
            name, x.name, zeros, [0] * rank, c.sizes(x.shape),
            [1, 1] + list(stride), x.type, tensor_type(spread_shape)))
        x = Value(name, spread_shape, device=x.device)
    low = [dilation[i] * (kernel[i] - 1) - padding[i] for i in range(count)]
    if any(v < 0 for v in low):
        raise c.error("transposed convolution with padding larger than "
                      "dilation * (kernel - 1) is not supported")
    high = [low[i] + output_padding[i] for i in range(count)]
    x = pad_spatial(c, x, count, low, high, 0.0)
    cin, fg = weight.shape[0], weight.shape[1]
    cg = cin // groups
    weight = c.cast(weight, "f32")
    # flipped[g, f, ch, k...] = weight[g * cg + ch, f, K - 1 - k...]
    flipped_shape = [groups, fg, cg] + kernel
    w_map = ["d0 * %d + d2" % cg, "d1"] + [
        "%d - d%d" % (kernel[i] - 1, 3 + i) for i in range(count)]
    flipped = c.generic(flipped_shape, [(weight, w_map)],
                        lambda a, o: ([], a[0]))
    flipped = c.reshape(flipped, [groups * fg, cg] + kernel)
    ones = [1] * count
    if fg >= 4 and cg * product_of(kernel) >= 8:
        result = conv_as_matmul(c, x, flipped, out_shape, groups, ones,
                                dilation)
    else:
        result = conv_direct(c, x, flipped, out_shape, groups, ones,
                             dilation)
    if bias is not None:
        b = c.reshape(c.value(bias), [groups * fg] + [1] * count)
        result = c.elementwise([result, b], lambda n: op2("arith.addf", n))
    return result


def scatter(mode):
    """scatter (src or value), scatter_add and index_add: writes along
    `dim` where the index names a position, as one generic over x's
    dimensions and a reduction over the index's `dim` (the last write wins
    where indices repeat, which PyTorch leaves undefined for scatter;
    adds accumulate). Index tensors must have x's sizes off `dim`
    (index_add's is 1-D)."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        rank = len(x.shape)
        dim = args[1] % rank
        idx = c.value(args[2])
        alpha = 1.0
        if mode == "index_add":
            source = args[3]
            alpha = float(kwargs.get("alpha", args[4] if len(args) > 4
                                     else 1))
            if len(idx.shape) != 1:
                raise c.error("index_add takes a 1-D index")
        else:
            source = args[3] if len(args) > 3 else kwargs.get(
                "src", kwargs.get("value"))
        if idx.elem != "i64":
            raise c.error("the index must be int64, not %s" % idx.elem)
        if mode != "index_add" and (len(idx.shape) != rank or any(
                normal_dim(idx.shape[d]) != normal_dim(x.shape[d])
                for d in range(rank) if d != dim)):
            raise c.error("scatter with an index smaller than the tensor "
                          "off the scattered dimension is not supported")
        if not is_static(x.shape[dim]):
            raise c.error("scatter along a symbolic size is not supported")
        k = "d%d" % rank
        along = ["d%d" % d if d != dim else k for d in range(rank)]
        idx_map = [k] if mode == "index_add" else along
        inputs = [(idx, idx_map)]
        if isinstance(source, dict):
            inputs.append((c.value(source), along))
        elif not isinstance(source, (int, float)) or isinstance(source,
                                                                bool):
            raise c.error("the scattered value must be a tensor or number")
        adds = mode in ("add", "index_add")
        value_elem = "f32" if x.elem in HALF_TYPES else x.elem
        if value_elem not in ("f32", "i64"):
            raise c.error("scatter into %s tensors is not supported"
                          % x.elem)

        def body(a, o):
            lines = _wrapped_index("w", a[0], x.shape[dim])
            lines += ["%%here = linalg.index %d : index" % dim,
                      "%hit = arith.cmpi eq, %w, %here : index"]
            if len(a) > 1:
                value = a[1]
                if value_elem == "f32" and c.value(source).elem == "i64":
                    lines.append("%%vf = arith.sitofp %s : i64 to f32"
                                 % value)
                    value = "%vf"
            else:
                lines.append("%%value = arith.constant %s : %s"
                             % (literal(source, value_elem), value_elem))
                value = "%value"
            if alpha != 1.0:
                lines += ["%%alpha = arith.constant %s : f32"
                          % float_literal(alpha),
                          "%%scaled = arith.mulf %s, %%alpha : f32" % value]
                value = "%scaled"
            if adds:
                add = "arith.addf" if value_elem == "f32" else "arith.addi"
                lines += ["%%sum = %s %s, %s : %s" % (add, o, value,
                                                      value_elem),
                          "%%r = arith.select %%hit, %%sum, %s : %s"
                          % (o, value_elem)]
            else:
                lines.append("%%r = arith.select %%hit, %s, %s : %s"
                             % (value, o, value_elem))
            return lines, "%r"
        init = c.copy(c.cast(x, value_elem) if value_elem != x.elem
                      else x)
        return c.generic(x.shape, inputs, body, init=init.name,
                         out_map=["d%d" % d for d in range(rank)],
                         iterators=["parallel"] * rank + ["reduction"],
                         out_elem=value_elem)
    return convert


def topk(c, args, kwargs):
    """topk(x, k, dim=-1, largest=True, sorted=True): k rounds of the
    arg_reduce of max (min), each masking the element it took, so values
    come sorted and, among equal values, earlier positions first; k must
    be static and at most 64 (a round is a pass over x)."""
    x = c.value(args[0])
    k = args[1]
    rank = len(x.shape)
    dim = (args[2] if len(args) > 2 else kwargs.get("dim", -1)) % rank
    largest = args[3] if len(args) > 3 else kwargs.get("largest", True)
    if not isinstance(k, int) or not 0 <= k <= 64:
        raise c.error("topk needs a static k of at most 64, got %r" % (k,))
    if x.elem not in ("f32",) + HALF_TYPES:
        raise c.error("topk of %s tensors is not supported" % x.elem)
    work = c.cast(x, "f32")
    values, indices = [], []
    for _ in range(k):
        value, index = arg_reduce(c, work, dim, largest)
        values.append(c.keepdim(value, work.shape, [dim]))
        indices.append(c.keepdim(index, work.shape, [dim]))
        wide = indices[-1]
        masked = -math.inf if largest else math.inf

        def body(a, o, dim=dim, masked=masked):
            return ["%%i = linalg.index %d : index" % dim,
                    "%ii = arith.index_cast %i : index to i64",
                    "%%hit = arith.cmpi eq, %%ii, %s : i64" % a[1],
                    "%%gone = arith.constant %s : f32" % float_literal(masked),
                    "%%r = arith.select %%hit, %%gone, %s : f32" % a[0]], "%r"
        work = c.generic(work.shape, [
            (work, ["d%d" % i for i in range(rank)]),
            (wide, ["0" if i == dim else "d%d" % i for i in range(rank)])],
            body)
    if k == 0:
        shape = list(x.shape)
        shape[dim] = 0
        return [Value(c.filled(shape, 0.0), shape),
                Value(c.filled(shape, 0, "i64"), shape, elem="i64")]
    return [cat_values(c, values, dim), cat_values(c, indices, dim)]


def sort(c, args, kwargs):
    """sort / argsort along a static dimension of at most 64 elements:
    topk of all of them (earlier positions first among equal values, a
    stable order)."""
    x = c.value(args[0])
    rank = len(x.shape)
    if c.node["op"] == "aten::sort" and c.node.get("overload") == "stable":
        dim = kwargs.get("dim", -1)
        descending = kwargs.get("descending", False)
    else:
        dim = args[1] if len(args) > 1 else kwargs.get("dim", -1)
        descending = args[2] if len(args) > 2 else kwargs.get("descending",
                                                               False)
    dim %= rank
    if not is_static(x.shape[dim]) or x.shape[dim] > 64:
        raise c.error("sorting %s elements is not supported (a static "
                      "size of at most 64)" % (x.shape[dim],))
    values, indices = topk(c, [args[0], x.shape[dim], dim, descending], {})
    return indices if c.node["op"] == "aten::argsort" else [values, indices]


# Ops that only make a tensor: one nothing reads is not converted.
UNUSED_SKIPPED = {"aten::empty", "aten::zeros", "aten::ones", "aten::full",
                  "aten::empty_like", "aten::zeros_like", "aten::ones_like",
                  "aten::full_like", "aten::new_empty", "aten::new_zeros",
                  "aten::new_ones", "aten::new_full", "aten::scalar_tensor",
                  "aten::arange", "aten::empty_strided"}


# Ops whose result aliases their first argument in PyTorch.
VIEW_OPS = {"aten::t", "aten::transpose", "aten::permute", "aten::view",
            "aten::reshape", "aten::_unsafe_view", "aten::unsqueeze",
            "aten::squeeze", "aten::expand", "aten::slice", "aten::select",
            "aten::split", "aten::split_with_sizes", "aten::detach",
            "aten::alias", "aten::narrow", "aten::diagonal",
            "aten::as_strided", "aten::unfold", "aten::unbind"}
# Views that are their base itself when their shape is the base's.
SAME_SHAPE_IDENTITY_VIEWS = {"aten::slice", "aten::view", "aten::reshape",
                             "aten::_unsafe_view", "aten::expand",
                             "aten::squeeze", "aten::unsqueeze",
                             "aten::narrow"}

OPS = {
    "aten::add": binary("arith.addf"),
    "aten::sub": binary("arith.subf"),
    "aten::mul": binary("arith.mulf"),
    "aten::div": true_divide,
    "aten::floor_divide": floor_divide,
    "aten::remainder": remainder,
    "aten::fmod": fmod,
    "aten::bitwise_and": bitwise("arith.andi"),
    "aten::bitwise_or": bitwise("arith.ori"),
    "aten::bitwise_xor": bitwise("arith.xori"),
    "aten::logical_and": logical("arith.andi"),
    "aten::logical_or": logical("arith.ori"),
    "aten::logical_xor": logical("arith.xori"),
    "aten::arange": arange,
    "aten::maximum": binary("arith.maximumf"),
    "aten::minimum": binary("arith.minimumf"),
    "aten::neg": integer_unary(
        unary(lambda n: (["%%r = arith.negf %s : f32" % n[0]], "%r")),
        lambda x: ["%zero = arith.constant 0 : i64",
                   "%%r = arith.subi %%zero, %s : i64" % x]),
    "aten::relu": unary(lambda n: (
        ["%zero = arith.constant 0.000000000e+00 : f32",
         "%%r = arith.maximumf %s, %%zero : f32" % n[0]], "%r")),
    "aten::exp": unary(lambda n: (["%%r = math.exp %s : f32" % n[0]], "%r")),
    "aten::log": unary(lambda n: (["%%r = math.log %s : f32" % n[0]], "%r")),
    "aten::tanh": unary(lambda n: (["%%r = math.tanh %s : f32" % n[0]], "%r")),
    "aten::sqrt": unary(lambda n: (["%%r = math.sqrt %s : f32" % n[0]], "%r")),
    "aten::rsqrt": unary(lambda n: (["%%r = math.rsqrt %s : f32" % n[0]],
                                    "%r")),
    "aten::abs": integer_unary(
        unary(lambda n: (["%%r = math.absf %s : f32" % n[0]], "%r")),
        lambda x: ["%zero = arith.constant 0 : i64",
                   "%%neg = arith.subi %%zero, %s : i64" % x,
                   "%%below = arith.cmpi slt, %s, %%zero : i64" % x,
                   "%%r = arith.select %%below, %%neg, %s : i64" % x]),
    "aten::sigmoid": unary(lambda n: (sigmoid_lines(n[0], "%r"), "%r")),
    "aten::silu": unary(lambda n: (
        sigmoid_lines(n[0], "%s") + ["%%r = arith.mulf %s, %%s : f32" % n[0]],
        "%r")),
    "aten::gelu": gelu,
    "aten::pow": pow_scalar,
    "aten::sum": reduction("sum"),
    "aten::mean": reduction("sum", mean=True),
    "aten::amax": reduction("max"),
    "aten::_safe_softmax": softmax(log=False, safe=True),
    "aten::scaled_dot_product_attention": lambda c, a, k: attention(
        c, a, k, ["attn_mask", "dropout_p", "is_causal", "scale",
                  "enable_gqa"], None),
    "aten::_scaled_dot_product_flash_attention_for_cpu": lambda c, a, k:
        attention(c, a, k, ["dropout_p", "is_causal", "attn_mask", "scale"],
                  "lse"),
    "aten::_scaled_dot_product_attention_math": lambda c, a, k: attention(
        c, a, k, ["attn_mask", "dropout_p", "is_causal", "dropout_mask",
                  "scale", "enable_gqa"], "weights"),
    "aten::convolution": convolution,
    "aten::max_pool1d_with_indices": max_pool,
    "aten::max_pool2d_with_indices": max_pool,
    "aten::max_pool3d_with_indices": max_pool,
    "aten::avg_pool1d": avg_pool,
    "aten::avg_pool2d": avg_pool,
    "aten::avg_pool3d": avg_pool,
    "aten::_adaptive_avg_pool2d": adaptive_avg_pool,
    "aten::adaptive_avg_pool2d": adaptive_avg_pool,
    "aten::_adaptive_avg_pool3d": adaptive_avg_pool,
    "aten::native_batch_norm": batch_norm(
        ["weight", "bias", "running_mean", "running_var", "training",
         "momentum", "eps"]),
    "aten::_native_batch_norm_legit_no_training": batch_norm(
        ["weight", "bias", "running_mean", "running_var", "momentum",
         "eps"]),
    "aten::_native_batch_norm_legit": batch_norm(
        ["weight", "bias", "running_mean", "running_var", "training",
         "momentum", "eps"]),
    # What batch_norm decomposes to on CUDA tensors (Dynamo's graphs).
    "aten::cudnn_batch_norm": batch_norm(
        ["weight", "bias", "running_mean", "running_var", "training",
         "momentum", "eps"]),
    "aten::miopen_batch_norm": batch_norm(
        ["weight", "bias", "running_mean", "running_var", "training",
         "momentum", "eps"]),
    "aten::_softmax": softmax(log=False),
    "aten::softmax": softmax(log=False),
    "aten::_log_softmax": softmax(log=True),
    "aten::log_softmax": softmax(log=True),
    "aten::native_layer_norm": native_layer_norm,
    "aten::mm": lambda c, a, k: c.matmul(c.value(a[0]), c.value(a[1])),
    "aten::bmm": lambda c, a, k: c.matmul(c.value(a[0]), c.value(a[1])),
    "aten::addmm": addmm,
    "aten::baddbmm": addmm,
    "aten::linear": linear,
    "aten::matmul": lambda c, a, k: general_matmul(c, c.value(a[0]),
                                                   c.value(a[1])),
    "aten::rms_norm": rms_norm(False),
    "aten::_fused_rms_norm": rms_norm(True),
    "aten::unbind": unbind,
    "aten::stack": stack,
    "aten::fill": fill,
    "aten::zero": filled_like(0.0),
    "aten::t": transpose,
    "aten::transpose": transpose,
    "aten::permute": lambda c, a, k: c.permute(c.value(a[0]), list(a[1])),
    "aten::view": view,
    "aten::reshape": view,
    "aten::_unsafe_view": view,
    "aten::_reshape_alias": reshape_alias,
    "aten::unsqueeze": unsqueeze,
    "aten::squeeze": squeeze,
    "aten::expand": expand,
    "aten::slice": slice_op,
    "aten::select": select,
    "aten::cat": cat,
    "aten::eq": compare("oeq"),
    "aten::ne": compare("une"),
    "aten::lt": compare("olt"),
    "aten::le": compare("ole"),
    "aten::gt": compare("ogt"),
    "aten::ge": compare("oge"),
    "aten::split": split,
    "aten::split_with_sizes": split,
    "aten::rsub": rsub,
    "aten::clamp": clamp,
    "aten::clamp_min": lambda c, a, k: clamp(c, [a[0], a[1], None], {}),
    "aten::clamp_max": lambda c, a, k: clamp(c, [a[0], None, a[1]], {}),
    "aten::hardtanh": hardtanh,
    "aten::leaky_relu": leaky_relu,
    "aten::erf": unary(lambda n: (erf_lines(n[0], "%r"), "%r")),
    "aten::sin": unary(lambda n: (["%%r = math.sin %s : f32" % n[0]], "%r")),
    "aten::floor": float_unary("floor"),
    "aten::ceil": float_unary("ceil"),
    "aten::trunc": float_unary("trunc"),
    "aten::round": float_unary("roundeven"),
    "aten::exp2": float_unary("exp2"),
    "aten::log2": float_unary("log2"),
    "aten::log10": float_unary("log10"),
    "aten::log1p": float_unary("log1p"),
    "aten::expm1": float_unary("expm1"),
    "aten::tan": float_unary("tan"),
    "aten::atan": float_unary("atan"),
    "aten::sign": unary(lambda n: sign_lines(n[0])),
    "aten::atan2": binary("math.atan2"),
    "aten::softplus": softplus,
    "aten::elu": elu,
    "aten::hardsigmoid": unary(lambda n: (hard_sigmoid_lines(n[0]), "%hs")),
    "aten::hardswish": unary(lambda n: (
        hard_sigmoid_lines(n[0]) + ["%%r = arith.mulf %s, %%hs : f32" % n[0]],
        "%r")),
    "aten::mish": unary(lambda n: (
        softplus_lines(n[0], 1.0, 20.0, "%sp") + [
            "%t = math.tanh %sp : f32",
            "%%r = arith.mulf %s, %%t : f32" % n[0]], "%r")),
    "aten::log_sigmoid_forward": log_sigmoid_forward,
    "aten::amin": reduction("min"),
    "aten::prod": reduction("prod"),
    "aten::topk": topk,
    "aten::sort": sort,
    "aten::argsort": sort,
    "aten::argmax": argmax(True),
    "aten::argmin": argmax(False),
    "aten::max": max_dim(True),
    "aten::min": max_dim(False),
    "aten::var": variance,
    "aten::std": variance,
    "aten::var_mean": variance,
    "aten::std_mean": variance,
    "aten::logsumexp": logsumexp,
    "aten::any": truth_reduction("max"),
    "aten::all": truth_reduction("min"),
    "aten::linalg_vector_norm": vector_norm,
    "aten::norm": vector_norm,
    "aten::constant_pad_nd": constant_pad,
    "aten::flip": flip,
    "aten::repeat": repeat,
    "aten::index_select": index_select,
    "aten::_unsafe_index": index,
    "aten::gather": gather,
    "aten::scatter": scatter("set"),
    "aten::scatter_add": scatter("add"),
    "aten::index_add": scatter("index_add"),
    "aten::tril": triangle(True),
    "aten::triu": triangle(False),
    "aten::native_group_norm": group_norm,
    "aten::cumsum": cumulative("sum"),
    "aten::cumprod": cumulative("prod"),
    "aten::upsample_bilinear2d": upsample_bilinear,
    "aten::upsample_nearest1d": upsample_nearest,
    "aten::upsample_nearest2d": upsample_nearest,
    "aten::upsample_nearest3d": upsample_nearest,
    "aten::cos": unary(lambda n: (["%%r = math.cos %s : f32" % n[0]], "%r")),
    "aten::reciprocal": unary(lambda n: (
        ["%one = arith.constant 1.000000000e+00 : f32",
         "%%r = arith.divf %%one, %s : f32" % n[0]], "%r")),
    "aten::rand": random_sized("uniform"),
    "aten::randn": random_sized("normal"),
    "aten::rand_like": random_like("uniform"),
    "aten::randn_like": random_like("normal"),
    "aten::bernoulli": bernoulli,
    "aten::native_dropout": native_dropout,
    "aten::native_dropout_backward": native_dropout_backward,
    "aten::empty_like": filled_like(0.0),
    "aten::is_same_size": lambda c, a, k: [],
    "aten::zeros_like": filled_like(0.0),
    "aten::ones_like": filled_like(1.0),
    "aten::full": full,
    "aten::full_like": full_like,
    # torch.export's checks of what it traced (sizes, dtypes, a scalar's
    # range): the converted program's types already say as much.
    "aten::_assert_tensor_metadata": lambda c, a, k: None,
    "aten::_assert_scalar": lambda c, a, k: None,
    "aten::scalar_tensor": scalar_tensor,
    "aten::zeros": filled_sized(0.0),
    "aten::ones": filled_sized(1.0),
    "aten::empty": filled_sized(0.0),
    "aten::new_zeros": filled_sized(0.0, new=True),
    "aten::new_ones": filled_sized(1.0, new=True),
    "aten::new_empty": filled_sized(0.0, new=True),
    "aten::new_full": lambda c, a, k: full(c, a[1:], k),
    "aten::_to_copy": to_copy,
    "aten::lift_fresh_copy": identity,
    "aten::_local_scalar_dense": item,
    "aten::copy_": copy,
    "aten::copy": copy_functional,
    "aten::index": index,
    "aten::index_put": index_put,
    "aten::where": where,
    "aten::embedding": embedding,
    "aten::masked_fill": masked_fill,
    "aten::bitwise_not": bitwise_not,
    "aten::logical_not": logical_not,
    "aten::clone": identity,
    "aten::detach": identity,
    "aten::alias": identity,
    "aten::contiguous": identity,
    **HOST_SCALAR_OPS,
}


def convert(graph, constants, device="cuda:0"):
    """The MLIR text of `graph`'s function (see the module comment)."""
    return convert_program(graph, constants, device)[0]


def convert_program(graph, constants, device="cuda:0"):
    """(MLIR text, the positions of the inputs the program writes in
    place, whose final values follow the outputs as extra results)."""
    converter = Converter(graph, constants, device)
    text = converter.convert()
    return text, converter.mutated_inputs
