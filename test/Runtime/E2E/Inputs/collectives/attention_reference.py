"""Writes inputs for attention.mlir and tp_attention.mlir (x, w_qkv, w_o)
and numpy's result of the attention block into WORK as .npy files.

    attention_reference.py WORK
"""
import os
import sys

import numpy as np

S, W, H, D = 8, 64, 4, 16
work = sys.argv[1]
r = np.random.default_rng(5)
x = r.standard_normal((S, W)).astype(np.float32)
wqkv = (r.standard_normal((W, 3 * W)) / 8).astype(np.float32)
wo = (r.standard_normal((W, W)) / 8).astype(np.float32)
q, k, v = x @ wqkv[:, :W], x @ wqkv[:, W:2 * W], x @ wqkv[:, 2 * W:]
heads = []
for h in range(H):
    cols = slice(h * D, (h + 1) * D)
    s = q[:, cols] @ k[:, cols].T * 0.25
    p = np.exp(s - s.max(1, keepdims=True))
    heads.append((p / p.sum(1, keepdims=True)) @ v[:, cols])
y = np.concatenate(heads, 1) @ wo
for name, array in (("x", x), ("wqkv", wqkv), ("wo", wo),
                    ("y", y.astype(np.float32))):
    np.save(os.path.join(work, name + ".npy"), array)
print("attention reference: written")
