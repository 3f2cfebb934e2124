"""A serialized PyTorch graph (format.py) to MLIR, without PyTorch: linalg
on tensors in the form torch-mlir's linalg-on-tensors backend gives, which
`gp-compile --bufferize` takes (upstream one-shot-bufferize, then gp-import).

    python3 -m graphpart convert GRAPH_DIR -o model.mlir

Tensors are f32, f16, bf16, bool or int64 (other element types are refused
by name). Floating arithmetic runs in f32 and each op's result is rounded
once to its PyTorch dtype, as PyTorch's kernels do for half types; int64
arithmetic runs in i64 where PyTorch keeps integers (int64 with bools and
int numbers), and in f32 where PyTorch promotes to floating point.
Sizes are static or multiples of symbols ("s0", "16*s0"). A module's
parameters and buffers (the graph's "parameters") become arguments of the
function after the inputs, each named by its fully qualified name
(`{gp.parameter = "fc.weight"}`), bound when the artifact is loaded; so do
other constants larger than `inline_limit` bytes (256, as IREE's default),
named by their graph name; smaller constants stay in the program as
`arith.constant dense<...>` tensors. So the text does not grow with the
weights. Custom ops become
calls of private declarations carrying their schema (gp.mutates, gp.aliases,
gp.tags), which gp-import makes `gp.fallback` ops; so does attention, one
call of the runtime's built-in gp::attention (scaled_dot_product_attention,
and attention written out, which fuse_attention.py finds first). Anything
not covered is a GraphError naming the op and, when the graph records it,
the line of the user's Python source.

The Converter and the entry points are here; each op's conversion is in
the ops package (one module per op family) and the table of them, OPS,
in ops/__init__.py.
"""
import json
import math
import re

import numpy as np

from . import fuse_attention as attention_fusion
from .format import INDEX_ERRORS, GraphError, check, checked_array
from .ops import OPS, SAME_SHAPE_IDENTITY_VIEWS, UNUSED_SKIPPED, VIEW_OPS
from .ops.linalg import explicit_attention
from .ops.common import (CONSTANT_TYPES, ELEMENT_TYPES, HALF_TYPES,
                         NARROW_INTS, Scalar, Unusable, Value,
                         broadcast_shape, dims_map,
                         from_product, is_static, literal, normal_dim,
                         parse_dim, product, tensor_type)


# Constants up to this many bytes stay in the program; larger ones become
# parameters (IREE's default threshold for externalizing them).
INLINE_LIMIT = 256
# The tensor element types a graph may use, as its messages list them.
SUPPORTED_TEXT = "f32, f16, bf16, bool, int64, int32, int16 and int8"

# The ops of nodes that graph rewrites (run before conversion) make.
REWRITTEN_OPS = {attention_fusion.FUSED_OP: explicit_attention}


def mlir_string(text):
    """`text` as an MLIR string literal: printable ASCII as it is, every
    other byte (UTF-8) and the quote and backslash as \\XX."""
    return '"%s"' % "".join(
        chr(b) if 32 <= b < 127 and b not in (34, 92) else "\\%02X" % b
        for b in text.encode("utf-8"))


# What an op's conversion raises on arguments it does not take (format.check
# has checked the graph's structure, not each op's arguments).
_MALFORMED = (KeyError, IndexError, TypeError, ValueError, AttributeError,
              ZeroDivisionError, OverflowError, RecursionError)


