"""Shape ops: view/reshape, unsqueeze/squeeze, transpose, expand, slice
and select (tensor.extract_slice, `sliced` values), cat, stack, split and
unbind, constant padding, flip, repeat, and the ops that are their operand
(clone, detach, alias). On values a view is a tensor of the viewed
elements; which ops alias their operand, for in-place writes, is VIEW_OPS
in ops/__init__.py.
"""
from .common import (HALF_TYPES, Value, dims_arg, divide, from_product,
                     is_static, literal, normal_dim, product, tensor_type)


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


def slice_frame(c, x, dim, start, end, step):
    """aten::slice's window of `x` as tensor.extract_slice / insert_slice
    operands: (offsets, sizes, strides), or None when it is the whole of a
    symbolic dimension."""
    rank = len(x.shape)
    dim %= rank
    size = x.shape[dim]
    start = 0 if start is None else start
    end = size if end is None else end
    if not is_static(size) or not is_static(start) or not is_static(end):
        # Along a symbolic dimension: only the whole of it.
        if start == 0 and step == 1 and (normal_dim(end) == size or (
                is_static(end) and end >= 2 ** 62)):
            return None
        raise c.error("slicing part of a symbolic dimension (%s) is not "
                      "supported" % size)
    if step < 1:
        raise c.error("slice step %d is not positive" % step)
    start = max(0, min(size, start + size if start < 0 else start))
    end = max(start, min(size, end + size if end < 0 else end))
    count = (end - start + step - 1) // step
    offsets, sizes, strides = [0] * rank, list(x.shape), [1] * rank
    offsets[dim], sizes[dim], strides[dim] = start, count, step
    return offsets, sizes, strides


def slice_op(c, args, kwargs):
    return sliced(c, c.value(args[0]), args[1] if len(args) > 1 else 0,
                  args[2] if len(args) > 2 else None,
                  args[3] if len(args) > 3 else None,
                  args[4] if len(args) > 4 else 1)


def sliced(c, x, dim, start, end, step):
    """`x[start:end:step]` along `dim`."""
    frame = slice_frame(c, x, dim, start, end, step)
    if frame is None:
        return x
    offsets, sizes, strides = frame
    out = Value(c.fresh("slice"), sizes, sliced=True, elem=x.elem,
                device=x.device)
    c.emit("%s = tensor.extract_slice %s%s%s%s : %s to %s" % (
        out.name, x.name, offsets, c.sizes(sizes), strides, x.type,
        out.type))
    return out


def select_index(c, x, dim, index):
    """`index` of dimension `dim` of `x`, made non-negative and checked."""
    if not is_static(x.shape[dim]):
        raise c.error("select along a symbolic dimension (%s) is not "
                      "supported" % x.shape[dim])
    position = index + x.shape[dim] if index < 0 else index
    if not 0 <= position < x.shape[dim]:
        raise c.error("index %d out of range for size %d"
                      % (index, x.shape[dim]))
    return position


def select(c, args, kwargs):
    x = c.value(args[0])
    rank = len(x.shape)
    dim = args[1] % rank
    offsets, sizes = [0] * rank, list(x.shape)
    offsets[dim], sizes[dim] = select_index(c, x, dim, args[2]), 1
    out = Value(c.fresh("select"), x.shape[:dim] + x.shape[dim + 1:],
                sliced=True, elem=x.elem, device=x.device)
    c.emit("%s = tensor.extract_slice %s%s%s%s : %s to %s" % (
        out.name, x.name, offsets, c.sizes(sizes), [1] * rank, x.type,
        out.type))
    return out


