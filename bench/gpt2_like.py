"""A GPT-2 124M (12 layers, width 768, 12 heads, vocabulary 50257, 1024
positions) in plain PyTorch, for measuring on the development machine
(PyTorch 1.13, no transformers) what the weights cost the compiler: the
program's MLIR size and the convert + compile time, and the artifact's
result against eager on the host backend with the module's own 124M
parameters bound at load.

    gpt2_like.py RUNTIME_LIBRARY GP_COMPILE WORK [--tokens N] [--layers L]
                 [--target host|cuda] [--no-run]

Captured with make_fx (attention written out: matmul, causal mask,
softmax), as Hugging Face's GPT2Model computes it, parameters under its
names (h.0.attn.c_attn.weight, ...).
"""
import math
import os
import subprocess
import sys
import time

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python"))
import graphpart  # noqa: E402
from graphpart.compiler import build  # noqa: E402


class Attention(torch.nn.Module):
    def __init__(self, width, heads, positions):
        super().__init__()
        self.heads = heads
        self.c_attn = torch.nn.Linear(width, 3 * width)
        self.c_proj = torch.nn.Linear(width, width)
        self.register_buffer("bias", torch.tril(torch.ones(
            positions, positions, dtype=torch.bool)), persistent=False)

    def forward(self, x):
        batch, tokens, width = x.shape
        q, k, v = self.c_attn(x).split(width, dim=2)

        def heads(t):
            return t.view(batch, tokens, self.heads,
                          width // self.heads).transpose(1, 2)
        q, k, v = heads(q), heads(k), heads(v)
        scores = q @ k.transpose(-1, -2) / math.sqrt(width // self.heads)
        mask = self.bias[:tokens, :tokens]
        scores = scores.masked_fill(~mask, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        return self.c_proj(out.transpose(1, 2).reshape(batch, tokens, width))


class Block(torch.nn.Module):
    def __init__(self, width, heads, positions):
        super().__init__()
        self.ln_1 = torch.nn.LayerNorm(width)
        self.attn = Attention(width, heads, positions)
        self.ln_2 = torch.nn.LayerNorm(width)
        self.c_fc = torch.nn.Linear(width, 4 * width)
        self.c_proj = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        h = torch.nn.functional.gelu(self.c_fc(self.ln_2(x)),
                                     approximate="tanh")
        return x + self.c_proj(h)


class GPT2(torch.nn.Module):
    def __init__(self, layers=12, width=768, heads=12, vocabulary=50257,
                 positions=1024):
        super().__init__()
        self.wte = torch.nn.Embedding(vocabulary, width)
        self.wpe = torch.nn.Embedding(positions, width)
        self.h = torch.nn.ModuleList(
            [Block(width, heads, positions) for _ in range(layers)])
        self.ln_f = torch.nn.LayerNorm(width)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.wte(ids) + self.wpe(positions)
        for block in self.h:
            x = block(x)
        return self.ln_f(x)


def main():
    args = sys.argv[1:]
    flags = {"--tokens": "64", "--layers": "12", "--target": "host"}
    run = "--no-run" not in args
    args = [a for a in args if a != "--no-run"]
    for flag in list(flags):
        if flag in args:
            at = args.index(flag)
            flags[flag] = args[at + 1]
            del args[at:at + 2]
    runtime, gp_compile, work = args
    tokens, layers = int(flags["--tokens"]), int(flags["--layers"])
    torch.manual_seed(7)
    model = GPT2(layers=layers).eval()
    count = sum(p.numel() for p in model.parameters())
    ids = torch.randint(0, 50257, (1, tokens))
    graph_dir = os.path.join(work, "graph")
    start = time.perf_counter()
    with torch.no_grad():
        graphpart.capture(model, [ids], graph_dir, name="gpt2",
                          method="make_fx", save_parameters=False)
    captured = time.perf_counter() - start
    start = time.perf_counter()
    built = build(graph_dir, work, flags["--target"], gp_compile=gp_compile)
    compiled = time.perf_counter() - start
    mlir = os.path.join(work, "gpt2.mlir")
    print("GPT-2 like, %d layers, %.1fM parameters, %d tokens: capture %.1f "
          "s; convert + gp-compile (%s) %.1f s; MLIR %.2f MB; %d parameters "
          "bound at load" % (layers, count / 1e6, tokens, captured,
                             flags["--target"], compiled,
                             os.path.getsize(mlir) / 1e6,
                             len(graphpart.load_graph(graph_dir)[0].get(
                                 "parameters", []))))
    if not run:
        return 0
    artifact = graphpart.load(os.path.join(work, built["artifact"]),
                              module=model, runtime_library=runtime)
    with torch.no_grad():
        want = model(ids)
        got = artifact(ids)
        worst = (got - want).abs().max().item()
        # An update in place of the module's weights, seen by the next call.
        model.h[0].c_fc.weight.mul_(1.5)
        want_after = model(ids)
        worst_after = (artifact(ids) - want_after).abs().max().item()
    ok = worst <= 1e-3 and worst_after <= 1e-3
    print("%s: max abs difference against eager %.2e; after an in-place "
          "update of h.0.c_fc.weight %.2e (native call path: %s)" % (
              "ok" if ok else "FAILED", worst, worst_after, artifact.native))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
