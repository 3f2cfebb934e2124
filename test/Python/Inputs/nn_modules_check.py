"""torch.nn modules users run for inference under torch.no_grad, compiled
with graphpart.compile for the host and checked against PyTorch eager:
multi-head attention and a transformer encoder layer (traced as their
composite ops, not the fused fast paths they take with autograd off),
instance norm and batch norm without running statistics (batch norm in
training mode over the batch's statistics); and tensor ops models use:
median and kthvalue with their indices, linspace, int64 shifts, a boolean
triangle mask, repeat_interleave, unfold (im2col), cdist; adaptive pooling to
sizes the input's are not multiples of; grid_sample (bilinear and nearest,
zeros and border padding, both align_corners); celu, round to decimals,
searchsorted and bucketize; LSTM, GRU and circular padding (written in place
through views, traced again functionalized); diagonal, rot90, trace, rrelu
out of training, nearest(-exact) resampling by any factor,
bicubic resampling, fold (col2im); sort, topk and median of int64 values.

    nn_modules_check.py RUNTIME GP_COMPILE WORK
"""
import os
import sys

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
import graphpart  # noqa: E402

runtime, gp_compile, work = sys.argv[1:4]
torch.manual_seed(0)


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 12, 3, padding=1)
        self.instance = nn.InstanceNorm1d(12, affine=True)
        self.batch = nn.BatchNorm1d(12, track_running_stats=False)
        self.plain = nn.InstanceNorm2d(3)

    def forward(self, x, image):
        y = self.batch(F.silu(self.instance(self.conv(x))))
        return y, self.plain(image)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x, need_weights=False)[0]


class TensorOps(nn.Module):
    def forward(self, x, ids):
        mask = torch.ones(x.shape[0], x.shape[0], dtype=torch.bool).triu(1)
        scores = x[:, :x.shape[0]].masked_fill(mask, float("-inf"))
        return (*x.median(1, keepdim=True), *x.kthvalue(3, 0), x.median(),
                torch.linspace(-2, 5, 7), scores.softmax(-1),
                (ids << 2) + (ids >> 1), x.repeat_interleave(2, dim=0),
                F.unfold(x.view(1, 2, 3, 5), (2, 3), dilation=(1, 2),
                         padding=1, stride=(2, 1)),
                torch.cdist(x, x[:4]), torch.cdist(x, x[1:], p=1),
                torch.cdist(x, x, p=float("inf")), torch.cdist(x, x, p=3))


class Losses(nn.Module):
    def forward(self, x, y, target, weight):
        return (F.cross_entropy(x, target),
                F.cross_entropy(x, target, weight=weight, reduction="sum"),
                F.nll_loss(x.log_softmax(1), target, reduction="none",
                           ignore_index=2),
                F.cross_entropy(x.view(2, 3, 6).transpose(1, 2),
                                target.view(2, 3), label_smoothing=0.0),
                F.mse_loss(x, y, reduction="none"),
                F.smooth_l1_loss(x, y, beta=0.5, reduction="sum"),
                F.huber_loss(x, y, delta=0.7),
                F.binary_cross_entropy_with_logits(
                    x, y.sigmoid(), weight=weight, pos_weight=weight * 2))


class UnevenPools(nn.Module):
    def forward(self, image, seq, volume):
        return (F.adaptive_avg_pool2d(image, (3, 3)),
                F.adaptive_max_pool2d(image, (4, 2)),
                F.adaptive_avg_pool1d(seq, 5), F.adaptive_max_pool1d(seq, 3),
                F.adaptive_avg_pool3d(volume, (2, 3, 2)))


class GridSample(nn.Module):
    def forward(self, image, grid):
        return (F.grid_sample(image, grid, align_corners=True),
                F.grid_sample(image, grid * 1.4),
                F.grid_sample(image, grid, mode="nearest",
                              padding_mode="border"),
                F.grid_sample(image, grid * 1.3, padding_mode="border"))