def insert(c, x, src, offsets, sizes, strides, where):
    """`x` with the window (offsets, sizes, strides) replaced by `src`, of
    the window's shape without its unit dimensions `where` says."""
    src = c.cast(src, x.elem)
    c.device_of([x, src])
    want = [d for i, d in enumerate(sizes) if i not in where]
    if [normal_dim(d) for d in src.shape] != [normal_dim(d) for d in want]:
        raise c.error("the source's shape %s is not the window's %s"
                      % (src.shape, want))
    name = c.fresh("scattered")
    c.emit("%s = tensor.insert_slice %s into %s%s%s%s : %s into %s" % (
        name, src.name, x.name, offsets, c.sizes(sizes), strides, src.type,
        x.type))
    return Value(name, x.shape, elem=x.elem, device=x.device)


def slice_scatter(c, args, kwargs):
    """`x` with a slice (aten::slice's operands) replaced by `src`: what
    torch.export's functionalization makes of a write through a slice."""
    x, src = c.value(args[0]), c.value(args[1])
    given = dict(zip(["dim", "start", "end", "step"], args[2:]))
    given.update(kwargs)
    frame = slice_frame(c, x, given.get("dim", 0), given.get("start"),
                        given.get("end"), given.get("step", 1))
    if frame is None:
        frame = [0] * len(x.shape), list(x.shape), [1] * len(x.shape)
    return insert(c, x, src, *frame, where=())


def select_scatter(c, args, kwargs):
    """`x` with index `index` of dimension `dim` replaced by `src` (a write
    through x.select(dim, index), functionalized)."""
    x, src = c.value(args[0]), c.value(args[1])
    given = dict(zip(["dim", "index"], args[2:]))
    given.update(kwargs)
    rank = len(x.shape)
    dim = given["dim"] % rank
    offsets, sizes = [0] * rank, list(x.shape)
    offsets[dim], sizes[dim] = select_index(c, x, dim, given["index"]), 1
    return insert(c, x, src, offsets, sizes, [1] * rank, where=(dim,))


def cat(c, args, kwargs):
    return cat_values(c, [c.value(a) for a in args[0]],
                      args[1] if len(args) > 1 else kwargs.get("dim", 0))


# Most pieces a cat reads per output element when it is one elementwise op.
CAT_MAX_SELECTED = 4


def cat_values(c, tensors, dim):
    elem = tensors[0].elem
    tensors = [c.cast(t, elem) for t in tensors]
    rank = len(tensors[0].shape)
    dim %= rank
    shape = list(tensors[0].shape)
    if not all(is_static(t.shape[dim]) for t in tensors):
        raise c.error("cat along a symbolic dimension is not supported")
    shape[dim] = sum(t.shape[dim] for t in tensors)
    pieces = [t for t in tensors if t.shape[dim] != 0]
    if 2 <= len(pieces) <= CAT_MAX_SELECTED:
        return cat_selected(c, pieces, dim, shape)
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


def cat_selected(c, pieces, dim, shape):
    """The cat of a few pieces as one elementwise op: output element j
    (along `dim`) picks piece i where offset_i <= j < offset_i+1. Each
    piece is read at (j - offset_i) mod size_i, which is j's position in
    it where it is picked and stays inside it elsewhere, so every read is
    in bounds with plain affine maps. Unlike a chain of slice writes into
    one buffer, this fuses with the pieces' producers and the cat's
    consumers (rotate_half in rotary embeddings: a negation, a cat and a
    multiply-add become one kernel)."""
    rank = len(shape)
    inputs, offsets, offset = [], [], 0
    for t in pieces:
        exprs = ["d%d" % k for k in range(rank)]
        exprs[dim] = ("d%d mod %d" % (dim, t.shape[dim]) if offset == 0 else
                      "(d%d - %d) mod %d" % (dim, offset, t.shape[dim]))
        inputs.append((t, exprs))
        offsets.append(offset)
        offset += t.shape[dim]

    # The body sees half pieces extended to f32 (Converter.generic).
    value_type = "f32" if pieces[0].elem in HALF_TYPES else pieces[0].elem

    def body(args, out):
        lines = ["%%at = linalg.index %d : index" % dim]
        picked = args[-1]
        for i in range(len(pieces) - 2, -1, -1):
            lines += ["%%end%d = arith.constant %d : index" % (i, offsets[i + 1]),
                      "%%in_piece%d = arith.cmpi ult, %%at, %%end%d : index"
                      % (i, i),
                      "%%picked%d = arith.select %%in_piece%d, %s, %s : %s"
                      % (i, i, args[i], picked, value_type)]
            picked = "%%picked%d" % i
        return lines, picked

    return c.generic(shape, inputs, body, out_elem=pieces[0].elem)


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


