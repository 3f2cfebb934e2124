"""Normalization and dropout: layer norm, RMS norm, batch norm in
inference (the cudnn/miopen forms Dynamo's CUDA graphs record included),
group norm, and dropout (native_dropout, drawn afresh on every call, and
its backward).
"""
from .common import (ELEMENT_TYPES, Value, float_literal, from_product,
                     is_static, op2, product)


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


def batch_norm(names):
    """Batch norm: (x - mean) / sqrt(var + eps) * w + b over dimension 1.
    In inference the statistics are the running ones and the saved
    statistics empty tensors. In training mode without running statistics
    (instance norm, which PyTorch computes as a batch norm of the reshaped
    input, and batch norm with track_running_stats=False) they are the
    batch's: mean and biased variance over every dimension but 1, saved as
    the mean and 1/std. Training with running statistics would also update
    them in place, which is refused. `names` are the op's operands after
    x."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        given = dict(zip(names, args[1:]))
        given.update(kwargs)
        training = bool(given.get("training"))
        if training and given.get("running_mean") is not None:
            raise c.error("batch norm in training mode with running "
                          "statistics (it updates them) is not supported: "
                          "export the model in eval mode")
        if not training and given.get("running_mean") is None:
            raise c.error("batch norm without running statistics")
        rank = len(x.shape)
        channels = [x.shape[1]] + [1] * (rank - 2)

        def per_channel(name):
            value = given.get(name)
            return None if value is None else c.reshape(c.value(value),
                                                        channels)
        weight, bias = per_channel("weight"), per_channel("bias")
        eps = float(given.get("eps", 1e-5))
        if training:
            mean, var = batch_statistics(c, c.cast(x, "f32"))
            mean_c, var_c = c.reshape(mean, channels), c.reshape(var, channels)
        else:
            mean_c = per_channel("running_mean")
            var_c = per_channel("running_var")
        out = c.elementwise([x, mean_c, var_c, eps], lambda n: (
            ["%%d = arith.subf %s, %s : f32" % (n[0], n[1]),
             "%%v = arith.addf %s, %s : f32" % (n[2], n[3]),
             "%inv = math.rsqrt %v : f32",
             "%r = arith.mulf %d, %inv : f32"], "%r"))
        if weight is not None:
            out = c.elementwise([out, weight], lambda n: op2("arith.mulf", n))
        if bias is not None:
            out = c.elementwise([out, bias], lambda n: op2("arith.addf", n))
        saved = []
        for index, o in enumerate(c.node["outputs"][1:]):
            elem = ELEMENT_TYPES.get(o["dtype"])
            if training and index < 2:
                saved.append(mean if index == 0 else c.elementwise(
                    [var, eps], lambda n: (
                        ["%%s = arith.addf %s, %s : f32" % tuple(n),
                         "%r = math.rsqrt %s : f32"], "%r")))
                continue
            saved.append(None if elem is None else Value(
                c.filled(o["shape"], 0, elem), o["shape"], elem=elem))
        return [out] + saved
    return convert


def batch_statistics(c, x):
    """The mean and biased variance of `x` per index of dimension 1, over
    every other dimension (shape [C])."""
    dims = [0] + list(range(2, len(x.shape)))
    count = c.count([x.shape[d] for d in dims])
    divide = lambda n: op2("arith.divf", n)
    mean = c.elementwise([c.reduce(x, dims, "sum"), count], divide)
    centered = c.elementwise([x, c.keepdim(mean, x.shape, dims)],
                             lambda n: op2("arith.subf", n))
    squared = c.elementwise([centered], lambda n: (
        ["%%r = arith.mulf %s, %s : f32" % (n[0], n[0])], "%r"))
    var = c.elementwise([c.reduce(squared, dims, "sum"), count], divide)
    return mean, var


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


def nll_loss(c, args, kwargs):
    """nll_loss_forward / nll_loss2d_forward(x, target, weight, reduction,
    ignore_index), what cross_entropy ends in: per sample, minus x at its
    target class (dimension 1 of x) times that class's weight, 0 where the
    target is ignore_index; then none (0), mean over the weights (1) or sum
    (2); also the total weight. A target outside [0, classes) that is not
    ignore_index fails the call, as PyTorch raises."""
    x = c.cast(c.value(args[0]), "f32")
    target = c.value(args[1])
    weight = c.value(args[2]) if len(args) > 2 and args[2] is not None \
        else None
    reduction = args[3] if len(args) > 3 else kwargs.get("reduction", 1)
    ignore = args[4] if len(args) > 4 else kwargs.get("ignore_index", -100)
    if len(x.shape) == 1:
        x = c.reshape(x, [1] + list(x.shape))
        target = c.reshape(target, [1])
    classes = x.shape[1]
    if not is_static(classes):
        raise c.error("nll_loss over a symbolic number of classes")
    rank = len(x.shape)
    sample = ["d0"] + ["d%d" % i for i in range(2, rank)]
    # Ignored targets are checked as class 0.
    kept = c.elementwise([target], lambda n: (
        ["%%ignore = arith.constant %d : i64" % ignore,
         "%zero = arith.constant 0 : i64",
         "%%skip = arith.cmpi eq, %s, %%ignore : i64" % n[0],
         "%%r = arith.select %%skip, %%zero, %s : i64" % n[0]], "%r"),
        out_elem="i64", scalar_elem="i64")
    c.check_indices(kept, classes, lo=0)
    inputs = [(x, ["d%d" % i for i in range(rank)]), (target, sample)]
    if weight is not None:
        inputs.append((c.cast(weight, "f32"), ["d1"]))

    def picked(negate):
        def body(a, o):
            lines = ["%class = linalg.index 1 : index",
                     "%ci = arith.index_cast %class : index to i64",
                     "%%ignore = arith.constant %d : i64" % ignore,
                     "%%hit = arith.cmpi eq, %%ci, %s : i64" % a[1],
                     "%%kept = arith.cmpi ne, %s, %%ignore : i64" % a[1],
                     "%on = arith.andi %hit, %kept : i1",
                     "%zero = arith.constant 0.000000000e+00 : f32",
                     "%one = arith.constant 1.000000000e+00 : f32"]
            w = a[2] if weight is not None else "%one"
            if negate:
                lines += ["%%m = arith.mulf %s, %s : f32" % (a[0], w),
                          "%v = arith.negf %m : f32"]
            else:
                lines += ["%%v = arith.addf %s, %%zero : f32" % w]
            return lines + ["%r = arith.select %on, %v, %zero : f32"], "%r"
        full = c.generic(x.shape, inputs, body)
        return c.reduce(full, [1], "sum")
    losses, weights = picked(True), picked(False)
    total = c.reduce(weights, [], "sum")
    if reduction == 0:
        out = losses
    elif reduction == 2:
        out = c.reduce(losses, [], "sum")
    elif reduction == 1:
        out = c.elementwise([c.reduce(losses, [], "sum"), total],
                            lambda n: op2("arith.divf", n))
    else:
        raise c.error("nll_loss reduction %r" % (reduction,))
    return [out, total]


def _reduced(c, losses, reduction):
    """A loss's reduction: none (0), mean (1) or sum (2)."""
    if reduction == 0:
        return losses
    total = c.reduce(losses, [], "sum")
    if reduction == 2:
        return total
    if reduction == 1:
        return c.elementwise([total, c.count(losses.shape)],
                             lambda n: op2("arith.divf", n))
    raise c.error("loss reduction %r" % (reduction,))