class SearchRound(nn.Module):
    def forward(self, x, sequence, ids):
        boundaries = sequence.sort().values
        rows = x.sort(dim=1).values
        steps = torch.arange(0, 1000, 37)
        return (F.celu(x, 0.7), x.round(decimals=2), (x * 50).round(
                    decimals=-1), torch.searchsorted(boundaries, x),
                torch.searchsorted(boundaries, x, side="right"),
                torch.bucketize(x, boundaries, right=True),
                torch.searchsorted(rows, x[:, :3].contiguous() * 0.5),
                torch.searchsorted(steps, ids),
                torch.bucketize(ids, steps, right=True))


class Recurrent(nn.Module):
    """LSTM and GRU cells write their gates in place through unsafe_split's
    pieces, and circular padding writes slices of a new tensor: make_fx's
    trace is taken again functionalized."""
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True)
        self.gru = nn.GRU(8, 5)

    def forward(self, x, image):
        y, (h, c) = self.lstm(x)
        z, g = self.gru(y.transpose(0, 1))
        return y, h, c, z, g, F.pad(image, (1, 2, 2, 1), mode="circular")


class Rearranging(nn.Module):
    """Diagonals (and diag_embed, int64 too), quarter turns, trace, rrelu
    out of training, nearest resampling (nearest-exact too) by whole
    factors and others, antialiased bilinear and bicubic (down and up),
    and
    bicubic resampling (half-pixel and corner-aligned), fold (col2im);
    cats of two to four pieces (one elementwise op picking a piece per
    element: rotate_half, uneven pieces, int64 and bool, an empty piece,
    stack) and of five (slice writes)."""
    def forward(self, x, image):
        half = torch.cat([-x[:, 3:], x[:, :3]], dim=-1)
        cats = (x * 2 + half * 0.5,
                torch.cat([x[:1], x, x[2:] * 3], dim=0),
                torch.cat([x.long(), (x * 10).long()[:, :2]], dim=1),
                torch.cat([x > 0, x[:, :1] < 0], dim=1),
                torch.cat([x[:, :0], x.t().reshape(4, 5)], dim=1),
                torch.stack([x, -x, x * x], dim=1),
                torch.cat([x, x + 1, x + 2, x + 3, x + 4], dim=1))
        return cats + (torch.diagonal(x, 1), torch.diagonal(x.view(2, 2, 5), -1, 2, 0),
                torch.rot90(x, 1, (0, 1)), torch.rot90(x, -1, (1, 0)),
                torch.rot90(x, 2), torch.trace(x[:, :4]),
                torch.diag_embed(x[:, :3], -1),
                torch.diag_embed(x.view(2, 2, 5), 2, 0, 2),
                torch.diag_embed(x[0].long()),
                F.rrelu(x, 0.1, 0.3, training=False),
                F.interpolate(image, size=(12, 24), mode="nearest-exact"),
                F.interpolate(image, size=(3, 2), mode="nearest-exact"),
                F.interpolate(image, scale_factor=0.5, mode="nearest"),
                F.interpolate(image, size=(13, 5), mode="nearest"),
                F.interpolate(image, scale_factor=(0.6, 2.5),
                              mode="nearest-exact"),
                F.interpolate(image, scale_factor=2, mode="bicubic"),
                F.interpolate(image, size=(7, 4), mode="bicubic",
                              align_corners=True),
                F.interpolate(image, size=(9, 13), mode="bicubic"),
                F.interpolate(image, scale_factor=0.5, mode="bilinear",
                              antialias=True),
                F.interpolate(image, size=(3, 7), mode="bilinear",
                              antialias=True, align_corners=True),
                F.interpolate(image, size=(5, 2), mode="bicubic",
                              antialias=True),
                F.interpolate(image, size=(13, 9), mode="bicubic",
                              antialias=True),
                F.fold(x.view(1, 4, 5), (2, 6), 2),
                F.fold(image.view(2, 12, 4), (7, 6), (3, 2), dilation=(1, 2),
                       padding=1, stride=(4, 3)))