def identity(c, args, kwargs):
    return c.value(args[0])


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
    return flipped(c, c.value(args[0]), args[1])


def flipped(c, x, dims):
    """`x` reversed along `dims`."""
    rank = len(x.shape)
    dims = {d % rank for d in dims}
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


def roll(c, args, kwargs):
    """torch.roll: elements shifted along dims, wrapping around; with no
    dims, over the flattened tensor."""
    x = c.value(args[0])
    shifts = args[1] if len(args) > 1 else kwargs.get("shifts")
    dims = args[2] if len(args) > 2 else kwargs.get("dims", [])
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims or [])
    if not all(is_static(d) for d in x.shape):
        raise c.error("rolling a symbolic size is not supported")
    if not dims:
        if len(shifts) != 1:
            raise c.error("roll without dims takes one shift")
        flat = c.reshape(x, [from_product(product(x.shape))])
        return c.reshape(rolled(c, flat, shifts, [0]), x.shape)
    return rolled(c, x, shifts, dims)


def rolled(c, x, shifts, dims):
    if len(shifts) != len(dims):
        raise c.error("roll needs as many shifts as dims, got %d and %d"
                      % (len(shifts), len(dims)))
    rank = len(x.shape)
    offsets = [0] * rank
    for shift, dim in zip(shifts, dims):
        dim = dim % rank
        offsets[dim] = (offsets[dim] - shift) % max(x.shape[dim], 1)
    exprs = ["(d%d + %d) mod %d" % (d, offsets[d], x.shape[d]) if offsets[d]
             else "d%d" % d for d in range(rank)]
    return c.generic(x.shape, [(x, exprs)], lambda a, o: ([], a[0]),
                     out_elem=x.elem)


def static_shape(c, x, what):
    if not all(is_static(d) for d in x.shape):
        raise c.error("%s of a symbolic size is not supported" % what)
    return list(x.shape)


