"""Input and numpy's softmax over dimension 1 for softmax_named.mlir:
writes PREFIX.x.npy and PREFIX.ref.npy (a 2xNx8 input, N from argv)."""
import sys

import numpy as np

prefix, n = sys.argv[1], int(sys.argv[2])
x = (np.random.default_rng(3).standard_normal((2, n, 8)) * 4).astype(np.float32)
e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
np.save(prefix + ".x.npy", x)
np.save(prefix + ".ref.npy", (e / e.sum(axis=1, keepdims=True)).astype(np.float32))
