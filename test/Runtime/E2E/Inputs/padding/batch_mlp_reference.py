"""Inputs and numpy's result for batch_mlp.mlir at the given batch sizes.

usage: batch_mlp_reference.py PREFIX N [N ...]
Writes PREFIX.w1.npy, PREFIX.b1.npy, PREFIX.w2.npy, and per size N
PREFIX.x<N>.npy and PREFIX.ref<N>.npy (softmax(relu(x @ w1 + b1) @ w2)).
"""
import sys

import numpy as np

prefix, sizes = sys.argv[1], [int(n) for n in sys.argv[2:]]
rng = np.random.default_rng(7)
w1 = rng.standard_normal((16, 32), dtype=np.float32)
b1 = rng.standard_normal(32, dtype=np.float32)
w2 = rng.standard_normal((32, 8), dtype=np.float32) / 4
for name, array in (("w1", w1), ("b1", b1), ("w2", w2)):
    np.save("%s.%s.npy" % (prefix, name), array)
for n in sizes:
    x = rng.standard_normal((n, 16), dtype=np.float32)
    h = np.maximum(x.astype(np.float64) @ w1 + b1, 0) @ w2
    e = np.exp(h - h.max(axis=1, keepdims=True))
    np.save("%s.x%d.npy" % (prefix, n), x)
    np.save("%s.ref%d.npy" % (prefix, n), (e / e.sum(axis=1, keepdims=True)).astype(np.float32))