class IntegerOrder(nn.Module):
    """sort, topk, argsort, median and kthvalue of int64 values past f32's
    exact range (2^24), kept in int64 (all distinct: ties' order is
    PyTorch's to choose)."""
    def forward(self, ids):
        # Two groups past 2^33, apart in the low bits only: f32 would tie
        # them.
        v = (ids // 500) * 2 ** 33 - torch.arange(35).view(5, 7)
        return (*v.sort(dim=1), *v.topk(3, dim=0, largest=False),
                v.argsort(1, descending=True), v.median(1).values,
                *v.kthvalue(2, 1))


cases = [
    ("integer_order", IntegerOrder(), [torch.randint(0, 1000, (5, 7))]),
    ("rearranging", Rearranging(), [torch.randn(4, 5),
                                    torch.randn(1, 2, 6, 8)]),
    ("recurrent", Recurrent().eval(), [torch.randn(2, 4, 6),
                                       torch.randn(1, 2, 4, 5)]),
    ("search_round", SearchRound(), [torch.randn(4, 5), torch.randn(9),
                                     torch.randint(0, 1000, (3, 6))]),
    ("norms", Norms().eval(), [torch.randn(2, 8, 10), torch.randn(2, 3, 5, 4)]),
    ("attention", Attention().eval(), [torch.randn(2, 5, 16)]),
    ("encoder", nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0,
                                           batch_first=True).eval(),
     [torch.randn(2, 5, 16)]),
    ("losses", Losses(), [torch.randn(6, 6) * 3, torch.randn(6, 6),
                          torch.tensor([0, 2, 5, 1, 2, 3]), torch.rand(6)]),
    ("uneven_pools", UnevenPools(), [torch.randn(2, 3, 10, 7),
                                     torch.randn(2, 4, 11),
                                     torch.randn(1, 2, 5, 7, 3)]),
    ("grid_sample", GridSample(), [torch.randn(2, 3, 5, 6),
                                   torch.rand(2, 4, 3, 2) * 2 - 1]),
    ("tensor_ops", TensorOps(), [torch.randn(5, 6),
                                 torch.randint(0, 1000, (7,))]),
    ("encoder_gelu_norm_first", nn.TransformerEncoderLayer(
        16, 2, 24, dropout=0.0, activation="gelu", batch_first=True,
        norm_first=True).eval(), [torch.randn(3, 4, 16)]),
]
failures = 0
for name, model, inputs in cases:
    with torch.no_grad():
        want = model(*inputs)
        compiled = graphpart.compile(
            model, inputs, target="host", work_dir=os.path.join(work, name),
            gp_compile=gp_compile, runtime_library=runtime)
        # Other values than the example's: nothing baked in.
        fresh = [torch.randn_like(i) if i.is_floating_point() else
                 torch.randint_like(i, 0, 1000 if name != "losses" else 6)
                 for i in inputs]
        want_fresh = model(*fresh)
        got, got_fresh = compiled(*inputs), compiled(*fresh)
    for expected, actual in ((want, got), (want_fresh, got_fresh)):
        expected = expected if isinstance(expected, tuple) else (expected,)
        actual = actual if isinstance(actual, tuple) else (actual,)
        # Relative to the value: the losses sum many terms.
        error = max(float(((e.double() - a.double()).abs() /
                           (1 + e.double().abs())).max())
                    for e, a in zip(expected, actual))
        ok = len(expected) == len(actual) and error <= 1e-5
        failures += not ok
        print("%s %s: max relative error %.2g" % (name, "ok" if ok else "FAILED",
                                          error))
    # The fused fast paths never reach the graph.
    graph = open(os.path.join(work, name, "graph", "graph.json")).read()
    for fused in ("_native_multi_head_attention",
                  "_transformer_encoder_layer_fwd"):
        if fused in graph:
            print("%s FAILED: the graph has aten::%s" % (name, fused))
            failures += 1
# A class index outside the classes fails the call, as PyTorch raises.
examples = {name: inputs for name, _, inputs in cases}
losses = graphpart.compile(Losses(), examples["losses"], target="host",
                           work_dir=os.path.join(work, "losses_bad"),
                           gp_compile=gp_compile, runtime_library=runtime)
bad = list(examples["losses"])
bad[2] = torch.tensor([0, 2, 6, 1, 2, 3])
try:
    losses(*bad)
    print("losses FAILED: a target of 6 among 6 classes was accepted")
    failures += 1
except graphpart.GraphError as error:
    print("bad target:", str(error).splitlines()[0])
print("nn modules: %d failure(s)" % failures)
sys.exit(1 if failures else 0)