def pixel_shuffle(c, args, kwargs):
    """[*, C*r*r, H, W] -> [*, C, H*r, W*r]."""
    x = c.value(args[0])
    r = int(args[1] if len(args) > 1 else kwargs["upscale_factor"])
    shape = static_shape(c, x, "pixel_shuffle")
    if len(shape) < 3 or shape[-3] % (r * r):
        raise c.error("pixel_shuffle needs [*, C*%d, H, W], got %s"
                      % (r * r, shape))
    lead = len(shape) - 3
    out = shape[:lead] + [shape[-3] // (r * r), shape[-2] * r, shape[-1] * r]
    c_, h, w = "d%d" % lead, "d%d" % (lead + 1), "d%d" % (lead + 2)
    exprs = ["d%d" % d for d in range(lead)] + [
        "%s * %d + (%s mod %d) * %d + %s mod %d" % (c_, r * r, h, r, r, w, r),
        "%s floordiv %d" % (h, r), "%s floordiv %d" % (w, r)]
    return c.generic(out, [(x, exprs)], lambda a, o: ([], a[0]),
                     out_elem=x.elem)


def pixel_unshuffle(c, args, kwargs):
    """[*, C, H*r, W*r] -> [*, C*r*r, H, W]."""
    x = c.value(args[0])
    r = int(args[1] if len(args) > 1 else kwargs["downscale_factor"])
    shape = static_shape(c, x, "pixel_unshuffle")
    if len(shape) < 3 or shape[-2] % r or shape[-1] % r:
        raise c.error("pixel_unshuffle needs [*, C, H*%d, W*%d], got %s"
                      % (r, r, shape))
    lead = len(shape) - 3
    out = shape[:lead] + [shape[-3] * r * r, shape[-2] // r, shape[-1] // r]
    c_, h, w = "d%d" % lead, "d%d" % (lead + 1), "d%d" % (lead + 2)
    exprs = ["d%d" % d for d in range(lead)] + [
        "%s floordiv %d" % (c_, r * r),
        "%s * %d + (%s mod %d) floordiv %d" % (h, r, c_, r * r, r),
        "%s * %d + %s mod %d" % (w, r, c_, r)]
    return c.generic(out, [(x, exprs)], lambda a, o: ([], a[0]),
                     out_elem=x.elem)


def channel_shuffle(c, args, kwargs):
    """[N, C, *]: channels seen as [groups, C / groups], transposed."""
    x = c.value(args[0])
    groups = int(args[1] if len(args) > 1 else kwargs["groups"])
    shape = static_shape(c, x, "channel_shuffle")
    if len(shape) < 2 or groups <= 0 or shape[1] % groups:
        raise c.error("channel_shuffle needs channels divisible by %d, got %s"
                      % (groups, shape))
    per_group = shape[1] // groups
    exprs = ["d%d" % d for d in range(len(shape))]
    exprs[1] = "(d1 mod %d) * %d + d1 floordiv %d" % (groups, per_group,
                                                      groups)
    return c.generic(shape, [(x, exprs)], lambda a, o: ([], a[0]),
                     out_elem=x.elem)


def edge_pad(mode):
    """reflection_pad{1,2,3}d and replication_pad{1,2,3}d: the padding
    (last dimension's low and high first) made of pieces read through
    affine maps (mirrored without the edge, or the edge repeated), joined
    to the tensor with cat."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        padding = list(args[1] if len(args) > 1 else kwargs["padding"])
        rank = len(x.shape)
        if len(padding) % 2 or len(padding) // 2 > rank:
            raise c.error("padding %s does not fit a tensor of rank %d"
                          % (padding, rank))
        for i in range(len(padding) // 2):
            x = pad_dim(c, x, rank - 1 - i, padding[2 * i],
                        padding[2 * i + 1], mode)
        return x
    return convert


def pad_dim(c, x, dim, low, high, mode):
    size = x.shape[dim]
    if not is_static(size):
        raise c.error("%s padding of a symbolic size is not supported" % mode)
    if low < 0 or high < 0:
        raise c.error("negative %s padding is not supported" % mode)
    if mode == "reflection" and (low >= size or high >= size):
        raise c.error("reflection padding (%d, %d) must be below the "
                      "dimension's size %d" % (low, high, size))
    pieces = []
    for count, start in ((low, low), (None, None), (high, size - 2)):
        if count is None:
            pieces.append(x)
            continue
        if count == 0:
            continue
        shape = list(x.shape)
        shape[dim] = count
        exprs = ["d%d" % d for d in range(len(shape))]
        if mode == "reflection":
            exprs[dim] = "%d - d%d" % (start, dim)
        else:
            exprs[dim] = "0" if start == low else "%d" % (size - 1)
        pieces.append(c.generic(shape, [(x, exprs)], lambda a, o: ([], a[0]),
                                out_elem=x.elem))
    return cat_values(c, pieces, dim) if len(pieces) > 1 else x


def diag(c, args, kwargs):
    """A vector to a square matrix with it on diagonal `diagonal`, or a
    matrix's diagonal `diagonal` as a vector."""
    x = c.value(args[0])
    k = int(args[1] if len(args) > 1 else kwargs.get("diagonal", 0))
    shape = static_shape(c, x, "diag")
    if len(shape) == 2:
        rows, cols = shape
        count = max(0, min(rows + min(k, 0), cols - max(k, 0)))
        if count == 0:
            raise c.error("diagonal %d of a %dx%d matrix is empty" % (
                k, rows, cols))
        # The square window the diagonal crosses, then its main diagonal
        # (linalg wants one size for a loop read twice).
        square = sliced(c, sliced(c, x, 0, max(-k, 0), max(-k, 0) + count, 1),
                        1, max(k, 0), max(k, 0) + count, 1)
        return c.generic([count], [(square, ["d0", "d0"])],
                         lambda a, o: ([], a[0]), out_elem=x.elem)
    if len(shape) != 1:
        raise c.error("diag takes a vector or a matrix, got shape %s" % shape)
    length = shape[0]
    n = length + abs(k)
    if length == 0:
        raise c.error("diag of an empty vector is not supported")
    on_diagonal = c.generic([n, n], [], lambda a, o: ([
        "%i = linalg.index 0 : index", "%j = linalg.index 1 : index",
        "%%k = arith.constant %d : index" % k,
        "%ik = arith.addi %i, %k : index",
        "%r = arith.cmpi eq, %ik, %j : index"], "%r"), out_elem="i1")
    # On the diagonal, row i holds x[i] (k >= 0) and column j x[j] (k < 0);
    # elsewhere the read is kept in bounds and not used.
    picked = c.generic([n, n], [(x, ["d%d mod %d" % (0 if k >= 0 else 1,
                                                     length)])],
                       lambda a, o: ([], a[0]), out_elem=x.elem)
    return c.elementwise([on_diagonal, picked, 0.0], lambda n_: (
        ["%%r = arith.select %s, %s, %s : f32" % tuple(n_)], "%r"),
        keep_bool=(0,))


def diagonal(c, args, kwargs):
    """torch.diagonal(x, offset, dim1, dim2): the diagonal `offset` of the
    matrices in dimensions dim1 and dim2, as the last dimension after the
    others (a copy: tensors are values here)."""
    x = c.value(args[0])
    offset = int(args[1] if len(args) > 1 else kwargs.get("offset", 0))
    if len(x.shape) < 2:
        raise c.error("diagonal takes a tensor of rank 2 or more")
    return diagonal_of(c, x, offset,
                       int(args[2] if len(args) > 2 else kwargs.get("dim1", 0)),
                       int(args[3] if len(args) > 3 else kwargs.get("dim2", 1)))


def diagonal_of(c, x, offset, dim1, dim2):
    rank = len(x.shape)
    dim1, dim2 = dim1 % rank, dim2 % rank
    if dim1 == dim2:
        raise c.error("diagonal dimensions cannot be identical (%d)" % dim1)
    rows, cols = x.shape[dim1], x.shape[dim2]
    if not (is_static(rows) and is_static(cols)):
        raise c.error("the diagonal of symbolic sizes is not supported")
    count = max(0, min(rows + min(offset, 0), cols - max(offset, 0)))
    if count == 0:
        raise c.error("diagonal %d of %dx%d matrices is empty" % (
            offset, rows, cols))
    others = [d for d in range(rank) if d not in (dim1, dim2)]
    moved = c.permute(x, others + [dim1, dim2])
    lead = len(others)
    # The square window the diagonal crosses, then its main diagonal.
    square = sliced(c, sliced(c, moved, lead, max(-offset, 0),
                              max(-offset, 0) + count, 1),
                    lead + 1, max(offset, 0), max(offset, 0) + count, 1)
    dims = ["d%d" % i for i in range(lead + 1)]
    return c.generic([moved.shape[i] for i in range(lead)] + [count],
                     [(square, dims + [dims[-1]])], lambda a, o: ([], a[0]),
                     out_elem=x.elem)


def diag_embed(c, args, kwargs):
    """torch.diag_embed(x, offset, dim1, dim2): the last dimension of x on
    diagonal `offset` of new matrices in output dimensions dim1 and dim2
    (size n + |offset|), zero elsewhere; the other dimensions of x keep
    their order."""
    x = c.value(args[0])
    offset = int(args[1] if len(args) > 1 else kwargs.get("offset", 0))
    rank = len(x.shape) + 1
    dim1 = int(args[2] if len(args) > 2 else kwargs.get("dim1", -2)) % rank
    dim2 = int(args[3] if len(args) > 3 else kwargs.get("dim2", -1)) % rank
    if dim1 == dim2:
        raise c.error("diag_embed dimensions cannot be identical (%d)" % dim1)
    if len(x.shape) == 0:
        raise c.error("diag_embed takes a tensor of rank 1 or more")
    length = x.shape[-1]
    if not is_static(length):
        raise c.error("diag_embed of a symbolic size is not supported")
    if length == 0:
        raise c.error("diag_embed of an empty last dimension is not supported")
    if x.elem == "i1":
        raise c.error("diag_embed of a bool tensor is not supported")
    n = length + abs(offset)
    others = [d for d in range(rank) if d not in (dim1, dim2)]
    shape = [None] * rank
    for out_dim, size in zip(others, x.shape[:-1]):
        shape[out_dim] = size
    shape[dim1] = shape[dim2] = n
    on_diagonal = c.generic(shape, [], lambda a, o: ([
        "%%i = linalg.index %d : index" % dim1,
        "%%j = linalg.index %d : index" % dim2,
        "%%k = arith.constant %d : index" % offset,
        "%ik = arith.addi %i, %k : index",
        "%r = arith.cmpi eq, %ik, %j : index"], "%r"), out_elem="i1")
    # On the diagonal, x's last index is the row (offset >= 0) or the
    # column (offset < 0); elsewhere the read is kept in bounds, unused.
    along = dim1 if offset >= 0 else dim2
    picked = c.generic(shape, [(x, ["d%d" % d for d in others] +
                                ["d%d mod %d" % (along, length)])],
                       lambda a, o: ([], a[0]), out_elem=x.elem)
    if x.elem == "i64":
        return c.elementwise([on_diagonal, picked, 0], lambda n_: (
            ["%%r = arith.select %s, %s, %s : i64" % tuple(n_)], "%r"),
            out_elem="i64", keep_bool=(0,), scalar_elem="i64")
    return c.elementwise([on_diagonal, picked, 0.0], lambda n_: (
        ["%%r = arith.select %s, %s, %s : f32" % tuple(n_)], "%r"),
        out_elem=x.elem, keep_bool=(0,))


def rot90(c, args, kwargs):
    """torch.rot90(x, k, dims): k quarter turns from dims[0] towards
    dims[1], as flips and a transpose (PyTorch's own decomposition)."""
    x = c.value(args[0])
    k = int(args[1] if len(args) > 1 else kwargs.get("k", 1)) % 4
    dims = list(args[2] if len(args) > 2 else kwargs.get("dims", [0, 1]))
    rank = len(x.shape)
    if len(dims) != 2 or rank < 2 or dims[0] % rank == dims[1] % rank:
        raise c.error("rot90 takes two distinct dimensions, got %s" % dims)
    first, second = dims[0] % rank, dims[1] % rank
    swap = list(range(rank))
    swap[first], swap[second] = second, first
    if k == 0:
        return flipped(c, x, [])
    if k == 2:
        return flipped(c, x, [first, second])
    return c.permute(flipped(c, x, [second if k == 1 else first]), swap)


def trace(c, args, kwargs):
    """torch.trace: the sum of a matrix's main diagonal."""
    x = c.value(args[0])
    if len(x.shape) != 2:
        raise c.error("trace takes a matrix, got shape %s" % list(x.shape))
    return c.reduce(diagonal_of(c, x, 0, 0, 1), [0], "sum")