def pointwise_loss(kind):
    """mse_loss, l1_loss, smooth_l1_loss (beta), huber_loss (delta) of x
    and target, and binary_cross_entropy_with_logits (weight, pos_weight),
    each with its reduction, as PyTorch's formulas."""
    def convert(c, args, kwargs):
        x, y = c.value(args[0]), c.value(args[1])
        rest = list(args[2:])
        if kind == "bce_logits":
            weight = rest[0] if rest else kwargs.get("weight")
            pos_weight = rest[1] if len(rest) > 1 else kwargs.get("pos_weight")
            reduction = rest[2] if len(rest) > 2 else kwargs.get("reduction", 1)
            p = c.value(pos_weight) if pos_weight is not None else 1.0
            # (1 - y) x + (1 + (p - 1) y) (log(1 + exp(-|x|)) + max(-x, 0))
            losses = c.elementwise([x, y, p], lambda n: (
                ["%one = arith.constant 1.000000000e+00 : f32",
                 "%zero = arith.constant 0.000000000e+00 : f32",
                 "%%omy = arith.subf %%one, %s : f32" % n[1],
                 "%%a = arith.mulf %%omy, %s : f32" % n[0],
                 "%%pm1 = arith.subf %s, %%one : f32" % n[2],
                 "%%py = arith.mulf %%pm1, %s : f32" % n[1],
                 "%lw = arith.addf %one, %py : f32",
                 "%%ax = math.absf %s : f32" % n[0],
                 "%nax = arith.negf %ax : f32",
                 "%e = math.exp %nax : f32",
                 "%l1p = math.log1p %e : f32",
                 "%%nx = arith.negf %s : f32" % n[0],
                 "%m = arith.maximumf %nx, %zero : f32",
                 "%s = arith.addf %l1p, %m : f32",
                 "%b = arith.mulf %lw, %s : f32",
                 "%r = arith.addf %a, %b : f32"], "%r"))
            if weight is not None:
                losses = c.elementwise([losses, c.value(weight)],
                                       lambda n: op2("arith.mulf", n))
            return _reduced(c, losses, reduction)
        reduction = rest[0] if rest else kwargs.get("reduction", 1)
        parameter = float(rest[1] if len(rest) > 1 else
                          kwargs.get("beta", kwargs.get("delta", 1.0)))
        def body(n):
            lines = ["%%d = arith.subf %s, %s : f32" % (n[0], n[1]),
                     "%a = math.absf %d : f32",
                     "%sq = arith.mulf %d, %d : f32",
                     "%%k = arith.constant %s : f32" % float_literal(parameter),
                     "%half = arith.constant 5.000000000e-01 : f32"]
            if kind == "mse":
                return lines, "%sq"
            if kind == "l1":
                return lines, "%a"
            lines.append("%small = arith.cmpf olt, %a, %k : f32")
            if kind == "smooth_l1":
                # |d| < beta: 0.5 d^2 / beta, else |d| - 0.5 beta.
                lines += ["%hs = arith.mulf %half, %sq : f32",
                          "%q = arith.divf %hs, %k : f32",
                          "%hk = arith.mulf %half, %k : f32",
                          "%l = arith.subf %a, %hk : f32"]
            else:
                # huber: |d| < delta: 0.5 d^2, else delta (|d| - 0.5 delta).
                lines += ["%q = arith.mulf %half, %sq : f32",
                          "%hk = arith.mulf %half, %k : f32",
                          "%am = arith.subf %a, %hk : f32",
                          "%l = arith.mulf %k, %am : f32"]
            return lines + ["%r = arith.select %small, %q, %l : f32"], "%r"
        return _reduced(c, c.elementwise([x, y], body), reduction)
    return convert
