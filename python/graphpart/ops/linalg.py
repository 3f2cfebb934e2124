"""Matrix products and attention: addmm/baddbmm, torch.matmul's
broadcasting (general_matmul), linear, scaled_dot_product_attention and
the kernels it dispatches to, and tril/triu; mm and bmm are
Converter.matmul itself (their entries in ops/__init__.py).
"""
import math

from .common import (HALF_TYPES, Unusable, Value, broadcast_shape,
                     float_literal, from_product, is_static, literal, op2,
                     product)
from .reductions import softmax_of


def attention(c, args, kwargs, names, returns):
    """scaled_dot_product_attention and the kernels it dispatches to
    (math, flash; cuda_attention: efficient, cuDNN): softmax(q @ k^T * scale + mask) @ v
    over the leading (batch, head) dimensions. `names` are the operands
    after q, k, v in the op's schema; `returns` what the op gives beside
    the attention: None, "lse" (each row's log-sum-exp) or "weights" (the
    softmax). Where the runtime's fused kernel takes it (returning the
    attention only), one gp::attention call (attention_call); else
    decomposed here."""
    q, k, v = (c.value(a) for a in args[:3])
    given = dict(zip(names, args[3:]))
    given.update(kwargs)
    if given.get("dropout_p", 0.0) not in (0, 0.0, None):
        raise c.error("attention with dropout (dropout_p=%r) is not "
                      "supported; export the model in eval mode"
                      % given["dropout_p"])
    if len(q.shape) < 3 or len(k.shape) != len(q.shape) or \
            len(v.shape) != len(q.shape):
        raise c.error("attention takes q, k, v of one rank, at least 3")
    fused = fused_sdpa(c, q, k, v, given, returns)
    if fused is not None:
        return fused
    if given.get("enable_gqa"):
        k, v = grouped_heads(c, q, k), grouped_heads(c, q, v)
    batch, length, width = q.shape[:-2], q.shape[-2], q.shape[-1]
    keys = k.shape[-2]
    scale = given.get("scale")
    if scale is None:
        if not isinstance(width, int):
            raise c.error("the default scale needs a static head width")
        scale = 1.0 / math.sqrt(width)
    rows = from_product(product(batch)) if batch else 1
    if rows is None:
        raise c.error("the batch dimensions %s are not one size" % batch)

    def flat(x):
        return c.reshape(x, [rows] + x.shape[-2:])
    scores = c.matmul(flat(q), c.permute(flat(k), [0, 2, 1]))
    scores = c.reshape(scores, batch + [length, keys])
    scores = c.elementwise([scores, float(scale)],
                           lambda n: op2("arith.mulf", n))
    mask = given.get("attn_mask")
    if mask is not None:
        mask = c.value(mask)
        if mask.elem == "i1":
            scores = c.elementwise([mask, scores, -math.inf], lambda n: (
                ["%%r = arith.select %s, %s, %s : f32" % tuple(n)], "%r"),
                keep_bool=(0,))
        else:
            scores = c.elementwise([scores, mask],
                                   lambda n: op2("arith.addf", n))
    if given.get("is_causal"):
        # Row i sees keys 0..i (the top-left causal mask PyTorch uses).
        def body(a, o):
            return ["%i = linalg.index 0 : index",
                    "%j = linalg.index 1 : index",
                    "%r = arith.cmpi ule, %j, %i : index"], "%r"
        causal = c.generic([length, keys], [], body, init=c.empty(
            [length, keys], "i1", scores.device), out_elem="i1")
        causal = Value(causal.name, [length, keys], elem="i1",
                       device=scores.device)
        scores = c.elementwise([causal, scores, -math.inf], lambda n: (
            ["%%r = arith.select %s, %s, %s : f32" % tuple(n)], "%r"),
            keep_bool=(0,))
    last = len(scores.shape) - 1
    weights = softmax_of(c, scores, last, safe=True)
    out = c.matmul(flat(weights), flat(c.cast(v, "f32")))
    out = c.reshape(out, batch + [length, v.shape[-1]])
    if returns is None:
        return out
    if returns == "weights":
        return [out, weights]
    # The log-sum-exp of each row's scores (the flash kernels' second
    # result).
    high = c.reduce(scores, [last], "max")
    shifted = c.elementwise([scores, c.keepdim(high, scores.shape, [last])],
                            lambda n: op2("arith.subf", n))
    total = c.reduce(c.elementwise([shifted], lambda n: (
        ["%%r = math.exp %s : f32" % n[0]], "%r")), [last], "sum")
    return [out, c.elementwise([high, total], lambda n: (
        ["%%l = math.log %s : f32" % n[1],
         "%%r = arith.addf %s, %%l : f32" % n[0]], "%r"))]


