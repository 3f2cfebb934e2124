"""Attention written out in the model, as make_fx and torch.export record
it, becomes one node (FUSED_OP) that the converter makes one call of the
runtime's gp::attention (ops/linalg.py, explicit_attention): the rewrite
Inductor's fuse_attention.py makes into scaled_dot_product_attention.

The chain matched, each intermediate read by the next one only (a dead
`detach` of it aside) and no graph output:

    q [B, H, L, E], k [B, Hkv, S, E]      (rank 4; or [H, L, E] ..., rank 3)
      -> views merging the leading dims, k through its transpose(-1, -2)
      -> bmm (or matmul) -> a view back to [B, H, L, S]
      -> div or mul by a number            (optional: the scale)
      -> add(mask) | masked_fill(cond, -inf) | where(cond, x, -inf)
                                           (optional, after the scale)
      -> _to_copy to float32                (optional, anywhere before)
      -> _softmax over the last dim -> _to_copy back (optional)
      -> views -> bmm with v [B, Hkv, S, Ev] -> a view to [B, H, L, Ev]

The fill value may be the lowest f32 or bf16 instead of -inf (Hugging
Face's GPT-2) where the mask is a constant that keeps a score in every
row: exp of it beside any kept score is 0 there as well.

Grouped-query heads: k or v taken through index_select(x, head dim, idx)
with idx provably [0,..,0, 1,..,1, ...] (repeat_interleave of constant
repeats, as Llama's repeat_interleave(group, dim=1) records it), or
through expand + reshape of x with a new group dimension (Hugging Face's
repeat_kv), are x itself with its fewer heads. Only what gp::attention
takes (ops/linalg.py, attention_misfit) is rewritten; anything else is
left as it is. The kernel keeps the scores and the softmax in f32
without rounding them to a half type between the steps.
"""
import math

import numpy as np

from .ops import VIEW_OPS
from .ops.common import ELEMENT_TYPES, Value
from .ops.linalg import attention_misfit

FUSED_OP = "graphpart::attention"

# Views that only regroup dimensions (in row-major order).
_RESHAPES = {"aten::view", "aten::reshape", "aten::_unsafe_view",
             "aten::_reshape_alias", "aten::view_copy"}
# Ops that give their operand's elements unchanged.
_IDENTITIES = {"aten::clone", "aten::alias", "aten::detach",
               "aten::lift_fresh_copy", "aten::contiguous"}
# Users that do not count as readers when nothing reads them in turn
# (make_fx records a detach of the softmax it saves for the backward).
_DEAD_USERS = {"aten::detach", "aten::alias"}
_SOFTMAX = {"aten::_softmax", "aten::softmax"}
_PRODUCTS = {"aten::bmm", "aten::matmul"}
# Constants evaluated while proving an index pattern stay this small.
_EVALUATE_LIMIT = 1 << 16
# What matching raises on arguments of other kinds than the ops take (a
# hand-written or damaged graph): no match; the conversion names them.
_MALFORMED = (KeyError, IndexError, TypeError, ValueError, AttributeError,
              ZeroDivisionError, OverflowError, RecursionError)


def fuse(graph, constants):
    """`graph` with each attention block matched replaced by a FUSED_OP
    node (a new graph; `graph` itself is unchanged)."""
    return _rewrite(graph, constants)[0]


def count(graph, constants):
    """How many attention blocks `fuse` rewrites in `graph`."""
    return len(_rewrite(graph, constants)[1])


def _rewrite(graph, constants):
    try:
        return _rewrite_blocks(graph, constants)
    except _MALFORMED:
        return graph, []


def _rewrite_blocks(graph, constants):
    index = GraphIndex(graph, constants)
    blocks = []
    for node in graph["nodes"]:
        block = match_block(index, node)
        if block is not None and not any(block.conflicts(b) for b in blocks):
            blocks.append(block)
    if not blocks:
        return graph, []
    nodes = []
    by_final = {b.final["name"]: b for b in blocks}
    removed = {name for b in blocks for name in b.chain}
    for node in graph["nodes"]:
        block = by_final.get(node["name"])
        if block is not None:
            nodes.extend(block.new_nodes(index))
        elif node["name"] not in removed:
            nodes.append(node)
    orphans = {name for b in blocks for name in b.chain} | set(by_final)
    nodes = drop_dead(index, nodes, orphans, graph["outputs"])
    return dict(graph, nodes=nodes), blocks


