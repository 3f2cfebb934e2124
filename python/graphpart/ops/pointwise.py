"""Elementwise ops: arithmetic (in f32, or in i64 where PyTorch keeps
integers), comparisons and where, bitwise and logical ops, clamps,
activations (gelu, silu, softplus, elu, hardsigmoid, mish...) and the
float math functions. Each is a `c.elementwise` over operands broadcast
like PyTorch's; the converter rounds the result to the node's dtype.
"""
import math

from .common import Value, float_literal, op2
from .views import sliced


def unary(compute):
    """An elementwise op of one operand and nothing else: an argument it
    would not read (an overload's option, say) is an error, never dropped."""
    def convert(c, args, kwargs):
        if len(args) != 1 or kwargs:
            raise c.error("takes one operand; arguments %s and options %s "
                          "are not understood" % (args[1:], sorted(kwargs)))
        return c.elementwise([c.operand(args[0])], compute)
    return convert


def round_op(c, args, kwargs):
    """round(x), ties to even, or round(x, decimals=d) as PyTorch computes
    it: x * 10^d rounded, divided by 10^d (d < 0: x / 10^-d, times it)."""
    decimals = args[1] if len(args) > 1 else kwargs.get("decimals", 0)
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise c.error("decimals must be an int, got %r" % (decimals,))
    x = c.operand(args[0])
    if decimals == 0:
        return c.elementwise([x], lambda n: (
            ["%%r = math.roundeven %s : f32" % n[0]], "%r"))
    scale = float_literal(10.0 ** abs(decimals))
    inward, outward = ("arith.mulf", "arith.divf") if decimals > 0 else (
        "arith.divf", "arith.mulf")
    return c.elementwise([x], lambda n: ([
        "%%s = arith.constant %s : f32" % scale,
        "%%t = %s %s, %%s : f32" % (inward, n[0]),
        "%u = math.roundeven %t : f32",
        "%%r = %s %%u, %%s : f32" % outward], "%r"))


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


def erfc_lines(x, r):
    """erfc from erf_lines' approximation without its 1 - ...: the tail
    itself for x >= 0 (no cancellation), 2 - tail below."""
    lines = erf_lines(x, r + "_e")[:-2]
    return lines + ["%s_zero = arith.constant 0.000000000e+00 : f32" % r,
                    "%s_two = arith.constant 2.000000000e+00 : f32" % r,
                    "%s_lo = arith.subf %s_two, %s_e_pe : f32" % (r, r, r),
                    "%s_neg = arith.cmpf olt, %s, %s_zero : f32" % (r, x, r),
                    "%s = arith.select %s_neg, %s_lo, %s_e_pe : f32"
                    % (r, r, r, r)]


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


def rrelu_with_noise(c, args, kwargs):
    """rrelu out of training (F.rrelu(training=False)): leaky_relu with the
    mean of the slopes' range, (lower + upper) / 2. In training the slopes
    are random draws written to `noise`, which is refused."""
    lower = float(args[2] if len(args) > 2 else kwargs.get("lower", 1 / 8))
    upper = float(args[3] if len(args) > 3 else kwargs.get("upper", 1 / 3))
    training = args[4] if len(args) > 4 else kwargs.get("training", False)
    if training:
        raise c.error("rrelu in training draws random slopes; export the "
                      "model in eval mode")
    return leaky_relu(c, [args[0], (lower + upper) / 2], {})


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


