"""Attention written out as models write it, captured with make_fx
(graphpart.capture), for attention-fusion-run.test: each saved as
OUT/<name>/, its example inputs as OUT/<name>.input.<i>.npy and PyTorch's
outputs as OUT/<name>.expected.<i>.npy (check_graphs.py's layout). Prints
how many attention blocks the converter fuses into gp::attention calls.

    python3 attention_programs.py OUT
"""
import math
import os
import sys

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
import graphpart  # noqa: E402
from graphpart import fuse_attention  # noqa: E402
from graphpart.format import load  # noqa: E402


def split_heads(x, heads):
    b, t, _ = x.shape
    return x.view(b, t, heads, -1).transpose(1, 2)


def merge_heads(x):
    b, _, t, _ = x.shape
    return x.transpose(1, 2).reshape(b, t, -1)


class Gpt2Attention(nn.Module):
    """GPT-2 (bench/gpt2_like.py): masked_fill(~causal, -inf) on the
    scores divided by sqrt(E), a bool buffer the mask."""

    def __init__(self, width=32, heads=2, positions=16):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(width, 3 * width)
        self.c_proj = nn.Linear(width, width)
        self.register_buffer("bias", torch.tril(torch.ones(
            positions, positions, dtype=torch.bool)))

    def forward(self, x):
        q, k, v = (split_heads(t, self.heads) for t in
                   self.c_attn(x).split(x.shape[-1], dim=2))
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        mask = self.bias[:x.shape[1], :x.shape[1]]
        scores = scores.masked_fill(~mask, float("-inf"))
        return self.c_proj(merge_heads(torch.softmax(scores, dim=-1) @ v))


class BertAttention(nn.Module):
    """BERT (bench/plain_models.py): no mask."""

    def __init__(self, width=32, heads=4):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = (nn.Linear(width, width)
                                            for _ in range(3))

    def forward(self, x):
        q, k, v = (split_heads(f(x), self.heads)
                   for f in (self.query, self.key, self.value))
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        return merge_heads(torch.softmax(scores, dim=-1) @ v)


class LlamaAttention(nn.Module):
    """Llama (bench/plain_models.py): 4 query heads over 2 key/value heads
    (repeat_interleave), an additive causal mask of -inf, the softmax in
    f32 and the probabilities back in the model's dtype."""

    def __init__(self, width=32, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        size = width // heads
        self.q_proj = nn.Linear(width, width, bias=False)
        self.k_proj = nn.Linear(width, kv_heads * size, bias=False)
        self.v_proj = nn.Linear(width, kv_heads * size, bias=False)

    def forward(self, x):
        tokens = x.shape[1]
        mask = torch.full((tokens, tokens), float("-inf"),
                          device=x.device).triu(1).to(x.dtype)
        q = split_heads(self.q_proj(x), self.heads)
        k = split_heads(self.k_proj(x), self.kv_heads)
        v = split_heads(self.v_proj(x), self.kv_heads)
        group = self.heads // self.kv_heads
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]) + mask
        probabilities = torch.softmax(scores.float(), dim=-1).to(q.dtype)
        return merge_heads(probabilities @ v)


def hf_llama(q, k, v):
    """Hugging Face's eager Llama attention: repeat_kv (a new group
    dimension expanded, then merged), an additive mask of the lowest
    float, the softmax in f32."""
    def repeat_kv(x, group):
        b, heads, s, d = x.shape
        return x[:, :, None, :, :].expand(b, heads, group, s, d).reshape(
            b, heads * group, s, d)
    tokens = q.shape[2]
    mask = torch.full((tokens, tokens), torch.finfo(q.dtype).min).triu(1)
    k, v = repeat_kv(k, 2), repeat_kv(v, 2)
    scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(q.shape[-1])
    probabilities = torch.softmax(scores + mask, dim=-1,
                                  dtype=torch.float32).to(q.dtype)
    return torch.matmul(probabilities, v)


def programs():
    torch.manual_seed(11)
    return {
        "gpt2": (Gpt2Attention().eval(), [torch.randn(2, 8, 32)]),
        "bert": (BertAttention().eval(), [torch.randn(2, 8, 32)]),
        "llama_bf16": (LlamaAttention().to(torch.bfloat16).eval(),
                       [torch.randn(1, 8, 32).to(torch.bfloat16)]),
        "hf_llama": (hf_llama, [torch.randn(1, 4, 6, 8),
                                torch.randn(1, 2, 6, 8),
                                torch.randn(1, 2, 6, 8)]),
    }


def _numpy(tensor):
    """bf16 as its raw bits (<u2), as gp-run reads and writes it."""
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16)
    return tensor.numpy()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, (fn, inputs) in programs().items():
        with torch.no_grad():
            graphpart.capture(fn, [i.clone() for i in inputs],
                              os.path.join(out, name), name=name,
                              method="make_fx")
            result = fn(*inputs)
        for i, value in enumerate(inputs):
            np.save(os.path.join(out, "%s.input.%d.npy" % (name, i)),
                    _numpy(value))
        np.save(os.path.join(out, "%s.expected.0.npy" % name),
                _numpy(result))
        graph, constants = load(os.path.join(out, name))
        print("fused %s: %d" % (name, fuse_attention.count(graph,
                                                           constants)))


if __name__ == "__main__":
    main()