# -- the graph ---------------------------------------------------------------

def is_ref(arg):
    return isinstance(arg, dict) and "node" in arg


def refs_in(arg):
    """The {"node": ...} references inside an argument, in order."""
    if is_ref(arg):
        return [arg]
    if isinstance(arg, dict):
        return [r for item in arg.values() for r in refs_in(item)]
    if isinstance(arg, list):
        return [r for item in arg for r in refs_in(item)]
    return []


def node_refs(node):
    return refs_in(node.get("args", [])) + refs_in(node.get("kwargs", {}))


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def in_place(node, custom_ops):
    """The operands `node` writes in place (their references)."""
    op, args = node["op"], node.get("args", [])
    if op in custom_ops:
        return [args[i] for i in custom_ops[op].get("mutates", [])
                if i < len(args) and is_ref(args[i])]
    if op.startswith("aten::") and op.endswith("_") and \
            not op.endswith("__") and args and is_ref(args[0]):
        return [args[0]]
    return []


class GraphIndex:
    """Nodes by name, each value's shape and dtype, and who reads what."""

    def __init__(self, graph, constants):
        self.graph, self.constants = graph, constants
        self.nodes = {n["name"]: n for n in graph["nodes"]}
        self.position = {n["name"]: i for i, n in enumerate(graph["nodes"])}
        self.leaves = {}
        for entry in graph["inputs"] + graph.get("parameters", []) + \
                graph.get("constants", []):
            self.leaves[entry["name"]] = (entry["shape"], entry["dtype"])
        for name, array in constants.items():
            self.leaves.setdefault(name, (list(np.shape(array)),
                                          str(np.asarray(array).dtype)))
        self.custom_ops = graph.get("custom_ops", {})
        self.readers = {}
        for node in graph["nodes"]:
            for ref in node_refs(node):
                users = self.readers.setdefault(ref["node"], [])
                if node["name"] not in users:
                    users.append(node["name"])
        self.outputs = {r["node"] for r in refs_in(graph["outputs"])}
        self.writes = [(self.position[n["name"]], ref["node"])
                       for n in graph["nodes"]
                       for ref in in_place(n, self.custom_ops)]

    def meta(self, ref):
        """(shape, dtype) of a reference, or None."""
        name = ref["node"] if is_ref(ref) else ref
        if name in self.leaves:
            return self.leaves[name]
        node = self.nodes.get(name)
        if node is None:
            return None
        outputs = node.get("outputs", [])
        index = ref.get("index") if is_ref(ref) else None
        if index is None:
            index = 0 if len(outputs) == 1 else None
        if not isinstance(index, int) or not 0 <= index < len(outputs):
            return None
        return outputs[index]["shape"], outputs[index]["dtype"]

    def shape(self, ref):
        meta = self.meta(ref)
        return list(meta[0]) if meta else None

    def dtype(self, ref):
        meta = self.meta(ref)
        return meta[1] if meta else None

    def node_of(self, ref):
        """The single-result node a reference names, or None (an input,
        a constant, one result of several)."""
        node = self.nodes.get(ref["node"]) if is_ref(ref) else None
        if node is None or len(node.get("outputs", [])) != 1 or \
                ref.get("index") not in (None, 0):
            return None
        return node

    def dead(self, name):
        node = self.nodes[name]
        return node["op"] in _DEAD_USERS and not self.readers.get(name) \
            and name not in self.outputs

    def only_user(self, name):
        """The one node reading `name` (once), dead aliases of it aside;
        None when it is an output or read by more or fewer nodes."""
        if name in self.outputs:
            return None
        users = [u for u in self.readers.get(name, []) if not self.dead(u)]
        if len(users) != 1:
            return None
        user = self.nodes[users[0]]
        reads = [r for r in node_refs(user) if r["node"] == name]
        return user if len(reads) == 1 else None

    def dead_users(self, name):
        return [u for u in self.readers.get(name, []) if self.dead(u)]

    def root(self, name):
        """The tensor `name` views (through VIEW_OPS), or itself."""
        seen = set()
        while name in self.nodes and name not in seen:
            seen.add(name)
            node = self.nodes[name]
            args = node.get("args", [])
            if node["op"] not in VIEW_OPS or not args or not is_ref(args[0]):
                break
            name = args[0]["node"]
        return name


