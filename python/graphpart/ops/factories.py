"""Ops that make tensors or copy them: zeros/ones/empty/full with their
_like and new_ forms, fill, arange, random tensors (rand, randn, bernoulli:
calls that gp-import turns into graph-safe generators), and copies:
_to_copy (a dtype, or a move to another device), copy_ and its functional
form.
"""
from .common import ELEMENT_TYPES, Value, float_literal


def fill(c, args, kwargs):
    """fill(x, value) (fill_ in place): x's shape filled with a number or
    a one-element tensor."""
    x, value = c.value(args[0]), args[1]
    if isinstance(value, dict):
        v = c.value(value)
        return c.generic(x.shape, [(v, ["0"] * len(v.shape))],
                         lambda a, o: ([], a[0]), out_elem=x.elem)
    return filled_like(float(value))(c, args, kwargs)


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


def copy_functional(c, args, kwargs):
    """aten::copy (torch.export's functional copy_): a new tensor of dst's
    shape and dtype holding src."""
    result = copy(c, args, kwargs)
    return c.cast(result, c.value(args[0]).elem)


def copy(c, args, kwargs):
    """copy_(dst, src): src broadcast to dst's shape, in dst's dtype and on
    dst's device (the write itself: see check_inplace)."""
    dst, src = c.value(args[0]), c.value(args[1])
    src = c.move(src, dst.device)
    if src.shape == dst.shape and src.elem == dst.elem:
        return src  # Values do not change: the copy is src itself.
    return c.generic(dst.shape, [(src, c.broadcast_map(src.shape, dst.shape))],
                     lambda a, o: ([], a[0]), out_elem=src.elem)


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


def linspace(c, args, kwargs):
    """linspace(start, end, steps): as PyTorch computes it, the first half
    from start up and the second from end down by the step (end - start)
    / (steps - 1), in f32 (int64 results are those values truncated)."""
    start = args[0] if args else kwargs.get("start")
    end = args[1] if len(args) > 1 else kwargs.get("end")
    steps = args[2] if len(args) > 2 else kwargs.get("steps")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
               for v in (start, end)) or not isinstance(steps, int):
        raise c.error("linspace takes number bounds and a static step count")
    (output,) = c.node["outputs"]
    elem = ELEMENT_TYPES[output["dtype"]]
    init = c.empty(output["shape"], elem, c.gp_device(kwargs.get("device")))
    step = (float(end) - float(start)) / (steps - 1) if steps > 1 else 0.0

    def body(a, o):
        lines = ["%i = linalg.index 0 : index",
                 "%ii = arith.index_cast %i : index to i64",
                 "%%half = arith.constant %d : i64" % (steps // 2),
                 "%%last = arith.constant %d : i64" % (steps - 1),
                 "%low = arith.cmpi slt, %ii, %half : i64",
                 "%back = arith.subi %last, %ii : i64",
                 "%if = arith.sitofp %ii : i64 to f32",
                 "%bf = arith.sitofp %back : i64 to f32",
                 "%%step = arith.constant %s : f32" % float_literal(step),
                 "%%start = arith.constant %s : f32" % float_literal(start),
                 "%%end = arith.constant %s : f32" % float_literal(end),
                 "%up = arith.mulf %if, %step : f32",
                 "%from_start = arith.addf %start, %up : f32",
                 "%down = arith.mulf %bf, %step : f32",
                 "%from_end = arith.subf %end, %down : f32",
                 "%v = arith.select %low, %from_start, %from_end : f32"]
        if elem == "i64":
            return lines + ["%r = arith.fptosi %v : f32 to i64"], "%r"
        return lines, "%v"
    return c.generic(output["shape"], [], body, init=init, out_elem=elem)
