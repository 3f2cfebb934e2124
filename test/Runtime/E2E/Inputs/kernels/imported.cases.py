# numpy references for imported.mlir (run by ../../reference_check.py).
rng = np.random.default_rng(13)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def mm(a, b):
    return (a.astype(np.float64) @ b).astype(np.float32)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def store_scalar(x):
    y = x.copy()
    y[3] = 2 * x[0] + x[1]
    return [y]


CASES = [
    Case("mlp", [normal(4, 8), normal(8, 16), normal(16)],
         lambda x, w, b: [np.maximum(mm(x, w) + b, 0)], rtol=1e-4, atol=1e-4),
    Case("softmax_rows", [normal(6, 10)], lambda x: [softmax(x)]),
    Case("transpose_add", [normal(3, 5), normal(3)], lambda x, v: [x.T + v]),
    Case("dynamic_scale", [normal(5, 4)], lambda x: [2 * x]),
    Case("dynamic_scale", [normal(1, 4)], lambda x: [2 * x],
         label="dynamic_scale 1 row"),
    Case("slices", [normal(4, 6)],
         lambda x: [2 * x[1], -x[:, :3].T]),
    Case("item_scale", [normal(8), normal(2)], lambda x, s: [x * s[1]]),
    Case("store_scalar", [normal(4)], store_scalar),
    Case("constants", [normal(2, 3)],
         lambda x: [x + np.array([[1, 2, 3], [4, 5, 6]], np.float32) + 0.5]),
    Case("accumulate", [normal(4, 8), normal(8, 4), normal(4, 4)],
         lambda a, b, c: [c + mm(a, b)], rtol=1e-4, atol=1e-4),
    Case("call_mm", [normal(4, 8), normal(8, 5)],
         lambda a, b: [mm(a, b)], rtol=1e-4, atol=1e-4),
    Case("loops", [normal(3, 7)], lambda x: [x * x, x * x + 1]),
]
CASES += [
    Case("flatten_dynamic", [normal(3, 4)], lambda x: [-x.reshape(-1)]),
    Case("flatten_dynamic", [normal(7, 4)], lambda x: [-x.reshape(-1)],
         label="flatten_dynamic 7 rows"),
]
