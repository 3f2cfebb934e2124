"""Ops that read or write at positions held in tensors: embedding, index
(gathers with int64 index tensors), index_put (int64 index tensors or a
bool mask), index_select, gather, scatter/scatter_add/index_add/
index_copy/scatter_reduce, take_along_dim, index_fill, embedding_bag and
masked_fill. Negative indices count from the end as in PyTorch; a read
outside the tensor (an error in PyTorch) reads the nearest element instead.
"""
import math

from .common import (HALF_TYPES, Unusable, broadcast_shape, float_literal,
                     from_product, is_static, literal, normal_dim, product)
from .views import sliced


def embedding(c, args, kwargs):
    """Rows of `weight` picked by int64 `indices`. An index outside the
    table (an error in PyTorch) fails the call (check_indices); the kernel
    reads the nearest row, never memory outside the table."""
    weight, indices = c.value(args[0]), c.value(args[1])
    if indices.elem != "i64" or len(weight.shape) != 2:
        raise c.error("takes a 2-D weight and int64 indices")
    rows, width = weight.shape
    c.check_indices(indices, rows, lo=0)
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


def index(c, args, kwargs, negative=True):
    """x[i] / x[:, i, j] with int64 index tensors (aten::index.Tensor): a
    gather. An index outside the dimension (an error in PyTorch; negative
    ones count from the end unless `negative` is False, as for
    index_select) fails the call (check_indices); the kernel reads the
    nearest element, never memory outside the tensor."""
    x = c.value(args[0])
    p, idx, shape, maps = _tensor_indices(c, x, args[1])
    for t, value in enumerate(idx):
        c.check_indices(value, x.shape[p + t],
                        lo=None if negative else 0)
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
    for t, value in enumerate(idx):
        c.check_indices(value, x.shape[p + t])
    indexed = x.shape[:p] + shape + x.shape[p + n:]
    try:
        broadcast_shape(v.shape, indexed)
    except ValueError as error:
        raise c.error("the value of shape %s does not broadcast to the "
                      "indexed shape %s (%s)" % (v.shape, indexed, error))
    if broadcast_shape(v.shape, indexed) != indexed:
        raise c.error("the value of shape %s is larger than the indexed "
                      "shape %s" % (v.shape, indexed))
    # Loops: x's dims, then one reduction loop per index dimension; none
    # for one index (a cache written at one position): x's elements are
    # then all parallel points.
    single = all(is_static(d) and d == 1 for d in shape)
    ks = ["0"] * r if single else ["d%d" % (rank + i) for i in range(r)]
    # Where each loop of the indexed shape lives among the generic's loops.
    indexed_loops = ["d%d" % d for d in range(p)] + ks + \
        ["d%d" % d for d in range(p + n, rank)]
    v_map = [e if e == "0" else indexed_loops[int(e[1:])]
             for e in c.broadcast_map(v.shape, indexed)]
    maps_of = (lambda loops: [["0"] * len(m.shape) for m in idx]) \
        if single else maps

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
    # x itself is the destination: bufferization writes it in place where
    # x is not read again (a module buffer written in place), else copies.
    return c.generic(
        x.shape, list(zip(idx, maps_of(ks))) + [(v, v_map)], body,
        init=x.name,
        iterators=["parallel"] * rank + ([] if single else ["reduction"] * r),
        out_map=["d%d" % d for d in range(rank)], out_elem=x.elem)


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


def index_select(c, args, kwargs):
    """index_select(x, dim, index): the gather of aten::index along dim."""
    x = c.value(args[0])
    dim = args[1] % len(x.shape)
    return index(c, [args[0], [None] * dim + [args[2]]], {}, negative=False)


def gather(c, args, kwargs):
    """gather(x, dim, index): out[i...] = x[i... with index[i...] at dim]
    (an index outside the dimension fails the call; the kernel reads the
    nearest element)."""
    x, idx = c.value(args[0]), c.value(args[2])
    dim = args[1] % len(x.shape)
    if idx.elem != "i64":
        raise c.error("gather takes int64 indices, not %s" % idx.elem)
    if is_static(x.shape[dim]):
        c.check_indices(idx, x.shape[dim], lo=0)

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