def _brief(value, limit=120):
    """`value` as JSON, cut to `limit` characters, for messages."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Converter:
    def __init__(self, graph, constants, device, inline_limit=INLINE_LIMIT):
        self.graph, self.constants, self.device = graph, constants, device
        self.inline_limit = inline_limit
        # The function's parameters, in argument order: (parameter name,
        # the graph's node name, "parameter" or "constant").
        self.parameters = []
        self.lines, self.decls = [], {}
        # The declarations of the runtime's built-in externs
        # (builtin_call): symbol by (op name, operand types, result type).
        self.builtin_symbols = {}
        self.values = {}
        self._read_results = None
        self.counter = 0
        self.node = None
        # Index values of symbols and of the dimensions made from them.
        self.symbols, self.dim_values = {}, {}
        # In-place writes to inputs: node -> the input it writes, and each
        # written input -> the node holding its final value.
        self.written_inputs, self.mutated = {}, {}
        # The same for module state written in place (a key/value cache):
        # parameter node -> the node holding its final value; and each
        # parameter node's position among the function's arguments.
        self.mutated_parameters, self.parameter_args = {}, {}
        # Nodes (inputs, parameters, results) of a narrow integer dtype,
        # computed as int64: name -> the type they are stored in.
        self.narrow = {}
        # Index checks (check_indices): their descriptions, in order (the
        # flag holds the largest number of those that failed), each check's
        # number by (index tensor, size, lowest index), and the flag's
        # value now.
        self.index_checks, self.checked_indices = [], {}
        self.index_flag = None
        # View nodes: name -> (the node they view, whether they view all of
        # it in its shape); and the names an in-place write replaces.
        self.view_of, self.rebind = {}, []

    # -- helpers ----------------------------------------------------------
    def where(self):
        """The node being converted, as messages name it."""
        return "%s (node '%s'%s)" % (
            self.node["op"], self.node["name"],
            ", " + self.node["source"] if self.node.get("source") else "")

    def error(self, message):
        where = self.where() + ": " if self.node is not None else ""
        return GraphError(where + message)

    def check_indices(self, idx, size, lo=None):
        """Checks at run time that every element of the int64 tensor `idx`
        lies in [lo, size) (lo defaults to -size: PyTorch counts negative
        indices from the end), where eager PyTorch raises IndexError: a
        reduction over `idx` writes this check's number into the program's
        index-error flag (the mutable parameter graphpart.index_errors,
        bound by the runtime) wherever an element does not; the runtime
        then fails the call naming the op. The op itself still reads the
        clamped index, so nothing outside a tensor is read or written."""
        lo = -size if lo is None else lo
        # A range already checked for this tensor that lies inside this one
        # implies it (a position both embedded and written into a cache).
        if any(name == idx.name and lo <= low and high <= size
               for name, high, low in self.checked_indices):
            return
        self.index_checks.append(
            "%s: an index outside [%d, %d)" % (self.where(), lo, size))
        code = len(self.index_checks)
        self.checked_indices[(idx.name, size, lo)] = code
        if self.index_flag is None:
            self.index_flag = Value("%index_errors", [1], elem="i64")
        # The flag is on the program's device: a check of indices kept
        # elsewhere (a tensor moved to the CPU) reads a copy of them.
        idx = self.move(idx, None)
        rank = len(idx.shape)

        def body(a, o):
            return (["%%lo = arith.constant %d : i64" % lo,
                     "%%hi = arith.constant %d : i64" % size,
                     "%%below = arith.cmpi slt, %s, %%lo : i64" % a[0],
                     "%%above = arith.cmpi sge, %s, %%hi : i64" % a[0],
                     "%bad = arith.ori %below, %above : i1",
                     "%%code = arith.constant %d : i64" % code,
                     "%zero = arith.constant 0 : i64",
                     "%failed = arith.select %bad, %code, %zero : i64",
                     "%%r = arith.maxsi %s, %%failed : i64" % o], "%r")
        self.index_flag = self.generic(
            [1], [(idx, ["d%d" % i for i in range(rank)])], body,
            init=self.index_flag.name, out_map=["0"],
            iterators=["reduction"] * rank, out_elem="i64")

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
        extensions, args = [], []
        for arg, elem in zip(block_args + ["%out"], elems):
            if elem not in HALF_TYPES:
                args.append(arg)
            else:
                extensions.append((arg + "_f", "%s_f = arith.extf %s : %s "
                                   "to f32" % (arg, arg, elem)))
                args.append(arg + "_f")
        block, result = body(args[:-1], args[-1])
        moved = [i for i, arg in enumerate(args[:-1]) if arg == result]
        if not block and moved and elems[moved[0]] == out_elem:
            # The body moves an element (a transpose, a broadcast, a
            # gather): it stays in its type, so that the op is a plain copy
            # (matmuls take such transposes as cuBLAS operands).
            lines, result = [], block_args[moved[0]]
        else:
            # Only the extensions the body reads: a dead one would count as
            # payload where kernel fusion weighs a producer's cost.
            text = "\n".join(block) + "\n" + result
            lines = [line for name, line in extensions
                     if re.search(re.escape(name) + r"\b", text)]
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

    def each(self, x, body, out_elem):
        """`body(a)` -> (lines, result) applied to each element `a` of `x`,
        giving a tensor of `out_elem`."""
        return self.generic(x.shape, [(x, ["d%d" % i for i in
                                           range(len(x.shape))])],
                            lambda a, o: body(a[0]), out_elem=out_elem)

    def widened(self, name, x):
        """`x`, an input or parameter, as the converter computes with it:
        a narrow integer (i32, i16, i8) sign-extended to i64, and `name`
        recorded as stored narrow; anything else as it is."""
        if x.elem not in NARROW_INTS.values():
            return x
        self.narrow[(name, None)] = x.elem
        return self.each(x, lambda a: (
            ["%%r = arith.extsi %s : %s to i64" % (a, x.elem)], "%r"), "i64")

    def wrapped(self, x, storage):
        """i64 `x` wrapped to the width of `storage` (i32, i16, i8), as
        PyTorch's arithmetic in that type wraps around."""
        return self.each(x, lambda a: (
            ["%%t = arith.trunci %s : i64 to %s" % (a, storage),
             "%%r = arith.extsi %%t : %s to i64" % storage], "%r"), "i64")

    def narrowed(self, x, ref):
        """A program output `x` (the graph's reference `ref`) in the type
        it is stored in: a narrow integer's i64 value truncated to it."""
        storage = self.narrow.get((ref.get("node"), ref.get("index")),
                                  self.narrow.get((ref.get("node"), None)))
        if storage is None or x.elem != "i64":
            return x
        return self.each(x, lambda a: (
            ["%%r = arith.trunci %s : i64 to %s" % (a, storage)], "%r"),
            storage)

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
                                 "supported (%s tensors)"
                                 % (entry["name"], entry.get("dtype"),
                                    SUPPORTED_TEXT))
            value = Value("%%a_%s" % entry["name"], entry["shape"],
                          elem=NARROW_INTS.get(entry["dtype"],
                                               ELEMENT_TYPES[entry["dtype"]]))
            self.values[entry["name"]] = self.widened(entry["name"], value)
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
        def parameter(node_name, name, dtype, shape, kind):
            if dtype not in CONSTANT_TYPES:
                raise GraphError("%s '%s': element type %s is not supported "
                                 "(%s)" % (kind, name, dtype, SUPPORTED_TEXT))
            if not name or any(c.isspace() or c in '"\\' for c in name):
                raise GraphError("%s name '%s' is empty or holds whitespace, "
                                 "a quote or a backslash" % (kind, name))
            if any(p[0] == name for p in self.parameters):
                raise GraphError("two parameters are named '%s'" % name)
            value = Value("%%param_%d" % len(self.parameters), list(shape),
                          elem=NARROW_INTS.get(dtype, ELEMENT_TYPES[dtype]))
            self.values[node_name] = self.widened(node_name, value)
            self.parameter_args[node_name] = (len(args), value, name)
            args.append('%s: %s {gp.parameter = "%s"}'
                        % (value.name, value.type, name))
            self.parameters.append((name, node_name, kind))

        for entry in graph.get("parameters", []):
            if any(not isinstance(d, int) for d in entry["shape"]):
                raise GraphError("parameter '%s' has a symbolic shape %s"
                                 % (entry["fqn"], entry["shape"]))
            parameter(entry["name"], entry["fqn"], entry["dtype"],
                      entry["shape"], "parameter")
        declared = {c["name"]: c for c in graph.get("constants", [])}
        for name, array in self.constants.items():
            array = np.asarray(array)
            if name in declared:
                # The bytes are written as they lie: they must be of the
                # declared type (format.load checks the files so too).
                entry = declared[name]
                array = checked_array(array, entry["dtype"], entry["shape"],
                                      "constant '%s'" % name)
                dtype = entry["dtype"]
            else:
                if array.dtype.byteorder == ">":
                    array = array.astype(array.dtype.newbyteorder("<"))
                dtype = str(array.dtype)
            if dtype not in CONSTANT_TYPES:
                raise GraphError("constant '%s': element type %s is not "
                                 "supported (%s constants)"
                                 % (name, dtype, SUPPORTED_TEXT))
            if array.nbytes > self.inline_limit:
                parameter(name, name, dtype, array.shape, "constant")
                continue
            if dtype in NARROW_INTS:   # computed as int64, exactly
                array, dtype = array.astype(np.int64), "int64"
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
            try:
                self.record_view(node)
                self.rebind = []
                unusable = self.unusable_operand(node)
                # A pure op on a value that cannot be computed (max
                # pooling's indices) cannot be computed either; only a use
                # of its result is an error (make_fx squeezes
                # adaptive_max_pool1d's unused indices).
                result = unusable if unusable else self.convert_node(node)
            except _MALFORMED as error:
                # Arguments of other kinds or counts than the op takes
                # (a hand-written or damaged graph): an error naming the
                # node, not a Python exception from inside its conversion.
                raise self.error("arguments %s not understood (%s: %s)" % (
                    _brief(node.get("args", [])), type(error).__name__,
                    error))
            self.values[node["name"]] = result
            # An in-place write: later reads of the tensor it wrote (and of
            # the tensors that view all of it) read the new value.
            for name in self.rebind:
                self.values[name] = result
        self.node = None
        results = [self.narrowed(self.value(out), out)
                   for out in graph["outputs"]]
        # Inputs written in place: their final values, after the outputs.
        self.mutated_inputs = [
            index for index, entry in enumerate(graph["inputs"])
            if entry["name"] in self.mutated]
        for index in self.mutated_inputs:
            entry = graph["inputs"][index]
            if entry["dtype"] in NARROW_INTS:
                raise GraphError("input '%s' (%s) is written in place: "
                                 "only int64 integers may be"
                                 % (entry["name"], entry["dtype"]))
        for index in self.mutated_inputs:
            name = graph["inputs"][index]["name"]
            value = self.value({"node": self.mutated[name]})
            results.append(self.move(value, None))
        result_types = [r.type for r in results]
        # Module state written in place: the new value is a result that
        # gp-write-back-parameters makes a write of the bound tensor.
        for node_name, final in self.mutated_parameters.items():
            at, param, fqn = self.parameter_args[node_name]
            if param.elem in NARROW_INTS.values():
                raise GraphError("module state '%s' (%s) is written in "
                                 "place: only int64 integers may be"
                                 % (fqn, param.type))
            value = self.move(self.value({"node": final}), None)
            if value.elem != param.elem:
                value = self.cast(value, param.elem)
            if value.type != param.type:
                raise GraphError("module state '%s' (%s) is written in "
                                 "place with a value of type %s" % (
                                     fqn, param.type, value.type))
            args[at] = args[at].replace("{gp.parameter", "{gp.mutable, "
                                        "gp.parameter")
            results.append(value)
            result_types.append('%s {gp.writes_parameter = "%s"}'
                                % (value.type, fqn))
        if self.index_checks:
            args.append('%%index_errors: tensor<1xi64> {gp.mutable, '
                        'gp.parameter = "%s"}' % INDEX_ERRORS)
            results.append(self.index_flag)
            result_types.append('tensor<1xi64> {gp.writes_parameter = "%s"}'
                                % INDEX_ERRORS)
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
        if self.index_checks:
            attributes.append("gp.index_checks = [%s]" % ", ".join(
                mlir_string(text) for text in self.index_checks))
        ranges = graph.get("symbols", {}).values()
        if ranges:
            # gp-import bounds every symbolic size of the function by these.
            attributes.append("gp.symint_min = %d : i64" % min(
                r.get("min", 0) for r in ranges))
            if all("max" in r for r in ranges):
                attributes.append("gp.symint_max = %d : i64" % max(
                    r["max"] for r in ranges))
        signature = "func.func @%s(%s) -> (%s) attributes {%s} {" % (
            graph["name"], ", ".join(args), ", ".join(result_types),
            ", ".join(attributes))
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

    def unusable_operand(self, node):
        """The Unusable that a pure ATen op reads, or None. Ops that write
        in place and custom ops are converted (and fail on it): their
        effects must not be dropped."""
        op = node["op"]
        if not op.startswith("aten::") or op.endswith("_") or \
                op[len("aten::"):] in ("copy", "index_put", "bernoulli"):
            return None
        found = []

        def scan(arg):
            if isinstance(arg, dict) and "node" in arg:
                value = self.values.get(arg["node"])
                if isinstance(value, list):
                    index = arg.get("index")
                    value = value[index] if isinstance(index, int) and \
                        0 <= index < len(value) else None
                if isinstance(value, Unusable):
                    found.append((arg["node"], value))
            elif isinstance(arg, (list, tuple)):
                for item in arg:
                    scan(item)
            elif isinstance(arg, dict):
                for item in arg.values():
                    scan(item)
        scan(node.get("args"))
        scan(node.get("kwargs"))
        if not found:
            return None
        source, value = found[0]
        why = value.why if value.why.startswith("aten::") else \
            "%s (node '%s') reads '%s': %s" % (op, node["name"], source,
                                               value.why)
        if len(node.get("outputs", [])) > 1:
            return [Unusable(why) for _ in node["outputs"]]
        return Unusable(why)

    def convert_node(self, node):
        op = node["op"]
        args, kwargs = node.get("args", []), node.get("kwargs", {})
        handler = OPS.get(op) or REWRITTEN_OPS.get(op)
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
                             "(%s tensors)" % (
                                 outputs[unsupported[0]].get("dtype"),
                                 SUPPORTED_TEXT))
        result = handler(self, args, kwargs)
        # Arithmetic ran in f32: each result is rounded once to the dtype
        # PyTorch gives it.
        elems = [ELEMENT_TYPES.get(o["dtype"]) for o in outputs]
        if isinstance(result, list):
            for i in (i for i in unsupported if i < len(result)):
                result[i] = Unusable("its element type %s is not supported"
                                     % outputs[i]["dtype"])
            # Results nothing reads (layer norm's mean and rstd, say) are
            # not rounded: the cast would be a kernel of its own.
            read = self.read_results().get(node["name"], set())
            result = [self.cast(v, e) if isinstance(v, Value) and (
                          i in read or None in read) else v
                      for i, (v, e) in enumerate(zip(result, elems))] + \
                result[len(elems):]
        elif elems:
            result = self.cast(result, elems[0])
        # Narrow integer results wrap to their width, as PyTorch's do.
        for index, output in enumerate(outputs):
            storage = NARROW_INTS.get(output.get("dtype"))
            single = not isinstance(result, list)
            value = result if single else (
                result[index] if index < len(result) else None)
            if storage is None or not isinstance(value, Value):
                continue
            self.narrow[(node["name"], None if single else index)] = storage
            value = self.wrapped(value, storage)
            if single:
                result = value
            else:
                result[index] = value
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
        for name, _, kind in ([] if root is not None else
                              [p for p in self.parameters
                               if p[1] == chain[-1]]):
            if kind != "parameter":
                raise self.error("writes the constant '%s' in place" % name)
            self.mutated_parameters[chain[-1]] = node["name"]

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

    def read_results(self):
        """Per node name, the indices of its results some node or the
        outputs read (None: the node read whole), found in one pass."""
        if self._read_results is None:
            read = {}

            def scan(arg):
                if isinstance(arg, dict):
                    if "node" in arg:
                        index = arg.get("index")
                        read.setdefault(arg["node"], set()).add(
                            index if isinstance(index, int) else None)
                    for item in arg.values():
                        scan(item)
                elif isinstance(arg, list):
                    for item in arg:
                        scan(item)
            for node in self.graph["nodes"]:
                scan(node.get("args"))
                scan(node.get("kwargs"))
            scan(self.graph["outputs"])
            self._read_results = read
        return self._read_results

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

    def builtin_call(self, op_name, operands, scalars, shape, elem):
        """A call of the runtime's built-in extern `op_name` ("gp::...") on
        the tensors `operands` and the scalars `scalars` ((value, "f64" or
        "i64"), in order after them), giving a fresh tensor of `shape` and
        `elem`: a private declaration per signature (gp_<op>_N), which
        gp-import makes a gp.fallback writing and aliasing nothing."""
        types = [v.type for v in operands] + [t for _, t in scalars]
        result_type = tensor_type(shape, elem)
        signature = (op_name, tuple(types), result_type)
        symbol = self.builtin_symbols.get(signature)
        if symbol is None:
            symbol = "gp_%s_%d" % (op_name.split("::")[-1], sum(
                1 for s in self.builtin_symbols if s[0] == op_name))
            self.builtin_symbols[signature] = symbol
            # bufferization.access = "read": upstream bufferization would
            # otherwise assume the call writes its tensor operands and copy
            # each one still read later (a shared mask, every layer).
            arguments = [t + (' {bufferization.access = "read"}'
                              if t.startswith("tensor") else "")
                         for t in types]
            self.decls[symbol] = (
                'func.func private @%s(%s) -> %s\n    attributes '
                '{gp.op_name = "%s", gp.mutates = [], gp.aliases = [-1], '
                'gp.tags = []}' % (symbol, ", ".join(arguments), result_type,
                                   op_name))
        names = []
        for value, kind in scalars:
            names.append(self.fresh("c"))
            # f64 scalars exactly (repr's 17 digits), not literal()'s f32.
            text = "%d" % value if kind == "i64" else "%.17e" % value
            self.emit("%s = arith.constant %s : %s" % (names[-1], text,
                                                       kind))
        name = self.fresh("call")
        self.emit("%s = func.call @%s(%s) : (%s) -> %s" % (
            name, symbol, ", ".join([v.name for v in operands] + names),
            ", ".join(types), result_type))
        return Value(name, shape, elem=elem)

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
        for o in outputs:
            if o["dtype"] not in ELEMENT_TYPES:
                raise self.error("result element type %s is not supported "
                                 "(%s tensors)" % (o["dtype"], SUPPORTED_TEXT))
            if o["dtype"] in NARROW_INTS:
                raise self.error("custom ops giving %s tensors are not "
                                 "supported (only int64 integers)"
                                 % o["dtype"])
        narrow = [(a["node"], a.get("index")) for a in node.get("args", [])
                  if (a.get("node"), a.get("index")) in self.narrow]
        if narrow:
            raise self.error("custom ops taking %s tensors ('%s') are not "
                             "supported (only int64 integers)"
                             % (self.narrow[narrow[0]], narrow[0][0]))
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


def convert(graph, constants, device="cuda:0", inline_limit=INLINE_LIMIT,
            fuse_attention=True):
    """The MLIR text of `graph`'s function (see the module comment)."""
    return convert_program(graph, constants, device, inline_limit,
                           fuse_attention)[0]


def convert_program(graph, constants, device="cuda:0",
                    inline_limit=INLINE_LIMIT, fuse_attention=True):
    """(MLIR text, the positions of the inputs the program writes in
    place, whose final values follow the outputs as extra results, and
    the function's parameters in argument order: (parameter name, graph
    node name, "parameter" for a module's state or "constant")).
    `fuse_attention`: attention written out (matmul, scale, mask,
    softmax, matmul) becomes one call of the runtime's gp::attention
    (fuse_attention.py)."""
    check(graph)
    if fuse_attention:
        graph = attention_fusion.fuse(graph, constants)
    converter = Converter(graph, constants, device, inline_limit)
    text = converter.convert()
    return text, converter.mutated_inputs, converter.parameters
