# numpy reference for examples/attention_block.mlir.
rng = np.random.default_rng(3)


def attention(x, wq, wk):
    x64 = x.astype(np.float64)
    q, k = x64 @ wq, x64 @ wk
    s = q @ k.T
    e = np.exp(s - s.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return [((p @ x64) * p.max()).astype(np.float32)]


x = rng.standard_normal((128, 64)).astype(np.float32)
w = [(rng.standard_normal((64, 64)) / 8).astype(np.float32) for _ in range(2)]
CASES = [Case("attention_block", [x] + w, attention, rtol=1e-3, atol=1e-4)]