# -- steps that keep the elements --------------------------------------------

def pass_kind(index, node):
    """How `node` relates its (first) operand's elements to its result:
    "same" (a view regrouping the leading dimensions, a no-op expand, a
    copy), "swap" (the last two dimensions transposed), or None."""
    args = node.get("args", [])
    if not args or not is_ref(args[0]) or len(node.get("outputs", [])) != 1:
        return None
    source, out = index.shape(args[0]), node["outputs"][0]["shape"]
    if source is None or index.dtype(args[0]) != node["outputs"][0]["dtype"]:
        return None
    op, rank = node["op"], len(source)
    if op in _IDENTITIES or (op in ("aten::expand", "aten::slice") and
                             out == source and (op != "aten::slice" or len(
                                 args) < 5 or args[4] == 1)):
        return "same"
    if op in _RESHAPES:
        # The last two dimensions kept: only the leading ones regroup.
        return "same" if len(source) >= 2 and len(out) >= 2 and \
            source[-2:] == out[-2:] else None
    if op in ("aten::transpose", "aten::permute") and rank >= 2:
        if op == "aten::transpose":
            dims = {args[1] % rank, args[2] % rank}
            perm = list(range(rank)) if len(dims) == 1 else None
            if dims == {rank - 2, rank - 1}:
                perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        else:
            perm = [d % rank for d in args[1]]
        if perm == list(range(rank)):
            return "same"
        if perm == list(range(rank - 2)) + [rank - 1, rank - 2]:
            return "swap"
    return None


def walk_back(index, ref, want_shape, want_swapped):
    """The deepest value along the steps that lead to the matmul operand
    `ref` whose elements give it by regrouping the leading dimensions
    (and transposing the last two, `want_swapped`), of shape
    `want_shape`; and the nodes walked. None when there is none."""
    found, walked, swapped, steps = None, [], False, []
    while True:
        if swapped == want_swapped and index.shape(ref) == want_shape:
            found, walked = ref, list(steps)
        node = index.node_of(ref)
        kind = pass_kind(index, node) if node is not None else None
        if kind is None:
            break
        steps.append(node["name"])
        swapped ^= kind == "swap"
        ref = node["args"][0]
    return (found, walked) if found is not None else None


def walk_forward(index, name, chain, until=lambda name: False):
    """From `name`, through the single users that keep the elements
    ("same"), appending them to `chain`, up to the first for which
    `until` holds: the last one's name."""
    while not until(name):
        user = index.only_user(name)
        if user is None or user["args"][0] != {"node": name} or \
                pass_kind(index, user) != "same":
            return name
        chain.append(user["name"])
        name = user["name"]
    return name


# -- constants ---------------------------------------------------------------

def evaluate(index, ref, depth=0):
    """The value of a small tensor computed from constants alone (filled,
    viewed, repeated), as a numpy array, or None."""
    if depth > 32 or not is_ref(ref):
        return None
    shape = index.shape(ref)
    if shape is None or not all(isinstance(d, int) for d in shape) or \
            int(np.prod(shape)) > _EVALUATE_LIMIT:
        return None
    name = ref["node"]
    if name in index.constants:
        array = np.asarray(index.constants[name])
        return array if index.dtype(ref) in ("int64", "float32", "bool") \
            else None
    node = index.node_of(ref)
    if node is None or any(written == name for _, written in index.writes):
        return None
    value = evaluate_node(index, node, shape, depth)
    if value is None or list(np.shape(value)) != shape:
        return None
    return np.asarray(value)