# What the runtime's built-in gp::attention kernel takes (a fused
# flash-style kernel on CUDA, loops on the host): anything else is
# decomposed into matmuls and a softmax.
ATTENTION_ELEMENTS = ("f32", "f16", "bf16")
ATTENTION_MAX_WIDTH = 128
# Queries and keys per head beyond which the unfused program is faster.
# The fused kernel multiplies with FMAs, and each block walks the keys one
# 32-key tile after another (two walks at once, docs/Performance.md): at
# 512 x 512 scores (H100, GPT-2 124M at 512 tokens) the kernel alone now
# matches PyTorch's f32 attention (51.5 against 54.0 us per layer), but the
# whole model was no faster fused (1.07x reduce-overhead against 1.05x
# unfused), and in bf16 it is 5.4x PyTorch's tensor-core flash attention
# (the model 1.62x against 1.21x unfused); few query rows over a long
# key/value cache (a decode step) leave most of the GPU idle while one
# block walks all the keys.
ATTENTION_MAX_ROWS = 256


def attention_misfit(q, k, v, mask=None):
    """Why gp::attention cannot take these operands (anything with .shape
    and .elem: Values, or the graph's shapes and dtypes), or None when it
    can: q [B, H, L, E] (or [H, L, E]), k [B, Hkv, S, E] and v [B, Hkv, S,
    Ev] of one floating element type with H a multiple of Hkv, static
    sizes, E and Ev at most 128, at most ATTENTION_MAX_ROWS queries and
    keys, and a mask (bool: True keeps; or added
    to the scores) that broadcasts to the scores [B, H, L, S]."""
    operands = [q, k, v] + ([mask] if mask is not None else [])
    if not all(is_static(d) for x in operands for d in x.shape):
        return "symbolic sizes"
    if len(q.shape) not in (3, 4) or len(k.shape) != len(q.shape) or \
            len(v.shape) != len(q.shape):
        return "q, k, v are not all of rank 3 or all of rank 4"
    if q.elem not in ATTENTION_ELEMENTS or k.elem != q.elem or \
            v.elem != q.elem:
        return "element types %s, %s, %s" % (q.elem, k.elem, v.elem)
    if k.shape[-1] != q.shape[-1] or \
            max(q.shape[-1], v.shape[-1]) > ATTENTION_MAX_WIDTH:
        return "head widths %d, %d, %d" % (q.shape[-1], k.shape[-1],
                                           v.shape[-1])
    heads, kv_heads = q.shape[-3], k.shape[-3]
    if k.shape[:-1] != v.shape[:-1] or kv_heads == 0 or heads % kv_heads:
        return "k %s and v %s do not serve q %s" % (k.shape, v.shape,
                                                    q.shape)
    if q.shape[:-3] != k.shape[:-3]:
        return "batch dimensions that broadcast"
    if max(q.shape[-2], k.shape[-2]) > ATTENTION_MAX_ROWS:
        return "%d queries over %d keys, where the unfused matmuls are " \
            "faster" % (q.shape[-2], k.shape[-2])
    if mask is not None:
        return mask_misfit(mask, q.shape[:-1] + [k.shape[-2]], q.elem)
    return None


def mask_misfit(mask, scores, elem):
    """Why `mask` cannot be gp::attention's mask over `scores`, or None."""
    if mask.elem not in ("i1", elem, "f32"):
        return "a mask of element type %s" % mask.elem
    rank = len(mask.shape)
    if not 1 <= rank <= len(scores) or any(
            size not in (1, want)
            for size, want in zip(mask.shape, scores[len(scores) - rank:])):
        return "a mask of shape %s over scores %s" % (mask.shape, scores)
    return None


def attention_call(c, q, k, v, mask, scale, causal, zero_fully_masked):
    """One call of the runtime's gp::attention: softmax(q @ k^T * scale,
    masked) @ v, each of k's heads serving consecutive groups of q's heads;
    `causal` removes key j > query i (top-left); `zero_fully_masked`: a row
    with every score removed gives zeros (else NaN, as a plain softmax of
    -inf gives)."""
    operands = [q, k, v] + ([mask] if mask is not None else [])
    return c.builtin_call(
        "gp::attention", operands,
        [(float(scale), "f64"), (int(bool(causal)), "i64"),
         (int(bool(zero_fully_masked)), "i64")],
        q.shape[:-1] + [v.shape[-1]], q.elem)


