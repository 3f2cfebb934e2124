# numpy references for the models of models.py (run by ../../reference_check.py),
# from the same weights the .mlir files hold.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import weights  # noqa: E402

rng = np.random.default_rng(17)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def linear(x, w, b):
    return (x.astype(np.float64) @ w.T.astype(np.float64) + b).astype(np.float32)


def mlp(x):
    h = np.maximum(linear(x, weights("w1", (64, 32)), weights("b1", (64,))), 0)
    return [linear(h, weights("w2", (16, 64)), weights("b2", (16,)))]


def layer_norm(x):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    y = (x64 - mean) / np.sqrt(var + 1e-5)
    return [(y * weights("gamma", (64,)) + weights("beta", (64,))).astype(np.float32)]


def attention(x):
    q = linear(x, weights("wq", (64, 32)), weights("bq", (64,)))
    k = linear(x, weights("wk", (64, 32)), weights("bk", (64,)))
    v = linear(x, weights("wv", (32, 32)), weights("bv", (32,)))
    s = q.astype(np.float64) @ k.T.astype(np.float64) / 8
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return [(p @ v).astype(np.float32)]


def custom_op(x):
    t = np.maximum(x, 0)
    swapped = np.concatenate([t[4:], t[:4]])
    return [2 * t + swapped]


CASES = {
    "mlp": [Case("mlp", [normal(5, 32)], mlp, rtol=1e-4, atol=1e-4),
            Case("mlp", [normal(1, 32)], mlp, rtol=1e-4, atol=1e-4,
                 label="mlp batch 1"),
            Case("mlp", [normal(64, 32)], mlp, rtol=1e-4, atol=1e-4,
                 label="mlp batch 64")],
    "layer_norm": [Case("layer_norm", [normal(4, 64)], layer_norm,
                        rtol=1e-4, atol=1e-4)],
    "attention": [Case("attention", [normal(16, 32)], attention,
                       rtol=1e-4, atol=1e-4)],
    "custom_op": [Case("custom_op", [normal(8)], custom_op)],
}[os.environ["GP_MODEL"]]