def evaluate_node(index, node, shape, depth):
    op, args = node["op"], node.get("args", [])
    kwargs = node.get("kwargs", {})
    if op in ("aten::full", "aten::fill", "aten::fill_") and \
            len(args) > 1 and is_number(args[1]):
        if op == "aten::fill_" and any(
                written == args[0].get("node") and at != index.position[
                    node["name"]] for at, written in index.writes):
            return None
        return np.full(shape, args[1])
    if op == "aten::scalar_tensor" and args and is_number(args[0]):
        return np.full(shape, args[0])
    if op in ("aten::zeros", "aten::ones"):
        return np.full(shape, 0 if op == "aten::zeros" else 1)
    if op == "aten::arange" and all(is_number(a) for a in args[:3]) and \
            args:
        return np.arange(*args[:3])
    if op == "aten::repeat_interleave" and args and \
            not kwargs.get("dim") and len(args) == 1:
        repeats = evaluate(index, args[0], depth + 1)
        if repeats is None or repeats.ndim != 1 or (repeats < 0).any():
            return None
        return np.repeat(np.arange(len(repeats)), repeats)
    source = evaluate(index, args[0], depth + 1) if args else None
    if source is None:
        return None
    if op in _IDENTITIES or op in _RESHAPES or op in (
            "aten::unsqueeze", "aten::squeeze", "aten::_to_copy"):
        return source.reshape(shape) if source.size == int(
            np.prod(shape)) else None
    if op == "aten::expand":
        try:
            return np.broadcast_to(source, shape)
        except ValueError:
            return None
    if op == "aten::slice" and all(isinstance(a, int) for a in args[1:]):
        dim, start, end, step = (list(args[1:]) + [0, 0, None, 1][
            len(args) - 1:])[:4]
        at = [slice(None)] * source.ndim
        at[dim] = slice(start, end, step)
        return source[tuple(at)]
    return None


def fill_value(index, arg):
    """The number `arg` fills with: a number, or a constant 0-d tensor of
    it; None for anything else."""
    if is_number(arg):
        return float(arg)
    value = evaluate(index, arg) if is_ref(arg) else None
    if value is None or value.shape != () or value.dtype.kind not in "fiu":
        return None
    return float(value)


# The lowest finite f32 and bf16 values (torch.finfo(dtype).min), which
# Hugging Face's attention (GPT-2 before sdpa) fills masked scores with
# instead of -inf.
_LOWEST = (float(np.finfo(np.float32).min), -3.3895313892515355e+38)


def removes_scores(index, value, keep, negate):
    """Whether filling the scores the mask removes with `value` is what
    gp::attention does: -inf; or the lowest finite f32 or bf16, whose
    exp underflows to 0 beside any kept score, where the mask is a
    constant that keeps a score in every row (a row of only that value
    would give a uniform softmax, not gp::attention's NaN)."""
    if value is None:
        return False
    if math.isinf(value) and value < 0:
        return True
    if value not in _LOWEST:
        return False
    mask = evaluate(index, keep)
    if mask is None or mask.ndim == 0:
        return False
    kept = mask.astype(bool) != negate
    return bool(np.all(np.any(kept, axis=-1)))


# -- the blocks --------------------------------------------------------------

class Block:
    """One matched attention block: the fused node's operands, the nodes
    it replaces (`chain`, the last one `final` becomes the fused node)."""

    def __init__(self):
        self.chain, self.walked = [], []
        self.q = self.k = self.v = self.mask = None
        # The second matmul's value operand, before its views.
        self.v_operand = None
        self.negate_mask = False
        self.scale = 1.0
        self.final = None

    def replaced(self):
        """The nodes the fused node removes or takes the place of."""
        return set(self.chain) | {self.final["name"]}

    def conflicts(self, other):
        """Whether this block and an accepted one overlap: one would
        remove a node the other reads or removes."""
        reads = {r["node"] for r in (self.q, self.k, self.v, self.mask)
                 if r} | set(self.walked)
        other_reads = {r["node"] for r in (other.q, other.k, other.v,
                                           other.mask) if r} | \
            set(other.walked)
        return bool(self.replaced() & (other.replaced() | other_reads) or
                    reads & set(other.chain))

    def new_nodes(self, index):
        """The fused node (named as the node it replaces), after the
        negation of a mask that says which scores to remove."""
        nodes, mask = [], self.mask
        if mask is not None and self.negate_mask:
            name = unused_name(index, self.final["name"] + "_keep")
            nodes.append({"name": name, "op": "aten::logical_not",
                          "overload": "default", "args": [mask],
                          "kwargs": {}, "outputs": [
                              {"shape": index.shape(mask),
                               "dtype": "bool"}]})
            mask = {"node": name}
        node = {"name": self.final["name"], "op": FUSED_OP,
                "overload": "default",
                "args": [self.q, self.k, self.v, mask],
                "kwargs": {"scale": self.scale},
                "outputs": self.final["outputs"]}
        if "source" in self.final:
            node["source"] = self.final["source"]
        return nodes + [node]


def unused_name(index, name):
    taken = set(index.nodes) | set(index.leaves)
    candidate, n = name, 0
    while candidate in taken:
        n += 1
        candidate = "%s_%d" % (name, n)
    return candidate


