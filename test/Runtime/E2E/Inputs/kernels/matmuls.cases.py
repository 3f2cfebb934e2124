# numpy references for matmuls.mlir (run by ../../reference_check.py).
rng = np.random.default_rng(7)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def small_integers(*shape):
    return rng.integers(-4, 5, shape).astype(np.float32)


def bf16_bits(values):
    """bf16 as numpy cannot hold it: the top 16 bits of exact f32 values."""
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(
        np.uint16)


def mm(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


A_BF16, B_BF16 = small_integers(24, 8), small_integers(8, 40)

CASES = [
    Case("mm", [normal(33, 70), normal(70, 45)], lambda a, b: [mm(a, b)],
         rtol=1e-4, atol=1e-4),
    Case("mm_accumulate", [normal(33, 70), normal(70, 45)],
         lambda a, b: [1 + mm(a, b)], rtol=1e-4, atol=1e-4),
    Case("mm_transposed", [normal(70, 33), normal(45, 70)],
         lambda a, b: [mm(a.T, b.T)], rtol=1e-4, atol=1e-4),
    Case("bmm", [normal(4, 16, 32), normal(4, 32, 8)],
         lambda a, b: [np.matmul(a.astype(np.float64), b).astype(np.float32)],
         rtol=1e-4, atol=1e-4),
    Case("mm_window", [normal(40, 80), normal(70, 45)],
         lambda x, b: [mm(x[2:35, 5:75], b)], rtol=1e-4, atol=1e-4),
    Case("mm_every_other", [normal(33, 140), normal(70, 45)],
         lambda x, b: [mm(x[:, ::2], b)], rtol=1e-4, atol=1e-4),
    Case("mm_f16", [normal(33, 70), normal(70, 45)],
         lambda a, b: [mm(a.astype(np.float16), b.astype(np.float16))
                       .astype(np.float16).astype(np.float32)],
         rtol=2e-2, atol=2e-2),
    # Small integers, so every product and sum is exact in bf16 whether it
    # accumulates in bf16 (host loops) or f32 (cuBLAS): compared exactly.
    Case("mm_bf16", [bf16_bits(A_BF16), bf16_bits(B_BF16)],
         lambda a, b: [bf16_bits(A_BF16 @ B_BF16)], rtol=0, atol=0),
    Case("linear_relu", [normal(8, 256), normal(256, 128), normal(128)],
         lambda x, w, b: [(np.maximum(mm(x, w) + b, 0) * 0.5)
                          .astype(np.float32)],
         rtol=1e-4, atol=1e-4),
    Case("scores_from_cache", [normal(4, 1, 16), normal(1, 4, 8, 16)],
         lambda q, k: [np.matmul(q.astype(np.float64),
                                 k[0].transpose(0, 2, 1)).astype(np.float32)],
         rtol=1e-4, atol=1e-4),
    Case("values_from_cache", [normal(4, 1, 8), normal(1, 4, 8, 16)],
         lambda p, v: [np.matmul(p.astype(np.float64), v[0])
                       .astype(np.float32)],
         rtol=1e-4, atol=1e-4),
]
