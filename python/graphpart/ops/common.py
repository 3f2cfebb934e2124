"""What the converter and the op conversions share: element types,
dimensions (ints or multiples of a symbol, "4*s0") and their products, the
MLIR spelling of types and literals, affine maps and broadcasting, the
values the converter computes with (Value, a tensor; Scalar, an `.item()`;
Unusable, a result it does not compute), and the smallest helpers of op
bodies (op2, dims_arg).
"""
import math
import struct

from ..elements import ELEMENTS

# The element types the converter takes (the graph format's name -> the
# manifest's, elements.py): tensors of these, and constants of them
# (stored as dense bytes).
ELEMENT_TYPES = {ELEMENTS[e].torch: e for e in ("f32", "f16", "bf16", "i1",
                                                "i64")}
# Signed integers narrower than int64 (int32 token ids, say) are computed
# as int64, wrapped to their width after each op that gives one (PyTorch's
# two's-complement arithmetic), and held in their own type only at the
# program's edges: inputs, outputs, parameters. The dtype -> the type
# stored there.
NARROW_INTS = {ELEMENTS[e].torch: e for e in ("i32", "i16", "i8")}
ELEMENT_TYPES.update({dtype: "i64" for dtype in NARROW_INTS})
CONSTANT_TYPES = tuple(ELEMENT_TYPES)
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
    """`value` as an MLIR constant of `elem`, written before ` : elem`
    (`arith.constant 1 : i1`: `true : i1` does not parse)."""
    if elem == "i64":
        return "%d" % int(value)
    if elem == "i1":
        return "1" if value else "0"
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


class Unusable:
    """A result the converter does not compute (max_pool's indices): a
    use of it is an error naming why."""

    def __init__(self, why):
        self.why = why


# -- op conversions ---------------------------------------------------------

def op2(op, n):
    """The block computing `op` of two scalars."""
    return ["%%r = %s %s, %s : f32" % (op, n[0], n[1])], "%r"


def dims_arg(arg, rank):
    if arg is None or arg == []:
        return list(range(rank))
    return [d % rank for d in (arg if isinstance(arg, list) else [arg])]