def batched_product(index, node):
    """(a, b) of a batched matmul (bmm, or matmul of rank 3 or 4) that
    broadcasts nothing, or None."""
    args = node.get("args", [])
    if node["op"] not in _PRODUCTS or len(args) != 2 or \
            not all(is_ref(a) for a in args):
        return None
    a, b = index.shape(args[0]), index.shape(args[1])
    if a is None or b is None or len(a) != len(b) or \
            len(a) not in ((3,) if node["op"] == "aten::bmm" else (3, 4)) \
            or a[:-2] != b[:-2] or a[-1] != b[-2]:
        return None
    return args[0], args[1]


def match_block(index, node):
    """The attention block whose first matmul is `node`, or None."""
    operands = batched_product(index, node)
    if operands is None:
        return None
    block = Block()
    block.chain.append(node["name"])
    scores = walk_forward(index, node["name"], block.chain)
    logical = index.shape(scores)
    if len(logical) not in (3, 4) or not all(
            isinstance(d, int) for d in logical):
        return None
    probabilities = match_scores(index, block, scores, logical)
    if probabilities is None or not match_output(index, block, probabilities,
                                                 logical):
        return None
    if not match_operands(index, block, operands, logical):
        return None
    return block if block_is_sound(index, block) else None


def match_scores(index, block, scores, logical):
    """scale, mask, casts and the softmax after `scores`: the name of the
    probabilities (after a cast back), or None."""
    cur, masked, dtype = scores, False, index.dtype(scores)
    while True:
        user = index.only_user(cur)
        if user is None or index.shape({"node": user["name"]}) != logical:
            return None
        op = user["op"]
        if op in _SOFTMAX:
            if not softmax_over_last(user, len(logical)):
                return None
        elif op in ("aten::div", "aten::mul"):
            factor = scale_factor(index, user, cur)
            if factor is None or masked:
                return None
            block.scale *= factor
        elif op == "aten::_to_copy":
            if not plain_cast(user, "float32"):
                return None
        elif not masked and match_mask(index, block, user, cur):
            masked = True
        else:
            return None
        if user["outputs"][0]["dtype"] not in (dtype, "float32"):
            return None
        block.chain.append(user["name"])
        cur = user["name"]
        if op in _SOFTMAX:
            break
    user = index.only_user(cur)
    if user is not None and user["op"] == "aten::_to_copy" and \
            plain_cast(user, dtype):
        block.chain.append(user["name"])
        cur = user["name"]
    return cur if index.dtype(cur) == dtype else None


def softmax_over_last(node, rank):
    args = node.get("args", [])
    if len(args) < 2 or not isinstance(args[1], int) or \
            args[1] % rank != rank - 1:
        return False
    dtype = args[2] if node["op"] == "aten::softmax" and len(args) > 2 \
        else node.get("kwargs", {}).get("dtype")
    return dtype in (None, {"dtype": "float32"}) or \
        node["op"] == "aten::_softmax"


def scale_factor(index, node, cur):
    """The number `node` (div or mul of `cur` by a number, or by a
    constant 0-d tensor) scales by, or None."""
    args, kwargs = node.get("args", []), node.get("kwargs", {})
    here = {"node": cur}
    if len(args) != 2 or kwargs or here not in args or args[0] == args[1]:
        return None
    other = args[1] if args[0] == here else args[0]
    if is_ref(other):
        value = evaluate(index, other)
        if value is None or value.shape != () or \
                value.dtype.kind not in "fiu":
            return None
        other = float(value)
    if not is_number(other):
        return None
    if node["op"] == "aten::div":
        if args[0] != here or other == 0:
            return None
        factor = 1.0 / other
    else:
        factor = float(other)
    return factor if math.isfinite(factor) else None


def plain_cast(node, dtype):
    """A _to_copy that only changes the element type to `dtype`."""
    kwargs = node.get("kwargs", {})
    return len(node.get("args", [])) == 1 and \
        kwargs.get("dtype") == {"dtype": dtype} and \
        set(kwargs) <= {"dtype", "layout", "memory_format", "pin_memory",
                        "non_blocking"} and \
        kwargs.get("layout") in (None, {"enum": "torch.strided"})