# How scatter_reduce (and scatter_add, index_add) fold a value into the
# element: the float and the int64 op.
COMBINERS = {"sum": ("arith.addf", "arith.addi"),
             "prod": ("arith.mulf", "arith.muli"),
             "amax": ("arith.maximumf", "arith.maxsi"),
             "amin": ("arith.minimumf", "arith.minsi")}


def scatter(mode):
    """scatter (src or value), scatter_add, scatter_reduce (sum, prod,
    amax, amin, x's own value included), index_add and index_copy: writes
    along `dim` where the index names a position, as one generic over x's
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
        combine = mode
        if mode == "reduce":
            # scatter_reduce(x, dim, index, src, reduce, include_self=True)
            combine = args[4] if len(args) > 4 else kwargs.get("reduce")
            include_self = args[5] if len(args) > 5 else kwargs.get(
                "include_self", True)
            if combine not in ("sum", "prod", "amax", "amin"):
                raise c.error("scatter_reduce '%s' is not supported (sum, "
                              "prod, amax, amin)" % combine)
            if not include_self:
                raise c.error("scatter_reduce with include_self=False is "
                              "not supported")
        if mode in ("index_add", "index_copy"):
            source = args[3]
            alpha = float(kwargs.get("alpha", args[4] if len(args) > 4
                                     else 1)) if mode == "index_add" else 1.0
            if len(idx.shape) != 1:
                raise c.error("%s takes a 1-D index" % mode)
        else:
            source = args[3] if len(args) > 3 else kwargs.get(
                "src", kwargs.get("value"))
        if idx.elem != "i64":
            raise c.error("the index must be int64, not %s" % idx.elem)
        if is_static(x.shape[dim]):
            # Outside the dimension: nothing is written, and the call fails.
            c.check_indices(idx, x.shape[dim], lo=0)
        one_d = mode in ("index_add", "index_copy")
        if not one_d and (len(idx.shape) != rank or any(
                normal_dim(idx.shape[d]) != normal_dim(x.shape[d])
                for d in range(rank) if d != dim)):
            raise c.error("scatter with an index smaller than the tensor "
                          "off the scattered dimension is not supported")
        if not is_static(x.shape[dim]):
            raise c.error("scatter along a symbolic size is not supported")
        # One index (a cache written at one position): no reduction loop,
        # every element of x is one parallel point.
        count = idx.shape[0 if one_d else dim]
        single = is_static(count) and count == 1
        k = "0" if single else "d%d" % rank
        loops = ["parallel"] * rank + ([] if single else ["reduction"])
        along = ["d%d" % d if d != dim else k for d in range(rank)]
        idx_map = [k] if one_d else along
        inputs = [(idx, idx_map)]
        if isinstance(source, dict):
            inputs.append((c.value(source), along))
        elif not isinstance(source, (int, float)) or isinstance(source,
                                                                bool):
            raise c.error("the scattered value must be a tensor or number")
        combine = {"add": "sum", "index_add": "sum"}.get(combine, combine)
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
            if combine in COMBINERS:
                op = COMBINERS[combine][value_elem == "i64"]
                lines += ["%%sum = %s %s, %s : %s" % (op, o, value,
                                                      value_elem),
                          "%%r = arith.select %%hit, %%sum, %s : %s"
                          % (o, value_elem)]
            else:
                lines.append("%%r = arith.select %%hit, %s, %s : %s"
                             % (value, o, value_elem))
            return lines, "%r"
        if combine not in COMBINERS and (
                len(inputs) < 2 or c.value(source).elem == x.elem):
            # A copy needs no arithmetic: x itself is the destination, in
            # its own type, and bufferization writes it in place where x is
            # not read again (a key/value cache's update writes the cache).
            return c.generic(x.shape, inputs, body, init=x.name,
                             out_map=["d%d" % d for d in range(rank)],
                             iterators=loops,
                             out_elem=x.elem)
        init = c.copy(c.cast(x, value_elem) if value_elem != x.elem
                      else x)
        return c.generic(x.shape, inputs, body, init=init.name,
                         out_map=["d%d" % d for d in range(rank)],
                         iterators=loops, out_elem=value_elem)
    return convert


def take_along_dim(c, args, kwargs):
    """take_along_dim(x, indices, dim): gather with indices broadcast
    against x except along dim; with no dim, of the flattened tensor."""
    x, idx = c.value(args[0]), c.value(args[1])
    dim = args[2] if len(args) > 2 else kwargs.get("dim")
    if dim is None:
        flat = [from_product(product(x.shape))]
        return gather(c, [c.reshape(x, flat), 0,
                          c.reshape(idx, [from_product(product(idx.shape))])],
                      {})
    rank = len(x.shape)
    if len(idx.shape) != rank:
        raise c.error("take_along_dim needs indices of rank %d, got %s"
                      % (rank, idx.shape))
    dim %= rank
    others = [d for d in range(rank) if d != dim]
    try:
        common = broadcast_shape([x.shape[d] for d in others],
                                 [idx.shape[d] for d in others])
    except ValueError as error:
        raise c.error(str(error))

    def spread(v, along):
        shape = list(common)
        shape.insert(dim, along)
        if v.shape == shape:
            return v
        return c.generic(shape, [(v, c.broadcast_map(v.shape, shape))],
                         lambda a, o: ([], a[0]), out_elem=v.elem)
    return gather(c, [spread(x, x.shape[dim]), dim,
                      spread(idx, idx.shape[dim])], {})


def index_fill(c, args, kwargs):
    """index_fill(x, dim, index, value): the slices of x at `index` along
    `dim` set to `value` (a number or a 0-d tensor)."""
    x, dim, idx = c.value(args[0]), args[1], c.value(args[2])
    value = args[3]
    dim %= len(x.shape)
    size = x.shape[dim]
    if not is_static(size):
        raise c.error("index_fill along a symbolic size is not supported")
    if idx.elem != "i64" or len(idx.shape) > 1:
        raise c.error("index_fill takes a vector of int64 indices")
    if not idx.shape:
        idx = c.reshape(idx, [1])
    value = c.value(value) if isinstance(value, dict) else float(value)
    # hit[j]: some index names j (negative indices count from the end).
    matches = c.generic([size, idx.shape[0]], [(idx, ["d1"])], lambda a, o: ([
        "%j = linalg.index 0 : index",
        "%j64 = arith.index_cast %j : index to i64",
        "%%size = arith.constant %d : i64" % size,
        "%zero = arith.constant 0 : i64",
        "%%neg = arith.cmpi slt, %s, %%zero : i64" % a[0],
        "%%wrapped = arith.addi %s, %%size : i64" % a[0],
        "%%k = arith.select %%neg, %%wrapped, %s : i64" % a[0],
        "%r = arith.cmpi eq, %k, %j64 : i64"], "%r"), out_elem="i1")
    hits = c.reduce(matches, [1], "max")
    shape = [1] * len(x.shape)
    shape[dim] = size
    hit = c.elementwise([c.reshape(hits, shape), 0], lambda n: (
        ["%%r = arith.cmpi sgt, %s, %s : i64" % tuple(n)], "%r"),
        out_elem="i1", scalar_elem="i64")
    if x.elem == "i64" and isinstance(value, float) and value.is_integer():
        return c.elementwise([hit, int(value), x], lambda n: (
            ["%%r = arith.select %s, %s, %s : i64" % tuple(n)], "%r"),
            keep_bool=(0,), out_elem="i64", scalar_elem="i64")
    return c.elementwise([hit, value, x], lambda n: (
        ["%%r = arith.select %s, %s, %s : f32" % tuple(n)], "%r"),
        keep_bool=(0,))


def embedding_bag(c, args, kwargs):
    """_embedding_bag / embedding_bag: per bag (the indices from its offset
    to the next one's, the last to the end unless include_last_offset),
    the sum, mean or max of the weight rows the indices pick, each scaled
    by its per-sample weight; entries equal to padding_idx are left out,
    and an empty bag is zeros, as PyTorch gives. Only the first result is
    computed."""
    names = ["weight", "indices", "offsets", "scale_grad_by_freq", "mode",
             "sparse", "per_sample_weights", "include_last_offset",
             "padding_idx"]
    given = dict(zip(names, args))
    given.update(kwargs)
    weight, idx = c.value(given["weight"]), c.value(given["indices"])
    offsets = c.value(given["offsets"])
    mode = int(given.get("mode", 0))
    last_offset = bool(given.get("include_last_offset", False))
    padding = given.get("padding_idx")
    padding = -1 if padding is None else int(padding)
    scales = given.get("per_sample_weights")
    scales = c.value(scales) if scales is not None else None
    if len(weight.shape) != 2 or len(idx.shape) != 1 or \
            len(offsets.shape) != 1 or idx.elem != "i64" or \
            offsets.elem != "i64":
        raise c.error("embedding_bag takes a 2-D weight and 1-D int64 "
                      "indices and offsets (2-D indices are bags of their "
                      "own rows: flatten them with offsets)")
    if mode not in (0, 1, 2):
        raise c.error("embedding_bag mode %d is not sum, mean or max" % mode)
    if not all(is_static(d) for d in weight.shape + idx.shape +
               offsets.shape):
        raise c.error("embedding_bag of symbolic sizes is not supported")
    rows, width = weight.shape
    c.check_indices(idx, rows, lo=0)
    count = idx.shape[0]
    bags = offsets.shape[0] - (1 if last_offset else 0)
    if bags < 1:
        raise c.error("embedding_bag needs at least one bag")
    following = "d0 + 1" if last_offset else "(d0 + 1) mod %d" % bags
    # The bags' starts: all offsets but an included last one (linalg takes
    # the bag loop's range from the operand it indexes whole).
    starts = sliced(c, offsets, 0, 0, bags, 1) if last_offset else offsets
    inputs = [(idx, ["d2"]), (starts, ["d0"]), (offsets, [following])]
    if scales is not None:
        inputs.append((scales, ["d2"]))

    def in_bag(a):
        """Lines computing %in: index k belongs to bag b (and is not the
        padding index)."""
        lines = ["%b = linalg.index 0 : index",
                 "%k = linalg.index 2 : index",
                 "%k64 = arith.index_cast %k : index to i64"]
        if last_offset:
            end = a[2]
        else:
            lines += ["%%last = arith.constant %d : index" % (bags - 1),
                      "%is_last = arith.cmpi eq, %b, %last : index",
                      "%%count = arith.constant %d : i64" % count,
                      "%%end = arith.select %%is_last, %%count, %s : i64"
                      % a[2]]
            end = "%end"
        lines += ["%%after = arith.cmpi sge, %%k64, %s : i64" % a[1],
                  "%%before = arith.cmpi slt, %%k64, %s : i64" % end,
                  "%in = arith.andi %after, %before : i1"]
        if padding >= 0:
            lines += ["%%pad = arith.constant %d : i64" % padding,
                      "%%real = arith.cmpi ne, %s, %%pad : i64" % a[0],
                      "%in_real = arith.andi %in, %real : i1"]
            return lines, "%in_real"
        return lines, "%in"

    def gathered(a, o):
        lines, inside = in_bag(a)
        lines += _clamped_index("row", a[0], rows)
        lines += ["%col = linalg.index 1 : index"]
        read, value = _extract_lines(weight, ["%row_in", "%col"])
        lines += read
        if scales is not None:
            lines.append("%%scaled = arith.mulf %s, %s : f32"
                         % (value, a[3]))
            value = "%scaled"
        fold = "arith.maximumf" if mode == 2 else "arith.addf"
        lines += ["%%folded = %s %s, %s : f32" % (fold, o, value),
                  "%%r = arith.select %s, %%folded, %s : f32" % (inside, o)]
        return lines, "%r"
    iterators = ["parallel", "parallel", "reduction"]
    init = c.filled([bags, width], -math.inf if mode == 2 else 0.0,
                    device=weight.device)
    total = c.generic([bags, width], inputs, gathered, init=init,
                      out_map=["d0", "d1"], iterators=iterators)
    # Bag sizes, for the mean and for empty bags (zeros, not -inf).
    sizes = None
    if mode in (1, 2):
        def counted(a, o):
            lines, inside = in_bag(a)
            return lines + [
                "%one = arith.constant 1.000000000e+00 : f32",
                "%%plus = arith.addf %s, %%one : f32" % o,
                "%%r = arith.select %s, %%plus, %s : f32" % (inside, o)], "%r"
        sizes = c.generic([bags, 1], inputs[:3], counted,
                          init=c.filled([bags, 1], 0.0, device=weight.device),
                          out_map=["d0", "d1"], iterators=iterators)
        total = c.elementwise([total, sizes], lambda n: (
            ["%zero = arith.constant 0.000000000e+00 : f32",
             "%%empty = arith.cmpf oeq, %s, %%zero : f32" % n[1],
             ("%%q = arith.divf %s, %s : f32" % (n[0], n[1])) if mode == 1
             else ("%%q = arith.addf %s, %%zero : f32" % n[0]),
             "%r = arith.select %empty, %zero, %q : f32"], "%r"))
    why = "embedding_bag's offset2bag, bag_size and max_indices are not " \
          "computed"
    return [total, Unusable(why), Unusable(why), Unusable(why)]


def searchsorted(c, sequence, values, right, out_int32, sorter):
    """The insertion points of `values` in the last dimension of the sorted
    `sequence` (1-D, or with the values' leading dimensions): the number
    of elements below each value (right: at or below), one int64
    reduction over the sequence. Counting "not at or above" (right: "not
    above") is what PyTorch's binary search finds, NaN values included:
    they go after every element."""
    if sorter is not None:
        raise c.error("a sorter is not supported (sort the sequence first)")
    if out_int32:
        raise c.error("out_int32=True is not supported (int64 results)")
    if sequence.elem != values.elem:
        sequence, values = c.cast(sequence, "f32"), c.cast(values, "f32")
    rank = len(values.shape)
    if len(sequence.shape) == 1:
        lead, seq_map = [], ["d%d" % rank]
    elif (len(sequence.shape) == rank and
          list(sequence.shape[:-1]) == list(values.shape[:-1])):
        lead = ["d%d" % i for i in range(rank - 1)]
        seq_map = lead + ["d%d" % rank]
    else:
        raise c.error("the sorted sequence has shape %s: it must be 1-D or "
                      "have the values' leading dimensions %s" % (
                          list(sequence.shape), list(values.shape[:-1])))
    integer = values.elem == "i64"
    predicate = ("sle" if right else "slt") if integer else \
        ("ule" if right else "ult")
    compare = "arith.cmpi" if integer else "arith.cmpf"
    kind = "i64" if integer else "f32"

    def body(a, o):
        # a[0]: the value, a[1]: the sequence's element.
        return ["%%below = %s %s, %s, %s : %s" % (
                    compare, predicate, a[1], a[0], kind),
                "%one = arith.extui %below : i1 to i64",
                "%%r = arith.addi %s, %%one : i64" % o], "%r"
    out_map = ["d%d" % i for i in range(rank)]
    init = c.filled(list(values.shape), 0, "i64", device=values.device)
    return c.generic(list(values.shape), [(values, out_map),
                                          (sequence, seq_map)], body,
                     init=init,
                     iterators=["parallel"] * rank + ["reduction"],
                     out_map=out_map, out_elem="i64")


def searchsorted_op(c, args, kwargs):
    """searchsorted(sorted_sequence, values, *, out_int32, right, side,
    sorter); side "right" is right=True."""
    side = kwargs.get("side")
    if side not in (None, "left", "right"):
        raise c.error("side must be 'left' or 'right', got %r" % (side,))
    right = bool(kwargs.get("right", False)) or side == "right"
    if not isinstance(args[1], dict):
        raise c.error("searchsorted of a scalar value is not supported "
                      "(pass a tensor)")
    return searchsorted(c, c.value(args[0]), c.value(args[1]), right,
                        kwargs.get("out_int32", False), kwargs.get("sorter"))


def bucketize(c, args, kwargs):
    """bucketize(input, boundaries, *, out_int32, right): searchsorted of
    the input in the 1-D boundaries."""
    boundaries = c.value(args[1])
    if len(boundaries.shape) != 1:
        raise c.error("bucketize's boundaries must be 1-D")
    if not isinstance(args[0], dict):
        raise c.error("bucketize of a scalar is not supported (pass a tensor)")
    return searchsorted(c, boundaries, c.value(args[0]),
                        bool(kwargs.get("right", False)),
                        kwargs.get("out_int32", False), None)