def fused_sdpa(c, q, k, v, given, returns):
    """scaled_dot_product_attention as one gp::attention call, or None
    when the kernel does not take it (the caller decomposes it). The
    kernel gives the attention alone: a kernel's log-sum-exp or weights
    must be unread (the CPU flash kernel torch.export records computes
    one nothing reads)."""
    mask = given.get("attn_mask")
    mask = c.value(mask) if mask is not None else None
    scale = given.get("scale")
    if scale is None and is_static(q.shape[-1]) and q.shape[-1] > 0:
        scale = 1.0 / math.sqrt(q.shape[-1])
    extra_read = returns is not None and \
        not c.read_results().get(c.node["name"], set()) <= {0}
    if extra_read or not is_number(scale) or \
            c.device_of([q, k, v, mask]) is not None or \
            attention_misfit(q, k, v, mask) is not None:
        return None
    # Without enable_gqa, sdpa pairs heads one to one.
    if not given.get("enable_gqa") and k.shape[-3] != q.shape[-3]:
        return None
    out = attention_call(c, q, k, v, mask, scale, given.get("is_causal"),
                         zero_fully_masked=True)
    if returns is None:
        return out
    return [out, Unusable("the attention kernel's %s is not computed" % (
        "log-sum-exp" if returns == "lse" else "weights"))]


def explicit_attention(c, args, kwargs):
    """The node fuse_attention.py makes of attention written out (matmul,
    scale, mask, softmax, matmul): q, k, v and the mask (None, bool: True
    keeps, or added), its scale; a row with every score -inf gives NaN,
    as the softmax it replaces. Operands held on another device than the
    program's are copied to it and the result back."""
    q, k, v = (c.value(a) for a in args[:3])
    mask = c.value(args[3]) if args[3] is not None else None
    why = attention_misfit(q, k, v, mask)
    if why is not None:
        raise c.error("the fused attention does not fit gp::attention (%s)"
                      % why)
    device = c.device_of([q, k, v, mask])
    q, k, v = (c.move(x, None) for x in (q, k, v))
    mask = c.move(mask, None) if mask is not None else None
    out = attention_call(c, q, k, v, mask, kwargs["scale"], False,
                         zero_fully_masked=False)
    return c.move(out, device)


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def grouped_heads(c, q, kv):
    """Grouped-query attention (enable_gqa): each of the key/value heads
    (dimension -3) serves q's heads in consecutive groups, as
    repeat_interleave(q_heads // kv_heads, dim=-3) makes them."""
    if len(q.shape) < 4:
        raise c.error("enable_gqa takes a head dimension (rank 4 or more)")
    heads, kv_heads = q.shape[-3], kv.shape[-3]
    if not (isinstance(heads, int) and isinstance(kv_heads, int)):
        raise c.error("enable_gqa needs static head counts")
    if kv_heads == 0 or heads % kv_heads:
        raise c.error("enable_gqa: %d query heads are not a multiple of %d "
                      "key/value heads" % (heads, kv_heads))
    group = heads // kv_heads
    if group == 1:
        return kv
    rank = len(kv.shape)
    lead = list(kv.shape[:-3])
    # [..., kv_heads, group, S, E] reading kv without the group dimension.
    out_shape = lead + [kv_heads, group] + list(kv.shape[-2:])
    dims = ["d%d" % i for i in range(rank + 1)]
    repeated = c.generic(out_shape, [(kv, dims[:rank - 2] + dims[rank - 1:])],
                         lambda a, o: ([], a[0]), out_elem=kv.elem)
    return c.reshape(repeated, lead + [heads] + list(kv.shape[-2:]))


def cuda_attention(names):
    """The memory-efficient and cuDNN attention kernels, as a trace on CUDA
    tensors records scaled_dot_product_attention: `attn_bias` is the mask.
    Their log-sum-exp (padded to the kernel's tile) is not computed; a use
    of it is an error."""
    def convert(c, args, kwargs):
        kwargs = dict(kwargs)
        if "attn_bias" in kwargs:
            kwargs["attn_mask"] = kwargs.pop("attn_bias")
        return [attention(c, args, kwargs, names, None),
                Unusable("the attention kernel's log-sum-exp is not "
                         "computed")]
    return convert