def match_mask(index, block, node, cur):
    """add(scores, mask), masked_fill(scores, cond, -inf) or where(cond,
    scores, -inf): records the mask in `block`; False for anything else."""
    args, kwargs, here = node.get("args", []), node.get("kwargs", {}), \
        {"node": cur}
    op = node["op"]
    if op == "aten::add" and len(args) == 2 and here in args and \
            kwargs.get("alpha", 1) == 1 and set(kwargs) <= {"alpha"}:
        mask = args[1] if args[0] == here else args[0]
        if not is_ref(mask) or index.dtype(mask) not in (
                "float32", "float16", "bfloat16"):
            return False
        block.mask = mask
        return True
    if op == "aten::masked_fill" and len(args) == 3 and args[0] == here \
            and is_ref(args[1]) and removes_scores(
                index, fill_value(index, args[2]), args[1], negate=True):
        return keep_mask(index, block, args[1], negate=True)
    if op == "aten::where" and len(args) == 3 and is_ref(args[0]) and \
            here in args[1:] and args[1] != args[2]:
        negate = args[2] == here
        fill = args[1] if negate else args[2]
        if removes_scores(index, fill_value(index, fill), args[0], negate):
            return keep_mask(index, block, args[0], negate)
    return False


def keep_mask(index, block, cond, negate):
    """The bool mask saying which scores to keep: `cond`, or not(`cond`)
    (m itself when `cond` is bitwise_not or logical_not of a bool m)."""
    if index.dtype(cond) != "bool":
        return False
    node = index.node_of(cond)
    if negate and node is not None and node["op"] in (
            "aten::bitwise_not", "aten::logical_not") and \
            len(node.get("args", [])) == 1 and is_ref(node["args"][0]) and \
            index.dtype(node["args"][0]) == "bool":
        cond, negate = node["args"][0], False
    block.mask, block.negate_mask = cond, negate
    return True


def match_output(index, block, probabilities, logical):
    """probabilities -> views -> the second matmul -> views to the
    attention [..., L, Ev]: records v's operand and the final node."""
    last = walk_forward(index, probabilities, block.chain)
    product = index.only_user(last)
    operands = batched_product(index, product) if product else None
    if operands is None or operands[0] != {"node": last}:
        return False
    block.chain.append(product["name"])
    want = logical[:-1] + [index.shape(operands[1])[-1]]
    final = walk_forward(index, product["name"], block.chain,
                         until=lambda name: index.shape(name) == want)
    if index.shape(final) != want:
        return False
    block.final = index.nodes[final]
    block.chain.remove(final)
    block.v_operand = operands[1]
    return True


def match_operands(index, block, operands, logical):
    """q, k and v: the values the matmuls read, before the views that
    merge their leading dimensions (k before its transpose)."""
    lead, length, keys = logical[:-2], logical[-2], logical[-1]
    width = index.shape(operands[0])[-1]
    v_width = index.shape(block.v_operand)[-1]
    found = [walk_back(index, operands[0], lead + [length, width], False),
             walk_back(index, operands[1], lead + [keys, width], True),
             walk_back(index, block.v_operand, lead + [keys, v_width],
                       False)]
    if any(f is None for f in found):
        return False
    for _, walked in found:
        block.walked += walked
    block.q = found[0][0]
    block.k = ungrouped(index, found[1][0], len(logical))
    block.v = ungrouped(index, found[2][0], len(logical))
    return True


