"""Host scalars: `.item()` (aten::_local_scalar_dense) reads the one
element of a tensor as a Scalar that later ops take (and, for a
data-dependent size, the value of its symbol); the Python arithmetic
torch.export records on such values (`python::NAME`, HOST_SCALAR_OPS) is
computed in f32 on the host.
"""
from .common import HALF_TYPES, Scalar, Value, from_product, product


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
