"""Convolution, pooling and upsampling over the trailing spatial
dimensions: convolution (1-D to 3-D, any groups, stride, padding, dilation,
transposed too) as im2col and a matmul or as one direct linalg.generic,
max and average pooling, adaptive average pooling by whole factors, and
nearest and (bi/tri)linear upsampling.
"""
import itertools
import math

from .common import (HALF_TYPES, Unusable, Value, float_literal, from_product,
                     is_static, op2, product, tensor_type)


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
    output size, as in ResNet's global pooling) as a mean over a reshape;
    other sizes as PyTorch's uneven windows (uneven_windows)."""
    x = c.value(args[0])
    outputs = list(args[1])
    lead = len(x.shape) - len(outputs)
    if not evenly_divided(x, outputs):
        return uneven_windows(c, x, outputs, "avg")
    grouped, dims = adaptive_windows(c, x, outputs)
    total = c.reduce(grouped, dims, "sum")
    return c.elementwise([total, float(product_of(
        [x.shape[lead + i] // o for i, o in enumerate(outputs)]))],
        lambda n: op2("arith.divf", n))


def evenly_divided(x, outputs):
    lead = len(x.shape) - len(outputs)
    return all(is_static(x.shape[lead + i]) and x.shape[lead + i] % out == 0
               for i, out in enumerate(outputs))


def uneven_windows(c, x, outputs, kind):
    """Adaptive pooling ("avg" or "max") where an input size is not a
    multiple of the output's: window o of a dimension of size n pooled to
    m covers [floor(o n / m), ceil((o + 1) n / m)), as PyTorch cuts them
    (neighbouring windows may overlap). One generic over the outputs and
    the longest window, the input padded so every read is inside it and
    positions past a window's end masked out; a mean divides by each
    window's own element count."""
    x = c.cast(x, "f32")
    count = len(outputs)
    lead = len(x.shape) - count
    sizes = x.shape[lead:]
    if not all(is_static(s) for s in sizes):
        raise c.error("adaptive pooling over symbolic sizes %s" % sizes)

    def start(o, n, m):
        return o * n // m

    def end(o, n, m):
        return -(-(o + 1) * n // m)
    longest = [max(end(o, n, m) - start(o, n, m) for o in range(m))
               for n, m in zip(sizes, outputs)]
    neutral = 0.0 if kind == "avg" else -math.inf
    padded = pad_spatial(c, x, count, [0] * count,
                         [k - 1 for k in longest], neutral)
    out_shape = list(x.shape[:lead]) + outputs
    rank = len(out_shape)
    x_map = ["d%d" % i for i in range(lead)] + [
        "(d%d * %d) floordiv %d + d%d" % (lead + i, n, m, rank + i)
        for i, (n, m) in enumerate(zip(sizes, outputs))]

    def window_lines(i, n, m):
        """Lines leaving %len<i>: window i's length at this output."""
        o = "%%o%d" % i
        return ["%s = linalg.index %d : index" % (o, lead + i),
                "%%s%d = affine.apply affine_map<(d0) -> ((d0 * %d) floordiv "
                "%d)>(%s)" % (i, n, m, o),
                "%%e%d = affine.apply affine_map<(d0) -> ((d0 * %d + %d) "
                "floordiv %d)>(%s)" % (i, n, n + m - 1, m, o),
                "%%len%d = arith.subi %%e%d, %%s%d : index" % (i, i, i)]

    def body(a, o):
        lines, inside = [], []
        for i, (n, m) in enumerate(zip(sizes, outputs)):
            lines += window_lines(i, n, m)
            lines += ["%%k%d = linalg.index %d : index" % (i, rank + i),
                      "%%in%d_ = arith.cmpi slt, %%k%d, %%len%d : index"
                      % (i, i, i)]
            inside.append("%%in%d_" % i)
        mask = inside[0]
        for i, other in enumerate(inside[1:]):
            lines.append("%%both%d = arith.andi %s, %s : i1" % (i, mask,
                                                                other))
            mask = "%%both%d" % i
        lines += ["%%n = arith.constant %s : f32" % float_literal(neutral),
                  "%%v = arith.select %s, %s, %%n : f32" % (mask, a[0])]
        combine = "arith.addf" if kind == "avg" else "arith.maximumf"
        return lines + ["%%r = %s %s, %%v : f32" % (combine, o)], "%r"
    init = c.filled(out_shape, neutral, device=x.device)
    # The window's loops get their bounds from an operand of that shape.
    window = Value(c.empty(longest), longest)
    pooled = c.generic(out_shape, [(padded, x_map), (window, [
        "d%d" % (rank + i) for i in range(count)])], body, init=init,
                       iterators=["parallel"] * rank + ["reduction"] * count,
                       out_map=["d%d" % i for i in range(rank)])
    if kind == "max":
        return pooled

    def counts(a, o):
        lines, total = [], None
        for i, (n, m) in enumerate(zip(sizes, outputs)):
            lines += window_lines(i, n, m)
            lines.append("%%l%d = arith.index_cast %%len%d : index to i64"
                         % (i, i))
            lines.append("%%f%d = arith.sitofp %%l%d : i64 to f32" % (i, i))
            if total is None:
                total = "%%f%d" % i
            else:
                lines.append("%%t%d = arith.mulf %s, %%f%d : f32"
                             % (i, total, i))
                total = "%%t%d" % i
        return lines, total
    divisors = c.generic(out_shape, [], counts)
    return c.elementwise([pooled, divisors], lambda n: op2("arith.divf", n))


def adaptive_windows(c, x, outputs):
    """`x` (f32) reshaped so that each adaptive pooling window is a group
    of dimensions of its own, and those dimensions: even windows only (the
    input size a multiple of the output size)."""
    lead = len(x.shape) - len(outputs)
    shape, dims = list(x.shape[:lead]), []
    for i, out in enumerate(outputs):
        size = x.shape[lead + i]
        if not is_static(size) or size % out:
            raise c.error("adaptive pooling of %s to %s: only sizes that "
                          "are multiples of the output's are supported"
                          % (x.shape[lead:], outputs))
        shape += [out, size // out]
        dims.append(len(shape) - 1)
    return c.reshape(c.cast(x, "f32"), shape), dims


def adaptive_max_pool(c, args, kwargs):
    """adaptive_max_pool{1,2,3}d over even windows; the indices are not
    computed."""
    x = c.value(args[0])
    if not evenly_divided(x, list(args[1])):
        return [uneven_windows(c, x, list(args[1]), "max"),
                Unusable("adaptive max pooling's indices are not computed")]
    grouped, dims = adaptive_windows(c, x, list(args[1]))
    return [c.reduce(grouped, dims, "max"),
            Unusable("adaptive max pooling's indices are not computed")]


def product_of(values):
    total = 1
    for v in values:
        total *= v
    return total


def upsample_nearest(c, args, kwargs, exact=False):
    """upsample_nearest{1,2,3}d (and .vec): out[o] = x[floor(o * scale)]
    per spatial dimension, scale = in / out (or 1 / the scale factor given);
    nearest-exact (`exact`): x[floor((o + 0.5) * scale)]. Whole factors
    either way: up by k, o floordiv k for both; down by f, o * f (exact:
    o * f + f floordiv 2)."""
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
        given = scales[i] if scales is not None else None
        if given is not None:
            up = float(given) if float(given).is_integer() else None
            down = 1.0 / float(given) if float(given) > 0 and (
                1.0 / float(given)).is_integer() else None
        else:
            up = out // size if size and out % size == 0 else None
            down = size // out if out and size % out == 0 else None
        d = "d%d" % (2 + i)
        if up is not None and up >= 1:
            exprs.append("%s floordiv %d" % (d, int(up)))
        elif down is not None:
            down = int(down)
            exprs.append("%s * %d + %d" % (d, down, down // 2 if exact else 0))
        else:
            return nearest_gather(c, x, out_shape, scales, exact)
    return c.generic(out_shape, [(x, exprs)], lambda a, o: ([], a[0]),
                     out_elem=x.elem)


def nearest_gather(c, x, out_shape, scales, exact):
    """Nearest resampling by any factor, as PyTorch computes the source
    index in f32: min(floor(o * scale), in - 1), nearest-exact
    min(floor((o + 0.5) * scale), in - 1), scale = 1 / the scale factor
    given, else in / out (an output twice the input: o / 2)."""
    sizes = x.shape[2:]

    def body(a, o):
        lines, at = [], []
        for axis, size in enumerate(sizes):
            t = "a%d" % axis
            out = out_shape[2 + axis]
            lines.append("%%%s_i = linalg.index %d : index" % (t, 2 + axis))
            if out == size or (out == 2 * size and not exact):
                if out == size:
                    at.append("%%%s_i" % t)
                else:
                    lines += ["%%%s_two = arith.constant 2 : index" % t,
                              "%%%s_x = arith.divui %%%s_i, %%%s_two : index"
                              % (t, t, t)]
                    at.append("%%%s_x" % t)
                continue
            given = scales[axis] if scales is not None else None
            scale = 1.0 / float(given) if given is not None and \
                float(given) > 0 else size / out
            lines += [
                "%%%s_ii = arith.index_cast %%%s_i : index to i64" % (t, t),
                "%%%s_f = arith.sitofp %%%s_ii : i64 to f32" % (t, t),
                "%%%s_s = arith.constant %s : f32"
                % (t, float_literal(scale))]
            position = "%%%s_f" % t
            if exact:
                lines += [
                    "%%%s_half = arith.constant 5.000000000e-01 : f32" % t,
                    "%%%s_c = arith.addf %%%s_f, %%%s_half : f32" % (t, t, t)]
                position = "%%%s_c" % t
            lines += [
                "%%%s_m = arith.mulf %s, %%%s_s : f32" % (t, position, t),
                "%%%s_fl = math.floor %%%s_m : f32" % (t, t),
                "%%%s_src64 = arith.fptosi %%%s_fl : f32 to i64" % (t, t),
                "%%%s_src = arith.index_cast %%%s_src64 : i64 to index"
                % (t, t),
                "%%%s_last = arith.constant %d : index" % (t, size - 1),
                "%%%s_x = arith.minsi %%%s_src, %%%s_last : index"
                % (t, t, t)]
            at.append("%%%s_x" % t)
        lines += ["%n = linalg.index 0 : index",
                  "%ch = linalg.index 1 : index",
                  "%%v = tensor.extract %s[%%n, %%ch, %s] : %s"
                  % (x.name, ", ".join(at), x.type)]
        if x.elem in HALF_TYPES:
            lines.append("%%vf = arith.extf %%v : %s to f32" % x.elem)
            return lines, "%vf"
        return lines, "%v"
    if x.elem not in ("f32", "i64", "i1") + HALF_TYPES:
        raise c.error("nearest resampling of %s tensors" % x.elem)
    return c.generic(out_shape, [], body,
                     init=c.empty(out_shape, x.elem, x.device),
                     out_elem=x.elem)


def interpolation_args(c, args, kwargs, what, counts):
    """What upsample_linear and upsample_bicubic share: the input (x),
    the output shape, align_corners, and ratio(i), the f32 step between
    source positions along spatial axis i (corner-aligned: (in - 1) /
    (out - 1); else 1 / the scale factor given, or in / out)."""
    x = c.value(args[0])
    out_shape = c.node["outputs"][0]["shape"]
    count = len(x.shape) - 2
    if count not in counts:
        ranks = ["%d-D" % (n + 2) for n in (counts[0], counts[-1])]
        raise c.error("%s upsampling takes %s tensors" % (
            what, " to ".join(ranks) if len(counts) > 1 else ranks[0]))
    if x.elem not in ("f32",) + HALF_TYPES:
        raise c.error("%s upsampling of %s tensors" % (what, x.elem))
    align = args[2] if len(args) > 2 else kwargs.get("align_corners")
    if c.node.get("overload") == "vec":
        scales = args[3] if len(args) > 3 else kwargs.get("scale_factors")
    else:
        scales = list(args[3:3 + count]) if len(args) > 3 else None
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
    return x, out_shape, align, ratio


def source_position(t, axis, ratio, align, clamp):
    """Lines computing %<t>_src, the f32 source position of the output
    index along spatial `axis` (o * ratio corner-aligned, else (o + 0.5) *
    ratio - 0.5, clamped at 0 when `clamp`: linear, not cubic), its index
    part %<t>_lo (an index) and its fraction %<t>_frac."""
    return source_lines(t, axis, ratio, align, clamp) + [
        "%%%s_fl = math.floor %%%s_src : f32" % (t, t),
        "%%%s_frac = arith.subf %%%s_src, %%%s_fl : f32" % (t, t, t),
        "%%%s_lo64 = arith.fptosi %%%s_fl : f32 to i64" % (t, t),
        "%%%s_lo = arith.index_cast %%%s_lo64 : i64 to index" % (t, t)]


def source_lines(t, axis, ratio, align, clamp):
    lines = [
        "%%%s_i = linalg.index %d : index" % (t, 2 + axis),
        "%%%s_ii = arith.index_cast %%%s_i : index to i64" % (t, t),
        "%%%s_f = arith.sitofp %%%s_ii : i64 to f32" % (t, t),
        "%%%s_r = arith.constant %s : f32" % (t, float_literal(ratio))]
    if align:
        return lines + ["%%%s_src = arith.mulf %%%s_f, %%%s_r : f32"
                        % (t, t, t)]
    lines += [
        "%%%s_half = arith.constant 5.000000000e-01 : f32" % t,
        "%%%s_c = arith.addf %%%s_f, %%%s_half : f32" % (t, t, t),
        "%%%s_m = arith.mulf %%%s_c, %%%s_r : f32" % (t, t, t)]
    if not clamp:
        return lines + ["%%%s_src = arith.subf %%%s_m, %%%s_half : f32"
                        % (t, t, t)]
    return lines + [
        "%%%s_s = arith.subf %%%s_m, %%%s_half : f32" % (t, t, t),
        "%%%s_zero = arith.constant 0.000000000e+00 : f32" % t,
        "%%%s_src = arith.maximumf %%%s_s, %%%s_zero : f32" % (t, t, t)]


def upsample_linear(c, args, kwargs):
    """upsample_linear1d, upsample_bilinear2d, upsample_trilinear3d (and
    .vec): each output element interpolates the 2^N input elements around
    its source position, along the last dimension first, with PyTorch's
    half-pixel mapping (align_corners false, negative positions clamped to
    0) or the corner-aligned one."""
    x, out_shape, align, ratio = interpolation_args(c, args, kwargs,
                                                    "linear", (1, 2, 3))
    sizes = x.shape[2:]
    count = len(sizes)

    def body(a, o):
        lines, coords = [], []
        for axis, size in enumerate(sizes):
            t = "a%d" % axis
            lines += source_position(t, axis, ratio(axis), align, clamp=True)
            lines += [
                "%%%s_one = arith.constant 1 : index" % t,
                "%%%s_last = arith.constant %d : index" % (t, size - 1),
                "%%%s_up = arith.addi %%%s_lo, %%%s_one : index" % (t, t, t),
                "%%%s_hi = arith.minsi %%%s_up, %%%s_last : index"
                % (t, t, t)]
            coords.append(("%%%s_lo" % t, "%%%s_hi" % t, "%%%s_frac" % t))
        lines += ["%n = linalg.index 0 : index",
                  "%ch = linalg.index 1 : index"]
        # The corners, keyed by which side of each axis they take.
        values = {}
        for corner in itertools.product((0, 1), repeat=count):
            name = "%%p_%s" % "".join(str(side) for side in corner)
            at = ", ".join(coords[axis][side]
                           for axis, side in enumerate(corner))
            lines.append("%s = tensor.extract %s[%%n, %%ch, %s] : %s"
                         % (name, x.name, at, x.type))
            if x.elem in HALF_TYPES:
                lines.append("%s_f = arith.extf %s : %s to f32"
                             % (name, name, x.elem))
                name += "_f"
            values[corner] = name
        # Interpolate along the last axis, then the one before, ...
        for axis in reversed(range(count)):
            weight = coords[axis][2]
            folded = {}
            for corner, low in values.items():
                if corner[axis] != 0:
                    continue
                high = values[corner[:axis] + (1,) + corner[axis + 1:]]
                key = corner[:axis] + corner[axis + 1:]
                name = "%%i%d_%s" % (axis, "".join(str(b) for b in key))
                lines += ["%s_d = arith.subf %s, %s : f32" % (name, high, low),
                          "%s_s = arith.mulf %s_d, %s : f32"
                          % (name, name, weight),
                          "%s = arith.addf %s, %s_s : f32" % (name, low, name)]
                folded[corner[:axis] + corner[axis + 1:]] = name
            values = folded
        return lines, values[()]
    return c.generic(out_shape, [], body,
                     init=c.empty(out_shape, x.elem, x.device),
                     out_elem=x.elem)


def antialias_weights(in_size, out_size, scale, cubic):
    """PyTorch's antialiased resampling weights along one axis, as a dense
    out_size x in_size f32 matrix: output i averages the inputs within
    `support` of its centre scale * (i + 0.5), weighted by the triangle
    (bilinear) or the cubic (A = -0.5, as PIL) filter stretched by the
    scale when it shrinks, normalized to sum 1. Computed in f32 as
    PyTorch does, so the window bounds (truncated toward zero) agree."""
    import numpy as np
    f32 = np.float32
    scale = f32(scale)
    interp = 4 if cubic else 2
    support = f32(interp * 0.5) * scale if scale >= 1 else f32(interp * 0.5)
    invscale = f32(1) / scale if scale >= 1 else f32(1)

    def weight(x):
        x = abs(float(x))
        if not cubic:
            return 1.0 - x if x < 1.0 else 0.0
        a = -0.5
        if x < 1.0:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        if x < 2.0:
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return 0.0

    matrix = np.zeros((out_size, in_size), dtype=np.float32)
    for i in range(out_size):
        center = scale * f32(i + 0.5)
        low = max(int(center - support + f32(0.5)), 0)
        count = min(int(center + support + f32(0.5)), in_size) - low
        row = [weight(f32(j + low - center + f32(0.5)) * invscale)
               for j in range(count)]
        total = sum(row)
        if total != 0:
            row = [w / total for w in row]
        matrix[i, low:low + count] = row
    return matrix


def upsample_antialiased(c, args, kwargs, cubic):
    """_upsample_bilinear2d_aa and _upsample_bicubic2d_aa (F.interpolate
    with antialias=True): each axis's weights (antialias_weights) are a
    constant matrix, applied as two contractions in f32 (rows, then
    columns), the result rounded to the input's type."""
    import numpy as np
    what = "antialiased bicubic" if cubic else "antialiased bilinear"
    x, out_shape, align, ratio = interpolation_args(c, args, kwargs, what,
                                                    (2,))
    # align_corners reaches PyTorch's antialiased kernels only through the
    # scale (ratio: (in - 1) / (out - 1)); the centres stay half-pixel.
    del align
    rows = antialias_weights(x.shape[2], out_shape[2], ratio(0), cubic)
    cols = antialias_weights(x.shape[3], out_shape[3], ratio(1), cubic)
    matrices = []
    for matrix in (rows, cols):
        value = Value(c.fresh("aa"), list(matrix.shape), elem="f32")
        c.emit('%s = arith.constant dense<"0x%s"> : %s' % (
            value.name, np.ascontiguousarray(matrix).tobytes().hex().upper(),
            value.type))
        matrices.append(value)
    device = c.device_of([x])

    def weighted_sum(a, o):
        return (["%m = arith.mulf " + a[0] + ", " + a[1] + " : f32",
                 "%s = arith.addf " + o + ", %m : f32"], "%s")

    def along(axis, matrix, source, shape):
        """shape[.., i, ..] = sum over k of matrix[i, k] * source[.., k, ..]
        on `axis` (2 or 3), loop d4 being k."""
        source_dims = ["d0", "d1", "d2", "d3"]
        source_dims[axis] = "d4"
        return c.generic(
            shape, [(matrix, ["d%d" % axis, "d4"]), (source, source_dims)],
            weighted_sum, init=c.filled(shape, 0.0, "f32", device),
            out_map=["d0", "d1", "d2", "d3"],
            iterators=["parallel"] * 4 + ["reduction"])

    by_rows = along(2, matrices[0], x,
                    [x.shape[0], x.shape[1], out_shape[2], x.shape[3]])
    result = along(3, matrices[1], by_rows, out_shape)
    return result if x.elem == "f32" else c.cast(result, x.elem)


def upsample_bicubic(c, args, kwargs):
    """upsample_bicubic2d (and .vec): each output element is the cubic
    convolution (A = -0.75) of the 4x4 input elements around its source
    position, rows first then across them, as PyTorch computes it: source
    positions half-pixel (not clamped) or corner-aligned, reads past an
    edge clamped to it."""
    x, out_shape, align, ratio = interpolation_args(c, args, kwargs,
                                                    "bicubic", (2,))
    sizes = x.shape[2:]

    a = -0.75

    def weights(t, lines, p):
        """The four cubic-convolution weights of fraction %<t>_t."""
        k = {"a": a, "a5": 5 * a, "a8": 8 * a, "a4": 4 * a, "a2": a + 2,
             "a3": a + 3}
        for name, value in k.items():
            lines.append("%%%s_%s = arith.constant %s : f32"
                         % (p, name, float_literal(value)))
        lines += ["%%%s_one = arith.constant 1.000000000e+00 : f32" % p,
                  "%%%s_two = arith.constant 2.000000000e+00 : f32" % p]

        def outer(x, w):  # ((A x - 5A) x + 8A) x - 4A
            lines.extend([
                "%%%s_o1 = arith.mulf %%%s_a, %s : f32" % (w, p, x),
                "%%%s_o2 = arith.subf %%%s_o1, %%%s_a5 : f32" % (w, w, p),
                "%%%s_o3 = arith.mulf %%%s_o2, %s : f32" % (w, w, x),
                "%%%s_o4 = arith.addf %%%s_o3, %%%s_a8 : f32" % (w, w, p),
                "%%%s_o5 = arith.mulf %%%s_o4, %s : f32" % (w, w, x),
                "%%%s = arith.subf %%%s_o5, %%%s_a4 : f32" % (w, w, p)])

        def inner(x, w):  # ((A + 2) x - (A + 3)) x x + 1
            lines.extend([
                "%%%s_i1 = arith.mulf %%%s_a2, %s : f32" % (w, p, x),
                "%%%s_i2 = arith.subf %%%s_i1, %%%s_a3 : f32" % (w, w, p),
                "%%%s_i3 = arith.mulf %%%s_i2, %s : f32" % (w, w, x),
                "%%%s_i4 = arith.mulf %%%s_i3, %s : f32" % (w, w, x),
                "%%%s = arith.addf %%%s_i4, %%%s_one : f32" % (w, w, p)])
        lines += ["%%%s_tp = arith.addf %s, %%%s_one : f32" % (p, t, p),
                  "%%%s_tm = arith.subf %%%s_one, %s : f32" % (p, p, t),
                  "%%%s_tt = arith.subf %%%s_two, %s : f32" % (p, p, t)]
        outer("%%%s_tp" % p, "%s_w0" % p)
        inner(t, "%s_w1" % p)
        inner("%%%s_tm" % p, "%s_w2" % p)
        outer("%%%s_tt" % p, "%s_w3" % p)
        return ["%%%s_w%d" % (p, i) for i in range(4)]

    def body(args_, o):
        lines, taps, ws = [], [], []
        for axis, size in enumerate(sizes):
            t = "a%d" % axis
            lines += source_position(t, axis, ratio(axis), align, clamp=False)
            lines += [
                "%%%s_zero = arith.constant 0 : index" % t,
                "%%%s_last = arith.constant %d : index" % (t, size - 1)]
            axis_taps = []
            for k in range(4):
                lines += [
                    "%%%s_k%d = arith.constant %d : index" % (t, k, k - 1),
                    "%%%s_p%d = arith.addi %%%s_lo, %%%s_k%d : index"
                    % (t, k, t, t, k),
                    "%%%s_q%d = arith.maxsi %%%s_p%d, %%%s_zero : index"
                    % (t, k, t, k, t),
                    "%%%s_x%d = arith.minsi %%%s_q%d, %%%s_last : index"
                    % (t, k, t, k, t)]
                axis_taps.append("%%%s_x%d" % (t, k))
            taps.append(axis_taps)
            ws.append(weights("%%%s_frac" % t, lines, "c%d" % axis))
        lines += ["%n = linalg.index 0 : index",
                  "%ch = linalg.index 1 : index"]
        rows = []
        for i in range(4):
            terms = []
            for j in range(4):
                name = "%%v%d%d" % (i, j)
                lines.append("%s = tensor.extract %s[%%n, %%ch, %s, %s] : %s"
                             % (name, x.name, taps[0][i], taps[1][j], x.type))
                if x.elem in HALF_TYPES:
                    lines.append("%s_f = arith.extf %s : %s to f32"
                                 % (name, name, x.elem))
                    name += "_f"
                terms.append(name)
            # x0 w0 + x1 w1 + x2 w2 + x3 w3, in PyTorch's order.
            row = "%%row%d" % i
            lines += ["%s_0 = arith.mulf %s, %s : f32" % (row, terms[0],
                                                         ws[1][0])]
            for j in range(1, 4):
                lines += ["%s_m%d = arith.mulf %s, %s : f32"
                          % (row, j, terms[j], ws[1][j]),
                          "%s_%d = arith.addf %s_%d, %s_m%d : f32"
                          % (row, j, row, j - 1, row, j)]
            rows.append("%s_3" % row)
        lines.append("%%r_0 = arith.mulf %s, %s : f32" % (rows[0], ws[0][0]))
        for i in range(1, 4):
            lines += ["%%r_m%d = arith.mulf %s, %s : f32" % (i, rows[i],
                                                            ws[0][i]),
                      "%%r_%d = arith.addf %%r_%d, %%r_m%d : f32"
                      % (i, i - 1, i)]
        return lines, "%r_3"
    return c.generic(out_shape, [], body,
                     init=c.empty(out_shape, x.elem, x.device),
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


def window_args(args, kwargs, with_size):
    """im2col's and col2im's window: ([output_size,] kernel_size,
    dilation, padding, stride), positional then by keyword, 2-D each;
    the output size is None without `with_size`."""
    names = (["output_size"] if with_size else []) + [
        "kernel_size", "dilation", "padding", "stride"]
    given = dict(zip(names, args))
    given.update(kwargs)
    size = spatial_list(given.get("output_size"), 2) if with_size else None
    return (size, spatial_list(given.get("kernel_size"), 2),
            spatial_list(given.get("dilation"), 2, 1),
            spatial_list(given.get("padding"), 2, 0),
            spatial_list(given.get("stride"), 2, 1))


def with_batch(c, x, rank, wanted):
    """`x` with a batch dimension of 1 put in front when it has rank - 1
    dimensions (im2col and col2im take both), and whether it had one; an
    error saying `wanted` unless it then has `rank` dimensions, all static
    but the batch."""
    batched = len(x.shape) == rank
    if not batched:
        x = c.reshape(x, [1] + list(x.shape))
    if len(x.shape) != rank or not all(is_static(d) for d in x.shape[1:]):
        raise c.error(wanted)
    return x, batched


def im2col(c, args, kwargs):
    """im2col(x, kernel_size, dilation, padding, stride), what F.unfold
    records: x [N, C, H, W] (or [C, H, W]) zero-padded, each window a
    column: out[n, (ch * kh + i) * kw + j, oy * ow + ox] =
    x[n, ch, oy * sh + i * dh, ox * sw + j * dw]."""
    x = c.value(args[0])
    _, kernel, dilation, padding, stride = window_args(args[1:], kwargs,
                                                       with_size=False)
    x, batched = with_batch(c, x, 4,
                            "im2col of a [N, C, H, W] input with static C, "
                            "H, W")
    batch, channels, height, width = x.shape
    out = [(size + 2 * pad - dil * (k - 1) - 1) // s + 1 for size, pad, dil,
           k, s in zip((height, width), padding, dilation, kernel, stride)]
    if min(out) < 1:
        raise c.error("im2col: the windows do not fit in %s" % x.shape[2:])
    x = pad_spatial(c, c.cast(x, "f32"), 2, padding, padding, 0.0)
    # cols[n, ch, i, j, oy, ox]
    cols = c.generic([batch, channels] + kernel + out, [(x, [
        "d0", "d1", "d4 * %d + d2 * %d" % (stride[0], dilation[0]),
        "d5 * %d + d3 * %d" % (stride[1], dilation[1])])],
        lambda a, o: ([], a[0]))
    shape = [batch, channels * kernel[0] * kernel[1], out[0] * out[1]]
    cols = c.reshape(cols, shape)
    return cols if batched else c.reshape(cols, shape[1:])


def grid_sampler_2d(c, args, kwargs):
    """grid_sampler_2d(x, grid, interpolation, padding, align_corners),
    what F.grid_sample records: out[n, ch, h, w] samples x[n, ch] at the
    grid's (x, y) in [-1, 1] (align_corners: -1 and 1 are the centers of
    the corner pixels, else their outer edges), bilinearly (0) or at the
    nearest pixel (1, halves to even), reading zeros outside the input (0)
    or its border (1)."""
    x, grid = c.value(args[0]), c.cast(c.value(args[1]), "f32")
    mode, padding, align = args[2], args[3], bool(args[4])
    if mode not in (0, 1):
        raise c.error("grid_sample mode %r: bilinear and nearest only"
                      % (["bilinear", "nearest", "bicubic"][mode]
                         if mode in (0, 1, 2) else mode))
    if padding not in (0, 1):
        raise c.error("grid_sample padding_mode %r: zeros and border only"
                      % (["zeros", "border", "reflection"][padding]
                         if padding in (0, 1, 2) else padding))
    if len(x.shape) != 4 or not all(is_static(d) for d in x.shape[2:]):
        raise c.error("grid_sample of a [N, C, H, W] input with static H, W")
    height, width = x.shape[2], x.shape[3]
    out_shape = [x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]]

    def body(a, o):
        lines = ["%one = arith.constant 1.000000000e+00 : f32",
                 "%half = arith.constant 5.000000000e-01 : f32",
                 "%zero = arith.constant 0.000000000e+00 : f32",
                 "%n = linalg.index 0 : index",
                 "%ch = linalg.index 1 : index"]
        coords = {}
        for axis, (g, size) in enumerate(((a[1], width), (a[2], height))):
            t = "xy"[axis]
            lines += ["%%%s_size = arith.constant %s : f32"
                      % (t, float_literal(size)),
                      "%%%s_p1 = arith.addf %s, %%one : f32" % (t, g)]
            if align:
                lines += ["%%%s_m1 = arith.constant %s : f32"
                          % (t, float_literal(size - 1)),
                          "%%%s_h = arith.mulf %%%s_p1, %%half : f32" % (t, t),
                          "%%%s_i = arith.mulf %%%s_h, %%%s_m1 : f32"
                          % (t, t, t)]
            else:
                lines += ["%%%s_s = arith.mulf %%%s_p1, %%%s_size : f32"
                          % (t, t, t),
                          "%%%s_s1 = arith.subf %%%s_s, %%one : f32" % (t, t),
                          "%%%s_i = arith.mulf %%%s_s1, %%half : f32"
                          % (t, t)]
            source = "%%%s_i" % t
            if padding == 1:
                lines += ["%%%s_max = arith.constant %s : f32"
                          % (t, float_literal(size - 1)),
                          "%%%s_lo_c = arith.maximumf %s, %%zero : f32"
                          % (t, source),
                          "%%%s_c = arith.minimumf %%%s_lo_c, %%%s_max : f32"
                          % (t, t, t)]
                source = "%%%s_c" % t
            coords[t] = (source, size)

        def read(name, ix, iy):
            """x at the integer f32 coordinates (ix, iy), 0 outside."""
            out = []
            inside = []
            indices = []
            for t, value, size in (("x", ix, width), ("y", iy, height)):
                out += ["%%%s_%s_lo = arith.cmpf oge, %s, %%zero : f32"
                        % (name, t, value),
                        "%%%s_%s_top = arith.constant %s : f32"
                        % (name, t, float_literal(size - 1)),
                        "%%%s_%s_hi = arith.cmpf ole, %s, %%%s_%s_top : f32"
                        % (name, t, value, name, t),
                        "%%%s_%s_ok = arith.andi %%%s_%s_lo, %%%s_%s_hi : i1"
                        % ((name, t) * 3),
                        "%%%s_%s_cl = arith.maximumf %s, %%zero : f32"
                        % (name, t, value),
                        "%%%s_%s_cm = arith.minimumf %%%s_%s_cl, %%%s_%s_top "
                        ": f32" % ((name, t) * 3),
                        "%%%s_%s_i64 = arith.fptosi %%%s_%s_cm : f32 to i64"
                        % ((name, t) * 2),
                        "%%%s_%s_ix = arith.index_cast %%%s_%s_i64 : i64 to "
                        "index" % ((name, t) * 2)]
                inside.append("%%%s_%s_ok" % (name, t))
                indices.append("%%%s_%s_ix" % (name, t))
            out += ["%%%s_raw = tensor.extract %s[%%n, %%ch, %s, %s] : %s"
                    % (name, x.name, indices[1], indices[0], x.type)]
            value = "%%%s_raw" % name
            if x.elem in HALF_TYPES:
                out.append("%%%s_f = arith.extf %s : %s to f32"
                           % (name, value, x.elem))
                value = "%%%s_f" % name
            out += ["%%%s_in = arith.andi %s, %s : i1" % (name, inside[0],
                                                          inside[1]),
                    "%%%s = arith.select %%%s_in, %s, %%zero : f32"
                    % (name, name, value)]
            return out
        (sx, _), (sy, _) = coords["x"], coords["y"]
        if mode == 1:
            lines += ["%%nx = math.roundeven %s : f32" % sx,
                      "%%ny = math.roundeven %s : f32" % sy]
            return lines + read("p", "%nx", "%ny"), "%p"
        lines += ["%%x0 = math.floor %s : f32" % sx,
                  "%%y0 = math.floor %s : f32" % sy,
                  "%x1 = arith.addf %x0, %one : f32",
                  "%y1 = arith.addf %y0, %one : f32",
                  "%%wx1 = arith.subf %s, %%x0 : f32" % sx,
                  "%%wy1 = arith.subf %s, %%y0 : f32" % sy,
                  "%wx0 = arith.subf %one, %wx1 : f32",
                  "%wy0 = arith.subf %one, %wy1 : f32"]
        total = None
        for ys in (0, 1):
            for xs in (0, 1):
                name = "p%d%d" % (ys, xs)
                lines += read(name, "%%x%d" % xs, "%%y%d" % ys)
                lines += ["%%%s_w = arith.mulf %%wx%d, %%wy%d : f32"
                          % (name, xs, ys),
                          "%%%s_t = arith.mulf %%%s, %%%s_w : f32"
                          % (name, name, name)]
                if total is None:
                    total = "%%%s_t" % name
                else:
                    lines.append("%%%s_sum = arith.addf %s, %%%s_t : f32"
                                 % (name, total, name))
                    total = "%%%s_sum" % name
        return lines, total
    return c.generic(out_shape, [
        (x, ["d0", "d1", "0", "0"]),
        (grid, ["d0", "d2", "d3", "0"]), (grid, ["d0", "d2", "d3", "1"])],
        body, out_elem=x.elem if x.elem in HALF_TYPES else "f32")


def col2im(c, args, kwargs):
    """col2im(cols, output_size, kernel_size, dilation, padding, stride),
    what F.fold records: the inverse placement of im2col, overlapping
    windows summed: out[n, ch, y, x] = the sum over kernel offsets (i, j)
    of cols[n, (ch * kh + i) * kw + j, by * bw + bx] where y + ph =
    by * sh + i * dh and x + pw = bx * sw + j * dw (blocks in range). One
    generic reducing over (i, j), reading the columns it hits."""
    cols = c.cast(c.value(args[0]), "f32")
    size, kernel, dilation, padding, stride = window_args(args[1:], kwargs,
                                                          with_size=True)
    cols, batched = with_batch(c, cols, 3,
                               "col2im of [N, C * kh * kw, L] columns with "
                               "static C * kh * kw and L")
    batch, rows, length = cols.shape
    blocks = [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, p, d, k, st
              in zip(size, padding, dilation, kernel, stride)]
    per_channel = kernel[0] * kernel[1]
    if min(blocks) < 1 or rows % per_channel or \
            blocks[0] * blocks[1] != length:
        raise c.error("col2im: columns %s do not fit kernel %s, output %s, "
                      "padding %s, stride %s, dilation %s (%s blocks)" % (
                          list(cols.shape[1:]), kernel, size, padding,
                          stride, dilation, blocks))
    channels = rows // per_channel
    out_shape = [batch, channels] + size
    cols6 = c.reshape(cols, [batch, channels] + kernel + blocks)

    def body(a, o):
        lines = ["%n = linalg.index 0 : index", "%ch = linalg.index 1 : index",
                 "%zero = arith.constant 0 : index",
                 "%fzero = arith.constant 0.000000000e+00 : f32",
                 "%ok0 = arith.constant true"]
        at = []
        for axis in range(2):
            t = "x%d" % axis
            lines += [
                "%%%s_o = linalg.index %d : index" % (t, 2 + axis),
                "%%%s_k = linalg.index %d : index" % (t, 4 + axis),
                "%%%s_p = arith.constant %d : index" % (t, padding[axis]),
                "%%%s_d = arith.constant %d : index" % (t, dilation[axis]),
                "%%%s_s = arith.constant %d : index" % (t, stride[axis]),
                "%%%s_n = arith.constant %d : index" % (t, blocks[axis]),
                "%%%s_kd = arith.muli %%%s_k, %%%s_d : index" % (t, t, t),
                "%%%s_op = arith.addi %%%s_o, %%%s_p : index" % (t, t, t),
                # r = y + p - i * d: a block starts there when r >= 0, r is
                # a multiple of the stride and r / s is a block.
                "%%%s_r = arith.subi %%%s_op, %%%s_kd : index" % (t, t, t),
                "%%%s_ge = arith.cmpi sge, %%%s_r, %%zero : index" % (t, t),
                "%%%s_rem = arith.remsi %%%s_r, %%%s_s : index" % (t, t, t),
                "%%%s_even = arith.cmpi eq, %%%s_rem, %%zero : index"
                % (t, t),
                "%%%s_b = arith.divsi %%%s_r, %%%s_s : index" % (t, t, t),
                "%%%s_in = arith.cmpi slt, %%%s_b, %%%s_n : index"
                % (t, t, t),
                "%%%s_v1 = arith.andi %%%s_ge, %%%s_even : i1" % (t, t, t),
                "%%%s_v = arith.andi %%%s_v1, %%%s_in : i1" % (t, t, t),
                "%%%s_lo = arith.maxsi %%%s_b, %%zero : index" % (t, t),
                "%%%s_last = arith.constant %d : index"
                % (t, blocks[axis] - 1),
                "%%%s_at = arith.minsi %%%s_lo, %%%s_last : index"
                % (t, t, t)]
            at.append(t)
        lines += [
            "%ok = arith.andi %x0_v, %x1_v : i1",
            "%%v = tensor.extract %s[%%n, %%ch, %%x0_k, %%x1_k, %%x0_at, "
            "%%x1_at] : %s" % (cols6.name, cols6.type),
            "%t = arith.select %ok, %v, %fzero : f32",
            "%%r = arith.addf %s, %%t : f32" % o]
        return lines, "%r"
    init = c.filled(out_shape, 0.0, device=cols.device)
    # The kernel offsets' loops take their sizes from an operand.
    offsets = Value(c.filled(kernel, 0.0, device=cols.device), kernel,
                    device=cols.device)
    out = c.generic(out_shape, [(offsets, ["d4", "d5"])], body, init=init,
                    iterators=["parallel"] * 4 + ["reduction"] * 2,
                    out_map=["d0", "d1", "d2", "d3"])
    return out if batched else c.reshape(out, out_shape[1:])