def ungrouped(index, ref, rank):
    """A key or value tensor whose heads repeat x's heads in consecutive
    groups (index_select by a provable index, or repeat_kv's expand and
    reshape): x; else `ref` itself."""
    node = index.node_of(ref)
    if node is None:
        return ref
    args = node.get("args", [])
    heads = index.shape(ref)[-3]
    if node["op"] == "aten::index_select" and len(args) == 3 and \
            isinstance(args[1], int) and args[1] % rank == rank - 3:
        source = args[0]
        kv_heads = index.shape(source)[-3] if index.shape(source) else 0
        idx = evaluate(index, args[2])
        if kv_heads and heads % kv_heads == 0 and idx is not None and \
                np.array_equal(idx, np.repeat(np.arange(kv_heads),
                                              heads // kv_heads)):
            return source
        return ref
    return repeated_kv(index, node, rank) or ref


def repeated_kv(index, node, rank):
    """x for x[:, :, None].expand(B, Hkv, g, S, E).reshape(B, H, S, E)
    (rank 4; without B at rank 3), else None."""
    if node["op"] not in _RESHAPES:
        return None
    expand = index.node_of(node["args"][0])
    while expand is not None and expand["op"] in _IDENTITIES:
        expand = index.node_of(expand["args"][0])
    if expand is None or expand["op"] != "aten::expand":
        return None
    grouped = expand["outputs"][0]["shape"]
    single = index.shape(expand["args"][0])
    at = rank - 2   # the group dimension, after the kv heads
    heads = node["outputs"][0]["shape"][-3]
    if single is None or len(grouped) != rank + 1 or \
            single[:at] + single[at + 1:] != grouped[:at] + grouped[at + 1:] \
            or single[at] != 1 or heads != grouped[at - 1] * grouped[at]:
        return None
    # x[:, :, None] as make_fx records it: full slices around unsqueeze.
    inner = index.node_of(unsliced(index, expand["args"][0]))
    if inner is None or inner["op"] not in ("aten::unsqueeze",) + tuple(
            _RESHAPES):
        return None
    x = unsliced(index, inner["args"][0])
    if index.shape(x) != single[:at] + single[at + 1:] or (
            inner["op"] == "aten::unsqueeze" and inner["args"][1] % (
                rank + 1) != at):
        return None
    return x


def unsliced(index, ref):
    """`ref` before the full slices (x[:]) that lead to it."""
    node = index.node_of(ref)
    while node is not None and node["op"] == "aten::slice" and \
            pass_kind(index, node) == "same":
        ref = node["args"][0]
        node = index.node_of(ref)
    return ref


def block_is_sound(index, block):
    """The checks on the whole block: its operands are not its own
    intermediates, nothing writes them in place before the fused node
    reads them, and gp::attention takes them."""
    inner = set(block.chain) | set(block.walked) | {block.final["name"]}
    operands = [r for r in (block.q, block.k, block.v, block.mask) if r]
    if any(r["node"] in inner for r in operands):
        return False
    start = min(index.position[n] for n in inner if n in index.position)
    end = index.position[block.final["name"]]
    roots = {index.root(r["node"]) for r in operands}
    if any(start < at < end and index.root(name) in roots
           for at, name in index.writes):
        return False
    for name in list(block.chain):
        block.chain += index.dead_users(name)
    values = [value_of(index, r) for r in operands]
    if any(v is None for v in values):
        return False
    mask = values[3] if block.mask else None
    scale = block.scale
    return math.isfinite(scale) and attention_misfit(
        values[0], values[1], values[2], mask) is None


def value_of(index, ref):
    """A Value standing for `ref` (shape and element type only)."""
    meta = index.meta(ref)
    if meta is None or meta[1] not in ELEMENT_TYPES:
        return None
    return Value("", meta[0], elem=ELEMENT_TYPES[meta[1]])


# -- what the fused nodes leave unread ---------------------------------------

def drop_dead(index, nodes, orphans, outputs):
    """`nodes` without those that only computed what the fused nodes
    replaced: starting from the nodes read by `orphans` (the nodes
    removed or replaced), each pure ATen node nothing reads any more, and
    an in-place fill of a tensor nothing else reads."""
    kept = {n["name"]: n for n in nodes}
    read = {}
    for node in nodes:
        for ref in node_refs(node):
            read.setdefault(ref["node"], set()).add(node["name"])
    for ref in refs_in(outputs):
        read.setdefault(ref["node"], set()).add(None)
    candidates = set()
    for name in orphans:
        old = index.nodes.get(name)
        candidates |= {r["node"] for r in node_refs(old)} if old else set()
    dropped = set()
    while candidates:
        name = candidates.pop()
        node = kept.get(name)
        if node is None or name in dropped or read.get(name) or \
                not removable(index, node, read):
            continue
        dropped.add(name)
        for ref in node_refs(node):
            read.get(ref["node"], set()).discard(name)
            candidates.add(ref["node"])
    return [n for n in nodes if n["name"] not in dropped]


def removable(index, node, read):
    """A pure ATen node (or an in-place write of a tensor that only it
    reads), defining no symbol."""
    op = node["op"]
    if not op.startswith("aten::") or op in index.custom_ops or \
            "symbol" in node or op == "aten::copy_":
        return False
    if op.endswith("_"):
        base = node.get("args", [None])[0]
        return is_ref(base) and base["node"] in index.nodes and \
            read.get(base["node"], set()) == {node["name"]}
    return True
