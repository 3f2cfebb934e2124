# numpy references for tensor_ops.mlir (run by ../../reference_check.py).
rng = np.random.default_rng(29)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def elementwise(x, y):
    e = np.exp(x + y)
    return [e, np.tanh(np.where(x > y, x, e))]


def named(x, y):
    m = x * y
    return [m, m.T, m.sum(axis=1)]


def reshape_pad(x, y):
    c = np.concatenate([x, y], axis=1)
    return [c, np.pad(c, ((1, 1), (2, 0)), constant_values=-1.0),
            x.reshape(-1)]


def conv_pool(x, w):
    out = np.zeros((1, 4, 4, 4), np.float32)
    for i in range(4):
        for j in range(4):
            out[0, i, j] = np.einsum("hwc,hwcf->f", x[0, i:i + 3, j:j + 3],
                                     w.astype(np.float64))
    return [out, x.reshape(1, 3, 2, 3, 2, 2).max(axis=(2, 4))]


CASES = [
    Case("elementwise", [normal(4, 5), normal(4, 5)], elementwise),
    Case("elementwise", [normal(1, 5), normal(1, 5)], elementwise,
         label="elementwise 1 row"),
    Case("named", [normal(2, 3), normal(3)], named),
    Case("reshape_pad", [normal(2, 3), normal(2, 2)], reshape_pad),
    Case("conv_pool", [normal(1, 6, 6, 2), normal(3, 3, 2, 4)], conv_pool,
         rtol=1e-5, atol=1e-5),
]