def bitwise(op, booleans=True):
    """bitwise_and/or/xor of bools or int64s (and ints beside them); the
    shifts (`booleans` false) of int64s."""
    def convert(c, args, kwargs):
        values = [c.value(a) for a in args[:2] if isinstance(a, dict)]
        if booleans and all(v.elem == "i1" for v in values) and all(
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


def celu(c, args, kwargs):
    """celu(x, alpha) = elu(x, alpha, input_scale=1/alpha), as PyTorch
    computes it (alpha 0 is refused there too)."""
    alpha = float(args[1] if len(args) > 1 else kwargs.get("alpha", 1.0))
    if alpha == 0:
        raise c.error("ZeroDivisionError: alpha cannot be 0 for CELU")
    return elu(c, [args[0], alpha, 1.0, 1.0 / alpha], {})


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


# -- More float ops: interpolation, fused multiply-adds, classification,
# shrinkage. Operands are tensors or numbers, computed in f32.

def float_op(names, lines):
    """An elementwise op of the operands named `names` (positional, then
    keyword, with a number as default where the schema has one); `lines(n)`
    gives its body on the operands' scalar names."""
    def convert(c, args, kwargs):
        operands = []
        for i, (name, default) in enumerate(names):
            value = args[i] if len(args) > i else kwargs.get(name, default)
            if value is None:
                raise c.error("operand '%s' is missing" % name)
            operands.append(c.operand(value) if isinstance(value, dict)
                            else float(value))
        if not any(isinstance(v, Value) for v in operands):
            raise c.error("needs a tensor operand")
        return c.elementwise(operands, lambda n: (lines(n), "%r"))
    return convert


def lerp_lines(n):
    return ["%%d = arith.subf %s, %s : f32" % (n[1], n[0]),
            "%%w = arith.mulf %s, %%d : f32" % n[2],
            "%%r = arith.addf %s, %%w : f32" % n[0]]


def addc_lines(op):
    """self + value * (t1 `op` t2): addcmul, addcdiv."""
    return lambda n: ["%%p = %s %s, %s : f32" % (op, n[1], n[2]),
                      "%%s = arith.mulf %s, %%p : f32" % n[3],
                      "%%r = arith.addf %s, %%s : f32" % n[0]]


def hypot_lines(n):
    return ["%%a = arith.mulf %s, %s : f32" % (n[0], n[0]),
            "%%b = arith.mulf %s, %s : f32" % (n[1], n[1]),
            "%s = arith.addf %a, %b : f32",
            "%r = math.sqrt %s : f32"]


def frac_lines(n):
    return ["%%t = math.trunc %s : f32" % n[0],
            "%%r = arith.subf %s, %%t : f32" % n[0]]


def xlogy_lines(n):
    """x * log(y), 0 where x is 0 (and y is not NaN), as PyTorch."""
    return ["%%l = math.log %s : f32" % n[1],
            "%%p = arith.mulf %s, %%l : f32" % n[0],
            "%zero = arith.constant 0.000000000e+00 : f32",
            "%%x0 = arith.cmpf oeq, %s, %%zero : f32" % n[0],
            "%%ynan = arith.cmpf uno, %s, %s : f32" % (n[1], n[1]),
            "%true = arith.constant true",
            "%notnan = arith.xori %ynan, %true : i1",
            "%use0 = arith.andi %x0, %notnan : i1",
            "%r = arith.select %use0, %zero, %p : f32"]


def logaddexp_lines(base2):
    """logaddexp: max + log1p(exp(-|a - b|)); logaddexp2: log2(2^a + 2^b),
    max + log1p(2^-|a - b|) / ln 2. Equal infinities give themselves."""
    def lines(n):
        body = ["%%m = arith.maximumf %s, %s : f32" % (n[0], n[1]),
                "%%d = arith.subf %s, %s : f32" % (n[0], n[1]),
                "%ad = math.absf %d : f32",
                "%nd = arith.negf %ad : f32",
                "%%e = math.%s %%nd : f32" % ("exp2" if base2 else "exp"),
                "%l = math.log1p %e : f32"]
        log = "%l"
        if base2:
            body += ["%ln2 = arith.constant 1.44269504088896340736 : f32",
                     "%l2 = arith.mulf %l, %ln2 : f32"]
            log = "%l2"
        return body + ["%%s = arith.addf %%m, %s : f32" % log,
                       "%%same = arith.cmpf oeq, %s, %s : f32" % (n[0], n[1]),
                       "%r = arith.select %same, %m, %s : f32"]
    return lines


def shrink_lines(soft):
    """softshrink (x -+ lambda outside [-lambda, lambda]) and hardshrink
    (x outside it), 0 inside."""
    def lines(n):
        body = ["%zero = arith.constant 0.000000000e+00 : f32",
                "%%nl = arith.negf %s : f32" % n[1],
                "%%above = arith.cmpf ogt, %s, %s : f32" % (n[0], n[1]),
                "%%below = arith.cmpf olt, %s, %%nl : f32" % n[0]]
        if soft:
            body += ["%%hi = arith.subf %s, %s : f32" % (n[0], n[1]),
                     "%%lo = arith.addf %s, %s : f32" % (n[0], n[1]),
                     "%b = arith.select %below, %lo, %zero : f32",
                     "%r = arith.select %above, %hi, %b : f32"]
        else:
            body += ["%outside = arith.ori %above, %below : i1",
                     "%%r = arith.select %%outside, %s, %%zero : f32" % n[0]]
        return body
    return lines


def logit(c, args, kwargs):
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given."""
    eps = args[1] if len(args) > 1 else kwargs.get("eps")
    x = c.value(args[0])

    def lines(n):
        body, v = [], n[0]
        if eps is not None:
            body = ["%%lo = arith.constant %s : f32" % float_literal(eps),
                    "%%hi = arith.constant %s : f32" % float_literal(
                        1.0 - eps),
                    "%%v0 = arith.maximumf %s, %%lo : f32" % v,
                    "%v = arith.minimumf %v0, %hi : f32"]
            v = "%v"
        return body + ["%one = arith.constant 1.000000000e+00 : f32",
                       "%%q = arith.subf %%one, %s : f32" % v,
                       "%%f = arith.divf %s, %%q : f32" % v,
                       "%r = math.log %f : f32"], "%r"
    return c.elementwise([x], lines)


# The largest finite value of each float type (nan_to_num's defaults).
FLOAT_MAX = {"f32": 3.4028234663852886e38, "f16": 65504.0,
             "bf16": 3.3895313892515355e38}


def nan_to_num(c, args, kwargs):
    x = c.value(args[0])
    given = dict(zip(["nan", "posinf", "neginf"], args[1:]))
    given.update(kwargs)
    if x.elem not in FLOAT_MAX:
        return x
    nan = float(given.get("nan") or 0.0)
    high = given.get("posinf")
    high = FLOAT_MAX[x.elem] if high is None else float(high)
    low = given.get("neginf")
    low = -FLOAT_MAX[x.elem] if low is None else float(low)

    def lines(n):
        return ["%%nan = arith.constant %s : f32" % float_literal(nan),
                "%%hi = arith.constant %s : f32" % float_literal(high),
                "%%lo = arith.constant %s : f32" % float_literal(low),
                "%%inf = arith.constant %s : f32" % float_literal(math.inf),
                "%ninf = arith.constant " + float_literal(-math.inf) +
                " : f32",
                "%%isnan = arith.cmpf uno, %s, %s : f32" % (n[0], n[0]),
                "%%ispos = arith.cmpf oeq, %s, %%inf : f32" % n[0],
                "%%isneg = arith.cmpf oeq, %s, %%ninf : f32" % n[0],
                "%%a = arith.select %%isnan, %%nan, %s : f32" % n[0],
                "%b = arith.select %ispos, %hi, %a : f32",
                "%r = arith.select %isneg, %lo, %b : f32"], "%r"
    return c.elementwise([x], lines)


def classify(kind):
    """isnan / isinf / isposinf / isneginf: bool tensors."""
    def convert(c, args, kwargs):
        x = c.value(args[0])

        def lines(n):
            inf = float_literal(math.inf)
            return {
                "nan": ["%%r = arith.cmpf uno, %s, %s : f32" % (n[0], n[0])],
                "inf": ["%%a = math.absf %s : f32" % n[0],
                        "%%inf = arith.constant %s : f32" % inf,
                        "%r = arith.cmpf oeq, %a, %inf : f32"],
                "posinf": ["%%inf = arith.constant %s : f32" % inf,
                           "%%r = arith.cmpf oeq, %s, %%inf : f32" % n[0]],
                "neginf": ["%%inf = arith.constant %s : f32"
                           % float_literal(-math.inf),
                           "%%r = arith.cmpf oeq, %s, %%inf : f32" % n[0]],
            }[kind], "%r"
        if x.elem in ("i1", "i64"):
            # Integers are never NaN or infinite.
            return c.elementwise([x, 0.0], lambda n: ([
                "%%r = arith.cmpf une, %s, %s : f32" % (n[1], n[1])], "%r"),
                out_elem="i1")
        return c.elementwise([x], lines, out_elem="i1")
    return convert


def glu(c, args, kwargs):
    """First half of `dim` times the sigmoid of the second half."""
    x = c.value(args[0])
    dim = args[1] if len(args) > 1 else kwargs.get("dim", -1)
    dim = dim % len(x.shape)
    size = x.shape[dim]
    if not isinstance(size, int) or size % 2:
        raise c.error("glu halves dimension %d, of size %s" % (dim, size))
    a = sliced(c, x, dim, 0, size // 2, 1)
    b = sliced(c, x, dim, size // 2, size, 1)
    return c.elementwise([a, b], lambda n: (
        sigmoid_lines(n[1], "%sig") +
        ["%%r = arith.mulf %s, %%sig : f32" % n[0]],
        "%r"))


def heaviside(c, args, kwargs):
    """1 above 0, 0 below, `values` at 0 (NaN stays NaN)."""
    return c.elementwise([c.operand(args[0]), c.operand(args[1])], lambda n: (
        ["%zero = arith.constant 0.000000000e+00 : f32",
         "%one = arith.constant 1.000000000e+00 : f32",
         "%%pos = arith.cmpf ogt, %s, %%zero : f32" % n[0],
         "%%at = arith.cmpf oeq, %s, %%zero : f32" % n[0],
         "%%nan = arith.cmpf uno, %s, %s : f32" % (n[0], n[0]),
         "%step = arith.select %pos, %one, %zero : f32",
         "%%h = arith.select %%at, %s, %%step : f32" % n[1],
         "%%r = arith.select %%nan, %s, %%h : f32" % n[0]], "%r"))


def threshold(c, args, kwargs):
    """x where x > threshold, else value."""
    limit = float(args[1] if len(args) > 1 else kwargs["threshold"])
    value = float(args[2] if len(args) > 2 else kwargs["value"])
    return c.elementwise([c.value(args[0]), limit, value], lambda n: (
        ["%%above = arith.cmpf ogt, %s, %s : f32" % (n[0], n[1]),
         "%%r = arith.select %%above, %s, %s : f32" % (n[0], n[2])], "%r"))


def prelu(c, args, kwargs):
    """x above 0, weight * x below. aten::prelu's weight is one value or
    one per channel (dimension 1); aten::_prelu_kernel's (PyTorch 2) is
    already shaped to broadcast."""
    x, weight = c.value(args[0]), c.value(args[1])
    if len(weight.shape) == 1 and weight.shape[0] != 1 and len(x.shape) >= 2:
        shape = [1] * len(x.shape)
        shape[1] = weight.shape[0]
        weight = c.reshape(weight, shape)
    return c.elementwise([x, weight], lambda n: (
        ["%zero = arith.constant 0.000000000e+00 : f32",
         "%%pos = arith.cmpf ogt, %s, %%zero : f32" % n[0],
         "%%scaled = arith.mulf %s, %s : f32" % (n[0], n[1]),
         "%%r = arith.select %%pos, %s, %%scaled : f32" % n[0]], "%r"))


def copysign_lines(n):
    return ["%%r = math.copysign %s, %s : f32" % (n[0], n[1])]


def signbit_lines(n):
    """The sign bit itself: true for -0.0 and negative NaNs too."""
    return ["%%bits = arith.bitcast %s : f32 to i32" % n[0],
            "%zero = arith.constant 0 : i32",
            "%r = arith.cmpi slt, %bits, %zero : i32"]


def ldexp_lines(n):
    """x * 2^e."""
    return ["%%p = math.exp2 %s : f32" % n[1],
            "%%r = arith.mulf %s, %%p : f32" % n[0]]


def signbit(c, args, kwargs):
    x = c.value(args[0])
    if x.elem in ("i1", "i64"):
        return c.elementwise([x, 0], lambda n: (
            ["%%r = arith.cmpi slt, %s, %s : i64" % tuple(n)], "%r"),
            out_elem="i1", scalar_elem="i64")
    return c.elementwise([x], lambda n: (signbit_lines(n), "%r"),
                         out_elem="i1")


# Giles' single-precision erfinv ("Approximating the erfinv function",
# GPU Computing Gems, 2011): a polynomial in w = -log(1 - x^2), one for
# w < 5 (in w - 2.5) and one beyond (in sqrt(w) - 3).
ERFINV_CENTRAL = [2.81022636e-08, 3.43273939e-07, -3.5233877e-06,
                  -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941]
ERFINV_TAIL = [-0.000200214257, 0.000100950558, 0.00134934322,
               -0.00367342844, 0.00573950773, -0.0076224613,
               0.00943887047, 1.00167406, 2.83297682]


def erfinv_lines(n):
    """erfinv(x): +-inf at +-1, NaN outside [-1, 1]."""
    x = n[0]
    lines = ["%one = arith.constant 1.000000000e+00 : f32",
             "%%omx = arith.subf %%one, %s : f32" % x,
             "%%opx = arith.addf %%one, %s : f32" % x,
             "%prod = arith.mulf %omx, %opx : f32",
             "%lg = math.log %prod : f32",
             "%w = arith.negf %lg : f32",
             "%c25 = arith.constant 2.500000000e+00 : f32",
             "%wc = arith.subf %w, %c25 : f32",
             "%sw = math.sqrt %w : f32",
             "%c3 = arith.constant 3.000000000e+00 : f32",
             "%wt = arith.subf %sw, %c3 : f32"]
    for branch, coefficients, var in (("pc", ERFINV_CENTRAL, "%wc"),
                                      ("pt", ERFINV_TAIL, "%wt")):
        acc = None
        for i, coefficient in enumerate(coefficients):
            lines.append("%%%s_k%d = arith.constant %s : f32"
                         % (branch, i, float_literal(coefficient)))
            if acc is None:
                acc = "%%%s_k%d" % (branch, i)
                continue
            lines += ["%%%s_m%d = arith.mulf %s, %s : f32"
                      % (branch, i, acc, var),
                      "%%%s_a%d = arith.addf %%%s_k%d, %%%s_m%d : f32"
                      % (branch, i, branch, i, branch, i)]
            acc = "%%%s_a%d" % (branch, i)
        lines.append("%%%s = arith.mulf %s, %s : f32" % (branch, acc, x))
    lines += ["%c5 = arith.constant 5.000000000e+00 : f32",
              "%central = arith.cmpf olt, %w, %c5 : f32",
              "%p = arith.select %central, %pc, %pt : f32",
              "%%ax = math.absf %s : f32" % x,
              "%at_one = arith.cmpf oeq, %ax, %one : f32",
              "%%inf = arith.constant %s : f32" % float_literal(math.inf),
              "%%edge = math.copysign %%inf, %s : f32" % x,
              "%r = arith.select %at_one, %edge, %p : f32"]
    return lines