def addmm(c, args, kwargs):
    """addmm / baddbmm: beta * input + alpha * (a @ b)."""
    bias, a, b = (c.value(x) for x in args[:3])
    beta = float(kwargs.get("beta", args[3] if len(args) > 3 else 1))
    alpha = float(kwargs.get("alpha", args[4] if len(args) > 4 else 1))
    product_ = c.matmul(a, b)
    if beta == 1 and alpha == 1:
        return c.elementwise([product_, bias], lambda n: op2("arith.addf", n))
    return scaled_sum(c, bias, product_, args, kwargs)


def general_matmul(c, a, b):
    """torch.matmul: vectors promoted and their dimension dropped after,
    batch dimensions broadcast, as one matmul or batch_matmul."""
    vector_a, vector_b = len(a.shape) == 1, len(b.shape) == 1
    if vector_a:
        a = c.reshape(a, [1] + a.shape)
    if vector_b:
        b = c.reshape(b, b.shape + [1])
    if len(a.shape) == 2 and len(b.shape) == 2:
        out = c.matmul(a, b)
    elif len(b.shape) == 2:
        # (..., m, k) @ (k, n): one matmul over the flattened rows.
        rows = from_product(product(a.shape[:-1]))
        out = c.matmul(c.reshape(a, [rows, a.shape[-1]]), b)
        out = c.reshape(out, a.shape[:-1] + [b.shape[-1]])
    else:
        try:
            batch = broadcast_shape(a.shape[:-2], b.shape[:-2])
        except ValueError as error:
            raise c.error(str(error))
        count = from_product(product(batch))

        def batched(x):
            full = batch + x.shape[-2:]
            if x.shape != full:
                x = c.generic(full, [(x, c.broadcast_map(x.shape, full))],
                              lambda a_, o: ([], a_[0]), out_elem=x.elem)
            return c.reshape(x, [count] + x.shape[-2:])
        out = c.matmul(batched(a), batched(b))
        out = c.reshape(out, batch + [a.shape[-2], b.shape[-1]])
    if vector_a:
        out = c.reshape(out, out.shape[:-2] + out.shape[-1:])
    if vector_b:
        out = c.reshape(out, out.shape[:-1])
    return out


def linear(c, args, kwargs):
    """linear(x, w, b): x @ w^T + b over any leading dimensions."""
    x, weight = c.value(args[0]), c.value(args[1])
    bias = args[2] if len(args) > 2 else kwargs.get("bias")
    out = general_matmul(c, x, c.permute(weight, [1, 0]) if len(
        weight.shape) == 2 else weight)
    if bias is not None:
        out = c.elementwise([out, c.value(bias)],
                            lambda n: op2("arith.addf", n))
    return out


def triangle(lower):
    """tril / triu(x, diagonal): keeps j - i <= k (tril) or >= k (triu)
    over the last two dimensions, zeros elsewhere."""
    def convert(c, args, kwargs):
        x = c.value(args[0])
        k = args[1] if len(args) > 1 else kwargs.get("diagonal", 0)
        rank = len(x.shape)
        keep = "sle" if lower else "sge"

        def body(a, o):
            zero = "%%zero = arith.constant %s : %s" % (
                literal(0, "f32" if x.elem in HALF_TYPES else x.elem),
                "f32" if x.elem in HALF_TYPES else x.elem)
            return ["%%i = linalg.index %d : index" % (rank - 2),
                    "%%j = linalg.index %d : index" % (rank - 1),
                    "%ii = arith.index_cast %i : index to i64",
                    "%jj = arith.index_cast %j : index to i64",
                    "%diff = arith.subi %jj, %ii : i64",
                    "%%k = arith.constant %d : i64" % k,
                    "%%in = arith.cmpi %s, %%diff, %%k : i64" % keep,
                    zero,
                    "%%r = arith.select %%in, %s, %%zero : %s" % (
                        a[0], "f32" if x.elem in HALF_TYPES else x.elem)], \
                "%r"
        return c.generic(x.shape, [(x, ["d%d" % i for i in range(rank)])],
                         body, out_elem=x.elem)
    return convert


def vector_product(c, args, kwargs):
    """mv (matrix @ vector) and dot (vector @ vector): torch.matmul's
    vector cases, with the shapes they require."""
    return matrix_vector(c, c.value(args[0]), c.value(args[1]))


def matrix_vector(c, a, b):
    if len(b.shape) != 1 or len(a.shape) not in (1, 2):
        raise c.error("needs a matrix or vector and a vector, got shapes "
                      "%s and %s" % (a.shape, b.shape))
    return general_matmul(c, a, b)


