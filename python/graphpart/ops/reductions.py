"""Reductions over dimensions: sum, mean, amax/amin, prod, any/all,
var/std, vector norms, logsumexp, softmax and log_softmax, argmax/argmin
and max/min along a dimension, cumulative sums and products, and topk and
sort (rounds of arg reductions). Most are `c.reduce` with elementwise steps
around it; arg_reduce writes its own two-result linalg.generic.
"""
import math

from .common import (HALF_TYPES, Unusable, Value, dims_arg, dims_map,
                     float_literal, from_product, is_static, literal, op2,
                     product, tensor_type)
from .pointwise import binary
from .views import cat_values, sliced


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


def cumulative(kind):
    """cumsum / cumprod / cummax / cummin (whose indices are not computed)
    along a dimension (static length): each output element reduces the
    inputs at and before it (a generic over (..., i,
    j) masked to j <= i; quadratic in the length, for sequence-length
    scans such as position ids from an attention mask)."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        dim = (args[1] if len(args) > 1 else kwargs["dim"]) % len(x.shape)
        out = cumulate(c, x, dim, kind)
        if kind in ("max", "min"):
            return [out, Unusable("cum%s's indices are not computed" % kind)]
        return out
    return convert


def cumulate(c, x, dim, kind):
    """cumsum / cumprod / cummax / cummin of `x` along `dim`."""
    rank = len(x.shape)
    if not is_static(x.shape[dim]):
        raise c.error("a cumulative op along a symbolic size is not "
                      "supported")
    elem = "i64" if x.elem in ("i1", "i64") else "f32"
    x = c.cast(x, elem) if x.elem != elem and x.elem not in \
        HALF_TYPES else x
    j = "d%d" % rank
    in_exprs = ["d%d" % i if i != dim else j for i in range(rank)]
    window = Value(c.empty([x.shape[dim]]), [x.shape[dim]])
    neutral = {("sum", "f32"): 0, ("sum", "i64"): 0,
               ("prod", "f32"): 1, ("prod", "i64"): 1,
               ("max", "f32"): -math.inf, ("max", "i64"): -2 ** 63,
               ("min", "f32"): math.inf,
               ("min", "i64"): 2 ** 63 - 1}[(kind, elem)]
    init = c.filled(x.shape, neutral, elem, device=x.device)
    op = {("sum", "f32"): "arith.addf", ("sum", "i64"): "arith.addi",
          ("prod", "f32"): "arith.mulf",
          ("prod", "i64"): "arith.muli",
          ("max", "f32"): "arith.maximumf", ("max", "i64"): "arith.maxsi",
          ("min", "f32"): "arith.minimumf",
          ("min", "i64"): "arith.minsi"}[(kind, elem)]

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


def logcumsumexp(c, args, kwargs):
    """log(cumsum(exp(x))) along a dimension, shifted by the dimension's
    maximum so that no exp overflows."""
    x = c.cast(c.value(args[0]), "f32")
    rank = len(x.shape)
    dim = (args[1] if len(args) > 1 else kwargs["dim"]) % rank
    high = c.keepdim(c.reduce(x, [dim], "max"), x.shape, [dim])
    # A row of -inf only keeps -inf (no NaN from -inf - -inf).
    shifted = c.elementwise([x, high], lambda n: (
        ["%%ninf = arith.constant %s : f32" % float_literal(-math.inf),
         "%%empty = arith.cmpf oeq, %s, %%ninf : f32" % n[1],
         "%zero = arith.constant 0.000000000e+00 : f32",
         "%%m = arith.select %%empty, %%zero, %s : f32" % n[1],
         "%%d = arith.subf %s, %%m : f32" % n[0],
         "%r = math.exp %d : f32"], "%r"))
    total = cumulate(c, shifted, dim, "sum")
    return c.elementwise([total, high], lambda n: (
        ["%%ninf = arith.constant %s : f32" % float_literal(-math.inf),
         "%%empty = arith.cmpf oeq, %s, %%ninf : f32" % n[1],
         "%zero = arith.constant 0.000000000e+00 : f32",
         "%%m = arith.select %%empty, %%zero, %s : f32" % n[1],
         "%%l = math.log %s : f32" % n[0],
         "%r = arith.addf %l, %m : f32"], "%r"))


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
    return top_values(c, x, k, dim, largest)


def top_values(c, x, k, dim, largest):
    """The k largest (or smallest) values of `x` along `dim` and their
    int64 indices, in order (topk)."""
    rank = len(x.shape)
    if not isinstance(k, int) or not 0 <= k <= 64:
        raise c.error("topk needs a static k of at most 64, got %r" % (k,))
    if x.elem not in ("f32", "i64") + HALF_TYPES:
        raise c.error("topk of %s tensors is not supported" % x.elem)
    # int64 stays int64 (f32 would round values past 2^24).
    elem = "i64" if x.elem == "i64" else "f32"
    work = c.cast(x, elem)
    if elem == "f32":
        masked = float_literal(-math.inf if largest else math.inf)
    else:
        masked = str(-2 ** 63 if largest else 2 ** 63 - 1)
    values, indices = [], []
    for _ in range(k):
        value, index = arg_reduce(c, work, dim, largest)
        values.append(c.keepdim(value, work.shape, [dim]))
        indices.append(c.keepdim(index, work.shape, [dim]))
        wide = indices[-1]

        def body(a, o, dim=dim):
            return ["%%i = linalg.index %d : index" % dim,
                    "%ii = arith.index_cast %i : index to i64",
                    "%%hit = arith.cmpi eq, %%ii, %s : i64" % a[1],
                    "%%gone = arith.constant %s : %s" % (masked, elem),
                    "%%r = arith.select %%hit, %%gone, %s : %s" % (a[0], elem)
                    ], "%r"
        work = c.generic(work.shape, [
            (work, ["d%d" % i for i in range(rank)]),
            (wide, ["0" if i == dim else "d%d" % i for i in range(rank)])],
            body, out_elem=elem)
    if k == 0:
        shape = list(x.shape)
        shape[dim] = 0
        return [Value(c.filled(shape, 0.0 if elem == "f32" else 0, elem),
                      shape, elem=elem),
                Value(c.filled(shape, 0, "i64"), shape, elem="i64")]
    return [cat_values(c, values, dim), cat_values(c, indices, dim)]


def kth_smallest(kind):
    """kthvalue(x, k, dim=-1, keepdim=False) and median(x, dim, keepdim)
    (the lower median, the ((n - 1) // 2 + 1)-th smallest) with their
    int64 indices; median(x) of all elements, a 0-d value. The k smallest
    are found as topk finds them (at most 64 along the dimension)."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        rest = list(args[1:])
        if kind == "kthvalue":
            k = rest.pop(0) if rest else kwargs.get("k")
        whole = kind == "median" and not rest and "dim" not in kwargs
        if whole:
            x = c.reshape(x, [from_product(product(x.shape))])
            dim, keep = 0, False
        else:
            dim = rest[0] if rest else kwargs.get("dim", -1)
            keep = rest[1] if len(rest) > 1 else kwargs.get("keepdim", False)
        rank = len(x.shape)
        dim %= rank
        n = x.shape[dim]
        if not is_static(n) or n > 64:
            raise c.error("%s along %s elements is not supported (a static "
                          "size of at most 64)" % (kind, n))
        if kind == "median":
            k = (n - 1) // 2 + 1
        if not isinstance(k, int) or not 1 <= k <= n:
            raise c.error("kthvalue's k is %r, outside [1, %d]" % (k, n))
        values, indices = top_values(c, x, k, dim, False)
        picked = [sliced(c, v, dim, k - 1, k, 1) for v in (values, indices)]
        shape = [s for i, s in enumerate(x.shape) if i != dim]
        if keep:
            shape = [1 if i == dim else s for i, s in enumerate(x.shape)]
        picked = [c.reshape(v, shape) for v in picked]
        return picked[0] if whole else picked
    return convert


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


def nan_reduction(mean):
    """nansum / nanmean: NaNs count as absent (0 in the sum, not counted
    for the mean)."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        dims = dims_arg(args[1] if len(args) > 1 else kwargs.get("dim"),
                        len(x.shape))
        keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        if x.elem in ("i1", "i64"):
            r = c.reduce(x, dims, "sum")
            if mean:
                raise c.error("nanmean of %s tensors (PyTorch refuses it too)"
                              % x.elem)
        else:
            present = c.elementwise([x], lambda n: (
                ["%zero = arith.constant 0.000000000e+00 : f32",
                 "%%nan = arith.cmpf uno, %s, %s : f32" % (n[0], n[0]),
                 "%%r = arith.select %%nan, %%zero, %s : f32" % n[0]], "%r"))
            r = c.reduce(present, dims, "sum")
            if mean:
                counted = c.elementwise([x], lambda n: (
                    ["%zero = arith.constant 0.000000000e+00 : f32",
                     "%one = arith.constant 1.000000000e+00 : f32",
                     "%%nan = arith.cmpf uno, %s, %s : f32" % (n[0], n[0]),
                     "%r = arith.select %nan, %zero, %one : f32"], "%r"))
                count = c.reduce(counted, dims, "sum")
                r = c.elementwise([r, count], lambda n: op2("arith.divf", n))
        return c.keepdim(r, x.shape, dims) if keep else r
    return convert


def count_nonzero(c, args, kwargs):
    """The number of non-zero elements over `dim` (all when none), int64."""
    x = c.value(args[0])
    dims = dims_arg(args[1] if len(args) > 1 else kwargs.get("dim"),
                    len(x.shape))
    if x.elem in ("i1", "i64"):
        nonzero = c.elementwise([x, 0], lambda n: (
            ["%%r = arith.cmpi ne, %s, %s : i64" % tuple(n)], "%r"),
            out_elem="i1", scalar_elem="i64")
    else:
        nonzero = c.elementwise([x, 0.0], lambda n: (
            ["%%r = arith.cmpf une, %s, %s : f32" % tuple(n)], "%r"),
            out_elem="i1")
    return c.reduce(nonzero, dims, "sum")


def repeat_interleave(c, args, kwargs):
    """repeat_interleave(repeats) of a 1-D int64 tensor (what
    x.repeat_interleave(n, dim) records before index_select): index k
    repeated repeats[k] times. Element i is the number of inclusive
    prefix sums of repeats at or below i; the output's length is the one
    the graph records, and a call whose counts sum to another length fails
    (through the index checks: "outside [n, n + 1)") rather than drop or
    invent elements."""
    repeats = c.value(args[0])
    if len(repeats.shape) != 1 or repeats.elem != "i64":
        raise c.error("repeat_interleave of a 1-D int64 tensor of counts")
    (output,) = c.node["outputs"]
    length = output["shape"][0]
    ends = cumulate(c, repeats, 0, "sum")
    if is_static(length) and is_static(repeats.shape[0]):
        total = c.reshape(sliced(c, ends, 0, repeats.shape[0] - 1,
                                 repeats.shape[0], 1), [1]) \
            if repeats.shape[0] else c.reshape(
                Value(c.filled([1], 0, "i64"), [1], elem="i64"), [1])
        c.check_indices(total, length + 1, lo=length)
    init = c.filled([length], 0, "i64", device=repeats.device)

    def body(a, o):
        return ["%i = linalg.index 0 : index",
                "%ii = arith.index_cast %i : index to i64",
                "%%past = arith.cmpi sle, %s, %%ii : i64" % a[0],
                "%one = arith.constant 1 : i64",
                "%zero = arith.constant 0 : i64",
                "%step = arith.select %past, %one, %zero : i64",
                "%%r = arith.addi %s, %%step : i64" % o], "%r"
    return c.generic([length], [(ends, ["d1"])], body, init=init,
                     iterators=["parallel", "reduction"], out_map=["d0"],
                     out_elem="i64")
