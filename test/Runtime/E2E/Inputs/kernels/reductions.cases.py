# numpy references for reductions.mlir (run by ../reference_check.py).
rng = np.random.default_rng(12)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return [e / e.sum(axis=1, keepdims=True)]


def max_f16(x):
    return [np.float32(x.astype(np.float16).max())]


def xor_min(x):
    positions = np.arange(x.size, dtype=np.int64)
    values = ((x.astype(np.int64) + positions) & 0xFFFFFFFF).astype(np.uint32)
    return [np.array(np.bitwise_xor.reduce(values)).astype(np.int32),
            np.array(x.min(), dtype=np.int32)]


def max_min(x):
    return [np.array(x.max(), dtype=np.float32),
            np.array(x.min(), dtype=np.float32)]


def with_nan(x):
    x = x.copy()
    x[len(x) // 3] = np.nan
    return x


def layer_norm(x):
    mean = x.mean(axis=1, keepdims=True, dtype=np.float64)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return [((x - mean) / np.sqrt(var + 1e-5)).astype(np.float32)]


def stats(x):
    x64 = x.astype(np.float64)
    return [x64.sum(axis=1).astype(np.float32),
            (x64 * x64).sum(axis=1).astype(np.float32)]


CASES = [
    Case("row_max", [normal(128, 1000)], lambda x: [x.max(axis=1)]),
    Case("softmax", [normal(64, 300) * 4], softmax, rtol=1e-4, atol=1e-7),
    # A long vector: on cuda, many blocks combine their sums atomically.
    Case("sum_all", [normal(1 << 20)],
         lambda x: [np.float32(1 + x.astype(np.float64).sum())],
         rtol=1e-4, atol=2e-3, label="sum_all (1M elements)"),
    Case("sum_all", [normal(5)],
         lambda x: [np.float32(1 + x.astype(np.float64).sum())],
         rtol=1e-5, atol=1e-5, label="sum_all (5 elements)"),
    Case("max_all_f16", [normal(300000) * 100], max_f16, rtol=0, atol=0),
    # Both signs, all negative, all positive (each atomic path alone and
    # mixed), and a NaN, which both propagate.
    Case("max_min_all", [normal(300000)], max_min, rtol=0, atol=0,
         label="max_min_all (mixed signs)"),
    Case("max_min_all", [-np.abs(normal(100000)) - 1], max_min, rtol=0,
         atol=0, label="max_min_all (negative)"),
    Case("max_min_all", [np.abs(normal(100000)) + 1], max_min, rtol=0,
         atol=0, label="max_min_all (positive)"),
    Case("max_min_all", [with_nan(normal(100000))], max_min, rtol=0, atol=0,
         label="max_min_all (a NaN)"),
    Case("stats", [normal(4, 500, 6)], stats, rtol=1e-4, atol=1e-3),
    Case("column_sum", [normal(16, 4096)],
         lambda x: [x.astype(np.float64).sum(axis=0).astype(np.float32)],
         rtol=1e-5, atol=1e-5),
    Case("xor_min",
         [rng.integers(-2**31, 2**31 - 1, 100000, dtype=np.int64).astype(np.int32)],
         xor_min, rtol=0, atol=0),
    # Values past 32 bits, both signs: a sum that keeps only 32 bits of a
    # shuffled value, or a maximum of the low halves, would differ.
    Case("wide_sums",
         [rng.integers(-2**40, 2**40, 300000, dtype=np.int64),
          rng.standard_normal((8, 1000)) * 1e10],
         lambda x, y: [np.array(x.sum(), dtype=np.int64),
                       np.array(x.max(), dtype=np.int64), y.sum(axis=1)],
         rtol=1e-12, atol=0),
    Case("layer_norm", [normal(8, 256) * 3 + 1], layer_norm, rtol=1e-4,
         atol=1e-4, label="layer_norm (8 rows)"),
    Case("layer_norm", [normal(1000, 256)], layer_norm, rtol=1e-4,
         atol=1e-4, label="layer_norm (1000 rows)"),
]