def outer(c, args, kwargs):
    """a[i] * b[j]."""
    a, b = c.value(args[0]), c.value(args[1])
    if len(a.shape) != 1 or len(b.shape) != 1:
        raise c.error("outer needs two vectors, got shapes %s and %s"
                      % (a.shape, b.shape))
    return c.elementwise([c.reshape(a, a.shape + [1]), b],
                         lambda n: op2("arith.mulf", n))


def scaled_sum(c, bias, product_, args, kwargs):
    """beta * bias + alpha * product_, as addmm's."""
    beta = float(kwargs.get("beta", args[3] if len(args) > 3 else 1))
    alpha = float(kwargs.get("alpha", args[4] if len(args) > 4 else 1))
    if beta == 0:   # bias is ignored, NaN included, as PyTorch does
        return c.elementwise([product_, alpha], lambda n: op2("arith.mulf",
                                                              n))
    return c.elementwise([product_, bias, alpha, beta], lambda n: ([
        "%%p = arith.mulf %s, %s : f32" % (n[0], n[2]),
        "%%q = arith.mulf %s, %s : f32" % (n[1], n[3]),
        "%r = arith.addf %p, %q : f32"], "%r"))


def addmv(c, args, kwargs):
    """beta * input + alpha * (matrix @ vector)."""
    bias, a, b = (c.value(x) for x in args[:3])
    return scaled_sum(c, bias, matrix_vector(c, a, b), args, kwargs)


def addbmm(c, args, kwargs):
    """beta * input + alpha * the sum over the batch of batch1 @ batch2."""
    bias, a, b = (c.value(x) for x in args[:3])
    if len(a.shape) != 3 or len(b.shape) != 3:
        raise c.error("addbmm needs two 3-d batches, got shapes %s and %s"
                      % (a.shape, b.shape))
    summed = c.reduce(c.matmul(a, b), [0], "sum")
    return scaled_sum(c, bias, summed, args, kwargs)


def cdist(c, args, kwargs):
    """_cdist_forward(x1 [..., P, M], x2 [..., R, M], p, compute_mode):
    out[..., i, j] = the p-norm of x1[..., i, :] - x2[..., j, :] (p = 0
    counts the differing coordinates, inf takes the largest), one generic
    reducing over M."""
    x1, x2 = c.cast(c.value(args[0]), "f32"), c.cast(c.value(args[1]), "f32")
    p = float(args[2]) if len(args) > 2 else float(kwargs.get("p", 2.0))
    if len(x1.shape) != len(x2.shape) or len(x1.shape) < 2:
        raise c.error("cdist of inputs of one rank (at least 2)")
    rank = len(x1.shape)
    lead = list(x1.shape[:-2])
    out_shape = lead + [x1.shape[-2], x2.shape[-2]]
    b = ["d%d" % i for i in range(rank - 2)]
    i, j, m = "d%d" % (rank - 2), "d%d" % (rank - 1), "d%d" % rank

    def body(a, o):
        lines = ["%%d = arith.subf %s, %s : f32" % (a[0], a[1]),
                 "%a = math.absf %d : f32"]
        if math.isinf(p):
            return lines + ["%%r = arith.maximumf %s, %%a : f32" % o], "%r"
        term = "%t"
        if p == 0:
            lines += ["%zero = arith.constant 0.000000000e+00 : f32",
                      "%one = arith.constant 1.000000000e+00 : f32",
                      "%ne = arith.cmpf une, %d, %zero : f32",
                      "%t = arith.select %ne, %one, %zero : f32"]
        elif p == 1:
            term = "%a"
        elif p == 2:
            lines += ["%t = arith.mulf %d, %d : f32"]
        else:
            lines += ["%%e = arith.constant %s : f32" % float_literal(p),
                      "%t = math.powf %a, %e : f32"]
        return lines + ["%%r = arith.addf %s, %s : f32" % (o, term)], "%r"
    init = c.filled(out_shape, 0.0, device=x1.device)
    total = c.generic(out_shape, [(x1, b + [i, m]), (x2, b + [j, m])], body,
                      init=init,
                      iterators=["parallel"] * (rank) + ["reduction"],
                      out_map=b + [i, j])
    if p == 2:
        return c.elementwise([total], lambda n: (
            ["%%r = math.sqrt %s : f32" % n[0]], "%r"))
    if p in (0, 1) or math.isinf(p):
        return total
    return c.elementwise([total, 1.0 / p], lambda n: (
        ["%%r = math.powf %s, %s : f32" % (n[0], n[1])], "%r"))
